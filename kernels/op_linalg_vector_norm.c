/*
 * aten::linalg_vector_norm.out - torch.linalg.vector_norm(self, ord, dim, keepdim,
 * dtype=dtype) (F.normalize's norm): per out element, the ord-norm of its inputs
 * over the dims in `dim` (see mote_red_vector_norm_f32 for each ord).
 *
 *   args (6): self, ord Scalar (Int or Double; inf / -inf as Double), dim int[]?
 *             (None or [] = all dims; negative counts from the end; no repeats),
 *             keepdim bool, dtype ScalarType? (None or Float = 6), out (reduced
 *             shape; reduced dims kept as 1 when keepdim).
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, bad dim, NaN ord), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (out shape; an empty reduction with ord < 0 or
 *           ord = inf, which has no identity: torch raises).
 */
#include <math.h>

#include "reduce.h"

MOTE_KERNEL("aten::linalg_vector_norm.out")

MOTE_K_DECLARE(mote_kernel_aten_linalg_vector_norm_out);

mote_err_t mote_kernel_aten_linalg_vector_norm_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                                   uint32_t nargs)
{
    mote_tensor_t *in, *out;
    uint8_t reduce[MOTE_MAX_DIM];
    mote_red_geom_t g;
    double ord;
    int keepdim;
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 6));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_scalar(args[1], &ord));
    MOTE_CHECK(args[1]->tag != MOTE_TAG_BOOL && !isnan(ord), MOTE_ERR_KERNEL_ARGS);
    MOTE_TRY(mote_k_bool(args[3], &keepdim));
    if (!mote_k_is_none(args[4])) {
        int64_t dt;
        MOTE_TRY(mote_k_int(args[4], &dt));
        MOTE_CHECK(dt == MOTE_DTYPE_FLOAT32, MOTE_ERR_KERNEL_DTYPE);
    }
    MOTE_TRY(mote_k_tensor(args[5], &out));
    MOTE_CHECK(in->dtype == MOTE_DTYPE_FLOAT32 && out->dtype == MOTE_DTYPE_FLOAT32,
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_TRY(mote_red_dim_list(args[2], in, 1, reduce));
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_reduce_out_shape(in, reduce, keepdim, out));
    MOTE_TRY(mote_k_check_numel(out));
    mote_red_geom(in, reduce, &g);
    MOTE_CHECK(g.red_numel > 0 || (ord >= 0.0 && !isinf(ord)), MOTE_ERR_KERNEL_SHAPE);
    mote_red_vector_norm_f32(in, &g, ord, (float *)out->data);
    return MOTE_OK;
}
