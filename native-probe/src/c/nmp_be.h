/* nmp_be.h -- big-endian (network order) fields of wire formats: the
 * frames, STAMP, OWAMP and TWAMP packets and messages all carry them. Internal. */
#ifndef NMP_BE_H
#define NMP_BE_H

#include <stdint.h>

static inline void put16(uint8_t *b, uint16_t v) { b[0] = (uint8_t)(v >> 8), b[1] = (uint8_t)v; }
static inline void put32(uint8_t *b, uint32_t v) {
    b[0] = (uint8_t)(v >> 24), b[1] = (uint8_t)(v >> 16), b[2] = (uint8_t)(v >> 8), b[3] = (uint8_t)v;
}
static inline void put64(uint8_t *b, uint64_t v) { put32(b, (uint32_t)(v >> 32)), put32(b + 4, (uint32_t)v); }
static inline uint16_t get16(const uint8_t *b) { return (uint16_t)(b[0] << 8 | b[1]); }
static inline uint32_t get32(const uint8_t *b) {
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}
static inline uint64_t get64(const uint8_t *b) { return (uint64_t)get32(b) << 32 | get32(b + 4); }

#endif
