/*
 * aten::clone.out - out = copy of self.
 *
 *   args (3): self, memory_format (None, or Int 0 = contiguous / 1 = preserve), out.
 *   dtypes: any (out dtype == self dtype).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, other memory formats),
 *           MOTE_ERR_KERNEL_DTYPE (dtypes differ), MOTE_ERR_KERNEL_SHAPE (shapes differ).
 */
#include "kutil.h"

MOTE_KERNEL("aten::clone.out")

MOTE_K_DECLARE(mote_kernel_aten_clone_out);

mote_err_t mote_kernel_aten_clone_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                      uint32_t nargs)
{
    mote_tensor_t *in, *out;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 3));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    if (!mote_k_is_none(args[1])) {
        int64_t mf;
        MOTE_TRY(mote_k_int(args[1], &mf));
        MOTE_CHECK(mf == 0 || mf == 1, MOTE_ERR_KERNEL_ARGS);
    }
    MOTE_TRY(mote_k_tensor(args[2], &out));
    MOTE_CHECK(in->dtype == out->dtype && mote_dtype_size(in->dtype) != 0, MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(mote_k_same_shape(in, out), MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(out));
    mote_k_copy_data(in, out);
    return MOTE_OK;
}
