/*
 * mote::rfft_mag_window.out - mote::rfft_mag of each row times a window:
 * out[..., k] = scale * |X[k]|^power, X = rfft(float(input) * window) along the
 * last dim. What a front end's `pcm.float() * (1 / 32768) * window` followed by
 * rfft / stft and abs lowers to (aot/compiler/passes/spectrum.py, after the scale
 * joined the window: aot/compiler/passes/fold_scale.py): the cast and the window's
 * multiply run in the packing pass, as it reads each sample (mote_fft_rfft_window_f32),
 * not as two calls over the row. float(int16) is exact, and each windowed sample is the one float32
 * product the mul computed, so the bins are mote::rfft_mag's of the mul's output,
 * bit for bit. Method and twiddles: kernels/fft.h.
 *
 *   args (6): input int16 or float32 [..., N] (N a power of two, 2..65536),
 *             twiddles float32 [N], power int (1 or 2), scale float, window
 *             float32 [N], out float32 [..., N/2 + 1].
 *   dtypes: int16, float32 (input); float32 (twiddles, window, out).
 *   scratch: 4N bytes (the transform, as mote::rfft_mag).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, power), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (N, twiddle or window count, out shape),
 *           MOTE_ERR_KERNEL_SCRATCH.
 */
#include "fft.h"

MOTE_KERNEL("mote::rfft_mag_window.out")

MOTE_K_DECLARE(mote_kernel_mote_rfft_mag_window_out);

mote_err_t mote_kernel_mote_rfft_mag_window_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_fft_call_t call;
    size_t r;
    MOTE_TRY(mote_fft_args(ctx, args, nargs, MOTE_FFT_F32_WINDOW, &call));
    for (r = 0; r < call.rows; r++) {
        mote_fft_rfft_window_f32((const uint8_t *)call.in->data + r * call.n * call.in_elem, call.in_elem == 2u,
                                 (const float *)call.win->data, (const float *)call.tw->data, call.n, call.power,
                                 call.scale, (float *)ctx->scratch, (float *)call.out->data + r * (call.n / 2u + 1u));
    }
    return MOTE_OK;
}
