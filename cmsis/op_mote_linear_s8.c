/*
 * mote::linear_s8.out - Cortex-M version (DSP / MVE / plain, see mote_s8_arm.h).
 * No scratch: MVE dots each input row against four weight rows in place, the rows'
 * weight sums from the same loads (zero point folded into the bias as zp * sum w),
 * and requantizes four outputs per vector.
 * DSP with the program's panel (weights by blocks of four rows, SXTB16 order, and
 * the requantization table): the input row widened doubled onto the stack, an
 * assembly core of LDM + 16 SMLAD per 8 taps and four rows, SMMLAR requantization.
 * DSP with the program's table alone: the int8 weights read in place, four rows a
 * block, the input widened in the loop, SXTB16 + SMLAD (assembly core).
 * DSP with neither: the input row widened (x - zp) once per 256 taps onto the stack,
 * four output features per pass with SXTB16 + SMLAD on the int8 weights.
 * Same bytes as kernels/op_mote_linear_s8.c.
 */
#include "mote/kernel.h"
#include "mote_s8_arm.h"

MOTE_KERNEL("mote::linear_s8.out")

mote_err_t mote_kernel_mote_linear_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                          uint32_t nargs);

/* Which paths are compiled in: those the program runs (MOTE_S8_USE_LINEAR_ROWS /
   _TABLE / _PANEL, cmsis/mote_s8_arm.h; aot/deploy/generate.py kernel_variant_defines):
   MOTE_S8_LINEAR_PANEL the DSP panel core (off under --opt size), MOTE_S8_LINEAR_TABLE
   the DSP and MVE table paths. A call whose path is left out runs the general one
   (rows / MVE rows: same bytes), or without the DSP rows fails (MOTE_ERR_UNSUPPORTED). */
#define MOTE_S8_LINEAR_PANEL (!MOTE_S8_SIZE && MOTE_S8_USE_LINEAR_PANEL)
#define MOTE_S8_LINEAR_TABLE MOTE_S8_USE_LINEAR_TABLE

#if defined(MOTE_S8_DSP) && MOTE_S8_USE_LINEAR_ROWS
/** Taps of the input row widened per pass (on the stack: LIN_CHUNK * 2 bytes). */
#define LIN_CHUNK 256

/**
 * Widen x[0..n) (n a multiple of 4) minus the zero point into SXTB16 pairs:
 * per 4 taps (x0 - zp, x2 - zp), (x1 - zp, x3 - zp).
 */
MOTE_S8_HOT static void linear_widen(const int8_t *x, int32_t n, int32_t zp, int32_t *xb)
{
    const int32_t zp2 = (int32_t)(((uint32_t)zp & 0xffffu) | ((uint32_t)zp << 16));
    int32_t i;
    for (i = 0; i < n; i += 4, xb += 2) {
        const uint32_t v = mote_s8_ld32(x + i);
        xb[0] = __ssub16(__sxtb16((int32_t)v), zp2);
        xb[1] = __ssub16(mote_s8_sxtb16_ror8(v), zp2);
    }
}

/**
 * Four weight rows (w, w + k, w + 2k, w + 3k) against the widened taps xb over n
 * taps (a multiple of 4): per 4 taps one LDRD of x, then per row LDR (register
 * offsets from row 0), two SXTB16 and two SMLAD (24 instructions with the loop,
 * 16 MACs). acc[] accumulates.
 */
MOTE_S8_HOT static void linear_dot4(const int8_t *w, int32_t k, const int32_t *xb, int32_t n, int32_t acc[4])
{
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    int32_t xe, xo, v, t;
    int32_t cnt = n >> 2;
    if (cnt > 0) {
#define LIN_ROW(a)                                                                         \
    "sxtb16 %[t], %[v]\n\t"                                                                \
    "smlad " a ", %[t], %[xe], " a "\n\t"                                                  \
    "sxtb16 %[v], %[v], ror #8\n\t"                                                        \
    "smlad " a ", %[v], %[xo], " a "\n\t"
        __asm__ volatile("1:\n\t"
                         "ldrd %[xe], %[xo], [%[xb]], #8\n\t"
                         "ldr %[v], [%[w], %[k]]\n\t" LIN_ROW("%[a1]")
                         "ldr %[v], [%[w], %[k], lsl #1]\n\t" LIN_ROW("%[a2]")
                         "add %[t], %[w], %[k]\n\t"
                         "ldr %[v], [%[t], %[k], lsl #1]\n\t" LIN_ROW("%[a3]")
                         "ldr %[v], [%[w]], #4\n\t" LIN_ROW("%[a0]")
                         "subs %[n], %[n], #1\n\t"
                         "bne 1b\n\t"
                         : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3),
                           [w] "+r"(w), [xb] "+r"(xb), [n] "+r"(cnt), [xe] "=&r"(xe),
                           [xo] "=&r"(xo), [v] "=&r"(v), [t] "=&r"(t)
                         : [k] "r"(k)
                         : "cc", "memory");
#undef LIN_ROW
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

/**
 * One input row: the taps widened LIN_CHUNK at a time (x - zp, int16), four
 * output features per pass over them (a feature tail reuses the last row and
 * stores only the valid ones), the last K % 4 taps in plain C.
 */
MOTE_S8_HOT static void linear_row(const mote_s8_conv_params_t *p, const int8_t *x, int8_t *o)
{
    const int32_t k = p->cin;
    const int32_t k4 = k & ~3;
    int32_t xb[LIN_CHUNK / 2];
    int32_t n, c0, j, i;
    if (k4 <= LIN_CHUNK) {
        linear_widen(x, k4, p->in_zp, xb);
    }
    for (n = 0; n < p->cout; n += 4) {
        const int32_t nv = p->cout - n < 4 ? p->cout - n : 4;
        int32_t acc[4] = {0, 0, 0, 0};
        const int8_t *w = p->weight + (size_t)n * k;
        if (nv < 4) { /* rows past the end: compute the last valid row again */
            w = p->weight + (size_t)(p->cout - 4 >= 0 ? p->cout - 4 : 0) * k;
        }
        if (p->cout >= 4) {
            for (c0 = 0; c0 < k4; c0 += LIN_CHUNK) {
                const int32_t kc = k4 - c0 < LIN_CHUNK ? k4 - c0 : LIN_CHUNK;
                if (k4 > LIN_CHUNK) {
                    linear_widen(x + c0, kc, p->in_zp, xb);
                }
                linear_dot4(w + c0, k, xb, kc, acc);
            }
            for (i = k4; i < k; i++) {
                const int32_t xv = (int32_t)x[i] - p->in_zp;
                for (j = 0; j < 4; j++) {
                    acc[j] += xv * w[(size_t)j * k + i];
                }
            }
        } else { /* fewer than four features in all: plain C */
            for (j = 0; j < nv; j++) {
                const int8_t *wr = w + (size_t)j * k;
                for (i = 0; i < k; i++) {
                    acc[j] += ((int32_t)x[i] - p->in_zp) * wr[i];
                }
            }
        }
        for (j = 0; j < nv; j++) {
            /* which accumulator holds feature n + j */
            const int32_t a = nv < 4 && p->cout >= 4 ? acc[j + 4 - nv] : acc[j];
            o[n + j] = mote_s8_finish_c(p, (int32_t)((uint32_t)a + (uint32_t)p->bias[n + j]),
                                        n + j);
        }
    }
}
#endif

#if defined(MOTE_S8_DSP) && (MOTE_S8_LINEAR_PANEL || MOTE_S8_LINEAR_TABLE)
/**
 * Every row of nb blocks of a linear table (16 words a block: 2bc of four rows,
 * then M, rz, e of each) admits the cores' fast requantization, as
 * mote_s8_fast_entry_ok() of each row: 2bc even (the OR of all of them has bit 0
 * clear), |2bc| < lim2 (2bc + lim2 - 1 < 2 lim2 - 1 unsigned: 0 < lim2 < 2^31),
 * M - (2^30 + 1) < 2^30 - 1 and e - 1 < 22 unsigned; each failed compare adds its
 * carry to a count (13 instructions a row, no branch).
 */
#define LIN_CHK_ROW(j, mo, eo)                                                             \
    "ldr %[b], [%[q], #" #j "]\n\t"                                                        \
    "ldr %[m], [%[q], #" #mo "]\n\t"                                                       \
    "ldr %[e], [%[q], #" #eo "]\n\t"                                                       \
    "orr %[par], %[par], %[b]\n\t"                                                         \
    "add %[b], %[b], %[off]\n\t"                                                           \
    "cmp %[b], %[span1]\n\t"                                                               \
    "adc %[cnt], %[cnt], #0\n\t"                                                           \
    "add %[m], %[m], %[mneg]\n\t"                                                          \
    "cmp %[m], %[mspan]\n\t"                                                               \
    "adc %[cnt], %[cnt], #0\n\t"                                                           \
    "sub %[e], %[e], #1\n\t"                                                               \
    "cmp %[e], #22\n\t"                                                                    \
    "adc %[cnt], %[cnt], #0\n\t"
MOTE_S8_HOT static int linear_table_ok(const int32_t *q, int32_t nb, int32_t k)
{
    const int32_t lim2 = mote_s8_fast_lim2(k);
    const uint32_t off = (uint32_t)lim2 - 1u, span1 = 2u * (uint32_t)lim2 - 1u;
    const uint32_t mneg = 0u - 0x40000001u, mspan = 0x3fffffffu;
    uint32_t cnt = 0, par = 0, b, m, e;
    int32_t i;
    if (lim2 <= 0) {
        return 0;
    }
    for (i = 0; i < nb; i++, q += 16) {
        __asm__(LIN_CHK_ROW(0, 16, 24) LIN_CHK_ROW(4, 28, 36) LIN_CHK_ROW(8, 40, 48)
                    LIN_CHK_ROW(12, 52, 60)
                : [cnt] "+r"(cnt), [par] "+r"(par), [b] "=&r"(b), [m] "=&r"(m), [e] "=&r"(e)
                : [q] "r"(q), [off] "r"(off), [span1] "r"(span1), [mneg] "r"(mneg),
                  [mspan] "r"(mspan), "m"(*(const int32_t(*)[16])q)
                : "cc");
    }
    return cnt == 0u && (par & 1u) == 0u;
}
#undef LIN_CHK_ROW
#endif

#if defined(MOTE_S8_DSP) && MOTE_S8_LINEAR_TABLE
/**
 * The table core (assembly below): blocks of four weight rows read in place (int8,
 * row-major [N, K]) against one input row, the program's requantization table
 * (mote_s8_linear_table_numel) instead of bias, multiplier, shift and zero point.
 * Per 4 taps one LDR of the input (widened once for the four rows: SXTB16 and
 * SXTB16 ROR 8) and one LDR of each row, the loads in two runs, two SXTB16 and
 * two SMLAD per row: 16 MACs in 20 instructions, 25 cycles; 4 such steps a pass,
 * then the remaining groups one at a time; a K % 4 tail as one more step on the
 * input's last word (taps already counted zeroed) and each row's last word.
 * Accumulators start at bc (the table's 2bc halved) and are doubled for
 * MOTE_S8_ASM_RQ; the four bytes are packed with BFI, clamped with SSUB8/SEL and
 * stored with one STR.
 */
typedef struct lin_tab {
    const int32_t *q;    /* 0: table of the next block (16 words a block) */
    int8_t *out;         /* 4: output of the next block's first row */
    const int32_t *qend; /* 8: table past the last block */
    const int8_t *x;     /* 12: input row */
    const int8_t *w;     /* 16: the next block's first weight row */
    int32_t k;           /* 20: K (row stride of the weights, bytes) */
    int32_t groups;      /* 24: K / 4 (> 0) */
    uint32_t xtail;      /* 28: x[K-4 .. K-1], the taps before K - K % 4 zeroed */
    int32_t back;        /* 32: 4 - K % 4 if K % 4 != 0, else 0 */
    uint32_t lo4, hi4;   /* 36, 40: act_min / act_max in every byte */
} lin_tab_t;

void mote_s8_dsp_linear_table(lin_tab_t *b);

/* clang-format off */
/* one group of 4 taps x 4 rows: r1 = input word (or loaded here), lr = row 0,
   r2 = row 2, r3 = K; rows 1 and 3 first (register offsets), then 0 and 2 (post-increment) */
#define LIN_TSTEP_W                                                                        \
    "  ldr.w r4, [lr, r3]\n"                                                               \
    "  ldr.w r5, [r2, r3]\n"                                                               \
    "  sxtb16 r0, r1\n"                                                                    \
    "  sxtb16 r1, r1, ror #8\n"                                                            \
    "  sxtb16 r6, r4\n"                                                                    \
    "  smlad r9, r6, r0, r9\n"                                                             \
    "  sxtb16 r4, r4, ror #8\n"                                                            \
    "  smlad r9, r4, r1, r9\n"                                                             \
    "  sxtb16 r6, r5\n"                                                                    \
    "  smlad r11, r6, r0, r11\n"                                                           \
    "  sxtb16 r5, r5, ror #8\n"                                                            \
    "  smlad r11, r5, r1, r11\n"                                                           \
    "  ldr.w r4, [lr], #4\n"                                                               \
    "  ldr.w r5, [r2], #4\n"                                                               \
    "  sxtb16 r6, r4\n"                                                                    \
    "  smlad r8, r6, r0, r8\n"                                                             \
    "  sxtb16 r4, r4, ror #8\n"                                                            \
    "  smlad r8, r4, r1, r8\n"                                                             \
    "  sxtb16 r6, r5\n"                                                                    \
    "  smlad r10, r6, r0, r10\n"                                                           \
    "  sxtb16 r5, r5, ror #8\n"                                                            \
    "  smlad r10, r5, r1, r10\n"
#define LIN_TSTEP "  ldr.w r1, [r12], #4\n" LIN_TSTEP_W
__asm__(MOTE_S8_ASM_FUNC("mote_s8_dsp_linear_table")
        "  push {r4-r11, lr}\n"
        "  sub sp, sp, #4\n"
        "  str r0, [sp]\n"
        ".Lmote_s8_lt_block:\n"
        "  ldr r0, [sp]\n"
        "  ldr r4, [r0]\n"
        "  ldm r4!, {r8-r11}\n"
        "  ldr lr, [r0, #16]\n"
        "  ldr r3, [r0, #20]\n"
        "  ldr r12, [r0, #12]\n"
        "  ldr r7, [r0, #24]\n"
        "  str r4, [r0]\n"
        "  asr r8, r8, #1\n"
        "  asr r9, r9, #1\n"
        "  asr r10, r10, #1\n"
        "  asr r11, r11, #1\n"
        "  add r2, lr, r3, lsl #1\n"
        "  subs r7, r7, #4\n"
        "  blt .Lmote_s8_lt_rest\n"
        ".Lmote_s8_lt_loop:\n"
        LIN_TSTEP LIN_TSTEP LIN_TSTEP LIN_TSTEP
        "  subs r7, r7, #4\n"
        "  bge .Lmote_s8_lt_loop\n"
        ".Lmote_s8_lt_rest:\n"
        "  adds r7, r7, #4\n"
        "  beq .Lmote_s8_lt_tail\n"
        ".Lmote_s8_lt_one:\n"
        LIN_TSTEP
        "  subs r7, r7, #1\n"
        "  bne .Lmote_s8_lt_one\n"
        ".Lmote_s8_lt_tail:\n"
        "  ldr r0, [sp]\n"
        "  ldr r1, [r0, #32]\n"
        "  cbz r1, .Lmote_s8_lt_rq\n"
        "  sub lr, lr, r1\n"
        "  sub r2, r2, r1\n"
        "  ldr r1, [r0, #28]\n"
        LIN_TSTEP_W
        ".Lmote_s8_lt_rq:\n"
        "  ldr r5, [sp]\n"
        "  ldr r4, [r5]\n"
        "  ldm r4!, {r0-r2}\n"
        "  add r8, r8, r8\n"
        MOTE_S8_ASM_RQ("r8", "r8")
        "  ldm r4!, {r0-r2}\n"
        "  add r9, r9, r9\n"
        MOTE_S8_ASM_RQ("r9", "r9")
        "  ldm r4!, {r0-r2}\n"
        "  add r10, r10, r10\n"
        MOTE_S8_ASM_RQ("r10", "r10")
        "  ldm r4!, {r0-r2}\n"
        "  add r11, r11, r11\n"
        MOTE_S8_ASM_RQ("r11", "r11")
        "  bfi r8, r9, #8, #8\n"
        "  bfi r8, r10, #16, #8\n"
        "  bfi r8, r11, #24, #8\n"
        "  ldr r0, [r5, #36]\n"
        "  ldr r1, [r5, #40]\n"
        "  ldr r6, [r5, #4]\n"
        "  ldr r7, [r5, #16]\n"
        "  ldr r3, [r5, #20]\n"
        "  ldr r2, [r5, #8]\n"
        "  ssub8 r12, r8, r0\n"
        "  sel r8, r8, r0\n"
        "  ssub8 r12, r8, r1\n"
        "  sel r8, r1, r8\n"
        "  str r8, [r6], #4\n"
        "  add r7, r7, r3, lsl #2\n"
        "  str r4, [r5]\n"
        "  str r6, [r5, #4]\n"
        "  str r7, [r5, #16]\n"
        "  cmp r4, r2\n"
        "  bne .Lmote_s8_lt_block\n"
        "  add sp, sp, #4\n"
        "  pop {r4-r11, pc}\n"
        "  .size mote_s8_dsp_linear_table, . - mote_s8_dsp_linear_table\n"
        "  .text\n");
/* clang-format on */
#undef LIN_TSTEP
#undef LIN_TSTEP_W

/**
 * linear_s8 with the program's table alone (mote_s8_linear_table_numel; checked
 * first): per input row, the full blocks of four features through the core, then
 * (N % 4 != 0) the last four features again as one block ending at feature N.
 */
MOTE_S8_HOT static mote_err_t linear_table(const mote_s8_conv_params_t *p)
{
    const int32_t k = p->cin, n = p->cout;
    const int32_t nb = (n + 3) >> 2, t = k & 3;
    lin_tab_t blk;
    int32_t m;
    MOTE_CHECK(linear_table_ok(p->wtable, nb, k), MOTE_ERR_KERNEL_ARGS); /* keeps the core exact */
    blk.k = k;
    blk.groups = k >> 2;
    blk.back = t != 0 ? 4 - t : 0;
    blk.lo4 = ((uint32_t)p->act_min & 0xffu) * 0x01010101u;
    blk.hi4 = ((uint32_t)p->act_max & 0xffu) * 0x01010101u;
    for (m = 0; m < p->n; m++) {
        const int8_t *x = p->input + (size_t)m * k;
        int8_t *o = p->output + (size_t)m * n;
        blk.x = x;
        blk.xtail = t != 0 ? mote_s8_ld32(x + k - 4) & (0xffffffffu << (8u * (uint32_t)(4 - t))) : 0u;
        blk.q = p->wtable;
        blk.out = o;
        blk.w = p->weight;
        blk.qend = p->wtable + (size_t)(n >> 2) * 16;
        mote_s8_dsp_linear_table(&blk); /* N >= 4: at least one block */
        if ((n & 3) != 0) { /* the last block: features N - 4 .. N - 1 */
            blk.q = p->wtable + (size_t)(nb - 1) * 16;
            blk.qend = blk.q + 16;
            blk.out = o + n - 4;
            blk.w = p->weight + (size_t)(n - 4) * k;
            mote_s8_dsp_linear_table(&blk);
        }
    }
    return MOTE_OK;
}
#endif

#if defined(MOTE_S8_DSP) && MOTE_S8_LINEAR_PANEL
/**
 * The panel core (assembly below): every block of four weight rows of the panel
 * against one input row widened doubled (x: per group of 4 taps the SXTB16 pairs
 * [x(0,2) x(1,3)], K rounded up to 8 with zeros). Per 8 taps one LDM of 4 column
 * words and four LDM of 4 weight words (rows 0-1 and 2-3 of each group), 16 SMLAD:
 * 32 MACs in 21 instructions; 4 such steps a pass, the first pass entered by a
 * computed branch. Accumulators start at 2 * the corrected bias (table), so the
 * sum is 2 * acc; MOTE_S8_ASM_RQ requantizes, the four bytes are packed with BFI,
 * clamped with SSUB8/SEL and stored with one STR.
 */
typedef struct lin_blk {
    const int32_t *q;    /* 0: table of the first block (16 words a block) */
    int8_t *out;         /* 4: output of the first row */
    const int32_t *qend; /* 8: table past the last block */
    const int32_t *x;    /* 12: widened input row */
    uint32_t entry;      /* 16: (set by the core) */
    const int32_t *xend; /* 20: x + round8(K) / 2 words */
    uint32_t lo4, hi4;   /* 24, 28: act_min / act_max in every byte */
    const int32_t *w;    /* 32: weight blocks */
    int32_t skip84;      /* 36: 84 * 8-tap steps skipped in the first pass */
} lin_blk_t;

void mote_s8_dsp_linear_blocks(const lin_blk_t *b);

/* clang-format off */
#define LIN_STEP                                                                           \
    "  ldmia.w lr!, {r4-r7}\n"                                                             \
    "  ldmia.w r12!, {r0-r3}\n"                                                            \
    "  smlad r8, r0, r4, r8\n"                                                             \
    "  smlad r8, r1, r5, r8\n"                                                             \
    "  smlad r9, r2, r4, r9\n"                                                             \
    "  smlad r9, r3, r5, r9\n"                                                             \
    "  ldmia.w r12!, {r0-r3}\n"                                                            \
    "  smlad r10, r0, r4, r10\n"                                                           \
    "  smlad r10, r1, r5, r10\n"                                                           \
    "  smlad r11, r2, r4, r11\n"                                                           \
    "  smlad r11, r3, r5, r11\n"                                                           \
    "  ldmia.w r12!, {r0-r3}\n"                                                            \
    "  smlad r8, r0, r6, r8\n"                                                             \
    "  smlad r8, r1, r7, r8\n"                                                             \
    "  smlad r9, r2, r6, r9\n"                                                             \
    "  smlad r9, r3, r7, r9\n"                                                             \
    "  ldmia.w r12!, {r0-r3}\n"                                                            \
    "  smlad r10, r0, r6, r10\n"                                                           \
    "  smlad r10, r1, r7, r10\n"                                                           \
    "  smlad r11, r2, r6, r11\n"                                                           \
    "  smlad r11, r3, r7, r11\n"
__asm__(MOTE_S8_ASM_FUNC("mote_s8_dsp_linear_blocks")
        "  push {r4-r11, lr}\n"
        "  sub sp, sp, #36\n"
        "  ldm r0, {r1-r8}\n"
        "  stm sp, {r1-r8}\n"
        "  ldr r12, [r0, #32]\n"
        "  ldr r2, [r0, #36]\n"
        "  adr.w r3, .Lmote_s8_lin_loop\n"
        "  add r2, r2, r3\n"
        "  orr r2, r2, #1\n"
        "  str r2, [sp, #16]\n"
        "  ldr r4, [sp]\n"
        "  ldm r4!, {r8-r11}\n"
        "  str r4, [sp]\n"
        "  ldr lr, [sp, #12]\n"
        "  ldr pc, [sp, #16]\n"
        "  .p2align 2\n"
        ".Lmote_s8_lin_loop:\n"
        LIN_STEP LIN_STEP LIN_STEP LIN_STEP
        "  ldr r4, [sp, #20]\n"
        "  cmp lr, r4\n"
        "  bne .Lmote_s8_lin_loop\n"
        "  ldm sp, {r4-r6}\n"
        "  ldm r4!, {r0-r2}\n"
        MOTE_S8_ASM_RQ("r8", "r8")
        "  ldm r4!, {r0-r2}\n"
        MOTE_S8_ASM_RQ("r9", "r9")
        "  ldm r4!, {r0-r2}\n"
        MOTE_S8_ASM_RQ("r10", "r10")
        "  ldm r4!, {r0-r2}\n"
        MOTE_S8_ASM_RQ("r11", "r11")
        "  bfi r8, r9, #8, #8\n"
        "  bfi r8, r10, #16, #8\n"
        "  bfi r8, r11, #24, #8\n"
        "  ldrd r0, r1, [sp, #24]\n"
        "  ssub8 r3, r8, r0\n"
        "  sel r8, r8, r0\n"
        "  ssub8 r3, r8, r1\n"
        "  sel r8, r1, r8\n"
        "  str r8, [r5], #4\n"
        "  cmp r4, r6\n"
        "  beq .Lmote_s8_lin_done\n"
        "  ldm r4!, {r8-r11}\n"
        "  stm sp, {r4-r5}\n"
        "  ldr lr, [sp, #12]\n"
        "  ldr pc, [sp, #16]\n"
        ".Lmote_s8_lin_done:\n"
        "  add sp, sp, #36\n"
        "  pop {r4-r11, pc}\n"
        "  .size mote_s8_dsp_linear_blocks, . - mote_s8_dsp_linear_blocks\n"
        "  .text\n");
/* clang-format on */
#undef LIN_STEP

/**
 * linear_s8 with the program's panel (weights and requantization table,
 * mote_s8_linear_panel_numel; the table is checked first): per input row, the row
 * widened doubled onto the stack, the full blocks of four features through the
 * core, a last partial block into a 4-byte buffer.
 */
MOTE_S8_HOT static mote_err_t linear_panel(const mote_s8_conv_params_t *p)
{
    const int32_t k = p->cin;
    const int32_t k8 = (k + 7) & ~7; /* <= MOTE_S8_LIN_PANEL_KMAX (parser) */
    const int32_t nb = p->cout >> 2, tail = p->cout & 3;
    int32_t xb[MOTE_S8_LIN_PANEL_KMAX / 2];
    lin_blk_t blk;
    int32_t m, i;
    MOTE_CHECK(linear_table_ok(p->wtable, (p->cout + 3) >> 2, k), MOTE_ERR_KERNEL_ARGS); /* keeps the core exact */
    blk.x = xb;
    blk.xend = xb + k8 / 2;
    blk.lo4 = ((uint32_t)p->act_min & 0xffu) * 0x01010101u;
    blk.hi4 = ((uint32_t)p->act_max & 0xffu) * 0x01010101u;
    blk.skip84 = 84 * ((4 - ((k8 >> 3) & 3)) & 3);
    blk.entry = 0;
    for (m = 0; m < p->n; m++) {
        const int8_t *x = p->input + (size_t)m * k;
        int8_t *o = p->output + (size_t)m * p->cout;
        for (i = 0; i + 4 <= k; i += 4) {
            const uint32_t v = mote_s8_ld32(x + i);
            const int32_t e = __sxtb16((int32_t)v), od = mote_s8_sxtb16_ror8(v);
            xb[i >> 1] = __sadd16(e, e);
            xb[(i >> 1) + 1] = __sadd16(od, od);
        }
        if (i < k8) { /* K % 8 taps: the last 4 or 8 with zeros */
            uint32_t v = 0, j;
            for (j = 0; (int32_t)j < k - i; j++) {
                v |= (uint32_t)(uint8_t)x[i + (int32_t)j] << (8u * j);
            }
            for (; i < k8; i += 4, v = 0) {
                const int32_t e = __sxtb16((int32_t)v), od = mote_s8_sxtb16_ror8(v);
                xb[i >> 1] = __sadd16(e, e);
                xb[(i >> 1) + 1] = __sadd16(od, od);
            }
        }
        blk.w = (const int32_t *)(const void *)p->wpanel;
        blk.q = p->wtable;
        blk.out = o;
        if (nb > 0) {
            blk.qend = p->wtable + (size_t)nb * 16;
            mote_s8_dsp_linear_blocks(&blk);
        }
        if (tail > 0) {
            int8_t last[4];
            blk.w = (const int32_t *)(const void *)p->wpanel + (size_t)nb * 2 * k8;
            blk.q = p->wtable + (size_t)nb * 16;
            blk.qend = blk.q + 16;
            blk.out = last;
            mote_s8_dsp_linear_blocks(&blk);
            for (i = 0; i < tail; i++) {
                o[nb * 4 + i] = last[i];
            }
        }
    }
    return MOTE_OK;
}
#endif

#if defined(MOTE_S8_MVE)
/**
 * MVE core (assembly below): one input row x against four weight rows (w, w + k,
 * w + 2k, w + 3k) over k16 chunks of 16 taps (k16 > 0): per chunk five VLDRB, per
 * row one VMLADAVA (the dot product) and one VADDVA (the weight sum, from the same
 * load): 64 MACs and four sums in 15 instructions. Every accumulator its own even
 * register. out[j] = sum x * w_j, out[4 + j] = sum w_j over the chunks.
 */
void mote_s8_mve_linear_dot4s(const int8_t *x, const int8_t *w, int32_t k, int32_t k16, int32_t *out);

/* clang-format off */
__asm__(MOTE_S8_ASM_FUNC("mote_s8_mve_linear_dot4s")
        "  push {r4-r11, lr}\n"
        "  ldr r4, [sp, #36]\n"
        "  push {r4}\n"
        "  mov r11, r3\n"
        "  mov r3, r0\n"
        "  add r5, r1, r2\n"
        "  add r7, r5, r2\n"
        "  add r9, r7, r2\n"
        "  movs r0, #0\n"
        "  movs r2, #0\n"
        "  movs r4, #0\n"
        "  movs r6, #0\n"
        "  mov r8, r0\n"
        "  mov r10, r0\n"
        "  mov r12, r0\n"
        "  mov lr, r0\n"
        "1:\n"
        "  vldrb.8 q0, [r3], #16\n"
        "  vldrb.8 q1, [r1], #16\n"
        "  vldrb.8 q2, [r5], #16\n"
        "  vldrb.8 q3, [r7], #16\n"
        "  vmladava.s8 r0, q0, q1\n"
        "  vaddva.s8 r8, q1\n"
        "  vldrb.8 q1, [r9], #16\n"
        "  vmladava.s8 r2, q0, q2\n"
        "  vaddva.s8 r10, q2\n"
        "  vmladava.s8 r4, q0, q3\n"
        "  vaddva.s8 r12, q3\n"
        "  vmladava.s8 r6, q0, q1\n"
        "  vaddva.s8 lr, q1\n"
        "  subs r11, r11, #1\n"
        "  bne 1b\n"
        "  pop {r1}\n"
        "  stm r1, {r0, r2, r4, r6, r8, r10, r12, lr}\n"
        "  pop {r4-r11, pc}\n"
        "  .size mote_s8_mve_linear_dot4s, . - mote_s8_mve_linear_dot4s\n"
        "  .text\n");
/* clang-format on */

#if MOTE_S8_LINEAR_TABLE
/**
 * linear_s8 with the program's table (mote_s8_linear_table_numel): the corrected
 * bias bias - zp * sum w of each block's four rows from it (2bc halved), so the dot
 * products alone (mote_s8_mve_dot4: per 16 taps five loads and four VMLADAVA);
 * blocks of four rows, the last one at rows N - 4..N - 1 (its outputs written again
 * where it overlaps the block before), requantized in vectors.
 */
MOTE_S8_HOT static void linear_mve_table(const mote_s8_conv_params_t *p)
{
    const int32_t k = p->cin;
    const int32_t *q = p->wtable;
    int32_t m, n;
    for (n = 0; n < p->cout; n += 4, q += 16) {
        const int32_t n0 = n + 4 <= p->cout ? n : p->cout - 4;
        const int8_t *w0 = p->weight + (size_t)n0 * k;
        const int32x4_t bc = vshrq_n_s32(vld1q_s32(q), 1);
        const int32x4_t mv = vld1q_s32(p->mult + n0), sv = vld1q_s32(p->shift + n0);
        int32_t s[4];
        for (m = 0; m < p->n; m++) {
            mote_s8_mve_dot4(p->input + (size_t)m * k, w0, w0 + k, w0 + 2 * k, w0 + 3 * k, k, s);
            vstrbq_s32(p->output + (size_t)m * p->cout + n0,
                       mote_s8_mve_requant(vaddq_s32(vld1q_s32(s), bc), mv, sv, p->out_zp, p->act_min,
                                           p->act_max));
        }
    }
}

#endif

/**
 * Every output row, four output features per pass: the first input row's dot
 * products give the weight sums too (the zero point folded into the bias as
 * zp * sum w; the core for the chunks of 16 taps, a predicated tail), the other
 * rows reuse them.
 */
MOTE_S8_HOT static void linear_mve(const mote_s8_conv_params_t *p)
{
    const int32_t k = p->cin, k16 = k >> 4, kt = k & ~15;
    int32_t m, n;
    for (n = 0; n < p->cout; n += 4) {
        /* rows past the end (a last partial block) repeat the last row */
        const int32_t n0 = n + 4 <= p->cout ? n : (p->cout >= 4 ? p->cout - 4 : 0);
        const int8_t *w0 = p->weight + (size_t)n0 * k;
        int32_t cb[4], s[8], j;
        if (p->cout >= 4) {
            if (k16 > 0) {
                mote_s8_mve_linear_dot4s(p->input, w0, k, k16, s);
            } else {
                vst1q_s32(s, vdupq_n_s32(0));
                vst1q_s32(s + 4, vdupq_n_s32(0));
            }
            if (kt < k) { /* the last k % 16 taps, predicated */
                const mve_pred16_t pr = vctp8q((uint32_t)(k - kt));
                const int8x16_t xv = vldrbq_z_s8(p->input + kt, pr);
                const int8x16_t v0 = vldrbq_z_s8(w0 + kt, pr);
                const int8x16_t v1 = vldrbq_z_s8(w0 + k + kt, pr);
                const int8x16_t v2 = vldrbq_z_s8(w0 + 2 * k + kt, pr);
                const int8x16_t v3 = vldrbq_z_s8(w0 + 3 * k + kt, pr);
                s[0] = vmladavaq_s8(s[0], xv, v0);
                s[1] = vmladavaq_s8(s[1], xv, v1);
                s[2] = vmladavaq_s8(s[2], xv, v2);
                s[3] = vmladavaq_s8(s[3], xv, v3);
                s[4] = vaddvaq_s8(s[4], v0);
                s[5] = vaddvaq_s8(s[5], v1);
                s[6] = vaddvaq_s8(s[6], v2);
                s[7] = vaddvaq_s8(s[7], v3);
            }
        } else { /* fewer than four features in all */
            const int8_t *w1 = p->cout > 1 ? w0 + k : w0;
            const int8_t *w2 = p->cout > 2 ? w1 + k : w1;
            mote_s8_mve_dot4(p->input, w0, w1, w2, w2, k, s);
            s[4] = mote_s8_mve_sum(w0, k);
            s[5] = mote_s8_mve_sum(w1, k);
            s[6] = mote_s8_mve_sum(w2, k);
            s[7] = s[6];
        }
        if (n0 == n) { /* a full block: bias - zp * sum w, and the first row, in vectors */
            const int32x4_t cv = vsubq_s32(vld1q_s32(p->bias + n), vmulq_n_s32(vld1q_s32(s + 4), p->in_zp));
            vstrbq_s32(p->output + n, mote_s8_mve_requant(vaddq_s32(vld1q_s32(s), cv), vld1q_s32(p->mult + n),
                                                          vld1q_s32(p->shift + n), p->out_zp, p->act_min,
                                                          p->act_max));
            vst1q_s32(cb, cv);
            for (m = 1; m < p->n; m++) {
                mote_s8_mve_dot4(p->input + (size_t)m * k, w0, w0 + k, w0 + 2 * k, w0 + 3 * k, k, s);
                mote_s8_mve_store4(p, s, cb, n, p->output + (size_t)m * p->cout);
            }
            continue;
        }
        /* feature n + j is lane j + (n - n0) of the block */
        for (j = 0; j < 4; j++) {
            const int32_t l = j + n - n0 < 4 ? j + n - n0 : 3;
            cb[j] = n + j < p->cout
                        ? (int32_t)((uint32_t)p->bias[n + j] - (uint32_t)p->in_zp * (uint32_t)s[4 + l])
                        : 0;
            s[j] = s[l];
        }
        mote_s8_mve_store4(p, s, cb, n, p->output);
        for (m = 1; m < p->n; m++) {
            const int8_t *r1 = n0 + 1 < p->cout ? w0 + k : w0;
            const int8_t *r2 = n0 + 2 < p->cout ? r1 + k : r1;
            const int8_t *r3 = n0 + 3 < p->cout ? r2 + k : r2;
            mote_s8_mve_dot4(p->input + (size_t)m * k, w0, r1, r2, r3, k, s);
            for (j = 0; j < 4; j++) {
                const int32_t l = j + n - n0 < 4 ? j + n - n0 : 3;
                s[j] = s[l];
            }
            mote_s8_mve_store4(p, s, cb, n, p->output + (size_t)m * p->cout);
        }
    }
}
#endif

mote_err_t mote_kernel_mote_linear_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                          uint32_t nargs)
{
    mote_s8_conv_params_t p;
    const mote_err_t e = mote_s8_linear_parse(args, nargs, 1, &p);
    (void)ctx;
    if (e != MOTE_OK) {
        return e;
    }
#if defined(MOTE_S8_MVE)
#if MOTE_S8_LINEAR_TABLE
    if (p.wtable != NULL && p.wpanel == NULL) {
        linear_mve_table(&p);
        return MOTE_OK;
    }
#endif
    linear_mve(&p);
#elif defined(MOTE_S8_DSP)
#if MOTE_S8_LINEAR_PANEL
    if (p.wpanel != NULL) {
        return linear_panel(&p);
    }
#endif
#if MOTE_S8_LINEAR_TABLE
    if (p.wtable != NULL && p.wpanel == NULL) {
        return linear_table(&p);
    }
#endif
#if MOTE_S8_USE_LINEAR_ROWS
    {
        int32_t m;
        for (m = 0; m < p.n; m++) {
            linear_row(&p, p.input + (size_t)m * p.cin, p.output + (size_t)m * p.cout);
        }
    }
#else
    return MOTE_ERR_UNSUPPORTED; /* the rows path is compiled out (mote_s8_arm.h) */
#endif
#else
    {
        const int32_t k = p.cin;
        int32_t m, n;
        for (m = 0; m < p.n; m++) {
            const int8_t *x = p.input + (size_t)m * k;
            for (n = 0; n < p.cout; n++) {
                const int8_t *w = p.weight + (size_t)n * k;
                uint32_t acc = (uint32_t)p.bias[n];
                int32_t i;
                for (i = 0; i < k; i++) {
                    acc += (uint32_t)(((int32_t)x[i] - p.in_zp) * (int32_t)w[i]);
                }
                p.output[(size_t)m * p.cout + n] = mote_s8_finish_c(&p, (int32_t)acc, n);
            }
        }
    }
#endif
    return MOTE_OK;
}
