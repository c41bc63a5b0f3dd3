/*
 * aten::squeeze_copy.dim_out - out = self.squeeze(dim): dim removed when its
 * size is 1, else self copied unchanged.
 *
 *   args (3): self, dim int (negative counts from the end; 0-dim self accepts 0/-1), out.
 *   dtypes: any (out dtype == self dtype).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (out shape).
 *   out may alias self exactly.
 */
#include "shape.h"

MOTE_KERNEL("aten::squeeze_copy.dim_out")
MOTE_KERNEL_IN_PLACE("aten::squeeze_copy.dim_out")

MOTE_K_DECLARE(mote_kernel_aten_squeeze_copy_dim_out);

mote_err_t mote_kernel_aten_squeeze_copy_dim_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                                 uint32_t nargs)
{
    mote_tensor_t *in, *out;
    int64_t dim;
    uint32_t d, k, r = 0;
    size_t sz[MOTE_MAX_DIM];
    (void)ctx;
    MOTE_TRY(mote_shape_io(args, nargs, 3, &in, &out));
    MOTE_TRY(mote_k_int(args[1], &dim));
    MOTE_TRY(mote_k_dim(dim, in->dim, &d));
    MOTE_TRY(mote_shape_same_dtype(in, out));
    for (k = 0; k < in->dim; k++) {
        if (k != d || in->sizes[k] != 1) {
            sz[r++] = (size_t)in->sizes[k];
        }
    }
    MOTE_TRY(mote_shape_check_out(out, r, sz));
    MOTE_TRY(mote_k_check_numel(in));
    mote_k_copy_data(in, out);
    return MOTE_OK;
}
