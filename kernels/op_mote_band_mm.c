/*
 * mote::band_mm.out - fp32 matrix product by a constant banded weight, stored as
 * its bands: out[i, j] = sum_{t < len_j} input[i, lo_j + t] * values[off_j + t]
 * (+ bias[j]), off_j = len_0 + ... + len_{j-1}. What `mm` / `addmm` by a constant
 * weight whose columns are each zero outside one row range (a mel filterbank)
 * lower to (aot/compiler/passes/band_mm.py; storage, threshold and error bound:
 * aot/compiler/bandref.py, which computes the same floats).
 *
 *   args (5): input float32 [M, K], values float32 [P] (the bands, column 0
 *             first), bands int32 [N, 2] ((lo_j, len_j) per column), bias
 *             float32 [N] or None, out float32 [M, N].
 *   dtypes: float32; bands int32.
 *   scratch: none.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (ranks, out / bias sizes, a band outside
 *           [0, K), lengths not adding up to P): checked before anything is read.
 *   Each sum runs in row order in one float32 accumulator; a non-finite input
 *   outside a column's band makes that output NaN (inf * 0 in the dense product).
 *   out must not overlap the inputs.
 */
#include "kutil.h"

MOTE_KERNEL("mote::band_mm.out")

MOTE_K_DECLARE(mote_kernel_mote_band_mm_out);

/* The dot product of x[0..len) and v[0..len), in order. */
static float band_dot(const float *x, const float *v, size_t len)
{
    float acc = 0.0f;
    size_t t = 0;
    for (; t + 4u <= len; t += 4u) {
        acc += x[t] * v[t];
        acc += x[t + 1u] * v[t + 1u];
        acc += x[t + 2u] * v[t + 2u];
        acc += x[t + 3u] * v[t + 3u];
    }
    for (; t < len; t++) {
        acc += x[t] * v[t];
    }
    return acc;
}

/* 1 if f is inf or NaN (f - f is 0 for every finite f). */
static int band_nonfinite(float f)
{
    return !(f - f == 0.0f);
}

mote_err_t mote_kernel_mote_band_mm_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *in, *val, *band, *bias = NULL, *out;
    size_t m, k, n, p, i, j, total = 0;
    const float *x, *v, *b;
    const int32_t *bd;
    float *y;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 5));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_tensor(args[1], &val));
    MOTE_TRY(mote_k_tensor(args[2], &band));
    MOTE_TRY(mote_k_opt_tensor(args[3], &bias));
    MOTE_TRY(mote_k_tensor(args[4], &out));
    MOTE_CHECK(in->dtype == MOTE_DTYPE_FLOAT32 && val->dtype == MOTE_DTYPE_FLOAT32 &&
                   band->dtype == MOTE_DTYPE_INT32 && out->dtype == MOTE_DTYPE_FLOAT32 &&
                   (bias == NULL || bias->dtype == MOTE_DTYPE_FLOAT32),
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(in->dim == 2 && val->dim == 1 && band->dim == 2 && band->sizes[1] == 2 && out->dim == 2,
               MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(val));
    MOTE_TRY(mote_k_check_numel(band));
    MOTE_TRY(mote_k_check_numel(out));
    m = (size_t)in->sizes[0];
    k = (size_t)in->sizes[1];
    n = (size_t)band->sizes[0];
    p = (size_t)val->sizes[0];
    MOTE_CHECK((size_t)out->sizes[0] == m && (size_t)out->sizes[1] == n, MOTE_ERR_KERNEL_SHAPE);
    if (bias != NULL) {
        MOTE_TRY(mote_k_check_numel(bias));
        MOTE_CHECK(bias->dim == 1 && (size_t)bias->sizes[0] == n, MOTE_ERR_KERNEL_SHAPE);
    }
    bd = (const int32_t *)band->data;
    for (j = 0; j < n; j++) {
        const int32_t lo = bd[2u * j], len = bd[2u * j + 1u];
        MOTE_CHECK(lo >= 0 && len >= 0 && (size_t)lo <= k && (size_t)len <= k - (size_t)lo, MOTE_ERR_KERNEL_SHAPE);
        MOTE_CHECK((size_t)len <= p - total, MOTE_ERR_KERNEL_SHAPE); /* total <= p: no wrap */
        total += (size_t)len;
    }
    MOTE_CHECK(total == p, MOTE_ERR_KERNEL_SHAPE);
    x = (const float *)in->data;
    v = (const float *)val->data;
    b = bias != NULL ? (const float *)bias->data : NULL;
    y = (float *)out->data;
    for (i = 0; i < m; i++) {
        const size_t row = i * k;
        size_t off = 0, first = k, last = 0, t;
        float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f, bad = 0.0f;
        /* a finite sum proves a finite row (an inf or NaN term leaves every sum of it
           inf or NaN); else find its first and last non-finite value */
        for (t = 0; t + 4u <= k; t += 4u) {
            s0 += x[row + t];
            s1 += x[row + t + 1u];
            s2 += x[row + t + 2u];
            s3 += x[row + t + 3u];
        }
        for (; t < k; t++) {
            s0 += x[row + t];
        }
        if (band_nonfinite((s0 + s1) + (s2 + s3))) {
            for (t = 0; t < k; t++) {
                if (band_nonfinite(x[row + t])) {
                    first = t < first ? t : first;
                    last = t;
                }
            }
            if (first < k) {
                bad = x[row + first] * 0.0f; /* NaN, as inf * 0 in the dense product */
            }
        }
        for (j = 0; j < n; j++) {
            const size_t lo = (size_t)bd[2u * j], len = (size_t)bd[2u * j + 1u];
            float acc = len > 0u ? band_dot(&x[row + lo], &v[off], len) : 0.0f;
            if (first < k && (first < lo || last >= lo + len)) {
                acc = bad;
            }
            y[i * n + j] = b != NULL ? acc + b[j] : acc;
            off += len;
        }
    }
    return MOTE_OK;
}
