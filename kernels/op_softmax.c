/*
 * aten::_softmax.out - softmax along `dim`: out = exp(x - max) / sum(exp(x - max)).
 *
 *   args (4): self, dim int (negative counts from the end), half_to_float bool
 *             (must be false), out (same shape as self).
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, dim out of range, half_to_float),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE. out may alias self exactly.
 */
#include <math.h>

#include "kutil.h"

MOTE_KERNEL("aten::_softmax.out")

MOTE_K_DECLARE(mote_kernel_aten__softmax_out);

mote_err_t mote_kernel_aten__softmax_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                         uint32_t nargs)
{
    mote_tensor_t *in, *out;
    int64_t dim;
    uint32_t d;
    int h2f;
    size_t outer, len, inner, o, i, k;
    (void)ctx;
    MOTE_K_TRY(mote_k_nargs(args, nargs, 4));
    MOTE_K_TRY(mote_k_tensor(args[0], &in));
    MOTE_K_TRY(mote_k_int(args[1], &dim));
    MOTE_K_TRY(mote_k_bool(args[2], &h2f));
    MOTE_K_TRY(mote_k_tensor(args[3], &out));
    MOTE_K_CHECK(!h2f, MOTE_ERR_KERNEL_ARGS);
    MOTE_K_TRY(mote_k_dim(dim, in->dim, &d));
    MOTE_K_CHECK(in->dtype == MOTE_DTYPE_FLOAT32 && out->dtype == MOTE_DTYPE_FLOAT32,
                 MOTE_ERR_KERNEL_DTYPE);
    MOTE_K_CHECK(mote_k_same_shape(in, out), MOTE_ERR_KERNEL_SHAPE);
    MOTE_K_TRY(mote_k_check_numel(out));
    if (out->numel == 0) {
        return MOTE_OK;
    }
    outer = mote_k_prod(in, 0, d);
    len = in->dim == 0 ? 1 : (size_t)in->sizes[d];
    inner = mote_k_prod(in, d + 1, in->dim);
    for (o = 0; o < outer; o++) {
        for (i = 0; i < inner; i++) {
            const float *xr = (const float *)in->data + o * len * inner + i;
            float *yr = (float *)out->data + o * len * inner + i;
            float mx = xr[0], sum = 0.0f;
            float inv;
            for (k = 1; k < len; k++) {
                mx = xr[k * inner] > mx ? xr[k * inner] : mx;
            }
            {
                for (k = 0; k < len; k++) {
                    const float e = expf(xr[k * inner] - mx);
                    yr[k * inner] = e;
                    sum += e;
                }
                inv = 1.0f / sum;
                for (k = 0; k < len; k++) {
                    yr[k * inner] *= inv;
                }
            }
        }
    }
    return MOTE_OK;
}
