/*
 * mote::depthwise_conv2d_s8.out - Cortex-M version (see mote_s8_arm.h).
 * Same bytes as kernels/op_mote_depthwise_conv2d_s8.c.
 *
 * Depth multiplier 1, at most DW_MAXT taps (KH*KW); other cases plain C with the
 * window clipped per pixel. Pixels whose window lies inside the input start from
 * a corrected bias bias - in_zp * sum(w) and multiply raw inputs.
 * Which path takes a 3x3 window: mote_s8_dw_variant() (kernels/requant.h), the rule
 * ops.json / aot inspect / aot profile name ("planes").
 * - MVE planes (dw_mve_planes, MOTE_S8_DW_MVE_PLANES): channel by channel over an int8
 *   plane with zero-point padding, four output pixels per vector, VMLA by the tap's
 *   scalar weight, scalar requantization, scatter store (DS-CNN: 0.77 MACs/instr).
 * - MVE otherwise (pixels outer): 3x3 pixels with every shift negative run one
 *   inline-assembly loop over groups of eight channels (int16 lanes: VLDRB.S16,
 *   VMULLB/VMULLT into even/odd int32x4, weights and de-interleaved constants
 *   from a per-group scratch table, VQMOVNB/VQMOVNT re-interleave, one store);
 *   border pixels the same over tap pointers (taps outside read a zero-point row);
 *   other windows: the same lanes in C intrinsics with x - in_zp over the valid taps
 *   and the plain bias; channel tails int32x4, predicated.
 * - DSP planes (dw_planar, MOTE_S8_DW_DSP_PLANES: full int8 range): each channel's
 *   input widened once (four channels at a time) into an int16 plane in scratch,
 *   then cmsis/mote_s8_planar.h.
 * - DSP otherwise (groups of four channels outer): weights widened once per group into
 *   SXTB16 pairs; a small map's whole group input (else each output row's strip of
 *   its KH input rows) copied with the padding materialized as zero-point words (so
 *   every pixel is an "interior" one); a 3x3 pixel is one inline-assembly block
 *   (SMLABB/SMLATT, conv2d_s8's SMMULR requantization, SSUB8/SEL clamp, one store).
 *   Channel tails: plain C.
 * Scratch: mote_s8_dw_scratch_bytes().
 */
#include "mote/kernel.h"
#include "mote_s8_arm.h"
#if MOTE_S8_USE_DW_PLANAR
#define MOTE_S8_PLANAR_C MOTE_S8_USE_DW_PLANAR_C
#define MOTE_S8_PLANAR_S2 MOTE_S8_USE_DW_PLANAR_S2
#define MOTE_S8_PLANAR_R MOTE_S8_USE_DW_PLANAR_R
#define MOTE_S8_PLANAR_E MOTE_S8_USE_DW_PLANAR_E
#include "mote_s8_planar.h"
#endif

MOTE_KERNEL("mote::depthwise_conv2d_s8.out")
MOTE_KERNEL_IN_PLACE_ROWS("mote::depthwise_conv2d_s8.out")

mote_err_t mote_kernel_mote_depthwise_conv2d_s8_out(mote_kernel_ctx_t *ctx,
                                                    mote_value_t *const *args, uint32_t nargs);

/** Largest KH*KW of the grouped (DSP / MVE) paths; larger windows run the plain loop. */
#define DW_MAXT 64
/** Words of the DSP path's zero-point-padded input strip (KH rows x padded width). */
#define DW_STRIP 256

/** Window of one output pixel clipped to the input: taps [ky0, ky1) x [kx0, kx1). */
typedef struct dw_win {
    int32_t y0, x0, ky0, ky1, kx0, kx1;
} dw_win_t;

/* DW_PLAIN: the plain loop is compiled in (every core but a DSP one whose program
   takes the plane for every call: MOTE_S8_USE_DW_GROUP 0, mote_s8_arm.h) */
#if !defined(MOTE_S8_DSP) || MOTE_S8_USE_DW_GROUP
#define DW_PLAIN 1
#else
#define DW_PLAIN 0
#endif
#if DW_PLAIN
static void dw_clip(const mote_s8_conv_params_t *p, int32_t oy, int32_t ox, dw_win_t *win)
{
    win->y0 = oy * p->stride_h - p->pad_h;
    win->x0 = ox * p->stride_w - p->pad_w;
    win->ky0 = 0;
    win->ky1 = p->kh;
    win->kx0 = 0;
    win->kx1 = p->kw;
    while (win->ky0 < win->ky1 && win->y0 + win->ky0 * p->dil_h < 0) {
        win->ky0++;
    }
    while (win->ky1 > win->ky0 && win->y0 + (win->ky1 - 1) * p->dil_h >= p->h) {
        win->ky1--;
    }
    while (win->kx0 < win->kx1 && win->x0 + win->kx0 * p->dil_w < 0) {
        win->kx0++;
    }
    while (win->kx1 > win->kx0 && win->x0 + (win->kx1 - 1) * p->dil_w >= p->w) {
        win->kx1--;
    }
}

#endif /* DW_PLAIN */

#if defined(MOTE_S8_MVE) || (defined(MOTE_S8_DSP) && MOTE_S8_USE_DW_GROUP)
/** Output rows [oy_lo, oy_hi) and columns [ox_lo, ox_hi) whose whole window is inside. */
typedef struct dw_range {
    int32_t oy_lo, oy_hi, ox_lo, ox_hi;
} dw_range_t;

static int dw_inside(int32_t o, int32_t s, int32_t pad, int32_t k, int32_t d, int32_t n)
{
    const int32_t i0 = o * s - pad;
    return i0 >= 0 && i0 + (k - 1) * d < n;
}

/** Along one axis (nout outputs over n inputs): the outputs [*lo, *hi) whose window is inside. */
static void dw_interior_axis(int32_t nout, int32_t s, int32_t pad, int32_t k, int32_t d, int32_t n,
                             int32_t *lo, int32_t *hi)
{
    *lo = 0;
    while (*lo < nout && !dw_inside(*lo, s, pad, k, d, n)) {
        (*lo)++;
    }
    *hi = nout;
    while (*hi > *lo && !dw_inside(*hi - 1, s, pad, k, d, n)) {
        (*hi)--;
    }
}

static void dw_interior(const mote_s8_conv_params_t *p, dw_range_t *r)
{
    dw_interior_axis(p->ho, p->stride_h, p->pad_h, p->kh, p->dil_h, p->h, &r->oy_lo, &r->oy_hi);
    dw_interior_axis(p->wo, p->stride_w, p->pad_w, p->kw, p->dil_w, p->w, &r->ox_lo, &r->ox_hi);
}
#endif

#if DW_PLAIN
/** Plain C: output channels [c0, c1) of one pixel (any depth multiplier). */
static void dw_plain_pixel(const mote_s8_conv_params_t *p, const int8_t *in, const dw_win_t *win,
                           int32_t c0, int32_t c1, int8_t *out)
{
    int32_t c, ky, kx;
    for (c = c0; c < c1; c++) {
        const int32_t ci = c / p->depth_mult;
        uint32_t acc = (uint32_t)p->bias[c];
        for (ky = win->ky0; ky < win->ky1; ky++) {
            const int8_t *xr = in + ((size_t)(win->y0 + ky * p->dil_h) * p->w) * p->cin + ci;
            const int8_t *wr = p->weight + (size_t)ky * p->kw * p->cout + c;
            for (kx = win->kx0; kx < win->kx1; kx++) {
                acc += (uint32_t)(((int32_t)xr[(size_t)(win->x0 + kx * p->dil_w) * p->cin] -
                                   p->in_zp) *
                                  (int32_t)wr[(size_t)kx * p->cout]);
            }
        }
        out[c] = mote_s8_finish_c(p, (int32_t)acc, c);
    }
}

/** Plain C, channels [c0, Cout) of output rows [oy0, oy1) (a band of mote_s8_rows_begin / next). */
static void dw_plain_band(const mote_s8_conv_params_t *p, int32_t c0)
{
    int32_t b, oy, ox;
    for (b = 0; b < p->n; b++) {
        const int8_t *in = p->input + (size_t)b * p->h * p->w * p->cin;
        for (oy = p->oy0; oy < p->oy1; oy++) {
            for (ox = 0; ox < p->wo; ox++) {
                dw_win_t win;
                dw_clip(p, oy, ox, &win);
                dw_plain_pixel(p, in, &win, c0, p->cout, mote_s8_out_px(p, b, oy, ox));
            }
        }
    }
}
#endif /* DW_PLAIN */

#if defined(MOTE_S8_MVE)
/**
 * Requantize eight channels (even / odd int32x4 accumulators) and store them:
 * SRDHM (VQRDMULH), RDBPOT (VRSHL after -1 on negative lanes; when some shift is
 * >= 0 the general mote_s8_mve_requant form), saturating narrow to int16 (a value
 * beyond int16 clamps to the same bound as in int32), + zero point (saturating),
 * clamp, re-interleave (VQMOVNB/VQMOVNT) and one narrowing store.
 */
MOTE_S8_INLINE void dw_mve_store8(int32x4_t ae, int32x4_t ao, const int32x4x2_t *m,
                                 const int32x4x2_t *s, int neg, int16x8_t lo, int16x8_t hi,
                                 int16_t ozp, int8_t *out)
{
    int16x8_t r = vdupq_n_s16(0);
    if (neg) {
        ae = vqrdmulhq_s32(ae, m->val[0]);
        ao = vqrdmulhq_s32(ao, m->val[1]);
        ae = vrshlq_s32(vqaddq_s32(ae, vshrq_n_s32(ae, 31)), s->val[0]);
        ao = vrshlq_s32(vqaddq_s32(ao, vshrq_n_s32(ao, 31)), s->val[1]);
    } else {
        ae = mote_s8_mve_requant(ae, m->val[0], s->val[0], 0, INT32_MIN, INT32_MAX);
        ao = mote_s8_mve_requant(ao, m->val[1], s->val[1], 0, INT32_MIN, INT32_MAX);
    }
    r = vqmovnbq_s32(r, ae);
    r = vqmovntq_s32(r, ao);
    r = vqaddq_n_s16(r, ozp);
    r = vminq_s16(vmaxq_s16(r, lo), hi);
    vstrbq_s16(out, r);
}

/** acc (even, odd) += x * w over eight channels, int16 lanes. */
#define DW_MVE_TAP(xp, wp, zp)                                                             \
    do {                                                                                   \
        const int16x8_t xv_ = vsubq_n_s16(vldrbq_s16(xp), (zp));                           \
        const int16x8_t wv_ = vldrbq_s16(wp);                                              \
        ae = vaddq_s32(ae, vmullbq_int_s16(xv_, wv_));                                     \
        ao = vaddq_s32(ao, vmulltq_int_s16(xv_, wv_));                                     \
    } while (0)

/**
 * One output pixel, channels [0, cout): eight per step (int16 lanes, even and
 * odd channels in two int32x4 accumulators), then a predicated int32x4 tail.
 * interior: bias4 = corrected bias, raw x; else bias4 = bias, x - zp.
 */
MOTE_S8_HOT static void dw_mve_pixel(const mote_s8_conv_params_t *p, const int8_t *in, const dw_win_t *win,
                         const int32_t *bias4, int interior, int neg, int32_t c0, int8_t *out)
{
    const int32_t cout = p->cout;
    const int16_t zp = (int16_t)(interior ? 0 : p->in_zp);
    const size_t xstep = (size_t)p->dil_w * (size_t)cout;
    const size_t ystep = (size_t)p->dil_h * (size_t)p->w * (size_t)cout;
    const size_t wystep = (size_t)p->kw * (size_t)cout;
    const int8_t *x00 = in + ((size_t)(win->y0 + win->ky0 * p->dil_h) * p->w +
                              (size_t)(win->x0 + win->kx0 * p->dil_w)) * cout;
    const int8_t *w00 = p->weight + ((size_t)win->ky0 * p->kw + (size_t)win->kx0) * cout;
    const int32_t nky = win->ky1 - win->ky0;
    const int32_t nkx = win->kx1 - win->kx0;
    const int32_t ozp = p->out_zp, amin = p->act_min, amax = p->act_max;
    const int16x8_t lo = vdupq_n_s16((int16_t)amin);
    const int16x8_t hi = vdupq_n_s16((int16_t)amax);
    int32_t c = c0;
    for (; c + 8 <= cout; c += 8) {
        const int32x4x2_t b = vld2q_s32(bias4 + c);
        const int32x4x2_t m = vld2q_s32(p->mult + c);
        const int32x4x2_t s = vld2q_s32(p->shift + c);
        int32x4_t ae = b.val[0];
        int32x4_t ao = b.val[1];
        const int8_t *xr = x00 + c;
        const int8_t *wr = w00 + c;
        int32_t ky, kx;
        {
            for (ky = 0; ky < nky; ky++, xr += ystep, wr += wystep) {
                const int8_t *xp = xr;
                const int8_t *wp = wr;
                for (kx = 0; kx < nkx; kx++, xp += xstep, wp += cout) {
                    DW_MVE_TAP(xp, wp, zp);
                }
            }
        }
        dw_mve_store8(ae, ao, &m, &s, neg, lo, hi, (int16_t)ozp, out + c);
    }
    for (; c < cout; c += 4) {
        const mve_pred16_t pr = vctp32q((uint32_t)(cout - c));
        int32x4_t acc = vldrwq_z_s32(bias4 + c, pr);
        const int8_t *xr = x00 + c;
        const int8_t *wr = w00 + c;
        int32_t ky, kx;
        for (ky = 0; ky < nky; ky++, xr += ystep, wr += wystep) {
            const int8_t *xp = xr;
            const int8_t *wp = wr;
            for (kx = 0; kx < nkx; kx++, xp += xstep, wp += cout) {
                acc = vaddq_s32(acc, vmulq_s32(vsubq_n_s32(vldrbq_z_s32(xp, pr), zp),
                                               vldrbq_z_s32(wp, pr)));
            }
        }
        vstrbq_p_s32(out + c,
                     mote_s8_mve_requant(acc, vldrwq_z_s32(p->mult + c, pr),
                                         vldrwq_z_s32(p->shift + c, pr), ozp, amin, amax),
                     pr);
    }
}
#undef DW_MVE_TAP

/*
 * 3x3 interior pixel, every shift negative: per group of eight channels a
 * DW_MVE_GROUP-byte block of the scratch table holds the nine taps' weights
 * (8 bytes each, immediate offsets), then even / odd int32x4 of the corrected
 * bias, multiplier and shift. Per tap VLDRB.S16 of input and weights, VMULLB /
 * VMULLT and two VADD (6 instructions, 8 MACs); requantization as
 * dw_mve_store8() (neg form) with VQMOVNB/VQMOVNT re-interleaving.
 */
#define DW_MVE_GROUP 176
#define DW_MVE_TAP3(woff)                                                                  \
    "vldrb.s16 q2, [%[t]]\n\t"                                                             \
    "vldrb.s16 q3, [%[g], #" woff "]\n\t"                                                  \
    "vmullb.s16 q4, q2, q3\n\t"                                                            \
    "vadd.i32 q0, q0, q4\n\t"                                                              \
    "vmullt.s16 q4, q2, q3\n\t"                                                            \
    "vadd.i32 q1, q1, q4\n\t"

__attribute__((noinline)) static void dw_mve_px3x3(const int8_t *tbl, const int8_t *xr, int32_t xs, int32_t ys,
                         int32_t groups, int32_t ozp, int32_t amin, int32_t amax, int8_t *out)
{
    const int8_t *t;
    __asm__ volatile(
        "vdup.16 q5, %[lo]\n\t"
        "vdup.16 q6, %[hi]\n\t"
        "1:\n\t"
        "vldrw.32 q0, [%[g], #80]\n\t"
        "vldrw.32 q1, [%[g], #96]\n\t"
        "mov %[t], %[x]\n\t"
        DW_MVE_TAP3("0") "add %[t], %[t], %[xs]\n\t"
        DW_MVE_TAP3("8") "add %[t], %[t], %[xs]\n\t"
        DW_MVE_TAP3("16") "add %[t], %[x], %[ys]\n\t"
        DW_MVE_TAP3("24") "add %[t], %[t], %[xs]\n\t"
        DW_MVE_TAP3("32") "add %[t], %[t], %[xs]\n\t"
        DW_MVE_TAP3("40") "add %[t], %[x], %[ys], lsl #1\n\t"
        DW_MVE_TAP3("48") "add %[t], %[t], %[xs]\n\t"
        DW_MVE_TAP3("56") "add %[t], %[t], %[xs]\n\t"
        DW_MVE_TAP3("64")
        "vldrw.32 q2, [%[g], #112]\n\t"
        "vldrw.32 q3, [%[g], #128]\n\t"
        "vqrdmulh.s32 q0, q0, q2\n\t"
        "vqrdmulh.s32 q1, q1, q3\n\t"
        "vshr.s32 q2, q0, #31\n\t"
        "vshr.s32 q3, q1, #31\n\t"
        "vqadd.s32 q0, q0, q2\n\t"
        "vqadd.s32 q1, q1, q3\n\t"
        "vldrw.32 q2, [%[g], #144]\n\t"
        "vldrw.32 q3, [%[g], #160]\n\t"
        "vrshl.s32 q0, q0, q2\n\t"
        "vrshl.s32 q1, q1, q3\n\t"
        "vqmovnb.s32 q4, q0\n\t"
        "vqmovnt.s32 q4, q1\n\t"
        "vqadd.s16 q4, q4, %[zp]\n\t"
        "vmax.s16 q4, q4, q5\n\t"
        "vmin.s16 q4, q4, q6\n\t"
        "vstrb.16 q4, [%[out]], #8\n\t"
        "add %[x], %[x], #8\n\t"
        "add %[g], %[g], #" "176" "\n\t"
        "subs %[n], %[n], #1\n\t"
        "bne 1b\n\t"
        : [x] "+&r"(xr), [g] "+&l"(tbl), [out] "+&l"(out), [n] "+&r"(groups), [t] "=&l"(t)
        : [xs] "r"(xs), [ys] "r"(ys), [zp] "r"(ozp), [lo] "r"(amin), [hi] "r"(amax)
        : "q0", "q1", "q2", "q3", "q4", "q5", "q6", "cc", "memory");
}

/*
 * dw_mve_px3x3 for a border pixel: tap k reads tp[k] + 8 * group (tp[k]: the tap's
 * input pixel, or the zero-point row for a tap outside the input, which adds
 * (zp - zp) * w = 0 to the corrected bias); one LDR and one ADD per tap more.
 */
#define DW_MVE_TAPP(poff, woff)                                                            \
    "ldr %[t], [%[pp], #" poff "]\n\t"                                                    \
    "add %[t], %[t], %[o]\n\t"                                                            \
    "vldrb.s16 q2, [%[t]]\n\t"                                                            \
    "vldrb.s16 q3, [%[g], #" woff "]\n\t"                                                 \
    "vmullb.s16 q4, q2, q3\n\t"                                                           \
    "vadd.i32 q0, q0, q4\n\t"                                                             \
    "vmullt.s16 q4, q2, q3\n\t"                                                           \
    "vadd.i32 q1, q1, q4\n\t"

__attribute__((noinline)) static void dw_mve_px3x3p(const int8_t *tbl, const int8_t *const *tp,
                                                    int32_t groups, int32_t ozp, int32_t amin,
                                                    int32_t amax, int8_t *out)
{
    const int8_t *t;
    int32_t o = 0;
    __asm__ volatile(
        "vdup.16 q5, %[lo]\n\t"
        "vdup.16 q6, %[hi]\n\t"
        "1:\n\t"
        "vldrw.32 q0, [%[g], #80]\n\t"
        "vldrw.32 q1, [%[g], #96]\n\t"
        DW_MVE_TAPP("0", "0") DW_MVE_TAPP("4", "8") DW_MVE_TAPP("8", "16")
        DW_MVE_TAPP("12", "24") DW_MVE_TAPP("16", "32") DW_MVE_TAPP("20", "40")
        DW_MVE_TAPP("24", "48") DW_MVE_TAPP("28", "56") DW_MVE_TAPP("32", "64")
        "vldrw.32 q2, [%[g], #112]\n\t"
        "vldrw.32 q3, [%[g], #128]\n\t"
        "vqrdmulh.s32 q0, q0, q2\n\t"
        "vqrdmulh.s32 q1, q1, q3\n\t"
        "vshr.s32 q2, q0, #31\n\t"
        "vshr.s32 q3, q1, #31\n\t"
        "vqadd.s32 q0, q0, q2\n\t"
        "vqadd.s32 q1, q1, q3\n\t"
        "vldrw.32 q2, [%[g], #144]\n\t"
        "vldrw.32 q3, [%[g], #160]\n\t"
        "vrshl.s32 q0, q0, q2\n\t"
        "vrshl.s32 q1, q1, q3\n\t"
        "vqmovnb.s32 q4, q0\n\t"
        "vqmovnt.s32 q4, q1\n\t"
        "vqadd.s16 q4, q4, %[zp]\n\t"
        "vmax.s16 q4, q4, q5\n\t"
        "vmin.s16 q4, q4, q6\n\t"
        "vstrb.16 q4, [%[out]], #8\n\t"
        "add %[o], %[o], #8\n\t"
        "add %[g], %[g], #" "176" "\n\t"
        "subs %[n], %[n], #1\n\t"
        "bne 1b\n\t"
        : [o] "+&r"(o), [g] "+&l"(tbl), [out] "+&l"(out), [n] "+&r"(groups), [t] "=&l"(t)
        : [pp] "r"(tp), [zp] "r"(ozp), [lo] "r"(amin), [hi] "r"(amax)
        : "q0", "q1", "q2", "q3", "q4", "q5", "q6", "cc", "memory");
}
#undef DW_MVE_TAPP
#undef DW_MVE_TAP3

/** What dw_rows reads besides p: the corrected bias, the 3x3 group table and the
    zero-point row (8 bytes per group) the border taps outside the input read. */
typedef struct dw_state {
    const int32_t *cbias;
    const int8_t *tbl;
    const int8_t *zrow;
    int k3, neg;
} dw_state_t;

/** Output rows [oy0, oy1) (a band of mote_s8_rows_begin / next). */
MOTE_S8_HOT static void dw_rows(const mote_s8_conv_params_t *p, void *state)
{
    const dw_state_t *st = (const dw_state_t *)state;
    const int32_t groups = p->cout >> 3;
    dw_range_t rng;
    int32_t b, oy, ox;
    dw_interior(p, &rng);
    for (b = 0; b < p->n; b++) {
        const int8_t *in = p->input + (size_t)b * p->h * p->w * p->cin;
        for (oy = p->oy0; oy < p->oy1; oy++) {
            const int row_in = oy >= rng.oy_lo && oy < rng.oy_hi;
            for (ox = 0; ox < p->wo; ox++) {
                int8_t *out = mote_s8_out_px(p, b, oy, ox);
                dw_win_t win;
                if (row_in && ox >= rng.ox_lo && ox < rng.ox_hi) {
                    win.y0 = oy * p->stride_h - p->pad_h;
                    win.x0 = ox * p->stride_w - p->pad_w;
                    win.ky0 = win.kx0 = 0;
                    win.ky1 = p->kh;
                    win.kx1 = p->kw;
                    if (st->k3) {
                        const int8_t *x = in + ((size_t)win.y0 * p->w + (size_t)win.x0) * p->cout;
                        dw_mve_px3x3(st->tbl, x, p->dil_w * p->cout, p->dil_h * p->w * p->cout,
                                     groups, p->out_zp, p->act_min, p->act_max, out);
                        if ((p->cout & 7) == 0) {
                            continue;
                        }
                    }
                    dw_mve_pixel(p, in, &win, st->cbias, 1, st->neg, st->k3 ? 8 * groups : 0,
                                 out);
                } else if (st->k3) {
                    /* border: the 3x3 kernel over tap pointers, taps outside at the
                       zero-point row; channel tails as below */
                    const int8_t *tp[9];
                    const int32_t y0 = oy * p->stride_h - p->pad_h;
                    const int32_t x0 = ox * p->stride_w - p->pad_w;
                    int32_t ky, kx;
                    for (ky = 0; ky < 3; ky++) {
                        const int32_t iy = y0 + ky * p->dil_h;
                        for (kx = 0; kx < 3; kx++) {
                            const int32_t ix = x0 + kx * p->dil_w;
                            tp[3 * ky + kx] = (iy >= 0 && iy < p->h && ix >= 0 && ix < p->w)
                                                  ? in + ((size_t)iy * p->w + (size_t)ix) * p->cout
                                                  : st->zrow;
                        }
                    }
                    dw_mve_px3x3p(st->tbl, tp, groups, p->out_zp, p->act_min, p->act_max, out);
                    if ((p->cout & 7) != 0) {
                        dw_clip(p, oy, ox, &win);
                        dw_mve_pixel(p, in, &win, p->bias, 0, st->neg, 8 * groups, out);
                    }
                } else {
                    dw_clip(p, oy, ox, &win);
                    dw_mve_pixel(p, in, &win, p->bias, 0, st->neg, 0, out);
                }
            }
        }
    }
}

/** Bytes per line of the MVE "planes" path's int8 plane (fixed: the assembly's
    immediate offsets, at most 127): stride 1 along the line, and stride 2 (its
    even positions, then the odd ones at DW_PL2 / 2); lines of up to that many
    bytes (the padding included) qualify. */
#define DW_PL MOTE_S8_DW_LINE
#define DW_PL2 MOTE_S8_DW_LINE2
typedef char dw_pl_ok[(DW_PL == 60 && DW_PL2 == 50) ? 1 : -1]; /* the immediates below */

/** One output line of one channel for dw_mve_line_s1 / _s2 (offsets fixed below). */
typedef struct dw_line {
    const int8_t *x;  /* plane: first tap of the line's first output */
    int8_t *o;        /* output of the line's first pixel (channel c) */
    int32_t n;        /* outputs on the line */
    int32_t w[9];     /* w[3 kb + ka]: tap ka along the line, kb across */
    int32_t m, sh;    /* multiplier, shift (< 0) */
    int32_t cb, zp, lo, hi; /* corrected bias, output zero point, clamp */
    int32_t step;     /* output bytes between four pixels */
    int32_t lines;    /* output lines (> 0); x / o advance by xstep / ostep per line */
    uint32_t off[4];  /* output bytes of lanes 0..3 */
    int32_t xstep, ostep;
} dw_line_t;

typedef char dw_line_ok[(offsetof(dw_line_t, w) == 12 && offsetof(dw_line_t, m) == 48 &&
                         offsetof(dw_line_t, step) == 72 && offsetof(dw_line_t, off) == 80 &&
                         offsetof(dw_line_t, xstep) == 96)
                            ? 1
                            : -1];

/*
 * Four outputs per iteration (a tail-predicated DLSTP/LETP loop): VMOV of the
 * corrected bias, nine VLDRB.S32 + VMLA.I32 by the tap's weight (r3..r11), then
 * VQRDMULH / sign fix / VRSHL by the scalar multiplier (r12) and shift (r0),
 * + zero point, clamp, scatter VSTRB.32 (lane offsets q6, advanced by q7).
 * 29 instructions per 36 MACs. K0, K1, K2: plane offsets of taps ka = 0, 1, 2.
 */
#define DW_LINE_ASM(K1, K2, L1, L2)                                                         \
    "push {r4-r11, lr}\n\t"                                                                \
    "vpush {d8-d15}\n\t"                                                                   \
    "str r0, [sp, #-8]!\n\t"                                                               \
    "ldr r1, [r0, #56]\n\t"                                                                \
    "vdup.32 q2, r1\n\t"                                                                   \
    "ldr r1, [r0, #60]\n\t"                                                                \
    "vdup.32 q3, r1\n\t"                                                                   \
    "ldr r1, [r0, #64]\n\t"                                                                \
    "vdup.32 q4, r1\n\t"                                                                   \
    "ldr r1, [r0, #68]\n\t"                                                                \
    "vdup.32 q5, r1\n\t"                                                                   \
    "ldr r1, [r0, #72]\n\t"                                                                \
    "vdup.32 q7, r1\n\t"                                                                   \
    "add r1, r0, #12\n\t"                                                                  \
    "ldm r1, {r3-r11}\n\t"                                                                 \
    "ldr r12, [r0, #48]\n\t"                                                               \
    "2:\n\t"                                                                               \
    "ldr lr, [sp]\n\t"                                                                     \
    "vldrw.u32 q6, [lr, #80]\n\t"                                                          \
    "ldrd r1, r2, [lr]\n\t"                                                                \
    "ldr r0, [lr, #52]\n\t"                                                                \
    "ldr lr, [lr, #8]\n\t"                                                                 \
    "dlstp.32 lr, lr\n\t"                                                                  \
    "1:\n\t"                                                                               \
    "vmov q0, q2\n\t"                                                                      \
    "vldrb.s32 q1, [r1, #" K1 "]\n\t"                                                      \
    "vmla.s32 q0, q1, r4\n\t"                                                              \
    "vldrb.s32 q1, [r1, #" K2 "]\n\t"                                                      \
    "vmla.s32 q0, q1, r5\n\t"                                                              \
    "vldrb.s32 q1, [r1, #" L1 "]\n\t"                                                          \
    "vmla.s32 q0, q1, r6\n\t"                                                              \
    "vldrb.s32 q1, [r1, #" L1 "+" K1 "]\n\t"                                                   \
    "vmla.s32 q0, q1, r7\n\t"                                                              \
    "vldrb.s32 q1, [r1, #" L1 "+" K2 "]\n\t"                                                   \
    "vmla.s32 q0, q1, r8\n\t"                                                              \
    "vldrb.s32 q1, [r1, #" L2 "]\n\t"                                                         \
    "vmla.s32 q0, q1, r9\n\t"                                                              \
    "vldrb.s32 q1, [r1, #" L2 "+" K1 "]\n\t"                                                  \
    "vmla.s32 q0, q1, r10\n\t"                                                             \
    "vldrb.s32 q1, [r1, #" L2 "+" K2 "]\n\t"                                                  \
    "vmla.s32 q0, q1, r11\n\t"                                                             \
    "vldrb.s32 q1, [r1], #4\n\t"                                                           \
    "vmla.s32 q0, q1, r3\n\t"                                                              \
    "vqrdmulh.s32 q0, q0, r12\n\t"                                                         \
    "vshr.s32 q1, q0, #31\n\t"                                                             \
    "vqadd.s32 q0, q0, q1\n\t"                                                             \
    "vrshl.s32 q0, r0\n\t"                                                                 \
    "vqadd.s32 q0, q0, q3\n\t"                                                             \
    "vmax.s32 q0, q0, q4\n\t"                                                              \
    "vmin.s32 q0, q0, q5\n\t"                                                              \
    "vstrb.32 q0, [r2, q6]\n\t"                                                            \
    "vadd.i32 q6, q6, q7\n\t"                                                              \
    "letp lr, 1b\n\t"                                                                      \
    "ldr lr, [sp]\n\t"                                                                     \
    "ldrd r1, r2, [lr]\n\t"                                                                \
    "ldr r0, [lr, #96]\n\t"                                                                \
    "add r1, r1, r0\n\t"                                                                   \
    "ldr r0, [lr, #100]\n\t"                                                               \
    "add r2, r2, r0\n\t"                                                                   \
    "strd r1, r2, [lr]\n\t"                                                                \
    "ldr r0, [lr, #76]\n\t"                                                                \
    "subs r0, r0, #1\n\t"                                                                  \
    "str r0, [lr, #76]\n\t"                                                                \
    "bne 2b\n\t"                                                                           \
    "add sp, sp, #8\n\t"                                                                   \
    "vpop {d8-d15}\n\t"                                                                    \
    "pop {r4-r11, pc}\n\t"

/* stride 1 along the line: taps at +0, +1, +2 */
__attribute__((naked, noinline)) static void dw_mve_line_s1(const dw_line_t *job __attribute__((unused)))
{
    __asm__ volatile(DW_LINE_ASM("1", "2", "60", "120"));
}

/* stride 2: lines of DW_PL2 bytes, even positions first, odd ones from byte 25: +0, +25, +1 */
__attribute__((naked, noinline)) static void dw_mve_line_s2(const dw_line_t *job __attribute__((unused)))
{
    __asm__ volatile(DW_LINE_ASM("25", "1", "50", "100"));
}
#undef DW_LINE_ASM

/**
 * Gather lines: for each of `lines` > 0 lines, k > 0 int8 values src[0], src[step4 / 4],
 * ... (four at a time, lane offsets g[0..3]) to d[0..k), then src += g[4], d += g[5];
 * a tail-predicated DLSTP/LETP loop per line.
 */
MOTE_S8_INLINE void dw_mve_gather(const int8_t *src, int8_t *d, int32_t lines, int32_t k,
                                  int32_t step4, const uint32_t *g)
{
    const int8_t *s;
    int8_t *t;
    __asm__ volatile("vldrw.u32 q1, [%[g]]\n\t"
                     "2:\n\t"
                     "mov %[s], %[src]\n\t"
                     "mov %[t], %[d]\n\t"
                     "dlstp.32 lr, %[k]\n\t"
                     "1:\n\t"
                     "vldrb.s32 q0, [%[s], q1]\n\t"
                     "vstrb.32 q0, [%[t]], #4\n\t"
                     "add %[s], %[s], %[st]\n\t"
                     "letp lr, 1b\n\t"
                     "ldrd %[s], %[t], [%[g], #16]\n\t"
                     "add %[src], %[src], %[s]\n\t"
                     "add %[d], %[d], %[t]\n\t"
                     "subs %[n], %[n], #1\n\t"
                     "bne 2b\n\t"
                     : [src] "+r"(src), [d] "+r"(d), [n] "+r"(lines), [s] "=&r"(s), [t] "=&l"(t)
                     : [k] "r"(k), [st] "r"(step4), [g] "r"(g)
                     : "q0", "q1", "lr", "cc", "memory");
}

/**
 * 3x3 windows of dilation 1, stride 1 or 2 ("planes"): channel by channel, four
 * output pixels of one channel in the int32 lanes of a vector. The channel's NHWC
 * input is gathered once (VLDRB.S32 gather, four pixels per instruction) into an
 * int8 plane in scratch (lines of DW_PL bytes; for stride 2 along the line, even
 * positions first, then odd ones, so every tap is a contiguous load) whose
 * padding holds the input zero point: every pixel takes raw inputs against the
 * corrected bias bias - in_zp * sum(w), no border case. The lines run along H
 * when that needs fewer vectors (DS-CNN's 25x5 map: 35 against 50). Each output
 * line: dw_mve_line_s1 / _s2 (channels with a shift >= 0: the same plane in C
 * intrinsics with mote_s8_mve_requant). In place (the output at the input's first
 * byte, one image): a channel's outputs overwrite only that channel's inputs, all
 * in its plane before. Returns 0 (nothing written) when the call does not qualify
 * or the scratch is too small.
 */
MOTE_S8_HOT static int dw_mve_planes(const mote_kernel_ctx_t *ctx, const mote_s8_conv_params_t *p)
{
    const int32_t cout = p->cout;
    const int along_h = mote_s8_dw_along_h(p->ho, p->wo);
    const int32_t na = along_h ? p->h : p->w, nb = along_h ? p->w : p->h;
    const int32_t nao = along_h ? p->ho : p->wo, nbo = along_h ? p->wo : p->ho;
    const int32_t sa = along_h ? p->stride_h : p->stride_w, sb = along_h ? p->stride_w : p->stride_h;
    const int32_t pa = along_h ? p->pad_h : p->pad_w, pb = along_h ? p->pad_w : p->pad_h;
    const int32_t la = na + 2 * pa, lb = nb + 2 * pb; /* plane: lb lines of la bytes */
    /* NHWC bytes per step along a / b, input and output */
    const int32_t ia = along_h ? p->w * cout : cout, ib = along_h ? cout : p->w * cout;
    const int32_t oa = along_h ? p->wo * cout : cout, ob = along_h ? cout : p->wo * cout;
    const uint8_t *ibp = (const uint8_t *)p->input, *obp = (const uint8_t *)p->output;
    const size_t in_bytes = (size_t)p->n * p->h * p->w * p->cin;
    const size_t out_bytes = (size_t)p->n * p->ho * p->wo * cout;
    const int32_t pl = sa == 1 ? DW_PL : DW_PL2; /* plane bytes per line */
    const size_t plane_bytes = (size_t)lb * (size_t)pl + 16u;
    const int32_t step4 = 4 * sa * ia;
    int8_t *plane;
    dw_line_t job;
    int32_t widx[9], fa0[2], fcnt[2], foff[2];
    uint32_t offi[6]; /* gather lane offsets, then input / plane bytes per line */
    int32_t b, c, j;
    if (!(mote_s8_dw_variant(p->kh, p->kw, p->stride_h, p->stride_w, p->dil_h, p->dil_w, p->h, p->w,
                             p->pad_h, p->pad_w, p->act_min, p->act_max) &
          MOTE_S8_DW_MVE_PLANES) ||
        la > (sa == 1 ? DW_PL : DW_PL2) ||
        (ibp == obp ? p->n != 1 : (obp < ibp + in_bytes && ibp < obp + out_bytes))) {
        return 0;
    }
    plane = (int8_t *)mote_s8_scratch(ctx, 16u + plane_bytes);
    if (plane == NULL) {
        return 0;
    }
    memset(plane, (int)(uint8_t)p->in_zp, plane_bytes); /* the padding stays zp */
    job.zp = p->out_zp;
    job.lo = p->act_min;
    job.hi = p->act_max;
    job.step = 4 * oa;
    job.xstep = sb * pl;
    job.ostep = ob;
    for (j = 0; j < 4; j++) {
        job.off[j] = (uint32_t)(j * oa);
        offi[j] = (uint32_t)(j * sa * ia);
    }
    offi[4] = (uint32_t)ib;
    offi[5] = (uint32_t)pl;
    for (j = 0; j < 9; j++) { /* w[3 kb + ka]: tap ka along the line, kb across */
        const int32_t ka = j % 3, kb = j / 3;
        widx[j] = (along_h ? 3 * ka + kb : 3 * kb + ka) * cout;
    }
    /* the input line's elements by parity of their plane position (stride 2: even
       positions at q / 2, odd ones from pl / 2): first element, count, plane offset */
    for (j = 0; j < sa; j++) {
        const int32_t a0 = sa == 1 ? 0 : ((pa + j) & 1);
        fa0[j] = a0 * ia;
        fcnt[j] = (na - a0 + sa - 1) / sa;
        foff[j] = sa == 1 ? pa : (j ? pl / 2 : 0) + (pa + a0) / 2;
    }
    for (b = 0; b < p->n; b++) {
        const int8_t *in = p->input + (size_t)b * p->h * p->w * cout;
        int8_t *out = p->output + (size_t)b * p->ho * p->wo * cout;
        for (c = 0; c < cout; c++) {
            const int8_t *wc = p->weight + c;
            int32_t sum = 0, bo;
            for (j = 0; j < 9; j++) {
                job.w[j] = wc[widx[j]];
                sum += job.w[j];
            }
            job.cb = (int32_t)((uint32_t)p->bias[c] - (uint32_t)p->in_zp * (uint32_t)sum);
            job.m = p->mult[c];
            job.sh = p->shift[c];
            for (j = 0; j < sa; j++) { /* the channel's input lines, by parity */
                if (fcnt[j] > 0) {
                    dw_mve_gather(in + c + fa0[j], plane + (size_t)pb * pl + foff[j], nb, fcnt[j],
                                  step4, offi);
                }
            }
            job.x = plane;
            job.o = out + c;
            job.n = nao;
            job.lines = nbo;
            if (job.sh < 0) {
                if (sa == 1) {
                    dw_mve_line_s1(&job);
                } else {
                    dw_mve_line_s2(&job);
                }
                continue;
            }
            for (bo = 0; bo < nbo; bo++) { /* shift >= 0: the general requantization */
                const int32_t k1 = sa == 1 ? 1 : pl / 2, k2 = sa == 1 ? 2 : 1;
                const uint32x4_t offo = vld1q_u32(job.off);
                int8_t *o = out + (size_t)bo * ob + c;
                int32_t ao;
                for (ao = 0; ao < nao; ao += 4) {
                    const mve_pred16_t pr = vctp32q((uint32_t)(nao - ao));
                    const int8_t *x = plane + (size_t)(bo * sb) * pl + ao;
                    int32x4_t acc = vdupq_n_s32(job.cb);
                    int32_t kb;
                    for (kb = 0; kb < 3; kb++, x += pl) {
                        acc = vmlaq_n_s32(acc, vldrbq_s32(x), job.w[3 * kb]);
                        acc = vmlaq_n_s32(acc, vldrbq_s32(x + k1), job.w[3 * kb + 1]);
                        acc = vmlaq_n_s32(acc, vldrbq_s32(x + k2), job.w[3 * kb + 2]);
                    }
                    acc = mote_s8_mve_requant(acc, vdupq_n_s32(job.m), vdupq_n_s32(job.sh), job.zp,
                                              job.lo, job.hi);
                    vstrbq_scatter_offset_p_s32(o + (size_t)ao * oa, offo, acc, pr);
                }
            }
        }
    }
    return 1;
}

static mote_err_t dw_run(mote_kernel_ctx_t *ctx, const mote_s8_conv_params_t *p)
{
    mote_s8_rows_t it;
    int32_t *cbias = (int32_t *)mote_s8_scratch(
        ctx, mote_s8_dw_own_bytes(p));
    const int32_t taps = p->kh * p->kw;
    const int32_t groups = p->cout >> 3;
    int8_t *tbl;
    dw_state_t st;
    int32_t c, t;
    int neg = 1, k3;
    if (cbias == NULL) {
        return MOTE_ERR_KERNEL_SCRATCH;
    }
    if (dw_mve_planes(ctx, p)) {
        return MOTE_OK;
    }
    for (c = 0; c < p->cout; c += 4) { /* four channels a step: sum w, bias - zp * sum w */
        const mve_pred16_t pr = vctp32q((uint32_t)(p->cout - c));
        int32x4_t sw = vdupq_n_s32(0);
        for (t = 0; t < taps; t++) {
            sw = vaddq_s32(sw, vldrbq_z_s32(p->weight + (size_t)t * p->cout + c, pr));
        }
        vstrwq_p_s32(cbias + c, vsubq_s32(vldrwq_z_s32(p->bias + c, pr), vmulq_n_s32(sw, p->in_zp)),
                     pr);
        neg &= vmaxvq_p_s32(INT32_MIN, vldrwq_z_s32(p->shift + c, pr), pr) < 0;
    }
    tbl = (int8_t *)(cbias + ((p->cout + 3) & ~3)); /* 16-byte aligned */
    k3 = p->kh == 3 && p->kw == 3 && neg && groups > 0;
    if (k3) {
        for (c = 0; c < groups; c++) {
            int8_t *g8 = tbl + (size_t)c * DW_MVE_GROUP;
            int32_t *g32 = (int32_t *)(void *)(g8 + 80);
            int32x4x2_t v;
            for (t = 0; t < 9; t++) {
                memcpy(g8 + 8 * t, p->weight + (size_t)t * p->cout + 8 * c, 8);
            }
            /* even / odd channels de-interleaved (VLD2) */
            v = vld2q_s32(cbias + 8 * c);
            vst1q_s32(g32, v.val[0]);
            vst1q_s32(g32 + 4, v.val[1]);
            v = vld2q_s32(p->mult + 8 * c);
            vst1q_s32(g32 + 8, v.val[0]);
            vst1q_s32(g32 + 12, v.val[1]);
            v = vld2q_s32(p->shift + 8 * c);
            vst1q_s32(g32 + 16, v.val[0]);
            vst1q_s32(g32 + 20, v.val[1]);
        }
    }
    st.cbias = cbias;
    st.tbl = tbl;
    st.zrow = tbl + (size_t)groups * DW_MVE_GROUP;
    if (k3) {
        memset(tbl + (size_t)groups * DW_MVE_GROUP, (int)(uint8_t)p->in_zp, (size_t)groups * 8u);
    }
    st.k3 = k3;
    st.neg = neg;
    MOTE_TRY(mote_s8_rows_begin(ctx, mote_s8_dw_own_bytes(p), p, &it));
    do {
        dw_rows(&it.band, &st);
    } while (mote_s8_rows_next(&it));
    return MOTE_OK;
}

#elif defined(MOTE_S8_DSP)
#if MOTE_S8_USE_DW_GROUP /* the group path (MOTE_S8_USE_* in mote_s8_arm.h) */
/** (a * b + 2^31) >> 32: SMMULR. */
MOTE_S8_INLINE int32_t dw_smmulr(int32_t a, int32_t b)
{
    int32_t r;
    __asm__("smmulr %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));
    return r;
}

/**
 * Per-group constants of the DSP path. With the fast requantization the weights
 * and biases are doubled (the accumulator is then 2 * acc, what SMMULR needs).
 * The assembly below uses the byte offsets checked by DW_OFFSETS_OK.
 */
typedef struct dw_group {
    int32_t wv[2 * DW_MAXT]; /* per tap: SXTB16 (w0, w2), (w1, w3) */
    int32_t cb[4];           /* bias - in_zp * sum w (doubled when fast) */
    int32_t q[4][4];         /* fast: multiplier, 2^(e-1) + (out_zp << e), e = -shift, 0 */
    uint32_t lohi[2];        /* activation bounds, one byte per channel */
} dw_group_t;

typedef char dw_offsets_ok[(offsetof(dw_group_t, cb) == 512 && offsetof(dw_group_t, q) == 528 &&
                            offsetof(dw_group_t, lohi) == 592)
                               ? 1
                               : -1];

#define DW_TAP(addr, woff)                                                                 \
    "ldr %[v], " addr "\n\t"                                                               \
    "sxtb16 %[xe], %[v]\n\t"                                                               \
    "sxtb16 %[v], %[v], ror #8\n\t"                                                        \
    "ldrd %[w0], %[w1], [%[g], #" woff "]\n\t"                                             \
    "smlabb %[a0], %[xe], %[w0], %[a0]\n\t"                                                \
    "smlatt %[a2], %[xe], %[w0], %[a2]\n\t"                                                \
    "smlabb %[a1], %[v], %[w1], %[a1]\n\t"                                                 \
    "smlatt %[a3], %[v], %[w1], %[a3]\n\t"
#define DW_RQ(a, qoff)                                                                     \
    "ldrd %[w0], %[w1], [%[g], #" qoff "]\n\t"                                             \
    "ldr %[xe], [%[g], #" qoff "+8]\n\t"                                                   \
    "smmulr " a ", " a ", %[w0]\n\t"                                                       \
    "add " a ", " a ", " a ", asr #31\n\t"                                                 \
    "add " a ", " a ", %[w1]\n\t"                                                          \
    "asr " a ", " a ", %[xe]\n\t"                                                          \
    "ssat " a ", #8, " a "\n\t"

/**
 * One output pixel, four channels, 3x3 window, fast requantization (group
 * prepared with doubled weights / bias): per tap LDR, two SXTB16, LDRD of the
 * widened weights and SMLABB/SMLATT per channel (8 instructions, 4 MACs); then
 * SMMULR requantization, SSAT, BFI packing, the activation clamp with SSUB8/SEL
 * on the four bytes and one store. xr: the window's first tap; rs / cs: bytes
 * between tap rows / columns.
 */
MOTE_S8_INLINE void dw_dsp_px3x3(const dw_group_t *g, const int8_t *xr, int32_t rs, int32_t cs,
                                int8_t *out)
{
    int32_t a0, a1, a2, a3, v, xe, w0, w1;
    __asm__ volatile(
        "ldrd %[a0], %[a1], [%[g], #512]\n\t"
        "ldrd %[a2], %[a3], [%[g], #520]\n\t"
        DW_TAP("[%[xr]]", "0") DW_TAP("[%[xr], %[cs]]", "8")
        DW_TAP("[%[xr], %[cs], lsl #1]", "16") "add %[xr], %[xr], %[rs]\n\t"
        DW_TAP("[%[xr]]", "24") DW_TAP("[%[xr], %[cs]]", "32")
        DW_TAP("[%[xr], %[cs], lsl #1]", "40") "add %[xr], %[xr], %[rs]\n\t"
        DW_TAP("[%[xr]]", "48") DW_TAP("[%[xr], %[cs]]", "56")
        DW_TAP("[%[xr], %[cs], lsl #1]", "64")
        DW_RQ("%[a0]", "528") DW_RQ("%[a1]", "544") DW_RQ("%[a2]", "560") DW_RQ("%[a3]", "576")
        "bfi %[a0], %[a1], #8, #8\n\t"
        "bfi %[a0], %[a2], #16, #8\n\t"
        "bfi %[a0], %[a3], #24, #8\n\t"
        "ldrd %[w0], %[w1], [%[g], #592]\n\t"
        "ssub8 %[v], %[a0], %[w0]\n\t"
        "sel %[a0], %[a0], %[w0]\n\t"
        "ssub8 %[v], %[a0], %[w1]\n\t"
        "sel %[a0], %[w1], %[a0]\n\t"
        "str %[a0], [%[out]]\n\t"
        : [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3), [xr] "+&r"(xr),
          [v] "=&r"(v), [xe] "=&r"(xe), [w0] "=&r"(w0), [w1] "=&r"(w1)
        : [rs] "r"(rs), [cs] "r"(cs), [g] "r"(g), [out] "r"(out)
        : "cc", "memory");
}
#undef DW_TAP
#undef DW_RQ

/**
 * Pixels of one output row (n of them), any window: xp: window origin of the first
 * pixel (channel c), xstep / ostep: input / output bytes between pixels, rs / cs:
 * bytes between tap rows / columns. fast: the group holds doubled weights / bias
 * and SRDHM(acc, M) = SMMULR(2 * acc, M), RDBPOT(x, e) + zp =
 * (x - [x < 0] + 2^(e-1) + (zp << e)) >> e exactly (|acc| < 2^30, -22 <= shift <= -1,
 * conv2d_s8's fast form); else the general requantization.
 */
MOTE_S8_HOT static void dw_dsp_row(const mote_s8_conv_params_t *p, const dw_group_t *g, int fast, int32_t c,
                       const int8_t *xp, int32_t n, int32_t xstep, int32_t rs, int32_t cs,
                       int8_t *out, int32_t ostep)
{
    const int32_t kh = p->kh, kw = p->kw;
    if (fast && kh == 3 && kw == 3) {
        for (; n > 0; n--, xp += xstep, out += ostep) {
            dw_dsp_px3x3(g, xp, rs, cs, out);
        }
        return;
    }
    for (; n > 0; n--, xp += xstep, out += ostep) {
        int32_t a[4], j, ky, kx;
        const int32_t *wv = g->wv;
        const int8_t *xr = xp;
        for (j = 0; j < 4; j++) {
            a[j] = g->cb[j];
        }
        for (ky = 0; ky < kh; ky++, xr += rs) {
            for (kx = 0; kx < kw; kx++, wv += 2) {
                const uint32_t v = mote_s8_ld32(xr + kx * cs);
                const int32_t xe = __sxtb16((int32_t)v);
                const int32_t xo = mote_s8_sxtb16_ror8(v);
                a[0] = __smlabb(xe, wv[0], a[0]);
                a[2] = __smlatt(xe, wv[0], a[2]);
                a[1] = __smlabb(xo, wv[1], a[1]);
                a[3] = __smlatt(xo, wv[1], a[3]);
            }
        }
        for (j = 0; j < 4; j++) {
            if (fast) {
                const int32_t x = dw_smmulr(a[j], g->q[j][0]);
                int32_t v = (x + (x >> 31) + g->q[j][1]) >> g->q[j][2];
                v = __ssat(v, 8);
                out[j] = (int8_t)(v < p->act_min ? p->act_min : (v > p->act_max ? p->act_max : v));
            } else {
                out[j] = mote_s8_dsp_finish(a[j], p->mult[c + j], p->shift[c + j], p->out_zp,
                                            p->act_min, p->act_max);
            }
        }
    }
}

/**
 * Channels c..c+3 of every output pixel. roll != 0 (dw_strip_in_place): the
 * strip of KH input rows slides down one row per output row, so each input
 * row is read into the strip before the output row over it is written.
 */
MOTE_S8_HOT static void dw_dsp_group(const mote_s8_conv_params_t *p, const dw_range_t *rng, int32_t c,
                         dw_group_t *g, int roll)
{
    const int32_t cout = p->cout;
    const int32_t taps = p->kh * p->kw;
    const int32_t cs = p->dil_w * cout;
    /* strip: input columns -pad_w .. -pad_w + sw - 1; lpad / mid: first real / padded-right */
    const int32_t sw = (p->wo - 1) * p->stride_w + (p->kw - 1) * p->dil_w + 1;
    const int32_t lpad = p->pad_w < sw ? p->pad_w : sw;
    const int32_t mid = p->pad_w + p->w < sw ? p->pad_w + p->w : sw;
    const uint32_t zp4 = ((uint32_t)p->in_zp & 0xffu) * 0x01010101u;
    const int32_t hp = p->h + 2 * p->pad_h, wpl = p->w + 2 * p->pad_w;
    /* a strip of KH input rows, a small map's whole plane, or one pixel's window */
    uint32_t strip[DW_STRIP];
    int32_t j, t, b, oy, ox, s02 = 0, s13 = 0;
    int64_t bound = 0;
    int fast = 1;
    /* widened weights (SXTB16 pairs) and, as int16 pairs too, their sums per channel
       (|sum| <= DW_MAXT * 128 fits) */
    for (t = 0; t < taps; t++) {
        const uint32_t v = mote_s8_ld32(p->weight + (size_t)t * cout + c);
        const int32_t we = __sxtb16((int32_t)v), wo = mote_s8_sxtb16_ror8(v);
        g->wv[2 * t] = we;
        g->wv[2 * t + 1] = wo;
        s02 = __sadd16(s02, we);
        s13 = __sadd16(s13, wo);
    }
    for (j = 0; j < 4; j++) {
        const int32_t sw = (int16_t)((j & 1 ? s13 : s02) >> (j & 2 ? 16 : 0));
        int64_t bj;
        g->cb[j] = (int32_t)((uint32_t)p->bias[c + j] - (uint32_t)p->in_zp * (uint32_t)sw);
        /* |acc| <= |cb| + taps * 128 * 128 (raw inputs, padded taps hold zp) */
        bj = (g->cb[j] < 0 ? -(int64_t)g->cb[j] : (int64_t)g->cb[j]) + (int64_t)taps * 16384;
        bound = bj > bound ? bj : bound;
        if (p->shift[c + j] >= 0 || p->shift[c + j] < -22) {
            fast = 0;
        } else {
            const int32_t e = -p->shift[c + j];
            g->q[j][0] = p->mult[c + j];
            g->q[j][1] = (int32_t)((1u << (e - 1)) + ((uint32_t)p->out_zp << e));
            g->q[j][2] = e;
            g->q[j][3] = 0;
        }
    }
    if (bound >= ((int64_t)1 << 30)) {
        fast = 0;
    }
    g->lohi[0] = ((uint32_t)p->act_min & 0xffu) * 0x01010101u;
    g->lohi[1] = ((uint32_t)p->act_max & 0xffu) * 0x01010101u;
    if (fast) { /* 2 * w fits int16 */
        for (t = 0; t < 2 * taps; t++) {
            g->wv[t] = __sadd16(g->wv[t], g->wv[t]);
        }
        for (j = 0; j < 4; j++) {
            g->cb[j] = (int32_t)((uint32_t)g->cb[j] << 1);
        }
    }
    if (hp * wpl <= DW_STRIP) {
        /* small maps: the group's whole input (channels c..c+3, one word per pixel)
           copied once into a plane with the padding as zero-point words, then every
           output row from it (no strip per row); in place too, the group's outputs
           overwrite only its own channels, all in the plane before */
        const int32_t right = wpl - p->pad_w - p->w;
        int32_t i;
        for (i = 0; i < p->pad_h * wpl; i++) { /* the padding: rows above and below */
            strip[i] = zp4;
            strip[(size_t)(hp - p->pad_h) * wpl + i] = zp4;
        }
        for (i = p->pad_h; i < p->pad_h + p->h; i++) { /* columns left and right */
            uint32_t *r = strip + (size_t)i * wpl;
            for (j = 0; j < p->pad_w; j++) {
                r[j] = zp4;
            }
            for (j = 0; j < right; j++) {
                r[p->pad_w + p->w + j] = zp4;
            }
        }
        for (b = 0; b < p->n; b++) {
            const int8_t *in = p->input + (size_t)b * p->h * p->w * p->cin + c;
            for (i = 0; i < p->h; i++) {
                const int8_t *src = in + (size_t)i * p->w * cout;
                uint32_t *d = strip + (size_t)(i + p->pad_h) * wpl + p->pad_w;
                uint32_t *const end = d + p->w;
                while (d < end) {
                    *d++ = mote_s8_ld32(src);
                    src += cout;
                }
            }
            for (oy = p->oy0; oy < p->oy1; oy++) {
                dw_dsp_row(p, g, fast, c, (const int8_t *)(strip + (size_t)oy * p->stride_h * wpl), p->wo,
                           4 * p->stride_w, 4 * p->dil_h * wpl, 4 * p->dil_w,
                           mote_s8_out_px(p, b, oy, 0) + c, cout);
            }
        }
        return;
    }
    if ((int64_t)p->kh * sw <= DW_STRIP) {
        /* every output row from a strip of its KH input rows (channels c..c+3, one
           word per pixel) with the padding materialized as zero-point words */
        int32_t i;
        for (i = 0; i < p->kh * sw; i++) {
            strip[i] = zp4; /* padding columns stay zero-point words */
        }
        for (b = 0; b < p->n; b++) {
            const int8_t *in = p->input + (size_t)b * p->h * p->w * p->cin + c;
            for (oy = p->oy0; oy < p->oy1; oy++) {
                const int32_t y0 = oy * p->stride_h - p->pad_h;
                uint32_t *row = strip + lpad;
                int32_t r = 0;
                if (roll && oy > p->oy0) { /* rows 1..KH-1 become 0..KH-2, load the last */
                    for (i = 0; i < (p->kh - 1) * sw; i++) {
                        strip[i] = strip[i + sw];
                    }
                    r = p->kh - 1;
                    row += (size_t)r * sw;
                }
                for (; r < p->kh; r++, row += sw) {
                    const int32_t iy = y0 + r * p->dil_h;
                    uint32_t *d = row;
                    uint32_t *const end = row + (mid - lpad);
                    if (iy < 0 || iy >= p->h) {
                        while (d < end) {
                            *d++ = zp4;
                        }
                    } else {
                        const int8_t *src = in + (size_t)iy * p->w * cout;
                        while (d < end) {
                            *d++ = mote_s8_ld32(src);
                            src += cout;
                        }
                    }
                }
                dw_dsp_row(p, g, fast, c, (const int8_t *)strip, p->wo, 4 * p->stride_w, 4 * sw,
                           4 * p->dil_w, mote_s8_out_px(p, b, oy, 0) + c,
                           cout);
            }
        }
        return;
    }
    for (b = 0; b < p->n; b++) {
        const int8_t *in = p->input + (size_t)b * p->h * p->w * p->cin;
        for (oy = p->oy0; oy < p->oy1; oy++) {
            int8_t *orow = mote_s8_out_px(p, b, oy, 0) + c;
            const int row_in = oy >= rng->oy_lo && oy < rng->oy_hi;
            const int32_t y0 = oy * p->stride_h - p->pad_h;
            int32_t ky0 = 0, ky1 = p->kh;
            while (ky0 < ky1 && y0 + ky0 * p->dil_h < 0) {
                ky0++;
            }
            while (ky1 > ky0 && y0 + (ky1 - 1) * p->dil_h >= p->h) {
                ky1--;
            }
            for (ox = 0; ox < p->wo; ox++) {
                const int32_t x0 = ox * p->stride_w - p->pad_w;
                uint32_t *const win = strip; /* DW_MAXT <= DW_STRIP words */
                int32_t ky, kx, kx0, kx1;
                if (row_in && ox == rng->ox_lo && rng->ox_hi > rng->ox_lo) {
                    dw_dsp_row(p, g, fast, c, in + ((size_t)y0 * p->w + (size_t)x0) * cout + c,
                               rng->ox_hi - rng->ox_lo, p->stride_w * cout,
                               p->dil_h * p->w * cout, p->dil_w * cout, orow + ox * cout, cout);
                    ox = rng->ox_hi - 1;
                    continue;
                }
                /* border: the window's four-channel words, taps outside hold the input
                   zero point (they add (zp - zp) * w = 0 to the corrected bias) */
                for (t = 0; t < taps; t++) {
                    win[t] = zp4;
                }
                kx0 = 0;
                kx1 = p->kw;
                while (kx0 < kx1 && x0 + kx0 * p->dil_w < 0) {
                    kx0++;
                }
                while (kx1 > kx0 && x0 + (kx1 - 1) * p->dil_w >= p->w) {
                    kx1--;
                }
                for (ky = ky0; ky < ky1; ky++) {
                    const int8_t *rp = in + ((size_t)(y0 + ky * p->dil_h) * p->w +
                                             (size_t)(x0 + kx0 * p->dil_w)) * cout + c;
                    uint32_t *wp = win + ky * p->kw + kx0;
                    for (kx = kx0; kx < kx1; kx++, rp += cs) {
                        *wp++ = mote_s8_ld32(rp);
                    }
                }
                dw_dsp_row(p, g, fast, c, (const int8_t *)win, 1, 0, 4 * p->kw, 4,
                           orow + ox * cout, cout);
            }
        }
    }
}

/** Output rows [oy0, oy1), four channels at a time (a band of mote_s8_rows_begin / next). */
static void dw_rows(const mote_s8_conv_params_t *p, void *state)
{
    dw_group_t g;
    dw_range_t rng;
    int32_t c;
    dw_interior(p, &rng);
    for (c = 0; c + 4 <= p->cout; c += 4) {
        dw_dsp_group(p, &rng, c, &g, state != NULL);
    }
    if (c < p->cout) { /* channel tail */
        dw_plain_band(p, c);
    }
}

/**
 * In place without the row ring: output pixel (y, x) over input pixel (y, x)
 * (same H, W and channels, whole groups of four), a sliding strip (stride and
 * dilation 1 in H, the strip fits) whose KH rows include input row oy + KH - 1
 * - pad_h <= oy when output row oy is computed (pad_h < KH), one image.
 */
static int dw_strip_in_place(const mote_s8_conv_params_t *p)
{
    const int32_t sw = (p->wo - 1) * p->stride_w + (p->kw - 1) * p->dil_w + 1;
    return p->input == p->output && p->n == 1 && p->ho == p->h && p->wo == p->w &&
           (p->cout & 3) == 0 && p->stride_h == 1 && p->dil_h == 1 && p->pad_h < p->kh &&
           (int64_t)p->kh * sw <= DW_STRIP;
}

/** SXTAB16 of v rotated right by 8 onto a: bytes 1 and 3 sign-extended, plus a's halves. */
MOTE_S8_INLINE int32_t dw_sxtab16_ror8(int32_t a, uint32_t v)
{
    int32_t r;
    __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(a), "r"(v)); /* one instruction */
    return r;
}

/**
 * Whether call p has one output pixel per image (Ho = Wo = 1: a streaming layer that
 * computes the newest frame over its history, e.g. a dilated Conv1d) in groups of
 * four channels, with its output apart from the input or at the input's first byte
 * with one image: channels c..c+3 of the pixel are written after every tap of them
 * was read, and no other group reads them.
 */
static int dw_one_pixel_ok(const mote_s8_conv_params_t *p)
{
    const uint8_t *ib = (const uint8_t *)p->input, *ob = (const uint8_t *)p->output;
    const size_t in_bytes = (size_t)p->n * p->h * p->w * p->cin;
    return p->ho == 1 && p->wo == 1 && (p->cout & 3) == 0 &&
           (ib == ob ? p->n == 1 : !(ob < ib + in_bytes && ib < ob + (size_t)p->n * p->cout));
}

/**
 * dw_one_pixel's taps of one window row for channels c..c+3: a0..a3 += (x - zp) * w over
 * n > 0 taps, the input word at x and the weight word at w, then x += xs, w += ws.
 * SXTAB16 with -zp in both halves (nzp2) gives x - zp as int16 pairs in the instruction
 * that sign-extends (|x - zp| <= 255), so the plain bias needs no zero-point correction;
 * SXTB16 the weights; SMLABB / SMLATT per channel (lanes: channels (0, 2), then the word
 * rotated by 8: (1, 3)). A macro: the accumulators stay in registers.
 */
#define DW_ONE_TAPS(x, w, n, xs, ws)                                                      \
    do {                                                                                   \
        const int8_t *xp_ = (x), *wp_ = (w);                                               \
        int32_t n_ = (n);                                                                  \
        do {                                                                               \
            const uint32_t xv_ = mote_s8_ld32(xp_), wv_ = mote_s8_ld32(wp_);               \
            const int32_t xe_ = __sxtab16(nzp2, (int32_t)xv_);                             \
            const int32_t xo_ = dw_sxtab16_ror8(nzp2, xv_);                                \
            const int32_t we_ = __sxtb16((int32_t)wv_), wo_ = mote_s8_sxtb16_ror8(wv_);    \
            a0 = __smlabb(xe_, we_, a0);                                                   \
            a2 = __smlatt(xe_, we_, a2);                                                   \
            a1 = __smlabb(xo_, wo_, a1);                                                   \
            a3 = __smlatt(xo_, wo_, a3);                                                   \
            xp_ += (xs);                                                                   \
            wp_ += (ws);                                                                   \
        } while (--n_ > 0);                                                                \
    } while (0)

/** mote_s8_dsp_finish's requantization and zero point (any multiplier >= 0 and shift)
 *  saturated to int8 (SSAT; the activation range comes after, on four bytes at once).
 *  The negative shifts of real layers are the straight-line code (no taken branch). */
MOTE_S8_INLINE int32_t dw_one_rq(int32_t acc, int32_t m, int32_t sh, int32_t zp)
{
    int32_t x;
    if (__builtin_expect(sh > 0, 0)) {
        acc = (int32_t)((uint32_t)acc << sh);
    }
    x = (int32_t)(((int64_t)acc * m + ((int64_t)1 << 30)) >> 31);
    if (__builtin_expect(sh < 0, 1)) {
        const int32_t t = (x + (x >> 31)) >> (-sh - 1);
        x = (t >> 1) + (t & 1) + zp; /* |x| <= 2^30: no overflow */
    } else {
        x = __qadd(x, zp);
    }
    return __ssat(x, 8);
}

/** dw_one_rq for a shift < 0 and |acc| < 2^30 (dw_one_pixel checks both for a group of
 *  four, the real layers' case): SRDHM is SMMULR of 2 acc (exact: (2 acc m + 2^31) >> 32
 *  = (acc m + 2^30) >> 31, 2 acc fits), RDBPOT (t >> 1) + (t & 1) = (t + 1) >> 1 with
 *  t = (x + (x >> 31)) >> (-sh - 1) (|x| <= 2^30: no overflow); no branch. */
MOTE_S8_INLINE int32_t dw_one_rq_neg(int32_t acc, int32_t m, int32_t sh, int32_t zp)
{
    const int32_t x = dw_smmulr((int32_t)((uint32_t)acc << 1), m);
    const int32_t t = ((x + (x >> 31)) >> ~sh) + 1; /* ~sh = -sh - 1 in [0, 30] */
    return __ssat((t >> 1) + zp, 8);
}

/**
 * dw_one_pixel_ok's calls. The group path's per-group setup (weights widened into a
 * table, the corrected bias and the fast requantization's constants, the input copied
 * into a zero-point-padded plane) is spent on a single pixel there: 235 instructions a
 * channel for a 1x3 window. Here the four-channel words of each tap are read where they
 * lie (DW_ONE_TAPS: 14 instructions a tap with the pointer steps and the loop), then the
 * general requantization (dw_one_rq: any multiplier and shift, nothing checked or tabled
 * per call), the four bytes packed and clamped to the activation range together
 * (SSUB8 / SEL) and stored as one word. Taps in the padding are left out (they add
 * (zp - zp) * w = 0), as in the reference.
 */
__attribute__((noinline)) MOTE_S8_HOT static void dw_one_pixel(const mote_s8_conv_params_t *p)
{
    const int32_t cout = p->cout;
    const int32_t cs = p->dil_w * cout;               /* input bytes between taps of a row */
    const size_t rs = (size_t)p->dil_h * p->w * cout;  /* ... between tap rows */
    const size_t wrs = (size_t)p->kw * cout;           /* weight bytes between tap rows */
    const int32_t nzp2 = (int32_t)(((uint32_t)-p->in_zp & 0xffffu) | ((uint32_t)-p->in_zp << 16));
    const uint32_t lo4 = ((uint32_t)p->act_min & 0xffu) * 0x01010101u;
    const uint32_t hi4 = ((uint32_t)p->act_max & 0xffu) * 0x01010101u;
    const int full = p->act_min == -128 && p->act_max == 127; /* SSAT clamped already */
    const int32_t ozp = p->out_zp;
    dw_win_t win;
    int32_t b, c, ntx, nty;
    dw_clip(p, 0, 0, &win);
    ntx = win.kx1 - win.kx0;
    nty = ntx > 0 ? win.ky1 - win.ky0 : 0; /* 0: every tap in the padding */
    for (b = 0; b < p->n; b++) {
        /* the window's first tap inside the input, channel 0 */
        const int8_t *x0 = p->input + (size_t)b * p->h * p->w * cout +
                           ((size_t)(win.y0 + win.ky0 * p->dil_h) * p->w +
                            (size_t)(win.x0 + win.kx0 * p->dil_w)) * cout;
        const int8_t *w0 = p->weight + ((size_t)win.ky0 * p->kw + (size_t)win.kx0) * cout;
        int8_t *o = p->output + (size_t)b * cout;
        for (c = 0; c < cout; c += 4) {
            int32_t a0 = p->bias[c], a1 = p->bias[c + 1], a2 = p->bias[c + 2], a3 = p->bias[c + 3];
            const int8_t *xr = x0 + c, *wr = w0 + c;
            int32_t ky;
            uint32_t v;
            if (nty == 1) { /* one window row (a Conv1d's): no row loop */
                DW_ONE_TAPS(xr, wr, ntx, cs, cout);
            } else {
                for (ky = 0; ky < nty; ky++, xr += rs, wr += wrs) {
                    DW_ONE_TAPS(xr, wr, ntx, cs, cout);
                }
            }
            {
                const int32_t *mp = p->mult + c, *sp = p->shift + c;
                const int32_t s0 = sp[0], s1 = sp[1], s2 = sp[2], s3 = sp[3];
                /* sign bit set: some accumulator has bits 31 and 30 apart (|a| >= 2^30) */
                const uint32_t big = ((uint32_t)a0 ^ ((uint32_t)a0 << 1)) | ((uint32_t)a1 ^ ((uint32_t)a1 << 1)) |
                                     ((uint32_t)a2 ^ ((uint32_t)a2 << 1)) | ((uint32_t)a3 ^ ((uint32_t)a3 << 1));
                if (__builtin_expect((int32_t)((uint32_t)(s0 & s1 & s2 & s3) & ~big) < 0, 1)) {
                    v = (uint32_t)dw_one_rq_neg(a0, mp[0], s0, ozp) & 0xffu;
                    v |= ((uint32_t)dw_one_rq_neg(a1, mp[1], s1, ozp) & 0xffu) << 8;
                    v |= ((uint32_t)dw_one_rq_neg(a2, mp[2], s2, ozp) & 0xffu) << 16;
                    v |= (uint32_t)dw_one_rq_neg(a3, mp[3], s3, ozp) << 24;
                } else {
                    v = (uint32_t)dw_one_rq(a0, mp[0], s0, ozp) & 0xffu;
                    v |= ((uint32_t)dw_one_rq(a1, mp[1], s1, ozp) & 0xffu) << 8;
                    v |= ((uint32_t)dw_one_rq(a2, mp[2], s2, ozp) & 0xffu) << 16;
                    v |= (uint32_t)dw_one_rq(a3, mp[3], s3, ozp) << 24;
                }
            }
            if (!full) { /* per byte: max(v, lo), then min(v, hi) (GE flags of SSUB8, SEL) */
                uint32_t t;
                __asm__("ssub8 %[t], %[v], %[lo]\n\t"
                        "sel %[v], %[v], %[lo]\n\t"
                        "ssub8 %[t], %[v], %[hi]\n\t"
                        "sel %[v], %[hi], %[v]\n\t"
                        : [v] "+r"(v), [t] "=&r"(t)
                        : [lo] "r"(lo4), [hi] "r"(hi4)
                        : "cc");
            }
            memcpy(o + c, &v, 4);
        }
    }
}
#undef DW_ONE_TAPS

#endif /* MOTE_S8_USE_DW_GROUP */

#if MOTE_S8_USE_DW_PLANAR
/**
 * n int8 values src[0], src[ss], src[2 ss], ... minus the zero point into the int16
 * row d, two per step: two LDRSB, PKHBT, SSUB16 (|x - zp| <= 255 fits a lane), one STR.
 */
MOTE_S8_INLINE void dw_widen_row(const int8_t *src, int32_t ss, int32_t n, int16_t *d, int32_t zp)
{
    const int32_t zp2 = (int32_t)(((uint32_t)zp & 0xffffu) | ((uint32_t)zp << 16));
    for (; n >= 2; n -= 2, src += 2 * ss, d += 2) {
        uint32_t v;
        __asm__("pkhbt %0, %1, %2, lsl #16" : "=r"(v) : "r"((int32_t)src[0]), "r"((int32_t)src[ss]));
        v = (uint32_t)__ssub16((int32_t)v, zp2);
        memcpy(d, &v, 4);
    }
    if (n > 0) {
        *d = (int16_t)(src[0] - zp);
    }
}

/**
 * One channel's whole plane (not transposed): rows input rows of n int8 values a
 * pixel (ss bytes) apart, rows rs bytes apart, minus the zero point into the int16
 * rows d, d + ds, ...; eight values per step in assembly (per four: a run of four
 * LDRSB, two PKHBT, two SSUB16, two STR, unaligned: the plane's rows start after
 * the border; 24 instructions per eight), then four; a call per plane.
 */
__attribute__((noinline)) MOTE_S8_HOT static void dw_widen_plane(const int8_t *src, int32_t ss, int32_t rs,
                                                            int32_t rows, int32_t n, int16_t *d, int32_t ds,
                                                            int32_t zp)
{
    const int32_t zp2 = (int32_t)(((uint32_t)zp & 0xffffu) | ((uint32_t)zp << 16));
    const int32_t s2 = 2 * ss, s3 = 3 * ss, s4 = 4 * ss;
    for (; rows > 0; rows--, src += rs, d += ds) {
        const int8_t *x = src;
        int16_t *o = d;
        int32_t k;
        k = n;
        if (k >= 8) {
            int32_t g = k >> 3, a, b, c, e;
            k &= 7;
            __asm__ volatile(
#define DW_WIDEN4                                                                          \
    "ldrsb %[a], [%[x]]\n\t"                                                               \
    "ldrsb %[b], [%[x], %[s1]]\n\t"                                                        \
    "ldrsb %[c], [%[x], %[s2]]\n\t"                                                        \
    "ldrsb %[e], [%[x], %[s3]]\n\t"                                                        \
    "add %[x], %[x], %[s4]\n\t"                                                            \
    "pkhbt %[a], %[a], %[b], lsl #16\n\t"                                                  \
    "pkhbt %[c], %[c], %[e], lsl #16\n\t"                                                  \
    "ssub16 %[a], %[a], %[zp]\n\t"                                                         \
    "ssub16 %[c], %[c], %[zp]\n\t"                                                         \
    "str %[a], [%[o]], #4\n\t"                                                             \
    "str %[c], [%[o]], #4\n\t"
                "1:\n\t" DW_WIDEN4 DW_WIDEN4
                "subs %[g], %[g], #1\n\t"
                "bne 1b\n\t"
#undef DW_WIDEN4
                : [x] "+r"(x), [o] "+r"(o), [g] "+r"(g), [a] "=&r"(a), [b] "=&r"(b), [c] "=&r"(c),
                  [e] "=&r"(e)
                : [s1] "r"(ss), [s2] "r"(s2), [s3] "r"(s3), [s4] "r"(s4), [zp] "r"(zp2)
                : "cc", "memory");
        }
        for (; k >= 4; k -= 4, x += s4, o += 4) {
            int32_t v0, v1;
            __asm__("pkhbt %0, %1, %2, lsl #16" : "=r"(v0) : "r"((int32_t)x[0]), "r"((int32_t)x[ss]));
            __asm__("pkhbt %0, %1, %2, lsl #16" : "=r"(v1) : "r"((int32_t)x[s2]), "r"((int32_t)x[s3]));
            v0 = __ssub16(v0, zp2);
            v1 = __ssub16(v1, zp2);
            memcpy(o, &v0, 4);
            memcpy(o + 2, &v1, 4);
        }
        for (; k > 0; k--, x += ss, o++) {
            *o = (int16_t)(*x - zp);
        }
    }
}

/**
 * One channel's constants into job j (the call's fields set before): its taps times the
 * scale 2^sc (sc 1, or with ef the E-form's E + 1 - e: mote_s8_dw_planar_eform) as the
 * (wa, wb) int16 pairs of each kernel row of the plane (transposed: its columns), the
 * bias times the same scale, the multiplier and the form's offset.
 */
static void dwp_job(const mote_s8_conv_params_t *p, int32_t c, int transpose, int ef, dwp_job_t *j)
{
    const int32_t co = p->cout, e = -p->shift[c];
    const int32_t sc = ef ? MOTE_S8_EFORM_E + 1 - e : 1;
    const int32_t st = transpose ? 3 * co : co, rt = transpose ? co : 3 * co;
    const int8_t *w = p->weight + c;
    int32_t a, b, d;
#define DWP_JOB_ROW(wa, wb)                                                                \
    a = w[0] * (1 << sc);                                                                  \
    b = w[st] * (1 << sc);                                                                 \
    d = w[2 * st] * (1 << sc);                                                             \
    j->wa = dwp_pkbt(a, b);                                                                \
    j->wb = dwp_pkbt(d, b);                                                                \
    w += rt;
    DWP_JOB_ROW(w0a, w0b)
    DWP_JOB_ROW(w1a, w1b)
    DWP_JOB_ROW(w2a, w2b)
#undef DWP_JOB_ROW
    j->bias2 = (int32_t)((uint32_t)p->bias[c] << sc);
    j->m = p->mult[c];
    j->off = ef ? (int32_t)((1u << (MOTE_S8_EFORM_E - 1)) + ((uint32_t)p->out_zp << MOTE_S8_EFORM_E) +
                            (1u << (MOTE_S8_EFORM_E - 1 - e)))
                : (int32_t)((1u << (e - 1)) + ((uint32_t)p->out_zp << e));
    j->e = e;
}
/**
 * dw_widen4's job: `rows` rows of `n` pixels of four channels (the int8 word at src,
 * src + ss, ...) into four int16 planes, x - zp. rsa / dsa: bytes from a row's end to
 * the next row's start (input: rows rs bytes apart, rsa = rs - n ss; planes: rows ds
 * bytes apart, dsa = ds - 2 n); ps: bytes between the planes.
 */
typedef struct dw_w4 {
    const int8_t *src; /* pixel 0 of row 0, channel c (four channels a word) */
    int16_t *d;        /* plane c's value of that pixel */
    int32_t ss, nzp2;  /* bytes between pixels along a row; -zp in both halves */
    int32_t ps, rows, n, rsa, dsa;
} dw_w4_t;

/**
 * Four channels' planes at once, all rows in one call: per two pixels two LDR, PKHBT /
 * PKHTB (the bytes of channels c, c+1 / c+2, c+3 of both pixels in one word each), four
 * SXTAB16 (sign extension and x - zp in one: -zp plus the byte lanes 0, 2 or, rotated,
 * 1, 3: one channel's two pixels), four STR (13 instructions and the loop per eight values);
 * an odd last pixel of a row by one LDR, two SXTAB16, four STRH.
 */
__attribute__((naked, noinline)) static void dw_widen4(const dw_w4_t *j __attribute__((unused)))
{
    __asm__ volatile(
        "push {r4-r11, lr}\n\t"
        "sub sp, sp, #16\n\t"
        "mov r12, r0\n\t"
        "ldmia r12!, {r0-r3}\n\t"      /* r0 x, r1 o, r2 ss, r3 -zp pair */
        "ldmia r12, {r6-r10}\n\t"      /* ps rows n rsa dsa */
        "stmia sp, {r7-r10}\n\t"       /* frame: rows, n, rsa, dsa */
        "add r4, r6, r6\n\t"           /* 2 ps */
        "add r5, r4, r6\n\t"           /* 3 ps */
        "1:\n\t"
        "ldr r7, [sp, #4]\n\t"
        "asrs lr, r7, #1\n\t"
        "beq 3f\n\t"
        "2:\n\t"
        "ldr r8, [r0]\n\t"
        "ldr r9, [r0, r2]\n\t"
        "add r0, r0, r2, lsl #1\n\t"
        "pkhbt r10, r8, r9, lsl #16\n\t"   /* bytes c0, c1 of pixel 0, c0, c1 of pixel 1 */
        "pkhtb r11, r9, r8, asr #16\n\t"   /* bytes c2, c3 of pixel 0, c2, c3 of pixel 1 */
        "sxtab16 r8, r3, r10\n\t"          /* c0 */
        "sxtab16 r9, r3, r10, ror #8\n\t"  /* c1 */
        "sxtab16 r10, r3, r11\n\t"         /* c2 */
        "sxtab16 r11, r3, r11, ror #8\n\t" /* c3 */
        "str r9, [r1, r6]\n\t"
        "str r10, [r1, r4]\n\t"
        "str r11, [r1, r5]\n\t"
        "str r8, [r1], #4\n\t"
        "subs lr, lr, #1\n\t"
        "bne 2b\n\t"
        "3:\n\t"
        "lsls r7, r7, #31\n\t"             /* n odd: the row's last pixel */
        "beq 4f\n\t"
        "ldr r8, [r0]\n\t"
        "add r0, r0, r2\n\t"
        "sxtab16 r10, r3, r8\n\t"
        "sxtab16 r8, r3, r8, ror #8\n\t"
        "strh r8, [r1, r6]\n\t"
        "lsrs r8, r8, #16\n\t"
        "strh r8, [r1, r5]\n\t"
        "lsrs r8, r10, #16\n\t"
        "strh r8, [r1, r4]\n\t"
        "strh r10, [r1], #2\n\t"
        "4:\n\t"
        "ldrd r8, r9, [sp, #8]\n\t"
        "add r0, r0, r8\n\t"
        "add r1, r1, r9\n\t"
        "ldr r7, [sp]\n\t"
        "subs r7, r7, #1\n\t"
        "str r7, [sp]\n\t"
        "bne 1b\n\t"
        "add sp, sp, #16\n\t"
        "pop {r4-r11, pc}\n\t");
}

#if MOTE_S8_USE_DW_PLANAR_TWO
/**
 * Two channels' planes at once (dw_widen4's job, the planes c and c+1), all rows in one
 * call: per two pixels two LDRH (channels c, c+1 of each), PKHBT (both pixels in one
 * word), two SXTAB16 (sign extension and x - zp: one channel's two pixels), two STR
 * (7 instructions and the loop per four values); an odd last pixel by LDRH, two SXTAB16,
 * two STRH.
 */
__attribute__((naked, noinline)) static void dw_widen2(const dw_w4_t *j __attribute__((unused)))
{
    __asm__ volatile(
        "push {r4-r11, lr}\n\t"
        "sub sp, sp, #16\n\t"
        "mov r12, r0\n\t"
        "ldmia r12!, {r0-r3}\n\t"      /* r0 x, r1 o, r2 ss, r3 -zp pair */
        "ldmia r12, {r6-r10}\n\t"      /* ps rows n rsa dsa */
        "stmia sp, {r7-r10}\n\t"       /* frame: rows, n, rsa, dsa */
        "1:\n\t"
        "ldr r7, [sp, #4]\n\t"
        "asrs lr, r7, #1\n\t"
        "beq 3f\n\t"
        "2:\n\t"
        "ldrh r8, [r0]\n\t"
        "ldrh r9, [r0, r2]\n\t"
        "add r0, r0, r2, lsl #1\n\t"
        "pkhbt r10, r8, r9, lsl #16\n\t"   /* bytes c0, c1 of pixel 0, c0, c1 of pixel 1 */
        "sxtab16 r8, r3, r10\n\t"          /* c0 */
        "sxtab16 r9, r3, r10, ror #8\n\t"  /* c1 */
        "str r9, [r1, r6]\n\t"
        "str r8, [r1], #4\n\t"
        "subs lr, lr, #1\n\t"
        "bne 2b\n\t"
        "3:\n\t"
        "lsls r7, r7, #31\n\t"             /* n odd: the row's last pixel */
        "beq 4f\n\t"
        "ldrh r8, [r0]\n\t"
        "add r0, r0, r2\n\t"
        "sxtab16 r10, r3, r8\n\t"
        "sxtab16 r8, r3, r8, ror #8\n\t"
        "strh r8, [r1, r6]\n\t"
        "strh r10, [r1], #2\n\t"
        "4:\n\t"
        "ldrd r8, r9, [sp, #8]\n\t"
        "add r0, r0, r8\n\t"
        "add r1, r1, r9\n\t"
        "ldr r7, [sp]\n\t"
        "subs r7, r7, #1\n\t"
        "str r7, [sp]\n\t"
        "bne 1b\n\t"
        "add sp, sp, #16\n\t"
        "pop {r4-r11, pc}\n\t");
}
#endif

/**
 * 3x3 windows of stride 1 (or 2 with rows of 16+ outputs; dilation 1), full int8 range
 * (mote_s8_dw_variant's MOTE_S8_DW_DSP_PLANES), every channel taking the fast
 * requantization (dwp_channel): the channel's NHWC input widened once into an int16
 * plane in scratch (x - in_zp, a zero border of the padding; transposed when the
 * output rows are narrower than 8 and the columns longer, so the 1x4 blocks run along
 * the long side, e.g. DS-CNN's 25x5 maps), then the plane kernel of
 * cmsis/mote_s8_planar.h (SMLAD only, weights in registers). Four channels at a time
 * (dw_widen4: every row in one call, one load per four values) when the scratch holds
 * four planes and Cout is a multiple of 4 (DS-CNN: 1,512 of its 1,744 bytes), two
 * (dw_widen2) when it holds two and Cout is even, else one. In place (the
 * output at the input's first byte, one image) needs no row ring: a channel's outputs
 * overwrite only that channel's inputs (offsets are c modulo Cout), all read into its
 * plane before. Returns 0 (nothing written) when the call does not qualify.
 */
MOTE_S8_HOT static int dw_planar(const mote_kernel_ctx_t *ctx, const mote_s8_conv_params_t *p)
{
    const int32_t hp = p->h + 2 * p->pad_h, wpl = p->w + 2 * p->pad_w, cout = p->cout;
    const int32_t ps = hp * wpl; /* int16 values per plane */
    const int transpose = mote_s8_dw_planar_transposed(p->ho, p->wo);
    const int32_t zp = p->in_zp;
    int16_t *plane;
#if MOTE_S8_USE_DW_PLANAR_C
    dwp_ch_t k;
#endif
    dwp_job_t jb;
    dw_w4_t w4;
    int32_t b, c, j, x, np = 4, wo_r;
    const int32_t *rec;
    int fast, ef;
    if (!(mote_s8_dw_variant(p->kh, p->kw, p->stride_h, p->stride_w, p->dil_h, p->dil_w, p->h, p->w,
                             p->pad_h, p->pad_w, p->act_min, p->act_max) &
          MOTE_S8_DW_DSP_PLANES) ||
        !mote_s8_dw_planar_placed(p) || (!MOTE_S8_USE_DW_PLANAR_S2 && p->stride_h != 1) ||
        (transpose ? !MOTE_S8_USE_DW_PLANAR_T : !MOTE_S8_USE_DW_PLANAR_N)) { /* the forms compiled in */
        return 0;
    }
    plane = (cout & 3) == 0
                ? (int16_t *)mote_s8_scratch(ctx, mote_s8_dw_planes4_bytes(p->h, p->w, p->pad_h, p->pad_w))
                : NULL;
    if (plane == NULL && MOTE_S8_USE_DW_PLANAR_TWO && (cout & 1) == 0) {
        plane = (int16_t *)mote_s8_scratch(ctx, mote_s8_dw_planes2_bytes(p->h, p->w, p->pad_h, p->pad_w));
        np = 2;
    }
    if (plane == NULL) {
        if (!MOTE_S8_USE_DW_PLANAR_ONE) {
            return 0;
        }
        np = 1;
        plane = (int16_t *)mote_s8_scratch(ctx, mote_s8_dw_own_bytes(p));
        if (plane == NULL) {
            return 0;
        }
    }
    /* the E-form's conditions (they imply dwp_channel's), else dwp_channel's, for every
       channel before anything is written */
    ef = MOTE_S8_USE_DW_PLANAR_E && (cout & 3) == 0 && p->out_zp == -128;
    /* the program's per-channel record (argument 13, aot/compiler/dsp_weights.py dw_record):
       the jobs' words copied, not derived; taken when every channel's e is the E-form's */
    rec = ef ? p->wtable : NULL;
    for (c = 0; rec != NULL && c < cout; c++) {
        const int32_t e = rec[(size_t)c * MOTE_S8_DW_RECORD_WORDS + 9];
        if (e < MOTE_S8_EFORM_E - 7 || e > MOTE_S8_EFORM_E - 1) {
            rec = NULL;
        }
    }
    if (rec == NULL && !MOTE_S8_USE_DW_PLANAR_JOB) {
        return 0; /* the jobs derived from the weights are compiled out (nothing written yet) */
    }
    for (c = 0; rec == NULL && ef && c < cout; c++) {
        ef = mote_s8_dw_planar_eform(p->out_zp, p->shift[c], p->bias[c]);
    }
    for (c = 0; !ef && c < cout; c++) {
        if (!mote_s8_dw_planar_channel(p->shift[c], p->bias[c])) {
            return 0;
        }
    }
    if (!ef && !MOTE_S8_USE_DW_PLANAR_R) {
        return 0; /* the 4-instruction requantization is compiled out (nothing written yet) */
    }
    /* the plane's rows of wo_r outputs (transposed: the input's columns) */
    wo_r = transpose ? p->ho : p->wo;
    fast = dwp_asm_rows(p->stride_h, wo_r); /* the variant's full range: the assembly */
    if (!fast && !MOTE_S8_USE_DW_PLANAR_C) {
        return 0; /* the C blocks are compiled out (nothing written yet) */
    }
    jb.rows = transpose ? p->wo : p->ho; /* the job's call constants (each channel's: dwp_job) */
    jb.prow = 2 * p->stride_h * (transpose ? hp : wpl);
    jb.orow = transpose ? cout : p->wo * cout;
    jb.wpb = 2 * (transpose ? hp : wpl);
    jb.opx = transpose ? p->wo * cout : cout;
    memset(plane, 0, (size_t)np * (size_t)ps * sizeof(int16_t)); /* the borders stay zero */
    if (transpose) { /* plane row x + pad_w holds input column x: values along H */
        w4.d = plane + (size_t)p->pad_w * hp + p->pad_h;
        w4.ss = p->w * cout;
        w4.rows = p->w;
        w4.n = p->h;
        w4.rsa = cout - p->h * p->w * cout;
        w4.dsa = 2 * (hp - p->h);
    } else {
        w4.d = plane + (size_t)p->pad_h * wpl + p->pad_w;
        w4.ss = cout;
        w4.rows = p->h;
        w4.n = p->w;
        w4.rsa = 0;
        w4.dsa = 2 * (wpl - p->w);
    }
    w4.nzp2 = (int32_t)(((uint32_t)-zp & 0xffffu) | ((uint32_t)-zp << 16));
    w4.ps = 2 * ps;
    for (b = 0; b < p->n; b++) {
        for (c = 0; c < cout; c += np) {
            const int8_t *src = p->input + (size_t)b * p->h * p->w * cout + c;
            int8_t *out = p->output + (size_t)b * p->ho * p->wo * cout + c;
            if (np == 4) { /* every row of the four planes in one call */
                w4.src = src;
                dw_widen4(&w4);
#if MOTE_S8_USE_DW_PLANAR_TWO
            } else if (np == 2) { /* every row of the two planes in one call */
                w4.src = src;
                dw_widen2(&w4);
#endif
            } else if (transpose) { /* plane row x + pad_w holds input column x */
                for (x = 0; x < p->w; x++) {
                    dw_widen_row(src + (size_t)x * cout, p->w * cout, p->h,
                                 plane + (size_t)(x + p->pad_w) * hp + p->pad_h, zp);
                }
            } else {
                dw_widen_plane(src, cout, p->w * cout, p->h, p->w, plane + (size_t)p->pad_h * wpl + p->pad_w,
                               wpl, zp);
            }
            for (j = 0; j < np; j++) {
                if (fast) { /* the job's call constants set once, the channel's here */
                    if (rec != NULL) {
                        memcpy(&jb, rec + (size_t)(c + j) * MOTE_S8_DW_RECORD_WORDS,
                               MOTE_S8_DW_RECORD_WORDS * sizeof(int32_t));
                    } else if (MOTE_S8_USE_DW_PLANAR_JOB) {
                        dwp_job(p, c + j, transpose, ef, &jb);
                    }
                    dwp_asm_plane(&jb, plane + (size_t)j * ps, p->stride_h, wo_r, out + j, ef);
                    continue;
                }
#if MOTE_S8_USE_DW_PLANAR_C
                (void)dwp_channel(p, c + j, transpose, &k);
                if (transpose) {
                    dwp_plane3x3(&k, plane + (size_t)j * ps, hp, p->stride_h, p->wo, p->ho, out + j,
                                 cout, p->wo * cout);
                } else {
                    dwp_plane3x3(&k, plane + (size_t)j * ps, wpl, p->stride_h, p->ho, p->wo, out + j,
                                 p->wo * cout, cout);
                }
#endif
            }
        }
    }
    return 1;
}

#endif /* MOTE_S8_USE_DW_PLANAR */

#if MOTE_S8_USE_DW_GROUP
/**
 * Small maps (the padded input of four channels fits DW_STRIP words: dw_dsp_group
 * copies each group's whole input into a plane first), whole groups of four, the
 * output at the input's first byte with one image or apart from it: all output rows in
 * one pass, in place without the row ring (a group's outputs overwrite only its own
 * channels, all in its plane before).
 */
static int dw_small_plane(const mote_s8_conv_params_t *p)
{
    const uint8_t *ib = (const uint8_t *)p->input, *ob = (const uint8_t *)p->output;
    const size_t in_bytes = (size_t)p->n * p->h * p->w * p->cin;
    const size_t out_bytes = (size_t)p->n * p->ho * p->wo * p->cout;
    return (p->cout & 3) == 0 &&
           (int64_t)(p->h + 2 * p->pad_h) * (p->w + 2 * p->pad_w) <= DW_STRIP &&
           (ib == ob ? p->n == 1 : !(ob < ib + in_bytes && ib < ob + out_bytes));
}

static mote_err_t dw_run(mote_kernel_ctx_t *ctx, const mote_s8_conv_params_t *p)
{
    mote_s8_rows_t it;
    int roll = 1;
#if MOTE_S8_USE_DW_PLANAR
    if (dw_planar(ctx, p)) {
        return MOTE_OK;
    }
#endif
    if (dw_one_pixel_ok(p)) { /* one output pixel: no per-call tables */
        dw_one_pixel(p);
        return MOTE_OK;
    }
    if (dw_small_plane(p)) {
        dw_rows(p, NULL);
        return MOTE_OK;
    }
    if (dw_strip_in_place(p)) {
        dw_rows(p, &roll);
        return MOTE_OK;
    }
    MOTE_TRY(mote_s8_rows_begin(ctx, mote_s8_dw_own_bytes(p), p, &it));
    do {
        dw_rows(&it.band, NULL);
    } while (mote_s8_rows_next(&it));
    return MOTE_OK;
}
#endif /* MOTE_S8_USE_DW_GROUP */
#endif

mote_err_t mote_kernel_mote_depthwise_conv2d_s8_out(mote_kernel_ctx_t *ctx,
                                                    mote_value_t *const *args, uint32_t nargs)
{
#if DW_PLAIN
    mote_s8_rows_t it;
#endif
    mote_s8_conv_params_t p;
    const mote_err_t e = mote_s8_conv_parse(args, nargs, 1, &p);
    if (e != MOTE_OK) {
        return e;
    }
#if defined(MOTE_S8_MVE) || (defined(MOTE_S8_DSP) && MOTE_S8_USE_DW_GROUP)
    if (p.depth_mult == 1 && (int64_t)p.kh * p.kw <= DW_MAXT) {
        return dw_run(ctx, &p);
    }
#elif defined(MOTE_S8_DSP) && MOTE_S8_USE_DW_PLANAR
    /* the program takes the plane for every call (MOTE_S8_USE_DW_GROUP 0) */
    return p.depth_mult == 1 && dw_planar(ctx, &p) ? MOTE_OK : MOTE_ERR_UNSUPPORTED;
#elif defined(MOTE_S8_DSP)
    (void)ctx;
    return MOTE_ERR_UNSUPPORTED;
#endif
#if DW_PLAIN
    MOTE_TRY(mote_s8_rows_begin(ctx, mote_s8_dw_own_bytes(&p), &p, &it));
    do {
        dw_plain_band(&it.band, 0);
    } while (mote_s8_rows_next(&it));
    return MOTE_OK;
#endif
}
