/*
 * mote/kernel.h - the kernel ABI: how the execute loop calls an operator.
 *
 * A kernel implements one operator overload in ExecuTorch's out-variant
 * convention ("aten::addmm.out": the arguments in the schema's order, the
 * out tensor(s) last). The runtime passes pointers to the values named by the
 * KernelCall's `args`; kernels check argument count, tags, dtypes and shapes
 * first (returning MOTE_ERR_KERNEL_*), then run the loop. Kernels never
 * allocate; working memory comes from ctx->scratch.
 *
 * Kernel symbols are named mote_kernel_<namespace>_<name>_<overload>, e.g.
 * mote_kernel_aten_addmm_out for "aten::addmm.out". Each kernel source file
 * carries one marker line `MOTE_KERNEL("aten::addmm.out")` (see
 * MOTE_KERNEL below) that the registry generator reads.
 *
 * Out arguments: a kernel writes only its last argument (the schema's
 * `Tensor(a!) out`), or, when its file also carries
 * `MOTE_KERNEL_OUTPUTS("aten::max_pool2d_with_indices.out", 2)`, its last n
 * arguments. These markers are the only description of what a kernel writes:
 * the generator turns them into mote_kernel_registry_outputs[], and init
 * proves every such argument is writable planned memory (mote/method.h).
 */
#ifndef MOTE_KERNEL_H
#define MOTE_KERNEL_H

#include "mote/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Per-call context. scratch is planned AOT inside the arena (may be NULL/0). */
typedef struct mote_kernel_ctx {
    void *scratch;
    size_t scratch_size; /* bytes */
} mote_kernel_ctx_t;

/**
 * A kernel: args[0..nargs-1] are the KernelCall's values, outputs last.
 * nargs is the schema's argument count: the runtime drops the return values
 * ExecuTorch appends to a KernelCall (the out tensors repeated, or one
 * TensorList of them) before calling the kernel.
 */
typedef mote_err_t (*mote_kernel_fn_t)(mote_kernel_ctx_t *ctx, mote_value_t *const *args,
                                       uint32_t nargs);

/** One registry entry: operator "name.overload" and its kernel. */
typedef struct mote_kernel_entry {
    const char *name;
    mote_kernel_fn_t fn;
} mote_kernel_entry_t;

/** Marker for the registry generator; expands to nothing. */
#define MOTE_KERNEL(op_name)

/**
 * Marker: the kernel of `op_name` writes its last `n` arguments (2..
 * MOTE_MAX_KERNEL_OUTPUTS; without this marker, 1: the last argument).
 * Read by the registry generator; expands to nothing.
 */
#define MOTE_KERNEL_OUTPUTS(op_name, n)

/**
 * Marker: the kernel of `op_name` may run in place, its out tensor at exactly
 * the bytes of its first input (every out element depends only on the input
 * elements at the same index, read before written). The AOT planner reads it
 * (aot/compiler/kernels.py) to reuse an input that dies at the call.
 */
#define MOTE_KERNEL_IN_PLACE(op_name)

/**
 * Marker: the kernel of `op_name` (a window op over NHWC rows) may run with its
 * out tensor starting at the first byte of its first input, the two of any
 * sizes, when mote_s8_rows_lag() (kernels/requant.h) allows it and the
 * instruction's scratch holds the row ring after the kernel's own part
 * (mote_s8_rows_ring_bytes). The AOT planner reads it (aot/compiler/kernels.py).
 */
#define MOTE_KERNEL_IN_PLACE_ROWS(op_name)

/**
 * The registry this build links: generated from the kernels compiled in
 * (all of kernels/ for the host library, ops.json for firmware).
 * mote_kernel_registry_outputs[i] is how many trailing arguments entry i's
 * kernel writes (1..MOTE_MAX_KERNEL_OUTPUTS, from the markers above); init
 * refuses an entry outside that range (MOTE_ERR_OP_NOT_FOUND). Both arrays
 * hold mote_kernel_registry_len entries.
 */
extern const mote_kernel_entry_t mote_kernel_registry[];
extern const uint8_t mote_kernel_registry_outputs[];
extern const uint32_t mote_kernel_registry_len;

#ifdef __cplusplus
}
#endif
#endif /* MOTE_KERNEL_H */
