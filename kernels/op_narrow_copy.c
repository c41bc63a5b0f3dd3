/*
 * aten::narrow_copy.out - out = self.narrow(dim, start, length): elements
 * start .. start+length-1 along dim.
 *
 *   args (5): self (rank >= 1), dim int, start int (negative counts from the
 *             end), length int (>= 0, start + length <= size(dim)), out.
 *   dtypes: any (out dtype == self dtype).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim/start/length),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE. out must not overlap self.
 */
#include "shape.h"

MOTE_KERNEL("aten::narrow_copy.out")

MOTE_K_DECLARE(mote_kernel_aten_narrow_copy_out);

mote_err_t mote_kernel_aten_narrow_copy_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                            uint32_t nargs)
{
    mote_tensor_t *in, *out;
    int64_t dim, start, length, size;
    uint32_t d, k;
    size_t sz[MOTE_MAX_DIM];
    ptrdiff_t st[MOTE_MAX_DIM];
    (void)ctx;
    MOTE_TRY(mote_shape_io(args, nargs, 5, &in, &out));
    MOTE_TRY(mote_k_int(args[1], &dim));
    MOTE_TRY(mote_k_int(args[2], &start));
    MOTE_TRY(mote_k_int(args[3], &length));
    MOTE_CHECK(in->dim > 0, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_k_dim(dim, in->dim, &d));
    size = in->sizes[d];
    if (start < 0 && start >= -size) {
        start += size;
    }
    MOTE_CHECK(start >= 0 && start <= size && length >= 0 && length <= size - start, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_shape_same_dtype(in, out));
    mote_k_strides(in, st);
    for (k = 0; k < in->dim; k++) {
        sz[k] = k == d ? (size_t)length : (size_t)in->sizes[k];
    }
    return mote_shape_gather(in, out, in->dim, sz, st, (ptrdiff_t)start * st[d]);
}
