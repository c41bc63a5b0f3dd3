/*
 * kernels/fft.c - the real-input FFT cores of mote::rfft_mag / _q15 / _q31
 * (method, twiddles, fixed-point contract: fft.h).
 */
#include <math.h>
#include <string.h>

#include "fft.h"

/* The tensors, power and scratch of a call (mote_fft_args): input dtype in the `in_dtypes`
 * bit mask, twiddles `tw_dtype`, out args[out_index] of `out_dtype`, scratch values of `elem` bytes. */
static mote_err_t fft_check(const mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t out_index,
                            uint32_t in_dtypes, uint32_t tw_dtype, uint32_t out_dtype, uint32_t elem,
                            mote_fft_call_t *call)
{
    mote_tensor_t *in, *tw, *out;
    int64_t power;
    uint32_t n, d;
    size_t need;
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_tensor(args[1], &tw));
    MOTE_TRY(mote_k_int(args[2], &power));
    MOTE_TRY(mote_k_tensor(args[out_index], &out));
    MOTE_CHECK(power == 1 || power == 2, MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(in->dtype < 32u && ((in_dtypes >> in->dtype) & 1u) != 0u && tw->dtype == tw_dtype &&
                   out->dtype == out_dtype,
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(tw));
    MOTE_TRY(mote_k_check_numel(out));
    MOTE_CHECK(in->dim >= 1u && out->dim == in->dim && tw->dim == 1u, MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK(in->sizes[in->dim - 1u] >= 2, MOTE_ERR_KERNEL_SHAPE);
    n = (uint32_t)in->sizes[in->dim - 1u];
    MOTE_CHECK(n <= MOTE_FFT_MAX_N && (n & (n - 1u)) == 0u, MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK((uint32_t)tw->sizes[0] == n, MOTE_ERR_KERNEL_SHAPE);
    for (d = 0; d + 1u < in->dim; d++) {
        MOTE_CHECK(out->sizes[d] == in->sizes[d], MOTE_ERR_KERNEL_SHAPE);
    }
    MOTE_CHECK((uint32_t)out->sizes[in->dim - 1u] == n / 2u + 1u, MOTE_ERR_KERNEL_SHAPE);
    need = mote_fft_scratch_bytes(n, elem);
    MOTE_CHECK(ctx != NULL && ctx->scratch != NULL && ctx->scratch_size >= need &&
                   ((uintptr_t)ctx->scratch & 3u) == 0u,
               MOTE_ERR_KERNEL_SCRATCH);
    call->in = in;
    call->tw = tw;
    call->out = out;
    call->n = n;
    call->rows = mote_k_prod(in, 0, in->dim - 1u);
    call->power = (int32_t)power;
    return MOTE_OK;
}

mote_err_t mote_fft_args(const mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs,
                         mote_fft_op_t op, mote_fft_call_t *call)
{
    double scale = 1.0;
    int64_t shift = 0;
    if (op == MOTE_FFT_Q15) {
        MOTE_TRY(mote_k_nargs(args, nargs, 4));
        MOTE_TRY(fft_check(ctx, args, 3, 1u << MOTE_DTYPE_INT16, MOTE_DTYPE_INT16, MOTE_DTYPE_INT32, 2, call));
    } else if (op == MOTE_FFT_Q31) {
        MOTE_TRY(mote_k_nargs(args, nargs, 5));
        MOTE_TRY(mote_k_int(args[3], &shift));
        MOTE_CHECK(shift >= 0 && shift <= 62, MOTE_ERR_KERNEL_ARGS);
        MOTE_TRY(fft_check(ctx, args, 4, (1u << MOTE_DTYPE_INT16) | (1u << MOTE_DTYPE_INT32), MOTE_DTYPE_INT32,
                           MOTE_DTYPE_INT32, 4, call));
    } else {
        MOTE_TRY(mote_k_nargs(args, nargs, 5));
        MOTE_TRY(mote_k_double(args[3], &scale));
        MOTE_TRY(fft_check(ctx, args, 4, 1u << MOTE_DTYPE_FLOAT32, MOTE_DTYPE_FLOAT32, MOTE_DTYPE_FLOAT32, 4, call));
    }
    call->in_elem = call->in->dtype == MOTE_DTYPE_INT16 ? 2u : 4u;
    call->scale = (float)scale;
    call->shift = (int32_t)shift;
    return MOTE_OK;
}

/* The next index of a bit-reversed counter over [0, m) (m a power of two). */
static inline uint32_t fft_rev_next(uint32_t j, uint32_t m)
{
    uint32_t bit = m >> 1;
    while ((j & bit) != 0u) {
        j ^= bit;
        bit >>= 1;
    }
    return j | bit;
}

/*
 * fp32 stages in place on m complex values (bit-reversed order): the radix-2 stages
 * two at a time (span h and 2h over four values: each value loaded and stored once
 * per two stages; the second stage's odd twiddle W_4h^(j+h) is W_4h^j times -i, an
 * exact rotation), after one span-1 stage (W = 1) when log2(m) is odd.
 */
void mote_fft_stages_f32(float *z, const float *tw, uint32_t m)
{
    uint32_t half = 1, j, b, bits = 0;
    while ((1u << bits) < m) {
        bits++;
    }
    if (bits & 1u) {
        for (b = 0; b < m; b += 2u) {
            float *a = z + 2u * b;
            const float ar = a[0], ai = a[1], cr = a[2], ci = a[3];
            a[0] = ar + cr;
            a[1] = ai + ci;
            a[2] = ar - cr;
            a[3] = ai - ci;
        }
        half = 2;
    }
    for (; half < m; half <<= 2) {
        const uint32_t s1 = m / half, s2 = m / (2u * half), h2 = 2u * half;
        for (j = 0; j < half; j++) {
            const float w1c = tw[2u * j * s1], w1s = tw[2u * j * s1 + 1u];
            const float w2c = tw[2u * j * s2], w2s = tw[2u * j * s2 + 1u];
            for (b = j; b < m; b += 4u * half) {
                float *p0 = z + 2u * b, *p1 = p0 + h2, *p2 = p1 + h2, *p3 = p2 + h2;
                const float x0r = p0[0], x0i = p0[1], x1r = p1[0], x1i = p1[1];
                const float x2r = p2[0], x2i = p2[1], x3r = p3[0], x3i = p3[1];
                /* span h: (x0, x1), (x2, x3) by W_2h^j = w1c - i w1s */
                float tr = w1c * x1r + w1s * x1i, ti = w1c * x1i - w1s * x1r;
                const float y0r = x0r + tr, y0i = x0i + ti, y1r = x0r - tr, y1i = x0i - ti;
                float ur, ui;
                tr = w1c * x3r + w1s * x3i;
                ti = w1c * x3i - w1s * x3r;
                {
                    const float y2r = x2r + tr, y2i = x2i + ti, y3r = x2r - tr, y3i = x2i - ti;
                    /* span 2h: (y0, y2) by W_4h^j, (y1, y3) by W_4h^j (-i) */
                    tr = w2c * y2r + w2s * y2i;
                    ti = w2c * y2i - w2s * y2r;
                    ur = w2c * y3r + w2s * y3i;
                    ui = w2c * y3i - w2s * y3r;
                }
                p0[0] = y0r + tr;
                p0[1] = y0i + ti;
                p2[0] = y0r - tr;
                p2[1] = y0i - ti;
                /* (ur + i ui)(-i) = ui - i ur */
                p1[0] = y1r + ui;
                p1[1] = y1i - ur;
                p3[0] = y1r - ui;
                p3[1] = y1i + ur;
            }
        }
    }
}

void mote_fft_pack_f32(const float *x, uint32_t n, float *z)
{
    const uint32_t m = n / 2u;
    uint32_t i, j;
    for (i = 0, j = 0; i < m; i++) {
        z[2u * j] = x[2u * i];
        z[2u * j + 1u] = x[2u * i + 1u];
        j = fft_rev_next(j, m);
    }
}

void mote_fft_split_f32(const float *z, const float *tw, uint32_t n, int32_t power, float scale, float *out)
{
    const uint32_t m = n / 2u;
    uint32_t i;
    {
        const float r0 = z[0], i0 = z[1];
        const float dc = r0 + i0, ny = r0 - i0;
        out[0] = power == 2 ? scale * dc * dc : scale * fabsf(dc);
        out[m] = power == 2 ? scale * ny * ny : scale * fabsf(ny);
    }
    /* bins k and m - k together: X[m-k] = conj(E - W O) (W^(m-k) = -conj W^k), one pair of loads */
    for (i = 1; 2u * i <= m; i++) {
        const float a = z[2u * i], bb = z[2u * i + 1u];
        const float c = z[2u * (m - i)], d = z[2u * (m - i) + 1u];
        const float er = 0.5f * (a + c), ei = 0.5f * (bb - d);
        const float orr = 0.5f * (bb + d), oi = 0.5f * (c - a);
        const float wc = tw[2u * i], ws = tw[2u * i + 1u];
        const float pr = wc * orr + ws * oi, pi = wc * oi - ws * orr;
        const float xr = er + pr, xi = ei + pi, yr = er - pr, yi = ei - pi;
        const float p = xr * xr + xi * xi, q = yr * yr + yi * yi;
        out[i] = power == 2 ? scale * p : scale * sqrtf(p);
        out[m - i] = power == 2 ? scale * q : scale * sqrtf(q);
    }
}

void mote_fft_rfft_f32(const float *x, const float *tw, uint32_t n, int32_t power, float scale, float *work,
                       float *out)
{
    mote_fft_pack_f32(x, n, work);
    mote_fft_stages_f32(work, tw, n / 2u);
    mote_fft_split_f32(work, tw, n, power, scale, out);
}

void mote_fft_pack_q15(const int16_t *x, uint32_t n, uint32_t *z)
{
    const uint32_t m = n / 2u;
    uint32_t i, j;
    for (i = 0, j = 0; i < m; i++) {
        const uint32_t re = (uint32_t)(uint16_t)(int16_t)(x[2u * i] >> 1);
        const uint32_t im = (uint32_t)(uint16_t)(int16_t)(x[2u * i + 1u] >> 1);
        z[j] = re | (im << 16);
        j = fft_rev_next(j, m);
    }
}

void mote_fft_stages_q15(uint32_t *z, const int16_t *tw, uint32_t n)
{
    const uint32_t m = n / 2u;
    uint32_t half, j, b;
    for (half = 1; half < m; half <<= 1) {
        const uint32_t stride = m / half;
        for (j = 0; j < half; j++) {
            const int32_t wc = tw[2u * j * stride], ws = tw[2u * j * stride + 1u];
            for (b = j; b < m; b += 2u * half) {
                const int32_t ar = (int16_t)(z[b] & 0xFFFFu), ai = (int16_t)(z[b] >> 16);
                const int32_t cr = (int16_t)(z[b + half] & 0xFFFFu), ci = (int16_t)(z[b + half] >> 16);
                const int32_t tr = (wc * cr + ws * ci) >> 16, ti = (wc * ci - ws * cr) >> 16;
                const int32_t hr = ar >> 1, hi = ai >> 1;
                z[b] = (uint32_t)(uint16_t)(int16_t)(hr + tr) | ((uint32_t)(uint16_t)(int16_t)(hi + ti) << 16);
                z[b + half] = (uint32_t)(uint16_t)(int16_t)(hr - tr) | ((uint32_t)(uint16_t)(int16_t)(hi - ti) << 16);
            }
        }
    }
}

/* The nearest integer to sqrt(v), exactly. With a floating-point unit (or on a host)
 * from a float estimate corrected in integers (the result is the same integer), else
 * (or with MOTE_FFT_BIT_SQRT) bit by bit; v < 2^32 (fft_isqrt32_round) or v < 2^63
 * (fft_isqrt_round). */
#if (!defined(__arm__) || defined(__ARM_FP)) && !defined(MOTE_FFT_BIT_SQRT)
#define MOTE_FFT_FLOAT_SQRT 1
#endif

static uint32_t fft_isqrt32_round(uint32_t v)
{
#if defined(MOTE_FFT_FLOAT_SQRT)
    uint32_t r = (uint32_t)sqrtf((float)v); /* within 1 of floor(sqrt(v)) */
    while ((uint64_t)r * r > v) {
        r--;
    }
    while ((uint64_t)(r + 1u) * (r + 1u) <= v) {
        r++;
    }
#else
    uint32_t r = 0, bit = (uint32_t)1 << 30, rem = v;
    while (bit > rem) {
        bit >>= 2;
    }
    while (bit != 0u) {
        if (rem >= r + bit) {
            rem -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
        bit >>= 2;
    }
#endif
    /* r = floor(sqrt(v)); round up when v - r^2 > r (sqrt(v) > r + 1/2) */
    return v - r * r > r ? r + 1u : r;
}

static uint64_t fft_isqrt_round(uint64_t v)
{
#if defined(MOTE_FFT_FLOAT_SQRT)
    uint64_t r = (uint64_t)sqrtf((float)v); /* relative error ~2^-24: within ~2^8 for v < 2^63 */
    if (r > 0u) {
        /* one Newton step in float on the exact residual brings it within a few units */
        const int64_t d = (int64_t)(v - r * r);
        r = (uint64_t)((int64_t)r + (int64_t)((float)d / (2.0f * (float)r)));
    }
    while (r * r > v) {
        r--;
    }
    while ((r + 1u) * (r + 1u) <= v) {
        r++;
    }
#else
    uint64_t r = 0, bit = (uint64_t)1 << 62, rem = v;
    while (bit > rem) {
        bit >>= 2;
    }
    while (bit != 0u) {
        if (rem >= r + bit) {
            rem -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
        bit >>= 2;
    }
#endif
    return v - r * r > r ? r + 1u : r;
}

/* A Q15 bin from its real and imaginary parts in Q30: rounded to Q15, its power (Q30)
 * or rounded magnitude (Q15). */
static inline int32_t q15_out(int32_t xr30, int32_t xi30, int32_t power)
{
    const int32_t xr = (xr30 + 16384) >> 15, xi = (xi30 + 16384) >> 15;
    const uint32_t p = (uint32_t)(xr * xr) + (uint32_t)(xi * xi);
    return power == 2 ? (int32_t)p : (int32_t)fft_isqrt32_round(p);
}

/* Bins k and m - k from Z'[k] = zk, Z'[m-k] = zm and W^k = (wc, -ws): 2E = (a + c, b - d),
 * 2O = (b + d, c - a), P = (W 2O) >> 1; X'[k] = 2E * 2^14 + P and, as W^(m-k) = -conj W^k,
 * X'[m-k] = conj(2E * 2^14 - P), whose magnitude is that of 2E * 2^14 - P (Q30). Only
 * bin k when `both` is 0 (k = m/2). */
static inline void q15_pair(uint32_t zk, uint32_t zm, int32_t wc, int32_t ws, int32_t power, int32_t *outk,
                            int32_t *outm, int both)
{
    const int32_t a = (int16_t)(zk & 0xFFFFu), b = (int16_t)(zk >> 16);
    const int32_t c = (int16_t)(zm & 0xFFFFu), d = (int16_t)(zm >> 16);
    const int32_t er = (a + c) * 16384, ei = (b - d) * 16384, orr = b + d, oi = c - a;
    const int32_t pr = (wc * orr + ws * oi) >> 1, pi = (wc * oi - ws * orr) >> 1;
    *outk = q15_out(er + pr, ei + pi, power);
    if (both) {
        *outm = q15_out(er - pr, ei - pi, power);
    }
}

void mote_fft_split_q15(const uint32_t *z, const int16_t *tw, uint32_t n, int32_t power, int32_t *out)
{
    const uint32_t m = n / 2u;
    uint32_t k;
    int32_t unused;
    q15_pair(z[0], z[0], tw[0], tw[1], power, &out[0], &unused, 0);
    q15_pair(z[0], z[0], -(int32_t)tw[0], 0, power, &out[m], &unused, 0); /* W^m = -1 */
    for (k = 1; 2u * k < m; k++) {
        q15_pair(z[k], z[m - k], tw[2u * k], tw[2u * k + 1u], power, &out[k], &out[m - k], 1);
    }
    if (m >= 2u) {
        k = m / 2u;
        q15_pair(z[k], z[m - k], tw[2u * k], tw[2u * k + 1u], power, &out[k], &unused, 0);
    }
}

void mote_fft_rfft_q15(const int16_t *x, const int16_t *tw, uint32_t n, int32_t power, int16_t *work,
                       int32_t *out)
{
    uint32_t *z = (uint32_t *)(void *)work;
    mote_fft_pack_q15(x, n, z);
    mote_fft_stages_q15(z, tw, n);
    mote_fft_split_q15(z, tw, n, power, out);
}

void mote_fft_pack_q31(const void *x, int wide, uint32_t n, int32_t *z)
{
    const uint32_t m = n / 2u;
    uint32_t i, j;
    for (i = 0, j = 0; i < m; i++) {
        int32_t re, im;
        if (wide) {
            re = ((const int32_t *)x)[2u * i];
            im = ((const int32_t *)x)[2u * i + 1u];
        } else {
            re = (int32_t)((uint32_t)(int32_t)((const int16_t *)x)[2u * i] << 16);
            im = (int32_t)((uint32_t)(int32_t)((const int16_t *)x)[2u * i + 1u] << 16);
        }
        z[2u * j] = re >> 1;
        z[2u * j + 1u] = im >> 1;
        j = fft_rev_next(j, m);
    }
}

void mote_fft_stages_q31(int32_t *z, const int32_t *tw, uint32_t n, uint32_t first, uint32_t last)
{
    const uint32_t m = n / 2u;
    uint32_t half, j, b;
    for (half = first; half < m && half < last; half <<= 1) {
        const uint32_t stride = m / half;
        for (j = 0; j < half; j++) {
            const int64_t wc = tw[2u * j * stride], ws = tw[2u * j * stride + 1u];
            for (b = j; b < m; b += 2u * half) {
                int32_t *a = z + 2u * b, *c = z + 2u * (b + half);
                const int32_t tr = (int32_t)((wc * c[0] + ws * c[1]) >> 32);
                const int32_t ti = (int32_t)((wc * c[1] - ws * c[0]) >> 32);
                const int32_t hr = a[0] >> 1, hi = a[1] >> 1;
                a[0] = hr + tr;
                a[1] = hi + ti;
                c[0] = hr - tr;
                c[1] = hi - ti;
            }
        }
    }
}

/* A Q31 bin's power >> shift (rounded) or rounded magnitude, saturated to int32. */
static inline int32_t q31_out(int64_t xr, int64_t xi, int32_t power, int32_t shift)
{
    const uint64_t p = (uint64_t)(xr * xr) + (uint64_t)(xi * xi);
    uint64_t v;
    if (power == 2) {
        /* round half up: floor((floor(p / 2^(shift-1)) + 1) / 2) */
        v = shift > 0 ? ((p >> (shift - 1)) + 1u) >> 1 : p;
    } else {
        v = fft_isqrt_round(p);
    }
    return v > 2147483647u ? 2147483647 : (int32_t)v;
}

/* Bins k and m - k (only k unless `both`): E = (Z'[k] + conj Z'[m-k]) / 2,
 * O = (Z'[k] - conj Z'[m-k]) / 2i, floor; P = (W O) >> 31; X'[k] = E + P, and
 * |X'[m-k]| = |E - P| (W^(m-k) = -conj W^k). */
static inline void q31_pair(const int32_t *zk, const int32_t *zm, int64_t wc, int64_t ws, int32_t power,
                            int32_t shift, int32_t *outk, int32_t *outm, int both)
{
    const int64_t a = zk[0], bb = zk[1], c = zm[0], d = zm[1];
    const int64_t er = (a + c) >> 1, ei = (bb - d) >> 1, orr = (bb + d) >> 1, oi = (c - a) >> 1;
    const int64_t pr = (wc * orr + ws * oi) >> 31, pi = (wc * oi - ws * orr) >> 31;
    *outk = q31_out(er + pr, ei + pi, power, shift);
    if (both) {
        *outm = q31_out(er - pr, ei - pi, power, shift);
    }
}

void mote_fft_split_q31(const int32_t *z, const int32_t *tw, uint32_t n, int32_t power, int32_t shift,
                        int32_t *out)
{
    const uint32_t m = n / 2u;
    uint32_t k;
    int32_t unused;
    q31_pair(z, z, tw[0], tw[1], power, shift, &out[0], &unused, 0);
    q31_pair(z, z, -(int64_t)tw[0], 0, power, shift, &out[m], &unused, 0); /* W^m = -1 */
    for (k = 1; 2u * k < m; k++) {
        q31_pair(z + 2u * k, z + 2u * (m - k), tw[2u * k], tw[2u * k + 1u], power, shift, &out[k], &out[m - k], 1);
    }
    if (m >= 2u) {
        k = m / 2u;
        q31_pair(z + 2u * k, z + 2u * k, tw[2u * k], tw[2u * k + 1u], power, shift, &out[k], &unused, 0);
    }
}

void mote_fft_rfft_q31(const void *x, int wide, const int32_t *tw, uint32_t n, int32_t power, int32_t shift,
                       int32_t *work, int32_t *out)
{
    mote_fft_pack_q31(x, wide, n, work);
    mote_fft_stages_q31(work, tw, n, 1u, n);
    mote_fft_split_q31(work, tw, n, power, shift, out);
}
