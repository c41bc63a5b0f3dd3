/*
 * aten::clamp.out - out = min(max(self, min), max); either bound may be None.
 *
 *   args (4): self, min Scalar?, max Scalar?, out (same shape as self).
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, both bounds None), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE. out may alias self exactly. NaN propagates.
 */
#include <math.h>

#include "binary.h"

MOTE_KERNEL("aten::clamp.out")
MOTE_KERNEL_IN_PLACE("aten::clamp.out")

MOTE_K_DECLARE(mote_kernel_aten_clamp_out);

mote_err_t mote_kernel_aten_clamp_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                      uint32_t nargs)
{
    const float *x;
    float *y;
    size_t n, i;
    double lo = 0.0, hi = 0.0;
    int has_lo, has_hi;
    (void)ctx;
    MOTE_TRY(mote_k_unary_f32(args, nargs, 4, &x, &y, &n));
    has_lo = !mote_k_is_none(args[1]);
    has_hi = !mote_k_is_none(args[2]);
    MOTE_CHECK(has_lo || has_hi, MOTE_ERR_KERNEL_ARGS);
    if (has_lo) {
        MOTE_TRY(mote_k_scalar(args[1], &lo));
    }
    if (has_hi) {
        MOTE_TRY(mote_k_scalar(args[2], &hi));
    }
    {
        const float l = has_lo ? (float)lo : -HUGE_VALF, h = has_hi ? (float)hi : HUGE_VALF;
        for (i = 0; i < n; i++) {
            float v = x[i];
            v = v < l ? l : v;
            y[i] = v > h ? h : v;
        }
    }
    return MOTE_OK;
}
