/*
 * aten::topk.values - torch.topk(x, k, dim, largest, sorted): the k largest
 * (largest) or smallest elements along `dim` and their indices, best first.
 * A NaN counts as larger than any number (first for largest, last for
 * smallest, as torch); equal values keep their input order. sorted = false
 * returns the same (sorted) order, which torch also allows.
 *
 *   args (7): self, k int (0 <= k <= size of dim), dim int (negative counts from
 *             the end; 0-d accepts 0/-1), largest bool, sorted bool, values,
 *             indices (both self's shape with dim of size k).
 *   dtypes: self float32, int32 or int64; values in self's dtype; indices int64.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim, k out of range),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (out shapes).
 *   Cost O(len * k) per slice (insertion into the k best).
 */
#include "reduce.h"

MOTE_KERNEL("aten::topk.values")
MOTE_KERNEL_OUTPUTS("aten::topk.values", 2) /* values, indices */

MOTE_K_DECLARE(mote_kernel_aten_topk_values);

#define MOTE_TOPK_ISNAN_F(v) ((v) != (v))
#define MOTE_TOPK_ISNAN_I(v) 0

/* a before b in the result: larger (largest) or smaller, NaN the largest */
#define MOTE_TOPK_FN(NAME, T, ISNAN)                                                      \
    static void NAME(const T *x, T *y, int64_t *yi, size_t len, size_t inner, size_t k,   \
                     int largest)                                                         \
    {                                                                                     \
        size_t m = 0, i;                                                                  \
        for (i = 0; i < len && k > 0; i++) {                                              \
            const T v = x[i * inner];                                                     \
            size_t p;                                                                     \
            if (m == k) {                                                                 \
                const T last = y[(k - 1) * inner];                                        \
                const int better = largest ? ((ISNAN(v) && !ISNAN(last)) || v > last)     \
                                           : ((ISNAN(last) && !ISNAN(v)) || v < last);    \
                if (!better) {                                                            \
                    continue;                                                             \
                }                                                                         \
                p = k - 1;                                                                \
            } else {                                                                      \
                p = m++;                                                                  \
            }                                                                             \
            while (p > 0) {                                                               \
                const T u = y[(p - 1) * inner];                                           \
                const int better = largest ? ((ISNAN(v) && !ISNAN(u)) || v > u)           \
                                           : ((ISNAN(u) && !ISNAN(v)) || v < u);          \
                if (!better) {                                                            \
                    break;                                                                \
                }                                                                         \
                y[p * inner] = u;                                                         \
                yi[p * inner] = yi[(p - 1) * inner];                                      \
                p--;                                                                      \
            }                                                                             \
            y[p * inner] = v;                                                             \
            yi[p * inner] = (int64_t)i;                                                   \
        }                                                                                 \
    }

MOTE_TOPK_FN(mote_topk_f32, float, MOTE_TOPK_ISNAN_F)
MOTE_TOPK_FN(mote_topk_i32, int32_t, MOTE_TOPK_ISNAN_I)
MOTE_TOPK_FN(mote_topk_i64, int64_t, MOTE_TOPK_ISNAN_I)

mote_err_t mote_kernel_aten_topk_values(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                        uint32_t nargs)
{
    mote_tensor_t *in, *vals, *idx;
    int64_t k, dim;
    int largest, sorted;
    uint32_t d, e;
    size_t outer, len, inner, o, i;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 7));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_int(args[1], &k));
    MOTE_TRY(mote_k_int(args[2], &dim));
    MOTE_TRY(mote_k_bool(args[3], &largest));
    MOTE_TRY(mote_k_bool(args[4], &sorted));
    MOTE_TRY(mote_k_tensor(args[5], &vals));
    MOTE_TRY(mote_k_tensor(args[6], &idx));
    (void)sorted;
    MOTE_TRY(mote_k_dim(dim, in->dim, &d));
    len = in->dim == 0 ? 1 : (size_t)in->sizes[d];
    MOTE_CHECK(k >= 0 && (uint64_t)k <= (uint64_t)len, MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK((in->dtype == MOTE_DTYPE_FLOAT32 || in->dtype == MOTE_DTYPE_INT32 ||
                in->dtype == MOTE_DTYPE_INT64) &&
                   vals->dtype == in->dtype && idx->dtype == MOTE_DTYPE_INT64,
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_CHECK(vals->dim == in->dim && idx->dim == in->dim, MOTE_ERR_KERNEL_SHAPE);
    for (e = 0; e < in->dim; e++) {
        const int32_t want = e == d ? (int32_t)k : in->sizes[e];
        MOTE_CHECK(vals->sizes[e] == want && idx->sizes[e] == want, MOTE_ERR_KERNEL_SHAPE);
    }
    MOTE_TRY(mote_k_check_numel(vals));
    MOTE_TRY(mote_k_check_numel(idx));
    outer = mote_k_prod(in, 0, d);
    inner = mote_k_prod(in, d + 1, in->dim);
    for (o = 0; o < outer; o++) {
        for (i = 0; i < inner; i++) {
            const size_t ib = o * len * inner + i, ob = o * (size_t)k * inner + i;
            int64_t *yi = (int64_t *)idx->data + ob;
            switch (in->dtype) {
            case MOTE_DTYPE_FLOAT32:
                mote_topk_f32((const float *)in->data + ib, (float *)vals->data + ob, yi, len,
                              inner, (size_t)k, largest);
                break;
            case MOTE_DTYPE_INT32:
                mote_topk_i32((const int32_t *)in->data + ib, (int32_t *)vals->data + ob, yi, len,
                              inner, (size_t)k, largest);
                break;
            default:
                mote_topk_i64((const int64_t *)in->data + ib, (int64_t *)vals->data + ob, yi, len,
                              inner, (size_t)k, largest);
                break;
            }
        }
    }
    return MOTE_OK;
}
