/*
 * aten::scatter_add.out - out = self; out[i][index[i][j]] += src[i][j] (dim = 1).
 *
 *   args (5): self, dim int, index (as scatter.src_out), src, out (self's shape).
 *   dtypes: float32/float64 or integers (wrapping), src and out == self;
 *           index int64 (int32 accepted).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim, index out of range),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE.
 *   Sums in index order. out may alias self exactly.
 */
#include "index.h"

MOTE_KERNEL("aten::scatter_add.out")

MOTE_K_DECLARE(mote_kernel_aten_scatter_add_out);

mote_err_t mote_kernel_aten_scatter_add_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                            uint32_t nargs)
{
    (void)ctx;
    return mote_k_scatter_src(MOTE_SG_SCATTER_ADD, args, nargs);
}
