/*
 * mote::rfft_mag.out - magnitude or power spectrum of real rows (fp32):
 * out[..., k] = scale * |X[k]|^power, X = torch.fft.rfft(input) along the last
 * dim, k in [0, N/2]. What `torch.fft.rfft(x).abs()`, `.abs() ** 2` and
 * `torch.stft(...).abs()` lower to (aot/compiler/passes/spectrum.py); the
 * complex spectrum stays in scratch. Method and twiddles: kernels/fft.h.
 *
 *   args (5): input float32 [..., N] (N a power of two, 2..65536), twiddles
 *             float32 [N] ((cos, sin)(2 pi k / N), k < N/2), power int (1 or 2),
 *             scale float, out float32 [..., N/2 + 1].
 *   dtypes: float32.
 *   scratch: 4N bytes (mote_scratch_mote_rfft_mag, kernels/int8_scratch.c).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, power), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (N, twiddle count, out shape), MOTE_ERR_KERNEL_SCRATCH.
 */
#include "fft.h"

MOTE_KERNEL("mote::rfft_mag.out")

MOTE_K_DECLARE(mote_kernel_mote_rfft_mag_out);

mote_err_t mote_kernel_mote_rfft_mag_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_fft_call_t call;
    size_t r;
    MOTE_TRY(mote_fft_args(ctx, args, nargs, MOTE_FFT_F32, &call));
    for (r = 0; r < call.rows; r++) {
        mote_fft_rfft_f32((const float *)call.in->data + r * call.n, (const float *)call.tw->data, call.n,
                          call.power, call.scale, (float *)ctx->scratch,
                          (float *)call.out->data + r * (call.n / 2u + 1u));
    }
    return MOTE_OK;
}
