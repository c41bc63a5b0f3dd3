/*
 * aten::upsample_bilinear2d.vec_out - bilinear resize of [N, C, H, W]
 * (nn.Upsample(mode="bilinear", align_corners=...), F.interpolate).
 *
 *   args (5): input [N, C, H, W], output_size int[2] or None, align_corners
 *             bool, scale_factors float[2] or None (exactly one of size/scales;
 *             with scales OH = floor(H * sh) and, without align_corners, the
 *             source coordinate uses 1/sh as in ATen), out [N, C, OH, OW].
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, both or neither size/scales),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (rank, out shape).
 *   out must not overlap input.
 */
#include "upsample.h"

MOTE_KERNEL("aten::upsample_bilinear2d.vec_out")

MOTE_K_DECLARE(mote_kernel_aten_upsample_bilinear2d_vec_out);

mote_err_t mote_kernel_aten_upsample_bilinear2d_vec_out(mote_kernel_ctx_t *ctx,
                                                        mote_value_t *const *args, uint32_t nargs)
{
    mote_k_up2d_t g;
    int ac;
    float sy, sx;
    size_t p, y, x;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 5));
    MOTE_TRY(mote_k_bool(args[2], &ac));
    MOTE_TRY(mote_k_up2d_vec(&g, args[0], args[1], args[3], args[4]));
    MOTE_CHECK(g.in->dtype == MOTE_DTYPE_FLOAT32 && g.out->dtype == MOTE_DTYPE_FLOAT32,
               MOTE_ERR_KERNEL_DTYPE);
    sy = mote_k_up_area_scale(ac, g.has_sh, g.sh, g.h, g.oh);
    sx = mote_k_up_area_scale(ac, g.has_sw, g.sw, g.w, g.ow);
    for (p = 0; p < g.nc; p++) {
        const float *src = (const float *)g.in->data + p * g.h * g.w;
        float *dst = (float *)g.out->data + p * g.oh * g.ow;
        for (y = 0; y < g.oh; y++) {
            size_t y0, y1;
            float a0, a1;
            mote_k_up_linear(sy, ac, y, g.h, &y0, &y1, &a0, &a1);
            for (x = 0; x < g.ow; x++) {
                size_t x0, x1;
                float b0, b1;
                mote_k_up_linear(sx, ac, x, g.w, &x0, &x1, &b0, &b1);
                dst[y * g.ow + x] = a0 * (b0 * src[y0 * g.w + x0] + b1 * src[y0 * g.w + x1]) +
                                    a1 * (b0 * src[y1 * g.w + x0] + b1 * src[y1 * g.w + x1]);
            }
        }
    }
    return MOTE_OK;
}
