/*
 * mote::depthwise_conv2d_s8.out - int8 depthwise 2-D convolution, NHWC.
 * Output channel c reads input channel c / depth_multiplier; weight [1,KH,KW,Cout].
 * Plain-C reference (docs/int8-ops.md); cmsis/ has the Cortex-M version.
 *
 *   dtypes: int8 input, weight and out; int32 bias.
 */
#include "mote/kernel.h"
#include "requant.h"

MOTE_KERNEL("mote::depthwise_conv2d_s8.out")

mote_err_t mote_kernel_mote_depthwise_conv2d_s8_out(mote_kernel_ctx_t *ctx,
                                                    mote_value_t *const *args, uint32_t nargs);

mote_err_t mote_kernel_mote_depthwise_conv2d_s8_out(mote_kernel_ctx_t *ctx,
                                                    mote_value_t *const *args, uint32_t nargs)
{
    mote_s8_conv_params_t p;
    int32_t b, oy, ox, c, ky, kx;
    (void)ctx;
    MOTE_TRY(mote_s8_conv_parse(args, nargs, 1, &p));
    for (b = 0; b < p.n; b++) {
        const int8_t *in = p.input + (size_t)b * p.h * p.w * p.cin;
        for (oy = 0; oy < p.ho; oy++) {
            for (ox = 0; ox < p.wo; ox++) {
                int8_t *out = p.output + (((size_t)b * p.ho + oy) * p.wo + ox) * p.cout;
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
    return MOTE_OK;
}
