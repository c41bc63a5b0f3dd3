/*
 * aten::atan2.out - out = atan2(self, other) (atan2f), broadcast.
 *
 *   args (3): self, other Tensor, out (float32, the broadcast shape).
 *   dtypes: float32; integer/bool inputs compute as float32 (out float32), like torch.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (dtype combination),
 *           MOTE_ERR_KERNEL_SHAPE (not broadcastable / out not the broadcast shape).
 *   out may alias self exactly (in place).
 */
#include <math.h>

#include "elementwise.h"

MOTE_KERNEL("aten::atan2.out")
MOTE_KERNEL_IN_PLACE("aten::atan2.out")

MOTE_EW_ROW2(mote_atan2_f32, float, float, atan2f(x, y))

MOTE_K_DECLARE(mote_kernel_aten_atan2_out);

mote_err_t mote_kernel_aten_atan2_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                      uint32_t nargs)
{
    static const mote_ew_op_t op = {MOTE_EW_FLOAT, mote_atan2_f32, NULL, NULL};
    mote_ew_param_t p = {0};
    (void)ctx;
    return mote_ew_binary(args, nargs, 3, MOTE_EW_TT, &op, &p);
}
