/* program_internal.h - internal: flatbuffer access shared by the loader and the method files. */
#ifndef MOTE_PROGRAM_INTERNAL_H
#define MOTE_PROGRAM_INTERNAL_H

#include "fb.h"
#include "mote/data_map.h"
#include "mote/program.h"

#define MOTE_PROGRAM_MAGIC 0x4d4f5445u /* "MOTE" */
#define MOTE_DATA_MAP_MAGIC 0x50544430u /* "PTD0": set by a successful mote_data_map_load */

/* Field ids of the schema's tables (a union takes two ids: type, value). */
enum {
    MOTE_F_PROGRAM_PLANS = 1, MOTE_F_PROGRAM_CONST_BUFFER = 2, MOTE_F_PROGRAM_DELEGATE_DATA = 3,
    MOTE_F_PROGRAM_SEGMENTS = 4,
    MOTE_F_PROGRAM_CONST_SEGMENT = 5, MOTE_F_PROGRAM_MUTABLE_SEGMENTS = 6, MOTE_F_PROGRAM_NAMED_DATA = 7,
    MOTE_F_NAMED_DATA_KEY = 0, MOTE_F_NAMED_DATA_SEGMENT = 1,
    MOTE_F_PLAN_NAME = 0, MOTE_F_PLAN_VALUES = 2, MOTE_F_PLAN_INPUTS = 3, MOTE_F_PLAN_OUTPUTS = 4,
    MOTE_F_PLAN_CHAINS = 5, MOTE_F_PLAN_OPERATORS = 6, MOTE_F_PLAN_DELEGATES = 7,
    MOTE_F_PLAN_BUFFER_SIZES = 8,
    MOTE_F_EVALUE_VAL = 0,
    MOTE_F_TENSOR_DTYPE = 0, MOTE_F_TENSOR_STORAGE_OFFSET = 1, MOTE_F_TENSOR_SIZES = 2,
    MOTE_F_TENSOR_DIM_ORDER = 3, MOTE_F_TENSOR_BUFFER_IDX = 5, MOTE_F_TENSOR_ALLOC = 6,
    MOTE_F_TENSOR_DYNAMISM = 8, MOTE_F_TENSOR_EXTRA = 9,
    MOTE_F_EXTRA_MUTABLE_SEGMENT = 0, MOTE_F_EXTRA_FQN = 1, MOTE_F_EXTRA_LOCATION = 2,
    MOTE_F_ALLOC_ID = 0, MOTE_F_ALLOC_LOW = 1, MOTE_F_ALLOC_HIGH = 2,
    MOTE_F_OPERATOR_NAME = 0, MOTE_F_OPERATOR_OVERLOAD = 1,
    MOTE_F_CHAIN_INSTRUCTIONS = 2,
    MOTE_F_INSTR_ARGS = 0,
    MOTE_F_SEGMENT_OFFSET = 0, MOTE_F_SEGMENT_SIZE = 1,
    MOTE_F_SUBSEG_INDEX = 0, MOTE_F_SUBSEG_OFFSETS = 1,
    MOTE_F_BUFFER_STORAGE = 0,
    MOTE_F_DELEGATE_ID = 0, MOTE_F_DELEGATE_PROCESSED = 1,
    MOTE_F_DATAREF_LOCATION = 0, MOTE_F_DATAREF_INDEX = 1,
    MOTE_F_DELEGATE_CALL_INDEX = 0, MOTE_F_DELEGATE_CALL_ARGS = 1
};

/* DataLocation of a BackendDelegateDataReference. */
enum { MOTE_DATA_INLINE = 0, MOTE_DATA_SEGMENT = 1 };

/* InstructionArguments union tags: mote_instr_kind_t (mote/method.h), 1..MOTE_INSTR_FREE. */

static inline mote_fb_t mote_program_fb(const mote_program_t *prog)
{
    mote_fb_t fb;
    fb.buf = prog->data;
    fb.size = prog->fb_size;
    return fb;
}

/* Verified table of execution plan `index`. Errors: NO_SUCH_METHOD, NOT_INITIALIZED, file errors. */
MOTE_NODISCARD mote_err_t mote_program_plan(const mote_program_t *prog, uint32_t index, mote_fb_table_t *out);

/*
 * Delegate `index` of execution plan `plan`: its backend id (NUL-terminated,
 * in the program) and its payload (BackendDelegate.processed: a data segment
 * or Program.backend_delegate_data entry), verified inside the program.
 * Errors: BAD_INDEX, BAD_INSTRUCTION (no id or data reference, unknown
 * location), BAD_SEGMENT, file errors.
 */
MOTE_NODISCARD mote_err_t mote_program_delegate(const mote_program_t *prog, const mote_fb_table_t *plan,
                                                uint32_t index, const char **id, const uint8_t **payload,
                                                size_t *size);

/*
 * Constant data of data_buffer_idx `idx` with `nbytes` bytes aligned to
 * `align`. Errors: BAD_INDEX, DATA_TOO_SHORT, BAD_ALIGNMENT.
 */
MOTE_NODISCARD mote_err_t mote_program_constant(const mote_program_t *prog, uint32_t idx, uint32_t nbytes,
                                                uint32_t align, const uint8_t **data);

/*
 * Initial data of a mutable buffer: `nbytes` bytes at offsets[`idx`] of
 * Program.mutable_data_segments[`seg`] (ExecuTorch's layout for planned
 * tensors with an initial value). Errors: BAD_INDEX (no such entry, segment
 * or offset), DATA_TOO_SHORT (the bytes run past the segment).
 */
MOTE_NODISCARD mote_err_t mote_program_mutable_data(const mote_program_t *prog, uint32_t seg, uint32_t idx,
                                                    uint32_t nbytes, const uint8_t **data);

/* A .ptd named entry (data_map.c): key, layout (when has_layout), bytes. */
typedef struct mote_data_entry {
    const char *key;
    uint32_t key_len;
    bool has_layout;
    uint8_t dtype;
    uint32_t dim;        /* sizes: dim int32 at sizes_pos */
    uint32_t sizes_pos;
    uint32_t order_pos;  /* dim order: order_len bytes at order_pos (0: contiguous) */
    uint32_t order_len;
    const uint8_t *data;
    uint64_t nbytes;
} mote_data_entry_t;

/* The entry of `key` (key_len bytes; the first in the file if several have it). Errors:
 * EXTERNAL_MISSING (no map, no such key), file errors. Work: a binary search (at most
 * floor(log2 n) + 1 key comparisons) when the map's keys are strictly increasing
 * (mote_data_map_t.sorted, checked at load) or the map has an index (mote_data_map_set_index),
 * else a scan (at most n comparisons). */
MOTE_NODISCARD mote_err_t mote_data_map_find(const mote_data_map_t *map, const char *key, uint32_t key_len,
                                             mote_data_entry_t *out);
/* mote_data_map_find that also stores in *compares (if not NULL) the key comparisons it made (tests). */
MOTE_NODISCARD mote_err_t mote_data_map_find_counted(const mote_data_map_t *map, const char *key, uint32_t key_len,
                                                     mote_data_entry_t *out, uint32_t *compares);

/* Key of named entry `i` of a table of n entries (ctx: the map or the program); NULL for none. */
typedef mote_err_t (*mote_key_fn_t)(const void *ctx, uint32_t i, const char **key, uint32_t *key_len);

/* Key order: bytes as unsigned, then length (a prefix first); NULL (no key) first. <0, 0, >0. */
int mote_key_cmp(const char *a, uint32_t na, const char *b, uint32_t nb);

/* Fills index[0..n) with 0..n-1 ordered by key, then entry number (key_index.c): a heapsort, at most
 * about 2 n log2 n key comparisons of at most MOTE_MAX_KEY_BYTES bytes each, no recursion, no memory
 * but `index`. Errors: UNSUPPORTED (a key longer than MOTE_MAX_KEY_BYTES), key_of's. */
MOTE_NODISCARD mote_err_t mote_key_index_sort(mote_key_fn_t key_of, const void *ctx, uint32_t *index, uint32_t n);

/* The entry whose key is `key` by binary search (at most floor(log2 n) + 1 key comparisons, counted in
 * *compares if not NULL) over `index` (as mote_key_index_sort leaves it), or over the entries
 * themselves when index is NULL (their keys strictly increasing). Among equal keys, the lowest entry
 * number. Errors: EXTERNAL_MISSING (also for a key longer than MOTE_MAX_KEY_BYTES), BAD_INDEX (an index
 * entry >= n), key_of's. */
MOTE_NODISCARD mote_err_t mote_key_index_find(mote_key_fn_t key_of, const void *ctx, const uint32_t *index,
                                              uint32_t n, const char *key, uint32_t key_len, uint32_t *entry,
                                              uint32_t *compares);

/* Does `p` point into the map's bytes (external constants: never written)? */
bool mote_data_map_contains(const mote_data_map_t *map, const void *p);

/* Does `p` point into the program's bytes (constant data: never written)? */
bool mote_program_contains(const mote_program_t *prog, const void *p);

#endif
