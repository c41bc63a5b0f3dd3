/*
 * kernels/softmax.c - the (log-)softmax engine shared by op_softmax.c and
 * op_log_softmax.c: both reduce each row along `dim` to its max and
 * sum(exp(x - max)); they differ only in how the row is written back.
 */
#include <math.h>

#include "softmax.h"

mote_err_t mote_k_softmax_f32(mote_value_t *const *args, uint32_t nargs, int log)
{
    mote_tensor_t *in, *out;
    int64_t dim;
    uint32_t d;
    int h2f;
    size_t outer, len, inner, o, i, k;
    MOTE_TRY(mote_k_nargs(args, nargs, 4));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_int(args[1], &dim));
    MOTE_TRY(mote_k_bool(args[2], &h2f));
    MOTE_TRY(mote_k_tensor(args[3], &out));
    MOTE_CHECK(!h2f, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_k_dim(dim, in->dim, &d));
    MOTE_CHECK(in->dtype == MOTE_DTYPE_FLOAT32 && out->dtype == MOTE_DTYPE_FLOAT32,
                 MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(mote_k_same_shape(in, out), MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(out));
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
            for (k = 1; k < len; k++) {
                mx = xr[k * inner] > mx ? xr[k * inner] : mx;
            }
            if (log) {
                float lse;
                for (k = 0; k < len; k++) {
                    sum += expf(xr[k * inner] - mx);
                }
                lse = logf(sum);
                for (k = 0; k < len; k++) {
                    yr[k * inner] = xr[k * inner] - mx - lse;
                }
            } else {
                float inv;
                for (k = 0; k < len; k++) {
                    const float e = expf(xr[k * inner] - mx);
                    yr[k * inner] = e; /* after reading xr[k]: exact aliasing is safe */
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
