/*
 * cmsis/mote_s8_arm.h - shared pieces of the Cortex-M int8 kernels.
 *
 * Path selection by compiler feature macros (exactly one is active):
 *   MOTE_S8_MVE   __ARM_FEATURE_MVE (integer MVE, Cortex-M55): arm_mve.h
 *   MOTE_S8_DSP   __ARM_FEATURE_DSP (Cortex-M4/M7/M33): SMLAD / SXTB16 via arm_acle.h
 *   MOTE_S8_PLAIN anything else (and the host): plain C with the same blocking
 * Define MOTE_S8_FORCE_PLAIN to build the plain path on any target.
 * All paths produce the bytes of kernels/op_mote_*.c (docs/int8-ops.md).
 */
#ifndef MOTE_CMSIS_S8_ARM_H
#define MOTE_CMSIS_S8_ARM_H

#include <string.h>

#include "../kernels/requant.h"

/* The inner loops of the DSP kernels: optimized for speed even when the
   kernels are built for size (GCC; other compilers take the build's flag). */
#if defined(__GNUC__) && !defined(__clang__)
#define MOTE_S8_HOT __attribute__((optimize("O2")))
#else
#define MOTE_S8_HOT
#endif
/* Small helpers of those loops: always inlined (-Os would call them). */
#if defined(__GNUC__)
#define MOTE_S8_INLINE static inline __attribute__((always_inline))
#else
#define MOTE_S8_INLINE static inline
#endif

/* The head of a global Thumb function written as top-level assembly, in its own
 * section (so --gc-sections drops it when no call links it):
 * __asm__(MOTE_S8_ASM_FUNC("name") "  push {r4-r11, lr}\n" ...). */
#define MOTE_S8_ASM_FUNC(name)                                                             \
    "  .section .text." name ",\"ax\",%progbits\n"                                         \
    "  .syntax unified\n"                                                                  \
    "  .thumb\n"                                                                           \
    "  .p2align 2\n"                                                                       \
    "  .global " name "\n"                                                                 \
    "  .type " name ", %function\n"                                                        \
    "  .thumb_func\n"                                                                      \
    name ":\n"

/* --opt size (aot build / aot generate define MOTE_OPT_SIZE to 0 or 1): the DSP
   kernels leave out their speed-only cores (conv2d_s8: the full-range store core,
   the clamping one serves [-128, 127] too; linear_s8: the panel core, the rows path
   ignores a panel). Same bytes either way. */
#if defined(MOTE_OPT_SIZE) && MOTE_OPT_SIZE
#define MOTE_S8_SIZE 1
#else
#define MOTE_S8_SIZE 0
#endif

/*
 * Per-program kernel variants: aot build / aot generate define each MOTE_S8_USE_*
 * to 1 when a call of the program runs that variant of the DSP kernels and to 0
 * when none does (aot/deploy/generate.py kernel_variant_defines, from the rules the
 * kernels dispatch with: kernels/requant.h, kernels/int8_scratch.c), so a firmware
 * carries only the variants its program runs. Undefined: 1 (every variant; the
 * host, a user's build of every kernel). A call that would take a variant compiled
 * out takes a general path that gives the same bytes, or fails with
 * MOTE_ERR_UNSUPPORTED; it never computes other bytes. tests/deploy/test_variants.py
 * keeps this list and the compiler's rules one set.
 *   CONV_POINTWISE, CONV_STEM, CONV_WINDOW, CONV_STEM3X3C3  conv2d_s8's column
 *       builders by shape (mote_s8_conv_variant; a stride-1 pointwise call with the
 *       program's table needs none: it reads the input directly)
 *   CONV_STEM3_NCHW  conv2d_s8_nchw's STEM3X3C3 column gathered from the input's three
 *                  planes (without it the plain-C loop: the same bytes)
 *   CONV_GENERAL   conv2d_s8 calls without the program's fast requantization table
 *                  (weights widened and the table computed at run time, the
 *                  general-requantization path)
 *   CONV_FULL      the full-range [-128, 127] store core (else the clamping one serves)
 *   CONV_CLAMP     the clamping store core (ranges narrower than [-128, 127])
 *   CONV_ODD       the last channel of an odd Cout (fast path)
 *   CONV_E         calls with the program's E-form table (kernels/requant.h): the 3x2
 *                  core with the two-instruction requantization (conv_rows; the RGB
 *                  stem's conv_stem3_rows its K = 28 unrolled form)
 *   CONV_EK64      their core of 16-group passes (K a multiple of 64, >= 128:
 *                  mote_s8_eform_k64; without it the same bytes by the looping one)
 *   CONV_PWE       their stride-1 pointwise calls of K <= MOTE_S8_EFORM_PWMAX
 *                  (mote_s8_eform_pw): their own rows (without it conv_rows, same bytes)
 *   CONV_PWU       their 3x2 core unrolled for K = 16 and K = 32 (without it the same
 *                  bytes by the looping one)
 *   CONV_PW8       their K = 8 core (channel-stationary blocks of 16n pixels; without it
 *                  the same bytes by the 3x2 core)
 *   DW_PLANAR      depthwise through an int16 plane (mote_s8_dw_planar_call)
 *   DW_PLANAR_S2   its stride-2 core
 *   DW_PLANAR_T, DW_PLANAR_N  the plane transposed (mote_s8_dw_planar_transposed) or not
 *   DW_PLANAR_ONE  one plane at a time (Cout not a multiple of 4, or the scratch under
 *                  mote_s8_dw_planes4_bytes)
 *   DW_PLANAR_TWO  two planes at a time (Cout even, the scratch under four planes but at
 *                  least mote_s8_dw_planes2_bytes)
 *   DW_PLANAR_X3S2 the 1x3 block of stride 2 (kept for any stride-2 plane)
 *   DW_PLANAR_X6   the planes' 1x6 block (mote_s8_dw_planar_x6: stride 1, rows of 2 mod 4
 *                  outputs, 6+; without it the same bytes by a 1x4 block and an
 *                  overlapping one)
 *   DW_PLANAR_X6S2 the 1x6 block of stride 2 (inside DW_PLANAR_X6; kept for any stride-2 plane)
 *   DW_PLANAR_C    the planes' C blocks (rows the assembly does not take: dwp_asm_rows)
 *   DW_PLANAR_X3   the planes' 1x3 block (stride 1, rows of three outputs; without it
 *                  the same bytes by the planes' C blocks)
 *   DW_PLANAR_R    the planes' assembly with the 4-instruction requantization (ADD, SMMLAR,
 *                  ASR, SSAT: calls not in the E-form)
 *   DW_PLANAR_E    the planes' assembly with the E-form (SMMLA, SSAT ASR #12:
 *                  mote_s8_dw_planar_eform for every channel, Cout a multiple of 4)
 *   DW_PLANAR_JOB  the planes' channel constants derived from the weights (dwp_job; not
 *                  needed when every plane call carries the program's record, argument 13)
 *   DW_PLANAR_X8   the E-form's stride-1 1x8 block (rows of 8n or 16+ outputs; without it
 *                  the same bytes by 1x4 blocks; --opt speed only)
 *   DW_GROUP       depthwise calls the plane does not take: groups of four channels
 *                  and the plain loop (without it such a call fails)
 *   LINEAR_ROWS    linear_s8 with neither a panel nor a table (widened input rows;
 *                  --opt size: also a call with a panel)
 *   LINEAR_TABLE   linear_s8 with the program's table alone ("rows+table")
 *   LINEAR_PANEL   linear_s8 with the program's panel
 *   ROWS_RING      the row ring of conv2d_s8 / depthwise_conv2d_s8 calls planned in
 *                  place that need it (kernels/s8_rows.c; not the direct pointwise
 *                  nor the plane: mote_s8_conv_direct_in_place, mote_s8_dw_planar_call)
 */
#ifndef MOTE_S8_USE_CONV_POINTWISE
#define MOTE_S8_USE_CONV_POINTWISE 1
#endif
#ifndef MOTE_S8_USE_CONV_STEM
#define MOTE_S8_USE_CONV_STEM 1
#endif
#ifndef MOTE_S8_USE_CONV_WINDOW
#define MOTE_S8_USE_CONV_WINDOW 1
#endif
#ifndef MOTE_S8_USE_CONV_STEM3X3C3
#define MOTE_S8_USE_CONV_STEM3X3C3 1
#endif
#ifndef MOTE_S8_USE_CONV_STEM3_NCHW
#define MOTE_S8_USE_CONV_STEM3_NCHW 1
#endif
#ifndef MOTE_S8_USE_CONV_GENERAL
#define MOTE_S8_USE_CONV_GENERAL 1
#endif
#ifndef MOTE_S8_USE_CONV_FULL
#define MOTE_S8_USE_CONV_FULL 1
#endif
#ifndef MOTE_S8_USE_CONV_CLAMP
#define MOTE_S8_USE_CONV_CLAMP 1
#endif
#ifndef MOTE_S8_USE_CONV_ODD
#define MOTE_S8_USE_CONV_ODD 1
#endif
#ifndef MOTE_S8_USE_CONV_E
#define MOTE_S8_USE_CONV_E 1
#endif
#ifndef MOTE_S8_USE_CONV_EK64
#define MOTE_S8_USE_CONV_EK64 1
#endif
#ifndef MOTE_S8_USE_CONV_PWE
#define MOTE_S8_USE_CONV_PWE 1
#endif
#ifndef MOTE_S8_USE_CONV_PWU
#define MOTE_S8_USE_CONV_PWU 1
#endif
#ifndef MOTE_S8_USE_CONV_PW8
#define MOTE_S8_USE_CONV_PW8 1
#endif
#ifndef MOTE_S8_USE_DW_PLANAR
#define MOTE_S8_USE_DW_PLANAR 1
#endif
#ifndef MOTE_S8_USE_DW_PLANAR_S2
#define MOTE_S8_USE_DW_PLANAR_S2 1
#endif
#ifndef MOTE_S8_USE_DW_PLANAR_T
#define MOTE_S8_USE_DW_PLANAR_T 1
#endif
#ifndef MOTE_S8_USE_DW_PLANAR_N
#define MOTE_S8_USE_DW_PLANAR_N 1
#endif
#ifndef MOTE_S8_USE_DW_PLANAR_ONE
#define MOTE_S8_USE_DW_PLANAR_ONE 1
#endif
#ifndef MOTE_S8_USE_DW_PLANAR_TWO
#define MOTE_S8_USE_DW_PLANAR_TWO 1
#endif
#ifndef MOTE_S8_USE_DW_PLANAR_X6
#define MOTE_S8_USE_DW_PLANAR_X6 1
#endif
#ifndef MOTE_S8_USE_DW_PLANAR_X3S2
#define MOTE_S8_USE_DW_PLANAR_X3S2 1
#endif
#ifndef MOTE_S8_USE_DW_PLANAR_X6S2
#define MOTE_S8_USE_DW_PLANAR_X6S2 1
#endif
#ifndef MOTE_S8_USE_DW_PLANAR_X3
#define MOTE_S8_USE_DW_PLANAR_X3 1
#endif
#ifndef MOTE_S8_USE_DW_PLANAR_C
#define MOTE_S8_USE_DW_PLANAR_C 1
#endif
#ifndef MOTE_S8_USE_DW_PLANAR_R
#define MOTE_S8_USE_DW_PLANAR_R 1
#endif
#ifndef MOTE_S8_USE_DW_PLANAR_E
#define MOTE_S8_USE_DW_PLANAR_E 1
#endif
#ifndef MOTE_S8_USE_DW_PLANAR_JOB
#define MOTE_S8_USE_DW_PLANAR_JOB 1
#endif
#ifndef MOTE_S8_USE_DW_PLANAR_X8
#define MOTE_S8_USE_DW_PLANAR_X8 1
#endif
#ifndef MOTE_S8_USE_DW_GROUP
#define MOTE_S8_USE_DW_GROUP 1
#endif
#ifndef MOTE_S8_USE_LINEAR_ROWS
#define MOTE_S8_USE_LINEAR_ROWS 1
#endif
#ifndef MOTE_S8_USE_LINEAR_TABLE
#define MOTE_S8_USE_LINEAR_TABLE 1
#endif
#ifndef MOTE_S8_USE_LINEAR_PANEL
#define MOTE_S8_USE_LINEAR_PANEL 1
#endif
#ifndef MOTE_S8_USE_ROWS_RING
#define MOTE_S8_USE_ROWS_RING 1
#endif

/** Whether conv2d_s8's column builder for variant v (MOTE_S8_CONV_*) is compiled in. */
static inline int mote_s8_conv_variant_built(int32_t v)
{
    return v == MOTE_S8_CONV_POINTWISE   ? MOTE_S8_USE_CONV_POINTWISE
           : v == MOTE_S8_CONV_STEM      ? MOTE_S8_USE_CONV_STEM
           : v == MOTE_S8_CONV_WINDOW    ? MOTE_S8_USE_CONV_WINDOW
           : v == MOTE_S8_CONV_STEM3X3C3 ? MOTE_S8_USE_CONV_STEM3X3C3
                                         : 0;
}

/** Whether the column builder parsed conv2d_s8 call p needs is compiled in (a
 *  stride-1 pointwise call with the program's table needs none). */
static inline int mote_s8_conv_builder_built(const mote_s8_conv_params_t *p)
{
    const int32_t v = mote_s8_conv_variant(p->cin, p->kh, p->kw, p->pad_h, p->pad_w, p->dil_h, p->dil_w);
    return mote_s8_conv_variant_built(v) ||
           (v == MOTE_S8_CONV_POINTWISE && p->stride_h == 1 && p->stride_w == 1 && p->wtable != NULL);
}

#if !defined(MOTE_S8_FORCE_PLAIN) && defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#define MOTE_S8_MVE 1
#include <arm_mve.h>
#elif !defined(MOTE_S8_FORCE_PLAIN) && defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#define MOTE_S8_DSP 1
#include <arm_acle.h>
#else
#define MOTE_S8_PLAIN 1
#endif

/** Name of the compiled path, for logs and the test harness. */
#if defined(MOTE_S8_MVE)
#define MOTE_S8_PATH_NAME "mve"
#elif defined(MOTE_S8_DSP)
#define MOTE_S8_PATH_NAME "dsp"
#else
#define MOTE_S8_PATH_NAME "plain"
#endif

/** Unaligned 32-bit load (LDR on Armv7-M/v8-M Mainline). */
MOTE_S8_INLINE uint32_t mote_s8_ld32(const void *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/** Unaligned 16-bit store of the low half of v (STRH). */
MOTE_S8_INLINE void mote_s8_st16(void *p, uint32_t v)
{
    const uint16_t h = (uint16_t)v;
    memcpy(p, &h, 2);
}

#if defined(MOTE_S8_DSP)
/* GCC 12's arm_acle.h has no __ror. */
MOTE_S8_INLINE uint32_t mote_s8_ror(uint32_t x, uint32_t r)
{
    return (x >> r) | (x << (32u - r));
}
#endif

/** First 16-byte aligned address inside ctx->scratch, or NULL if it is too small. */
static inline void *mote_s8_scratch(const mote_kernel_ctx_t *ctx, size_t need)
{
    uintptr_t a;
    if (ctx == NULL || ctx->scratch == NULL || ctx->scratch_size < need) {
        return NULL;
    }
    a = ((uintptr_t)ctx->scratch + 15u) & ~(uintptr_t)15u;
    return (void *)a;
}

/* ------------------------------------------------------------------ dot kernels
 * 2x2 register block: two weight rows (output channels a, b) times two columns
 * (output pixels / input rows 0, 1) over k taps: s[0]=a0 s[1]=a1 s[2]=b0 s[3]=b1.
 */
#if defined(MOTE_S8_MVE)
/**
 * MVE: one int8 column x (raw values) against four weight rows over k taps:
 * s[j] = sum x * w_j (the zero point is folded into the bias by the caller).
 */
MOTE_S8_INLINE void mote_s8_mve_dot4(const int8_t *x, const int8_t *w0, const int8_t *w1,
                                    const int8_t *w2, const int8_t *w3, int32_t k,
                                    int32_t s[4])
{
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    int32_t i = 0;
    for (; i + 16 <= k; i += 16) {
        const int8x16_t xv = vldrbq_s8(x + i);
        a0 = vmladavaq_s8(a0, xv, vldrbq_s8(w0 + i));
        a1 = vmladavaq_s8(a1, xv, vldrbq_s8(w1 + i));
        a2 = vmladavaq_s8(a2, xv, vldrbq_s8(w2 + i));
        a3 = vmladavaq_s8(a3, xv, vldrbq_s8(w3 + i));
    }
    if (i < k) {
        const mve_pred16_t pr = vctp8q((uint32_t)(k - i));
        const int8x16_t xv = vldrbq_z_s8(x + i, pr);
        a0 = vmladavaq_s8(a0, xv, vldrbq_z_s8(w0 + i, pr));
        a1 = vmladavaq_s8(a1, xv, vldrbq_z_s8(w1 + i, pr));
        a2 = vmladavaq_s8(a2, xv, vldrbq_z_s8(w2 + i, pr));
        a3 = vmladavaq_s8(a3, xv, vldrbq_z_s8(w3 + i, pr));
    }
    s[0] = a0;
    s[1] = a1;
    s[2] = a2;
    s[3] = a3;
}

/** Sum of k int8 weights. */
MOTE_S8_INLINE int32_t mote_s8_mve_sum(const int8_t *w, int32_t k)
{
    int32_t a = 0, i = 0;
    for (; i + 16 <= k; i += 16) {
        a = vaddvaq_s8(a, vldrbq_s8(w + i));
    }
    if (i < k) {
        a = vaddvaq_s8(a, vldrbq_z_s8(w + i, vctp8q((uint32_t)(k - i))));
    }
    return a;
}

/**
 * Vector requantization of four channels, bit-exact with mote_requantize():
 * VSHL by max(s,0) (wraps like the int32 shift), VQRDMULH == SRDHM (the
 * multiplier is never INT32_MIN), then RDBPOT as VRSHL by -e after a
 * saturating "minus one" on negative lanes with e > 0 (VRSHL rounds ties up;
 * RDBPOT rounds them away from zero), + zero point (saturating), clamp.
 */
MOTE_S8_INLINE int32x4_t mote_s8_mve_requant(int32x4_t acc, int32x4_t mult, int32x4_t shift,
                                            int32_t ozp, int32_t amin, int32_t amax)
{
    const int32x4_t zero = vdupq_n_s32(0);
    const int32x4_t left = vmaxq_s32(shift, zero);
    const int32x4_t nege = vminq_s32(shift, zero);
    int32x4_t x = vshlq_s32(acc, left);
    x = vqrdmulhq_s32(x, mult);
    /* -1 on lanes with x < 0 and e > 0 (nege < 0), else 0 */
    x = vqaddq_s32(x, vandq_s32(vshrq_n_s32(x, 31), vshrq_n_s32(nege, 31)));
    x = vrshlq_s32(x, nege);
    x = vqaddq_n_s32(x, ozp);
    x = vmaxq_s32(x, vdupq_n_s32(amin));
    return vminq_s32(x, vdupq_n_s32(amax));
}

/**
 * Requantize channels c..c+3 (predicated to cout) of sums s[4] + bias4[0..3] and
 * store them as int8 at out + c.
 */
MOTE_S8_INLINE void mote_s8_mve_store4(const mote_s8_conv_params_t *p, const int32_t *s,
                                      const int32_t *bias4, int32_t c, int8_t *out)
{
    if (c + 4 <= p->cout) {
        const int32x4_t acc = vaddq_s32(vld1q_s32(s), vld1q_s32(bias4));
        vstrbq_s32(out + c, mote_s8_mve_requant(acc, vld1q_s32(p->mult + c),
                                                vld1q_s32(p->shift + c), p->out_zp,
                                                p->act_min, p->act_max));
    } else {
        const mve_pred16_t pr = vctp32q((uint32_t)(p->cout - c));
        const int32x4_t acc = vaddq_s32(vld1q_s32(s), vldrwq_z_s32(bias4, pr));
        vstrbq_p_s32(out + c,
                     mote_s8_mve_requant(acc, vldrwq_z_s32(p->mult + c, pr),
                                         vldrwq_z_s32(p->shift + c, pr), p->out_zp,
                                         p->act_min, p->act_max),
                     pr);
    }
}

#elif defined(MOTE_S8_DSP)
/**
 * DSP GEMM core: two weight rows x two columns, all operands int16 pairs in
 * SXTB16 order, interleaved per group of 4 taps:
 *   w: [a(0,2) a(1,3) b(0,2) b(1,3)] per group (LDM of 4 words)
 *   x: [p(0,2) p(1,3) q(0,2) q(1,3)] per group (2 LDRD)
 * 8 SMLAD per group: 16 MACs in 11 instructions; groups four at a time, then the
 * remaining 0..3 one at a time. ngroups = K rounded up to 4, / 4 (> 0).
 * s[0] = a.p, s[1] = a.q, s[2] = b.p, s[3] = b.q. Returns w advanced past the pair.
 */
#define MOTE_S8_DSP_GROUP                                                                  \
    "ldmia %[pw]!, {r0, r1, r2, r3}\n\t"                                                    \
    "ldrd %[x0], %[x1], [%[px]], #8\n\t"                                                    \
    "smlad %[a0], r0, %[x0], %[a0]\n\t"                                                     \
    "smlad %[a0], r1, %[x1], %[a0]\n\t"                                                     \
    "smlad %[b0], r2, %[x0], %[b0]\n\t"                                                     \
    "smlad %[b0], r3, %[x1], %[b0]\n\t"                                                     \
    "ldrd %[x0], %[x1], [%[px]], #8\n\t"                                                    \
    "smlad %[a1], r0, %[x0], %[a1]\n\t"                                                     \
    "smlad %[a1], r1, %[x1], %[a1]\n\t"                                                     \
    "smlad %[b1], r2, %[x0], %[b1]\n\t"                                                     \
    "smlad %[b1], r3, %[x1], %[b1]\n\t"
MOTE_S8_INLINE const int32_t *mote_s8_dsp_mac2x2(const int32_t *w, const int32_t *x,
                                                int32_t ngroups, int32_t s[4])
{
    int32_t a0 = 0, a1 = 0, b0 = 0, b1 = 0, x0, x1;
    int32_t n = ngroups >> 2;
    if (n > 0) {
        __asm__ volatile("1:\n\t" MOTE_S8_DSP_GROUP MOTE_S8_DSP_GROUP MOTE_S8_DSP_GROUP
                             MOTE_S8_DSP_GROUP "subs %[n], %[n], #1\n\t"
                                               "bne 1b\n\t"
                         : [a0] "+r"(a0), [a1] "+r"(a1), [b0] "+r"(b0), [b1] "+r"(b1),
                           [x0] "=&r"(x0), [x1] "=&r"(x1), [pw] "+r"(w), [px] "+r"(x),
                           [n] "+r"(n)
                         :
                         : "r0", "r1", "r2", "r3", "cc", "memory");
    }
    n = ngroups & 3;
    if (n > 0) {
        __asm__ volatile("1:\n\t" MOTE_S8_DSP_GROUP "subs %[n], %[n], #1\n\t"
                                                    "bne 1b\n\t"
                         : [a0] "+r"(a0), [a1] "+r"(a1), [b0] "+r"(b0), [b1] "+r"(b1),
                           [x0] "=&r"(x0), [x1] "=&r"(x1), [pw] "+r"(w), [px] "+r"(x),
                           [n] "+r"(n)
                         :
                         : "r0", "r1", "r2", "r3", "cc", "memory");
    }
    s[0] = a0;
    s[1] = a1;
    s[2] = b0;
    s[3] = b1;
    return w; /* the next row pair */
}
#undef MOTE_S8_DSP_GROUP

/**
 * Assembly text of the fast requantization of the DSP cores (conv2d_s8,
 * linear_s8): accumulator register ACC holds t = 2 * acc, r0 = M (in (2^30, 2^31)),
 * r1 = rz = 2^(e-1) + (out_zp << e), r2 = e (in [1, 22]); DST = the output before
 * the activation clamp, within [-128, 127]; r3 is clobbered. SMMLAR(t, M, rz) =
 * SRDHM(acc, M) + rz exactly; + (t >> 31) is -[SRDHM(acc, M) < 0] (M > 2^30);
 * ASR e; SSAT 8 (cmsis/README.md, "conv2d_s8 — DSP").
 */
#define MOTE_S8_ASM_RQ(acc, dst)                                                           \
    "  smmlar r3, " acc ", r0, r1\n"                                                       \
    "  add r3, r3, " acc ", asr #31\n"                                                     \
    "  asr r3, r3, r2\n"                                                                   \
    "  ssat " dst ", #8, r3\n"

/**
 * Fast requantization valid for a channel: shift in [-22, -1], multiplier in
 * (2^30, 2^31) (so SRDHM(acc, M) < 0 exactly when acc < 0) and
 * |bias| + K * 128 * 128 < 2^30 (so 2 * acc fits int32).
 */
MOTE_S8_INLINE int mote_s8_fast_ok(int32_t bias, int32_t mult, int32_t shift, int32_t k)
{
    const int64_t bound = (bias < 0 ? -(int64_t)bias : (int64_t)bias) + (int64_t)k * 16384;
    return shift <= -1 && shift >= -22 && mult > (1 << 30) && bound < ((int64_t)1 << 30);
}

/**
 * mote_s8_fast_ok for an entry of a program's table: b2 = twice the corrected
 * bias (even), M, e = -shift; lim2 = mote_s8_fast_lim2(K) > 0 (32-bit compares only).
 */
MOTE_S8_INLINE int mote_s8_fast_entry_ok(int32_t b2, int32_t mult, int32_t e, int32_t lim2)
{
    return (b2 & 1) == 0 && b2 < lim2 && b2 > -lim2 && mult > (1 << 30) &&
           (uint32_t)e - 1u <= 21u;
}

/**
 * An E-form table entry (kernels/requant.h, MOTE_S8_EFORM_E) of a K-tap call (K <=
 * MOTE_S8_EFORM_KMAX): f = MARK | d with d in [1, 7], the scaled bias b a multiple
 * of 2^(1 + d) with |b| + K * 2^(15 + d) < 2^31 (so the sum t = 2^(1 + d) * acc fits),
 * M in (2^30, 2^31).
 */
MOTE_S8_INLINE int mote_s8_eform_entry_ok(int32_t b, int32_t mult, int32_t f, int32_t k)
{
    const uint32_t d = (uint32_t)f - (uint32_t)MOTE_S8_EFORM_MARK;
    int32_t lim;
    if (d - 1u > 6u || k < 1 || k > MOTE_S8_EFORM_KMAX) {
        return 0;
    }
    lim = (int32_t)(0x80000000u - ((uint32_t)k << (15u + d)));
    return (b & (int32_t)((2u << d) - 1u)) == 0 && b < lim && b > -lim && mult > (1 << 30);
}

/**
 * mote_s8_eform_entry_ok for many entries of one K-tap call: the per-d bounds made
 * once a call (mote_s8_eform_lims, K already checked in [1, MOTE_S8_EFORM_KMAX]), not
 * per entry (a call's fixed cost: 64 channels, ~55 instructions a pair, ~43 with these).
 * Row i holds d = i + 1: the mask 2^(1 + d) - 1, and lim = 2^31 - K * 2^(15 + d) (in
 * (2^30, 2^31): K << 22 <= 2^30) as off = lim - 1, span = 2 lim - 2, so that
 * -lim < b < lim is the one unsigned compare b + off <= span.
 */
typedef struct {
    uint32_t mask, off, span, pad;
} mote_s8_eform_lim_t;

MOTE_S8_INLINE void mote_s8_eform_lims(mote_s8_eform_lim_t l[7], uint32_t k)
{
    uint32_t i;
    for (i = 0; i < 7u; i++) {
        const uint32_t lim = 0x80000000u - (k << (16u + i));
        l[i].mask = (4u << i) - 1u;
        l[i].off = lim - 1u;
        l[i].span = 2u * lim - 2u; /* pad: never read (16-byte rows) */
    }
}

/** mote_s8_eform_entry_ok(b, mult, f, K) with l = mote_s8_eform_lims(K). */
MOTE_S8_INLINE int mote_s8_eform_entry_ok_l(const mote_s8_eform_lim_t l[7], int32_t b, int32_t mult,
                                          int32_t f)
{
    const uint32_t i = (uint32_t)f - (uint32_t)(MOTE_S8_EFORM_MARK + 1);
    const mote_s8_eform_lim_t *e;
    if (i > 6u) {
        return 0;
    }
    e = &l[i];
    return ((uint32_t)b & e->mask) == 0u && (uint32_t)b + e->off <= e->span && mult > (1 << 30);
}

/** 2 * (2^30 - K * 2^14): |2 * bias| below it is the fast bound; <= 0 if none is. */
MOTE_S8_INLINE int32_t mote_s8_fast_lim2(int32_t k)
{
    return k >= 65536 ? 0 : (int32_t)(0x80000000u - (uint32_t)k * 32768u);
}

/** SXTB16 of a word rotated right by 8: bytes 1 and 3, sign-extended. */
MOTE_S8_INLINE int32_t mote_s8_sxtb16_ror8(uint32_t v)
{
    int32_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(v)); /* one instruction */
    return r;
}

/**
 * requantize + zero point + clamp, bit-exact with mote_s8_finish() for a
 * multiplier in [0, 2^31) (the parser rejects negative ones):
 * SRDHM = (x*M + 2^30) >> 31 (SMULL, no division); RDBPOT(x, e) for e > 0 =
 * (t >> 1) + (t & 1) with t = (x + (x >> 31)) >> (e - 1), which never overflows
 * (x > INT32_MIN because M < 2^31).
 */
MOTE_S8_INLINE int8_t mote_s8_dsp_finish(int32_t acc, int32_t mult, int32_t shift, int32_t zp,
                                        int32_t amin, int32_t amax)
{
    int32_t x;
    if (shift > 0) {
        acc = (int32_t)((uint32_t)acc << shift);
    }
    x = (int32_t)(((int64_t)acc * mult + ((int64_t)1 << 30)) >> 31);
    if (shift < 0) {
        const int32_t t = (x + (x >> 31)) >> (-shift - 1);
        x = (t >> 1) + (t & 1);
        x += zp; /* |x| <= 2^30: no overflow */
    } else {
        x = __qadd(x, zp);
    }
    x = x < amin ? amin : x;
    return (int8_t)(x > amax ? amax : x);
}

#endif

#if defined(MOTE_S8_PLAIN)
/** Plain C: columns are int16 (x - zp, padded taps 0) in natural order. */
MOTE_S8_INLINE void mote_s8_dot2x2(const int16_t *ca, const int16_t *cb, const int8_t *wa,
                                  const int8_t *wb, int32_t k, int32_t zp, int32_t s[4])
{
    int32_t a0 = 0, a1 = 0, b0 = 0, b1 = 0;
    int32_t i;
    (void)zp;
    for (i = 0; i < k; i++) {
        a0 += ca[i] * wa[i];
        a1 += cb[i] * wa[i];
        b0 += ca[i] * wb[i];
        b1 += cb[i] * wb[i];
    }
    s[0] = a0;
    s[1] = a1;
    s[2] = b0;
    s[3] = b1;
}
#endif

/** requantize + zero point + clamp of channel c: the fastest exact form for the path. */
MOTE_S8_INLINE int8_t mote_s8_finish_c(const mote_s8_conv_params_t *p, int32_t acc, int32_t c)
{
#if defined(MOTE_S8_DSP)
    return mote_s8_dsp_finish(acc, p->mult[c], p->shift[c], p->out_zp, p->act_min, p->act_max);
#else
    return mote_s8_finish(p, acc, c);
#endif
}

#endif /* MOTE_CMSIS_S8_ARM_H */
