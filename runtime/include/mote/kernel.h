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
 * The registry this build links: generated from the kernels compiled in
 * (all of kernels/ for the host library, ops.json for firmware).
 */
extern const mote_kernel_entry_t mote_kernel_registry[];
extern const uint32_t mote_kernel_registry_len;

#ifdef __cplusplus
}
#endif
#endif /* MOTE_KERNEL_H */
