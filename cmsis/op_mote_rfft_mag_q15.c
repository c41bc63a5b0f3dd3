/*
 * mote::rfft_mag_q15.out on Cortex-M (the kernels/op_mote_rfft_mag_q15.c contract,
 * arguments, checks and bytes; method kernels/fft.h). The radix-2 stages run
 * with the DSP extension (M33 / M4 / M7): a complex value is one word (real part
 * low), a butterfly is SMUAD + SMUSDX (the two Q30 sums of W c), PKHTB (both
 * >> 16, floor), SHADD16 (a >> 1, floor) and SADD16 / SSUB16, the same integers as
 * the plain C stages, two stages a pass on the M33 (fft_stages_dsp2); with MVE (M55) the stages of span >= 4 take four butterflies a
 * vector (fft_stages_mve). Packing and the split are the portable ones.
 *
 *   args (4): input int16 [..., N], twiddles int16 [N], power int (1 or 2), out int32 [..., N/2 + 1].
 *   dtypes: int16 input, int32 out.
 *   scratch: 2N bytes.
 *   errors: as kernels/op_mote_rfft_mag_q15.c.
 */
#include "mote_s8_arm.h"
#include "../kernels/fft.h"

MOTE_KERNEL("mote::rfft_mag_q15.out")

MOTE_K_DECLARE(mote_kernel_mote_rfft_mag_q15_out);

#if defined(MOTE_S8_DSP) || (defined(MOTE_S8_MVE) && defined(__ARM_FEATURE_DSP))
#include <arm_acle.h>
#define MOTE_FFT_DSP_STAGES 1

/* The stages of span `half` from `first` while half < `last`: per twiddle j, every
 * block's butterfly (j, j + half). */
MOTE_S8_HOT static void fft_stages_dsp(uint32_t *z, const int16_t *tw, uint32_t n, uint32_t first, uint32_t last)
{
    const uint32_t m = n / 2u;
    uint32_t half, j;
    for (half = first; half < m && half < last; half <<= 1) {
        const uint32_t stride = m / half;
        for (j = 0; j < half; j++) {
            int32_t w;
            uint32_t *p = z + j, *end = z + m;
            memcpy(&w, tw + 2u * j * stride, sizeof w);
            for (; p < end; p += 2u * half) {
                const int32_t a = (int32_t)p[0], c = (int32_t)p[half];
                const int32_t tr = __smuad(w, c), ti = __smusdx(w, c);
                int32_t t;
                __asm__("pkhtb %0, %1, %2, asr #16" : "=r"(t) : "r"(ti), "r"(tr));
                {
                    const int32_t ah = __shadd16(a, 0);
                    p[0] = (uint32_t)__sadd16(ah, t);
                    p[half] = (uint32_t)__ssub16(ah, t);
                }
            }
        }
    }
}
#endif

#if defined(MOTE_S8_DSP)
/* t = (W c) >> 16 per half: SMUAD, SMUSDX, PKHTB (floor). */
MOTE_S8_INLINE int32_t q15_twiddle(int32_t w, int32_t c)
{
    const int32_t tr = __smuad(w, c), ti = __smusdx(w, c);
    int32_t t;
    __asm__("pkhtb %0, %1, %2, asr #16" : "=r"(t) : "r"(ti), "r"(tr));
    return t;
}

MOTE_S8_INLINE uint32_t q15_word(const int16_t *tw, uint32_t k)
{
    uint32_t w;
    memcpy(&w, tw + 2u * k, sizeof w);
    return w;
}

/* All the stages two at a time (spans h and 2h over four values: each value loaded and
 * stored once per two stages), after one span-1 stage when log2(m) is odd: the same
 * butterflies, twiddles and integers as the span-by-span stages. */
MOTE_S8_HOT static void fft_stages_dsp2(uint32_t *z, const int16_t *tw, uint32_t n)
{
    const uint32_t m = n / 2u;
    uint32_t half = 1, bits = 0, j;
    while ((1u << bits) < m) {
        bits++;
    }
    if (bits & 1u) {
        fft_stages_dsp(z, tw, n, 1u, 2u);
        half = 2;
    }
    for (; half < m; half <<= 2) {
        const uint32_t s1 = m / half, s2 = m / (2u * half);
        for (j = 0; j < half; j++) {
            const int32_t w1 = (int32_t)q15_word(tw, j * s1), w2 = (int32_t)q15_word(tw, j * s2);
            const int32_t w3 = (int32_t)q15_word(tw, (j + half) * s2);
            uint32_t *p = z + j, *end = z + m;
            for (; p < end; p += 4u * half) {
                const int32_t x0 = (int32_t)p[0], x1 = (int32_t)p[half];
                const int32_t x2 = (int32_t)p[2u * half], x3 = (int32_t)p[3u * half];
                int32_t t = q15_twiddle(w1, x1), h = __shadd16(x0, 0);
                const int32_t y0 = __sadd16(h, t), y1 = __ssub16(h, t);
                int32_t y2, y3;
                t = q15_twiddle(w1, x3);
                h = __shadd16(x2, 0);
                y2 = __sadd16(h, t);
                y3 = __ssub16(h, t);
                t = q15_twiddle(w2, y2);
                h = __shadd16(y0, 0);
                p[0] = (uint32_t)__sadd16(h, t);
                p[2u * half] = (uint32_t)__ssub16(h, t);
                t = q15_twiddle(w3, y3);
                h = __shadd16(y1, 0);
                p[half] = (uint32_t)__sadd16(h, t);
                p[3u * half] = (uint32_t)__ssub16(h, t);
            }
        }
    }
}
#endif

#if defined(MOTE_S8_MVE) && defined(MOTE_FFT_DSP_STAGES)
#include <arm_mve.h>

/* Stages of span half >= 4, four butterflies a vector (int16x8: re, im of four values):
 * per group of four twiddles (one gather of their words), every block. VQDMLADH gives
 * 2(wc cr + ws ci) >> 16 in the real lanes, VQDMLSDHX 2(wc ci - ws cr) >> 16 in the
 * imaginary ones (|2s| < 2^31: no saturation), VSHR #1 makes both the DSP path's >> 16
 * (floor of a floor), then a >> 1 and VADD / VSUB: the same integers. */
MOTE_S8_HOT static void fft_stages_mve(uint32_t *z, const int16_t *tw, uint32_t n, uint32_t first)
{
    const uint32_t m = n / 2u;
    const int32_t *tw32 = (const int32_t *)(const void *)tw;
    uint32_t half, j, b;
    for (half = first; half < m; half <<= 1) {
        const uint32_t stride = m / half;
        const uint32x4_t lanes = vmulq_n_u32(vidupq_n_u32(0u, 1), stride);
        for (j = 0; j < half; j += 4u) {
            const int16x8_t w = vreinterpretq_s16_s32(
                vldrwq_gather_shifted_offset_s32(tw32, vaddq_n_u32(lanes, j * stride)));
            for (b = j; b < m; b += 2u * half) {
                int16_t *pa = (int16_t *)(void *)(z + b), *pc = (int16_t *)(void *)(z + b + half);
                const int16x8_t a = vld1q_s16(pa), c = vld1q_s16(pc);
                int16x8_t t = vqdmladhq_s16(vdupq_n_s16(0), w, c);
                t = vqdmlsdhxq_s16(t, c, w);
                t = vshrq_n_s16(t, 1);
                {
                    const int16x8_t ah = vshrq_n_s16(a, 1);
                    vst1q_s16(pa, vaddq_s16(ah, t));
                    vst1q_s16(pc, vsubq_s16(ah, t));
                }
            }
        }
    }
}
#endif

mote_err_t mote_kernel_mote_rfft_mag_q15_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_fft_call_t call;
    size_t r;
    MOTE_TRY(mote_fft_args(ctx, args, nargs, MOTE_FFT_Q15, &call));
    for (r = 0; r < call.rows; r++) {
        const int16_t *tw = (const int16_t *)call.tw->data;
        uint32_t *z = (uint32_t *)ctx->scratch;
        mote_fft_pack_q15((const int16_t *)call.in->data + r * call.n, call.n, z);
#if defined(MOTE_S8_MVE) && defined(MOTE_FFT_DSP_STAGES)
        fft_stages_dsp(z, tw, call.n, 1u, 4u); /* spans 1 and 2: fewer than four butterflies per twiddle run */
        fft_stages_mve(z, tw, call.n, 4u);
#elif defined(MOTE_S8_DSP)
        fft_stages_dsp2(z, tw, call.n);
#else
        mote_fft_stages_q15(z, tw, call.n);
#endif
        mote_fft_split_q15(z, tw, call.n, call.power, (int32_t *)call.out->data + r * (call.n / 2u + 1u));
    }
    return MOTE_OK;
}
