/*
 * mote::bmm_s8.out - int8 batched matrix product of two activations (attention):
 * out[b,m,n] = clamp(requantize(sum_k (a[b,m,k] - a_zp) * (B[b,k,n] - b_zp), M, s)
 *                    + o_zp, act_min, act_max).
 * Plain C (docs/int8-ops.md); no Cortex-M specific version yet.
 *
 *   args (11): a [B, M, K]; b [B, K, N], or [B, N, K] when b_transposed (a transposed
 *              operand as it lies in memory, e.g. k of q @ k^T); bool b_transposed;
 *              int a_zero_point, b_zero_point, output_zero_point (int8 range);
 *              int output_multiplier [0, 2^31 - 1]; int output_shift [-31, 31];
 *              int activation_min <= activation_max (int8 range); out [B, M, N].
 *   dtypes: int8 (a, b, out).
 *   errors: MOTE_ERR_KERNEL_ARGS (count, tags, scalar ranges), MOTE_ERR_KERNEL_DTYPE (a
 *           tensor not int8), MOTE_ERR_KERNEL_SHAPE (ranks, batch / K mismatch, out sizes).
 *   out must not overlap a or b. The int32 accumulator wraps (K up to 33025 cannot).
 */
#include "mote/kernel.h"
#include "requant.h"

MOTE_KERNEL("mote::bmm_s8.out")

mote_err_t mote_kernel_mote_bmm_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                       uint32_t nargs);

mote_err_t mote_kernel_mote_bmm_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                       uint32_t nargs)
{
    mote_tensor_t *ta;
    mote_tensor_t *tb;
    mote_tensor_t *to;
    int32_t azp, bzp, ozp, om, osh, amin, amax;
    int32_t nb, m, k, n, bi, i, j, t;
    size_t sk, sn; /* element strides of b along K and along N */
    int trans;
    (void)ctx;
    MOTE_CHECK(args != NULL && nargs == 11u, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_s8_tensor_arg(args[0], MOTE_DTYPE_INT8, 3, &ta));
    MOTE_TRY(mote_s8_tensor_arg(args[1], MOTE_DTYPE_INT8, 3, &tb));
    MOTE_CHECK(args[2] != NULL && args[2]->tag == MOTE_TAG_BOOL, MOTE_ERR_KERNEL_ARGS);
    trans = args[2]->u.b ? 1 : 0;
    MOTE_TRY(MOTE_S8_ZP_ARG(args[3], &azp));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[4], &bzp));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[5], &ozp));
    MOTE_TRY(mote_s8_int_arg(args[6], 0, INT32_MAX, &om));
    MOTE_TRY(mote_s8_int_arg(args[7], -31, 31, &osh));
    MOTE_TRY(mote_s8_act_args(args[8], args[9], &amin, &amax));
    MOTE_TRY(mote_s8_tensor_arg(args[10], MOTE_DTYPE_INT8, 3, &to));
    nb = ta->sizes[0];
    m = ta->sizes[1];
    k = ta->sizes[2];
    n = trans ? tb->sizes[1] : tb->sizes[2];
    MOTE_CHECK(tb->sizes[0] == nb && (trans ? tb->sizes[2] : tb->sizes[1]) == k &&
                   to->sizes[0] == nb && to->sizes[1] == m && to->sizes[2] == n,
               MOTE_ERR_KERNEL_SHAPE);
    sk = trans ? 1u : (size_t)n;
    sn = trans ? (size_t)k : 1u;
    for (bi = 0; bi < nb; bi++) {
        const int8_t *a = (const int8_t *)ta->data + (size_t)bi * (size_t)m * (size_t)k;
        const int8_t *b = (const int8_t *)tb->data + (size_t)bi * (size_t)k * (size_t)n;
        int8_t *o = (int8_t *)to->data + (size_t)bi * (size_t)m * (size_t)n;
        for (i = 0; i < m; i++) {
            const int8_t *ar = a + (size_t)i * (size_t)k;
            for (j = 0; j < n; j++) {
                const int8_t *bc = b + (size_t)j * sn;
                uint32_t acc = 0u; /* int32 wrap, UB-free */
                for (t = 0; t < k; t++) {
                    acc += (uint32_t)(((int32_t)ar[t] - azp) * ((int32_t)bc[(size_t)t * sk] - bzp));
                }
                o[(size_t)i * (size_t)n + j] =
                    mote_s8_out(mote_requantize((int32_t)acc, om, osh), ozp, amin, amax);
            }
        }
    }
    return MOTE_OK;
}
