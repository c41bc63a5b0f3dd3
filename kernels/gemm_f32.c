/*
 * kernels/gemm_f32.c - register-blocked fp32 GEMM core (see gemm.h).
 */
#include "gemm.h"

#include <string.h>

#define MR MOTE_GEMM_MR
#define NR MOTE_GEMM_NR

/* C = alpha * acc + beta * bias for one MR x NR block held in acc. */
static void mote_gemm_store(const float *acc, float *c, size_t ldc, const float *bias,
                            size_t bias_rs, size_t bias_cs, float alpha, float beta)
{
    size_t i, j;
    for (i = 0; i < MR; i++) {
        float *cr = c + i * ldc;
        const float *ar = acc + i * NR;
        if (bias != NULL) {
            const float *br = bias + i * bias_rs;
            if (bias_cs == 0) {
                const float bv = beta * br[0];
                for (j = 0; j < NR; j++) {
                    cr[j] = alpha * ar[j] + bv;
                }
            } else {
                for (j = 0; j < NR; j++) {
                    cr[j] = alpha * ar[j] + beta * br[j * bias_cs];
                }
            }
        } else {
            for (j = 0; j < NR; j++) {
                cr[j] = alpha * ar[j];
            }
        }
    }
}

#if defined(MOTE_GEMM_VEC) && defined(__aarch64__) && defined(__ARM_NEON) && !defined(MOTE_GEMM_NO_NEON) && MR == 4 && NR == 8

/*
 * AArch64 NEON: four k steps per iteration, each B row times one lane of the
 * four A rows with a fused multiply-add (FMLA by element). The generic
 * vectors below compile to a broadcast, FMUL and FADD per accumulator and k
 * (ISO C keeps a*b + c unfused), three instructions where this takes one.
 * -DMOTE_GEMM_NO_NEON keeps the generic path (to compare the two).
 */
#include <arm_neon.h>

#define MOTE_NEON_STEP(q, av)                                    \
    do {                                                         \
        const float *bq = b + (p + (q)) * ldb;                   \
        const float32x4_t b0 = vld1q_f32(bq), b1 = vld1q_f32(bq + 4); \
        c00 = vfmaq_laneq_f32(c00, b0, (av)[0], q);              \
        c01 = vfmaq_laneq_f32(c01, b1, (av)[0], q);              \
        c10 = vfmaq_laneq_f32(c10, b0, (av)[1], q);              \
        c11 = vfmaq_laneq_f32(c11, b1, (av)[1], q);              \
        c20 = vfmaq_laneq_f32(c20, b0, (av)[2], q);              \
        c21 = vfmaq_laneq_f32(c21, b1, (av)[2], q);              \
        c30 = vfmaq_laneq_f32(c30, b0, (av)[3], q);              \
        c31 = vfmaq_laneq_f32(c31, b1, (av)[3], q);              \
    } while (0)

void mote_gemm_f32_micro(size_t k, const float *a, size_t lda, const float *b, size_t ldb,
                         float *c, size_t ldc, const float *bias, size_t bias_rs, size_t bias_cs,
                         float alpha, float beta)
{
    float32x4_t c00 = vdupq_n_f32(0.0f), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00,
                c31 = c00;
    float acc[MR * NR];
    size_t p = 0, i;
    for (; p + 4 <= k; p += 4) {
        float32x4_t av[4];
        for (i = 0; i < 4; i++) {
            av[i] = vld1q_f32(a + i * lda + p);
        }
        MOTE_NEON_STEP(0, av);
        MOTE_NEON_STEP(1, av);
        MOTE_NEON_STEP(2, av);
        MOTE_NEON_STEP(3, av);
    }
    for (; p < k; p++) { /* k % 4 tail: lane 0 of a broadcast */
        float32x4_t av[4];
        for (i = 0; i < 4; i++) {
            av[i] = vdupq_n_f32(a[i * lda + p]);
        }
        MOTE_NEON_STEP(0, av);
    }
    vst1q_f32(acc + 0 * NR, c00);
    vst1q_f32(acc + 0 * NR + 4, c01);
    vst1q_f32(acc + 1 * NR, c10);
    vst1q_f32(acc + 1 * NR + 4, c11);
    vst1q_f32(acc + 2 * NR, c20);
    vst1q_f32(acc + 2 * NR + 4, c21);
    vst1q_f32(acc + 3 * NR, c30);
    vst1q_f32(acc + 3 * NR + 4, c31);
    mote_gemm_store(acc, c, ldc, bias, bias_rs, bias_cs, alpha, beta);
}

#elif defined(MOTE_GEMM_VEC) && MR == 4 && NR == 2 * MOTE_GEMM_LANES

typedef float mote_vf_t __attribute__((vector_size(MOTE_GEMM_VBYTES)));

static mote_vf_t mote_vload(const float *p)
{
    mote_vf_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

void mote_gemm_f32_micro(size_t k, const float *a, size_t lda, const float *b, size_t ldb,
                         float *c, size_t ldc, const float *bias, size_t bias_rs, size_t bias_cs,
                         float alpha, float beta)
{
    const mote_vf_t z = {0};
    mote_vf_t c00 = z, c01 = z, c10 = z, c11 = z, c20 = z, c21 = z, c30 = z, c31 = z;
    const float *a0 = a, *a1 = a + lda, *a2 = a + 2 * lda, *a3 = a + 3 * lda;
    float acc[MR * NR];
    size_t p;
    for (p = 0; p < k; p++) {
        const float *bp = b + p * ldb;
        const mote_vf_t b0 = mote_vload(bp), b1 = mote_vload(bp + MOTE_GEMM_LANES);
        mote_vf_t av;
        av = z + a0[p];
        c00 += av * b0;
        c01 += av * b1;
        av = z + a1[p];
        c10 += av * b0;
        c11 += av * b1;
        av = z + a2[p];
        c20 += av * b0;
        c21 += av * b1;
        av = z + a3[p];
        c30 += av * b0;
        c31 += av * b1;
    }
    memcpy(acc + 0 * NR, &c00, sizeof c00);
    memcpy(acc + 0 * NR + MOTE_GEMM_LANES, &c01, sizeof c01);
    memcpy(acc + 1 * NR, &c10, sizeof c10);
    memcpy(acc + 1 * NR + MOTE_GEMM_LANES, &c11, sizeof c11);
    memcpy(acc + 2 * NR, &c20, sizeof c20);
    memcpy(acc + 2 * NR + MOTE_GEMM_LANES, &c21, sizeof c21);
    memcpy(acc + 3 * NR, &c30, sizeof c30);
    memcpy(acc + 3 * NR + MOTE_GEMM_LANES, &c31, sizeof c31);
    mote_gemm_store(acc, c, ldc, bias, bias_rs, bias_cs, alpha, beta);
}

#else

void mote_gemm_f32_micro(size_t k, const float *a, size_t lda, const float *b, size_t ldb,
                         float *c, size_t ldc, const float *bias, size_t bias_rs, size_t bias_cs,
                         float alpha, float beta)
{
    float acc[MR * NR];
    size_t p, i, j;
    for (i = 0; i < MR * NR; i++) {
        acc[i] = 0.0f;
    }
    for (p = 0; p < k; p++) {
        const float *bp = b + p * ldb;
        for (i = 0; i < MR; i++) {
            const float av = a[i * lda + p];
            for (j = 0; j < NR; j++) {
                acc[i * NR + j] += av * bp[j];
            }
        }
    }
    mote_gemm_store(acc, c, ldc, bias, bias_rs, bias_cs, alpha, beta);
}

#endif

void mote_gemm_f32_small(size_t mr, size_t nr, size_t k, const float *a, size_t lda,
                         const float *b, size_t ldb, float *c, size_t ldc, const float *bias,
                         size_t bias_rs, size_t bias_cs, float alpha, float beta)
{
    size_t i, j, p;
    for (i = 0; i < mr; i++) {
        float acc[NR];
        const float *ar = a + i * lda;
        for (j = 0; j < NR; j++) {
            acc[j] = 0.0f;
        }
        for (p = 0; p < k; p++) {
            const float av = ar[p];
            const float *bp = b + p * ldb;
            for (j = 0; j < nr; j++) {
                acc[j] += av * bp[j];
            }
        }
        for (j = 0; j < nr; j++) {
            const float bv = bias != NULL ? beta * bias[i * bias_rs + j * bias_cs] : 0.0f;
            c[i * ldc + j] = alpha * acc[j] + bv;
        }
    }
}

/* Rows [i0, i0+mr) x columns [j0, j0+nr), any sizes: row-wise, accumulating in C. */
static void mote_gemm_rows(size_t i0, size_t mr, size_t j0, size_t nr, size_t k, const float *a,
                           size_t lda, const float *b, size_t ldb, float *c, size_t ldc,
                           const float *bias, size_t bias_rs, size_t bias_cs, float alpha,
                           float beta)
{
    size_t i, j, p;
    for (i = i0; i < i0 + mr; i++) {
        float *cr = c + i * ldc;
        const float *ar = a + i * lda;
        if (bias != NULL) {
            const float *br = bias + i * bias_rs;
            for (j = j0; j < j0 + nr; j++) {
                cr[j] = beta * br[j * bias_cs];
            }
        } else {
            for (j = j0; j < j0 + nr; j++) {
                cr[j] = 0.0f;
            }
        }
        for (p = 0; p < k; p++) {
            const float av = alpha * ar[p];
            const float *brow = b + p * ldb;
            for (j = j0; j < j0 + nr; j++) {
                cr[j] += av * brow[j];
            }
        }
    }
}

void mote_gemm_f32(size_t m, size_t n, size_t k, const float *a, size_t lda, const float *b,
                   size_t ldb, float *c, size_t ldc, const float *bias, size_t bias_rs,
                   size_t bias_cs, float alpha, float beta)
{
    const size_t mfull = m - m % MR, nfull = n - n % NR;
    size_t i0, j0;
    if (m == 0 || n == 0) {
        return;
    }
    /* column panels of NR: the k x NR slice of B stays in L1 across row blocks */
    for (j0 = 0; j0 < nfull; j0 += NR) {
        for (i0 = 0; i0 < mfull; i0 += MR) {
            mote_gemm_f32_micro(k, a + i0 * lda, lda, b + j0, ldb, c + i0 * ldc + j0, ldc,
                                bias != NULL ? bias + i0 * bias_rs + j0 * bias_cs : NULL, bias_rs,
                                bias_cs, alpha, beta);
        }
    }
    if (mfull < m && nfull > 0) {
        mote_gemm_rows(mfull, m - mfull, 0, nfull, k, a, lda, b, ldb, c, ldc, bias, bias_rs,
                       bias_cs, alpha, beta);
    }
    if (nfull < n) {
        mote_gemm_rows(0, m, nfull, n - nfull, k, a, lda, b, ldb, c, ldc, bias, bias_rs, bias_cs,
                       alpha, beta);
    }
}
