/*
 * aten::_cdist_forward.out - torch.cdist(x1, x2, p): out[.., i, j] = the p-norm
 * distance of rows x1[.., i, :] and x2[.., j, :] (p = 0: differing elements,
 * p = inf: largest |difference|). Computed directly (no matmul shortcut for
 * p = 2, which compute_mode may request: it only changes rounding).
 *
 *   args (5): x1 [*, P, M], x2 [*, R, M] (rank >= 2, equal batch dims; torch's
 *             batch broadcasting is not supported), p float (>= 0),
 *             compute_mode int? (None, 0, 1 or 2), out [*, P, R].
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, p < 0 or NaN, bad compute_mode),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE.
 */
#include "norm.h"

MOTE_KERNEL("aten::_cdist_forward.out")

MOTE_K_DECLARE(mote_kernel_aten__cdist_forward_out);

mote_err_t mote_kernel_aten__cdist_forward_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                               uint32_t nargs)
{
    mote_tensor_t *a, *b, *out;
    double p;
    uint32_t rank, d;
    size_t batch, np, nr, m, bi, i, j;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 5));
    MOTE_TRY(mote_k_tensor(args[0], &a));
    MOTE_TRY(mote_k_tensor(args[1], &b));
    MOTE_TRY(mote_k_double(args[2], &p));
    MOTE_TRY(mote_k_tensor(args[4], &out));
    if (!mote_k_is_none(args[3])) {
        int64_t mode;
        MOTE_TRY(mote_k_int(args[3], &mode));
        MOTE_CHECK(mode >= 0 && mode <= 2, MOTE_ERR_KERNEL_ARGS);
    }
    MOTE_CHECK(p >= 0.0, MOTE_ERR_KERNEL_ARGS); /* also refuses NaN */
    MOTE_CHECK(a->dtype == MOTE_DTYPE_FLOAT32 && b->dtype == MOTE_DTYPE_FLOAT32 &&
                   out->dtype == MOTE_DTYPE_FLOAT32,
               MOTE_ERR_KERNEL_DTYPE);
    rank = a->dim;
    MOTE_CHECK(rank >= 2 && b->dim == rank && out->dim == rank, MOTE_ERR_KERNEL_SHAPE);
    for (d = 0; d + 2 < rank; d++) {
        MOTE_CHECK(b->sizes[d] == a->sizes[d] && out->sizes[d] == a->sizes[d],
                   MOTE_ERR_KERNEL_SHAPE);
    }
    np = (size_t)a->sizes[rank - 2];
    nr = (size_t)b->sizes[rank - 2];
    m = (size_t)a->sizes[rank - 1];
    MOTE_CHECK((size_t)b->sizes[rank - 1] == m, MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK((size_t)out->sizes[rank - 2] == np && (size_t)out->sizes[rank - 1] == nr,
               MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(a));
    MOTE_TRY(mote_k_check_numel(b));
    MOTE_TRY(mote_k_check_numel(out));
    batch = mote_k_prod(a, 0, rank - 2);
    for (bi = 0; bi < batch; bi++) {
        const float *x1 = (const float *)a->data + bi * np * m;
        const float *x2 = (const float *)b->data + bi * nr * m;
        float *y = (float *)out->data + bi * np * nr;
        for (i = 0; i < np; i++) {
            for (j = 0; j < nr; j++) {
                y[i * nr + j] = mote_norm_dist_f32(x1 + i * m, x2 + j * m, m, p);
            }
        }
    }
    return MOTE_OK;
}
