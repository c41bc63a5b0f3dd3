/*
 * mote::embedding_w4.out - embedding lookup in a 4-bit group-wise table:
 * out[..., d] = q[index, d] * scale[index, d / group] (nn.Embedding after
 * torchao's IntxWeightOnlyConfig int4; aot/compiler/quant/int4ref.py).
 *
 *   args (5): weight packed int4 uint8 [V, D/2] (kernels/int4.h), scales
 *             float32 [V, D/group], indices int32/int64 (any shape),
 *             group_size int (even, divides D), out float32 [*indices.shape, D].
 *   dtypes: weight uint8 (or int8) bytes, scales and out float32, indices int32/int64.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, group_size, an index outside [0, V)),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (scales / out shape).
 */
#include "index.h"
#include "int4.h"

MOTE_KERNEL("mote::embedding_w4.out")

MOTE_K_DECLARE(mote_kernel_mote_embedding_w4_out);

mote_err_t mote_kernel_mote_embedding_w4_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *w, *s, *idx, *out;
    int64_t group;
    size_t dim, i, d, r;
    uint32_t a;
    float *y;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 5));
    MOTE_TRY(mote_k_tensor(args[0], &w));
    MOTE_TRY(mote_k_tensor(args[1], &s));
    MOTE_TRY(mote_k_tensor(args[2], &idx));
    MOTE_TRY(mote_k_int(args[3], &group));
    MOTE_TRY(mote_k_tensor(args[4], &out));
    MOTE_TRY(mote_w4_check(w, s, group));
    MOTE_CHECK(mote_k_idx_dtype(idx->dtype) && out->dtype == MOTE_DTYPE_FLOAT32, MOTE_ERR_KERNEL_DTYPE);
    dim = 2u * (size_t)w->sizes[1];
    MOTE_CHECK(out->dim == idx->dim + 1u && (size_t)out->sizes[idx->dim] == dim, MOTE_ERR_KERNEL_SHAPE);
    for (a = 0; a < idx->dim; a++) {
        MOTE_CHECK(out->sizes[a] == idx->sizes[a], MOTE_ERR_KERNEL_SHAPE);
    }
    MOTE_TRY(mote_k_check_numel(idx));
    MOTE_TRY(mote_k_check_numel(out));
    y = (float *)out->data;
    for (i = 0; i < idx->numel; i++) {
        const uint8_t *row;
        const float *sc;
        MOTE_TRY(mote_k_idx_wrap(mote_k_idx_get(idx, i), (int64_t)w->sizes[0], 0, &r));
        row = (const uint8_t *)w->data + r * (dim / 2u);
        sc = (const float *)s->data + r * (dim / (size_t)group);
        for (d = 0; d < dim; d++) {
            y[i * dim + d] = (float)mote_w4_at(row, d) * sc[d / (size_t)group];
        }
    }
    return MOTE_OK;
}
