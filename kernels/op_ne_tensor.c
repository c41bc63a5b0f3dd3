/*
 * aten::ne.Tensor_out - out = self != other, elementwise, bool out.
 *
 *   args (3): self, other Tensor (broadcast), out (bool, the broadcast shape).
 *   dtypes: self/other float32, int32, int64, bool (also int8/int16/uint8); compared
 *           in torch's promoted dtype (int tensor vs float Scalar compares as float32;
 *           a 0-dim tensor does not raise a dim tensor's dtype in its category).
 *           NaN compares false (true for ne).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE (dtype combination),
 *           MOTE_ERR_KERNEL_SHAPE (not broadcastable / out not the broadcast shape).
 *   out may alias self exactly when self is bool (in place).
 */
#include "elementwise.h"

MOTE_KERNEL("aten::ne.Tensor_out")
MOTE_KERNEL_IN_PLACE("aten::ne.Tensor_out")

MOTE_EW_CMP_KERNEL(mote_kernel_aten_ne_Tensor_out, MOTE_EW_TT, !=)
