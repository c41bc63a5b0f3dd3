/*
 * aten::prod.int_out - x.prod(dim): the product along `dim` (1 for an empty dim).
 *
 *   args (5): self, dim int (negative counts from the end; 0-d accepts 0/-1),
 *             keepdim bool, dtype ScalarType? (None: int64 for integer/bool self,
 *             else self's dtype), out (reduced shape, of that dtype).
 *   dtypes: self float32 or bool/uint8/int8/int16/int32/int64; out float32, or
 *           int32/int64 for an integer/bool self (wrapping like torch).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (out shape).
 */
#include "reduce.h"

MOTE_KERNEL("aten::prod.int_out")

MOTE_K_DECLARE(mote_kernel_aten_prod_int_out);

mote_err_t mote_kernel_aten_prod_int_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                         uint32_t nargs)
{
    mote_tensor_t *in, *out;
    uint8_t reduce[MOTE_MAX_DIM];
    mote_red_geom_t g;
    mote_dtype_t dt;
    int64_t dim;
    int keepdim;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 5));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_int(args[1], &dim));
    MOTE_TRY(mote_k_bool(args[2], &keepdim));
    MOTE_CHECK(mote_k_is_none(args[3]) || args[3]->tag == MOTE_TAG_INT, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_k_tensor(args[4], &out));
    MOTE_TRY(mote_red_one_dim(dim, in, reduce));
    MOTE_TRY(mote_red_acc_dtype(args[3], in, &dt));
    MOTE_CHECK(out->dtype == dt, MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_reduce_out_shape(in, reduce, keepdim, out));
    MOTE_TRY(mote_k_check_numel(out));
    mote_red_geom(in, reduce, &g);
    mote_red_prod(in, &g, out->data, dt);
    return MOTE_OK;
}
