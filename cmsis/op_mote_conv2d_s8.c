/*
 * mote::conv2d_s8.out - Cortex-M version (DSP / MVE / plain, see mote_s8_arm.h).
 * Same bytes as kernels/op_mote_conv2d_s8.c; scratch from
 * mote_s8_conv_scratch_bytes() (kernels/requant.h), MOTE_ERR_KERNEL_SCRATCH if short;
 * in place by rows through mote_s8_rows_begin / next when the plan puts out over input.
 *
 * An int8 GEMM, output pixels x output channels, K = KH*KW*Cin:
 * - MVE: zero point folded into a corrected bias (bias - zp * sum w) and the
 *   requantization vectors computed once per call (scratch); weight rows
 *   interleaved by quads once per call; an assembly core takes two pixels (im2col
 *   columns, or the input itself for a stride-1 unpadded 1x1) against every quad
 *   with eight VMLADAVA sums, then one vector requantization per pixel and quad.
 * - DSP: weights pre-widened in the program (with the requantization table,
 *   aot/compiler/dsp_weights.py) or widened to int16 pairs (SXTB16) in blocks of
 *   up to 16 KiB, columns of output pixels widened (zero point folded into the
 *   bias; Cin not a multiple of 4: an int8 column gathered first; the window
 *   variant: each window row one run of KW*Cin bytes); K rounded up to 4. Fast
 *   requantization (every channel): an assembly core per pixel triple, 3x2
 *   register blocks (per 4 taps two LDRD of weights, then per pixel an LDRD of
 *   its column and 4 SMLAD: loads in runs for the cycle model), doubled weights so
 *   the sum is 2 * acc, SMMLAR requantization (4 instructions an output), SSUB8/SEL
 *   clamps for ReLU-like ranges. Otherwise the same columns, channel by channel
 *   in C and a 64-bit SMULL requantization.
 * - plain: int16 im2col of two pixels and a 2x2 C loop.
 */
#include "mote/kernel.h"
#include "mote_s8_arm.h"

MOTE_KERNEL("mote::conv2d_s8.out")
MOTE_KERNEL_IN_PLACE_ROWS("mote::conv2d_s8.out")
MOTE_KERNEL("mote::conv2d_s8_nchw.out")

mote_err_t mote_kernel_mote_conv2d_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                          uint32_t nargs);
mote_err_t mote_kernel_mote_conv2d_s8_nchw_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
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
/** n bytes of src to d: 16-byte vector copies, the tail predicated. */
MOTE_S8_INLINE void conv_copy8(int8_t *d, const int8_t *src, int32_t n)
{
    for (; n >= 16; n -= 16, d += 16, src += 16) {
        vst1q_s8(d, vld1q_s8(src));
    }
    if (n > 0) {
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

#if defined(MOTE_S8_MVE) || \
    (defined(MOTE_S8_DSP) && (MOTE_S8_USE_CONV_STEM || MOTE_S8_USE_CONV_STEM3X3C3))
/**
 * int8 im2col of one pixel into col (raw values; padded taps hold in_zp so they
 * add (zp - zp) * w = 0 to the corrected bias). With dilation 1 in W a row of
 * the window is one contiguous run of KW*Cin input bytes: one copy per row plus
 * the zero-point fill of its clipped ends.
 */
MOTE_S8_HOT static void conv_im2col8(const mote_s8_conv_params_t *p, int32_t pix, int8_t *col)
{
    /* locals, not p->: the int8 stores may alias *p */
    const int32_t cin = p->cin, h = p->h, w = p->w, kh = p->kh, kw = p->kw;
    const int32_t dil_h = p->dil_h, dil_w = p->dil_w, zp = p->in_zp;
    const int32_t ox = pix % p->wo;
    const int32_t oy = (pix / p->wo) % p->ho;
    const int8_t *in = p->input + (size_t)(pix / (p->wo * p->ho)) * h * w * cin;
    const int32_t x0 = ox * p->stride_w - p->pad_w, iy0 = oy * p->stride_h - p->pad_h;
    const int32_t rowlen = kw * cin;
    int32_t ky, kx0 = 0, kx1 = kw, kx, iy;
    if (dil_w == 1) { /* the taps inside the input: kx in [kx0, kx1) */
        kx0 = x0 < 0 ? (-x0 < kx1 ? -x0 : kx1) : 0;
        kx1 = x0 + kx1 > w ? (w - x0 > kx0 ? w - x0 : kx0) : kx1;
    } else {
        while (kx0 < kx1 && x0 + kx0 * dil_w < 0) {
            kx0++;
        }
        while (kx1 > kx0 && x0 + (kx1 - 1) * dil_w >= w) {
            kx1--;
        }
    }
    for (ky = 0, iy = iy0; ky < kh; ky++, iy += dil_h, col += rowlen) {
        const int8_t *row;
        if (iy < 0 || iy >= h) {
            conv_fill8(col, zp, rowlen);
            continue;
        }
        row = in + (size_t)iy * w * cin;
        if (kx0 > 0) {
            conv_fill8(col, zp, kx0 * cin);
        }
        if (dil_w == 1) {
            if (kx1 > kx0) {
                conv_copy8(col + kx0 * cin, row + (size_t)(x0 + kx0) * cin, (kx1 - kx0) * cin);
            }
        } else {
            for (kx = kx0; kx < kx1; kx++) {
                conv_copy8(col + kx * cin, row + (size_t)(x0 + kx * dil_w) * cin, cin);
            }
        }
        if (kx1 < kw) {
            conv_fill8(col + kx1 * cin, zp, (kw - kx1) * cin);
        }
    }
}
#endif

#if defined(MOTE_S8_MVE)
/**
 * conv_im2col8 with the interior pixels (window inside the input, undilated in W)
 * first: KH copies of KW*Cin contiguous bytes, no clipping or fill.
 */
MOTE_S8_INLINE void conv_col8(const mote_s8_conv_params_t *p, int32_t pix, int8_t *col)
{
    const int32_t wo = p->wo, ho = p->ho, h = p->h, w = p->w, cin = p->cin, kh = p->kh;
    const int32_t q = pix / wo, ox = pix - q * wo, b = q / ho, oy = q - b * ho;
    const int32_t x0 = ox * p->stride_w - p->pad_w, y0 = oy * p->stride_h - p->pad_h;
    const int32_t rowlen = p->kw * cin;
    if (p->dil_w == 1 && x0 >= 0 && x0 + p->kw <= w && y0 >= 0 && y0 + (kh - 1) * p->dil_h < h) {
        const int8_t *src = p->input + (((size_t)b * h + y0) * w + x0) * cin;
        const size_t rs = (size_t)p->dil_h * w * cin;
        int32_t ky;
        for (ky = 0; ky < kh; ky++, col += rowlen, src += rs) {
            conv_copy8(col, src, rowlen);
        }
        return;
    }
    conv_im2col8(p, pix, col);
}

/**
 * Per-channel requantization vectors, computed once per call into the scratch, per
 * quad of channels 20 words (CONV_MVE_QWORDS): corrected bias bias - in_zp * sum w,
 * multiplier, left shift max(s, 0), right shift min(s, 0) and the rounding mask
 * (min(s, 0) >> 31: -1 where RDBPOT rounds) of mote_s8_mve_requant, four lanes each;
 * channels past Cout hold zeros.
 */
#define CONV_MVE_QWORDS 20

typedef struct conv_state {
    const int32_t *q;  /* CONV_MVE_QWORDS per quad of channels */
    int8_t *col;       /* two int8 columns of Kpad bytes (zeros past K) */
    int8_t *wq;        /* interleaved weight quads (NULL: the program has a DSP panel,
                          the scratch has no room: the C path) */
    int32_t nquads;    /* quads of wq */
    int32_t wc0;       /* first channel of the quads in wq, -1 before the first */
} conv_state_t;

/**
 * The core (assembly below): every quad of channels of wq for one pixel pair.
 * wq: per quad and 16 taps the four rows' 16 bytes (Kpad taps, zeros past K); the
 * columns xa, xb: Kpad bytes. Per 16 taps two column loads, four weight loads and
 * eight VMLADAVA into the eight even registers (128 MACs in 16 instructions with
 * the loop); then the two pixels' sums go to two vectors (four STRD, two VLDRW on
 * the frame) and are requantized together against one load of each of the quad's vectors
 * (the operations of mote_s8_mve_requant), two narrowing VSTRB.32.
 */
typedef struct conv_mve_blk {
    const int8_t *xa, *xb; /* 0, 4 */
    const int8_t *w;       /* 8 */
    const int32_t *q;      /* 12: the first quad's vectors */
    int8_t *oa, *ob;       /* 16, 20 */
    int32_t nquads;        /* 24 (> 0) */
    int32_t nsteps;        /* 28: Kpad / 16 (> 0) */
    int32_t ozp;           /* 32 */
    int32_t amin, amax;    /* 36, 40 */
} conv_mve_blk_t;

void mote_s8_mve_conv_quads(const conv_mve_blk_t *b);

/* clang-format off */
#define CONV_MVE_W(acca, accb)                                                             \
    "  vldrb.8 q2, [r5], #16\n"                                                            \
    "  vmladava.s8 " acca ", q0, q2\n"                                                     \
    "  vmladava.s8 " accb ", q1, q2\n"
__asm__(MOTE_S8_ASM_FUNC("mote_s8_mve_conv_quads")
        "  push {r4-r11, lr}\n"
        "  vpush {d8-d11}\n"
        "  sub sp, sp, #72\n"
        "  ldm r0, {r1-r9}\n"
        "  stm sp, {r1-r9}\n"
        "  ldr r9, [r0, #36]\n"
        "  vdup.32 q4, r9\n"
        "  ldr r9, [r0, #40]\n"
        "  vdup.32 q5, r9\n"
        "  ldr r5, [sp, #8]\n"
        ".Lmote_s8_mve_quad:\n"
        "  ldrd r1, r3, [sp]\n"
        "  ldr r7, [sp, #28]\n"
        "  movs r0, #0\n"
        "  movs r2, #0\n"
        "  movs r4, #0\n"
        "  movs r6, #0\n"
        "  mov r8, #0\n"
        "  mov r10, #0\n"
        "  mov r12, #0\n"
        "  mov lr, #0\n"
        ".Lmote_s8_mve_step:\n"
        "  vldrb.8 q0, [r1], #16\n"
        "  vldrb.8 q1, [r3], #16\n"
        CONV_MVE_W("r0", "r8") CONV_MVE_W("r2", "r10") CONV_MVE_W("r4", "r12")
        CONV_MVE_W("r6", "lr")
        "  subs r7, r7, #1\n"
        "  bne .Lmote_s8_mve_step\n"
        "  strd r0, r2, [sp, #40]\n"
        "  strd r4, r6, [sp, #48]\n"
        "  strd r8, r10, [sp, #56]\n"
        "  strd r12, lr, [sp, #64]\n"
        "  vldrw.u32 q0, [sp, #40]\n"
        "  vldrw.u32 q3, [sp, #56]\n"
        "  ldr r9, [sp, #12]\n"
        "  vldrw.u32 q1, [r9]\n"
        "  vadd.i32 q0, q0, q1\n"
        "  vadd.i32 q3, q3, q1\n"
        "  vldrw.u32 q1, [r9, #32]\n"
        "  vshl.s32 q0, q0, q1\n"
        "  vshl.s32 q3, q3, q1\n"
        "  vldrw.u32 q1, [r9, #16]\n"
        "  vqrdmulh.s32 q0, q0, q1\n"
        "  vqrdmulh.s32 q3, q3, q1\n"
        "  vldrw.u32 q1, [r9, #64]\n"
        "  vshr.s32 q2, q0, #31\n"
        "  vand q2, q2, q1\n"
        "  vqadd.s32 q0, q0, q2\n"
        "  vshr.s32 q2, q3, #31\n"
        "  vand q2, q2, q1\n"
        "  vqadd.s32 q3, q3, q2\n"
        "  vldrw.u32 q1, [r9, #48]\n"
        "  vrshl.s32 q0, q0, q1\n"
        "  vrshl.s32 q3, q3, q1\n"
        "  ldr r0, [sp, #32]\n"
        "  vqadd.s32 q0, q0, r0\n"
        "  vqadd.s32 q3, q3, r0\n"
        "  vmax.s32 q0, q0, q4\n"
        "  vmax.s32 q3, q3, q4\n"
        "  vmin.s32 q0, q0, q5\n"
        "  vmin.s32 q3, q3, q5\n"
        "  ldrd r0, r2, [sp, #16]\n"
        "  vstrb.32 q0, [r0], #4\n"
        "  vstrb.32 q3, [r2], #4\n"
        "  strd r0, r2, [sp, #16]\n"
        "  add r9, r9, #80\n"
        "  str r9, [sp, #12]\n"
        "  ldr r0, [sp, #24]\n"
        "  subs r0, r0, #1\n"
        "  str r0, [sp, #24]\n"
        "  bne .Lmote_s8_mve_quad\n"
        "  add sp, sp, #72\n"
        "  vpop {d8-d11}\n"
        "  pop {r4-r11, pc}\n"
        "  .size mote_s8_mve_conv_quads, . - mote_s8_mve_conv_quads\n"
        "  .text\n");
/* clang-format on */
#undef CONV_MVE_W

/** mote_s8_mve_requant with the call's precomputed vectors (bit-exact with it). */
MOTE_S8_INLINE int32x4_t conv_mve_requant(int32x4_t acc, const int32_t *q, int32_t ozp,
                                          int32x4_t vmin, int32x4_t vmax)
{
    int32x4_t x = vaddq_s32(acc, vld1q_s32(q));
    x = vqrdmulhq_s32(vshlq_s32(x, vld1q_s32(q + 8)), vld1q_s32(q + 4));
    x = vqaddq_s32(x, vandq_s32(vshrq_n_s32(x, 31), vld1q_s32(q + 16)));
    x = vqaddq_n_s32(vrshlq_s32(x, vld1q_s32(q + 12)), ozp);
    return vminq_s32(vmaxq_s32(x, vmin), vmax);
}

/** Channels [c0, cout) of one pixel pair in C (quad by quad, the last one predicated). */
MOTE_S8_HOT static void conv_mve_quads_c(const mote_s8_conv_params_t *p, const conv_state_t *st,
                                         const int8_t *xa, const int8_t *xb, int8_t *oa,
                                         int8_t *ob, int32_t c0)
{
    const int32_t k = p->kh * p->kw * p->cin;
    const int32_t cout = p->cout, ozp = p->out_zp;
    const int32x4_t vmin = vdupq_n_s32(p->act_min), vmax = vdupq_n_s32(p->act_max);
    const int8_t *w0 = p->weight + (size_t)c0 * k;
    int32_t c, sa[4], sb[4];
    for (c = c0; c < cout; c += 4, w0 += 4 * (size_t)k) {
        /* rows past Cout repeat the last one; their outputs are not stored */
        const int8_t *w1 = c + 1 < cout ? w0 + k : w0;
        const int8_t *w2 = c + 2 < cout ? w1 + k : w1;
        const int8_t *w3 = c + 3 < cout ? w2 + k : w2;
        const int32_t *q = st->q + (size_t)(c >> 2) * CONV_MVE_QWORDS;
        int32x4_t ra, rb;
        mote_s8_mve_dot4(xa, w0, w1, w2, w3, k, sa);
        mote_s8_mve_dot4(xb, w0, w1, w2, w3, k, sb);
        ra = conv_mve_requant(vld1q_s32(sa), q, ozp, vmin, vmax);
        rb = conv_mve_requant(vld1q_s32(sb), q, ozp, vmin, vmax);
        if (c + 4 <= cout) {
            vstrbq_s32(oa + c, ra);
            vstrbq_s32(ob + c, rb);
        } else {
            const mve_pred16_t pr = vctp32q((uint32_t)(cout - c));
            vstrbq_p_s32(oa + c, ra, pr);
            vstrbq_p_s32(ob + c, rb, pr);
        }
    }
}

/** Interleave the weight rows of quads [q0, q0 + n) into wq (CONV_MVE core order). */
static void conv_mve_interleave(const mote_s8_conv_params_t *p, int32_t q0, int32_t n,
                                int32_t kpad, int8_t *wq)
{
    const int32_t k = p->kh * p->kw * p->cin;
    int32_t qi, r, t;
    for (qi = 0; qi < n; qi++) {
        for (r = 0; r < 4; r++) {
            const int8_t *row = p->weight + (size_t)(4 * (q0 + qi) + r) * k;
            int8_t *d = wq + (size_t)qi * 4 * kpad + 16 * r;
            for (t = 0; t < kpad; t += 16, d += 64) {
                const mve_pred16_t pr = vctp8q((uint32_t)(k - t > 0 ? k - t : 0));
                vstrbq_s8(d, vldrbq_z_s8(row + t, pr));
            }
        }
    }
}

/** Output rows [oy0, oy1) (a band of mote_s8_rows_begin / next): pixel pairs x channel quads. */
MOTE_S8_HOT static void conv_rows(const mote_s8_conv_params_t *p, void *state)
{
    conv_state_t *st = (conv_state_t *)state;
    const int32_t k = p->kh * p->kw * p->cin;
    const int32_t kpad = (k + 15) & ~15;
    const int32_t cout = p->cout, full = cout >> 2;
    /* the input pixel itself as the column: a stride-1 unpadded 1x1 conv (the core
       reads whole 16-byte steps: Cin a multiple of 16 there) */
    const int direct = mote_s8_conv_variant(p->cin, p->kh, p->kw, p->pad_h, p->pad_w, p->dil_h,
                                            p->dil_w) ==
                           MOTE_S8_CONV_POINTWISE && p->stride_h == 1 && p->stride_w == 1 &&
                       (st->wq == NULL || (p->cin & 15) == 0);
    int32_t pix, pix0, pix1, b0;
    conv_mve_blk_t blk;
    blk.nsteps = kpad >> 4;
    blk.ozp = p->out_zp;
    blk.amin = p->act_min;
    blk.amax = p->act_max;
    mote_s8_px_range(p, &pix0, &pix1);
    for (b0 = 0; b0 < (st->wq != NULL ? full : 1); b0 += st->wq != NULL ? st->nquads : 1) {
        const int32_t nq = st->wq == NULL ? 0 : (full - b0 < st->nquads ? full - b0 : st->nquads);
        if (st->wq != NULL && st->wc0 != b0) { /* one block: interleaved once for all bands */
            conv_mve_interleave(p, b0, nq, kpad, st->wq);
            st->wc0 = b0;
        }
        for (pix = pix0; pix < pix1; pix += 2) {
            const int32_t pb = pix + 1 < pix1 ? pix + 1 : pix;
            const int8_t *xa = p->input + (size_t)pix * p->cin;
            const int8_t *xb = p->input + (size_t)pb * p->cin;
            int8_t *oa = p->output + (size_t)(pix - pix0) * cout;
            int8_t *ob = p->output + (size_t)(pb - pix0) * cout;
            if (!direct) {
                conv_col8(p, pix, st->col);
                conv_col8(p, pb, st->col + kpad);
                xa = st->col;
                xb = st->col + kpad;
            }
            if (nq > 0) {
                blk.xa = xa;
                blk.xb = xb;
                blk.w = st->wq;
                blk.q = st->q + (size_t)b0 * CONV_MVE_QWORDS;
                blk.oa = oa + 4 * b0;
                blk.ob = ob + 4 * b0;
                blk.nquads = nq;
                mote_s8_mve_conv_quads(&blk);
            }
            if (st->wq == NULL) {
                conv_mve_quads_c(p, st, xa, xb, oa, ob, 0);
            } else if (b0 + nq == full && (cout & 3) != 0) {
                conv_mve_quads_c(p, st, xa, xb, oa, ob, 4 * full);
            }
        }
    }
}

static mote_err_t conv_run(mote_kernel_ctx_t *ctx, const mote_s8_conv_params_t *p)
{
    mote_s8_rows_t it;
    const int32_t k = p->kh * p->kw * p->cin;
    const int32_t kpad = (k + 15) & ~15;
    const int32_t cpad = (p->cout + 3) & ~3;
    const size_t own = mote_s8_conv_own_bytes(p);
    /* scratch: the vectors (20 of the 32 bytes a channel), two columns (2 Kpad of
       the 7 Kpad), the interleaved weight quads in the widening region (2 Kpad
       bytes a row x mote_s8_conv_dsp_rows: as many int8 rows as twice that) */
    int32_t *t = (int32_t *)mote_s8_scratch(ctx, own);
    conv_state_t st;
    int32_t c;
    if (t == NULL) {
        return MOTE_ERR_KERNEL_SCRATCH;
    }
    for (c = 0; c < cpad; c++) {
        int32_t *q = t + (size_t)(c >> 2) * CONV_MVE_QWORDS + (c & 3);
        const int32_t s = c < p->cout ? p->shift[c] : 0;
        q[0] = c < p->cout ? (int32_t)((uint32_t)p->bias[c] -
                                       (uint32_t)p->in_zp *
                                           (uint32_t)mote_s8_mve_sum(p->weight + (size_t)c * k, k))
                           : 0;
        q[4] = c < p->cout ? p->mult[c] : 0;
        q[8] = s > 0 ? s : 0;
        q[12] = s < 0 ? s : 0;
        q[16] = s < 0 ? -1 : 0;
    }
    st.q = t;
    st.col = (int8_t *)(t + 8 * cpad);
    memset(st.col, 0, 2 * (size_t)kpad); /* taps K..Kpad of both columns stay 0 */
    st.wq = NULL;
    st.nquads = 0;
    st.wc0 = -1;
    if (p->wpanel == NULL && p->cout >= 4) {
        st.wq = st.col + 2 * kpad;
        st.nquads = mote_s8_conv_dsp_rows(kpad, p->cout) >> 1; /* 2 * rows int8 rows */
    }
    MOTE_TRY(mote_s8_rows_begin(ctx, own, p, &it));
    do {
        conv_rows(&it.band, &st);
    } while (mote_s8_rows_next(&it));
    return MOTE_OK;
}

#elif defined(MOTE_S8_DSP)
#define CONV_GW3 6 /* fast path: column words per group of 4 taps (three pixels) */
/* The store cores compiled in (MOTE_S8_USE_CONV_FULL / _CLAMP, per program; --opt
   size: the clamping one serves the full range too). */
#define CONV_CORE_FULL (!MOTE_S8_SIZE && MOTE_S8_USE_CONV_FULL)
#define CONV_CORE_CLAMP (MOTE_S8_USE_CONV_CLAMP || (!CONV_CORE_FULL && MOTE_S8_USE_CONV_FULL))
/* a program whose every call has the E-form table: neither store core */
#define CONV_CORE_ANY (CONV_CORE_FULL || CONV_CORE_CLAMP)

#if MOTE_S8_USE_CONV_GENERAL /* calls without the program's table (mote_s8_arm.h) */
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

#endif /* MOTE_S8_USE_CONV_GENERAL */

/** SXTB16 pairs of word v into d[0], d[1]; doubled (SADD16) when dbl. */
MOTE_S8_INLINE void conv_widen_word(int32_t *d, uint32_t v, int dbl)
{
    int32_t e = __sxtb16((int32_t)v), o = mote_s8_sxtb16_ror8(v);
    if (dbl) {
        e = __sadd16(e, e);
        o = __sadd16(o, o);
    }
    d[0] = e;
    d[1] = o;
}

#if MOTE_S8_USE_CONV_GENERAL
/** Widen weight rows [c0, c0 + rows) into pair-interleaved SXTB16 order, doubled
 *  when dbl (the fast path: its sums are 2 * acc). */
static void conv_widen(const mote_s8_conv_params_t *p, int32_t c0, int32_t rows, int32_t k,
                       int32_t kpad, int32_t *dst, int dbl)
{
    int32_t r, g;
    for (r = 0; r < rows; r += 2) {
        const int8_t *wa = p->weight + (size_t)(c0 + r) * k;
        const int8_t *wb = r + 1 < rows ? wa + k : wa;
        for (g = 0; g < kpad; g += 4) {
            const uint32_t va = conv_word(wa, g, k);
            const uint32_t vb = conv_word(wb, g, k);
            conv_widen_word(dst, va, dbl);
            conv_widen_word(dst + 2, vb, dbl);
            dst += 4;
        }
    }
}
#endif

/** Unaligned 16-bit load. */
MOTE_S8_INLINE uint32_t conv_ld16(const int8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

/**
 * The STEM3X3C3 column of an interior pixel: the 3x3x3 window at src (rows rstride
 * bytes apart, 9 bytes each) as 7 groups of 4 taps in K order, tap 27 zero, built
 * from loads at constant offsets (never past the window's last byte), widened
 * into the interleaved column d (gw words a group).
 */
MOTE_S8_INLINE void conv_stem3x3c3(const int8_t *src, size_t rstride, int32_t *d, int32_t gw)
{
    const int8_t *r1 = src + rstride, *r2 = r1 + rstride;
    uint32_t g[7];
    int32_t i;
    g[0] = mote_s8_ld32(src);
    g[1] = mote_s8_ld32(src + 4);
    g[2] = (uint32_t)(uint8_t)src[8] | conv_ld16(r1) << 8 | (uint32_t)(uint8_t)r1[2] << 24;
    g[3] = mote_s8_ld32(r1 + 3);
    g[4] = conv_ld16(r1 + 7) | conv_ld16(r2) << 16;
    g[5] = mote_s8_ld32(r2 + 2);
    g[6] = conv_ld16(r2 + 6) | (uint32_t)(uint8_t)r2[8] << 16;
    for (i = 0; i < 7; i++) {
        conv_widen_word(d + gw * i, g[i], 0);
    }
}

/**
 * im2col of pixel pix into slot (0..2) of the interleaved int16 buffer x:
 * raw input values (the zero point is folded into the bias), padded taps hold
 * in_zp so they add (zp - zp) * w = 0, taps K..Kpad hold 0 (their weights are 0);
 * gw words a group of 4 taps (CONV_GW3: three pixels; the fast path's weights are
 * doubled: its sum is 2 * acc).
 * Cin a multiple of 4: widened straight from the input, a tap at a time; else
 * the int8 column is gathered into col8 (Kpad bytes) and widened four taps at a time.
 */
MOTE_S8_INLINE void conv_im2col_body(const mote_s8_conv_params_t *restrict p, int32_t pix,
                                          int32_t slot, int32_t k, int32_t kpad,
                                          int32_t *restrict x, int8_t *restrict col8, int32_t gw)
{
    const int32_t cin = p->cin;
    const int32_t ox = pix % p->wo;
    const int32_t oy = (pix / p->wo) % p->ho;
    const int8_t *in = p->input + (size_t)(pix / (p->wo * p->ho)) * p->h * p->w * cin;
    const int32_t zpv = p->in_zp;
    const int32_t zp2 = (int32_t)(((uint32_t)zpv & 0xffffu) | ((uint32_t)zpv << 16));
    int32_t ky, kx, kk = 0, i;
    const int32_t variant =
        mote_s8_conv_variant(cin, p->kh, p->kw, p->pad_h, p->pad_w, p->dil_h, p->dil_w);
    /* the builders of the variants the program runs (MOTE_S8_USE_CONV_*; conv_run
       refuses a call whose builder is compiled out) */
    (void)ky, (void)kx, (void)kk, (void)zp2, (void)k, (void)col8, (void)variant, (void)i;
    (void)ox, (void)oy, (void)in, (void)slot, (void)kpad, (void)x, (void)gw;
#if MOTE_S8_USE_CONV_POINTWISE
    if (variant == MOTE_S8_CONV_POINTWISE) {
        /* the column is the input pixel itself */
        const int8_t *src = in + ((size_t)oy * p->stride_h * p->w + (size_t)ox * p->stride_w) * cin;
        int32_t *d = x + 2 * slot;
        for (i = 0; i < cin; i += 4, d += gw) {
            conv_widen_word(d, mote_s8_ld32(src + i), 0);
        }
        return;
    }
#endif
#if MOTE_S8_USE_CONV_STEM3X3C3
    if (variant == MOTE_S8_CONV_STEM3X3C3) {
        const int32_t iy0 = oy * p->stride_h - p->pad_h, ix0 = ox * p->stride_w - p->pad_w;
        if (iy0 >= 0 && iy0 + 3 <= p->h && ix0 >= 0 && ix0 + 3 <= p->w) {
            conv_stem3x3c3(in + ((size_t)iy0 * p->w + ix0) * 3, (size_t)p->w * 3, x + 2 * slot,
                           gw);
            return;
        }
    }
#endif
#if MOTE_S8_USE_CONV_STEM || MOTE_S8_USE_CONV_STEM3X3C3
    if (variant == MOTE_S8_CONV_STEM || variant == MOTE_S8_CONV_STEM3X3C3) {
        int32_t *d = x + 2 * slot;
        const int32_t iy0 = oy * p->stride_h - p->pad_h, ix0 = ox * p->stride_w - p->pad_w;
        if (p->dil_w == 1 && iy0 >= 0 && iy0 + (p->kh - 1) * p->dil_h < p->h && ix0 >= 0 &&
            ix0 + p->kw <= p->w) {
            /* interior pixel: each window row is KW*Cin contiguous input bytes */
            const int32_t rowlen = p->kw * cin;
            const size_t rstride = (size_t)p->dil_h * p->w * cin;
            const int8_t *src = in + ((size_t)iy0 * p->w + ix0) * cin;
            int8_t *c = col8;
            for (ky = 0; ky < p->kh; ky++, src += rstride, c += rowlen) {
                for (i = 0; i + 4 <= rowlen; i += 4) {
                    const uint32_t v = mote_s8_ld32(src + i);
                    memcpy(c + i, &v, 4);
                }
                for (; i < rowlen; i++) {
                    c[i] = src[i];
                }
            }
        } else {
            conv_im2col8(p, pix, col8);
        }
        for (i = k; i < kpad; i++) {
            col8[i] = 0;
        }
        for (i = 0; i < kpad; i += 4, d += gw) {
            conv_widen_word(d, mote_s8_ld32(col8 + i), 0);
        }
        return;
    }
#endif
#if MOTE_S8_USE_CONV_WINDOW
    if (p->dil_w == 1) {
        /* the window variant, undilated in W: each window row is one run of
           (kx1 - kx0) * Cin input bytes widened a word at a time, its clipped
           ends and the rows outside the input the zero point */
        const int32_t iy0 = oy * p->stride_h - p->pad_h, ix0 = ox * p->stride_w - p->pad_w;
        const int32_t kx0 = ix0 < 0 ? (-ix0 < p->kw ? -ix0 : p->kw) : 0;
        const int32_t kx1 = ix0 + p->kw > p->w ? (p->w - ix0 > kx0 ? p->w - ix0 : kx0) : p->kw;
        const int32_t lead = kx0 * cin, run = (kx1 - kx0) * cin, rowlen = p->kw * cin;
        int32_t *d = x + 2 * slot;
        for (ky = 0; ky < p->kh; ky++) {
            const int32_t iy = iy0 + ky * p->dil_h;
            int32_t *e = d + (rowlen >> 2) * gw;
            const int8_t *row;
            if (iy < 0 || iy >= p->h) {
                for (; d < e; d += gw) {
                    d[0] = zp2;
                    d[1] = zp2;
                }
                continue;
            }
            row = in + ((size_t)iy * p->w + (size_t)(ix0 + kx0)) * cin;
            for (i = 0; i < lead; i += 4, d += gw) {
                d[0] = zp2;
                d[1] = zp2;
            }
            for (i = 0; i + 8 <= run; i += 8, d += 2 * gw) {
                const uint32_t v0 = mote_s8_ld32(row + i), v1 = mote_s8_ld32(row + i + 4);
                conv_widen_word(d, v0, 0);
                conv_widen_word(d + gw, v1, 0);
            }
            if (i < run) {
                conv_widen_word(d, mote_s8_ld32(row + i), 0);
                d += gw;
            }
            for (; d < e; d += gw) {
                d[0] = zp2;
                d[1] = zp2;
            }
        }
        kk = k;
    }
    for (ky = 0; ky < p->kh && kk < k; ky++) {
        const int32_t iy = oy * p->stride_h - p->pad_h + ky * p->dil_h;
        for (kx = 0; kx < p->kw; kx++, kk += cin) {
            const int32_t ix = ox * p->stride_w - p->pad_w + kx * p->dil_w;
            const int8_t *src = iy >= 0 && iy < p->h && ix >= 0 && ix < p->w
                                    ? in + ((size_t)iy * p->w + ix) * cin
                                    : NULL;
            int32_t *d = x + (kk >> 2) * gw + 2 * slot; /* group kk/4 */
            if (src == NULL) {
                for (i = 0; i < cin; i += 4, d += gw) {
                    d[0] = zp2;
                    d[1] = zp2;
                }
            } else {
                for (i = 0; i < cin; i += 4, d += gw) {
                    conv_widen_word(d, mote_s8_ld32(src + i), 0);
                }
            }
        }
    }
    for (i = k; i < kpad; i += 4) { /* k is a multiple of 4 here */
        x[(i >> 2) * gw + 2 * slot] = 0;
        x[(i >> 2) * gw + 2 * slot + 1] = 0;
    }
#endif
}

MOTE_S8_HOT static void conv_im2col3(const mote_s8_conv_params_t *p, int32_t pix, int32_t slot,
                                     int32_t k, int32_t kpad, int32_t *x, int8_t *col8)
{
    conv_im2col_body(p, pix, slot, k, kpad, x, col8, CONV_GW3);
}

/**
 * The fast path's column of a window-variant pixel whose window lies inside the
 * input (Cin a multiple of 4, undilated in W, so K = KH*KW*Cin needs no zero tail):
 * KH runs of rowlen = KW*Cin input bytes at src, rstride bytes apart, widened into
 * slot d of the column triple (CONV_GW3 words a group of 4 taps), raw values.
 */
MOTE_S8_INLINE void conv_window_runs(const int8_t *src, size_t rstride, int32_t kh,
                                     int32_t rowlen, int32_t *restrict d)
{
    int32_t ky;
    for (ky = 0; ky < kh; ky++, src += rstride) {
        const int8_t *sx = src, *const end = src + (rowlen & ~7);
        if (sx != end) { /* two words a step: LDR (unaligned), SXTB16 pairs, STRD */
            uint32_t a, b, c;
            __asm__ volatile("1:\n\t"
                             "ldr %[a], [%[sx]], #4\n\t"
                             "ldr %[b], [%[sx]], #4\n\t"
                             "sxtb16 %[c], %[a], ror #8\n\t"
                             "sxtb16 %[a], %[a]\n\t"
                             "strd %[a], %[c], [%[d]], #24\n\t"
                             "sxtb16 %[c], %[b], ror #8\n\t"
                             "sxtb16 %[b], %[b]\n\t"
                             "strd %[b], %[c], [%[d]], #24\n\t"
                             "cmp %[sx], %[end]\n\t"
                             "bne 1b\n\t"
                             : [a] "=&r"(a), [b] "=&r"(b), [c] "=&r"(c), [sx] "+r"(sx), [d] "+r"(d)
                             : [end] "r"(end)
                             : "cc", "memory");
        }
        if (rowlen & 4) {
            const uint32_t v0 = mote_s8_ld32(sx);
            d[0] = __sxtb16((int32_t)v0);
            d[1] = mote_s8_sxtb16_ror8(v0);
            d += CONV_GW3;
        }
    }
}

/** Per-channel requantization parameters of the general path (scratch table). */
typedef struct conv_q {
    int32_t bias;  /* bias - in_zp * sum w */
    int32_t mult;
    int32_t shift;
    int32_t pad;
} conv_q_t;

#if MOTE_S8_USE_CONV_GENERAL
MOTE_S8_INLINE int8_t conv_finish(int32_t sum, const conv_q_t *q, int32_t zp, int32_t amin,
                                 int32_t amax)
{
    return mote_s8_dsp_finish((int32_t)((uint32_t)sum + (uint32_t)q->bias), q->mult, q->shift,
                              zp, amin, amax);
}
#endif

/**
 * The fast core (assembly below): every full channel pair of a weight block for
 * one pixel triple, 3x2 register blocks (channels a, b x pixels p, q, r). Operands:
 *   w  weight pairs, per group of 4 taps [a(0,2) a(1,3) b(0,2) b(1,3)] (int16 pairs)
 *   x  the column triple, per group [p(0,2) p(1,3) q(0,2) q(1,3) r(0,2) r(1,3)]
 *      (CONV_GW3 words), raw values; the weights doubled instead
 *   q  per pair 10 words: 2ba 2ba 2bb 2bb (accumulator start: twice the corrected
 *      bias), then M rz e of a, then of b (CONV_FAST_WORDS)
 * Per group the four weight words (CONV3_W), three LDRD of a pixel's two column
 * words each followed by its four SMLAD (24 MACs in 16 instructions, 23 cycles of
 * aot/deploy/cycles.py's model: each weight word feeds three pixels, each column
 * word two channels), 8 groups per pass, the first pass entered at the group that
 * leaves a multiple of 8 (a computed branch: no remainder loop).
 * The sum t = 2 * acc (|t| < 2^31: the caller checked |bias| + K * 2^14 < 2^30)
 * requantizes in 4 instructions: SMMLAR(t, M, rz) = SRDHM(acc, M) + rz exactly,
 * + (t >> 31) (= -[SRDHM(acc, M) < 0] since M > 2^30), ASR e, SSAT 8, where
 * rz = 2^(e-1) + (out_zp << e): RDBPOT(x, e) + zp = (x - [x<0] + rz) >> e.
 * full: the activation range is [-128, 127] (SSAT clamps, six STRB); clamp:
 * the six bytes packed into two words, clamped to [lo, hi] with SSUB8/SEL, three STRH.
 */
typedef struct conv_blk {
    int8_t *oa;          /* 0: pixel p's output at the block's first channel */
    int8_t *ob;          /* 4: pixel q's */
    int8_t *oc;          /* 8: pixel r's */
    const int32_t *q;    /* 12: table of the first pair */
    const int32_t *qend; /* 16: table past the last pair */
    const int32_t *x;    /* 20: column triple */
    uint32_t entry;      /* 24: (set by the core) */
    const int32_t *xend; /* 28: past the column triple's last group */
    uint32_t lo4, hi4;   /* 32, 36: act_min / act_max in every byte */
    const int32_t *w;    /* 40: weight pairs */
    int32_t skip;        /* 44: code bytes of the groups skipped in the first pass */
    int32_t skip1;       /* 48: the same for the one-pixel core (mote_s8_dsp_conv1_e) */
} conv_blk_t;

#define CONV_FAST_WORDS 10 /* table words per channel pair */

void mote_s8_dsp_conv3_full(const conv_blk_t *b);
void mote_s8_dsp_conv3_clamp(const conv_blk_t *b);
void mote_s8_dsp_conv3_e(const conv_blk_t *b); /* the E-form table (MOTE_S8_EFORM_E) */
void mote_s8_dsp_conv3_e16(const conv_blk_t *b); /* its K = 16 and K = 32 unrolled forms */
void mote_s8_dsp_conv3_e32(const conv_blk_t *b);
void mote_s8_dsp_conv3_e28(const conv_blk_t *b); /* K = 28: the STEM3X3C3 column */
void mote_s8_dsp_conv3_e64(const conv_blk_t *b); /* K = 64n, n >= 2 (MOTE_S8_EFORM_K64) */
void mote_s8_dsp_conv1_e(const conv_blk_t *b);  /* one pixel (slot p of the triple), E-form */

/* clang-format off */
/* the group's weight words: one LDM (fewer instructions) */
#define CONV3_W "  ldrd r0, r1, [r12], #8\n  ldrd r2, r3, [r12], #8\n"
#define CONV3_GROUP_BYTES 68
#define CONV3_PIX(acca, accb)                                                              \
    "  ldrd r4, r5, [lr], #8\n"                                                            \
    "  smlad " acca ", r0, r4, " acca "\n"                                                 \
    "  smlad " acca ", r1, r5, " acca "\n"                                                 \
    "  smlad " accb ", r2, r4, " accb "\n"                                                 \
    "  smlad " accb ", r3, r5, " accb "\n"
#define CONV3_GROUP CONV3_W CONV3_PIX("r6", "r9") CONV3_PIX("r7", "r10") CONV3_PIX("r8", "r11")
/* next pair: accumulators from its 2ba 2ba 2bb 2bb, then into the loop */
#define CONV3_NEXT                                                                         \
    "  ldm r4!, {r6, r7, r9, r10}\n"                                                       \
    "  str r4, [sp, #12]\n"                                                                \
    "  mov r8, r6\n"                                                                       \
    "  mov r11, r9\n"                                                                      \
    "  ldr lr, [sp, #20]\n"                                                                \
    "  ldr pc, [sp, #24]\n"
#define CONV_CORE(name, rq, store)                                                         \
    MOTE_S8_ASM_FUNC(name)                                                             \
    "  push {r4-r11, lr}\n"                                                                \
    "  sub sp, sp, #40\n"                                                                  \
    "  ldm r0, {r1-r10}\n"                                                                 \
    "  stm sp, {r1-r10}\n"                                                                 \
    "  ldr r12, [r0, #40]\n"                                                               \
    "  ldr r2, [r0, #44]\n"                                                                \
    "  adr.w r3, .L" name "_loop\n"                                                        \
    "  add r2, r2, r3\n"                                                                   \
    "  orr r2, r2, #1\n"                                                                   \
    "  str r2, [sp, #24]\n"                                                                \
    "  ldr r4, [sp, #12]\n"                                                                \
    CONV3_NEXT                                                                             \
    "  .p2align 2\n"                                                                       \
    ".L" name "_loop:\n"                                                                   \
    CONV3_GROUP CONV3_GROUP CONV3_GROUP CONV3_GROUP                                        \
    CONV3_GROUP CONV3_GROUP CONV3_GROUP CONV3_GROUP                                        \
    "  ldr r4, [sp, #28]\n"                                                                \
    "  cmp lr, r4\n"                                                                       \
    "  bne .L" name "_loop\n"                                                              \
    "  ldr r4, [sp, #12]\n"                                                                   \
    "  ldm r4!, {r0-r2}\n"                                                                 \
    rq("r6") rq("r7") rq("r8")                                                             \
    "  ldm r4!, {r0-r2}\n"                                                                 \
    rq("r9") rq("r10") rq("r11")                                                           \
    store                                                                                  \
    "  ldr r5, [sp, #16]\n"                                                                \
    "  cmp r4, r5\n"                                                                       \
    "  beq .L" name "_done\n"                                                              \
    CONV3_NEXT                                                                             \
    ".L" name "_done:\n"                                                                   \
    "  add sp, sp, #40\n"                                                                  \
    "  pop {r4-r11, pc}\n"                                                                 \
    "  .size " name ", . - " name "\n"
/* the requantization of an accumulator in place: the fast form (r0-r2 = M rz e) */
#define CONV_RQ_FAST(acc) MOTE_S8_ASM_RQ(acc, acc)
/* the E-form (kernels/requant.h, MOTE_S8_EFORM_E; r0 r1 = M rz): SMMLA, SSAT of >> E */
#define CONV_RQ_E(acc)                                                                     \
    "  smmla " acc ", " acc ", r0, r1\n"                                                   \
    "  ssat " acc ", #8, " acc ", asr #" CONV_STR(MOTE_S8_EFORM_E) "\n"
#define CONV_STR_(x) #x
#define CONV_STR(x) CONV_STR_(x)
/* bytes: p.a p.b at oa, q.a q.b at ob, r.a r.b at oc */
#define CONV_STORE_FULL                                                                    \
    "  ldm sp, {r0-r2}\n"                                                                  \
    "  strb r6, [r0], #1\n"                                                                \
    "  strb r9, [r0], #1\n"                                                                \
    "  strb r7, [r1], #1\n"                                                                \
    "  strb r10, [r1], #1\n"                                                               \
    "  strb r8, [r2], #1\n"                                                                \
    "  strb r11, [r2], #1\n"                                                               \
    "  stm sp, {r0-r2}\n"
#define CONV_STORE_CLAMP                                                                   \
    "  bfi r6, r9, #8, #8\n"                                                               \
    "  bfi r6, r7, #16, #8\n"                                                              \
    "  bfi r6, r10, #24, #8\n"                                                             \
    "  bfi r8, r11, #8, #8\n"                                                              \
    "  ldrd r0, r1, [sp, #32]\n"                                                           \
    "  ssub8 r3, r6, r0\n"                                                                 \
    "  sel r6, r6, r0\n"                                                                   \
    "  ssub8 r3, r6, r1\n"                                                                 \
    "  sel r6, r1, r6\n"                                                                   \
    "  ssub8 r3, r8, r0\n"                                                                 \
    "  sel r8, r8, r0\n"                                                                   \
    "  ssub8 r3, r8, r1\n"                                                                 \
    "  sel r8, r1, r8\n"                                                                   \
    "  ldm sp, {r0-r2}\n"                                                                  \
    "  strh r6, [r0], #2\n"                                                                \
    "  lsr r6, r6, #16\n"                                                                  \
    "  strh r6, [r1], #2\n"                                                                \
    "  strh r8, [r2], #2\n"                                                                \
    "  stm sp, {r0-r2}\n"
#if CONV_CORE_FULL
__asm__(CONV_CORE("mote_s8_dsp_conv3_full", CONV_RQ_FAST, CONV_STORE_FULL) "  .text\n");
#endif
#if CONV_CORE_CLAMP
__asm__(CONV_CORE("mote_s8_dsp_conv3_clamp", CONV_RQ_FAST, CONV_STORE_CLAMP) "  .text\n");
#endif
#if MOTE_S8_USE_CONV_E /* E-form calls: the range is [-128, 127] (SSAT clamps) */
__asm__(CONV_CORE("mote_s8_dsp_conv3_e", CONV_RQ_E, CONV_STORE_FULL) "  .text\n");
#endif
#if MOTE_S8_USE_CONV_E && ((MOTE_S8_USE_CONV_PWE && MOTE_S8_USE_CONV_PWU) || MOTE_S8_USE_CONV_STEM3X3C3 || \
                           MOTE_S8_USE_CONV_EK64)
/* The E-form 3x2 core unrolled for K = 4 * groups (16, 32; 28: the stem's 27 taps,
   conv_stem3_rows): no computed entry nor
   loop test; the first group takes the biases as its SMLADs' accumulator inputs
   (pixels r, q, then p, whose accumulators hold the biases: no copies), the table
   read with LDRD (the bias words 0 and 2, M rz at 16 and 28). Same frame and block
   as CONV_CORE. */
#define CONV3_FIRST_PIX(off, post, acca, accb)                                             \
    "  ldrd r4, r5, [lr" off "]" post "\n"                                                  \
    "  smlad " acca ", r0, r4, r6\n"                                                       \
    "  smlad " acca ", r1, r5, " acca "\n"                                                 \
    "  smlad " accb ", r2, r4, r9\n"                                                       \
    "  smlad " accb ", r3, r5, " accb "\n"
#define CONV3_FIRST                                                                        \
    CONV3_W CONV3_FIRST_PIX(", #16", "", "r8", "r11") CONV3_FIRST_PIX(", #8", "", "r7", "r10") \
    CONV3_FIRST_PIX("", ", #24", "r6", "r9")
#define CONV_ECORE_K(name, groups)                                                         \
    MOTE_S8_ASM_FUNC(name)                                                                 \
    "  push {r4-r11, lr}\n"                                                                \
    "  sub sp, sp, #40\n"                                                                  \
    "  ldm r0, {r1-r10}\n"                                                                 \
    "  stm sp, {r1-r10}\n"                                                                 \
    "  ldr r12, [r0, #40]\n"                                                               \
    ".L" name "_pair:\n"                                                                   \
    "  ldr r4, [sp, #12]\n"                                                                \
    "  ldr r6, [r4]\n"                                                                     \
    "  ldr r9, [r4, #8]\n"                                                                 \
    "  ldr lr, [sp, #20]\n"                                                                \
    CONV3_FIRST groups                                                                     \
    "  ldr r4, [sp, #12]\n"                                                                \
    "  ldrd r0, r1, [r4, #16]\n"                                                           \
    CONV_RQ_E("r6") CONV_RQ_E("r7") CONV_RQ_E("r8")                                        \
    "  ldrd r0, r1, [r4, #28]\n"                                                           \
    CONV_RQ_E("r9") CONV_RQ_E("r10") CONV_RQ_E("r11")                                      \
    "  add r4, r4, #40\n"                                                                  \
    "  str r4, [sp, #12]\n"                                                                \
    CONV_STORE_FULL                                                                        \
    "  ldr r5, [sp, #16]\n"                                                                \
    "  cmp r4, r5\n"                                                                       \
    "  bne .L" name "_pair\n"                                                              \
    "  add sp, sp, #40\n"                                                                  \
    "  pop {r4-r11, pc}\n"                                                                 \
    "  .size " name ", . - " name "\n"
#if MOTE_S8_USE_CONV_PWE && MOTE_S8_USE_CONV_PWU
__asm__(CONV_ECORE_K("mote_s8_dsp_conv3_e16", CONV3_GROUP CONV3_GROUP CONV3_GROUP) "  .text\n");
__asm__(CONV_ECORE_K("mote_s8_dsp_conv3_e32", CONV3_GROUP CONV3_GROUP CONV3_GROUP CONV3_GROUP
                     CONV3_GROUP CONV3_GROUP CONV3_GROUP) "  .text\n");
#endif
#if MOTE_S8_USE_CONV_STEM3X3C3
__asm__(CONV_ECORE_K("mote_s8_dsp_conv3_e28", CONV3_GROUP CONV3_GROUP CONV3_GROUP CONV3_GROUP
                     CONV3_GROUP CONV3_GROUP) "  .text\n");
#endif
#if MOTE_S8_USE_CONV_EK64
/* K a multiple of 64, >= 128 (conv_rows, MOTE_S8_EFORM_K64): the first 16 groups
   unrolled as CONV_ECORE_K's, then passes of 16 groups with one loop test each (no
   computed entry; the looping core tests every 8 groups). */
#define CONV_G4 CONV3_GROUP CONV3_GROUP CONV3_GROUP CONV3_GROUP
#define CONV_ECORE_K64(name)                                                               \
    MOTE_S8_ASM_FUNC(name)                                                                 \
    "  push {r4-r11, lr}\n"                                                                \
    "  sub sp, sp, #40\n"                                                                  \
    "  ldm r0, {r1-r10}\n"                                                                 \
    "  stm sp, {r1-r10}\n"                                                                 \
    "  ldr r12, [r0, #40]\n"                                                               \
    ".L" name "_pair:\n"                                                                   \
    "  ldr r4, [sp, #12]\n"                                                                \
    "  ldr r6, [r4]\n"                                                                     \
    "  ldr r9, [r4, #8]\n"                                                                 \
    "  ldr lr, [sp, #20]\n"                                                                \
    CONV3_FIRST CONV3_GROUP CONV3_GROUP CONV3_GROUP CONV_G4 CONV_G4 CONV_G4                \
    "  ldr r4, [sp, #28]\n"                                                                \
    "  cmp lr, r4\n"                                                                       \
    "  beq .L" name "_rq\n"                                                                \
    ".L" name "_k:\n"                                                                      \
    CONV_G4 CONV_G4 CONV_G4 CONV_G4                                                        \
    "  ldr r4, [sp, #28]\n"                                                                \
    "  cmp lr, r4\n"                                                                       \
    "  bne .L" name "_k\n"                                                                 \
    ".L" name "_rq:\n"                                                                     \
    "  ldr r4, [sp, #12]\n"                                                                \
    "  ldrd r0, r1, [r4, #16]\n"                                                           \
    CONV_RQ_E("r6") CONV_RQ_E("r7") CONV_RQ_E("r8")                                        \
    "  ldrd r0, r1, [r4, #28]\n"                                                           \
    CONV_RQ_E("r9") CONV_RQ_E("r10") CONV_RQ_E("r11")                                      \
    "  add r4, r4, #40\n"                                                                  \
    "  str r4, [sp, #12]\n"                                                                \
    CONV_STORE_FULL                                                                        \
    "  ldr r5, [sp, #16]\n"                                                                \
    "  cmp r4, r5\n"                                                                       \
    "  bne .L" name "_pair\n"                                                              \
    "  add sp, sp, #40\n"                                                                  \
    "  pop {r4-r11, pc}\n"                                                                 \
    "  .size " name ", . - " name "\n"
__asm__(CONV_ECORE_K64("mote_s8_dsp_conv3_e64") "  .text\n");
#undef CONV_ECORE_K64
#undef CONV_G4
#endif
#undef CONV3_FIRST_PIX
#undef CONV3_FIRST
#undef CONV_ECORE_K
#endif
#if MOTE_S8_USE_CONV_E
/* The E-form core of one pixel (the last of a call whose pixel count is not a multiple
   of three, or a streaming layer's one frame: a 1x1 map): the triple core would
   multiply two copies of it for nothing. Per channel pair the accumulators start at
   the table's biases, then per group of 4 taps the pixel's two column words (slot p
   of the triple, CONV_GW3 words a group: the column builders are the triple's) and
   the pair's four weight words in a run of three LDRD, four SMLAD (8 MACs in 7
   instructions, 8 cycles of the model); four groups a pass, the first pass entered
   at the group that leaves a multiple of 4 (skip1: CONV1_GROUP_BYTES each, a computed
   branch, no remainder loop); then CONV_RQ_E's two instructions per channel and
   two STRB. Registers: r0-r3 the weights, r5 r6 the column words, r4 the table, r7
   the column's end, r8 the output, r9 r10 the accumulators, r11 the entry, r12 the
   weights' and lr the column's cursor; the table's end and the column at sp. */
#define CONV1_GROUP_BYTES 28
#define CONV1_GROUP                                                                        \
    "  ldrd r5, r6, [lr], #24\n"                                                           \
    "  ldrd r0, r1, [r12], #8\n"                                                           \
    "  ldrd r2, r3, [r12], #8\n"                                                           \
    "  smlad r9, r0, r5, r9\n"                                                             \
    "  smlad r9, r1, r6, r9\n"                                                             \
    "  smlad r10, r2, r5, r10\n"                                                           \
    "  smlad r10, r3, r6, r10\n"
__asm__(MOTE_S8_ASM_FUNC("mote_s8_dsp_conv1_e")
    "  push {r4-r11, lr}\n"
    "  sub sp, sp, #8\n"
    "  ldr r1, [r0, #16]\n"                 /* qend */
    "  ldr r2, [r0, #20]\n"                 /* x */
    "  strd r1, r2, [sp]\n"
    "  ldr r4, [r0, #12]\n"                 /* q */
    "  ldr r7, [r0, #28]\n"                 /* xend */
    "  ldr r8, [r0, #0]\n"                  /* oa */
    "  ldr r12, [r0, #40]\n"                /* w */
    "  ldr r3, [r0, #48]\n"                 /* skip1 */
    "  adr.w r11, .Lmote_s8_dsp_conv1_e_loop\n"
    "  add r11, r11, r3\n"
    "  orr r11, r11, #1\n"
    ".Lmote_s8_dsp_conv1_e_pair:\n"
    "  ldr r9, [r4]\n"
    "  ldr r10, [r4, #8]\n"
    "  ldr lr, [sp, #4]\n"
    "  bx r11\n"
    "  .p2align 2\n"
    ".Lmote_s8_dsp_conv1_e_loop:\n"
    CONV1_GROUP CONV1_GROUP CONV1_GROUP CONV1_GROUP
    "  cmp lr, r7\n"
    "  bne .Lmote_s8_dsp_conv1_e_loop\n"
    "  ldrd r0, r1, [r4, #16]\n"
    CONV_RQ_E("r9")
    "  ldrd r0, r1, [r4, #28]\n"
    CONV_RQ_E("r10")
    "  strb r9, [r8], #1\n"
    "  strb r10, [r8], #1\n"
    "  add r4, r4, #40\n"
    "  ldr r0, [sp]\n"
    "  cmp r4, r0\n"
    "  bne .Lmote_s8_dsp_conv1_e_pair\n"
    "  add sp, sp, #8\n"
    "  pop {r4-r11, pc}\n"
    "  .size mote_s8_dsp_conv1_e, . - mote_s8_dsp_conv1_e\n"
    "  .text\n");
#undef CONV1_GROUP
#endif
/* clang-format on */
#undef CONV3_W
#undef CONV3_PIX
#undef CONV3_GROUP
#undef CONV3_NEXT
#undef CONV_CORE
#undef CONV_STORE_FULL
#undef CONV_STORE_CLAMP
#undef CONV_RQ_FAST
#undef CONV_RQ_E

/** One weight row of a pair (w: row a; w + 2: row b) for the pixel triple x:
 *  s[j] = pixel j's sum over ng groups (doubled when the weights are). */
MOTE_S8_INLINE void conv_mac3x1(const int32_t *w, const int32_t *x, int32_t ng, int32_t s[3])
{
    int32_t a = 0, b = 0, c = 0;
    for (; ng > 0; ng--, w += 4, x += CONV_GW3) {
        a = __smlad(w[0], x[0], __smlad(w[1], x[1], a));
        b = __smlad(w[0], x[2], __smlad(w[1], x[3], b));
        c = __smlad(w[0], x[4], __smlad(w[1], x[5], c));
    }
    s[0] = a;
    s[1] = b;
    s[2] = c;
}

/** What conv_rows reads besides p: scratch parts and the block widened last. */
typedef struct conv_state {
    int32_t *x;       /* the int16 column triple (CONV_GW3 words a group of 4 taps) */
    int32_t *wbuf;    /* scratch for widened weight rows (none with pre-widened weights) */
    const int32_t *wblk; /* widened weight rows [wc0, wc0 + nrows): wbuf or the program's */
    const conv_q_t *q;   /* general path: one entry per channel */
    const int32_t *fq;   /* fast path: CONV_FAST_WORDS per channel pair */
    int8_t *col8;
    int32_t nrows, wc0;
    int fast;
    int eform; /* the program's table is the E-form (conv_rows_pwe) */
} conv_state_t;

#if MOTE_S8_USE_CONV_STEM3X3C3
/** Whether conv_rows gives call p to conv_stem3_rows: the STEM3X3C3 variant with the
 *  program's table, fast or E-form, and an even Cout (every channel pair through a
 *  3x2 core; --opt size too: the E-form has no other path). */
MOTE_S8_INLINE int conv_stem3_fast(const mote_s8_conv_params_t *p)
{
    return p->wtable != NULL && (p->cout & 1) == 0 &&
           mote_s8_conv_variant(p->cin, p->kh, p->kw, p->pad_h, p->pad_w, p->dil_h, p->dil_w) ==
               MOTE_S8_CONV_STEM3X3C3;
}

/**
 * conv_stem3x3c3 in 36 instructions (inline assembly: the C form spills its seven
 * words to the stack): the interior window at src (rows rstride bytes apart) into
 * slot d of the column triple (CONV_GW3 words a group). Group 6 is widened from
 * the word at byte 5 (b5 b6 b7 b8): SXTB16 ror 8 gives (b6, b8), ror 16 (b7, b5),
 * b5 standing at tap 27, whose weight is 0; no load goes past byte 8 of a row.
 */
/* clang-format off */
/* The text of conv_stem3_col: registers a, b, c (scratch), s (the window; left at its
   last row), rs (row stride), d (the column triple), slot j ("0".."2": 8 j bytes on). */
#define CONV_STEM3_COL(a, b, c, s, rs, d, j)                                               \
    "ldr " a ", [" s "]\n\t"                                                               \
    "ldr " b ", [" s ", #4]\n\t"                                                           \
    "sxtb16 " c ", " a "\n\t"                                                              \
    "sxtb16 " a ", " a ", ror #8\n\t"                                                      \
    "strd " c ", " a ", [" d ", #8*" j "]\n\t"                                             \
    "sxtb16 " c ", " b "\n\t"                                                              \
    "sxtb16 " b ", " b ", ror #8\n\t"                                                      \
    "strd " c ", " b ", [" d ", #24+8*" j "]\n\t"                                          \
    "ldrb " a ", [" s ", #8]\n\t"                                                          \
    "add " s ", " s ", " rs "\n\t"                                                         \
    "ldrh " b ", [" s "]\n\t"                                                              \
    "ldrb " c ", [" s ", #2]\n\t"                                                          \
    "orr " a ", " a ", " b ", lsl #8\n\t"                                                  \
    "orr " a ", " a ", " c ", lsl #24\n\t"                                                 \
    "sxtb16 " c ", " a "\n\t"                                                              \
    "sxtb16 " a ", " a ", ror #8\n\t"                                                      \
    "strd " c ", " a ", [" d ", #48+8*" j "]\n\t"                                          \
    "ldr " b ", [" s ", #3]\n\t"                                                           \
    "ldrh " a ", [" s ", #7]\n\t"                                                          \
    "add " s ", " s ", " rs "\n\t"                                                         \
    "sxtb16 " c ", " b "\n\t"                                                              \
    "sxtb16 " b ", " b ", ror #8\n\t"                                                      \
    "strd " c ", " b ", [" d ", #72+8*" j "]\n\t"                                          \
    "ldrh " b ", [" s "]\n\t"                                                              \
    "orr " a ", " a ", " b ", lsl #16\n\t"                                                 \
    "sxtb16 " c ", " a "\n\t"                                                              \
    "sxtb16 " a ", " a ", ror #8\n\t"                                                      \
    "strd " c ", " a ", [" d ", #96+8*" j "]\n\t"                                          \
    "ldr " a ", [" s ", #2]\n\t"                                                           \
    "ldr " b ", [" s ", #5]\n\t"                                                           \
    "sxtb16 " c ", " a "\n\t"                                                              \
    "sxtb16 " a ", " a ", ror #8\n\t"                                                      \
    "strd " c ", " a ", [" d ", #120+8*" j "]\n\t"                                         \
    "sxtb16 " c ", " b ", ror #8\n\t"                                                      \
    "sxtb16 " b ", " b ", ror #16\n\t"                                                     \
    "strd " c ", " b ", [" d ", #144+8*" j "]\n\t"
/* clang-format on */

MOTE_S8_INLINE void conv_stem3_col(const int8_t *src, int32_t rstride, int32_t *d)
{
    uint32_t a, b, c;
    __asm__ volatile(CONV_STEM3_COL("%[a]", "%[b]", "%[c]", "%[s]", "%[rs]", "%[d]", "0")
                     : [a] "=&r"(a), [b] "=&r"(b), [c] "=&r"(c), [s] "+r"(src)
                     : [rs] "r"(rstride), [d] "r"(d)
                     : "memory");
}

#if MOTE_S8_USE_CONV_STEM3_NCHW
/**
 * The column of a conv2d_s8_nchw STEM3X3C3 call (input [N, 3, H, W]) in 43
 * instructions: the window's nine 3-byte segments (plane c, row r at src +
 * c * P + r * rs), each loaded as a word (x0 x1 x2 and the next byte): SXTB16
 * gives (x0, x2) and, ror 8, (x1, next), whose x1 halves pair up by PKHBT. Plane
 * 2's last segment is loaded from one byte before (prev x0 x1 x2: no load past the
 * window's last byte), the previous byte standing at a tap whose weight is 0. The
 * taps' order is aot/compiler/dsp_weights.py's NCHW_K (the panel is built in it).
 * Registers a, b, c, e (scratch), s (the window; left at plane 2's last row), rs
 * (row stride), P (plane stride), d (the column triple), slot j ("0".."2").
 */
/* clang-format off */
#define CONV_STEM3N_PAIR(a, b, c, e, d, g, t)                                              \
    "sxtb16 " c ", " a "\n\t"                                                             \
    "sxtb16 " e ", " b "\n\t"                                                             \
    "strd " c ", " e ", [" d ", #" g "]\n\t"                                              \
    "sxtb16 " a ", " a ", ror #8\n\t"                                                     \
    "sxtb16 " b ", " b ", ror #8\n\t"                                                     \
    "pkhbt " a ", " a ", " b ", lsl #16\n\t"                                              \
    "str " a ", [" d ", #" t "]\n\t"
#define CONV_STEM3N_COL(a, b, c, e, s, rs, P, d, j)                                        \
    "ldr " a ", [" s "]\n\t"                                                              \
    "ldr " b ", [" s ", " rs "]\n\t"                                                      \
    CONV_STEM3N_PAIR(a, b, c, e, d, "8*" j, "120+8*" j)                                    \
    "ldr " a ", [" s ", " rs ", lsl #1]\n\t"                                              \
    "add " s ", " s ", " P "\n\t"                                                         \
    "ldr " b ", [" s "]\n\t"                                                              \
    CONV_STEM3N_PAIR(a, b, c, e, d, "24+8*" j, "124+8*" j)                                 \
    "ldr " a ", [" s ", " rs "]\n\t"                                                      \
    "ldr " b ", [" s ", " rs ", lsl #1]\n\t"                                              \
    CONV_STEM3N_PAIR(a, b, c, e, d, "48+8*" j, "144+8*" j)                                 \
    "add " s ", " s ", " P "\n\t"                                                         \
    "ldr " a ", [" s "]\n\t"                                                              \
    "ldr " b ", [" s ", " rs "]\n\t"                                                      \
    CONV_STEM3N_PAIR(a, b, c, e, d, "72+8*" j, "148+8*" j)                                 \
    "add " s ", " s ", " rs ", lsl #1\n\t"                                                \
    "ldr " a ", [" s ", #-1]\n\t"                                                         \
    "sxtb16 " c ", " a ", ror #8\n\t"                                                     \
    "sxtb16 " a ", " a "\n\t"                                                             \
    "strd " c ", " a ", [" d ", #96+8*" j "]\n\t"
/* clang-format on */

MOTE_S8_INLINE void conv_stem3n_col(const int8_t *src, int32_t rstride, int32_t plane, int32_t *d)
{
    uint32_t a, b, c, e;
    __asm__ volatile(CONV_STEM3N_COL("%[a]", "%[b]", "%[c]", "%[e]", "%[s]", "%[rs]", "%[P]", "%[d]", "0")
                     : [a] "=&r"(a), [b] "=&r"(b), [c] "=&r"(c), [e] "=&r"(e), [s] "+r"(src)
                     : [rs] "r"(rstride), [P] "r"(plane), [d] "r"(d)
                     : "memory");
}
#endif

#if MOTE_S8_USE_CONV_E && MOTE_S8_USE_CONV_STEM3X3C3
/**
 * A run of whole interior pixel triples of one output row with the E-form table, in
 * one assembly loop (mote_s8_dsp_stem3_run_e28): per triple the three columns
 * (CONV_STEM3_COL at src, src + step, src + 2 step), the block's three output
 * pointers, then mote_s8_dsp_conv3_e28 on blk; src += 3 step, out += 3 cout.
 */
typedef struct conv_stem3_run {
    const int8_t *src; /* 0: the first pixel's window */
    int32_t step;      /* 4: 3 * stride_w bytes between pixels */
    int32_t rstride;   /* 8: W * 3 bytes between rows */
    int32_t *x;        /* 12: the column triple */
    conv_blk_t *blk;   /* 16: the core's block (oa, ob, oc set here) */
    int8_t *out;       /* 20: the first pixel's output */
    int32_t cout;      /* 24 */
    int32_t n;         /* 28: triples (> 0) */
    int32_t plane;     /* 32: H * W bytes between planes (mote_s8_dsp_stem3n_run_e28) */
} conv_stem3_run_t;

void mote_s8_dsp_stem3_run_e28(const conv_stem3_run_t *r);

/* clang-format off */
__asm__(MOTE_S8_ASM_FUNC("mote_s8_dsp_stem3_run_e28")
        "  push {r4-r11, lr}\n"
        "  ldm r0, {r4-r11}\n"
        ".Lmote_s8_dsp_stem3_run:\n\t"
        "mov r3, r4\n\t"
        CONV_STEM3_COL("r0", "r1", "r2", "r3", "r6", "r7", "0")
        "add r3, r4, r5\n\t"
        CONV_STEM3_COL("r0", "r1", "r2", "r3", "r6", "r7", "1")
        "add r3, r4, r5, lsl #1\n\t"
        CONV_STEM3_COL("r0", "r1", "r2", "r3", "r6", "r7", "2")
        "add r4, r4, r5\n\t"
        "add r4, r4, r5, lsl #1\n\t"
        "mov r0, r9\n\t"
        "add r1, r0, r10\n\t"
        "add r2, r1, r10\n\t"
        "stm r8, {r0, r1, r2}\n\t"
        "add r9, r2, r10\n\t"
        "mov r0, r8\n\t"
        "bl mote_s8_dsp_conv3_e28\n\t"
        "subs r11, r11, #1\n\t"
        "bne .Lmote_s8_dsp_stem3_run\n\t"
        "pop {r4-r11, pc}\n"
        "  .size mote_s8_dsp_stem3_run_e28, . - mote_s8_dsp_stem3_run_e28\n"
        "  .text\n");
/* clang-format on */

#if MOTE_S8_USE_CONV_STEM3_NCHW
/* mote_s8_dsp_stem3_run_e28 with the NCHW column (CONV_STEM3N_COL; src: the window's
   plane-0 top-left byte, step stride_w, rstride W, plane H * W: kept on the stack,
   r12 being the core's) */
void mote_s8_dsp_stem3n_run_e28(const conv_stem3_run_t *r);

/* clang-format off */
__asm__(MOTE_S8_ASM_FUNC("mote_s8_dsp_stem3n_run_e28")
        "  push {r4-r11, lr}\n"
        "  ldr r1, [r0, #32]\n"
        "  push {r1}\n"
        "  ldm r0, {r4-r11}\n"
        ".Lmote_s8_dsp_stem3n_run:\n\t"
        "ldr r12, [sp]\n\t"
        "mov r3, r4\n\t"
        CONV_STEM3N_COL("r0", "r1", "r2", "lr", "r3", "r6", "r12", "r7", "0")
        "add r3, r4, r5\n\t"
        CONV_STEM3N_COL("r0", "r1", "r2", "lr", "r3", "r6", "r12", "r7", "1")
        "add r3, r4, r5, lsl #1\n\t"
        CONV_STEM3N_COL("r0", "r1", "r2", "lr", "r3", "r6", "r12", "r7", "2")
        "add r4, r4, r5\n\t"
        "add r4, r4, r5, lsl #1\n\t"
        "mov r0, r9\n\t"
        "add r1, r0, r10\n\t"
        "add r2, r1, r10\n\t"
        "stm r8, {r0, r1, r2}\n\t"
        "add r9, r2, r10\n\t"
        "mov r0, r8\n\t"
        "bl mote_s8_dsp_conv3_e28\n\t"
        "subs r11, r11, #1\n\t"
        "bne .Lmote_s8_dsp_stem3n_run\n\t"
        "add sp, sp, #4\n\t"
        "pop {r4-r11, pc}\n"
        "  .size mote_s8_dsp_stem3n_run_e28, . - mote_s8_dsp_stem3n_run_e28\n"
        "  .text\n");
/* clang-format on */
#endif
#endif

/**
 * conv_stem3_col of a border pixel: its window (top-left input pixel (y0, x0) of
 * image img, undilated) gathered into win (3 rows of 9 bytes; the zero point where
 * the window leaves the input, so those taps add (zp - zp) * w = 0), then widened
 * from there (rows 9 bytes apart).
 */
static void conv_stem3_border(const mote_s8_conv_params_t *p, const int8_t *img, int32_t y0,
                              int32_t x0, int32_t *d, int8_t *win)
{
    const int8_t zp = (int8_t)p->in_zp;
    int32_t r, c;
    for (r = 0; r < 3; r++) {
        const int32_t iy = y0 + r;
        for (c = 0; c < 3; c++) {
            const int32_t ix = x0 + c;
            int8_t *o = win + 9 * r + 3 * c;
            if (iy >= 0 && iy < p->h && ix >= 0 && ix < p->w) {
                const int8_t *src = img + ((size_t)iy * p->w + ix) * 3;
                o[0] = src[0];
                o[1] = src[1];
                o[2] = src[2];
            } else {
                o[0] = zp;
                o[1] = zp;
                o[2] = zp;
            }
        }
    }
    conv_stem3_col(win, 9, d);
}

#if MOTE_S8_USE_CONV_STEM3_NCHW
/** conv_stem3_border of a conv2d_s8_nchw call: win holds the window plane by plane
 *  (3 planes of 3 rows of 3 bytes), then conv_stem3n_col (rows 3, planes 9 bytes apart). */
static void conv_stem3n_border(const mote_s8_conv_params_t *p, const int8_t *img, int32_t y0,
                               int32_t x0, int32_t *d, int8_t *win)
{
    const size_t plane = (size_t)p->h * (size_t)p->w;
    const int8_t zp = (int8_t)p->in_zp;
    int32_t r, k;
    for (r = 0; r < 3; r++) {
        const int32_t iy = y0 + r;
        for (k = 0; k < 3; k++) {
            const int32_t ix = x0 + k;
            int8_t *o = win + 3 * r + k;
            if (iy >= 0 && iy < p->h && ix >= 0 && ix < p->w) {
                const int8_t *src = img + (size_t)iy * p->w + ix;
                o[0] = src[0];
                o[9] = src[plane];
                o[18] = src[2 * plane];
            } else {
                o[0] = zp;
                o[9] = zp;
                o[18] = zp;
            }
        }
    }
    conv_stem3n_col(win, 3, 9, d);
}
#endif

/** The column of interior window src (conv_stem3_col, or conv_stem3n_col for an NCHW call). */
MOTE_S8_INLINE void conv_stem3_colx(const mote_s8_conv_params_t *p, const int8_t *src, int32_t rstride,
                                    int32_t *d)
{
#if MOTE_S8_USE_CONV_STEM3_NCHW
    if (p->nchw) {
        conv_stem3n_col(src, rstride, p->h * p->w, d);
        return;
    }
#endif
    (void)p;
    conv_stem3_col(src, rstride, d);
}

/** The column of a border pixel (conv_stem3_border, or conv_stem3n_border for an NCHW call). */
static void conv_stem3_borderx(const mote_s8_conv_params_t *p, const int8_t *img, int32_t y0,
                               int32_t x0, int32_t *d, int8_t *win)
{
#if MOTE_S8_USE_CONV_STEM3_NCHW
    if (p->nchw) {
        conv_stem3n_border(p, img, y0, x0, d, win);
        return;
    }
#endif
    conv_stem3_border(p, img, y0, x0, d, win);
}

/**
 * conv_rows for conv_stem3_fast calls: pixels [pix0, pix1) output row by output row
 * (no per-pixel index arithmetic), triples inside a row (its last triple repeats
 * its last pixel), an interior pixel's column built by conv_stem3_col at the
 * window's first byte (the next pixel's: 3 * stride_w bytes on), a border pixel's
 * by conv_stem3_border; then a 3x2 core over every channel pair (the E-form's
 * K = 28 core, or the fast full / clamping one).
 */
MOTE_S8_HOT static void conv_stem3_rows(const mote_s8_conv_params_t *p, const conv_state_t *st,
                                        conv_blk_t *blk)
{
    const int32_t wo = p->wo, ho = p->ho, h = p->h, w = p->w, cout = p->cout;
    const int32_t sw = p->stride_w, sh = p->stride_h, pw = p->pad_w;
    /* bytes per input pixel along a row: 3 (NHWC), 1 (NCHW: the planes H * W apart) */
    const int32_t cb = p->nchw ? 1 : 3;
    const size_t rstride = (size_t)w * cb, step = (size_t)cb * p->stride_w;
    const int full = p->act_min == -128 && p->act_max == 127;
    /* interior columns: ox in [oxa, oxb) (window inside [0, w)) */
    const int32_t oxa = (pw + sw - 1) / sw;
    const int32_t oxb = w - 3 + pw >= 0 ? (w - 3 + pw) / sw + 1 : 0;
    int32_t *const x = st->x;
    int8_t *const out = p->output;
    int32_t pix, pix0, pix1;
    (void)full;
    mote_s8_px_range(p, &pix0, &pix1);
    for (pix = pix0; pix < pix1;) {
        const int32_t q = pix / wo, ox0 = pix - q * wo, b = q / ho, oy = q - b * ho;
        const int32_t end = pix1 - pix < wo - ox0 ? pix1 : pix + (wo - ox0);
        const int32_t y0 = oy * sh - p->pad_h;
        const int rowin = y0 >= 0 && y0 + 3 <= h;
        /* the window of interior column ox starts at row + cb * (ox * sw - pw) */
        const int8_t *img = p->input + (size_t)b * h * w * 3;
        const int8_t *row = img + (size_t)(rowin ? y0 : 0) * rstride;
        int32_t ox = ox0;
        int32_t n;
        for (; pix < end; pix += n, ox += n) {
            n = end - pix < 3 ? end - pix : 3;
#if MOTE_S8_USE_CONV_E
            if (st->eform && rowin && ox >= oxa && n == 3 && ox + 2 < oxb) {
                /* whole interior triples: one assembly loop */
                const int32_t kr = (end - pix) / 3, kc = (oxb - ox) / 3;
                conv_stem3_run_t run;
                run.src = row + (size_t)cb * (ox * sw - pw);
                run.step = (int32_t)step;
                run.rstride = (int32_t)rstride;
                run.x = x;
                run.blk = blk;
                run.out = out + (size_t)(pix - pix0) * cout;
                run.cout = cout;
                run.n = kr < kc ? kr : kc;
                run.plane = h * w;
#if MOTE_S8_USE_CONV_STEM3_NCHW
                if (p->nchw) {
                    mote_s8_dsp_stem3n_run_e28(&run);
                } else
#endif
                {
                    mote_s8_dsp_stem3_run_e28(&run);
                }
                n = 3 * run.n;
                continue;
            }
#endif
            if (rowin && ox >= oxa && ox + n - 1 < oxb) { /* three interior pixels */
                const int8_t *s = row + (size_t)cb * (ox * sw - pw);
                conv_stem3_colx(p, s, (int32_t)rstride, x);
                conv_stem3_colx(p, n > 1 ? s + step : s, (int32_t)rstride, x + 2);
                conv_stem3_colx(p, s + (size_t)(n - 1) * step, (int32_t)rstride, x + 4);
            } else {
                int32_t j;
                for (j = 0; j < 3; j++) {
                    const int32_t oj = ox + (j < n ? j : n - 1);
                    if (rowin && oj >= oxa && oj < oxb) {
                        conv_stem3_colx(p, row + (size_t)cb * (oj * sw - pw), (int32_t)rstride,
                                        x + 2 * j);
                    } else {
                        conv_stem3_borderx(p, img, y0, oj * sw - pw, x + 2 * j, st->col8);
                    }
                }
            }
            blk->oa = out + (size_t)(pix - pix0) * cout;
            blk->ob = blk->oa + (n > 1 ? cout : 0);
            blk->oc = blk->oa + (size_t)(n - 1) * cout;
#if MOTE_S8_USE_CONV_E
            if (st->eform) { /* the E-form table: SMMLA, SSAT asr E; K = 28 unrolled */
                mote_s8_dsp_conv3_e28(blk);
                continue;
            }
#endif
#if CONV_CORE_FULL
            if (full || !CONV_CORE_CLAMP) {
                mote_s8_dsp_conv3_full(blk);
                continue;
            }
#endif
#if CONV_CORE_CLAMP
            mote_s8_dsp_conv3_clamp(blk);
#endif
        }
    }
}
#endif

/** Output rows [oy0, oy1), block by block of widened weight rows (a band of mote_s8_rows_begin / next). */
MOTE_S8_HOT static void conv_rows(const mote_s8_conv_params_t *p, void *state)
{
    /* locals, not st-> / p-> in the loops: the int8 output stores may alias them */
    conv_state_t *st = (conv_state_t *)state;
    const int32_t k = p->kh * p->kw * p->cin;
    const int32_t kp = (k + 3) & ~3; /* taps computed: whole groups of 4 */
    const int32_t cout = p->cout, nrows = st->nrows;
    const int full = p->act_min == -128 && p->act_max == 127;
    const int fast = !MOTE_S8_USE_CONV_GENERAL || st->fast;
    (void)fast; /* read by the general path only */
    (void)full; /* read by the store cores (none: every call of the program E-form) */
    int32_t *const x = st->x;
    const int32_t *const wblk = st->wblk;
    int8_t *const col8 = st->col8;
    int8_t *const out = p->output;
    const int32_t variant = mote_s8_conv_variant(p->cin, p->kh, p->kw, p->pad_h, p->pad_w,
                                                 p->dil_h, p->dil_w);
    /* the pointwise variant at stride 1: the column is the pixels themselves */
    const int direct = variant == MOTE_S8_CONV_POINTWISE && p->stride_h == 1 && p->stride_w == 1;
    /* interior windows without the generic im2col: the window variant undilated in
       W as KH runs of KW*Cin bytes, the 3x3 RGB stem by its constant offsets */
    const int stem3 = MOTE_S8_USE_CONV_STEM3X3C3 && variant == MOTE_S8_CONV_STEM3X3C3;
    const int win = !MOTE_S8_SIZE && p->dil_w == 1 &&
                    ((MOTE_S8_USE_CONV_WINDOW && variant == MOTE_S8_CONV_WINDOW) || stem3);
    const int32_t wo = p->wo, ho = p->ho, h = p->h, w = p->w, cin = p->cin, kh = p->kh;
    const int32_t sw = p->stride_w, sh = p->stride_h, pw = p->pad_w, ph = p->pad_h;
    const int32_t xmax = w - p->kw, ymax = h - 1 - (kh - 1) * p->dil_h, rowlen = p->kw * cin;
    const size_t rstride = (size_t)p->dil_h * w * cin;
    int32_t c0, pix, pix0, pix1;
    conv_blk_t blk;
    blk.x = x;
    blk.xend = x + (kp >> 2) * CONV_GW3;
    blk.lo4 = ((uint32_t)p->act_min & 0xffu) * 0x01010101u;
    blk.hi4 = ((uint32_t)p->act_max & 0xffu) * 0x01010101u;
    blk.w = wblk;
    blk.skip = CONV3_GROUP_BYTES * ((8 - ((kp >> 2) & 7)) & 7);
#if MOTE_S8_USE_CONV_E
    blk.skip1 = CONV1_GROUP_BYTES * ((4 - ((kp >> 2) & 3)) & 3);
#endif
    blk.entry = 0;
#if MOTE_S8_USE_CONV_STEM3X3C3
    if (conv_stem3_fast(p)) { /* one block: every row in the program's panel */
        blk.q = st->fq;
        blk.qend = blk.q + (size_t)(cout >> 1) * CONV_FAST_WORDS;
        conv_stem3_rows(p, st, &blk);
        return;
    }
#endif
    mote_s8_px_range(p, &pix0, &pix1);
    for (c0 = 0; c0 < cout; c0 += nrows) {
        const int32_t rows = cout - c0 < nrows ? cout - c0 : nrows;
#if MOTE_S8_USE_CONV_GENERAL
        if (st->wc0 != c0) { /* one block: widened once for all bands */
            conv_widen(p, c0, rows, k, kp, st->wbuf, fast);
            st->wc0 = c0;
        }
#endif
        blk.q = st->fq + (size_t)(c0 >> 1) * CONV_FAST_WORDS;
        blk.qend = blk.q + (size_t)(rows >> 1) * CONV_FAST_WORDS;
        for (pix = pix0; pix < pix1; pix += 3) { /* pixel triples (the last repeats) */
            const int32_t pb = pix + 1 < pix1 ? pix + 1 : pix;
            const int32_t pc = pix + 2 < pix1 ? pix + 2 : pb;
            int8_t *oa = out + (size_t)(pix - pix0) * cout + c0;
            int8_t *ob = out + (size_t)(pb - pix0) * cout + c0;
            int8_t *oc = out + (size_t)(pc - pix0) * cout + c0;
            /* the E-form's last pixel alone (a 1x1 map: all of it) takes the one-pixel
               core: only slot p of the column is built */
            const int one = MOTE_S8_USE_CONV_E && st->eform && pix + 1 == pix1;
            if (direct) { /* the three pixels widened in one pass */
                const int8_t *sa = p->input + (size_t)pix * p->cin;
                const int8_t *sb = p->input + (size_t)pb * p->cin;
                const int8_t *sc = p->input + (size_t)pc * p->cin;
                int32_t i;
                int32_t *d = x;
                for (i = 0; one && i < p->cin; i += 4, d += CONV_GW3) {
                    conv_widen_word(d, mote_s8_ld32(sa + i), 0);
                }
                for (i = 0; !one && i < p->cin; i += 4, d += CONV_GW3) {
                    conv_widen_word(d, mote_s8_ld32(sa + i), 0);
                    conv_widen_word(d + 2, mote_s8_ld32(sb + i), 0);
                    conv_widen_word(d + 4, mote_s8_ld32(sc + i), 0);
                }
            } else {
                const int32_t px[3] = {pix, pb, pc};
                int32_t j;
                for (j = 0; j < (one ? 1 : 3); j++) {
                    if (win) { /* interior pixels */
                        const int32_t qq = px[j] / wo, ox = px[j] - qq * wo, b = qq / ho;
                        const int32_t x0 = ox * sw - pw, y0 = (qq - b * ho) * sh - ph;
                        if (x0 >= 0 && x0 <= xmax && y0 >= 0 && y0 <= ymax) {
                            const int8_t *src = p->input + (((size_t)b * h + y0) * w + x0) * cin;
                            if (stem3) { /* K = 27: the 7th group's 4th tap is 0 */
                                conv_stem3x3c3(src, rstride, x + 2 * j, CONV_GW3);
                            } else {
                                conv_window_runs(src, rstride, kh, rowlen, x + 2 * j);
                            }
                            continue;
                        }
                    }
                    conv_im2col3(p, px[j], j, k, kp, x, col8);
                }
            }
#if MOTE_S8_USE_CONV_GENERAL
            if (!fast) { /* the general requantization, channel by channel */
                int32_t c, sg[3];
                for (c = 0; c < rows; c++) {
                    const conv_q_t *qc = &st->q[c0 + c];
                    conv_mac3x1(wblk + (size_t)(c >> 1) * kp + 2 * (c & 1), x, kp >> 2, sg);
                    oa[c] = conv_finish(sg[0], qc, p->out_zp, p->act_min, p->act_max);
                    ob[c] = conv_finish(sg[1], qc, p->out_zp, p->act_min, p->act_max);
                    oc[c] = conv_finish(sg[2], qc, p->out_zp, p->act_min, p->act_max);
                }
                continue;
            }
#endif
            blk.oa = oa;
            blk.ob = ob;
            blk.oc = oc;
#if MOTE_S8_USE_CONV_E
            if (one) {
                mote_s8_dsp_conv1_e(&blk);
                continue;
            }
            if (st->eform) { /* the E-form table: even Cout, one block (conv_run) */
#if MOTE_S8_USE_CONV_EK64
                if (mote_s8_eform_k64(kp)) {
                    mote_s8_dsp_conv3_e64(&blk);
                    continue;
                }
#endif
                mote_s8_dsp_conv3_e(&blk);
                continue;
            }
#endif
#if CONV_CORE_FULL
            if (rows >= 2 && (full || !CONV_CORE_CLAMP)) { /* conv_run: full when no clamp core */
                mote_s8_dsp_conv3_full(&blk);
            }
#endif
#if CONV_CORE_CLAMP
            if (rows >= 2 && !(CONV_CORE_FULL && full)) {
                mote_s8_dsp_conv3_clamp(&blk);
            }
#endif
#if MOTE_S8_USE_CONV_ODD
            if (rows & 1) { /* last odd channel: its table pair duplicates it */
                const int32_t last = rows - 1;
                const int32_t b2 = blk.qend[0];
                const int32_t c = c0 + last;
                const int32_t m = p->mult[c], sh = p->shift[c], zp = p->out_zp;
                const int32_t lo = p->act_min, hi = p->act_max;
                int32_t s[3];
                conv_mac3x1(wblk + (size_t)(last >> 1) * kp, x, kp >> 2, s);
                /* (2 * sum + 2 * bias) / 2: exact (|2 acc| < 2^31) */
                oa[last] = mote_s8_dsp_finish((int32_t)((uint32_t)s[0] + (uint32_t)b2) >> 1,
                                              m, sh, zp, lo, hi);
                ob[last] = mote_s8_dsp_finish((int32_t)((uint32_t)s[1] + (uint32_t)b2) >> 1,
                                              m, sh, zp, lo, hi);
                oc[last] = mote_s8_dsp_finish((int32_t)((uint32_t)s[2] + (uint32_t)b2) >> 1,
                                              m, sh, zp, lo, hi);
            }
#endif
        }
    }
}

#if MOTE_S8_USE_CONV_E && MOTE_S8_USE_CONV_PWE && MOTE_S8_USE_CONV_PW8
/**
 * The K = 8 core of E-form calls (assembly below), channel-stationary: for each
 * channel its four weight words (E-form panel), scaled bias, M and rz stay in
 * registers while the block's pixels stream past, each widened once (4 words,
 * [x(0,2) x(1,3) x(4,6) x(5,7)]): two LDRD, four SMLAD (the first from the bias),
 * SMMLA, SSAT asr #E, one STRB at the pixel's output (cout bytes apart): 8 MACs in
 * 9.5 instructions; 16 pixels a pass (a multiple of 16 pixels a call).
 */
typedef struct pw8_blk {
    const int32_t *x;    /* 0: the widened pixels, 4 words each */
    const int32_t *xend; /* 4: past the last (x + 4 * a multiple of 16) */
    const int32_t *w;    /* 8: the E-form panel, 8 words per channel pair */
    const int32_t *q;    /* 12: the E-form table, CONV_FAST_WORDS per pair */
    int8_t *out;         /* 16: the first pixel's output, channel 0 */
    int32_t cout;        /* 20: channels (even) = the output's bytes per pixel */
} pw8_blk_t;

void mote_s8_dsp_pw8e(const pw8_blk_t *b);

/* clang-format off */
#define PW8_PIX(store)                                                                     \
    "  ldrd r0, r1, [r11], #8\n"                                                           \
    "  ldrd r2, r3, [r11], #8\n"                                                           \
    "  smlad r0, r4, r0, r8\n"                                                             \
    "  smlad r0, r5, r1, r0\n"                                                             \
    "  smlad r0, r6, r2, r0\n"                                                             \
    "  smlad r0, r7, r3, r0\n"                                                             \
    "  smmla r0, r0, r9, r10\n"                                                            \
    "  ssat r0, #8, r0, asr #" CONV_STR(MOTE_S8_EFORM_E) "\n"                              \
    store
/* two pixels: outputs at r12 and r12 + cout, then r12 += 2 cout */
#define PW8_PAIR                                                                           \
    PW8_PIX("  strb r0, [r12]\n")                                                          \
    PW8_PIX("  strb r0, [r12, lr]\n  add r12, r12, lr, lsl #1\n")
/* one channel over the block: r4-r7 weights, r8 bias, r9 M, r10 rz */
#define PW8_CHANNEL(tag)                                                                   \
    "  ldr r11, [sp]\n"                                                                    \
    "  ldr r12, [sp, #16]\n"                                                               \
    "  add r0, r12, #1\n"                                                                  \
    "  str r0, [sp, #16]\n"                                                                \
    ".Lpw8_" tag ":\n"                                                                     \
    PW8_PAIR PW8_PAIR PW8_PAIR PW8_PAIR PW8_PAIR PW8_PAIR PW8_PAIR PW8_PAIR                \
    "  ldr r1, [sp, #4]\n"                                                                 \
    "  cmp r11, r1\n"                                                                      \
    "  bne .Lpw8_" tag "\n"
__asm__(MOTE_S8_ASM_FUNC("mote_s8_dsp_pw8e")
        "  push {r4-r11, lr}\n"
        "  sub sp, sp, #24\n"
        "  ldm r0, {r1-r6}\n"
        "  stm sp, {r1-r5}\n"
        "  add r5, r5, r6\n"
        "  str r5, [sp, #20]\n"
        "  mov lr, r6\n"
        ".Lpw8_pair:\n"
        "  ldrd r0, r1, [sp, #8]\n"
        "  ldrd r4, r5, [r0]\n"
        "  ldrd r6, r7, [r0, #16]\n"
        "  ldr r8, [r1]\n"
        "  ldrd r9, r10, [r1, #16]\n"
        PW8_CHANNEL("a")
        "  ldrd r0, r1, [sp, #8]\n"
        "  ldrd r4, r5, [r0, #8]\n"
        "  ldrd r6, r7, [r0, #24]\n"
        "  ldr r8, [r1, #8]\n"
        "  ldrd r9, r10, [r1, #28]\n"
        "  add r0, r0, #32\n"
        "  add r1, r1, #40\n"
        "  strd r0, r1, [sp, #8]\n"
        PW8_CHANNEL("b")
        "  ldrd r0, r1, [sp, #16]\n"
        "  cmp r0, r1\n"
        "  bne .Lpw8_pair\n"
        "  add sp, sp, #24\n"
        "  pop {r4-r11, pc}\n"
        "  .size mote_s8_dsp_pw8e, . - mote_s8_dsp_pw8e\n"
        "  .text\n");
/* clang-format on */
#undef PW8_PIX
#undef PW8_PAIR
#undef PW8_CHANNEL
#endif

#if MOTE_S8_USE_CONV_E && MOTE_S8_USE_CONV_PWE

/**
 * conv_rows of a stride-1 pointwise call with the program's E-form table (conv_run
 * checked it: K = Cin <= MOTE_S8_EFORM_KMAX, a multiple of 4, even Cout, range
 * [-128, 127]): pixel triples widened straight from the input, every channel pair
 * by the 3x2 core with the two-instruction requantization (mote_s8_dsp_conv3_e).
 */
MOTE_S8_HOT static void conv_rows_pwe(const mote_s8_conv_params_t *p, void *state)
{
    conv_state_t *st = (conv_state_t *)state;
    const int32_t cin = p->cin, cout = p->cout;
    int32_t *const x = st->x;
    int8_t *const out = p->output;
    const int8_t *const in = p->input;
    int32_t pix, pix0, pix1;
    conv_blk_t blk;
    blk.x = x;
    blk.xend = x + (cin >> 2) * CONV_GW3;
    blk.lo4 = 0;
    blk.hi4 = 0;
    blk.w = st->wblk;
    blk.skip = CONV3_GROUP_BYTES * ((8 - ((cin >> 2) & 7)) & 7);
    blk.entry = 0;
    blk.q = st->fq;
    blk.qend = st->fq + (size_t)(cout >> 1) * CONV_FAST_WORDS;
    mote_s8_px_range(p, &pix0, &pix1);
    pix = pix0;
#if MOTE_S8_USE_CONV_PW8
    if (cin == MOTE_S8_EFORM_K8) { /* blocks of 16n pixels by the K = 8 core; the rest by triples */
        /* the scratch from x (16-aligned in it) holds 16 bytes a widened pixel */
        const int32_t room = (int32_t)((mote_s8_conv_own_bytes(p) - 16u) >> 4) & ~15;
        pw8_blk_t b8;
        b8.x = x;
        b8.w = st->wblk;
        b8.q = st->fq;
        b8.cout = cout;
        while (room > 0 && pix1 - pix >= 16) {
            const int32_t n = (pix1 - pix) < room ? (pix1 - pix) & ~15 : room;
            const int8_t *s8 = in + (size_t)pix * 8;
            int32_t *d = x;
            int32_t *const dend = x + 4 * n;
            uint32_t a, b, c, e;
            /* two pixels a step (n even): two LDR (unaligned allowed) of a pixel's
               8 bytes, SXTB16 pairs, two STRD */
            __asm__ volatile("1:\n\t"
                             "ldr %[a], [%[s]], #4\n\t"
                             "ldr %[b], [%[s]], #4\n\t"
                             "sxtb16 %[c], %[a], ror #8\n\t"
                             "sxtb16 %[a], %[a]\n\t"
                             "sxtb16 %[e], %[b], ror #8\n\t"
                             "sxtb16 %[b], %[b]\n\t"
                             "strd %[a], %[c], [%[d]], #8\n\t"
                             "strd %[b], %[e], [%[d]], #8\n\t"
                             "ldr %[a], [%[s]], #4\n\t"
                             "ldr %[b], [%[s]], #4\n\t"
                             "sxtb16 %[c], %[a], ror #8\n\t"
                             "sxtb16 %[a], %[a]\n\t"
                             "sxtb16 %[e], %[b], ror #8\n\t"
                             "sxtb16 %[b], %[b]\n\t"
                             "strd %[a], %[c], [%[d]], #8\n\t"
                             "strd %[b], %[e], [%[d]], #8\n\t"
                             "cmp %[d], %[end]\n\t"
                             "bne 1b\n\t"
                             : [a] "=&r"(a), [b] "=&r"(b), [c] "=&r"(c), [e] "=&r"(e), [s] "+r"(s8),
                               [d] "+r"(d)
                             : [end] "r"(dend)
                             : "cc", "memory");
            b8.xend = d;
            b8.out = out + (size_t)(pix - pix0) * cout;
            mote_s8_dsp_pw8e(&b8);
            pix += n;
        }
    }
#endif
    for (; pix < pix1; pix += 3) { /* pixel triples (the last repeats) */
        const int32_t pb = pix + 1 < pix1 ? pix + 1 : pix;
        const int32_t pc = pix + 2 < pix1 ? pix + 2 : pb;
        const int8_t *sa = in + (size_t)pix * cin;
        const int8_t *sb = in + (size_t)pb * cin;
        const int8_t *sc = in + (size_t)pc * cin;
        int32_t *d = x;
        uint32_t wa, wb, wc, t;
        /* per group of 4 taps: the three pixels' words (LDR, unaligned allowed) in a
           run, SXTB16 pairs, three STRD: the triple's CONV_GW3 words */
        __asm__ volatile("1:\n\t"
                         "ldr %[wa], [%[sa]], #4\n\t"
                         "ldr %[wb], [%[sb]], #4\n\t"
                         "ldr %[wc], [%[sc]], #4\n\t"
                         "sxtb16 %[t], %[wa], ror #8\n\t"
                         "sxtb16 %[wa], %[wa]\n\t"
                         "strd %[wa], %[t], [%[d]], #8\n\t"
                         "sxtb16 %[t], %[wb], ror #8\n\t"
                         "sxtb16 %[wb], %[wb]\n\t"
                         "strd %[wb], %[t], [%[d]], #8\n\t"
                         "sxtb16 %[t], %[wc], ror #8\n\t"
                         "sxtb16 %[wc], %[wc]\n\t"
                         "strd %[wc], %[t], [%[d]], #8\n\t"
                         "cmp %[d], %[end]\n\t"
                         "bne 1b\n\t"
                         : [wa] "=&r"(wa), [wb] "=&r"(wb), [wc] "=&r"(wc), [t] "=&r"(t),
                           [sa] "+r"(sa), [sb] "+r"(sb), [sc] "+r"(sc), [d] "+r"(d)
                         : [end] "r"(blk.xend)
                         : "cc", "memory");
        blk.oa = out + (size_t)(pix - pix0) * cout;
        blk.ob = out + (size_t)(pb - pix0) * cout;
        blk.oc = out + (size_t)(pc - pix0) * cout;
#if MOTE_S8_USE_CONV_PWU
        if (cin == 16) {
            mote_s8_dsp_conv3_e16(&blk);
            continue;
        }
        if (cin == 32) {
            mote_s8_dsp_conv3_e32(&blk);
            continue;
        }
#endif
        mote_s8_dsp_conv3_e(&blk);
    }
}
#endif

/** In place without the row ring (the rule: mote_s8_conv_direct_in_place, requant.h). */
static int conv_pointwise_in_place(const mote_s8_conv_params_t *p)
{
    return p->input == p->output &&
           mote_s8_conv_direct_in_place(p->cin, p->kh, p->kw, p->stride_h, p->stride_w, p->pad_h,
                                        p->pad_w, p->cout, p->wpanel != NULL);
}

/** Output and input apart (no byte shared): mote_s8_rows_begin would hand the call
 *  itself over as its one band, after copying its parameters (a struct copy, 170
 *  instructions: a fixed cost of every call, a one-pixel call's too). */
static int conv_apart(const mote_s8_conv_params_t *p)
{
    const uintptr_t i0 = (uintptr_t)p->input, o0 = (uintptr_t)p->output;
    const size_t ib = (size_t)p->n * (size_t)p->h * (size_t)p->w * (size_t)p->cin;
    const size_t ob = (size_t)p->n * (size_t)p->ho * (size_t)p->wo * (size_t)p->cout;
    return o0 >= i0 + ib || i0 >= o0 + ob;
}

#if MOTE_S8_USE_CONV_GENERAL
/** Channel `which` (0: a, 1: b) of the fast table pair t (layout: conv_blk_t). */
static void conv_fast_entry(int32_t *t, int32_t which, const conv_q_t *q, int32_t out_zp)
{
    const int32_t e = -q->shift; /* in [1, 22] (mote_s8_fast_ok) */
    int32_t *m = t + 4 + 3 * which;
    t[2 * which] = (int32_t)(2u * (uint32_t)q->bias);
    t[2 * which + 1] = t[2 * which];
    m[0] = q->mult;
    m[1] = (int32_t)((1u << (e - 1)) + ((uint32_t)out_zp << e));
    m[2] = e;
}

/**
 * The requantization tables of a call without a program table: the general one
 * (zero point folded into the bias), and the fast one in place of it when every
 * channel admits it (st->fast).
 */
static void conv_table(const mote_s8_conv_params_t *p, int32_t k, conv_state_t *st)
{
    conv_q_t *q = (conv_q_t *)(void *)st->q;
    int32_t *fq = (int32_t *)(void *)q;
    int32_t r;
    for (r = 0; r < p->cout; r++) {
        /* zero point folded into the bias: sum (x - zp) w = sum x w - zp sum w */
        const int8_t *w = p->weight + (size_t)r * k;
        int32_t sw = 0, i;
        for (i = 0; i < k; i += 4) { /* four weights per step: SXTB16 pairs, SMLAD by 1 */
            const uint32_t v = conv_word(w, i, k);
            sw = __smlad(__sxtb16((int32_t)v), 0x00010001, sw);
            sw = __smlad(mote_s8_sxtb16_ror8(v), 0x00010001, sw);
        }
        q[r].bias = (int32_t)((uint32_t)p->bias[r] - (uint32_t)p->in_zp * (uint32_t)sw);
        q[r].mult = p->mult[r];
        q[r].shift = p->shift[r];
        if (!mote_s8_fast_ok(q[r].bias, p->mult[r], p->shift[r], k)) {
            st->fast = 0;
        }
    }
    if (st->fast) {
        /* last pair first: pair j's 40 bytes cover general entries below 2j + 3, and
           entries 2j, 2j + 1 are read before they are written */
        for (r = (p->cout - 1) >> 1; r >= 0; r--) {
            int32_t *t = fq + (size_t)r * CONV_FAST_WORDS;
            const conv_q_t qa = q[2 * r];
            const conv_q_t qb = 2 * r + 1 < p->cout ? q[2 * r + 1] : qa;
            conv_fast_entry(t, 0, &qa, p->out_zp);
            conv_fast_entry(t, 1, &qb, p->out_zp);
        }
    }
}
#endif /* MOTE_S8_USE_CONV_GENERAL */

static mote_err_t conv_run(mote_kernel_ctx_t *ctx, const mote_s8_conv_params_t *p)
{
    mote_s8_rows_t it;
    const int32_t k = p->kh * p->kw * p->cin;
    const int32_t kpad = (k + 15) & ~15; /* scratch layout */
    const size_t own = mote_s8_conv_own_bytes(p);
    int32_t *x = (int32_t *)mote_s8_scratch(ctx, own);
    conv_q_t *q;
    int32_t *fq;
    conv_state_t st;
    void (*rows)(const mote_s8_conv_params_t *, void *) = conv_rows;
    int32_t r;
    if (x == NULL) {
        return MOTE_ERR_KERNEL_SCRATCH;
    }
    /* a variant the program does not run is compiled out (MOTE_S8_USE_*, mote_s8_arm.h) */
    MOTE_CHECK(mote_s8_conv_builder_built(p) &&
                   (CONV_CORE_CLAMP || (p->act_min == -128 && p->act_max == 127)) &&
                   (MOTE_S8_USE_CONV_ODD || (p->cout & 1) == 0),
               MOTE_ERR_UNSUPPORTED);
    st.x = x;
    /* the column triple of the fast path takes 3 * kpad int16 = 1.5 kpad words (the
       general path's pair kpad words of it) */
    st.wbuf = x + kpad + (kpad >> 1);
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
    /* the scratch's 32 * round4(Cout) bytes of table: the general one (16 bytes a
       channel), rewritten in place into the fast one (40 bytes a pair) if it applies */
    fq = (int32_t *)(void *)q;
    st.col8 = (int8_t *)(void *)(q + 2 * ((p->cout + 3) & ~3));
    st.q = q;
    st.fq = fq;
    /* the fast path sums 2 * acc from doubled weights: the program's panel with its
       table (aot/compiler/dsp_weights.py), or the rows widened here; a panel
       without the table holds them once: the general path */
    st.fast = p->wpanel == NULL || p->wtable != NULL;
    st.eform = p->wtable != NULL && (p->wtable[6] & MOTE_S8_EFORM_MARK) != 0;
    /* without the E-form, a store core (a program whose calls all have it has none) */
    MOTE_CHECK(st.eform || CONV_CORE_ANY, MOTE_ERR_UNSUPPORTED);
    if (!st.eform) { /* p->mult / p->shift read (the E-form reads only its own table) */
        MOTE_TRY(mote_s8_chan_values(p));
    }
    if (st.eform) {
        /* the E-form table (kernels/requant.h): K <= MOTE_S8_EFORM_KMAX, even Cout,
           out_zp -128 and the full range (no sign correction needed); any variant
           (conv_rows_pwe, conv_rows, conv_stem3_rows) */
        const int32_t *t = p->wtable;
        mote_s8_eform_lim_t lims[7];
        MOTE_CHECK(MOTE_S8_USE_CONV_E, MOTE_ERR_UNSUPPORTED);
        MOTE_CHECK((p->cout & 1) == 0 && p->out_zp == -128 && p->act_min == -128 &&
                       p->act_max == 127 && k >= 1 && k <= MOTE_S8_EFORM_KMAX,
                   MOTE_ERR_KERNEL_ARGS);
        if (p->cout >= 16) { /* the bounds once, not per channel (70 instructions) */
            mote_s8_eform_lims(lims, (uint32_t)k);
            for (r = 0; r < p->cout; r += 2, t += CONV_FAST_WORDS) {
                MOTE_CHECK(t[0] == t[1] && t[2] == t[3] &&
                               mote_s8_eform_entry_ok_l(lims, t[0], t[4], t[6]) &&
                               mote_s8_eform_entry_ok_l(lims, t[2], t[7], t[9]),
                           MOTE_ERR_KERNEL_ARGS);
            }
        } else {
            for (r = 0; r < p->cout; r += 2, t += CONV_FAST_WORDS) {
                MOTE_CHECK(t[0] == t[1] && t[2] == t[3] &&
                               mote_s8_eform_entry_ok(t[0], t[4], t[6], k) &&
                               mote_s8_eform_entry_ok(t[2], t[7], t[9], k),
                           MOTE_ERR_KERNEL_ARGS);
            }
        }
        st.fq = p->wtable;
    } else if (p->wtable != NULL) {
        /* the program's table (aot/compiler/dsp_weights.py): the compiler found every
           channel fast; the checks below keep the core's arithmetic exact */
        const int32_t lim2 = mote_s8_fast_lim2(k);
        const int32_t *t = p->wtable;
        for (r = 0; r < p->cout; r += 2, t += CONV_FAST_WORDS) {
            MOTE_CHECK(mote_s8_fast_entry_ok(t[0], t[4], t[6], lim2) &&
                           mote_s8_fast_entry_ok(t[2], t[7], t[9], lim2),
                       MOTE_ERR_KERNEL_ARGS);
        }
        st.fq = p->wtable;
    } else {
#if MOTE_S8_USE_CONV_GENERAL
        conv_table(p, k, &st);
#else
        return MOTE_ERR_UNSUPPORTED;
#endif
    }
#if MOTE_S8_USE_CONV_E && MOTE_S8_USE_CONV_PWE
    if (st.eform && mote_s8_eform_pw(p)) { /* small-K stride-1 pointwise: its own rows */
        rows = conv_rows_pwe;
    }
#endif
    if (conv_pointwise_in_place(p) || conv_apart(p)) { /* every row at once, no band copy */
        rows(p, &st);
        return MOTE_OK;
    }
    MOTE_TRY(mote_s8_rows_begin(ctx, own, p, &it));
    do {
        rows(&it.band, &st);
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

/* the DSP conv_run checks the multipliers and shifts on the paths that read them (not the
   E-form's), the other builds' at parse */
#if defined(MOTE_S8_DSP) && !defined(MOTE_S8_MVE)
#define CONV_PARSE_Q MOTE_S8_CONV_QLATER
#else
#define CONV_PARSE_Q 0
#endif

mote_err_t mote_kernel_mote_conv2d_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                          uint32_t nargs)
{
    mote_s8_conv_params_t p;
    const mote_err_t e = mote_s8_conv_parse(args, nargs, CONV_PARSE_Q, &p);
    if (e != MOTE_OK) {
        return e;
    }
    return conv_run(ctx, &p);
}

/* conv2d_s8_nchw: the DSP kernel's NCHW stem (conv_stem3_rows) for the STEM3X3C3 calls
   with the program's table (the compiler's, aot/compiler/dsp_weights.py nchw_stem_pass),
   else the plain-C loop (mote_s8_conv_ref_rows: the same bytes) */
mote_err_t mote_kernel_mote_conv2d_s8_nchw_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                               uint32_t nargs)
{
    mote_s8_conv_params_t p;
    mote_s8_rows_t it;
    MOTE_TRY(mote_s8_conv_parse(args, nargs, MOTE_S8_CONV_NCHW | CONV_PARSE_Q, &p));
#if defined(MOTE_S8_DSP) && MOTE_S8_USE_CONV_STEM3X3C3 && MOTE_S8_USE_CONV_STEM3_NCHW
    if (conv_stem3_fast(&p)) {
        return conv_run(ctx, &p);
    }
#endif
#if CONV_PARSE_Q
    MOTE_TRY(mote_s8_chan_values(&p));
#endif
    MOTE_TRY(mote_s8_rows_begin(ctx, 0u, &p, &it));
    do {
        mote_s8_conv_ref_rows(&it.band);
    } while (mote_s8_rows_next(&it));
    return MOTE_OK;
}
