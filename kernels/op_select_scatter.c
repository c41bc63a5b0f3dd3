/*
 * aten::select_scatter.out - out = self with out.select(dim, index) = src.
 *
 *   args (5): self (rank >= 1), src (self's shape without dim), dim int,
 *             index int (negative counts from the end), out (self's shape).
 *   dtypes: any, src and out == self.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim, index out of range),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE.
 *   out may alias self exactly. (torch.export decomposes select_scatter;
 *   ExecuTorch-made programs carry it.)
 */
#include <string.h>

#include "index.h"

MOTE_KERNEL("aten::select_scatter.out")

MOTE_K_DECLARE(mote_kernel_aten_select_scatter_out);

mote_err_t mote_kernel_aten_select_scatter_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                               uint32_t nargs)
{
    mote_tensor_t *self, *src, *out;
    int64_t dim, index;
    uint32_t cd, d, k = 0;
    size_t esz, outer, inner, o, j;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 5));
    MOTE_TRY(mote_k_tensor(args[0], &self));
    MOTE_TRY(mote_k_tensor(args[1], &src));
    MOTE_TRY(mote_k_int(args[2], &dim));
    MOTE_TRY(mote_k_int(args[3], &index));
    MOTE_TRY(mote_k_tensor(args[4], &out));
    MOTE_CHECK(self->dim > 0, MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_dim(dim, self->dim, &cd));
    MOTE_TRY(mote_k_idx_wrap(index, self->sizes[cd], 1, &j));
    esz = mote_dtype_size(self->dtype);
    MOTE_CHECK(esz != 0 && src->dtype == self->dtype && out->dtype == self->dtype,
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(src->dim + 1u == self->dim && mote_k_same_shape(self, out), MOTE_ERR_KERNEL_SHAPE);
    for (d = 0; d < self->dim; d++) {
        if (d != cd) {
            MOTE_CHECK(src->sizes[k++] == self->sizes[d], MOTE_ERR_KERNEL_SHAPE);
        }
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
        memmove((uint8_t *)out->data + (o * (size_t)self->sizes[cd] + j) * inner,
               (const uint8_t *)src->data + o * inner, inner);
    }
    return MOTE_OK;
}
