/*
 * aten::masked_fill.Scalar_out - out = mask ? value : self; mask broadcasts
 * to self's shape (torch.export emits where.self_out for masked_fill; this
 * overload comes from ExecuTorch-made programs).
 *
 *   args (4): self, mask (bool), value Scalar, out (same shape and dtype as self).
 *   dtypes: self float32, int32, int64, bool, int8, int16, uint8; value converted to
 *           self's dtype (a Double truncates toward zero for integers; NaN/inf or a value
 *           out of the integer range -> MOTE_ERR_KERNEL_ARGS, as torch refuses).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, value), MOTE_ERR_KERNEL_DTYPE (mask not
 *           bool, out dtype), MOTE_ERR_KERNEL_SHAPE (mask not broadcastable to self, out).
 *   out may alias self exactly (in place).
 */
#include <math.h>

#include "elementwise.h"

MOTE_KERNEL("aten::masked_fill.Scalar_out")
MOTE_KERNEL_IN_PLACE("aten::masked_fill.Scalar_out")

MOTE_K_DECLARE(mote_kernel_aten_masked_fill_Scalar_out);

#define MOTE_MASKED_FILL_ROW(NAME, T, V)                                              \
    static void NAME(void *out, const void *const *in, const size_t *st, size_t n,    \
                     mote_ew_param_t *p)                                              \
    {                                                                                 \
        const T *a = (const T *)in[0];                                                \
        const uint8_t *m = (const uint8_t *)in[1];                                    \
        const T v = (V);                                                              \
        T *o = (T *)out;                                                              \
        size_t i;                                                                     \
        for (i = 0; i < n; i++) {                                                     \
            o[i] = m[i * st[1]] ? v : a[i * st[0]];                                   \
        }                                                                             \
    }

MOTE_MASKED_FILL_ROW(mote_masked_fill_f32, float, (float)p->scalar)
MOTE_MASKED_FILL_ROW(mote_masked_fill_i64, int64_t, p->iscalar)
MOTE_MASKED_FILL_ROW(mote_masked_fill_b8, uint8_t, (uint8_t)(p->scalar != 0.0))

mote_err_t mote_kernel_aten_masked_fill_Scalar_out(mote_kernel_ctx_t *ctx,
                                                   mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *in[2], *out;
    mote_ew_param_t p = {0};
    uint8_t ct[2], dom;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 4));
    MOTE_TRY(mote_k_tensor(args[0], &in[0]));
    MOTE_TRY(mote_k_tensor(args[1], &in[1]));
    MOTE_TRY(mote_k_scalar(args[2], &p.scalar));
    MOTE_TRY(mote_k_tensor(args[3], &out));
    MOTE_CHECK(in[1]->dtype == MOTE_DTYPE_BOOL && out->dtype == in[0]->dtype &&
                   mote_ew_category(in[0]->dtype) >= 0 && in[0]->dtype != MOTE_DTYPE_FLOAT64,
               MOTE_ERR_KERNEL_DTYPE);
    dom = mote_ew_domain(in[0]->dtype);
    if (dom == MOTE_DTYPE_INT64) {
        if (args[2]->tag == MOTE_TAG_INT) {
            p.iscalar = args[2]->u.i;
        } else {
            /* in range of int64 (then wrapped to the dtype's width like torch's cast) */
            MOTE_CHECK(p.scalar == p.scalar && p.scalar > -9223372036854775808.0 - 1.0 &&
                           p.scalar < 9223372036854775808.0,
                       MOTE_ERR_KERNEL_ARGS);
            p.iscalar = (int64_t)p.scalar;
        }
    }
    MOTE_CHECK(mote_k_same_shape(in[0], out), MOTE_ERR_KERNEL_SHAPE);
    ct[0] = dom;
    ct[1] = MOTE_DTYPE_BOOL;
    return mote_ew_map(in, ct, 2, out, dom,
                       dom == MOTE_DTYPE_FLOAT32 ? mote_masked_fill_f32
                       : dom == MOTE_DTYPE_INT64 ? mote_masked_fill_i64 : mote_masked_fill_b8,
                       &p);
}
