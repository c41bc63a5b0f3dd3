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

/* sum_i v[i] * w[i] + acc over k int8 pairs. |result| < 2^31 by the parser's limits,
 * so the order of the additions does not change it: the MVE path (16 lanes per
 * VMLADAVA, the tail predicated), the DSP path (SXTB16 + SMLAD, 4 taps per step)
 * and the plain loop give the same value. */
static int32_t rnn_dot(const int8_t *v, const int8_t *w, int32_t k, int32_t acc)
{
    int32_t i = 0;
#if defined(MOTE_RNN_MVE)
    for (; i + 16 <= k; i += 16) {
        acc = vmladavaq_s8(acc, vld1q_s8(v + i), vld1q_s8(w + i));
    }
    if (i < k) {
        const mve_pred16_t pr = vctp8q((uint32_t)(k - i));
        acc = vmladavaq_p_s8(acc, vld1q_z_s8(v + i, pr), vld1q_z_s8(w + i, pr), pr);
        i = k;
    }
#elif defined(MOTE_RNN_DSP)
    for (; i + 4 <= k; i += 4) {
        uint32_t a, b;
        memcpy(&a, v + i, 4);
        memcpy(&b, w + i, 4);
        acc = __smlad(__sxtb16(a), __sxtb16(b), acc);                          /* taps 0, 2 */
        acc = __smlad(__sxtb16((a >> 8) | (a << 24)), __sxtb16((b >> 8) | (b << 24)), acc); /* 1, 3 */
    }
#endif
    for (; i < k; i++) {
        acc += (int32_t)v[i] * (int32_t)w[i];
    }
    return acc;
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

int64_t mote_rnn_product(const mote_rnn_params_t *p, int which, int32_t b, int32_t r)
{
    const int32_t k = which ? p->hidden_size : p->input_size;
    const int8_t *v = which ? p->hidden + (size_t)b * (size_t)k : p->input + (size_t)b * (size_t)k;
    const int8_t *w = (which ? p->weight_hh : p->weight_ih) + (size_t)r * (size_t)k;
    const int32_t j = which * p->gates + r;
    const int64_t g = mote_rnn_rq64(rnn_dot(v, w, k, p->bias[j]), p->mult[j], p->shift[j]);
    return g < INT32_MIN ? INT32_MIN : (g > INT32_MAX ? INT32_MAX : g);
}

int16_t mote_rnn_act(const mote_rnn_params_t *p, int fn, int64_t v, int32_t frac_bits)
{
    const int16_t *t = p->table + (fn ? MOTE_RNN_TABLE_SIZE : 0);
    const int64_t lo = -((int64_t)8 << frac_bits);
    const int32_t s = frac_bits - MOTE_RNN_TABLE_STEP_BITS;
    int64_t q = v < lo ? lo : (v > -lo - 1 ? -lo - 1 : v);
    int64_t i;
    int64_t fr;
    q -= lo;
    if (s <= 0) {
        return t[q << -s];
    }
    i = q >> s;
    fr = q & (((int64_t)1 << s) - 1);
    return (int16_t)(t[i] + ((((int64_t)t[i + 1] - t[i]) * fr + ((int64_t)1 << (s - 1))) >> s));
}
