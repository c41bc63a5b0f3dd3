/*
 * mote/config.h - the runtime's build-time limits and the .pte format version.
 *
 * Every limit is #ifndef-guarded: override it for the whole build with
 * -DNAME=value (runtime, kernels and application must agree, since
 * MOTE_MAX_ARENAS sizes public structs). The defaults fit every zoo model.
 * Included by mote/types.h, so every public header sees the same values.
 */
#ifndef MOTE_CONFIG_H
#define MOTE_CONFIG_H

/** Largest tensor rank accepted (ExecuTorch's portable limit is 16). 1..32. */
#ifndef MOTE_MAX_DIM
#define MOTE_MAX_DIM 8
#endif

/** Most planned arenas (memory ids 1..MOTE_MAX_ARENAS) one method may use; sizes mote_memory_t. */
#ifndef MOTE_MAX_ARENAS
#define MOTE_MAX_ARENAS 4u
#endif

/**
 * Most out arguments one kernel call may have: ExecuTorch appends the out
 * tensors again as return values, and runs of up to this many are recognised
 * and dropped (see mote/method.h).
 */
#ifndef MOTE_MAX_KERNEL_OUTPUTS
#define MOTE_MAX_KERNEL_OUTPUTS 4u
#endif

/**
 * Largest program file, flatbuffer, arena, state buffer and element count,
 * in bytes (or elements). Positions are 32-bit and sizes signed in the file,
 * so at most 2^31 - 1.
 */
#ifndef MOTE_MAX_BYTES
#define MOTE_MAX_BYTES 0x7fffffffu
#endif

/**
 * Longest named-data key, bytes: a .ptd entry's key (mote_data_map_load
 * refuses a longer one: MOTE_ERR_UNSUPPORTED) and a program's named_data key
 * (mote_program_set_named_index likewise). Bounds the bytes one key
 * comparison reads, so ordering and lookups stay O(n log n) however a file
 * shares its strings; a longer key looked up is in no map. ExecuTorch's keys
 * are module paths and 64-digit content hashes; Mote's are 37 bytes.
 */
#ifndef MOTE_MAX_KEY_BYTES
#define MOTE_MAX_KEY_BYTES 1024u
#endif

/** Longest "eh00" extended header accepted, bytes (ExecuTorch writes 32, Mote 40). */
#ifndef MOTE_MAX_HEADER_BYTES
#define MOTE_MAX_HEADER_BYTES 256u
#endif

/*
 * Runtime features a build may leave out (1: compiled in, the default; 0:
 * out, for flash). `aot build` / `aot generate` set each from the program,
 * so a firmware carries only what its model uses:
 *   MOTE_RUNTIME_DELEGATES  DelegateCalls (mote/backend.h). 0: a DelegateCall
 *                           is MOTE_ERR_NO_SUCH_BACKEND, as with an empty registry.
 *   MOTE_RUNTIME_MUTABLE    mutable buffers (planned tensors with an initial
 *                           value in the program). 0: such a tensor is MOTE_ERR_UNSUPPORTED.
 *   MOTE_RUNTIME_EXTERNAL   external tensors in an attached .ptd (mote/data_map.h).
 *                           0: an external tensor is MOTE_ERR_EXTERNAL_MISSING.
 *   MOTE_RUNTIME_TENSOR_LISTS  TensorList / OptionalTensorList values (cat, stack,
 *                           split outputs). 0: such a value is MOTE_ERR_UNSUPPORTED.
 *   MOTE_RUNTIME_DOUBLES    Double and DoubleList values. 0: MOTE_ERR_UNSUPPORTED.
 *   MOTE_RUNTIME_STRINGS    String values. 0: MOTE_ERR_UNSUPPORTED.
 *   MOTE_RUNTIME_BOOL_LISTS BoolList values. 0: MOTE_ERR_UNSUPPORTED.
 *   MOTE_RUNTIME_CONTROL    MoveCall, JumpFalseCall and FreeCall instructions (Mote's
 *                           compiler emits none). 0: such an instruction is
 *                           MOTE_ERR_UNSUPPORTED. Jumps go forward only (a
 *                           backward one, a loop, is MOTE_ERR_BACKWARD_JUMP at
 *                           init), so execute runs at most num_instrs
 *                           instructions per call (mote/method.h).
 *   MOTE_RUNTIME_STATE      init into the caller's state buffer (mote_memory_t.state).
 *                           0: only with a method image (mote_memory_t.image; `aot
 *                           build` firmware whose methods all have one); init
 *                           without is MOTE_ERR_UNSUPPORTED.
 */
#ifndef MOTE_RUNTIME_DELEGATES
#define MOTE_RUNTIME_DELEGATES 1
#endif
#ifndef MOTE_RUNTIME_MUTABLE
#define MOTE_RUNTIME_MUTABLE 1
#endif
#ifndef MOTE_RUNTIME_EXTERNAL
#define MOTE_RUNTIME_EXTERNAL 1
#endif
#ifndef MOTE_RUNTIME_TENSOR_LISTS
#define MOTE_RUNTIME_TENSOR_LISTS 1
#endif
#ifndef MOTE_RUNTIME_DOUBLES
#define MOTE_RUNTIME_DOUBLES 1
#endif
#ifndef MOTE_RUNTIME_STRINGS
#define MOTE_RUNTIME_STRINGS 1
#endif
#ifndef MOTE_RUNTIME_BOOL_LISTS
#define MOTE_RUNTIME_BOOL_LISTS 1
#endif
#ifndef MOTE_RUNTIME_CONTROL
#define MOTE_RUNTIME_CONTROL 1
#endif
#ifndef MOTE_RUNTIME_STATE
#define MOTE_RUNTIME_STATE 1
#endif

#if MOTE_MAX_DIM < 1 || MOTE_MAX_DIM > 32
#error "MOTE_MAX_DIM must be 1..32 (dim_order is checked with a 32-bit mask)"
#endif
#if MOTE_MAX_ARENAS < 1
#error "MOTE_MAX_ARENAS must be at least 1"
#endif
#if MOTE_MAX_KERNEL_OUTPUTS < 1 || MOTE_MAX_KERNEL_OUTPUTS > 255
#error "MOTE_MAX_KERNEL_OUTPUTS must be 1..255"
#endif
#if MOTE_MAX_BYTES > 0x7fffffff || MOTE_MAX_BYTES < 64
#error "MOTE_MAX_BYTES must be 64..0x7fffffff"
#endif
#if MOTE_MAX_KEY_BYTES < 64 || MOTE_MAX_KEY_BYTES > 0x7fffffff
#error "MOTE_MAX_KEY_BYTES must be 64..0x7fffffff (content-hash keys are 64 bytes)"
#endif
#if MOTE_MAX_HEADER_BYTES < 40
#error "MOTE_MAX_HEADER_BYTES must be at least 40 (Mote's stamped eh00 header)"
#endif

/*
 * The .pte format version this runtime reads (not a limit: never override).
 * The compiler stamps it into the "eh00" extended header (see mote/program.h);
 * mote_program_load accepts unstamped files (version 0: ExecuTorch's own) and
 * versions 1..MOTE_PTE_FORMAT_VERSION, and refuses newer ones with
 * MOTE_ERR_FORMAT_VERSION. Bump it whenever the compiler starts writing
 * something an older runtime would misread. The Python side reads this line.
 */
#define MOTE_PTE_FORMAT_VERSION 1

#endif /* MOTE_CONFIG_H */
