/*
 * aten::any.all_out - x.any(): whether any element is non-zero (NaN counts as
 * non-zero; an empty tensor gives false), as a 0-d tensor.
 *
 *   args (2): self, out (0-d).
 *   dtypes: self bool, uint8, int8, int16, int32, int64, float32, float64;
 *           out bool (uint8 for a uint8 self, as torch).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (out not 0-d).
 */
#include "reduce.h"

MOTE_KERNEL("aten::any.all_out")

MOTE_K_DECLARE(mote_kernel_aten_any_all_out);

mote_err_t mote_kernel_aten_any_all_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                        uint32_t nargs)
{
    mote_tensor_t *in, *out;
    uint8_t reduce[MOTE_MAX_DIM];
    mote_red_geom_t g;
    uint32_t d;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 2));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_tensor(args[1], &out));
    MOTE_CHECK(mote_red_any_dtypes(in, out), MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_CHECK(out->dim == 0 && out->numel == 1, MOTE_ERR_KERNEL_SHAPE);
    for (d = 0; d < MOTE_MAX_DIM; d++) {
        reduce[d] = 1;
    }
    mote_red_geom(in, reduce, &g);
    mote_red_any(in, &g, (uint8_t *)out->data);
    return MOTE_OK;
}
