/*
 * aten::isnan.out - out = self is a NaN, elementwise, as bool.
 *
 *   args (2): self, out (same shape).
 *   dtypes: self float32 / float64 / float16, or an integer dtype / bool (never
 *           a NaN: all false); out bool.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (out not bool),
 *           MOTE_ERR_KERNEL_SHAPE (out shape differs).
 *   out may alias self exactly (each element is read before its byte is written).
 */
#include <string.h>

#include "unary.h"

MOTE_KERNEL("aten::isnan.out")

MOTE_K_DECLARE(mote_kernel_aten_isnan_out);

mote_err_t mote_kernel_aten_isnan_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                      uint32_t nargs)
{
    mote_tensor_t *in, *out;
    (void)ctx;
    MOTE_TRY(mote_u_check(args, nargs, 2, MOTE_U_ANY, MOTE_U_BIT(MOTE_DTYPE_BOOL), 0, &in, &out));
    switch (in->dtype) {
    case MOTE_DTYPE_FLOAT32:
        MOTE_U_MAP(float, uint8_t, in, out, v, (uint8_t)(v != v));
        break;
    case MOTE_DTYPE_FLOAT64:
        MOTE_U_MAP(double, uint8_t, in, out, v, (uint8_t)(v != v));
        break;
    case MOTE_DTYPE_FLOAT16:
        MOTE_U_MAP(uint16_t, uint8_t, in, out, h,
                   (uint8_t)((h & 0x7c00u) == 0x7c00u && (h & 0x03ffu) != 0));
        break;
    default:
        if (out->numel > 0) {
            memset(out->data, 0, out->numel);
        }
        break;
    }
    return MOTE_OK;
}
