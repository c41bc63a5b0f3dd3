/*
 * quantized_decomposed::dequantize_per_tensor.Tensor_out(input, Tensor scale, Tensor zero_point,
 *     int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype, out)
 *
 * dequantize_per_tensor.out with the scale / zero point in one-element tensors
 * (ExecuTorch's dynamic quantization): out = (float)(q - zp) * (float)scale.
 *
 *   args (8): input (dtype), scale [1] float64/float32, zero_point [1] int64/int32,
 *             quant_min/quant_max int (unused, as in torch), dtype int8/uint8/int16/int32,
 *             out_dtype None or float32, out float32 (input's shape).
 *   errors: MOTE_ERR_KERNEL_ARGS, MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE.
 *
 *   dtypes: input int8, uint8, int16 or int32; out float32; scale float64/float32, zero point int64/int32.
 */
#include "qdq.h"

MOTE_KERNEL("quantized_decomposed::dequantize_per_tensor.Tensor_out")

MOTE_K_DECLARE(mote_kernel_quantized_decomposed_dequantize_per_tensor_Tensor_out);

mote_err_t mote_kernel_quantized_decomposed_dequantize_per_tensor_Tensor_out(mote_kernel_ctx_t *ctx,
                                                                            mote_value_t *const *args,
                                                                            uint32_t nargs)
{
    mote_k_qdq_args_t a;
    int64_t lo, hi; /* quant_min/quant_max are not checked against them, as in torch */
    (void)ctx;
    MOTE_TRY(mote_k_qdq_tensor_args(args, nargs, 1, &a));
    MOTE_CHECK(mote_k_is_none(args[6]) || args[6]->u.i == MOTE_DTYPE_FLOAT32, MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_k_qrange(a.dtype, &lo, &hi));
    MOTE_CHECK(a.in->dtype == (uint8_t)a.dtype && a.out->dtype == MOTE_DTYPE_FLOAT32,
                 MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(mote_k_same_shape(a.in, a.out), MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(a.in));
    MOTE_TRY(mote_k_check_numel(a.out));
    mote_k_dequantize_f32(a.in->data, a.in->dtype, a.in->numel, a.scale, a.zp, (float *)a.out->data);
    return MOTE_OK;
}
