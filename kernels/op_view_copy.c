/*
 * aten::view_copy.out - out = self reshaped to `size` (same elements, same order).
 *
 *   args (3): self, size int[] (at most one -1, inferred), out with sizes == size.
 *   dtypes: any (out dtype == self dtype).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, several -1 or negative sizes),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (numel/out sizes differ).
 *   out may alias self exactly (then nothing is copied).
 */
#include "kutil.h"

MOTE_KERNEL("aten::view_copy.out")

MOTE_K_DECLARE(mote_kernel_aten_view_copy_out);

mote_err_t mote_kernel_aten_view_copy_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                          uint32_t nargs)
{
    mote_tensor_t *in, *out;
    const int64_t *size;
    uint32_t ns, i, infer = 0xFFFFFFFFu;
    uint64_t known = 1;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 3));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_ints(args[1], &size, &ns));
    MOTE_TRY(mote_k_tensor(args[2], &out));
    MOTE_CHECK(in->dtype == out->dtype && mote_dtype_size(in->dtype) != 0, MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(ns == out->dim, MOTE_ERR_KERNEL_SHAPE);
    for (i = 0; i < ns; i++) {
        if (size[i] == -1) {
            MOTE_CHECK(infer == 0xFFFFFFFFu, MOTE_ERR_KERNEL_ARGS);
            infer = i;
        } else {
            MOTE_CHECK(size[i] >= 0 && size[i] < 0x7FFFFFFF, MOTE_ERR_KERNEL_ARGS);
            MOTE_CHECK(out->sizes[i] == size[i], MOTE_ERR_KERNEL_SHAPE);
            known *= (uint64_t)size[i];
            /* numel is 32-bit: a larger product cannot match (and cannot overflow below) */
            MOTE_CHECK(known <= 0xFFFFFFFFu, MOTE_ERR_KERNEL_SHAPE);
        }
    }
    if (infer != 0xFFFFFFFFu) {
        /* 32-bit divisions (the Cortex-M divider; no 64-bit helper linked) */
        const uint32_t k32 = (uint32_t)known;
        MOTE_CHECK(k32 > 0u && in->numel % k32 == 0u && (uint64_t)out->sizes[infer] == in->numel / k32,
                   MOTE_ERR_KERNEL_SHAPE);
    }
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(out));
    MOTE_CHECK(in->numel == out->numel, MOTE_ERR_KERNEL_SHAPE);
    mote_k_copy_data(in, out);
    return MOTE_OK;
}
