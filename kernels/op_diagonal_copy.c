/*
 * aten::diagonal_copy.out - out = torch.diagonal(self, offset, dim1, dim2):
 * the other dims in order, then the diagonal (offset > 0 above the main
 * diagonal, < 0 below) as the last dim.
 *
 *   args (5): self (rank >= 2), offset int, dim1 int, dim2 int (distinct,
 *             negative counts from the end), out.
 *   dtypes: any (out dtype == self dtype).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad or equal dims),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE. out must not overlap self.
 */
#include "shape.h"

MOTE_KERNEL("aten::diagonal_copy.out")

MOTE_K_DECLARE(mote_kernel_aten_diagonal_copy_out);

mote_err_t mote_kernel_aten_diagonal_copy_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                              uint32_t nargs)
{
    mote_tensor_t *in, *out;
    int64_t offset, dim1, dim2, len, s1, s2;
    uint32_t d1, d2, k, r = 0;
    size_t sz[MOTE_MAX_DIM];
    ptrdiff_t ist[MOTE_MAX_DIM], st[MOTE_MAX_DIM], start = 0;
    (void)ctx;
    MOTE_TRY(mote_shape_io(args, nargs, 5, &in, &out));
    MOTE_TRY(mote_k_int(args[1], &offset));
    MOTE_TRY(mote_k_int(args[2], &dim1));
    MOTE_TRY(mote_k_int(args[3], &dim2));
    MOTE_CHECK(in->dim >= 2, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_k_dim(dim1, in->dim, &d1));
    MOTE_TRY(mote_k_dim(dim2, in->dim, &d2));
    MOTE_CHECK(d1 != d2, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_shape_same_dtype(in, out));
    mote_k_strides(in, ist);
    s1 = in->sizes[d1];
    s2 = in->sizes[d2];
    if (offset >= 0) {
        len = s2 - offset < s1 ? s2 - offset : s1;
    } else {
        len = s1 + offset < s2 ? s1 + offset : s2;
    }
    len = len > 0 ? len : 0;
    if (len > 0) {
        start = offset >= 0 ? (ptrdiff_t)offset * ist[d2] : (ptrdiff_t)(-offset) * ist[d1];
    }
    for (k = 0; k < in->dim; k++) {
        if (k != d1 && k != d2) {
            sz[r] = (size_t)in->sizes[k];
            st[r++] = ist[k];
        }
    }
    sz[r] = (size_t)len;
    st[r++] = ist[d1] + ist[d2];
    return mote_shape_gather(in, out, r, sz, st, start);
}
