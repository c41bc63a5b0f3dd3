/*
 * aten::mean.dtype_out - x.mean(dtype=...): the mean of all elements as a 0-d
 * tensor (NaN for an empty tensor).
 *
 *   args (3): self, dtype ScalarType? (None or Float = 6), out (0-d).
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (out not 0-d).
 */
#include <math.h>

#include "reduce.h"

MOTE_KERNEL("aten::mean.dtype_out")

MOTE_K_DECLARE(mote_kernel_aten_mean_dtype_out);

mote_err_t mote_kernel_aten_mean_dtype_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                           uint32_t nargs)
{
    mote_tensor_t *in, *out;
    uint8_t reduce[MOTE_MAX_DIM];
    uint32_t d;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 3));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_tensor(args[2], &out));
    if (!mote_k_is_none(args[1])) {
        int64_t dt;
        MOTE_TRY(mote_k_int(args[1], &dt));
        MOTE_CHECK(dt == MOTE_DTYPE_FLOAT32, MOTE_ERR_KERNEL_DTYPE);
    }
    MOTE_CHECK(in->dtype == MOTE_DTYPE_FLOAT32 && out->dtype == MOTE_DTYPE_FLOAT32,
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_CHECK(out->dim == 0 && out->numel == 1, MOTE_ERR_KERNEL_SHAPE);
    for (d = 0; d < MOTE_MAX_DIM; d++) {
        reduce[d] = 1;
    }
    mote_k_reduce_sum_f32(in, reduce, (float *)out->data, 1,
                          in->numel > 0 ? 1.0f / (float)in->numel : 0.0f);
    if (in->numel == 0) {
        *(float *)out->data = NAN; /* mean of nothing is NaN */
    }
    return MOTE_OK;
}
