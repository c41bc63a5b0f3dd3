/*
 * aten::grid_sampler_2d.out - out[n, c, y, x] = input[n, c] sampled at
 * grid[n, y, x] = (gx, gy) in [-1, 1] (F.grid_sample on 4-D input).
 *
 *   args (6): input [N, C, H, W], grid [N, OH, OW, 2], interpolation_mode int
 *             (0 bilinear, 1 nearest; 2 bicubic is not implemented),
 *             padding_mode int (0 zeros, 1 border, 2 reflection), align_corners
 *             bool, out [N, C, OH, OW].
 *   semantics: ATen's unnormalize / clip / reflect formulas in float; nearest
 *             rounds half to even; a NaN or huge coordinate samples zero.
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, modes), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (ranks, grid's last dim, batch, out shape).
 *   out must not overlap input or grid.
 */
#include <math.h>

#include "kutil.h"

MOTE_KERNEL("aten::grid_sampler_2d.out")

MOTE_K_DECLARE(mote_kernel_aten_grid_sampler_2d_out);

static float mote_gs_clip(float v, float size)
{
    v = v > 0.0f ? v : 0.0f;
    return v < size - 1.0f ? v : size - 1.0f;
}

static float mote_gs_reflect(float v, float twice_lo, float twice_hi)
{
    float lo, span, extra, flips;
    if (twice_lo == twice_hi) {
        return 0.0f;
    }
    lo = twice_lo / 2.0f;
    span = (twice_hi - twice_lo) / 2.0f;
    v = fabsf(v - lo);
    extra = fmodf(v, span);
    flips = floorf(v / span);
    return fmodf(flips, 2.0f) == 0.0f ? extra + lo : span - extra + lo;
}

/* source coordinate of normalized grid coordinate g along a dim of `size` */
static float mote_gs_source(float g, size_t size, int padding, int ac)
{
    const float s = (float)size;
    float v = ac ? (g + 1.0f) / 2.0f * (s - 1.0f) : ((g + 1.0f) * s - 1.0f) / 2.0f;
    if (v != v) {
        return v;
    }
    if (padding == 1) {
        v = mote_gs_clip(v, s);
    } else if (padding == 2) {
        v = ac ? mote_gs_reflect(v, 0.0f, 2.0f * (s - 1.0f)) : mote_gs_reflect(v, -1.0f, 2.0f * s - 1.0f);
        v = mote_gs_clip(v, s);
    }
    return v;
}

/* a coordinate usable as an integer (finite, far from overflow) */
static int mote_gs_ok(float v)
{
    return v > -1.0e9f && v < 1.0e9f;
}

/* input value at (y, x), 0 outside */
static float mote_gs_at(const float *src, long y, long x, size_t h, size_t w)
{
    if (y < 0 || x < 0 || (size_t)y >= h || (size_t)x >= w) {
        return 0.0f;
    }
    return src[(size_t)y * w + (size_t)x];
}

mote_err_t mote_kernel_aten_grid_sampler_2d_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                                uint32_t nargs)
{
    mote_tensor_t *in, *grid, *out;
    int64_t mode, padding;
    int ac;
    size_t n, c, h, w, oh, ow, b, ch, p;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 6));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_tensor(args[1], &grid));
    MOTE_TRY(mote_k_int(args[2], &mode));
    MOTE_TRY(mote_k_int(args[3], &padding));
    MOTE_TRY(mote_k_bool(args[4], &ac));
    MOTE_TRY(mote_k_tensor(args[5], &out));
    MOTE_CHECK((mode == 0 || mode == 1) && padding >= 0 && padding <= 2, MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(in->dtype == MOTE_DTYPE_FLOAT32 && grid->dtype == MOTE_DTYPE_FLOAT32 &&
                   out->dtype == MOTE_DTYPE_FLOAT32,
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(in->dim == 4 && grid->dim == 4 && out->dim == 4 && grid->sizes[3] == 2 &&
                   grid->sizes[0] == in->sizes[0],
               MOTE_ERR_KERNEL_SHAPE);
    n = (size_t)in->sizes[0];
    c = (size_t)in->sizes[1];
    h = (size_t)in->sizes[2];
    w = (size_t)in->sizes[3];
    oh = (size_t)grid->sizes[1];
    ow = (size_t)grid->sizes[2];
    MOTE_CHECK((size_t)out->sizes[0] == n && (size_t)out->sizes[1] == c &&
                   (size_t)out->sizes[2] == oh && (size_t)out->sizes[3] == ow,
               MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(grid));
    MOTE_TRY(mote_k_check_numel(out));
    for (b = 0; b < n; b++) {
        const float *g = (const float *)grid->data + b * oh * ow * 2;
        for (p = 0; p < oh * ow; p++) {
            float ix = mote_gs_source(g[2 * p], w, (int)padding, ac);
            float iy = mote_gs_source(g[2 * p + 1], h, (int)padding, ac);
            int ok = mote_gs_ok(ix) && mote_gs_ok(iy);
            for (ch = 0; ch < c; ch++) {
                const float *src = (const float *)in->data + (b * c + ch) * h * w;
                float v = 0.0f;
                if (ok && mode == 1) {
                    v = mote_gs_at(src, (long)nearbyintf(iy), (long)nearbyintf(ix), h, w);
                } else if (ok) {
                    float fx = floorf(ix), fy = floorf(iy);
                    long x0 = (long)fx, y0 = (long)fy;
                    float tx = ix - fx, ty = iy - fy;
                    v = mote_gs_at(src, y0, x0, h, w) * (1.0f - tx) * (1.0f - ty) +
                        mote_gs_at(src, y0, x0 + 1, h, w) * tx * (1.0f - ty) +
                        mote_gs_at(src, y0 + 1, x0, h, w) * (1.0f - tx) * ty +
                        mote_gs_at(src, y0 + 1, x0 + 1, h, w) * tx * ty;
                }
                ((float *)out->data)[((b * c + ch) * oh * ow) + p] = v;
            }
        }
    }
    return MOTE_OK;
}
