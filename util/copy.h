/*
 * util/copy.h: memcpy for the small pieces of a message (headers of 16
 * bytes, payloads of a few): fixed-size moves, overlapping, instead of a
 * library call each; larger copies go to memcpy.
 */
#ifndef UTIL_COPY_H
#define UTIL_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline void ut_copy(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    uint64_t a, b, c, e;

    if (n > 32) {
        memcpy(d, s, n);
    } else if (n >= 16) {
        memcpy(&a, s, 8);
        memcpy(&b, s + 8, 8);
        memcpy(&c, s + n - 16, 8);
        memcpy(&e, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + 8, &b, 8);
        memcpy(d + n - 16, &c, 8);
        memcpy(d + n - 8, &e, 8);
    } else if (n >= 8) {
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, s, 4);
        memcpy(&y, s + n - 4, 4);
        memcpy(d, &x, 4);
        memcpy(d + n - 4, &y, 4);
    } else if (n) {
        d[0] = s[0];
        d[n / 2] = s[n / 2];
        d[n - 1] = s[n - 1];
    }
}

#endif
