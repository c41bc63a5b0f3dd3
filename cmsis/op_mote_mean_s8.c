/*
 * mote::mean_s8.out - Cortex-M version (DSP / MVE / plain, see mote_s8_arm.h):
 * int8 global average over H and W of NHWC [N,H,W,C] (the global average pool),
 * same bytes as kernels/op_mote_mean_s8.c. The sum of x - in_zp is the int32 sum
 * of x minus H*W*in_zp (both wrap alike), taken four channels at a time:
 * - MVE: int32x4 lanes (VLDRB.S32 widening loads), vector requantization;
 * - DSP: SXTAB16 (16 channels a pass, then 4) into words of int16 pairs (channels 0/2 and 1/3), moved to
 *   int32 every 256 pixels (|256 * 128| fits int16's range), then requantized;
 * - plain: the reference loop.
 * One channel (C = 1: a mean over the last dim, e.g. a pool over time of [N, T] as
 * [N, T, 1, 1]) makes each image one contiguous run of H*W bytes, and the channel
 * loops above would take one byte a step: such runs are summed 16 bytes a step
 * instead (DSP: two LDRD of four words, EOR + USADA8 per word; MVE: VADDVA.S8).
 */
#include "mote/kernel.h"
#include "mote_s8_arm.h"

MOTE_KERNEL("mote::mean_s8.out")

mote_err_t mote_kernel_mote_mean_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                        uint32_t nargs);

/** requantize + zero point + clamp to [-128, 127] of one channel's sum (once per
 *  channel, outside the pixel loops: one copy, not one per call site; MVE: the
 *  one-channel runs only, its channel loop requantizes four lanes at once). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int8_t mean_finish(const mote_s8_mean_params_t *p, uint32_t sum)
{
    const uint32_t acc = sum - (uint32_t)p->hw * (uint32_t)p->in_zp;
#if defined(MOTE_S8_DSP) /* the same bytes (the parser admits multipliers >= 0 only), SMULL-based */
    return mote_s8_dsp_finish((int32_t)acc, p->mult, p->shift, p->out_zp, -128, 127);
#else
    return mote_s8_out(mote_requantize((int32_t)acc, p->mult, p->shift), p->out_zp, -128, 127);
#endif
}

#if defined(MOTE_S8_MVE)
/** Sum of the n int8 values at x (C = 1: the image is one run): VADDVA.S8 adds 16
 *  bytes into the int32 sum a step, the last step predicated to the run. Wraps like
 *  the reference's uint32 sum. */
MOTE_S8_HOT static uint32_t mean_run(const int8_t *x, int32_t n)
{
    int32_t s = 0, i = 0;
    for (; i + 16 <= n; i += 16) {
        s = vaddvaq_s8(s, vldrbq_s8(x + i));
    }
    if (i < n) {
        s = vaddvaq_s8(s, vldrbq_z_s8(x + i, vctp8q((uint32_t)(n - i))));
    }
    return (uint32_t)s;
}

/** Channels [ch, ch + 4) (predicated to C) of one image x: sums, requantized. */
MOTE_S8_HOT static void mean_image(const mote_s8_mean_params_t *p, const int8_t *x, int8_t *o)
{
    const int32x4_t mult = vdupq_n_s32(p->mult), shift = vdupq_n_s32(p->shift);
    const int32_t zhw = (int32_t)((uint32_t)p->hw * (uint32_t)p->in_zp);
    int32_t ch, i;
    for (ch = 0; ch < p->c; ch += 4) {
        const mve_pred16_t pr = vctp32q((uint32_t)(p->c - ch));
        const int8_t *px = x + ch;
        int32x4_t acc = vdupq_n_s32(0);
        for (i = 0; i < p->hw; i++, px += p->c) {
            acc = vaddq_s32(acc, vldrbq_z_s32(px, pr));
        }
        acc = vsubq_s32(acc, vdupq_n_s32(zhw)); /* wraps like the reference's uint32 sum */
        vstrbq_p_s32(o + ch, mote_s8_mve_requant(acc, mult, shift, p->out_zp, -128, 127), pr);
    }
}
#elif defined(MOTE_S8_DSP)
/**
 * Sum of the n >= 4 int8 values at x (C = 1: the image is one run), wrapping like
 * the reference's uint32 sum. USADA8 adds the four bytes of a word as unsigned
 * values; x ^ 0x80 read unsigned is x + 128, so every byte adds x + 128 and the sum
 * is the total minus 128 n. The body: aligned words, four per two LDRD (a run of
 * loads), EOR + USADA8 a word: 12 instructions per 16 bytes. The 0..3 bytes before the first aligned word
 * and after the last whole one: one unaligned word each, read inside the run (n >= 4),
 * the bytes outside its part masked to 0 after the flip (they add nothing).
 */
MOTE_S8_HOT static uint32_t mean_run(const int8_t *x, int32_t n)
{
    const uint32_t flip = 0x80808080u;
    const int32_t head = (int32_t)((0u - (uint32_t)(uintptr_t)x) & 3u); /* bytes to alignment */
    const int32_t body = (n - head) >> 2, tail = (n - head) & 3;     /* words, bytes after */
    const uint32_t *w = (const uint32_t *)(const void *)(x + head);
    const uint32_t *const end4 = w + (body & ~3), *const end = w + body;
    uint32_t s, a, b, c, d;
    /* head: the low `head` bytes of the word at x; tail: the high `tail` bytes of the
       run's last word (masks of 0 bytes when either is empty) */
    s = __usada8((mote_s8_ld32(x) ^ flip) & ~(0xffffffffu << (8 * head)), 0u, 0u);
    s = __usada8((mote_s8_ld32(x + n - 4) ^ flip) & ~(0xffffffffu >> (8 * tail)), 0u, s);
    if (w != end4) {
        __asm__ volatile("1:\n\t"
                         "ldrd %[a], %[b], [%[w]], #8\n\t"
                         "ldrd %[c], %[d], [%[w]], #8\n\t"
                         "eor %[a], %[a], %[f]\n\t"
                         "usada8 %[s], %[a], %[z], %[s]\n\t"
                         "eor %[b], %[b], %[f]\n\t"
                         "usada8 %[s], %[b], %[z], %[s]\n\t"
                         "eor %[c], %[c], %[f]\n\t"
                         "usada8 %[s], %[c], %[z], %[s]\n\t"
                         "eor %[d], %[d], %[f]\n\t"
                         "usada8 %[s], %[d], %[z], %[s]\n\t"
                         "cmp %[w], %[e]\n\t"
                         "bne 1b\n\t"
                         : [s] "+r"(s), [w] "+r"(w), [a] "=&r"(a), [b] "=&r"(b), [c] "=&r"(c),
                           [d] "=&r"(d)
                         : [f] "r"(flip), [z] "r"(0u), [e] "r"(end4)
                         : "cc", "memory");
    }
    for (; w != end; w++) {
        s = __usada8(*w ^ flip, 0u, s);
    }
    return s - 128u * (uint32_t)n;
}

/** acc + the sign-extended bytes 1 and 3 of v as int16 pairs: SXTAB16 with its own
 *  ROR #8 (one instruction; GCC 12 emits the rotate apart). */
static inline int32_t mean_sxtab16_odd(int32_t acc, uint32_t v)
{
    __asm__("sxtab16 %0, %0, %1, ror #8" : "+r"(acc) : "r"(v));
    return acc;
}

/** Adds the int16 pairs of one word's SXTAB16 sums (e: channels 0 and 2, od: 1 and 3)
 *  to the int32 sums s[0..3]. */
static inline void mean_flush4(uint32_t *s, int32_t e, int32_t od)
{
    s[0] += (uint32_t)(int32_t)(int16_t)e;
    s[2] += (uint32_t)(e >> 16);
    s[1] += (uint32_t)(int32_t)(int16_t)od;
    s[3] += (uint32_t)(od >> 16);
}

/**
 * mean_finish over the n sums s[0..n) of one pass, the call's constants (H*W*in_zp,
 * multiplier, shift, zero point) hoisted and the real layers' negative shift one
 * straight-line loop: mote_s8_dsp_finish's SRDHM + RDBPOT + zero point, SSAT to int8
 * (the [-128, 127] clamp), the same bytes. The keyword spotter's 97-frame pool
 * (64 channels): ~64 noinline calls before.
 */
MOTE_S8_HOT static void mean_finish_n(const mote_s8_mean_params_t *p, const uint32_t *s, int32_t n,
                                      int8_t *o)
{
    const uint32_t zhw = (uint32_t)p->hw * (uint32_t)p->in_zp;
    const int32_t m = p->mult, sh = p->shift, zp = p->out_zp;
    int32_t j;
    if (sh < 0) {
        const int32_t e1 = -sh - 1;
        for (j = 0; j < n; j++) {
            const int32_t acc = (int32_t)(s[j] - zhw);
            const int32_t x = (int32_t)(((int64_t)acc * m + ((int64_t)1 << 30)) >> 31);
            const int32_t t = (x + (x >> 31)) >> e1;
            o[j] = (int8_t)__ssat((t >> 1) + (t & 1) + zp, 8); /* |.| <= 2^30 + |zp| */
        }
    } else {
        for (j = 0; j < n; j++) {
            o[j] = mote_s8_dsp_finish((int32_t)(s[j] - zhw), m, sh, zp, -128, 127);
        }
    }
}

/**
 * Channels [0, 16) of one image x (a pixel's 16 bytes at x + i * c): four words a
 * pixel, each into two int16-pair accumulators (eight in registers, one pass over
 * the pixels for 16 channels rather than four), moved to int32 every 256 pixels.
 * The keyword spotter's pool over a window of 97 frames x 64 channels, the whole call:
 * 15,542 -> 9,422 instructions (at 4 channels a pass, the rotate apart).
 */
MOTE_S8_HOT static void mean_block16(const mote_s8_mean_params_t *p, const int8_t *x, uint32_t *s)
{
    int32_t i, j;
    for (i = 0; i < p->hw; i += 256) {
        const int32_t end = p->hw - i < 256 ? p->hw - i : 256;
        const int8_t *px = x + (size_t)i * p->c;
        int32_t e0 = 0, o0 = 0, e1 = 0, o1 = 0, e2 = 0, o2 = 0, e3 = 0, o3 = 0;
        for (j = 0; j < end; j++, px += p->c) {
            uint32_t v = mote_s8_ld32(px);
            e0 = __sxtab16(e0, (int32_t)v);
            o0 = mean_sxtab16_odd(o0, v);
            v = mote_s8_ld32(px + 4);
            e1 = __sxtab16(e1, (int32_t)v);
            o1 = mean_sxtab16_odd(o1, v);
            v = mote_s8_ld32(px + 8);
            e2 = __sxtab16(e2, (int32_t)v);
            o2 = mean_sxtab16_odd(o2, v);
            v = mote_s8_ld32(px + 12);
            e3 = __sxtab16(e3, (int32_t)v);
            o3 = mean_sxtab16_odd(o3, v);
        }
        mean_flush4(s, e0, o0);
        mean_flush4(s + 4, e1, o1);
        mean_flush4(s + 8, e2, o2);
        mean_flush4(s + 12, e3, o3);
    }
}

/** Every channel of one image x: sixteen at a time (mean_block16), then four at a
 *  time with SXTAB16, the rest in C. */
MOTE_S8_HOT static void mean_image(const mote_s8_mean_params_t *p, const int8_t *x, int8_t *o)
{
    int32_t ch, i, j;
    for (ch = 0; ch + 16 <= p->c; ch += 16) {
        uint32_t s[16] = {0};
        mean_block16(p, x + ch, s);
        mean_finish_n(p, s, 16, o + ch);
    }
    for (; ch + 4 <= p->c; ch += 4) {
        const int8_t *px = x + ch;
        uint32_t s[4] = {0, 0, 0, 0};
        for (i = 0; i < p->hw; i += 256) {
            const int32_t end = p->hw - i < 256 ? p->hw - i : 256;
            int32_t e = 0, od = 0; /* int16 pairs: channels (0, 2) and (1, 3) */
            for (j = 0; j < end; j++, px += p->c) {
                const uint32_t v = mote_s8_ld32(px);
                e = __sxtab16(e, (int32_t)v);
                od = mean_sxtab16_odd(od, v);
            }
            mean_flush4(s, e, od);
        }
        mean_finish_n(p, s, 4, o + ch);
    }
    for (; ch < p->c; ch++) {
        uint32_t s = 0;
        for (i = 0; i < p->hw; i++) {
            s += (uint32_t)(int32_t)x[(size_t)i * p->c + ch];
        }
        o[ch] = mean_finish(p, s);
    }
}
#else
/** Every channel of one image x: the reference loop. */
static void mean_image(const mote_s8_mean_params_t *p, const int8_t *x, int8_t *o)
{
    int32_t ch, i;
    for (ch = 0; ch < p->c; ch++) {
        uint32_t s = 0;
        for (i = 0; i < p->hw; i++) {
            s += (uint32_t)(int32_t)x[(size_t)i * p->c + ch];
        }
        o[ch] = mean_finish(p, s);
    }
}
#endif

mote_err_t mote_kernel_mote_mean_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                        uint32_t nargs)
{
    mote_s8_mean_params_t p;
    int32_t b;
    (void)ctx;
    MOTE_TRY(mote_s8_mean_parse(args, nargs, &p));
#if defined(MOTE_S8_MVE) || defined(MOTE_S8_DSP)
    if (p.c == 1 && p.hw >= 4) { /* every image one contiguous run */
        for (b = 0; b < p.n; b++) {
            p.output[b] = mean_finish(&p, mean_run(p.input + (size_t)b * p.hw, p.hw));
        }
        return MOTE_OK;
    }
#endif
    for (b = 0; b < p.n; b++) {
        mean_image(&p, p.input + (size_t)b * p.hw * p.c, p.output + (size_t)b * p.c);
    }
    return MOTE_OK;
}
