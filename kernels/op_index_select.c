/*
 * aten::index_select.out - out = self.index_select(dim, index).
 *
 *   args (4): self, dim int, index (1-D, or 0-d / one element for a 0-d self)
 *             with values in [0, self.size(dim)) (torch refuses negatives), out
 *             (self's shape with size(dim) = index.numel).
 *   dtypes: self any, out == self; index int32/int64.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim, index out of range),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE.
 *   out must not overlap self.
 */
#include <string.h>

#include "index.h"

MOTE_KERNEL("aten::index_select.out")

MOTE_K_DECLARE(mote_kernel_aten_index_select_out);

mote_err_t mote_kernel_aten_index_select_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                             uint32_t nargs)
{
    mote_tensor_t *self, *idx, *out;
    int64_t dim;
    uint32_t cd, d;
    size_t esz, outer, inner, n, dsz, o, i;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 4));
    MOTE_TRY(mote_k_tensor(args[0], &self));
    MOTE_TRY(mote_k_int(args[1], &dim));
    MOTE_TRY(mote_k_tensor(args[2], &idx));
    MOTE_TRY(mote_k_tensor(args[3], &out));
    MOTE_TRY(mote_k_dim(dim, self->dim, &cd));
    esz = mote_dtype_size(self->dtype);
    MOTE_CHECK(esz != 0 && out->dtype == self->dtype, MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(mote_k_idx_dtype(idx->dtype), MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(idx->dim <= 1, MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(self));
    MOTE_TRY(mote_k_check_numel(idx));
    MOTE_TRY(mote_k_check_numel(out));
    n = idx->numel;
    if (self->dim == 0) {
        MOTE_CHECK(n == 1 && out->dim == 0, MOTE_ERR_KERNEL_SHAPE);
        dsz = 1;
    } else {
        MOTE_CHECK(out->dim == self->dim, MOTE_ERR_KERNEL_SHAPE);
        for (d = 0; d < self->dim; d++) {
            MOTE_CHECK((size_t)out->sizes[d] == (d == cd ? n : (size_t)self->sizes[d]),
                       MOTE_ERR_KERNEL_SHAPE);
        }
        dsz = (size_t)self->sizes[cd];
    }
    outer = self->dim == 0 ? 1 : mote_k_prod(self, 0, cd);
    inner = (self->dim == 0 ? 1 : mote_k_prod(self, cd + 1, self->dim)) * esz;
    for (i = 0; i < n; i++) {
        size_t j;
        MOTE_TRY(mote_k_idx_wrap(mote_k_idx_get(idx, i), (int64_t)dsz, 0, &j));
        if (inner == 0) {
            continue;
        }
        for (o = 0; o < outer; o++) {
            memmove((uint8_t *)out->data + (o * n + i) * inner,
                   (const uint8_t *)self->data + (o * dsz + j) * inner, inner);
        }
    }
    return MOTE_OK;
}
