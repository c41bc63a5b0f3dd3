/*
 * aten::_upsample_bilinear2d_aa.out - antialiased bilinear resize of
 * [N, C, H, W] (F.interpolate(mode="bilinear", antialias=True)): when
 * downsampling by s the triangle filter widens to support s, each output a
 * normalized weighted sum over its window (ATen's separable AA formula:
 * horizontal weights, then vertical).
 *
 *   args (6): self [N, C, H, W], output_size int[2], align_corners bool,
 *             scales_h float or None, scales_w float or None (used for the
 *             scale as ATen does when align_corners is false), out [N, C, OH, OW].
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, output_size), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (rank, out shape, empty input).
 *   out must not overlap self.
 */
#include <math.h>

#include "upsample.h"

MOTE_KERNEL("aten::_upsample_bilinear2d_aa.out")

MOTE_K_DECLARE(mote_kernel_aten__upsample_bilinear2d_aa_out);

/* window [*lo, *lo + *n) and the filter parameters of output index i */
typedef struct {
    float scale, support, invscale;
} mote_aa_t;

static void mote_aa_init(mote_aa_t *a, float scale)
{
    a->scale = scale;
    a->support = scale >= 1.0f ? scale : 1.0f;
    a->invscale = scale >= 1.0f ? 1.0f / scale : 1.0f;
}

static float mote_aa_filter(float x)
{
    x = x < 0.0f ? -x : x;
    return x < 1.0f ? 1.0f - x : 0.0f;
}

/* floor of v clamped to [0, in] (NaN -> 0): no out-of-range float conversion */
static size_t mote_aa_index(float v, size_t in)
{
    if (!(v > 0.0f)) {
        return 0;
    }
    return v >= (float)in ? in : (size_t)v;
}

/* window of output i: first source index, count, center and 1/sum of weights */
static void mote_aa_window(const mote_aa_t *a, size_t i, size_t in, size_t *lo, size_t *n,
                           float *center, float *inv_total)
{
    float c = a->scale * ((float)i + 0.5f), total = 0.0f, fl = c - a->support + 0.5f,
          fh = c + a->support + 0.5f;
    size_t l = mote_aa_index(fl, in), h = mote_aa_index(fh, in), j;
    if (h < l) {
        h = l;
    }
    for (j = l; j < h; j++) {
        total += mote_aa_filter(((float)j - c + 0.5f) * a->invscale);
    }
    *lo = l;
    *n = h - l;
    *center = c;
    *inv_total = total != 0.0f ? 1.0f / total : 0.0f;
}

mote_err_t mote_kernel_aten__upsample_bilinear2d_aa_out(mote_kernel_ctx_t *ctx,
                                                        mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *in, *out;
    const int64_t *osz;
    uint32_t nosz;
    int ac;
    double sh = 0.0, sw = 0.0;
    int has_sh = 0, has_sw = 0;
    size_t nc, h, w, oh, ow, p, y, x;
    mote_aa_t ay, ax;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 6));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_ints(args[1], &osz, &nosz));
    MOTE_TRY(mote_k_bool(args[2], &ac));
    if (!mote_k_is_none(args[3])) {
        MOTE_TRY(mote_k_double(args[3], &sh));
        has_sh = 1;
    }
    if (!mote_k_is_none(args[4])) {
        MOTE_TRY(mote_k_double(args[4], &sw));
        has_sw = 1;
    }
    MOTE_TRY(mote_k_tensor(args[5], &out));
    MOTE_CHECK((!has_sh || (sh > 0.0 && sh < 65536.0)) && (!has_sw || (sw > 0.0 && sw < 65536.0)),
               MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(nosz == 2 && osz[0] >= 0 && osz[1] >= 0 && osz[0] < 0x7FFFFFFF && osz[1] < 0x7FFFFFFF,
               MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(in->dtype == MOTE_DTYPE_FLOAT32 && out->dtype == MOTE_DTYPE_FLOAT32,
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(in->dim == 4 && out->dim == 4, MOTE_ERR_KERNEL_SHAPE);
    h = (size_t)in->sizes[2];
    w = (size_t)in->sizes[3];
    oh = (size_t)osz[0];
    ow = (size_t)osz[1];
    MOTE_CHECK(out->sizes[0] == in->sizes[0] && out->sizes[1] == in->sizes[1] &&
                   (size_t)out->sizes[2] == oh && (size_t)out->sizes[3] == ow,
               MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK(oh * ow == 0 || h * w > 0, MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(out));
    nc = (size_t)in->sizes[0] * (size_t)in->sizes[1];
    mote_aa_init(&ay, mote_k_up_area_scale(ac, has_sh, sh, h, oh));
    mote_aa_init(&ax, mote_k_up_area_scale(ac, has_sw, sw, w, ow));
    for (y = 0; y < oh; y++) {
        size_t ylo, yn, j;
        float yc, yinv;
        mote_aa_window(&ay, y, h, &ylo, &yn, &yc, &yinv);
        for (x = 0; x < ow; x++) {
            size_t xlo, xn, i;
            float xc, xinv;
            mote_aa_window(&ax, x, w, &xlo, &xn, &xc, &xinv);
            for (p = 0; p < nc; p++) {
                const float *src = (const float *)in->data + p * h * w;
                float acc = 0.0f;
                for (j = 0; j < yn; j++) {
                    const float *row = src + (ylo + j) * w + xlo;
                    float wy = mote_aa_filter(((float)(ylo + j) - yc + 0.5f) * ay.invscale) * yinv;
                    float racc = 0.0f;
                    for (i = 0; i < xn; i++) {
                        racc += row[i] * (mote_aa_filter(((float)(xlo + i) - xc + 0.5f) * ax.invscale) * xinv);
                    }
                    acc += wy * racc;
                }
                ((float *)out->data)[(p * oh + y) * ow + x] = acc;
            }
        }
    }
    return MOTE_OK;
}
