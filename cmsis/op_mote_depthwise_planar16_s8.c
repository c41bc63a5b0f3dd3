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
 * - MVE: plain C for now (the DSP / plain blocking is the reference here).
 */
#include "mote/kernel.h"
#include "mote_s8_arm.h"

MOTE_KERNEL("mote::depthwise_planar16_s8.out")

mote_err_t mote_kernel_mote_depthwise_planar16_s8_out(mote_kernel_ctx_t *ctx,
                                                      mote_value_t *const *args, uint32_t nargs);

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

/**
 * 3x3, stride 1 or 2: the whole plane of one channel. pl: the plane (its
 * border included), wp: its row length; out: output channel c of pixel (0, 0);
 * orow / opx: output bytes between rows / pixels.
 */
MOTE_S8_HOT static void dwp_plane3x3(const dwp_ch_t *k, const int16_t *pl, int32_t wp, int32_t stride,
                                     int32_t ho, int32_t wo, int8_t *out, int32_t orow, int32_t opx)
{
    const int32_t a0 = k->w01[0], a1 = k->w01[1], a2 = k->w01[2];
    const int32_t b0 = k->w21[0], b1 = k->w21[1], b2 = k->w21[2];
    const int32_t bias = k->b2, m = k->m, off = k->off, e = k->e, lo = k->lo, hi = k->hi,
                  full = k->full;
    const int32_t rstep = stride * wp; /* input elements between output rows */
    int32_t oy, ox;
    for (oy = 0; oy < ho; oy += 2) {
        const int two = oy + 1 < ho;
        const int16_t *r = pl + (size_t)oy * rstep;
        int8_t *o = out + (size_t)oy * orow;
        for (ox = 0; ox < wo; ox += 2) {
            const int16_t *x = r + ox * stride;
            int32_t s00 = bias, s01 = bias, s10 = bias, s11 = bias;
            if (stride == 1 && ox + 1 < wo) {
                uint32_t u, v;
                u = mote_s8_ld32(x);
                v = mote_s8_ld32(x + 2);
                DWP_ROW_S1(s00, s01, u, v, a0, b0);
                x += wp;
                u = mote_s8_ld32(x);
                v = mote_s8_ld32(x + 2);
                DWP_ROW_S1(s00, s01, u, v, a1, b1);
                DWP_ROW_S1(s10, s11, u, v, a0, b0);
                x += wp;
                u = mote_s8_ld32(x);
                v = mote_s8_ld32(x + 2);
                DWP_ROW_S1(s00, s01, u, v, a2, b2);
                DWP_ROW_S1(s10, s11, u, v, a1, b1);
                if (two) {
                    x += wp;
                    u = mote_s8_ld32(x);
                    v = mote_s8_ld32(x + 2);
                    DWP_ROW_S1(s10, s11, u, v, a2, b2);
                }
            } else if (stride == 2 && ox + 1 < wo) {
                uint32_t u, v, w;
                int32_t j;
                const int32_t *wa = k->w01, *wb = k->w21;
                for (j = 0; j < 5; j++, x += wp) {
                    if (j == 3 && !two) {
                        break;
                    }
                    u = mote_s8_ld32(x);
                    v = mote_s8_ld32(x + 2);
                    w = (uint32_t)(uint16_t)x[4];
                    if (j < 3) {
                        DWP_ROW_S2(s00, s01, u, v, w, wa[j], wb[j]);
                    }
                    if (j >= 2) {
                        DWP_ROW_S2(s10, s11, u, v, w, wa[j - 2], wb[j - 2]);
                    }
                }
            } else { /* last column: one output column, x2 read as a halfword */
                const int32_t *wa = k->w01, *wb = k->w21;
                const int32_t rows = two ? stride + 3 : 3;
                int32_t j;
                for (j = 0; j < rows; j++, x += wp) {
                    const uint32_t u = mote_s8_ld32(x);
                    const int32_t v = x[2];
                    if (j < 3) {
                        s00 = __smlad((int32_t)u, wa[j], s00);
                        s00 = __smlabb(v, wb[j], s00);
                    }
                    if (two && j >= stride && j - stride < 3) {
                        s10 = __smlad((int32_t)u, wa[j - stride], s10);
                        s10 = __smlabb(v, wb[j - stride], s10);
                    }
                }
                o[(size_t)ox * opx] = dwp_rq(s00, m, off, e, lo, hi, full);
                if (two) {
                    o[(size_t)ox * opx + orow] = dwp_rq(s10, m, off, e, lo, hi, full);
                }
                continue;
            }
            o[(size_t)ox * opx] = dwp_rq(s00, m, off, e, lo, hi, full);
            o[(size_t)ox * opx + opx] = dwp_rq(s01, m, off, e, lo, hi, full);
            if (two) {
                o[(size_t)ox * opx + orow] = dwp_rq(s10, m, off, e, lo, hi, full);
                o[(size_t)ox * opx + orow + opx] = dwp_rq(s11, m, off, e, lo, hi, full);
            }
        }
    }
}
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
            dwp_plain_plane(&q, b, c);
        }
    }
    return MOTE_OK;
}
