/*
 * aten::reflection_pad2d.out - pad the last 2 dims of a rank 3 or 4 tensor: mirrors the input without repeating the edge (each pad < the input size)
 * (nn.ReflectionPad2d; torch.export decomposes it into index.Tensor, ExecuTorch-made programs carry it).
 *
 *   args (3): self, padding int[4] ([left, right, top, bottom]; negative crops), out.
 *   dtypes: any, out == self.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, padding length, a pad >= the size),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (rank, out shape).
 *   out must not overlap self.
 */
#include "pad.h"

MOTE_KERNEL("aten::reflection_pad2d.out")

MOTE_K_DECLARE(mote_kernel_aten_reflection_pad2d_out);

mote_err_t mote_kernel_aten_reflection_pad2d_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                                 uint32_t nargs)
{
    (void)ctx;
    return mote_k_pad_nd(args, nargs, 2u, 1);
}
