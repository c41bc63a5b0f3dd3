/*
 * aten::max_pool2d_with_indices.out - 2-D max pooling with argmax indices.
 *
 *   args (8): self [N, C, H, W] or [C, H, W], kernel_size int[1|2], stride int[0|1|2]
 *             ([] = kernel_size), padding int[1|2] (<= kernel/2), dilation int[1|2],
 *             ceil_mode bool, out [.., OH, OW], indices [.., OH, OW] (flat h*W+w
 *             index inside the input plane).
 *   dtypes: self/out float32, indices int64.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad window), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (out/indices shape). A NaN wins (the last one, as in PyTorch).
 */
#include <math.h>

#include "pool.h"

MOTE_KERNEL("aten::max_pool2d_with_indices.out")
MOTE_KERNEL_OUTPUTS("aten::max_pool2d_with_indices.out", 2) /* out, indices */

MOTE_K_DECLARE(mote_kernel_aten_max_pool2d_with_indices_out);

mote_err_t mote_kernel_aten_max_pool2d_with_indices_out(mote_kernel_ctx_t *ctx,
                                                        mote_value_t *const *args,
                                                        uint32_t nargs)
{
    mote_tensor_t *in, *out, *ind;
    mote_pool_geom_t g;
    int ceil_mode;
    size_t p, oh, ow;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 8));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_bool(args[5], &ceil_mode));
    MOTE_TRY(mote_k_tensor(args[6], &out));
    MOTE_TRY(mote_k_tensor(args[7], &ind));
    MOTE_CHECK(in->dtype == MOTE_DTYPE_FLOAT32 && out->dtype == MOTE_DTYPE_FLOAT32 &&
                     ind->dtype == MOTE_DTYPE_INT64,
                 MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_pool_geom(in, args[1], args[2], args[3], args[4], ceil_mode, out, &g));
    MOTE_CHECK(mote_k_same_shape(out, ind), MOTE_ERR_KERNEL_SHAPE);
    for (p = 0; p < g.planes; p++) {
        const float *x = (const float *)in->data + p * g.h * g.w;
        float *y = (float *)out->data + p * g.oh * g.ow;
        int64_t *yi = (int64_t *)ind->data + p * g.oh * g.ow;
        for (oh = 0; oh < g.oh; oh++) {
            const ptrdiff_t h0 = (ptrdiff_t)oh * g.sh - g.ph;
            for (ow = 0; ow < g.ow; ow++) {
                const ptrdiff_t w0 = (ptrdiff_t)ow * g.sw - g.pw;
                float mx = -INFINITY;
                int64_t mi = -1;
                ptrdiff_t kh, kw;
                for (kh = 0; kh < g.kh; kh++) {
                    const ptrdiff_t ih = h0 + kh * g.dh;
                    if (ih < 0 || ih >= (ptrdiff_t)g.h) {
                        continue;
                    }
                    for (kw = 0; kw < g.kw; kw++) {
                        const ptrdiff_t iw = w0 + kw * g.dw;
                        float v;
                        if (iw < 0 || iw >= (ptrdiff_t)g.w) {
                            continue;
                        }
                        v = x[ih * (ptrdiff_t)g.w + iw];
                        if (mi < 0 || v > mx || v != v) {
                            mx = v;
                            mi = (int64_t)(ih * (ptrdiff_t)g.w + iw);
                        }
                    }
                }
                y[oh * g.ow + ow] = mx;
                yi[oh * g.ow + ow] = mi < 0 ? 0 : mi;
            }
        }
    }
    return MOTE_OK;
}
