/*
 * mote::upsample_nearest2d_s8.out - nearest-neighbour resize of NHWC int8
 * [N, H, W, C] by source index tables (F.interpolate(mode="nearest" or
 * "nearest-exact"), nn.Upsample): out[n, y, x, :] = input[n, index_h[y],
 * index_w[x], :]. The compiler computes the tables with torch's own index
 * rule, so every scale factor and size is exact; same qparams in and out.
 *
 *   args (4): input int8 [N, H, W, C]; index_h int32 [Ho] (each in [0, H));
 *             index_w int32 [Wo] (each in [0, W)); out int8 [N, Ho, Wo, C].
 *   dtypes: int8 (input, out), int32 (index_h, index_w).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, an index out of range),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (ranks, out shape).
 *   out must not overlap input.
 */
#include <string.h>

#include "mote/kernel.h"
#include "requant.h"

MOTE_KERNEL("mote::upsample_nearest2d_s8.out")

mote_err_t mote_kernel_mote_upsample_nearest2d_s8_out(mote_kernel_ctx_t *ctx,
                                                      mote_value_t *const *args, uint32_t nargs);

mote_err_t mote_kernel_mote_upsample_nearest2d_s8_out(mote_kernel_ctx_t *ctx,
                                                      mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *ti;
    mote_tensor_t *th;
    mote_tensor_t *tw;
    mote_tensor_t *to;
    const int32_t *ih;
    const int32_t *iw;
    const int8_t *in;
    int8_t *out;
    int32_t n, h, w, c, ho, wo, b, y, x;
    (void)ctx;
    MOTE_CHECK(args != NULL && nargs == 4u, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_s8_tensor_arg(args[0], MOTE_DTYPE_INT8, 4, &ti));
    MOTE_TRY(mote_s8_tensor_arg(args[1], MOTE_DTYPE_INT32, 1, &th));
    MOTE_TRY(mote_s8_tensor_arg(args[2], MOTE_DTYPE_INT32, 1, &tw));
    MOTE_TRY(mote_s8_tensor_arg(args[3], MOTE_DTYPE_INT8, 4, &to));
    n = ti->sizes[0];
    h = ti->sizes[1];
    w = ti->sizes[2];
    c = ti->sizes[3];
    ho = th->sizes[0];
    wo = tw->sizes[0];
    MOTE_CHECK(ho >= 1 && wo >= 1 && to->sizes[0] == n && to->sizes[1] == ho &&
                   to->sizes[2] == wo && to->sizes[3] == c,
               MOTE_ERR_KERNEL_SHAPE);
    ih = (const int32_t *)th->data;
    iw = (const int32_t *)tw->data;
    for (y = 0; y < ho; y++) {
        MOTE_CHECK(ih[y] >= 0 && ih[y] < h, MOTE_ERR_KERNEL_ARGS);
    }
    for (x = 0; x < wo; x++) {
        MOTE_CHECK(iw[x] >= 0 && iw[x] < w, MOTE_ERR_KERNEL_ARGS);
    }
    in = (const int8_t *)ti->data;
    out = (int8_t *)to->data;
    for (b = 0; b < n; b++) {
        for (y = 0; y < ho; y++) {
            const int8_t *row = in + ((size_t)b * h + ih[y]) * w * c;
            int8_t *orow = out + ((size_t)b * ho + y) * wo * c;
            if (y > 0 && ih[y] == ih[y - 1]) {
                memcpy(orow, orow - (size_t)wo * c, (size_t)wo * c); /* repeated row */
                continue;
            }
            for (x = 0; x < wo; x++) {
                memmove(orow + (size_t)x * c, row + (size_t)iw[x] * c, (size_t)c);
            }
        }
    }
    return MOTE_OK;
}
