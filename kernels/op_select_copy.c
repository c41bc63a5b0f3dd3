/*
 * aten::select_copy.int_out - out = self.select(dim, index) (dim removed).
 *
 *   args (4): self (rank >= 1), dim int, index int (negative counts from the end), out.
 *   dtypes: any (out dtype == self dtype).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, dim or index out of range),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (out shape).
 *   out must not overlap self.
 */
#include "kutil.h"

MOTE_KERNEL("aten::select_copy.int_out")

MOTE_K_DECLARE(mote_kernel_aten_select_copy_int_out);

mote_err_t mote_kernel_aten_select_copy_int_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                                uint32_t nargs)
{
    mote_tensor_t *in, *out;
    int64_t dim, index;
    uint32_t d, i, k = 0;
    ptrdiff_t ist[MOTE_MAX_DIM], st[MOTE_MAX_DIM];
    size_t sz[MOTE_MAX_DIM];
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 4));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_int(args[1], &dim));
    MOTE_TRY(mote_k_int(args[2], &index));
    MOTE_TRY(mote_k_tensor(args[3], &out));
    MOTE_CHECK(in->dim > 0, MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_dim(dim, in->dim, &d));
    if (index < 0) {
        index += in->sizes[d];
    }
    MOTE_CHECK(index >= 0 && index < in->sizes[d], MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(in->dtype == out->dtype && mote_dtype_size(in->dtype) != 0, MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(out->dim + 1u == in->dim, MOTE_ERR_KERNEL_SHAPE);
    mote_k_strides(in, ist);
    for (i = 0; i < in->dim; i++) {
        if (i == d) {
            continue;
        }
        MOTE_CHECK(out->sizes[k] == in->sizes[i], MOTE_ERR_KERNEL_SHAPE);
        sz[k] = (size_t)in->sizes[i];
        st[k] = ist[i];
        k++;
    }
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(out));
    {
        const size_t esz = mote_dtype_size(in->dtype);
        mote_k_strided_copy(out->data,
                            (const uint8_t *)in->data + (size_t)(index * ist[d]) * esz, esz, k, sz,
                            st);
    }
    return MOTE_OK;
}
