/*
 * aten::isinf.out - out = self is +inf or -inf, elementwise, as bool.
 *
 *   args (2): self, out (same shape).
 *   dtypes: self float32 / float64 / float16, or an integer dtype / bool (never
 *           +inf or -inf: all false); out bool.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (out not bool),
 *           MOTE_ERR_KERNEL_SHAPE (out shape differs).
 *   out may alias self exactly (each element is read before its byte is written).
 */
#include <string.h>

#include "unary.h"

MOTE_KERNEL("aten::isinf.out")

MOTE_K_DECLARE(mote_kernel_aten_isinf_out);

mote_err_t mote_kernel_aten_isinf_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                      uint32_t nargs)
{
    mote_tensor_t *in, *out;
    (void)ctx;
    MOTE_TRY(mote_u_check(args, nargs, 2, MOTE_U_ANY, MOTE_U_BIT(MOTE_DTYPE_BOOL), 0, &in, &out));
    switch (in->dtype) {
    case MOTE_DTYPE_FLOAT32:
        MOTE_U_MAP(float, uint8_t, in, out, v, (uint8_t)(v == HUGE_VALF || v == -HUGE_VALF));
        break;
    case MOTE_DTYPE_FLOAT64:
        MOTE_U_MAP(double, uint8_t, in, out, v, (uint8_t)(v == HUGE_VAL || v == -HUGE_VAL));
        break;
    case MOTE_DTYPE_FLOAT16:
        MOTE_U_MAP(uint16_t, uint8_t, in, out, h, (uint8_t)((h & 0x7fffu) == 0x7c00u));
        break;
    default:
        if (out->numel > 0) {
            memset(out->data, 0, out->numel);
        }
        break;
    }
    return MOTE_OK;
}
