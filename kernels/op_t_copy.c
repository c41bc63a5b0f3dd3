/*
 * aten::t_copy.out - out = self.t(): a 2-D self transposed; 0-D and 1-D copied.
 *
 *   args (2): self (rank <= 2), out (self's shape reversed).
 *   dtypes: any (out dtype == self dtype).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (rank > 2, out shape). out must not overlap self.
 */
#include "shape.h"

MOTE_KERNEL("aten::t_copy.out")

MOTE_K_DECLARE(mote_kernel_aten_t_copy_out);

mote_err_t mote_kernel_aten_t_copy_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *in, *out;
    size_t sz[2];
    ptrdiff_t st[2];
    (void)ctx;
    MOTE_TRY(mote_shape_io(args, nargs, 2, &in, &out));
    MOTE_TRY(mote_shape_same_dtype(in, out));
    MOTE_CHECK(in->dim <= 2, MOTE_ERR_KERNEL_SHAPE);
    if (in->dim == 2) {
        sz[0] = (size_t)in->sizes[1];
        sz[1] = (size_t)in->sizes[0];
        st[0] = 1;
        st[1] = (ptrdiff_t)in->sizes[1];
    } else {
        sz[0] = in->dim == 1 ? (size_t)in->sizes[0] : 1u;
        st[0] = 1;
    }
    return mote_shape_gather(in, out, in->dim, sz, st, 0);
}
