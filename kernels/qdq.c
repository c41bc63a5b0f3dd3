/*
 * kernels/qdq.c - see qdq.h.
 */
#include <math.h>

#include "qdq.h"

mote_err_t mote_k_qparams(const mote_value_t *scale, const mote_value_t *zero_point, double *s,
                          int32_t *zp)
{
    mote_tensor_t *ts, *tz;
    int64_t z;
    MOTE_TRY(mote_k_tensor(scale, &ts));
    MOTE_TRY(mote_k_tensor(zero_point, &tz));
    MOTE_CHECK(ts->dtype == MOTE_DTYPE_FLOAT64 || ts->dtype == MOTE_DTYPE_FLOAT32, MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(tz->dtype == MOTE_DTYPE_INT64 || tz->dtype == MOTE_DTYPE_INT32, MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_k_check_numel(ts));
    MOTE_TRY(mote_k_check_numel(tz));
    MOTE_CHECK(ts->numel == 1 && tz->numel == 1, MOTE_ERR_KERNEL_SHAPE);
    *s = ts->dtype == MOTE_DTYPE_FLOAT64 ? ((const double *)ts->data)[0] : ((const float *)ts->data)[0];
    z = tz->dtype == MOTE_DTYPE_INT64 ? ((const int64_t *)tz->data)[0] : ((const int32_t *)tz->data)[0];
    MOTE_CHECK(z >= INT32_MIN && z <= INT32_MAX, MOTE_ERR_KERNEL_ARGS);
    *zp = (int32_t)z;
    return MOTE_OK;
}

mote_err_t mote_k_qdq_tensor_args(mote_value_t *const *args, uint32_t nargs, int dequant,
                                  mote_k_qdq_args_t *a)
{
    const uint32_t n = dequant ? 8u : 7u;
    MOTE_TRY(mote_k_nargs(args, nargs, n));
    MOTE_TRY(mote_k_tensor(args[0], &a->in));
    MOTE_TRY(mote_k_int(args[3], &a->qmin));
    MOTE_TRY(mote_k_int(args[4], &a->qmax));
    MOTE_TRY(mote_k_int(args[5], &a->dtype));
    if (dequant) {
        MOTE_CHECK(mote_k_is_none(args[6]) || args[6]->tag == MOTE_TAG_INT, MOTE_ERR_KERNEL_ARGS);
    }
    MOTE_TRY(mote_k_tensor(args[n - 1], &a->out));
    return mote_k_qparams(args[1], args[2], &a->scale, &a->zp);
}

mote_err_t mote_k_qrange(int64_t dtype, int64_t *lo, int64_t *hi)
{
    switch (dtype) {
    case MOTE_DTYPE_INT8: *lo = -128; *hi = 127; break;
    case MOTE_DTYPE_UINT8: *lo = 0; *hi = 255; break;
    case MOTE_DTYPE_INT16: *lo = -32768; *hi = 32767; break;
    case MOTE_DTYPE_INT32: *lo = INT32_MIN; *hi = INT32_MAX; break;
    default: return MOTE_ERR_KERNEL_DTYPE;
    }
    return MOTE_OK;
}

void mote_k_quantize_f32(const float *x, size_t n, double scale, int32_t zp, int32_t qmin, int32_t qmax,
                         uint8_t dt, void *q)
{
    const float inv = (float)(1.0 / scale), fmin = (float)qmin, fmax = (float)qmax;
    size_t i;
    for (i = 0; i < n; i++) {
        float v = rintf(x[i] * inv) + (float)zp;
        int32_t r;
        if (v != v) {
            v = (float)zp; /* NaN: the zero point, then clamped */
        }
        if (v <= fmin) {
            r = qmin;
        } else if (v >= fmax) {
            r = qmax;
        } else {
            r = (int32_t)v;
        }
        switch (dt) {
        case MOTE_DTYPE_INT8: ((int8_t *)q)[i] = (int8_t)r; break;
        case MOTE_DTYPE_UINT8: ((uint8_t *)q)[i] = (uint8_t)r; break;
        case MOTE_DTYPE_INT16: ((int16_t *)q)[i] = (int16_t)r; break;
        default: ((int32_t *)q)[i] = r; break;
        }
    }
}

void mote_k_dequantize_f32(const void *q, uint8_t dt, size_t n, double scale, int32_t zp, float *y)
{
    const float s = (float)scale;
    size_t i;
    for (i = 0; i < n; i++) {
        int32_t v;
        switch (dt) {
        case MOTE_DTYPE_INT8: v = ((const int8_t *)q)[i]; break;
        case MOTE_DTYPE_UINT8: v = ((const uint8_t *)q)[i]; break;
        case MOTE_DTYPE_INT16: v = ((const int16_t *)q)[i]; break;
        default: v = ((const int32_t *)q)[i]; break;
        }
        y[i] = (float)((int64_t)v - zp) * s;
    }
}
