/*
 * aten::_adaptive_avg_pool2d.out - adaptive 2-D average pooling.
 *
 *   args (3): self [N, C, H, W] or [C, H, W], output_size int[2] (> 0; [1|2]),
 *             out [.., OH, OW]. Window of output row o: [floor(o*H/OH), ceil((o+1)*H/OH)).
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad output_size), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (rank, out shape).
 */
#include "kutil.h"

MOTE_KERNEL("aten::_adaptive_avg_pool2d.out")

MOTE_K_DECLARE(mote_kernel_aten__adaptive_avg_pool2d_out);

mote_err_t mote_kernel_aten__adaptive_avg_pool2d_out(mote_kernel_ctx_t *ctx,
                                                     mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *in, *out;
    const int64_t *os;
    uint32_t nos, r;
    size_t planes, h, w, oh, ow, p, i, j;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 3));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_ints(args[1], &os, &nos));
    MOTE_TRY(mote_k_tensor(args[2], &out));
    MOTE_CHECK(nos == 1 || nos == 2, MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(os[0] > 0 && os[nos - 1] > 0 && os[0] < 0x7FFFFFFF && os[nos - 1] < 0x7FFFFFFF,
                 MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(in->dtype == MOTE_DTYPE_FLOAT32 && out->dtype == MOTE_DTYPE_FLOAT32,
                 MOTE_ERR_KERNEL_DTYPE);
    r = in->dim;
    MOTE_CHECK((r == 3 || r == 4) && out->dim == r, MOTE_ERR_KERNEL_SHAPE);
    oh = (size_t)os[0];
    ow = (size_t)os[nos - 1];
    h = (size_t)in->sizes[r - 2];
    w = (size_t)in->sizes[r - 1];
    MOTE_CHECK(h > 0 && w > 0, MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK(out->sizes[0] == in->sizes[0] && (r == 3 || out->sizes[1] == in->sizes[1]) &&
                     (size_t)out->sizes[r - 2] == oh && (size_t)out->sizes[r - 1] == ow,
                 MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(out));
    planes = mote_k_prod(in, 0, r - 2);
    for (p = 0; p < planes; p++) {
        const float *x = (const float *)in->data + p * h * w;
        float *y = (float *)out->data + p * oh * ow;
        for (i = 0; i < oh; i++) {
            const size_t h0 = i * h / oh, h1 = ((i + 1) * h + oh - 1) / oh;
            for (j = 0; j < ow; j++) {
                const size_t w0 = j * w / ow, w1 = ((j + 1) * w + ow - 1) / ow;
                size_t a, b;
                float acc = 0.0f;
                for (a = h0; a < h1; a++) {
                    for (b = w0; b < w1; b++) {
                        acc += x[a * w + b];
                    }
                }
                y[i * ow + j] = acc / (float)((h1 - h0) * (w1 - w0));
            }
        }
    }
    return MOTE_OK;
}
