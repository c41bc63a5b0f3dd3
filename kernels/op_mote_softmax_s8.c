/*
 * mote::softmax_s8.out - int8 softmax over the last dimension, TFLite / CMSIS-NN
 * integer semantics (docs/int8-ops.md; bit-identical to aot/compiler/quant/int8ref.py softmax_s8):
 * output scale 1/256, zero point -128. Per row: diff = x - max (<= 0); entries
 * with diff < diff_min give -128; the others exp(requantize(diff, M, left_shift))
 * in fixed point (Q5.26 in, Q0.31 out), summed in Q12.19, normalised by a
 * Newton-Raphson reciprocal. Integer arithmetic only; no scratch.
 *
 *   dtypes: int8 (input, out).
 */
#include "mote/kernel.h"
#include "requant.h"

MOTE_KERNEL("mote::softmax_s8.out")

mote_err_t mote_kernel_mote_softmax_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                           uint32_t nargs);

#define SOFTMAX_ACCUM_BITS 12
#define SOFTMAX_MAX_DEPTH 4095

/** int32 add / sub with wrap-around (the reference's int32 semantics). */
static inline int32_t sm_add(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a + (uint32_t)b);
}

static inline int32_t sm_sub(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a - (uint32_t)b);
}

/** x * 2^e saturated to int32 (0 < e < 31). */
static inline int32_t sm_sat_lshift(int32_t x, int32_t e)
{
    const int32_t thr = (int32_t)(((uint32_t)1 << (31 - e)) - 1u);
    if (x > thr) {
        return INT32_MAX;
    }
    if (x < -thr) {
        return INT32_MIN;
    }
    return (int32_t)((uint32_t)x << e);
}

/** exp(a) for Q0.31 a in [-1/4, 0): polynomial around -1/8. */
static inline int32_t sm_exp_on_quarter(int32_t a)
{
    const int32_t x = sm_add(a, (int32_t)1 << 28);
    const int32_t x2 = mote_srdhm(x, x);
    const int32_t x3 = mote_srdhm(x2, x);
    const int32_t x4 = mote_srdhm(x2, x2);
    const int32_t x4_4 = mote_rdbpot(x4, 2);
    const int32_t poly =
        mote_rdbpot(sm_add(mote_srdhm(sm_add(x4_4, x3), 715827883), x2), 1);
    return sm_add(1895147668, mote_srdhm(1895147668, sm_add(x, poly)));
}

/** exp of a Q5.26 value a <= 0, Q0.31 result. */
static inline int32_t sm_exp_on_negative_values(int32_t a)
{
    static const int32_t barrel[7] = {1672461947, 1302514674, 790015084, 290630308,
                                      39332535, 720401, 242};
    const int32_t quarter = (int32_t)1 << 24;
    const int32_t amq = (a & (quarter - 1)) - quarter; /* a mod 1/4, in [-1/4, 0) */
    const int32_t rem = sm_sub(amq, a);
    int32_t result = sm_exp_on_quarter(sm_sat_lshift(amq, 5));
    int32_t k;
    if (a == 0) {
        return INT32_MAX;
    }
    for (k = 0; k < 7; k++) {
        if ((rem & ((int32_t)1 << (24 + k))) != 0) {
            result = mote_srdhm(result, barrel[k]);
        }
    }
    return result;
}

/** 1 / (1 + a) for Q0.31 a in [0, 1), Q0.31 result (Newton-Raphson in Q2.29). */
static inline int32_t sm_one_over_one_plus_x(int32_t a)
{
    const int64_t s = (int64_t)a + INT32_MAX;
    const int32_t half = (int32_t)((s + (s >= 0 ? 1 : -1)) / 2);
    int32_t x = sm_add(1515870810, mote_srdhm(half, -1010580540));
    int32_t i;
    for (i = 0; i < 3; i++) {
        const int32_t one_minus = sm_sub((int32_t)1 << 29, mote_srdhm(half, x));
        x = sm_add(x, sm_sat_lshift(mote_srdhm(x, one_minus), 2));
    }
    return sm_sat_lshift(x, 1);
}

/** Leading zeros of a 32-bit value (32 for 0). */
static inline int32_t sm_clz(uint32_t v)
{
    int32_t n = 0;
    if (v == 0u) {
        return 32;
    }
    while ((v & 0x80000000u) == 0u) {
        v <<= 1;
        n++;
    }
    return n;
}

mote_err_t mote_kernel_mote_softmax_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                           uint32_t nargs)
{
    mote_tensor_t *ti;
    mote_tensor_t *to;
    int32_t mult, ls, diff_min, depth, c;
    uint32_t rows, r;
    const int8_t *in;
    int8_t *out;
    (void)ctx;
    if (args == NULL || nargs != 5u) {
        return MOTE_ERR_KERNEL_ARGS;
    }
    MOTE_TRY(mote_s8_any_tensor_arg(args[0], MOTE_DTYPE_INT8, &ti));
    MOTE_TRY(mote_s8_any_tensor_arg(args[4], MOTE_DTYPE_INT8, &to));
    MOTE_TRY(mote_s8_int_arg(args[1], 0, INT32_MAX, &mult));
    MOTE_TRY(mote_s8_int_arg(args[2], 0, 31, &ls));
    MOTE_TRY(mote_s8_int_arg(args[3], INT32_MIN, 0, &diff_min));
    if (ti->dim < 1 || !mote_s8_same_shape(ti, to)) {
        return MOTE_ERR_KERNEL_SHAPE;
    }
    depth = ti->sizes[ti->dim - 1];
    if (depth < 1 || depth > SOFTMAX_MAX_DEPTH) {
        return MOTE_ERR_KERNEL_SHAPE;
    }
    rows = ti->numel / (uint32_t)depth;
    in = (const int8_t *)ti->data;
    out = (int8_t *)to->data;
    for (r = 0; r < rows; r++) {
        const int8_t *x = in + (size_t)r * (size_t)depth;
        int8_t *y = out + (size_t)r * (size_t)depth;
        int32_t mx = x[0];
        uint32_t sum = 0; /* Q12.19; depth <= 4095 keeps it below 2^31 */
        int32_t headroom, shift, scale;
        for (c = 1; c < depth; c++) {
            mx = x[c] > mx ? x[c] : mx;
        }
        for (c = 0; c < depth; c++) {
            const int32_t diff = (int32_t)x[c] - mx;
            if (diff >= diff_min) {
                const int32_t ex = sm_exp_on_negative_values(mote_requantize(diff, mult, ls));
                sum += (uint32_t)mote_rdbpot(ex, SOFTMAX_ACCUM_BITS);
            }
        }
        headroom = sm_clz(sum);
        /* output = RDBPOT(SRDHM(scale, exp), num_bits_over_unit + 31 - 8) */
        shift = SOFTMAX_ACCUM_BITS - headroom + 31 - 8;
        scale = sm_one_over_one_plus_x(
            (int32_t)((sum << headroom) - 0x80000000u)); /* in [0, 2^31) */
        for (c = 0; c < depth; c++) {
            const int32_t diff = (int32_t)x[c] - mx;
            int32_t q = -128;
            if (diff >= diff_min) {
                const int32_t ex = sm_exp_on_negative_values(mote_requantize(diff, mult, ls));
                const int32_t p = mote_srdhm(scale, ex); /* >= 0 */
                q = (shift > 31 ? 0 : mote_rdbpot(p, shift)) - 128;
            }
            y[c] = mote_clamp_s8(q, -128, 127);
        }
    }
    return MOTE_OK;
}
