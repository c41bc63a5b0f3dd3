/*
 * aten::pow.Tensor_Tensor_out - out = self ** exponent (Tensor exponent, broadcast).
 *
 *   args (3): self, exponent Tensor, out (the broadcast shape).
 *   dtypes: float32 (powf) or integers (int32, int64, int8, int16, uint8: exact power,
 *           wrapping like torch; a negative exponent gives 1 for 1, +-1 for -1, else 0);
 *           out the promoted dtype.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (dtype combination),
 *           MOTE_ERR_KERNEL_SHAPE (not broadcastable / out not the broadcast shape).
 *   out may alias self exactly (in place).
 */
#include "elementwise.h"

MOTE_KERNEL("aten::pow.Tensor_Tensor_out")
MOTE_KERNEL_IN_PLACE("aten::pow.Tensor_Tensor_out")

MOTE_K_DECLARE(mote_kernel_aten_pow_Tensor_Tensor_out);

mote_err_t mote_kernel_aten_pow_Tensor_Tensor_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                                  uint32_t nargs)
{
    mote_ew_param_t p = {0};
    (void)ctx;
    return mote_ew_binary(args, nargs, 3, MOTE_EW_TT, &mote_ew_op_pow, &p);
}
