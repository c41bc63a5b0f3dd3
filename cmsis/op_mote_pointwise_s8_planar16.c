/*
 * mote::pointwise_s8_planar16.out - Cortex-M version (see mote_s8_arm.h).
 * Same bytes as kernels/op_mote_pointwise_s8_planar16.c.
 *
 * A 1x1 conv whose output goes planar int16 (kernels/requant.h, "planar
 * int16") to the depthwise conv after it. The input zero point is folded into
 * the bias ahead of time, so raw int8 inputs are multiplied.
 * - DSP, Cin a multiple of 4: a block of two pixels x four output channels;
 *   per four taps one LDR per pixel and per weight row, SXTB16 / SXTB16 ROR 8
 *   into (0, 2) / (1, 3) pairs, two SMLAD per pixel and channel (34
 *   instructions for 32 MACs). Requantization: with every shift in [-22, -1]
 *   and |bias| + Cin * 2^14 < 2^30, SMMLAR(2 acc, M, 2^(e-1) + (zp << e)) plus
 *   the sign of acc, ASR, SSAT, clamp (depthwise_planar16_s8's form); else the
 *   general mote_s8_dsp_finish. The value minus the zero point goes to the
 *   planes with STRH. Channel tails (Cout % 4) one channel at a time.
 * - Otherwise (and MVE for now): plain C as the reference.
 */
#include "mote/kernel.h"
#include "mote_s8_arm.h"

MOTE_KERNEL("mote::pointwise_s8_planar16.out")

mote_err_t mote_kernel_mote_pointwise_s8_planar16_out(mote_kernel_ctx_t *ctx,
                                                      mote_value_t *const *args, uint32_t nargs);

/** Planar element of channel 0 of flattened input pixel pix (plane stride: hp * wp). */
static int16_t *pwp_at(const mote_s8_planar_params_t *q, int32_t pix)
{
    const int32_t per_img = q->g.h * q->g.w;
    const int32_t b = pix / per_img;
    const int32_t r = pix - b * per_img;
    const int32_t y = r / q->g.w;
    return mote_s8_planar_at(q, b, 0, y, r - y * q->g.w);
}

static void pwp_plain(const mote_s8_planar_params_t *q)
{
    const mote_s8_conv_params_t *p = &q->g;
    const size_t plane = (size_t)q->hp * (size_t)q->wp;
    const int32_t npix = p->n * p->h * p->w;
    int32_t pix, c, k;
    for (pix = 0; pix < npix; pix++) {
        const int8_t *xp = p->input + (size_t)pix * p->cin;
        int16_t *o = pwp_at(q, pix);
        for (c = 0; c < p->cout; c++) {
            const int8_t *wr = p->weight + (size_t)c * p->cin;
            uint32_t acc = (uint32_t)p->bias[c]; /* int32 wrap, UB-free */
            for (k = 0; k < p->cin; k++) {
                acc += (uint32_t)((int32_t)xp[k] * (int32_t)wr[k]);
            }
            o[(size_t)c * plane] = (int16_t)(mote_s8_finish(p, (int32_t)acc, c) - p->out_zp);
        }
    }
}

#if defined(MOTE_S8_DSP)
MOTE_S8_INLINE int32_t pwp_smmlar(int32_t a, int32_t m, int32_t add)
{
    int32_t r;
    __asm__("smmlar %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(m), "r"(add));
    return r;
}

/** Requantized output of channel c minus the zero point (fast: the SMMLAR form). */
MOTE_S8_INLINE int32_t pwp_rq(const mote_s8_conv_params_t *p, int fast, int32_t acc, int32_t c)
{
    if (fast) {
        const int32_t e = -p->shift[c];
        const int32_t off = (int32_t)((1u << (e - 1)) + ((uint32_t)p->out_zp << e));
        int32_t v = (pwp_smmlar((int32_t)((uint32_t)acc << 1), p->mult[c], off) + (acc >> 31)) >> e;
        v = __ssat(v, 8);
        v = v < p->act_min ? p->act_min : (v > p->act_max ? p->act_max : v);
        return v - p->out_zp;
    }
    return mote_s8_dsp_finish(acc, p->mult[c], p->shift[c], p->out_zp, p->act_min, p->act_max) -
           p->out_zp;
}

/** x (4 raw int8) times weight word v, both as SXTB16 pairs: acc += x . w */
#define PWP_DOT(acc, xe, xo, we, wo) acc = __smlad((xo), (wo), __smlad((xe), (we), (acc)))

MOTE_S8_HOT static void pwp_dsp(const mote_s8_planar_params_t *q, int fast)
{
    const mote_s8_conv_params_t *p = &q->g;
    const size_t plane = (size_t)q->hp * (size_t)q->wp;
    const int32_t npix = p->n * p->h * p->w;
    const int32_t cin = p->cin;
    int32_t pix, c, k;
    for (pix = 0; pix < npix; pix += 2) {
        const int8_t *xa = p->input + (size_t)pix * cin;
        const int two = pix + 1 < npix;
        const int8_t *xb = two ? xa + cin : xa;
        int16_t *oa = pwp_at(q, pix);
        int16_t *ob = two ? pwp_at(q, pix + 1) : oa;
        for (c = 0; c + 4 <= p->cout; c += 4) {
            const int8_t *w0 = p->weight + (size_t)c * cin;
            int32_t a0 = p->bias[c], a1 = p->bias[c + 1], a2 = p->bias[c + 2], a3 = p->bias[c + 3];
            int32_t b0 = a0, b1 = a1, b2 = a2, b3 = a3;
            for (k = 0; k < cin; k += 4) {
                const uint32_t ua = mote_s8_ld32(xa + k), ub = mote_s8_ld32(xb + k);
                const int32_t xae = __sxtb16((int32_t)ua), xao = mote_s8_sxtb16_ror8(ua);
                const int32_t xbe = __sxtb16((int32_t)ub), xbo = mote_s8_sxtb16_ror8(ub);
                uint32_t v;
                int32_t we, wo;
                v = mote_s8_ld32(w0 + k);
                we = __sxtb16((int32_t)v);
                wo = mote_s8_sxtb16_ror8(v);
                PWP_DOT(a0, xae, xao, we, wo);
                PWP_DOT(b0, xbe, xbo, we, wo);
                v = mote_s8_ld32(w0 + cin + k);
                we = __sxtb16((int32_t)v);
                wo = mote_s8_sxtb16_ror8(v);
                PWP_DOT(a1, xae, xao, we, wo);
                PWP_DOT(b1, xbe, xbo, we, wo);
                v = mote_s8_ld32(w0 + 2 * cin + k);
                we = __sxtb16((int32_t)v);
                wo = mote_s8_sxtb16_ror8(v);
                PWP_DOT(a2, xae, xao, we, wo);
                PWP_DOT(b2, xbe, xbo, we, wo);
                v = mote_s8_ld32(w0 + 3 * cin + k);
                we = __sxtb16((int32_t)v);
                wo = mote_s8_sxtb16_ror8(v);
                PWP_DOT(a3, xae, xao, we, wo);
                PWP_DOT(b3, xbe, xbo, we, wo);
            }
            oa[(size_t)c * plane] = (int16_t)pwp_rq(p, fast, a0, c);
            oa[(size_t)(c + 1) * plane] = (int16_t)pwp_rq(p, fast, a1, c + 1);
            oa[(size_t)(c + 2) * plane] = (int16_t)pwp_rq(p, fast, a2, c + 2);
            oa[(size_t)(c + 3) * plane] = (int16_t)pwp_rq(p, fast, a3, c + 3);
            if (two) {
                ob[(size_t)c * plane] = (int16_t)pwp_rq(p, fast, b0, c);
                ob[(size_t)(c + 1) * plane] = (int16_t)pwp_rq(p, fast, b1, c + 1);
                ob[(size_t)(c + 2) * plane] = (int16_t)pwp_rq(p, fast, b2, c + 2);
                ob[(size_t)(c + 3) * plane] = (int16_t)pwp_rq(p, fast, b3, c + 3);
            }
        }
        for (; c < p->cout; c++) { /* channel tail */
            const int8_t *w0 = p->weight + (size_t)c * cin;
            int32_t a0 = p->bias[c], b0 = a0;
            for (k = 0; k < cin; k += 4) {
                const uint32_t ua = mote_s8_ld32(xa + k), ub = mote_s8_ld32(xb + k);
                const uint32_t v = mote_s8_ld32(w0 + k);
                const int32_t we = __sxtb16((int32_t)v), wo = mote_s8_sxtb16_ror8(v);
                PWP_DOT(a0, __sxtb16((int32_t)ua), mote_s8_sxtb16_ror8(ua), we, wo);
                PWP_DOT(b0, __sxtb16((int32_t)ub), mote_s8_sxtb16_ror8(ub), we, wo);
            }
            oa[(size_t)c * plane] = (int16_t)pwp_rq(p, fast, a0, c);
            if (two) {
                ob[(size_t)c * plane] = (int16_t)pwp_rq(p, fast, b0, c);
            }
        }
    }
}
#undef PWP_DOT

/** 1 if every channel takes the SMMLAR requantization (see the file comment). */
static int pwp_fast(const mote_s8_conv_params_t *p)
{
    int32_t c;
    for (c = 0; c < p->cout; c++) {
        const int64_t b = p->bias[c];
        if (p->shift[c] >= 0 || p->shift[c] < -22 ||
            (b < 0 ? -b : b) + (int64_t)p->cin * 16384 >= ((int64_t)1 << 30)) {
            return 0;
        }
    }
    return 1;
}
#endif

mote_err_t mote_kernel_mote_pointwise_s8_planar16_out(mote_kernel_ctx_t *ctx,
                                                      mote_value_t *const *args, uint32_t nargs)
{
    mote_s8_planar_params_t q;
    (void)ctx;
    MOTE_TRY(mote_s8_planar_pw_parse(args, nargs, &q));
    mote_s8_planar_border(&q);
#if defined(MOTE_S8_DSP)
    if ((q.g.cin & 3) == 0) {
        pwp_dsp(&q, pwp_fast(&q.g));
        return MOTE_OK;
    }
#endif
    pwp_plain(&q);
    return MOTE_OK;
}
