/*
 * aten::native_group_norm.out - nn.GroupNorm: the C channels of each sample
 * split into `group` groups; each group (C/group * HxW values) is normalized
 * with its mean and biased variance, then scaled per channel:
 *   out0 = (x - mean) * rstd * weight[c] + bias[c],  rstd = 1 / sqrt(var + eps).
 *
 *   args (11): input [N, C, *] (HxW = product of the trailing dims), weight? and
 *              bias? [C], N int, C int, HxW int (must match input), group int
 *              (> 0, divides C), eps float, out0 (input's shape), out1 (mean) and
 *              out2 (rstd), both [N, group].
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, group <= 0), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE. out0 may alias input exactly (each row or group
 *           is read before it is written; not declared in place: several outs).
 */
#include <math.h>

#include "norm.h"

MOTE_KERNEL("aten::native_group_norm.out")
MOTE_KERNEL_OUTPUTS("aten::native_group_norm.out", 3) /* out, mean, rstd */

MOTE_K_DECLARE(mote_kernel_aten_native_group_norm_out);

static int mote_gn_vec_ok(const mote_tensor_t *t, size_t c)
{
    return t == NULL || (t->dtype == MOTE_DTYPE_FLOAT32 && t->dim == 1 && t->numel == c);
}

mote_err_t mote_kernel_aten_native_group_norm_out(mote_kernel_ctx_t *ctx,
                                                  mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *in, *w, *b, *out, *mean, *rstd;
    int64_t nn, cc, hw, group;
    double eps;
    size_t n, c, inner, g, cpg, i, j;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 11));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_opt_tensor(args[1], &w));
    MOTE_TRY(mote_k_opt_tensor(args[2], &b));
    MOTE_TRY(mote_k_int(args[3], &nn));
    MOTE_TRY(mote_k_int(args[4], &cc));
    MOTE_TRY(mote_k_int(args[5], &hw));
    MOTE_TRY(mote_k_int(args[6], &group));
    MOTE_TRY(mote_k_double(args[7], &eps));
    MOTE_TRY(mote_k_tensor(args[8], &out));
    MOTE_TRY(mote_k_tensor(args[9], &mean));
    MOTE_TRY(mote_k_tensor(args[10], &rstd));
    MOTE_CHECK(group > 0, MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(in->dtype == MOTE_DTYPE_FLOAT32 && out->dtype == MOTE_DTYPE_FLOAT32 &&
                   mean->dtype == MOTE_DTYPE_FLOAT32 && rstd->dtype == MOTE_DTYPE_FLOAT32 &&
                   (w == NULL || w->dtype == MOTE_DTYPE_FLOAT32) &&
                   (b == NULL || b->dtype == MOTE_DTYPE_FLOAT32),
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(in->dim >= 2, MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(in));
    n = (size_t)in->sizes[0];
    c = (size_t)in->sizes[1];
    inner = mote_k_prod(in, 2, in->dim);
    MOTE_CHECK(nn == (int64_t)n && cc == (int64_t)c && hw == (int64_t)inner,
               MOTE_ERR_KERNEL_SHAPE);
    g = (size_t)group;
    MOTE_CHECK(c % g == 0, MOTE_ERR_KERNEL_SHAPE);
    cpg = c / g;
    MOTE_CHECK(mote_gn_vec_ok(w, c) && mote_gn_vec_ok(b, c), MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK(mote_k_same_shape(in, out), MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK(mean->dim == 2 && rstd->dim == 2 && (size_t)mean->sizes[0] == n &&
                   (size_t)mean->sizes[1] == g && (size_t)rstd->sizes[0] == n &&
                   (size_t)rstd->sizes[1] == g,
               MOTE_ERR_KERNEL_SHAPE);
    for (i = 0; i < n * g; i++) {
        const size_t at = i * cpg * inner;
        const float *x = (const float *)in->data + at;
        float *y = (float *)out->data + at;
        float mu, var, rs;
        mote_norm_moments_f32(x, 1, cpg * inner, 0, &mu, &var);
        rs = 1.0f / sqrtf(var + (float)eps);
        for (j = 0; j < cpg; j++) {
            const size_t ch = (i % g) * cpg + j;
            const float scale = rs * (w != NULL ? ((const float *)w->data)[ch] : 1.0f);
            const float shift = b != NULL ? ((const float *)b->data)[ch] : 0.0f;
            mote_norm_affine_f32(x + j * inner, y + j * inner, inner, mu, scale, shift);
        }
        ((float *)mean->data)[i] = mu;
        ((float *)rstd->data)[i] = rs;
    }
    return MOTE_OK;
}
