/*
 * aten::sub.Scalar_out - out = self - alpha * other (Scalar other, Scalar alpha), numpy broadcasting.
 *
 *   args (4): self, other, alpha, out; out has the broadcast shape of self and other.
 *   dtypes: float32 (self, other, out); int32/int64 when all match (not div).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (not broadcastable / out shape wrong).
 *   out may alias self exactly (in place).
 */
#include "binary.h"

MOTE_KERNEL("aten::sub.Scalar_out")
MOTE_KERNEL_IN_PLACE("aten::sub.Scalar_out")

MOTE_K_DECLARE(mote_kernel_aten_sub_Scalar_out);

mote_err_t mote_kernel_aten_sub_Scalar_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                           uint32_t nargs)
{
    (void)ctx;
    return mote_k_binary(args, nargs, MOTE_BINOP_SUB, 1, 1);
}
