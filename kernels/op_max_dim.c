/*
 * aten::max.dim_max - x.max(dim): the maximum along `dim` and its index (the
 * first one on ties; a NaN counts as the maximum, the first NaN wins, as torch).
 *
 *   args (5): self, dim int (negative counts from the end; 0-d accepts 0/-1),
 *             keepdim bool, max (values), max_values (indices; schema
 *             names), both of the reduced shape.
 *   dtypes: self float32, int32 or int64; values in self's dtype; indices int64.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (out shapes; dim of size 0).
 */
#include "reduce.h"

MOTE_KERNEL("aten::max.dim_max")
MOTE_KERNEL_OUTPUTS("aten::max.dim_max", 2) /* values, indices */

MOTE_K_DECLARE(mote_kernel_aten_max_dim_max);

mote_err_t mote_kernel_aten_max_dim_max(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                        uint32_t nargs)
{
    (void)ctx;
    return mote_red_dim_minmax(args, nargs, 1);
}
