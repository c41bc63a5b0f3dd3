/*
 * aten::stack.out - stack tensors of one shape along a new dim.
 *
 *   args (3): tensors Tensor[] (>= 1, all the same shape S), dim int in
 *             [-(rank(S)+1), rank(S)], out (S with len(tensors) inserted at dim).
 *   dtypes: any, all equal to out's.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, empty list, NULL item, bad dim),
 *           MOTE_ERR_KERNEL_DTYPE (mixed dtypes), MOTE_ERR_KERNEL_SHAPE.
 *   out must not overlap the inputs.
 */
#include <string.h>

#include "shape.h"

MOTE_KERNEL("aten::stack.out")

MOTE_K_DECLARE(mote_kernel_aten_stack_out);

mote_err_t mote_kernel_aten_stack_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *out, *first;
    mote_tensor_t *const *ts;
    uint32_t nt, i, d, k;
    int64_t dim;
    size_t want[MOTE_MAX_DIM], outer, inner, o;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 3));
    MOTE_TRY(mote_shape_out_list(args[0], &ts, &nt));
    MOTE_TRY(mote_k_int(args[1], &dim));
    MOTE_TRY(mote_k_tensor(args[2], &out));
    first = ts[0];
    MOTE_CHECK(first->dim < MOTE_MAX_DIM, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_k_dim(dim, first->dim + 1u, &d));
    for (i = 0; i < nt; i++) {
        MOTE_TRY(mote_shape_same_dtype(ts[i], out));
    }
    for (i = 0; i < nt; i++) {
        MOTE_CHECK(mote_k_same_shape(ts[i], first), MOTE_ERR_KERNEL_SHAPE);
        MOTE_TRY(mote_k_check_numel(ts[i]));
    }
    for (k = 0, i = 0; k <= first->dim; k++) {
        want[k] = k == d ? (size_t)nt : (size_t)first->sizes[i++];
    }
    MOTE_TRY(mote_shape_check_out(out, first->dim + 1u, want));
    outer = mote_k_prod(first, 0, d);
    inner = mote_k_prod(first, d, first->dim) * mote_dtype_size(out->dtype);
    if (inner == 0) {
        return MOTE_OK;
    }
    for (o = 0; o < outer; o++) {
        for (i = 0; i < nt; i++) {
            memmove((uint8_t *)out->data + (o * nt + i) * inner, (const uint8_t *)ts[i]->data + o * inner, inner);
        }
    }
    return MOTE_OK;
}
