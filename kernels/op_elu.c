/*
 * aten::elu.out - exponential linear unit (nn.ELU; nn.SELU is elu with
 * alpha = 1.6733, scale = 1.0507), elementwise:
 *   out = scale * x                                  for x > 0
 *   out = scale * alpha * (exp(input_scale * x) - 1)  for x <= 0
 *
 *   args (5): self, alpha Scalar, scale Scalar, input_scale Scalar, out (same shape).
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (not float32),
 *           MOTE_ERR_KERNEL_SHAPE (out shape differs).
 *   out may alias self exactly (in place). NaN propagates.
 */
#include "unary.h"

MOTE_KERNEL("aten::elu.out")
MOTE_KERNEL_IN_PLACE("aten::elu.out")

MOTE_K_DECLARE(mote_kernel_aten_elu_out);

mote_err_t mote_kernel_aten_elu_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                    uint32_t nargs)
{
    mote_tensor_t *in, *out;
    double alpha, scale, input_scale;
    float negcoef, poscoef, negin;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 5));
    MOTE_TRY(mote_k_scalar(args[1], &alpha));
    MOTE_TRY(mote_k_scalar(args[2], &scale));
    MOTE_TRY(mote_k_scalar(args[3], &input_scale));
    MOTE_TRY(mote_u_check(args, nargs, 5, MOTE_U_BIT(MOTE_DTYPE_FLOAT32),
                          MOTE_U_BIT(MOTE_DTYPE_FLOAT32), 1, &in, &out));
    /* PyTorch converts each Scalar to float, then multiplies in float */
    poscoef = (float)scale;
    negcoef = (float)alpha * poscoef;
    negin = (float)input_scale;
    MOTE_U_MAP(float, float, in, out, v, v <= 0.0f ? expm1f(v * negin) * negcoef : v * poscoef);
    return MOTE_OK;
}
