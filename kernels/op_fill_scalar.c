/*
 * aten::fill.Scalar_out - out = value everywhere, out shaped like self
 * (the functional form of self.fill_(value)).
 *
 *   args (3): self (gives shape and dtype; values not read), value Scalar, out.
 *   dtypes: float32/float64/int8/uint8/int16/int32/int64/bool (out dtype ==
 *           self dtype); a float value into an integer out truncates, into bool is != 0.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE. out may alias self.
 */
#include "shape.h"

MOTE_KERNEL("aten::fill.Scalar_out")
MOTE_KERNEL_IN_PLACE("aten::fill.Scalar_out")

MOTE_K_DECLARE(mote_kernel_aten_fill_Scalar_out);

mote_err_t mote_kernel_aten_fill_Scalar_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *self, *out;
    double v;
    (void)ctx;
    MOTE_TRY(mote_shape_io(args, nargs, 3, &self, &out));
    MOTE_TRY(mote_k_scalar(args[1], &v));
    MOTE_CHECK(self->dtype == out->dtype && mote_shape_cast_dtype(out->dtype), MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(mote_k_same_shape(self, out), MOTE_ERR_KERNEL_SHAPE);
    return mote_shape_fill(out, v);
}
