/*
 * dim_order_ops::_clone_dim_order.out - out = copy of self (ExecuTorch's
 * dim-order aware clone; only the contiguous dim order is supported).
 *
 *   args (4): self, non_blocking bool, dim_order int[]? (None or the identity), out.
 *   dtypes: any (out dtype == self dtype).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, non-identity dim_order),
 *           MOTE_ERR_KERNEL_DTYPE (dtypes differ), MOTE_ERR_KERNEL_SHAPE (shapes differ).
 */
#include "kutil.h"

MOTE_KERNEL("dim_order_ops::_clone_dim_order.out")

MOTE_K_DECLARE(mote_kernel_dim_order_ops__clone_dim_order_out);

mote_err_t mote_kernel_dim_order_ops__clone_dim_order_out(mote_kernel_ctx_t *ctx,
                                                          mote_value_t *const *args,
                                                          uint32_t nargs)
{
    mote_tensor_t *in, *out;
    (void)ctx;
    MOTE_TRY(mote_k_dim_order_args(args, nargs, &in, &out));
    MOTE_CHECK(in->dtype == out->dtype && mote_dtype_size(in->dtype) != 0, MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(mote_k_same_shape(in, out), MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(out));
    mote_k_copy_data(in, out);
    return MOTE_OK;
}
