/*
 * aten::logical_not.out - out = (self == 0), elementwise, as bool.
 *
 *   args (2): self, out (same shape).
 *   dtypes: self any of bool / uint8 / int8 / int16 / int32 / int64 / float16 /
 *           float32 / float64 (NaN is nonzero, so false; -0.0 is zero); out bool.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (out not bool),
 *           MOTE_ERR_KERNEL_SHAPE (out shape differs).
 *   out may alias self exactly (in place, bool).
 */
#include "unary.h"

MOTE_KERNEL("aten::logical_not.out")
MOTE_KERNEL_IN_PLACE("aten::logical_not.out")

MOTE_K_DECLARE(mote_kernel_aten_logical_not_out);

mote_err_t mote_kernel_aten_logical_not_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                            uint32_t nargs)
{
    mote_tensor_t *in, *out;
    size_t i;
    uint8_t *y;
    (void)ctx;
    MOTE_TRY(mote_u_check(args, nargs, 2, MOTE_U_ANY, MOTE_U_BIT(MOTE_DTYPE_BOOL), 0, &in, &out));
    if (in->dtype == MOTE_DTYPE_FLOAT32) {
        MOTE_U_MAP(float, uint8_t, in, out, v, (uint8_t)(v == 0.0f));
        return MOTE_OK;
    }
    y = (uint8_t *)out->data;
    for (i = 0; i < out->numel; i++) {
        y[i] = (uint8_t)!mote_u_nonzero(in, i);
    }
    return MOTE_OK;
}
