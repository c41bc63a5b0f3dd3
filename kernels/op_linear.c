/*
 * aten::linear.out - out = input @ weight^T + bias (F.linear as ExecuTorch
 * keeps it; torch.export decomposes it to permute_copy + addmm/mm).
 *
 *   args (4): input [..., K] (rank >= 1), weight [N, K], bias [N] or None, out [..., N].
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (K mismatch, bias size, out shape).
 *   out must not overlap input.
 */
#include "kutil.h"

MOTE_KERNEL("aten::linear.out")

MOTE_K_DECLARE(mote_kernel_aten_linear_out);

mote_err_t mote_kernel_aten_linear_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                       uint32_t nargs)
{
    mote_tensor_t *in, *wt, *bias, *out;
    size_t m, k, n, i, j, t;
    uint32_t d;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 4));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_tensor(args[1], &wt));
    MOTE_TRY(mote_k_opt_tensor(args[2], &bias));
    MOTE_TRY(mote_k_tensor(args[3], &out));
    MOTE_CHECK(in->dtype == MOTE_DTYPE_FLOAT32 && wt->dtype == MOTE_DTYPE_FLOAT32 &&
                   out->dtype == MOTE_DTYPE_FLOAT32 &&
                   (bias == NULL || bias->dtype == MOTE_DTYPE_FLOAT32),
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(in->dim >= 1 && wt->dim == 2 && out->dim == in->dim, MOTE_ERR_KERNEL_SHAPE);
    k = (size_t)in->sizes[in->dim - 1];
    n = (size_t)wt->sizes[0];
    MOTE_CHECK((size_t)wt->sizes[1] == k, MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK(bias == NULL || (bias->dim <= 1 && bias->numel == n) || (bias->dim == 1 && bias->numel == 1),
               MOTE_ERR_KERNEL_SHAPE);
    for (d = 0; d + 1u < in->dim; d++) {
        MOTE_CHECK(out->sizes[d] == in->sizes[d], MOTE_ERR_KERNEL_SHAPE);
    }
    MOTE_CHECK((size_t)out->sizes[out->dim - 1] == n, MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(wt));
    MOTE_TRY(mote_k_check_numel(out));
    if (bias != NULL) {
        MOTE_TRY(mote_k_check_numel(bias));
    }
    m = mote_k_prod(in, 0, in->dim - 1u);
    {
        const float *x = (const float *)in->data, *w = (const float *)wt->data;
        const float *b = bias != NULL ? (const float *)bias->data : NULL;
        float *y = (float *)out->data;
        for (i = 0; i < m; i++) {
            for (j = 0; j < n; j++) {
                float acc = 0.0f;
                for (t = 0; t < k; t++) {
                    acc += x[i * k + t] * w[j * k + t];
                }
                y[i * n + j] = acc + (b == NULL ? 0.0f : b[bias->numel == 1 ? 0 : j]);
            }
        }
    }
    return MOTE_OK;
}
