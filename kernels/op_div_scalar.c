/*
 * aten::div.Scalar_out - out = self / other (Scalar other, true division),
 * e.g. `x / 6.0` in hardswish-like code or attention's `/ sqrt(d)`.
 *
 *   args (3): self, other Scalar, out (same shape as self).
 *   dtypes: float32 (integer division has no kernel: ATen's true division of
 *           integers returns float, which this kernel does not produce).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (out shape wrong).
 *   out may alias self exactly (in place).
 */
#include "binary.h"

MOTE_KERNEL("aten::div.Scalar_out")
MOTE_KERNEL_IN_PLACE("aten::div.Scalar_out")

MOTE_K_DECLARE(mote_kernel_aten_div_Scalar_out);

mote_err_t mote_kernel_aten_div_Scalar_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                           uint32_t nargs)
{
    (void)ctx;
    return mote_k_binary(args, nargs, MOTE_BINOP_DIV, 1, 0);
}
