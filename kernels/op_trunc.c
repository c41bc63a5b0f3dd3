/*
 * aten::trunc.out - out = self rounded toward zero, elementwise.
 *
 *   args (2): self, out (same shape).
 *   dtypes: float32 (NaN and +-inf unchanged); uint8 / int8 / int16 / int32 /
 *           int64 copied unchanged as in PyTorch; out of self's dtype.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (other dtypes,
 *           out dtype differs), MOTE_ERR_KERNEL_SHAPE (out shape differs).
 *   out may alias self exactly (in place).
 */
#include "unary.h"

MOTE_KERNEL("aten::trunc.out")
MOTE_KERNEL_IN_PLACE("aten::trunc.out")

MOTE_K_DECLARE(mote_kernel_aten_trunc_out);

mote_err_t mote_kernel_aten_trunc_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                      uint32_t nargs)
{
    (void)ctx;
    MOTE_U_ROUNDING(args, nargs, v, truncf(v));
    return MOTE_OK;
}
