/* nmp_test.h -- a minimal assertion kit for the C unit tests run by ctest:
 * each failed check prints file:line and the expression, and main returns 1
 * when any failed (never the count: an exit status keeps only its low 8 bits). */
#ifndef NMP_TEST_H
#define NMP_TEST_H

#include <math.h>
#include <stdio.h>

static int nmp_test_failures;

#define CHECK(cond)                                                                     \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);    \
            nmp_test_failures++;                                                        \
        }                                                                               \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                              \
    do {                                                                                \
        long long _a = (long long)(a), _b = (long long)(b);                             \
        if (_a != _b) {                                                                 \
            fprintf(stderr, "%s:%d: %s == %lld, expected %lld\n", __FILE__, __LINE__, #a, _a, _b); \
            nmp_test_failures++;                                                        \
        }                                                                               \
    } while (0)

#define CHECK_NEAR(a, b, eps)                                                           \
    do {                                                                                \
        double _a = (a), _b = (b);                                                      \
        if (!(fabs(_a - _b) <= (eps))) {                                                \
            fprintf(stderr, "%s:%d: %s == %.12g, expected %.12g\n", __FILE__, __LINE__, #a, _a, _b); \
            nmp_test_failures++;                                                        \
        }                                                                               \
    } while (0)

#define TEST(name) static void name(void)
#define RUN(name)                                                                       \
    do {                                                                                \
        int _before = nmp_test_failures;                                                \
        name();                                                                         \
        fprintf(stderr, "%s %s\n", nmp_test_failures == _before ? "ok  " : "FAIL", #name); \
    } while (0)

#endif
