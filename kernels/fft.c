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
    call->win = NULL;
    if (op == MOTE_FFT_Q15) {
        MOTE_TRY(mote_k_nargs(args, nargs, 4));
        MOTE_TRY(fft_check(ctx, args, 3, 1u << MOTE_DTYPE_INT16, MOTE_DTYPE_INT16, MOTE_DTYPE_INT32, 2, call));
    } else if (op == MOTE_FFT_Q31) {
        MOTE_TRY(mote_k_nargs(args, nargs, 5));
        MOTE_TRY(mote_k_int(args[3], &shift));
        MOTE_CHECK(shift >= 0 && shift <= 62, MOTE_ERR_KERNEL_ARGS);
        MOTE_TRY(fft_check(ctx, args, 4, (1u << MOTE_DTYPE_INT16) | (1u << MOTE_DTYPE_INT32), MOTE_DTYPE_INT32,
                           MOTE_DTYPE_INT32, 4, call));
    } else if (op == MOTE_FFT_F32_WINDOW) {
        mote_tensor_t *win;
        MOTE_TRY(mote_k_nargs(args, nargs, 6));
        MOTE_TRY(mote_k_double(args[3], &scale));
        MOTE_TRY(fft_check(ctx, args, 5, (1u << MOTE_DTYPE_INT16) | (1u << MOTE_DTYPE_FLOAT32), MOTE_DTYPE_FLOAT32,
                           MOTE_DTYPE_FLOAT32, 4, call));
        MOTE_TRY(mote_k_tensor(args[4], &win));
        MOTE_CHECK(win->dtype == MOTE_DTYPE_FLOAT32, MOTE_ERR_KERNEL_DTYPE);
        MOTE_TRY(mote_k_check_numel(win));
        MOTE_CHECK(win->dim == 1u && (uint32_t)win->sizes[0] == call->n, MOTE_ERR_KERNEL_SHAPE);
        call->win = win;
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

/* Thumb-2 has RBIT (reverse the 32 bits of a register, one instruction): the packing pass
 * computes each bit-reversed index from its counter; elsewhere a bit-reversed counter
 * (fft_rev_next) steps along. The indices, not the arithmetic, differ: same bytes. */
#if defined(__GNUC__) && defined(__thumb2__)
#define MOTE_FFT_RBIT 1
static inline uint32_t fft_rbit(uint32_t v)
{
    uint32_t r;
    __asm__("rbit %0, %1" : "=r"(r) : "r"(v));
    return r;
}
#endif

/* One radix-4 butterfly's outputs (the radix-2 spans h and 2h of four values at
 * distance h, fused) from x0 and the twiddled A = W^2j x1, B = W^j x2, C = W^3j x3:
 * o0 = (x0 + A) + (B + C), o2 = (x0 + A) - (B + C), o1 = (x0 - A) - i (B - C),
 * o3 = (x0 - A) + i (B - C). */
static inline void fft_r4_store(float *o0, float *o1, float *o2, float *o3, float x0r, float x0i, float ar,
                                float ai, float br, float bi, float cr, float ci)
{
    const float s0r = x0r + ar, s0i = x0i + ai, d0r = x0r - ar, d0i = x0i - ai;
    const float s1r = br + cr, s1i = bi + ci, d1r = br - cr, d1i = bi - ci;
    o0[0] = s0r + s1r;
    o0[1] = s0i + s1i;
    o2[0] = s0r - s1r;
    o2[1] = s0i - s1i;
    o1[0] = d0r + d1i; /* -i (d1r + i d1i) = d1i - i d1r */
    o1[1] = d0i - d1r;
    o3[0] = d0r - d1i;
    o3[1] = d0i + d1r;
}

/*
 * fp32 packing pass: z (m complex values) = the first stage(s) of the transform of the
 * sample pairs of x taken in bit-reversed order, the reordering folded into the loads.
 * log2(m) even: a radix-4 pass (spans 1 and 2, W = 1, -i): output group g (values
 * 4g..4g+3) reads the pairs r, r + m/2, r + m/4, r + 3m/4, r = rev(g) over m/4;
 * odd: one radix-2 pass (span 1, W = 1): values 2g, 2g + 1 from pairs r, r + m/2,
 * r = rev(g) over m/2. Returns the span of the first stage left (4, 2; m = 1: 1).
 */
/* The packing pass's sample k: x[k] (FFT_SRC_F32), or the windowed sample, the one
 * float32 product of mote::rfft_mag_window's contract: x[k] * w[k] (FFT_SRC_F32_WIN) or
 * float(x[k]) * w[k] (FFT_SRC_I16_WIN; the int16 -> float conversion is exact). */
enum { FFT_SRC_F32 = 0, FFT_SRC_F32_WIN = 1, FFT_SRC_I16_WIN = 2 };

#if defined(__GNUC__)
#define FFT_FIRST_INLINE static inline __attribute__((always_inline))
#else
#define FFT_FIRST_INLINE static inline
#endif

FFT_FIRST_INLINE float fft_ld(const void *x, const float *w, int src, uint32_t k)
{
    if (src == FFT_SRC_I16_WIN) {
        return (float)((const int16_t *)x)[k] * w[k];
    }
    return src == FFT_SRC_F32_WIN ? ((const float *)x)[k] * w[k] : ((const float *)x)[k];
}

/* The packing pass (above) reading its samples through fft_ld (`src` a constant: each
 * caller gets its own copy of the loops). */
FFT_FIRST_INLINE uint32_t fft_first(const void *x, const float *w, int src, uint32_t n, float *z)
{
    const uint32_t m = n / 2u;
    uint32_t bits = 0, g, cnt;
#if !defined(MOTE_FFT_RBIT)
    uint32_t j = 0;
#endif
    while ((1u << bits) < m) {
        bits++;
    }
    if (m < 2u) {
        z[0] = fft_ld(x, w, src, 0u);
        z[1] = fft_ld(x, w, src, 1u);
        return 1u;
    }
    if (bits & 1u) {
        cnt = m / 2u;
        for (g = 0; g < cnt; g++) {
#if defined(MOTE_FFT_RBIT)
            const uint32_t a = fft_rbit(g) >> (32u - bits); /* 2 rev(g): bits - 1 bits, times 2 */
#else
            const uint32_t a = 2u * j;
#endif
            const float x0r = fft_ld(x, w, src, a), x0i = fft_ld(x, w, src, a + 1u);
            const float x1r = fft_ld(x, w, src, a + m), x1i = fft_ld(x, w, src, a + m + 1u);
            float *o = z + 4u * g;
            o[0] = x0r + x1r;
            o[1] = x0i + x1i;
            o[2] = x0r - x1r;
            o[3] = x0i - x1i;
#if !defined(MOTE_FFT_RBIT)
            j = fft_rev_next(j, cnt);
#endif
        }
        return 2u;
    }
    cnt = m / 4u;
    for (g = 0; g < cnt; g++) {
#if defined(MOTE_FFT_RBIT)
        const uint32_t a = fft_rbit(g) >> (33u - bits); /* 2 rev(g): bits - 2 bits, times 2 */
#else
        const uint32_t a = 2u * j;
#endif
        const uint32_t a1 = a + m, a2 = a + m / 2u, a3 = a2 + m;
        float *o = z + 8u * g;
        fft_r4_store(o, o + 2, o + 4, o + 6, fft_ld(x, w, src, a), fft_ld(x, w, src, a + 1u),
                     fft_ld(x, w, src, a1), fft_ld(x, w, src, a1 + 1u), fft_ld(x, w, src, a2),
                     fft_ld(x, w, src, a2 + 1u), fft_ld(x, w, src, a3), fft_ld(x, w, src, a3 + 1u));
#if !defined(MOTE_FFT_RBIT)
        j = fft_rev_next(j, cnt);
#endif
    }
    return 4u;
}

uint32_t mote_fft_first_f32(const float *x, uint32_t n, float *z)
{
    return fft_first(x, NULL, FFT_SRC_F32, n, z);
}

/* Speed builds inline the stage loops below into specialised copies (one per twiddle case)
 * and fuse the power spectrum's last pass with the split (MOTE_FFT_FUSED: about 2 KiB of
 * code on the M33); --opt size (MOTE_OPT_SIZE 1) keeps one general copy and no fusion.
 * Same bytes either way. */
#if !(defined(MOTE_OPT_SIZE) && MOTE_OPT_SIZE)
#define MOTE_FFT_FUSED 1
#endif
#if defined(__GNUC__) && defined(MOTE_FFT_FUSED)
#define MOTE_FFT_INLINE static inline __attribute__((always_inline))
#else
#define MOTE_FFT_INLINE static inline
#endif

/* The butterflies j = j0 .. j0 + count - 1 of one radix-4 block: the four values p + 2j,
 * + d, + 2d, + 3d (floats), twiddles W^j, W^2j, W^3j at the table's k, 2k and 3k
 * (k = j s; each (cos, sin) of W = cos - i sin); `neg`: 3k >= m, W^3j = -W_N^(3k - m). */
MOTE_FFT_INLINE void fft_r4_run(float *p, uint32_t d, uint32_t count, const float *tw, uint32_t k, uint32_t s,
                                uint32_t m, int neg)
{
    float *p1 = p + d, *p2 = p1 + d, *p3 = p2 + d;
    for (; count != 0u; count--, k += s) {
        const float *t3 = tw + (neg ? 6u * k - 2u * m : 6u * k);
        const float c1 = tw[2u * k], s1 = tw[2u * k + 1u], c2 = tw[4u * k], s2 = tw[4u * k + 1u];
        const float c3 = neg ? -t3[0] : t3[0], s3 = neg ? -t3[1] : t3[1];
        const float x1r = p1[0], x1i = p1[1], x2r = p2[0], x2i = p2[1], x3r = p3[0], x3i = p3[1];
        /* W x with W = c - i s: (c xr + s xi) + i (c xi - s xr) */
        fft_r4_store(p, p1, p2, p3, p[0], p[1], c2 * x1r + s2 * x1i, c2 * x1i - s2 * x1r, c1 * x2r + s1 * x2i,
                     c1 * x2i - s1 * x2r, c3 * x3r + s3 * x3i, c3 * x3i - s3 * x3r);
        p += 2;
        p1 += 2;
        p2 += 2;
        p3 += 2;
    }
}

/* The butterfly j of `count` radix-4 blocks `step` floats apart from p (p + 2j), twiddles
 * (c1, s1) = W^j, (c2, s2) = W^2j, (c3, s3) = W^3j. */
MOTE_FFT_INLINE void fft_r4_col(float *p, uint32_t d, uint32_t step, uint32_t count, float c1, float s1,
                                float c2, float s2, float c3, float s3)
{
    for (; count != 0u; count--, p += step) {
        float *p1 = p + d, *p2 = p1 + d, *p3 = p2 + d;
        const float x1r = p1[0], x1i = p1[1], x2r = p2[0], x2i = p2[1], x3r = p3[0], x3i = p3[1];
        fft_r4_store(p, p1, p2, p3, p[0], p[1], c2 * x1r + s2 * x1i, c2 * x1i - s2 * x1r, c1 * x2r + s1 * x2i,
                     c1 * x2i - s1 * x2r, c3 * x3r + s3 * x3i, c3 * x3i - s3 * x3r);
    }
}

void mote_fft_stages_f32(float *z, const float *tw, uint32_t m, uint32_t first, uint32_t last)
{
    uint32_t h, b, j;
    for (h = first; 4u * h <= m && h < last; h <<= 2) {
        const uint32_t s = m / (2u * h), d = 2u * h, jw = (2u * h + 2u) / 3u; /* first j with 3 j s >= m */
        if (m >= 16u * h) { /* four blocks or more: each twiddle triple loaded once, its column of blocks */
            const uint32_t blocks = m / (4u * h);
            for (b = 0; b < m; b += 4u * h) {
                float *p = z + 2u * b, *p1 = p + d, *p2 = p1 + d, *p3 = p2 + d;
                fft_r4_store(p, p1, p2, p3, p[0], p[1], p1[0], p1[1], p2[0], p2[1], p3[0], p3[1]);
            }
            for (j = 1; j < h; j++) {
                const int neg = j >= jw;
                const float *t1 = tw + 2u * s * j, *t2 = tw + 4u * s * j;
                const float *t3 = tw + (neg ? 6u * s * j - 2u * m : 6u * s * j);
                fft_r4_col(z + 2u * j, d, 8u * h, blocks, t1[0], t1[1], t2[0], t2[1], neg ? -t3[0] : t3[0],
                           neg ? -t3[1] : t3[1]);
            }
        } else { /* few blocks: along each block, the twiddle indices stepping */
            for (b = 0; b < m; b += 4u * h) {
                float *p = z + 2u * b, *p1 = p + d, *p2 = p1 + d, *p3 = p2 + d;
                fft_r4_store(p, p1, p2, p3, p[0], p[1], p1[0], p1[1], p2[0], p2[1], p3[0], p3[1]);
                fft_r4_run(p + 2, d, jw - 1u, tw, s, s, m, 0);
                fft_r4_run(p + 2u * jw, d, h - jw, tw, s * jw, s, m, 1);
            }
        }
    }
}

/* Bins k and m - k of the split from Z[k] = (a, b), Z[m-k] = (c, d) and W^k = (wc, -ws), doubled
 * (exactly: the halves of E and O dropped): 2E = (a + c, b - d), 2O = (b + d, c - a),
 * *p = |2E + W 2O|^2 = 4 |X[k]|^2, *q = |2E - W 2O|^2 = 4 |X[m-k]|^2 (W^(m-k) = -conj W^k). */
static inline void fft_split_pair(const float *zk, const float *zm, const float *w, float *p, float *q)
{
    const float a = zk[0], b = zk[1], c = zm[0], d = zm[1], wc = w[0], ws = w[1];
    const float er = a + c, ei = b - d, orr = b + d, oi = c - a;
    const float pr = wc * orr + ws * oi, pi = wc * oi - ws * orr;
    const float xr = er + pr, xi = ei + pi, yr = er - pr, yi = ei - pi;
    *p = xr * xr + xi * xi;
    *q = yr * yr + yi * yi;
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
    /* bins k and m - k together (k = m/2 twice, the second kept), one pair of loads; the
     * factor 4 (power) or 2 (magnitude) of the doubled pair leaves with the scale (exact) */
    if (power == 2) {
        const float s4 = 0.25f * scale;
        for (i = 1; 2u * i <= m; i++) {
            float p, q;
            fft_split_pair(z + 2u * i, z + 2u * (m - i), tw + 2u * i, &p, &q);
            out[i] = s4 * p;
            out[m - i] = s4 * q;
        }
    } else {
        const float s2 = 0.5f * scale;
        for (i = 1; 2u * i <= m; i++) {
            float p, q;
            fft_split_pair(z + 2u * i, z + 2u * (m - i), tw + 2u * i, &p, &q);
            out[i] = s2 * sqrtf(p);
            out[m - i] = s2 * sqrtf(q);
        }
    }
}

#if defined(MOTE_FFT_FUSED)
/* Butterfly j > 0 of the last radix-4 pass (q = m/4 values apart from p = z + 2j; v = W_m^j:
 * the table's k = 2j, 4j, 6j; `neg`: 6j >= m) into o[0..7] (Z[j], Z[j+q], Z[j+2q], Z[j+3q]),
 * as mote_fft_stages_f32 computes it. */
MOTE_FFT_INLINE void fft_r4_last(const float *p, const float *tw, uint32_t m, uint32_t j, int neg, float *o)
{
    const uint32_t d = m / 2u;
    const float *p1 = p + d, *p2 = p1 + d, *p3 = p2 + d;
    const float *t3 = tw + (neg ? 12u * j - 2u * m : 12u * j);
    const float c1 = tw[4u * j], s1 = tw[4u * j + 1u], c2 = tw[8u * j], s2 = tw[8u * j + 1u];
    const float c3 = neg ? -t3[0] : t3[0], s3 = neg ? -t3[1] : t3[1];
    const float x1r = p1[0], x1i = p1[1], x2r = p2[0], x2i = p2[1], x3r = p3[0], x3i = p3[1];
    fft_r4_store(o, o + 2, o + 4, o + 6, p[0], p[1], c2 * x1r + s2 * x1i, c2 * x1i - s2 * x1r, c1 * x2r + s1 * x2i,
                 c1 * x2i - s1 * x2r, c3 * x3r + s3 * x3i, c3 * x3i - s3 * x3r);
}

/* Bins k and m - k from Z[k] = zk, Z[m-k] = zm, W^k = w: *ok then *om (k = m/2: the second
 * kept), power 2: sc = scale / 4. */
MOTE_FFT_INLINE void fft_split_out(const float *zk, const float *zm, const float *w, float sc, float *ok, float *om)
{
    float p, q;
    fft_split_pair(zk, zm, w, &p, &q);
    *ok = sc * p;
    *om = sc * q;
}

/* The bins of butterflies 0 and q/2 of fft_last_split (once a call: not inlined). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void fft_last_ends(const float *z, const float *tw, uint32_t m, float scale, float sc, float *out)
{
    const uint32_t q = m / 4u, d = m / 2u;
    const float *p1 = z + d, *p2 = p1 + d, *p3 = p2 + d;
    float a[8];
    fft_r4_store(a, a + 2, a + 4, a + 6, z[0], z[1], p1[0], p1[1], p2[0], p2[1], p3[0], p3[1]);
    {
        const float dc = a[0] + a[1], ny = a[0] - a[1];
        out[0] = scale * dc * dc;
        out[m] = scale * ny * ny;
    }
    fft_split_out(a + 2, a + 6, tw + d, sc, out + q, out + 3u * q);
    fft_split_out(a + 4, a + 4, tw + 2u * d, sc, out + 2u * q, out + 2u * q);
    fft_r4_last(z + q, tw, m, q / 2u, 0, a); /* 6 (q/2) = 3m/4 < m */
    fft_split_out(a, a + 6, tw + q, sc, out + q / 2u, out + m - q / 2u);
    fft_split_out(a + 2, a + 4, tw + 3u * q, sc, out + 3u * q / 2u, out + 5u * q / 2u);
}

/*
 * The power spectrum's last radix-4 pass (q = m/4, m >= 8) and split together, the values
 * never stored back to z: butterflies j and q - j hold the partners (k, m - k) of the bins
 * j, q + j, q - j and 2q - j; butterfly 0 gives bins 0 and m, (q, 3q) and 2q, butterfly q/2
 * the pairs (q/2, m - q/2), (3q/2, 5q/2). The same float operations as mote_fft_stages_f32
 * then mote_fft_split_f32: the same bytes.
 */
static void fft_last_split_power(const float *z, const float *tw, uint32_t m, float scale, float *out)
{
    const uint32_t q = m / 4u, d = m / 2u;
    const float sc = 0.25f * scale;
    uint32_t j;
    float a[8], b[8];
    const float *za = z + 2, *zb = z + d - 2, *ta = tw + 2, *tb = tw + d - 2;
    float *oa = out + 1, *ob = out + m - 1;
    fft_last_ends(z, tw, m, scale, sc, out);
    for (j = 1; 2u * j < q; j++) { /* 6j < m; 6 (q - j) >= m for j <= q/3 */
        fft_r4_last(za, tw, m, j, 0, a);
        fft_r4_last(zb, tw, m, q - j, 3u * j <= q, b);
        fft_split_out(a, b + 6, ta, sc, oa, ob);                          /* j, m - j */
        fft_split_out(a + 2, b + 4, ta + d, sc, oa + q, ob - q);          /* q + j, 3q - j */
        fft_split_out(b, a + 6, tb, sc, ob - 3u * q, oa + 3u * q);        /* q - j, 3q + j */
        fft_split_out(b + 2, a + 4, tb + d, sc, ob - 2u * q, oa + 2u * q); /* 2q - j, 2q + j */
        za += 2;
        zb -= 2;
        ta += 2;
        tb -= 2;
        oa++;
        ob--;
    }
}

#endif

/* The transform and split after the packing pass left span `first` in work. */
static void fft_rest_f32(uint32_t first, const float *tw, uint32_t n, int32_t power, float scale, float *work,
                         float *out)
{
    const uint32_t m = n / 2u;
#if defined(MOTE_FFT_FUSED)
    if (m >= 8u && power == 2) { /* the power spectrum's last pass and split fused */
        mote_fft_stages_f32(work, tw, m, first, m / 4u);
        fft_last_split_power(work, tw, m, scale, out);
        return;
    }
#endif
    mote_fft_stages_f32(work, tw, m, first, m);
    mote_fft_split_f32(work, tw, n, power, scale, out);
}

void mote_fft_rfft_f32(const float *x, const float *tw, uint32_t n, int32_t power, float scale, float *work,
                       float *out)
{
    fft_rest_f32(mote_fft_first_f32(x, n, work), tw, n, power, scale, work, out);
}

void mote_fft_rfft_window_f32(const void *x, int int16, const float *w, const float *tw, uint32_t n, int32_t power,
                              float scale, float *work, float *out)
{
    const uint32_t first = int16 ? fft_first(x, w, FFT_SRC_I16_WIN, n, work)
                                 : fft_first(x, w, FFT_SRC_F32_WIN, n, work);
    fft_rest_f32(first, tw, n, power, scale, work, out);
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
