/*
 * mote/program.h - loading a .pte program (ExecuTorch "ET12" wire format).
 *
 * The loader verifies the file header, the optional "eh00" extended header,
 * the Program root table, the data segments and the constant storage, and
 * keeps pointers into the caller's buffer: the program bytes are never copied
 * (on a microcontroller they stay in flash). The buffer must stay valid and
 * unchanged while the program and any method initialised from it are used.
 *
 * Wire layout: [0:4] root uoffset, [4:8] "ET12", optionally [8:8+length]
 * eh00 header {magic "eh00", u32 length (>= 24), u64 program_size, u64
 * segment_base_offset, u64 segment_data_size (if length >= 32)}, all
 * little-endian. Segments follow the flatbuffer at segment_base_offset.
 * The runtime supports little-endian targets only.
 *
 * Format version stamp (Mote's compiler writes it; ExecuTorch's runtime
 * ignores header bytes past the fields it knows, and refuses a non-zero
 * Program.version, so the stamp lives in the header): length = 40 and, at
 * header bytes [32:36] (file [40:44]) the magic "MOTE", at [36:40] (file
 * [44:48]) the u32 MOTE_PTE_FORMAT_VERSION (mote/config.h) the file was
 * written for. The header is then padded to 48 bytes, so the flatbuffer
 * body starts at file offset 56. A file without the stamp is version 0
 * (ExecuTorch's own output) and loads; a stamp of 0 is BAD_HEADER; a stamp
 * above this runtime's MOTE_PTE_FORMAT_VERSION is FORMAT_VERSION.
 */
#ifndef MOTE_PROGRAM_H
#define MOTE_PROGRAM_H

#include "mote/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Required alignment of the program buffer, bytes (tensor data is used in place). */
#define MOTE_PROGRAM_ALIGN 16u

/** A loaded program. Treat the fields as private; use the functions below. */
typedef struct mote_program {
    const uint8_t *data;       /* the whole file */
    size_t size;               /* file size, bytes */
    uint32_t fb_size;          /* flatbuffer bytes (program_size, or size) */
    uint32_t root;             /* Program table position */
    uint32_t plans_pos;        /* execution_plan vector: element 0 position */
    uint32_t num_plans;
    uint64_t segment_base;     /* file offset of segment data (0: none) */
    uint64_t segment_end;      /* end of segment data, file offset */
    uint32_t segments_pos;     /* segments vector: element 0 position */
    uint32_t num_segments;
    uint32_t const_buffers_pos; /* legacy constant_buffer vector */
    uint32_t num_const_buffers;
    uint32_t const_offsets_pos; /* constant_segment.offsets (u64 elements) */
    uint32_t num_const_offsets;
    const uint8_t *const_seg;  /* constant segment data */
    uint64_t const_seg_size;   /* bytes */
    uint32_t mutable_segs_pos; /* mutable_data_segments vector (SubsegmentOffsets tables) */
    uint32_t num_mutable_segs;
    uint32_t format_version;   /* the eh00 stamp (0: unstamped, ExecuTorch's own) */
    const struct mote_data_map *data_map; /* external weights (mote_program_set_data_map), or NULL */
    const uint32_t *named_index; /* mote_program_set_named_index's entry numbers in key order, or NULL */
    uint32_t num_named_index;    /* its entries */
    uint32_t magic;            /* set after a successful load */
} mote_program_t;

/**
 * Loads and verifies a program held in `data` (`size` bytes, aligned to
 * MOTE_PROGRAM_ALIGN). Errors: INVALID_ARGUMENT, MEMORY_ALIGNMENT, TRUNCATED,
 * BAD_IDENTIFIER, BAD_HEADER, FORMAT_VERSION (stamped by a newer compiler),
 * BAD_OFFSET, BAD_VTABLE, BAD_VECTOR, BAD_ALIGNMENT, BAD_SEGMENT, BAD_INDEX
 * (also a mutable_data_segments entry naming no segment),
 * UNSUPPORTED (no execution plan, or larger than MOTE_MAX_BYTES).
 */
MOTE_NODISCARD mote_err_t mote_program_load(mote_program_t *prog, const void *data, size_t size);

/**
 * Attaches a loaded .ptd (mote/data_map.h) whose named tensors the program's
 * external tensors refer to; NULL detaches. Call before mote_method_init;
 * both buffers must stay valid while methods are used. Errors:
 * NOT_INITIALIZED (program or map not loaded).
 */
MOTE_NODISCARD mote_err_t mote_program_set_data_map(mote_program_t *prog, const struct mote_data_map *map);
/** Format version stamped in a loaded program (0: unstamped, or `prog` not loaded). */
uint32_t mote_program_format_version(const mote_program_t *prog);

/**
 * CRC-32 of `size` bytes at `data`: IEEE 802.3, reflected polynomial
 * 0xEDB88320, initial value and final xor 0xFFFFFFFF (Python's zlib.crc32).
 * Works on any bytes (a whole .pte, program and data segments); `data` may be
 * NULL only when size is 0 (result 0). About two table lookups per byte, with
 * a 64-byte table.
 */
uint32_t mote_program_crc32(const void *data, size_t size);

/**
 * Checks that the CRC-32 of `size` bytes at `data` is `expected` (firmware
 * compares its model against MOTE_MODEL_CRC32 from mote_model.h before
 * mote_program_load). Errors: INVALID_ARGUMENT (data NULL, size > 0),
 * CHECKSUM (mismatch).
 */
MOTE_NODISCARD mote_err_t mote_program_verify_crc32(const void *data, size_t size, uint32_t expected);

/**
 * The named data `key` (key_len bytes, no NUL needed): Program.named_data
 * (ExecuTorch's NamedDataMap in the program: key -> data segment), else the
 * attached .ptd. Delegates read weights stored by name this way. *data points
 * into the program or the .ptd (read-only), *size in bytes. Of entries
 * sharing a key, the first in the file. Work: with an index
 * (mote_program_set_named_index) a binary search, O(log n) key comparisons
 * for n entries; without, a scan, O(n) (a delegate looking up its m weights:
 * O(n m)); then the .ptd's lookup (mote/data_map.h). Errors:
 * NOT_INITIALIZED, INVALID_ARGUMENT, EXTERNAL_MISSING (no such key),
 * BAD_INDEX / BAD_SEGMENT, file errors.
 */
MOTE_NODISCARD mote_err_t mote_program_named_data(const mote_program_t *prog, const char *key, uint32_t key_len,
                                                  const uint8_t **data, size_t *size);

/**
 * Bytes of the index mote_program_set_named_index needs: 4 per
 * Program.named_data entry (0 for none, or `prog` not loaded).
 */
size_t mote_program_named_index_size(const mote_program_t *prog);

/**
 * Gives the program an index of its named data in caller memory: `index`
 * (`size` bytes, at least mote_program_named_index_size, aligned to 4) is
 * filled with the entry numbers ordered by key (then entry number). Work: a
 * heapsort, at most about 2 n log2 n key comparisons, no recursion and no
 * memory besides `index`; then every mote_program_named_data is a binary
 * search. Call after mote_program_load, before mote_method_init; the index
 * must stay valid and unchanged while the program is used. Errors:
 * NOT_INITIALIZED, INVALID_ARGUMENT (index NULL with entries to order),
 * MEMORY_ALIGNMENT, MEMORY_TOO_SMALL, UNSUPPORTED (a key longer than
 * MOTE_MAX_KEY_BYTES: mote/config.h), file errors.
 */
MOTE_NODISCARD mote_err_t mote_program_set_named_index(mote_program_t *prog, uint32_t *index, size_t size);

/** Number of methods (execution plans); 0 if `prog` is not loaded. */
uint32_t mote_program_method_count(const mote_program_t *prog);

/** Index of the method named `name` (NUL-terminated). Errors: NO_SUCH_METHOD, NOT_INITIALIZED. */
MOTE_NODISCARD mote_err_t mote_program_method_index(const mote_program_t *prog, const char *name,
                                                    uint32_t *index);

/** Name of method `index` (points into the program). Errors: NO_SUCH_METHOD. */
MOTE_NODISCARD mote_err_t mote_program_method_name(const mote_program_t *prog, uint32_t index,
                                                   const char **name);

/**
 * Operator `op_index` of method `method_index`: its name ("aten::add") and
 * overload ("out"), both NUL-terminated inside the program. For diagnostics
 * (e.g. after MOTE_ERR_OP_NOT_FOUND). Errors: NO_SUCH_METHOD, BAD_INDEX, file errors.
 */
MOTE_NODISCARD mote_err_t mote_program_operator_name(const mote_program_t *prog, uint32_t method_index,
                                                     uint32_t op_index, const char **name,
                                                     const char **overload);

#ifdef __cplusplus
}
#endif
#endif /* MOTE_PROGRAM_H */
