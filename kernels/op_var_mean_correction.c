/*
 * aten::var_mean.correction_out - torch.var_mean(x, dim, correction=c): the
 * variance sum((x - mean)^2) / max(0, N - c) and the mean over the dims in
 * `dim` (N elements per out element).
 *
 *   args (6): self, dim int[]? (None or [] = all dims; negative counts from the
 *             end, no repeats), correction Scalar? (None = 1), keepdim bool,
 *             out0 (variance), out1 (mean), both of the reduced shape.
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (out shapes).
 */
#include "reduce.h"

MOTE_KERNEL("aten::var_mean.correction_out")
MOTE_KERNEL_OUTPUTS("aten::var_mean.correction_out", 2) /* var, mean */

MOTE_K_DECLARE(mote_kernel_aten_var_mean_correction_out);

mote_err_t mote_kernel_aten_var_mean_correction_out(mote_kernel_ctx_t *ctx,
                                                    mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *in;
    mote_red_geom_t g;
    double correction;
    (void)ctx;
    MOTE_TRY(mote_red_var_args(args, nargs, 2, &in, &g, &correction));
    mote_red_var_f32(in, &g, correction, (float *)args[4]->u.t->data,
                     (float *)args[5]->u.t->data);
    return MOTE_OK;
}
