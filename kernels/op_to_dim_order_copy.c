/*
 * dim_order_ops::_to_dim_order_copy.out(self, *, bool non_blocking, int[]? dim_order, out)
 * - ExecuTorch's form of Tensor.to(dtype): an element-wise dtype conversion
 * into a contiguous out tensor (ExecuTorch emits it for .to()/.float()/.int()).
 *
 *   args (4): self, non_blocking bool (ignored), dim_order None or the identity
 *             permutation of out's rank, out (self's shape, any supported dtype).
 *   dtypes: uint8, int8, int16, int32, int64, float32, float64, bool, each way.
 *   conversions: mote_shape_cast's (kernels/shape.h), as aten::_to_copy.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, a non-identity dim_order),
 *           MOTE_ERR_KERNEL_DTYPE (float16 or another dtype), MOTE_ERR_KERNEL_SHAPE.
 */
#include "shape.h"

MOTE_KERNEL("dim_order_ops::_to_dim_order_copy.out")

MOTE_K_DECLARE(mote_kernel_dim_order_ops__to_dim_order_copy_out);

mote_err_t mote_kernel_dim_order_ops__to_dim_order_copy_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                                            uint32_t nargs)
{
    mote_tensor_t *in, *out;
    (void)ctx;
    MOTE_TRY(mote_k_dim_order_args(args, nargs, &in, &out));
    MOTE_CHECK(mote_shape_cast_dtype(in->dtype) && mote_shape_cast_dtype(out->dtype), MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(mote_k_same_shape(in, out), MOTE_ERR_KERNEL_SHAPE);
    return mote_shape_cast(in, out);
}
