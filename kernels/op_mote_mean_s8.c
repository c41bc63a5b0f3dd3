/*
 * mote::mean_s8.out - int8 global average over H and W of NHWC [N,H,W,C]:
 * acc = sum (x - in_zp); out = clamp(requantize(acc, M, s) + out_zp, -128, 127);
 * the AOT folds 1 / (H*W) into the multiplier. out [N,1,1,C].
 *
 *   dtypes: int8 (input, out).
 */
#include "mote/kernel.h"
#include "requant.h"

MOTE_KERNEL("mote::mean_s8.out")

mote_err_t mote_kernel_mote_mean_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                        uint32_t nargs);

mote_err_t mote_kernel_mote_mean_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                        uint32_t nargs)
{
    mote_tensor_t *ti;
    mote_tensor_t *to;
    int32_t izp, ozp, m, s, n, hw, c, b, ch, i;
    const int8_t *in;
    int8_t *out;
    (void)ctx;
    if (args == NULL || nargs != 6u) {
        return MOTE_ERR_KERNEL_ARGS;
    }
    MOTE_TRY(mote_s8_tensor_arg(args[0], MOTE_DTYPE_INT8, 4, &ti));
    MOTE_TRY(mote_s8_tensor_arg(args[5], MOTE_DTYPE_INT8, 4, &to));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[1], &izp));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[2], &ozp));
    MOTE_TRY(mote_s8_int_arg(args[3], 0, INT32_MAX, &m));
    MOTE_TRY(mote_s8_int_arg(args[4], -31, 31, &s));
    n = ti->sizes[0];
    hw = ti->sizes[1] * ti->sizes[2];
    c = ti->sizes[3];
    if (to->sizes[0] != n || to->sizes[1] != 1 || to->sizes[2] != 1 || to->sizes[3] != c) {
        return MOTE_ERR_KERNEL_SHAPE;
    }
    in = (const int8_t *)ti->data;
    out = (int8_t *)to->data;
    for (b = 0; b < n; b++) {
        const int8_t *x = in + (size_t)b * hw * c;
        for (ch = 0; ch < c; ch++) {
            uint32_t acc = 0; /* int32 sum with wrap-around, like the reference */
            for (i = 0; i < hw; i++) {
                acc += (uint32_t)((int32_t)x[(size_t)i * c + ch] - izp);
            }
            out[(size_t)b * c + ch] = mote_s8_out(mote_requantize((int32_t)acc, m, s), ozp, -128, 127);
        }
    }
    return MOTE_OK;
}
