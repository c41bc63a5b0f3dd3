/*
 * mote::conv_transpose2d_s8.out - int8 transposed 2-D convolution
 * (torch.nn.functional.conv_transpose2d), NHWC, per-channel requantization.
 * Plain C, gather form: output pixel (oy, ox) sums the taps (ky, kx) whose
 * source row (oy + pad_h - ky*dil_h) / stride_h (and column alike) is integral
 * and inside the input. No cmsis/ version (firmware builds use this file).
 *
 *   args (15): input int8 [N, H, W, Cin]; weight int8 [Cout, KH, KW, Cin/groups];
 *              bias, multiplier, shift int32 [Cout]; stride int[2] (>= 1);
 *              padding int[2] (>= 0); output_padding int[2] (0 <= op < max(stride,
 *              dilation)); dilation int[2] (>= 1); groups int (>= 1, divides Cin
 *              and Cout); input_zero_point, output_zero_point int (int8);
 *              activation_min <= activation_max int (int8); out int8
 *              [N, Ho, Wo, Cout], Ho = (H-1)*stride_h - 2*pad_h + dil_h*(KH-1)
 *              + op_h + 1 (Wo alike).
 *   acc = bias[c] + sum (x - in_zp) * w[c, ky, kx, ci] over the group of c;
 *   out = clamp(requantize(acc, M[c], s[c]) + out_zp, act_min, act_max).
 *   dtypes: int8 input, weight and out; int32 bias.
 *   errors: MOTE_ERR_KERNEL_ARGS (count, tags, ranges, shift/multiplier values),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (ranks, channel counts,
 *           out shape, empty output). No scratch; out must not overlap input.
 */
#include "mote/kernel.h"
#include "requant.h"

MOTE_KERNEL("mote::conv_transpose2d_s8.out")

mote_err_t mote_kernel_mote_conv_transpose2d_s8_out(mote_kernel_ctx_t *ctx,
                                                    mote_value_t *const *args, uint32_t nargs);

/** Output size of a transposed convolution axis, or -1 if empty / too large. */
static int32_t mote_tconv_out_dim(int32_t in, int32_t k, int32_t s, int32_t p, int32_t op,
                                  int32_t d)
{
    const int64_t o = ((int64_t)in - 1) * s - 2 * (int64_t)p + (int64_t)d * (k - 1) + op + 1;
    return (in < 1 || o < 1 || o > 0x7fffffff) ? -1 : (int32_t)o;
}

/** Input index of output index o and tap k, or -1 if the tap falls between pixels / outside. */
static int32_t mote_tconv_src(int32_t o, int32_t k, int32_t s, int32_t p, int32_t d, int32_t in)
{
    const int64_t t = (int64_t)o + p - (int64_t)k * d;
    if (t < 0 || t % s != 0 || t / s >= in) {
        return -1;
    }
    return (int32_t)(t / s);
}

mote_err_t mote_kernel_mote_conv_transpose2d_s8_out(mote_kernel_ctx_t *ctx,
                                                    mote_value_t *const *args, uint32_t nargs)
{
    mote_s8_conv_params_t p;
    mote_tensor_t *in;
    mote_tensor_t *wt;
    mote_tensor_t *out;
    int32_t st[2], pd[2], opd[2], dl[2], groups, cin_g, cout_g;
    int32_t b, oy, ox, c, ky, kx, ci;
    (void)ctx;
    MOTE_CHECK(args != NULL && nargs == 15u, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_s8_tensor_arg(args[0], MOTE_DTYPE_INT8, 4, &in));
    MOTE_TRY(mote_s8_tensor_arg(args[1], MOTE_DTYPE_INT8, 4, &wt));
    MOTE_TRY(mote_s8_tensor_arg(args[14], MOTE_DTYPE_INT8, 4, &out));
    MOTE_TRY(mote_s8_pair_arg(args[5], 1, 0x7fff, st));
    MOTE_TRY(mote_s8_pair_arg(args[6], 0, 0x7fff, pd));
    MOTE_TRY(mote_s8_pair_arg(args[7], 0, 0x7fff, opd));
    MOTE_TRY(mote_s8_pair_arg(args[8], 1, 0x7fff, dl));
    MOTE_TRY(mote_s8_int_arg(args[9], 1, 0x7fff, &groups));
    MOTE_CHECK(opd[0] < (st[0] > dl[0] ? st[0] : dl[0]) && opd[1] < (st[1] > dl[1] ? st[1] : dl[1]),
               MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(MOTE_S8_ZP_ARG(args[10], &p.in_zp));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[11], &p.out_zp));
    MOTE_TRY(mote_s8_act_args(args[12], args[13], &p.act_min, &p.act_max));
    p.n = in->sizes[0];
    p.h = in->sizes[1];
    p.w = in->sizes[2];
    p.cin = in->sizes[3];
    p.cout = wt->sizes[0];
    p.kh = wt->sizes[1];
    p.kw = wt->sizes[2];
    cin_g = wt->sizes[3];
    MOTE_CHECK(p.kh >= 1 && p.kw >= 1 && cin_g >= 1 && p.cout >= 1 && p.cout % groups == 0 &&
                   (int64_t)cin_g * groups == p.cin,
               MOTE_ERR_KERNEL_SHAPE);
    cout_g = p.cout / groups;
    p.ho = mote_tconv_out_dim(p.h, p.kh, st[0], pd[0], opd[0], dl[0]);
    p.wo = mote_tconv_out_dim(p.w, p.kw, st[1], pd[1], opd[1], dl[1]);
    MOTE_CHECK(p.ho >= 1 && p.wo >= 1 && out->sizes[0] == p.n && out->sizes[1] == p.ho &&
                   out->sizes[2] == p.wo && out->sizes[3] == p.cout,
               MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_s8_chan_args(&args[2], p.cout, &p));
    p.input = (const int8_t *)in->data;
    p.weight = (const int8_t *)wt->data;
    p.output = (int8_t *)out->data;
    for (b = 0; b < p.n; b++) {
        const int8_t *xb = p.input + (size_t)b * p.h * p.w * p.cin;
        for (oy = 0; oy < p.ho; oy++) {
            for (ox = 0; ox < p.wo; ox++) {
                int8_t *o = p.output + (((size_t)b * p.ho + oy) * p.wo + ox) * p.cout;
                for (c = 0; c < p.cout; c++) {
                    const int8_t *wc = p.weight + (size_t)c * p.kh * p.kw * cin_g;
                    const size_t gofs = (size_t)(c / cout_g) * cin_g;
                    uint32_t acc = (uint32_t)p.bias[c]; /* int32 wrap, UB-free */
                    for (ky = 0; ky < p.kh; ky++) {
                        const int32_t iy = mote_tconv_src(oy, ky, st[0], pd[0], dl[0], p.h);
                        if (iy < 0) {
                            continue;
                        }
                        for (kx = 0; kx < p.kw; kx++) {
                            const int32_t ix = mote_tconv_src(ox, kx, st[1], pd[1], dl[1], p.w);
                            const int8_t *xi;
                            const int8_t *wi;
                            if (ix < 0) {
                                continue;
                            }
                            xi = xb + ((size_t)iy * p.w + ix) * p.cin + gofs;
                            wi = wc + ((size_t)ky * p.kw + kx) * cin_g;
                            for (ci = 0; ci < cin_g; ci++) {
                                acc += (uint32_t)(((int32_t)xi[ci] - p.in_zp) * (int32_t)wi[ci]);
                            }
                        }
                    }
                    o[c] = mote_s8_finish(&p, (int32_t)acc, c);
                }
            }
        }
    }
    return MOTE_OK;
}
