/*
 * dim_order_ops::_empty_dim_order.out - ExecuTorch's empty with a dim order
 * (torch.empty after its dim-order pass); this kernel zero-fills out.
 *
 *   args (3): size int[] (>= 0), dim_order int[]? (None or the identity
 *             permutation of len(size)), out with sizes == size.
 *   dtypes: any.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, a non-identity dim_order),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (out sizes differ from size).
 */
#include <string.h>

#include "shape.h"

MOTE_KERNEL("dim_order_ops::_empty_dim_order.out")

MOTE_K_DECLARE(mote_kernel_dim_order_ops__empty_dim_order_out);

mote_err_t mote_kernel_dim_order_ops__empty_dim_order_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                                          uint32_t nargs)
{
    mote_tensor_t *out;
    const int64_t *size;
    uint32_t ns, i;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 3));
    MOTE_TRY(mote_k_ints(args[0], &size, &ns));
    if (!mote_k_is_none(args[1])) {
        const int64_t *order;
        uint32_t no;
        MOTE_TRY(mote_k_ints(args[1], &order, &no));
        MOTE_CHECK(no == ns, MOTE_ERR_KERNEL_ARGS);
        for (i = 0; i < no; i++) {
            MOTE_CHECK(order[i] == (int64_t)i, MOTE_ERR_KERNEL_ARGS);
        }
    }
    MOTE_TRY(mote_k_tensor(args[2], &out));
    MOTE_CHECK(mote_dtype_size(out->dtype) != 0, MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_shape_size_matches(args[0], out));
    MOTE_TRY(mote_k_check_numel(out));
    if (out->numel > 0) {
        memset(out->data, 0, (size_t)out->numel * mote_dtype_size(out->dtype));
    }
    return MOTE_OK;
}
