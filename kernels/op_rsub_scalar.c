/*
 * aten::rsub.Scalar_out - out = other - alpha * self (Scalar other and alpha),
 * e.g. `1 - x` (torch.export gives sub.Tensor(1, x); the compiler maps it here).
 *
 *   args (4): self, other Scalar, alpha Scalar, out (same shape as self).
 *   dtypes: float32; integers (int32, int64, int8, int16, uint8; wrapping, alpha must be
 *           integral); int self with a Double other -> float32 out. A bool self or
 *           other -> DTYPE (torch refuses bool subtraction).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (dtype combination,
 *           fractional alpha on integers), MOTE_ERR_KERNEL_SHAPE (out shape wrong).
 *   out may alias self exactly (in place).
 */
#include "elementwise.h"

MOTE_KERNEL("aten::rsub.Scalar_out")
MOTE_KERNEL_IN_PLACE("aten::rsub.Scalar_out")

MOTE_K_DECLARE(mote_kernel_aten_rsub_Scalar_out);

MOTE_EW_ROW2(mote_rsub_f32, float, float, y - (float)p->alpha * x)
MOTE_EW_ROW2(mote_rsub_i64, int64_t, int64_t,
             (int64_t)((uint64_t)y - (uint64_t)p->ialpha * (uint64_t)x))

mote_err_t mote_kernel_aten_rsub_Scalar_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                            uint32_t nargs)
{
    static const mote_ew_op_t op = {MOTE_EW_ARITH, mote_rsub_f32, mote_rsub_i64, NULL};
    mote_ew_param_t p = {0};
    mote_tensor_t *self;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 4));
    MOTE_TRY(mote_k_tensor(args[0], &self));
    MOTE_TRY(mote_k_scalar(args[2], &p.alpha));
    /* torch refuses subtraction with a bool operand */
    MOTE_CHECK(self->dtype != MOTE_DTYPE_BOOL && args[1]->tag != MOTE_TAG_BOOL,
               MOTE_ERR_KERNEL_DTYPE);
    if (mote_ew_category(self->dtype) < 2 && args[1]->tag != MOTE_TAG_DOUBLE) {
        /* integer result: alpha must be an integer (torch refuses a float alpha) */
        MOTE_CHECK(args[2]->tag != MOTE_TAG_DOUBLE, MOTE_ERR_KERNEL_DTYPE);
        p.ialpha = args[2]->tag == MOTE_TAG_INT ? args[2]->u.i : (int64_t)p.alpha;
    }
    return mote_ew_binary(args, nargs, 4, MOTE_EW_TS, &op, &p);
}
