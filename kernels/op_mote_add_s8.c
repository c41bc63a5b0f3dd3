/*
 * mote::add_s8.out - TFLite-style int8 add of two same-shape tensors:
 * a' = requantize((a - a_zp) << left_shift, a_M, a_s), b' likewise,
 * out = clamp(requantize(a' + b', o_M, o_s) + o_zp, act_min, act_max).
 * Computed in the folded form of kernels/requant.h (mote_s8_add_params_t: the
 * zero points and left shifts folded into one multiply-add per input, three
 * rounding multiplies per element) when the arguments admit it (every program
 * the compiler emits), else with the reference's arithmetic; same bytes.
 * cmsis/op_mote_add_s8.c is the Cortex-M DSP / MVE version.
 *
 *   dtypes: int8 (a, b, out).
 */
#include "mote/kernel.h"
#include "requant.h"

MOTE_KERNEL("mote::add_s8.out")
MOTE_KERNEL_IN_PLACE("mote::add_s8.out")

mote_err_t mote_kernel_mote_add_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                       uint32_t nargs);

mote_err_t mote_kernel_mote_add_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                       uint32_t nargs)
{
    mote_s8_add_params_t parsed;
    uint32_t i;
    (void)ctx;
    MOTE_TRY(mote_s8_add_parse(args, nargs, &parsed));
    {
        const mote_s8_add_params_t p = parsed; /* not aliased by the byte stores */
        if (p.fast) {
            for (i = 0; i < p.numel; i++) {
                p.out[i] = mote_s8_add_fast_c(&p, p.a[i], p.b[i]);
            }
        } else {
            for (i = 0; i < p.numel; i++) {
                p.out[i] = mote_s8_add_ref(&p, p.a[i], p.b[i]);
            }
        }
    }
    return MOTE_OK;
}
