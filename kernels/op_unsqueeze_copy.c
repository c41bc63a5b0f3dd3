/*
 * aten::unsqueeze_copy.out - out = self with a new dim of size 1 at `dim`.
 *
 *   args (3): self, dim int (in [-rank-1, rank]), out (rank + 1).
 *   dtypes: any (out dtype == self dtype).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, dim out of range),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (out shape).
 *   out may alias self exactly.
 */
#include "kutil.h"

MOTE_KERNEL("aten::unsqueeze_copy.out")

MOTE_K_DECLARE(mote_kernel_aten_unsqueeze_copy_out);

mote_err_t mote_kernel_aten_unsqueeze_copy_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                               uint32_t nargs)
{
    mote_tensor_t *in, *out;
    int64_t dim;
    uint32_t i, k = 0;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 3));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_int(args[1], &dim));
    MOTE_TRY(mote_k_tensor(args[2], &out));
    MOTE_CHECK(in->dtype == out->dtype && mote_dtype_size(in->dtype) != 0, MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(dim >= -(int64_t)in->dim - 1 && dim <= (int64_t)in->dim, MOTE_ERR_KERNEL_ARGS);
    if (dim < 0) {
        dim += (int64_t)in->dim + 1;
    }
    MOTE_CHECK(out->dim == in->dim + 1u, MOTE_ERR_KERNEL_SHAPE);
    for (i = 0; i < out->dim; i++) {
        if ((int64_t)i == dim) {
            MOTE_CHECK(out->sizes[i] == 1, MOTE_ERR_KERNEL_SHAPE);
        } else {
            MOTE_CHECK(out->sizes[i] == in->sizes[k], MOTE_ERR_KERNEL_SHAPE);
            k++;
        }
    }
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(out));
    mote_k_copy_data(in, out);
    return MOTE_OK;
}
