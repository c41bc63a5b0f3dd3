/*
 * aten::pixel_unshuffle.out - [*, C, H*r, W*r] -> [*, C*r*r, H, W]:
 * out[.., c*r*r + i*r + j, h, w] = self[.., c, h*r+i, w*r+j].
 *
 *   args (3): self (rank >= 3, height and width divisible by r), downscale_factor r int (> 0), out.
 *   dtypes: any (out dtype == self dtype).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, r <= 0), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (rank, sizes, out shape). out must not overlap self.
 */
#include "shape.h"

MOTE_KERNEL("aten::pixel_unshuffle.out")

MOTE_K_DECLARE(mote_kernel_aten_pixel_unshuffle_out);

mote_err_t mote_kernel_aten_pixel_unshuffle_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                                uint32_t nargs)
{
    (void)ctx;
    return mote_shape_pixel_shuffle(args, nargs, 1);
}
