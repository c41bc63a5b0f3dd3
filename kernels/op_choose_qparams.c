/*
 * quantized_decomposed::choose_qparams.Tensor_out(input, int quant_min, int quant_max,
 *     float eps, ScalarType dtype, *, scale_out, zero_point_out)
 *
 * Per-tensor affine parameters from the input's range, as ExecuTorch's runtime
 * computes them (its dynamic-quantization programs call this before
 * quantize_per_tensor.Tensor_out); eps is accepted and unused, as there:
 *   [lo, hi] = [min(min(x), 0), max(max(x), 0)] in float
 *   scale = ((double)hi - lo) / (quant_max - quant_min); 0.1 if (float)scale is 0 or
 *           its float reciprocal overflows
 *   scale < 6.1e-5f: scale = 6.1e-5f and the range is stretched to match
 *           (hi or lo alone when the other is 0, else both by 6.1e-5f / (float)scale)
 *   zero point: from whichever end (lo -> quant_min, hi -> quant_max) has the smaller
 *           terms, clamped to [quant_min, quant_max], else rounded half to even.
 *
 *   args (7): input float32 (non-empty, no NaN), quant_min < quant_max (int32),
 *             eps double, dtype int, scale_out [1] float64, zero_point_out [1] int64.
 *   errors: MOTE_ERR_KERNEL_ARGS (tags, range, NaN input), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (empty input, outputs not one element).
 *
 *   dtypes: float32 input; scale_out float64, zero_point_out int64.
 */
#include <math.h>

#include "kutil.h"

MOTE_KERNEL("quantized_decomposed::choose_qparams.Tensor_out")
MOTE_KERNEL_OUTPUTS("quantized_decomposed::choose_qparams.Tensor_out", 2) /* scale_out, zero_point_out */

MOTE_K_DECLARE(mote_kernel_quantized_decomposed_choose_qparams_Tensor_out);

#define CQ_SMALL_SCALE 6.1e-5f

mote_err_t mote_kernel_quantized_decomposed_choose_qparams_Tensor_out(mote_kernel_ctx_t *ctx,
                                                                     mote_value_t *const *args,
                                                                     uint32_t nargs)
{
    mote_tensor_t *in, *so, *zo;
    int64_t qmin, qmax, dt;
    double eps, scale, zmin, zmax, emin, emax, z0;
    float lo, hi;
    const float *x;
    int64_t zp;
    uint32_t i;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 7));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_int(args[1], &qmin));
    MOTE_TRY(mote_k_int(args[2], &qmax));
    MOTE_TRY(mote_k_double(args[3], &eps));
    MOTE_TRY(mote_k_int(args[4], &dt));
    MOTE_TRY(mote_k_tensor(args[5], &so));
    MOTE_TRY(mote_k_tensor(args[6], &zo));
    (void)eps;
    (void)dt;
    MOTE_CHECK(qmin < qmax && qmin >= INT32_MIN && qmax <= INT32_MAX, MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(in->dtype == MOTE_DTYPE_FLOAT32 && so->dtype == MOTE_DTYPE_FLOAT64 &&
                     zo->dtype == MOTE_DTYPE_INT64,
                 MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(so));
    MOTE_TRY(mote_k_check_numel(zo));
    MOTE_CHECK(in->numel > 0 && so->numel == 1 && zo->numel == 1, MOTE_ERR_KERNEL_SHAPE);
    x = (const float *)in->data;
    for (i = 0; i < in->numel; i++) {
        MOTE_CHECK(x[i] == x[i], MOTE_ERR_KERNEL_ARGS);
    }
    lo = x[0];
    hi = x[0];
    for (i = 1; i < in->numel; i++) {
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    lo = lo < 0.0f ? lo : 0.0f;
    hi = hi > 0.0f ? hi : 0.0f;
    scale = ((double)hi - (double)lo) / (double)(qmax - qmin);
    if ((float)scale == 0.0f || isinf(1.0f / (float)scale)) {
        scale = 0.1;
    }
    if (scale < (double)CQ_SMALL_SCALE) {
        const float was = (float)scale;
        scale = (double)CQ_SMALL_SCALE;
        if (lo == 0.0f) {
            hi = CQ_SMALL_SCALE * (float)(qmax - qmin);
        } else if (hi == 0.0f) {
            lo = -CQ_SMALL_SCALE * (float)(qmax - qmin);
        } else {
            const float stretch = CQ_SMALL_SCALE / was;
            lo *= stretch;
            hi *= stretch;
        }
    }
    zmin = (double)qmin - (double)lo / scale;
    zmax = (double)qmax - (double)hi / scale;
    emin = fabs((double)qmin) - fabs((double)lo / scale);
    emax = fabs((double)qmax) - fabs((double)hi / scale);
    z0 = emin < emax ? zmin : zmax;
    if (z0 < (double)qmin) {
        zp = qmin;
    } else if (z0 > (double)qmax) {
        zp = qmax;
    } else {
        zp = (int64_t)nearbyint(z0);
    }
    ((double *)so->data)[0] = scale;
    ((int64_t *)zo->data)[0] = zp;
    return MOTE_OK;
}
