/*
 * mote::mul_s8.out - int8 elementwise multiply of two same-shape tensors:
 * out = clamp(requantize((a - a_zp) * (b - b_zp), M, s) + o_zp, act_min, act_max);
 * the requantization in the folded form of kernels/requant.h where it applies.
 *
 *   dtypes: int8 (a, b, out).
 */
#include "mote/kernel.h"
#include "requant.h"

MOTE_KERNEL("mote::mul_s8.out")
MOTE_KERNEL_IN_PLACE("mote::mul_s8.out")

mote_err_t mote_kernel_mote_mul_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                       uint32_t nargs);

mote_err_t mote_kernel_mote_mul_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                       uint32_t nargs)
{
    mote_tensor_t *ta;
    mote_tensor_t *tb;
    mote_tensor_t *to;
    int32_t azp, bzp, ozp, om, osh, amin, amax;
    const int8_t *a;
    const int8_t *b;
    int8_t *o;
    uint32_t i;
    (void)ctx;
    MOTE_TRY(mote_s8_binary_args(args, nargs, 10u, &ta, &tb, &to));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[2], &azp));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[3], &bzp));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[4], &ozp));
    MOTE_TRY(mote_s8_int_arg(args[5], 0, INT32_MAX, &om));
    MOTE_TRY(mote_s8_int_arg(args[6], -31, 31, &osh));
    MOTE_TRY(mote_s8_act_args(args[7], args[8], &amin, &amax));
    a = (const int8_t *)ta->data;
    b = (const int8_t *)tb->data;
    o = (int8_t *)to->data;
    {
        /* |(a - a_zp) (b - b_zp)| <= 255 * 255: the folded requantization (requant.h) */
        const mote_s8_fastrq_t q = mote_s8_fastrq_init(om, osh, ozp, 65025);
        if (q.ok) {
            for (i = 0; i < ta->numel; i++) {
                const int32_t prod = ((int32_t)a[i] - azp) * ((int32_t)b[i] - bzp);
                o[i] = mote_clamp_s8(mote_s8_fastrq_c(&q, prod), amin, amax);
            }
            return MOTE_OK;
        }
    }
    for (i = 0; i < ta->numel; i++) {
        const int32_t prod = ((int32_t)a[i] - azp) * ((int32_t)b[i] - bzp);
        o[i] = mote_s8_out(mote_requantize(prod, om, osh), ozp, amin, amax);
    }
    return MOTE_OK;
}
