/*
 * aten::_pdist_forward.out - torch.pdist(x, p): the p-norm distances of every
 * pair of rows i < j of x [N, M], in row-major pair order (0,1), (0,2), ..,
 * (1,2), .. (p = 0: differing elements, p = inf: largest |difference|).
 *
 *   args (3): self [N, M], p float (>= 0), out [N * (N - 1) / 2].
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, p < 0 or NaN),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE.
 */
#include "norm.h"

MOTE_KERNEL("aten::_pdist_forward.out")

MOTE_K_DECLARE(mote_kernel_aten__pdist_forward_out);

mote_err_t mote_kernel_aten__pdist_forward_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                               uint32_t nargs)
{
    mote_tensor_t *in, *out;
    double p;
    size_t n, m, i, j, k = 0;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 3));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_double(args[1], &p));
    MOTE_TRY(mote_k_tensor(args[2], &out));
    MOTE_CHECK(p >= 0.0, MOTE_ERR_KERNEL_ARGS); /* also refuses NaN */
    MOTE_CHECK(in->dtype == MOTE_DTYPE_FLOAT32 && out->dtype == MOTE_DTYPE_FLOAT32,
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(in->dim == 2 && out->dim == 1, MOTE_ERR_KERNEL_SHAPE);
    n = (size_t)in->sizes[0];
    m = (size_t)in->sizes[1];
    MOTE_CHECK((size_t)out->sizes[0] == (n > 1 ? n * (n - 1) / 2 : 0), MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(out));
    for (i = 0; i < n; i++) {
        for (j = i + 1; j < n; j++) {
            ((float *)out->data)[k++] =
                mote_norm_dist_f32((const float *)in->data + i * m, (const float *)in->data + j * m,
                                   m, p);
        }
    }
    return MOTE_OK;
}
