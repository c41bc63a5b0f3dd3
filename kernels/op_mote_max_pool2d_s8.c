/*
 * mote::max_pool2d_s8.out - int8 max pool, NHWC, same qparams in and out;
 * padded taps are ignored; the result is clamped to [act_min, act_max].
 * An empty stride list means stride = kernel_size (PyTorch's default).
 *
 *   args (8 or 9): input int8 [N, H, W, C]; kernel_size, stride, padding,
 *                  dilation int[2]; activation_min, activation_max int (int8);
 *                  optional bool ceil_mode (PyTorch's: the last windows may run past
 *                  the input's end, their taps there ignored, but start inside the
 *                  input or its left padding); out int8 [N, Ho, Wo, C].
 *   dtypes: int8 (input, out).
 */
#include "mote/kernel.h"
#include "requant.h"

MOTE_KERNEL("mote::max_pool2d_s8.out")

mote_err_t mote_kernel_mote_max_pool2d_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                              uint32_t nargs);

/** Output size of a ceil_mode pooling axis (PyTorch's rule), or -1 if empty / too large. */
static int32_t pool_ceil_dim(int32_t in, int32_t k, int32_t s, int32_t p, int32_t d)
{
    const int64_t span = (int64_t)in + 2 * (int64_t)p - (int64_t)d * (k - 1) - 1;
    int64_t out;
    if (span < 0) {
        return -1;
    }
    out = (span + s - 1) / s + 1;
    if ((out - 1) * s >= (int64_t)in + p) {
        out--;
    }
    return out > 0x7fffffff ? -1 : (int32_t)out;
}

mote_err_t mote_kernel_mote_max_pool2d_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                              uint32_t nargs)
{
    mote_tensor_t *ti;
    mote_tensor_t *to;
    int32_t k[2], s[2], pd[2], d[2], amin, amax, n, h, w, c, ho, wo, b, oy, ox, ch, ky, kx;
    const int8_t *in;
    int8_t *out;
    (void)ctx;
    MOTE_CHECK(nargs == 8u || nargs == 9u, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_s8_pool_args(args, nargs, nargs, &ti, &to, k, s, pd));
    MOTE_TRY(mote_s8_pair_arg(args[4], 1, 0x7fff, d));
    MOTE_TRY(mote_s8_act_args(args[5], args[6], &amin, &amax));
    if (nargs == 9u) {
        MOTE_CHECK(args[7] != NULL && args[7]->tag == MOTE_TAG_BOOL, MOTE_ERR_KERNEL_ARGS);
    }
    if (nargs == 9u && args[7]->u.b) {
        ho = pool_ceil_dim(ti->sizes[1], k[0], s[0], pd[0], d[0]);
        wo = pool_ceil_dim(ti->sizes[2], k[1], s[1], pd[1], d[1]);
        MOTE_CHECK(ho >= 1 && wo >= 1 && to->sizes[0] == ti->sizes[0] && to->sizes[1] == ho &&
                       to->sizes[2] == wo && to->sizes[3] == ti->sizes[3],
                   MOTE_ERR_KERNEL_SHAPE);
    } else {
        MOTE_TRY(mote_s8_pool_out_shape(ti, to, k, s, pd, d, &ho, &wo));
    }
    n = ti->sizes[0];
    h = ti->sizes[1];
    w = ti->sizes[2];
    c = ti->sizes[3];
    in = (const int8_t *)ti->data;
    out = (int8_t *)to->data;
    for (b = 0; b < n; b++) {
        for (oy = 0; oy < ho; oy++) {
            for (ox = 0; ox < wo; ox++) {
                for (ch = 0; ch < c; ch++) {
                    int32_t m = -129; /* below every int8: a window of only padding gives amin */
                    for (ky = 0; ky < k[0]; ky++) {
                        const int32_t iy = oy * s[0] - pd[0] + ky * d[0];
                        if (iy < 0 || iy >= h) {
                            continue;
                        }
                        for (kx = 0; kx < k[1]; kx++) {
                            const int32_t ix = ox * s[1] - pd[1] + kx * d[1];
                            int32_t v;
                            if (ix < 0 || ix >= w) {
                                continue;
                            }
                            v = in[(((size_t)b * h + iy) * w + ix) * c + ch];
                            m = v > m ? v : m;
                        }
                    }
                    out[(((size_t)b * ho + oy) * wo + ox) * c + ch] = mote_clamp_s8(m, amin, amax);
                }
            }
        }
    }
    return MOTE_OK;
}
