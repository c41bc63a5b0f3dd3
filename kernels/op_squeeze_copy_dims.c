/*
 * aten::squeeze_copy.dims_out - out = self without the listed dims of size 1
 * (listed dims of another size are kept, as in PyTorch).
 *
 *   args (3): self, dim int[] (negatives allowed), out.
 *   dtypes: any (out dtype == self dtype).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, dim out of range),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (out shape).
 *   out may alias self exactly.
 */
#include "kutil.h"

MOTE_KERNEL("aten::squeeze_copy.dims_out")

MOTE_K_DECLARE(mote_kernel_aten_squeeze_copy_dims_out);

mote_err_t mote_kernel_aten_squeeze_copy_dims_out(mote_kernel_ctx_t *ctx,
                                                  mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *in, *out;
    const int64_t *dims;
    uint32_t nd, i, k = 0;
    uint8_t drop[MOTE_MAX_DIM] = {0};
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 3));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_ints(args[1], &dims, &nd));
    MOTE_TRY(mote_k_tensor(args[2], &out));
    MOTE_CHECK(in->dtype == out->dtype && mote_dtype_size(in->dtype) != 0, MOTE_ERR_KERNEL_DTYPE);
    for (i = 0; i < nd; i++) {
        uint32_t d;
        MOTE_TRY(mote_k_dim(dims[i], in->dim, &d));
        if (in->dim > 0 && in->sizes[d] == 1) {
            drop[d] = 1;
        }
    }
    for (i = 0; i < in->dim; i++) {
        if (drop[i]) {
            continue;
        }
        MOTE_CHECK(k < out->dim && out->sizes[k] == in->sizes[i], MOTE_ERR_KERNEL_SHAPE);
        k++;
    }
    MOTE_CHECK(k == out->dim, MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(out));
    mote_k_copy_data(in, out);
    return MOTE_OK;
}
