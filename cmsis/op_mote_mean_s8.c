/*
 * mote::mean_s8.out - Cortex-M version (DSP / MVE / plain, see mote_s8_arm.h):
 * int8 global average over H and W of NHWC [N,H,W,C] (the global average pool),
 * same bytes as kernels/op_mote_mean_s8.c. The sum of x - in_zp is the int32 sum
 * of x minus H*W*in_zp (both wrap alike), taken four channels at a time:
 * - MVE: int32x4 lanes (VLDRB.S32 widening loads), vector requantization;
 * - DSP: SXTAB16 into two words of int16 pairs (channels 0/2 and 1/3), moved to
 *   int32 every 256 pixels (|256 * 128| fits int16's range), then requantized;
 * - plain: the reference loop.
 */
#include "mote/kernel.h"
#include "mote_s8_arm.h"

MOTE_KERNEL("mote::mean_s8.out")

mote_err_t mote_kernel_mote_mean_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                        uint32_t nargs);

/** requantize + zero point + clamp to [-128, 127] of one channel's sum (once per
 *  channel, outside the pixel loops: one copy, not one per call site). */
#if !defined(MOTE_S8_MVE) /* MVE requantizes four lanes at once */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int8_t mean_finish(const mote_s8_mean_params_t *p, uint32_t sum)
{
    const uint32_t acc = sum - (uint32_t)p->hw * (uint32_t)p->in_zp;
    return mote_s8_out(mote_requantize((int32_t)acc, p->mult, p->shift), p->out_zp, -128, 127);
}
#endif

#if defined(MOTE_S8_MVE)
/** Channels [ch, ch + 4) (predicated to C) of one image x: sums, requantized. */
MOTE_S8_HOT static void mean_image(const mote_s8_mean_params_t *p, const int8_t *x, int8_t *o)
{
    const int32x4_t mult = vdupq_n_s32(p->mult), shift = vdupq_n_s32(p->shift);
    const int32_t zhw = (int32_t)((uint32_t)p->hw * (uint32_t)p->in_zp);
    int32_t ch, i;
    for (ch = 0; ch < p->c; ch += 4) {
        const mve_pred16_t pr = vctp32q((uint32_t)(p->c - ch));
        const int8_t *px = x + ch;
        int32x4_t acc = vdupq_n_s32(0);
        for (i = 0; i < p->hw; i++, px += p->c) {
            acc = vaddq_s32(acc, vldrbq_z_s32(px, pr));
        }
        acc = vsubq_s32(acc, vdupq_n_s32(zhw)); /* wraps like the reference's uint32 sum */
        vstrbq_p_s32(o + ch, mote_s8_mve_requant(acc, mult, shift, p->out_zp, -128, 127), pr);
    }
}
#elif defined(MOTE_S8_DSP)
/** Every channel of one image x: four at a time with SXTAB16, the rest in C. */
MOTE_S8_HOT static void mean_image(const mote_s8_mean_params_t *p, const int8_t *x, int8_t *o)
{
    int32_t ch, i, j;
    for (ch = 0; ch + 4 <= p->c; ch += 4) {
        const int8_t *px = x + ch;
        uint32_t s[4] = {0, 0, 0, 0};
        for (i = 0; i < p->hw; i += 256) {
            const int32_t end = p->hw - i < 256 ? p->hw - i : 256;
            int32_t e = 0, od = 0; /* int16 pairs: channels (0, 2) and (1, 3) */
            for (j = 0; j < end; j++, px += p->c) {
                const uint32_t v = mote_s8_ld32(px);
                e = __sxtab16(e, (int32_t)v);
                od = __sxtab16(od, (int32_t)mote_s8_ror(v, 8));
            }
            s[0] += (uint32_t)(int32_t)(int16_t)e;
            s[2] += (uint32_t)(e >> 16);
            s[1] += (uint32_t)(int32_t)(int16_t)od;
            s[3] += (uint32_t)(od >> 16);
        }
        for (j = 0; j < 4; j++) {
            o[ch + j] = mean_finish(p, s[j]);
        }
    }
    for (; ch < p->c; ch++) {
        uint32_t s = 0;
        for (i = 0; i < p->hw; i++) {
            s += (uint32_t)(int32_t)x[(size_t)i * p->c + ch];
        }
        o[ch] = mean_finish(p, s);
    }
}
#else
/** Every channel of one image x: the reference loop. */
static void mean_image(const mote_s8_mean_params_t *p, const int8_t *x, int8_t *o)
{
    int32_t ch, i;
    for (ch = 0; ch < p->c; ch++) {
        uint32_t s = 0;
        for (i = 0; i < p->hw; i++) {
            s += (uint32_t)(int32_t)x[(size_t)i * p->c + ch];
        }
        o[ch] = mean_finish(p, s);
    }
}
#endif

mote_err_t mote_kernel_mote_mean_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                        uint32_t nargs)
{
    mote_s8_mean_params_t p;
    int32_t b;
    (void)ctx;
    MOTE_TRY(mote_s8_mean_parse(args, nargs, &p));
    for (b = 0; b < p.n; b++) {
        mean_image(&p, p.input + (size_t)b * p.hw * p.c, p.output + (size_t)b * p.c);
    }
    return MOTE_OK;
}
