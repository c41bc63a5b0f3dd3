/*
 * aten::alias_copy.out - out = self (Tensor.alias() materialised (export turns x.detach() of an input into it)).
 *
 *   args (2): self, out (self's shape).
 *   dtypes: any (out dtype == self dtype).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (out shape differs).
 *   out may alias self exactly (then nothing is copied).
 */
#include "shape.h"

MOTE_KERNEL("aten::alias_copy.out")
MOTE_KERNEL_IN_PLACE("aten::alias_copy.out")

MOTE_K_DECLARE(mote_kernel_aten_alias_copy_out);

mote_err_t mote_kernel_aten_alias_copy_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    (void)ctx;
    return mote_shape_identity(args, nargs);
}
