/*
 * aten::slice_copy.Tensor_out - out = self[..., start:end:step, ...] along `dim`.
 *
 *   args (6): self, dim int, start int? (None = 0), end int? (None = size), step int (> 0),
 *             out. start/end are clamped like Python slices (negatives count from
 *             the end).
 *   dtypes: any (out dtype == self dtype).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim, step <= 0),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (out shape).
 *   out must not overlap self.
 */
#include "kutil.h"

MOTE_KERNEL("aten::slice_copy.Tensor_out")

MOTE_K_DECLARE(mote_kernel_aten_slice_copy_Tensor_out);

mote_err_t mote_kernel_aten_slice_copy_Tensor_out(mote_kernel_ctx_t *ctx,
                                                  mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *in, *out;
    int64_t dim, start = 0, end, step, size, len;
    uint32_t d, i;
    ptrdiff_t st[MOTE_MAX_DIM];
    size_t sz[MOTE_MAX_DIM];
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 6));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_int(args[1], &dim));
    MOTE_TRY(mote_k_int(args[4], &step));
    MOTE_TRY(mote_k_tensor(args[5], &out));
    MOTE_CHECK(in->dim > 0, MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_dim(dim, in->dim, &d));
    MOTE_CHECK(step > 0, MOTE_ERR_KERNEL_ARGS);
    size = in->sizes[d];
    end = size;
    if (!mote_k_is_none(args[2])) {
        MOTE_TRY(mote_k_int(args[2], &start));
    }
    if (!mote_k_is_none(args[3])) {
        MOTE_TRY(mote_k_int(args[3], &end));
    }
    if (start < 0) {
        start += size;
    }
    if (end < 0) {
        end += size;
    }
    start = start < 0 ? 0 : (start > size ? size : start);
    end = end < start ? start : (end > size ? size : end);
    len = (end - start + step - 1) / step;
    MOTE_CHECK(in->dtype == out->dtype && mote_dtype_size(in->dtype) != 0, MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(out->dim == in->dim, MOTE_ERR_KERNEL_SHAPE);
    mote_k_strides(in, st);
    for (i = 0; i < in->dim; i++) {
        const int64_t want = i == d ? len : in->sizes[i];
        MOTE_CHECK(out->sizes[i] == want, MOTE_ERR_KERNEL_SHAPE);
        sz[i] = (size_t)want;
    }
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(out));
    if (out->numel == 0) {
        return MOTE_OK;
    }
    {
        const size_t esz = mote_dtype_size(in->dtype);
        const uint8_t *src = (const uint8_t *)in->data + (size_t)(start * st[d]) * esz;
        st[d] *= (ptrdiff_t)step;
        mote_k_strided_copy(out->data, src, esz, in->dim, sz, st);
    }
    return MOTE_OK;
}
