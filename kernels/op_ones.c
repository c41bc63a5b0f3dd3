/*
 * aten::ones.out - out = 1 everywhere.
 *
 *   args (2): size int[] (>= 0), out with sizes == size.
 *   dtypes: out float32/float64/int8/uint8/int16/int32/int64/bool.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (out sizes differ from size).
 */
#include "shape.h"

MOTE_KERNEL("aten::ones.out")

MOTE_K_DECLARE(mote_kernel_aten_ones_out);

mote_err_t mote_kernel_aten_ones_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    (void)ctx;
    return mote_shape_fill_sized(args, nargs, 1.0);
}
