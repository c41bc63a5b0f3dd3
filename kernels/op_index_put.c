/*
 * aten::index_put.out - out = self with out[indices] = values (or += with
 * accumulate): `x[idx] = v`, `x.index_put((i,), v, accumulate=True)`.
 *
 *   args (5): self, indices Tensor?[] (as index.Tensor_out: None, int32/int64
 *             with negative values from the end, bool/uint8 masks), values
 *             (broadcastable to the shape self[indices] has), accumulate bool, out
 *             (self's shape).
 *   dtypes: self any (accumulate: float32/float64/integers, wrapping), values
 *           and out == self; indices int32/int64/bool/uint8.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, index out of range),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (indices, values, out).
 *   Repeated indices without accumulate: the last one written wins.
 *   out may alias self exactly.
 */
#include <string.h>

#include "index.h"

MOTE_KERNEL("aten::index_put.out")

MOTE_K_DECLARE(mote_kernel_aten_index_put_out);

mote_err_t mote_kernel_aten_index_put_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                          uint32_t nargs)
{
    mote_tensor_t *self, *vals, *out;
    mote_k_adv_t g;
    int acc;
    size_t esz, i, rc[MOTE_MAX_DIM], vst[MOTE_MAX_DIM];
    uint32_t d;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 5));
    MOTE_TRY(mote_k_tensor(args[0], &self));
    MOTE_CHECK(args[1]->tag == MOTE_TAG_TENSOR_LIST || args[1]->tag == MOTE_TAG_OPT_TENSOR_LIST,
               MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_k_tensor(args[2], &vals));
    MOTE_TRY(mote_k_bool(args[3], &acc));
    MOTE_TRY(mote_k_tensor(args[4], &out));
    esz = mote_dtype_size(self->dtype);
    MOTE_CHECK(esz != 0 && out->dtype == self->dtype && vals->dtype == self->dtype,
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(!acc || mote_k_acc_dtype(self->dtype), MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_k_adv_init(&g, self, args[1]));
    MOTE_CHECK(mote_k_same_shape(self, out), MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(vals));
    MOTE_TRY(mote_k_check_numel(out));
    /* values broadcast (right-aligned) to the indexed shape */
    MOTE_CHECK(vals->dim <= g.rdim, MOTE_ERR_KERNEL_SHAPE);
    {
        size_t s = 1;
        for (d = g.rdim; d > 0; d--) {
            uint32_t rd = d - 1u;
            if (rd + vals->dim >= g.rdim) {
                size_t vs = (size_t)vals->sizes[rd + vals->dim - g.rdim];
                MOTE_CHECK(vs == 1 || vs == g.rsz[rd], MOTE_ERR_KERNEL_SHAPE);
                vst[rd] = vs == 1 ? 0 : s;
                s *= vs;
            } else {
                vst[rd] = 0;
            }
        }
    }
    mote_k_copy_data(self, out);
    for (d = 0; d < g.rdim; d++) {
        rc[d] = 0;
    }
    for (i = 0; i < g.rnumel; i++) {
        size_t off, voff = 0;
        const uint8_t *src;
        MOTE_TRY(mote_k_adv_offset(&g, rc, &off));
        for (d = 0; d < g.rdim; d++) {
            voff += rc[d] * vst[d];
        }
        src = (const uint8_t *)vals->data + voff * esz;
        if (acc) {
            mote_k_acc(self->dtype, (uint8_t *)out->data + off * esz, src);
        } else {
            memcpy((uint8_t *)out->data + off * esz, src, esz);
        }
        mote_k_coord_next(rc, g.rsz, g.rdim);
    }
    return MOTE_OK;
}
