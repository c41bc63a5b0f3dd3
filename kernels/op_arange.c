/*
 * aten::arange.out - out = [0, 1, ..., ceil(end) - 1] (torch.arange(end)).
 *
 *   args (2): end Scalar (>= 0), out 1-D of ceil(end) elements.
 *   dtypes: out float32/float64/int8/uint8/int16/int32/int64 (torch: int64
 *           for an int end, float32 for a float one).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, negative or NaN end),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (out size).
 */
#include "shape.h"

MOTE_KERNEL("aten::arange.out")

MOTE_K_DECLARE(mote_kernel_aten_arange_out);

mote_err_t mote_kernel_aten_arange_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *out;
    mote_value_t start, step;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 2));
    MOTE_TRY(mote_k_tensor(args[1], &out));
    start.tag = MOTE_TAG_INT;
    start.u.i = 0;
    step.tag = MOTE_TAG_INT;
    step.u.i = 1;
    return mote_shape_arange(&start, args[0], &step, out);
}
