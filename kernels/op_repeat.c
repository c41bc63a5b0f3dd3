/*
 * aten::repeat.out - out = self.repeat(repeats): self tiled repeats[i] times
 * along dim i (self's shape is padded with leading 1s to len(repeats)).
 *
 *   args (3): self, repeats int[] (len >= rank(self), <= MOTE_MAX_DIM, each >= 0),
 *             out (shape repeats[i] * padded_size[i]).
 *   dtypes: any (out dtype == self dtype).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, too few/many repeats, negative
 *           repeat), MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE.
 *   out must not overlap self.
 */
#include "shape.h"

MOTE_KERNEL("aten::repeat.out")

MOTE_K_DECLARE(mote_kernel_aten_repeat_out);

mote_err_t mote_kernel_aten_repeat_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *in, *out;
    const int64_t *rep;
    uint32_t nr, d, lead, r = 0;
    size_t want[MOTE_MAX_DIM], sz[MOTE_MAX_DIM];
    ptrdiff_t ist[MOTE_MAX_DIM], st[MOTE_MAX_DIM];
    (void)ctx;
    MOTE_TRY(mote_shape_io(args, nargs, 3, &in, &out));
    MOTE_TRY(mote_k_ints(args[1], &rep, &nr));
    MOTE_CHECK(nr >= in->dim && nr <= MOTE_MAX_DIM, MOTE_ERR_KERNEL_ARGS);
    for (d = 0; d < nr; d++) {
        MOTE_CHECK(rep[d] >= 0 && rep[d] <= (int64_t)0xFFFFFFFF, MOTE_ERR_KERNEL_ARGS);
    }
    MOTE_TRY(mote_shape_same_dtype(in, out));
    MOTE_TRY(mote_k_check_numel(in));
    lead = nr - in->dim;
    mote_k_strides(in, ist);
    for (d = 0; d < nr; d++) {
        const size_t s = d < lead ? 1u : (size_t)in->sizes[d - lead];
        want[d] = s * (size_t)rep[d];
    }
    MOTE_TRY(mote_shape_check_out(out, nr, want));
    if (out->numel == 0) {
        return MOTE_OK;
    }
    /* out viewed as [rep0, s0, rep1, s1, ...] (repeat strides 0), dims of 1 dropped */
    for (d = 0; d < nr; d++) {
        const size_t s = d < lead ? 1u : (size_t)in->sizes[d - lead];
        if (rep[d] != 1) {
            MOTE_CHECK(r < MOTE_MAX_DIM, MOTE_ERR_KERNEL_ARGS);
            sz[r] = (size_t)rep[d];
            st[r++] = 0;
        }
        if (s != 1) {
            MOTE_CHECK(r < MOTE_MAX_DIM, MOTE_ERR_KERNEL_ARGS);
            sz[r] = s;
            st[r++] = ist[d - lead];
        }
    }
    mote_k_strided_copy(out->data, in->data, mote_dtype_size(in->dtype), r, sz, st);
    return MOTE_OK;
}
