/*
 * kernels/norm.c - moments, affine rows, batch norm with batch statistics and
 * p-norm distances shared by the normalization and distance kernels (norm.h).
 */
#include <math.h>

#include "norm.h"

/*
 * sum(x[i] - k) (sq = 0) or sum((x[i] - k)^2) (sq = 1) over n floats:
 * four lanes inside chunks of 64 elements, chunk sums added up, so rounding
 * grows with about 16 + n / 64 additions instead of n.
 */
static float mote_norm_sum_f32(const float *x, size_t n, float k, int sq)
{
    float total = 0.0f;
    size_t c, i;
    for (c = 0; c < n; c += 64) {
        const size_t end = n - c < 64 ? n : c + 64;
        float l0 = 0.0f, l1 = 0.0f, l2 = 0.0f, l3 = 0.0f;
        for (i = c; i + 4 <= end; i += 4) {
            const float d0 = x[i] - k, d1 = x[i + 1] - k, d2 = x[i + 2] - k, d3 = x[i + 3] - k;
            l0 += sq ? d0 * d0 : d0;
            l1 += sq ? d1 * d1 : d1;
            l2 += sq ? d2 * d2 : d2;
            l3 += sq ? d3 * d3 : d3;
        }
        for (; i < end; i++) {
            const float d = x[i] - k;
            l0 += sq ? d * d : d;
        }
        total += (l0 + l1) + (l2 + l3);
    }
    return total;
}

void mote_norm_moments_f32(const float *x, size_t blocks, size_t len, size_t stride, float *mean,
                           float *var)
{
    size_t b;
    float sum = 0.0f, ss = 0.0f, mu;
    const float n = (float)(blocks * len);
    for (b = 0; b < blocks; b++) {
        sum += mote_norm_sum_f32(x + b * stride, len, 0.0f, 0);
    }
    mu = sum / n;
    for (b = 0; b < blocks; b++) {
        ss += mote_norm_sum_f32(x + b * stride, len, mu, 1);
    }
    *mean = mu;
    *var = ss / n;
}

void mote_norm_affine_f32(const float *x, float *y, size_t n, float mean, float scale, float shift)
{
    size_t i;
    for (i = 0; i < n; i++) {
        y[i] = (x[i] - mean) * scale + shift;
    }
}

static int mote_norm_vec_ok(const mote_tensor_t *t, size_t c)
{
    return t == NULL || (t->numel == c && t->dim == 1);
}

static int mote_norm_f32_or_null(const mote_tensor_t *t)
{
    return t == NULL || t->dtype == MOTE_DTYPE_FLOAT32;
}

mote_err_t mote_norm_batch_no_stats(mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *in, *w, *b, *out, *sm, *si;
    int training;
    double momentum, eps;
    size_t n, c, inner, j, i;
    MOTE_TRY(mote_k_nargs(args, nargs, 9));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_opt_tensor(args[1], &w));
    MOTE_TRY(mote_k_opt_tensor(args[2], &b));
    MOTE_TRY(mote_k_bool(args[3], &training));
    MOTE_TRY(mote_k_double(args[4], &momentum));
    MOTE_TRY(mote_k_double(args[5], &eps));
    MOTE_TRY(mote_k_tensor(args[6], &out));
    MOTE_TRY(mote_k_tensor(args[7], &sm));
    MOTE_TRY(mote_k_tensor(args[8], &si));
    (void)momentum; /* only moves running statistics, which this overload has none of */
    MOTE_CHECK(training, MOTE_ERR_KERNEL_ARGS);  /* no stats to normalize with otherwise */
    MOTE_CHECK(in->dtype == MOTE_DTYPE_FLOAT32 && out->dtype == MOTE_DTYPE_FLOAT32 &&
                   sm->dtype == MOTE_DTYPE_FLOAT32 && si->dtype == MOTE_DTYPE_FLOAT32 &&
                   mote_norm_f32_or_null(w) && mote_norm_f32_or_null(b),
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(in->dim >= 2, MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(in));
    n = (size_t)in->sizes[0];
    c = (size_t)in->sizes[1];
    inner = mote_k_prod(in, 2, in->dim);
    MOTE_CHECK(mote_norm_vec_ok(w, c) && mote_norm_vec_ok(b, c), MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK(mote_k_same_shape(in, out), MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK(sm->dim == 1 && sm->numel == c && si->dim == 1 && si->numel == c, MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK(n * inner > 0, MOTE_ERR_KERNEL_SHAPE); /* torch: one value per channel at least */
    for (j = 0; j < c; j++) {
        float mu, var, invstd, scale, shift;
        mote_norm_moments_f32((const float *)in->data + j * inner, n, inner, c * inner, &mu, &var);
        invstd = 1.0f / sqrtf(var + (float)eps);
        scale = invstd * (w != NULL ? ((const float *)w->data)[j] : 1.0f);
        shift = b != NULL ? ((const float *)b->data)[j] : 0.0f;
        for (i = 0; i < n; i++) {
            const size_t at = (i * c + j) * inner;
            mote_norm_affine_f32((const float *)in->data + at, (float *)out->data + at, inner, mu,
                                 scale, shift);
        }
        ((float *)sm->data)[j] = mu;
        ((float *)si->data)[j] = invstd;
    }
    return MOTE_OK;
}

float mote_norm_dist_f32(const float *a, const float *b, size_t m, double p)
{
    size_t i;
    float acc = 0.0f;
    if (p == 0.0) {
        for (i = 0; i < m; i++) {
            acc += a[i] != b[i] ? 1.0f : 0.0f;
        }
        return acc;
    }
    if (p == 1.0) {
        for (i = 0; i < m; i++) {
            acc += fabsf(a[i] - b[i]);
        }
        return acc;
    }
    if (p == 2.0) {
        for (i = 0; i < m; i++) {
            const float d = a[i] - b[i];
            acc += d * d;
        }
        return sqrtf(acc);
    }
    if (isinf(p)) {
        for (i = 0; i < m; i++) {
            const float d = fabsf(a[i] - b[i]);
            acc = d > acc || d != d ? d : acc;
        }
        return acc;
    }
    {
        const float pf = (float)p;
        for (i = 0; i < m; i++) {
            acc += powf(fabsf(a[i] - b[i]), pf);
        }
        return powf(acc, 1.0f / pf);
    }
}
