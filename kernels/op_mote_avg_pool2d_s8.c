/*
 * mote::avg_pool2d_s8.out - int8 average pool, NHWC, same qparams in and out.
 * Padded taps add zero_point and count when count_include_pad, else are skipped;
 * out = (sum +- count/2) / count (C division: half away from zero), clamped.
 * An empty stride list means stride = kernel_size (PyTorch's default).
 *
 *   dtypes: int8 (input, out).
 */
#include "mote/kernel.h"
#include "requant.h"

MOTE_KERNEL("mote::avg_pool2d_s8.out")

mote_err_t mote_kernel_mote_avg_pool2d_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                              uint32_t nargs);

mote_err_t mote_kernel_mote_avg_pool2d_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                              uint32_t nargs)
{
    mote_tensor_t *ti;
    mote_tensor_t *to;
    static const int32_t dil1[2] = {1, 1};
    int32_t k[2], s[2], pd[2], zp, amin, amax, n, h, w, c, ho, wo, b, oy, ox, ch, ky, kx;
    int include_pad;
    const int8_t *in;
    int8_t *out;
    (void)ctx;
    MOTE_TRY(mote_s8_pool_args(args, nargs, 9u, &ti, &to, k, s, pd));
    if (args[4] == NULL || args[4]->tag != MOTE_TAG_BOOL) {
        return MOTE_ERR_KERNEL_ARGS;
    }
    include_pad = args[4]->u.b ? 1 : 0;
    MOTE_TRY(MOTE_S8_ZP_ARG(args[5], &zp));
    MOTE_TRY(mote_s8_act_args(args[6], args[7], &amin, &amax));
    MOTE_TRY(mote_s8_pool_out_shape(ti, to, k, s, pd, dil1, &ho, &wo));
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
                    int32_t sum = 0;
                    int32_t count = 0;
                    int32_t q;
                    for (ky = 0; ky < k[0]; ky++) {
                        const int32_t iy = oy * s[0] - pd[0] + ky;
                        for (kx = 0; kx < k[1]; kx++) {
                            const int32_t ix = ox * s[1] - pd[1] + kx;
                            if (iy < 0 || iy >= h || ix < 0 || ix >= w) {
                                if (include_pad) {
                                    sum += zp;
                                    count++;
                                }
                                continue;
                            }
                            sum += in[(((size_t)b * h + iy) * w + ix) * c + ch];
                            count++;
                        }
                    }
                    if (count == 0) {
                        q = 0;
                    } else if (sum >= 0) {
                        q = (sum + count / 2) / count;
                    } else {
                        q = (sum - count / 2) / count;
                    }
                    out[(((size_t)b * ho + oy) * wo + ox) * c + ch] = mote_s8_out(q, 0, amin, amax);
                }
            }
        }
    }
    return MOTE_OK;
}
