/*
 * aten::sum.IntList_out - sum over the dims in `dim` (None or [] = all dims).
 *
 *   args (5): self, dim int[]? (negative counts from the end, no repeats), keepdim bool,
 *             dtype ScalarType? (None or Float = 6), out (reduced shape).
 *   dtypes: float32; or an integer/bool self (bool, uint8, int8, int16, int32, int64)
 *           summed into int64 (dtype None), int32 or float32 (dtype given),
 *           integers wrapping like torch (reduce.c: mote_red_sum_int).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (out shape). out must not overlap self.
 */
#include "reduce.h"

MOTE_KERNEL("aten::sum.IntList_out")

MOTE_K_DECLARE(mote_kernel_aten_sum_IntList_out);

mote_err_t mote_kernel_aten_sum_IntList_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                            uint32_t nargs)
{
    mote_tensor_t *in, *out;
    uint8_t reduce[MOTE_MAX_DIM];
    (void)ctx;
    if (args != NULL && nargs == 5 && args[0] != NULL && args[0]->tag == MOTE_TAG_TENSOR &&
        args[0]->u.t != NULL && mote_red_is_intlike(args[0]->u.t->dtype)) {
        return mote_red_sum_int(args, nargs); /* x.sum() of masks and indices */
    }
    MOTE_TRY(mote_k_reduce_f32_args(args, nargs, &in, &out, reduce));
    mote_k_reduce_sum_f32(in, reduce, (float *)out->data, out->numel, 1.0f);
    return MOTE_OK;
}
