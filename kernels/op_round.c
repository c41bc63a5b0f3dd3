/*
 * aten::round.out - out = self rounded to the nearest integer, halves to even
 * (0.5 -> 0, 1.5 -> 2, -0.4 -> -0), elementwise.
 *
 *   args (2): self, out (same shape).
 *   dtypes: float32 (NaN and +-inf unchanged); uint8 / int8 / int16 / int32 /
 *           int64 copied unchanged as in PyTorch; out of self's dtype.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (other dtypes,
 *           out dtype differs), MOTE_ERR_KERNEL_SHAPE (out shape differs).
 *   out may alias self exactly (in place).
 */
#include "unary.h"

MOTE_KERNEL("aten::round.out")
MOTE_KERNEL_IN_PLACE("aten::round.out")

MOTE_K_DECLARE(mote_kernel_aten_round_out);

mote_err_t mote_kernel_aten_round_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                      uint32_t nargs)
{
    (void)ctx;
    MOTE_U_ROUNDING(args, nargs, v, mote_u_round_even(v));
    return MOTE_OK;
}
