/*
 * aten::index_put.out - out = self with out[indices] = values (or += with
 * accumulate): `x[idx] = v`, `x.index_put((i,), v, accumulate=True)`.
 *
 *   args (5): self, indices Tensor?[] (as index.Tensor_out: None, int32/int64
 *             with negative values from the end, bool/uint8 masks), values
 *             (broadcastable to the shape self[indices] has), accumulate bool, out
 *             (self's shape).
 *   dtypes: self any (accumulate: float32/float64/integers, wrapping), values
 *           and out == self; indices int32/int64/bool/uint8.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, index out of range),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (indices, values, out).
 *   Repeated indices without accumulate: the last one written wins.
 *   out may alias self exactly.
 */
#include "index.h"

MOTE_KERNEL("aten::index_put.out")

MOTE_K_DECLARE(mote_kernel_aten_index_put_out);

mote_err_t mote_kernel_aten_index_put_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                          uint32_t nargs)
{
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 5));
    return mote_k_index_put(args, 4);
}
