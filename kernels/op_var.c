/*
 * aten::var.out - x.var(dim, unbiased): sum((x - mean)^2) / (N - 1) (unbiased)
 * or / N over the dims in `dim` (N elements per out element).
 *
 *   args (5): self, dim int[]? (None or [] = all dims; negative counts from the
 *             end, no repeats), unbiased bool, keepdim bool, out (reduced shape).
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (out shape).
 */
#include "reduce.h"

MOTE_KERNEL("aten::var.out")

MOTE_K_DECLARE(mote_kernel_aten_var_out);

mote_err_t mote_kernel_aten_var_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                    uint32_t nargs)
{
    mote_tensor_t *in, *out;
    uint8_t reduce[MOTE_MAX_DIM];
    mote_red_geom_t g;
    int unbiased, keepdim;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 5));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_bool(args[2], &unbiased));
    MOTE_TRY(mote_k_bool(args[3], &keepdim));
    MOTE_TRY(mote_k_tensor(args[4], &out));
    MOTE_TRY(mote_red_dim_list(args[1], in, 1, reduce));
    MOTE_CHECK(in->dtype == MOTE_DTYPE_FLOAT32 && out->dtype == MOTE_DTYPE_FLOAT32,
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_reduce_out_shape(in, reduce, keepdim, out));
    MOTE_TRY(mote_k_check_numel(out));
    mote_red_geom(in, reduce, &g);
    mote_red_var_f32(in, &g, unbiased ? 1.0 : 0.0, (float *)out->data, NULL);
    return MOTE_OK;
}
