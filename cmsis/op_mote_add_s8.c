/*
 * mote::add_s8.out - Cortex-M version (DSP / MVE / plain, see mote_s8_arm.h):
 * int8 add of two same-shape tensors, same bytes as kernels/op_mote_add_s8.c.
 * All paths compute the folded form of kernels/requant.h (mote_s8_add_params_t)
 * when the arguments admit it (every program the compiler emits), else the
 * reference's arithmetic:
 * - DSP: per element and input LDRSB, MLA (zero point and left shift), SMMLAR
 *   (multiplier and RDBPOT's rounding constant), the sign term as a shifted ADD,
 *   ASR; the sum doubled, SMMLAR (output multiplier, rounding and zero point),
 *   sign, ASR, SSAT; four bytes packed (BFI), clamped with SSUB8 + SEL, one STR.
 *   An input with shift 0 skips its sign term and shift (the inputs are swapped
 *   so that such an input comes first: addition commutes).
 * - MVE: four elements a step in int32 lanes (VLDRB.S32), VMLAS (zero point and
 *   left shift), VQRDMULH (= SRDHM), RDBPOT as VRSHL after the sign term, then
 *   the output requantization alike; the tail predicated.
 * - plain: the folded form in C (kernels/requant.h).
 *
 *   dtypes: int8 (a, b, out).
 */
#include "mote/kernel.h"
#include "mote_s8_arm.h"

MOTE_KERNEL("mote::add_s8.out")
MOTE_KERNEL_IN_PLACE("mote::add_s8.out")

mote_err_t mote_kernel_mote_add_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                       uint32_t nargs);

#if defined(MOTE_S8_DSP) || defined(MOTE_S8_MVE)
/**
 * The core for the folded form (mote_s8_add_variant): the input that goes first (a
 * power input does; addition commutes) and whether each is a power input; 0 for
 * MOTE_S8_ADD_FOLDED (the plain folded form runs it).
 */
static int add_kinds(const mote_s8_add_params_t *p, int *first, int *powa, int *powb)
{
    const int32_t v = mote_s8_add_variant(p->mult[0], p->shift[0], p->mult[1], p->shift[1],
                                          p->left_shift, p->out_shift);
    const int pa = mote_s8_add_is_pow(p->mult[0], p->shift[0], p->left_shift);
    const int pb = mote_s8_add_is_pow(p->mult[1], p->shift[1], p->left_shift);
    *first = pa || !pb ? 0 : 1;
    *powa = v == MOTE_S8_ADD_POW_POW || v == MOTE_S8_ADD_POW_GEN;
    *powb = v == MOTE_S8_ADD_POW_POW;
    return v >= MOTE_S8_ADD_POW_GEN;
}

#endif

#if defined(MOTE_S8_DSP)
/*
 * DSP cores: blocks of four elements in three phases, each loading its constants
 * with one LDM (14 registers hold a phase). Block layout k (int32 words):
 *   [0] a, [1..5] input A: pmul padd mult r e (a "power" input: ymul yadd),
 *   [6..11] input B: the same, then b - a - 4, [12..16] out_M r_o e_o o - a - 4
 *   end (a after the last block), [17] act_min x 4 bytes, [18] act_max x 4 bytes.
 * A general input (e >= 1): x = MLA, SMMLAR, + (x >> 31), ASR e (5 instructions);
 * a power input (M = 2^30, e < L: y = (q - zp) * 2^(L-1-e) exactly): one MLA that
 * gives 2y. The doubled sum goes through SMMLAR, sign, ASR, SSAT; four bytes BFI'd
 * into a word, clamped with SSUB8 + SEL, one STR.
 */
#define ADD_EXT0(w) "  sxtb r11, " w "\n"
#define ADD_EXT1(w) "  sxtb r11, " w ", ror #8\n"
#define ADD_EXT2(w) "  sxtb r11, " w ", ror #16\n"
#define ADD_EXT3(w) "  asr r11, " w ", #24\n"
/* y = 2 (q - zp) * 2^(L-1-e) (power input A; both-power: + B's constant) */
#define ADD_A_POW(ext, y) ext("r6") "  mla " y ", r11, r1, r2\n"
/* y = requantized input A (general) */
#define ADD_A_GEN(ext, y)                                                                  \
    ext("r6") "  mla r11, r11, r1, r2\n"                                                   \
              "  smmlar lr, r11, r3, r4\n"                                                 \
              "  add lr, lr, r11, asr #31\n"                                               \
              "  asr " y ", lr, r5\n"
/* general input B; DBL: y holds 2 y_A, becomes 2 (y_A + y_B); SUM: y holds y_A */
#define ADD_B_GEN(ext, y, fin)                                                             \
    ext("r6") "  mla r11, r11, r1, r2\n"                                                   \
              "  smmlar lr, r11, r3, r4\n"                                                 \
              "  add lr, lr, r11, asr #31\n"                                               \
              "  asr lr, lr, r5\n" fin(y)
#define ADD_FIN_DBL(y) "  add " y ", " y ", lr, lsl #1\n"
#define ADD_FIN_SUM(y) "  add " y ", " y ", lr\n  lsl " y ", " y ", #1\n"
#define ADD_B_GEN_DBL(ext, y) ADD_B_GEN(ext, y, ADD_FIN_DBL)
#define ADD_B_GEN_SUM(ext, y) ADD_B_GEN(ext, y, ADD_FIN_SUM)
/* power input B after a power input A: y += 2 (q_b * 2^(L-1-e)) */
#define ADD_B_POW(ext, y) ext("r6") "  mla " y ", r11, r1, " y "\n"
/* output: y = 2 (y_A + y_B) -> saturated int8 before the clamp */
#define ADD_OUT(y)                                                                         \
    "  smmlar lr, " y ", r1, r2\n"                                                         \
    "  add lr, lr, " y ", asr #31\n"                                                       \
    "  asr lr, lr, r3\n"                                                                   \
    "  ssat " y ", #8, lr\n"
#define ADD_PHASE(step)                                                                    \
    step(ADD_EXT0, "r7") step(ADD_EXT1, "r8") step(ADD_EXT2, "r9") step(ADD_EXT3, "r10")
/* clang-format off */
#define ADD_CORE(name, stepa, stepb)                                                       \
    __asm__(MOTE_S8_ASM_FUNC(name)                                                         \
            "  push {r4-r11, lr}\n"                                                        \
            "  ldr r12, [r0], #4\n"                                                        \
            "1:\n"                                                                         \
            "  ldm r0!, {r1-r5}\n"                                                         \
            "  ldr r6, [r12], #4\n"                                                        \
            ADD_PHASE(stepa)                                                               \
            "  ldm r0!, {r1-r6}\n"                                                         \
            "  ldr r6, [r12, r6]\n"                                                        \
            ADD_PHASE(stepb)                                                               \
            "  ldm r0, {r1-r5}\n"                                                          \
            ADD_OUT("r7") ADD_OUT("r8") ADD_OUT("r9") ADD_OUT("r10")                       \
            "  bfi r7, r8, #8, #8\n"                                                       \
            "  bfi r7, r9, #16, #8\n"                                                      \
            "  bfi r7, r10, #24, #8\n"                                                     \
            "  ldrd r8, r9, [r0, #20]\n"                                                   \
            "  ssub8 r10, r7, r8\n"                                                        \
            "  sel r7, r7, r8\n"                                                           \
            "  ssub8 r10, r9, r7\n"                                                        \
            "  sel r7, r7, r9\n"                                                           \
            "  str r7, [r12, r4]\n"                                                        \
            "  sub r0, r0, #44\n"                                                          \
            "  cmp r12, r5\n"                                                              \
            "  bne 1b\n"                                                                   \
            "  pop {r4-r11, pc}\n"                                                         \
            "  .size " name ", . - " name "\n"                                             \
            "  .text\n")
ADD_CORE("mote_s8_dsp_add_pow_gen", ADD_A_POW, ADD_B_GEN_DBL);
#if !MOTE_S8_SIZE /* --opt size: two general inputs take the folded form in C */
ADD_CORE("mote_s8_dsp_add_gen_gen", ADD_A_GEN, ADD_B_GEN_SUM);
#endif
ADD_CORE("mote_s8_dsp_add_pow_pow", ADD_A_POW, ADD_B_POW);
/* clang-format on */

void mote_s8_dsp_add_pow_gen(const int32_t *k);
void mote_s8_dsp_add_gen_gen(const int32_t *k);
void mote_s8_dsp_add_pow_pow(const int32_t *k);

/** The constants of input i in block k at j (general: pmul padd mult r e; power:
 *  2^(L-e), -zp * 2^(L-e), plus add to the constant). */
static void add_put(const mote_s8_add_params_t *p, int i, int pow, int32_t add, int32_t *k)
{
    if (pow) {
        const int32_t ymul = (int32_t)1 << (p->left_shift - p->e[i]);
        k[0] = ymul;
        k[1] = -p->zp[i] * ymul + add;
    } else {
        k[0] = p->pmul[i];
        k[1] = p->padd[i];
    }
    k[2] = p->mult[i];
    k[3] = p->r[i];
    k[4] = p->e[i];
}

/** Every full block of four through a DSP core; returns 0 if no core fits the
 *  arguments (an input with shift 0 and a multiplier other than 2^30). */
static int add_blocks(const mote_s8_add_params_t *p, uint32_t nb)
{
    int32_t k[19];
    int first, powa, powb;
    const int8_t *x;
    const int8_t *y;
    if (!add_kinds(p, &first, &powa, &powb) || (MOTE_S8_SIZE && !powa)) {
        return 0;
    }
    x = first == 0 ? p->a : p->b;
    y = first == 0 ? p->b : p->a;
    k[0] = (int32_t)(uintptr_t)x;
    add_put(p, first, powa, 0, k + 1);
    add_put(p, 1 - first, powb, 0, k + 6);
    if (powa && powb) { /* B's constant joins A's: B's MLA accumulates */
        k[2] += k[7];
    }
    k[11] = (int32_t)((uintptr_t)y - (uintptr_t)x - 4u);
    k[12] = p->out_mult;
    k[13] = p->r_o;
    k[14] = p->e_o;
    k[15] = (int32_t)((uintptr_t)p->out - (uintptr_t)x - 4u);
    k[16] = (int32_t)(uintptr_t)(x + 4u * nb);
    k[17] = (int32_t)(0x01010101u * (uint8_t)p->act_min);
    k[18] = (int32_t)(0x01010101u * (uint8_t)p->act_max);
    if (powa && powb) {
        mote_s8_dsp_add_pow_pow(k);
    } else if (powa) {
        mote_s8_dsp_add_pow_gen(k);
    } else {
#if !MOTE_S8_SIZE
        mote_s8_dsp_add_gen_gen(k);
#endif
    }
    return 1;
}

static void add_fast(const mote_s8_add_params_t *p)
{
    uint32_t i = 0;
    if (p->numel >= 4u && add_blocks(p, p->numel >> 2)) {
        i = p->numel & ~3u;
    }
    for (; i < p->numel; i++) {
        p->out[i] = mote_s8_add_fast_c(p, p->a[i], p->b[i]);
    }
}
#elif defined(MOTE_S8_MVE)
/** MVE constants of one input: power (y = q * mul + add) or general. */
typedef struct add_mve_in {
    int32_t mul, add, mult, nege;
} add_mve_in_t;

/** Input constants: power: 2^(L-1-e), -zp * 2^(L-1-e); general: 2^L, -zp * 2^L, M, -e. */
static add_mve_in_t add_mve_in(const mote_s8_add_params_t *p, int i, int pow)
{
    add_mve_in_t k;
    k.mul = pow ? (int32_t)1 << (p->left_shift - 1 - p->e[i]) : p->pmul[i] / 2;
    k.add = -p->zp[i] * k.mul;
    k.mult = p->mult[i];
    k.nege = -p->e[i];
    return k;
}

/** One input of four elements: power: VMLAS; general: VMLAS, VQRDMULH (= SRDHM),
 *  the sign term (e > 0 here), VRSHL (RDBPOT). */
MOTE_S8_INLINE int32x4_t add_mve_y(int32x4_t q, int32x4_t mul, const add_mve_in_t *k, const int pow)
{
    int32x4_t v = vmlasq_n_s32(q, mul, k->add);
    if (pow) {
        return v;
    }
    v = vqrdmulhq_n_s32(v, k->mult);
    return vrshlq_n_s32(vaddq_s32(v, vshrq_n_s32(v, 31)), k->nege);
}

/** Output requantization of four sums: SRDHM, sign (e_o >= 1), RDBPOT, zero point, clamp. */
MOTE_S8_INLINE int32x4_t add_mve_out(int32x4_t s, int32_t mo, int32_t nego, int32_t zo,
                                     int32x4_t lo, int32x4_t hi)
{
    int32x4_t v = vqrdmulhq_n_s32(s, mo);
    v = vaddq_n_s32(vrshlq_n_s32(vaddq_s32(v, vshrq_n_s32(v, 31)), nego), zo);
    return vminq_s32(vmaxq_s32(v, lo), hi);
}

/** Every element of x (input A) + y (input B) into o; powa / powb: power inputs. */
MOTE_S8_INLINE void add_mve(const mote_s8_add_params_t *p, const int8_t *x, const int8_t *y,
                            const add_mve_in_t ka, const add_mve_in_t kb, const int powa,
                            const int powb)
{
    const int32x4_t ma = vdupq_n_s32(ka.mul), mb = vdupq_n_s32(kb.mul);
    const int32x4_t lo = vdupq_n_s32(p->act_min), hi = vdupq_n_s32(p->act_max);
    const int32_t mo = p->out_mult, nego = -p->e_o, zo = p->out_zp;
    int8_t *o = p->out;
    uint32_t n = p->numel;
    for (; n >= 4u; n -= 4u, x += 4, y += 4, o += 4) {
        const int32x4_t s = vaddq_s32(add_mve_y(vldrbq_s32(x), ma, &ka, powa),
                                      add_mve_y(vldrbq_s32(y), mb, &kb, powb));
        vstrbq_s32(o, add_mve_out(s, mo, nego, zo, lo, hi));
    }
    if (n > 0u) {
        const mve_pred16_t pr = vctp32q(n);
        const int32x4_t s = vaddq_s32(add_mve_y(vldrbq_z_s32(x, pr), ma, &ka, powa),
                                      add_mve_y(vldrbq_z_s32(y, pr), mb, &kb, powb));
        vstrbq_p_s32(o, add_mve_out(s, mo, nego, zo, lo, hi), pr);
    }
}

MOTE_S8_HOT static void add_fast(const mote_s8_add_params_t *p)
{
    int first, powa, powb;
    uint32_t i;
    if (add_kinds(p, &first, &powa, &powb)) {
        const int8_t *x = first == 0 ? p->a : p->b;
        const int8_t *y = first == 0 ? p->b : p->a;
        const add_mve_in_t ka = add_mve_in(p, first, powa), kb = add_mve_in(p, 1 - first, powb);
        if (powa && powb) {
            add_mve(p, x, y, ka, kb, 1, 1);
        } else if (powa) {
            add_mve(p, x, y, ka, kb, 1, 0);
        } else {
            add_mve(p, x, y, ka, kb, 0, 0);
        }
        return;
    }
    for (i = 0; i < p->numel; i++) {
        p->out[i] = mote_s8_add_fast_c(p, p->a[i], p->b[i]);
    }
}
#else
static void add_fast(const mote_s8_add_params_t *p)
{
    uint32_t i;
    for (i = 0; i < p->numel; i++) {
        p->out[i] = mote_s8_add_fast_c(p, p->a[i], p->b[i]);
    }
}
#endif

mote_err_t mote_kernel_mote_add_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                       uint32_t nargs)
{
    mote_s8_add_params_t p;
    uint32_t i;
    (void)ctx;
    MOTE_TRY(mote_s8_add_parse(args, nargs, &p));
    if (p.fast) {
        add_fast(&p);
    } else {
        for (i = 0; i < p.numel; i++) {
            p.out[i] = mote_s8_add_ref(&p, p.a[i], p.b[i]);
        }
    }
    return MOTE_OK;
}
