/*
 * aten::max.unary_out - x.max(): the maximum of all elements as a 0-d tensor
 * (a NaN gives NaN).
 *
 *   args (2): self (non-empty), out (0-d).
 *   dtypes: float32, int32, int64; out in self's dtype.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (out not 0-d, empty self).
 */
#include "reduce.h"

MOTE_KERNEL("aten::max.unary_out")

MOTE_K_DECLARE(mote_kernel_aten_max_unary_out);

mote_err_t mote_kernel_aten_max_unary_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                          uint32_t nargs)
{
    (void)ctx;
    return mote_red_unary_minmax(args, nargs, 1);
}
