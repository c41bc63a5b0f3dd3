/*
 * kernels/upsample.h - shared argument parsing and index math of the 2-D
 * upsampling kernels (upsample_nearest2d.vec_out, upsample_bilinear2d.vec_out,
 * _upsample_bilinear2d_aa.out), following ATen's CPU formulas in float.
 * Internal.
 */
#ifndef MOTE_UPSAMPLE_H
#define MOTE_UPSAMPLE_H

#include "kutil.h"

/** Geometry of one 2-D upsampling call ([N, C, H, W] -> [N, C, OH, OW]). */
typedef struct mote_k_up2d {
    mote_tensor_t *in, *out;
    size_t nc, h, w, oh, ow;
    int has_sh, has_sw; /* scale given (used by the index math) */
    double sh, sw;      /* scale factors (output / input) when given */
} mote_k_up2d_t;

/**
 * Parse the .vec arguments: output_size `SymInt[]?` (2 items) and
 * scale_factors `float[]?` (2 items, > 0), exactly one of them given; with
 * scales the output size is floor(in * scale). Checks in/out rank 4 and out's
 * shape (dtypes are the caller's). KERNEL_ARGS / KERNEL_SHAPE.
 */
mote_err_t mote_k_up2d_vec(mote_k_up2d_t *g, const mote_value_t *input, const mote_value_t *osize,
                           const mote_value_t *scales, const mote_value_t *out);

/** ATen's compute_scales_value<float>: 1/scale when given, else in/out. */
float mote_k_up_scale(int has, double scale, size_t in, size_t out);

/** ATen's area_pixel_compute_scale<float> (align_corners: (in-1)/(out-1)). */
float mote_k_up_area_scale(int align_corners, int has, double scale, size_t in, size_t out);

/** ATen's nearest_idx: source index of output index i. */
size_t mote_k_up_nearest(size_t i, int has, double scale, size_t in, size_t out);

/** Linear interpolation source: i0, i1 (= i0 or i0 + 1) and weights l0, l1. */
void mote_k_up_linear(float scale, int align_corners, size_t i, size_t in, size_t *i0, size_t *i1,
                      float *l0, float *l1);

#endif /* MOTE_UPSAMPLE_H */
