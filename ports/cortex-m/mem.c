/*
 * mem.c - memcpy, memmove and memset of the bare-metal firmware, in place of
 * newlib-nano's (660 B of flash on a Cortex-M33; these 430 B). The
 * data-movement kernels (cat, slice_copy, copy_, split) move whole rows
 * through memmove, and rows of odd lengths leave source and destination at
 * different alignments: the forward copy aligns the destination, then moves
 * 16 bytes a pass, reading the source a word at a time even when it is not
 * word-aligned where the core allows it (__ARM_FEATURE_UNALIGNED: Armv7-M and
 * Armv8-M Mainline, one LDR; Cortex-M0+ has no unaligned access and moves
 * words only when both pointers share an alignment). A streaming KWS's cat
 * of int8 [1,64,97] + [1,64,1], 64 rows of 97 bytes at every alignment, went
 * from 61,859 to 13,405 estimated Cortex-M33 cycles (issue #38).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A word that may alias any object (these functions copy objects of any type). */
typedef uint32_t __attribute__((__may_alias__)) mem_word_t;
#if defined(__ARM_FEATURE_UNALIGNED) || defined(__x86_64__) || defined(__i386__)
/* The same at any byte address (the host test compiles this file for x86 too). */
typedef uint32_t __attribute__((__may_alias__, __aligned__(1))) mem_uword_t;
#define MEM_UNALIGNED 1
#else
#define MEM_UNALIGNED 0
#endif

/* GCC would turn the loops below into calls of these very functions. */
#if defined(__GNUC__) && !defined(__clang__)
#define MEM_NO_LIBCALLS __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define MEM_NO_LIBCALLS
#endif

/* Below this many bytes the byte loop beats aligning the destination first. */
#define MEM_SHORT 12u

/* Moves 16 bytes a pass (four words: a pass of one word costs a compare and a
   taken branch per word), then single words. Q, P: word pointers to the
   destination (word-aligned) and the source; N counts bytes down to < 4. The
   passes run as do-while loops, which -Os lays out with one branch a pass. */
#define MEM_WORDS(Q, P, N)                                      \
    do {                                                        \
        size_t k_ = (N) >> 4;                                   \
        if (k_ > 0u) {                                          \
            do {                                                \
                const uint32_t w0_ = (P)[0], w1_ = (P)[1];      \
                const uint32_t w2_ = (P)[2], w3_ = (P)[3];      \
                (Q)[0] = w0_;                                   \
                (Q)[1] = w1_;                                   \
                (Q)[2] = w2_;                                   \
                (Q)[3] = w3_;                                   \
                (Q) += 4;                                       \
                (P) += 4;                                       \
            } while (--k_ > 0u);                                \
        }                                                       \
        for (k_ = ((N) >> 2) & 3u; k_ > 0u; k_--) {             \
            *(Q)++ = *(P)++;                                    \
        }                                                       \
        (N) &= 3u;                                              \
    } while (0)

#if defined(__thumb2__)
/* Both word-aligned on Armv7-M / Armv8-M Mainline: 32 bytes a pass by LDM / STM of
   eight registers (9 + 9 cycles on a Cortex-M33, where eight LDR / STR take 16 +
   8 and their pointer steps 2). A streaming window's shift (int8 [1, 97, 64] by one
   frame, 6,144 bytes): 5,665 -> 5,299 estimated cycles (4,092 -> 1,380 instructions). Returns the
   bytes left (< 32); q and p step past the bytes moved. */
static size_t mem_blocks32(mem_word_t **q, const mem_word_t **p, size_t n)
{
    size_t k = n >> 5;
    if (k > 0u) {
        mem_word_t *d = *q;
        const mem_word_t *s = *p;
        __asm__ volatile("1:\n\t"
                         "ldmia %[s]!, {r2, r3, r4, r5, r6, r8, r9, r12}\n\t"
                         "stmia %[d]!, {r2, r3, r4, r5, r6, r8, r9, r12}\n\t"
                         "subs %[k], %[k], #1\n\t"
                         "bne 1b"
                         : [d] "+r"(d), [s] "+r"(s), [k] "+r"(k)
                         :
                         : "r2", "r3", "r4", "r5", "r6", "r8", "r9", "r12", "cc", "memory");
        *q = d;
        *p = s;
    }
    return n & 31u;
}
#endif

/* Word part of a forward copy: d word-aligned (s word-aligned too unless
   MEM_UNALIGNED); returns the bytes left (< 4). */
MEM_NO_LIBCALLS static size_t mem_forward_words(uint8_t *d, const uint8_t *s, size_t n)
{
    mem_word_t *q = (mem_word_t *)(void *)d;
    if (((uintptr_t)s & 3u) == 0u) {
        const mem_word_t *p = (const mem_word_t *)(const void *)s;
#if defined(__thumb2__)
        n = mem_blocks32(&q, &p, n);
#endif
        MEM_WORDS(q, p, n);
    }
#if MEM_UNALIGNED
    else {
        const mem_uword_t *p = (const mem_uword_t *)(const void *)s;
        MEM_WORDS(q, p, n);
    }
#endif
    return n;
}

/** Forward copy of n bytes (dst <= src or apart). Byte loops as do-while
    loops too (one branch a byte at -Os): a row's head and tail are bytes. */
MEM_NO_LIBCALLS static void mem_forward(uint8_t *d, const uint8_t *s, size_t n)
{
    if (n >= MEM_SHORT && (MEM_UNALIGNED || (((uintptr_t)d ^ (uintptr_t)s) & 3u) == 0u)) {
        size_t head = (0u - (uintptr_t)d) & 3u; /* bytes up to d's next word */
        if (head > 0u) {
            n -= head;
            do {
                *d++ = *s++;
            } while (--head > 0u);
        }
        {
            const size_t left = mem_forward_words(d, s, n);
            d += n - left;
            s += n - left;
            n = left;
        }
    }
    if (n > 0u) {
        do {
            *d++ = *s++;
        } while (--n > 0u);
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
