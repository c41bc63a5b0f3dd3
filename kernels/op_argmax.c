/*
 * aten::argmax.out - index of the maximum along `dim`, or of the flattened
 * tensor when dim is None; the first index on ties, a NaN counts as the
 * maximum (the first NaN wins), as torch.
 *
 *   args (4): self, dim int? (None = flattened; negative counts from the end),
 *             keepdim bool (with dim None: out keeps every dim as 1), out.
 *   dtypes: self float32, int32, int64; out int64.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (out shape; nothing to reduce).
 */
#include "reduce.h"

MOTE_KERNEL("aten::argmax.out")

MOTE_K_DECLARE(mote_kernel_aten_argmax_out);

mote_err_t mote_kernel_aten_argmax_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                       uint32_t nargs)
{
    (void)ctx;
    return mote_red_argminmax(args, nargs, 1);
}
