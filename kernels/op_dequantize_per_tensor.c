/*
 * quantized_decomposed::dequantize_per_tensor.out(input, float scale, int zero_point,
 *     int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype, out)
 * int8/uint8/int16/int32 -> float32: out = (float)(q - zero_point) * (float)scale.
 * One of the two kernels at the int8 edges that do float math.
 *
 *   dtypes: input int8, uint8, int16 or int32; out float32.
 */
#include "mote/kernel.h"
#include "requant.h"

MOTE_KERNEL("quantized_decomposed::dequantize_per_tensor.out")

mote_err_t mote_kernel_quantized_decomposed_dequantize_per_tensor_out(mote_kernel_ctx_t *ctx,
                                                                     mote_value_t *const *args,
                                                                     uint32_t nargs);

mote_err_t mote_kernel_quantized_decomposed_dequantize_per_tensor_out(mote_kernel_ctx_t *ctx,
                                                                     mote_value_t *const *args,
                                                                     uint32_t nargs)
{
    mote_tensor_t *ti;
    mote_tensor_t *to;
    int32_t zp, qmin, qmax, dt;
    float scale;
    float *out;
    uint32_t i, n;
    (void)ctx;
    if (args == NULL || nargs != 8u) {
        return MOTE_ERR_KERNEL_ARGS;
    }
    if (args[1] == NULL || args[1]->tag != MOTE_TAG_DOUBLE) {
        return MOTE_ERR_KERNEL_ARGS;
    }
    scale = (float)args[1]->u.d;
    MOTE_TRY(mote_s8_int_arg(args[5], 0, 255, &dt));
    MOTE_TRY(mote_s8_int_arg(args[2], INT32_MIN, INT32_MAX, &zp));
    MOTE_TRY(mote_s8_int_arg(args[3], INT32_MIN, INT32_MAX, &qmin));
    MOTE_TRY(mote_s8_int_arg(args[4], INT32_MIN, INT32_MAX, &qmax));
    if (args[6] == NULL ||
        !(args[6]->tag == MOTE_TAG_NONE || args[6]->tag == MOTE_TAG_NULL ||
          (args[6]->tag == MOTE_TAG_INT && args[6]->u.i == MOTE_DTYPE_FLOAT32))) {
        return MOTE_ERR_KERNEL_DTYPE;
    }
    if (dt != MOTE_DTYPE_INT8 && dt != MOTE_DTYPE_UINT8 && dt != MOTE_DTYPE_INT16 &&
        dt != MOTE_DTYPE_INT32) {
        return MOTE_ERR_KERNEL_DTYPE;
    }
    MOTE_TRY(mote_s8_any_tensor_arg(args[0], (uint8_t)dt, &ti));
    MOTE_TRY(mote_s8_any_tensor_arg(args[7], MOTE_DTYPE_FLOAT32, &to));
    if (!mote_s8_same_shape(ti, to)) {
        return MOTE_ERR_KERNEL_SHAPE;
    }
    out = (float *)to->data;
    n = ti->numel; /* locals: the stores below may alias the tensor headers */
    if (dt != MOTE_DTYPE_INT32 && zp >= -(1 << 30) && zp <= (1 << 30)) {
        /* q - zp fits int32: the same float as through int64, one VCVT (no
           __aeabi_l2f call) */
        if (dt == MOTE_DTYPE_INT8) {
            const int8_t *x = (const int8_t *)ti->data;
            for (i = 0; i < n; i++) {
                out[i] = (float)((int32_t)x[i] - zp) * scale;
            }
        } else if (dt == MOTE_DTYPE_UINT8) {
            const uint8_t *x = (const uint8_t *)ti->data;
            for (i = 0; i < n; i++) {
                out[i] = (float)((int32_t)x[i] - zp) * scale;
            }
        } else {
            const int16_t *x = (const int16_t *)ti->data;
            for (i = 0; i < n; i++) {
                out[i] = (float)((int32_t)x[i] - zp) * scale;
            }
        }
        return MOTE_OK;
    }
    for (i = 0; i < n; i++) {
        int32_t q;
        switch (dt) {
        case MOTE_DTYPE_INT8: q = ((const int8_t *)ti->data)[i]; break;
        case MOTE_DTYPE_UINT8: q = ((const uint8_t *)ti->data)[i]; break;
        case MOTE_DTYPE_INT16: q = ((const int16_t *)ti->data)[i]; break;
        default: q = ((const int32_t *)ti->data)[i]; break;
        }
        out[i] = (float)((int64_t)q - zp) * scale;
    }
    return MOTE_OK;
}
