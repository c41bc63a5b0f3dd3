/*
 * mote/types.h - core types shared by the runtime, the kernels and the ports.
 *
 * C99, freestanding headers only. Every status-returning function returns a
 * mote_err_t: 0 is success, negative codes are grouped by kind (hundreds).
 * Scalar type codes are ExecuTorch's ScalarType values (program schema,
 * "scalar_type.fbs"), so a .pte tensor's scalar_type maps without a table.
 */
#ifndef MOTE_TYPES_H
#define MOTE_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mote/config.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define MOTE_NODISCARD __attribute__((warn_unused_result))
#else
#define MOTE_NODISCARD
#endif

/**
 * Error propagation, the one style of the runtime and the kernels: evaluate
 * a mote_err_t expression and return it from the calling function unless it
 * is MOTE_OK (MOTE_TRY), or return `err` unless `cond` holds (MOTE_CHECK).
 */
#define MOTE_TRY(expr)                           \
    do {                                         \
        const mote_err_t mote_try_err_ = (expr); \
        if (mote_try_err_ != MOTE_OK) {          \
            return mote_try_err_;                \
        }                                        \
    } while (0)
#define MOTE_CHECK(cond, err) \
    do {                      \
        if (!(cond)) {        \
            return (err);     \
        }                     \
    } while (0)

/** Status codes. 0 = OK; negative values grouped by kind. */
typedef enum mote_err {
    MOTE_OK = 0,

    /* -1xx: the caller passed something wrong */
    MOTE_ERR_INVALID_ARGUMENT = -100, /* NULL pointer or out-of-range argument */
    MOTE_ERR_MEMORY_TOO_SMALL = -101, /* a caller buffer is smaller than required */
    MOTE_ERR_MEMORY_ALIGNMENT = -102, /* a caller buffer is misaligned */
    MOTE_ERR_INPUT_INDEX = -103,      /* no such method input/output */
    MOTE_ERR_INPUT_DTYPE = -104,      /* input dtype differs from the program's */
    MOTE_ERR_INPUT_SHAPE = -105,      /* input shape or byte size differs */
    MOTE_ERR_NO_SUCH_METHOD = -106,   /* method name/index not in the program */
    MOTE_ERR_NOT_INITIALIZED = -107,  /* object used before a successful load/init */
    MOTE_ERR_BAD_SCRATCH_PLAN = -108, /* scratch slot on a non-kernel instruction or outside arena 1 */
    MOTE_ERR_BAD_IMAGE = -109,        /* a method image (mote/method.h) differs from the program's state */

    /* -2xx: the program file is malformed (loader/verifier) */
    MOTE_ERR_TRUNCATED = -200,        /* file shorter than a header, table or vector needs */
    MOTE_ERR_BAD_IDENTIFIER = -201,   /* file identifier is not "ET12" */
    MOTE_ERR_BAD_HEADER = -202,       /* "eh00" extended header inconsistent */
    MOTE_ERR_BAD_OFFSET = -203,       /* flatbuffer offset points outside the buffer */
    MOTE_ERR_BAD_VTABLE = -204,       /* vtable malformed or out of range */
    MOTE_ERR_BAD_VECTOR = -205,       /* vector length runs past the buffer */
    MOTE_ERR_BAD_UNION_TAG = -206,    /* unknown union type tag */
    MOTE_ERR_BAD_INDEX = -207,        /* value/operator/buffer/segment index out of range */
    MOTE_ERR_BAD_DTYPE = -208,        /* unsupported scalar type */
    MOTE_ERR_SIZE_OVERFLOW = -209,    /* size arithmetic overflows */
    MOTE_ERR_DATA_TOO_SHORT = -210,   /* tensor bytes exceed its constant/segment/arena */
    MOTE_ERR_BAD_ALIGNMENT = -211,    /* misaligned table, vector or segment */
    MOTE_ERR_BAD_ALLOCATION = -212,   /* planned tensor outside its arena / bad memory id */
    MOTE_ERR_BAD_SHAPE = -213,        /* negative size, rank > MOTE_MAX_DIM, bad dim order */
    MOTE_ERR_BAD_INSTRUCTION = -214,  /* instruction arguments malformed */
    MOTE_ERR_BAD_SEGMENT = -215,      /* data segment outside the file */
    MOTE_ERR_BAD_VALUE_TYPE = -216,   /* a value has the wrong type for its use */
    MOTE_ERR_UNSUPPORTED = -217,      /* valid ExecuTorch feature Mote does not support */
    MOTE_ERR_FORMAT_VERSION = -218,   /* stamped with a newer MOTE_PTE_FORMAT_VERSION than this runtime */
    MOTE_ERR_CHECKSUM = -219,         /* program bytes differ from their CRC-32 (mote_program_verify_crc32) */
    MOTE_ERR_EXTERNAL_MISSING = -220, /* an external tensor's key is in no attached .ptd (or none is) */
    MOTE_ERR_EXTERNAL_MISMATCH = -221, /* an external tensor's .ptd layout (dtype, sizes, dim order) differs */
    MOTE_ERR_BACKWARD_JUMP = -222,    /* a JumpFalseCall's destination is not after it (a loop: execute
                                         would have no bound; mote/method.h) */

    /* -25x: the method could write outside planned memory (init's write proof, mote/method.h) */
    MOTE_ERR_INPUT_NOT_WRITABLE = -250,  /* a method input is a constant (program bytes) */
    MOTE_ERR_OUTPUT_NOT_WRITABLE = -251, /* a kernel out argument is a constant or not a tensor */
    MOTE_ERR_ALIAS_NOT_WRITABLE = -252,  /* a MoveCall or et_view source/target is a constant */
    MOTE_ERR_ALIAS_MISMATCH = -253,      /* a MoveCall or et_view pairs tensors of another dtype or
                                            byte size: the alias could outgrow its storage */

    /* -3xx: linking the program against this build */
    MOTE_ERR_OP_NOT_FOUND = -300,     /* operator has no kernel in this build */
    MOTE_ERR_NO_SUCH_BACKEND = -301,  /* DelegateCall to a backend this build lacks */
    MOTE_ERR_BACKEND_PAYLOAD = -302,  /* a backend cannot read or run its payload (mote/backend.h) */
    MOTE_ERR_BACKEND_MEMORY = -303,   /* the backend pool (mote_memory_t.backend) is too small */

    /* -4xx: kernel execution */
    MOTE_ERR_KERNEL_ARGS = -400,      /* wrong argument count or value types */
    MOTE_ERR_KERNEL_DTYPE = -401,     /* dtype combination the kernel does not implement */
    MOTE_ERR_KERNEL_SHAPE = -402,     /* shapes inconsistent with the op's semantics */
    MOTE_ERR_KERNEL_SCRATCH = -403,   /* scratch buffer smaller than the kernel needs */
    MOTE_ERR_JUMP_OUT_OF_RANGE = -404, /* JumpFalseCall destination invalid at run time */
    MOTE_ERR_BACKEND_FAILED = -405,   /* a delegate's execute failed inside its backend's library */

    /* -5xx: checks of the embedding API (mote/model.h) */
    MOTE_ERR_SELFTEST = -500 /* an embedded self-test case gave other outputs (mote_model_selftest) */
} mote_err_t;

/** Scalar types: ExecuTorch ScalarType codes. */
typedef enum mote_dtype {
    MOTE_DTYPE_UINT8 = 0,
    MOTE_DTYPE_INT8 = 1,
    MOTE_DTYPE_INT16 = 2,
    MOTE_DTYPE_INT32 = 3,
    MOTE_DTYPE_INT64 = 4,
    MOTE_DTYPE_FLOAT16 = 5,
    MOTE_DTYPE_FLOAT32 = 6,
    MOTE_DTYPE_FLOAT64 = 7,
    MOTE_DTYPE_BOOL = 11
} mote_dtype_t;

/** Value tags: the order of ExecuTorch's KernelTypes union (0 = none). */
typedef enum mote_tag {
    MOTE_TAG_NONE = 0,
    MOTE_TAG_NULL = 1,
    MOTE_TAG_INT = 2,
    MOTE_TAG_BOOL = 3,
    MOTE_TAG_DOUBLE = 4,
    MOTE_TAG_TENSOR = 5,
    MOTE_TAG_STRING = 6,
    MOTE_TAG_INT_LIST = 7,
    MOTE_TAG_DOUBLE_LIST = 8,
    MOTE_TAG_BOOL_LIST = 9,
    MOTE_TAG_TENSOR_LIST = 10,
    MOTE_TAG_OPT_TENSOR_LIST = 11
} mote_tag_t;

/**
 * A dense tensor. Static shapes only: `sizes` and `dim_order` point into the
 * verified program (little-endian int32 / uint8 flatbuffer vectors) or into
 * runtime state, never into the heap.
 *   data:      element storage (arena, constant segment, or an alias)
 *   sizes:     `dim` entries, each >= 0
 *   dim_order: `dim` entries (a permutation of 0..dim-1), or NULL = contiguous
 *   numel:     product of sizes (1 for a 0-dim tensor)
 *   nbytes:    numel * element size, bytes
 */
typedef struct mote_tensor {
    void *data;
    const int32_t *sizes;
    const uint8_t *dim_order;
    uint32_t numel;
    uint32_t nbytes;
    uint8_t dim;
    uint8_t dtype; /* mote_dtype_t */
} mote_tensor_t;

/**
 * One entry of a method's value table (ExecuTorch's EValue). Lists are
 * resolved at method init: int lists into int64 arrays in runtime state,
 * tensor lists into arrays of tensor pointers (NULL entries for optional
 * "None" items).
 */
typedef struct mote_value {
    uint8_t tag; /* mote_tag_t */
    union {
        int64_t i;
        bool b;
        double d;
        mote_tensor_t *t;
        struct { const char *ptr; uint32_t len; } str;
        struct { const int64_t *items; uint32_t len; } ints;
        struct { const double *items; uint32_t len; } doubles;
        struct { const uint8_t *items; uint32_t len; } bools;
        struct { mote_tensor_t *const *items; uint32_t len; } tensors;
    } u;
} mote_value_t;

/** Size in bytes of one element of `dtype`, or 0 for an unsupported dtype. */
static inline size_t mote_dtype_size(uint8_t dtype)
{
    /* no lookup table (a switch makes one per file that inlines it): bit d of 0x8ff
     * marks code d a dtype (0..7, 11); bits 2d..2d+1 of 0xe790 hold log2 of its size
     * (uint8 int8 bool 1, int16 float16 2, int32 float32 4, int64 float64 8) */
    return dtype <= MOTE_DTYPE_BOOL && ((0x8ffu >> dtype) & 1u) != 0u
               ? (size_t)1u << ((0xe790u >> (2u * dtype)) & 3u)
               : 0u;
}

#ifdef __cplusplus
}
#endif
#endif /* MOTE_TYPES_H */
