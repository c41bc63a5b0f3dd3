/*
 * aten::tril.out - out = torch.tril(self, diagonal): the lower triangle of
 * each matrix of the last two dims (j - i <= diagonal kept, the rest 0).
 *
 *   args (3): self (rank >= 2), diagonal int, out (self's shape).
 *   dtypes: any (out dtype == self dtype; 0 is all bits zero: 0.0, false).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags), MOTE_ERR_KERNEL_DTYPE,
 *           MOTE_ERR_KERNEL_SHAPE (rank < 2, out shape).
 *   out may alias self exactly (in place).
 */
#include <string.h>

#include "shape.h"

MOTE_KERNEL("aten::tril.out")
MOTE_KERNEL_IN_PLACE("aten::tril.out")

MOTE_K_DECLARE(mote_kernel_aten_tril_out);

mote_err_t mote_kernel_aten_tril_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    mote_tensor_t *in, *out;
    int64_t diag, i, keep;
    size_t rows, cols, mats, m, esz;
    uint8_t *po;
    (void)ctx;
    MOTE_TRY(mote_shape_io(args, nargs, 3, &in, &out));
    MOTE_TRY(mote_k_int(args[1], &diag));
    MOTE_TRY(mote_shape_same_dtype(in, out));
    MOTE_CHECK(in->dim >= 2 && mote_k_same_shape(in, out), MOTE_ERR_KERNEL_SHAPE);
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(out));
    mote_k_copy_data(in, out);
    rows = (size_t)in->sizes[in->dim - 2];
    cols = (size_t)in->sizes[in->dim - 1];
    if (rows == 0 || cols == 0) {
        return MOTE_OK;
    }
    mats = in->numel / (rows * cols);
    esz = mote_dtype_size(in->dtype);
    po = (uint8_t *)out->data;
    for (m = 0; m < mats; m++) {
        for (i = 0; i < (int64_t)rows; i++) {
            /* keep columns j <= i + diag */
            keep = i + 1 + (diag < -(int64_t)rows ? -(int64_t)rows : diag > (int64_t)cols ? (int64_t)cols : diag);
            keep = keep < 0 ? 0 : keep > (int64_t)cols ? (int64_t)cols : keep;
            memset(po + ((m * rows + (size_t)i) * cols + (size_t)keep) * esz, 0, (cols - (size_t)keep) * esz);
        }
    }
    return MOTE_OK;
}
