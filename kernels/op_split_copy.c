/*
 * aten::split_copy.Tensor_out - split self along dim into chunks of
 * split_size elements (the last one smaller), chunk j written to out[j].
 *
 *   args (4): self (rank >= 1), split_size int (> 0; 0 only when size(dim) is 0),
 *             dim int (negative counts from the end), out Tensor[] of
 *             max(ceil(size(dim) / split_size), 1) tensors (<= MOTE_SHAPE_MAX_SPLIT).
 *   dtypes: any (every out's dtype == self's).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim or split_size, wrong
 *           number of outs), MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE.
 *   outs must not overlap self.
 */
#include "shape.h"

MOTE_KERNEL("aten::split_copy.Tensor_out")

MOTE_K_DECLARE(mote_kernel_aten_split_copy_Tensor_out);

mote_err_t mote_kernel_aten_split_copy_Tensor_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                                  uint32_t nargs)
{
    mote_tensor_t *in;
    mote_tensor_t *const *outs;
    uint32_t nout, d;
    int64_t split, dim, size, want;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 4));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_int(args[1], &split));
    MOTE_TRY(mote_k_int(args[2], &dim));
    MOTE_TRY(mote_shape_out_list(args[3], &outs, &nout));
    MOTE_CHECK(in->dim > 0, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_k_dim(dim, in->dim, &d));
    size = in->sizes[d];
    MOTE_CHECK(split > 0 || (split == 0 && size == 0), MOTE_ERR_KERNEL_ARGS);
    want = size == 0 ? 1 : (size - 1) / split + 1;
    MOTE_CHECK(want == (int64_t)nout && nout <= MOTE_SHAPE_MAX_SPLIT, MOTE_ERR_KERNEL_ARGS);
    return mote_shape_split_equal(in, d, outs, nout, split, 0);
}
