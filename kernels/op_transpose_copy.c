/*
 * aten::transpose_copy.int_out - out = self.transpose(dim0, dim1), contiguous.
 *
 *   args (4): self, dim0 int, dim1 int (negative counts from the end; a 0-dim
 *             self accepts 0/-1), out (self's shape with dim0 and dim1 swapped).
 *   dtypes: any (out dtype == self dtype).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE. out must not overlap self.
 */
#include "shape.h"

MOTE_KERNEL("aten::transpose_copy.int_out")

MOTE_K_DECLARE(mote_kernel_aten_transpose_copy_int_out);

mote_err_t mote_kernel_aten_transpose_copy_int_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                                   uint32_t nargs)
{
    mote_tensor_t *in, *out;
    int64_t dim0, dim1;
    uint32_t d0, d1, d;
    size_t sz[MOTE_MAX_DIM];
    ptrdiff_t st[MOTE_MAX_DIM];
    (void)ctx;
    MOTE_TRY(mote_shape_io(args, nargs, 4, &in, &out));
    MOTE_TRY(mote_k_int(args[1], &dim0));
    MOTE_TRY(mote_k_int(args[2], &dim1));
    MOTE_TRY(mote_k_dim(dim0, in->dim, &d0));
    MOTE_TRY(mote_k_dim(dim1, in->dim, &d1));
    MOTE_TRY(mote_shape_same_dtype(in, out));
    mote_k_strides(in, st);
    for (d = 0; d < in->dim; d++) {
        sz[d] = (size_t)in->sizes[d];
    }
    if (in->dim > 0) {
        const size_t s = sz[d0];
        const ptrdiff_t t = st[d0];
        sz[d0] = sz[d1];
        st[d0] = st[d1];
        sz[d1] = s;
        st[d1] = t;
    }
    return mote_shape_gather(in, out, in->dim, sz, st, 0);
}
