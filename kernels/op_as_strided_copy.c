/*
 * aten::as_strided_copy.out - out[i..] = storage[storage_offset + sum i_d * stride[d]]
 * over self's contiguous storage.
 *
 *   args (5): self, size int[] (rank <= MOTE_MAX_DIM, >= 0), stride int[]
 *             (same length, >= 0), storage_offset int? (None = 0, >= 0), out (shape size).
 *             Every element reached must lie inside self.
 *   dtypes: any (out dtype == self dtype).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, lengths differ, negative stride
 *           or offset, an element outside self), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE. out must not overlap self.
 */
#include "shape.h"

MOTE_KERNEL("aten::as_strided_copy.out")

MOTE_K_DECLARE(mote_kernel_aten_as_strided_copy_out);

mote_err_t mote_kernel_aten_as_strided_copy_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                                uint32_t nargs)
{
    mote_tensor_t *in, *out;
    const int64_t *size, *stride;
    uint32_t ns, nst, d;
    int64_t offset = 0;
    uint64_t last;
    int empty = 0;
    size_t sz[MOTE_MAX_DIM];
    ptrdiff_t st[MOTE_MAX_DIM];
    (void)ctx;
    MOTE_TRY(mote_shape_io(args, nargs, 5, &in, &out));
    MOTE_TRY(mote_k_ints(args[1], &size, &ns));
    MOTE_TRY(mote_k_ints(args[2], &stride, &nst));
    if (!mote_k_is_none(args[3])) {
        MOTE_TRY(mote_k_int(args[3], &offset));
    }
    MOTE_CHECK(ns == nst && ns <= MOTE_MAX_DIM && offset >= 0, MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(offset <= (int64_t)0xFFFFFFFF, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_k_check_numel(in));
    for (d = 0; d < ns; d++) {
        MOTE_CHECK(size[d] >= 0 && size[d] <= (int64_t)0xFFFFFFFF, MOTE_ERR_KERNEL_ARGS);
        MOTE_CHECK(stride[d] >= 0 && stride[d] <= (int64_t)0xFFFFFFFF, MOTE_ERR_KERNEL_ARGS);
        empty |= size[d] == 0;
        sz[d] = (size_t)size[d];
        st[d] = size[d] == 1 ? 0 : (ptrdiff_t)stride[d]; /* an unused stride may not fit ptrdiff_t */
    }
    /* the last element reached stays inside self; each term < 2^64 - 2^33 and the
       sum is checked after every term, so it cannot wrap */
    last = (uint64_t)offset;
    for (d = 0; d < ns && !empty; d++) {
        MOTE_CHECK(last < (uint64_t)in->numel, MOTE_ERR_KERNEL_ARGS);
        last += (uint64_t)(size[d] - 1) * (uint64_t)stride[d];
    }
    MOTE_CHECK(empty || last < (uint64_t)in->numel, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_shape_same_dtype(in, out));
    return mote_shape_gather(in, out, ns, sz, st, empty ? 0 : (ptrdiff_t)offset);
}
