/*
 * aten::upsample_nearest2d.vec_out - nearest-neighbour resize of [N, C, H, W]
 * (nn.Upsample(mode="nearest"), F.interpolate(size=... / scale_factor=...)).
 *
 *   args (4): input [N, C, H, W], output_size int[2] or None, scale_factors
 *             float[2] or None (exactly one given; with scales OH = floor(H * sh),
 *             and the source index is floor(i / sh) as in ATen), out [N, C, OH, OW].
 *   dtypes: any (a copy), out == input.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, both or neither size/scales),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (rank, out shape,
 *           empty input with non-empty out).
 *   out must not overlap input.
 */
#include <string.h>

#include "upsample.h"

MOTE_KERNEL("aten::upsample_nearest2d.vec_out")

MOTE_K_DECLARE(mote_kernel_aten_upsample_nearest2d_vec_out);

mote_err_t mote_kernel_aten_upsample_nearest2d_vec_out(mote_kernel_ctx_t *ctx,
                                                       mote_value_t *const *args, uint32_t nargs)
{
    mote_k_up2d_t g;
    size_t esz, p, y, x;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 4));
    MOTE_TRY(mote_k_up2d_vec(&g, args[0], args[1], args[2], args[3]));
    esz = mote_dtype_size(g.in->dtype);
    MOTE_CHECK(esz != 0 && g.out->dtype == g.in->dtype, MOTE_ERR_KERNEL_DTYPE);
    for (p = 0; p < g.nc; p++) {
        const uint8_t *src = (const uint8_t *)g.in->data + p * g.h * g.w * esz;
        uint8_t *dst = (uint8_t *)g.out->data + p * g.oh * g.ow * esz;
        for (y = 0; y < g.oh; y++) {
            size_t sy = mote_k_up_nearest(y, g.has_sh, g.sh, g.h, g.oh);
            for (x = 0; x < g.ow; x++) {
                size_t sx = mote_k_up_nearest(x, g.has_sw, g.sw, g.w, g.ow);
                memmove(dst + (y * g.ow + x) * esz, src + (sy * g.w + sx) * esz, esz);
            }
        }
    }
    return MOTE_OK;
}
