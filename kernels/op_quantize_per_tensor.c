/*
 * quantized_decomposed::quantize_per_tensor.out(input, float scale, int zero_point,
 *     int quant_min, int quant_max, ScalarType dtype, *, out)
 * float32 -> int8/uint8/int16/int32: q = clamp(round_half_even(x * (1/scale)) + zp,
 * quant_min, quant_max), as torch computes it (1/scale in double, then float math).
 * One of the two kernels at the int8 edges that do float math.
 *
 *   dtypes: float32 input; out int8, uint8, int16 or int32.
 */
#include <math.h>

#include "mote/kernel.h"
#include "requant.h"
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
#include <arm_mve.h>
#endif

MOTE_KERNEL("quantized_decomposed::quantize_per_tensor.out")

mote_err_t mote_kernel_quantized_decomposed_quantize_per_tensor_out(mote_kernel_ctx_t *ctx,
                                                                   mote_value_t *const *args,
                                                                   uint32_t nargs);

/* One element: clamp(round_half_even(x * inv) + zp, qmin, qmax); NaN gives the
   zero point, clamped. */
static inline int32_t mote_quantize1(float x, float inv, int32_t zp, float fmin, float fmax,
                                     int32_t qmin, int32_t qmax)
{
    float v = rintf(x * inv) + (float)zp;
    if (v != v) {
        v = (float)zp;
        v = v < fmin ? fmin : (v > fmax ? fmax : v);
    }
    if (v <= fmin) {
        return qmin;
    }
    if (v >= fmax) {
        return qmax;
    }
    return (int32_t)v;
}

/* The same for |qmin|, |qmax| <= 2^15 (int8 / uint8 / int16: every bound a float, the
   clamped value converts exactly): NaN -> zp, then fmaxf / fminf (VMAXNM / VMINNM on
   an FPv5 core, no branches). */
static inline int32_t mote_quantize1_small(float x, float inv, float zpf, float fmin, float fmax)
{
    float v = rintf(x * inv) + zpf;
    v = v != v ? zpf : v;
    return (int32_t)fminf(fmaxf(v, fmin), fmax);
}

mote_err_t mote_kernel_quantized_decomposed_quantize_per_tensor_out(mote_kernel_ctx_t *ctx,
                                                                   mote_value_t *const *args,
                                                                   uint32_t nargs)
{
    mote_tensor_t *ti;
    mote_tensor_t *to;
    int32_t zp, qmin, qmax, dt;
    int64_t lo, hi;
    double scale;
    float inv, fmin, fmax, zpf;
    const float *in;
    uint32_t i, n;
    (void)ctx;
    if (args == NULL || nargs != 7u) {
        return MOTE_ERR_KERNEL_ARGS;
    }
    MOTE_TRY(mote_s8_any_tensor_arg(args[0], MOTE_DTYPE_FLOAT32, &ti));
    if (args[1] == NULL || args[1]->tag != MOTE_TAG_DOUBLE || !(args[1]->u.d > 0.0)) {
        return MOTE_ERR_KERNEL_ARGS;
    }
    scale = args[1]->u.d;
    MOTE_TRY(mote_s8_int_arg(args[5], 0, 255, &dt));
    switch (dt) {
    case MOTE_DTYPE_INT8: lo = -128; hi = 127; break;
    case MOTE_DTYPE_UINT8: lo = 0; hi = 255; break;
    case MOTE_DTYPE_INT16: lo = -32768; hi = 32767; break;
    case MOTE_DTYPE_INT32: lo = INT32_MIN; hi = INT32_MAX; break;
    default: return MOTE_ERR_KERNEL_DTYPE;
    }
    MOTE_TRY(mote_s8_any_tensor_arg(args[6], (uint8_t)dt, &to));
    if (!mote_s8_same_shape(ti, to)) {
        return MOTE_ERR_KERNEL_SHAPE;
    }
    MOTE_TRY(mote_s8_int_arg(args[2], INT32_MIN, INT32_MAX, &zp));
    MOTE_TRY(mote_s8_int_arg(args[3], lo, hi, &qmin));
    MOTE_TRY(mote_s8_int_arg(args[4], lo, hi, &qmax));
    MOTE_CHECK(qmin <= qmax, MOTE_ERR_KERNEL_ARGS);
    inv = (float)(1.0 / scale);
    fmin = (float)qmin;
    fmax = (float)qmax;
    in = (const float *)ti->data;
    n = ti->numel; /* locals: the stores below may alias the tensor headers */
    zpf = (float)zp;
    switch (dt) {
    case MOTE_DTYPE_INT8: {
        int8_t *o = (int8_t *)to->data;
        i = 0;
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
        /* MVE float (Cortex-M55): four a step, the same IEEE single operations:
           VMUL, VRINTN (ties to even, as rintf in the default rounding mode), VADD,
           NaN -> zero point (VCMP + VPSEL), VMAXNM / VMINNM, VCVT, narrowing store */
        for (; i + 4u <= n; i += 4u) {
            float32x4_t v = vaddq_n_f32(vrndnq_f32(vmulq_n_f32(vld1q_f32(in + i), inv)), zpf);
            v = vpselq_f32(v, vdupq_n_f32(zpf), vcmpeqq_f32(v, v));
            v = vminnmq_f32(vmaxnmq_f32(v, vdupq_n_f32(fmin)), vdupq_n_f32(fmax));
            vstrbq_s32(o + i, vcvtq_s32_f32(v));
        }
#endif
        for (; i < n; i++) {
            o[i] = (int8_t)mote_quantize1_small(in[i], inv, zpf, fmin, fmax);
        }
        break;
    }
    case MOTE_DTYPE_UINT8: {
        uint8_t *o = (uint8_t *)to->data;
        for (i = 0; i < n; i++) {
            o[i] = (uint8_t)mote_quantize1_small(in[i], inv, zpf, fmin, fmax);
        }
        break;
    }
    case MOTE_DTYPE_INT16: {
        int16_t *o = (int16_t *)to->data;
        for (i = 0; i < n; i++) {
            o[i] = (int16_t)mote_quantize1_small(in[i], inv, zpf, fmin, fmax);
        }
        break;
    }
    default: {
        int32_t *o = (int32_t *)to->data;
        for (i = 0; i < n; i++) {
            o[i] = mote_quantize1(in[i], inv, zp, fmin, fmax, qmin, qmax);
        }
        break;
    }
    }
    return MOTE_OK;
}
