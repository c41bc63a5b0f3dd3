/*
 * aten::_to_copy.out - out = self.to(out's dtype): torch.export's form of
 * .to(dtype) / .float() / .int() / .bool().
 *
 *   args (4): self, non_blocking bool (ignored), memory_format int? (None,
 *             contiguous_format 0 or preserve_format 1), out (self's shape).
 *   dtypes: uint8, int8, int16, int32, int64, float32, float64, bool, each way.
 *   conversions: mote_shape_cast's (kernels/shape.h): as torch where torch
 *           defines them; NaN -> 0 and saturation where C leaves float ->
 *           integer undefined.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, another memory format),
 *           MOTE_ERR_KERNEL_DTYPE (float16 or another dtype), MOTE_ERR_KERNEL_SHAPE.
 *   out may alias self exactly when the dtypes have one element size.
 */
#include "shape.h"

MOTE_KERNEL("aten::_to_copy.out")

MOTE_K_DECLARE(mote_kernel_aten__to_copy_out);

mote_err_t mote_kernel_aten__to_copy_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *in, *out;
    int nb;
    (void)ctx;
    MOTE_TRY(mote_shape_io(args, nargs, 4, &in, &out));
    MOTE_TRY(mote_k_bool(args[1], &nb));
    if (!mote_k_is_none(args[2])) {
        int64_t mf;
        MOTE_TRY(mote_k_int(args[2], &mf));
        MOTE_CHECK(mf == 0 || mf == 1, MOTE_ERR_KERNEL_ARGS);
    }
    MOTE_CHECK(mote_shape_cast_dtype(in->dtype) && mote_shape_cast_dtype(out->dtype), MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(mote_k_same_shape(in, out), MOTE_ERR_KERNEL_SHAPE);
    return mote_shape_cast(in, out);
}
