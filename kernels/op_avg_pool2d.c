/*
 * aten::avg_pool2d.out - 2-D average pooling.
 *
 *   args (8): self [N, C, H, W] or [C, H, W], kernel_size int[1|2], stride int[0|1|2]
 *             ([] = kernel_size), padding int[1|2] (<= kernel/2), ceil_mode bool,
 *             count_include_pad bool, divisor_override int? (None or != 0), out.
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad window, divisor 0),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (out shape).
 * Divisor as PyTorch: the override, else the window clipped to the padded
 * input (count_include_pad) or to the input.
 */
#include "pool.h"

MOTE_KERNEL("aten::avg_pool2d.out")

MOTE_K_DECLARE(mote_kernel_aten_avg_pool2d_out);

mote_err_t mote_kernel_aten_avg_pool2d_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                           uint32_t nargs)
{
    mote_tensor_t *in, *out;
    mote_pool_geom_t g;
    int ceil_mode, cip;
    int64_t div_ovr = 0;
    size_t p, oh, ow;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 8));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_bool(args[4], &ceil_mode));
    MOTE_TRY(mote_k_bool(args[5], &cip));
    if (!mote_k_is_none(args[6])) {
        MOTE_TRY(mote_k_int(args[6], &div_ovr));
        MOTE_CHECK(div_ovr != 0, MOTE_ERR_KERNEL_ARGS);
    }
    MOTE_TRY(mote_k_tensor(args[7], &out));
    MOTE_CHECK(in->dtype == MOTE_DTYPE_FLOAT32 && out->dtype == MOTE_DTYPE_FLOAT32,
                 MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_pool_geom(in, args[1], args[2], args[3], NULL, ceil_mode, out, &g));
    for (p = 0; p < g.planes; p++) {
        const float *x = (const float *)in->data + p * g.h * g.w;
        float *y = (float *)out->data + p * g.oh * g.ow;
        for (oh = 0; oh < g.oh; oh++) {
            ptrdiff_t h0 = (ptrdiff_t)oh * g.sh - g.ph;
            ptrdiff_t h1 = h0 + g.kh;
            if (h1 > (ptrdiff_t)g.h + g.ph) {
                h1 = (ptrdiff_t)g.h + g.ph;
            }
            for (ow = 0; ow < g.ow; ow++) {
                ptrdiff_t w0 = (ptrdiff_t)ow * g.sw - g.pw;
                ptrdiff_t w1 = w0 + g.kw;
                ptrdiff_t hs = h0, he = h1, ws, we, ih, iw, cnt;
                float acc = 0.0f;
                if (w1 > (ptrdiff_t)g.w + g.pw) {
                    w1 = (ptrdiff_t)g.w + g.pw;
                }
                cnt = (h1 - h0) * (w1 - w0);
                hs = hs < 0 ? 0 : hs;
                he = he > (ptrdiff_t)g.h ? (ptrdiff_t)g.h : he;
                ws = w0 < 0 ? 0 : w0;
                we = w1 > (ptrdiff_t)g.w ? (ptrdiff_t)g.w : w1;
                for (ih = hs; ih < he; ih++) {
                    for (iw = ws; iw < we; iw++) {
                        acc += x[ih * (ptrdiff_t)g.w + iw];
                    }
                }
                if (div_ovr != 0) {
                    cnt = (ptrdiff_t)div_ovr;
                } else if (!cip) {
                    cnt = (he - hs) * (we - ws);
                }
                y[oh * g.ow + ow] = cnt > 0 ? acc / (float)cnt : 0.0f;
            }
        }
    }
    return MOTE_OK;
}
