/*
 * aten::scatter.src_out - out = self; out[i][index[i][j]] = src[i][j] (dim = 1).
 *
 *   args (5): self, dim int, index (self's rank; index.size(d) <= src.size(d),
 *             and <= self.size(d) for d != dim; values in [0, self.size(dim))),
 *             src, out (self's shape).
 *   dtypes: self any, src and out == self; index int64 (int32 accepted).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim, index out of range),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE.
 *   Repeated indices: the last one written wins. out may alias self exactly.
 */
#include "index.h"

MOTE_KERNEL("aten::scatter.src_out")

MOTE_K_DECLARE(mote_kernel_aten_scatter_src_out);

mote_err_t mote_kernel_aten_scatter_src_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                            uint32_t nargs)
{
    (void)ctx;
    return mote_k_scatter_src(MOTE_SG_SCATTER, args, nargs);
}
