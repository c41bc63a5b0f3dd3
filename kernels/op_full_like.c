/*
 * aten::full_like.out - out = fill_value everywhere, shaped like self
 * (torch.full_like / ones_like / zeros_like, and x.fill_(v) after export).
 *
 *   args (4): self (gives the shape; values not read), fill_value Scalar,
 *             memory_format int? (None, contiguous_format 0 or preserve_format 1), out.
 *   dtypes: out float32/float64/int8/uint8/int16/int32/int64/bool (self any);
 *           a float value into an integer out truncates, into bool is != 0.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, another memory format),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE. out may alias self.
 */
#include "shape.h"

MOTE_KERNEL("aten::full_like.out")

MOTE_K_DECLARE(mote_kernel_aten_full_like_out);

mote_err_t mote_kernel_aten_full_like_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *self, *out;
    double v;
    (void)ctx;
    MOTE_TRY(mote_shape_io(args, nargs, 4, &self, &out));
    MOTE_TRY(mote_k_scalar(args[1], &v));
    if (!mote_k_is_none(args[2])) {
        int64_t mf;
        MOTE_TRY(mote_k_int(args[2], &mf));
        MOTE_CHECK(mf == 0 || mf == 1, MOTE_ERR_KERNEL_ARGS);
    }
    MOTE_CHECK(mote_shape_cast_dtype(out->dtype), MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(mote_k_same_shape(self, out), MOTE_ERR_KERNEL_SHAPE);
    return mote_shape_fill(out, v);
}
