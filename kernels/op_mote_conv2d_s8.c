/*
 * mote::conv2d_s8.out - int8 2-D convolution, NHWC, per-channel requantization.
 * mote::conv2d_s8_nchw.out - the same on an NCHW input [N, Cin, H, W] (output NHWC).
 * Plain-C reference (docs/int8-ops.md; mote_s8_conv_ref_rows in requant.h); cmsis/ has
 * the Cortex-M version.
 * conv2d_s8 in place by rows when the plan puts out over input (mote_s8_rows_begin /
 * mote_s8_rows_next); conv2d_s8_nchw never (its input is not row-major NHWC).
 *
 *   dtypes: int8 input, weight and out; int32 bias.
 */
#include "mote/kernel.h"
#include "requant.h"

MOTE_KERNEL("mote::conv2d_s8.out")
MOTE_KERNEL_IN_PLACE_ROWS("mote::conv2d_s8.out")
MOTE_KERNEL("mote::conv2d_s8_nchw.out")

mote_err_t mote_kernel_mote_conv2d_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                          uint32_t nargs);
mote_err_t mote_kernel_mote_conv2d_s8_nchw_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                               uint32_t nargs);

static mote_err_t conv_run(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs,
                           int layout)
{
    mote_s8_rows_t it;
    mote_s8_conv_params_t p;
    MOTE_TRY(mote_s8_conv_parse(args, nargs, layout, &p));
    MOTE_TRY(mote_s8_rows_begin(ctx, mote_s8_conv_own_bytes(&p), &p, &it));
    do {
        mote_s8_conv_ref_rows(&it.band);
    } while (mote_s8_rows_next(&it));
    return MOTE_OK;
}

mote_err_t mote_kernel_mote_conv2d_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                          uint32_t nargs)
{
    return conv_run(ctx, args, nargs, 0);
}

mote_err_t mote_kernel_mote_conv2d_s8_nchw_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                               uint32_t nargs)
{
    return conv_run(ctx, args, nargs, MOTE_S8_CONV_NCHW);
}
