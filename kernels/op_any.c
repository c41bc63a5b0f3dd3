/*
 * aten::any.out - x.any(dim): whether any element along `dim` is non-zero
 * (NaN counts as non-zero).
 *
 *   args (4): self, dim int (negative counts from the end; 0-d accepts 0/-1),
 *             keepdim bool, out (reduced shape).
 *   dtypes: self bool, uint8, int8, int16, int32, int64, float32, float64;
 *           out bool (uint8 for a uint8 self, as torch).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (out shape). Nothing to reduce gives false.
 */
#include "reduce.h"

MOTE_KERNEL("aten::any.out")

MOTE_K_DECLARE(mote_kernel_aten_any_out);

mote_err_t mote_kernel_aten_any_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                    uint32_t nargs)
{
    mote_tensor_t *in, *out;
    uint8_t reduce[MOTE_MAX_DIM];
    mote_red_geom_t g;
    int64_t dim;
    int keepdim;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 4));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_int(args[1], &dim));
    MOTE_TRY(mote_k_bool(args[2], &keepdim));
    MOTE_TRY(mote_k_tensor(args[3], &out));
    MOTE_TRY(mote_red_one_dim(dim, in, reduce));
    MOTE_CHECK(mote_red_any_dtypes(in, out), MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_reduce_out_shape(in, reduce, keepdim, out));
    MOTE_TRY(mote_k_check_numel(out));
    mote_red_geom(in, reduce, &g);
    mote_red_any(in, &g, (uint8_t *)out->data);
    return MOTE_OK;
}
