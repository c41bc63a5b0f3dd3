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
 */
#include "qdq.h"

MOTE_KERNEL("quantized_decomposed::quantize_per_tensor.Tensor_out")

MOTE_K_DECLARE(mote_kernel_quantized_decomposed_quantize_per_tensor_Tensor_out);

mote_err_t mote_kernel_quantized_decomposed_quantize_per_tensor_Tensor_out(mote_kernel_ctx_t *ctx,
                                                                          mote_value_t *const *args,
                                                                          uint32_t nargs)
{
    mote_tensor_t *in, *out;
    int64_t qmin, qmax, dt, lo, hi;
    double scale;
    int32_t zp;
    (void)ctx;
    MOTE_K_TRY(mote_k_nargs(args, nargs, 7));
    MOTE_K_TRY(mote_k_tensor(args[0], &in));
    MOTE_K_TRY(mote_k_int(args[3], &qmin));
    MOTE_K_TRY(mote_k_int(args[4], &qmax));
    MOTE_K_TRY(mote_k_int(args[5], &dt));
    MOTE_K_TRY(mote_k_tensor(args[6], &out));
    MOTE_K_TRY(mote_k_qparams(args[1], args[2], &scale, &zp));
    MOTE_K_CHECK(scale > 0.0, MOTE_ERR_KERNEL_ARGS);
    MOTE_K_TRY(mote_k_qrange(dt, &lo, &hi));
    MOTE_K_CHECK(qmin >= lo && qmax <= hi && qmin <= qmax, MOTE_ERR_KERNEL_ARGS);
    MOTE_K_CHECK(in->dtype == MOTE_DTYPE_FLOAT32 && out->dtype == (uint8_t)dt, MOTE_ERR_KERNEL_DTYPE);
    MOTE_K_CHECK(mote_k_same_shape(in, out), MOTE_ERR_KERNEL_SHAPE);
    MOTE_K_TRY(mote_k_check_numel(in));
    MOTE_K_TRY(mote_k_check_numel(out));
    mote_k_quantize_f32((const float *)in->data, in->numel, scale, zp, (int32_t)qmin, (int32_t)qmax,
                        out->dtype, out->data);
    return MOTE_OK;
}
