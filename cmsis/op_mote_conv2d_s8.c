/*
 * mote::conv2d_s8.out - Cortex-M version (DSP / MVE / plain, see mote_s8_arm.h).
 * Same bytes as kernels/op_mote_conv2d_s8.c; scratch from
 * mote_s8_conv_scratch_bytes() (kernels/requant.h), MOTE_ERR_KERNEL_SCRATCH if short;
 * in place by rows through mote_s8_rows_begin / next when the plan puts out over input.
 *
 * An int8 GEMM, output pixels x output channels, K = KH*KW*Cin:
 * - MVE: zero point folded into a corrected bias (bias - zp * sum w, scratch);
 *   one int8 column (im2col: a vector copy per window row, or the input itself
 *   for a stride-1 unpadded 1x1)
 *   against four weight rows with VMLADAVA, then one vector requantization per
 *   four channels.
 * - DSP: weights widened to int16 pairs (SXTB16) in blocks of up to 16 KiB,
 *   columns of two output pixels widened (zero point folded into the bias; Cin
 *   not a multiple of 4: an int8 column gathered first); K rounded up to 4; a
 *   2x2 register block (2 channels x 2 pixels) of SMLAD in inline assembly, then
 *   a division-free requantization (SMMULR when the accumulator bound allows,
 *   SSUB8/SEL clamps for ReLU-like ranges).
 * - plain: int16 im2col of two pixels and a 2x2 C loop.
 */
#include "mote/kernel.h"
#include "mote_s8_arm.h"

MOTE_KERNEL("mote::conv2d_s8.out")
MOTE_KERNEL_IN_PLACE_ROWS("mote::conv2d_s8.out")

mote_err_t mote_kernel_mote_conv2d_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                          uint32_t nargs);

#if defined(MOTE_S8_PLAIN)
/** Output pixel index -> (batch, oy, ox) -> input row of tap (ky, kx), or NULL if padded. */
static const int8_t *conv_tap(const mote_s8_conv_params_t *p, int32_t pix, int32_t ky,
                              int32_t kx)
{
    const int32_t ox = pix % p->wo;
    const int32_t oy = (pix / p->wo) % p->ho;
    const int32_t b = pix / (p->wo * p->ho);
    const int32_t iy = oy * p->stride_h - p->pad_h + ky * p->dil_h;
    const int32_t ix = ox * p->stride_w - p->pad_w + kx * p->dil_w;
    if (iy < 0 || iy >= p->h || ix < 0 || ix >= p->w) {
        return NULL;
    }
    return p->input + (((size_t)b * p->h + iy) * p->w + ix) * p->cin;
}
#endif

/* conv_fill8 / conv_copy8 of the vector paths: the one piece of the int8 im2col
   below that differs between MVE and DSP. */
#if defined(MOTE_S8_MVE)
/** n bytes of src to d: tail-predicated 16-byte vector copies. */
MOTE_S8_INLINE void conv_copy8(int8_t *d, const int8_t *src, int32_t n)
{
    for (; n > 0; n -= 16, d += 16, src += 16) {
        const mve_pred16_t pr = vctp8q((uint32_t)n);
        vstrbq_p_s8(d, vldrbq_z_s8(src, pr), pr);
    }
}

/** n bytes of value v at d. */
MOTE_S8_INLINE void conv_fill8(int8_t *d, int32_t v, int32_t n)
{
    const int8x16_t vv = vdupq_n_s8((int8_t)v);
    for (; n > 0; n -= 16, d += 16) {
        vstrbq_p_s8(d, vv, vctp8q((uint32_t)n));
    }
}
#elif defined(MOTE_S8_DSP)
/** n bytes of value v at d (n small: a plain loop beats a libc call). */
MOTE_S8_INLINE void conv_fill8(int8_t *d, int32_t v, int32_t n)
{
    if (n > 16) {
        memset(d, v, (size_t)n);
        return;
    }
    while (n-- > 0) {
        *d++ = (int8_t)v;
    }
}

/** n bytes of src to d (likewise). */
MOTE_S8_INLINE void conv_copy8(int8_t *d, const int8_t *src, int32_t n)
{
    if (n > 16) {
        memmove(d, src, (size_t)n);
        return;
    }
    while (n-- > 0) {
        *d++ = *src++;
    }
}
#endif

#if defined(MOTE_S8_MVE) || defined(MOTE_S8_DSP)
/**
 * int8 im2col of one pixel into col (raw values; padded taps hold in_zp so they
 * add (zp - zp) * w = 0 to the corrected bias). With dilation 1 in W a row of
 * the window is one contiguous run of KW*Cin input bytes: one copy per row plus
 * the zero-point fill of its clipped ends.
 */
MOTE_S8_HOT static void conv_im2col8(const mote_s8_conv_params_t *p, int32_t pix, int8_t *col)
{
    const int32_t cin = p->cin;
    const int32_t ox = pix % p->wo;
    const int32_t oy = (pix / p->wo) % p->ho;
    const int8_t *in = p->input + (size_t)(pix / (p->wo * p->ho)) * p->h * p->w * cin;
    const int32_t x0 = ox * p->stride_w - p->pad_w;
    const int32_t rowlen = p->kw * cin;
    int32_t ky, kx0 = 0, kx1 = p->kw, kx;
    while (kx0 < kx1 && x0 + kx0 * p->dil_w < 0) {
        kx0++;
    }
    while (kx1 > kx0 && x0 + (kx1 - 1) * p->dil_w >= p->w) {
        kx1--;
    }
    for (ky = 0; ky < p->kh; ky++, col += rowlen) {
        const int32_t iy = oy * p->stride_h - p->pad_h + ky * p->dil_h;
        const int8_t *row;
        if (iy < 0 || iy >= p->h) {
            conv_fill8(col, p->in_zp, rowlen);
            continue;
        }
        row = in + (size_t)iy * p->w * cin;
        conv_fill8(col, p->in_zp, kx0 * cin);
        if (p->dil_w == 1) {
            conv_copy8(col + kx0 * cin, row + (size_t)(x0 + kx0) * cin, (kx1 - kx0) * cin);
        } else {
            for (kx = kx0; kx < kx1; kx++) {
                conv_copy8(col + kx * cin, row + (size_t)(x0 + kx * p->dil_w) * cin, cin);
            }
        }
        conv_fill8(col + kx1 * cin, p->in_zp, (p->kw - kx1) * cin);
    }
}
#endif

#if defined(MOTE_S8_MVE)
/** What conv_rows reads besides p: the corrected bias and the im2col column. */
typedef struct conv_state {
    const int32_t *cbias;
    int8_t *col;
} conv_state_t;

/** Output rows [oy0, oy1) (a band of mote_s8_rows_begin / next). */
MOTE_S8_HOT static void conv_rows(const mote_s8_conv_params_t *p, void *state)
{
    const conv_state_t *st = (const conv_state_t *)state;
    const int32_t k = p->kh * p->kw * p->cin;
    const int direct = p->kh == 1 && p->kw == 1 && p->stride_h == 1 && p->stride_w == 1 &&
                       p->pad_h == 0 && p->pad_w == 0;
    int32_t pix, pix0, pix1, c, s[4];
    mote_s8_px_range(p, &pix0, &pix1);
    for (pix = pix0; pix < pix1; pix++) {
        const int8_t *x = p->input + (size_t)pix * p->cin;
        int8_t *out = p->output + (size_t)(pix - pix0) * p->cout;
        const int8_t *w0 = p->weight;
        if (!direct) {
            conv_im2col8(p, pix, st->col);
            x = st->col;
        }
        for (c = 0; c + 4 <= p->cout; c += 4, w0 += 4 * (size_t)k) {
            mote_s8_mve_dot4(x, w0, w0 + k, w0 + 2 * (size_t)k, w0 + 3 * (size_t)k, k, s);
            mote_s8_mve_store4(p, s, st->cbias + c, c, out);
        }
        if (c < p->cout) {
            const int8_t *w1 = c + 1 < p->cout ? w0 + k : w0;
            const int8_t *w2 = c + 2 < p->cout ? w1 + k : w1;
            mote_s8_mve_dot4(x, w0, w1, w2, w2, k, s);
            mote_s8_mve_store4(p, s, st->cbias + c, c, out);
        }
    }
}

static mote_err_t conv_run(mote_kernel_ctx_t *ctx, const mote_s8_conv_params_t *p)
{
    mote_s8_rows_t it;
    const int32_t k = p->kh * p->kw * p->cin;
    const int32_t cpad = (p->cout + 3) & ~3;
    const size_t own = mote_s8_conv_own_bytes(p);
    int32_t *cbias = (int32_t *)mote_s8_scratch(ctx, own);
    conv_state_t st;
    int32_t c;
    if (cbias == NULL) {
        return MOTE_ERR_KERNEL_SCRATCH;
    }
    for (c = 0; c < p->cout; c++) {
        cbias[c] = (int32_t)((uint32_t)p->bias[c] -
                             (uint32_t)p->in_zp *
                                 (uint32_t)mote_s8_mve_sum(p->weight + (size_t)c * k, k));
    }
    for (; c < cpad; c++) {
        cbias[c] = 0;
    }
    st.cbias = cbias;
    st.col = (int8_t *)(cbias + cpad);
    MOTE_TRY(mote_s8_rows_begin(ctx, own, p, &it));
    do {
        conv_rows(&it.band, &st);
    } while (mote_s8_rows_next(&it));
    return MOTE_OK;
}

#elif defined(MOTE_S8_DSP)
/** Four int8 values k..k+3 of a row as one word, zeros past k_end. */
MOTE_S8_INLINE uint32_t conv_word(const int8_t *row, int32_t k, int32_t kend)
{
    uint32_t v = 0;
    int32_t i;
    if (k + 4 <= kend) {
        return mote_s8_ld32(row + k);
    }
    for (i = 0; i < 4 && k + i < kend; i++) {
        v |= (uint32_t)(uint8_t)row[k + i] << (8 * i);
    }
    return v;
}

/** Widen weight rows [c0, c0 + rows) into pair-interleaved SXTB16 order. */
static void conv_widen(const mote_s8_conv_params_t *p, int32_t c0, int32_t rows, int32_t k,
                       int32_t kpad, int32_t *dst)
{
    int32_t r, g;
    for (r = 0; r < rows; r += 2) {
        const int8_t *wa = p->weight + (size_t)(c0 + r) * k;
        const int8_t *wb = r + 1 < rows ? wa + k : wa;
        for (g = 0; g < kpad; g += 4) {
            const uint32_t va = conv_word(wa, g, k);
            const uint32_t vb = conv_word(wb, g, k);
            dst[0] = __sxtb16((int32_t)va);
            dst[1] = mote_s8_sxtb16_ror8(va);
            dst[2] = __sxtb16((int32_t)vb);
            dst[3] = mote_s8_sxtb16_ror8(vb);
            dst += 4;
        }
    }
}

/**
 * im2col of pixel pix into slot (0 or 1) of the pair-interleaved int16 buffer x:
 * raw input values (the zero point is folded into the bias), padded taps hold
 * in_zp so they add (zp - zp) * w = 0, taps K..Kpad hold 0 (their weights are 0).
 * Cin a multiple of 4: widened straight from the input, a tap at a time; else
 * the int8 column is gathered into col8 (Kpad bytes) and widened four taps at a time.
 */
MOTE_S8_HOT static void conv_im2col_pair(const mote_s8_conv_params_t *p, int32_t pix, int32_t slot,
                             int32_t k, int32_t kpad, int32_t *x, int8_t *col8)
{
    const int32_t cin = p->cin;
    const int32_t ox = pix % p->wo;
    const int32_t oy = (pix / p->wo) % p->ho;
    const int8_t *in = p->input + (size_t)(pix / (p->wo * p->ho)) * p->h * p->w * cin;
    const int32_t zp2 = (int32_t)(((uint32_t)p->in_zp & 0xffffu) | ((uint32_t)p->in_zp << 16));
    int32_t ky, kx, kk = 0, i;
    if ((cin & 3) == 0 && p->kh == 1 && p->kw == 1 && p->pad_h == 0 && p->pad_w == 0) {
        /* 1x1 without padding: the column is the input pixel itself */
        const int8_t *src = in + ((size_t)oy * p->stride_h * p->w + (size_t)ox * p->stride_w) * cin;
        int32_t *d = x + 2 * slot;
        for (i = 0; i < cin; i += 4, d += 4) {
            const uint32_t v = mote_s8_ld32(src + i);
            d[0] = __sxtb16((int32_t)v);
            d[1] = mote_s8_sxtb16_ror8(v);
        }
        return;
    }
    if ((cin & 3) != 0) {
        int32_t *d = x + 2 * slot;
        conv_im2col8(p, pix, col8);
        for (i = k; i < kpad; i++) {
            col8[i] = 0;
        }
        for (i = 0; i < kpad; i += 4, d += 4) {
            const uint32_t v = mote_s8_ld32(col8 + i);
            d[0] = __sxtb16((int32_t)v);
            d[1] = mote_s8_sxtb16_ror8(v);
        }
        return;
    }
    for (ky = 0; ky < p->kh; ky++) {
        const int32_t iy = oy * p->stride_h - p->pad_h + ky * p->dil_h;
        for (kx = 0; kx < p->kw; kx++, kk += cin) {
            const int32_t ix = ox * p->stride_w - p->pad_w + kx * p->dil_w;
            const int8_t *src = iy >= 0 && iy < p->h && ix >= 0 && ix < p->w
                                    ? in + ((size_t)iy * p->w + ix) * cin
                                    : NULL;
            int32_t *d = x + kk + 2 * slot; /* group kk/4 starts at word 4*(kk/4) = kk */
            if (src == NULL) {
                for (i = 0; i < cin; i += 4, d += 4) {
                    d[0] = zp2;
                    d[1] = zp2;
                }
            } else {
                for (i = 0; i < cin; i += 4, d += 4) {
                    const uint32_t v = mote_s8_ld32(src + i);
                    d[0] = __sxtb16((int32_t)v);
                    d[1] = mote_s8_sxtb16_ror8(v);
                }
            }
        }
    }
    for (i = k; i < kpad; i += 4) { /* k is a multiple of 4 here */
        x[i + 2 * slot] = 0;
        x[i + 2 * slot + 1] = 0;
    }
}

/** Per-channel requantization parameters (scratch table, one entry per channel). */
typedef struct conv_q {
    int32_t b2;    /* fast path: 2 * bias */
    int32_t mult;
    int32_t rz;    /* fast path: 2^(e-1) + (out_zp << e) */
    int32_t e;     /* fast path: -shift, in [1, 22] */
    int32_t bias;  /* bias - in_zp * sum w */
    int32_t shift;
    int32_t pad[2];
} conv_q_t;

/** (a * b + 2^31) >> 32: SMMULR. */
MOTE_S8_INLINE int32_t conv_smmulr(int32_t a, int32_t b)
{
    int32_t r;
    __asm__("smmulr %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));
    return r;
}

/**
 * Fast requantization + zero point, valid when -22 <= shift <= -1 and
 * |sum + bias| < 2^30 (checked per call): SRDHM(acc, M) = (acc*M + 2^30) >> 31 =
 * SMMULR(2*acc, M) exactly (2*acc = 2*sum + b2, one ADD with a shifted operand);
 * RDBPOT(x, e) + zp = (x - [x<0] + 2^(e-1) + (zp << e)) >> e, no overflow since
 * |x| <= 2^29 and e <= 22. Not clamped. Checked against the reference in the tests.
 */
MOTE_S8_INLINE int32_t conv_requant_fast(int32_t sum, const conv_q_t *q)
{
    const int32_t x = conv_smmulr((int32_t)((uint32_t)q->b2 + ((uint32_t)sum << 1)), q->mult);
    return (x + (x >> 31) + q->rz) >> q->e;
}

MOTE_S8_INLINE int8_t conv_finish(int32_t sum, const conv_q_t *q, int32_t zp, int32_t amin,
                                 int32_t amax)
{
    return mote_s8_dsp_finish((int32_t)((uint32_t)sum + (uint32_t)q->bias), q->mult, q->shift,
                              zp, amin, amax);
}

/**
 * All full channel pairs of a block for one pixel pair, fast requantization;
 * full != 0: the activation range is [-128, 127] and SSAT clamps. Outputs of the
 * second pixel at oa + (ob - oa): one pointer less to keep across the assembly.
 */
MOTE_S8_INLINE void conv_pairs_fast_body(const int32_t *w, const int32_t *x, int32_t kpad,
                                        int32_t pairs, const conv_q_t *q, int8_t *oa,
                                        int8_t *ob, const mote_s8_conv_params_t *p, int full)
{
    const uint32_t lo4 = ((uint32_t)p->act_min & 0xffu) * 0x01010101u;
    const uint32_t hi4 = ((uint32_t)p->act_max & 0xffu) * 0x01010101u;
    const int32_t ng = kpad >> 2;
    const ptrdiff_t dob = ob - oa;
    const conv_q_t *qend = q + 2 * pairs;
    int32_t s[4];
    while (q != qend) {
        int32_t v0, v1, v2, v3;
        w = mote_s8_dsp_mac2x2(w, x, ng, s);
        v0 = conv_requant_fast(s[0], &q[0]);
        v1 = conv_requant_fast(s[1], &q[0]);
        v2 = conv_requant_fast(s[2], &q[1]);
        v3 = conv_requant_fast(s[3], &q[1]);
        q += 2;
        v0 = __ssat(v0, 8);
        v1 = __ssat(v1, 8);
        v2 = __ssat(v2, 8);
        v3 = __ssat(v3, 8);
        if (full) {
            oa[0] = (int8_t)v0;
            oa[1] = (int8_t)v2;
            oa[dob] = (int8_t)v1;
            oa[dob + 1] = (int8_t)v3;
        } else {
            /* bytes [a.c, a.c+1, b.c, b.c+1], clamped four at a time (SSUB8 + SEL) */
            uint32_t v = (uint32_t)v0, t;
            __asm__("bfi %[v], %[v2], #8, #8\n\t"
                    "bfi %[v], %[v1], #16, #8\n\t"
                    "bfi %[v], %[v3], #24, #8\n\t"
                    "ssub8 %[t], %[v], %[lo]\n\t"
                    "sel %[v], %[v], %[lo]\n\t"
                    "ssub8 %[t], %[v], %[hi]\n\t"
                    "sel %[v], %[hi], %[v]\n\t"
                    : [v] "+&r"(v), [t] "=&r"(t)
                    : [v1] "r"(v1), [v2] "r"(v2), [v3] "r"(v3), [lo] "r"(lo4), [hi] "r"(hi4)
                    : "cc");
            mote_s8_st16(oa, v);
            mote_s8_st16(oa + dob, v >> 16);
        }
        oa += 2;
    }
}

MOTE_S8_HOT static void conv_pairs_fast(const int32_t *w, const int32_t *x, int32_t kpad, int32_t pairs,
                            const conv_q_t *q, int8_t *oa, int8_t *ob,
                            const mote_s8_conv_params_t *p)
{
    conv_pairs_fast_body(w, x, kpad, pairs, q, oa, ob, p, 0);
}

MOTE_S8_HOT static void conv_pairs_fast_full(const int32_t *w, const int32_t *x, int32_t kpad, int32_t pairs,
                                 const conv_q_t *q, int8_t *oa, int8_t *ob,
                                 const mote_s8_conv_params_t *p)
{
    conv_pairs_fast_body(w, x, kpad, pairs, q, oa, ob, p, 1);
}

/** The same with the general requantization (any shift, any accumulator). */
MOTE_S8_HOT static void conv_pairs(const int32_t *w, const int32_t *x, int32_t kpad, int32_t pairs,
                       const conv_q_t *q, int8_t *oa, int8_t *ob, const mote_s8_conv_params_t *p)
{
    const int32_t zp = p->out_zp, amin = p->act_min, amax = p->act_max;
    int32_t s[4];
    for (; pairs > 0; pairs--, w += kpad, q += 2, oa += 2, ob += 2) {
        mote_s8_dsp_mac2x2(w, x, kpad >> 2, s);
        oa[0] = conv_finish(s[0], &q[0], zp, amin, amax);
        ob[0] = conv_finish(s[1], &q[0], zp, amin, amax);
        oa[1] = conv_finish(s[2], &q[1], zp, amin, amax);
        ob[1] = conv_finish(s[3], &q[1], zp, amin, amax);
    }
}

/** What conv_rows reads besides p: scratch parts and the block widened last. */
typedef struct conv_state {
    int32_t *x;       /* the int16 column pair */
    int32_t *wbuf;    /* scratch for widened weight rows (none with pre-widened weights) */
    const int32_t *wblk; /* widened weight rows [wc0, wc0 + nrows): wbuf or the program's */
    const conv_q_t *q;
    int8_t *col8;
    int32_t nrows, wc0;
    int fast;
} conv_state_t;

/** Output rows [oy0, oy1), block by block of widened weight rows (a band of mote_s8_rows_begin / next). */
MOTE_S8_HOT static void conv_rows(const mote_s8_conv_params_t *p, void *state)
{
    /* locals, not st-> / p-> in the loops: the int8 output stores may alias them */
    conv_state_t *st = (conv_state_t *)state;
    const int32_t k = p->kh * p->kw * p->cin;
    const int32_t kp = (k + 3) & ~3; /* taps computed: whole groups of 4 */
    const int32_t cout = p->cout, nrows = st->nrows;
    const int full = p->act_min == -128 && p->act_max == 127;
    const int fast = st->fast;
    const conv_q_t *q = st->q;
    int32_t *const x = st->x;
    const int32_t *const wblk = st->wblk;
    int8_t *const col8 = st->col8;
    int8_t *const out = p->output;
    int32_t c0, pix, pix0, pix1;
    mote_s8_px_range(p, &pix0, &pix1);
    for (c0 = 0; c0 < cout; c0 += nrows) {
        const int32_t rows = cout - c0 < nrows ? cout - c0 : nrows;
        if (st->wc0 != c0) { /* one block: widened once for all bands */
            conv_widen(p, c0, rows, k, kp, st->wbuf);
            st->wc0 = c0;
        }
        for (pix = pix0; pix < pix1; pix += 2) {
            const int32_t pb = pix + 1 < pix1 ? pix + 1 : pix;
            int8_t *oa = out + (size_t)(pix - pix0) * cout + c0;
            int8_t *ob = out + (size_t)(pb - pix0) * cout + c0;
            conv_im2col_pair(p, pix, 0, k, kp, x, col8);
            conv_im2col_pair(p, pb, 1, k, kp, x, col8);
            if (fast && full) {
                conv_pairs_fast_full(wblk, x, kp, rows >> 1, q + c0, oa, ob, p);
            } else if (fast) {
                conv_pairs_fast(wblk, x, kp, rows >> 1, q + c0, oa, ob, p);
            } else {
                conv_pairs(wblk, x, kp, rows >> 1, q + c0, oa, ob, p);
            }
            if (rows & 1) { /* last odd channel: its pair row duplicates it */
                const int32_t last = rows - 1;
                int32_t s[4];
                mote_s8_dsp_mac2x2(wblk + (size_t)(last >> 1) * kp, x, kp >> 2, s);
                oa[last] = conv_finish(s[0], &q[c0 + last], p->out_zp, p->act_min, p->act_max);
                ob[last] = conv_finish(s[1], &q[c0 + last], p->out_zp, p->act_min, p->act_max);
            }
        }
    }
}

/**
 * In place without the row ring: a 1x1, stride-1, unpadded conv with Cout <= Cin
 * and one block of widened rows reads each pixel pair into the column before
 * writing its outputs, which cover only input pixels already read.
 */
static int conv_pointwise_in_place(const mote_s8_conv_params_t *p, int32_t nrows)
{
    return p->input == p->output && p->kh == 1 && p->kw == 1 && p->stride_h == 1 &&
           p->stride_w == 1 && p->pad_h == 0 && p->pad_w == 0 && p->cout <= p->cin &&
           nrows >= p->cout;
}

static mote_err_t conv_run(mote_kernel_ctx_t *ctx, const mote_s8_conv_params_t *p)
{
    mote_s8_rows_t it;
    const int32_t k = p->kh * p->kw * p->cin;
    const int32_t kpad = (k + 15) & ~15; /* scratch layout */
    const size_t own = mote_s8_conv_own_bytes(p);
    int32_t *x = (int32_t *)mote_s8_scratch(ctx, own);
    conv_q_t *q;
    conv_state_t st;
    int32_t r;
    if (x == NULL) {
        return MOTE_ERR_KERNEL_SCRATCH;
    }
    st.x = x;
    st.wbuf = x + kpad; /* the column pair takes 2 * kpad int16 = kpad words */
    if (p->wpanel != NULL) { /* every row pre-widened in the program: one block, no copy */
        st.nrows = (p->cout + 1) & ~1;
        st.wblk = (const int32_t *)(const void *)p->wpanel;
        st.wc0 = 0;
        q = (conv_q_t *)(void *)st.wbuf;
    } else {
        st.nrows = mote_s8_conv_dsp_rows(kpad, p->cout);
        st.wblk = st.wbuf;
        st.wc0 = -1;
        q = (conv_q_t *)(void *)((int16_t *)(void *)st.wbuf + (size_t)st.nrows * kpad);
    }
    st.col8 = (int8_t *)(void *)(q + ((p->cout + 3) & ~3));
    st.q = q;
    st.fast = 1;
    for (r = 0; r < p->cout; r++) {
        /* zero point folded into the bias: sum (x - zp) w = sum x w - zp sum w */
        const int8_t *w = p->weight + (size_t)r * k;
        int32_t sw = 0, i;
        int64_t bound;
        for (i = 0; i < k; i += 4) { /* four weights per step: SXTB16 pairs, SMLAD by 1 */
            const uint32_t v = conv_word(w, i, k);
            sw = __smlad(__sxtb16((int32_t)v), 0x00010001, sw);
            sw = __smlad(mote_s8_sxtb16_ror8(v), 0x00010001, sw);
        }
        q[r].bias = (int32_t)((uint32_t)p->bias[r] - (uint32_t)p->in_zp * (uint32_t)sw);
        q[r].mult = p->mult[r];
        q[r].shift = p->shift[r];
        /* fast path: shift in [-22, -1] and |bias| + K * 128 * 128 < 2^30 */
        bound = (q[r].bias < 0 ? -(int64_t)q[r].bias : (int64_t)q[r].bias) + (int64_t)k * 16384;
        if (p->shift[r] >= 0 || p->shift[r] < -22 || bound >= ((int64_t)1 << 30)) {
            st.fast = 0;
            q[r].b2 = q[r].rz = q[r].e = 0;
        } else {
            q[r].e = -p->shift[r];
            q[r].b2 = 2 * q[r].bias;
            q[r].rz = (int32_t)((1u << (q[r].e - 1)) + ((uint32_t)p->out_zp << q[r].e));
        }
    }
    if (conv_pointwise_in_place(p, st.nrows)) {
        conv_rows(p, &st);
        return MOTE_OK;
    }
    MOTE_TRY(mote_s8_rows_begin(ctx, own, p, &it));
    do {
        conv_rows(&it.band, &st);
    } while (mote_s8_rows_next(&it));
    return MOTE_OK;
}

#else
/** int16 im2col of one pixel, x - zp, padded taps 0. */
static void conv_im2col_s16(const mote_s8_conv_params_t *p, int32_t pix, int16_t *col)
{
    int32_t ky, kx, i;
    for (ky = 0; ky < p->kh; ky++) {
        for (kx = 0; kx < p->kw; kx++) {
            const int8_t *src = conv_tap(p, pix, ky, kx);
            for (i = 0; i < p->cin; i++) {
                col[i] = (int16_t)(src != NULL ? (int32_t)src[i] - p->in_zp : 0);
            }
            col += p->cin;
        }
    }
}

/** Output rows [oy0, oy1) (a band of mote_s8_rows_begin / next); state: the two int16 columns. */
static void conv_rows(const mote_s8_conv_params_t *p, void *state)
{
    const int32_t k = p->kh * p->kw * p->cin;
    int16_t *cola = (int16_t *)state;
    int16_t *colb = cola + ((k + 15) & ~15);
    int32_t pix, pix0, pix1, c, s[4];
    mote_s8_px_range(p, &pix0, &pix1);
    for (pix = pix0; pix < pix1; pix += 2) {
        const int32_t pb = pix + 1 < pix1 ? pix + 1 : pix;
        int8_t *oa = p->output + (size_t)(pix - pix0) * p->cout;
        int8_t *ob = p->output + (size_t)(pb - pix0) * p->cout;
        conv_im2col_s16(p, pix, cola);
        conv_im2col_s16(p, pb, colb);
        for (c = 0; c < p->cout; c += 2) {
            const int32_t c1 = c + 1 < p->cout ? c + 1 : c;
            mote_s8_dot2x2(cola, colb, p->weight + (size_t)c * k, p->weight + (size_t)c1 * k, k,
                           p->in_zp, s);
            oa[c] = mote_s8_finish(p, (int32_t)((uint32_t)s[0] + (uint32_t)p->bias[c]), c);
            ob[c] = mote_s8_finish(p, (int32_t)((uint32_t)s[1] + (uint32_t)p->bias[c]), c);
            if (c1 != c) {
                oa[c1] = mote_s8_finish(p, (int32_t)((uint32_t)s[2] + (uint32_t)p->bias[c1]), c1);
                ob[c1] = mote_s8_finish(p, (int32_t)((uint32_t)s[3] + (uint32_t)p->bias[c1]), c1);
            }
        }
    }
}

static mote_err_t conv_run(mote_kernel_ctx_t *ctx, const mote_s8_conv_params_t *p)
{
    mote_s8_rows_t it;
    const size_t own = mote_s8_conv_own_bytes(p);
    int16_t *cola = (int16_t *)mote_s8_scratch(ctx, own);
    if (cola == NULL) {
        return MOTE_ERR_KERNEL_SCRATCH;
    }
    MOTE_TRY(mote_s8_rows_begin(ctx, own, p, &it));
    do {
        conv_rows(&it.band, cola);
    } while (mote_s8_rows_next(&it));
    return MOTE_OK;
}
#endif

mote_err_t mote_kernel_mote_conv2d_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                          uint32_t nargs)
{
    mote_s8_conv_params_t p;
    const mote_err_t e = mote_s8_conv_parse(args, nargs, 0, &p);
    if (e != MOTE_OK) {
        return e;
    }
    return conv_run(ctx, &p);
}
