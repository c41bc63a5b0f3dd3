/*
 * aten::where.self_out - out = condition ? self : other, the three broadcast
 * together (e.g. `torch.where(x > 0, x, 0.1 * x)`, and masked_fill, which
 * torch.export turns into where with a 0-dim constant).
 *
 *   args (4): condition (bool), self, other, out (the broadcast shape of all three).
 *   dtypes: condition bool; self/other float32, int32, int64, bool, int8, int16, uint8;
 *           out torch's promoted dtype of self and other (0-dim constants such as a lifted
 *           float32 -inf or an int64 0 do not widen a dim tensor in their category).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (dtype combination),
 *           MOTE_ERR_KERNEL_SHAPE (not broadcastable / out not the broadcast shape).
 *   out may alias a same-dtype full-shape input exactly (in place).
 */
#include "elementwise.h"

MOTE_KERNEL("aten::where.self_out")
MOTE_KERNEL_IN_PLACE("aten::where.self_out")

MOTE_K_DECLARE(mote_kernel_aten_where_self_out);

#define MOTE_WHERE_ROW(NAME, T)                                                       \
    static void NAME(void *out, const void *const *in, const size_t *st, size_t n,    \
                     mote_ew_param_t *p)                                              \
    {                                                                                 \
        const uint8_t *c = (const uint8_t *)in[0];                                    \
        const T *a = (const T *)in[1], *b = (const T *)in[2];                         \
        T *o = (T *)out;                                                              \
        size_t i;                                                                     \
        (void)p;                                                                      \
        for (i = 0; i < n; i++) {                                                     \
            o[i] = c[i * st[0]] ? a[i * st[1]] : b[i * st[2]];                        \
        }                                                                             \
    }

MOTE_WHERE_ROW(mote_where_f32, float)
MOTE_WHERE_ROW(mote_where_i64, int64_t)
MOTE_WHERE_ROW(mote_where_b8, uint8_t)

mote_err_t mote_kernel_aten_where_self_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                           uint32_t nargs)
{
    mote_tensor_t *in[3], *out;
    mote_ew_operand_t desc[2];
    mote_ew_param_t p = {0};
    uint8_t r, ct[3];
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 4));
    MOTE_TRY(mote_k_tensor(args[0], &in[0]));
    MOTE_TRY(mote_k_tensor(args[1], &in[1]));
    MOTE_TRY(mote_k_tensor(args[2], &in[2]));
    MOTE_TRY(mote_k_tensor(args[3], &out));
    MOTE_CHECK(in[0]->dtype == MOTE_DTYPE_BOOL, MOTE_ERR_KERNEL_DTYPE);
    desc[0].dtype = in[1]->dtype;
    desc[0].kind = mote_ew_tensor_kind(in[1]);
    desc[1].dtype = in[2]->dtype;
    desc[1].kind = mote_ew_tensor_kind(in[2]);
    r = mote_ew_result_type(desc, 2);
    MOTE_CHECK(r != MOTE_EW_UNDEF && r != MOTE_DTYPE_FLOAT64 && out->dtype == r,
               MOTE_ERR_KERNEL_DTYPE);
    ct[0] = MOTE_DTYPE_BOOL;
    ct[1] = ct[2] = mote_ew_domain(r);
    return mote_ew_map(in, ct, 3, out, ct[1],
                       ct[1] == MOTE_DTYPE_FLOAT32 ? mote_where_f32
                       : ct[1] == MOTE_DTYPE_INT64 ? mote_where_i64 : mote_where_b8,
                       &p);
}
