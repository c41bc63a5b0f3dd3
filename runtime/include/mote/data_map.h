/*
 * mote/data_map.h - named data kept apart from the program: ExecuTorch's
 * flat-tensor files (".ptd", file identifier "FT01").
 *
 * A program exported with external weights (aot export --external-weights,
 * or ExecuTorch's external_constants) names each weight by a key
 * (ExtraTensorInfo location EXTERNAL, fully_qualified_name = key) instead of
 * holding its bytes. The caller loads the .ptd it keeps elsewhere (a flash
 * region, a mapped file) with mote_data_map_load and attaches it to the
 * program with mote_program_set_data_map before initialising methods; init
 * looks every external tensor up by key and checks dtype, sizes, dim order,
 * byte size and alignment. The bytes are used in place, never copied or
 * written: the write proof treats them as constants. One .ptd may serve
 * several programs (two heads over one backbone keep one copy of it).
 *
 * Wire layout (little-endian): [0:4] root uoffset, [4:8] "FT01", [8:48] the
 * "FH01" header {magic, u32 length (>= 40), u64 flatbuffer_offset (the
 * header's padded length), u64 flatbuffer_size (without the header), u64
 * segment_base_offset, u64 segment_data_size}; the flatbuffer spans
 * [0, flatbuffer_offset + flatbuffer_size). Root FlatTensor {version u32,
 * segments [DataSegment {offset u64, size u64}], named_data [NamedData {key
 * string, segment_index u32, tensor_layout TensorLayout {scalar_type i8,
 * sizes [i32], dim_order [u8]}}]}; segment offsets count from
 * segment_base_offset. (Source: ExecuTorch's flat_tensor.fbs and its
 * serializer's header.)
 */
#ifndef MOTE_DATA_MAP_H
#define MOTE_DATA_MAP_H
#include "mote/types.h"
#ifdef __cplusplus
extern "C" {
#endif
/** Required alignment of a .ptd buffer, bytes (tensor data is used in place). */
#define MOTE_DATA_MAP_ALIGN 16u
/** A loaded .ptd. Treat the fields as private. */
typedef struct mote_data_map {
    const uint8_t *data;   /* the whole file */
    size_t size;           /* bytes */
    uint32_t fb_size;      /* flatbuffer bytes (header included) */
    uint32_t named_pos;    /* named_data vector: element 0 position */
    uint32_t num_named;
    uint32_t segments_pos; /* segments vector */
    uint32_t num_segments;
    uint64_t segment_base; /* file offset of segment data */
    uint64_t segment_size; /* bytes of segment data */
    uint32_t sorted;       /* 1: keys strictly increasing (bytes, then length): lookups binary-search */
    const uint32_t *index; /* mote_data_map_set_index's entry numbers in key order, or NULL */
    uint32_t magic;        /* set after a successful load */
} mote_data_map_t;
/**
 * Loads and verifies a .ptd held in `data` (`size` bytes, aligned to
 * MOTE_DATA_MAP_ALIGN): header, root table, every segment inside the file,
 * every named entry's key string, segment index and layout. Errors:
 * INVALID_ARGUMENT, MEMORY_ALIGNMENT, TRUNCATED, BAD_IDENTIFIER (not "FT01"),
 * BAD_HEADER, BAD_OFFSET, BAD_VTABLE, BAD_VECTOR, BAD_ALIGNMENT, BAD_SEGMENT,
 * BAD_INDEX, BAD_DTYPE, BAD_SHAPE, UNSUPPORTED (larger than MOTE_MAX_BYTES, or
 * a key longer than MOTE_MAX_KEY_BYTES: mote/config.h).
 * Work: linear in the file. It also notes whether the keys are strictly
 * increasing (unsigned bytes, then length; Mote writes them so); then each
 * key lookup at init is a binary search, O(log n) key comparisons for n
 * entries, without memory of its own. Other files (ExecuTorch 1.5.1 writes
 * keys in insertion order) need an index (mote_data_map_set_index) for the
 * same; without one each lookup scans: O(n) comparisons, O(n m) for m
 * external tensors.
 */
MOTE_NODISCARD mote_err_t mote_data_map_load(mote_data_map_t *map, const void *data, size_t size);

/**
 * Bytes of the lookup index a loaded map needs (mote_data_map_set_index):
 * 4 per named entry (uint32_t) when its keys are not strictly increasing,
 * else 0 (also for a map not loaded).
 */
size_t mote_data_map_index_size(const mote_data_map_t *map);

/**
 * Gives the map an index in caller memory: `index` (`size` bytes, at least
 * mote_data_map_index_size, aligned to 4) is filled with the entry numbers
 * ordered by key (then by entry number, so of entries sharing a key the
 * first in the file is found, as a scan finds it). Work: a heapsort, at most
 * about 2 n log2 n key comparisons for n entries, no recursion and no memory
 * besides `index`; afterwards each lookup is a binary search, O(log n). The
 * index must stay valid and unchanged while the map is used; a new
 * mote_data_map_load drops it. A map whose keys are already in order needs
 * none: then `index` may be NULL and is not used. Errors: NOT_INITIALIZED,
 * INVALID_ARGUMENT (index NULL), MEMORY_ALIGNMENT, MEMORY_TOO_SMALL.
 */
MOTE_NODISCARD mote_err_t mote_data_map_set_index(mote_data_map_t *map, uint32_t *index, size_t size);
/** Number of named entries (0 if not loaded). */
uint32_t mote_data_map_count(const mote_data_map_t *map);
#ifdef __cplusplus
}
#endif
#endif /* MOTE_DATA_MAP_H */
