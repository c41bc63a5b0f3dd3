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
    mote_tensor_t *self, *idx, *src, *out;
    int64_t dim;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 5));
    MOTE_TRY(mote_k_tensor(args[0], &self));
    MOTE_TRY(mote_k_int(args[1], &dim));
    MOTE_TRY(mote_k_tensor(args[2], &idx));
    MOTE_TRY(mote_k_tensor(args[3], &src));
    MOTE_TRY(mote_k_tensor(args[4], &out));
    return mote_k_scatter_gather(MOTE_SG_SCATTER, self, dim, idx, src, NULL, out);
}
