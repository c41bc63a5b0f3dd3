/*
 * mote::depthwise_planar16_s8.out - int8 depthwise 2-D convolution (depth
 * multiplier 1) reading the planar int16 layout (kernels/requant.h, "planar
 * int16": [N, C, H + 2*ph, W + 2*pw], input zero point subtracted, zero border
 * of the padding) and writing int8 NHWC [N, Ho, Wo, C].
 * acc = bias[c] + sum x * w over every tap (the border adds 0), then the
 * int8 contract's requantization: the bytes of depthwise_conv2d_s8.
 * Plain-C reference (docs/int8-ops.md); cmsis/ has the Cortex-M version.
 *
 *   dtypes: int16 input, int8 weight and out, int32 bias.
 */
#include "mote/kernel.h"
#include "requant.h"

MOTE_KERNEL("mote::depthwise_planar16_s8.out")

mote_err_t mote_kernel_mote_depthwise_planar16_s8_out(mote_kernel_ctx_t *ctx,
                                                      mote_value_t *const *args, uint32_t nargs);

mote_err_t mote_kernel_mote_depthwise_planar16_s8_out(mote_kernel_ctx_t *ctx,
                                                      mote_value_t *const *args, uint32_t nargs)
{
    mote_s8_planar_params_t q;
    const mote_s8_conv_params_t *p = &q.g;
    int32_t b, c, oy, ox, ky, kx;
    (void)ctx;
    MOTE_TRY(mote_s8_planar_dw_parse(args, nargs, &q));
    for (b = 0; b < p->n; b++) {
        for (c = 0; c < p->cout; c++) {
            const int16_t *pl = q.pin + ((size_t)b * p->cout + c) * (size_t)q.hp * (size_t)q.wp;
            for (oy = 0; oy < p->ho; oy++) {
                for (ox = 0; ox < p->wo; ox++) {
                    uint32_t acc = (uint32_t)p->bias[c]; /* int32 wrap, UB-free */
                    for (ky = 0; ky < p->kh; ky++) {
                        const int16_t *xr = pl + (size_t)(oy * p->stride_h + ky * p->dil_h) * q.wp +
                                            (size_t)ox * p->stride_w;
                        for (kx = 0; kx < p->kw; kx++) {
                            acc += (uint32_t)((int32_t)xr[kx * p->dil_w] *
                                              (int32_t)p->weight[((size_t)ky * p->kw + kx) * p->cout + c]);
                        }
                    }
                    p->output[(((size_t)b * p->ho + oy) * p->wo + ox) * p->cout + c] =
                        mote_s8_finish(p, (int32_t)acc, c);
                }
            }
        }
    }
    return MOTE_OK;
}
