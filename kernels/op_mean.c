/*
 * aten::mean.out - mean over the dims in `dim` (None or [] = all dims).
 *
 *   args (5): self, dim int[]? (negative counts from the end, no repeats), keepdim bool,
 *             dtype ScalarType? (None or Float = 6), out (reduced shape; reduced
 *             dims kept as 1 when keepdim).
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (out shape). out must not overlap self.
 */
#include <math.h>

#include "kutil.h"

MOTE_KERNEL("aten::mean.out")

MOTE_K_DECLARE(mote_kernel_aten_mean_out);

mote_err_t mote_kernel_aten_mean_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                     uint32_t nargs)
{
    mote_tensor_t *in, *out;
    uint8_t reduce[MOTE_MAX_DIM];
    size_t count;
    uint32_t d;
    (void)ctx;
    MOTE_TRY(mote_k_reduce_f32_args(args, nargs, &in, &out, reduce));
    count = 1;
    for (d = 0; d < in->dim; d++) {
        if (reduce[d]) {
            count *= (size_t)in->sizes[d];
        }
    }
    mote_k_reduce_sum_f32(in, reduce, (float *)out->data, out->numel,
                          count > 0 ? 1.0f / (float)count : 0.0f);
    if (count == 0) {
        size_t i;
        for (i = 0; i < out->numel; i++) {
            ((float *)out->data)[i] = NAN; /* mean of nothing is NaN */
        }
    }
    return MOTE_OK;
}
