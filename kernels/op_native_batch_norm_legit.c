/*
 * aten::_native_batch_norm_legit.out - batch norm with running statistics
 * (ExecuTorch programs of training-mode BatchNorm):
 *   training: each channel (dim 1) is normalized with its batch mean and biased
 *     variance; save_mean/save_invstd [C] receive them, and running_mean /
 *     running_var are updated in place:
 *     running = (1 - momentum) * running + momentum * batch (variance unbiased);
 *   not training: running_mean/running_var normalize (as the _no_training op);
 *     save_mean/save_invstd empty ([0], as torch returns) or [C].
 *   out = (x - mean) / sqrt(var + eps) * weight + bias.
 *
 *   args (11): input [N, C, *], weight? [C], bias? [C], running_mean [C],
 *              running_var [C], training bool, momentum float, eps float,
 *              out (input's shape), save_mean, save_invstd.
 *   dtypes: float32.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (shapes; training on N * HxW = 0 values).
 *   out may alias input exactly. The running stats are written although they
 *   are not out arguments: they must be planned (mutable) memory.
 */
#include "norm.h"

MOTE_KERNEL("aten::_native_batch_norm_legit.out")
MOTE_KERNEL_OUTPUTS("aten::_native_batch_norm_legit.out", 3) /* out, save_mean, save_invstd */

MOTE_K_DECLARE(mote_kernel_aten__native_batch_norm_legit_out);

mote_err_t mote_kernel_aten__native_batch_norm_legit_out(mote_kernel_ctx_t *ctx,
                                                         mote_value_t *const *args,
                                                         uint32_t nargs)
{
    (void)ctx;
    return mote_norm_batch_legit(args, nargs, 1);
}
