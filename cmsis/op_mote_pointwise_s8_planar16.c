/*
 * mote::pointwise_s8_planar16.out - Cortex-M version (see mote_s8_arm.h).
 * Same bytes as kernels/op_mote_pointwise_s8_planar16.c.
 *
 * A 1x1 conv whose output goes planar int16 (kernels/requant.h, "planar
 * int16") to the depthwise conv after it. The input zero point is folded into
 * the bias ahead of time, so raw int8 inputs are multiplied.
 * - DSP with the weights pre-widened in the program (argument 9, conv2d_s8's
 *   panel layout, aot/compiler/dsp_weights.py): conv2d_s8's 2x2 core
 *   (mote_s8_dsp_mac2x2: per four taps LDM of four weight words, two LDRD of a
 *   column of two pixels widened once into scratch, eight SMLAD) per pair of
 *   output channels; any Cin (the column is zero-padded to a multiple of 4).
 * - DSP without them, Cin a multiple of 4: a block of two pixels x four output
 *   channels; per four taps one LDR per pixel and per weight row, SXTB16 /
 *   SXTB16 ROR 8 into (0, 2) / (1, 3) pairs, two SMLAD per pixel and channel.
 * - DSP requantization: with every shift in [-22, -1] and |bias| + Cin * 2^14
 *   < 2^30, SMMLAR(2 acc, M, 2^(e-1) + (zp << e)) plus the sign of acc, ASR,
 *   SSAT, clamp (depthwise_planar16_s8's form); else mote_s8_dsp_finish. The
 *   value minus the zero point goes to the planes with STRH.
 * - MVE: per pixel, four output channels at a time with VMLADAVA.S8
 *   (mote_s8_mve_dot4, raw inputs), vector requantization (mote_s8_mve_requant),
 *   minus the zero point, four halfword stores a plane apart.
 * - Otherwise: plain C as the reference.
 * Scratch: mote_s8_planar_pw_scratch_bytes() (the DSP column).
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

#if !defined(MOTE_S8_MVE)
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
#endif

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

/** Per-channel constants of the fast requantization (scratch, once per call). */
typedef struct pwp_q {
    int32_t b2, m, off, e; /* 2 * bias, multiplier, 2^(e-1) + (zp << e), -shift */
} pwp_q_t;

/** Widen input pixel src (Cin raw int8) into slot (0 / 1) of the pair-interleaved column x. */
MOTE_S8_INLINE void pwp_widen(const int8_t *src, int32_t cin, int32_t kp, int32_t *x)
{
    int32_t k;
    for (k = 0; k < kp; k += 4, x += 4) {
        uint32_t v;
        if (k + 4 <= cin) {
            v = mote_s8_ld32(src + k);
        } else { /* the last taps: zeros past Cin (their weights are zero too) */
            int32_t i;
            v = 0;
            for (i = 0; k + i < cin; i++) {
                v |= (uint32_t)(uint8_t)src[k + i] << (8 * i);
            }
        }
        x[0] = __sxtb16((int32_t)v);
        x[1] = mote_s8_sxtb16_ror8(v);
    }
}

/** Fast requantization of 2 * acc = b2 + 2 * sum, clamp, minus the zero point. */
MOTE_S8_INLINE int32_t pwp_rq2(int32_t sum, const pwp_q_t *q, int32_t zp, int32_t lo, int32_t hi, int full)
{
    const int32_t a2 = (int32_t)((uint32_t)q->b2 + ((uint32_t)sum << 1));
    int32_t v = (pwp_smmlar(a2, q->m, q->off + (a2 >> 31))) >> q->e;
    v = __ssat(v, 8);
    if (!full) {
        v = v < lo ? lo : (v > hi ? hi : v);
    }
    return v - zp;
}

/**
 * Pre-widened weights, fast requantization (table qt): per pixel pair the column
 * (scratch) once, then mote_s8_dsp_mac2x2 and four outputs per channel pair.
 */
MOTE_S8_HOT static void pwp_dsp_panel_fast(const mote_s8_planar_params_t *q, const pwp_q_t *qt, int32_t *x,
                                           int full)
{
    const mote_s8_conv_params_t *p = &q->g;
    const size_t plane = (size_t)q->hp * (size_t)q->wp;
    const int32_t npix = p->n * p->h * p->w;
    const int32_t cin = p->cin, kp = (cin + 3) & ~3, ng = kp >> 2;
    const int32_t zp = p->out_zp, lo = p->act_min, hi = p->act_max;
    const int32_t pairs = p->cout >> 1;
    int32_t pix, c;
    for (pix = 0; pix < npix; pix += 2) {
        const int two = pix + 1 < npix;
        int16_t *oa = pwp_at(q, pix);
        int16_t *ob = two ? pwp_at(q, pix + 1) : oa;
        const int32_t *w = (const int32_t *)(const void *)p->wpanel;
        const pwp_q_t *qc = qt;
        int32_t s[4];
        pwp_widen(p->input + (size_t)pix * cin, cin, kp, x);
        pwp_widen(p->input + (size_t)(two ? pix + 1 : pix) * cin, cin, kp, x + 2);
        for (c = 0; c < pairs; c++, qc += 2, oa += 2 * plane, ob += 2 * plane) {
            w = mote_s8_dsp_mac2x2(w, x, ng, s);
            oa[0] = (int16_t)pwp_rq2(s[0], &qc[0], zp, lo, hi, full);
            oa[plane] = (int16_t)pwp_rq2(s[2], &qc[1], zp, lo, hi, full);
            if (two) {
                ob[0] = (int16_t)pwp_rq2(s[1], &qc[0], zp, lo, hi, full);
                ob[plane] = (int16_t)pwp_rq2(s[3], &qc[1], zp, lo, hi, full);
            }
        }
        if (p->cout & 1) { /* the odd last channel: its row is paired with itself */
            mote_s8_dsp_mac2x2(w, x, ng, s);
            oa[0] = (int16_t)pwp_rq2(s[0], &qc[0], zp, lo, hi, full);
            if (two) {
                ob[0] = (int16_t)pwp_rq2(s[1], &qc[0], zp, lo, hi, full);
            }
        }
    }
}

/** Pre-widened weights, the general requantization (any shift or bias). */
static void pwp_dsp_panel(const mote_s8_planar_params_t *q, int32_t *x)
{
    const mote_s8_conv_params_t *p = &q->g;
    const size_t plane = (size_t)q->hp * (size_t)q->wp;
    const int32_t npix = p->n * p->h * p->w;
    const int32_t cin = p->cin, kp = (cin + 3) & ~3;
    int32_t pix, c, j;
    for (pix = 0; pix < npix; pix += 2) {
        const int two = pix + 1 < npix;
        int16_t *oa = pwp_at(q, pix);
        int16_t *ob = two ? pwp_at(q, pix + 1) : oa;
        const int32_t *w = (const int32_t *)(const void *)p->wpanel;
        pwp_widen(p->input + (size_t)pix * cin, cin, kp, x);
        pwp_widen(p->input + (size_t)(two ? pix + 1 : pix) * cin, cin, kp, x + 2);
        for (c = 0; c < p->cout; c += 2) {
            int32_t s[4];
            w = mote_s8_dsp_mac2x2(w, x, kp >> 2, s);
            for (j = 0; j < 2 && c + j < p->cout; j++) {
                oa[(size_t)(c + j) * plane] = (int16_t)pwp_rq(p, 0, (int32_t)((uint32_t)s[2 * j] +
                                                                              (uint32_t)p->bias[c + j]), c + j);
                if (two) {
                    ob[(size_t)(c + j) * plane] = (int16_t)pwp_rq(
                        p, 0, (int32_t)((uint32_t)s[2 * j + 1] + (uint32_t)p->bias[c + j]), c + j);
                }
            }
        }
    }
}

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

#if defined(MOTE_S8_MVE)
/** Per pixel, four channels at a time: VMLADAVA dot products, vector requantization. */
MOTE_S8_HOT static void pwp_mve(const mote_s8_planar_params_t *q)
{
    const mote_s8_conv_params_t *p = &q->g;
    const size_t plane = (size_t)q->hp * (size_t)q->wp;
    const int32_t npix = p->n * p->h * p->w;
    const int32_t cin = p->cin;
    const uint32x4_t offs = vmulq_n_u32(vidupq_n_u32(0u, 1), (uint32_t)(2u * plane));
    int32_t pix, c;
    for (pix = 0; pix < npix; pix++) {
        const int8_t *xp = p->input + (size_t)pix * cin;
        int16_t *o = pwp_at(q, pix);
        for (c = 0; c < p->cout; c += 4) {
            const int8_t *w0 = p->weight + (size_t)c * cin;
            const int32_t left = p->cout - c;
            const mve_pred16_t pr = vctp32q((uint32_t)left);
            int32_t s[4];
            int32x4_t acc;
            mote_s8_mve_dot4(xp, w0, left > 1 ? w0 + cin : w0, left > 2 ? w0 + 2 * cin : w0,
                             left > 3 ? w0 + 3 * cin : w0, cin, s);
            acc = vaddq_s32(vld1q_s32(s), vldrwq_z_s32(p->bias + c, pr));
            acc = mote_s8_mve_requant(acc, vldrwq_z_s32(p->mult + c, pr), vldrwq_z_s32(p->shift + c, pr),
                                      p->out_zp, p->act_min, p->act_max);
            vstrhq_scatter_offset_p_s32(o + (size_t)c * plane, offs, vsubq_n_s32(acc, p->out_zp), pr);
        }
    }
}
#endif

mote_err_t mote_kernel_mote_pointwise_s8_planar16_out(mote_kernel_ctx_t *ctx,
                                                      mote_value_t *const *args, uint32_t nargs)
{
    mote_s8_planar_params_t q;
    void *scratch;
    MOTE_TRY(mote_s8_planar_pw_parse(args, nargs, &q));
    scratch = mote_s8_scratch(ctx, mote_s8_planar_pw_scratch_bytes(q.g.cin, q.g.cout));
    MOTE_CHECK(scratch != NULL, MOTE_ERR_KERNEL_SCRATCH);
    mote_s8_planar_border(&q);
#if defined(MOTE_S8_MVE)
    pwp_mve(&q);
    return MOTE_OK;
#else
#if defined(MOTE_S8_DSP)
    if (q.g.wpanel != NULL) {
        int32_t *x = (int32_t *)scratch;
        if (pwp_fast(&q.g)) {
            pwp_q_t *qt = (pwp_q_t *)(void *)(x + 4 * (((q.g.cin + 3) & ~3) >> 2));
            int32_t c;
            for (c = 0; c < q.g.cout; c++) {
                const int32_t e = -q.g.shift[c];
                qt[c].b2 = (int32_t)((uint32_t)q.g.bias[c] << 1);
                qt[c].m = q.g.mult[c];
                qt[c].off = (int32_t)((1u << (e - 1)) + ((uint32_t)q.g.out_zp << e));
                qt[c].e = e;
            }
            pwp_dsp_panel_fast(&q, qt, x, q.g.act_min == -128 && q.g.act_max == 127);
        } else {
            pwp_dsp_panel(&q, x);
        }
        return MOTE_OK;
    }
    if ((q.g.cin & 3) == 0) {
        pwp_dsp(&q, pwp_fast(&q.g));
        return MOTE_OK;
    }
#endif
    pwp_plain(&q);
    return MOTE_OK;
#endif
}
