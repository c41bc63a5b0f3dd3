/*
 * kernels/index.h - shared logic of the "index" family (gather/scatter,
 * index.Tensor / index_put, embedding, index_select, the *_scatter copies).
 * Internal. Every index read is bounds-checked: an index outside
 * [-size, size) is MOTE_ERR_KERNEL_ARGS, never a read or write outside the
 * tensors the caller gave.
 */
#ifndef MOTE_INDEX_H
#define MOTE_INDEX_H

#include "kutil.h"

/** True for an index dtype (int32 or int64). */
int mote_k_idx_dtype(uint8_t dtype);

/** Element i of an int32/int64 tensor (dtype checked by the caller). */
int64_t mote_k_idx_get(const mote_tensor_t *t, size_t i);

/**
 * Check index v against a dim of size n: [0, n), or with `neg` also [-n, 0)
 * counting from the end (index / index_put do, gather / scatter /
 * index_select / embedding do not). MOTE_ERR_KERNEL_ARGS outside.
 */
mote_err_t mote_k_idx_wrap(int64_t v, int64_t n, int neg, size_t *out);

/** Scalar `v` stored as one element of `dtype` at buf (8 bytes); KERNEL_DTYPE / KERNEL_ARGS. */
mote_err_t mote_k_scalar_store(uint8_t dtype, double v, void *buf);

/** dst += src for one element of dtype (fp32, fp64, int8..int64 wrapping); 0 if unsupported. */
int mote_k_acc_dtype(uint8_t dtype);
void mote_k_acc(uint8_t dtype, void *dst, const void *src);

typedef enum mote_sg_mode {
    MOTE_SG_GATHER,       /* out = self[..index..] (out shaped like index) */
    MOTE_SG_SCATTER,      /* out = self; out[..index..] = src */
    MOTE_SG_SCATTER_VAL,  /* out = self; out[..index..] = value */
    MOTE_SG_SCATTER_ADD   /* out = self; out[..index..] += src */
} mote_sg_mode_t;

/**
 * gather / scatter / scatter_add engine. self and out contiguous of the same
 * dtype; index int64 (or int32) of self's rank (or both 0-d); src (modes
 * SCATTER, SCATTER_ADD) of self's dtype with index.size(d) <= src.size(d);
 * value (SCATTER_VAL) one element of out's dtype. Checks dtypes and shapes
 * (index.size(d) <= self.size(d) for d != dim; gather: out shape == index
 * shape; scatter: out shape == self shape) and every index value.
 */
mote_err_t mote_k_scatter_gather(mote_sg_mode_t mode, const mote_tensor_t *self, int64_t dim,
                                 const mote_tensor_t *index, const mote_tensor_t *src,
                                 const void *value, mote_tensor_t *out);

/**
 * The whole of scatter.src_out / scatter_add.out (mode SCATTER / SCATTER_ADD):
 * args (5) self, dim int, index, src, out, parsed (KERNEL_ARGS) and handed to
 * mote_k_scatter_gather.
 */
mote_err_t mote_k_scatter_src(mote_sg_mode_t mode, mote_value_t *const *args, uint32_t nargs);

/**
 * Geometry of advanced indexing self[indices] (Tensor?[] indices: None items
 * keep a dim; int32/int64 tensors broadcast together; a bool/uint8 mask of k
 * dims stands for its k nonzero() coordinate vectors). Result shape as torch:
 * the broadcast index dims replace the indexed dims when those are adjacent,
 * else they come first.
 */
typedef struct mote_k_adv {
    const mote_tensor_t *self;
    const mote_tensor_t *idx[MOTE_MAX_DIM]; /* per self dim: index tensor, or NULL */
    uint8_t comp[MOTE_MAX_DIM];             /* mask: which mask dim this self dim is */
    uint8_t mask[MOTE_MAX_DIM];             /* 1 if idx[d] is a bool/uint8 mask */
    size_t nnz[MOTE_MAX_DIM];               /* mask: number of true elements */
    size_t cache_p[MOTE_MAX_DIM];           /* mask: last p-th true element looked up ... */
    size_t cache_l[MOTE_MAX_DIM];           /* ... and its linear position */
    uint32_t bdim;                          /* broadcast index rank */
    size_t bsz[MOTE_MAX_DIM];               /* broadcast index shape */
    uint32_t bpos;                          /* first result dim of the broadcast dims */
    uint32_t rdim;                          /* result rank */
    size_t rsz[MOTE_MAX_DIM];               /* result shape */
    uint8_t rsrc[MOTE_MAX_DIM];             /* result dim -> self dim, 0xFF = broadcast */
    uint8_t rpos[MOTE_MAX_DIM];             /* self dim (not indexed) -> result dim */
    size_t rnumel;
} mote_k_adv_t;

/** Parse (self, Tensor?[] value) into g; KERNEL_ARGS / KERNEL_DTYPE / KERNEL_SHAPE. */
mote_err_t mote_k_adv_init(mote_k_adv_t *g, const mote_tensor_t *self, const mote_value_t *indices);

/**
 * Element offset in self of the result element at coordinates rc[0..rdim-1]
 * (bounds-checked: KERNEL_ARGS for an index out of range).
 */
mote_err_t mote_k_adv_offset(mote_k_adv_t *g, const size_t *rc, size_t *off);

/**
 * index_put: args[0..3] = self, indices Tensor?[], values (broadcastable to
 * self[indices]'s shape), accumulate bool; args[out_arg] = out (self's shape,
 * may be self itself). out = self, then out[indices] = values (+= with
 * accumulate: fp32/fp64/integers, wrapping). Argument count is the caller's.
 */
mote_err_t mote_k_index_put(mote_value_t *const *args, uint32_t out_arg);

/** Advance the coordinate counter c over sizes sz[0..rank-1] (row-major). */
void mote_k_coord_next(size_t *c, const size_t *sz, uint32_t rank);

#endif /* MOTE_INDEX_H */
