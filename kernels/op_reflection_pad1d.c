/*
 * aten::reflection_pad1d.out - pad the last 1 dim of a rank 2 or 3 tensor: mirrors the input without repeating the edge (each pad < the input size)
 * (nn.ReflectionPad1d; torch.export decomposes it into index.Tensor, ExecuTorch-made programs carry it).
 *
 *   args (3): self, padding int[2] ([left, right]; negative crops), out.
 *   dtypes: any, out == self.
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, padding length, a pad >= the size),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE (rank, out shape).
 *   out must not overlap self.
 */
#include "pad.h"

MOTE_KERNEL("aten::reflection_pad1d.out")

MOTE_K_DECLARE(mote_kernel_aten_reflection_pad1d_out);

mote_err_t mote_kernel_aten_reflection_pad1d_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                                 uint32_t nargs)
{
    (void)ctx;
    return mote_k_pad_nd(args, nargs, 1u, 1);
}
