/*
 * mote::linear_s8.out - Cortex-M version (DSP / MVE / plain, see mote_s8_arm.h).
 * No scratch: MVE dots each input row against four weight rows in place (zero
 * point folded into the bias as zp * sum w) and requantizes four outputs per vector; DSP widens input and weights on the fly
 * with SXTB16 and accumulates two output features per pass with SMLAD.
 * Same bytes as kernels/op_mote_linear_s8.c.
 */
#include "mote/kernel.h"
#include "mote_s8_arm.h"

MOTE_KERNEL("mote::linear_s8.out")

mote_err_t mote_kernel_mote_linear_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                          uint32_t nargs);

#if defined(MOTE_S8_DSP)
/** One input row x two weight rows, zp subtracted after widening. */
static void linear_dot1x2(const int8_t *x, const int8_t *wa, const int8_t *wb, int32_t k,
                          int32_t zp, int32_t s[2])
{
    const uint32_t zp2 = ((uint32_t)zp & 0xffffu) | ((uint32_t)zp << 16);
    int32_t a = 0, b = 0, i;
    for (i = k >> 2; i > 0; i--) {
        const uint32_t xv = mote_s8_ld32(x);
        const uint32_t w0 = mote_s8_ld32(wa);
        const uint32_t w1 = mote_s8_ld32(wb);
        const int32_t xe = __ssub16(__sxtb16((int32_t)xv), (int32_t)zp2);
        const int32_t xo = __ssub16(__sxtb16((int32_t)mote_s8_ror(xv, 8)), (int32_t)zp2);
        a = __smlad(__sxtb16((int32_t)w0), xe, a);
        a = __smlad(__sxtb16((int32_t)mote_s8_ror(w0, 8)), xo, a);
        b = __smlad(__sxtb16((int32_t)w1), xe, b);
        b = __smlad(__sxtb16((int32_t)mote_s8_ror(w1, 8)), xo, b);
        x += 4;
        wa += 4;
        wb += 4;
    }
    for (i = 0; i < (k & 3); i++) {
        a += ((int32_t)x[i] - zp) * wa[i];
        b += ((int32_t)x[i] - zp) * wb[i];
    }
    s[0] = a;
    s[1] = b;
}
#endif

mote_err_t mote_kernel_mote_linear_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                          uint32_t nargs)
{
    mote_s8_conv_params_t p;
    int32_t m, n, k;
    const mote_err_t e = mote_s8_linear_parse(args, nargs, &p);
    (void)ctx;
    if (e != MOTE_OK) {
        return e;
    }
    k = p.cin;
#if defined(MOTE_S8_MVE)
    for (n = 0; n < p.cout; n += 4) {
        const int8_t *w0 = p.weight + (size_t)n * k;
        const int8_t *w1 = n + 1 < p.cout ? w0 + k : w0;
        const int8_t *w2 = n + 2 < p.cout ? w1 + k : w1;
        const int8_t *w3 = n + 3 < p.cout ? w2 + k : w2;
        const int8_t *rows[4];
        int32_t cb[4], s[4], j;
        rows[0] = w0;
        rows[1] = w1;
        rows[2] = w2;
        rows[3] = w3;
        for (j = 0; j < 4; j++) {
            cb[j] = n + j < p.cout
                        ? (int32_t)((uint32_t)p.bias[n + j] -
                                    (uint32_t)p.in_zp * (uint32_t)mote_s8_mve_sum(rows[j], k))
                        : 0;
        }
        for (m = 0; m < p.n; m++) {
            mote_s8_mve_dot4(p.input + (size_t)m * k, w0, w1, w2, w3, k, s);
            mote_s8_mve_store4(&p, s, cb, n, p.output + (size_t)m * p.cout);
        }
    }
#elif defined(MOTE_S8_DSP)
    for (m = 0; m < p.n; m++) {
        const int8_t *x = p.input + (size_t)m * k;
        int8_t *o = p.output + (size_t)m * p.cout;
        for (n = 0; n < p.cout; n += 2) {
            const int32_t n1 = n + 1 < p.cout ? n + 1 : n;
            int32_t s[2];
            linear_dot1x2(x, p.weight + (size_t)n * k, p.weight + (size_t)n1 * k, k, p.in_zp, s);
            o[n] = mote_s8_finish_c(&p, (int32_t)((uint32_t)s[0] + (uint32_t)p.bias[n]), n);
            o[n1] = mote_s8_finish_c(&p, (int32_t)((uint32_t)s[1] + (uint32_t)p.bias[n1]), n1);
        }
    }
#else
    for (m = 0; m < p.n; m++) {
        const int8_t *x = p.input + (size_t)m * k;
        for (n = 0; n < p.cout; n++) {
            const int8_t *w = p.weight + (size_t)n * k;
            uint32_t acc = (uint32_t)p.bias[n];
            int32_t i;
            for (i = 0; i < k; i++) {
                acc += (uint32_t)(((int32_t)x[i] - p.in_zp) * (int32_t)w[i]);
            }
            p.output[(size_t)m * p.cout + n] = mote_s8_finish_c(&p, (int32_t)acc, n);
        }
    }
#endif
    return MOTE_OK;
}
