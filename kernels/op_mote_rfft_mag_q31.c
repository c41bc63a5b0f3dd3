/*
 * mote::rfft_mag_q31.out - magnitude or power spectrum of integer rows, Q31
 * fixed point (the precise fixed-point path: 31-bit values, 64-bit products):
 * with v the row as Q31 (int32 input as is, int16 input as x << 16),
 * out[..., k] = |V[k] / N| rounded and saturated to int32 (power 1) or
 * |V[k] / N|^2 / 2^shift rounded and saturated (power 2; |V/N|^2 is Q62 for a
 * Q31 row, so shift 31 gives Q31), V the DFT of v, k in [0, N/2]. Arithmetic:
 * kernels/fft.h (aot/compiler/fftref.py gives the same integers).
 *
 *   args (5): input int16 or int32 [..., N] (N a power of two, 2..65536),
 *             twiddles int32 [N] (Q31 (cos, sin)(2 pi k / N), k < N/2),
 *             power int (1 or 2), shift int (0..62), out int32 [..., N/2 + 1].
 *   dtypes: int16 or int32 input, int32 out.
 *   scratch: 4N bytes (mote_scratch_mote_rfft_mag_q31, kernels/int8_scratch.c).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, power, shift), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (N, twiddle count, out shape), MOTE_ERR_KERNEL_SCRATCH.
 */
#include "fft.h"

MOTE_KERNEL("mote::rfft_mag_q31.out")

MOTE_K_DECLARE(mote_kernel_mote_rfft_mag_q31_out);

mote_err_t mote_kernel_mote_rfft_mag_q31_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_fft_call_t call;
    size_t r;
    MOTE_TRY(mote_fft_args(ctx, args, nargs, MOTE_FFT_Q31, &call));
    for (r = 0; r < call.rows; r++) {
        mote_fft_rfft_q31((const uint8_t *)call.in->data + r * call.n * call.in_elem, call.in_elem == 4u,
                          (const int32_t *)call.tw->data, call.n, call.power, call.shift,
                          (int32_t *)ctx->scratch, (int32_t *)call.out->data + r * (call.n / 2u + 1u));
    }
    return MOTE_OK;
}
