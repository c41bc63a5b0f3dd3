/*
 * mote::linear_s8.out - int8 fully connected: input [M,K], weight [N,K] -> [M,N].
 * Plain-C reference (docs/int8-ops.md); cmsis/ has the Cortex-M version.
 *
 *   dtypes: int8 input, weight and out; int32 bias.
 */
#include "mote/kernel.h"
#include "requant.h"

MOTE_KERNEL("mote::linear_s8.out")

mote_err_t mote_kernel_mote_linear_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                          uint32_t nargs);

mote_err_t mote_kernel_mote_linear_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                          uint32_t nargs)
{
    mote_s8_conv_params_t p;
    int32_t m, n, k;
    (void)ctx;
    MOTE_TRY(mote_s8_linear_parse(args, nargs, 1, &p));
    for (m = 0; m < p.n; m++) {
        const int8_t *x = p.input + (size_t)m * p.cin;
        for (n = 0; n < p.cout; n++) {
            const int8_t *w = p.weight + (size_t)n * p.cin;
            uint32_t acc = (uint32_t)p.bias[n]; /* int32 wrap, UB-free */
            for (k = 0; k < p.cin; k++) {
                acc += (uint32_t)(((int32_t)x[k] - p.in_zp) * (int32_t)w[k]);
            }
            p.output[(size_t)m * p.cout + n] = mote_s8_finish(&p, (int32_t)acc, n);
        }
    }
    return MOTE_OK;
}
