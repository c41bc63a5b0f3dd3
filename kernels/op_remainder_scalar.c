/*
 * aten::remainder.Scalar_out - out = remainder(self, other): Python's %, sign of other.
 *
 *   args (3): self, other Scalar, out (the broadcast shape).
 *   dtypes: float32 (x % 0 = NaN) or integers (int32, int64, int8, int16, uint8), out
 *           torch's promoted dtype (int tensor with a float Scalar -> float32).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (dtype combination),
 *           MOTE_ERR_KERNEL_SHAPE (not broadcastable / out not the broadcast shape).
 *           Integer division by zero writes 0 there and returns MOTE_ERR_KERNEL_ARGS
 *           (torch raises ZeroDivisionError).
 *   out may alias self exactly (in place).
 */
#include "elementwise.h"

MOTE_KERNEL("aten::remainder.Scalar_out")
MOTE_KERNEL_IN_PLACE("aten::remainder.Scalar_out")

MOTE_K_DECLARE(mote_kernel_aten_remainder_Scalar_out);

mote_err_t mote_kernel_aten_remainder_Scalar_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                                 uint32_t nargs)
{
    mote_ew_param_t p = {0};
    (void)ctx;
    return mote_ew_binary(args, nargs, 3, MOTE_EW_TS, &mote_ew_op_remainder, &p);
}
