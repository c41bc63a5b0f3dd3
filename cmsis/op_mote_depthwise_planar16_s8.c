/*
 * mote::depthwise_planar16_s8.out - Cortex-M version (see mote_s8_arm.h).
 * Same bytes as kernels/op_mote_depthwise_planar16_s8.c.
 *
 * The input is planar int16 with the zero point subtracted and a zero border
 * (kernels/requant.h, "planar int16"), so a channel is one plane and every
 * window is an interior one: channels outer, the plane inner.
 * - DSP, 3x3 windows of stride 1 or 2 (dilation 1) and a channel whose shift
 *   is in [-22, -1] with |bias| + 9 * 2^22 < 2^30 (so |2 acc| < 2^31 for any
 *   int16 input): the channel's nine weights are held in six registers as int16
 *   pairs, doubled, (w0, w1) and (w2, w1) per row, its doubled bias, multiplier,
 *   rounding offset and shift in registers too, for the whole plane. A 2x2
 *   output block reads each input word once (LDR of two int16) and is SMLAD /
 *   SMLADX / SMLABB / SMLATB only: per input row and output row pair
 *     out(x)   += SMLAD(x01, w01) + SMLABB(x23, w21)      = x0 w0 + x1 w1 + x2 w2
 *     out(x+1) += SMLATB(x01, w01) + SMLADX(x23, w21)     = x1 w0 + x2 w1 + x3 w2
 *   (stride 2: out(x+1) += SMLAD(x23, w01) + SMLABB(x45, w21)); 24 multiply
 *   instructions for the block's 36 MACs. Requantization per output: SMMLAR
 *   (SRDHM(acc, M) = SMMULR(2 acc, M), plus the offset 2^(e-1) + (zp << e)),
 *   ADD of the accumulator's sign (acc < 0 and SRDHM(acc, M) >= 0 only when
 *   the latter is 0, where the -1 changes nothing), ASR, SSAT (+ clamp when the
 *   activation range is narrower), STRB into the NHWC output.
 *   Odd rows / columns: the same code on 2x1 / 1x2 / 1x1 blocks.
 * - Other windows and channels: plain C over the plane (as the reference).
 * - MVE: four output columns per vector, vector-by-scalar VMLA (dwp_mve_plane).
 */
#include "mote/kernel.h"
#include "mote_s8_arm.h"
#include "mote_s8_planar.h"

MOTE_KERNEL("mote::depthwise_planar16_s8.out")

mote_err_t mote_kernel_mote_depthwise_planar16_s8_out(mote_kernel_ctx_t *ctx,
                                                      mote_value_t *const *args, uint32_t nargs);

#if !defined(MOTE_S8_MVE)
/** Plain C: channel c of image b, any window. */
static void dwp_plain_plane(const mote_s8_planar_params_t *q, int32_t b, int32_t c)
{
    const mote_s8_conv_params_t *p = &q->g;
    const int16_t *pl = q->pin + ((size_t)b * p->cout + c) * (size_t)q->hp * (size_t)q->wp;
    int8_t *out = p->output + (size_t)b * p->ho * p->wo * p->cout + c;
    int32_t oy, ox, ky, kx;
    for (oy = 0; oy < p->ho; oy++) {
        for (ox = 0; ox < p->wo; ox++) {
            uint32_t acc = (uint32_t)p->bias[c]; /* int32 wrap, UB-free */
            for (ky = 0; ky < p->kh; ky++) {
                const int16_t *xr = pl + (size_t)(oy * p->stride_h + ky * p->dil_h) * q->wp +
                                    (size_t)ox * p->stride_w;
                for (kx = 0; kx < p->kw; kx++) {
                    acc += (uint32_t)((int32_t)xr[kx * p->dil_w] *
                                      (int32_t)p->weight[((size_t)ky * p->kw + kx) * p->cout + c]);
                }
            }
            out[((size_t)oy * p->wo + ox) * p->cout] = mote_s8_finish(p, (int32_t)acc, c);
        }
    }
}
#endif


#if defined(MOTE_S8_MVE)
/** One 3x3 tap of stride 1: LDR of the weight, widening load, vector-by-scalar VMLA. */
#define DWM_TAP(ptr, woff)                                                                 \
    "ldr %[w], [%[wt], #" woff "]\n\t"                                                     \
    "vldrh.s32 q1, " ptr "\n\t"                                                            \
    "vmla.s32 q0, q1, %[w]\n\t"
/* requantize q0 (every shift negative, full int8 range), scatter four bytes, next pixel group */
#define DWM_TAIL                                                                           \
    "vqrdmulh.s32 q0, q0, q2\n\t"                                                          \
    "vshr.s32 q1, q0, #31\n\t"                                                             \
    "vqadd.s32 q0, q0, q1\n\t"                                                             \
    "vrshl.s32 q0, q0, q3\n\t"                                                             \
    "vqadd.s32 q0, q0, %[zp]\n\t"                                                          \
    "vqshl.s32 q0, q0, #24\n\t"                                                            \
    "vshr.s32 q0, q0, #24\n\t"                                                             \
    "vstrb.32 q0, [%[out], q4]\n\t"                                                        \
    "add %[out], %[out], %[ostep]\n\t"

/**
 * MVE, 3x3, one output row of a full-range channel whose shift is negative, in a
 * tail-predicated loop (DLSTP / LETP: the last group of fewer than four columns
 * is predicated by the loop itself): per four output columns VDUP of the bias,
 * nine (LDR weight, VLDRH.S32 / gather, VMLA), VQRDMULH, the -1 of negative
 * lanes (VSHR, VQADD), VRSHL, VQADD of the zero point, VQSHL #24 / VSHR #24 (the
 * int8 clamp), one VSTRB.32 scatter a pixel apart: 38 instructions (stride 1) /
 * 41 (stride 2, three offset vectors) per 36 MACs. The row pointers are low
 * registers ("l": VLDRH.S32 takes r0-r7 as base). wt: the nine weights, then
 * the multiplier, the shift and the output bytes between pixels, as int32.
 */
__attribute__((noinline)) static void dwm_row3x3(const int16_t *x, int32_t wpb, int32_t stride, const int32_t *wt,
                                                 int32_t bias, int32_t zp, int8_t *out, int32_t n)
{
    const int16_t *x1 = (const int16_t *)(const void *)((const uint8_t *)x + wpb);
    const int16_t *x2 = (const int16_t *)(const void *)((const uint8_t *)x1 + wpb);
    const int32_t ostep = 4 * wt[11];
    int32_t w;
    if (stride == 1) {
        __asm__ volatile(
            "ldr %[w], [%[wt], #36]\n\t"
            "vdup.32 q2, %[w]\n\t"
            "ldr %[w], [%[wt], #40]\n\t"
            "vdup.32 q3, %[w]\n\t"
            "movs %[w], #0\n\t"
            "vidup.u32 q4, %[w], #1\n\t"
            "ldr %[w], [%[wt], #44]\n\t"
            "vmul.i32 q4, q4, %[w]\n\t"
            "dlstp.32 lr, %[n]\n\t"
            "1:\n\t"
            "vdup.32 q0, %[bias]\n\t"
            DWM_TAP("[%[x], #2]", "4") DWM_TAP("[%[x], #4]", "8") DWM_TAP("[%[x]], #8", "0")
            DWM_TAP("[%[x1], #2]", "16") DWM_TAP("[%[x1], #4]", "20") DWM_TAP("[%[x1]], #8", "12")
            DWM_TAP("[%[x2], #2]", "28") DWM_TAP("[%[x2], #4]", "32") DWM_TAP("[%[x2]], #8", "24")
            DWM_TAIL
            "letp lr, 1b\n\t"
            : [x] "+&l"(x), [x1] "+&l"(x1), [x2] "+&l"(x2), [out] "+&r"(out), [w] "=&r"(w)
            : [wt] "r"(wt), [bias] "r"(bias), [zp] "r"(zp), [ostep] "r"(ostep), [n] "r"(n)
            : "q0", "q1", "q2", "q3", "q4", "lr", "cc", "memory");
    } else {
        __asm__ volatile(
            "ldr %[w], [%[wt], #36]\n\t"
            "vdup.32 q2, %[w]\n\t"
            "ldr %[w], [%[wt], #40]\n\t"
            "vdup.32 q3, %[w]\n\t"
            "movs %[w], #0\n\t"
            "vidup.u32 q4, %[w], #1\n\t"
            "movs %[w], #0\n\t"
            "vidup.u32 q5, %[w], #2\n\t" /* input elements 0, 2, 4, 6 (+ 1, + 2 for the taps) */
            "movs %[w], #1\n\t"
            "vadd.i32 q6, q5, %[w]\n\t"
            "vadd.i32 q7, q6, %[w]\n\t"
            "ldr %[w], [%[wt], #44]\n\t"
            "vmul.i32 q4, q4, %[w]\n\t"
            "dlstp.32 lr, %[n]\n\t"
            "1:\n\t"
            "vdup.32 q0, %[bias]\n\t"
            DWM_TAP("[%[x], q5, uxtw #1]", "0") DWM_TAP("[%[x], q6, uxtw #1]", "4")
            DWM_TAP("[%[x], q7, uxtw #1]", "8")
            DWM_TAP("[%[x1], q5, uxtw #1]", "12") DWM_TAP("[%[x1], q6, uxtw #1]", "16")
            DWM_TAP("[%[x1], q7, uxtw #1]", "20")
            DWM_TAP("[%[x2], q5, uxtw #1]", "24") DWM_TAP("[%[x2], q6, uxtw #1]", "28")
            DWM_TAP("[%[x2], q7, uxtw #1]", "32")
            "adds %[x], %[x], #16\n\t"
            "adds %[x1], %[x1], #16\n\t"
            "adds %[x2], %[x2], #16\n\t"
            DWM_TAIL
            "letp lr, 1b\n\t"
            : [x] "+&l"(x), [x1] "+&l"(x1), [x2] "+&l"(x2), [out] "+&r"(out), [w] "=&r"(w)
            : [wt] "r"(wt), [bias] "r"(bias), [zp] "r"(zp), [ostep] "r"(ostep), [n] "r"(n)
            : "q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "lr", "cc", "memory");
    }
}
#undef DWM_TAP
#undef DWM_TAIL

/**
 * MVE: one channel's plane, four output columns per vector: per tap one
 * widening load of four int16 inputs (VLDRH.S32; stride 2: a gather) and one
 * vector-by-scalar VMLA with the tap's weight (held in a register for the whole
 * plane, up to 3x3; larger windows read it from the weight tensor), then the
 * vector requantization (mote_s8_mve_requant) and one scatter store of four
 * bytes a pixel apart (VSTRB.32). The last columns are predicated.
 */
MOTE_S8_HOT static void dwp_mve_plane(const mote_s8_planar_params_t *q, int32_t b, int32_t c)
{
    const mote_s8_conv_params_t *p = &q->g;
    const int16_t *pl = q->pin + ((size_t)b * p->cout + c) * (size_t)q->hp * (size_t)q->wp;
    int8_t *out = p->output + (size_t)b * p->ho * p->wo * p->cout + c;
    const int32_t sw = p->stride_w, dw = p->dil_w, cout = p->cout;
    const uint32x4_t xoff = vmulq_n_u32(vidupq_n_u32(0u, 1), (uint32_t)sw);      /* elements */
    const uint32x4_t ooff = vmulq_n_u32(vidupq_n_u32(0u, 1), (uint32_t)cout);    /* bytes */
    const int32x4_t mult = vdupq_n_s32(p->mult[c]);
    const int32x4_t shift = vdupq_n_s32(p->shift[c]);
    const int32_t bias = p->bias[c];
    int32_t w9[9];
    const int k3 = p->kh == 3 && p->kw == 3 && dw == 1;
    int32_t oy, ox, ky, kx, t;
    int32_t w0, w1, w2, w3, w4, w5, w6, w7, w8;
    for (t = 0; t < 9; t++) {
        w9[t] = k3 ? p->weight[(size_t)t * cout + c] : 0;
    }
    w0 = w9[0];
    w1 = w9[1];
    w2 = w9[2];
    w3 = w9[3];
    w4 = w9[4];
    w5 = w9[5];
    w6 = w9[6];
    w7 = w9[7];
    w8 = w9[8];
    if (k3 && (sw == 1 || sw == 2) && p->act_min == -128 && p->act_max == 127 && p->shift[c] < 0) {
        int32_t tab[12];
        for (t = 0; t < 9; t++) {
            tab[t] = w9[t];
        }
        tab[9] = p->mult[c];
        tab[10] = p->shift[c];
        tab[11] = cout;
        for (oy = 0; oy < p->ho; oy++) {
            dwm_row3x3(pl + (size_t)(oy * p->stride_h) * q->wp, 2 * q->wp, sw, tab, bias, p->out_zp,
                       out + (size_t)oy * p->wo * cout, p->wo);
        }
        return;
    }
    for (oy = 0; oy < p->ho; oy++) {
        const int16_t *row = pl + (size_t)(oy * p->stride_h) * q->wp;
        int8_t *orow = out + (size_t)oy * p->wo * cout;
        for (ox = 0; ox < p->wo; ox += 4) {
            const mve_pred16_t pr = vctp32q((uint32_t)(p->wo - ox));
            const int16_t *x0 = row + (size_t)ox * sw;
            int32x4_t acc = vdupq_n_s32(bias);
            if (k3 && sw == 1 && ox + 4 <= p->wo) { /* unpredicated: nine loads, nine VMLA */
                const int16_t *x = x0;
                acc = vmlaq_n_s32(acc, vldrhq_s32(x), w0);
                acc = vmlaq_n_s32(acc, vldrhq_s32(x + 1), w1);
                acc = vmlaq_n_s32(acc, vldrhq_s32(x + 2), w2);
                x += q->wp;
                acc = vmlaq_n_s32(acc, vldrhq_s32(x), w3);
                acc = vmlaq_n_s32(acc, vldrhq_s32(x + 1), w4);
                acc = vmlaq_n_s32(acc, vldrhq_s32(x + 2), w5);
                x += q->wp;
                acc = vmlaq_n_s32(acc, vldrhq_s32(x), w6);
                acc = vmlaq_n_s32(acc, vldrhq_s32(x + 1), w7);
                acc = vmlaq_n_s32(acc, vldrhq_s32(x + 2), w8);
                acc = mote_s8_mve_requant(acc, mult, shift, p->out_zp, p->act_min, p->act_max);
                vstrbq_scatter_offset_s32(orow + (size_t)ox * cout, ooff, acc);
                continue;
            }
            if (k3 && sw == 1) {
                const int16_t *x = x0;
                for (ky = 0; ky < 3; ky++, x += q->wp) {
                    acc = vmlaq_n_s32(acc, vldrhq_z_s32(x, pr), w9[3 * ky]);
                    acc = vmlaq_n_s32(acc, vldrhq_z_s32(x + 1, pr), w9[3 * ky + 1]);
                    acc = vmlaq_n_s32(acc, vldrhq_z_s32(x + 2, pr), w9[3 * ky + 2]);
                }
            } else if (k3) {
                const int16_t *x = x0;
                for (ky = 0; ky < 3; ky++, x += q->wp) {
                    acc = vmlaq_n_s32(acc, vldrhq_gather_shifted_offset_z_s32(x, xoff, pr), w9[3 * ky]);
                    acc = vmlaq_n_s32(acc, vldrhq_gather_shifted_offset_z_s32(x + 1, xoff, pr), w9[3 * ky + 1]);
                    acc = vmlaq_n_s32(acc, vldrhq_gather_shifted_offset_z_s32(x + 2, xoff, pr), w9[3 * ky + 2]);
                }
            } else {
                for (ky = 0; ky < p->kh; ky++) {
                    const int16_t *x = x0 + (size_t)(ky * p->dil_h) * q->wp;
                    for (kx = 0; kx < p->kw; kx++) {
                        acc = vmlaq_n_s32(acc, vldrhq_gather_shifted_offset_z_s32(x + kx * dw, xoff, pr),
                                          p->weight[((size_t)ky * p->kw + kx) * cout + c]);
                    }
                }
            }
            acc = mote_s8_mve_requant(acc, mult, shift, p->out_zp, p->act_min, p->act_max);
            vstrbq_scatter_offset_p_s32(orow + (size_t)ox * cout, ooff, acc, pr);
        }
    }
}
#endif

mote_err_t mote_kernel_mote_depthwise_planar16_s8_out(mote_kernel_ctx_t *ctx,
                                                      mote_value_t *const *args, uint32_t nargs)
{
    mote_s8_planar_params_t q;
    const mote_s8_conv_params_t *p = &q.g;
    int32_t b, c;
    (void)ctx;
    MOTE_TRY(mote_s8_planar_dw_parse(args, nargs, &q));
    for (b = 0; b < p->n; b++) {
        for (c = 0; c < p->cout; c++) {
#if defined(MOTE_S8_DSP)
            dwp_ch_t k;
            if (p->kh == 3 && p->kw == 3 && p->dil_h == 1 && p->dil_w == 1 && p->stride_h == p->stride_w &&
                (p->stride_h == 1 || p->stride_h == 2) && dwp_channel(p, c, 0, &k)) {
                dwp_plane3x3(&k, q.pin + ((size_t)b * p->cout + c) * (size_t)q.hp * (size_t)q.wp, q.wp,
                             p->stride_h, p->ho, p->wo, p->output + (size_t)b * p->ho * p->wo * p->cout + c,
                             p->wo * p->cout, p->cout);
                continue;
            }
#endif
#if defined(MOTE_S8_MVE)
            dwp_mve_plane(&q, b, c);
#else
            dwp_plain_plane(&q, b, c);
#endif
        }
    }
    return MOTE_OK;
}
