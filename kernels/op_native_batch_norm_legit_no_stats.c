/*
 * aten::_native_batch_norm_legit.no_stats_out - training-mode batch norm
 * without running statistics (F.batch_norm(x, None, None, training=True),
 * F.instance_norm): each channel (dim 1) is normalized with its batch mean and
 * biased variance,
 *   out = (x - mean) / sqrt(var + eps) * weight + bias;
 * save_mean and save_invstd [C] receive mean and 1 / sqrt(var + eps).
 *
 *   args (9): input [N, C, *], weight? [C], bias? [C], training bool (must be
 *             true), momentum float (unused), eps float, out (input's shape),
 *             save_mean [C], save_invstd [C].
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, training false),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (shapes; N * HxW = 0).
 *   out may alias input exactly.
 */
#include "norm.h"

MOTE_KERNEL("aten::_native_batch_norm_legit.no_stats_out")
MOTE_KERNEL_OUTPUTS("aten::_native_batch_norm_legit.no_stats_out", 3) /* out, save_mean, save_invstd */

MOTE_K_DECLARE(mote_kernel_aten__native_batch_norm_legit_no_stats_out);

mote_err_t mote_kernel_aten__native_batch_norm_legit_no_stats_out(mote_kernel_ctx_t *ctx,
                                                                  mote_value_t *const *args,
                                                                  uint32_t nargs)
{
    (void)ctx;
    return mote_norm_batch_no_stats(args, nargs);
}
