/*
 * aten::native_layer_norm.out - nn.LayerNorm: each row of the last
 * len(normalized_shape) dims is normalized with its mean and biased variance,
 *   out0 = (x - mean) * rstd * weight + bias,  rstd = 1 / sqrt(var + eps).
 *
 *   args (8): input [*, normalized_shape], normalized_shape int[] (>= 1 dims,
 *             the trailing sizes of input), weight? and bias? (normalized_shape),
 *             eps float, out0 (input's shape), out1 (mean) and out2 (rstd), both
 *             [*, 1, .., 1] (input's rank, normalized dims as 1).
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE. out0 may alias input exactly (each row or group
 *           is read before it is written; not declared in place: several outs).
 */
#include <math.h>

#include "norm.h"

MOTE_KERNEL("aten::native_layer_norm.out")
MOTE_KERNEL_OUTPUTS("aten::native_layer_norm.out", 3) /* out, mean, rstd */

MOTE_K_DECLARE(mote_kernel_aten_native_layer_norm_out);

/* t is None, or float32 with exactly the sizes of normalized_shape */
static int mote_ln_param_ok(const mote_tensor_t *t, const int64_t *shape, uint32_t len)
{
    uint32_t d;
    if (t == NULL) {
        return 1;
    }
    if (t->dim != len) {
        return 0;
    }
    for (d = 0; d < len; d++) {
        if ((int64_t)t->sizes[d] != shape[d]) {
            return 0;
        }
    }
    return 1;
}

mote_err_t mote_kernel_aten_native_layer_norm_out(mote_kernel_ctx_t *ctx,
                                                  mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *in, *w, *b, *out, *mean, *rstd;
    const int64_t *shape;
    uint32_t len, axis, d;
    double eps;
    size_t rows, n, r;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 8));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_ints(args[1], &shape, &len));
    MOTE_TRY(mote_k_opt_tensor(args[2], &w));
    MOTE_TRY(mote_k_opt_tensor(args[3], &b));
    MOTE_TRY(mote_k_double(args[4], &eps));
    MOTE_TRY(mote_k_tensor(args[5], &out));
    MOTE_TRY(mote_k_tensor(args[6], &mean));
    MOTE_TRY(mote_k_tensor(args[7], &rstd));
    MOTE_CHECK(in->dtype == MOTE_DTYPE_FLOAT32 && out->dtype == MOTE_DTYPE_FLOAT32 &&
                   mean->dtype == MOTE_DTYPE_FLOAT32 && rstd->dtype == MOTE_DTYPE_FLOAT32 &&
                   (w == NULL || w->dtype == MOTE_DTYPE_FLOAT32) &&
                   (b == NULL || b->dtype == MOTE_DTYPE_FLOAT32),
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(len >= 1 && len <= in->dim, MOTE_ERR_KERNEL_SHAPE);
    axis = in->dim - len;
    for (d = 0; d < len; d++) {
        MOTE_CHECK((int64_t)in->sizes[axis + d] == shape[d], MOTE_ERR_KERNEL_SHAPE);
    }
    MOTE_CHECK(mote_ln_param_ok(w, shape, len) && mote_ln_param_ok(b, shape, len),
               MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK(mote_k_same_shape(in, out), MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK(mean->dim == in->dim && rstd->dim == in->dim, MOTE_ERR_KERNEL_SHAPE);
    for (d = 0; d < in->dim; d++) {
        const int32_t want = d < axis ? in->sizes[d] : 1;
        MOTE_CHECK(mean->sizes[d] == want && rstd->sizes[d] == want, MOTE_ERR_KERNEL_SHAPE);
    }
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(out));
    MOTE_TRY(mote_k_check_numel(mean));
    MOTE_TRY(mote_k_check_numel(rstd));
    rows = mote_k_prod(in, 0, axis);
    n = mote_k_prod(in, axis, in->dim);
    for (r = 0; r < rows; r++) {
        const float *x = (const float *)in->data + r * n;
        float *y = (float *)out->data + r * n;
        float mu, var, rs;
        size_t i;
        if (n == 0) {
            ((float *)mean->data)[r] = 0.0f;
            ((float *)rstd->data)[r] = 1.0f / sqrtf((float)eps);
            continue;
        }
        mote_norm_moments_f32(x, 1, n, n, &mu, &var);
        rs = 1.0f / sqrtf(var + (float)eps);
        if (w == NULL && b == NULL) {
            mote_norm_affine_f32(x, y, n, mu, rs, 0.0f);
        } else {
            const float *pw = w != NULL ? (const float *)w->data : NULL;
            const float *pb = b != NULL ? (const float *)b->data : NULL;
            for (i = 0; i < n; i++) {
                const float v = (x[i] - mu) * rs;
                y[i] = (pw != NULL ? v * pw[i] : v) + (pb != NULL ? pb[i] : 0.0f);
            }
        }
        ((float *)mean->data)[r] = mu;
        ((float *)rstd->data)[r] = rs;
    }
    return MOTE_OK;
}
