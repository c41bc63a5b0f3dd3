/*
 * aten::fill.Tensor_out - out = value (a 0-dim tensor) everywhere, out shaped
 * like self (self.fill_(t) with a tensor value).
 *
 *   args (3): self (gives shape and dtype; values not read), value (0-dim), out.
 *   dtypes: uint8, int8, int16, int32, int64, float32, float64, bool; value of
 *           any of them, converted to out's dtype as aten::_to_copy.out does.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (value not 0-dim, out shape). out may alias self.
 */
#include "shape.h"

MOTE_KERNEL("aten::fill.Tensor_out")
MOTE_KERNEL_IN_PLACE("aten::fill.Tensor_out")

MOTE_K_DECLARE(mote_kernel_aten_fill_Tensor_out);

mote_err_t mote_kernel_aten_fill_Tensor_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *self, *value, *out;
    (void)ctx;
    MOTE_TRY(mote_shape_io(args, nargs, 3, &self, &out));
    MOTE_TRY(mote_k_tensor(args[1], &value));
    MOTE_CHECK(self->dtype == out->dtype && mote_shape_cast_dtype(out->dtype) && mote_shape_cast_dtype(value->dtype),
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(value->dim == 0 && mote_k_same_shape(self, out), MOTE_ERR_KERNEL_SHAPE);
    return mote_shape_cast(value, out);
}
