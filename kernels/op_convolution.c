/*
 * aten::convolution.out - 2-D (and 1-D) convolution, fp32, NCHW.
 *
 *   args: input [N, Cin, H, W] (or [N, Cin, L]), weight [Cout, Cin/groups, KH, KW]
 *         (or [Cout, Cin/groups, KL]), bias [Cout] or None, stride int[1|2] (> 0),
 *         padding int[1|2] (>= 0), dilation int[1|2] (> 0), transposed bool,
 *         output_padding int[] (transposed only: 0 <= op < stride or < dilation),
 *         groups int (> 0, divides Cin and Cout), out [N, Cout, OH, OW] with
 *         OH = (H + 2*pad - dil*(KH-1) - 1)/stride + 1.
 *   transposed (nn.ConvTranspose2d/1d): weight [Cin, Cout/groups, KH, KW] (or
 *         [Cin, Cout/groups, KL]), OH = (H-1)*stride - 2*pad + dil*(KH-1) + op + 1;
 *         a direct scatter loop (input pixel x weight into the out pixels it reaches).
 *   dtypes: all float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count, tags, non-contiguous, bad
 *           stride/padding/dilation/output_padding/groups), MOTE_ERR_KERNEL_DTYPE (not fp32),
 *           MOTE_ERR_KERNEL_SHAPE (weight/bias/out sizes inconsistent).
 *
 * Paths: depthwise (Cin/groups == Cout/groups == 1) a per-channel row loop;
 * 1x1 stride-1 unpadded a GEMM straight on [Cin, H*W]; otherwise implicit
 * im2col: panels of KC x NR im2col values packed on the stack (KC = 128:
 * 2 KB plain C, 4 KB SSE/NEON, 8 KB AVX; no scratch) feeding the register-blocked GEMM micro-kernel (gemm.h).
 */
#include "gemm.h"
#include "kutil.h"

MOTE_KERNEL("aten::convolution.out")

MOTE_K_DECLARE(mote_kernel_aten_convolution_out);

typedef struct mote_conv_geom {
    size_t cin_g, cout_g, h, w, kh, kw, oh, ow;
    ptrdiff_t sh, sw, ph, pw, dh, dw;
} mote_conv_geom_t;

/* ceil(a / b) for b > 0, any sign of a */
static ptrdiff_t mote_conv_cdiv(ptrdiff_t a, ptrdiff_t b)
{
    return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

/* floor(a / b) for b > 0, any sign of a */
static ptrdiff_t mote_conv_fdiv(ptrdiff_t a, ptrdiff_t b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* Output columns [lo, hi) ∩ [a, b) whose tap (offset off = kw*dw - pw) is inside the row. */
static void mote_conv_cols(const mote_conv_geom_t *g, ptrdiff_t off, size_t a, size_t b,
                           size_t *lo, size_t *hi)
{
    ptrdiff_t l = mote_conv_cdiv(-off, g->sw);
    ptrdiff_t h = mote_conv_fdiv((ptrdiff_t)g->w - 1 - off, g->sw) + 1;
    if (l < (ptrdiff_t)a) {
        l = (ptrdiff_t)a;
    }
    if (h > (ptrdiff_t)b) {
        h = (ptrdiff_t)b;
    }
    if (h < l) {
        h = l;
    }
    *lo = (size_t)l;
    *hi = (size_t)h;
}

/* Valid kernel rows [klo, khi) for output row oh. */
static void mote_conv_rows(const mote_conv_geom_t *g, size_t oh, size_t *klo, size_t *khi)
{
    ptrdiff_t ih0 = (ptrdiff_t)oh * g->sh - g->ph;
    ptrdiff_t l = mote_conv_cdiv(-ih0, g->dh);
    ptrdiff_t h = mote_conv_fdiv((ptrdiff_t)g->h - 1 - ih0, g->dh) + 1;
    if (l < 0) {
        l = 0;
    }
    if (h > (ptrdiff_t)g->kh) {
        h = (ptrdiff_t)g->kh;
    }
    if (h < l) {
        h = l;
    }
    *klo = (size_t)l;
    *khi = (size_t)h;
}

/* Channels [co0, co0+mr) x columns [a, b) of output row oh, accumulating in out. */
static void mote_conv_edge(const mote_conv_geom_t *g, const float *in, const float *wt,
                           const float *bias, float *out, size_t co0, size_t mr, size_t oh,
                           size_t a, size_t b, size_t klo, size_t khi)
{
    const size_t kk = g->cin_g * g->kh * g->kw, plane = g->oh * g->ow;
    const ptrdiff_t ih0 = (ptrdiff_t)oh * g->sh - g->ph;
    size_t i, j, ci, kh, kw;
    for (i = 0; i < mr; i++) {
        float *orow = out + (co0 + i) * plane + oh * g->ow;
        const float bv = bias != NULL ? bias[co0 + i] : 0.0f;
        for (j = a; j < b; j++) {
            orow[j] = bv;
        }
    }
    for (ci = 0; ci < g->cin_g; ci++) {
        for (kh = klo; kh < khi; kh++) {
            const float *irow = in + ci * g->h * g->w + (size_t)(ih0 + (ptrdiff_t)kh * g->dh) * g->w;
            for (kw = 0; kw < g->kw; kw++) {
                const ptrdiff_t off = (ptrdiff_t)kw * g->dw - g->pw;
                size_t lo, hi;
                mote_conv_cols(g, off, a, b, &lo, &hi);
                if (lo >= hi) {
                    continue;
                }
                for (i = 0; i < mr; i++) {
                    float *orow = out + (co0 + i) * plane + oh * g->ow;
                    const float wv = wt[(co0 + i) * kk + (ci * g->kh + kh) * g->kw + kw];
                    const float *src = irow + off;
                    if (g->sw == 1) {
                        for (j = lo; j < hi; j++) {
                            orow[j] += wv * src[j];
                        }
                    } else {
                        for (j = lo; j < hi; j++) {
                            orow[j] += wv * src[(ptrdiff_t)j * g->sw];
                        }
                    }
                }
            }
        }
    }
}

/* Interior columns [*l, *r): every kw tap inside the row. */
static void mote_conv_interior(const mote_conv_geom_t *g, size_t *l, size_t *r)
{
    ptrdiff_t lo = mote_conv_cdiv(g->pw, g->sw);
    ptrdiff_t hi = mote_conv_fdiv((ptrdiff_t)g->w - 1 + g->pw - (ptrdiff_t)(g->kw - 1) * g->dw,
                                  g->sw) + 1;
    if (hi > (ptrdiff_t)g->ow) {
        hi = (ptrdiff_t)g->ow;
    }
    if (lo > (ptrdiff_t)g->ow) {
        lo = (ptrdiff_t)g->ow;
    }
    if (hi < lo) {
        hi = lo;
    }
    *l = (size_t)lo;
    *r = (size_t)hi;
}

/* One depthwise output pixel with bounds checks (border columns). */
static float mote_conv_dw_pixel(const mote_conv_geom_t *g, const float *in, const float *wt,
                                float acc, size_t oh, size_t ow, size_t klo, size_t khi)
{
    const ptrdiff_t ih0 = (ptrdiff_t)oh * g->sh - g->ph, iw0 = (ptrdiff_t)ow * g->sw - g->pw;
    size_t kh, kw;
    for (kh = klo; kh < khi; kh++) {
        const float *row = in + (size_t)(ih0 + (ptrdiff_t)kh * g->dh) * g->w;
        for (kw = 0; kw < g->kw; kw++) {
            const ptrdiff_t iw = iw0 + (ptrdiff_t)kw * g->dw;
            if (iw >= 0 && iw < (ptrdiff_t)g->w) {
                acc += wt[kh * g->kw + kw] * row[iw];
            }
        }
    }
    return acc;
}

/*
 * Depthwise: one input channel -> one output channel. 3x3 rows with all
 * three input rows inside: a fused 9-tap loop over the interior columns
 * (vectorizable across columns); everything else the generic row loop.
 */
static void mote_conv_depthwise(const mote_conv_geom_t *g, const float *in, const float *wt,
                                const float *bias, float *out)
{
    size_t oh, owl, owr;
    mote_conv_interior(g, &owl, &owr);
    for (oh = 0; oh < g->oh; oh++) {
        size_t klo, khi;
        mote_conv_rows(g, oh, &klo, &khi);
        if (g->kh == 3 && g->kw == 3 && klo == 0 && khi == 3 && owr > owl) {
            const ptrdiff_t ih0 = (ptrdiff_t)oh * g->sh - g->ph;
            const float *r0 = in + (size_t)ih0 * g->w;
            const float *r1 = r0 + (size_t)g->dh * g->w, *r2 = r1 + (size_t)g->dh * g->w;
            const float w0 = wt[0], w1 = wt[1], w2 = wt[2], w3 = wt[3], w4 = wt[4];
            const float w5 = wt[5], w6 = wt[6], w7 = wt[7], w8 = wt[8];
            const float bv = bias != NULL ? bias[0] : 0.0f;
            float *orow = out + oh * g->ow;
            size_t ow;
            if (g->sw == 1 && g->dw == 1 && g->pw == 1 && owl == 1 && owr + 1 == g->ow &&
                g->ow == g->w) {
                /* the common 3x3 / stride 1 / pad 1 row: both border pixels inline */
                const size_t e = g->w - 1;
                orow[0] = bv + w1 * r0[0] + w2 * r0[1] + w4 * r1[0] + w5 * r1[1] + w7 * r2[0] +
                          w8 * r2[1];
                orow[e] = bv + w0 * r0[e - 1] + w1 * r0[e] + w3 * r1[e - 1] + w4 * r1[e] +
                          w6 * r2[e - 1] + w7 * r2[e];
            } else {
                for (ow = 0; ow < owl; ow++) {
                    orow[ow] = mote_conv_dw_pixel(g, in, wt, bv, oh, ow, klo, khi);
                }
                for (ow = owr; ow < g->ow; ow++) {
                    orow[ow] = mote_conv_dw_pixel(g, in, wt, bv, oh, ow, klo, khi);
                }
            }
            if (g->sw == 1 && g->dw == 1) {
                /* column ow reads input columns ow - pw + {0, 1, 2} (all inside) */
                const float *q0 = r0 + owl - (size_t)g->pw, *q1 = r1 + owl - (size_t)g->pw;
                const float *q2 = r2 + owl - (size_t)g->pw;
                float *o = orow + owl;
                const size_t n = owr - owl;
                for (ow = 0; ow < n; ow++) {
                    o[ow] = bv + w0 * q0[ow] + w1 * q0[ow + 1] + w2 * q0[ow + 2] +
                            w3 * q1[ow] + w4 * q1[ow + 1] + w5 * q1[ow + 2] + w6 * q2[ow] +
                            w7 * q2[ow + 1] + w8 * q2[ow + 2];
                }
            } else {
                const size_t s = (size_t)g->sw, d = (size_t)g->dw;
                for (ow = owl; ow < owr; ow++) {
                    const size_t x = ow * s - (size_t)g->pw;
                    orow[ow] = bv + w0 * r0[x] + w1 * r0[x + d] + w2 * r0[x + 2 * d] +
                               w3 * r1[x] + w4 * r1[x + d] + w5 * r1[x + 2 * d] + w6 * r2[x] +
                               w7 * r2[x + d] + w8 * r2[x + 2 * d];
                }
            }
        } else {
            mote_conv_edge(g, in, wt, bias, out, 0, 1, oh, 0, g->ow, klo, khi);
        }
    }
}

/* Depth of one packed im2col panel: MOTE_CONV_KC x NR floats on the stack (2-8 KB). */
#ifndef MOTE_CONV_KC
#define MOTE_CONV_KC 128
#endif

/*
 * General grouped convolution for one group: implicit im2col. For each block
 * of NR output pixels (row-major over OH x OW) and each block of KC taps
 * (ci, kh, kw), the [KC x NR] slice of the im2col matrix is packed (zeros for
 * padding) into a stack panel, then the GEMM micro-kernel multiplies every
 * block of MR output channels with it. K blocks after the first accumulate
 * into the output.
 */
static void mote_conv_group(const mote_conv_geom_t *g, const float *in, const float *wt,
                            const float *bias, float *out)
{
    const size_t khw = g->kh * g->kw, kk = g->cin_g * khw, np = g->oh * g->ow;
    const size_t hw = g->h * g->w;
    float panel[MOTE_CONV_KC * MOTE_GEMM_NR];
    float tmp[MOTE_GEMM_MR * MOTE_GEMM_NR];
    ptrdiff_t ihb[MOTE_GEMM_NR], iwb[MOTE_GEMM_NR];
    size_t p0, k0, j, co0;

    for (p0 = 0; p0 < np; p0 += MOTE_GEMM_NR) {
        const size_t nr = np - p0 < MOTE_GEMM_NR ? np - p0 : MOTE_GEMM_NR;
        size_t oh = p0 / g->ow, ow = p0 % g->ow;
        for (j = 0; j < MOTE_GEMM_NR; j++) {
            if (j < nr) {
                ihb[j] = (ptrdiff_t)oh * g->sh - g->ph;
                iwb[j] = (ptrdiff_t)ow * g->sw - g->pw;
                if (++ow == g->ow) {
                    ow = 0;
                    oh++;
                }
            } else {
                ihb[j] = -(ptrdiff_t)(g->h + g->kh * (size_t)g->dh) - 1; /* always padding */
                iwb[j] = 0;
            }
        }
        /* all NR pixels on one output row: row checks once per tap */
        const int one_row = nr == MOTE_GEMM_NR && ihb[0] == ihb[MOTE_GEMM_NR - 1];
        const ptrdiff_t last = (ptrdiff_t)(MOTE_GEMM_NR - 1) * g->sw;
        for (k0 = 0; k0 < kk; k0 += MOTE_CONV_KC) {
            const size_t kc = kk - k0 < MOTE_CONV_KC ? kk - k0 : MOTE_CONV_KC;
            size_t ci = k0 / khw, r = k0 % khw, kh = r / g->kw, kw = r % g->kw, q;
            /* pack the im2col panel */
            for (q = 0; q < kc; q++) {
                const float *plane = in + ci * hw;
                const ptrdiff_t oy = (ptrdiff_t)kh * g->dh, ox = (ptrdiff_t)kw * g->dw;
                float *dst = panel + q * MOTE_GEMM_NR;
                const ptrdiff_t ih = ihb[0] + oy, iw = iwb[0] + ox;
                if (one_row && (size_t)ih >= g->h) {
                    for (j = 0; j < MOTE_GEMM_NR; j++) {
                        dst[j] = 0.0f; /* the whole panel reads a padding row */
                    }
                } else if (one_row && iw >= 0 && iw + last < (ptrdiff_t)g->w) {
                    /* one input row, every column inside: a (strided) copy */
                    const float *src = plane + (size_t)ih * g->w + (size_t)iw;
                    if (g->sw == 1) {
                        for (j = 0; j < MOTE_GEMM_NR; j++) {
                            dst[j] = src[j];
                        }
                    } else {
                        for (j = 0; j < MOTE_GEMM_NR; j++) {
                            dst[j] = src[j * (size_t)g->sw];
                        }
                    }
                } else {
                    for (j = 0; j < MOTE_GEMM_NR; j++) {
                        const ptrdiff_t y = ihb[j] + oy, x = iwb[j] + ox;
                        dst[j] = ((size_t)y < g->h && (size_t)x < g->w)
                                     ? plane[(size_t)y * g->w + (size_t)x]
                                     : 0.0f;
                    }
                }
                if (++kw == g->kw) {
                    kw = 0;
                    if (++kh == g->kh) {
                        kh = 0;
                        ci++;
                    }
                }
            }
            /* multiply every block of output channels with it */
            for (co0 = 0; co0 < g->cout_g; co0 += MOTE_GEMM_MR) {
                const size_t mr = g->cout_g - co0 < MOTE_GEMM_MR ? g->cout_g - co0 : MOTE_GEMM_MR;
                const float *a = wt + co0 * kk + k0;
                float *c = out + co0 * np + p0;
                const float *bb;
                size_t brs, bcs;
                if (k0 == 0) {
                    bb = bias != NULL ? bias + co0 : NULL;
                    brs = 1;
                    bcs = 0;
                } else {
                    bb = c;
                    brs = np;
                    bcs = 1;
                }
                if (mr == MOTE_GEMM_MR && nr == MOTE_GEMM_NR) {
                    mote_gemm_f32_micro(kc, a, kk, panel, MOTE_GEMM_NR, c, np, bb, brs, bcs, 1.0f,
                                        1.0f);
                } else if (mr == MOTE_GEMM_MR) {
                    size_t i;
                    if (k0 > 0) {
                        for (i = 0; i < MOTE_GEMM_MR; i++) {
                            for (j = 0; j < nr; j++) {
                                tmp[i * MOTE_GEMM_NR + j] = c[i * np + j];
                            }
                        }
                        bb = tmp;
                        brs = MOTE_GEMM_NR;
                    }
                    mote_gemm_f32_micro(kc, a, kk, panel, MOTE_GEMM_NR, tmp, MOTE_GEMM_NR, bb, brs,
                                        bcs, 1.0f, 1.0f);
                    for (i = 0; i < MOTE_GEMM_MR; i++) {
                        for (j = 0; j < nr; j++) {
                            c[i * np + j] = tmp[i * MOTE_GEMM_NR + j];
                        }
                    }
                } else {
                    mote_gemm_f32_small(mr, nr, kc, a, kk, panel, MOTE_GEMM_NR, c, np, bb, brs, bcs,
                                        1.0f, 1.0f);
                }
            }
        }
    }
}

/* The int[] arguments of a convolution call (stride, padding, dilation, output_padding). */
typedef struct mote_conv_lists {
    const int64_t *st, *pd, *dl, *opd;
    uint32_t nst, npd, ndl, nopd;
} mote_conv_lists_t;

/* item d of a 1- or nsp-item int list (a 1-item list applies to every dim); 0 if absent */
static int64_t mote_conv_item(const int64_t *v, uint32_t n, uint32_t d)
{
    return n == 0 ? 0 : v[n == 1 ? 0 : d];
}

/*
 * Transposed convolution (the gradient of a convolution w.r.t. its input):
 * weight [Cin, Cout/groups, K...], out [N, Cout, O...] with
 * O = (I - 1) * stride - 2 * padding + dilation * (K - 1) + output_padding + 1;
 * every input pixel scatters input * weight into the out pixels it reaches.
 */
static mote_err_t mote_conv_transposed(const mote_tensor_t *in, const mote_tensor_t *wt,
                                       const mote_tensor_t *bias, const mote_conv_lists_t *l,
                                       int64_t groups, mote_tensor_t *out)
{
    uint32_t nsp, d;
    size_t n, cin, cin_g, cout_g, cout, ng, sz[2], ksz[2], osz[2];
    ptrdiff_t s[2], p[2], dl[2];
    MOTE_CHECK(in->dim == 4 || in->dim == 3, MOTE_ERR_KERNEL_SHAPE);
    nsp = in->dim - 2u;
    MOTE_CHECK(wt->dim == in->dim && out->dim == in->dim, MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK((l->nst == 1 || l->nst == nsp) && (l->npd == 1 || l->npd == nsp) &&
                   (l->ndl == 1 || l->ndl == nsp) && (l->nopd <= 1 || l->nopd == nsp),
               MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(groups > 0 && groups < 0x7FFFFFFF, MOTE_ERR_KERNEL_ARGS);
    for (d = 0; d < 2; d++) {
        sz[d] = ksz[d] = osz[d] = 1;
        s[d] = dl[d] = 1;
        p[d] = 0;
    }
    for (d = 0; d < nsp; d++) {
        const uint32_t k = 2u - nsp + d; /* 1-D uses slot 1 (the width) */
        int64_t sv = mote_conv_item(l->st, l->nst, d), pv = mote_conv_item(l->pd, l->npd, d);
        int64_t dv = mote_conv_item(l->dl, l->ndl, d), ov = mote_conv_item(l->opd, l->nopd, d);
        int64_t o;
        MOTE_CHECK(sv > 0 && sv < 65536 && pv >= 0 && pv < 65536 && dv > 0 && dv < 65536,
                   MOTE_ERR_KERNEL_ARGS);
        MOTE_CHECK(ov >= 0 && (ov < sv || ov < dv), MOTE_ERR_KERNEL_ARGS);
        sz[k] = (size_t)in->sizes[2 + d];
        ksz[k] = (size_t)wt->sizes[2 + d];
        MOTE_CHECK(ksz[k] > 0 && sz[k] > 0, MOTE_ERR_KERNEL_SHAPE);
        o = ((int64_t)sz[k] - 1) * sv - 2 * pv + dv * ((int64_t)ksz[k] - 1) + ov + 1;
        MOTE_CHECK(o > 0 && out->sizes[2 + d] == o, MOTE_ERR_KERNEL_SHAPE);
        osz[k] = (size_t)o;
        s[k] = (ptrdiff_t)sv;
        p[k] = (ptrdiff_t)pv;
        dl[k] = (ptrdiff_t)dv;
    }
    ng = (size_t)groups;
    n = (size_t)in->sizes[0];
    cin = (size_t)in->sizes[1];
    MOTE_CHECK((size_t)wt->sizes[0] == cin && cin % ng == 0, MOTE_ERR_KERNEL_SHAPE);
    cin_g = cin / ng;
    cout_g = (size_t)wt->sizes[1];
    cout = cout_g * ng;
    MOTE_CHECK(bias == NULL || (bias->dim == 1 && (size_t)bias->sizes[0] == cout),
               MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK((size_t)out->sizes[0] == n && (size_t)out->sizes[1] == cout, MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(wt));
    MOTE_TRY(mote_k_check_numel(out));
    if (bias != NULL) {
        MOTE_TRY(mote_k_check_numel(bias));
    }
    {
        const float *x = (const float *)in->data, *w = (const float *)wt->data;
        float *y = (float *)out->data;
        const size_t ihw = sz[0] * sz[1], ohw = osz[0] * osz[1], kk = ksz[0] * ksz[1];
        size_t b, c, i;
        for (b = 0; b < n; b++) {
            for (c = 0; c < cout; c++) {
                float bv = bias != NULL ? ((const float *)bias->data)[c] : 0.0f;
                for (i = 0; i < ohw; i++) {
                    y[(b * cout + c) * ohw + i] = bv;
                }
            }
        }
        for (b = 0; b < n; b++) {
            for (c = 0; c < cin; c++) {
                const size_t grp = c / cin_g;
                const float *xc = x + (b * cin + c) * ihw;
                size_t oc, iy, ix, ky, kx;
                for (oc = 0; oc < cout_g; oc++) {
                    const float *wk = w + (c * cout_g + oc) * kk;
                    float *yc = y + (b * cout + grp * cout_g + oc) * ohw;
                    for (iy = 0; iy < sz[0]; iy++) {
                        for (ky = 0; ky < ksz[0]; ky++) {
                            ptrdiff_t oy = (ptrdiff_t)iy * s[0] - p[0] + (ptrdiff_t)ky * dl[0];
                            if (oy < 0 || oy >= (ptrdiff_t)osz[0]) {
                                continue;
                            }
                            for (ix = 0; ix < sz[1]; ix++) {
                                const float xv = xc[iy * sz[1] + ix];
                                for (kx = 0; kx < ksz[1]; kx++) {
                                    ptrdiff_t ox = (ptrdiff_t)ix * s[1] - p[1] + (ptrdiff_t)kx * dl[1];
                                    if (ox >= 0 && ox < (ptrdiff_t)osz[1]) {
                                        yc[(size_t)oy * osz[1] + (size_t)ox] += xv * wk[ky * ksz[1] + kx];
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    return MOTE_OK;
}

mote_err_t mote_kernel_aten_convolution_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                            uint32_t nargs)
{
    mote_tensor_t *in, *wt, *bias, *out;
    const int64_t *st, *pd, *dl, *opd = NULL;
    uint32_t nst, npd, ndl, nsp, d, nopd = 0;
    int transposed;
    int64_t groups;
    mote_conv_geom_t g;
    size_t n, cin, cout, grp, ngroups;
    (void)ctx;

    MOTE_TRY(mote_k_nargs(args, nargs, 10));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_tensor(args[1], &wt));
    MOTE_TRY(mote_k_opt_tensor(args[2], &bias));
    MOTE_TRY(mote_k_ints(args[3], &st, &nst));
    MOTE_TRY(mote_k_ints(args[4], &pd, &npd));
    MOTE_TRY(mote_k_ints(args[5], &dl, &ndl));
    MOTE_TRY(mote_k_bool(args[6], &transposed));
    if (!mote_k_is_none(args[7])) {
        MOTE_TRY(mote_k_ints(args[7], &opd, &nopd));
    }
    MOTE_TRY(mote_k_int(args[8], &groups));
    MOTE_TRY(mote_k_tensor(args[9], &out));
    MOTE_CHECK(in->dtype == MOTE_DTYPE_FLOAT32 && wt->dtype == MOTE_DTYPE_FLOAT32 &&
                     out->dtype == MOTE_DTYPE_FLOAT32 &&
                     (bias == NULL || bias->dtype == MOTE_DTYPE_FLOAT32),
                 MOTE_ERR_KERNEL_DTYPE);
    if (transposed) {
        mote_conv_lists_t l;
        l.st = st;
        l.pd = pd;
        l.dl = dl;
        l.opd = opd;
        l.nst = nst;
        l.npd = npd;
        l.ndl = ndl;
        l.nopd = nopd;
        return mote_conv_transposed(in, wt, bias, &l, groups, out);
    }
    MOTE_CHECK(in->dim == 4 || in->dim == 3, MOTE_ERR_KERNEL_SHAPE);
    nsp = in->dim - 2u;
    MOTE_CHECK(wt->dim == in->dim && out->dim == in->dim, MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK((nst == 1 || nst == nsp) && (npd == 1 || npd == nsp) && (ndl == 1 || ndl == nsp),
                 MOTE_ERR_KERNEL_ARGS);
    for (d = 0; d < nst; d++) {
        MOTE_CHECK(st[d] > 0 && st[d] < 65536, MOTE_ERR_KERNEL_ARGS);
    }
    for (d = 0; d < npd; d++) {
        MOTE_CHECK(pd[d] >= 0 && pd[d] < 65536, MOTE_ERR_KERNEL_ARGS);
    }
    for (d = 0; d < ndl; d++) {
        MOTE_CHECK(dl[d] > 0 && dl[d] < 65536, MOTE_ERR_KERNEL_ARGS);
    }
    MOTE_CHECK(groups > 0 && groups < 0x7FFFFFFF, MOTE_ERR_KERNEL_ARGS);
    ngroups = (size_t)groups;

    n = (size_t)in->sizes[0];
    cin = (size_t)in->sizes[1];
    cout = (size_t)wt->sizes[0];
    MOTE_CHECK(cin % ngroups == 0 && cout % ngroups == 0 && cout > 0, MOTE_ERR_KERNEL_SHAPE);
    g.cin_g = cin / ngroups;
    g.cout_g = cout / ngroups;
    MOTE_CHECK((size_t)wt->sizes[1] == g.cin_g, MOTE_ERR_KERNEL_SHAPE);
    if (nsp == 2) {
        g.h = (size_t)in->sizes[2];
        g.w = (size_t)in->sizes[3];
        g.kh = (size_t)wt->sizes[2];
        g.kw = (size_t)wt->sizes[3];
        g.sh = (ptrdiff_t)st[0];
        g.sw = (ptrdiff_t)st[nst - 1];
        g.ph = (ptrdiff_t)pd[0];
        g.pw = (ptrdiff_t)pd[npd - 1];
        g.dh = (ptrdiff_t)dl[0];
        g.dw = (ptrdiff_t)dl[ndl - 1];
    } else {
        g.h = 1;
        g.w = (size_t)in->sizes[2];
        g.kh = 1;
        g.kw = (size_t)wt->sizes[2];
        g.sh = 1;
        g.sw = (ptrdiff_t)st[0];
        g.ph = 0;
        g.pw = (ptrdiff_t)pd[0];
        g.dh = 1;
        g.dw = (ptrdiff_t)dl[0];
    }
    MOTE_CHECK(g.kh > 0 && g.kw > 0, MOTE_ERR_KERNEL_SHAPE);
    {
        ptrdiff_t eh = (ptrdiff_t)g.h + 2 * g.ph - g.dh * (ptrdiff_t)(g.kh - 1) - 1;
        ptrdiff_t ew = (ptrdiff_t)g.w + 2 * g.pw - g.dw * (ptrdiff_t)(g.kw - 1) - 1;
        MOTE_CHECK(eh >= 0 && ew >= 0, MOTE_ERR_KERNEL_SHAPE);
        g.oh = (size_t)(eh / g.sh + 1);
        g.ow = (size_t)(ew / g.sw + 1);
    }
    MOTE_CHECK(bias == NULL || (bias->dim == 1 && (size_t)bias->sizes[0] == cout),
                 MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK((size_t)out->sizes[0] == n && (size_t)out->sizes[1] == cout,
                 MOTE_ERR_KERNEL_SHAPE);
    if (nsp == 2) {
        MOTE_CHECK((size_t)out->sizes[2] == g.oh && (size_t)out->sizes[3] == g.ow,
                     MOTE_ERR_KERNEL_SHAPE);
    } else {
        MOTE_CHECK((size_t)out->sizes[2] == g.ow, MOTE_ERR_KERNEL_SHAPE);
    }
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(wt));
    MOTE_TRY(mote_k_check_numel(out));

    {
        const float *x = (const float *)in->data, *w = (const float *)wt->data;
        const float *bv = bias != NULL ? (const float *)bias->data : NULL;
        float *y = (float *)out->data;
        const size_t kk = g.cin_g * g.kh * g.kw, hw = g.h * g.w, ohw = g.oh * g.ow;
        const int pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 &&
                              g.pw == 0;
        size_t b;
        for (b = 0; b < n; b++) {
            for (grp = 0; grp < ngroups; grp++) {
                const float *xg = x + (b * cin + grp * g.cin_g) * hw;
                const float *wg = w + grp * g.cout_g * kk;
                const float *bg = bv != NULL ? bv + grp * g.cout_g : NULL;
                float *yg = y + (b * cout + grp * g.cout_g) * ohw;
                if (g.cin_g == 1 && g.cout_g == 1) {
                    mote_conv_depthwise(&g, xg, wg, bg, yg);
                } else if (pointwise) {
                    mote_gemm_f32(g.cout_g, hw, g.cin_g, wg, kk, xg, hw, yg, hw, bg, 1, 0, 1.0f,
                                  1.0f);
                } else {
                    mote_conv_group(&g, xg, wg, bg, yg);
                }
            }
        }
    }
    return MOTE_OK;
}
