/*
 * cmsis/mote_s8_planar.h - the DSP (Cortex-M4/M7/M33) depthwise 3x3 over one
 * channel's int16 plane (the input zero point subtracted, a zero border), shared by
 * mote::depthwise_planar16_s8 (whose input is that plane) and
 * mote::depthwise_conv2d_s8 (which widens each channel's NHWC input into a plane in
 * scratch first). Included by those two files only; static, so a firmware that
 * links both carries two copies (about 1.5 KiB each).
 *
 * dwp_channel() tabulates one channel's constants (weights as doubled int16
 * pairs held in registers, the fast requantization), or refuses the channel;
 * dwp_plane3x3() runs the plane: rows of 1x4 output blocks in assembly for
 * full-range channels (a row's last wo % 4 outputs: one block over its last four
 * columns), 2x2 / single-pixel C intrinsics for the rest. Every assembly block comes in
 * two requantization forms (DWP_ASM_FN): the 4-instruction one (MOTE_S8_PLANAR_R) and the
 * E-form (MOTE_S8_PLANAR_E: SMMLA, SSAT ASR #12; mote_s8_dw_planar_eform in
 * kernels/requant.h), its job holding the form's constants.
 */
#ifndef MOTE_CMSIS_S8_PLANAR_H
#define MOTE_CMSIS_S8_PLANAR_H
#include "mote_s8_arm.h"
/* MOTE_S8_PLANAR_C 0 (set by the includer): leave out the C blocks, dwp_plane3x3 and
   dwp_channel (planes the assembly does not take: dwp_asm_rows false). */
#ifndef MOTE_S8_PLANAR_C
#define MOTE_S8_PLANAR_C 1
#endif
/* MOTE_S8_PLANAR_S2 0 (set by the includer): no stride-2 assembly (the includer takes
   no stride-2 plane into dwp_asm_plane). */
#ifndef MOTE_S8_PLANAR_S2
#define MOTE_S8_PLANAR_S2 1
#endif
/* MOTE_S8_PLANAR_R / MOTE_S8_PLANAR_E (set by the includer): the assembly blocks with the
   4-instruction requantization (default 1) / with the E-form (default 0). */
#ifndef MOTE_S8_PLANAR_R
#define MOTE_S8_PLANAR_R 1
#endif
#ifndef MOTE_S8_PLANAR_E
#define MOTE_S8_PLANAR_E 0
#endif
#if defined(MOTE_S8_DSP)
MOTE_S8_INLINE int32_t dwp_smmlar(int32_t a, int32_t m, int32_t add)
{
    int32_t r;
    __asm__("smmlar %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(m), "r"(add));
    return r;
}

/** One channel's constants (doubled weights as int16 pairs, requantization). */
typedef struct dwp_ch {
    int32_t w01[3], w21[3]; /* per kernel row: (2 w0, 2 w1), (2 w2, 2 w1) as lo, hi */
    int32_t b2, m, off, e;  /* 2 * bias, multiplier, 2^(e-1) + (zp << e), -shift */
    int32_t lo, hi, full;   /* clamp; full: the range is all of int8 (SSAT alone) */
} dwp_ch_t;

MOTE_S8_INLINE int8_t dwp_rq(int32_t acc2, int32_t m, int32_t off, int32_t e, int32_t lo, int32_t hi,
                             int32_t full)
{
    int32_t v = (dwp_smmlar(acc2, m, off) + (acc2 >> 31)) >> e;
    v = __ssat(v, 8);
    if (!full) {
        v = v < lo ? lo : (v > hi ? hi : v);
    }
    return (int8_t)v;
}

/** Accumulate one input row (x01, x23[, x45]) of weight row (a, b) into the pair (s0, s1). */
#define DWP_ROW_S1(s0, s1, x01, x23, a, b)                                                 \
    do {                                                                                   \
        s0 = __smlad((int32_t)(x01), (a), s0);                                             \
        s0 = __smlabb((int32_t)(x23), (b), s0);                                            \
        s1 = __smlatb((int32_t)(x01), (a), s1);                                            \
        s1 = __smladx((int32_t)(x23), (b), s1);                                            \
    } while (0)
#define DWP_ROW_S2(s0, s1, x01, x23, x45, a, b)                                            \
    do {                                                                                   \
        s0 = __smlad((int32_t)(x01), (a), s0);                                             \
        s0 = __smlabb((int32_t)(x23), (b), s0);                                            \
        s1 = __smlad((int32_t)(x23), (a), s1);                                             \
        s1 = __smlabb((int32_t)(x45), (b), s1);                                            \
    } while (0)

/** Store one requantized output (the channel's constants in scope). */
#define DWP_OUT(dst, acc) (dst) = dwp_rq((acc), m, off, e, lo, hi, full)

#if MOTE_S8_PLANAR_C /* the C blocks (planes the assembly does not take) */
/**
 * 3x3 stride 1, full 2x2 blocks of output rows [0, 2*rp) and columns [0, 2*cp):
 * pl: the plane (border included), wp: its row length; out: output channel c of
 * pixel (0, 0); orow / opx: output bytes between rows / pixels.
 */
__attribute__((noinline)) MOTE_S8_HOT static void dwp_s1_blocks(const dwp_ch_t *k, const int16_t *pl, int32_t wp, int32_t rp,
                                      int32_t cp, int8_t *out, int32_t orow, int32_t opx)
{
    const int32_t a0 = k->w01[0], a1 = k->w01[1], a2 = k->w01[2];
    const int32_t b0 = k->w21[0], b1 = k->w21[1], b2 = k->w21[2];
    const int32_t bias = k->b2, m = k->m, off = k->off, e = k->e, lo = k->lo, hi = k->hi,
                  full = k->full;
    int32_t oy, ox;
    for (oy = 0; oy < rp; oy++) {
        const int16_t *r = pl + (size_t)(2 * oy) * wp;
        int8_t *o = out + (size_t)(2 * oy) * orow;
        for (ox = 0; ox < cp; ox++, r += 2, o += 2 * opx) {
            const int16_t *x = r;
            int32_t s00, s01, s10, s11;
            uint32_t u, v;
            u = mote_s8_ld32(x);
            v = mote_s8_ld32(x + 2);
            s00 = __smlabb((int32_t)v, b0, __smlad((int32_t)u, a0, bias));
            s01 = __smladx((int32_t)v, b0, __smlatb((int32_t)u, a0, bias));
            x += wp;
            u = mote_s8_ld32(x);
            v = mote_s8_ld32(x + 2);
            DWP_ROW_S1(s00, s01, u, v, a1, b1);
            s10 = __smlabb((int32_t)v, b0, __smlad((int32_t)u, a0, bias));
            s11 = __smladx((int32_t)v, b0, __smlatb((int32_t)u, a0, bias));
            x += wp;
            u = mote_s8_ld32(x);
            v = mote_s8_ld32(x + 2);
            DWP_ROW_S1(s00, s01, u, v, a2, b2);
            DWP_ROW_S1(s10, s11, u, v, a1, b1);
            x += wp;
            u = mote_s8_ld32(x);
            v = mote_s8_ld32(x + 2);
            DWP_ROW_S1(s10, s11, u, v, a2, b2);
            DWP_OUT(o[0], s00);
            DWP_OUT(o[opx], s01);
            DWP_OUT(o[orow], s10);
            DWP_OUT(o[orow + opx], s11);
        }
    }
}

/**
 * 3x3 stride 2, full 2x2 blocks (as dwp_s1_blocks): per input row x0..x4,
 * out(x) += SMLAD(x01, w01) + SMLABB(x23, w21), out(x+1) += SMLAD(x23, w01) +
 * SMLABB(x45, w21); output row 1 reads input rows 2..4.
 */
__attribute__((noinline)) MOTE_S8_HOT static void dwp_s2_blocks(const dwp_ch_t *k, const int16_t *pl, int32_t wp, int32_t rp,
                                      int32_t cp, int8_t *out, int32_t orow, int32_t opx)
{
    const int32_t a0 = k->w01[0], a1 = k->w01[1], a2 = k->w01[2];
    const int32_t b0 = k->w21[0], b1 = k->w21[1], b2 = k->w21[2];
    const int32_t bias = k->b2, m = k->m, off = k->off, e = k->e, lo = k->lo, hi = k->hi,
                  full = k->full;
    int32_t oy, ox;
    for (oy = 0; oy < rp; oy++) {
        const int16_t *r = pl + (size_t)(4 * oy) * wp;
        int8_t *o = out + (size_t)(2 * oy) * orow;
        for (ox = 0; ox < cp; ox++, r += 4, o += 2 * opx) {
            const int16_t *x = r;
            int32_t s00 = bias, s01 = bias, s10 = bias, s11 = bias;
            uint32_t u, v, w;
            u = mote_s8_ld32(x);
            v = mote_s8_ld32(x + 2);
            w = (uint16_t)x[4];
            DWP_ROW_S2(s00, s01, u, v, w, a0, b0);
            x += wp;
            u = mote_s8_ld32(x);
            v = mote_s8_ld32(x + 2);
            w = (uint16_t)x[4];
            DWP_ROW_S2(s00, s01, u, v, w, a1, b1);
            x += wp;
            u = mote_s8_ld32(x);
            v = mote_s8_ld32(x + 2);
            w = (uint16_t)x[4];
            DWP_ROW_S2(s00, s01, u, v, w, a2, b2);
            DWP_ROW_S2(s10, s11, u, v, w, a0, b0);
            x += wp;
            u = mote_s8_ld32(x);
            v = mote_s8_ld32(x + 2);
            w = (uint16_t)x[4];
            DWP_ROW_S2(s10, s11, u, v, w, a1, b1);
            x += wp;
            u = mote_s8_ld32(x);
            v = mote_s8_ld32(x + 2);
            w = (uint16_t)x[4];
            DWP_ROW_S2(s10, s11, u, v, w, a2, b2);
            DWP_OUT(o[0], s00);
            DWP_OUT(o[opx], s01);
            DWP_OUT(o[orow], s10);
            DWP_OUT(o[orow + opx], s11);
        }
    }
}

#endif /* MOTE_S8_PLANAR_C */
/*
 * Full-range channels (activation range all of int8: SSAT is the clamp), 3x3,
 * rows of 1x4 output blocks in assembly: fourteen registers hold the input
 * pointer and row bytes, the output pointer and pixel bytes, the block count,
 * four accumulators, one kernel row's two weight pairs and three input words;
 * the channel's constants live in the function's frame (LDRD of a weight row
 * pair per kernel row, LDRD + LDR of multiplier / offset / shift per block).
 * Stride 1, per kernel row: three LDR (x0..x5), 8 multiplies
 *   o0 += SMLAD(x01, w01) + SMLABB(x23, w21)    o1 += SMLATB(x01, w01) + SMLADX(x23, w21)
 *   o2 += SMLAD(x23, w01) + SMLABB(x45, w21)    o3 += SMLATB(x23, w01) + SMLADX(x45, w21)
 * Stride 2: five loads (x0..x8), o_k += SMLAD(x(2k, 2k+1), w01) + SMLABB(x(2k+2), w21).
 * Requantization per output: ADD (offset + the accumulator's sign), SMMLAR, ASR, SSAT; STRB
 * (E-form: SMMLA, SSAT ASR #12; STRB). 67 (stride 1) / 73 (stride 2) instructions per 36
 * MACs; E-form 59 / 65.
 */
typedef struct dwp_job {
    /* copied to the frame; the first MOTE_S8_DW_RECORD_WORDS: a channel's record */
    int32_t bias2, w0a, w0b, w1a, w1b, w2a, w2b, m, off, e;
    int32_t rows, nb, prow, orow;   /* output rows, blocks per row, input / output bytes per row */
    const int16_t *p;               /* input of output (0, 0) */
    int8_t *o;                      /* output (0, 0) */
    int32_t wpb, opx;               /* plane row bytes, output bytes between pixels */
} dwp_job_t;

typedef char dwp_eform_ok[MOTE_S8_EFORM_E == 12 ? 1 : -1]; /* the E-form's SSAT ASR #12 below */
typedef char dwp_record_ok[offsetof(dwp_job_t, e) == 4 * (MOTE_S8_DW_RECORD_WORDS - 1) ? 1 : -1];
/* one naked assembly function of the job (its text: the requantization as a parameter) */
#define DWP_ASM_FN(FN, TEXT)                                                               \
    __attribute__((naked, noinline)) static void FN(const dwp_job_t *job __attribute__((unused))) \
    {                                                                                      \
        __asm__ volatile(TEXT);                                                            \
    }
#define DWP_ASM_ENTRY                                                                      \
    "push {r4-r11, lr}\n\t"                                                                \
    "sub sp, sp, #68\n\t"                                                                  \
    "ldr r1, [r0, #64]\n\t"                                                                \
    "ldr r3, [r0, #68]\n\t"                                                                \
    "mov r12, sp\n\t"                                                                      \
    "ldmia r0!, {r2, r4-r10}\n\t"                                                          \
    "stmia r12!, {r2, r4-r10}\n\t"                                                         \
    "ldmia r0!, {r2, r4-r10}\n\t"                                                          \
    "stmia r12!, {r2, r4-r10}\n\t"                                                         \
    "1:\n\t"                                                                               \
    "ldr r0, [sp, #56]\n\t"                                                                \
    "ldr r2, [sp, #60]\n\t"                                                                \
    "ldr r4, [sp, #44]\n\t"                                                                \
    "2:\n\t"
/* r5..r8: accumulators; requantize (the 4-instruction form: ADD offset + sign, SMMLAR,
 * ASR by e, SSAT), or the E-form (SMMLA by the multiplier and rz, SSAT ASR #12:
 * mote_s8_dw_planar_eform), then store four outputs, next block, next row (the tail) */
#define DWP_ASM_RQ                                                                         \
    "ldrd r9, r10, [sp, #28]\n\t"                                                          \
    "ldr r11, [sp, #36]\n\t"                                                               \
    "add r12, r10, r5, asr #31\n\t"                                                        \
    "smmlar r5, r5, r9, r12\n\t"                                                           \
    "add r12, r10, r6, asr #31\n\t"                                                        \
    "smmlar r6, r6, r9, r12\n\t"                                                           \
    "add r12, r10, r7, asr #31\n\t"                                                        \
    "smmlar r7, r7, r9, r12\n\t"                                                           \
    "add r12, r10, r8, asr #31\n\t"                                                        \
    "smmlar r8, r8, r9, r12\n\t"                                                           \
    "asr r5, r5, r11\n\t"                                                                  \
    "asr r6, r6, r11\n\t"                                                                  \
    "asr r7, r7, r11\n\t"                                                                  \
    "asr r8, r8, r11\n\t"                                                                  \
    "ssat r5, #8, r5\n\t"                                                                  \
    "ssat r6, #8, r6\n\t"                                                                  \
    "ssat r7, #8, r7\n\t"                                                                  \
    "ssat r8, #8, r8\n\t"
#define DWP_ASM_RQ_E                                                                       \
    "ldrd r9, r10, [sp, #28]\n\t"                                                          \
    "smmla r5, r5, r9, r10\n\t"                                                            \
    "smmla r6, r6, r9, r10\n\t"                                                            \
    "smmla r7, r7, r9, r10\n\t"                                                            \
    "smmla r8, r8, r9, r10\n\t"                                                            \
    "ssat r5, #8, r5, asr #12\n\t"                                                         \
    "ssat r6, #8, r6, asr #12\n\t"                                                         \
    "ssat r7, #8, r7, asr #12\n\t"                                                         \
    "ssat r8, #8, r8, asr #12\n\t"
#define DWP_ASM_TAIL                                                                       \
    "strb r5, [r2]\n\t"                                                                    \
    "strb r6, [r2, r3]\n\t"                                                                \
    "add r2, r2, r3, lsl #1\n\t"                                                           \
    "strb r7, [r2]\n\t"                                                                    \
    "strb r8, [r2, r3]\n\t"                                                                \
    "add r2, r2, r3, lsl #1\n\t"                                                           \
    "subs r4, r4, #1\n\t"                                                                  \
    "bne 2b\n\t"                                                                           \
    "ldrd r9, r10, [sp, #48]\n\t"                                                          \
    "ldrd r11, r12, [sp, #56]\n\t"                                                         \
    "add r11, r11, r9\n\t"                                                                 \
    "add r12, r12, r10\n\t"                                                                \
    "strd r11, r12, [sp, #56]\n\t"                                                         \
    "ldr r9, [sp, #40]\n\t"                                                                \
    "subs r9, r9, #1\n\t"                                                                  \
    "str r9, [sp, #40]\n\t"                                                                \
    "bne 1b\n\t"                                                                           \
    "add sp, sp, #68\n\t"                                                                  \
    "pop {r4-r11, pc}\n\t"

/* stride 1, one kernel row (weights at frame offset WOFF) into r5..r8 */
#define DWP_S1_ROW(WOFF)                                                                   \
    "ldrd r9, r10, [sp, #" WOFF "]\n\t"                                                    \
    "ldr r11, [r0]\n\t"                                                                    \
    "ldr r12, [r0, #4]\n\t"                                                                \
    "ldr lr, [r0, #8]\n\t"                                                                 \
    "smlad r5, r11, r9, r5\n\t"                                                            \
    "smlatb r6, r11, r9, r6\n\t"                                                           \
    "smlad r7, r12, r9, r7\n\t"                                                            \
    "smlatb r8, r12, r9, r8\n\t"                                                           \
    "smlabb r5, r12, r10, r5\n\t"                                                          \
    "smladx r6, r12, r10, r6\n\t"                                                          \
    "smlabb r7, lr, r10, r7\n\t"                                                           \
    "smladx r8, lr, r10, r8\n\t"

#define DWP_S1_TEXT(RQ)                                                                    \
        DWP_ASM_ENTRY                                                                      \
        "ldr r8, [sp, #0]\n\t"                                                             \
        "ldrd r9, r10, [sp, #4]\n\t"                                                       \
        "ldr r11, [r0]\n\t"                                                                \
        "ldr r12, [r0, #4]\n\t"                                                            \
        "ldr lr, [r0, #8]\n\t"                                                             \
        "smlad r5, r11, r9, r8\n\t"                                                        \
        "smlatb r6, r11, r9, r8\n\t"                                                       \
        "smlad r7, r12, r9, r8\n\t"                                                        \
        "smlatb r8, r12, r9, r8\n\t"                                                       \
        "smlabb r5, r12, r10, r5\n\t"                                                      \
        "smladx r6, r12, r10, r6\n\t"                                                      \
        "smlabb r7, lr, r10, r7\n\t"                                                       \
        "smladx r8, lr, r10, r8\n\t"                                                       \
        "add r0, r0, r1\n\t"                                                               \
        DWP_S1_ROW("12")                                                                   \
        "add r0, r0, r1\n\t"                                                               \
        DWP_S1_ROW("20")                                                                   \
        "sub r0, r0, r1, lsl #1\n\t"                                                       \
        "adds r0, r0, #8\n\t"                                                              \
        RQ DWP_ASM_TAIL                                                                    
#if MOTE_S8_PLANAR_R
DWP_ASM_FN(dwp_s1_asm, DWP_S1_TEXT(DWP_ASM_RQ))
#endif
#if MOTE_S8_PLANAR_E
DWP_ASM_FN(dwp_s1e_asm, DWP_S1_TEXT(DWP_ASM_RQ_E))
#endif
#undef DWP_S1_TEXT

#if MOTE_S8_PLANAR_S2
/* stride 2, one kernel row into r5..r8 (x0..x8; r11 / r12 reused for x67 / x8) */
#define DWP_S2_ROW(WOFF)                                                                   \
    "ldrd r9, r10, [sp, #" WOFF "]\n\t"                                                    \
    "ldr r11, [r0]\n\t"                                                                    \
    "ldr r12, [r0, #4]\n\t"                                                                \
    "ldr lr, [r0, #8]\n\t"                                                                 \
    "smlad r5, r11, r9, r5\n\t"                                                            \
    "smlabb r5, r12, r10, r5\n\t"                                                          \
    "smlad r6, r12, r9, r6\n\t"                                                            \
    "smlabb r6, lr, r10, r6\n\t"                                                           \
    "ldr r11, [r0, #12]\n\t"                                                               \
    "ldrh r12, [r0, #16]\n\t"                                                              \
    "smlad r7, lr, r9, r7\n\t"                                                             \
    "smlabb r7, r11, r10, r7\n\t"                                                          \
    "smlad r8, r11, r9, r8\n\t"                                                            \
    "smlabb r8, r12, r10, r8\n\t"

#define DWP_S2_TEXT(RQ)                                                                    \
        DWP_ASM_ENTRY                                                                      \
        "ldr r8, [sp, #0]\n\t"                                                             \
        "ldrd r9, r10, [sp, #4]\n\t"                                                       \
        "ldr r11, [r0]\n\t"                                                                \
        "ldr r12, [r0, #4]\n\t"                                                            \
        "ldr lr, [r0, #8]\n\t"                                                             \
        "smlad r5, r11, r9, r8\n\t"                                                        \
        "smlabb r5, r12, r10, r5\n\t"                                                      \
        "smlad r6, r12, r9, r8\n\t"                                                        \
        "smlabb r6, lr, r10, r6\n\t"                                                       \
        "ldr r11, [r0, #12]\n\t"                                                           \
        "smlad r7, lr, r9, r8\n\t"                                                         \
        "smlabb r7, r11, r10, r7\n\t"                                                      \
        "ldrh r12, [r0, #16]\n\t"                                                          \
        "smlad r8, r11, r9, r8\n\t"                                                        \
        "smlabb r8, r12, r10, r8\n\t"                                                      \
        "add r0, r0, r1\n\t"                                                               \
        DWP_S2_ROW("12")                                                                   \
        "add r0, r0, r1\n\t"                                                               \
        DWP_S2_ROW("20")                                                                   \
        "sub r0, r0, r1, lsl #1\n\t"                                                       \
        "adds r0, r0, #16\n\t"                                                             \
        RQ DWP_ASM_TAIL                                                                    
#if MOTE_S8_PLANAR_R
DWP_ASM_FN(dwp_s2_asm, DWP_S2_TEXT(DWP_ASM_RQ))
#endif
#if MOTE_S8_PLANAR_E
DWP_ASM_FN(dwp_s2e_asm, DWP_S2_TEXT(DWP_ASM_RQ_E))
#endif
#undef DWP_S2_TEXT
#endif /* MOTE_S8_PLANAR_S2 */
#if MOTE_S8_USE_DW_PLANAR_X8 && MOTE_S8_PLANAR_E
/*
 * Stride 1, E-form, rows of 1x8 blocks (rows of 8+ outputs): eight accumulators r4..r11,
 * one kernel row's weight pair r2 / r3, the input words streamed through r12 / lr
 * (x01, x23, then x45 over x01, ...), r0 input, r1 plane row bytes; per kernel row LDRD +
 * five LDR + 16 multiplies
 *   o(2k) += SMLAD(x(2k,2k+1), w01) + SMLABB(x(2k+2), w21)
 *   o(2k+1) += SMLATB(x(2k,2k+1), w01) + SMLADX(x(2k+2,2k+3), w21)
 * then SMMLA / SSAT ASR #12 and eight STRB: 107 instructions per 72 MACs (the 1x4
 * block: 59 per 36). The frame holds the whole job (dwp_job_t's 18 words at their
 * offsets), the row's output cursor (+72) and block count (+76).
 */
#define DWP_X8_MAC(A0, A1, A2, A3, A4, A5, A6, A7)                                         \
    "ldr r12, [r0]\n\t"                                                                    \
    "ldr lr, [r0, #4]\n\t"                                                                 \
    "smlad r4, r12, r2, " A0 "\n\t"                                                        \
    "smlatb r5, r12, r2, " A1 "\n\t"                                                       \
    "smlabb r4, lr, r3, r4\n\t"                                                            \
    "smladx r5, lr, r3, r5\n\t"                                                            \
    "ldr r12, [r0, #8]\n\t"                                                                \
    "smlad r6, lr, r2, " A2 "\n\t"                                                         \
    "smlatb r7, lr, r2, " A3 "\n\t"                                                        \
    "smlabb r6, r12, r3, r6\n\t"                                                           \
    "smladx r7, r12, r3, r7\n\t"                                                           \
    "ldr lr, [r0, #12]\n\t"                                                                \
    "smlad r8, r12, r2, " A4 "\n\t"                                                        \
    "smlatb r9, r12, r2, " A5 "\n\t"                                                       \
    "smlabb r8, lr, r3, r8\n\t"                                                            \
    "smladx r9, lr, r3, r9\n\t"                                                            \
    "ldr r12, [r0, #16]\n\t"                                                               \
    "smlad r10, lr, r2, " A6 "\n\t"                                                        \
    "smlatb r11, lr, r2, " A7 "\n\t"                                                       \
    "smlabb r10, r12, r3, r10\n\t"                                                         \
    "smladx r11, r12, r3, r11\n\t"
__attribute__((naked, noinline)) static void dwp_s1x8e_asm(const dwp_job_t *job __attribute__((unused)))
{
    __asm__ volatile(
        "push {r4-r11, lr}\n\t"
        "sub sp, sp, #84\n\t"
        "mov r12, sp\n\t"
        "ldmia r0!, {r1-r9}\n\t"
        "stmia r12!, {r1-r9}\n\t"
        "ldmia r0!, {r1-r9}\n\t"
        "stmia r12!, {r1-r9}\n\t"
        "ldr r1, [sp, #64]\n\t"
        "1:\n\t"                       /* a row: its cursor and block count */
        "ldr r0, [sp, #56]\n\t"
        "ldr r12, [sp, #60]\n\t"
        "ldr lr, [sp, #44]\n\t"
        "str r12, [sp, #72]\n\t"
        "str lr, [sp, #76]\n\t"
        "2:\n\t"
        "ldr r11, [sp, #0]\n\t"        /* bias: r11 (o7) is the addend of the first multiplies */
        "ldrd r2, r3, [sp, #4]\n\t"
        DWP_X8_MAC("r11", "r11", "r11", "r11", "r11", "r11", "r11", "r11")
        "add r0, r0, r1\n\t"
        "ldrd r2, r3, [sp, #12]\n\t"
        DWP_X8_MAC("r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11")
        "add r0, r0, r1\n\t"
        "ldrd r2, r3, [sp, #20]\n\t"
        DWP_X8_MAC("r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11")
        "sub r0, r0, r1, lsl #1\n\t"
        "adds r0, r0, #16\n\t"
        "ldrd r2, r3, [sp, #28]\n\t"   /* multiplier, rz */
        "smmla r4, r4, r2, r3\n\t"
        "smmla r5, r5, r2, r3\n\t"
        "smmla r6, r6, r2, r3\n\t"
        "smmla r7, r7, r2, r3\n\t"
        "smmla r8, r8, r2, r3\n\t"
        "smmla r9, r9, r2, r3\n\t"
        "smmla r10, r10, r2, r3\n\t"
        "smmla r11, r11, r2, r3\n\t"
        "ssat r4, #8, r4, asr #12\n\t"
        "ssat r5, #8, r5, asr #12\n\t"
        "ssat r6, #8, r6, asr #12\n\t"
        "ssat r7, #8, r7, asr #12\n\t"
        "ssat r8, #8, r8, asr #12\n\t"
        "ssat r9, #8, r9, asr #12\n\t"
        "ssat r10, #8, r10, asr #12\n\t"
        "ssat r11, #8, r11, asr #12\n\t"
        "ldr r12, [sp, #72]\n\t"
        "ldr lr, [sp, #68]\n\t"
        "strb r4, [r12]\n\t"
        "strb r5, [r12, lr]\n\t"
        "add r12, r12, lr, lsl #1\n\t"
        "strb r6, [r12]\n\t"
        "strb r7, [r12, lr]\n\t"
        "add r12, r12, lr, lsl #1\n\t"
        "strb r8, [r12]\n\t"
        "strb r9, [r12, lr]\n\t"
        "add r12, r12, lr, lsl #1\n\t"
        "strb r10, [r12]\n\t"
        "strb r11, [r12, lr]\n\t"
        "add r12, r12, lr, lsl #1\n\t"
        "str r12, [sp, #72]\n\t"
        "ldr r12, [sp, #76]\n\t"
        "subs r12, r12, #1\n\t"
        "str r12, [sp, #76]\n\t"
        "bne 2b\n\t"
        "ldrd r2, r3, [sp, #48]\n\t"   /* input / output bytes per row */
        "ldrd r10, r11, [sp, #56]\n\t"
        "ldr r12, [sp, #40]\n\t"
        "add r10, r10, r2\n\t"
        "add r11, r11, r3\n\t"
        "strd r10, r11, [sp, #56]\n\t"
        "subs r12, r12, #1\n\t"
        "str r12, [sp, #40]\n\t"
        "bne 1b\n\t"
        "add sp, sp, #84\n\t"
        "pop {r4-r11, pc}\n\t");
}
#undef DWP_X8_MAC
#endif /* MOTE_S8_USE_DW_PLANAR_X8 && MOTE_S8_PLANAR_E */
#if MOTE_S8_USE_DW_PLANAR_X6
/*
 * Stride 1, rows of one 1x6 block (the last six columns of a row whose width is
 * 2 mod 4, e.g. MobileNet's 6x6 maps, where a 1x4 block and a second, overlapping one
 * cost 134 instructions per row): six accumulators r4..r9, four input words
 * r10, r11, r12, lr (x0..x7), one kernel row's weight pair r2 / r3, r0 input, r1 plane
 * row bytes; per kernel row LDRD + four LDR + 12 multiplies
 *   o(2k) += SMLAD(x(2k,2k+1), w01) + SMLABB(x(2k+2), w21)
 *   o(2k+1) += SMLATB(x(2k,2k+1), w01) + SMLADX(x(2k+2,2k+3), w21)
 * then the requantization of dwp_s1_asm: 96 instructions per row (54 MACs). The frame
 * holds the whole job (dwp_job_t's 18 words at their offsets); nb is not used.
 */
#define DWP_X6_ROW(WOFF)                                                                   \
    "ldrd r2, r3, [sp, #" WOFF "]\n\t"                                                     \
    "ldr r10, [r0]\n\t"                                                                    \
    "ldr r11, [r0, #4]\n\t"                                                                \
    "ldr r12, [r0, #8]\n\t"                                                                \
    "ldr lr, [r0, #12]\n\t"                                                                \
    "smlad r4, r10, r2, r4\n\t"                                                            \
    "smlatb r5, r10, r2, r5\n\t"                                                           \
    "smlad r6, r11, r2, r6\n\t"                                                            \
    "smlatb r7, r11, r2, r7\n\t"                                                           \
    "smlad r8, r12, r2, r8\n\t"                                                            \
    "smlatb r9, r12, r2, r9\n\t"                                                           \
    "smlabb r4, r11, r3, r4\n\t"                                                           \
    "smladx r5, r11, r3, r5\n\t"                                                           \
    "smlabb r6, r12, r3, r6\n\t"                                                           \
    "smladx r7, r12, r3, r7\n\t"                                                           \
    "smlabb r8, lr, r3, r8\n\t"                                                            \
    "smladx r9, lr, r3, r9\n\t"
#define DWP_X6_RQ(R)                                                                       \
    "add lr, r3, " R ", asr #31\n\t"                                                       \
    "smmlar " R ", " R ", r2, lr\n\t"

/* requantize the six accumulators r4..r9 and store them (o0..o5 apart by the output
 * bytes between pixels), shared by the stride-1 and stride-2 1x6 blocks; from the frame:
 * multiplier and offset (sp+28), shift e (+36), output (+60), bytes between pixels (+68) */
#define DWP_X6_STRB                                                                        \
    "strb r4, [r11]\n\t"                                                                    \
    "strb r5, [r11, r12]\n\t"                                                               \
    "add r11, r11, r12, lsl #1\n\t"                                                         \
    "strb r6, [r11]\n\t"                                                                    \
    "strb r7, [r11, r12]\n\t"                                                               \
    "add r11, r11, r12, lsl #1\n\t"                                                         \
    "strb r8, [r11]\n\t"                                                                    \
    "strb r9, [r11, r12]\n\t"
#define DWP_X6_STORE                                                                       \
    "ldrd r2, r3, [sp, #28]\n\t"                                                            \
    "ldr r10, [sp, #36]\n\t"                                                                \
    "ldr r11, [sp, #60]\n\t"                                                                \
    "ldr r12, [sp, #68]\n\t"                                                                \
    DWP_X6_RQ("r4") DWP_X6_RQ("r5") DWP_X6_RQ("r6") DWP_X6_RQ("r7") DWP_X6_RQ("r8")       \
    DWP_X6_RQ("r9")                                                                        \
    "asr r4, r4, r10\n\t"                                                                   \
    "asr r5, r5, r10\n\t"                                                                   \
    "asr r6, r6, r10\n\t"                                                                   \
    "asr r7, r7, r10\n\t"                                                                   \
    "asr r8, r8, r10\n\t"                                                                   \
    "asr r9, r9, r10\n\t"                                                                   \
    "ssat r4, #8, r4\n\t"                                                                   \
    "ssat r5, #8, r5\n\t"                                                                   \
    "ssat r6, #8, r6\n\t"                                                                   \
    "ssat r7, #8, r7\n\t"                                                                   \
    "ssat r8, #8, r8\n\t"                                                                   \
    "ssat r9, #8, r9\n\t"                                                                   \
    DWP_X6_STRB
/* the E-form (DWP_ASM_RQ_E) */
#define DWP_X6_STORE_E                                                                     \
    "ldrd r2, r3, [sp, #28]\n\t"                                                            \
    "ldr r11, [sp, #60]\n\t"                                                                \
    "ldr r12, [sp, #68]\n\t"                                                                \
    "smmla r4, r4, r2, r3\n\t"                                                              \
    "smmla r5, r5, r2, r3\n\t"                                                              \
    "smmla r6, r6, r2, r3\n\t"                                                              \
    "smmla r7, r7, r2, r3\n\t"                                                              \
    "smmla r8, r8, r2, r3\n\t"                                                              \
    "smmla r9, r9, r2, r3\n\t"                                                              \
    "ssat r4, #8, r4, asr #12\n\t"                                                          \
    "ssat r5, #8, r5, asr #12\n\t"                                                          \
    "ssat r6, #8, r6, asr #12\n\t"                                                          \
    "ssat r7, #8, r7, asr #12\n\t"                                                          \
    "ssat r8, #8, r8, asr #12\n\t"                                                          \
    "ssat r9, #8, r9, asr #12\n\t"                                                          \
    DWP_X6_STRB

#define DWP_S1X6_TEXT(RQ)                                                                  \
        "push {r4-r11, lr}\n\t"                                                            \
        "sub sp, sp, #76\n\t"                                                              \
        "mov r12, sp\n\t"                                                                  \
        "ldmia r0!, {r1-r9}\n\t"                                                           \
        "stmia r12!, {r1-r9}\n\t"                                                          \
        "ldmia r0!, {r1-r9}\n\t"                                                           \
        "stmia r12!, {r1-r9}\n\t"                                                          \
        "ldr r1, [sp, #64]\n\t"                                                            \
        "1:\n\t"                                                                           \
        "ldr r0, [sp, #56]\n\t"                                                            \
        "ldr r9, [sp, #0]\n\t"                                                             \
        "ldrd r2, r3, [sp, #4]\n\t"                                                        \
        "ldr r10, [r0]\n\t"                                                                \
        "ldr r11, [r0, #4]\n\t"                                                            \
        "ldr r12, [r0, #8]\n\t"                                                            \
        "ldr lr, [r0, #12]\n\t"                                                            \
        "smlad r4, r10, r2, r9\n\t"                                                        \
        "smlatb r5, r10, r2, r9\n\t"                                                       \
        "smlad r6, r11, r2, r9\n\t"                                                        \
        "smlatb r7, r11, r2, r9\n\t"                                                       \
        "smlad r8, r12, r2, r9\n\t"                                                        \
        "smlatb r9, r12, r2, r9\n\t"                                                       \
        "smlabb r4, r11, r3, r4\n\t"                                                       \
        "smladx r5, r11, r3, r5\n\t"                                                       \
        "smlabb r6, r12, r3, r6\n\t"                                                       \
        "smladx r7, r12, r3, r7\n\t"                                                       \
        "smlabb r8, lr, r3, r8\n\t"                                                        \
        "smladx r9, lr, r3, r9\n\t"                                                        \
        "add r0, r0, r1\n\t"                                                               \
        DWP_X6_ROW("12")                                                                   \
        "add r0, r0, r1\n\t"                                                               \
        DWP_X6_ROW("20")                                                                   \
        RQ                                                                                 \
        "ldrd r2, r3, [sp, #48]\n\t"                                                       \
        "ldrd r10, r11, [sp, #56]\n\t"                                                     \
        "ldr r12, [sp, #40]\n\t"                                                           \
        "add r10, r10, r2\n\t"                                                             \
        "add r11, r11, r3\n\t"                                                             \
        "strd r10, r11, [sp, #56]\n\t"                                                     \
        "subs r12, r12, #1\n\t"                                                            \
        "str r12, [sp, #40]\n\t"                                                           \
        "bne 1b\n\t"                                                                       \
        "add sp, sp, #76\n\t"                                                              \
        "pop {r4-r11, pc}\n\t"                                                             
#if MOTE_S8_PLANAR_R
DWP_ASM_FN(dwp_s1x6_asm, DWP_S1X6_TEXT(DWP_X6_STORE))
#endif
#if MOTE_S8_PLANAR_E
DWP_ASM_FN(dwp_s1x6e_asm, DWP_S1X6_TEXT(DWP_X6_STORE_E))
#endif
#undef DWP_S1X6_TEXT
#if MOTE_S8_USE_DW_PLANAR_X6S2 && MOTE_S8_PLANAR_S2 /* inside MOTE_S8_USE_DW_PLANAR_X6: its requantization */
/* stride 2, one kernel row into r4..r9: x0..x7, then x8..x12 (x6, x7 kept in lr) */
#define DWP_X6S2_MAC(A4, A5, A6, A7, A8)                                                   \
    "smlad r4, r10, r2, " A4 "\n\t"                                                        \
    "smlabb r4, r11, r3, r4\n\t"                                                           \
    "smlad r5, r11, r2, " A5 "\n\t"                                                        \
    "smlabb r5, r12, r3, r5\n\t"                                                           \
    "smlad r6, r12, r2, " A6 "\n\t"                                                        \
    "smlabb r6, lr, r3, r6\n\t"                                                            \
    "ldr r10, [r0, #16]\n\t"                                                               \
    "ldr r11, [r0, #20]\n\t"                                                               \
    "ldrsh r12, [r0, #24]\n\t"                                                             \
    "smlad r7, lr, r2, " A7 "\n\t"                                                         \
    "smlabb r7, r10, r3, r7\n\t"                                                           \
    "smlad r8, r10, r2, " A8 "\n\t"                                                        \
    "smlabb r8, r11, r3, r8\n\t"                                                           \
    "smlad r9, r11, r2, r9\n\t"                                                            \
    "smlabb r9, r12, r3, r9\n\t"
#define DWP_X6S2_LD(WOFF)                                                                  \
    "ldrd r2, r3, [sp, #" WOFF "]\n\t"                                                     \
    "ldr r10, [r0]\n\t"                                                                    \
    "ldr r11, [r0, #4]\n\t"                                                                \
    "ldr r12, [r0, #8]\n\t"                                                                \
    "ldr lr, [r0, #12]\n\t"

/*
 * Stride 2, rows of one 1x6 block (MobileNet's 12 -> 6 map): o_k += SMLAD(x(2k,2k+1),
 * w01) + SMLABB(x(2k+2), w21) over x0..x12 (seven loads a kernel row), the
 * requantization and stores of dwp_s1x6_asm.
 */
#define DWP_S2X6_TEXT(RQ)                                                                  \
        "push {r4-r11, lr}\n\t"                                                            \
        "sub sp, sp, #76\n\t"                                                              \
        "mov r12, sp\n\t"                                                                  \
        "ldmia r0!, {r1-r9}\n\t"                                                           \
        "stmia r12!, {r1-r9}\n\t"                                                          \
        "ldmia r0!, {r1-r9}\n\t"                                                           \
        "stmia r12!, {r1-r9}\n\t"                                                          \
        "ldr r1, [sp, #64]\n\t"                                                            \
        "1:\n\t"                                                                           \
        "ldr r0, [sp, #56]\n\t"                                                            \
        "ldr r9, [sp, #0]\n\t"                                                             \
        DWP_X6S2_LD("4")                                                                   \
        DWP_X6S2_MAC("r9", "r9", "r9", "r9", "r9")                                         \
        "add r0, r0, r1\n\t"                                                               \
        DWP_X6S2_LD("12")                                                                  \
        DWP_X6S2_MAC("r4", "r5", "r6", "r7", "r8")                                         \
        "add r0, r0, r1\n\t"                                                               \
        DWP_X6S2_LD("20")                                                                  \
        DWP_X6S2_MAC("r4", "r5", "r6", "r7", "r8")                                         \
        RQ                                                                                 \
        "ldrd r2, r3, [sp, #48]\n\t"                                                       \
        "ldrd r10, r11, [sp, #56]\n\t"                                                     \
        "ldr r12, [sp, #40]\n\t"                                                           \
        "add r10, r10, r2\n\t"                                                             \
        "add r11, r11, r3\n\t"                                                             \
        "strd r10, r11, [sp, #56]\n\t"                                                     \
        "subs r12, r12, #1\n\t"                                                            \
        "str r12, [sp, #40]\n\t"                                                           \
        "bne 1b\n\t"                                                                       \
        "add sp, sp, #76\n\t"                                                              \
        "pop {r4-r11, pc}\n\t"                                                             
#if MOTE_S8_PLANAR_R
DWP_ASM_FN(dwp_s2x6_asm, DWP_S2X6_TEXT(DWP_X6_STORE))
#endif
#if MOTE_S8_PLANAR_E
DWP_ASM_FN(dwp_s2x6e_asm, DWP_S2X6_TEXT(DWP_X6_STORE_E))
#endif
#undef DWP_S2X6_TEXT
#undef DWP_X6S2_MAC
#undef DWP_X6S2_LD
#endif /* MOTE_S8_USE_DW_PLANAR_X6S2 */
#undef DWP_X6_ROW
#undef DWP_X6_RQ
#endif /* MOTE_S8_USE_DW_PLANAR_X6 */
#if MOTE_S8_USE_DW_PLANAR_X3
/*
 * Stride 1, rows of three outputs (MobileNet's 3x3 maps): dwp_s1x6_asm's scheme with
 * three accumulators r4..r6 and the input words r10, r11 and the halfword r12 (x0..x4);
 * per kernel row LDRD + two LDR + LDRSH + 6 multiplies, then the requantization:
 * about 55 instructions per row (27 MACs). The frame holds the whole job.
 */
#define DWP_X3_ROW(WOFF)                                                                   \
    "ldrd r2, r3, [sp, #" WOFF "]\n\t"                                                     \
    "ldr r10, [r0]\n\t"                                                                    \
    "ldr r11, [r0, #4]\n\t"                                                                \
    "ldrsh r12, [r0, #8]\n\t"                                                              \
    "smlad r4, r10, r2, r4\n\t"                                                            \
    "smlatb r5, r10, r2, r5\n\t"                                                           \
    "smlad r6, r11, r2, r6\n\t"                                                            \
    "smlabb r4, r11, r3, r4\n\t"                                                           \
    "smladx r5, r11, r3, r5\n\t"                                                           \
    "smlabb r6, r12, r3, r6\n\t"
#define DWP_X3_RQ(R)                                                                       \
    "add lr, r3, " R ", asr #31\n\t"                                                       \
    "smmlar " R ", " R ", r2, lr\n\t"

#define DWP_X3_STORE                                                                       \
    "ldrd r2, r3, [sp, #28]\n\t" /* multiplier, offset */                                   \
    "ldr r10, [sp, #36]\n\t"     /* e */                                                    \
    "ldr r11, [sp, #60]\n\t"     /* output */                                               \
    "ldr r12, [sp, #68]\n\t"     /* output bytes between pixels */                          \
    DWP_X3_RQ("r4") DWP_X3_RQ("r5") DWP_X3_RQ("r6")                                        \
    "asr r4, r4, r10\n\t"                                                                   \
    "asr r5, r5, r10\n\t"                                                                   \
    "asr r6, r6, r10\n\t"                                                                   \
    "ssat r4, #8, r4\n\t"                                                                   \
    "ssat r5, #8, r5\n\t"                                                                   \
    "ssat r6, #8, r6\n\t"                                                                   \
    DWP_X3_STRB
#define DWP_X3_STORE_E                                                                     \
    "ldrd r2, r3, [sp, #28]\n\t"                                                            \
    "ldr r11, [sp, #60]\n\t"                                                                \
    "ldr r12, [sp, #68]\n\t"                                                                \
    "smmla r4, r4, r2, r3\n\t"                                                              \
    "smmla r5, r5, r2, r3\n\t"                                                              \
    "smmla r6, r6, r2, r3\n\t"                                                              \
    "ssat r4, #8, r4, asr #12\n\t"                                                          \
    "ssat r5, #8, r5, asr #12\n\t"                                                          \
    "ssat r6, #8, r6, asr #12\n\t"                                                          \
    DWP_X3_STRB
#define DWP_X3_STRB                                                                        \
    "strb r4, [r11]\n\t"                                                                    \
    "strb r5, [r11, r12]\n\t"                                                               \
    "strb r6, [r11, r12, lsl #1]\n\t"

#define DWP_S1X3_TEXT(RQ)                                                                  \
        "push {r4-r11, lr}\n\t"                                                            \
        "sub sp, sp, #76\n\t"                                                              \
        "mov r12, sp\n\t"                                                                  \
        "ldmia r0!, {r1-r9}\n\t"                                                           \
        "stmia r12!, {r1-r9}\n\t"                                                          \
        "ldmia r0!, {r1-r9}\n\t"                                                           \
        "stmia r12!, {r1-r9}\n\t"                                                          \
        "ldr r1, [sp, #64]\n\t"                                                            \
        "1:\n\t"                                                                           \
        "ldr r0, [sp, #56]\n\t"                                                            \
        "ldr r6, [sp, #0]\n\t"                                                             \
        "ldrd r2, r3, [sp, #4]\n\t"                                                        \
        "ldr r10, [r0]\n\t"                                                                \
        "ldr r11, [r0, #4]\n\t"                                                            \
        "ldrsh r12, [r0, #8]\n\t"                                                          \
        "smlad r4, r10, r2, r6\n\t"                                                        \
        "smlatb r5, r10, r2, r6\n\t"                                                       \
        "smlad r6, r11, r2, r6\n\t"                                                        \
        "smlabb r4, r11, r3, r4\n\t"                                                       \
        "smladx r5, r11, r3, r5\n\t"                                                       \
        "smlabb r6, r12, r3, r6\n\t"                                                       \
        "add r0, r0, r1\n\t"                                                               \
        DWP_X3_ROW("12")                                                                   \
        "add r0, r0, r1\n\t"                                                               \
        DWP_X3_ROW("20")                                                                   \
        RQ                                                                                 \
        "ldrd r2, r3, [sp, #48]\n\t"                                                       \
        "ldrd r10, r11, [sp, #56]\n\t"                                                     \
        "ldr r12, [sp, #40]\n\t"                                                           \
        "add r10, r10, r2\n\t"                                                             \
        "add r11, r11, r3\n\t"                                                             \
        "strd r10, r11, [sp, #56]\n\t"                                                     \
        "subs r12, r12, #1\n\t"                                                            \
        "str r12, [sp, #40]\n\t"                                                           \
        "bne 1b\n\t"                                                                       \
        "add sp, sp, #76\n\t"                                                              \
        "pop {r4-r11, pc}\n\t"                                                             
#if MOTE_S8_PLANAR_R
DWP_ASM_FN(dwp_s1x3_asm, DWP_S1X3_TEXT(DWP_X3_STORE))
#endif
#if MOTE_S8_PLANAR_E
DWP_ASM_FN(dwp_s1x3e_asm, DWP_S1X3_TEXT(DWP_X3_STORE_E))
#endif
#undef DWP_S1X3_TEXT
#if MOTE_S8_USE_DW_PLANAR_X3S2 && MOTE_S8_PLANAR_S2 /* inside MOTE_S8_USE_DW_PLANAR_X3: its requantization */
/* stride 2, one kernel row into r4..r6 (x0..x6) */
#define DWP_X3S2_ROW(WOFF, A4, A5)                                                         \
    "ldrd r2, r3, [sp, #" WOFF "]\n\t"                                                     \
    "ldr r10, [r0]\n\t"                                                                    \
    "ldr r11, [r0, #4]\n\t"                                                                \
    "ldr r12, [r0, #8]\n\t"                                                                \
    "ldrsh lr, [r0, #12]\n\t"                                                              \
    "smlad r4, r10, r2, " A4 "\n\t"                                                        \
    "smlabb r4, r11, r3, r4\n\t"                                                           \
    "smlad r5, r11, r2, " A5 "\n\t"                                                        \
    "smlabb r5, r12, r3, r5\n\t"                                                           \
    "smlad r6, r12, r2, r6\n\t"                                                            \
    "smlabb r6, lr, r3, r6\n\t"

/* Stride 2, rows of three outputs (MobileNet's 6 -> 3 map): as dwp_s1x3_asm. */
#define DWP_S2X3_TEXT(RQ)                                                                  \
        "push {r4-r11, lr}\n\t"                                                            \
        "sub sp, sp, #76\n\t"                                                              \
        "mov r12, sp\n\t"                                                                  \
        "ldmia r0!, {r1-r9}\n\t"                                                           \
        "stmia r12!, {r1-r9}\n\t"                                                          \
        "ldmia r0!, {r1-r9}\n\t"                                                           \
        "stmia r12!, {r1-r9}\n\t"                                                          \
        "ldr r1, [sp, #64]\n\t"                                                            \
        "1:\n\t"                                                                           \
        "ldr r0, [sp, #56]\n\t"                                                            \
        "ldr r6, [sp, #0]\n\t"                                                             \
        DWP_X3S2_ROW("4", "r6", "r6")                                                      \
        "add r0, r0, r1\n\t"                                                               \
        DWP_X3S2_ROW("12", "r4", "r5")                                                     \
        "add r0, r0, r1\n\t"                                                               \
        DWP_X3S2_ROW("20", "r4", "r5")                                                     \
        RQ                                                                                 \
        "ldrd r2, r3, [sp, #48]\n\t"                                                       \
        "ldrd r10, r11, [sp, #56]\n\t"                                                     \
        "ldr r12, [sp, #40]\n\t"                                                           \
        "add r10, r10, r2\n\t"                                                             \
        "add r11, r11, r3\n\t"                                                             \
        "strd r10, r11, [sp, #56]\n\t"                                                     \
        "subs r12, r12, #1\n\t"                                                            \
        "str r12, [sp, #40]\n\t"                                                           \
        "bne 1b\n\t"                                                                       \
        "add sp, sp, #76\n\t"                                                              \
        "pop {r4-r11, pc}\n\t"                                                             
#if MOTE_S8_PLANAR_R
DWP_ASM_FN(dwp_s2x3_asm, DWP_S2X3_TEXT(DWP_X3_STORE))
#endif
#if MOTE_S8_PLANAR_E
DWP_ASM_FN(dwp_s2x3e_asm, DWP_S2X3_TEXT(DWP_X3_STORE_E))
#endif
#undef DWP_S2X3_TEXT
#undef DWP_X3S2_ROW
#endif /* MOTE_S8_USE_DW_PLANAR_X3S2 */
#undef DWP_X3_ROW
#undef DWP_X3_RQ
#endif /* MOTE_S8_USE_DW_PLANAR_X3 */
#undef DWP_ASM_ENTRY
#undef DWP_ASM_RQ
#undef DWP_ASM_RQ_E
#undef DWP_ASM_TAIL
#undef DWP_ASM_FN
#undef DWP_S1_ROW
#undef DWP_S2_ROW

/** One output pixel (oy, ox) of a 3x3 window, stride s (the edges of the block loops). */
MOTE_S8_INLINE void dwp_px(const dwp_ch_t *k, const int16_t *pl, int32_t wp, int32_t s, int32_t oy,
                           int32_t ox, int8_t *dst)
{
    const int16_t *x = pl + (size_t)(oy * s) * wp + ox * s;
    int32_t acc = k->b2, j;
    for (j = 0; j < 3; j++, x += wp) {
        acc = __smlad((int32_t)mote_s8_ld32(x), k->w01[j], acc);
        acc = __smlabb((int32_t)x[2], k->w21[j], acc);
    }
    *dst = dwp_rq(acc, k->m, k->off, k->e, k->lo, k->hi, k->full);
}

/** dwp_plane3x3's assembly takes a full-range plane whose rows have wo outputs. */
MOTE_S8_INLINE int dwp_asm_rows(int32_t stride, int32_t wo)
{
    return wo >= 4 || (MOTE_S8_USE_DW_PLANAR_X3 && wo == 3 && (stride == 1 || MOTE_S8_USE_DW_PLANAR_X3S2));
}

/* DWP_CALL(f, j): block function f with the requantization of the job (ef: the E-form) */
#if MOTE_S8_PLANAR_R && MOTE_S8_PLANAR_E
#define DWP_CALL(f, j) (ef ? f##e_asm(j) : f##_asm(j))
#elif MOTE_S8_PLANAR_E
#define DWP_CALL(f, j) f##e_asm(j)
#else
#define DWP_CALL(f, j) f##_asm(j)
#endif
/**
 * A plane by the assembly (dwp_asm_rows): j holds the channel's constants and the
 * call's rows / prow / orow / wpb / opx; its nb, p and o are set here; ef:
 * the job holds the E-form constants (mote_s8_dw_planar_eform).
 */
static void dwp_asm_plane(dwp_job_t *j, const int16_t *pl, int32_t stride, int32_t wo, int8_t *out, int ef)
{
    const int32_t nb = wo >> 2, opx = j->opx;
    (void)ef;
    j->nb = nb;
    j->p = pl;
    j->o = out;
#if MOTE_S8_USE_DW_PLANAR_X3
    if (wo == 3) {
#if MOTE_S8_USE_DW_PLANAR_X3S2 && MOTE_S8_PLANAR_S2
        if (stride == 2) {
            DWP_CALL(dwp_s2x3, j);
            return;
        }
#endif
        DWP_CALL(dwp_s1x3, j);
        return;
    }
#endif
#if MOTE_S8_USE_DW_PLANAR_X8 && MOTE_S8_PLANAR_E
    /* 1x8 blocks, then 1x4 blocks over the rest: where that pays, rows of 8n outputs or
       16+ (a second call for the rest costs its own row loop) */
    if (wo >= 8 && ef && stride == 1 && ((wo & 7) == 0 || wo >= 16) &&
        (!MOTE_S8_USE_DW_PLANAR_X6 || (wo & 3) != 2)) {
        const int32_t n8 = wo >> 3;
        j->nb = n8;
        dwp_s1x8e_asm(j);
        if (wo & 4) {
            j->nb = 1;
            j->p = pl + (size_t)(8 * n8);
            j->o = out + (size_t)(8 * n8) * opx;
            dwp_s1e_asm(j);
        }
        if (wo & 3) { /* the last wo % 4 columns: one more 1x4 block over wo-4..wo-1 */
            j->nb = 1;
            j->p = pl + (size_t)(wo - 4);
            j->o = out + (size_t)(wo - 4) * opx;
            dwp_s1e_asm(j);
        }
        return;
    }
#endif
#if MOTE_S8_USE_DW_PLANAR_X6
    if (stride == 1 && (wo & 3) == 2 && wo >= 6) { /* 1x4 blocks, then a 1x6 block */
        if (nb > 1) {
            j->nb = nb - 1;
            DWP_CALL(dwp_s1, j);
        }
        j->p = pl + (size_t)(wo - 6);
        j->o = out + (size_t)(wo - 6) * opx;
        DWP_CALL(dwp_s1x6, j);
        return;
    }
#endif
#if MOTE_S8_USE_DW_PLANAR_X6 && MOTE_S8_USE_DW_PLANAR_X6S2 && MOTE_S8_PLANAR_S2
    if (stride == 2 && (wo & 3) == 2 && wo >= 6) { /* 1x4 blocks, then a 1x6 block */
        if (nb > 1) {
            j->nb = nb - 1;
            DWP_CALL(dwp_s2, j);
        }
        j->p = pl + (size_t)(wo - 6) * 2;
        j->o = out + (size_t)(wo - 6) * opx;
        DWP_CALL(dwp_s2x6, j);
        return;
    }
#endif
#if MOTE_S8_PLANAR_S2
    if (stride != 1) {
        DWP_CALL(dwp_s2, j);
    } else
#endif
    {
        DWP_CALL(dwp_s1, j);
    }
    if (wo & 3) { /* the last wo % 4 columns: one more block over columns wo-4..wo-1
                     (its first outputs again, the same bytes) */
        j->nb = 1;
        j->p = pl + (size_t)(wo - 4) * stride;
        j->o = out + (size_t)(wo - 4) * opx;
#if MOTE_S8_PLANAR_S2
        if (stride != 1) {
            DWP_CALL(dwp_s2, j);
            return;
        }
#endif
        DWP_CALL(dwp_s1, j);
    }
}
#undef DWP_CALL

#if MOTE_S8_PLANAR_C
/** 3x3, stride 1 or 2: the whole plane of one channel (blocks, then the odd row / column). */
static void dwp_plane3x3(const dwp_ch_t *k, const int16_t *pl, int32_t wp, int32_t stride, int32_t ho,
                         int32_t wo, int8_t *out, int32_t orow, int32_t opx)
{
    int32_t oy, ox;
#if MOTE_S8_PLANAR_R
    if (k->full && dwp_asm_rows(stride, wo)) { /* rows of blocks in assembly */
        dwp_job_t j;
        j.bias2 = k->b2;
        j.w0a = k->w01[0];
        j.w0b = k->w21[0];
        j.w1a = k->w01[1];
        j.w1b = k->w21[1];
        j.w2a = k->w01[2];
        j.w2b = k->w21[2];
        j.m = k->m;
        j.off = k->off;
        j.e = k->e;
        j.rows = ho;
        j.prow = 2 * stride * wp;
        j.orow = orow;
        j.wpb = 2 * wp;
        j.opx = opx;
        dwp_asm_plane(&j, pl, stride, wo, out, 0);
        return;
    }
#endif
    if (stride == 1) {
        dwp_s1_blocks(k, pl, wp, ho >> 1, wo >> 1, out, orow, opx);
    } else {
        dwp_s2_blocks(k, pl, wp, ho >> 1, wo >> 1, out, orow, opx);
    }
    if (wo & 1) {
        for (oy = 0; oy < ho; oy++) {
            dwp_px(k, pl, wp, stride, oy, wo - 1, out + (size_t)oy * orow + (size_t)(wo - 1) * opx);
        }
    }
    if (ho & 1) {
        for (ox = 0; ox < (wo & ~1); ox++) {
            dwp_px(k, pl, wp, stride, ho - 1, ox, out + (size_t)(ho - 1) * orow + (size_t)ox * opx);
        }
    }
}
#endif /* MOTE_S8_PLANAR_C */
#undef DWP_OUT
#undef DWP_ROW_S1
#undef DWP_ROW_S2

/** Pack int16 lo, hi into a word. */
MOTE_S8_INLINE int32_t dwp_pack(int32_t lo, int32_t hi)
{
    return (int32_t)(((uint32_t)hi << 16) | ((uint32_t)lo & 0xffffu));
}

#if MOTE_S8_PLANAR_C
/**
 * The channel's constants; 0 if it must take the plain path. transpose: the plane
 * holds the input transposed (rows are input columns), so the window is too.
 */
static int dwp_channel(const mote_s8_conv_params_t *p, int32_t c, int transpose, dwp_ch_t *k)
{
    const int32_t sh = p->shift[c];
    const int64_t b = p->bias[c];
    int32_t r, e;
    if (sh >= 0 || sh < -22 || (b < 0 ? -b : b) + 9 * ((int64_t)1 << 22) >= ((int64_t)1 << 30)) {
        return 0;
    }
    e = -sh;
    for (r = 0; r < 3; r++) {
        /* kernel row r of the plane's orientation: taps (r, 0..2), or (0..2, r) transposed */
        const int32_t st = transpose ? 3 * p->cout : p->cout;
        const int8_t *w = p->weight + (size_t)(transpose ? r : 3 * r) * p->cout + c;
        k->w01[r] = dwp_pack(2 * w[0], 2 * w[st]);
        k->w21[r] = dwp_pack(2 * w[2 * st], 2 * w[st]);
    }
    k->b2 = (int32_t)(2 * b);
    k->m = p->mult[c];
    k->off = (int32_t)((1u << (e - 1)) + ((uint32_t)p->out_zp << e));
    k->e = e;
    k->lo = p->act_min;
    k->hi = p->act_max;
    k->full = p->act_min == -128 && p->act_max == 127;
    return 1;
}
#endif
/**
 * dwp_channel's constants of a full-range channel straight into a job (the
 * caller checked the channel: shift in [-22, -1], the bias within the bound).
 */
MOTE_S8_INLINE void dwp_job_channel(const mote_s8_conv_params_t *p, int32_t c, int transpose, dwp_job_t *j)
{
    const int32_t e = -p->shift[c], co = p->cout;
    const int32_t st = transpose ? 3 * co : co, rt = transpose ? co : 3 * co;
    const int8_t *w = p->weight + c;
    j->bias2 = (int32_t)(2 * p->bias[c]);
    j->w0a = dwp_pack(2 * w[0], 2 * w[st]);
    j->w0b = dwp_pack(2 * w[2 * st], 2 * w[st]);
    w += rt;
    j->w1a = dwp_pack(2 * w[0], 2 * w[st]);
    j->w1b = dwp_pack(2 * w[2 * st], 2 * w[st]);
    w += rt;
    j->w2a = dwp_pack(2 * w[0], 2 * w[st]);
    j->w2b = dwp_pack(2 * w[2 * st], 2 * w[st]);
    j->m = p->mult[c];
    j->off = (int32_t)((1u << (e - 1)) + ((uint32_t)p->out_zp << e));
    j->e = e;
}

/** (lo half of a, lo half of b) / (hi half of a, hi half of b) as int16 pairs. */
MOTE_S8_INLINE int32_t dwp_pkbt(int32_t a, int32_t b)
{
    int32_t r;
    __asm__("pkhbt %0, %1, %2, lsl #16" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
MOTE_S8_INLINE int32_t dwp_pktb(int32_t a, int32_t b)
{
    int32_t r;
    __asm__("pkhtb %0, %1, %2, asr #16" : "=r"(r) : "r"(b), "r"(a));
    return r;
}

#endif /* MOTE_S8_DSP */
#endif /* MOTE_CMSIS_S8_PLANAR_H */
