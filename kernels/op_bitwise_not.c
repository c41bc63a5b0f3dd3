/*
 * aten::bitwise_not.out - out = ~self (integers), !self (bool), elementwise.
 *
 *   args (2): self, out (same shape).
 *   dtypes: uint8 / int8 / int16 / int32 / int64 and bool (logical not: mask
 *           inversion `~mask`); out of self's dtype.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (float dtypes,
 *           out dtype differs), MOTE_ERR_KERNEL_SHAPE (out shape differs).
 *   out may alias self exactly (in place).
 */
#include "unary.h"

MOTE_KERNEL("aten::bitwise_not.out")
MOTE_KERNEL_IN_PLACE("aten::bitwise_not.out")

MOTE_K_DECLARE(mote_kernel_aten_bitwise_not_out);

mote_err_t mote_kernel_aten_bitwise_not_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                            uint32_t nargs)
{
    const unsigned long dts = MOTE_U_INTS | MOTE_U_BIT(MOTE_DTYPE_BOOL);
    mote_tensor_t *in, *out;
    (void)ctx;
    MOTE_TRY(mote_u_check(args, nargs, 2, dts, dts, 1, &in, &out));
    switch (in->dtype) {
    case MOTE_DTYPE_BOOL: MOTE_U_MAP(uint8_t, uint8_t, in, out, v, (uint8_t)(v == 0)); break;
    case MOTE_DTYPE_UINT8:
    case MOTE_DTYPE_INT8: MOTE_U_MAP(uint8_t, uint8_t, in, out, v, (uint8_t)~v); break;
    case MOTE_DTYPE_INT16: MOTE_U_MAP(uint16_t, uint16_t, in, out, v, (uint16_t)~v); break;
    case MOTE_DTYPE_INT32: MOTE_U_MAP(uint32_t, uint32_t, in, out, v, ~v); break;
    default: MOTE_U_MAP(uint64_t, uint64_t, in, out, v, ~v); break;
    }
    return MOTE_OK;
}
