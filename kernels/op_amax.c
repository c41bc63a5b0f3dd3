/*
 * aten::amax.out - maximum over the dims in `dim` ([] = all dims); a NaN
 * input gives NaN (torch.amax).
 *
 *   args (4): self, dim int[] (negative counts from the end, no repeats; [] = all),
 *             keepdim bool, out (reduced shape; reduced dims kept as 1 when keepdim).
 *   dtypes: float32, int32, int64; out in self's dtype.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (out shape; a reduced dim of size 0).
 */
#include "reduce.h"

MOTE_KERNEL("aten::amax.out")

MOTE_K_DECLARE(mote_kernel_aten_amax_out);

mote_err_t mote_kernel_aten_amax_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                     uint32_t nargs)
{
    (void)ctx;
    return mote_red_aminmax(args, nargs, 1);
}
