/*
 * aten::abs.out - out = |self|, elementwise (Softsign's |x|).
 *
 *   args (2): self, out (same shape).
 *   dtypes: float32 (fabsf: -0 -> +0, NaN stays NaN); int32 / int64, out of
 *           the same dtype (the most negative value wraps to itself, as in PyTorch).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (other dtypes,
 *           out dtype differs), MOTE_ERR_KERNEL_SHAPE (out shape differs).
 *   out may alias self exactly (in place).
 */
#include "unary.h"

MOTE_KERNEL("aten::abs.out")
MOTE_KERNEL_IN_PLACE("aten::abs.out")

MOTE_K_DECLARE(mote_kernel_aten_abs_out);

mote_err_t mote_kernel_aten_abs_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                    uint32_t nargs)
{
    const unsigned long dts = MOTE_U_BIT(MOTE_DTYPE_FLOAT32) | MOTE_U_BIT(MOTE_DTYPE_INT32) |
                              MOTE_U_BIT(MOTE_DTYPE_INT64);
    mote_tensor_t *in, *out;
    (void)ctx;
    MOTE_TRY(mote_u_check(args, nargs, 2, dts, dts, 1, &in, &out));
    switch (in->dtype) {
    case MOTE_DTYPE_FLOAT32: MOTE_U_MAP(float, float, in, out, v, fabsf(v)); break;
    case MOTE_DTYPE_INT32:
        MOTE_U_MAP(int32_t, int32_t, in, out, v,
                   v < 0 ? (int32_t)(0u - (uint32_t)v) : v);
        break;
    default:
        MOTE_U_MAP(int64_t, int64_t, in, out, v,
                   v < 0 ? (int64_t)(0u - (uint64_t)v) : v);
        break;
    }
    return MOTE_OK;
}
