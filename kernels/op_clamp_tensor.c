/*
 * aten::clamp.Tensor_out - out = min(max(self, min), max) with tensor bounds,
 * all three broadcast (e.g. `torch.clamp(x, lo_t, hi_t)`); either bound may be
 * None. NaN in self or in a bound propagates; min > max gives max (torch).
 *
 *   args (4): self, min Tensor?, max Tensor?, out (the broadcast shape).
 *   dtypes: float32 or integers (int32, int64, int8, int16, uint8); out torch's promoted
 *           dtype of the present operands. bool -> DTYPE.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, both bounds None), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (not broadcastable / out not the broadcast shape).
 *   out may alias a same-dtype full-shape input exactly (in place).
 */
#include "elementwise.h"

MOTE_KERNEL("aten::clamp.Tensor_out")
MOTE_KERNEL_IN_PLACE("aten::clamp.Tensor_out")

MOTE_K_DECLARE(mote_kernel_aten_clamp_Tensor_out);

#define MOTE_CLAMP_HAS_MIN 1u
#define MOTE_CLAMP_HAS_MAX 2u

static float mote_clamp_max_f32(float x, float y)
{
    return (x != x || y != y) ? x + y : (x > y ? x : y);
}

static float mote_clamp_min_f32(float x, float y)
{
    return (x != x || y != y) ? x + y : (x < y ? x : y);
}

static void mote_clamp_f32(void *out, const void *const *in, const size_t *st, size_t n,
                           mote_ew_param_t *p)
{
    const float *a = (const float *)in[0], *b = (const float *)in[1];
    /* in[2] is max when both bounds are present, else in[1] is the one bound */
    const float *c = (p->flags & MOTE_CLAMP_HAS_MIN) && (p->flags & MOTE_CLAMP_HAS_MAX)
                             ? (const float *)in[2] : b;
    float *o = (float *)out;
    size_t i;
    for (i = 0; i < n; i++) {
        float v = a[i * st[0]];
        if (p->flags & MOTE_CLAMP_HAS_MIN) {
            v = mote_clamp_max_f32(v, b[i * st[1]]);
            if (p->flags & MOTE_CLAMP_HAS_MAX) {
                v = mote_clamp_min_f32(v, c[i * st[2]]);
            }
        } else {
            v = mote_clamp_min_f32(v, b[i * st[1]]);
        }
        o[i] = v;
    }
}

static void mote_clamp_i64(void *out, const void *const *in, const size_t *st, size_t n,
                           mote_ew_param_t *p)
{
    const int64_t *a = (const int64_t *)in[0], *b = (const int64_t *)in[1];
    /* in[2] is max when both bounds are present, else in[1] is the one bound */
    const int64_t *c = (p->flags & MOTE_CLAMP_HAS_MIN) && (p->flags & MOTE_CLAMP_HAS_MAX)
                             ? (const int64_t *)in[2] : b;
    int64_t *o = (int64_t *)out;
    size_t i;
    for (i = 0; i < n; i++) {
        int64_t v = a[i * st[0]];
        if (p->flags & MOTE_CLAMP_HAS_MIN) {
            const int64_t lo = b[i * st[1]];
            v = v < lo ? lo : v;
            if (p->flags & MOTE_CLAMP_HAS_MAX) {
                const int64_t hi = c[i * st[2]];
                v = v > hi ? hi : v;
            }
        } else {
            const int64_t hi = b[i * st[1]];
            v = v > hi ? hi : v;
        }
        o[i] = v;
    }
}

mote_err_t mote_kernel_aten_clamp_Tensor_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                             uint32_t nargs)
{
    mote_tensor_t *in[3], *lo, *hi, *out;
    mote_ew_operand_t desc[3];
    mote_ew_param_t p = {0};
    uint8_t r, dom, ct[3];
    uint32_t nin = 1, k;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 4));
    MOTE_TRY(mote_k_tensor(args[0], &in[0]));
    MOTE_TRY(mote_k_opt_tensor(args[1], &lo));
    MOTE_TRY(mote_k_opt_tensor(args[2], &hi));
    MOTE_TRY(mote_k_tensor(args[3], &out));
    MOTE_CHECK(lo != NULL || hi != NULL, MOTE_ERR_KERNEL_ARGS);
    if (lo != NULL) {
        in[nin++] = lo;
        p.flags |= MOTE_CLAMP_HAS_MIN;
    }
    if (hi != NULL) {
        in[nin++] = hi;
        p.flags |= MOTE_CLAMP_HAS_MAX;
    }
    for (k = 0; k < nin; k++) {
        desc[k].dtype = in[k]->dtype;
        desc[k].kind = mote_ew_tensor_kind(in[k]);
    }
    r = mote_ew_result_type(desc, nin);
    MOTE_CHECK(r != MOTE_EW_UNDEF && r != MOTE_DTYPE_FLOAT64 && r != MOTE_DTYPE_BOOL &&
                   out->dtype == r,
               MOTE_ERR_KERNEL_DTYPE);
    dom = mote_ew_domain(r);
    for (k = 0; k < nin; k++) {
        ct[k] = dom;
    }
    return mote_ew_map(in, ct, nin, out, dom,
                       dom == MOTE_DTYPE_FLOAT32 ? mote_clamp_f32 : mote_clamp_i64, &p);
}
