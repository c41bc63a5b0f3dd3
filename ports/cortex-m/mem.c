/*
 * mem.c - memcpy, memmove and memset of the bare-metal firmware, in place of
 * newlib-nano's (660 B of flash on a Cortex-M33; these about a quarter): words
 * when the pointers are word-aligned, bytes otherwise. The kernels' copies are
 * small (argument words, rows) or fills of int16 planes: DS-CNN int8 on
 * mps2-an505 runs the same instructions within 0.1 %. Word accesses only at
 * word-aligned addresses (no unaligned access: Cortex-M0+ has none).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A word that may alias any object (these functions copy objects of any type). */
typedef uint32_t __attribute__((__may_alias__)) mem_word_t;

/* GCC would turn the loops below into calls of these very functions. */
#if defined(__GNUC__) && !defined(__clang__)
#define MEM_NO_LIBCALLS __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define MEM_NO_LIBCALLS
#endif

/** Forward copy of n bytes (dst <= src or apart). */
MEM_NO_LIBCALLS static void mem_forward(uint8_t *d, const uint8_t *s, size_t n)
{
    if ((((uintptr_t)d | (uintptr_t)s) & 3u) == 0u) {
        for (; n >= 4u; n -= 4u, d += 4, s += 4) {
            *(mem_word_t *)(void *)d = *(const mem_word_t *)(const void *)s;
        }
    }
    while (n-- > 0u) {
        *d++ = *s++;
    }
}

MEM_NO_LIBCALLS void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    mem_forward((uint8_t *)dst, (const uint8_t *)src, n);
    return dst;
}

MEM_NO_LIBCALLS void *memmove(void *dst, const void *src, size_t n)
{
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;
    if ((uintptr_t)d - (uintptr_t)s >= n) { /* d before s, or past its end: forward */
        mem_forward(d, s, n);
        return dst;
    }
    d += n; /* d inside [s, s + n): backward from the ends */
    s += n;
    if ((((uintptr_t)d | (uintptr_t)s) & 3u) == 0u) {
        for (; n >= 4u; n -= 4u) {
            d -= 4;
            s -= 4;
            *(mem_word_t *)(void *)d = *(const mem_word_t *)(const void *)s;
        }
    }
    while (n-- > 0u) {
        *--d = *--s;
    }
    return dst;
}

MEM_NO_LIBCALLS void *memset(void *dst, int c, size_t n)
{
    uint8_t *d = (uint8_t *)dst;
    const uint8_t b = (uint8_t)c;
    if (((uintptr_t)d & 3u) == 0u) {
        const uint32_t w = 0x01010101u * b;
        /* four words a pass: the kernels clear whole int16 planes (a 50x50 plane is
           5,000 B), and a word a pass costs a compare and two taken branches per word */
        for (; n >= 16u; n -= 16u, d += 16) {
            mem_word_t *q = (mem_word_t *)(void *)d;
            q[0] = w;
            q[1] = w;
            q[2] = w;
            q[3] = w;
        }
        for (; n >= 4u; n -= 4u, d += 4) {
            *(mem_word_t *)(void *)d = w;
        }
    }
    while (n-- > 0u) {
        *d++ = b;
    }
    return dst;
}
