/*
 * aten::copy.out - out = src converted to self's dtype and broadcast to
 * self's shape (the functional form of self.copy_(src), e.g. x[...] = y).
 *
 *   args (4): self (gives shape and dtype), src (numpy-broadcastable to
 *             self), non_blocking bool (ignored), out (self's shape and dtype).
 *   dtypes: uint8, int8, int16, int32, int64, float32, float64, bool, any
 *           src -> self conversion (as aten::_to_copy.out).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (out shape, src not broadcastable).
 *   out may alias self (self's values are not read).
 */
#include "shape.h"

MOTE_KERNEL("aten::copy.out")

MOTE_K_DECLARE(mote_kernel_aten_copy_out);

mote_err_t mote_kernel_aten_copy_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *self, *src, *out;
    int nb;
    (void)ctx;
    MOTE_TRY(mote_shape_io(args, nargs, 4, &self, &out));
    MOTE_TRY(mote_k_tensor(args[1], &src));
    MOTE_TRY(mote_k_bool(args[2], &nb));
    MOTE_CHECK(self->dtype == out->dtype && mote_shape_cast_dtype(out->dtype) && mote_shape_cast_dtype(src->dtype),
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(mote_k_same_shape(self, out), MOTE_ERR_KERNEL_SHAPE);
    return mote_shape_cast(src, out);
}
