/*
 * aten::empty.out - an uninitialised tensor of `size`; this kernel zero-fills
 * it (deterministic programs).
 *
 *   args (3): size int[] (>= 0), memory_format int? (None, contiguous_format 0
 *             or preserve_format 1), out with sizes == size.
 *   dtypes: any.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, another memory format),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (out sizes differ from size).
 */
#include <string.h>

#include "shape.h"

MOTE_KERNEL("aten::empty.out")

MOTE_K_DECLARE(mote_kernel_aten_empty_out);

mote_err_t mote_kernel_aten_empty_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *out;
    const int64_t *size;
    uint32_t ns;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 3));
    MOTE_TRY(mote_k_ints(args[0], &size, &ns));
    if (!mote_k_is_none(args[1])) {
        int64_t mf;
        MOTE_TRY(mote_k_int(args[1], &mf));
        MOTE_CHECK(mf == 0 || mf == 1, MOTE_ERR_KERNEL_ARGS);
    }
    MOTE_TRY(mote_k_tensor(args[2], &out));
    MOTE_CHECK(mote_dtype_size(out->dtype) != 0, MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_shape_size_matches(args[0], out));
    MOTE_TRY(mote_k_check_numel(out));
    if (out->numel > 0) {
        memset(out->data, 0, (size_t)out->numel * mote_dtype_size(out->dtype));
    }
    return MOTE_OK;
}
