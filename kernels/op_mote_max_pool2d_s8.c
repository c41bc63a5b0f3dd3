/*
 * mote::max_pool2d_s8.out - int8 max pool, NHWC, same qparams in and out;
 * padded taps are ignored; the result is clamped to [act_min, act_max].
 * An empty stride list means stride = kernel_size (PyTorch's default).
 *
 *   dtypes: int8 (input, out).
 */
#include "mote/kernel.h"
#include "requant.h"

MOTE_KERNEL("mote::max_pool2d_s8.out")

mote_err_t mote_kernel_mote_max_pool2d_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                              uint32_t nargs);

mote_err_t mote_kernel_mote_max_pool2d_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                              uint32_t nargs)
{
    mote_tensor_t *ti;
    mote_tensor_t *to;
    int32_t k[2], s[2], pd[2], d[2], amin, amax, n, h, w, c, ho, wo, b, oy, ox, ch, ky, kx;
    const int8_t *in;
    int8_t *out;
    (void)ctx;
    MOTE_TRY(mote_s8_pool_args(args, nargs, 8u, &ti, &to, k, s, pd));
    MOTE_TRY(mote_s8_pair_arg(args[4], 1, 0x7fff, d));
    MOTE_TRY(mote_s8_act_args(args[5], args[6], &amin, &amax));
    MOTE_TRY(mote_s8_pool_out_shape(ti, to, k, s, pd, d, &ho, &wo));
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
