/*
 * mote::mean_s8.out - int8 global average over H and W of NHWC [N,H,W,C]:
 * acc = sum (x - in_zp); out = clamp(requantize(acc, M, s) + out_zp, -128, 127);
 * the AOT folds 1 / (H*W) into the multiplier. out [N,1,1,C].
 * Plain-C reference; cmsis/ has the Cortex-M version.
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
    mote_s8_mean_params_t p;
    int32_t b, ch, i;
    (void)ctx;
    MOTE_TRY(mote_s8_mean_parse(args, nargs, &p));
    for (b = 0; b < p.n; b++) {
        const int8_t *x = p.input + (size_t)b * p.hw * p.c;
        for (ch = 0; ch < p.c; ch++) {
            uint32_t acc = 0; /* int32 sum with wrap-around, like the reference */
            for (i = 0; i < p.hw; i++) {
                acc += (uint32_t)((int32_t)x[(size_t)i * p.c + ch] - p.in_zp);
            }
            p.output[(size_t)b * p.c + ch] =
                mote_s8_out(mote_requantize((int32_t)acc, p.mult, p.shift), p.out_zp, -128, 127);
        }
    }
    return MOTE_OK;
}
