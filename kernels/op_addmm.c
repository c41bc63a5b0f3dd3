/*
 * aten::addmm.out - out = beta * self + alpha * (mat1 @ mat2).
 *
 *   args (6): self (broadcastable to [M, N]: [], [1], [N], [1|M, 1|N]),
 *             mat1 [M, K], mat2 [K, N], beta Scalar, alpha Scalar, out [M, N].
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (not fp32),
 *           MOTE_ERR_KERNEL_SHAPE (inner sizes differ, self not broadcastable, out size).
 *   beta == 0 ignores self. out may alias self exactly; it must not overlap mat1/mat2.
 */
#include "gemm.h"
#include "kutil.h"

MOTE_KERNEL("aten::addmm.out")

MOTE_K_DECLARE(mote_kernel_aten_addmm_out);

mote_err_t mote_kernel_aten_addmm_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                      uint32_t nargs)
{
    mote_tensor_t *self, *a, *b, *out;
    double beta, alpha;
    size_t m, n, k, rs = 0, cs = 0;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 6));
    MOTE_TRY(mote_k_tensor(args[0], &self));
    MOTE_TRY(mote_k_tensor(args[1], &a));
    MOTE_TRY(mote_k_tensor(args[2], &b));
    MOTE_TRY(mote_k_scalar(args[3], &beta));
    MOTE_TRY(mote_k_scalar(args[4], &alpha));
    MOTE_TRY(mote_k_tensor(args[5], &out));
    MOTE_CHECK(self->dtype == MOTE_DTYPE_FLOAT32 && a->dtype == MOTE_DTYPE_FLOAT32 &&
                     b->dtype == MOTE_DTYPE_FLOAT32 && out->dtype == MOTE_DTYPE_FLOAT32,
                 MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(a->dim == 2 && b->dim == 2 && out->dim == 2 && self->dim <= 2,
                 MOTE_ERR_KERNEL_SHAPE);
    m = (size_t)a->sizes[0];
    k = (size_t)a->sizes[1];
    n = (size_t)b->sizes[1];
    MOTE_CHECK((size_t)b->sizes[0] == k, MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK((size_t)out->sizes[0] == m && (size_t)out->sizes[1] == n, MOTE_ERR_KERNEL_SHAPE);
    if (self->dim >= 1) {
        size_t sn = (size_t)self->sizes[self->dim - 1];
        MOTE_CHECK(sn == n || sn == 1, MOTE_ERR_KERNEL_SHAPE);
        cs = sn == 1 ? 0 : 1;
    }
    if (self->dim == 2) {
        size_t sm = (size_t)self->sizes[0];
        MOTE_CHECK(sm == m || sm == 1, MOTE_ERR_KERNEL_SHAPE);
        rs = sm == 1 ? 0 : (size_t)self->sizes[1];
    }
    MOTE_TRY(mote_k_check_numel(self));
    MOTE_TRY(mote_k_check_numel(a));
    MOTE_TRY(mote_k_check_numel(b));
    MOTE_TRY(mote_k_check_numel(out));
    mote_gemm_f32(m, n, k, (const float *)a->data, k, (const float *)b->data, n,
                  (float *)out->data, n, beta != 0.0 ? (const float *)self->data : NULL, rs, cs,
                  (float)alpha, (float)beta);
    return MOTE_OK;
}
