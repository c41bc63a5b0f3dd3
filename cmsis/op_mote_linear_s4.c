/*
 * mote::linear_s4.out - Cortex-M version (DSP / MVE / plain, see mote_s8_arm.h)
 * of int8 x int4 fully connected: input int8 [M, K], weight packed int4
 * [N, K/2] (kernels/int4.h: element 2i in the low nibble of byte i) -> int8 [M, N].
 * Same bytes as kernels/op_mote_linear_s4.c (acc = bias + sum (x - zp) * w, int32,
 * then the int8 requantization).
 *
 * DSP: a weight word holds 8 nibbles; (v << 4) & 0xF0F0F0F0 and v & 0xF0F0F0F0 put
 * the even / odd nibbles in the high half of each byte, so SXTB16 (and SXTB16 ROR 8)
 * yields them as int16 pairs times 16 with no shift per lane. The input row is
 * widened once per chunk as (x - zp) pairs in the matching order (x0,x4) (x2,x6)
 * (x1,x5) (x3,x7); four SMLAD per 8 taps. Every product is a multiple of 16, so
 * acc / 16 is exact; |16 * w * (x - zp)| <= 32640 keeps the sum inside int32 for
 * K <= S4_DSP_MAX_K (longer rows take the plain loop).
 * MVE: 32 taps per step: VLD2 de-interleaves the input into even / odd taps, the
 * weight bytes give the even nibbles by VSHL #4 + VSHR #4 (arithmetic) and the odd
 * ones by VSHR #4; two VMLADAVA.S8; the zero point folds into the bias as zp * sum w.
 */
#include "mote/kernel.h"
#include "mote_s8_arm.h"
#include "../kernels/int4.h"

MOTE_KERNEL("mote::linear_s4.out")

mote_err_t mote_kernel_mote_linear_s4_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs);

#if !defined(MOTE_S8_MVE)
/* acc of one (input row, weight row) pair over taps [k0, k): plain C. */
static int32_t s4_dot_tail(const int8_t *x, const uint8_t *w, int32_t zp, int32_t k0, int32_t k)
{
    uint32_t acc = 0;
    int32_t i;
    for (i = k0; i < k; i++) {
        acc += (uint32_t)(((int32_t)x[i] - zp) * mote_w4_at(w, (size_t)i));
    }
    return (int32_t)acc;
}
#endif

#if defined(MOTE_S8_DSP)
/** Taps widened per pass (on the stack: S4_CHUNK * 2 bytes), a multiple of 8. */
#define S4_CHUNK 256
/** Longest row of the DSP path: K * 32640 < 2^31. */
#define S4_DSP_MAX_K 65536

/* x[0..n) (n a multiple of 8) minus zp as int16 pairs in nibble order, 4 words per 8 taps. */
MOTE_S8_HOT static void s4_widen(const int8_t *x, int32_t n, int32_t zp, int32_t *xb)
{
    int32_t i;
    for (i = 0; i < n; i += 8, xb += 4) {
        xb[0] = (int32_t)(((uint32_t)(x[i] - zp) & 0xffffu) | ((uint32_t)(x[i + 4] - zp) << 16));
        xb[1] = (int32_t)(((uint32_t)(x[i + 2] - zp) & 0xffffu) | ((uint32_t)(x[i + 6] - zp) << 16));
        xb[2] = (int32_t)(((uint32_t)(x[i + 1] - zp) & 0xffffu) | ((uint32_t)(x[i + 5] - zp) << 16));
        xb[3] = (int32_t)(((uint32_t)(x[i + 3] - zp) & 0xffffu) | ((uint32_t)(x[i + 7] - zp) << 16));
    }
}

/* 16 * sum over n taps (a multiple of 8) of w * (x - zp), two weight rows wa, wb. */
MOTE_S8_HOT static void s4_dot2(const uint8_t *wa, const uint8_t *wb, const int32_t *xb, int32_t n,
                                int32_t acc[2])
{
    const uint32_t hi = 0xF0F0F0F0u;
    int32_t a = acc[0], b = acc[1];
    int32_t i;
    for (i = 0; i < n; i += 8, xb += 4) {
        const uint32_t va = mote_s8_ld32(wa + (i >> 1));
        const uint32_t vb = mote_s8_ld32(wb + (i >> 1));
        const uint32_t ea = (va << 4) & hi, oa = va & hi;
        const uint32_t eb = (vb << 4) & hi, ob = vb & hi;
        a = __smlad(__sxtb16((int32_t)ea), xb[0], a);
        b = __smlad(__sxtb16((int32_t)eb), xb[0], b);
        a = __smlad(mote_s8_sxtb16_ror8(ea), xb[1], a);
        b = __smlad(mote_s8_sxtb16_ror8(eb), xb[1], b);
        a = __smlad(__sxtb16((int32_t)oa), xb[2], a);
        b = __smlad(__sxtb16((int32_t)ob), xb[2], b);
        a = __smlad(mote_s8_sxtb16_ror8(oa), xb[3], a);
        b = __smlad(mote_s8_sxtb16_ror8(ob), xb[3], b);
    }
    acc[0] = a;
    acc[1] = b;
}

/* One input row: pairs of weight rows over the widened chunks, K % 8 taps in C. */
MOTE_S8_HOT static void s4_row(const mote_s8_conv_params_t *p, const int8_t *x, int8_t *o)
{
    const int32_t k = p->cin;
    const int32_t k8 = k & ~7;
    const size_t rb = (size_t)(k / 2);
    const uint8_t *wq = (const uint8_t *)p->weight;
    int32_t xb[S4_CHUNK / 2];
    int32_t n, c0, j;
    if (k8 <= S4_CHUNK) {
        s4_widen(x, k8, p->in_zp, xb);
    }
    for (n = 0; n < p->cout; n += 2) {
        const uint8_t *wa = wq + (size_t)n * rb;
        const uint8_t *wb = n + 1 < p->cout ? wa + rb : wa;
        int32_t acc[2] = {0, 0};
        for (c0 = 0; c0 < k8; c0 += S4_CHUNK) {
            const int32_t kc = k8 - c0 < S4_CHUNK ? k8 - c0 : S4_CHUNK;
            if (k8 > S4_CHUNK) {
                s4_widen(x + c0, kc, p->in_zp, xb);
            }
            s4_dot2(wa + c0 / 2, wb + c0 / 2, xb, kc, acc);
        }
        for (j = 0; j < 2 && n + j < p->cout; j++) {
            const uint8_t *w = j ? wb : wa;
            const int32_t sum = (acc[j] >> 4) + s4_dot_tail(x, w, p->in_zp, k8, k); /* exact: 16 | acc */
            o[n + j] = mote_s8_finish_c(p, (int32_t)((uint32_t)sum + (uint32_t)p->bias[n + j]), n + j);
        }
    }
}
#endif

#if defined(MOTE_S8_MVE)
/* The even and odd nibbles of 16 weight bytes as int8 lanes (elements 2i and 2i+1). */
MOTE_S8_INLINE void s4_mve_unpack(int8x16_t v, int8x16_t *even, int8x16_t *odd)
{
    *even = vshrq_n_s8(vshlq_n_s8(v, 4), 4);
    *odd = vshrq_n_s8(v, 4);
}

/* sum over k taps of x * w (raw x: the caller folds the zero point). */
MOTE_S8_HOT static int32_t s4_mve_dot(const int8_t *x, const uint8_t *w, int32_t k)
{
    int32_t acc = 0, i = 0;
    int8x16_t we, wo;
    for (; i + 32 <= k; i += 32) {
        const int8x16x2_t xv = vld2q_s8(x + i);
        s4_mve_unpack(vldrbq_s8((const int8_t *)w + i / 2), &we, &wo);
        acc = vmladavaq_s8(acc, xv.val[0], we);
        acc = vmladavaq_s8(acc, xv.val[1], wo);
    }
    if (i < k) { /* the last k - i taps (even): a zero-filled copy of the input, predicated weights */
        int8_t tail[32] = {0};
        int8x16x2_t xv;
        int32_t t;
        for (t = 0; t < k - i; t++) {
            tail[t] = x[i + t];
        }
        xv = vld2q_s8(tail);
        s4_mve_unpack(vldrbq_z_s8((const int8_t *)w + i / 2, vctp8q((uint32_t)(k - i) / 2u)), &we, &wo);
        acc = vmladavaq_s8(acc, xv.val[0], we);
        acc = vmladavaq_s8(acc, xv.val[1], wo);
    }
    return acc;
}

/* Sum of the k int4 weights of a row. */
MOTE_S8_HOT static int32_t s4_mve_sum(const uint8_t *w, int32_t k)
{
    int32_t acc = 0, i;
    int8x16_t we, wo;
    for (i = 0; i < k / 2; i += 16) {
        const mve_pred16_t pr = vctp8q((uint32_t)(k / 2 - i));
        s4_mve_unpack(vldrbq_z_s8((const int8_t *)w + i, pr), &we, &wo);
        acc = vaddvaq_s8(acc, we);
        acc = vaddvaq_s8(acc, wo);
    }
    return acc;
}

/* Every output row, four output features per pass (zero point folded into the bias). */
MOTE_S8_HOT static void s4_mve(const mote_s8_conv_params_t *p)
{
    const int32_t k = p->cin;
    const size_t rb = (size_t)(k / 2);
    const uint8_t *wq = (const uint8_t *)p->weight;
    int32_t m, n, j;
    for (n = 0; n < p->cout; n += 4) {
        int32_t cb[4], s[4];
        for (j = 0; j < 4; j++) {
            cb[j] = n + j < p->cout ? (int32_t)((uint32_t)p->bias[n + j] -
                                                (uint32_t)p->in_zp * (uint32_t)s4_mve_sum(wq + (size_t)(n + j) * rb, k))
                                    : 0;
        }
        for (m = 0; m < p->n; m++) {
            const int8_t *x = p->input + (size_t)m * (size_t)k;
            for (j = 0; j < 4; j++) {
                s[j] = n + j < p->cout ? s4_mve_dot(x, wq + (size_t)(n + j) * rb, k) : 0;
            }
            mote_s8_mve_store4(p, s, cb, n, p->output + (size_t)m * (size_t)p->cout);
        }
    }
}
#endif

mote_err_t mote_kernel_mote_linear_s4_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_s8_conv_params_t p;
    int32_t m;
    const mote_err_t e = mote_s8_linear_parse(args, nargs, 2, &p);
    (void)ctx;
    if (e != MOTE_OK) {
        return e;
    }
#if defined(MOTE_S8_MVE)
    s4_mve(&p);
    (void)m;
#else
    for (m = 0; m < p.n; m++) {
        const int8_t *x = p.input + (size_t)m * (size_t)p.cin;
        int8_t *o = p.output + (size_t)m * (size_t)p.cout;
#if defined(MOTE_S8_DSP)
        if (p.cin <= S4_DSP_MAX_K) {
            s4_row(&p, x, o);
            continue;
        }
#endif
        {
            const uint8_t *wq = (const uint8_t *)p.weight;
            int32_t n;
            for (n = 0; n < p.cout; n++) {
                const int32_t sum = s4_dot_tail(x, wq + (size_t)n * (size_t)(p.cin / 2), p.in_zp, 0, p.cin);
                o[n] = mote_s8_finish_c(&p, (int32_t)((uint32_t)sum + (uint32_t)p.bias[n]), n);
            }
        }
    }
#endif
    return MOTE_OK;
}
