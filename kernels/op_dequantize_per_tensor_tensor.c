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
 */
#include "qdq.h"

MOTE_KERNEL("quantized_decomposed::dequantize_per_tensor.Tensor_out")

MOTE_K_DECLARE(mote_kernel_quantized_decomposed_dequantize_per_tensor_Tensor_out);

mote_err_t mote_kernel_quantized_decomposed_dequantize_per_tensor_Tensor_out(mote_kernel_ctx_t *ctx,
                                                                            mote_value_t *const *args,
                                                                            uint32_t nargs)
{
    mote_tensor_t *in, *out;
    int64_t qmin, qmax, dt, lo, hi;
    double scale;
    int32_t zp;
    (void)ctx;
    MOTE_K_TRY(mote_k_nargs(args, nargs, 8));
    MOTE_K_TRY(mote_k_tensor(args[0], &in));
    MOTE_K_TRY(mote_k_int(args[3], &qmin));
    MOTE_K_TRY(mote_k_int(args[4], &qmax));
    MOTE_K_TRY(mote_k_int(args[5], &dt));
    MOTE_K_CHECK(mote_k_is_none(args[6]) || args[6]->tag == MOTE_TAG_INT, MOTE_ERR_KERNEL_ARGS);
    MOTE_K_TRY(mote_k_tensor(args[7], &out));
    MOTE_K_TRY(mote_k_qparams(args[1], args[2], &scale, &zp));
    MOTE_K_CHECK(mote_k_is_none(args[6]) || args[6]->u.i == MOTE_DTYPE_FLOAT32, MOTE_ERR_KERNEL_DTYPE);
    MOTE_K_TRY(mote_k_qrange(dt, &lo, &hi));
    MOTE_K_CHECK(in->dtype == (uint8_t)dt && out->dtype == MOTE_DTYPE_FLOAT32, MOTE_ERR_KERNEL_DTYPE);
    MOTE_K_CHECK(mote_k_same_shape(in, out), MOTE_ERR_KERNEL_SHAPE);
    MOTE_K_TRY(mote_k_check_numel(in));
    MOTE_K_TRY(mote_k_check_numel(out));
    mote_k_dequantize_f32(in->data, in->dtype, in->numel, scale, zp, (float *)out->data);
    return MOTE_OK;
}
