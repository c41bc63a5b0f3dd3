/*
 * mote::linear_s16.out - fully connected with int16 activations and int8
 * weights (the int16x8 scheme of CMSIS-NN's s16 kernels): input int16 [M, K]
 * (zero point 0), weight int8 [N, K] (symmetric per output channel) -> int16 [M, N].
 * acc = bias[n] + sum_k input[m, k] * weight[n, k] in 64 bits, then
 * mote_requantize_s64 and the activation clamp (kernels/requant.h;
 * aot/compiler/quant/int16ref.py is the same arithmetic).
 *
 *   args (8): input, weight, bias int64 [N], multiplier int32 [N], shift int32 [N]
 *             (in [-31, 14]), activation_min, activation_max (int16), out.
 *   dtypes: int16 input and out, int8 weight, int64 bias.
 *   errors: MOTE_ERR_KERNEL_ARGS, MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE.
 */
#include "kutil.h"
#include "requant.h"

MOTE_KERNEL("mote::linear_s16.out")

MOTE_K_DECLARE(mote_kernel_mote_linear_s16_out);

mote_err_t mote_kernel_mote_linear_s16_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_s16_conv_params_t q;
    int32_t m, n, k;
    (void)ctx;
    MOTE_TRY(mote_s16_linear_parse(args, nargs, &q));
    for (m = 0; m < q.g.n; m++) {
        const int16_t *x = q.input + (size_t)m * (size_t)q.g.cin;
        for (n = 0; n < q.g.cout; n++) {
            const int8_t *w = q.g.weight + (size_t)n * (size_t)q.g.cin;
            int64_t acc = q.bias[n];
            for (k = 0; k < q.g.cin; k++) {
                acc += (int32_t)x[k] * (int32_t)w[k];
            }
            q.output[(size_t)m * (size_t)q.g.cout + n] = mote_s16_finish(&q, acc, n);
        }
    }
    return MOTE_OK;
}
