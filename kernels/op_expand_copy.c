/*
 * aten::expand_copy.out - out = self broadcast to `size` (materialised).
 *
 *   args (4): self, size int[] (rank >= self's; -1 keeps self's size; self dims of
 *             size 1 may grow), implicit bool (ignored), out with sizes == size.
 *   dtypes: any (out dtype == self dtype).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, -1 on a new leading dim),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE. out must not overlap self.
 */
#include "kutil.h"

MOTE_KERNEL("aten::expand_copy.out")

MOTE_K_DECLARE(mote_kernel_aten_expand_copy_out);

mote_err_t mote_kernel_aten_expand_copy_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                            uint32_t nargs)
{
    mote_tensor_t *in, *out;
    const int64_t *size;
    uint32_t ns, i;
    int implicit;
    ptrdiff_t ist[MOTE_MAX_DIM], st[MOTE_MAX_DIM];
    size_t sz[MOTE_MAX_DIM];
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 4));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_ints(args[1], &size, &ns));
    MOTE_TRY(mote_k_bool(args[2], &implicit));
    MOTE_TRY(mote_k_tensor(args[3], &out));
    MOTE_CHECK(in->dtype == out->dtype && mote_dtype_size(in->dtype) != 0, MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(ns >= in->dim && ns <= MOTE_MAX_DIM, MOTE_ERR_KERNEL_SHAPE);
    MOTE_CHECK(out->dim == ns, MOTE_ERR_KERNEL_SHAPE);
    mote_k_strides(in, ist);
    for (i = 0; i < ns; i++) {
        const uint32_t lead = ns - in->dim;
        int64_t want = size[i];
        if (i < lead) {
            MOTE_CHECK(want >= 0, MOTE_ERR_KERNEL_ARGS);
            st[i] = 0;
        } else {
            const int32_t have = in->sizes[i - lead];
            if (want == -1) {
                want = have;
            }
            MOTE_CHECK(want >= 0, MOTE_ERR_KERNEL_ARGS);
            MOTE_CHECK(have == want || have == 1, MOTE_ERR_KERNEL_SHAPE);
            st[i] = have == 1 ? 0 : ist[i - lead];
        }
        MOTE_CHECK(out->sizes[i] == want, MOTE_ERR_KERNEL_SHAPE);
        sz[i] = (size_t)want;
    }
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(out));
    mote_k_strided_copy(out->data, in->data, mote_dtype_size(in->dtype), ns, sz, st);
    return MOTE_OK;
}
