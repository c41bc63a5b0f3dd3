/*
 * Shared parts of the int8 recurrent cells (kernels/s8_rnn.h): argument
 * verification, the gate products and the interpolated sigmoid / tanh.
 */
#include <string.h>

#include "s8_rnn.h"
#include "requant.h"
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#define MOTE_RNN_MVE 1
#elif defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#include <arm_acle.h>
#define MOTE_RNN_DSP 1
#endif

/* acc[g] += sum_i v[i] * w[g * stride + i] for the n (3 or 4) gate rows of one
 * hidden unit: v is read once for all of them, the sums stay in registers (with
 * n = 3 the fourth row repeats the third and is dropped). |acc| < 2^31 by the
 * parser's limits, so the order of the additions does not change the sums: the
 * MVE path (16 taps per VMLADAVA, the tail predicated), the DSP path (SXTB16 +
 * SMLAD, 4 taps per step) and the plain loop give the same values. */
static void rnn_dot(const int8_t *v, const int8_t *w, size_t stride, int32_t n, int32_t k, int32_t *acc)
{
    const int8_t *w0 = w;
    const int8_t *w1 = w + stride;
    const int8_t *w2 = w + 2u * stride;
    const int8_t *w3 = n > 3 ? w + 3u * stride : w2;
    int32_t s0 = acc[0], s1 = acc[1], s2 = acc[2], s3 = n > 3 ? acc[3] : 0;
    int32_t i = 0;
#if defined(MOTE_RNN_MVE)
    for (; i + 16 <= k; i += 16) {
        const int8x16_t x = vld1q_s8(v + i);
        s0 = vmladavaq_s8(s0, x, vld1q_s8(w0 + i));
        s1 = vmladavaq_s8(s1, x, vld1q_s8(w1 + i));
        s2 = vmladavaq_s8(s2, x, vld1q_s8(w2 + i));
        s3 = vmladavaq_s8(s3, x, vld1q_s8(w3 + i));
    }
    if (i < k) {
        const mve_pred16_t pr = vctp8q((uint32_t)(k - i));
        const int8x16_t x = vld1q_z_s8(v + i, pr);
        s0 = vmladavaq_p_s8(s0, x, vld1q_z_s8(w0 + i, pr), pr);
        s1 = vmladavaq_p_s8(s1, x, vld1q_z_s8(w1 + i, pr), pr);
        s2 = vmladavaq_p_s8(s2, x, vld1q_z_s8(w2 + i, pr), pr);
        s3 = vmladavaq_p_s8(s3, x, vld1q_z_s8(w3 + i, pr), pr);
        i = k;
    }
#elif defined(MOTE_RNN_DSP)
    for (; i + 4 <= k; i += 4) {
        uint32_t a, b;
        int32_t a02, a13;
        memcpy(&a, v + i, 4);
        a02 = (int32_t)__sxtb16(a);                     /* taps 0, 2 */
        a13 = (int32_t)__sxtb16((a >> 8) | (a << 24));  /* taps 1, 3 */
        memcpy(&b, w0 + i, 4);
        s0 = __smlad(a13, __sxtb16((b >> 8) | (b << 24)), __smlad(a02, __sxtb16(b), s0));
        memcpy(&b, w1 + i, 4);
        s1 = __smlad(a13, __sxtb16((b >> 8) | (b << 24)), __smlad(a02, __sxtb16(b), s1));
        memcpy(&b, w2 + i, 4);
        s2 = __smlad(a13, __sxtb16((b >> 8) | (b << 24)), __smlad(a02, __sxtb16(b), s2));
        memcpy(&b, w3 + i, 4);
        s3 = __smlad(a13, __sxtb16((b >> 8) | (b << 24)), __smlad(a02, __sxtb16(b), s3));
    }
#endif
    for (; i < k; i++) {
        const int32_t x = v[i];
        s0 += x * w0[i];
        s1 += x * w1[i];
        s2 += x * w2[i];
        s3 += x * w3[i];
    }
    acc[0] = s0;
    acc[1] = s1;
    acc[2] = s2;
    if (n > 3) {
        acc[3] = s3;
    }
}

static mote_err_t rnn_tensor(mote_value_t *v, uint8_t dtype, int32_t d0, int32_t d1, mote_tensor_t **t)
{
    MOTE_TRY(mote_s8_tensor_arg(v, dtype, 2, t));
    MOTE_CHECK((*t)->sizes[0] == d0 && (*t)->sizes[1] == d1, MOTE_ERR_KERNEL_SHAPE);
    return MOTE_OK;
}

mote_err_t mote_rnn_parse(mote_value_t *const *args, uint32_t nargs, int lstm, mote_rnn_params_t *p)
{
    mote_tensor_t *x;
    mote_tensor_t *h;
    mote_tensor_t *t;
    const uint32_t c = lstm ? 1u : 0u; /* the LSTM's cell argument shifts the rest by one */
    int32_t i;
    MOTE_CHECK(args != NULL && p != NULL && nargs == (lstm ? 15u : 12u), MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_s8_tensor_arg(args[0], MOTE_DTYPE_INT8, 2, &x));
    MOTE_TRY(mote_s8_tensor_arg(args[1], MOTE_DTYPE_INT8, 2, &h));
    p->batch = x->sizes[0];
    p->input_size = x->sizes[1];
    p->hidden_size = h->sizes[1];
    MOTE_CHECK(h->sizes[0] == p->batch && p->batch >= 1 && p->input_size >= 1 && p->hidden_size >= 1 &&
                   p->input_size <= MOTE_RNN_TAPS_MAX && p->hidden_size <= MOTE_RNN_TAPS_MAX,
               MOTE_ERR_KERNEL_SHAPE);
    p->gates = (lstm ? 4 : 3) * p->hidden_size;
    p->input = (const int8_t *)x->data;
    p->hidden = (const int8_t *)h->data;
    p->cell = NULL;
    p->cell_out = NULL;
    p->cell_frac_bits = 0;
    if (lstm) {
        MOTE_TRY(rnn_tensor(args[2], MOTE_DTYPE_INT16, p->batch, p->hidden_size, &t));
        p->cell = (const int16_t *)t->data;
    }
    MOTE_TRY(rnn_tensor(args[2 + c], MOTE_DTYPE_INT8, p->gates, p->input_size, &t));
    p->weight_ih = (const int8_t *)t->data;
    MOTE_TRY(rnn_tensor(args[3 + c], MOTE_DTYPE_INT8, p->gates, p->hidden_size, &t));
    p->weight_hh = (const int8_t *)t->data;
    MOTE_TRY(rnn_tensor(args[4 + c], MOTE_DTYPE_INT32, 2, p->gates, &t));
    p->bias = (const int32_t *)t->data;
    MOTE_TRY(rnn_tensor(args[5 + c], MOTE_DTYPE_INT32, 2, p->gates, &t));
    p->mult = (const int32_t *)t->data;
    MOTE_TRY(rnn_tensor(args[6 + c], MOTE_DTYPE_INT32, 2, p->gates, &t));
    p->shift = (const int32_t *)t->data;
    MOTE_TRY(rnn_tensor(args[7 + c], MOTE_DTYPE_INT16, 2, MOTE_RNN_TABLE_SIZE, &t));
    p->table = (const int16_t *)t->data;
    for (i = 0; i < 2 * p->gates; i++) {
        MOTE_CHECK(p->bias[i] >= -MOTE_RNN_BIAS_MAX && p->bias[i] <= MOTE_RNN_BIAS_MAX && p->mult[i] >= 0 &&
                       p->shift[i] >= -31 && p->shift[i] <= 30,
                   MOTE_ERR_KERNEL_ARGS);
    }
    if (lstm) {
        MOTE_TRY(mote_s8_int_arg(args[9], 0, 15, &p->cell_frac_bits));
    }
    MOTE_TRY(MOTE_S8_ZP_ARG(args[8 + 2u * c], &p->hidden_zp));
    MOTE_TRY(mote_s8_int_arg(args[9 + 2u * c], 0, INT32_MAX, &p->hidden_mult));
    MOTE_TRY(mote_s8_int_arg(args[10 + 2u * c], -31, 30, &p->hidden_shift));
    MOTE_TRY(rnn_tensor(args[11 + 2u * c], MOTE_DTYPE_INT8, p->batch, p->hidden_size, &t));
    p->out = (int8_t *)t->data;
    if (lstm) {
        MOTE_TRY(rnn_tensor(args[14], MOTE_DTYPE_INT16, p->batch, p->hidden_size, &t));
        p->cell_out = (int16_t *)t->data;
    }
    return MOTE_OK;
}

void mote_rnn_products(const mote_rnn_params_t *p, int32_t b, int32_t j, int64_t *gx, int64_t *gh)
{
    const int32_t n = p->gates / p->hidden_size; /* 4 (LSTM) or 3 (GRU) gate rows per unit */
    const int32_t ki = p->input_size, kh = p->hidden_size;
    int32_t ax[4], ah[4];
    int32_t g;
    for (g = 0; g < n; g++) {
        ax[g] = p->bias[g * kh + j];
        ah[g] = p->bias[p->gates + g * kh + j];
    }
    rnn_dot(p->input + (size_t)b * (size_t)ki, p->weight_ih + (size_t)j * (size_t)ki, (size_t)kh * (size_t)ki, n,
            ki, ax);
    rnn_dot(p->hidden + (size_t)b * (size_t)kh, p->weight_hh + (size_t)j * (size_t)kh, (size_t)kh * (size_t)kh, n,
            kh, ah);
    for (g = 0; g < n; g++) {
        const int32_t r = g * kh + j;
        gx[g] = mote_rnn_rq_gate(ax[g], p->mult[r], p->shift[r]);
        gh[g] = mote_rnn_rq_gate(ah[g], p->mult[p->gates + r], p->shift[p->gates + r]);
    }
}
