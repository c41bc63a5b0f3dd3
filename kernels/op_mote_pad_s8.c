/*
 * mote::pad_s8.out - constant pad of NHWC int8 [N,H,W,C] in H and W:
 * pads = (top, bottom, left, right); out [N, H+t+b, W+l+r, C].
 *
 *   dtypes: int8 (input, out).
 */
#include <string.h>

#include "mote/kernel.h"
#include "requant.h"

MOTE_KERNEL("mote::pad_s8.out")

mote_err_t mote_kernel_mote_pad_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                       uint32_t nargs);

mote_err_t mote_kernel_mote_pad_s8_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                       uint32_t nargs)
{
    mote_tensor_t *ti;
    mote_tensor_t *to;
    int32_t pads[4], value, n, h, w, c, oh, ow, b, y;
    const int8_t *in;
    int8_t *out;
    (void)ctx;
    if (args == NULL || nargs != 4u) {
        return MOTE_ERR_KERNEL_ARGS;
    }
    MOTE_TRY(mote_s8_tensor_arg(args[0], MOTE_DTYPE_INT8, 4, &ti));
    MOTE_TRY(mote_s8_tensor_arg(args[3], MOTE_DTYPE_INT8, 4, &to));
    MOTE_TRY(mote_s8_ints_arg(args[1], 4, 0, 0x7fff, pads));
    MOTE_TRY(MOTE_S8_ZP_ARG(args[2], &value));
    n = ti->sizes[0];
    h = ti->sizes[1];
    w = ti->sizes[2];
    c = ti->sizes[3];
    oh = h + pads[0] + pads[1];
    ow = w + pads[2] + pads[3];
    if (to->sizes[0] != n || to->sizes[1] != oh || to->sizes[2] != ow || to->sizes[3] != c) {
        return MOTE_ERR_KERNEL_SHAPE;
    }
    in = (const int8_t *)ti->data;
    out = (int8_t *)to->data;
    for (b = 0; b < n; b++) {
        for (y = 0; y < oh; y++) {
            int8_t *row = out + ((size_t)b * oh + y) * ow * c;
            const int32_t iy = y - pads[0];
            if (iy < 0 || iy >= h) {
                memset(row, value, (size_t)ow * c);
                continue;
            }
            memset(row, value, (size_t)pads[2] * c);
            memmove(row + (size_t)pads[2] * c, in + ((size_t)b * h + iy) * w * c, (size_t)w * c);
            memset(row + (size_t)(pads[2] + w) * c, value, (size_t)pads[3] * c);
        }
    }
    return MOTE_OK;
}
