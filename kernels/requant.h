/*
 * kernels/requant.h - internal helpers of the int8 (mote::*_s8) kernels.
 *
 * Shared by the plain-C kernels in kernels/op_mote_*.c and the Cortex-M
 * versions in cmsis/, so both parse arguments and requantize identically
 * (docs/int8-ops.md is the contract). The arithmetic is static inline; the
 * argument parsers (kernels/s8_args.c) and the band iterator
 * (kernels/s8_rows.c) are one copy per firmware, not one per kernel:
 *   - fixed-point requantization: mote_srdhm, mote_rdbpot, mote_requantize
 *     (TFLite double rounding, int32 arithmetic only);
 *   - argument access: tensors, ints, int[2] lists, with the kernel error codes,
 *     and the leading arguments of add_s8 / mul_s8 and of the two int8 pools;
 *   - the parameter block of conv2d_s8 / depthwise_conv2d_s8 / linear_s8 and
 *     the geometry parsers it shares with linear_s4 and the int16-activation
 *     (mote::*_s16) kernels, whose 64-bit requantization is here too.
 * Not a public header.
 */
#ifndef MOTE_KERNELS_REQUANT_H
#define MOTE_KERNELS_REQUANT_H

#include "mote/kernel.h"
#include "mote/types.h"

/* ---------------------------------------------------------------- fixed point */

/**
 * Saturating rounding doubling high multiply: the doc's
 * (ab + (ab >= 0 ? 2^30 : 1 - 2^30)) / 2^31 with C (truncating) division equals
 * floor((ab + 2^30) / 2^31) for every int32 product ab (for ab < 0 both are
 * -floor((2^30 - 1 - ab) / 2^31)), i.e. one add and an arithmetic shift: SMULL,
 * ADDS/ADC, two shifts, no 64-bit division call.
 */
static inline int32_t mote_srdhm(int32_t a, int32_t b)
{
    int64_t ab;
    if (a == INT32_MIN && b == INT32_MIN) {
        return INT32_MAX;
    }
    ab = (int64_t)a * (int64_t)b + ((int64_t)1 << 30);
    return (int32_t)(ab >> 31); /* arithmetic shift (GCC, Clang, Arm compilers) */
}

/** Rounding divide by 2^e (0 <= e <= 31), ties away from zero. */
static inline int32_t mote_rdbpot(int32_t x, int32_t e)
{
    const int32_t mask = (int32_t)(((uint32_t)1 << e) - 1u);
    const int32_t rem = x & mask;
    const int32_t thr = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> e) + (rem > thr ? 1 : 0);
}

/** requantize(x, M, s) = RDBPOT(SRDHM(x * 2^max(s,0), M), max(-s,0)); s in [-31, 31]. */
static inline int32_t mote_requantize(int32_t x, int32_t mult, int32_t shift)
{
    const int32_t left = shift > 0 ? shift : 0;
    const int32_t right = shift > 0 ? 0 : -shift;
    const int32_t xl = (int32_t)((uint32_t)x << left); /* int32 wrap, like C int32 math */
    return mote_rdbpot(mote_srdhm(xl, mult), right);
}

/** Clamp to [lo, hi] and narrow to int8 (lo, hi already within int8). */
static inline int8_t mote_clamp_s8(int32_t v, int32_t lo, int32_t hi)
{
    return (int8_t)(v < lo ? lo : (v > hi ? hi : v));
}

/** clamp(q + zp, lo, hi) without int32 overflow (q may be near INT32_MIN/MAX). */
static inline int8_t mote_s8_out(int32_t q, int32_t zp, int32_t lo, int32_t hi)
{
    const int32_t qc = q < -512 ? -512 : (q > 512 ? 512 : q);
    return mote_clamp_s8(qc + zp, lo, hi);
}

/** A shift is valid if it lies in [-31, 31] (what the AOT emits). */
static inline int mote_shift_ok(int32_t s)
{
    return s >= -31 && s <= 31;
}

/* ---------------------------------------------------------------- arguments */

/**
 * Output size of a (dilated) window: 0 if none fits, -1 if the padded input
 * is beyond int32 (no tensor has such a size, so the caller's shape check
 * fails). The sums are 64-bit, the division 32-bit: a Cortex-M has a 32-bit
 * divider and no 64-bit one (no __aeabi_ldivmod linked).
 */
static inline int32_t mote_s8_out_dim(int32_t in, int32_t k, int32_t s, int32_t p, int32_t d)
{
    const int64_t span = (int64_t)d * (k - 1) + 1;
    const int64_t padded = (int64_t)in + 2 * (int64_t)p;
    if (padded < span) {
        return 0;
    }
    if (padded - span > INT32_MAX || s <= 0) {
        return -1;
    }
    return (int32_t)(padded - span) / s + 1;
}

/** Zero point / activation bounds: int8 range (mote_s8_int_arg(v, -128, 127, dst) without
 *  the int64 bounds on the stack: four of these a conv call). */
#define MOTE_S8_ZP_ARG(v, dst) mote_s8_zp_arg((v), (dst))
mote_err_t mote_s8_zp_arg(const mote_value_t *v, int32_t *out);

/* ------------------------------------------------- conv / depthwise / linear */

/** Everything a conv2d_s8 / depthwise_conv2d_s8 / linear_s8 loop needs, checked. */
typedef struct mote_s8_conv_params {
    const int8_t *input;   /* [N, H, W, Cin] (linear: [M, K] as N=M, H=W=1, Cin=K) */
    const int8_t *weight;  /* conv [Cout, KH, KW, Cin]; depthwise [1, KH, KW, Cout] */
    const int16_t *wpanel; /* conv: weights pre-widened for the DSP kernel, or NULL
                              (mote_s8_conv_panel_numel; the 14-argument form);
                              linear_s8: its panel (mote_s8_linear_panel_numel) */
    const int32_t *wtable; /* conv: the DSP kernel's fast requantization table that
                              follows the panel, or NULL (mote_s8_conv_table_numel);
                              linear_s8: the panel's table, or the table alone
                              (mote_s8_linear_table_numel), or NULL */
    const int32_t *bias;   /* [Cout] */
    const int32_t *mult;   /* [Cout] */
    const int32_t *shift;  /* [Cout] */
    int8_t *output;        /* [N, Ho, Wo, Cout] */
    int32_t n, h, w, cin;
    int32_t kh, kw, cout;
    int32_t ho, wo;
    int32_t stride_h, stride_w, pad_h, pad_w, dil_h, dil_w;
    int32_t depth_mult;    /* depthwise only (1 otherwise) */
    int32_t nchw;          /* conv2d_s8_nchw: input [N, Cin, H, W] (1), else 0 */
    int32_t in_zp, out_zp, act_min, act_max;
    /* output rows [oy0, oy1) of each image are computed, row oy0 written at
       output (mote_s8_rows_begin: [0, ho) at the tensor, or a band into a ring) */
    int32_t oy0, oy1;
} mote_s8_conv_params_t;

/**
 * int16 elements of conv2d_s8's pre-widened weights (aot/compiler/dsp_weights.py
 * writes them): weight rows in pairs (an odd last row paired with itself), per
 * pair and group of four taps [a0 a2 a1 a3 b0 b2 b1 b3] (the SXTB16 order the
 * DSP kernel's column uses), K = KH*KW*Cin rounded up to 4 with zeros:
 * round2(Cout) * round4(K). 0 for sizes that do not fit 32 bits.
 */
static inline uint32_t mote_s8_conv_panel_numel(int32_t k, int32_t cout)
{
    const uint64_t n = (((uint64_t)cout + 1u) & ~(uint64_t)1u) * (((uint64_t)k + 3u) & ~(uint64_t)3u);
    return k < 1 || cout < 1 || n > 0x7fffffffu ? 0u : (uint32_t)n;
}

/**
 * int16 elements of the fast requantization table that may follow conv2d_s8's
 * pre-widened weights (aot/compiler/dsp_weights.py, fast_table): per pair of
 * weight rows 10 int32 words, 2bc_a 2bc_a 2bc_b 2bc_b M_a rz_a e_a M_b rz_b e_b
 * (bc: bias - in_zp * sum w; e = -shift in [1, 22]; rz = 2^(e-1) + (out_zp << e)),
 * so 20 * round2(Cout) / 2. 0 for sizes that do not fit 32 bits.
 */
static inline uint32_t mote_s8_conv_table_numel(int32_t cout)
{
    return cout < 1 || cout > 0x3fffffff / 20 ? 0u : 20u * (((uint32_t)cout + 1u) >> 1);
}

/**
 * The E-form of that table (aot/compiler/dsp_weights.py, eform_table): a call (any
 * variant; the STEM3X3C3 one by the DSP kernel's conv_stem3_rows) with K <=
 * MOTE_S8_EFORM_KMAX, an even Cout, out_zp = -128 and
 * the activation range [-128, 127] (a fused ReLU: a negative sum clamps to -128, so no
 * sign correction), whose channels have e = -shift in [E - 7, E - 1]
 * (E = MOTE_S8_EFORM_E) and |bc| + K * 2^14 small enough, requantizes in two
 * instructions: y = SMMLA(t, M, rz) (high word, truncated), out = SSAT(y >> E, 8), with
 * d = E - e in [1, 7], the channel's panel weights scaled by 2^(1 + d) (not 2), so
 * t = 2^(1 + d) * acc, and per pair the same 10 words with 2bc -> 2^(1 + d) * bc,
 * rz -> 2^(E-1) + (out_zp << E) + 2^(d-1), e -> MOTE_S8_EFORM_MARK | d. Exact:
 * floor(t*M / 2^32) + 2^(d-1) lies in [2^d Y, 2^d Y + 2^d) for Y = SRDHM(acc, M)
 * (rounded), so the shift by E = e + d gives the byte of the fast form (cmsis/README.md).
 */
#define MOTE_S8_EFORM_E 12
#define MOTE_S8_EFORM_MARK 0x100
#define MOTE_S8_EFORM_KMAX 256
/* the E-form's stride-1 pointwise calls of K <= this run their own rows (unrolled
   cores, cmsis/op_mote_conv2d_s8.c conv_rows_pwe); K = MOTE_S8_EFORM_K8 its
   channel-stationary core (mote_s8_dsp_pw8e) */
#define MOTE_S8_EFORM_PWMAX 32
#define MOTE_S8_EFORM_K8 8

/** Longest row (K rounded up to 8) of a linear_s8 panel: the DSP kernel widens the
 *  input row onto its stack (2 bytes a tap). */
#define MOTE_S8_LIN_PANEL_KMAX 256

/**
 * int16 elements of linear_s8's panel (argument 9 of the 11-argument form;
 * aot/compiler/dsp_weights.py, linear_panel): weight rows in blocks of four (rows
 * past N zero), per block and group of four taps the four rows' SXTB16 pairs
 * [r(0,2) r(1,3)] in row order, K rounded up to 8 with zeros; then per block 16
 * int32 words: 2bc of the four rows (bc = bias - in_zp * sum w), and M, rz, e of
 * each row (the fast requantization of conv2d_s8's table; rows past N: 0, 2^30 + 1,
 * 1, 1). round4(N) * (round8(K) + 8); 0 when round8(K) > MOTE_S8_LIN_PANEL_KMAX.
 */
static inline uint32_t mote_s8_linear_panel_numel(int32_t k, int32_t n)
{
    const int32_t k8 = (k + 7) & ~7;
    if (k < 1 || n < 1 || k8 > MOTE_S8_LIN_PANEL_KMAX || n > 0x3fffffff / (k8 + 8)) {
        return 0u;
    }
    return (((uint32_t)n + 3u) & ~3u) * (uint32_t)(k8 + 8);
}

/**
 * int32 words of linear_s8's requantization table (argument 9 of the 11-argument
 * form as an int32 tensor; aot/compiler/dsp_weights.py, linear_table): the DSP
 * kernel reads the int8 weights in place, four rows at a time, and this table
 * instead of bias, multiplier and shift. Per block of four rows 16 words, the
 * panel table's layout (2bc of the four rows, then M, rz, e of each); the blocks
 * start at rows 0, 4, 8, ... and the last one at row N - 4 (it overlaps the one
 * before when N % 4 != 0): 16 * ceil(N / 4). 0 when N < 4 or K < 4 (no table form).
 */
static inline uint32_t mote_s8_linear_table_numel(int32_t k, int32_t n)
{
    if (k < 4 || n < 4 || n > 0x3fffffff / 4) {
        return 0u;
    }
    return 16u * (((uint32_t)n + 3u) >> 2);
}

/**
 * Kernel variants of the optimized conv2d_s8 (cmsis/op_mote_conv2d_s8.c), chosen by
 * shape; kernels/int8_scratch.c exports this rule (mote_variant_mote_conv2d_s8) so the
 * compiler names the variant each call runs in ops.json, `aot inspect` and `aot profile`:
 *   MOTE_S8_CONV_POINTWISE  1x1, unpadded, Cin a multiple of 4: the column is the
 *                           input pixel itself (stride 1: two pixels widened in one pass)
 *   MOTE_S8_CONV_STEM       Cin not a multiple of 4 (first layers: 1 or 3 channels): the
 *                           int8 window gathered (interior pixels by words), then widened
 *   MOTE_S8_CONV_WINDOW     any other window: widened tap by tap from the input
 *   MOTE_S8_CONV_STEM3X3C3  the stem of a 3x3 undilated window over 3 channels (RGB
 *                           first layers): an interior pixel's 27 taps are built
 *                           into 7 words at constant offsets, widened unrolled
 */
#define MOTE_S8_CONV_POINTWISE 1
#define MOTE_S8_CONV_STEM 2
#define MOTE_S8_CONV_WINDOW 3
#define MOTE_S8_CONV_STEM3X3C3 4

/** The conv2d_s8 variant of a window kh x kw over Cin channels with padding (ph, pw)
 *  and dilation (dh, dw). */
static inline int32_t mote_s8_conv_variant(int32_t cin, int32_t kh, int32_t kw, int32_t ph,
                                           int32_t pw, int32_t dh, int32_t dw)
{
    if ((cin & 3) != 0) {
        return cin == 3 && kh == 3 && kw == 3 && dh == 1 && dw == 1 ? MOTE_S8_CONV_STEM3X3C3
                                                                    : MOTE_S8_CONV_STEM;
    }
    return kh == 1 && kw == 1 && ph == 0 && pw == 0 ? MOTE_S8_CONV_POINTWISE : MOTE_S8_CONV_WINDOW;
}

/** Whether the DSP conv2d_s8 runs an E-form call of kp taps (K rounded up to 4) by its
 *  core of 16-group passes (mote_s8_dsp_conv3_e64): a multiple of 64, 128 or more (its
 *  2 KiB pay off there; DS-CNN's K = 64 keeps the looping core). */
static inline int mote_s8_eform_k64(int32_t kp)
{
    return kp >= 128 && (kp & 63) == 0;
}

/** Whether an E-form call p runs conv_rows_pwe (MOTE_S8_EFORM_PWMAX). */
static inline int mote_s8_eform_pw(const mote_s8_conv_params_t *p)
{
    return mote_s8_conv_variant(p->cin, p->kh, p->kw, p->pad_h, p->pad_w, p->dil_h, p->dil_w) ==
               MOTE_S8_CONV_POINTWISE &&
           p->stride_h == 1 && p->stride_w == 1 && p->cin <= MOTE_S8_EFORM_PWMAX;
}

/* ---------------------------------------------------------------- arguments
 * kernels/s8_args.c: one copy of each parser for every int8 kernel. */

/** Tensor argument with a given dtype and rank, contiguous; else an error code. */
mote_err_t mote_s8_tensor_arg(mote_value_t *v, uint8_t dtype, uint8_t dim, mote_tensor_t **out);

/** Int argument within [lo, hi]. */
mote_err_t mote_s8_int_arg(const mote_value_t *v, int64_t lo, int64_t hi, int32_t *out);

/** int[n] argument, each item within [lo, hi]. */
mote_err_t mote_s8_ints_arg(const mote_value_t *v, uint32_t n, int64_t lo,
                            int64_t hi, int32_t *out);

/** int[2] argument (an int[1] is broadcast to both), items within [lo, hi]. */
mote_err_t mote_s8_pair_arg(const mote_value_t *v, int64_t lo, int64_t hi, int32_t out[2]);

/** Same dtype int8 and same sizes (any rank). */
int mote_s8_same_shape(const mote_tensor_t *a, const mote_tensor_t *b);

/** Tensor of any rank up to MOTE_MAX_DIM with a given dtype, contiguous. */
mote_err_t mote_s8_any_tensor_arg(mote_value_t *v, uint8_t dtype, mote_tensor_t **out);

/** Checks act_min <= act_max, both int8. */
mote_err_t mote_s8_act_args(const mote_value_t *vmin, const mote_value_t *vmax,
                            int32_t *amin, int32_t *amax);

/* ------------------------------------------------------ add / mul, pooling */

/**
 * The tensors of add_s8 / mul_s8 (`nargs_expected` args): a = args[0],
 * b = args[1], out = the last one, all int8 of one shape (any rank).
 */
mote_err_t mote_s8_binary_args(mote_value_t *const *args, uint32_t nargs,
                               uint32_t nargs_expected, mote_tensor_t **ta,
                               mote_tensor_t **tb, mote_tensor_t **to);

/**
 * add_s8's arguments, parsed and checked (15 args: a, b, a_zp, a_M, a_shift, b_zp,
 * b_M, b_shift, left_shift, out_zp, out_M, out_shift, act_min, act_max, out), and
 * its folded form when the arguments admit it (fast != 0). The folded form gives
 * the bytes of the reference for every input (docs/int8-ops.md, add_s8): per input
 * i (0: a, 1: b), with L = left_shift + max(shift_i, 0) <= 21, e = max(-shift_i, 0):
 *   x = q * pmul[i] + padd[i]            = 2 (q - zp_i) << L, |x| < 2^30
 *   t = SMMLAR(x, M_i, r[i])             = SRDHM((q - zp_i) << L, M_i) + r[i]
 *   y_i = (t + (e > 0 ? x >> 31 : 0)) >> e   r[i] = e > 0 ? 2^(e-1) : 0
 * (= requantize((q - zp_i) << left_shift, M_i, shift_i): RDBPOT's sign term is the
 * sign of x, as SRDHM(x, M) < 0 only if x < 0 and is 0 when they differ), then with
 * e_o = -out_shift in [1, 22]:
 *   x = 2 (y_0 + y_1) (|y_i| < 2^29), t = SMMLAR(x, out_M, r_o) + (x >> 31),
 *   out = clamp(t >> e_o, act_min, act_max), r_o = 2^(e_o-1) + out_zp * 2^e_o.
 * SMMLAR(x, M, r) = (r * 2^32 + x * M + 2^31) >> 32 (one Cortex-M DSP instruction).
 */
typedef struct mote_s8_add_params {
    const int8_t *a, *b;
    int8_t *out;
    uint32_t numel;
    int32_t zp[2], mult[2], shift[2], left_shift; /* the reference's arguments */
    int32_t out_zp, out_mult, out_shift, act_min, act_max;
    int32_t fast;                                 /* the folded form applies */
    int32_t pmul[2], padd[2], r[2], e[2];         /* folded, per input */
    int32_t r_o, e_o;                             /* folded, output */
} mote_s8_add_params_t;

/**
 * add_s8's variants (the optimized kernels' dispatch; kernels/int8_scratch.c exports
 * the rule as mote_variant_mote_add_s8 so the compiler names what runs):
 *   MOTE_S8_ADD_REFERENCE  arguments outside the folded form: the reference's arithmetic
 *   MOTE_S8_ADD_FOLDED     the folded form in C (an input with shift 0 and a multiplier
 *                          other than 2^30)
 *   MOTE_S8_ADD_POW_GEN    one "power" input (multiplier 2^30, e < L: exactly
 *                          (q - zp) * 2^(L-1-e), one multiply-add) and one general input
 *   MOTE_S8_ADD_GEN_GEN    two general inputs (shift < 0)
 *   MOTE_S8_ADD_POW_POW    two power inputs (equal input scales)
 * The compiler's arguments (int8ref.add_params) give power+general, or power+power
 * for equal input scales.
 */
#define MOTE_S8_ADD_REFERENCE 0
#define MOTE_S8_ADD_FOLDED 1
#define MOTE_S8_ADD_POW_GEN 2
#define MOTE_S8_ADD_GEN_GEN 3
#define MOTE_S8_ADD_POW_POW 4

/** The folded form applies: L = left_shift + max(shift, 0) <= 21 for both inputs,
 *  output shift in [-22, -1]. */
static inline int mote_s8_add_fast_ok(int32_t left_shift, int32_t a_shift, int32_t b_shift,
                                      int32_t out_shift)
{
    return out_shift <= -1 && out_shift >= -22 && left_shift + (a_shift > 0 ? a_shift : 0) <= 21 &&
           left_shift + (b_shift > 0 ? b_shift : 0) <= 21;
}

/** An input is a power input: multiplier 2^30, shift <= 0 and e + 1 <= left_shift. */
static inline int mote_s8_add_is_pow(int32_t mult, int32_t shift, int32_t left_shift)
{
    return mult == (1 << 30) && shift <= 0 && 1 - shift <= left_shift;
}

/** The variant for add_s8's arguments (MOTE_S8_ADD_*). */
static inline int32_t mote_s8_add_variant(int32_t a_mult, int32_t a_shift, int32_t b_mult,
                                          int32_t b_shift, int32_t left_shift, int32_t out_shift)
{
    const int pa = mote_s8_add_is_pow(a_mult, a_shift, left_shift);
    const int pb = mote_s8_add_is_pow(b_mult, b_shift, left_shift);
    if (!mote_s8_add_fast_ok(left_shift, a_shift, b_shift, out_shift)) {
        return MOTE_S8_ADD_REFERENCE;
    }
    if ((!pa && a_shift >= 0) || (!pb && b_shift >= 0)) {
        return MOTE_S8_ADD_FOLDED;
    }
    return pa && pb ? MOTE_S8_ADD_POW_POW : (pa || pb ? MOTE_S8_ADD_POW_GEN : MOTE_S8_ADD_GEN_GEN);
}

/** Parse add_s8's 15 arguments (kernels/s8_args.c); fills the folded form too. */
mote_err_t mote_s8_add_parse(mote_value_t *const *args, uint32_t nargs, mote_s8_add_params_t *p);

/** SMMLAR in C: (r * 2^32 + x * m + 2^31) >> 32 (|result| < 2^31 where it is used). */
static inline int32_t mote_s8_smmlar_c(int32_t x, int32_t m, int32_t r)
{
    return (int32_t)(((int64_t)x * m + 2147483648LL) >> 32) + r; /* r adds to the high word */
}

/**
 * requantize + zero point in the folded form (mul_s8): for |acc| <= acc_max,
 * x = acc * 2^(left+1), t = SMMLAR(x, M, r) (+ (x >> 31) if e > 0), t >> e equals
 * requantize(acc, M, shift) + zp (left = max(shift, 0), e = max(-shift, 0),
 * r = (e > 0 ? 2^(e-1) : 0) + zp * 2^e). Valid (ok) when |acc| * 2^(left+1) < 2^31
 * and e <= 22; then every intermediate fits int32.
 */
typedef struct mote_s8_fastrq {
    int32_t ok, mul, mult, r, e;
} mote_s8_fastrq_t;

static inline mote_s8_fastrq_t mote_s8_fastrq_init(int32_t mult, int32_t shift, int32_t zp,
                                                  int64_t acc_max)
{
    mote_s8_fastrq_t q;
    const int32_t left = shift > 0 ? shift : 0;
    q.e = shift < 0 ? -shift : 0;
    q.ok = q.e <= 22 && left <= 29 && (acc_max << (left + 1)) < ((int64_t)1 << 31);
    q.mul = q.ok ? (int32_t)1 << (left + 1) : 0;
    q.mult = mult;
    q.r = q.ok ? (q.e > 0 ? (int32_t)1 << (q.e - 1) : 0) + zp * ((int32_t)1 << q.e) : 0;
    return q;
}

/** requantize(acc, M, shift) + zp for a valid mote_s8_fastrq_t (plain C). */
static inline int32_t mote_s8_fastrq_c(const mote_s8_fastrq_t *q, int32_t acc)
{
    const int32_t x = acc * q->mul;
    int32_t t = mote_s8_smmlar_c(x, q->mult, q->r);
    if (q->e > 0) {
        t += x >> 31;
    }
    return t >> q->e;
}

/** One element of add_s8, the reference's arithmetic (any arguments). */
static inline int8_t mote_s8_add_ref(const mote_s8_add_params_t *p, int32_t qa, int32_t qb)
{
    const int32_t xa = (int32_t)((uint32_t)(qa - p->zp[0]) << p->left_shift);
    const int32_t xb = (int32_t)((uint32_t)(qb - p->zp[1]) << p->left_shift);
    const int32_t ra = mote_requantize(xa, p->mult[0], p->shift[0]);
    const int32_t rb = mote_requantize(xb, p->mult[1], p->shift[1]);
    const int32_t sum = (int32_t)((uint32_t)ra + (uint32_t)rb);
    return mote_s8_out(mote_requantize(sum, p->out_mult, p->out_shift), p->out_zp, p->act_min,
                       p->act_max);
}

/** Input i of one element in the folded form (p->fast), plain C. */
static inline int32_t mote_s8_add_in_c(const mote_s8_add_params_t *p, int i, int32_t q)
{
    const int32_t x = q * p->pmul[i] + p->padd[i];
    int32_t t = mote_s8_smmlar_c(x, p->mult[i], p->r[i]);
    if (p->e[i] > 0) {
        t += x >> 31;
    }
    return t >> p->e[i];
}

/** One element of add_s8 in the folded form (p->fast), plain C. */
static inline int8_t mote_s8_add_fast_c(const mote_s8_add_params_t *p, int32_t qa, int32_t qb)
{
    const int32_t x = 2 * (mote_s8_add_in_c(p, 0, qa) + mote_s8_add_in_c(p, 1, qb));
    const int32_t v = (mote_s8_smmlar_c(x, p->out_mult, p->r_o) + (x >> 31)) >> p->e_o;
    return mote_clamp_s8(v, p->act_min, p->act_max);
}

/**
 * The leading arguments of avg_pool2d_s8 / max_pool2d_s8 (`nargs_expected`
 * args): input args[0] and out (the last) int8 NHWC, kernel_size args[1],
 * stride args[2] (an empty list means stride = kernel_size, PyTorch's
 * default), padding args[3]. The op-specific arguments follow args[3].
 */
mote_err_t mote_s8_pool_args(mote_value_t *const *args, uint32_t nargs,
                             uint32_t nargs_expected, mote_tensor_t **ti,
                             mote_tensor_t **to, int32_t k[2], int32_t s[2],
                             int32_t pd[2]);

/**
 * Output height and width of a pooling window (dilation d) over ti; checks
 * that to is [N, Ho, Wo, C] with Ho, Wo >= 1.
 */
mote_err_t mote_s8_pool_out_shape(const mote_tensor_t *ti, const mote_tensor_t *to,
                                  const int32_t k[2], const int32_t s[2],
                                  const int32_t pd[2], const int32_t d[2],
                                  int32_t *ho, int32_t *wo);

/** mean_s8's arguments, checked (kernels/op_mote_mean_s8.c and its cmsis/ version). */
typedef struct mote_s8_mean_params {
    const int8_t *input; /* [N, H, W, C] */
    int8_t *output;      /* [N, 1, 1, C] */
    int32_t n, hw, c;    /* hw = H * W */
    int32_t in_zp, out_zp, mult, shift;
} mote_s8_mean_params_t;

/** Parse mean_s8 (6 args: input, input_zero_point, output_zero_point, multiplier, shift, out). */
mote_err_t mote_s8_mean_parse(mote_value_t *const *args, uint32_t nargs, mote_s8_mean_params_t *p);

/** Shared tail: bias, multiplier, shift [Cout] int32 and their value checks. */
mote_err_t mote_s8_chan_args(mote_value_t *const *args, int32_t cout, mote_s8_conv_params_t *p);

/** The value checks of mote_s8_chan_args: every p->mult[c] >= 0 and p->shift[c] in
 *  [-31, 31] for c < p->cout (MOTE_ERR_KERNEL_ARGS otherwise). */
mote_err_t mote_s8_chan_values(const mote_s8_conv_params_t *p);

/** The `depthwise` argument of mote_s8_conv_parse / mote_conv_geometry for
 *  conv2d_s8_nchw: conv2d_s8's arguments with the input int8 [N, Cin, H, W]. */
#define MOTE_S8_CONV_NCHW 2

/** Or-ed into mote_s8_conv_parse's `depthwise`: the multipliers' and shifts' values are
 *  left unchecked (their tensors' dtype and shape are checked); the caller runs
 *  mote_s8_chan_values before any path that reads p->mult or p->shift. For a kernel
 *  whose path may read only the program's own table instead (the DSP conv2d_s8's
 *  E-form: 64 channels' check, ~550 instructions, a fixed cost of a one-pixel call). */
#define MOTE_S8_CONV_QLATER 4

/**
 * Parse conv2d_s8 (depthwise = 0, 13 args, or 14 with the pre-widened weights
 * as argument 12), conv2d_s8_nchw (depthwise = MOTE_S8_CONV_NCHW, the same
 * arguments; p->nchw = 1) or depthwise_conv2d_s8 (depthwise = 1, 14 args) into *p,
 * checking tags, dtypes, shapes and ranges.
 */
mote_err_t mote_s8_conv_parse(mote_value_t *const *args, uint32_t nargs,
                              int depthwise, mote_s8_conv_params_t *p);

/**
 * Geometry of a convolution whose activations are `dtype` (int8 or int16):
 * input args[0] ([N, H, W, Cin]; [N, Cin, H, W] when depthwise is MOTE_S8_CONV_NCHW),
 * int8 weight args[1], stride / padding / dilation args[5..7],
 * depth multiplier args[8] if depthwise (1), output the last argument; *next is the
 * first argument after them. Sets every shape field, weight, oy0/oy1; wpanel NULL.
 */
mote_err_t mote_conv_geometry(mote_value_t *const *args, uint32_t nargs, int depthwise, uint8_t dtype,
                              mote_s8_conv_params_t *p, mote_tensor_t **in, mote_tensor_t **out,
                              uint32_t *next);

/**
 * Geometry of a linear whose activations are `dtype`: input [M, K] args[0],
 * weight args[1] (int8 [N, K]; per_byte = 2: uint8 [N, K/2], two int4 per byte),
 * output [M, N] the last argument. Sets the shape fields and weight.
 */
mote_err_t mote_linear_geometry(mote_value_t *const *args, uint32_t nargs, uint8_t dtype, int32_t per_byte,
                                mote_s8_conv_params_t *p, mote_tensor_t **in, mote_tensor_t **out);

/**
 * Parse linear_s8 (per_byte = 1; 10 args, or 11 with the DSP panel as an int16
 * argument 9, p->wpanel, or the table alone as an int32 one, p->wtable) or linear_s4 (per_byte = 2, p->weight then holds packed int4 bytes;
 * 10 args) into *p: N = M rows, H = W = KH = KW = 1, Cin = K.
 */
mote_err_t mote_s8_linear_parse(mote_value_t *const *args, uint32_t nargs, int32_t per_byte,
                                mote_s8_conv_params_t *p);

/** Requantize an accumulator of channel c and produce the output byte. */
static inline int8_t mote_s8_finish(const mote_s8_conv_params_t *p, int32_t acc, int32_t c)
{
    return mote_s8_out(mote_requantize(acc, p->mult[c], p->shift[c]), p->out_zp,
                       p->act_min, p->act_max);
}

/**
 * Weight rows the DSP conv2d_s8 widens to int16 per block: as many as fit in
 * 16 KiB (2 * Kpad bytes each), at least 16, at most Cout rounded up to even.
 */
static inline int32_t mote_s8_conv_dsp_rows(int32_t kpad, int32_t cout)
{
    /* floor(16384 / (2 kpad)) as two 32-bit divisions; kpad is a positive multiple of 16 */
    int32_t rows = kpad > 0 ? (16384 / kpad / 2) & ~1 : 16;
    const int32_t all = (cout + 1) & ~1;
    rows = rows < 16 ? 16 : rows;
    return rows < all ? rows : all;
}

/**
 * Whether the DSP conv2d_s8 runs a call planned in place (output at the input's
 * first byte) without the row ring: a 1x1, stride-1, unpadded conv with Cout <= Cin
 * and every weight row in one widened block (round2(Cout) rows when the program
 * carries them pre-widened, else mote_s8_conv_dsp_rows) reads each pixel pair
 * into the column before writing its outputs, which cover only input pixels
 * already read. kernels/int8_scratch.c exports it (the compiler's rule for the ring).
 */
static inline int mote_s8_conv_direct_in_place(int32_t cin, int32_t kh, int32_t kw, int32_t stride_h,
                                               int32_t stride_w, int32_t pad_h, int32_t pad_w,
                                               int32_t cout, int prewidened)
{
    const int32_t nrows = prewidened ? (cout + 1) & ~1 : mote_s8_conv_dsp_rows((kh * kw * cin + 15) & ~15, cout);
    return kh == 1 && kw == 1 && stride_h == 1 && stride_w == 1 && pad_h == 0 && pad_w == 0 &&
           cout <= cin && nrows >= cout;
}

/**
 * Scratch bytes of conv2d_s8 for every implementation (kernels/int8_scratch.c
 * exports it): 16 (alignment) + 6*Kpad (three int16 im2col columns, DSP; plain
 * uses two, MVE two int8 ones) + Kpad (DSP: the int8 im2col column of one pixel when
 * Cin is not a multiple of 4) + 2*Kpad*rows (DSP: weight rows widened to int16,
 * mote_s8_conv_dsp_rows; none when the program carries them pre-widened,
 * `prewidened` != 0) + 32*round4(Cout) (per-channel requantization table with the
 * zero-point-corrected bias; MVE uses 4*Cout of it),
 * K = KH*KW*Cin rounded up to Kpad, a multiple of 16. 0 if the size does not fit.
 */
static inline size_t mote_s8_conv_scratch_bytes(int32_t cin, int32_t kh, int32_t kw,
                                                int32_t cout, int prewidened)
{
    uint64_t k;
    uint64_t total;
    if (cin < 1 || kh < 1 || kw < 1 || cout < 1) {
        return 0;
    }
    k = (uint64_t)kh * (uint64_t)kw * (uint64_t)cin;
    k = (k + 15u) & ~(uint64_t)15u;
    if (k > 0x10000000u) {
        return 0;
    }
    total = 16u + 7u * k + 32u * (((uint64_t)cout + 3u) & ~(uint64_t)3u);
    if (!prewidened) {
        total += 2u * k * (uint64_t)mote_s8_conv_dsp_rows((int32_t)k, cout);
    }
    return total > (uint64_t)(size_t)-1 ? 0 : (size_t)total;
}

/** mote_s8_conv_scratch_bytes of a parsed conv2d_s8 call. */
static inline size_t mote_s8_conv_own_bytes(const mote_s8_conv_params_t *p)
{
    return mote_s8_conv_scratch_bytes(p->cin, p->kh, p->kw, p->cout, p->wpanel != NULL);
}

/* ------------------------------------------------------------ depthwise variants
 * depthwise_conv2d_s8's per-channel plane paths, by shape (mote_s8_dw_variant; the
 * kernels' own dispatch, and the label ops.json, `aot inspect` and `aot profile` show):
 *   MOTE_S8_DW_MVE_PLANES  MVE: channel by channel over an int8 plane with the input
 *                          zero point as padding, four output pixels per vector, lines
 *                          of MOTE_S8_DW_LINE bytes (MOTE_S8_DW_LINE2 for stride 2 along
 *                          the line): 3x3, dilation 1, stride 1 or 2, at least 100
 *                          outputs per channel (400 for stride 2; smaller maps run
 *                          faster with the channels in the lanes, NHWC)
 *   MOTE_S8_DW_DSP_PLANES  DSP: channel by channel over an int16 plane (x - zp, zero
 *                          border), the rows of 1x4 blocks in assembly
 *                          (cmsis/mote_s8_planar.h): 3x3, dilation 1, stride 1 with 3+
 *                          outputs along the blocks (MobileNet's 6x6 maps: 133 K
 *                          instructions against 197 K channels-last; rows of three,
 *                          its 3x3 maps, a 1x3 block) or 2 with 8+, 6 or 3 (1x6, 1x3)
 *                          (its 12 -> 6 map: 121 K against 113 K), full int8 range
 * Either path also falls back (to NHWC) when a channel's requantization does not admit
 * it (DSP) or the output overlaps the input other than in place.
 */
#define MOTE_S8_DW_MVE_PLANES 1
#define MOTE_S8_DW_DSP_PLANES 2
#define MOTE_S8_DW_LINE 60
#define MOTE_S8_DW_LINE2 50

/** MVE planes: lanes along H (lines are input columns) when that needs fewer vectors. */
static inline int mote_s8_dw_along_h(int32_t ho, int32_t wo)
{
    return (int64_t)((ho + 3) >> 2) * wo < (int64_t)ho * ((wo + 3) >> 2);
}

/** The MOTE_S8_DW_* paths a depthwise call of this shape takes (0: NHWC only). */
static inline int32_t mote_s8_dw_variant(int32_t kh, int32_t kw, int32_t sh, int32_t sw, int32_t dh,
                                         int32_t dw, int32_t h, int32_t w, int32_t ph, int32_t pw,
                                         int32_t amin, int32_t amax)
{
    int32_t ho, wo, n, v = 0;
    int along, tr;
    if (kh != 3 || kw != 3 || dh != 1 || dw != 1 || sh < 1 || sw < 1 || h < 1 || w < 1 || ph < 0 ||
        pw < 0 || h + 2 * ph < 3 || w + 2 * pw < 3) {
        return 0;
    }
    ho = (h + 2 * ph - 3) / sh + 1;
    wo = (w + 2 * pw - 3) / sw + 1;
    along = mote_s8_dw_along_h(ho, wo);
    if (sh <= 2 && sw <= 2 &&
        (along ? h + 2 * ph : w + 2 * pw) <= ((along ? sh : sw) == 1 ? MOTE_S8_DW_LINE : MOTE_S8_DW_LINE2) &&
        (int64_t)ho * wo >= (sh == 1 && sw == 1 ? 100 : 400)) {
        v |= MOTE_S8_DW_MVE_PLANES;
    }
    tr = wo < 8 && ho > wo; /* the int16 plane transposed: blocks along H */
    n = tr ? ho : wo;         /* outputs along the blocks */
    if (sh == sw && (sh == 1 || (sh == 2 && (n >= 8 || n == 6 || n == 3))) && amin == -128 && amax == 127 &&
        n >= 3) {
        v |= MOTE_S8_DW_DSP_PLANES;
    }
    return v;
}

/**
 * Scratch bytes of depthwise_conv2d_s8 (any implementation; the maximum over the
 * paths, after 16 bytes of alignment): MVE: 4 * round4(Cout) (zero-point-corrected
 * bias) + for a 3x3 window 184 bytes per full group of eight channels (the group's
 * weights and de-interleaved bias / multiplier / shift, 176, and its 8 bytes of the
 * input zero point that border taps outside the input read), or for the planes
 * (3x3, (H + 2 pad_h - 2) * (W + 2 pad_w - 2) >= 100: mote_s8_dw_variant's least
 * outputs) MOTE_S8_DW_LINE * max(H + 2 pad_h, W + 2 pad_w) + 16 (lines of the int8
 * plane, 16 bytes the last vector may read); DSP, 3x3 window: one channel's input plane
 * widened to int16 with a zero border of the padding, 2 * (H + 2 pad_h) * (W + 2 pad_w)
 * (cmsis/mote_s8_planar.h). 0 for invalid sizes. kernels/int8_scratch.c exports it.
 */
static inline size_t mote_s8_dw_scratch_bytes(int32_t cout, int32_t kh, int32_t kw, int32_t h, int32_t w,
                                              int32_t pad_h, int32_t pad_w)
{
    uint64_t mve, plane = 0u;
    if (cout < 1 || kh < 1 || kw < 1 || h < 1 || w < 1 || pad_h < 0 || pad_w < 0) {
        return 0;
    }
    mve = 4u * (((uint64_t)cout + 3u) & ~(uint64_t)3u) + (kh == 3 && kw == 3 ? 184u * ((uint64_t)cout >> 3) : 0u);
    if (kh == 3 && kw == 3) {
        const uint64_t hp = (uint64_t)h + 2u * (uint64_t)pad_h, wp = (uint64_t)w + 2u * (uint64_t)pad_w;
        const uint64_t lines = MOTE_S8_DW_LINE * (hp > wp ? hp : wp) + 16u;
        plane = 2u * hp * wp;
        if ((hp - 2u) * (wp - 2u) >= 100u) { /* the planes' outputs per channel, stride 1 */
            mve = lines > mve ? lines : mve;
        }
    }
    mve = 16u + (plane > mve ? plane : mve);
    return mve > 0x7fffffffu ? 0u : (size_t)mve;
}

/**
 * The DSP depthwise_conv2d_s8's int16 plane (cmsis/op_mote_depthwise_conv2d_s8.c
 * dw_planar) takes a call of MOTE_S8_DW_DSP_PLANES shape (mote_s8_dw_variant) when
 * its output lies over the input's first byte (`same_start`) with one image, or
 * does not overlap it at all, and every channel passes mote_s8_dw_planar_channel.
 * kernels/int8_scratch.c exports both rules (the compiler's, aot/deploy/generate.py).
 */
static inline int mote_s8_dw_planar_alias(int same_start, int overlap, int32_t n)
{
    return same_start ? n == 1 : !overlap;
}

/** The DSP plane is transposed (its rows are input columns, the 1x4 blocks run along
 *  H) when the output rows are narrower than 8 and the columns longer. */
static inline int mote_s8_dw_planar_transposed(int32_t ho, int32_t wo)
{
    return wo < 8 && ho > wo;
}

/** The DSP planes' 1x6 block takes a row of `run` outputs (along the blocks) at
 *  stride `stride`: stride 1, 2 mod 4 outputs, at least 6. */
static inline int mote_s8_dw_planar_x6(int32_t stride, int32_t run)
{
    return stride == 1 && (run & 3) == 2 && run >= 6;
}

/** Scratch bytes with which the DSP plane path widens four channels at once (Cout a
 *  multiple of 4): four int16 planes of (H + 2 pad_h) x (W + 2 pad_w) after 16 bytes
 *  of alignment; with less, one plane (mote_s8_dw_own_bytes). */
static inline size_t mote_s8_dw_planes4_bytes(int32_t h, int32_t w, int32_t pad_h, int32_t pad_w)
{
    return 16u + 8u * (size_t)(h + 2 * pad_h) * (size_t)(w + 2 * pad_w);
}

/** Scratch bytes with which the DSP plane path widens two channels at once (Cout even,
 *  less than mote_s8_dw_planes4_bytes): two int16 planes after 16 bytes of alignment. */
static inline size_t mote_s8_dw_planes2_bytes(int32_t h, int32_t w, int32_t pad_h, int32_t pad_w)
{
    return 16u + 4u * (size_t)(h + 2 * pad_h) * (size_t)(w + 2 * pad_w);
}

/** mote_s8_dw_planar_alias of parsed call p. */
static inline int mote_s8_dw_planar_placed(const mote_s8_conv_params_t *p)
{
    const uint8_t *ib = (const uint8_t *)p->input, *ob = (const uint8_t *)p->output;
    const size_t in_bytes = (size_t)p->n * p->h * p->w * p->cin;
    const size_t out_bytes = (size_t)p->n * p->ho * p->wo * p->cout;
    return mote_s8_dw_planar_alias(ib == ob, ob < ib + in_bytes && ib < ob + out_bytes, p->n);
}

/** Whether a channel with requantization shift `shift` and bias `bias` takes the
 *  plane's fast requantization (3x3 taps: |bias| + 9 * 2^22 < 2^30, shift in [-22, -1]). */
static inline int mote_s8_dw_planar_channel(int32_t shift, int32_t bias)
{
    /* 32-bit (once per channel per call): |bias| < 2^30 - 9 * 2^22 */
    const uint32_t b = bias < 0 ? 0u - (uint32_t)bias : (uint32_t)bias;
    return shift < 0 && shift >= -22 && b < (1u << 30) - 9u * (1u << 22);
}

/** Whether a channel (output zero point, shift, bias) of a DSP plane call takes the
 *  E-form of the requantization (MOTE_S8_EFORM_E; cmsis/mote_s8_planar.h): out_zp
 *  -128 (with the full range the plane requires: a fused ReLU, negative sums clamp to
 *  -128, no sign correction), e = -shift in [E - 7, E - 1], and the accumulator scaled
 *  by 2^(E + 1 - e) within int32: (|bias| + 9 * 2^15) * 2^(E + 1 - e) < 2^31 (nine taps
 *  of |x - zp| <= 255 times |w| <= 128). The kernel then holds each channel's weights
 *  and bias times 2^(E + 1 - e) (int16: |w| * 2^8 <= 2^15) and requantizes by SMMLA
 *  (rz = 2^(E-1) + (out_zp << E) + 2^(d-1), d = E - e) and SSAT ASR #E. */
/** int32 words per channel of depthwise_conv2d_s8's optional argument 13, the DSP planes'
 *  E-form record (aot/compiler/dsp_weights.py dw_record: cmsis/mote_s8_planar.h's job
 *  words bias2, w0a, w0b, w1a, w1b, w2a, w2b, M, rz, e). */
#define MOTE_S8_DW_RECORD_WORDS 10
static inline int mote_s8_dw_planar_eform(int32_t out_zp, int32_t shift, int32_t bias)
{
    /* 32-bit: (|bias| + 9 * 2^15) * 2^(E + 1 - e) < 2^31 <=> |bias| + 9 * 2^15 < 2^(30 - E + e) */
    const uint32_t b = bias < 0 ? 0u - (uint32_t)bias : (uint32_t)bias;
    return out_zp == -128 && shift <= 1 - MOTE_S8_EFORM_E + 6 && shift >= 1 - MOTE_S8_EFORM_E &&
           b + 9u * (1u << 15) < (1u << (30 - MOTE_S8_EFORM_E - shift));
}

/** mote_s8_dw_scratch_bytes of a parsed depthwise_conv2d_s8 call. */
static inline size_t mote_s8_dw_own_bytes(const mote_s8_conv_params_t *p)
{
    return mote_s8_dw_scratch_bytes(p->cout, p->kh, p->kw, p->h, p->w, p->pad_h, p->pad_w);
}

/* ------------------------------------------------------------ in place, by rows */

/**
 * conv2d_s8 and depthwise_conv2d_s8 may run with the output over the input
 * (MOTE_KERNEL_IN_PLACE_ROWS, the same first byte, one image): output rows are
 * computed in order, in bands, into a ring of rows in the scratch after the
 * kernel's own part, and a row is copied to the tensor once no later output
 * row reads the input bytes it covers. Rows are Wo*Cout output bytes and
 * W*Cin input bytes; output row q covers input rows up to
 * ((q + 1) * Wo*Cout - 1) / (W*Cin), and input row i is last read by output
 * row (i + pad_h) / stride_h. lag = max over q of (last reader - q) rows stay
 * pending; a ring of lag + band rows holds them and the band being computed.
 */

/** Last output row of p (one image) that reads an input row output row q covers. */
static inline int32_t mote_s8_rows_last_reader(const mote_s8_conv_params_t *p, int32_t q)
{
    /* 32-bit: mote_s8_rows_lag checked that Ho * Wo * Cout < 2^31 */
    const uint32_t orow = (uint32_t)p->wo * (uint32_t)p->cout;
    const uint32_t irow = (uint32_t)p->w * (uint32_t)p->cin;
    uint32_t i = ((uint32_t)(q + 1) * orow - 1u) / irow;
    uint32_t r;
    i = i < (uint32_t)p->h - 1u ? i : (uint32_t)p->h - 1u;
    r = (i + (uint32_t)p->pad_h) / (uint32_t)p->stride_h;
    return r < (uint32_t)p->ho - 1u ? (int32_t)r : p->ho - 1;
}

/**
 * Rows an in-place run of p keeps pending (>= 0), or -1 if p cannot run in
 * place (more than one image, or an output of 2^31 bytes or more).
 */
static inline int32_t mote_s8_rows_lag(const mote_s8_conv_params_t *p)
{
    int32_t q, lag = 0;
    if (p->n != 1 || p->ho < 1 || p->h < 1 || p->stride_h < 1 ||
        (int64_t)p->ho * p->wo * p->cout > INT32_MAX || (int64_t)p->h * p->w * p->cin > INT32_MAX) {
        return -1;
    }
    for (q = 0; q < p->ho; q++) {
        const int32_t d = mote_s8_rows_last_reader(p, q) - q;
        lag = d > lag ? d : lag;
    }
    return lag;
}

/**
 * Scratch bytes an in-place run of p needs beyond the kernel's own: the ring
 * of (lag + band) rows of Wo*Cout bytes; 0 if p cannot run in place.
 */
static inline size_t mote_s8_rows_ring_bytes(const mote_s8_conv_params_t *p, int32_t band)
{
    const int32_t lag = mote_s8_rows_lag(p);
    if (lag < 0 || band < 1) {
        return 0;
    }
    return (size_t)(lag + band) * (size_t)p->wo * (size_t)p->cout;
}

/**
 * Output pixel (b, oy, ox) of p, oy in [oy0, oy1): the buffer at p->output
 * holds rows oy0..oy1-1 of each image.
 */
static inline int8_t *mote_s8_out_px(const mote_s8_conv_params_t *p, int32_t b, int32_t oy,
                                     int32_t ox)
{
    return p->output +
           (((size_t)b * (size_t)(p->oy1 - p->oy0) + (size_t)(oy - p->oy0)) * (size_t)p->wo +
            (size_t)ox) * (size_t)p->cout;
}

/**
 * The plain-C conv2d_s8 / conv2d_s8_nchw loop (docs/int8-ops.md) over output rows
 * [oy0, oy1) of every image: tap (iy, ix, ci) at input + ci * cs + (iy * W + ix) * ps,
 * NHWC cs = 1, ps = Cin; NCHW (p->nchw) cs = H * W, ps = 1. The portable kernel,
 * and the Cortex-M one's conv2d_s8_nchw calls outside its NCHW stem.
 */
static inline void mote_s8_conv_ref_rows(const mote_s8_conv_params_t *p)
{
    const size_t cs = p->nchw ? (size_t)p->h * (size_t)p->w : 1u;
    const size_t ps = p->nchw ? 1u : (size_t)p->cin;
    int32_t b, oy, ox, c, ky, kx, ci;
    for (b = 0; b < p->n; b++) {
        const int8_t *in = p->input + (size_t)b * p->h * p->w * p->cin;
        for (oy = p->oy0; oy < p->oy1; oy++) {
            for (ox = 0; ox < p->wo; ox++) {
                int8_t *out = mote_s8_out_px(p, b, oy, ox);
                for (c = 0; c < p->cout; c++) {
                    const int8_t *wc = p->weight + (size_t)c * p->kh * p->kw * p->cin;
                    uint32_t acc = (uint32_t)p->bias[c]; /* int32 wrap, UB-free */
                    for (ky = 0; ky < p->kh; ky++) {
                        const int32_t iy = oy * p->stride_h - p->pad_h + ky * p->dil_h;
                        if (iy < 0 || iy >= p->h) {
                            continue;
                        }
                        for (kx = 0; kx < p->kw; kx++) {
                            const int32_t ix = ox * p->stride_w - p->pad_w + kx * p->dil_w;
                            const int8_t *xi;
                            const int8_t *wi;
                            if (ix < 0 || ix >= p->w) {
                                continue;
                            }
                            xi = in + ((size_t)iy * p->w + ix) * ps;
                            wi = wc + ((size_t)ky * p->kw + kx) * p->cin;
                            for (ci = 0; ci < p->cin; ci++) {
                                acc += (uint32_t)(((int32_t)xi[(size_t)ci * cs] - p->in_zp) *
                                                  (int32_t)wi[ci]);
                            }
                        }
                    }
                    out[c] = mote_s8_finish(p, (int32_t)acc, c);
                }
            }
        }
    }
}

/**
 * Flattened output pixels [*pix0, *pix1) of p's rows [oy0, oy1) (all images when
 * the rows are [0, Ho), else one image); pixel pix goes to p->output +
 * (pix - *pix0) * Cout.
 */
static inline void mote_s8_px_range(const mote_s8_conv_params_t *p, int32_t *pix0, int32_t *pix1)
{
    *pix0 = p->oy0 * p->wo;
    *pix1 = ((p->n - 1) * p->ho + p->oy1) * p->wo;
}

/**
 * Band iterator over the output rows of p (no function pointers, so the stack
 * analysis sees every kernel frame):
 *
 *     mote_s8_rows_t it;
 *     MOTE_TRY(mote_s8_rows_begin(ctx, own, &p, &it));
 *     do {
 *         compute rows [it.band.oy0, it.band.oy1) of it.band into it.band.output;
 *     } while (mote_s8_rows_next(&it));
 *
 * One band of all rows at the tensor when output and input do not overlap; bands
 * through the ring (see above) when they start at the same byte.
 */
typedef struct mote_s8_rows {
    mote_s8_conv_params_t band; /* p with the band's rows and buffer */
    const mote_s8_conv_params_t *p;
    int8_t *ring;               /* row r in slot r % slots */
    size_t orow;
    int32_t done, nb, slots;    /* first row not yet at the tensor; most band rows; ring rows */
} mote_s8_rows_t;

/**
 * Set it->band to the first band of p. `own`: scratch bytes the kernel itself
 * uses (the ring follows them). Errors: MOTE_ERR_KERNEL_ARGS for an overlap
 * other than the same first byte, or in place when p cannot run so;
 * MOTE_ERR_KERNEL_SCRATCH when the ring is under lag + 1 rows. (kernels/s8_rows.c)
 */
mote_err_t mote_s8_rows_begin(const mote_kernel_ctx_t *ctx, size_t own,
                              const mote_s8_conv_params_t *p, mote_s8_rows_t *it);

/**
 * After it->band was computed: copy the rows whose input bytes are all read
 * from the ring to the tensor; 1 and the next band in it->band, or 0 when
 * every row is done. (kernels/s8_rows.c)
 */
int mote_s8_rows_next(mote_s8_rows_t *it);

/* ------------------------------------------------- int16 activations (s16) */

/*
 * mote::conv2d_s16 / depthwise_conv2d_s16 / linear_s16: int16 activations with
 * zero point 0, int8 symmetric per-channel weights, int64 bias, 64-bit
 * accumulators (the int16x8 scheme of TFLite and CMSIS-NN's s16 kernels;
 * docs/int8-ops.md, "int16 activations").
 */

/** Largest |bias| of an s16 kernel (2^40): with at most MOTE_S16_TAPS_MAX taps
 *  of 2^15 * 2^7 each, |acc| < 2^46, so acc * 0x7FFF never overflows int64. */
#define MOTE_S16_BIAS_MAX ((int64_t)1 << 40)
/** Most taps (K of a linear, KH*KW*Cin of a conv, KH*KW of a depthwise) per output. */
#define MOTE_S16_TAPS_MAX ((int64_t)1 << 23)

/**
 * 64-bit requantization of the s16 kernels (TFLite's int16x8 reference
 * requantization; CMSIS-NN's arm_nn_requantize_s64 computes the same value):
 * the Q31 multiplier rounded to Q15, r = M < 0x7FFF0000 ? (M + 2^15) >> 16 : 0x7FFF,
 * then floor((acc * r + 2^(14 - s)) / 2^(15 - s)). mult >= 0, shift in [-31, 14],
 * |acc| < 2^47 (the parser guarantees all three).
 */
static inline int64_t mote_requantize_s64(int64_t acc, int32_t mult, int32_t shift)
{
    const int64_t r = mult < 0x7FFF0000 ? ((int64_t)mult + 32768) >> 16 : 0x7FFF;
    const int32_t e = 15 - shift;
    return (acc * r + ((int64_t)1 << (e - 1))) >> e; /* arithmetic shift, as mote_srdhm */
}

/** An s16 kernel's parameters: g holds geometry, weight, multiplier, shift and
 *  the activation range (its int8 input / output / bias pointers are unused). */
typedef struct mote_s16_conv_params {
    mote_s8_conv_params_t g;
    const int16_t *input;  /* [N, H, W, Cin] (linear: [M, K]) */
    const int64_t *bias;   /* [Cout] */
    int16_t *output;       /* [N, Ho, Wo, Cout] (linear: [M, N]) */
} mote_s16_conv_params_t;

/**
 * Parse conv2d_s16 (depthwise = 0, 11 args: input, weight, bias, multiplier,
 * shift, stride, padding, dilation, activation_min, activation_max, out) or
 * depthwise_conv2d_s16 (depthwise = 1, 12 args: depth_multiplier after
 * dilation). Errors: MOTE_ERR_KERNEL_ARGS / DTYPE / SHAPE.
 */
mote_err_t mote_s16_conv_parse(mote_value_t *const *args, uint32_t nargs, int depthwise,
                               mote_s16_conv_params_t *q);

/** Parse linear_s16 (8 args: input, weight, bias, multiplier, shift, activation_min, activation_max, out). */
mote_err_t mote_s16_linear_parse(mote_value_t *const *args, uint32_t nargs, mote_s16_conv_params_t *q);

/** Requantize an s16 accumulator of channel c and clamp to the activation range. */
static inline int16_t mote_s16_finish(const mote_s16_conv_params_t *q, int64_t acc, int32_t c)
{
    const int64_t v = mote_requantize_s64(acc, q->g.mult[c], q->g.shift[c]);
    return (int16_t)(v < q->g.act_min ? q->g.act_min : (v > q->g.act_max ? q->g.act_max : v));
}

/* ------------------------------------------- planar int16 (pointwise -> depthwise) */

/*
 * mote::pointwise_s8_planar16 writes, and mote::depthwise_planar16_s8 reads, the
 * planar layout a depthwise conv wants (aot/compiler/layout.py chooses it):
 * int16 [N, C, H + 2*ph, W + 2*pw], channel-major, value x - zp (the depthwise's
 * input zero point subtracted), a border of (ph, pw) zeros around every plane.
 * Parsers in kernels/s8_planar.c.
 */
typedef struct mote_s8_planar_params {
    mote_s8_conv_params_t g; /* geometry (h, w: the interior; pad_h / pad_w: the border),
                                bias / mult / shift, clamp, out_zp; in_zp unused (0) */
    const int16_t *pin;      /* depthwise: planar input, or NULL */
    int16_t *pout;           /* pointwise: planar output, or NULL */
    int32_t hp, wp;          /* plane height and width with the border */
} mote_s8_planar_params_t;

/**
 * Parse pointwise_s8_planar16 (10 args: input int8 [N, H, W, Cin], weight int8
 * [Cout, 1, 1, Cin], bias (input zero point folded in) / multiplier / shift int32
 * [Cout], int[2] border, output_zero_point, activation_min, activation_max,
 * out int16 [N, Cout, H + 2*ph, W + 2*pw]; or 11 with the weights pre-widened for
 * the DSP kernel as argument 9, conv2d_s8's panel layout: g.wpanel).
 */
mote_err_t mote_s8_planar_pw_parse(mote_value_t *const *args, uint32_t nargs, mote_s8_planar_params_t *q);

/**
 * Parse depthwise_planar16_s8 (12 args: input int16 [N, C, H + 2*ph, W + 2*pw],
 * weight int8 [1, KH, KW, C], bias / multiplier / shift int32 [C], int[2] stride,
 * padding (= the border), dilation, output_zero_point, activation_min,
 * activation_max, out int8 [N, Ho, Wo, C]).
 */
mote_err_t mote_s8_planar_dw_parse(mote_value_t *const *args, uint32_t nargs, mote_s8_planar_params_t *q);

/**
 * Scratch bytes of pointwise_s8_planar16 (any implementation; kernels/int8_scratch.c
 * exports it): 16 (alignment) + 4 * round4(Cin), the int16 column of two input
 * pixels the DSP kernel multiplies with pre-widened weights, + 16 * Cout, its
 * per-channel requantization table.
 */
static inline size_t mote_s8_planar_pw_scratch_bytes(int32_t cin, int32_t cout)
{
    return cin < 1 || cout < 1 ? 0u : 16u + 4u * (((size_t)cin + 3u) & ~(size_t)3u) + 16u * (size_t)cout;
}

/** Write the zero border of every plane of a pointwise_s8_planar16 output. */
void mote_s8_planar_border(const mote_s8_planar_params_t *q);

/** Planar output element of pointwise channel c at interior pixel (b, y, x). */
static inline int16_t *mote_s8_planar_at(const mote_s8_planar_params_t *q, int32_t b, int32_t c,
                                         int32_t y, int32_t x)
{
    return q->pout + (((size_t)b * (size_t)q->g.cout + (size_t)c) * (size_t)q->hp +
                      (size_t)(y + q->g.pad_h)) * (size_t)q->wp + (size_t)(x + q->g.pad_w);
}

#endif /* MOTE_KERNELS_REQUANT_H */
