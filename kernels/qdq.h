/*
 * kernels/qdq.h - per-tensor quantize / dequantize loops shared by the
 * quantized_decomposed::{quantize,dequantize}_per_tensor.Tensor_out kernels
 * (scale and zero point passed as one-element tensors, as ExecuTorch's
 * dynamic-quantization programs do after choose_qparams). Same formulas as
 * op_quantize_per_tensor.c / op_dequantize_per_tensor.c. Internal.
 */
#ifndef MOTE_QDQ_H
#define MOTE_QDQ_H

#include "kutil.h"

/**
 * The scale and zero point held by one-element tensors: scale float64 or
 * float32, zero point int64 or int32 (within int32). Errors: KERNEL_ARGS
 * (tags, zero point range), KERNEL_DTYPE, KERNEL_SHAPE (numel != 1).
 */
mote_err_t mote_k_qparams(const mote_value_t *scale, const mote_value_t *zero_point, double *s,
                          int32_t *zp);

/** The arguments the two .Tensor_out kernels share. */
typedef struct mote_k_qdq_args {
    mote_tensor_t *in, *out;
    int64_t qmin, qmax, dtype; /* dtype: the quantized ScalarType argument */
    double scale;
    int32_t zp;
} mote_k_qdq_args_t;

/**
 * Parse (input, scale, zero_point, quant_min, quant_max, dtype, out) of
 * quantize_per_tensor.Tensor_out (dequant = 0, 7 args) or the same with a
 * ScalarType? out_dtype before out (dequant = 1, 8 args; its tag is checked
 * here, its value by the kernel). Ranges, dtypes and shapes are left to the
 * kernel, which checks them in its own order.
 */
mote_err_t mote_k_qdq_tensor_args(mote_value_t *const *args, uint32_t nargs, int dequant,
                                  mote_k_qdq_args_t *a);

/** Quantization range of an int8/uint8/int16/int32 dtype; KERNEL_DTYPE for others. */
mote_err_t mote_k_qrange(int64_t dtype, int64_t *lo, int64_t *hi);

/**
 * q[i] = clamp(round_half_even(x[i] * (float)(1/scale)) + zp, qmin, qmax) into `q`
 * of dtype `dt` (NaN -> zp, clamped), computed in float as torch does.
 */
void mote_k_quantize_f32(const float *x, size_t n, double scale, int32_t zp, int32_t qmin, int32_t qmax,
                         uint8_t dt, void *q);

/** y[i] = (float)(q[i] - zp) * (float)scale for q of dtype `dt`. */
void mote_k_dequantize_f32(const void *q, uint8_t dt, size_t n, double scale, int32_t zp, float *y);

#endif /* MOTE_QDQ_H */
