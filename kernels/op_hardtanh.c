/*
 * aten::hardtanh.out - out = min(max(self, min_val), max_val) (ReLU6 = hardtanh(0, 6)).
 *
 *   args (4): self, min_val Scalar, max_val Scalar, out (same shape as self).
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE. out may alias self exactly. NaN propagates.
 */
#include "binary.h"

MOTE_KERNEL("aten::hardtanh.out")
MOTE_KERNEL_IN_PLACE("aten::hardtanh.out")

MOTE_K_DECLARE(mote_kernel_aten_hardtanh_out);

mote_err_t mote_kernel_aten_hardtanh_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                         uint32_t nargs)
{
    const float *x;
    float *y;
    size_t n, i;
    double lo, hi;
    float l, h;
    (void)ctx;
    MOTE_TRY(mote_k_unary_f32(args, nargs, 4, &x, &y, &n));
    MOTE_TRY(mote_k_scalar(args[1], &lo));
    MOTE_TRY(mote_k_scalar(args[2], &hi));
    l = (float)lo;
    h = (float)hi;
    for (i = 0; i < n; i++) {
        float v = x[i];
        v = v < l ? l : v;
        y[i] = v > h ? h : v;
    }
    return MOTE_OK;
}
