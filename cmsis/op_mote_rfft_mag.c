/*
 * mote::rfft_mag.out on Cortex-M (the kernels/op_mote_rfft_mag.c contract and
 * checks; method kernels/fft.h). With MVE float (M55), after the portable first
 * pass (mote_fft_first_f32: the bit-reversed reads and spans 1 and 2, or 1), the
 * radix-2 stages take two butterflies a vector (float32x4: re, im of two values): the
 * twiddle product W c = conj(w) c, w = (cos, sin), is VCMUL #0 + VCMLA #270, then
 * VADD / VSUB. The results differ from the portable radix-4 stages only by the order
 * of float roundings (both within 1e-5 of the exact spectrum). Other cores run the
 * portable transform (the FPU's scalar code is what a DSP path would be).
 *
 *   args (5): input float32 [..., N], twiddles float32 [N], power int (1 or 2),
 *             scale float, out float32 [..., N/2 + 1].
 *   dtypes: float32.
 *   scratch: 4N bytes.
 *   errors: as kernels/op_mote_rfft_mag.c.
 */
#include "mote_s8_arm.h"
#include "../kernels/fft.h"

MOTE_KERNEL("mote::rfft_mag.out")

MOTE_K_DECLARE(mote_kernel_mote_rfft_mag_out);

#if defined(MOTE_S8_MVE) && (__ARM_FEATURE_MVE & 2)
#include <arm_mve.h>
#define MOTE_FFT_MVE_F 1

/* The radix-2 stages from span `first` (2 or 4: mote_fft_first_f32 ran the first one or two). */
MOTE_S8_HOT static void fft_stages_f32_mve(float *z, const float *tw, uint32_t m, uint32_t first)
{
    uint32_t half, j, b;
    for (half = first; half < m; half <<= 1) {
        const uint32_t stride = m / half;
        /* word offsets of (cos, sin) of twiddles j and j + 1 */
        const uint32x4_t lanes = vaddq_u32(vmulq_n_u32(vshrq_n_u32(vidupq_n_u32(0u, 1), 1), 2u * stride),
                                           vandq_u32(vidupq_n_u32(0u, 1), vdupq_n_u32(1u)));
        for (j = 0; j < half; j += 2u) {
            const float32x4_t w = vldrwq_gather_shifted_offset_f32(tw, vaddq_n_u32(lanes, 2u * j * stride));
            for (b = j; b < m; b += 2u * half) {
                float *pa = z + 2u * b, *pc = z + 2u * (b + half);
                const float32x4_t a = vld1q_f32(pa), c = vld1q_f32(pc);
                const float32x4_t t = vcmlaq_rot270_f32(vcmulq_f32(w, c), w, c);
                vst1q_f32(pa, vaddq_f32(a, t));
                vst1q_f32(pc, vsubq_f32(a, t));
            }
        }
    }
}
#endif

mote_err_t mote_kernel_mote_rfft_mag_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_fft_call_t call;
    size_t r;
    MOTE_TRY(mote_fft_args(ctx, args, nargs, MOTE_FFT_F32, &call));
    for (r = 0; r < call.rows; r++) {
        const float *x = (const float *)call.in->data + r * call.n, *tw = (const float *)call.tw->data;
        float *out = (float *)call.out->data + r * (call.n / 2u + 1u);
#if defined(MOTE_FFT_MVE_F)
        float *z = (float *)ctx->scratch;
        fft_stages_f32_mve(z, tw, call.n / 2u, mote_fft_first_f32(x, call.n, z));
        mote_fft_split_f32(z, tw, call.n, call.power, call.scale, out);
#else
        mote_fft_rfft_f32(x, tw, call.n, call.power, call.scale, (float *)ctx->scratch, out);
#endif
    }
    return MOTE_OK;
}
