/*
 * aten::reflection_pad3d.out - pad the last 3 dims of a rank 4 or 5 tensor: mirrors the input without repeating the edge (each pad < the input size)
 * (nn.ReflectionPad3d; torch.export decomposes it into index.Tensor, ExecuTorch-made programs carry it).
 *
 *   args (3): self, padding int[6] ([left, right, top, bottom, front, back]; negative crops), out.
 *   dtypes: any, out == self.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, padding length, a pad >= the size),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (rank, out shape).
 *   out must not overlap self.
 */
#include "pad.h"

MOTE_KERNEL("aten::reflection_pad3d.out")

MOTE_K_DECLARE(mote_kernel_aten_reflection_pad3d_out);

mote_err_t mote_kernel_aten_reflection_pad3d_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                                 uint32_t nargs)
{
    (void)ctx;
    return mote_k_pad_nd(args, nargs, 3u, 1);
}
