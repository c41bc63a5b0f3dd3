/*
 * aten::glu.out - gated linear unit (nn.GLU): split self in halves a, b along
 * `dim`, out = a * sigmoid(b).
 *
 *   args (3): self (rank >= 1, even size at dim), dim int (negative counts from
 *             the end), out (self's shape with size[dim] halved).
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, dim out of range),
 *           MOTE_ERR_KERNEL_DTYPE (not float32), MOTE_ERR_KERNEL_SHAPE (0-dim self,
 *           odd size at dim, out shape wrong).
 *   out must not overlap self.
 *   torch.export decomposes glu; ExecuTorch's own programs call this kernel.
 */
#include <math.h>

#include "kutil.h"

MOTE_KERNEL("aten::glu.out")

MOTE_K_DECLARE(mote_kernel_aten_glu_out);

mote_err_t mote_kernel_aten_glu_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                    uint32_t nargs)
{
    mote_tensor_t *in, *out;
    int64_t dim;
    uint32_t d, k;
    size_t outer, inner, half, o, j;
    const float *x;
    float *y;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 3));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_int(args[1], &dim));
    MOTE_TRY(mote_k_tensor(args[2], &out));
    MOTE_CHECK(in->dim == 0 || (dim >= -(int64_t)in->dim && dim < (int64_t)in->dim),
               MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(in->dtype == MOTE_DTYPE_FLOAT32 && out->dtype == MOTE_DTYPE_FLOAT32,
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(in->dim > 0 && out->dim == in->dim, MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_dim(dim, in->dim, &d));
    MOTE_CHECK(in->sizes[d] % 2 == 0, MOTE_ERR_KERNEL_SHAPE);
    for (k = 0; k < in->dim; k++) {
        const int32_t want = k == d ? in->sizes[k] / 2 : in->sizes[k];
        MOTE_CHECK(out->sizes[k] == want, MOTE_ERR_KERNEL_SHAPE);
    }
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(out));
    outer = mote_k_prod(in, 0, d);
    inner = mote_k_prod(in, d + 1, in->dim);
    half = (size_t)out->sizes[d] * inner; /* elements of one half of a row */
    x = (const float *)in->data;
    y = (float *)out->data;
    for (o = 0; o < outer; o++) {
        const float *a = x + o * 2 * half;
        const float *b = a + half;
        float *r = y + o * half;
        for (j = 0; j < half; j++) {
            r[j] = a[j] * (1.0f / (1.0f + expf(-b[j])));
        }
    }
    return MOTE_OK;
}
