/*
 * quantized_decomposed::dequantize_per_channel.out(input, Tensor scales, Tensor? zero_points,
 *     int axis, int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype, out)
 *
 * int8/uint8/int16/int32 -> float32 along `axis` (channel c = index on that axis):
 *   out = (float)(q - zero_points[c]) * scales[c]        scales float32
 *   out = (float)((double)(q - zero_points[c]) * scales[c])   scales float64
 * as torch's reference computes it (int subtraction, then one multiply in the
 * scales' dtype). ExecuTorch's q/dq programs use it for per-channel weights.
 *
 *   args (9): input (dtype `dtype`), scales [C] float32/float64, zero_points None or
 *             [C] int32/int64 (each within int32), axis int (negative counts from the
 *             end; C = input.sizes[axis]), quant_min/quant_max int (unused, as in torch),
 *             dtype int, out_dtype None or float32, out float32 (input's shape).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, axis, zero point range),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE.
 *
 *   dtypes: input int8, uint8, int16 or int32; out float32; scales float32/float64, zero points int32/int64.
 */
#include "kutil.h"

MOTE_KERNEL("quantized_decomposed::dequantize_per_channel.out")

MOTE_K_DECLARE(mote_kernel_quantized_decomposed_dequantize_per_channel_out);

/* Zero point of channel c (zp NULL: 0). */
static int64_t dqc_zp(const mote_tensor_t *zp, size_t c)
{
    if (zp == NULL) {
        return 0;
    }
    return zp->dtype == MOTE_DTYPE_INT64 ? ((const int64_t *)zp->data)[c]
                                         : (int64_t)((const int32_t *)zp->data)[c];
}

/* Element i of an integer tensor of dtype dt. */
static int64_t dqc_q(const void *data, uint8_t dt, size_t i)
{
    switch (dt) {
    case MOTE_DTYPE_INT8: return ((const int8_t *)data)[i];
    case MOTE_DTYPE_UINT8: return ((const uint8_t *)data)[i];
    case MOTE_DTYPE_INT16: return ((const int16_t *)data)[i];
    default: return ((const int32_t *)data)[i];
    }
}

mote_err_t mote_kernel_quantized_decomposed_dequantize_per_channel_out(mote_kernel_ctx_t *ctx,
                                                                       mote_value_t *const *args,
                                                                       uint32_t nargs)
{
    mote_tensor_t *in, *sc, *zp, *out;
    int64_t axis, qmin, qmax, dt;
    uint32_t ax;
    size_t nch, outer, inner, n, i, o, c, k;
    float *y;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 9));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_tensor(args[1], &sc));
    MOTE_TRY(mote_k_opt_tensor(args[2], &zp));
    MOTE_TRY(mote_k_int(args[3], &axis));
    MOTE_TRY(mote_k_int(args[4], &qmin));
    MOTE_TRY(mote_k_int(args[5], &qmax));
    MOTE_TRY(mote_k_int(args[6], &dt));
    MOTE_CHECK(mote_k_is_none(args[7]) ||
                     (args[7]->tag == MOTE_TAG_INT && args[7]->u.i == MOTE_DTYPE_FLOAT32),
                 args[7]->tag == MOTE_TAG_INT ? MOTE_ERR_KERNEL_DTYPE : MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_k_tensor(args[8], &out));
    MOTE_CHECK(in->dim >= 1, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_k_dim(axis, in->dim, &ax));
    /* dtypes */
    MOTE_CHECK(dt == MOTE_DTYPE_INT8 || dt == MOTE_DTYPE_UINT8 || dt == MOTE_DTYPE_INT16 ||
                     dt == MOTE_DTYPE_INT32,
                 MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(in->dtype == (uint8_t)dt && out->dtype == MOTE_DTYPE_FLOAT32, MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(sc->dtype == MOTE_DTYPE_FLOAT32 || sc->dtype == MOTE_DTYPE_FLOAT64,
                 MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(zp == NULL || zp->dtype == MOTE_DTYPE_INT64 || zp->dtype == MOTE_DTYPE_INT32,
                 MOTE_ERR_KERNEL_DTYPE);
    /* shapes */
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(sc));
    MOTE_CHECK(mote_k_same_shape(in, out), MOTE_ERR_KERNEL_SHAPE);
    nch = (size_t)in->sizes[ax];
    MOTE_CHECK(sc->dim == 1 && (size_t)sc->numel == nch, MOTE_ERR_KERNEL_SHAPE);
    if (zp != NULL) {
        MOTE_TRY(mote_k_check_numel(zp));
        MOTE_CHECK(zp->dim == 1 && (size_t)zp->numel == nch, MOTE_ERR_KERNEL_SHAPE);
        for (i = 0; i < nch; i++) {
            const int64_t z = dqc_zp(zp, i);
            MOTE_CHECK(z >= INT32_MIN && z <= INT32_MAX, MOTE_ERR_KERNEL_ARGS);
        }
    }
    n = in->numel;
    if (n == 0) {
        return MOTE_OK;
    }
    outer = mote_k_prod(in, 0, ax);
    inner = mote_k_prod(in, ax + 1, in->dim);
    y = (float *)out->data;
    i = 0;
    for (o = 0; o < outer; o++) {
        for (c = 0; c < nch; c++) {
            const int64_t z = dqc_zp(zp, c);
            if (sc->dtype == MOTE_DTYPE_FLOAT32) {
                const float s = ((const float *)sc->data)[c];
                for (k = 0; k < inner; k++, i++) {
                    y[i] = (float)(dqc_q(in->data, in->dtype, i) - z) * s;
                }
            } else {
                const double s = ((const double *)sc->data)[c];
                for (k = 0; k < inner; k++, i++) {
                    y[i] = (float)((double)(dqc_q(in->data, in->dtype, i) - z) * s);
                }
            }
        }
    }
    return MOTE_OK;
}
