/*
 * aten::index_put_ - in place self[indices] = values (or += with accumulate),
 * as ExecuTorch's re-inplacing emits it; torch.export produces the
 * functional index_put (index_put.out) instead.
 *
 *   args (5): self, indices Tensor?[] (as index.Tensor_out), values
 *             (broadcastable to self[indices]'s shape), accumulate bool, and the
 *             returned alias of self that ExecuTorch's KernelCall appends (the
 *             same tensor: the argument the runtime proves writable).
 *   dtypes: self any (accumulate: float32/float64/integers, wrapping), values == self;
 *           indices int32/int64/bool/uint8.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, return not self's storage, index
 *           out of range), MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE.
 */
#include "index.h"

MOTE_KERNEL("aten::index_put_.default")

MOTE_K_DECLARE(mote_kernel_aten_index_put__default);

mote_err_t mote_kernel_aten_index_put__default(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                               uint32_t nargs)
{
    mote_tensor_t *self, *ret;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 5));
    MOTE_TRY(mote_k_tensor(args[0], &self));
    MOTE_TRY(mote_k_tensor(args[4], &ret));
    MOTE_CHECK(ret->data == self->data && ret->dtype == self->dtype && mote_k_same_shape(ret, self),
               MOTE_ERR_KERNEL_ARGS);
    return mote_k_index_put(args, 4);
}
