/*
 * kernels/gemm.h - internal fp32 GEMM core of the portable kernels
 * (convolution, addmm, mm, bmm). Not part of the public ABI.
 *
 * The micro-kernel computes one MOTE_GEMM_MR x MOTE_GEMM_NR block of
 *   C(i, j) = alpha * sum_p A(i, p) * B(p, j) + beta * bias(i, j)
 * with A(i, p) = a[i*lda + p], B(p, j) = b[p*ldb + j], C(i, j) = c[i*ldc + j]
 * and bias(i, j) = bias[i*bias_rs + j*bias_cs] (bias NULL = 0). The bias
 * strides express a per-row bias (conv: rs 1, cs 0), a per-column bias
 * (linear: rs 0, cs 1), a full matrix, a scalar, or C itself (accumulate:
 * bias = c, rs = ldc, cs = 1) - bias may alias C exactly.
 * The accumulator block is a local array with constant bounds, so the
 * compiler keeps it in registers and vectorizes over j.
 */
#ifndef MOTE_GEMM_H
#define MOTE_GEMM_H

#include <stddef.h>

/*
 * With GCC/clang on targets with SIMD registers the micro-kernel is written
 * with the compilers' generic vector types (two vectors per row, so NR =
 * 2 * lanes); elsewhere (Cortex-M without MVE, other compilers) it is plain
 * C with the same blocking.
 */
#if !defined(MOTE_GEMM_NO_VEC) && (defined(__GNUC__) || defined(__clang__)) && \
    (defined(__SSE2__) || defined(__ARM_NEON) || defined(__AVX__))
#define MOTE_GEMM_VEC 1
#if defined(__AVX__)
#define MOTE_GEMM_VBYTES 32
#else
#define MOTE_GEMM_VBYTES 16
#endif
#define MOTE_GEMM_LANES (MOTE_GEMM_VBYTES / 4)
#ifndef MOTE_GEMM_NR
#define MOTE_GEMM_NR (2 * MOTE_GEMM_LANES)
#endif
#endif

#ifndef MOTE_GEMM_MR
#define MOTE_GEMM_MR 4
#endif
#ifndef MOTE_GEMM_NR
/* scalar FPUs (Cortex-M: 32 single registers): 4 x 4 accumulators stay in registers */
#define MOTE_GEMM_NR 4
#endif

/** One full MR x NR block (see above); k may be 0 (then C = beta * bias). */
void mote_gemm_f32_micro(size_t k, const float *a, size_t lda, const float *b, size_t ldb,
                         float *c, size_t ldc, const float *bias, size_t bias_rs, size_t bias_cs,
                         float alpha, float beta);

/** Any block of mr <= MR rows and nr <= NR columns (edges), same semantics. */
void mote_gemm_f32_small(size_t mr, size_t nr, size_t k, const float *a, size_t lda,
                         const float *b, size_t ldb, float *c, size_t ldc, const float *bias,
                         size_t bias_rs, size_t bias_cs, float alpha, float beta);

/**
 * C[m x n] = alpha * A[m x k] @ B[k x n] + beta * bias (row-major, leading
 * dimensions lda/ldb/ldc; bias as above, may alias C exactly). C must not
 * overlap A or B.
 */
void mote_gemm_f32(size_t m, size_t n, size_t k, const float *a, size_t lda, const float *b,
                   size_t ldb, float *c, size_t ldc, const float *bias, size_t bias_rs,
                   size_t bias_cs, float alpha, float beta);

#endif /* MOTE_GEMM_H */
