/*
 * aten::neg.out - out = -self, elementwise.
 *
 *   args (2): self, out (same shape).
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (not fp32),
 *           MOTE_ERR_KERNEL_SHAPE (out shape differs).
 *   out may alias self exactly (in place).
 */
#include <math.h>

#include "binary.h"

MOTE_KERNEL("aten::neg.out")

MOTE_K_DECLARE(mote_kernel_aten_neg_out);

mote_err_t mote_kernel_aten_neg_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                    uint32_t nargs)
{
    const float *x;
    float *y;
    size_t n, i;
    (void)ctx;
    MOTE_K_TRY(mote_k_unary_f32(args, nargs, 2, &x, &y, &n));
    for (i = 0; i < n; i++) {
        const float v = x[i];
        y[i] = -v;
    }
    return MOTE_OK;
}
