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
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#endif

MOTE_KERNEL("aten::permute_copy.out")

MOTE_K_DECLARE(mote_kernel_aten_permute_copy_out);

/* Unaligned 32-bit load / store (one LDR / STR on Cortex-M3 and up). */
static uint32_t mote_perm_ld32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void mote_perm_st32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

/* 4 x 4 bytes: rows a, b, d, e (one word each) -> columns y[0..3] (2 x 2 blocks of
   bytes, then of halfwords). */
#define MOTE_PERM_T4(a, b, d, e, y)                                                        \
    do {                                                                                   \
        const uint32_t ab0_ = ((a) & 0x00ff00ffu) | (((b) & 0x00ff00ffu) << 8);            \
        const uint32_t ab1_ = (((a) >> 8) & 0x00ff00ffu) | ((b) & 0xff00ff00u);            \
        const uint32_t de0_ = ((d) & 0x00ff00ffu) | (((e) & 0x00ff00ffu) << 8);            \
        const uint32_t de1_ = (((d) >> 8) & 0x00ff00ffu) | ((e) & 0xff00ff00u);            \
        (y)[0] = (ab0_ & 0xffffu) | (de0_ << 16);                                          \
        (y)[1] = (ab1_ & 0xffffu) | (de1_ << 16);                                          \
        (y)[2] = (ab0_ >> 16) | (de0_ & 0xffff0000u);                                      \
        (y)[3] = (ab1_ >> 16) | (de1_ & 0xffff0000u);                                      \
    } while (0)

/*
 * Bytes: out[c][r] = in[r][c] for nr = 2, 3 or 4 rows (in's row length cols) and the
 * columns [0, n4), n4 a multiple of 4: four columns a step, one word load per row,
 * nr word stores (the step's 4 x nr output bytes are contiguous).
 */
static void mote_perm_interleave(uint8_t *out, const uint8_t *in, size_t cols, size_t n4,
                                 size_t nr)
{
    const uint8_t *x = in;
    const uint8_t *const end = in + n4;
    uint8_t *y = out;
    if (nr == 2) {
        for (; x != end; x += 4, y += 8) {
            const uint32_t a = mote_perm_ld32(x), b = mote_perm_ld32(x + cols);
            mote_perm_st32(y, (a & 0xffu) | ((b & 0xffu) << 8) | ((a & 0xff00u) << 8) |
                                  ((b & 0xff00u) << 16));
            mote_perm_st32(y + 4, ((a >> 16) & 0xffu) | ((b >> 8) & 0xff00u) |
                                      ((a >> 8) & 0xff0000u) | (b & 0xff000000u));
        }
    } else if (nr == 3) {
        for (; x != end; x += 4, y += 12) {
            const uint32_t a = mote_perm_ld32(x), b = mote_perm_ld32(x + cols);
            const uint32_t d = mote_perm_ld32(x + 2 * cols);
            mote_perm_st32(y, (a & 0xffu) | ((b & 0xffu) << 8) | ((d & 0xffu) << 16) |
                                  ((a & 0xff00u) << 16));
            mote_perm_st32(y + 4, ((b >> 8) & 0xffu) | (d & 0xff00u) | (a & 0xff0000u) |
                                      ((b & 0xff0000u) << 8));
            mote_perm_st32(y + 8, ((d >> 16) & 0xffu) | ((a >> 16) & 0xff00u) |
                                      ((b >> 8) & 0xff0000u) | (d & 0xff000000u));
        }
    } else {
        for (; x != end; x += 4, y += 16) {
            uint32_t t[4];
            MOTE_PERM_T4(mote_perm_ld32(x), mote_perm_ld32(x + cols), mote_perm_ld32(x + 2 * cols),
                         mote_perm_ld32(x + 3 * cols), t);
            mote_perm_st32(y, t[0]);
            mote_perm_st32(y + 4, t[1]);
            mote_perm_st32(y + 8, t[2]);
            mote_perm_st32(y + 12, t[3]);
        }
    }
}

/*
 * Bytes: out[c][r] = in[r][c] for nc = 2, 3 or 4 columns and the rows [0, n4), n4 a
 * multiple of 4 (out's row length rows): four rows a step, nc word loads (the step's
 * 4 x nc input bytes are contiguous), one word store per output row.
 */
static void mote_perm_deinterleave(uint8_t *out, const uint8_t *in, size_t rows, size_t n4,
                                   size_t nc)
{
    const uint8_t *x = in;
    uint8_t *y = out;
    uint8_t *const end = out + n4;
    if (nc == 2) {
        for (; y != end; x += 8, y += 4) {
            const uint32_t a = mote_perm_ld32(x), b = mote_perm_ld32(x + 4);
            mote_perm_st32(y, (a & 0xffu) | ((a >> 8) & 0xff00u) | ((b & 0xffu) << 16) |
                                  ((b & 0xff0000u) << 8));
            mote_perm_st32(y + rows, ((a >> 8) & 0xffu) | ((a >> 16) & 0xff00u) |
                                         ((b & 0xff00u) << 8) | (b & 0xff000000u));
        }
    } else if (nc == 3) {
        for (; y != end; x += 12, y += 4) {
            const uint32_t a = mote_perm_ld32(x), b = mote_perm_ld32(x + 4);
            const uint32_t d = mote_perm_ld32(x + 8);
            mote_perm_st32(y, (a & 0xffu) | ((a >> 16) & 0xff00u) | (b & 0xff0000u) |
                                  ((d & 0xff00u) << 16));
            mote_perm_st32(y + rows, ((a >> 8) & 0xffu) | ((b & 0xffu) << 8) |
                                         ((b >> 8) & 0xff0000u) | ((d & 0xff0000u) << 8));
            mote_perm_st32(y + 2 * rows, ((a >> 16) & 0xffu) | (b & 0xff00u) |
                                             ((d & 0xffu) << 16) | (d & 0xff000000u));
        }
    } else {
        for (; y != end; x += 16, y += 4) {
            uint32_t t[4];
            MOTE_PERM_T4(mote_perm_ld32(x), mote_perm_ld32(x + 4), mote_perm_ld32(x + 8),
                         mote_perm_ld32(x + 12), t);
            mote_perm_st32(y, t[0]);
            mote_perm_st32(y + rows, t[1]);
            mote_perm_st32(y + 2 * rows, t[2]);
            mote_perm_st32(y + 3 * rows, t[3]);
        }
    }
}

/* Bytes, any shape: 4 x 4 blocks through registers (four word loads, a byte
   transpose, four word stores), the edges byte by byte. */
static void mote_perm_bytes_blocked(uint8_t *out, const uint8_t *in, size_t rows, size_t cols)
{
    size_t r, c;
    const size_t r4 = rows & ~(size_t)3, c4 = cols & ~(size_t)3;
    for (c = 0; c < c4; c += 4) {
        for (r = 0; r < r4; r += 4) {
            const uint8_t *x = in + r * cols + c;
            uint8_t *y = out + c * rows + r;
            uint32_t t[4];
            MOTE_PERM_T4(mote_perm_ld32(x), mote_perm_ld32(x + cols), mote_perm_ld32(x + 2 * cols),
                         mote_perm_ld32(x + 3 * cols), t);
            mote_perm_st32(y, t[0]);
            mote_perm_st32(y + rows, t[1]);
            mote_perm_st32(y + 2 * rows, t[2]);
            mote_perm_st32(y + 3 * rows, t[3]);
        }
    }
    for (c = 0; c < cols; c++) {
        for (r = c < c4 ? r4 : 0; r < rows; r++) {
            out[c * rows + r] = in[r * cols + c];
        }
    }
}

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
/* MVE (Cortex-M55): 16 columns of each of nr (2..4) rows a step, one contiguous load
   and one scatter store (byte offsets lane * nr) per row. Returns the columns done. */
static size_t mote_perm_interleave_mve(uint8_t *out, const uint8_t *in, size_t cols, size_t nr)
{
    const size_t n16 = cols & ~(size_t)15;
    const uint8x16_t off = vmulq_n_u8(vidupq_n_u8(0u, 1), (uint8_t)nr);
    size_t j, r;
    for (j = 0; j < n16; j += 16) {
        for (r = 0; r < nr; r++) {
            vstrbq_scatter_offset_u8(out + j * nr + r, off, vldrbq_u8(in + r * cols + j));
        }
    }
    return n16;
}

/* MVE: 16 rows of each of nc (2..4) columns a step, one gather load (offsets lane * nc)
   and one contiguous store per output row. Returns the rows done. */
static size_t mote_perm_deinterleave_mve(uint8_t *out, const uint8_t *in, size_t rows, size_t nc)
{
    const size_t n16 = rows & ~(size_t)15;
    const uint8x16_t off = vmulq_n_u8(vidupq_n_u8(0u, 1), (uint8_t)nc);
    size_t j, c;
    for (j = 0; j < n16; j += 16) {
        for (c = 0; c < nc; c++) {
            vstrbq_u8(out + c * rows + j, vldrbq_gather_offset_u8(in + j * nc + c, off));
        }
    }
    return n16;
}
#endif

/* One byte matrix: the word paths where they apply, the leftovers byte by byte. */
static void mote_perm_bytes(uint8_t *out, const uint8_t *in, size_t rows, size_t cols)
{
    size_t r, c, n4;
    if (rows >= 2 && rows <= 4) {
        size_t n0 = 0;
        n4 = cols & ~(size_t)3;
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
        n0 = mote_perm_interleave_mve(out, in, cols, rows);
#endif
        mote_perm_interleave(out + n0 * rows, in + n0, cols, n4 - n0, rows);
        for (c = n4; c < cols; c++) {
            for (r = 0; r < rows; r++) {
                out[c * rows + r] = in[r * cols + c];
            }
        }
    } else if (cols >= 2 && cols <= 4) {
        size_t n0 = 0;
        n4 = rows & ~(size_t)3;
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
        n0 = mote_perm_deinterleave_mve(out, in, rows, cols);
#endif
        mote_perm_deinterleave(out + n0, in + n0 * cols, rows, n4 - n0, cols);
        for (c = 0; c < cols; c++) {
            for (r = n4; r < rows; r++) {
                out[c * rows + r] = in[r * cols + c];
            }
        }
    } else {
        mote_perm_bytes_blocked(out, in, rows, cols);
    }
}

/* out[b][c][r] = in[b][r][c], elements of esz bytes: bytes by words (above); 2- and
   4-byte elements by typed copies, others by memcpy, in 16 x 16 tiles. */
static void mote_permute_transpose(uint8_t *out, const uint8_t *in, size_t esz, size_t batch,
                                   size_t rows, size_t cols)
{
    size_t b, r0, c0, r, c;
    for (b = 0; b < batch; b++) {
        const uint8_t *x = in + b * rows * cols * esz;
        uint8_t *y = out + b * rows * cols * esz;
        if (esz == 1) {
            mote_perm_bytes(y, x, rows, cols);
            continue;
        }
        for (r0 = 0; r0 < rows; r0 += 16) {
            const size_t r1 = rows - r0 < 16 ? rows : r0 + 16;
            for (c0 = 0; c0 < cols; c0 += 16) {
                const size_t c1 = cols - c0 < 16 ? cols : c0 + 16;
                for (c = c0; c < c1; c++) {
                    for (r = r0; r < r1; r++) {
                        if (esz == 4) {
                            memcpy(y + (c * rows + r) * 4, x + (r * cols + c) * 4, 4);
                        } else if (esz == 2) {
                            memcpy(y + (c * rows + r) * 2, x + (r * cols + c) * 2, 2);
                        } else {
                            memcpy(y + (c * rows + r) * esz, x + (r * cols + c) * esz, esz);
                        }
                    }
                }
            }
        }
    }
}

/*
 * The output walk (sizes sz, input strides st in elements, output order) reduced:
 * size-1 dims dropped, neighbours that are neighbours in the input too merged.
 * Returns the reduced rank; when the permutation is a batch of transposes of
 * blocks ([B, X, Y, T] -> [B, Y, X, T], B and T optional) sets *batch, *rows (X),
 * *cols (Y) and *block (T) and returns 0 there instead.
 */
static uint32_t mote_perm_reduce(uint32_t nd, size_t *sz, ptrdiff_t *st, size_t *batch,
                                 size_t *rows, size_t *cols, size_t *block)
{
    uint32_t i, k = 0;
    for (i = 0; i < nd; i++) {
        if (sz[i] == 1) {
            continue;
        }
        if (k > 0 && st[k - 1] == st[i] * (ptrdiff_t)sz[i]) {
            sz[k - 1] *= sz[i];
            st[k - 1] = st[i];
        } else {
            sz[k] = sz[i];
            st[k] = st[i];
            k++;
        }
    }
    *block = 1;
    i = k;
    if (i > 0 && st[i - 1] == 1) { /* a trailing block stays contiguous */
        *block = sz[i - 1];
        i--;
    }
    if (i == 0) { /* the identity (after merging): one contiguous block */
        *batch = *rows = *cols = 1;
        return 0;
    }
    if (i == 2 || i == 3) {
        const size_t t = *block;
        const size_t y = sz[i - 2], x = sz[i - 1]; /* out [.., Y, X], in [.., X, Y] */
        if (st[i - 2] == (ptrdiff_t)t && st[i - 1] == (ptrdiff_t)(y * t) &&
            (i == 2 || st[0] == (ptrdiff_t)(x * y * t))) {
            *batch = i == 3 ? sz[0] : 1;
            *rows = x;
            *cols = y;
            return 0;
        }
    }
    return k;
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
    {
        size_t batch, rows, cols, block;
        const size_t esz = mote_dtype_size(in->dtype);
        const uint32_t k = mote_perm_reduce(nd, sz, st, &batch, &rows, &cols, &block);
        if (in->numel == 0) {
            return MOTE_OK;
        }
        if (k == 0) { /* a batch of (block) transposes, or one contiguous block */
            if (rows == 1 && cols == 1) {
                memcpy(out->data, in->data, (size_t)in->numel * esz);
            } else {
                mote_permute_transpose((uint8_t *)out->data, (const uint8_t *)in->data,
                                       esz * block, batch, rows, cols);
            }
            return MOTE_OK;
        }
        nd = k;
    }
    mote_k_strided_copy(out->data, in->data, mote_dtype_size(in->dtype), nd, sz, st);
    return MOTE_OK;
}
