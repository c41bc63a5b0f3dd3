/*
 * aten::arange.start_out - out[i] = start + i * step for i < ceil((end - start) / step).
 *
 *   args (4): start Scalar, end Scalar, step Scalar (!= 0, pointing from start
 *             toward end), out 1-D.
 *   dtypes: out float32/float64/int8/uint8/int16/int32/int64 (torch: int64
 *           when all three are ints, else float32); float outs computed in
 *           double, integer outs from start and step truncated to int64 (and
 *           for int64 the count too), as torch does (see shape.h).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, step 0 or of the wrong sign, NaN),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (out size).
 */
#include "shape.h"

MOTE_KERNEL("aten::arange.start_out")

MOTE_K_DECLARE(mote_kernel_aten_arange_start_out);

mote_err_t mote_kernel_aten_arange_start_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                             uint32_t nargs)
{
    mote_tensor_t *out;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 4));
    MOTE_TRY(mote_k_tensor(args[3], &out));
    return mote_shape_arange(args[0], args[1], args[2], out);
}
