/*
 * mote::depthwise_conv2d_s8.out - Cortex-M version (see mote_s8_arm.h).
 * MVE (depth_multiplier 1): four channels per int32 vector, the valid taps of
 * each output pixel accumulated with VMUL + VADD, tail channels predicated,
 * requantized four at a time (mote_s8_mve_requant). DSP (depth_multiplier 1):
 * int32 accumulators for all channels in scratch (mote_s8_dw_scratch_bytes),
 * SMLABB/SMLATT on SXTB16 pairs. Other cases: plain C with the window clipped
 * once per pixel.
 * Same bytes as kernels/op_mote_depthwise_conv2d_s8.c.
 */
#include "mote/kernel.h"
#include "mote_s8_arm.h"

MOTE_KERNEL("mote::depthwise_conv2d_s8.out")

mote_err_t mote_kernel_mote_depthwise_conv2d_s8_out(mote_kernel_ctx_t *ctx,
                                                    mote_value_t *const *args, uint32_t nargs);

#if defined(MOTE_S8_MVE)
/**
 * MVE, depth multiplier 1: one output pixel, eight channels per step in two
 * int32x4 accumulators (tail lanes predicated), taps walked with pointer
 * increments, then two vector requantizations.
 */
static void dw_mve_pixel(const mote_s8_conv_params_t *p, const int8_t *in, int32_t y0,
                         int32_t x0, int32_t ky0, int32_t ky1, int32_t kx0, int32_t kx1,
                         int8_t *out)
{
    const int32_t cout = p->cout;
    const int32_t zp = p->in_zp;
    const size_t xstep = (size_t)p->dil_w * (size_t)cout; /* next tap in a row */
    const size_t ystep = (size_t)p->dil_h * (size_t)p->w * (size_t)cout;
    const int8_t *x00 = in + ((size_t)(y0 + ky0 * p->dil_h) * p->w + (size_t)(x0 + kx0 * p->dil_w)) * cout;
    const int8_t *w00 = p->weight + ((size_t)ky0 * p->kw + (size_t)kx0) * cout;
    const int32_t nkx = kx1 - kx0;
    int32_t c;
    for (c = 0; c + 8 <= cout; c += 8) { /* full groups: no predication */
        int32x4_t acc0 = vld1q_s32(p->bias + c);
        int32x4_t acc1 = vld1q_s32(p->bias + c + 4);
        const int8_t *xr = x00 + c;
        const int8_t *wr = w00 + c;
        int32_t ky, kx;
        for (ky = ky0; ky < ky1; ky++, xr += ystep, wr += (size_t)p->kw * cout) {
            const int8_t *xp = xr;
            const int8_t *wp = wr;
            for (kx = 0; kx < nkx; kx++, xp += xstep, wp += cout) {
                acc0 = vaddq_s32(acc0, vmulq_s32(vsubq_n_s32(vldrbq_s32(xp), zp),
                                                 vldrbq_s32(wp)));
                acc1 = vaddq_s32(acc1, vmulq_s32(vsubq_n_s32(vldrbq_s32(xp + 4), zp),
                                                 vldrbq_s32(wp + 4)));
            }
        }
        vstrbq_s32(out + c, mote_s8_mve_requant(acc0, vld1q_s32(p->mult + c),
                                                vld1q_s32(p->shift + c), p->out_zp,
                                                p->act_min, p->act_max));
        vstrbq_s32(out + c + 4, mote_s8_mve_requant(acc1, vld1q_s32(p->mult + c + 4),
                                                    vld1q_s32(p->shift + c + 4), p->out_zp,
                                                    p->act_min, p->act_max));
    }
    for (; c < cout; c += 8) { /* tail: predicated lanes */
        const mve_pred16_t pa = vctp32q((uint32_t)(cout - c));
        const mve_pred16_t pb = vctp32q((uint32_t)(cout - c > 4 ? cout - c - 4 : 0));
        int32x4_t acc0 = vldrwq_z_s32(p->bias + c, pa);
        int32x4_t acc1 = vldrwq_z_s32(p->bias + c + 4, pb);
        const int8_t *xr = x00 + c;
        const int8_t *wr = w00 + c;
        int32_t ky, kx;
        for (ky = ky0; ky < ky1; ky++, xr += ystep, wr += (size_t)p->kw * cout) {
            const int8_t *xp = xr;
            const int8_t *wp = wr;
            for (kx = 0; kx < nkx; kx++, xp += xstep, wp += cout) {
                acc0 = vaddq_s32(acc0, vmulq_s32(vsubq_n_s32(vldrbq_z_s32(xp, pa), zp),
                                                 vldrbq_z_s32(wp, pa)));
                acc1 = vaddq_s32(acc1, vmulq_s32(vsubq_n_s32(vldrbq_z_s32(xp + 4, pb), zp),
                                                 vldrbq_z_s32(wp + 4, pb)));
            }
        }
        vstrbq_p_s32(out + c,
                     mote_s8_mve_requant(acc0, vldrwq_z_s32(p->mult + c, pa),
                                         vldrwq_z_s32(p->shift + c, pa), p->out_zp,
                                         p->act_min, p->act_max),
                     pa);
        vstrbq_p_s32(out + c + 4,
                     mote_s8_mve_requant(acc1, vldrwq_z_s32(p->mult + c + 4, pb),
                                         vldrwq_z_s32(p->shift + c + 4, pb), p->out_zp,
                                         p->act_min, p->act_max),
                     pb);
    }
}
#endif

#if defined(MOTE_S8_DSP)
/**
 * DSP, depth multiplier 1: one output pixel with int32 accumulators for all
 * channels in scratch; per valid tap four channels at a time: SXTB16 of input
 * (minus the zero point, SSUB16) and weights, SMLABB / SMLATT per channel.
 */
static void dw_dsp_pixel(const mote_s8_conv_params_t *p, int32_t *acc, const int8_t *in,
                         int32_t y0, int32_t x0, int32_t ky0, int32_t ky1, int32_t kx0,
                         int32_t kx1, int8_t *out)
{
    const int32_t cout = p->cout;
    const int32_t zp2 = (int32_t)(((uint32_t)p->in_zp & 0xffffu) | ((uint32_t)p->in_zp << 16));
    int32_t ky, kx, c;
    memcpy(acc, p->bias, (size_t)cout * sizeof(int32_t));
    for (ky = ky0; ky < ky1; ky++) {
        const int8_t *xr = in + ((size_t)(y0 + ky * p->dil_h) * p->w + (size_t)(x0 + kx0 * p->dil_w)) * cout;
        const int8_t *wr = p->weight + ((size_t)ky * p->kw + (size_t)kx0) * cout;
        for (kx = kx0; kx < kx1; kx++, xr += (size_t)p->dil_w * cout, wr += cout) {
            for (c = 0; c + 4 <= cout; c += 4) {
                const uint32_t xv = mote_s8_ld32(xr + c);
                const uint32_t wv = mote_s8_ld32(wr + c);
                const int32_t xe = __ssub16(__sxtb16((int32_t)xv), zp2);
                const int32_t xo = __ssub16(mote_s8_sxtb16_ror8(xv), zp2);
                const int32_t we = __sxtb16((int32_t)wv);
                const int32_t wo = mote_s8_sxtb16_ror8(wv);
                acc[c] = __smlabb(xe, we, acc[c]);
                acc[c + 1] = __smlabb(xo, wo, acc[c + 1]);
                acc[c + 2] = __smlatt(xe, we, acc[c + 2]);
                acc[c + 3] = __smlatt(xo, wo, acc[c + 3]);
            }
            for (; c < cout; c++) {
                acc[c] = (int32_t)((uint32_t)acc[c] +
                                   (uint32_t)(((int32_t)xr[c] - p->in_zp) * (int32_t)wr[c]));
            }
        }
    }
    for (c = 0; c < cout; c++) {
        out[c] = mote_s8_dsp_finish(acc[c], p->mult[c], p->shift[c], p->out_zp, p->act_min,
                                    p->act_max);
    }
}
#endif

mote_err_t mote_kernel_mote_depthwise_conv2d_s8_out(mote_kernel_ctx_t *ctx,
                                                    mote_value_t *const *args, uint32_t nargs)
{
    mote_s8_conv_params_t p;
    int32_t b, oy, ox, c;
    const mote_err_t e = mote_s8_conv_parse(args, nargs, 1, &p);
#if defined(MOTE_S8_DSP)
    int32_t *acc;
#endif
    if (e != MOTE_OK) {
        return e;
    }
#if defined(MOTE_S8_DSP)
    acc = (int32_t *)mote_s8_scratch(ctx, mote_s8_dw_scratch_bytes(p.cout));
    if (acc == NULL && p.depth_mult == 1) {
        return MOTE_ERR_KERNEL_SCRATCH;
    }
#else
    (void)ctx;
#endif
    for (b = 0; b < p.n; b++) {
        const int8_t *in = p.input + (size_t)b * p.h * p.w * p.cin;
        for (oy = 0; oy < p.ho; oy++) {
            const int32_t y0 = oy * p.stride_h - p.pad_h;
            int32_t ky0 = 0, ky1 = p.kh;
            while (ky0 < ky1 && y0 + ky0 * p.dil_h < 0) {
                ky0++;
            }
            while (ky1 > ky0 && y0 + (ky1 - 1) * p.dil_h >= p.h) {
                ky1--;
            }
            for (ox = 0; ox < p.wo; ox++) {
                const int32_t x0 = ox * p.stride_w - p.pad_w;
                int8_t *out = p.output + (((size_t)b * p.ho + oy) * p.wo + ox) * p.cout;
                int32_t kx0 = 0, kx1 = p.kw, ky, kx;
                while (kx0 < kx1 && x0 + kx0 * p.dil_w < 0) {
                    kx0++;
                }
                while (kx1 > kx0 && x0 + (kx1 - 1) * p.dil_w >= p.w) {
                    kx1--;
                }
#if defined(MOTE_S8_MVE)
                if (p.depth_mult == 1) {
                    dw_mve_pixel(&p, in, y0, x0, ky0, ky1, kx0, kx1, out);
                    continue;
                }
#endif
#if defined(MOTE_S8_DSP)
                if (p.depth_mult == 1) {
                    dw_dsp_pixel(&p, acc, in, y0, x0, ky0, ky1, kx0, kx1, out);
                    continue;
                }
#endif
                for (c = 0; c < p.cout; c++) {
                    const int32_t ci = c / p.depth_mult;
                    uint32_t acc = (uint32_t)p.bias[c];
                    for (ky = ky0; ky < ky1; ky++) {
                        const int8_t *xr = in + ((size_t)(y0 + ky * p.dil_h) * p.w) * p.cin + ci;
                        const int8_t *wr = p.weight + (size_t)ky * p.kw * p.cout + c;
                        for (kx = kx0; kx < kx1; kx++) {
                            acc += ((int32_t)xr[(size_t)(x0 + kx * p.dil_w) * p.cin] - p.in_zp) *
                                   (int32_t)wr[(size_t)kx * p.cout];
                        }
                    }
                    out[c] = mote_s8_finish_c(&p, (int32_t)acc, c);
                }
            }
        }
    }
    return MOTE_OK;
}
