/*
 * aten::copy_.default - in place: self = src converted to self's dtype and broadcast
 * to self's shape; returns self.
 *
 *   args (3 or 4): self, src (numpy-broadcastable to self), non_blocking bool
 *             (ignored), and in an ExecuTorch KernelCall the returned value,
 *             which must be self (it is the argument the runtime proves writable).
 *   dtypes: uint8, int8, int16, int32, int64, float32, float64, bool, any
 *           src -> self conversion (as aten::_to_copy.out).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, the return not self),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (src not broadcastable).
 *   src may be self exactly; other overlaps are not allowed.
 */
#include "shape.h"

MOTE_KERNEL("aten::copy_.default")

MOTE_K_DECLARE(mote_kernel_aten_copy__default);

mote_err_t mote_kernel_aten_copy__default(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *self, *src;
    int nb;
    (void)ctx;
    MOTE_CHECK(args != NULL && (nargs == 3u || nargs == 4u), MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_k_nargs(args, nargs, nargs));
    MOTE_TRY(mote_k_tensor(args[0], &self));
    MOTE_TRY(mote_k_tensor(args[1], &src));
    MOTE_TRY(mote_k_bool(args[2], &nb));
    if (nargs == 4u) {
        mote_tensor_t *ret;
        MOTE_TRY(mote_k_tensor(args[3], &ret));
        MOTE_CHECK(ret == self || (ret->data == self->data && mote_k_same_shape(ret, self) &&
                                   ret->dtype == self->dtype), MOTE_ERR_KERNEL_ARGS);
    }
    MOTE_CHECK(mote_shape_cast_dtype(self->dtype) && mote_shape_cast_dtype(src->dtype), MOTE_ERR_KERNEL_DTYPE);
    return mote_shape_cast(src, self);
}
