/*
 * aten::scalar_tensor.out - out (0-dim) = s.
 *
 *   args (2): s Scalar, out (0-dim, or any shape with one element).
 *   dtypes: out float32/float64/int8/uint8/int16/int32/int64/bool.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (out has more or fewer than one element).
 */
#include "shape.h"

MOTE_KERNEL("aten::scalar_tensor.out")

MOTE_K_DECLARE(mote_kernel_aten_scalar_tensor_out);

mote_err_t mote_kernel_aten_scalar_tensor_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                              uint32_t nargs)
{
    mote_tensor_t *out;
    double v;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 2));
    MOTE_TRY(mote_k_scalar(args[0], &v));
    MOTE_TRY(mote_k_tensor(args[1], &out));
    MOTE_CHECK(mote_shape_cast_dtype(out->dtype), MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_k_check_numel(out));
    MOTE_CHECK(out->numel == 1, MOTE_ERR_KERNEL_SHAPE);
    return mote_shape_fill(out, v);
}
