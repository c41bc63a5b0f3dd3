/*
 * mote::rfft_mag_q31.out on Cortex-M (the kernels/op_mote_rfft_mag_q31.c contract,
 * arguments, checks and bytes; method kernels/fft.h). With MVE (M55) the radix-2
 * stages of span >= 2 take two butterflies a vector (int32x4: re, im of two values):
 * VQDMLADH gives 2(wc cr + ws ci) >> 32 in the real lanes, VQDMLSDHX 2(wc ci - ws cr)
 * >> 32 in the imaginary ones (|2s| < 2^63: no saturation), VSHR #1 makes the plain
 * stages' >> 32 (floor of a floor), then a >> 1 and VADD / VSUB: the same integers.
 * The DSP extension adds nothing here (each 64-bit product is already one SMULL or
 * SMLAL): other cores run the plain stages.
 *
 *   args (5): input int16 or int32 [..., N], twiddles int32 [N], power int (1 or 2),
 *             shift int (0..62), out int32 [..., N/2 + 1].
 *   dtypes: int16 or int32 input, int32 out.
 *   scratch: 4N bytes.
 *   errors: as kernels/op_mote_rfft_mag_q31.c.
 */
#include "mote_s8_arm.h"
#include "../kernels/fft.h"

MOTE_KERNEL("mote::rfft_mag_q31.out")

MOTE_K_DECLARE(mote_kernel_mote_rfft_mag_q31_out);

#if defined(MOTE_S8_MVE)
#include <arm_mve.h>

MOTE_S8_HOT static void fft_stages_q31_mve(int32_t *z, const int32_t *tw, uint32_t n)
{
    const uint32_t m = n / 2u;
    uint32_t half, j, b;
    for (half = 2; half < m; half <<= 1) {
        const uint32_t stride = m / half;
        /* word offsets of (cos, sin) of twiddles j and j + 1 */
        const uint32x4_t lanes = vaddq_u32(vmulq_n_u32(vshrq_n_u32(vidupq_n_u32(0u, 1), 1), 2u * stride),
                                           vandq_u32(vidupq_n_u32(0u, 1), vdupq_n_u32(1u)));
        for (j = 0; j < half; j += 2u) {
            const int32x4_t w = vldrwq_gather_shifted_offset_s32(tw, vaddq_n_u32(lanes, 2u * j * stride));
            for (b = j; b < m; b += 2u * half) {
                int32_t *pa = z + 2u * b, *pc = z + 2u * (b + half);
                const int32x4_t a = vld1q_s32(pa), c = vld1q_s32(pc);
                int32x4_t t = vqdmladhq_s32(vdupq_n_s32(0), w, c);
                t = vqdmlsdhxq_s32(t, c, w);
                t = vshrq_n_s32(t, 1);
                {
                    const int32x4_t ah = vshrq_n_s32(a, 1);
                    vst1q_s32(pa, vaddq_s32(ah, t));
                    vst1q_s32(pc, vsubq_s32(ah, t));
                }
            }
        }
    }
}
#endif

mote_err_t mote_kernel_mote_rfft_mag_q31_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_fft_call_t call;
    size_t r;
    MOTE_TRY(mote_fft_args(ctx, args, nargs, MOTE_FFT_Q31, &call));
    for (r = 0; r < call.rows; r++) {
        const int32_t *tw = (const int32_t *)call.tw->data;
        int32_t *z = (int32_t *)ctx->scratch;
        mote_fft_pack_q31((const uint8_t *)call.in->data + r * call.n * call.in_elem, call.in_elem == 4u, call.n, z);
#if defined(MOTE_S8_MVE)
        mote_fft_stages_q31(z, tw, call.n, 1u, 2u);
        fft_stages_q31_mve(z, tw, call.n);
#else
        mote_fft_stages_q31(z, tw, call.n, 1u, call.n);
#endif
        mote_fft_split_q31(z, tw, call.n, call.power, call.shift,
                           (int32_t *)call.out->data + r * (call.n / 2u + 1u));
    }
    return MOTE_OK;
}
