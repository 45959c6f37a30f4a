/* nmp_pfs.h -- key files in owampd's pfs format: the keys a STAMP sender or
 * reflector shares with its peers, each named by a key id. Internal.
 *
 * One key a line, "KEYID HEXKEY": the id (1..80 bytes, no white space: what
 * OWAMP's KeyID field holds) and the key as hex digits (16..64 bytes, so
 * the 128-bit keys owampd's aespasswd writes are read as they are); blank
 * lines and lines starting with '#' are skipped. The file must be a regular
 * file that neither group nor others may read or write (chmod 600), as
 * nmp_auth.h's key file. The ids are not secret; the keys are, and are
 * wiped from memory when the set is freed. */
#ifndef NMP_PFS_H
#define NMP_PFS_H

#include <stddef.h>
#include <stdint.h>

#define NMP_PFS_ID_MAX 80            /* bytes of a key id */
#define NMP_PFS_KEY_MIN 16           /* bytes of a key: 128 bits at least */
#define NMP_PFS_KEY_MAX 64
#define NMP_PFS_MAX_KEYS 64          /* keys in one file (a reflector tries each on a new session) */
#define NMP_PFS_FILE_MAX 65536       /* bytes of a key file */

typedef struct nmp_pfs_key {
    char id[NMP_PFS_ID_MAX + 1];     /* key id, NUL-terminated */
    size_t len;                      /* bytes used in k */
    uint8_t k[NMP_PFS_KEY_MAX];      /* the key */
} nmp_pfs_key;

typedef struct nmp_pfs {
    size_t n;                        /* keys held */
    nmp_pfs_key key[NMP_PFS_MAX_KEYS];
} nmp_pfs;

/* Reads the key file at path into *out (which the caller allocates).
 * Returns 0, or -errno / -EINVAL / -EPERM with err naming the file, the
 * line and what is wrong with it. *out is wiped on failure. */
int nmp_pfs_load(const char *path, nmp_pfs *out, char *err, size_t errlen);
/* Parses len bytes of key file text (the same rules, without the file's
 * checks); 'what' names it in messages. Returns 0 or -EINVAL. */
int nmp_pfs_parse(const char *text, size_t len, const char *what, nmp_pfs *out, char *err, size_t errlen);
/* The one reader of the format, which OWAMP's key lookup (nmp_owctl.h) shares:
 * one line (without its "\n") split into its id and hex key, located in s,
 * not copied. Returns 1 for a key line, 0 for a blank or '#' line, -EINVAL
 * for anything else (more or fewer fields). Lengths are the caller's to bound. */
int nmp_pfs_line(const char *s, size_t len, const char **id, size_t *idlen, const char **hex, size_t *hexlen);
/* Decodes hexlen hex digits into hexlen / 2 bytes of out. -EINVAL for an odd
 * count or a character that is no hex digit. */
int nmp_pfs_hex(const char *hex, size_t hexlen, uint8_t *out);
/* Reads a whole key file into a new buffer: a regular file that neither
 * group nor others may read or write, of at most max bytes (one more is
 * refused, not cut). Returns 0 with *text (free it with nmp_pfs_free_text)
 * and *len, or -errno / -EINVAL / -EPERM with err naming the file. */
int nmp_pfs_read(const char *path, size_t max, char **text, size_t *len, char *err, size_t errlen);
/* Wipes and frees what nmp_pfs_read returned. */
void nmp_pfs_free_text(char *text, size_t len);
/* The key with this id, or NULL. */
const nmp_pfs_key *nmp_pfs_find(const nmp_pfs *f, const char *id);
/* 1 when id is a valid key id (1..80 bytes, printable, no white space). */
int nmp_pfs_id_valid(const char *id);
/* Overwrites every key in memory. */
void nmp_pfs_wipe(nmp_pfs *f);

#endif
