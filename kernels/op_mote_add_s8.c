/*
 * mote::add_s8.out - TFLite-style int8 add of two same-shape tensors:
 * a' = requantize((a - a_zp) << left_shift, a_M, a_s), b' likewise,
 * out = clamp(requantize(a' + b', o_M, o_s) + o_zp, act_min, act_max).
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
    mote_tensor_t *ta;
    mote_tensor_t *tb;
    mote_tensor_t *to;
    int32_t azp, am, ash, bzp, bm, bsh, ls, ozp, om, osh, amin, amax;
    const int8_t *a;
    const int8_t *b;
    int8_t *o;
    uint32_t i;
    (void)ctx;
    MOTE_TRY(mote_s8_binary_args(args, nargs, 15u, &ta, &tb, &to));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[2], &azp));
    MOTE_TRY(mote_s8_int_arg(args[3], 0, INT32_MAX, &am));
    MOTE_TRY(mote_s8_int_arg(args[4], -31, 31, &ash));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[5], &bzp));
    MOTE_TRY(mote_s8_int_arg(args[6], 0, INT32_MAX, &bm));
    MOTE_TRY(mote_s8_int_arg(args[7], -31, 31, &bsh));
    MOTE_TRY(mote_s8_int_arg(args[8], 0, 31, &ls));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[9], &ozp));
    MOTE_TRY(mote_s8_int_arg(args[10], 0, INT32_MAX, &om));
    MOTE_TRY(mote_s8_int_arg(args[11], -31, 31, &osh));
    MOTE_TRY(mote_s8_act_args(args[12], args[13], &amin, &amax));
    a = (const int8_t *)ta->data;
    b = (const int8_t *)tb->data;
    o = (int8_t *)to->data;
    for (i = 0; i < ta->numel; i++) {
        const int32_t xa = (int32_t)((uint32_t)((int32_t)a[i] - azp) << ls);
        const int32_t xb = (int32_t)((uint32_t)((int32_t)b[i] - bzp) << ls);
        const int32_t ra = mote_requantize(xa, am, ash);
        const int32_t rb = mote_requantize(xb, bm, bsh);
        const int32_t sum = (int32_t)((uint32_t)ra + (uint32_t)rb);
        o[i] = mote_s8_out(mote_requantize(sum, om, osh), ozp, amin, amax);
    }
    return MOTE_OK;
}
