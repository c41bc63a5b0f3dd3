/*
 * aten::pow.Scalar_out - out = self ** exponent with a Scalar base, e.g. `2 ** x`.
 *
 *   args (3): self Scalar, exponent Tensor, out (same shape as exponent).
 *   dtypes: float32 exponent (powf), or integer exponent with an Int base (exact wrapping
 *           power) / a Double base (float32 out); out the promoted dtype.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (dtype combination),
 *           MOTE_ERR_KERNEL_SHAPE (not broadcastable / out not the broadcast shape).
 *   out may alias exponent exactly.
 */
#include "elementwise.h"

MOTE_KERNEL("aten::pow.Scalar_out")

MOTE_K_DECLARE(mote_kernel_aten_pow_Scalar_out);

mote_err_t mote_kernel_aten_pow_Scalar_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                           uint32_t nargs)
{
    mote_ew_param_t p = {0};
    (void)ctx;
    return mote_ew_binary(args, nargs, 3, MOTE_EW_ST, &mote_ew_op_pow, &p);
}
