/*
 * aten::_cdist_forward.out - torch.cdist(x1, x2, p): out[.., i, j] = the p-norm
 * distance of rows x1[.., i, :] and x2[.., j, :] (p = 0: differing elements,
 * p = inf: largest |difference|). Computed directly (no matmul shortcut for
 * p = 2, which compute_mode may request: it only changes rounding).
 *
 *   args (5): x1 [*, P, M], x2 [*, R, M] (rank >= 2; the batch dims * broadcast
 *             numpy-style), p float (>= 0), compute_mode int? (None, 0, 1 or 2),
 *             out [broadcast batch, P, R].
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
    size_t bsize[MOTE_MAX_DIM], idx[MOTE_MAX_DIM];
    ptrdiff_t sa[MOTE_MAX_DIM], sb[MOTE_MAX_DIM];
    double p;
    uint32_t rank, nb, d;
    size_t batch, np, nr, m, bi, i, j;
    ptrdiff_t offa = 0, offb = 0;
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
    rank = out->dim;
    MOTE_CHECK(a->dim >= 2 && b->dim >= 2 && rank == (a->dim > b->dim ? a->dim : b->dim),
               MOTE_ERR_KERNEL_SHAPE);
    np = (size_t)a->sizes[a->dim - 2];
    nr = (size_t)b->sizes[b->dim - 2];
    m = (size_t)a->sizes[a->dim - 1];
    MOTE_CHECK((size_t)b->sizes[b->dim - 1] == m, MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK((size_t)out->sizes[rank - 2] == np && (size_t)out->sizes[rank - 1] == nr,
               MOTE_ERR_KERNEL_SHAPE);
    /* batch dims: numpy broadcasting of a's and b's leading dims (element strides, 0 when broadcast) */
    nb = rank - 2;
    {
        ptrdiff_t ast[MOTE_MAX_DIM], bst[MOTE_MAX_DIM];
        mote_k_strides(a, ast);
        mote_k_strides(b, bst);
        for (d = 0; d < nb; d++) {
            const uint32_t da = d + a->dim - rank, db = d + b->dim - rank; /* read only when present */
            const int32_t as = d + a->dim >= rank ? a->sizes[da] : 1;
            const int32_t bs = d + b->dim >= rank ? b->sizes[db] : 1;
            MOTE_CHECK(as == bs || as == 1 || bs == 1, MOTE_ERR_KERNEL_SHAPE);
            MOTE_CHECK(out->sizes[d] == (as == 1 ? bs : as), MOTE_ERR_KERNEL_SHAPE);
            bsize[d] = (size_t)out->sizes[d];
            sa[d] = as == 1 ? 0 : ast[da];
            sb[d] = bs == 1 ? 0 : bst[db];
            idx[d] = 0;
        }
    }
    MOTE_TRY(mote_k_check_numel(a));
    MOTE_TRY(mote_k_check_numel(b));
    MOTE_TRY(mote_k_check_numel(out));
    batch = mote_k_prod(out, 0, nb);
    for (bi = 0; bi < batch; bi++) {
        const float *x1 = (const float *)a->data + offa;
        const float *x2 = (const float *)b->data + offb;
        float *y = (float *)out->data + bi * np * nr;
        for (i = 0; i < np; i++) {
            for (j = 0; j < nr; j++) {
                y[i * nr + j] = mote_norm_dist_f32(x1 + i * m, x2 + j * m, m, p);
            }
        }
        d = nb;
        while (d-- > 0) { /* next batch index */
            idx[d]++;
            offa += sa[d];
            offb += sb[d];
            if (idx[d] < bsize[d]) {
                break;
            }
            offa -= sa[d] * (ptrdiff_t)bsize[d];
            offb -= sb[d] * (ptrdiff_t)bsize[d];
            idx[d] = 0;
        }
    }
    return MOTE_OK;
}
