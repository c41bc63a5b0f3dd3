/*
 * aten::div.Scalar_mode_out - out = self / other rounded per rounding_mode: None (true division),
 * "trunc" (toward zero) or "floor" (Python's //, e.g. `x // 2`).
 *
 *   args (4): self, other Scalar, rounding_mode str? (None, "trunc", "floor"), out.
 *   dtypes: float32 or integers (int32, int64, int8, int16, uint8). None: out float32
 *           (integers divide as float32); trunc/floor: out the promoted dtype.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (dtype combination),
 *           MOTE_ERR_KERNEL_SHAPE (not broadcastable / out not the broadcast shape).
 *           Integer division by zero (trunc/floor) writes 0 there and returns
 *           MOTE_ERR_KERNEL_ARGS (torch raises ZeroDivisionError).
 *   out may alias self exactly (in place).
 */
#include "elementwise.h"

MOTE_KERNEL("aten::div.Scalar_mode_out")
MOTE_KERNEL_IN_PLACE("aten::div.Scalar_mode_out")

MOTE_K_DECLARE(mote_kernel_aten_div_Scalar_mode_out);

mote_err_t mote_kernel_aten_div_Scalar_mode_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                                uint32_t nargs)
{
    mote_ew_param_t p = {0};
    int mode;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 4));
    MOTE_TRY(mote_ew_rounding_mode(args[2], &mode));
    return mote_ew_binary(args, nargs, 4, MOTE_EW_TS, mote_ew_div_op(mode), &p);
}
