/*
 * xnnpack_shapes.h - the XNNPACK backend's shape proof (internal).
 *
 * XNNPACK sizes every value from the dims a payload declares and computes
 * each operator's output size from its input and parameters; a payload whose
 * two disagree would let an operator write past a value (an argument, in
 * the caller's arena). Before a node is defined, these checks prove the
 * declared output dims are exactly what the operator produces (NHWC for 4-D
 * tensors, formulas of XNNPACK's 2022 operators). Each returns MOTE_OK or
 * MOTE_ERR_BACKEND_PAYLOAD.
 */
#ifndef MOTE_XNNPACK_SHAPES_H
#define MOTE_XNNPACK_SHAPES_H

#include "mote/types.h"

#define XN_MAX_DIMS 6u

/** A value's declared dims. */
typedef struct xnn_dims {
    uint32_t n;
    uint32_t d[XN_MAX_DIMS];
} xnn_dims_t;

/** Element count (0 on overflow past 2^32 - 1, which no tensor here reaches). */
uint64_t xnn_numel(const xnn_dims_t *a);

/**
 * 2-D convolution (depthwise: filter [1, KH, KW, C*M]; else OHWI
 * [Cout, KH, KW, Cin/groups]); f: the node's 15 parameters (paddings t r b l,
 * kernel h w, subsampling h w, dilation h w, group input channels, group
 * output channels, groups, adjustments h w); bias NULL or [Cout].
 */
MOTE_NODISCARD mote_err_t xnn_check_conv(const xnn_dims_t *in, const xnn_dims_t *filt, const xnn_dims_t *bias,
                                         const xnn_dims_t *out, const uint32_t f[15], bool depthwise);

/** Max / average pooling: f = paddings t r b l, pooling h w, stride h w, dilation h w. */
MOTE_NODISCARD mote_err_t xnn_check_pool(const xnn_dims_t *in, const xnn_dims_t *out, const uint32_t f[10]);

/** Global average pooling: in [N, H, W, C], out N*C elements. */
MOTE_NODISCARD mote_err_t xnn_check_global_pool(const xnn_dims_t *in, const xnn_dims_t *out);

/** Fully connected: filter [OC, IC] ([IC, OC] when transposed), bias NULL or [OC], out rows*OC elements. */
MOTE_NODISCARD mote_err_t xnn_check_fc(const xnn_dims_t *in, const xnn_dims_t *filt, const xnn_dims_t *bias,
                                       const xnn_dims_t *out, bool transposed);

/** Elementwise of two inputs: out is their (numpy) broadcast shape. */
MOTE_NODISCARD mote_err_t xnn_check_broadcast(const xnn_dims_t *a, const xnn_dims_t *b, const xnn_dims_t *out);

/** Elementwise of one input (and softmax): out has in's dims. */
MOTE_NODISCARD mote_err_t xnn_check_same(const xnn_dims_t *in, const xnn_dims_t *out);

/** Reshape: out (and the node's new shape, if given) has in's element count. */
MOTE_NODISCARD mote_err_t xnn_check_numel(const xnn_dims_t *in, const xnn_dims_t *out);

#endif /* MOTE_XNNPACK_SHAPES_H */
