/*
 * mote::mul_s8.out - int8 elementwise multiply:
 * out = clamp(requantize((a - a_zp) * (b - b_zp), M, s) + o_zp, act_min, act_max);
 * the requantization in the folded form of kernels/requant.h where it applies.
 * b has a's shape, or broadcasts to it (a's rank, each size equal to a's or 1:
 * a squeeze-excitation gate [N, 1, 1, C] over NHWC [N, H, W, C]); out has a's shape.
 *
 *   dtypes: int8 (a, b, out).
 *   errors: MOTE_ERR_KERNEL_ARGS (count, tags, ranges), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (b not broadcastable to a, out not a's shape).
 */
#include "mote/kernel.h"
#include "requant.h"

MOTE_KERNEL("mote::mul_s8.out")
MOTE_KERNEL_IN_PLACE("mote::mul_s8.out")

mote_err_t mote_kernel_mote_mul_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                       uint32_t nargs);

/**
 * b broadcast over a: the element strides of b along a's dims (0 where b has size 1)
 * into bstr; 1 if b broadcasts to a (a's rank, each size a's or 1), else 0.
 */
static int mul_broadcast_strides(const mote_tensor_t *a, const mote_tensor_t *b, uint32_t bstr[MOTE_MAX_DIM])
{
    uint32_t d, step = 1u;
    if (a->dim != b->dim || a->dim > MOTE_MAX_DIM) {
        return 0;
    }
    for (d = a->dim; d-- > 0u;) {
        if (b->sizes[d] == a->sizes[d]) {
            bstr[d] = step;
            step *= (uint32_t)b->sizes[d];
        } else if (b->sizes[d] == 1) {
            bstr[d] = 0u;
        } else {
            return 0;
        }
    }
    return step == b->numel;
}

/** out = a * b[broadcast]: rows of a's last dim, b's row offset from the outer index. */
static void mul_broadcast(const mote_tensor_t *ta, const int8_t *a, const int8_t *b, int8_t *o,
                          const uint32_t bstr[MOTE_MAX_DIM], int32_t azp, int32_t bzp, int32_t ozp,
                          int32_t om, int32_t osh, int32_t amin, int32_t amax)
{
    const uint32_t last = ta->dim ? ta->dim - 1u : 0u;
    const uint32_t inner = ta->dim ? (uint32_t)ta->sizes[last] : 1u;
    const uint32_t binc = ta->dim ? bstr[last] : 0u;
    const uint32_t rows = inner ? ta->numel / inner : 0u;
    const mote_s8_fastrq_t q = mote_s8_fastrq_init(om, osh, ozp, 65025);
    uint32_t r, j, d;
    for (r = 0; r < rows; r++) {
        const int8_t *br = b;
        uint32_t rest = r;
        for (d = last; d-- > 0u;) { /* the outer index of row r, dim by dim */
            br += (rest % (uint32_t)ta->sizes[d]) * bstr[d];
            rest /= (uint32_t)ta->sizes[d];
        }
        for (j = 0; j < inner; j++) {
            const int32_t prod = ((int32_t)a[j] - azp) * ((int32_t)br[j * binc] - bzp);
            o[j] = q.ok ? mote_clamp_s8(mote_s8_fastrq_c(&q, prod), amin, amax)
                        : mote_s8_out(mote_requantize(prod, om, osh), ozp, amin, amax);
        }
        a += inner;
        o += inner;
    }
}

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
    uint32_t bstr[MOTE_MAX_DIM];
    (void)ctx;
    MOTE_CHECK(args != NULL && nargs == 10u, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_s8_any_tensor_arg(args[0], MOTE_DTYPE_INT8, &ta));
    MOTE_TRY(mote_s8_any_tensor_arg(args[1], MOTE_DTYPE_INT8, &tb));
    MOTE_TRY(mote_s8_any_tensor_arg(args[9], MOTE_DTYPE_INT8, &to));
    MOTE_CHECK(mote_s8_same_shape(ta, to) && mul_broadcast_strides(ta, tb, bstr), MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(MOTE_S8_ZP_ARG(args[2], &azp));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[3], &bzp));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[4], &ozp));
    MOTE_TRY(mote_s8_int_arg(args[5], 0, INT32_MAX, &om));
    MOTE_TRY(mote_s8_int_arg(args[6], -31, 31, &osh));
    MOTE_TRY(mote_s8_act_args(args[7], args[8], &amin, &amax));
    a = (const int8_t *)ta->data;
    b = (const int8_t *)tb->data;
    o = (int8_t *)to->data;
    if (!mote_s8_same_shape(ta, tb)) {
        mul_broadcast(ta, a, b, o, bstr, azp, bzp, ozp, om, osh, amin, amax);
        return MOTE_OK;
    }
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
