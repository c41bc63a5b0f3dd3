/*
 * aten::sign.out - out = -1, 0 or 1 by the sign of self, elementwise.
 *
 *   args (2): self, out (same shape).
 *   dtypes: float32 (sign(NaN) = 0 and sign(-0) = 0, as PyTorch's
 *           (0 < x) - (x < 0)); int32 / int64; bool (unchanged); out of self's dtype.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (other dtypes,
 *           out dtype differs), MOTE_ERR_KERNEL_SHAPE (out shape differs).
 *   out may alias self exactly (in place).
 */
#include "unary.h"

MOTE_KERNEL("aten::sign.out")
MOTE_KERNEL_IN_PLACE("aten::sign.out")

MOTE_K_DECLARE(mote_kernel_aten_sign_out);

mote_err_t mote_kernel_aten_sign_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                     uint32_t nargs)
{
    const unsigned long dts = MOTE_U_BIT(MOTE_DTYPE_FLOAT32) | MOTE_U_BIT(MOTE_DTYPE_INT32) |
                              MOTE_U_BIT(MOTE_DTYPE_INT64) | MOTE_U_BIT(MOTE_DTYPE_BOOL);
    mote_tensor_t *in, *out;
    (void)ctx;
    MOTE_TRY(mote_u_check(args, nargs, 2, dts, dts, 1, &in, &out));
    switch (in->dtype) {
    case MOTE_DTYPE_FLOAT32:
        MOTE_U_MAP(float, float, in, out, v, (float)((0.0f < v) - (v < 0.0f)));
        break;
    case MOTE_DTYPE_INT32:
        MOTE_U_MAP(int32_t, int32_t, in, out, v, (int32_t)((0 < v) - (v < 0)));
        break;
    case MOTE_DTYPE_INT64:
        MOTE_U_MAP(int64_t, int64_t, in, out, v, (int64_t)((0 < v) - (v < 0)));
        break;
    default: MOTE_U_MAP(uint8_t, uint8_t, in, out, v, (uint8_t)(v != 0)); break;
    }
    return MOTE_OK;
}
