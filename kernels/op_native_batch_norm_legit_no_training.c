/*
 * aten::_native_batch_norm_legit_no_training.out - inference batch norm:
 *   out0 = (self - running_mean) / sqrt(running_var + eps) * weight + bias
 * per channel (dim 1).
 *
 *   args (10): input [N, C, ...] (rank >= 2), weight [C]?, bias [C]?, running_mean [C],
 *              running_var [C], momentum float (unused), eps float, out0 (input's shape),
 *              out1, out2 (PyTorch returns them empty: numel 0 is left alone; [C]
 *              receives running_mean and 1/sqrt(var + eps)).
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE. out0 may alias input exactly.
 */
#include <math.h>

#include "kutil.h"

MOTE_KERNEL("aten::_native_batch_norm_legit_no_training.out")
MOTE_KERNEL_OUTPUTS("aten::_native_batch_norm_legit_no_training.out", 3) /* out, save_mean, save_invstd */

MOTE_K_DECLARE(mote_kernel_aten__native_batch_norm_legit_no_training_out);

static int mote_bn_vec_ok(const mote_tensor_t *t, size_t c)
{
    return t == NULL || (t->dtype == MOTE_DTYPE_FLOAT32 && t->numel == c && t->dim <= 1);
}

mote_err_t mote_kernel_aten__native_batch_norm_legit_no_training_out(mote_kernel_ctx_t *ctx,
                                                                     mote_value_t *const *args,
                                                                     uint32_t nargs)
{
    mote_tensor_t *in, *w, *b, *mean, *var, *out, *o1, *o2;
    double mom, eps;
    size_t n, c, inner, i, j, k;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 10));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_opt_tensor(args[1], &w));
    MOTE_TRY(mote_k_opt_tensor(args[2], &b));
    MOTE_TRY(mote_k_tensor(args[3], &mean));
    MOTE_TRY(mote_k_tensor(args[4], &var));
    MOTE_TRY(mote_k_double(args[5], &mom));
    MOTE_TRY(mote_k_double(args[6], &eps));
    MOTE_TRY(mote_k_tensor(args[7], &out));
    MOTE_TRY(mote_k_tensor(args[8], &o1));
    MOTE_TRY(mote_k_tensor(args[9], &o2));
    (void)mom;
    MOTE_CHECK(in->dtype == MOTE_DTYPE_FLOAT32 && out->dtype == MOTE_DTYPE_FLOAT32 &&
                     o1->dtype == MOTE_DTYPE_FLOAT32 && o2->dtype == MOTE_DTYPE_FLOAT32,
                 MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(in->dim >= 2, MOTE_ERR_KERNEL_SHAPE);
    n = (size_t)in->sizes[0];
    c = (size_t)in->sizes[1];
    inner = mote_k_prod(in, 2, in->dim);
    MOTE_CHECK(w == NULL || w->dtype == MOTE_DTYPE_FLOAT32, MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(b == NULL || b->dtype == MOTE_DTYPE_FLOAT32, MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(mean->dtype == MOTE_DTYPE_FLOAT32 && var->dtype == MOTE_DTYPE_FLOAT32,
                 MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(mote_bn_vec_ok(w, c) && mote_bn_vec_ok(b, c) && mote_bn_vec_ok(mean, c) &&
                     mote_bn_vec_ok(var, c),
                 MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK(mote_k_same_shape(in, out), MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK(o1->numel == 0 || o1->numel == c, MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK(o2->numel == 0 || o2->numel == c, MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(out));
    for (j = 0; j < c; j++) {
        const double invstd = 1.0 / sqrt((double)((const float *)var->data)[j] + eps);
        const double mu = (double)((const float *)mean->data)[j];
        const double wj = w != NULL ? (double)((const float *)w->data)[j] : 1.0;
        const double bj = b != NULL ? (double)((const float *)b->data)[j] : 0.0;
        const float scale = (float)(invstd * wj);
        const float shift = (float)(bj - mu * invstd * wj);
        for (i = 0; i < n; i++) {
            const float *x = (const float *)in->data + (i * c + j) * inner;
            float *y = (float *)out->data + (i * c + j) * inner;
            for (k = 0; k < inner; k++) {
                y[k] = x[k] * scale + shift;
            }
        }
        if (o1->numel == c) {
            ((float *)o1->data)[j] = (float)mu;
        }
        if (o2->numel == c) {
            ((float *)o2->data)[j] = (float)invstd;
        }
    }
    return MOTE_OK;
}
