/*
 * aten::constant_pad_nd.out - pad (or crop, for negative pads) with a constant.
 *
 *   args (4): self, pad int[] (even length <= 2*rank: (before, after) pairs from the
 *             last dim backwards), value Scalar, out with sizes[d] = self.sizes[d] +
 *             before_d + after_d (>= 0).
 *   dtypes: any fill-able dtype (out dtype == self dtype).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, odd/too long pad),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE. out must not overlap self.
 */
#include "kfill.h"

MOTE_KERNEL("aten::constant_pad_nd.out")

MOTE_K_DECLARE(mote_kernel_aten_constant_pad_nd_out);

mote_err_t mote_kernel_aten_constant_pad_nd_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                                uint32_t nargs)
{
    mote_tensor_t *in, *out;
    const int64_t *pad;
    uint32_t np, r, d;
    double v;
    uint8_t elem[8];
    ptrdiff_t before[MOTE_MAX_DIM], ist[MOTE_MAX_DIM];
    size_t idx[MOTE_MAX_DIM], esz, rows, row, ow, w;
    uint8_t *dst;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 4));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_ints(args[1], &pad, &np));
    MOTE_TRY(mote_k_scalar(args[2], &v));
    MOTE_TRY(mote_k_tensor(args[3], &out));
    r = in->dim;
    MOTE_CHECK(np % 2 == 0 && np <= 2 * r, MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(in->dtype == out->dtype, MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_k_fill_elem(out->dtype, v, elem));
    MOTE_CHECK(out->dim == r && r > 0, MOTE_ERR_KERNEL_SHAPE);
    for (d = 0; d < r; d++) {
        int64_t b = 0, a = 0;
        uint32_t k = r - 1 - d; /* pair index counted from the last dim */
        if (2 * k + 1 < np) {
            b = pad[2 * k];
            a = pad[2 * k + 1];
        }
        MOTE_CHECK(b > -0x7FFFFFFF && b < 0x7FFFFFFF && a > -0x7FFFFFFF && a < 0x7FFFFFFF,
                     MOTE_ERR_KERNEL_ARGS);
        MOTE_CHECK((int64_t)in->sizes[d] + a + b == (int64_t)out->sizes[d],
                     MOTE_ERR_KERNEL_SHAPE);
        before[d] = (ptrdiff_t)b;
        idx[d] = 0;
    }
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(out));
    if (out->numel == 0) {
        return MOTE_OK;
    }
    esz = mote_dtype_size(out->dtype);
    mote_k_strides(in, ist);
    ow = (size_t)out->sizes[r - 1];
    w = (size_t)in->sizes[r - 1];
    rows = out->numel / ow;
    dst = (uint8_t *)out->data;
    for (row = 0; row < rows; row++, dst += ow * esz) {
        /* input row for this output row, or none when an outer index falls in padding */
        ptrdiff_t off = 0;
        int inside = 1;
        for (d = 0; d + 1 < r; d++) {
            ptrdiff_t i = (ptrdiff_t)idx[d] - before[d];
            if (i < 0 || i >= (ptrdiff_t)in->sizes[d]) {
                inside = 0;
                break;
            }
            off += i * ist[d];
        }
        if (!inside) {
            mote_k_fill(dst, elem, esz, ow);
        } else {
            /* out columns [lo, hi) come from input columns [lo - before, hi - before) */
            ptrdiff_t b = before[r - 1];
            ptrdiff_t lo = b > 0 ? b : 0;
            ptrdiff_t hi = b + (ptrdiff_t)w < (ptrdiff_t)ow ? b + (ptrdiff_t)w : (ptrdiff_t)ow;
            if (hi < lo) {
                hi = lo;
            }
            if (lo > (ptrdiff_t)ow) {
                lo = hi = (ptrdiff_t)ow;
            }
            mote_k_fill(dst, elem, esz, (size_t)lo);
            if (hi > lo) {
                memmove(dst + (size_t)lo * esz,
                       (const uint8_t *)in->data + (size_t)(off + lo - b) * esz,
                       (size_t)(hi - lo) * esz);
            }
            mote_k_fill(dst + (size_t)hi * esz, elem, esz, ow - (size_t)hi);
        }
        d = r - 1;
        while (d-- > 0) {
            if (++idx[d] < (size_t)out->sizes[d]) {
                break;
            }
            idx[d] = 0;
        }
    }
    return MOTE_OK;
}
