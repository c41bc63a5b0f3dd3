/*
 * kernels/pool.h - window geometry shared by the 2-D pooling kernels. Internal.
 */
#ifndef MOTE_POOL_H
#define MOTE_POOL_H

#include "kutil.h"

typedef struct mote_pool_geom {
    size_t planes, h, w, oh, ow; /* planes = N*C (or C) */
    ptrdiff_t kh, kw, sh, sw, ph, pw, dh, dw;
} mote_pool_geom_t;

/**
 * Parse kernel_size/stride/padding/dilation (dilation value may be NULL:
 * 1) and ceil_mode of a pooling op on `in` ([C, H, W] or [N, C, H, W]) and
 * check `out` has the pooled shape. Padding must be at most half the kernel.
 */
mote_err_t mote_pool_geom(const mote_tensor_t *in, const mote_value_t *ks, const mote_value_t *st,
                          const mote_value_t *pd, const mote_value_t *dl, int ceil_mode,
                          const mote_tensor_t *out, mote_pool_geom_t *g);

#endif /* MOTE_POOL_H */
