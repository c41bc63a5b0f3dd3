/*
 * aten::bitwise_and.Tensor_out - out = self & other, elementwise.
 *
 *   args (3): self, other Tensor (broadcast), out (the broadcast shape).
 *   dtypes: integer (int32, int64, int8, int16, uint8) and bool; out is torch's
 *           promoted dtype (bool & bool -> bool, bool & Int Scalar -> int64).
 *           Floating inputs -> MOTE_ERR_KERNEL_DTYPE.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (dtype combination),
 *           MOTE_ERR_KERNEL_SHAPE (not broadcastable / out not the broadcast shape).
 *   out may alias self exactly (in place).
 */
#include "elementwise.h"

MOTE_KERNEL("aten::bitwise_and.Tensor_out")
MOTE_KERNEL_IN_PLACE("aten::bitwise_and.Tensor_out")

MOTE_K_DECLARE(mote_kernel_aten_bitwise_and_Tensor_out);

mote_err_t mote_kernel_aten_bitwise_and_Tensor_out(mote_kernel_ctx_t *ctx,
                                                   mote_value_t *const *args, uint32_t nargs)
{
    mote_ew_param_t p = {0};
    (void)ctx;
    return mote_ew_binary(args, nargs, 3, MOTE_EW_TT, &mote_ew_op_bitwise_and, &p);
}
