/*
 * mote::depthwise_planar16_s8.out - Cortex-M version (see mote_s8_arm.h).
 * Same bytes as kernels/op_mote_depthwise_planar16_s8.c.
 *
 * The input is planar int16 with the zero point subtracted and a zero border
 * (kernels/requant.h, "planar int16"), so a channel is one plane and every
 * window is an interior one: channels outer, the plane inner.
 * - DSP, 3x3 windows of stride 1 or 2 (dilation 1) and a channel whose shift
 *   is in [-22, -1] with |bias| + 9 * 2^22 < 2^30 (so |2 acc| < 2^31 for any
 *   int16 input): the channel's nine weights are held in six registers as int16
 *   pairs, doubled, (w0, w1) and (w2, w1) per row, its doubled bias, multiplier,
 *   rounding offset and shift in registers too, for the whole plane. A 2x2
 *   output block reads each input word once (LDR of two int16) and is SMLAD /
 *   SMLADX / SMLABB / SMLATB only: per input row and output row pair
 *     out(x)   += SMLAD(x01, w01) + SMLABB(x23, w21)      = x0 w0 + x1 w1 + x2 w2
 *     out(x+1) += SMLATB(x01, w01) + SMLADX(x23, w21)     = x1 w0 + x2 w1 + x3 w2
 *   (stride 2: out(x+1) += SMLAD(x23, w01) + SMLABB(x45, w21)); 24 multiply
 *   instructions for the block's 36 MACs. Requantization per output: SMMLAR
 *   (SRDHM(acc, M) = SMMULR(2 acc, M), plus the offset 2^(e-1) + (zp << e)),
 *   ADD of the accumulator's sign (acc < 0 and SRDHM(acc, M) >= 0 only when
 *   the latter is 0, where the -1 changes nothing), ASR, SSAT (+ clamp when the
 *   activation range is narrower), STRB into the NHWC output.
 *   Odd rows / columns: the same code on 2x1 / 1x2 / 1x1 blocks.
 * - Other windows and channels: plain C over the plane (as the reference).
 * - MVE: four output columns per vector, vector-by-scalar VMLA (dwp_mve_plane).
 */
#include "mote/kernel.h"
#include "mote_s8_arm.h"

MOTE_KERNEL("mote::depthwise_planar16_s8.out")

mote_err_t mote_kernel_mote_depthwise_planar16_s8_out(mote_kernel_ctx_t *ctx,
                                                      mote_value_t *const *args, uint32_t nargs);

#if !defined(MOTE_S8_MVE)
/** Plain C: channel c of image b, any window. */
static void dwp_plain_plane(const mote_s8_planar_params_t *q, int32_t b, int32_t c)
{
    const mote_s8_conv_params_t *p = &q->g;
    const int16_t *pl = q->pin + ((size_t)b * p->cout + c) * (size_t)q->hp * (size_t)q->wp;
    int8_t *out = p->output + (size_t)b * p->ho * p->wo * p->cout + c;
    int32_t oy, ox, ky, kx;
    for (oy = 0; oy < p->ho; oy++) {
        for (ox = 0; ox < p->wo; ox++) {
            uint32_t acc = (uint32_t)p->bias[c]; /* int32 wrap, UB-free */
            for (ky = 0; ky < p->kh; ky++) {
                const int16_t *xr = pl + (size_t)(oy * p->stride_h + ky * p->dil_h) * q->wp +
                                    (size_t)ox * p->stride_w;
                for (kx = 0; kx < p->kw; kx++) {
                    acc += (uint32_t)((int32_t)xr[kx * p->dil_w] *
                                      (int32_t)p->weight[((size_t)ky * p->kw + kx) * p->cout + c]);
                }
            }
            out[((size_t)oy * p->wo + ox) * p->cout] = mote_s8_finish(p, (int32_t)acc, c);
        }
    }
}
#endif

#if defined(MOTE_S8_DSP)
MOTE_S8_INLINE int32_t dwp_smmlar(int32_t a, int32_t m, int32_t add)
{
    int32_t r;
    __asm__("smmlar %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(m), "r"(add));
    return r;
}

/** One channel's constants (doubled weights as int16 pairs, requantization). */
typedef struct dwp_ch {
    int32_t w01[3], w21[3]; /* per kernel row: (2 w0, 2 w1), (2 w2, 2 w1) as lo, hi */
    int32_t b2, m, off, e;  /* 2 * bias, multiplier, 2^(e-1) + (zp << e), -shift */
    int32_t lo, hi, full;   /* clamp; full: the range is all of int8 (SSAT alone) */
} dwp_ch_t;

MOTE_S8_INLINE int8_t dwp_rq(int32_t acc2, int32_t m, int32_t off, int32_t e, int32_t lo, int32_t hi,
                             int32_t full)
{
    int32_t v = (dwp_smmlar(acc2, m, off) + (acc2 >> 31)) >> e;
    v = __ssat(v, 8);
    if (!full) {
        v = v < lo ? lo : (v > hi ? hi : v);
    }
    return (int8_t)v;
}

/** Accumulate one input row (x01, x23[, x45]) of weight row (a, b) into the pair (s0, s1). */
#define DWP_ROW_S1(s0, s1, x01, x23, a, b)                                                 \
    do {                                                                                   \
        s0 = __smlad((int32_t)(x01), (a), s0);                                             \
        s0 = __smlabb((int32_t)(x23), (b), s0);                                            \
        s1 = __smlatb((int32_t)(x01), (a), s1);                                            \
        s1 = __smladx((int32_t)(x23), (b), s1);                                            \
    } while (0)
#define DWP_ROW_S2(s0, s1, x01, x23, x45, a, b)                                            \
    do {                                                                                   \
        s0 = __smlad((int32_t)(x01), (a), s0);                                             \
        s0 = __smlabb((int32_t)(x23), (b), s0);                                            \
        s1 = __smlad((int32_t)(x23), (a), s1);                                             \
        s1 = __smlabb((int32_t)(x45), (b), s1);                                            \
    } while (0)

/** Store one requantized output (the channel's constants in scope). */
#define DWP_OUT(dst, acc) (dst) = dwp_rq((acc), m, off, e, lo, hi, full)

/**
 * 3x3 stride 1, full 2x2 blocks of output rows [0, 2*rp) and columns [0, 2*cp):
 * pl: the plane (border included), wp: its row length; out: output channel c of
 * pixel (0, 0); orow / opx: output bytes between rows / pixels.
 */
__attribute__((noinline)) MOTE_S8_HOT static void dwp_s1_blocks(const dwp_ch_t *k, const int16_t *pl, int32_t wp, int32_t rp,
                                      int32_t cp, int8_t *out, int32_t orow, int32_t opx)
{
    const int32_t a0 = k->w01[0], a1 = k->w01[1], a2 = k->w01[2];
    const int32_t b0 = k->w21[0], b1 = k->w21[1], b2 = k->w21[2];
    const int32_t bias = k->b2, m = k->m, off = k->off, e = k->e, lo = k->lo, hi = k->hi,
                  full = k->full;
    int32_t oy, ox;
    for (oy = 0; oy < rp; oy++) {
        const int16_t *r = pl + (size_t)(2 * oy) * wp;
        int8_t *o = out + (size_t)(2 * oy) * orow;
        for (ox = 0; ox < cp; ox++, r += 2, o += 2 * opx) {
            const int16_t *x = r;
            int32_t s00, s01, s10, s11;
            uint32_t u, v;
            u = mote_s8_ld32(x);
            v = mote_s8_ld32(x + 2);
            s00 = __smlabb((int32_t)v, b0, __smlad((int32_t)u, a0, bias));
            s01 = __smladx((int32_t)v, b0, __smlatb((int32_t)u, a0, bias));
            x += wp;
            u = mote_s8_ld32(x);
            v = mote_s8_ld32(x + 2);
            DWP_ROW_S1(s00, s01, u, v, a1, b1);
            s10 = __smlabb((int32_t)v, b0, __smlad((int32_t)u, a0, bias));
            s11 = __smladx((int32_t)v, b0, __smlatb((int32_t)u, a0, bias));
            x += wp;
            u = mote_s8_ld32(x);
            v = mote_s8_ld32(x + 2);
            DWP_ROW_S1(s00, s01, u, v, a2, b2);
            DWP_ROW_S1(s10, s11, u, v, a1, b1);
            x += wp;
            u = mote_s8_ld32(x);
            v = mote_s8_ld32(x + 2);
            DWP_ROW_S1(s10, s11, u, v, a2, b2);
            DWP_OUT(o[0], s00);
            DWP_OUT(o[opx], s01);
            DWP_OUT(o[orow], s10);
            DWP_OUT(o[orow + opx], s11);
        }
    }
}

/**
 * 3x3 stride 2, full 2x2 blocks (as dwp_s1_blocks): per input row x0..x4,
 * out(x) += SMLAD(x01, w01) + SMLABB(x23, w21), out(x+1) += SMLAD(x23, w01) +
 * SMLABB(x45, w21); output row 1 reads input rows 2..4.
 */
__attribute__((noinline)) MOTE_S8_HOT static void dwp_s2_blocks(const dwp_ch_t *k, const int16_t *pl, int32_t wp, int32_t rp,
                                      int32_t cp, int8_t *out, int32_t orow, int32_t opx)
{
    const int32_t a0 = k->w01[0], a1 = k->w01[1], a2 = k->w01[2];
    const int32_t b0 = k->w21[0], b1 = k->w21[1], b2 = k->w21[2];
    const int32_t bias = k->b2, m = k->m, off = k->off, e = k->e, lo = k->lo, hi = k->hi,
                  full = k->full;
    int32_t oy, ox;
    for (oy = 0; oy < rp; oy++) {
        const int16_t *r = pl + (size_t)(4 * oy) * wp;
        int8_t *o = out + (size_t)(2 * oy) * orow;
        for (ox = 0; ox < cp; ox++, r += 4, o += 2 * opx) {
            const int16_t *x = r;
            int32_t s00 = bias, s01 = bias, s10 = bias, s11 = bias;
            uint32_t u, v, w;
            u = mote_s8_ld32(x);
            v = mote_s8_ld32(x + 2);
            w = (uint16_t)x[4];
            DWP_ROW_S2(s00, s01, u, v, w, a0, b0);
            x += wp;
            u = mote_s8_ld32(x);
            v = mote_s8_ld32(x + 2);
            w = (uint16_t)x[4];
            DWP_ROW_S2(s00, s01, u, v, w, a1, b1);
            x += wp;
            u = mote_s8_ld32(x);
            v = mote_s8_ld32(x + 2);
            w = (uint16_t)x[4];
            DWP_ROW_S2(s00, s01, u, v, w, a2, b2);
            DWP_ROW_S2(s10, s11, u, v, w, a0, b0);
            x += wp;
            u = mote_s8_ld32(x);
            v = mote_s8_ld32(x + 2);
            w = (uint16_t)x[4];
            DWP_ROW_S2(s10, s11, u, v, w, a1, b1);
            x += wp;
            u = mote_s8_ld32(x);
            v = mote_s8_ld32(x + 2);
            w = (uint16_t)x[4];
            DWP_ROW_S2(s10, s11, u, v, w, a2, b2);
            DWP_OUT(o[0], s00);
            DWP_OUT(o[opx], s01);
            DWP_OUT(o[orow], s10);
            DWP_OUT(o[orow + opx], s11);
        }
    }
}

/*
 * Full-range channels (activation range all of int8: SSAT is the clamp), 3x3,
 * rows of 1x4 output blocks in assembly: fourteen registers hold the input
 * pointer and row bytes, the output pointer and pixel bytes, the block count,
 * four accumulators, one kernel row's two weight pairs and three input words;
 * the channel's constants live in the function's frame (LDRD of a weight row
 * pair per kernel row, LDRD + LDR of multiplier / offset / shift per block).
 * Stride 1, per kernel row: three LDR (x0..x5), 8 multiplies
 *   o0 += SMLAD(x01, w01) + SMLABB(x23, w21)    o1 += SMLATB(x01, w01) + SMLADX(x23, w21)
 *   o2 += SMLAD(x23, w01) + SMLABB(x45, w21)    o3 += SMLATB(x23, w01) + SMLADX(x45, w21)
 * Stride 2: five loads (x0..x8), o_k += SMLAD(x(2k, 2k+1), w01) + SMLABB(x(2k+2), w21).
 * Requantization per output: ADD (offset + the accumulator's sign), SMMLAR, ASR, SSAT; STRB.
 * 67 (stride 1) / 73 (stride 2) instructions per 36 MACs.
 */
typedef struct dwp_job {
    int32_t bias2, w0a, w0b, w1a, w1b, w2a, w2b, m, off, e; /* copied to the frame */
    int32_t rows, nb, prow, orow;   /* output rows, blocks per row, input / output bytes per row */
    const int16_t *p;               /* input of output (0, 0) */
    int8_t *o;                      /* output (0, 0) */
    int32_t wpb, opx;               /* plane row bytes, output bytes between pixels */
} dwp_job_t;

#define DWP_ASM_ENTRY                                                                      \
    "push {r4-r11, lr}\n\t"                                                                \
    "sub sp, sp, #68\n\t"                                                                  \
    "ldr r1, [r0, #64]\n\t"                                                                \
    "ldr r3, [r0, #68]\n\t"                                                                \
    "mov r12, sp\n\t"                                                                      \
    "ldmia r0!, {r2, r4-r10}\n\t"                                                          \
    "stmia r12!, {r2, r4-r10}\n\t"                                                         \
    "ldmia r0!, {r2, r4-r10}\n\t"                                                          \
    "stmia r12!, {r2, r4-r10}\n\t"                                                         \
    "1:\n\t"                                                                               \
    "ldr r0, [sp, #56]\n\t"                                                                \
    "ldr r2, [sp, #60]\n\t"                                                                \
    "ldr r4, [sp, #44]\n\t"                                                                \
    "2:\n\t"
/* r5..r8: accumulators; requantize, store four outputs, next block, next row */
#define DWP_ASM_EXIT                                                                       \
    "ldrd r9, r10, [sp, #28]\n\t"                                                          \
    "ldr r11, [sp, #36]\n\t"                                                               \
    "add r12, r10, r5, asr #31\n\t"                                                        \
    "smmlar r5, r5, r9, r12\n\t"                                                           \
    "add r12, r10, r6, asr #31\n\t"                                                        \
    "smmlar r6, r6, r9, r12\n\t"                                                           \
    "add r12, r10, r7, asr #31\n\t"                                                        \
    "smmlar r7, r7, r9, r12\n\t"                                                           \
    "add r12, r10, r8, asr #31\n\t"                                                        \
    "smmlar r8, r8, r9, r12\n\t"                                                           \
    "asr r5, r5, r11\n\t"                                                                  \
    "asr r6, r6, r11\n\t"                                                                  \
    "asr r7, r7, r11\n\t"                                                                  \
    "asr r8, r8, r11\n\t"                                                                  \
    "ssat r5, #8, r5\n\t"                                                                  \
    "ssat r6, #8, r6\n\t"                                                                  \
    "ssat r7, #8, r7\n\t"                                                                  \
    "ssat r8, #8, r8\n\t"                                                                  \
    "strb r5, [r2]\n\t"                                                                    \
    "strb r6, [r2, r3]\n\t"                                                                \
    "add r2, r2, r3, lsl #1\n\t"                                                           \
    "strb r7, [r2]\n\t"                                                                    \
    "strb r8, [r2, r3]\n\t"                                                                \
    "add r2, r2, r3, lsl #1\n\t"                                                           \
    "subs r4, r4, #1\n\t"                                                                  \
    "bne 2b\n\t"                                                                           \
    "ldrd r9, r10, [sp, #48]\n\t"                                                          \
    "ldrd r11, r12, [sp, #56]\n\t"                                                         \
    "add r11, r11, r9\n\t"                                                                 \
    "add r12, r12, r10\n\t"                                                                \
    "strd r11, r12, [sp, #56]\n\t"                                                         \
    "ldr r9, [sp, #40]\n\t"                                                                \
    "subs r9, r9, #1\n\t"                                                                  \
    "str r9, [sp, #40]\n\t"                                                                \
    "bne 1b\n\t"                                                                           \
    "add sp, sp, #68\n\t"                                                                  \
    "pop {r4-r11, pc}\n\t"

/* stride 1, one kernel row (weights at frame offset WOFF) into r5..r8 */
#define DWP_S1_ROW(WOFF)                                                                   \
    "ldrd r9, r10, [sp, #" WOFF "]\n\t"                                                    \
    "ldr r11, [r0]\n\t"                                                                    \
    "ldr r12, [r0, #4]\n\t"                                                                \
    "ldr lr, [r0, #8]\n\t"                                                                 \
    "smlad r5, r11, r9, r5\n\t"                                                            \
    "smlatb r6, r11, r9, r6\n\t"                                                           \
    "smlad r7, r12, r9, r7\n\t"                                                            \
    "smlatb r8, r12, r9, r8\n\t"                                                           \
    "smlabb r5, r12, r10, r5\n\t"                                                          \
    "smladx r6, r12, r10, r6\n\t"                                                          \
    "smlabb r7, lr, r10, r7\n\t"                                                           \
    "smladx r8, lr, r10, r8\n\t"

__attribute__((naked, noinline)) static void dwp_s1_asm(const dwp_job_t *job __attribute__((unused)))
{
    __asm__ volatile(
        DWP_ASM_ENTRY
        "ldr r8, [sp, #0]\n\t" /* bias: the first multiply of each accumulator adds it */
        "ldrd r9, r10, [sp, #4]\n\t"
        "ldr r11, [r0]\n\t"
        "ldr r12, [r0, #4]\n\t"
        "ldr lr, [r0, #8]\n\t"
        "smlad r5, r11, r9, r8\n\t"
        "smlatb r6, r11, r9, r8\n\t"
        "smlad r7, r12, r9, r8\n\t"
        "smlatb r8, r12, r9, r8\n\t"
        "smlabb r5, r12, r10, r5\n\t"
        "smladx r6, r12, r10, r6\n\t"
        "smlabb r7, lr, r10, r7\n\t"
        "smladx r8, lr, r10, r8\n\t"
        "add r0, r0, r1\n\t"
        DWP_S1_ROW("12")
        "add r0, r0, r1\n\t"
        DWP_S1_ROW("20")
        "sub r0, r0, r1, lsl #1\n\t"
        "adds r0, r0, #8\n\t"
        DWP_ASM_EXIT);
}

/* stride 2, one kernel row into r5..r8 (x0..x8; r11 / r12 reused for x67 / x8) */
#define DWP_S2_ROW(WOFF)                                                                   \
    "ldrd r9, r10, [sp, #" WOFF "]\n\t"                                                    \
    "ldr r11, [r0]\n\t"                                                                    \
    "ldr r12, [r0, #4]\n\t"                                                                \
    "ldr lr, [r0, #8]\n\t"                                                                 \
    "smlad r5, r11, r9, r5\n\t"                                                            \
    "smlabb r5, r12, r10, r5\n\t"                                                          \
    "smlad r6, r12, r9, r6\n\t"                                                            \
    "smlabb r6, lr, r10, r6\n\t"                                                           \
    "ldr r11, [r0, #12]\n\t"                                                               \
    "ldrh r12, [r0, #16]\n\t"                                                              \
    "smlad r7, lr, r9, r7\n\t"                                                             \
    "smlabb r7, r11, r10, r7\n\t"                                                          \
    "smlad r8, r11, r9, r8\n\t"                                                            \
    "smlabb r8, r12, r10, r8\n\t"

__attribute__((naked, noinline)) static void dwp_s2_asm(const dwp_job_t *job __attribute__((unused)))
{
    __asm__ volatile(
        DWP_ASM_ENTRY
        "ldr r8, [sp, #0]\n\t"
        "ldrd r9, r10, [sp, #4]\n\t"
        "ldr r11, [r0]\n\t"
        "ldr r12, [r0, #4]\n\t"
        "ldr lr, [r0, #8]\n\t"
        "smlad r5, r11, r9, r8\n\t"
        "smlabb r5, r12, r10, r5\n\t"
        "smlad r6, r12, r9, r8\n\t"
        "smlabb r6, lr, r10, r6\n\t"
        "ldr r11, [r0, #12]\n\t"
        "smlad r7, lr, r9, r8\n\t"
        "smlabb r7, r11, r10, r7\n\t"
        "ldrh r12, [r0, #16]\n\t"
        "smlad r8, r11, r9, r8\n\t"
        "smlabb r8, r12, r10, r8\n\t"
        "add r0, r0, r1\n\t"
        DWP_S2_ROW("12")
        "add r0, r0, r1\n\t"
        DWP_S2_ROW("20")
        "sub r0, r0, r1, lsl #1\n\t"
        "adds r0, r0, #16\n\t"
        DWP_ASM_EXIT);
}
#undef DWP_ASM_ENTRY
#undef DWP_ASM_EXIT
#undef DWP_S1_ROW
#undef DWP_S2_ROW

/** One output pixel (oy, ox) of a 3x3 window, stride s (the edges of the block loops). */
MOTE_S8_INLINE void dwp_px(const dwp_ch_t *k, const int16_t *pl, int32_t wp, int32_t s, int32_t oy,
                           int32_t ox, int8_t *dst)
{
    const int16_t *x = pl + (size_t)(oy * s) * wp + ox * s;
    int32_t acc = k->b2, j;
    for (j = 0; j < 3; j++, x += wp) {
        acc = __smlad((int32_t)mote_s8_ld32(x), k->w01[j], acc);
        acc = __smlabb((int32_t)x[2], k->w21[j], acc);
    }
    *dst = dwp_rq(acc, k->m, k->off, k->e, k->lo, k->hi, k->full);
}

/** 3x3, stride 1 or 2: the whole plane of one channel (blocks, then the odd row / column). */
static void dwp_plane3x3(const dwp_ch_t *k, const int16_t *pl, int32_t wp, int32_t stride, int32_t ho,
                         int32_t wo, int8_t *out, int32_t orow, int32_t opx)
{
    int32_t oy, ox;
    if (k->full && wo >= 4) { /* rows of 1x4 blocks in assembly, then the last wo % 4 columns */
        const int32_t nb = wo >> 2;
        dwp_job_t j;
        j.bias2 = k->b2;
        j.w0a = k->w01[0];
        j.w0b = k->w21[0];
        j.w1a = k->w01[1];
        j.w1b = k->w21[1];
        j.w2a = k->w01[2];
        j.w2b = k->w21[2];
        j.m = k->m;
        j.off = k->off;
        j.e = k->e;
        j.rows = ho;
        j.nb = nb;
        j.prow = 2 * stride * wp;
        j.orow = orow;
        j.p = pl;
        j.o = out;
        j.wpb = 2 * wp;
        j.opx = opx;
        if (stride == 1) {
            dwp_s1_asm(&j);
        } else {
            dwp_s2_asm(&j);
        }
        for (oy = 0; oy < ho; oy++) {
            for (ox = 4 * nb; ox < wo; ox++) {
                dwp_px(k, pl, wp, stride, oy, ox, out + (size_t)oy * orow + (size_t)ox * opx);
            }
        }
        return;
    }
    if (stride == 1) {
        dwp_s1_blocks(k, pl, wp, ho >> 1, wo >> 1, out, orow, opx);
    } else {
        dwp_s2_blocks(k, pl, wp, ho >> 1, wo >> 1, out, orow, opx);
    }
    if (wo & 1) {
        for (oy = 0; oy < ho; oy++) {
            dwp_px(k, pl, wp, stride, oy, wo - 1, out + (size_t)oy * orow + (size_t)(wo - 1) * opx);
        }
    }
    if (ho & 1) {
        for (ox = 0; ox < (wo & ~1); ox++) {
            dwp_px(k, pl, wp, stride, ho - 1, ox, out + (size_t)(ho - 1) * orow + (size_t)ox * opx);
        }
    }
}
#undef DWP_OUT
#undef DWP_ROW_S1
#undef DWP_ROW_S2

/** Pack int16 lo, hi into a word. */
MOTE_S8_INLINE int32_t dwp_pack(int32_t lo, int32_t hi)
{
    return (int32_t)(((uint32_t)hi << 16) | ((uint32_t)lo & 0xffffu));
}

/** The channel's constants; 0 if it must take the plain path. */
static int dwp_channel(const mote_s8_conv_params_t *p, int32_t c, dwp_ch_t *k)
{
    const int32_t sh = p->shift[c];
    const int64_t b = p->bias[c];
    int32_t r, e;
    if (sh >= 0 || sh < -22 || (b < 0 ? -b : b) + 9 * ((int64_t)1 << 22) >= ((int64_t)1 << 30)) {
        return 0;
    }
    e = -sh;
    for (r = 0; r < 3; r++) {
        const int8_t *w = p->weight + (size_t)r * 3 * p->cout + c;
        k->w01[r] = dwp_pack(2 * w[0], 2 * w[p->cout]);
        k->w21[r] = dwp_pack(2 * w[2 * p->cout], 2 * w[p->cout]);
    }
    k->b2 = (int32_t)(2 * b);
    k->m = p->mult[c];
    k->off = (int32_t)((1u << (e - 1)) + ((uint32_t)p->out_zp << e));
    k->e = e;
    k->lo = p->act_min;
    k->hi = p->act_max;
    k->full = p->act_min == -128 && p->act_max == 127;
    return 1;
}
#endif

#if defined(MOTE_S8_MVE)
/** One 3x3 tap of stride 1: LDR of the weight, widening load, vector-by-scalar VMLA. */
#define DWM_TAP(ptr, woff)                                                                 \
    "ldr %[w], [%[wt], #" woff "]\n\t"                                                     \
    "vldrh.s32 q1, " ptr "\n\t"                                                            \
    "vmla.s32 q0, q1, %[w]\n\t"
/* requantize q0 (every shift negative, full int8 range), scatter four bytes, next pixel group */
#define DWM_TAIL                                                                           \
    "vqrdmulh.s32 q0, q0, q2\n\t"                                                          \
    "vshr.s32 q1, q0, #31\n\t"                                                             \
    "vqadd.s32 q0, q0, q1\n\t"                                                             \
    "vrshl.s32 q0, q0, q3\n\t"                                                             \
    "vqadd.s32 q0, q0, %[zp]\n\t"                                                          \
    "vqshl.s32 q0, q0, #24\n\t"                                                            \
    "vshr.s32 q0, q0, #24\n\t"                                                             \
    "vstrb.32 q0, [%[out], q4]\n\t"                                                        \
    "add %[out], %[out], %[ostep]\n\t"

/**
 * MVE, 3x3, one output row of a full-range channel whose shift is negative, in a
 * tail-predicated loop (DLSTP / LETP: the last group of fewer than four columns
 * is predicated by the loop itself): per four output columns VDUP of the bias,
 * nine (LDR weight, VLDRH.S32 / gather, VMLA), VQRDMULH, the -1 of negative
 * lanes (VSHR, VQADD), VRSHL, VQADD of the zero point, VQSHL #24 / VSHR #24 (the
 * int8 clamp), one VSTRB.32 scatter a pixel apart: 38 instructions (stride 1) /
 * 41 (stride 2, three offset vectors) per 36 MACs. wt: the nine weights, then
 * the multiplier, the shift and the output bytes between pixels, as int32.
 */
__attribute__((noinline)) static void dwm_row3x3(const int16_t *x, int32_t wpb, int32_t stride, const int32_t *wt,
                                                 int32_t bias, int32_t zp, int8_t *out, int32_t n)
{
    const int16_t *x1 = (const int16_t *)(const void *)((const uint8_t *)x + wpb);
    const int16_t *x2 = (const int16_t *)(const void *)((const uint8_t *)x1 + wpb);
    const int32_t ostep = 4 * wt[11];
    int32_t w;
    if (stride == 1) {
        __asm__ volatile(
            "ldr %[w], [%[wt], #36]\n\t"
            "vdup.32 q2, %[w]\n\t"
            "ldr %[w], [%[wt], #40]\n\t"
            "vdup.32 q3, %[w]\n\t"
            "movs %[w], #0\n\t"
            "vidup.u32 q4, %[w], #1\n\t"
            "ldr %[w], [%[wt], #44]\n\t"
            "vmul.i32 q4, q4, %[w]\n\t"
            "dlstp.32 lr, %[n]\n\t"
            "1:\n\t"
            "vdup.32 q0, %[bias]\n\t"
            DWM_TAP("[%[x], #2]", "4") DWM_TAP("[%[x], #4]", "8") DWM_TAP("[%[x]], #8", "0")
            DWM_TAP("[%[x1], #2]", "16") DWM_TAP("[%[x1], #4]", "20") DWM_TAP("[%[x1]], #8", "12")
            DWM_TAP("[%[x2], #2]", "28") DWM_TAP("[%[x2], #4]", "32") DWM_TAP("[%[x2]], #8", "24")
            DWM_TAIL
            "letp lr, 1b\n\t"
            : [x] "+&r"(x), [x1] "+&r"(x1), [x2] "+&r"(x2), [out] "+&r"(out), [w] "=&r"(w)
            : [wt] "r"(wt), [bias] "r"(bias), [zp] "r"(zp), [ostep] "r"(ostep), [n] "r"(n)
            : "q0", "q1", "q2", "q3", "q4", "lr", "cc", "memory");
    } else {
        __asm__ volatile(
            "ldr %[w], [%[wt], #36]\n\t"
            "vdup.32 q2, %[w]\n\t"
            "ldr %[w], [%[wt], #40]\n\t"
            "vdup.32 q3, %[w]\n\t"
            "movs %[w], #0\n\t"
            "vidup.u32 q4, %[w], #1\n\t"
            "movs %[w], #0\n\t"
            "vidup.u32 q5, %[w], #2\n\t" /* input elements 0, 2, 4, 6 (+ 1, + 2 for the taps) */
            "movs %[w], #1\n\t"
            "vadd.i32 q6, q5, %[w]\n\t"
            "vadd.i32 q7, q6, %[w]\n\t"
            "ldr %[w], [%[wt], #44]\n\t"
            "vmul.i32 q4, q4, %[w]\n\t"
            "dlstp.32 lr, %[n]\n\t"
            "1:\n\t"
            "vdup.32 q0, %[bias]\n\t"
            DWM_TAP("[%[x], q5, uxtw #1]", "0") DWM_TAP("[%[x], q6, uxtw #1]", "4")
            DWM_TAP("[%[x], q7, uxtw #1]", "8")
            DWM_TAP("[%[x1], q5, uxtw #1]", "12") DWM_TAP("[%[x1], q6, uxtw #1]", "16")
            DWM_TAP("[%[x1], q7, uxtw #1]", "20")
            DWM_TAP("[%[x2], q5, uxtw #1]", "24") DWM_TAP("[%[x2], q6, uxtw #1]", "28")
            DWM_TAP("[%[x2], q7, uxtw #1]", "32")
            "adds %[x], %[x], #16\n\t"
            "adds %[x1], %[x1], #16\n\t"
            "adds %[x2], %[x2], #16\n\t"
            DWM_TAIL
            "letp lr, 1b\n\t"
            : [x] "+&r"(x), [x1] "+&r"(x1), [x2] "+&r"(x2), [out] "+&r"(out), [w] "=&r"(w)
            : [wt] "r"(wt), [bias] "r"(bias), [zp] "r"(zp), [ostep] "r"(ostep), [n] "r"(n)
            : "q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "lr", "cc", "memory");
    }
}
#undef DWM_TAP
#undef DWM_TAIL

/**
 * MVE: one channel's plane, four output columns per vector: per tap one
 * widening load of four int16 inputs (VLDRH.S32; stride 2: a gather) and one
 * vector-by-scalar VMLA with the tap's weight (held in a register for the whole
 * plane, up to 3x3; larger windows read it from the weight tensor), then the
 * vector requantization (mote_s8_mve_requant) and one scatter store of four
 * bytes a pixel apart (VSTRB.32). The last columns are predicated.
 */
MOTE_S8_HOT static void dwp_mve_plane(const mote_s8_planar_params_t *q, int32_t b, int32_t c)
{
    const mote_s8_conv_params_t *p = &q->g;
    const int16_t *pl = q->pin + ((size_t)b * p->cout + c) * (size_t)q->hp * (size_t)q->wp;
    int8_t *out = p->output + (size_t)b * p->ho * p->wo * p->cout + c;
    const int32_t sw = p->stride_w, dw = p->dil_w, cout = p->cout;
    const uint32x4_t xoff = vmulq_n_u32(vidupq_n_u32(0u, 1), (uint32_t)sw);      /* elements */
    const uint32x4_t ooff = vmulq_n_u32(vidupq_n_u32(0u, 1), (uint32_t)cout);    /* bytes */
    const int32x4_t mult = vdupq_n_s32(p->mult[c]);
    const int32x4_t shift = vdupq_n_s32(p->shift[c]);
    const int32_t bias = p->bias[c];
    int32_t w9[9];
    const int k3 = p->kh == 3 && p->kw == 3 && dw == 1;
    int32_t oy, ox, ky, kx, t;
    int32_t w0, w1, w2, w3, w4, w5, w6, w7, w8;
    for (t = 0; t < 9; t++) {
        w9[t] = k3 ? p->weight[(size_t)t * cout + c] : 0;
    }
    w0 = w9[0];
    w1 = w9[1];
    w2 = w9[2];
    w3 = w9[3];
    w4 = w9[4];
    w5 = w9[5];
    w6 = w9[6];
    w7 = w9[7];
    w8 = w9[8];
    if (k3 && (sw == 1 || sw == 2) && p->act_min == -128 && p->act_max == 127 && p->shift[c] < 0) {
        int32_t tab[12];
        for (t = 0; t < 9; t++) {
            tab[t] = w9[t];
        }
        tab[9] = p->mult[c];
        tab[10] = p->shift[c];
        tab[11] = cout;
        for (oy = 0; oy < p->ho; oy++) {
            dwm_row3x3(pl + (size_t)(oy * p->stride_h) * q->wp, 2 * q->wp, sw, tab, bias, p->out_zp,
                       out + (size_t)oy * p->wo * cout, p->wo);
        }
        return;
    }
    for (oy = 0; oy < p->ho; oy++) {
        const int16_t *row = pl + (size_t)(oy * p->stride_h) * q->wp;
        int8_t *orow = out + (size_t)oy * p->wo * cout;
        for (ox = 0; ox < p->wo; ox += 4) {
            const mve_pred16_t pr = vctp32q((uint32_t)(p->wo - ox));
            const int16_t *x0 = row + (size_t)ox * sw;
            int32x4_t acc = vdupq_n_s32(bias);
            if (k3 && sw == 1 && ox + 4 <= p->wo) { /* unpredicated: nine loads, nine VMLA */
                const int16_t *x = x0;
                acc = vmlaq_n_s32(acc, vldrhq_s32(x), w0);
                acc = vmlaq_n_s32(acc, vldrhq_s32(x + 1), w1);
                acc = vmlaq_n_s32(acc, vldrhq_s32(x + 2), w2);
                x += q->wp;
                acc = vmlaq_n_s32(acc, vldrhq_s32(x), w3);
                acc = vmlaq_n_s32(acc, vldrhq_s32(x + 1), w4);
                acc = vmlaq_n_s32(acc, vldrhq_s32(x + 2), w5);
                x += q->wp;
                acc = vmlaq_n_s32(acc, vldrhq_s32(x), w6);
                acc = vmlaq_n_s32(acc, vldrhq_s32(x + 1), w7);
                acc = vmlaq_n_s32(acc, vldrhq_s32(x + 2), w8);
                acc = mote_s8_mve_requant(acc, mult, shift, p->out_zp, p->act_min, p->act_max);
                vstrbq_scatter_offset_s32(orow + (size_t)ox * cout, ooff, acc);
                continue;
            }
            if (k3 && sw == 1) {
                const int16_t *x = x0;
                for (ky = 0; ky < 3; ky++, x += q->wp) {
                    acc = vmlaq_n_s32(acc, vldrhq_z_s32(x, pr), w9[3 * ky]);
                    acc = vmlaq_n_s32(acc, vldrhq_z_s32(x + 1, pr), w9[3 * ky + 1]);
                    acc = vmlaq_n_s32(acc, vldrhq_z_s32(x + 2, pr), w9[3 * ky + 2]);
                }
            } else if (k3) {
                const int16_t *x = x0;
                for (ky = 0; ky < 3; ky++, x += q->wp) {
                    acc = vmlaq_n_s32(acc, vldrhq_gather_shifted_offset_z_s32(x, xoff, pr), w9[3 * ky]);
                    acc = vmlaq_n_s32(acc, vldrhq_gather_shifted_offset_z_s32(x + 1, xoff, pr), w9[3 * ky + 1]);
                    acc = vmlaq_n_s32(acc, vldrhq_gather_shifted_offset_z_s32(x + 2, xoff, pr), w9[3 * ky + 2]);
                }
            } else {
                for (ky = 0; ky < p->kh; ky++) {
                    const int16_t *x = x0 + (size_t)(ky * p->dil_h) * q->wp;
                    for (kx = 0; kx < p->kw; kx++) {
                        acc = vmlaq_n_s32(acc, vldrhq_gather_shifted_offset_z_s32(x + kx * dw, xoff, pr),
                                          p->weight[((size_t)ky * p->kw + kx) * cout + c]);
                    }
                }
            }
            acc = mote_s8_mve_requant(acc, mult, shift, p->out_zp, p->act_min, p->act_max);
            vstrbq_scatter_offset_p_s32(orow + (size_t)ox * cout, ooff, acc, pr);
        }
    }
}
#endif

mote_err_t mote_kernel_mote_depthwise_planar16_s8_out(mote_kernel_ctx_t *ctx,
                                                      mote_value_t *const *args, uint32_t nargs)
{
    mote_s8_planar_params_t q;
    const mote_s8_conv_params_t *p = &q.g;
    int32_t b, c;
    (void)ctx;
    MOTE_TRY(mote_s8_planar_dw_parse(args, nargs, &q));
    for (b = 0; b < p->n; b++) {
        for (c = 0; c < p->cout; c++) {
#if defined(MOTE_S8_DSP)
            dwp_ch_t k;
            if (p->kh == 3 && p->kw == 3 && p->dil_h == 1 && p->dil_w == 1 && p->stride_h == p->stride_w &&
                (p->stride_h == 1 || p->stride_h == 2) && dwp_channel(p, c, &k)) {
                dwp_plane3x3(&k, q.pin + ((size_t)b * p->cout + c) * (size_t)q.hp * (size_t)q.wp, q.wp,
                             p->stride_h, p->ho, p->wo, p->output + (size_t)b * p->ho * p->wo * p->cout + c,
                             p->wo * p->cout, p->cout);
                continue;
            }
#endif
#if defined(MOTE_S8_MVE)
            dwp_mve_plane(&q, b, c);
#else
            dwp_plain_plane(&q, b, c);
#endif
        }
    }
    return MOTE_OK;
}
