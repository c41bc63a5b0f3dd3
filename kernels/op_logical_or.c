/*
 * aten::logical_or.out - out = bool(self) || bool(other), elementwise, bool out.
 *
 *   args (3): self, other (broadcast), out (bool, the broadcast shape).
 *   dtypes: self/other any of float32, int32, int64, bool, int8, int16, uint8
 *           (nonzero and NaN are true); out bool.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (dtype combination),
 *           MOTE_ERR_KERNEL_SHAPE (not broadcastable / out not the broadcast shape).
 *   out may alias a bool input exactly (in place).
 */
#include "elementwise.h"

MOTE_KERNEL("aten::logical_or.out")
MOTE_KERNEL_IN_PLACE("aten::logical_or.out")

MOTE_EW_ROW2(mote_logical_or_b8, uint8_t, uint8_t, x | y)

MOTE_K_DECLARE(mote_kernel_aten_logical_or_out);

mote_err_t mote_kernel_aten_logical_or_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                           uint32_t nargs)
{
    static const mote_ew_op_t op = {MOTE_EW_LOGICAL, NULL, NULL, mote_logical_or_b8};
    mote_ew_param_t p = {0};
    (void)ctx;
    return mote_ew_binary(args, nargs, 3, MOTE_EW_TT, &op, &p);
}
