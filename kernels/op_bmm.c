/*
 * aten::bmm.out - batched matrix product: out[b] = self[b] @ mat2[b].
 *
 *   args (3): self [B, M, K], mat2 [B, K, N], out [B, M, N].
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (not fp32),
 *           MOTE_ERR_KERNEL_SHAPE (ranks, batch/inner sizes, out size).
 *   out must not overlap the inputs.
 */
#include "gemm.h"
#include "kutil.h"

MOTE_KERNEL("aten::bmm.out")

MOTE_K_DECLARE(mote_kernel_aten_bmm_out);

mote_err_t mote_kernel_aten_bmm_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                    uint32_t nargs)
{
    mote_tensor_t *a, *b, *out;
    size_t nb, m, n, k, i;
    (void)ctx;
    MOTE_K_TRY(mote_k_nargs(args, nargs, 3));
    MOTE_K_TRY(mote_k_tensor(args[0], &a));
    MOTE_K_TRY(mote_k_tensor(args[1], &b));
    MOTE_K_TRY(mote_k_tensor(args[2], &out));
    MOTE_K_CHECK(a->dtype == MOTE_DTYPE_FLOAT32 && b->dtype == MOTE_DTYPE_FLOAT32 &&
                     out->dtype == MOTE_DTYPE_FLOAT32,
                 MOTE_ERR_KERNEL_DTYPE);
    MOTE_K_CHECK(a->dim == 3 && b->dim == 3 && out->dim == 3, MOTE_ERR_KERNEL_SHAPE);
    nb = (size_t)a->sizes[0];
    m = (size_t)a->sizes[1];
    k = (size_t)a->sizes[2];
    n = (size_t)b->sizes[2];
    MOTE_K_CHECK((size_t)b->sizes[0] == nb && (size_t)b->sizes[1] == k, MOTE_ERR_KERNEL_SHAPE);
    MOTE_K_CHECK((size_t)out->sizes[0] == nb && (size_t)out->sizes[1] == m &&
                     (size_t)out->sizes[2] == n,
                 MOTE_ERR_KERNEL_SHAPE);
    MOTE_K_TRY(mote_k_check_numel(a));
    MOTE_K_TRY(mote_k_check_numel(b));
    MOTE_K_TRY(mote_k_check_numel(out));
    for (i = 0; i < nb; i++) {
        mote_gemm_f32(m, n, k, (const float *)a->data + i * m * k,
                      k, (const float *)b->data + i * k * n, n, (float *)out->data + i * m * n, n,
                      NULL, 0, 0, 1.0f, 0.0f);
    }
    return MOTE_OK;
}
