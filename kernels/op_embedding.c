/*
 * aten::embedding.out - out[..., :] = weight[indices[...], :] (nn.Embedding).
 *
 *   args (6): weight [V, D], indices (any shape), padding_idx int (only
 *             affects gradients), scale_grad_by_freq bool, sparse bool,
 *             out [*indices.shape, D].
 *   dtypes: weight any (fp32; int8 for an --int8 table), out == weight; indices int32/int64.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, an index outside [0, V): torch
 *           raises "index out of range" for negatives too), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (weight not 2-D, out shape).
 */
#include <string.h>

#include "index.h"

MOTE_KERNEL("aten::embedding.out")

MOTE_K_DECLARE(mote_kernel_aten_embedding_out);

mote_err_t mote_kernel_aten_embedding_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                          uint32_t nargs)
{
    mote_tensor_t *wt, *idx, *out;
    int64_t padding_idx;
    int scale, sparse;
    size_t esz, row, i;
    uint32_t d;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 6));
    MOTE_TRY(mote_k_tensor(args[0], &wt));
    MOTE_TRY(mote_k_tensor(args[1], &idx));
    MOTE_TRY(mote_k_int(args[2], &padding_idx));
    MOTE_TRY(mote_k_bool(args[3], &scale));
    MOTE_TRY(mote_k_bool(args[4], &sparse));
    MOTE_TRY(mote_k_tensor(args[5], &out));
    esz = mote_dtype_size(wt->dtype);
    MOTE_CHECK(esz != 0 && out->dtype == wt->dtype, MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(mote_k_idx_dtype(idx->dtype), MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(wt->dim == 2, MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK(out->dim == idx->dim + 1u, MOTE_ERR_KERNEL_SHAPE);
    for (d = 0; d < idx->dim; d++) {
        MOTE_CHECK(out->sizes[d] == idx->sizes[d], MOTE_ERR_KERNEL_SHAPE);
    }
    MOTE_CHECK(out->sizes[idx->dim] == wt->sizes[1], MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(wt));
    MOTE_TRY(mote_k_check_numel(idx));
    MOTE_TRY(mote_k_check_numel(out));
    row = (size_t)wt->sizes[1] * esz;
    for (i = 0; i < idx->numel; i++) {
        size_t r;
        MOTE_TRY(mote_k_idx_wrap(mote_k_idx_get(idx, i), (int64_t)wt->sizes[0], 0, &r));
        if (row > 0) {
            memmove((uint8_t *)out->data + i * row, (const uint8_t *)wt->data + r * row, row);
        }
    }
    return MOTE_OK;
}
