/*
 * dim_order_ops::_clone_dim_order.out - out = copy of self (ExecuTorch's
 * dim-order aware clone; only the contiguous dim order is supported).
 *
 *   args (4): self, non_blocking bool, dim_order int[]? (None or the identity), out.
 *   dtypes: any (out dtype == self dtype).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, non-identity dim_order),
 *           MOTE_ERR_KERNEL_DTYPE (dtypes differ), MOTE_ERR_KERNEL_SHAPE (shapes differ).
 */
#include <string.h>

#include "kutil.h"

MOTE_KERNEL("dim_order_ops::_clone_dim_order.out")

MOTE_K_DECLARE(mote_kernel_dim_order_ops__clone_dim_order_out);

mote_err_t mote_kernel_dim_order_ops__clone_dim_order_out(mote_kernel_ctx_t *ctx,
                                                          mote_value_t *const *args,
                                                          uint32_t nargs)
{
    mote_tensor_t *in, *out;
    int nb;
    (void)ctx;
    MOTE_K_TRY(mote_k_nargs(args, nargs, 4));
    MOTE_K_TRY(mote_k_tensor(args[0], &in));
    MOTE_K_TRY(mote_k_bool(args[1], &nb));
    MOTE_K_TRY(mote_k_tensor(args[3], &out));
    if (!mote_k_is_none(args[2])) {
        const int64_t *order;
        uint32_t len, d;
        MOTE_K_TRY(mote_k_ints(args[2], &order, &len));
        MOTE_K_CHECK(len == out->dim, MOTE_ERR_KERNEL_ARGS);
        for (d = 0; d < len; d++) {
            MOTE_K_CHECK(order[d] == (int64_t)d, MOTE_ERR_KERNEL_ARGS);
        }
    }
    MOTE_K_CHECK(in->dtype == out->dtype && mote_dtype_size(in->dtype) != 0, MOTE_ERR_KERNEL_DTYPE);
    MOTE_K_CHECK(mote_k_same_shape(in, out), MOTE_ERR_KERNEL_SHAPE);
    MOTE_K_TRY(mote_k_check_numel(out));
    if (out->data != in->data && out->numel > 0) {
        memmove(out->data, in->data, (size_t)out->numel * mote_dtype_size(out->dtype));
    }
    return MOTE_OK;
}
