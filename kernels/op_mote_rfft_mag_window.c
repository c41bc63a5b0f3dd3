/*
 * mote::rfft_mag_window.out - mote::rfft_mag of each row times a window:
 * out[..., k] = scale * |X[k]|^power, X = rfft(float(input) * window) along the
 * last dim. What a front end's `pcm.float() * (1 / 32768) * window` followed by
 * rfft / stft and abs lowers to (aot/compiler/passes/spectrum.py, after the scale
 * joined the window: aot/compiler/passes/fold_scale.py): the cast and the window's
 * multiply run in the pass that fills the transform's input, not as two calls over
 * the row. float(int16) is exact, and each windowed sample is the one float32
 * product the mul computed, so the bins are mote::rfft_mag's of the mul's output,
 * bit for bit. Method and twiddles: kernels/fft.h.
 *
 *   args (6): input int16 or float32 [..., N] (N a power of two, 2..65536),
 *             twiddles float32 [N], power int (1 or 2), scale float, window
 *             float32 [N], out float32 [..., N/2 + 1].
 *   dtypes: int16, float32 (input); float32 (twiddles, window, out).
 *   scratch: 8N bytes (the transform's N floats, then the windowed row's N).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, power), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (N, twiddle or window count, out shape),
 *           MOTE_ERR_KERNEL_SCRATCH.
 */
#include "fft.h"

MOTE_KERNEL("mote::rfft_mag_window.out")

MOTE_K_DECLARE(mote_kernel_mote_rfft_mag_window_out);

/* y[i] = float(x[i]) * w[i], i < n (int16 samples), four a pass. */
static void window_i16(const int16_t *x, const float *w, uint32_t n, float *y)
{
    uint32_t i = 0;
    for (; i + 4u <= n; i += 4u) {
        const float a = (float)x[i] * w[i], b = (float)x[i + 1u] * w[i + 1u];
        const float c = (float)x[i + 2u] * w[i + 2u], d = (float)x[i + 3u] * w[i + 3u];
        y[i] = a;
        y[i + 1u] = b;
        y[i + 2u] = c;
        y[i + 3u] = d;
    }
    for (; i < n; i++) {
        y[i] = (float)x[i] * w[i];
    }
}

/* y[i] = x[i] * w[i], i < n (float32 samples). */
static void window_f32(const float *x, const float *w, uint32_t n, float *y)
{
    uint32_t i;
    for (i = 0; i < n; i++) {
        y[i] = x[i] * w[i];
    }
}

mote_err_t mote_kernel_mote_rfft_mag_window_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_fft_call_t call;
    size_t r;
    float *const work = (float *)ctx->scratch;
    MOTE_TRY(mote_fft_args(ctx, args, nargs, MOTE_FFT_F32_WINDOW, &call));
    for (r = 0; r < call.rows; r++) {
        float *const row = work + call.n;
        if (call.in_elem == 2u) {
            window_i16((const int16_t *)call.in->data + r * call.n, (const float *)call.win->data, call.n, row);
        } else {
            window_f32((const float *)call.in->data + r * call.n, (const float *)call.win->data, call.n, row);
        }
        mote_fft_rfft_f32(row, (const float *)call.tw->data, call.n, call.power, call.scale, work,
                          (float *)call.out->data + r * (call.n / 2u + 1u));
    }
    return MOTE_OK;
}
