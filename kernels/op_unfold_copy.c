/*
 * aten::unfold_copy.out - out = self.unfold(dimension, size, step): windows of
 * `size` elements every `step` along dimension, the window as a new last dim.
 *
 *   args (5): self, dimension int (negative counts from the end; 0-dim self
 *             accepts 0/-1), size int (0..size(dimension), <= 1 for 0-dim),
 *             step int (> 0), out (self's shape with size(dimension) =
 *             (size(dimension) - size) / step + 1, then [size]).
 *   dtypes: any (out dtype == self dtype).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dimension/size/step),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE. out must not overlap self.
 */
#include "shape.h"

MOTE_KERNEL("aten::unfold_copy.out")

MOTE_K_DECLARE(mote_kernel_aten_unfold_copy_out);

mote_err_t mote_kernel_aten_unfold_copy_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                            uint32_t nargs)
{
    mote_tensor_t *in, *out;
    int64_t dim, size, step, len;
    uint32_t d, k;
    size_t sz[MOTE_MAX_DIM];
    ptrdiff_t st[MOTE_MAX_DIM];
    (void)ctx;
    MOTE_TRY(mote_shape_io(args, nargs, 5, &in, &out));
    MOTE_TRY(mote_k_int(args[1], &dim));
    MOTE_TRY(mote_k_int(args[2], &size));
    MOTE_TRY(mote_k_int(args[3], &step));
    MOTE_TRY(mote_k_dim(dim, in->dim, &d));
    MOTE_CHECK(in->dim < MOTE_MAX_DIM, MOTE_ERR_KERNEL_ARGS);
    len = in->dim == 0 ? 1 : in->sizes[d];
    MOTE_CHECK(size >= 0 && size <= len && step > 0, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_shape_same_dtype(in, out));
    mote_k_strides(in, st);
    for (k = 0; k < in->dim; k++) {
        sz[k] = (size_t)in->sizes[k];
    }
    if (in->dim == 0) {
        sz[0] = (size_t)size;
        st[0] = 1;
        return mote_shape_gather(in, out, 1, sz, st, 0);
    }
    sz[in->dim] = (size_t)size;
    st[in->dim] = st[d];
    sz[d] = (size_t)((len - size) / step + 1);
    st[d] *= (ptrdiff_t)step;
    return mote_shape_gather(in, out, in->dim + 1u, sz, st, 0);
}
