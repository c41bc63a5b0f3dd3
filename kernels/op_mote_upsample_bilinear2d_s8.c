/*
 * mote::upsample_bilinear2d_s8.out - bilinear resize of NHWC int8 [N, H, W, C]
 * (F.interpolate(mode="bilinear"), align_corners true or false), same qparams
 * in and out, integer arithmetic only.
 *
 *   args (5): input int8 [N, H, W, C]; output_size int[2] (Ho, Wo >= 1);
 *             align_corners bool; scale_q32 int[2]: the source step per output
 *             pixel in Q32 (0 .. 2^46; the compiler passes ATen's fp32 scale:
 *             (in-1)/(out-1) with align_corners, else 1/scale_factor or in/out,
 *             and 1 when out == in); out int8 [N, Ho, Wo, C].
 *   Per axis: src = o*step (align_corners) or max(((2o+1)*step - 2^32) >> 1, 0)
 *   (Q32); i0 = min(src >> 32, in-1); frac = clamp(src - i0*2^32, 0, 2^32);
 *   l1 = (frac + 2^16) >> 17 (Q15), l0 = 2^15 - l1; i1 = i0 + (i0 < in-1).
 *   acc = sum of the four raw int8 values times lh*lw (int64; the weights sum
 *   to 2^30, so the zero point cancels); out = acc / 2^30 rounded half to even.
 *   dtypes: int8 (input, out).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags/ranges), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (ranks, out shape, empty input).
 *   out must not overlap input.
 */
#include "mote/kernel.h"
#include "requant.h"

MOTE_KERNEL("mote::upsample_bilinear2d_s8.out")

mote_err_t mote_kernel_mote_upsample_bilinear2d_s8_out(mote_kernel_ctx_t *ctx,
                                                       mote_value_t *const *args, uint32_t nargs);

#define MOTE_UP_WBITS 15
#define MOTE_UP_ONE ((int64_t)1 << MOTE_UP_WBITS)

/** Source taps of output index o on one axis (see the header comment). */
static void mote_up_taps(int32_t o, int64_t step, int align, int32_t in, int32_t *i0,
                         int32_t *i1, int64_t *l1)
{
    int64_t src;
    int64_t frac;
    int64_t lo;
    if (align) {
        src = (int64_t)o * step;
    } else {
        src = ((2 * (int64_t)o + 1) * step - ((int64_t)1 << 32)) / 2; /* floor below */
        if (src < 0) {
            src = 0; /* also covers the negative (floor vs truncation) case */
        }
    }
    lo = src >> 32;
    if (lo > in - 1) {
        lo = in - 1;
    }
    frac = src - (lo << 32);
    frac = frac < 0 ? 0 : (frac > ((int64_t)1 << 32) ? ((int64_t)1 << 32) : frac);
    *l1 = (frac + ((int64_t)1 << (31 - MOTE_UP_WBITS))) >> (32 - MOTE_UP_WBITS);
    *i0 = (int32_t)lo;
    *i1 = (int32_t)lo + (lo < in - 1 ? 1 : 0);
}

mote_err_t mote_kernel_mote_upsample_bilinear2d_s8_out(mote_kernel_ctx_t *ctx,
                                                       mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *ti;
    mote_tensor_t *to;
    int32_t osz[2], n, h, w, c, b, y, x, ch;
    int64_t step[2];
    int align;
    const int8_t *in;
    int8_t *out;
    (void)ctx;
    MOTE_CHECK(args != NULL && nargs == 5u, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_s8_tensor_arg(args[0], MOTE_DTYPE_INT8, 4, &ti));
    MOTE_TRY(mote_s8_tensor_arg(args[4], MOTE_DTYPE_INT8, 4, &to));
    MOTE_TRY(mote_s8_ints_arg(args[1], 2, 1, 0x7fff, osz));
    MOTE_CHECK(args[2] != NULL && args[2]->tag == MOTE_TAG_BOOL, MOTE_ERR_KERNEL_ARGS);
    align = args[2]->u.b ? 1 : 0;
    MOTE_CHECK(args[3] != NULL && args[3]->tag == MOTE_TAG_INT_LIST && args[3]->u.ints.len == 2 &&
                   args[3]->u.ints.items != NULL,
               MOTE_ERR_KERNEL_ARGS);
    for (ch = 0; ch < 2; ch++) {
        step[ch] = args[3]->u.ints.items[ch];
        MOTE_CHECK(step[ch] >= 0 && step[ch] <= ((int64_t)1 << 46), MOTE_ERR_KERNEL_ARGS);
    }
    n = ti->sizes[0];
    h = ti->sizes[1];
    w = ti->sizes[2];
    c = ti->sizes[3];
    MOTE_CHECK(h >= 1 && w >= 1 && h <= 0x7fff && w <= 0x7fff && to->sizes[0] == n &&
                   to->sizes[1] == osz[0] && to->sizes[2] == osz[1] && to->sizes[3] == c,
               MOTE_ERR_KERNEL_SHAPE);
    in = (const int8_t *)ti->data;
    out = (int8_t *)to->data;
    for (b = 0; b < n; b++) {
        const int8_t *xb = in + (size_t)b * h * w * c;
        for (y = 0; y < osz[0]; y++) {
            int32_t y0, y1;
            int64_t ly;
            mote_up_taps(y, step[0], align, h, &y0, &y1, &ly);
            for (x = 0; x < osz[1]; x++) {
                int32_t x0, x1;
                int64_t lx;
                const int8_t *p00;
                const int8_t *p01;
                const int8_t *p10;
                const int8_t *p11;
                int8_t *o = out + (((size_t)b * osz[0] + y) * osz[1] + x) * c;
                mote_up_taps(x, step[1], align, w, &x0, &x1, &lx);
                p00 = xb + ((size_t)y0 * w + x0) * c;
                p01 = xb + ((size_t)y0 * w + x1) * c;
                p10 = xb + ((size_t)y1 * w + x0) * c;
                p11 = xb + ((size_t)y1 * w + x1) * c;
                for (ch = 0; ch < c; ch++) {
                    const int64_t top = p00[ch] * (MOTE_UP_ONE - lx) + p01[ch] * lx;
                    const int64_t bot = p10[ch] * (MOTE_UP_ONE - lx) + p11[ch] * lx;
                    const int64_t acc = top * (MOTE_UP_ONE - ly) + bot * ly;
                    const int64_t half = (int64_t)1 << (2 * MOTE_UP_WBITS - 1);
                    const int64_t rem = acc & ((half << 1) - 1);
                    int64_t q = acc >> (2 * MOTE_UP_WBITS); /* arithmetic shift (floor) */
                    if (rem > half || (rem == half && (q & 1) != 0)) {
                        q++;
                    }
                    o[ch] = mote_clamp_s8((int32_t)q, -128, 127);
                }
            }
        }
    }
    return MOTE_OK;
}
