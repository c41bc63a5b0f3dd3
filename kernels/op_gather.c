/*
 * aten::gather.out - out[i][j][k] = self[i][index[i][j][k]][k] (dim = 1), torch.gather.
 *
 *   args (5): self, dim int, index (self's rank, index.size(d) <= self.size(d)
 *             for d != dim, values in [0, self.size(dim))), sparse_grad bool, out
 *             (index's shape).
 *   dtypes: self any, out == self; index int64 (int32 accepted).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim, index out of range),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE.
 *   out must not overlap self.
 */
#include "index.h"

MOTE_KERNEL("aten::gather.out")

MOTE_K_DECLARE(mote_kernel_aten_gather_out);

mote_err_t mote_kernel_aten_gather_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                       uint32_t nargs)
{
    mote_tensor_t *self, *idx, *out;
    int64_t dim;
    int sparse;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 5));
    MOTE_TRY(mote_k_tensor(args[0], &self));
    MOTE_TRY(mote_k_int(args[1], &dim));
    MOTE_TRY(mote_k_tensor(args[2], &idx));
    MOTE_TRY(mote_k_bool(args[3], &sparse));
    MOTE_TRY(mote_k_tensor(args[4], &out));
    return mote_k_scatter_gather(MOTE_SG_GATHER, self, dim, idx, NULL, NULL, out);
}
