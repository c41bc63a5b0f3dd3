/*
 * kernels/pad.c - reflection / replication padding (see pad.h).
 */
#include "pad.h"

#include <string.h>

/* source coordinate of output coordinate o (padded by lo in front), or -1 */
static ptrdiff_t mote_pad_src(ptrdiff_t o, ptrdiff_t lo, ptrdiff_t n, int reflect)
{
    ptrdiff_t i = o - lo;
    if (reflect) {
        if (i < 0) {
            i = -i;
        }
        if (i >= n) {
            i = 2 * (n - 1) - i;
        }
    } else {
        i = i < 0 ? 0 : (i >= n ? n - 1 : i);
    }
    return (i >= 0 && i < n) ? i : -1;
}

mote_err_t mote_k_pad_nd(mote_value_t *const *args, uint32_t nargs, uint32_t k, int reflect)
{
    mote_tensor_t *in, *out;
    const int64_t *pad;
    uint32_t npad, d, lead;
    size_t esz, outer, o, isz[3], osz[3], c[3], inner_in;
    ptrdiff_t lo[3];
    MOTE_TRY(mote_k_nargs(args, nargs, 3));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_ints(args[1], &pad, &npad));
    MOTE_TRY(mote_k_tensor(args[2], &out));
    MOTE_CHECK(npad == 2u * k, MOTE_ERR_KERNEL_ARGS);
    for (d = 0; d < npad; d++) {
        MOTE_CHECK(pad[d] > -65536 && pad[d] < 65536, MOTE_ERR_KERNEL_ARGS);
    }
    esz = mote_dtype_size(in->dtype);
    MOTE_CHECK(esz != 0 && out->dtype == in->dtype, MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK((in->dim == k + 1u || in->dim == k + 2u) && out->dim == in->dim,
               MOTE_ERR_KERNEL_SHAPE);
    lead = in->dim - k;
    for (d = 0; d < lead; d++) {
        MOTE_CHECK(out->sizes[d] == in->sizes[d], MOTE_ERR_KERNEL_SHAPE);
    }
    for (d = 0; d < k; d++) {
        /* spatial dim d (outermost first) takes pads [2*(k-1-d)], [2*(k-1-d)+1] */
        int64_t pl = pad[2u * (k - 1u - d)], pr = pad[2u * (k - 1u - d) + 1u];
        int64_t n = in->sizes[lead + d], want = n + pl + pr;
        if (reflect) {
            MOTE_CHECK(pl < n && pr < n, MOTE_ERR_KERNEL_ARGS);
        } else {
            MOTE_CHECK(n > 0, MOTE_ERR_KERNEL_SHAPE);
        }
        MOTE_CHECK(want >= 0 && out->sizes[lead + d] == want, MOTE_ERR_KERNEL_SHAPE);
        isz[d] = (size_t)n;
        osz[d] = (size_t)want;
        lo[d] = (ptrdiff_t)pl;
    }
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(out));
    if (out->numel == 0) {
        return MOTE_OK;
    }
    outer = mote_k_prod(in, 0, lead);
    inner_in = mote_k_prod(in, lead, in->dim);
    {
        const uint8_t *x = (const uint8_t *)in->data;
        uint8_t *y = (uint8_t *)out->data;
        size_t per_out = out->numel / outer, i;
        for (o = 0; o < outer; o++) {
            for (d = 0; d < k; d++) {
                c[d] = 0;
            }
            for (i = 0; i < per_out; i++) {
                size_t off = 0;
                for (d = 0; d < k; d++) {
                    ptrdiff_t s = mote_pad_src((ptrdiff_t)c[d], lo[d],
                                               (ptrdiff_t)isz[d], reflect);
                    MOTE_CHECK(s >= 0, MOTE_ERR_KERNEL_ARGS);
                    off = off * isz[d] + (size_t)s;
                }
                memmove(y + (o * per_out + i) * esz, x + (o * inner_in + off) * esz, esz);
                for (d = k; d > 0; d--) {
                    if (++c[d - 1u] < osz[d - 1u]) {
                        break;
                    }
                    c[d - 1u] = 0;
                }
            }
        }
    }
    return MOTE_OK;
}
