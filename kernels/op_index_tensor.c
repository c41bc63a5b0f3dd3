/*
 * aten::index.Tensor_out - advanced indexing out = self[indices] (x[idx],
 * x[:, idx], x[mask]; also what torch.export makes of reflection/replication
 * padding).
 *
 *   args (3): self (rank >= 1), indices Tensor?[] (None keeps a dim; int32/int64
 *             tensors broadcast together, negative values count from the end;
 *             a bool/uint8 mask of k dims indexes k dims by its nonzero
 *             coordinates), out.
 *   shapes: the broadcast index shape replaces the indexed dims when they are
 *           adjacent, else comes first (as torch); out must have that shape.
 *   dtypes: self any, out == self; indices int32/int64/bool/uint8.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, an index out of [-size, size)),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (too many indices,
 *           unbroadcastable index shapes, mask sizes, out shape).
 *   out must not overlap self.
 */
#include <string.h>

#include "index.h"

MOTE_KERNEL("aten::index.Tensor_out")

MOTE_K_DECLARE(mote_kernel_aten_index_Tensor_out);

mote_err_t mote_kernel_aten_index_Tensor_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                             uint32_t nargs)
{
    mote_tensor_t *self, *out;
    mote_k_adv_t g;
    size_t esz, i, rc[MOTE_MAX_DIM];
    uint32_t d;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 3));
    MOTE_TRY(mote_k_tensor(args[0], &self));
    MOTE_TRY(mote_k_tensor(args[2], &out));
    MOTE_CHECK(args[1]->tag == MOTE_TAG_TENSOR_LIST || args[1]->tag == MOTE_TAG_OPT_TENSOR_LIST,
               MOTE_ERR_KERNEL_ARGS);
    esz = mote_dtype_size(self->dtype);
    MOTE_CHECK(esz != 0 && out->dtype == self->dtype, MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_k_adv_init(&g, self, args[1]));
    MOTE_CHECK(out->dim == g.rdim, MOTE_ERR_KERNEL_SHAPE);
    for (d = 0; d < g.rdim; d++) {
        MOTE_CHECK((size_t)out->sizes[d] == g.rsz[d], MOTE_ERR_KERNEL_SHAPE);
        rc[d] = 0;
    }
    MOTE_TRY(mote_k_check_numel(out));
    if (g.rdim > 0 && g.rsrc[g.rdim - 1u] != 0xFFu && g.rnumel > 0) {
        /* the last result dim is a plain dim of self: one offset lookup per row */
        const uint32_t sd = g.rsrc[g.rdim - 1u];
        const size_t row = g.rsz[g.rdim - 1u], st = mote_k_prod(self, sd + 1u, self->dim) * esz;
        const uint8_t *src = (const uint8_t *)self->data;
        uint8_t *dst = (uint8_t *)out->data;
        for (i = 0; i < g.rnumel; i += row) {
            size_t off, j;
            MOTE_TRY(mote_k_adv_offset(&g, rc, &off));
            if (st == esz) {
                memmove(dst + i * esz, src + off * esz, row * esz);
            } else {
                for (j = 0; j < row; j++) {
                    memmove(dst + (i + j) * esz, src + off * esz + j * st, esz);
                }
            }
            rc[g.rdim - 1u] = row - 1u; /* jump to the row's end, then step */
            mote_k_coord_next(rc, g.rsz, g.rdim);
        }
        return MOTE_OK;
    }
    for (i = 0; i < g.rnumel; i++) {
        size_t off;
        MOTE_TRY(mote_k_adv_offset(&g, rc, &off));
        memmove((uint8_t *)out->data + i * esz, (const uint8_t *)self->data + off * esz, esz);
        mote_k_coord_next(rc, g.rsz, g.rdim);
    }
    return MOTE_OK;
}
