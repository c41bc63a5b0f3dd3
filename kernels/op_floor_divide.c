/*
 * aten::floor_divide.out - out = floor(self / other) (Python's //; torch.export emits
 * div.Tensor_mode(rounding_mode="floor") instead, ExecuTorch's passes may emit this).
 *
 *   args (3): self, other Tensor (broadcast), out (the broadcast shape).
 *   dtypes: float32 or integers (int32, int64, int8, int16, uint8), out the promoted dtype.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (dtype combination),
 *           MOTE_ERR_KERNEL_SHAPE (not broadcastable / out not the broadcast shape).
 *           Integer division by zero writes 0 there and returns MOTE_ERR_KERNEL_ARGS.
 *   out may alias self exactly (in place).
 */
#include "elementwise.h"

MOTE_KERNEL("aten::floor_divide.out")
MOTE_KERNEL_IN_PLACE("aten::floor_divide.out")

MOTE_K_DECLARE(mote_kernel_aten_floor_divide_out);

mote_err_t mote_kernel_aten_floor_divide_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                             uint32_t nargs)
{
    mote_ew_param_t p = {0};
    (void)ctx;
    return mote_ew_binary(args, nargs, 3, MOTE_EW_TT, &mote_ew_op_div_floor, &p);
}
