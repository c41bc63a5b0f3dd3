/*
 * aten::any.dims_out - x.any(dim=(d0, d1, ..)): whether any element over the
 * dims in `dim` is non-zero (NaN counts as non-zero).
 *
 *   args (4): self, dim int[]? (None = all dims; [] = no dim: out = self != 0,
 *             as torch), keepdim bool, out (reduced shape).
 *   dtypes: self bool, uint8, int8, int16, int32, int64, float32, float64;
 *           out bool (uint8 for a uint8 self, as torch).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad or repeated dim),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (out shape).
 */
#include "reduce.h"

MOTE_KERNEL("aten::any.dims_out")

MOTE_K_DECLARE(mote_kernel_aten_any_dims_out);

mote_err_t mote_kernel_aten_any_dims_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                         uint32_t nargs)
{
    mote_tensor_t *in, *out;
    mote_red_geom_t g;
    (void)ctx;
    MOTE_TRY(mote_red_dims_args(args, nargs, 0, MOTE_RED_DTYPES_ANY, &in, &out, &g));
    mote_red_any(in, &g, (uint8_t *)out->data);
    return MOTE_OK;
}
