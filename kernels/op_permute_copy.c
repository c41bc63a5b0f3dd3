/*
 * aten::permute_copy.out - out = self.permute(dims), materialised contiguously.
 *
 *   args (3): self, dims int[] (a permutation of 0..rank-1, negatives allowed),
 *             out with sizes[i] = self.sizes[dims[i]].
 *   dtypes: any (out dtype == self dtype).
 *   errors: MOTE_ERR_KERNEL_ARGS (count/tags, not a permutation),
 *           MOTE_ERR_KERNEL_DTYPE, MOTE_ERR_KERNEL_SHAPE. out must not overlap self.
 */
#include <string.h>

#include "kutil.h"

MOTE_KERNEL("aten::permute_copy.out")

MOTE_K_DECLARE(mote_kernel_aten_permute_copy_out);

/* out[b][c][r] = in[b][r][c] in 16 x 16 tiles (cache friendly for big matrices). */
static void mote_permute_transpose(uint8_t *out, const uint8_t *in, size_t esz, size_t batch,
                                   size_t rows, size_t cols)
{
    size_t b, r0, c0, r, c;
    for (b = 0; b < batch; b++) {
        const uint8_t *x = in + b * rows * cols * esz;
        uint8_t *y = out + b * rows * cols * esz;
        for (r0 = 0; r0 < rows; r0 += 16) {
            const size_t r1 = rows - r0 < 16 ? rows : r0 + 16;
            for (c0 = 0; c0 < cols; c0 += 16) {
                const size_t c1 = cols - c0 < 16 ? cols : c0 + 16;
                if (esz == 4) {
                    for (c = c0; c < c1; c++) {
                        for (r = r0; r < r1; r++) {
                            memmove(y + (c * rows + r) * 4, x + (r * cols + c) * 4, 4);
                        }
                    }
                } else {
                    for (c = c0; c < c1; c++) {
                        for (r = r0; r < r1; r++) {
                            memmove(y + (c * rows + r) * esz, x + (r * cols + c) * esz, esz);
                        }
                    }
                }
            }
        }
    }
}

mote_err_t mote_kernel_aten_permute_copy_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                             uint32_t nargs)
{
    mote_tensor_t *in, *out;
    const int64_t *dims;
    uint32_t nd, i;
    uint8_t seen[MOTE_MAX_DIM] = {0};
    ptrdiff_t ist[MOTE_MAX_DIM], st[MOTE_MAX_DIM];
    size_t sz[MOTE_MAX_DIM];
    (void)ctx;
    MOTE_TRY(mote_k_nargs(args, nargs, 3));
    MOTE_TRY(mote_k_tensor(args[0], &in));
    MOTE_TRY(mote_k_ints(args[1], &dims, &nd));
    MOTE_TRY(mote_k_tensor(args[2], &out));
    MOTE_CHECK(nd == in->dim, MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(in->dtype == out->dtype && mote_dtype_size(in->dtype) != 0, MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK(out->dim == in->dim, MOTE_ERR_KERNEL_SHAPE);
    mote_k_strides(in, ist);
    for (i = 0; i < nd; i++) {
        uint32_t d;
        MOTE_TRY(mote_k_dim(dims[i], in->dim, &d));
        MOTE_CHECK(!seen[d], MOTE_ERR_KERNEL_ARGS);
        seen[d] = 1;
        MOTE_CHECK(out->sizes[i] == in->sizes[d], MOTE_ERR_KERNEL_SHAPE);
        sz[i] = (size_t)in->sizes[d];
        st[i] = ist[d];
    }
    MOTE_TRY(mote_k_check_numel(in));
    MOTE_TRY(mote_k_check_numel(out));
    if (nd >= 2 && st[nd - 2] == 1 && st[nd - 1] == (ptrdiff_t)sz[nd - 2] &&
        (nd == 2 || st[nd - 3] == (ptrdiff_t)(sz[nd - 1] * sz[nd - 2]))) {
        /* the last two dims swapped (a batch of matrix transposes) */
        uint32_t d, lead_ok = 1;
        for (d = 0; d + 2 < nd; d++) {
            lead_ok &= (uint32_t)(st[d] == ist[d] && sz[d] == (size_t)in->sizes[d]);
        }
        if (lead_ok) {
            mote_permute_transpose((uint8_t *)out->data, (const uint8_t *)in->data,
                                   mote_dtype_size(in->dtype), mote_k_prod(in, 0, nd - 2),
                                   sz[nd - 1], sz[nd - 2]);
            return MOTE_OK;
        }
    }
    mote_k_strided_copy(out->data, in->data, mote_dtype_size(in->dtype), nd, sz, st);
    return MOTE_OK;
}
