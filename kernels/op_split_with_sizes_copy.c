/*
 * aten::split_with_sizes_copy.out - split self along dim into consecutive
 * chunks of split_sizes[j] elements, chunk j written to out[j] (torch.split
 * with a list, chunk, and the gate splits of nn.LSTM / nn.GRU).
 *
 *   args (4): self (rank >= 1), split_sizes int[] (>= 0, summing to
 *             self.size(dim)), dim int (negative counts from the end),
 *             out Tensor[] (one tensor per size, self's shape with size(dim) = split_sizes[j]).
 *   dtypes: any (every out's dtype == self's).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim, list length differs),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (sizes).
 *   outs must not overlap self.
 */
#include "shape.h"

MOTE_KERNEL("aten::split_with_sizes_copy.out")

MOTE_K_DECLARE(mote_kernel_aten_split_with_sizes_copy_out);

mote_err_t mote_kernel_aten_split_with_sizes_copy_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                                      uint32_t nargs)
{
    mote_tensor_t *in;
    mote_tensor_t *const *outs;
    const int64_t *sizes;
    uint32_t ns, nout, d;
    int64_t dim;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 4));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_ints(args[1], &sizes, &ns));
    MOTE_TRY(mote_k_int(args[2], &dim));
    MOTE_TRY(mote_shape_out_list(args[3], &outs, &nout));
    MOTE_CHECK(in->dim > 0 && ns == nout, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_k_dim(dim, in->dim, &d));
    return mote_shape_split(in, d, outs, nout, sizes, 0);
}
