/*
 * aten::unbind_copy.int_out - out[j] = self.select(dim, j) for every j.
 *
 *   args (3): self (rank >= 1), dim int (negative counts from the end),
 *             out Tensor[] of self.size(dim) tensors (<= MOTE_SHAPE_MAX_SPLIT),
 *             each self's shape without dim.
 *   dtypes: any (every out's dtype == self's).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim, wrong number of outs),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE.
 *   outs must not overlap self.
 */
#include "shape.h"

MOTE_KERNEL("aten::unbind_copy.int_out")

MOTE_K_DECLARE(mote_kernel_aten_unbind_copy_int_out);

mote_err_t mote_kernel_aten_unbind_copy_int_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                                uint32_t nargs)
{
    mote_tensor_t *in;
    mote_tensor_t *const *outs;
    uint32_t nout, d;
    int64_t dim;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 3));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_int(args[1], &dim));
    MOTE_TRY(mote_shape_out_list(args[2], &outs, &nout));
    MOTE_CHECK(in->dim > 0, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_k_dim(dim, in->dim, &d));
    MOTE_CHECK((int64_t)nout == in->sizes[d] && nout <= MOTE_SHAPE_MAX_SPLIT, MOTE_ERR_KERNEL_ARGS);
    return mote_shape_split_equal(in, d, outs, nout, 1, 1);
}
