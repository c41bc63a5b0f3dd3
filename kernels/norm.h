/*
 * kernels/norm.h - shared engine of the normalization and distance kernels
 * of the reduce family: native_layer_norm, native_group_norm, the two
 * training-mode batch norms (_native_batch_norm_legit .out / .no_stats_out),
 * _cdist_forward and _pdist_forward. Internal.
 */
#ifndef MOTE_NORM_H
#define MOTE_NORM_H

#include "kutil.h"

/**
 * Mean and biased variance (two passes, float, chunked sums: about as
 * accurate as torch's cascade) of `blocks` runs of `len` contiguous floats
 * starting `stride` floats apart. No elements: mean and var NaN.
 */
void mote_norm_moments_f32(const float *x, size_t blocks, size_t len, size_t stride, float *mean,
                           float *var);

/** y[i] = (x[i] - mean) * scale + shift for i < n (y may alias x exactly). */
void mote_norm_affine_f32(const float *x, float *y, size_t n, float mean, float scale, float shift);

/**
 * The whole of _native_batch_norm_legit.no_stats_out (args input, weight?,
 * bias?, training (must be true), momentum (unused), eps, out, save_mean,
 * save_invstd): batch statistics per channel (dim 1) normalize the input;
 * save_mean / save_invstd [C] receive them. (The .out overload with running
 * statistics is left out: it writes arguments that are not outs.)
 */
mote_err_t mote_norm_batch_no_stats(mote_value_t *const *args, uint32_t nargs);

/**
 * p-norm distance of two float32 vectors of length m: p = 0 counts the
 * differing elements, p = inf takes the largest |difference|, else
 * (sum |a-b|^p)^(1/p) (1 and 2 without powf).
 */
float mote_norm_dist_f32(const float *a, const float *b, size_t m, double p);

#endif /* MOTE_NORM_H */
