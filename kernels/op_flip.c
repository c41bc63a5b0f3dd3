/*
 * aten::flip.out - out = torch.flip(self, dims): reversed along each dim in dims.
 *
 *   args (3): self, dims int[] (negative counts from the end, no repeats;
 *             0-dim self accepts 0/-1), out (self's shape).
 *   dtypes: any (out dtype == self dtype).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad or repeated dim),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE. out must not overlap self.
 */
#include "shape.h"

MOTE_KERNEL("aten::flip.out")

MOTE_K_DECLARE(mote_kernel_aten_flip_out);

mote_err_t mote_kernel_aten_flip_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *in, *out;
    const int64_t *dims;
    uint32_t nd, i, d, k;
    uint8_t seen[MOTE_MAX_DIM] = {0};
    size_t sz[MOTE_MAX_DIM];
    ptrdiff_t st[MOTE_MAX_DIM], start = 0;
    (void)ctx;
    MOTE_TRY(mote_shape_io(args, nargs, 3, &in, &out));
    MOTE_TRY(mote_k_ints(args[1], &dims, &nd));
    for (i = 0; i < nd; i++) {
        MOTE_TRY(mote_k_dim(dims[i], in->dim, &d));
        if (in->dim > 0) {
            MOTE_CHECK(!seen[d], MOTE_ERR_KERNEL_ARGS);
            seen[d] = 1;
        }
    }
    MOTE_TRY(mote_shape_same_dtype(in, out));
    mote_k_strides(in, st);
    for (k = 0; k < in->dim; k++) {
        sz[k] = (size_t)in->sizes[k];
        if (seen[k] && sz[k] > 0) {
            start += (ptrdiff_t)(sz[k] - 1u) * st[k];
            st[k] = -st[k];
        }
    }
    return mote_shape_gather(in, out, in->dim, sz, st, start);
}
