/*
 * aten::slice_scatter.out - out = self with out.slice(dim, start, end, step) = src.
 *
 *   args (7): self, src, dim int, start int or None (0), end int or None (size),
 *             step int (> 0), out (self's shape). start/end as Python slicing:
 *             negative counts from the end, clamped to [0, size].
 *   shapes: src = self's shape with size(dim) = the slice's length.
 *   dtypes: any, src and out == self.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim, step <= 0),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE.
 *   out may alias self exactly.
 */
#include <string.h>

#include "index.h"

MOTE_KERNEL("aten::slice_scatter.out")

MOTE_K_DECLARE(mote_kernel_aten_slice_scatter_out);

static int64_t mote_slice_clamp(int64_t v, int64_t n)
{
    if (v < 0) {
        v += n;
    }
    return v < 0 ? 0 : (v > n ? n : v);
}

mote_err_t mote_kernel_aten_slice_scatter_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                              uint32_t nargs)
{
    mote_tensor_t *self, *src, *out;
    int64_t dim, start = 0, end = INT64_MAX, step, n, len;
    uint32_t cd, d;
    size_t esz, outer, inner, o, i;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 7));
    MOTE_TRY(mote_k_tensor(args[0], &self));
    MOTE_TRY(mote_k_tensor(args[1], &src));
    MOTE_TRY(mote_k_int(args[2], &dim));
    if (!mote_k_is_none(args[3])) {
        MOTE_TRY(mote_k_int(args[3], &start));
    }
    if (!mote_k_is_none(args[4])) {
        MOTE_TRY(mote_k_int(args[4], &end));
    }
    MOTE_TRY(mote_k_int(args[5], &step));
    MOTE_TRY(mote_k_tensor(args[6], &out));
    MOTE_CHECK(step > 0, MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(self->dim > 0, MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_dim(dim, self->dim, &cd));
    esz = mote_dtype_size(self->dtype);
    MOTE_CHECK(esz != 0 && src->dtype == self->dtype && out->dtype == self->dtype,
               MOTE_ERR_KERNEL_DTYPE);
    n = self->sizes[cd];
    start = mote_slice_clamp(start, n);
    end = mote_slice_clamp(end, n);
    len = end > start ? (end - start + step - 1) / step : 0;
    MOTE_CHECK(src->dim == self->dim && mote_k_same_shape(self, out), MOTE_ERR_KERNEL_SHAPE);
    for (d = 0; d < self->dim; d++) {
        MOTE_CHECK(src->sizes[d] == (d == cd ? len : self->sizes[d]), MOTE_ERR_KERNEL_SHAPE);
    }
    MOTE_TRY(mote_k_check_numel(self));
    MOTE_TRY(mote_k_check_numel(src));
    MOTE_TRY(mote_k_check_numel(out));
    mote_k_copy_data(self, out);
    outer = mote_k_prod(self, 0, cd);
    inner = mote_k_prod(self, cd + 1, self->dim) * esz;
    if (inner == 0) {
        return MOTE_OK;
    }
    for (o = 0; o < outer; o++) {
        for (i = 0; i < (size_t)len; i++) {
            memmove((uint8_t *)out->data + (o * (size_t)n + (size_t)start + i * (size_t)step) * inner,
                   (const uint8_t *)src->data + (o * (size_t)len + i) * inner, inner);
        }
    }
    return MOTE_OK;
}
