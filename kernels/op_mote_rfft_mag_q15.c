/*
 * mote::rfft_mag_q15.out - magnitude or power spectrum of int16 rows, Q15 fixed
 * point (cores without an FPU, int8 pipelines): out[..., k] = |X[k] / N| rounded
 * (power 1, the input's units) or |X[k] / N|^2 (power 2, the input's units
 * squared: Q30 for Q15 samples), X the DFT of the row, k in [0, N/2]. The
 * arithmetic is the contract of kernels/fft.h (aot/compiler/fftref.py gives the
 * same integers; DSP builds use SMUAD/SMUSDX/PKHTB/SHADD16 for the stages).
 *
 *   args (4): input int16 [..., N] (N a power of two, 2..65536), twiddles int16
 *             [N] (Q15 (cos, sin)(2 pi k / N), k < N/2), power int (1 or 2),
 *             out int32 [..., N/2 + 1].
 *   dtypes: int16 input, int32 out.
 *   scratch: 2N bytes (mote_scratch_mote_rfft_mag_q15, kernels/int8_scratch.c).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, power), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (N, twiddle count, out shape), MOTE_ERR_KERNEL_SCRATCH.
 */
#include "fft.h"

MOTE_KERNEL("mote::rfft_mag_q15.out")

MOTE_K_DECLARE(mote_kernel_mote_rfft_mag_q15_out);

mote_err_t mote_kernel_mote_rfft_mag_q15_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_fft_call_t call;
    size_t r;
    MOTE_TRY(mote_fft_args(ctx, args, nargs, MOTE_FFT_Q15, &call));
    for (r = 0; r < call.rows; r++) {
        mote_fft_rfft_q15((const int16_t *)call.in->data + r * call.n, (const int16_t *)call.tw->data, call.n,
                          call.power, (int16_t *)ctx->scratch, (int32_t *)call.out->data + r * (call.n / 2u + 1u));
    }
    return MOTE_OK;
}
