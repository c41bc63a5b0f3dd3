/*
 * aten::_softmax.out - softmax along `dim`: out = exp(x - max) / sum(exp(x - max)).
 *
 *   args (4): self, dim int (negative counts from the end), half_to_float bool
 *             (must be false), out (same shape as self).
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, dim out of range, half_to_float),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE. out may alias self exactly.
 * Checks and loop: softmax.c (shared with aten::_log_softmax.out).
 */
#include "softmax.h"

MOTE_KERNEL("aten::_softmax.out")

MOTE_K_DECLARE(mote_kernel_aten__softmax_out);

mote_err_t mote_kernel_aten__softmax_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                         uint32_t nargs)
{
    (void)ctx;
    return mote_k_softmax_f32(args, nargs, 0);
}
