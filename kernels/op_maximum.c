/*
 * aten::maximum.out - out = maximum(self, other), broadcast; NaN in either propagates.
 *
 *   args (3): self, other Tensor, out (the broadcast shape).
 *   dtypes: float32, integers (int32, int64, int8, int16, uint8), bool; out the promoted
 *           dtype.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (dtype combination),
 *           MOTE_ERR_KERNEL_SHAPE (not broadcastable / out not the broadcast shape).
 *   out may alias self exactly (in place).
 */
#include "elementwise.h"

MOTE_KERNEL("aten::maximum.out")
MOTE_KERNEL_IN_PLACE("aten::maximum.out")

MOTE_EW_ROW2(mote_maximum_f32, float, float, (x != x || y != y) ? x + y : (x > y ? x : y))
MOTE_EW_ROW2(mote_maximum_i64, int64_t, int64_t, x > y ? x : y)
MOTE_EW_ROW2(mote_maximum_b8, uint8_t, uint8_t, x | y)

MOTE_K_DECLARE(mote_kernel_aten_maximum_out);

mote_err_t mote_kernel_aten_maximum_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                        uint32_t nargs)
{
    static const mote_ew_op_t op = {MOTE_EW_ARITH, mote_maximum_f32, mote_maximum_i64,
                                    mote_maximum_b8};
    mote_ew_param_t p = {0};
    (void)ctx;
    return mote_ew_binary(args, nargs, 3, MOTE_EW_TT, &op, &p);
}
