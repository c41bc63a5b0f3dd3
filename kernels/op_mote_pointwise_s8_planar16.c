/*
 * mote::pointwise_s8_planar16.out - int8 1x1 convolution (stride 1, no padding)
 * whose output is the planar int16 layout of the depthwise conv that reads it
 * (kernels/requant.h, "planar int16"; aot/compiler/layout.py).
 * acc = bias[c] + sum x * w (raw int8 x: the input zero point is folded into the
 * bias ahead of time); q = clamp(requantize(acc) + out_zp, act_min, act_max);
 * out[b][c][y + ph][x + pw] = q - out_zp, the border 0.
 * Plain-C reference (docs/int8-ops.md); cmsis/ has the Cortex-M version.
 *
 *   dtypes: int8 input and weight, int32 bias, int16 out.
 */
#include "mote/kernel.h"
#include "requant.h"

MOTE_KERNEL("mote::pointwise_s8_planar16.out")

mote_err_t mote_kernel_mote_pointwise_s8_planar16_out(mote_kernel_ctx_t *ctx,
                                                      mote_value_t *const *args, uint32_t nargs);

mote_err_t mote_kernel_mote_pointwise_s8_planar16_out(mote_kernel_ctx_t *ctx,
                                                      mote_value_t *const *args, uint32_t nargs)
{
    mote_s8_planar_params_t q;
    int32_t b, y, x, c, k;
    (void)ctx;
    MOTE_TRY(mote_s8_planar_pw_parse(args, nargs, &q));
    mote_s8_planar_border(&q);
    for (b = 0; b < q.g.n; b++) {
        for (y = 0; y < q.g.h; y++) {
            for (x = 0; x < q.g.w; x++) {
                const int8_t *xp = q.g.input + (((size_t)b * q.g.h + y) * q.g.w + x) * q.g.cin;
                for (c = 0; c < q.g.cout; c++) {
                    const int8_t *wr = q.g.weight + (size_t)c * q.g.cin;
                    uint32_t acc = (uint32_t)q.g.bias[c]; /* int32 wrap, UB-free */
                    for (k = 0; k < q.g.cin; k++) {
                        acc += (uint32_t)((int32_t)xp[k] * (int32_t)wr[k]);
                    }
                    *mote_s8_planar_at(&q, b, c, y, x) =
                        (int16_t)(mote_s8_finish(&q.g, (int32_t)acc, c) - q.g.out_zp);
                }
            }
        }
    }
    return MOTE_OK;
}
