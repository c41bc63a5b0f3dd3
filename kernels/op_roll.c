/*
 * aten::roll.out - out = torch.roll(self, shifts, dims): elements shifted
 * cyclically by shifts[i] along dims[i] (out[j] = self[(j - shift) mod n]);
 * with dims empty, self is rolled as one flat sequence by shifts[0].
 *
 *   args (4): self, shifts int[] (>= 1 items; exactly 1 when dims is empty),
 *             dims int[] (same length as shifts, or empty; negative counts
 *             from the end; a repeated dim adds its shifts), out (self's shape).
 *   dtypes: any (out dtype == self dtype).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, lengths, bad dim),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE. out must not overlap self.
 */
#include <string.h>

#include "shape.h"

MOTE_KERNEL("aten::roll.out")

MOTE_K_DECLARE(mote_kernel_aten_roll_out);

mote_err_t mote_kernel_aten_roll_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *in, *out;
    const int64_t *shifts, *dims;
    uint32_t nsh, nd, i, d, r;
    size_t sz[MOTE_MAX_DIM], ii[MOTE_MAX_DIM], idx[MOTE_MAX_DIM], sh[MOTE_MAX_DIM], n, esz;
    ptrdiff_t st[MOTE_MAX_DIM], off = 0;
    int64_t acc[MOTE_MAX_DIM] = {0};
    uint8_t *po;
    const uint8_t *ps;
    (void)ctx;
    MOTE_TRY(mote_shape_io(args, nargs, 4, &in, &out));
    MOTE_TRY(mote_k_ints(args[1], &shifts, &nsh));
    MOTE_TRY(mote_k_ints(args[2], &dims, &nd));
    MOTE_CHECK(nsh >= 1 && (nd == 0 ? nsh == 1 : nd == nsh), MOTE_ERR_KERNEL_ARGS);
    for (i = 0; i < nd; i++) {
        MOTE_CHECK(in->dim > 0, MOTE_ERR_KERNEL_ARGS);
        MOTE_TRY(mote_k_dim(dims[i], in->dim, &d));
        acc[d] += shifts[i] % INT64_C(0x100000000); /* |sum| stays far from overflow */
    }
    MOTE_TRY(mote_shape_same_dtype(in, out));
    MOTE_CHECK(mote_k_same_shape(in, out), MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(out));
    n = in->numel;
    if (n == 0) {
        return MOTE_OK;
    }
    if (nd == 0) { /* flat roll */
        r = 1;
        sz[0] = n;
        st[0] = 1;
        acc[0] = shifts[0] % (int64_t)n;
    } else {
        r = in->dim;
        mote_k_strides(in, st);
        for (d = 0; d < r; d++) {
            sz[d] = (size_t)in->sizes[d];
        }
    }
    for (d = 0; d < r; d++) {
        const int64_t m = (int64_t)sz[d];
        int64_t s = acc[d] % m;
        if (s < 0) {
            s += m;
        }
        sh[d] = (size_t)s;
        idx[d] = 0;
        ii[d] = (sz[d] - sh[d]) % sz[d]; /* input index of output index 0 */
        off += (ptrdiff_t)ii[d] * st[d];
    }
    esz = mote_dtype_size(in->dtype);
    po = (uint8_t *)out->data;
    ps = (const uint8_t *)in->data;
    for (i = 0; i < n; i++) {
        memmove(po + (size_t)i * esz, ps + (size_t)off * esz, esz);
        d = r;
        while (d-- > 0) {
            idx[d]++;
            ii[d]++;
            off += st[d];
            if (ii[d] == sz[d]) {
                ii[d] = 0;
                off -= st[d] * (ptrdiff_t)sz[d];
            }
            if (idx[d] < sz[d]) {
                break;
            }
            idx[d] = 0;
        }
    }
    return MOTE_OK;
}
