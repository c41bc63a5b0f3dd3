/*
 * aten::var.correction_out - x.var(dim, correction=c): sum((x - mean)^2) /
 * max(0, N - c) over the dims in `dim` (N elements per out element; N <= c
 * gives inf, or NaN for 0/0, as torch).
 *
 *   args (5): self, dim int[]? (None or [] = all dims; negative counts from the
 *             end, no repeats), correction Scalar? (None = 1), keepdim bool,
 *             out (reduced shape).
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (out shape).
 */
#include "reduce.h"

MOTE_KERNEL("aten::var.correction_out")

MOTE_K_DECLARE(mote_kernel_aten_var_correction_out);

mote_err_t mote_kernel_aten_var_correction_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                               uint32_t nargs)
{
    mote_tensor_t *in;
    mote_red_geom_t g;
    double correction;
    (void)ctx;
    MOTE_TRY(mote_red_var_args(args, nargs, 1, &in, &g, &correction));
    mote_red_var_f32(in, &g, correction, (float *)args[4]->u.t->data, NULL);
    return MOTE_OK;
}
