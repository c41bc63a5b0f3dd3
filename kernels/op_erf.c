/*
 * aten::erf.out - out = the error function of self, elementwise.
 *
 *   args (2): self, out (same shape).
 *   dtypes: self float32, or an integer dtype / bool (converted to float first,
 *           as PyTorch promotes them); out float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (other dtypes),
 *           MOTE_ERR_KERNEL_SHAPE (out shape differs).
 *   out may alias self exactly (in place, float32).
 */
#include <math.h>

#include "unary.h"

MOTE_KERNEL("aten::erf.out")
MOTE_KERNEL_IN_PLACE("aten::erf.out")

MOTE_K_DECLARE(mote_kernel_aten_erf_out);

mote_err_t mote_kernel_aten_erf_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                    uint32_t nargs)
{
    (void)ctx;
    MOTE_U_FLOAT(args, nargs, v, erff(v));
    return MOTE_OK;
}
