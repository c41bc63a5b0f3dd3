/*
 * aten::mm.out - out = self @ mat2.
 *
 *   args (3): self [M, K], mat2 [K, N], out [M, N].
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (not fp32),
 *           MOTE_ERR_KERNEL_SHAPE (ranks, inner sizes, out size).
 *   out must not overlap the inputs.
 */
#include "kutil.h"

MOTE_KERNEL("aten::mm.out")

MOTE_K_DECLARE(mote_kernel_aten_mm_out);

mote_err_t mote_kernel_aten_mm_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                   uint32_t nargs)
{
    (void)ctx;
    return mote_k_matmul_f32(args, nargs, 2);
}
