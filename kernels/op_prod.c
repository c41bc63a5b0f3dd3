/*
 * aten::prod.out - x.prod(): the product of all elements as a 0-d tensor
 * (1 for an empty tensor).
 *
 *   args (3): self, dtype ScalarType? (None: int64 for integer/bool self, else
 *             self's dtype), out (0-d, of that dtype).
 *   dtypes: self float32 or bool/uint8/int8/int16/int32/int64; out float32, or
 *           int32/int64 for an integer/bool self (wrapping like torch).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (out not 0-d).
 */
#include "reduce.h"

MOTE_KERNEL("aten::prod.out")

MOTE_K_DECLARE(mote_kernel_aten_prod_out);

mote_err_t mote_kernel_aten_prod_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                     uint32_t nargs)
{
    mote_tensor_t *in, *out;
    uint8_t reduce[MOTE_MAX_DIM];
    mote_red_geom_t g;
    mote_dtype_t dt;
    uint32_t d;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 3));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_CHECK(mote_k_is_none(args[1]) || args[1]->tag == MOTE_TAG_INT, MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_k_tensor(args[2], &out));
    MOTE_TRY(mote_red_acc_dtype(args[1], in, &dt));
    MOTE_CHECK(out->dtype == dt, MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_CHECK(out->dim == 0 && out->numel == 1, MOTE_ERR_KERNEL_SHAPE);
    for (d = 0; d < MOTE_MAX_DIM; d++) {
        reduce[d] = 1;
    }
    mote_red_geom(in, reduce, &g);
    mote_red_prod(in, &g, out->data, dt);
    return MOTE_OK;
}
