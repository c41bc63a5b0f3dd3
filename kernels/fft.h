/*
 * fft.h - the real-input FFT of mote::rfft_mag (fp32), mote::rfft_mag_q15 and
 * mote::rfft_mag_q31 (fixed point): the magnitude or power spectrum of each row
 * of a real signal, the complex spectrum never leaving the kernel.
 *
 * Method (every dtype): a row of N = 2M real samples (N a power of two, 2..65536)
 * is read as M complex samples z[m] = x[2m] + i x[2m+1], copied into scratch in
 * bit-reversed order, transformed in place by log2(M) radix-2 decimation-in-time
 * stages (fp32: fused two at a time into radix-4 passes, the first one reading the
 * samples in bit-reversed order itself; mote_fft_first_f32), then split into the N/2 + 1
 * bins of the real signal's DFT
 * X[k] = sum_n x[n] e^(-2 pi i k n / N): with Z = DFT_M(z), Z[M] = Z[0],
 *   E = (Z[k] + conj Z[M-k]) / 2, O = (Z[k] - conj Z[M-k]) / 2i, X[k] = E + W^k O,
 * W = e^(-2 pi i / N), and each bin written as |X[k]| or |X[k]|^2. Bins k and M - k
 * come from one pair of loads: as W^(M-k) = -conj W^k, |X[M-k]| = |E - W^k O| (the
 * fixed-point contract computes bins M/2 < k < M so, from their partner's E and W O;
 * fp32 computes 2E and 2O, without the halves, and scales the bins by 1/4 or 1/2 with
 * `scale`: the same values, exactly, short of float overflow).
 *
 * Twiddles are an argument (computed ahead of time by the compiler in float64,
 * aot/compiler/fftref.py, and stored with the program's constants): N values,
 * the pairs (cos 2 pi k / N, sin 2 pi k / N) for k < N/2, in the op's dtype
 * (float32; Q15 int16 and Q31 int32 rounded to nearest, 1.0 as the largest
 * value). Flash: 4N bytes (fp32, Q31) or 2N bytes (Q15) per distinct N.
 *
 * Fixed point (the arithmetic is the contract: aot/compiler/fftref.py computes
 * the same integers, and every build gives the same bytes): the packed samples
 * are halved (floor), each stage computes t = (W c) >> 16 (Q15) or >> 32 (Q31),
 * floor, and a' = (a >> 1) + t, c' = (a >> 1) - t, so the transform holds X / N
 * and no value overflows (|z| <= 2^(B-1) sqrt 2 for B = 16 or 32 bits, and a
 * butterfly never grows a magnitude beyond its inputs' largest plus 1).
 * Error bounds: docs/front-ends.md. The Cortex-M kernel of the Q15 op
 * (cmsis/op_mote_rfft_mag_q15.c) runs the same stages with the DSP extension.
 *
 * Scratch (ctx->scratch, planned by the compiler through
 * mote_scratch_mote_rfft_mag() in kernels/int8_scratch.c): the M complex values,
 * mote_fft_scratch_bytes(n, element bytes), 4-byte aligned.
 */
#ifndef MOTE_KERNELS_FFT_H
#define MOTE_KERNELS_FFT_H

#include "kutil.h"

/** Largest transform length. */
#define MOTE_FFT_MAX_N 65536u

/** Scratch bytes of one N-point real transform whose values take `elem` bytes
 *  (4: fp32 and Q31, 2: Q15): N values (M complex); 0 if n is not a power of two in [2, MOTE_FFT_MAX_N]. */
static inline size_t mote_fft_scratch_bytes(uint32_t n, uint32_t elem)
{
    if (n < 2u || n > MOTE_FFT_MAX_N || (n & (n - 1u)) != 0u) {
        return 0;
    }
    return (size_t)n * elem;
}

/** The four ops, for mote_fft_args. */
typedef enum mote_fft_op {
    MOTE_FFT_F32 = 0, /* mote::rfft_mag: input, twiddles, power, scale, out (float32) */
    MOTE_FFT_Q15 = 1, /* mote::rfft_mag_q15: input (int16), twiddles (int16), power, out (int32) */
    MOTE_FFT_Q31 = 2, /* mote::rfft_mag_q31: input (int16 or int32), twiddles (int32), power, shift, out (int32) */
    MOTE_FFT_F32_WINDOW = 3 /* mote::rfft_mag_window: input (int16 or float32), twiddles, power, scale,
                               window float32 [N], out (float32) */
} mote_fft_op_t;

/** A checked call of the three ops: input, twiddles and out tensors, N, the row count and the scalars. */
typedef struct mote_fft_call {
    const mote_tensor_t *in;
    const mote_tensor_t *tw;
    const mote_tensor_t *win; /* MOTE_FFT_F32_WINDOW: float32 [N]; else NULL */
    mote_tensor_t *out;
    uint32_t n;       /* transform length (input's last size) */
    size_t rows;      /* product of the leading sizes */
    int32_t power;    /* 1: magnitude, 2: power */
    uint32_t in_elem; /* bytes of an input element: 2 (int16) or 4 (float32, int32) */
    float scale;      /* MOTE_FFT_F32: args[3] as float; else 1 */
    int32_t shift;    /* MOTE_FFT_Q31: args[3] (0..62); else 0 */
} mote_fft_call_t;

/*
 * The argument checks of `op`, shared by the portable kernels (kernels/op_mote_rfft_mag*.c)
 * and the Cortex-M ones (cmsis/op_mote_rfft_mag*.c): nargs (5, 4 for MOTE_FFT_Q15, 6 for
 * MOTE_FFT_F32_WINDOW), args[3] (MOTE_FFT_F32 and _WINDOW: scale, a number; MOTE_FFT_Q31: shift,
 * an int in 0..62), then
 * args[0] input (rank >= 1, last size N a power of two in [2, MOTE_FFT_MAX_N], the op's
 * input dtype), args[1] twiddles (rank 1, N elements of the op's dtype), args[2] power
 * (1 or 2), the last arg out (in's sizes with the last N/2 + 1, the op's out dtype) and the
 * scratch (mote_fft_scratch_bytes(N, element bytes) bytes, 4-byte aligned), in that order; MOTE_FFT_F32_WINDOW
 * then args[4] window (float32, rank 1, N elements) into call->win (NULL for the others).
 * Errors: MOTE_ERR_KERNEL_ARGS (count/tags, power, shift), _DTYPE, _SHAPE, _SCRATCH.
 */
mote_err_t mote_fft_args(const mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs,
                         mote_fft_op_t op, mote_fft_call_t *call);

/** fp32: out row (N/2 + 1 floats) = scale * |X|^power of input row x (N floats). */
void mote_fft_rfft_f32(const float *x, const float *tw, uint32_t n, int32_t power, float scale, float *work,
                       float *out);
/** The same of the windowed row float(x[k]) * w[k] (x int16 when `int16`, else float32; w
 *  float32 [N]), each sample formed as the packing pass reads it: the bytes of
 *  mote_fft_rfft_f32 on the float32 products. */
void mote_fft_rfft_window_f32(const void *x, int int16, const float *w, const float *tw, uint32_t n, int32_t power,
                              float scale, float *work, float *out);

/** Q15: out row (N/2 + 1 int32) = |X/N| (Q15, rounded) or |X/N|^2 (Q30) of int16 row x. */
void mote_fft_rfft_q15(const int16_t *x, const int16_t *tw, uint32_t n, int32_t power, int16_t *work,
                       int32_t *out);

/** Q31: out row (N/2 + 1 int32) = |X/N| (Q31, rounded, saturated) or |X/N|^2 (Q62) >> shift
 *  (rounded, saturated) of row x: int16 (read as x << 16) or int32 (`wide`). */
void mote_fft_rfft_q31(const void *x, int wide, const int32_t *tw, uint32_t n, int32_t power, int32_t shift,
                       int32_t *work, int32_t *out);

/* The three steps of mote_fft_rfft_f32 (the M55 kernel, cmsis/op_mote_rfft_mag.c, runs
 * its own stages; speed builds of mote_fft_rfft_f32 run the power spectrum's last stage
 * pass and the split as one loop, kernels/fft.c, with the same bytes): a complex value
 * is two floats, real first. */
/** x (n floats) -> z (n floats): the sample pairs in bit-reversed order through the first
 *  stage (radix-4, spans 1 and 2, when log2(n/2) is even; else radix-2, span 1); returns
 *  the span of the next stage (4, 2; 1 for n = 2). */
uint32_t mote_fft_first_f32(const float *x, uint32_t n, float *z);
/** The stages of span `first` (mote_fft_first_f32's result) up to, not including, `last`
 *  (m: all) on the m = n/2 complex values of z, in place (radix-4: two radix-2 spans a pass). */
void mote_fft_stages_f32(float *z, const float *tw, uint32_t m, uint32_t first, uint32_t last);
/** z -> out (n/2 + 1 floats): the split into bins, scale * |X|^power. */
void mote_fft_split_f32(const float *z, const float *tw, uint32_t n, int32_t power, float scale, float *out);

/* The three steps of mote_fft_rfft_q15 (the Cortex-M kernel, cmsis/op_mote_rfft_mag_q15.c,
 * runs its own stages between the other two): a complex value is one word, the real
 * part in the low half. */
/** x (n int16) -> z (n/2 words): the halved sample pairs in bit-reversed order. */
void mote_fft_pack_q15(const int16_t *x, uint32_t n, uint32_t *z);
/** The log2(n/2) radix-2 stages in place on z (plain C). */
void mote_fft_stages_q15(uint32_t *z, const int16_t *tw, uint32_t n);
/** z (the stages' result) -> out (n/2 + 1 int32): the split into bins, magnitude or power. */
void mote_fft_split_q15(const uint32_t *z, const int16_t *tw, uint32_t n, int32_t power, int32_t *out);

/* The three steps of mote_fft_rfft_q31 (the M55 kernel, cmsis/op_mote_rfft_mag_q31.c,
 * runs its own stages of span >= 2): a complex value is two int32, real first. */
/** x (n int16 read as x << 16, or int32 if `wide`) -> z (n int32): halved pairs, bit-reversed. */
void mote_fft_pack_q31(const void *x, int wide, uint32_t n, int32_t *z);
/** The radix-2 stages of span `first` up to (not including) `last` in place on z (plain C). */
void mote_fft_stages_q31(int32_t *z, const int32_t *tw, uint32_t n, uint32_t first, uint32_t last);
/** z -> out (n/2 + 1 int32): the split into bins, magnitude or power >> shift. */
void mote_fft_split_q31(const int32_t *z, const int32_t *tw, uint32_t n, int32_t power, int32_t shift,
                        int32_t *out);

#endif
