/*
 * quantized_decomposed::quantize_per_tensor.Tensor_out(input, Tensor scale, Tensor zero_point,
 *     int quant_min, int quant_max, ScalarType dtype, *, out)
 *
 * quantize_per_tensor.out with the scale / zero point in one-element tensors
 * (ExecuTorch's dynamic quantization feeds choose_qparams' outputs here):
 * q = clamp(round_half_even(x * (float)(1/scale)) + zp, quant_min, quant_max).
 *
 *   args (7): input float32, scale [1] float64/float32 (> 0), zero_point [1] int64/int32,
 *             quant_min/quant_max within dtype's range (min <= max), dtype int8/uint8/
 *             int16/int32, out (dtype, input's shape).
 *   errors: MOTE_ERR_KERNEL_ARGS, MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE.
 *
 *   dtypes: float32 input; out int8, uint8, int16 or int32; scale float64/float32, zero point int64/int32.
 */
#include "qdq.h"

MOTE_KERNEL("quantized_decomposed::quantize_per_tensor.Tensor_out")

MOTE_K_DECLARE(mote_kernel_quantized_decomposed_quantize_per_tensor_Tensor_out);

mote_err_t mote_kernel_quantized_decomposed_quantize_per_tensor_Tensor_out(mote_kernel_ctx_t *ctx,
                                                                          mote_value_t *const *args,
                                                                          uint32_t nargs)
{
    mote_k_qdq_args_t a;
    int64_t lo, hi;
    (void)ctx;
    MOTE_TRY(mote_k_qdq_tensor_args(args, nargs, 0, &a));
    MOTE_CHECK(a.scale > 0.0, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_k_qrange(a.dtype, &lo, &hi));
    MOTE_CHECK(a.qmin >= lo && a.qmax <= hi && a.qmin <= a.qmax, MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(a.in->dtype == MOTE_DTYPE_FLOAT32 && a.out->dtype == (uint8_t)a.dtype,
                 MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(mote_k_same_shape(a.in, a.out), MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(a.in));
    MOTE_TRY(mote_k_check_numel(a.out));
    mote_k_quantize_f32((const float *)a.in->data, a.in->numel, a.scale, a.zp, (int32_t)a.qmin,
                        (int32_t)a.qmax, a.out->dtype, a.out->data);
    return MOTE_OK;
}
