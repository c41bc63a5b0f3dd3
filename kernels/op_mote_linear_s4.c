/*
 * mote::linear_s4.out - int8 fully connected with int4 weights (int4 x int8, as
 * CMSIS-NN's s4 kernels compute it): input int8 [M, K], weight packed int4 [N, K/2]
 * (two per byte, element 2i in the low nibble: kernels/int4.h) -> int8 [M, N].
 * Per output: acc = bias[n] + sum_k (input[m, k] - input_zp) * q[n, k] (int32,
 * wrapping), then the int8 requantization of mote::linear_s8 (docs/int8-ops.md).
 * Plain C; aot/compiler/quant/int8ref.py's linear_s4 is the same arithmetic.
 *
 *   args (10): input int8 [M, K], weight uint8 [N, K/2], bias int32 [N],
 *              multiplier int32 [N], shift int32 [N], input_zero_point,
 *              output_zero_point, activation_min, activation_max, out int8 [M, N].
 *   dtypes: int8 input and out, uint8 weight bytes, int32 bias.
 *   errors: MOTE_ERR_KERNEL_ARGS, MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE
 *           (K != 2 * weight columns, out shape), as mote::linear_s8 otherwise.
 */
#include "int4.h"
#include "requant.h"

MOTE_KERNEL("mote::linear_s4.out")

MOTE_K_DECLARE(mote_kernel_mote_linear_s4_out);

mote_err_t mote_kernel_mote_linear_s4_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_s8_conv_params_t p;
    const uint8_t *wq;
    int32_t m, n, k;
    (void)ctx;
    MOTE_TRY(mote_s8_linear_parse(args, nargs, 2, &p));
    wq = (const uint8_t *)p.weight;
    for (m = 0; m < p.n; m++) {
        const int8_t *x = p.input + (size_t)m * (size_t)p.cin;
        for (n = 0; n < p.cout; n++) {
            const uint8_t *w = wq + (size_t)n * (size_t)(p.cin / 2);
            uint32_t acc = (uint32_t)p.bias[n]; /* int32 wrap, UB-free */
            for (k = 0; k < p.cin; k++) {
                acc += (uint32_t)(((int32_t)x[k] - p.in_zp) * mote_w4_at(w, (size_t)k));
            }
            p.output[(size_t)m * (size_t)p.cout + n] = mote_s8_finish(&p, (int32_t)acc, n);
        }
    }
    return MOTE_OK;
}
