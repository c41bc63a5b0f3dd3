/*
 * aten::pow.Tensor_Scalar_out - out = self ** exponent (Scalar exponent),
 * e.g. `x ** 2`, `x ** 0.5`.
 *
 *   args (3): self, exponent Scalar, out (same shape as self).
 *   dtypes: float32 (exponents 2, 3, 0.5, -0.5, -1, -2 as x*x, x*x*x, sqrtf, 1/sqrtf, 1/x,
 *           1/(x*x) like torch, others powf); integer self with an Int exponent: exact
 *           wrapping power (negative exponent -> MOTE_ERR_KERNEL_ARGS, as torch refuses);
 *           integer self with a Double exponent -> float32 out.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (dtype combination),
 *           MOTE_ERR_KERNEL_SHAPE (not broadcastable / out not the broadcast shape).
 *   out may alias self exactly (in place).
 */
#include "elementwise.h"

MOTE_KERNEL("aten::pow.Tensor_Scalar_out")
MOTE_KERNEL_IN_PLACE("aten::pow.Tensor_Scalar_out")

MOTE_K_DECLARE(mote_kernel_aten_pow_Tensor_Scalar_out);

mote_err_t mote_kernel_aten_pow_Tensor_Scalar_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                                  uint32_t nargs)
{
    mote_ew_param_t p = {0};
    mote_tensor_t *self;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 3));
    MOTE_TRY(mote_k_tensor(args[0], &self));
    /* torch: "Integers to negative integer powers are not allowed" */
    MOTE_CHECK(!(mote_ew_category(self->dtype) < 2 && args[1]->tag == MOTE_TAG_INT &&
                 args[1]->u.i < 0),
               MOTE_ERR_KERNEL_ARGS);
    return mote_ew_binary(args, nargs, 3, MOTE_EW_TS, &mote_ew_op_pow_scalar, &p);
}
