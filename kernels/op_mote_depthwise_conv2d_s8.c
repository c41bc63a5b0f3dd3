/*
 * mote::depthwise_conv2d_s8.out - int8 depthwise 2-D convolution, NHWC.
 * Output channel c reads input channel c / depth_multiplier; weight [1,KH,KW,Cout].
 * Plain-C reference (docs/int8-ops.md); cmsis/ has the Cortex-M version.
 * In place by rows when the plan puts out over input (mote_s8_rows_begin / mote_s8_rows_next).
 *
 *   dtypes: int8 input, weight and out; int32 bias.
 */
#include "mote/kernel.h"
#include "requant.h"

MOTE_KERNEL("mote::depthwise_conv2d_s8.out")
MOTE_KERNEL_IN_PLACE_ROWS("mote::depthwise_conv2d_s8.out")

mote_err_t mote_kernel_mote_depthwise_conv2d_s8_out(mote_kernel_ctx_t *ctx,
                                                    mote_value_t *const *args, uint32_t nargs);

/** Output rows [oy0, oy1) of every image (a band of mote_s8_rows_begin / next). */
static void dw_rows(const mote_s8_conv_params_t *pp, void *state)
{
    const mote_s8_conv_params_t p = *pp;
    int32_t b, oy, ox, c, ky, kx;
    (void)state;
    for (b = 0; b < p.n; b++) {
        const int8_t *in = p.input + (size_t)b * p.h * p.w * p.cin;
        for (oy = p.oy0; oy < p.oy1; oy++) {
            for (ox = 0; ox < p.wo; ox++) {
                int8_t *out = mote_s8_out_px(&p, b, oy, ox);
                for (c = 0; c < p.cout; c++) {
                    const int32_t ci = c / p.depth_mult;
                    uint32_t acc = (uint32_t)p.bias[c]; /* int32 wrap, UB-free */
                    for (ky = 0; ky < p.kh; ky++) {
                        const int32_t iy = oy * p.stride_h - p.pad_h + ky * p.dil_h;
                        if (iy < 0 || iy >= p.h) {
                            continue;
                        }
                        for (kx = 0; kx < p.kw; kx++) {
                            const int32_t ix = ox * p.stride_w - p.pad_w + kx * p.dil_w;
                            if (ix < 0 || ix >= p.w) {
                                continue;
                            }
                            acc += ((int32_t)in[((size_t)iy * p.w + ix) * p.cin + ci] -
                                    p.in_zp) *
                                   (int32_t)p.weight[((size_t)ky * p.kw + kx) * p.cout + c];
                        }
                    }
                    out[c] = mote_s8_finish(&p, (int32_t)acc, c);
                }
            }
        }
    }
}

mote_err_t mote_kernel_mote_depthwise_conv2d_s8_out(mote_kernel_ctx_t *ctx,
                                                    mote_value_t *const *args, uint32_t nargs)
{
    mote_s8_rows_t it;
    mote_s8_conv_params_t p;
    MOTE_TRY(mote_s8_conv_parse(args, nargs, 1, &p));
    MOTE_TRY(mote_s8_rows_begin(ctx, mote_s8_dw_own_bytes(&p), &p, &it));
    do {
        dw_rows(&it.band, NULL);
    } while (mote_s8_rows_next(&it));
    return MOTE_OK;
}
