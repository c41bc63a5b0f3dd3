/*
 * aten::rsqrt.out - out = 1 / sqrt(self), elementwise.
 *
 *   args (2): self, out (same shape).
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (not fp32),
 *           MOTE_ERR_KERNEL_SHAPE (out shape differs).
 *   out may alias self exactly (in place).
 */
#include <math.h>

#include "binary.h"

MOTE_KERNEL("aten::rsqrt.out")
MOTE_KERNEL_IN_PLACE("aten::rsqrt.out")

MOTE_K_DECLARE(mote_kernel_aten_rsqrt_out);

mote_err_t mote_kernel_aten_rsqrt_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                      uint32_t nargs)
{
    (void)ctx;
    MOTE_K_UNARY_F32(args, nargs, v, 1.0f / sqrtf(v));
    return MOTE_OK;
}
