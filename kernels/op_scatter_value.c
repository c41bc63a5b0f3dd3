/*
 * aten::scatter.value_out - out = self; out[i][index[i][j]] = value (dim = 1).
 *
 *   args (5): self, dim int, index (self's rank, index.size(d) <= self.size(d)
 *             for d != dim, values in [0, self.size(dim))), value Scalar
 *             (converted to self's dtype), out (self's shape).
 *   dtypes: self any of fp32/fp64/int8..int64/uint8/bool, out == self;
 *           index int64 (int32 accepted).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim, index out of range,
 *           value not representable), MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE.
 *   out may alias self exactly.
 */
#include "index.h"

MOTE_KERNEL("aten::scatter.value_out")

MOTE_K_DECLARE(mote_kernel_aten_scatter_value_out);

mote_err_t mote_kernel_aten_scatter_value_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                              uint32_t nargs)
{
    mote_tensor_t *self, *idx, *out;
    int64_t dim;
    double v;
    uint64_t buf = 0;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 5));
    MOTE_TRY(mote_k_tensor(args[0], &self));
    MOTE_TRY(mote_k_int(args[1], &dim));
    MOTE_TRY(mote_k_tensor(args[2], &idx));
    MOTE_TRY(mote_k_scalar(args[3], &v));
    MOTE_TRY(mote_k_tensor(args[4], &out));
    MOTE_CHECK(out->dtype == self->dtype, MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_k_scalar_store(self->dtype, v, &buf));
    return mote_k_scatter_gather(MOTE_SG_SCATTER_VAL, self, dim, idx, NULL, &buf, out);
}
