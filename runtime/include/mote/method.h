/*
 * mote/method.h - initialising and running one method of a loaded program.
 *
 * All memory comes from the caller: mote_method_memory_requirements() reports
 * the exact bytes of runtime state and of each planned arena; the caller
 * passes buffers of (at least) those sizes in a mote_memory_t. Init verifies
 * the whole method once (values, tensors, constant data, memory plan,
 * instructions, operators against the kernel registry); execute then only
 * dispatches.
 *
 * Kernel arguments: ExecuTorch's KernelCall args are the schema arguments
 * followed by the return values (the out tensors again); the runtime drops
 * that trailing repetition (or the one TensorList of several outs), so a kernel gets exactly the schema's arguments
 * ("aten::add.out": self, other, alpha, out -> nargs 4).
 *
 * Memory ids: a planned tensor's allocation_info.memory_id m (1..N) lives in
 * arenas[m-1]; non_const_buffer_sizes[0] is ignored, as in ExecuTorch.
 *
 * Mutable buffers (state a model updates in forward: a frame history, running
 * statistics, a KV cache) are planned tensors that also have an initial value
 * in the program (ExecuTorch's layout: data_buffer_idx into
 * Program.mutable_data_segments). Init copies those values into the arena and
 * mote_method_reset_state copies them again; execute leaves them as the last
 * call wrote them. Mote's compiler plans them in memory id 2 (arenas[1]) and
 * everything else in memory id 1, so a caller may reuse arenas[0] between
 * calls but must keep arenas[1].
 *
 * Write proof: init refuses a method unless everything an instruction or the
 * caller can write is a tensor in planned memory (an arena, or an et_view of
 * one) of its own byte size, so no execute or set_input ever writes the
 * program or outside the caller's arenas:
 *   - every tensor input is not a constant           (MOTE_ERR_INPUT_NOT_WRITABLE);
 *   - every out argument of a kernel (its last n arguments, n from the
 *     registry: mote/kernel.h) is a tensor, or a tensor list, whose tensors
 *     are not constants                              (MOTE_ERR_OUTPUT_NOT_WRITABLE);
 *   - a MoveCall moves a value to one of the same tag (never a tensor list:
 *     MOTE_ERR_BAD_VALUE_TYPE); for tensors neither is a constant
 *     (MOTE_ERR_ALIAS_NOT_WRITABLE) and both have one dtype and byte size
 *     (MOTE_ERR_ALIAS_MISMATCH), so a value only ever names tensors of its
 *     own size;
 *   - an et_view's input and output are not constants and have one dtype and
 *     byte size (same codes), so a view never outgrows the storage it aliases;
 *   - a DelegateCall's trailing arguments that its backend writes (the count
 *     its init reports, mote/backend.h) are tensors that are not constants
 *     (MOTE_ERR_OUTPUT_NOT_WRITABLE), each of the size its payload declares.
 */
#ifndef MOTE_METHOD_H
#define MOTE_METHOD_H

#include "mote/backend.h"
#include "mote/kernel.h"
#include "mote/program.h"
#include "mote/trace.h"
#include "mote/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* MOTE_MAX_ARENAS (most planned arenas per method) is in mote/config.h. */
/** Alignment the caller gives every arena, bytes. */
#define MOTE_ARENA_ALIGN 16u
/** Alignment the caller gives the state buffer, bytes. */
#define MOTE_STATE_ALIGN 8u
/** Number of regions in the state buffer (see mote_method_state_counts). */
#define MOTE_STATE_REGIONS 6u

/** A caller buffer: pointer and size in bytes. */
typedef struct mote_buffer {
    void *ptr;
    size_t size;
} mote_buffer_t;

/** Exact memory a method needs (bytes). */
typedef struct mote_method_requirements {
    size_t state_size;                      /* runtime state (value table, tensors, lists, instructions);
                                               with a method image (mote_memory_t.image) none is used */
    size_t state_align;                     /* MOTE_STATE_ALIGN */
    uint32_t num_arenas;                    /* planned arenas (memory ids 1..num_arenas) */
    size_t arena_size[MOTE_MAX_ARENAS];     /* arena_size[i] for memory id i+1 */
    size_t arena_align;                     /* MOTE_ARENA_ALIGN */
} mote_method_requirements_t;

/** A kernel call's scratch planned in arena 1 (arenas[0]): bytes [offset, offset + size). */
typedef struct mote_scratch_slot {
    uint32_t instruction; /* instruction index (a kernel call) */
    uint32_t offset;      /* bytes from the start of arenas[0] */
    uint32_t size;        /* bytes */
} mote_scratch_slot_t;

/**
 * A method image: the runtime state of one method, as init would build it,
 * made ahead of time (`aot generate` writes it as const data, model_image.c,
 * for the embedding API's static arenas) so that it stays in flash and the
 * method needs no state buffer at all. Each table holds exactly as many
 * entries as mote_method_state_counts reports, in the state buffer's order:
 * values, tensors (constants pointing into the program, planned ones into
 * the caller's arenas), resolved int-list items, tensor-list pointers,
 * instructions and kernel argument pointers. Init trusts none of it: it
 * computes every entry from the program and the caller's memory exactly as
 * without an image and compares (MOTE_ERR_BAD_IMAGE on any difference), so
 * every constant's metadata is still verified at init. Init and execute
 * never write an image (it may sit in read-only memory): a program with
 * MoveCalls or DelegateCalls (which rewrite values or hold backend handles)
 * cannot have one (MOTE_ERR_UNSUPPORTED); an et_view's output carries its
 * input's storage in the image.
 */
typedef struct mote_method_image {
    const struct mote_value *values;
    const mote_tensor_t *tensors;
    const int64_t *ints;
    mote_tensor_t *const *tptrs;
    const struct mote_instr *instrs;
    struct mote_value *const *kargs;
    uint32_t counts[MOTE_STATE_REGIONS]; /* entries of each table, in the order above */
} mote_method_image_t;

/**
 * Memory for a method: state, arenas (arenas[i] = memory id i+1), kernel
 * scratch (may be empty; given to kernel calls without a slot), the
 * planned per-call scratch slots (may be NULL/0), the backend pool that
 * delegates allocate from (mote/backend.h; may be empty for a program
 * without DelegateCalls; 16-byte aligned) and the method's image (may be
 * NULL; with one the state buffer is not used and may be empty). Init
 * matches scratch slots listed in instruction order (as `aot generate` writes
 * them) to their calls in one pass; slots in another order cost a scan of
 * all of them per instruction.
 */
typedef struct mote_memory {
    mote_buffer_t state;
    mote_buffer_t arenas[MOTE_MAX_ARENAS];
    uint32_t num_arenas;
    mote_buffer_t scratch;
    const mote_scratch_slot_t *scratch_slots;
    uint32_t num_scratch_slots;
    mote_buffer_t backend;
    const mote_method_image_t *image;
} mote_memory_t;

/**
 * Instruction kinds: 1..5 are the program's InstructionArguments union tags;
 * MOTE_INSTR_VIEW is a KernelCall of executorch_prim::et_view, which the
 * runtime runs itself.
 */
typedef enum mote_instr_kind {
    MOTE_INSTR_KERNEL = 1,     /* KernelCall */
    MOTE_INSTR_DELEGATE = 2,   /* DelegateCall: a registry backend runs it (mote/backend.h) */
    MOTE_INSTR_MOVE = 3,       /* MoveCall */
    MOTE_INSTR_JUMP_FALSE = 4, /* JumpFalseCall */
    MOTE_INSTR_FREE = 5,       /* FreeCall (nothing to do: memory is planned) */
    MOTE_INSTR_VIEW = 6        /* et_view KernelCall */
} mote_instr_kind_t;

/** A resolved instruction (private). */
typedef struct mote_instr {
    uint8_t kind;         /* mote_instr_kind_t */
    uint32_t a;           /* kernel, delegate: nargs; move: from; jump: cond; view: in value */
    uint32_t b;           /* move: to; jump: destination; view: out value; delegate: registry index */
    uint32_t scratch_size; /* kernel: bytes of `scratch` */
    mote_kernel_fn_t fn;  /* kernel */
    mote_value_t *const *args; /* kernel, delegate: nargs value pointers in state */
    void *scratch;        /* kernel: planned scratch slot, or NULL (use the method's scratch);
                             delegate: the backend's handle */
} mote_instr_t;

/** An initialised method. Treat the fields as private. */
typedef struct mote_method {
    const mote_program_t *prog;
    mote_value_t *values;
    uint32_t num_values;
    mote_instr_t *instrs;
    uint32_t num_instrs;
    const int32_t *inputs;  /* value indices, in the program */
    uint32_t num_inputs;
    const int32_t *outputs;
    uint32_t num_outputs;
    mote_buffer_t scratch;
    int32_t failed_op;      /* operator index that had no kernel, or -1 */
    int32_t failed_instr;   /* instruction index of the last failure, or -1 */
    /* mote/trace.h's tracer, or NULL. Present in every build so that code
     * compiled with and without MOTE_TRACE agrees on this struct; only
     * MOTE_TRACE builds have code that reads it. */
    struct mote_tracer *tracer;
    uint32_t method_index;  /* the program's execution plan */
    mote_pool_t pool;       /* mote_memory_t.backend: what delegates allocate from */
    const mote_method_image_t *image; /* mote_memory_t.image: the state in read-only memory, or NULL */
    mote_tensor_t *const *const_lists; /* tensor-list items from here on: lists naming a constant tensor */
    uint32_t magic;
} mote_method_t;

/**
 * Exact memory for method `method_index`. Verifies the method's structure
 * while counting. Errors: NOT_INITIALIZED, NO_SUCH_METHOD, INVALID_ARGUMENT,
 * UNSUPPORTED (more than MOTE_MAX_ARENAS arenas, several chains), file errors.
 */
MOTE_NODISCARD mote_err_t mote_method_memory_requirements(const mote_program_t *prog, uint32_t method_index,
                                                          mote_method_requirements_t *out);

/**
 * Initialises and verifies the method. `mem` must hold a state buffer of at
 * least requirements.state_size bytes aligned to MOTE_STATE_ALIGN and the
 * num_arenas arenas, each at least arena_size[i] and aligned to
 * MOTE_ARENA_ALIGN. Errors: MEMORY_TOO_SMALL, MEMORY_ALIGNMENT, file errors
 * (BAD_*, DATA_TOO_SHORT, SIZE_OVERFLOW, UNSUPPORTED), the write proof's
 * INPUT_NOT_WRITABLE, OUTPUT_NOT_WRITABLE, ALIAS_NOT_WRITABLE, ALIAS_MISMATCH
 * (see above; mote_method_failed_instruction names the instruction),
 * BACKWARD_JUMP (a JumpFalseCall whose destination is not after it: see
 * mote_method_execute's bound),
 * OP_NOT_FOUND (see mote_method_failed_operator), NO_SUCH_BACKEND, a backend's
 * BACKEND_PAYLOAD / BACKEND_MEMORY / KERNEL_* (mote/backend.h),
 * BAD_SCRATCH_PLAN (a scratch slot names no kernel call, lies outside arenas[0]
 * or is the second for its call), BAD_IMAGE (mem->image differs from what
 * init computes), UNSUPPORTED (an image for a method with MoveCalls or
 * DelegateCalls; kernel calls repeating long tensor lists, whose return lists
 * would need more comparisons than the method's lists hold items).
 */
MOTE_NODISCARD mote_err_t mote_method_init(mote_method_t *m, const mote_program_t *prog, uint32_t method_index,
                                           const mote_memory_t *mem);

/**
 * Runs the instructions once. Bound: init accepts only forward jumps (a
 * JumpFalseCall at instruction i jumps to d with i < d <= num_instrs, else
 * MOTE_ERR_BACKWARD_JUMP), so the program counter only grows and one call
 * runs at most num_instrs instructions (each kernel or delegate call at most
 * once). Errors: NOT_INITIALIZED, a kernel's MOTE_ERR_KERNEL_*,
 * BAD_VALUE_TYPE (jump condition not a bool), JUMP_OUT_OF_RANGE.
 */
MOTE_NODISCARD mote_err_t mote_method_execute(mote_method_t *m);

/**
 * Sets every mutable buffer of the method (model state that persists across
 * execute calls: planned tensors with an initial value in the program) back
 * to its initial value, as init does. Methods that share those buffers' arena
 * see the reset too. Errors: NOT_INITIALIZED, file errors.
 */
MOTE_NODISCARD mote_err_t mote_method_reset_state(mote_method_t *m);

/**
 * Entry counts of the state buffer's regions, in layout order: values
 * (mote_value_t), tensors (mote_tensor_t), resolved int-list items (int64_t),
 * tensor-list pointers (mote_tensor_t *), instructions (mote_instr_t) and
 * kernel argument pointers (mote_value_t *). The state size on any ABI is the
 * sum over regions of count * sizeof(entry) rounded up to 8 bytes, which is
 * how `aot build` computes a Cortex-M target's exact state bytes on a 64-bit
 * host. Errors: as mote_method_memory_requirements.
 */
MOTE_NODISCARD mote_err_t mote_method_state_counts(const mote_program_t *prog, uint32_t method_index,
                                                   uint64_t counts[MOTE_STATE_REGIONS]);

/**
 * Releases what the method's delegates hold in the libraries behind their
 * backends (their memory is the caller's backend pool). Call before the
 * method's memory is reused; a method without delegates needs no call.
 * The method is not initialised afterwards.
 */
void mote_method_destroy(mote_method_t *m);

/** Bytes of the backend pool the method's delegates have taken at most (its high water mark). */
size_t mote_method_backend_pool_used(const mote_method_t *m);

/**
 * The first operator of method `method_index` that no kernel of this build's
 * registry implements (executorch_prim::et_view, which the runtime runs
 * itself, needs none): *op_index, or -1 when every one has a kernel. Reads
 * the program only (no state, no memory): a firmware checks a program that
 * arrived after it was built (mote/slot.h) before initialising anything;
 * mote_program_operator_name names it. Errors: NOT_INITIALIZED,
 * NO_SUCH_METHOD, INVALID_ARGUMENT, BAD_INSTRUCTION (an operator without a
 * name), file errors.
 */
MOTE_NODISCARD mote_err_t mote_method_missing_operator(const mote_program_t *prog, uint32_t method_index,
                                                       int32_t *op_index);

/** Operator index whose kernel was missing at the last init, or -1. */
int32_t mote_method_failed_operator(const mote_method_t *m);
/** Instruction index of the last init/execute failure, or -1. */
int32_t mote_method_failed_instruction(const mote_method_t *m);

/** Number of inputs / outputs (0 if not initialised). */
uint32_t mote_method_num_inputs(const mote_method_t *m);
uint32_t mote_method_num_outputs(const mote_method_t *m);

/** Input/output value `i` (any tag). Errors: NOT_INITIALIZED, INPUT_INDEX. */
MOTE_NODISCARD mote_err_t mote_method_input_value(const mote_method_t *m, uint32_t i, const mote_value_t **v);
MOTE_NODISCARD mote_err_t mote_method_output_value(const mote_method_t *m, uint32_t i, const mote_value_t **v);

/**
 * Value `index` of the method's value table (the program's value indices, as
 * in its instructions; any tag). For a debugger reading an instruction's
 * outputs from a mote_trace_fn_t. Errors: NOT_INITIALIZED, BAD_INDEX.
 */
MOTE_NODISCARD mote_err_t mote_method_value(const mote_method_t *m, uint32_t index, const mote_value_t **v);

/** Tensor metadata of input `i` (dtype, sizes, nbytes). Errors: as above, BAD_VALUE_TYPE (not a tensor). */
MOTE_NODISCARD mote_err_t mote_method_input_tensor(const mote_method_t *m, uint32_t i, const mote_tensor_t **t);

/**
 * Copies `nbytes` bytes of `data` into tensor input `i`. Errors: NOT_INITIALIZED,
 * INVALID_ARGUMENT, INPUT_INDEX, BAD_VALUE_TYPE, INPUT_SHAPE (nbytes differs).
 */
MOTE_NODISCARD mote_err_t mote_method_set_input(mote_method_t *m, uint32_t i, const void *data, size_t nbytes);

/**
 * As mote_method_set_input, also checking the caller's dtype (INPUT_DTYPE) and
 * `dim` sizes (INPUT_SHAPE) against the program's.
 */
MOTE_NODISCARD mote_err_t mote_method_set_input_checked(mote_method_t *m, uint32_t i, uint8_t dtype,
                                                        const int64_t *sizes, uint32_t dim, const void *data,
                                                        size_t nbytes);

/** Output tensor `i` (valid until the next execute). Errors: NOT_INITIALIZED, INPUT_INDEX, BAD_VALUE_TYPE. */
MOTE_NODISCARD mote_err_t mote_method_get_output(const mote_method_t *m, uint32_t i, const mote_tensor_t **t);

/** Name of an error code ("MOTE_ERR_TRUNCATED"), or "MOTE_ERR_UNKNOWN" (runtime/src/err.c; the link keeps it only when called). */
const char *mote_err_name(mote_err_t err);

#ifdef __cplusplus
}
#endif
#endif /* MOTE_METHOD_H */
