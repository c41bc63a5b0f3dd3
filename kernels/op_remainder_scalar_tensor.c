/*
 * aten::remainder.Scalar_Tensor_out - out = remainder(self, other) with a
 * Scalar dividend, e.g. `5.0 % x` (Python's %: the sign of other).
 *
 *   args (3): self Scalar, other Tensor, out (same shape as other).
 *   dtypes: float32 (x % 0 = NaN) or integers (int32, int64, int8, int16, uint8) with an Int
 *           self; a Double self with an integer tensor -> float32 out (torch's promotion).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (dtype combination),
 *           MOTE_ERR_KERNEL_SHAPE (out shape wrong).
 *           Integer division by zero writes 0 there and returns MOTE_ERR_KERNEL_ARGS
 *           (torch raises ZeroDivisionError).
 *   out may alias other exactly.
 */
#include "elementwise.h"

MOTE_KERNEL("aten::remainder.Scalar_Tensor_out")

MOTE_K_DECLARE(mote_kernel_aten_remainder_Scalar_Tensor_out);

mote_err_t mote_kernel_aten_remainder_Scalar_Tensor_out(mote_kernel_ctx_t *ctx,
                                                        mote_value_t *const *args, uint32_t nargs)
{
    mote_ew_param_t p = {0};
    (void)ctx;
    return mote_ew_binary(args, nargs, 3, MOTE_EW_ST, &mote_ew_op_remainder, &p);
}
