/* data_map.c - .ptd (FT01) loader and key lookup (mote/data_map.h). */
#include "program_internal.h"

#define MOTE_FH_OFFSET 8u
#define MOTE_FH_MIN_LEN 40u

enum {
    MOTE_F_FT_SEGMENTS = 1, MOTE_F_FT_NAMED = 2,
    MOTE_F_ND_KEY = 0, MOTE_F_ND_SEGMENT = 1, MOTE_F_ND_LAYOUT = 2,
    MOTE_F_TL_DTYPE = 0, MOTE_F_TL_SIZES = 1, MOTE_F_TL_DIM_ORDER = 2,
    MOTE_F_DS_OFFSET = 0, MOTE_F_DS_SIZE = 1
};

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v = 0;
    uint32_t i;
    for (i = 0; i < 8u; i++) {
        v |= (uint64_t)p[i] << (8u * i);
    }
    return v;
}

static mote_fb_t map_fb(const mote_data_map_t *map)
{
    mote_fb_t fb;
    fb.buf = map->data;
    fb.size = map->fb_size;
    return fb;
}

/* The FH01 header: flatbuffer extent and segment data range. */
static mote_err_t map_header(mote_data_map_t *map)
{
    const uint8_t *d = map->data;
    uint64_t len, fb_off, fb_size, base, dsize;

    MOTE_CHECK(map->size <= (size_t)MOTE_MAX_BYTES, MOTE_ERR_UNSUPPORTED);
    MOTE_CHECK(map->size >= MOTE_FH_OFFSET + MOTE_FH_MIN_LEN, MOTE_ERR_TRUNCATED);
    MOTE_CHECK(d[4] == 'F' && d[5] == 'T' && d[6] == '0' && d[7] == '1', MOTE_ERR_BAD_IDENTIFIER);
    MOTE_CHECK(d[8] == 'F' && d[9] == 'H' && d[10] == '0' && d[11] == '1', MOTE_ERR_BAD_HEADER);
    len = (uint64_t)d[12] | ((uint64_t)d[13] << 8) | ((uint64_t)d[14] << 16) | ((uint64_t)d[15] << 24);
    fb_off = rd64(d + 16);
    fb_size = rd64(d + 24);
    base = rd64(d + 32);
    dsize = rd64(d + 40);
    MOTE_CHECK(len >= MOTE_FH_MIN_LEN && fb_off >= len && fb_off <= (uint64_t)MOTE_MAX_BYTES &&
                   fb_size <= (uint64_t)MOTE_MAX_BYTES,
               MOTE_ERR_BAD_HEADER);
    MOTE_CHECK(fb_off + fb_size <= map->size && base <= map->size && dsize <= map->size - base,
               MOTE_ERR_TRUNCATED);
    MOTE_CHECK(base >= fb_off + fb_size, MOTE_ERR_BAD_HEADER);
    MOTE_CHECK(base % MOTE_DATA_MAP_ALIGN == 0u, MOTE_ERR_BAD_ALIGNMENT);
    map->fb_size = (uint32_t)(fb_off + fb_size);
    map->segment_base = base;
    map->segment_size = dsize;
    return MOTE_OK;
}

/* Segment `i`: verified inside the segment data; *p its bytes, *n their count. */
static mote_err_t map_segment(const mote_data_map_t *map, uint32_t i, const uint8_t **p, uint64_t *n)
{
    mote_fb_t fb = map_fb(map);
    mote_fb_vec_t v;
    mote_fb_table_t t;
    uint64_t off, sz;

    v.pos = map->segments_pos;
    v.len = map->num_segments;
    MOTE_CHECK(i < v.len, MOTE_ERR_BAD_INDEX);
    MOTE_TRY(mote_fb_vec_table(&fb, &v, i, &t));
    MOTE_TRY(mote_fb_scalar(&fb, &t, MOTE_F_DS_OFFSET, 8u, 0u, &off));
    MOTE_TRY(mote_fb_scalar(&fb, &t, MOTE_F_DS_SIZE, 8u, 0u, &sz));
    MOTE_CHECK(off <= map->segment_size && sz <= map->segment_size - off, MOTE_ERR_BAD_SEGMENT);
    *p = map->data + map->segment_base + off;
    *n = sz;
    return MOTE_OK;
}

/* Named entry `i`: key, layout, data. */
static mote_err_t map_entry(const mote_data_map_t *map, uint32_t i, mote_data_entry_t *e)
{
    mote_fb_t fb = map_fb(map);
    mote_fb_vec_t v, sizes, order;
    mote_fb_table_t t, lay;
    uint64_t seg, dtype = 0;
    bool present;
    uint32_t k, seen = 0;

    v.pos = map->named_pos;
    v.len = map->num_named;
    MOTE_TRY(mote_fb_vec_table(&fb, &v, i, &t));
    MOTE_TRY(mote_fb_string_field(&fb, &t, MOTE_F_ND_KEY, &e->key, &e->key_len));
    MOTE_CHECK(e->key != NULL, MOTE_ERR_BAD_INDEX);
    MOTE_CHECK(e->key_len <= MOTE_MAX_KEY_BYTES, MOTE_ERR_UNSUPPORTED);
    MOTE_TRY(mote_fb_scalar(&fb, &t, MOTE_F_ND_SEGMENT, 4u, 0u, &seg));
    MOTE_TRY(map_segment(map, (uint32_t)seg, &e->data, &e->nbytes));
    MOTE_TRY(mote_fb_table_field(&fb, &t, MOTE_F_ND_LAYOUT, &lay, &present));
    e->has_layout = present;
    e->dim = 0;
    e->sizes_pos = 0;
    e->order_pos = 0;
    e->order_len = 0;
    e->dtype = 0;
    if (!present) {
        return MOTE_OK; /* opaque named data (a backend's blob) */
    }
    MOTE_TRY(mote_fb_scalar(&fb, &lay, MOTE_F_TL_DTYPE, 1u, 0u, &dtype));
    MOTE_CHECK(mote_dtype_size((uint8_t)dtype) != 0u, MOTE_ERR_BAD_DTYPE);
    MOTE_TRY(mote_fb_vec_field(&fb, &lay, MOTE_F_TL_SIZES, 4u, &sizes));
    MOTE_TRY(mote_fb_vec_field(&fb, &lay, MOTE_F_TL_DIM_ORDER, 1u, &order));
    MOTE_CHECK(sizes.len <= MOTE_MAX_DIM && (order.len == 0u || order.len == sizes.len), MOTE_ERR_BAD_SHAPE);
    for (k = 0; k < order.len; k++) {
        const uint8_t d = fb.buf[order.pos + k];
        MOTE_CHECK(d < order.len && (seen & (1u << d)) == 0u, MOTE_ERR_BAD_SHAPE);
        seen |= 1u << d;
    }
    e->dtype = (uint8_t)dtype;
    e->dim = sizes.len;
    e->sizes_pos = sizes.pos;
    e->order_pos = order.pos;
    e->order_len = order.len;
    return MOTE_OK;
}

/* Key of named entry `i` (map_entry verified it at load); a mote_key_fn_t over the map. */
static mote_err_t map_key(const void *ctx, uint32_t i, const char **key, uint32_t *key_len)
{
    const mote_data_map_t *map = (const mote_data_map_t *)ctx;
    mote_fb_t fb = map_fb(map);
    mote_fb_vec_t v;
    mote_fb_table_t t;

    v.pos = map->named_pos;
    v.len = map->num_named;
    MOTE_TRY(mote_fb_vec_table(&fb, &v, i, &t));
    MOTE_TRY(mote_fb_string_field(&fb, &t, MOTE_F_ND_KEY, key, key_len));
    MOTE_CHECK(*key != NULL, MOTE_ERR_BAD_INDEX);
    return MOTE_OK;
}

mote_err_t mote_data_map_load(mote_data_map_t *map, const void *data, size_t size)
{
    mote_fb_t fb;
    mote_fb_table_t root;
    mote_fb_vec_t v;
    mote_data_entry_t e = {0};
    uint32_t i;

    MOTE_CHECK(map != NULL, MOTE_ERR_INVALID_ARGUMENT);
    map->magic = 0;
    MOTE_CHECK(data != NULL, MOTE_ERR_INVALID_ARGUMENT);
    MOTE_CHECK(((uintptr_t)data & (MOTE_DATA_MAP_ALIGN - 1u)) == 0u, MOTE_ERR_MEMORY_ALIGNMENT);
    map->data = (const uint8_t *)data;
    map->size = size;
    MOTE_TRY(map_header(map));
    fb = map_fb(map);
    MOTE_TRY(mote_fb_root(&fb, &root));
    MOTE_TRY(mote_fb_vec_field(&fb, &root, MOTE_F_FT_SEGMENTS, 4u, &v));
    map->segments_pos = v.pos;
    map->num_segments = v.len;
    MOTE_TRY(mote_fb_vec_field(&fb, &root, MOTE_F_FT_NAMED, 4u, &v));
    map->named_pos = v.pos;
    map->num_named = v.len;
    map->sorted = 1u;
    map->index = NULL;
    for (i = 0; i < map->num_named; i++) {
        const char *prev = e.key;
        const uint32_t prev_len = e.key_len;
        MOTE_TRY(map_entry(map, i, &e));
        if (i > 0u && mote_key_cmp(prev, prev_len, e.key, e.key_len) >= 0) {
            map->sorted = 0u; /* ExecuTorch writes keys in insertion order */
        }
    }
    map->magic = MOTE_DATA_MAP_MAGIC;
    return MOTE_OK;
}

uint32_t mote_data_map_count(const mote_data_map_t *map)
{
    return (map != NULL && map->magic == MOTE_DATA_MAP_MAGIC) ? map->num_named : 0u;
}

size_t mote_data_map_index_size(const mote_data_map_t *map)
{
    if (map == NULL || map->magic != MOTE_DATA_MAP_MAGIC || map->sorted) {
        return 0u;
    }
    return (size_t)map->num_named * sizeof(uint32_t);
}

mote_err_t mote_data_map_set_index(mote_data_map_t *map, uint32_t *index, size_t size)
{
    MOTE_CHECK(map != NULL && map->magic == MOTE_DATA_MAP_MAGIC, MOTE_ERR_NOT_INITIALIZED);
    map->index = NULL;
    if (map->sorted || map->num_named == 0u) {
        return MOTE_OK; /* binary-searched in place: no index needed */
    }
    MOTE_CHECK(index != NULL, MOTE_ERR_INVALID_ARGUMENT);
    MOTE_CHECK(((uintptr_t)index & (sizeof(uint32_t) - 1u)) == 0u, MOTE_ERR_MEMORY_ALIGNMENT);
    MOTE_CHECK(size / sizeof(uint32_t) >= map->num_named, MOTE_ERR_MEMORY_TOO_SMALL);
    MOTE_TRY(mote_key_index_sort(map_key, map, index, map->num_named));
    map->index = index;
    return MOTE_OK;
}

mote_err_t mote_data_map_find_counted(const mote_data_map_t *map, const char *key, uint32_t key_len,
                                      mote_data_entry_t *out, uint32_t *compares)
{
    const char *k;
    uint32_t n, i, done = 0;
    int c = 1;

    if (compares != NULL) {
        *compares = 0;
    }
    MOTE_CHECK(map != NULL && map->magic == MOTE_DATA_MAP_MAGIC, MOTE_ERR_EXTERNAL_MISSING);
    MOTE_CHECK(key_len <= MOTE_MAX_KEY_BYTES, MOTE_ERR_EXTERNAL_MISSING); /* load refused longer keys */
    if (map->sorted || map->index != NULL) {
        MOTE_TRY(mote_key_index_find(map_key, map, map->sorted ? NULL : map->index, map->num_named, key, key_len,
                                     &i, compares));
        return map_entry(map, i, out);
    }
    for (i = 0; i < map->num_named && c != 0; i++) { /* no index: a scan, in file order */
        MOTE_TRY(map_key(map, i, &k, &n));
        c = mote_key_cmp(key, key_len, k, n);
        done++;
    }
    if (compares != NULL) {
        *compares = done;
    }
    MOTE_CHECK(c == 0, MOTE_ERR_EXTERNAL_MISSING);
    return map_entry(map, i - 1u, out);
}

mote_err_t mote_data_map_find(const mote_data_map_t *map, const char *key, uint32_t key_len,
                              mote_data_entry_t *out)
{
    return mote_data_map_find_counted(map, key, key_len, out, NULL);
}

bool mote_data_map_contains(const mote_data_map_t *map, const void *p)
{
    const uintptr_t a = (uintptr_t)p, lo = map != NULL ? (uintptr_t)map->data : 0u;
    return map != NULL && map->magic == MOTE_DATA_MAP_MAGIC && p != NULL && a >= lo && a - lo < map->size;
}
