/*
 * mote::grouped_conv2d_s8.out - int8 grouped 2-D convolution (1 < groups < Cin:
 * RegNet, ResNeXt), NHWC, per-channel requantization. Each group is a
 * conv2d_s8 of its Cin/groups input channels producing its Cout/groups output
 * channels. Plain C; no cmsis/ version (firmware builds use this file).
 *
 *   args (14): input int8 [N, H, W, Cin]; weight int8 [Cout, KH, KW, Cin/groups];
 *              bias, multiplier, shift int32 [Cout]; stride int[2] (>= 1);
 *              padding int[2] (>= 0, symmetric); dilation int[2] (>= 1); groups
 *              int (>= 1, divides Cin and Cout); input_zero_point,
 *              output_zero_point int (int8); activation_min <= activation_max int
 *              (int8); out int8 [N, Ho, Wo, Cout], Ho = (H + 2*pad_h -
 *              dil_h*(KH-1) - 1) / stride_h + 1 (Wo alike).
 *   acc = bias[c] + sum (x - in_zp) * w[c, ky, kx, ci] over the valid taps and the
 *         input channels g*Cin/groups + ci of c's group g = c / (Cout/groups);
 *   out = clamp(requantize(acc, M[c], s[c]) + out_zp, act_min, act_max).
 *   dtypes: int8 input, weight and out; int32 bias.
 *   errors: MOTE_ERR_KERNEL_ARGS (count, tags, ranges, shift/multiplier values),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (ranks, channel counts,
 *           out shape, empty output). No scratch; out must not overlap input.
 */
#include "mote/kernel.h"
#include "requant.h"

MOTE_KERNEL("mote::grouped_conv2d_s8.out")

mote_err_t mote_kernel_mote_grouped_conv2d_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                                  uint32_t nargs);

mote_err_t mote_kernel_mote_grouped_conv2d_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                                  uint32_t nargs)
{
    mote_s8_conv_params_t p;
    mote_tensor_t *in;
    mote_tensor_t *wt;
    mote_tensor_t *out;
    int32_t st[2], pd[2], dl[2], groups, cin_g, cout_g;
    int32_t b, oy, ox, c, ky, kx, ci;
    (void)ctx;
    MOTE_CHECK(args != NULL && nargs == 14u, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_s8_tensor_arg(args[0], MOTE_DTYPE_INT8, 4, &in));
    MOTE_TRY(mote_s8_tensor_arg(args[1], MOTE_DTYPE_INT8, 4, &wt));
    MOTE_TRY(mote_s8_tensor_arg(args[13], MOTE_DTYPE_INT8, 4, &out));
    MOTE_TRY(mote_s8_pair_arg(args[5], 1, 0x7fff, st));
    MOTE_TRY(mote_s8_pair_arg(args[6], 0, 0x7fff, pd));
    MOTE_TRY(mote_s8_pair_arg(args[7], 1, 0x7fff, dl));
    MOTE_TRY(mote_s8_int_arg(args[8], 1, 0x7fff, &groups));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[9], &p.in_zp));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[10], &p.out_zp));
    MOTE_TRY(mote_s8_act_args(args[11], args[12], &p.act_min, &p.act_max));
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
    p.ho = mote_s8_out_dim(p.h, p.kh, st[0], pd[0], dl[0]);
    p.wo = mote_s8_out_dim(p.w, p.kw, st[1], pd[1], dl[1]);
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
                        const int32_t iy = oy * st[0] - pd[0] + ky * dl[0];
                        if (iy < 0 || iy >= p.h) {
                            continue;
                        }
                        for (kx = 0; kx < p.kw; kx++) {
                            const int32_t ix = ox * st[1] - pd[1] + kx * dl[1];
                            const int8_t *xi;
                            const int8_t *wi;
                            if (ix < 0 || ix >= p.w) {
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
