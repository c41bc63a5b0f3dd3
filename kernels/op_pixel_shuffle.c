/*
 * aten::pixel_shuffle.out - [*, C*r*r, H, W] -> [*, C, H*r, W*r]:
 * out[.., c, h*r+i, w*r+j] = self[.., c*r*r + i*r + j, h, w].
 *
 *   args (3): self (rank >= 3, channels divisible by r*r), upscale_factor r int (> 0), out.
 *   dtypes: any (out dtype == self dtype).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, r <= 0), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (rank, channels, out shape). out must not overlap self.
 */
#include "shape.h"

MOTE_KERNEL("aten::pixel_shuffle.out")

MOTE_K_DECLARE(mote_kernel_aten_pixel_shuffle_out);

mote_err_t mote_kernel_aten_pixel_shuffle_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                              uint32_t nargs)
{
    mote_tensor_t *in, *out;
    int64_t r;
    uint32_t d, k;
    size_t want[MOTE_MAX_DIM], sz[6], b, c, h, w, rr;
    ptrdiff_t st[6];
    (void)ctx;
    MOTE_TRY(mote_shape_io(args, nargs, 3, &in, &out));
    MOTE_TRY(mote_k_int(args[1], &r));
    MOTE_CHECK(r > 0 && r <= 0xFFFF, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_shape_same_dtype(in, out));
    MOTE_CHECK(in->dim >= 3, MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(in));
    k = in->dim;
    rr = (size_t)r * (size_t)r;
    MOTE_CHECK((size_t)in->sizes[k - 3] % rr == 0, MOTE_ERR_KERNEL_SHAPE);
    b = mote_k_prod(in, 0, k - 3);
    c = (size_t)in->sizes[k - 3] / rr;
    h = (size_t)in->sizes[k - 2];
    w = (size_t)in->sizes[k - 1];
    for (d = 0; d < k - 3; d++) {
        want[d] = (size_t)in->sizes[d];
    }
    want[k - 3] = c;
    want[k - 2] = h * (size_t)r;
    want[k - 1] = w * (size_t)r;
    MOTE_TRY(mote_shape_check_out(out, k, want));
    if (out->numel == 0) {
        return MOTE_OK;
    }
    /* out as [B, C, H, r, W, r] */
    sz[0] = b; st[0] = (ptrdiff_t)(c * rr * h * w);
    sz[1] = c; st[1] = (ptrdiff_t)(rr * h * w);
    sz[2] = h; st[2] = (ptrdiff_t)w;
    sz[3] = (size_t)r; st[3] = (ptrdiff_t)((size_t)r * h * w);
    sz[4] = w; st[4] = 1;
    sz[5] = (size_t)r; st[5] = (ptrdiff_t)(h * w);
    mote_k_strided_copy(out->data, in->data, mote_dtype_size(in->dtype), 6, sz, st);
    return MOTE_OK;
}
