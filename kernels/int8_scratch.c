/*
 * kernels/int8_scratch.c - scratch sizes of the int8 kernels, for the AOT planner.
 *
 * The host library exports these; the planner calls them with the op's shapes
 * and reserves the returned bytes in the arena (ctx->scratch). The size covers
 * every implementation of the op (plain C in kernels/ needs none; the DSP and
 * MVE versions in cmsis/ need the buffer described below), so one plan works
 * for every build of the same program.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fft.h"
#include "requant.h"

size_t mote_scratch_mote_conv2d_s8(int32_t n, int32_t h, int32_t w, int32_t cin, int32_t cout,
                                   int32_t kh, int32_t kw, int32_t prewidened);
size_t mote_scratch_mote_depthwise_conv2d_s8(int32_t n, int32_t h, int32_t w, int32_t cin,
                                             int32_t cout, int32_t kh, int32_t kw, int32_t pad_h,
                                             int32_t pad_w);
size_t mote_scratch_mote_linear_s8(int32_t m, int32_t k, int32_t n);
size_t mote_scratch_mote_pointwise_s8_planar16(int32_t cin, int32_t cout);
size_t mote_scratch_rows_in_place(int32_t n, int32_t h, int32_t w, int32_t cin, int32_t ho,
                                  int32_t wo, int32_t cout, int32_t stride_h, int32_t pad_h,
                                  int32_t band);
int32_t mote_variant_mote_conv2d_s8(int32_t cin, int32_t kh, int32_t kw, int32_t pad_h,
                                    int32_t pad_w, int32_t dil_h, int32_t dil_w);
int32_t mote_variant_mote_depthwise_conv2d_s8(int32_t kh, int32_t kw, int32_t stride_h,
                                              int32_t stride_w, int32_t dil_h, int32_t dil_w,
                                              int32_t h, int32_t w, int32_t pad_h, int32_t pad_w,
                                              int32_t act_min, int32_t act_max);
int32_t mote_variant_mote_add_s8(int32_t a_mult, int32_t a_shift, int32_t b_mult, int32_t b_shift,
                                 int32_t left_shift, int32_t out_shift);
int32_t mote_variant_dw_planar_alias(int32_t placement, int32_t n);
int32_t mote_variant_dw_planar_channel(int32_t shift, int32_t bias);
int32_t mote_variant_dw_planar_eform(int32_t out_zp, int32_t shift, int32_t bias);
int32_t mote_variant_dw_planar_form(int32_t ho, int32_t wo, int32_t cout, int32_t h, int32_t w, int32_t pad_h,
                                    int32_t pad_w, int32_t stride, int64_t scratch);
int32_t mote_variant_conv_direct_in_place(int32_t cin, int32_t kh, int32_t kw, int32_t stride_h,
                                          int32_t stride_w, int32_t pad_h, int32_t pad_w, int32_t cout,
                                          int32_t prewidened);
int32_t mote_variant_conv_eform_k64(int32_t k);
size_t mote_scratch_mote_rfft_mag(int32_t n, int32_t elem);

/**
 * rfft_mag / rfft_mag_q15 / rfft_mag_q31 (fp32, Q15, Q31): the N-point real
 * transform's M = N/2 complex values in scratch, mote_fft_scratch_bytes() in
 * fft.h: N * elem bytes (elem 4 for fp32, rfft_mag_window and Q31, 2 for Q15);
 * 0 for an N the kernels refuse.
 */
size_t mote_scratch_mote_rfft_mag(int32_t n, int32_t elem)
{
    if (n < 2 || (elem != 2 && elem != 4)) {
        return 0;
    }
    return mote_fft_scratch_bytes((uint32_t)n, (uint32_t)elem);
}

/**
 * conv2d_s8: see mote_s8_conv_scratch_bytes() in requant.h (im2col columns,
 * widened weight rows unless `prewidened`, corrected bias). Input [n,h,w,cin],
 * weight [cout,kh,kw,cin]. Returns 0 for invalid shapes.
 */
size_t mote_scratch_mote_conv2d_s8(int32_t n, int32_t h, int32_t w, int32_t cin, int32_t cout,
                                   int32_t kh, int32_t kw, int32_t prewidened)
{
    if (n < 1 || h < 1 || w < 1 || cin < 1 || cout < 1 || kh < 1 || kw < 1) {
        return 0;
    }
    return mote_s8_conv_scratch_bytes(cin, kh, kw, cout, prewidened != 0);
}

/**
 * depthwise_conv2d_s8: see mote_s8_dw_scratch_bytes() in requant.h (the maximum of
 * MVE's corrected bias and 3x3 group table and the DSP path's int16 input plane):
 * 16 + max(4 * round4(Cout) + (3x3 ? 184 * (Cout / 8) : 0),
 *          3x3 and (H + 2 pad_h - 2) * (W + 2 pad_w - 2) >= 100 ? 60 * max(H + 2 pad_h, W + 2 pad_w) + 16 : 0,
 *          3x3 ? 2 * (H + 2 pad_h) * (W + 2 pad_w) : 0).
 */
size_t mote_scratch_mote_depthwise_conv2d_s8(int32_t n, int32_t h, int32_t w, int32_t cin,
                                             int32_t cout, int32_t kh, int32_t kw, int32_t pad_h,
                                             int32_t pad_w)
{
    if (n < 1 || h < 1 || w < 1 || cin < 1 || cout < 1 || kh < 1 || kw < 1) {
        return 0;
    }
    return mote_s8_dw_scratch_bytes(cout, kh, kw, h, w, pad_h, pad_w);
}

/**
 * pointwise_s8_planar16: see mote_s8_planar_pw_scratch_bytes() in requant.h (the
 * DSP kernel's int16 column of two pixels and requantization table):
 * 16 + 4 * round4(Cin) + 16 * Cout.
 */
size_t mote_scratch_mote_pointwise_s8_planar16(int32_t cin, int32_t cout)
{
    return mote_s8_planar_pw_scratch_bytes(cin, cout);
}

/** linear_s8: no scratch in any implementation. */
size_t mote_scratch_mote_linear_s8(int32_t m, int32_t k, int32_t n)
{
    (void)m; (void)k; (void)n;
    return 0;
}

/**
 * Extra scratch of a conv2d_s8 / depthwise_conv2d_s8 call planned in place by
 * rows (its out over its input): mote_s8_rows_ring_bytes() in requant.h, the
 * ring of (lag + band) rows of Wo*Cout bytes after the kernel's own scratch.
 * Input [n,h,w,cin], output [n,ho,wo,cout]. 0 if the call cannot run in place.
 */
size_t mote_scratch_rows_in_place(int32_t n, int32_t h, int32_t w, int32_t cin, int32_t ho,
                                  int32_t wo, int32_t cout, int32_t stride_h, int32_t pad_h,
                                  int32_t band)
{
    mote_s8_conv_params_t p;
    memset(&p, 0, sizeof p);
    if (n < 1 || h < 1 || w < 1 || cin < 1 || ho < 1 || wo < 1 || cout < 1 || stride_h < 1 ||
        pad_h < 0) {
        return 0;
    }
    p.n = n;
    p.h = h;
    p.w = w;
    p.cin = cin;
    p.ho = ho;
    p.wo = wo;
    p.cout = cout;
    p.stride_h = stride_h;
    p.pad_h = pad_h;
    return mote_s8_rows_ring_bytes(&p, band);
}

/**
 * The optimized conv2d_s8's kernel variant for a window kh x kw over Cin channels
 * with padding (pad_h, pad_w) and dilation (dil_h, dil_w): MOTE_S8_CONV_POINTWISE /
 * _STEM / _WINDOW / _STEM3X3C3 (mote_s8_conv_variant in requant.h, the kernels' own
 * dispatch).
 */
int32_t mote_variant_mote_conv2d_s8(int32_t cin, int32_t kh, int32_t kw, int32_t pad_h,
                                    int32_t pad_w, int32_t dil_h, int32_t dil_w)
{
    return mote_s8_conv_variant(cin, kh, kw, pad_h, pad_w, dil_h, dil_w);
}

/**
 * depthwise_conv2d_s8 (depth multiplier 1): the per-channel plane paths a call of this
 * shape takes, MOTE_S8_DW_MVE_PLANES | MOTE_S8_DW_DSP_PLANES (mote_s8_dw_variant() in
 * requant.h); 0: channels-last (NHWC) on both.
 */
int32_t mote_variant_mote_depthwise_conv2d_s8(int32_t kh, int32_t kw, int32_t stride_h,
                                              int32_t stride_w, int32_t dil_h, int32_t dil_w,
                                              int32_t h, int32_t w, int32_t pad_h, int32_t pad_w,
                                              int32_t act_min, int32_t act_max)
{
    return mote_s8_dw_variant(kh, kw, stride_h, stride_w, dil_h, dil_w, h, w, pad_h, pad_w, act_min,
                              act_max);
}

/**
 * The optimized add_s8's variant for its multipliers and shifts: MOTE_S8_ADD_REFERENCE /
 * _FOLDED / _POW_GEN / _GEN_GEN / _POW_POW (mote_s8_add_variant in requant.h, the
 * kernels' own dispatch).
 */
int32_t mote_variant_mote_add_s8(int32_t a_mult, int32_t a_shift, int32_t b_mult, int32_t b_shift,
                                 int32_t left_shift, int32_t out_shift)
{
    return mote_s8_add_variant(a_mult, a_shift, b_mult, b_shift, left_shift, out_shift);
}

/**
 * The DSP depthwise_conv2d_s8's int16 plane by placement (mote_s8_dw_planar_alias in
 * requant.h): placement 0 the output apart from the input, 1 over its first byte,
 * 2 overlapping it otherwise; n images. 1 or 0.
 */
int32_t mote_variant_dw_planar_alias(int32_t placement, int32_t n)
{
    return mote_s8_dw_planar_alias(placement == 1, placement != 0, n);
}

/** mote_s8_dw_planar_eform (requant.h): a channel takes the DSP plane's E-form. */
int32_t mote_variant_dw_planar_eform(int32_t out_zp, int32_t shift, int32_t bias)
{
    return mote_s8_dw_planar_eform(out_zp, shift, bias);
}

/** mote_s8_dw_planar_channel (requant.h): a channel's shift and bias admit the plane. */
int32_t mote_variant_dw_planar_channel(int32_t shift, int32_t bias)
{
    return mote_s8_dw_planar_channel(shift, bias);
}

/** mote_s8_eform_k64 (requant.h): the DSP conv2d_s8 runs an E-form call of K taps by
 *  its core of 16-group passes. 1 or 0. */
int32_t mote_variant_conv_eform_k64(int32_t k)
{
    return mote_s8_eform_k64((k + 3) & ~3);
}

/** mote_s8_conv_direct_in_place (requant.h): the DSP conv2d_s8 planned in place
 *  runs without the row ring. 1 or 0. */
int32_t mote_variant_conv_direct_in_place(int32_t cin, int32_t kh, int32_t kw, int32_t stride_h,
                                          int32_t stride_w, int32_t pad_h, int32_t pad_w, int32_t cout,
                                          int32_t prewidened)
{
    return mote_s8_conv_direct_in_place(cin, kh, kw, stride_h, stride_w, pad_h, pad_w, cout, prewidened != 0);
}

/**
 * The form of the DSP depthwise_conv2d_s8's plane path for output [.., ho, wo, cout]
 * of input H x W with padding (pad_h, pad_w), stride and `scratch` bytes of kernel
 * scratch: bit 0 the plane transposed (mote_s8_dw_planar_transposed), bit 1 one plane
 * at a time (neither four planes, mote_s8_dw_planes4_bytes with Cout a multiple of 4, nor
 * two, mote_s8_dw_planes2_bytes with Cout even), bit 5 two planes at a time,
 * bit 2 the 1x6 block (mote_s8_dw_planar_x6 along the blocks), bit 3 the 1x3 block
 * (stride 1, rows of three outputs: cmsis/mote_s8_planar.h dwp_asm_rows).
 */
int32_t mote_variant_dw_planar_form(int32_t ho, int32_t wo, int32_t cout, int32_t h, int32_t w, int32_t pad_h,
                                    int32_t pad_w, int32_t stride, int64_t scratch)
{
    const int tr = mote_s8_dw_planar_transposed(ho, wo);
    const int four = (cout & 3) == 0 && scratch >= (int64_t)mote_s8_dw_planes4_bytes(h, w, pad_h, pad_w);
    const int two = !four && (cout & 1) == 0 && scratch >= (int64_t)mote_s8_dw_planes2_bytes(h, w, pad_h, pad_w);
    const int one = !four && !two;
    const int32_t run = tr ? ho : wo;
    return tr | (one ? 2 : 0) | (two ? 32 : 0) | (mote_s8_dw_planar_x6(stride, run) ? 4 : 0) | (stride == 1 && run == 3 ? 8 : 0) |
           (run >= 4 || (stride == 1 && run == 3) ? 0 : 16); /* bit 4: the C blocks (dwp_asm_rows) */
}
