/*
 * mote::conv2d_s16.out - 2-D convolution with int16 activations and int8
 * weights, NHWC (the int16x8 scheme of CMSIS-NN's s16 kernels): input int16
 * [N, H, W, Cin] (zero point 0), weight int8 [Cout, KH, KW, Cin] (symmetric per
 * output channel) -> int16 [N, Ho, Wo, Cout]. Padded taps add 0; the 64-bit
 * accumulator is requantized by mote_requantize_s64 (kernels/requant.h;
 * aot/compiler/quant/int16ref.py is the same arithmetic).
 *
 *   args (11): input, weight, bias int64 [Cout], multiplier int32 [Cout],
 *              shift int32 [Cout] (in [-31, 14]), stride int[2], padding int[2],
 *              dilation int[2], activation_min, activation_max (int16), out.
 *   dtypes: int16 input and out, int8 weight, int64 bias.
 *   errors: MOTE_ERR_KERNEL_ARGS, MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE.
 */
#include "kutil.h"
#include "requant.h"

MOTE_KERNEL("mote::conv2d_s16.out")

MOTE_K_DECLARE(mote_kernel_mote_conv2d_s16_out);

/* The accumulator of output pixel (oy, ox), channel c, of image `in`. */
static int64_t conv_acc(const mote_s16_conv_params_t *q, const int16_t *in, int32_t oy, int32_t ox, int32_t c)
{
    const mote_s8_conv_params_t *p = &q->g;
    int64_t acc = q->bias[c];
    int32_t ky, kx, ci;
    for (ky = 0; ky < p->kh; ky++) {
        const int32_t iy = oy * p->stride_h - p->pad_h + ky * p->dil_h;
        if (iy < 0 || iy >= p->h) {
            continue;
        }
        for (kx = 0; kx < p->kw; kx++) {
            const int32_t ix = ox * p->stride_w - p->pad_w + kx * p->dil_w;
            const int16_t *x;
            const int8_t *w;
            if (ix < 0 || ix >= p->w) {
                continue;
            }
            x = in + ((size_t)iy * (size_t)p->w + (size_t)ix) * (size_t)p->cin;
            w = p->weight + (((size_t)c * (size_t)p->kh + (size_t)ky) * (size_t)p->kw + (size_t)kx) * (size_t)p->cin;
            for (ci = 0; ci < p->cin; ci++) {
                acc += (int32_t)x[ci] * (int32_t)w[ci];
            }
        }
    }
    return acc;
}

mote_err_t mote_kernel_mote_conv2d_s16_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_s16_conv_params_t q;
    int32_t b, oy, ox, c;
    (void)ctx;
    MOTE_TRY(mote_s16_conv_parse(args, nargs, 0, &q));
    for (b = 0; b < q.g.n; b++) {
        const int16_t *in = q.input + (size_t)b * (size_t)q.g.h * (size_t)q.g.w * (size_t)q.g.cin;
        for (oy = 0; oy < q.g.ho; oy++) {
            for (ox = 0; ox < q.g.wo; ox++) {
                int16_t *out = q.output + (((size_t)b * (size_t)q.g.ho + (size_t)oy) * (size_t)q.g.wo + (size_t)ox) *
                                              (size_t)q.g.cout;
                for (c = 0; c < q.g.cout; c++) {
                    out[c] = mote_s16_finish(&q, conv_acc(&q, in, oy, ox, c), c);
                }
            }
        }
    }
    return MOTE_OK;
}
