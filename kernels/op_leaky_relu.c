/*
 * aten::leaky_relu.out - out = x > 0 ? x : negative_slope * x (nn.LeakyReLU), elementwise.
 *
 *   args (3): self, negative_slope Scalar, out (same shape).
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (not float32),
 *           MOTE_ERR_KERNEL_SHAPE (out shape differs).
 *   out may alias self exactly (in place). NaN propagates.
 */
#include "unary.h"

MOTE_KERNEL("aten::leaky_relu.out")
MOTE_KERNEL_IN_PLACE("aten::leaky_relu.out")

MOTE_K_DECLARE(mote_kernel_aten_leaky_relu_out);

mote_err_t mote_kernel_aten_leaky_relu_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                           uint32_t nargs)
{
    mote_tensor_t *in, *out;
    double slope;
    float s;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 3));
    MOTE_TRY(mote_k_scalar(args[1], &slope));
    MOTE_TRY(mote_u_check(args, nargs, 3, MOTE_U_BIT(MOTE_DTYPE_FLOAT32),
                          MOTE_U_BIT(MOTE_DTYPE_FLOAT32), 1, &in, &out));
    s = (float)slope;
    MOTE_U_MAP(float, float, in, out, v, v > 0.0f ? v : v * s);
    return MOTE_OK;
}
