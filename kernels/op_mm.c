/*
 * aten::mm.out - out = self @ mat2.
 *
 *   args (3): self [M, K], mat2 [K, N], out [M, N].
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (not fp32),
 *           MOTE_ERR_KERNEL_SHAPE (ranks, inner sizes, out size).
 *   out must not overlap the inputs.
 */
#include "gemm.h"
#include "kutil.h"

MOTE_KERNEL("aten::mm.out")

MOTE_K_DECLARE(mote_kernel_aten_mm_out);

mote_err_t mote_kernel_aten_mm_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                   uint32_t nargs)
{
    mote_tensor_t *a, *b, *out;
    size_t m, n, k;
    (void)ctx;
    MOTE_K_TRY(mote_k_nargs(args, nargs, 3));
    MOTE_K_TRY(mote_k_tensor(args[0], &a));
    MOTE_K_TRY(mote_k_tensor(args[1], &b));
    MOTE_K_TRY(mote_k_tensor(args[2], &out));
    MOTE_K_CHECK(a->dtype == MOTE_DTYPE_FLOAT32 && b->dtype == MOTE_DTYPE_FLOAT32 &&
                     out->dtype == MOTE_DTYPE_FLOAT32,
                 MOTE_ERR_KERNEL_DTYPE);
    MOTE_K_CHECK(a->dim == 2 && b->dim == 2 && out->dim == 2, MOTE_ERR_KERNEL_SHAPE);
    m = (size_t)a->sizes[0];
    k = (size_t)a->sizes[1];
    n = (size_t)b->sizes[1];
    MOTE_K_CHECK((size_t)b->sizes[0] == k, MOTE_ERR_KERNEL_SHAPE);
    MOTE_K_CHECK((size_t)out->sizes[0] == m && (size_t)out->sizes[1] == n, MOTE_ERR_KERNEL_SHAPE);
    MOTE_K_TRY(mote_k_check_numel(a));
    MOTE_K_TRY(mote_k_check_numel(b));
    MOTE_K_TRY(mote_k_check_numel(out));
    mote_gemm_f32(m, n, k, (const float *)a->data, k, (const float *)b->data, n,
                  (float *)out->data, n, NULL, 0, 0, 1.0f, 0.0f);
    return MOTE_OK;
}
