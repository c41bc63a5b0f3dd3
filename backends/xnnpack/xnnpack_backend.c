/*
 * xnnpack_backend.c - the XNNPACK delegate (mote/backend.h id "XnnpackBackend").
 *
 * Runs payloads in ExecuTorch's XNNPACK format: bytes 4..8 "XH00", then
 * u16 header length, u32 flatbuffer offset, u32 flatbuffer size, u32
 * constant data offset, u64 constant data size (little-endian, from byte 0);
 * the flatbuffer (identifier "XN01") is an XNNGraph: xvalues (tensors: dims,
 * datatype, constant_data entry, external id, flags, id_out) and xnodes
 * (one union member per operator). Field ids follow the schema's order, as
 * aot/backends/xnnpack/schema.py writes them. Every offset, length, id and
 * size is checked with the runtime's verifying flatbuffer reader before
 * XNNPACK sees it; what this backend does not take (other operators,
 * dynamic quantization) is refused with MOTE_ERR_BACKEND_PAYLOAD. Before any
 * xnn_define_* call, one linear pass over the nodes (prove_producers) proves
 * every value has at most one producing node (XNNPACK's subgraph analysis
 * asserts otherwise) and no node writes an external input or a constant.
 * Every other assumption Debian's XNNPACK asserts on (or silently relies on)
 * is proven before xnn_create_runtime_v2: the list, where XNNPACK makes each
 * one and which function here proves it, is backends/xnnpack/README.md.
 *
 * Values are fp32, or quantized (XNNQuantizedTensorValue): qint8 / qint32
 * per tensor (scale, zero point) and qcint8 / qcint32 per channel (a scale
 * per entry of the channel dim, zero point 0), as XNNPACK's qs8 / qc8
 * operators take them. Arguments of the call are fp32 or qint8 (Mote int8).
 *
 * Built on the XNNPACK subgraph API of Debian 12's libxnnpack-dev (2022).
 * Memory: XNNPACK's allocator hooks (xnn_initialize) allocate from the
 * method's backend pool (mote_memory_t.backend), never from the heap: init
 * points them at the pool of the method being initialised; execute and
 * destroy at the delegate's own pool. The hooks are process-wide, so methods
 * with XNNPACK delegates must be initialised, run and destroyed from one
 * thread at a time. Runs on one thread (no pthreadpool).
 */
#include <math.h>
#include <string.h>

#include <xnnpack.h>

#include "fb.h"
#include "xnnpack_shapes.h"
#include "mote/backend.h"
#include "mote/data_map.h"
#include "mote/program.h"

#define XH_MIN_HEADER 30u

/* Most nodes and values one payload may hold (MOTE_ERR_UNSUPPORTED above). XNNPACK's own
 * memory planner is quadratic in a subgraph's values (init of 1,003 / 4,003 / 10,003 /
 * 20,003 nodes: 1.7 / 8.8 / 46 / 310 ms on the host), so the cap is what bounds init time:
 * Mote's compiler delegates a few hundred nodes for a MobileNet. */
#ifndef MOTE_XNNPACK_MAX_NODES
#define MOTE_XNNPACK_MAX_NODES 8192u
#endif
#ifndef MOTE_XNNPACK_MAX_VALUES
#define MOTE_XNNPACK_MAX_VALUES (2u * MOTE_XNNPACK_MAX_NODES)
#endif

/* XValueUnion / XNodeUnion tags: positions in the schema's unions, plus 1. */
enum { XV_TENSOR = 1, XV_QUANTIZED = 2 };
enum {
    XN_ADD = 1, XN_FULLY_CONNECTED = 2, XN_SOFTMAX = 3, XN_SIGMOID = 4, XN_STATIC_TRANSPOSE = 5, XN_CLAMP = 6, XN_CONV2D = 7,
    XN_DIV = 8, XN_AVG_POOL = 11, XN_MINIMUM = 12, XN_DEPTHWISE_CONV2D = 13, XN_MAX_POOL = 14,
    XN_MULTIPLY = 15, XN_SUBTRACT = 16, XN_FLOOR = 17, XN_CONVERT = 18, XN_GLOBAL_AVG_POOL = 19, XN_STATIC_RESHAPE = 20,
    XN_SQRT = 22, XN_CEILING = 23, XN_HARDSWISH = 24, XN_MAX_TAG = 24
};
/* XNNGraph fields */
enum { XG_NODES = 1, XG_VALUES = 2, XG_NUM_EXTERNS = 3, XG_INPUT_IDS = 4, XG_OUTPUT_IDS = 5, XG_CONSTANTS = 8 };
/* XNNTensorValue fields */
enum { XT_DATATYPE = 0, XT_NUM_DIMS = 1, XT_DIMS = 2, XT_CONST = 3, XT_EXTERNAL = 4, XT_FLAGS = 5, XT_ID = 6 };
/* XNNQuantizedTensorValue fields (the union takes ids 1 and 2) and XNNQuantParams tags */
enum { XQ_TENSOR = 0, XQ_PARAMS = 1 };
enum { XQP_PER_CHANNEL = 1, XQP_PER_TENSOR = 2, XQP_MAX_TAG = 4 };

/* A value's element type and quantization, verified (check_quant). */
typedef struct quant {
    enum xnn_datatype dtype;
    uint32_t elsize;        /* bytes per element */
    uint8_t kind;           /* 0 (fp32), XQP_PER_TENSOR or XQP_PER_CHANNEL */
    float scale;            /* per tensor */
    int32_t zero_point;     /* per tensor */
    const float *scales;    /* per channel: dims[channel_dim] of them, in the program */
    uint32_t channel_dim;
} quant_t;

/* A transpose at the subgraph's edge that moves data (Debian's 2022 XNNPACK
 * has no subgraph transpose): the backend permutes between the call's
 * argument and a staging buffer in the pool, before (input) or after
 * (output) XNNPACK runs. dims: the argument side's (input) or the staging
 * side's (output) dims; out dim k is in dim perm[k]. */
typedef struct stage {
    uint32_t ext;      /* argument index */
    uint32_t is_output;
    uint32_t ndim;
    uint32_t dims[XN_MAX_DIMS];
    uint32_t perm[XN_MAX_DIMS];
    uint32_t numel;
    float *buf;        /* numel floats, in the pool */
    /* ExecuTorch's int8 input: Convert(fp32 argument) -> qint8, then the
     * transpose. Both commute, so the argument is permuted as floats and the
     * Convert writes the transposed value: via_convert, the argument's value
     * (hidden), the Convert's output (mid, never defined) and the transpose's
     * output (target). */
    uint32_t via_convert;
    uint32_t hidden;
    uint32_t mid;
    uint32_t target;
} stage_t;

typedef struct xnn_delegate {
    xnn_runtime_t runtime;
    mote_pool_t *pool;
    uint32_t nargs;
    struct xnn_external_value *ext; /* nargs entries: external id k is argument k */
    stage_t *stages;
    uint32_t num_stages;
    uint8_t *staged;  /* nargs entries: the argument is a stage's (XNNPACK reads its staging buffer) */
    uint32_t bound;   /* xnn_setup_runtime done with the arguments' current storage */
} xnn_delegate_t;

/* The pool XNNPACK's hooks allocate from right now (see the file comment). */
static mote_pool_t *g_pool;
static int g_initialized;

/* Debian's XNNPACK does not check three allocations of xnn_create_runtime_v2:
 * its memory planner's value table (24 bytes per value), sorted pointers (8)
 * and live blocks (16), made by the allocate hook right after the runtime, its
 * operator data and its blobs (the only allocate-hook calls before them: the
 * operators use the aligned hook). A pool that runs out there would be a NULL
 * write inside the library. So while g_plain_left > 0 every allocation must
 * leave g_reserve bytes free (planner_reserve); the third allocate-hook call
 * (the blobs) disarms it, and the planner's tables then fit. */
static size_t g_reserve;
static uint32_t g_plain_left;

/* The reserve for a graph of at most `num_values` XNNPACK values: the three
 * tables, each with its block header and alignment padding. */
static size_t planner_reserve(uint64_t num_values)
{
    const uint64_t bytes = num_values * (24u + 8u + 16u) + 3u * (16u + 16u);
    return bytes > (uint64_t)SIZE_MAX ? SIZE_MAX : (size_t)bytes;
}

/* A block: 16 bytes of header (its size, the pool mark before it) right before it. */
typedef struct block_header {
    size_t size;
    size_t mark;
} block_header_t;

/* `bytes` more (plus up to `align` - 1 of padding) still leave the planner's reserve free. */
static bool leaves_reserve(size_t bytes, size_t align)
{
    size_t avail;

    if (g_plain_left == 0u) {
        return true;
    }
    if (g_pool->used > g_pool->size || g_pool->size - g_pool->used < g_reserve) {
        return false;
    }
    avail = g_pool->size - g_pool->used - g_reserve;
    if (bytes > avail || align - 1u > avail - bytes) {
        return false;
    }
    /* the high-water mark counts the reserve: a pool of mote_method_backend_pool_used() bytes passes */
    bytes = g_pool->size - avail + bytes + (align - 1u);
    g_pool->peak = bytes > g_pool->peak ? bytes : g_pool->peak;
    return true;
}

static void *pool_allocate_aligned(void *context, size_t alignment, size_t size)
{
    size_t head = alignment > sizeof(block_header_t) ? alignment : sizeof(block_header_t);
    size_t mark;
    uint8_t *p;
    block_header_t *h;

    (void)context;
    if (g_pool == NULL || size > SIZE_MAX - head) {
        return NULL;
    }
    if (!leaves_reserve(head + size, alignment > 16u ? alignment : 16u)) {
        return NULL;
    }
    mark = g_pool->used;
    p = (uint8_t *)mote_pool_alloc(g_pool, head + size, alignment > 16u ? alignment : 16u);
    if (p == NULL) {
        return NULL;
    }
    h = (block_header_t *)(void *)(p + head - sizeof(block_header_t));
    h->size = size;
    h->mark = mark;
    return p + head;
}

static void *pool_allocate(void *context, size_t size)
{
    void *p = pool_allocate_aligned(context, 16u, size);
    if (p != NULL && g_plain_left > 0u) {
        g_plain_left--;
    }
    return p;
}

static block_header_t *header_of(void *ptr)
{
    return (block_header_t *)(void *)((uint8_t *)ptr - sizeof(block_header_t));
}

/* The last block gives its bytes back; any other stays until the method is re-initialised. */
static void pool_deallocate(void *context, void *ptr)
{
    (void)context;
    if (ptr != NULL && g_pool != NULL && (uint8_t *)ptr + header_of(ptr)->size == g_pool->base + g_pool->used) {
        mote_pool_release(g_pool, header_of(ptr)->mark);
    }
}

static void *pool_reallocate(void *context, void *ptr, size_t size)
{
    block_header_t *h;
    void *q;

    if (ptr == NULL) {
        return pool_allocate(context, size);
    }
    h = header_of(ptr);
    if (size <= h->size) {
        return ptr;
    }
    if (g_pool != NULL && (uint8_t *)ptr + h->size == g_pool->base + g_pool->used &&
        size - h->size <= g_pool->size - g_pool->used && leaves_reserve(size - h->size, 1u)) { /* grows in place */
        g_pool->used += size - h->size;
        g_pool->peak = g_pool->used > g_pool->peak ? g_pool->used : g_pool->peak;
        h->size = size;
        return ptr;
    }
    q = pool_allocate_aligned(context, 16u, size);
    if (q != NULL) {
        memcpy(q, ptr, h->size);
    }
    return q;
}

static const struct xnn_allocator k_allocator = {
    NULL, pool_allocate, pool_reallocate, pool_deallocate, pool_allocate_aligned, pool_deallocate,
};

static mote_err_t xnn_err(enum xnn_status s)
{
    if (s == xnn_status_success) {
        return MOTE_OK;
    }
    return s == xnn_status_out_of_memory ? MOTE_ERR_BACKEND_MEMORY : MOTE_ERR_BACKEND_PAYLOAD;
}

/* The verified parts of one payload. */
typedef struct payload {
    mote_fb_t fb;
    mote_fb_table_t graph;
    const uint8_t *consts;
    uint64_t consts_size;
    const uint8_t *end; /* the payload's end */
    mote_fb_vec_t const_entries;
    uint32_t *ids; /* id_out -> XNNPACK value id, per xvalue */
    uint32_t num_values;
    /* per value: OV_NONE, OV_HIDDEN (an edge transpose's argument side, not
     * defined), or the external flags the staged side takes over */
    uint8_t *ov_flags;
    uint32_t *ov_ext;   /* the argument index those take over */
    stage_t *stages;    /* the delegate's, filled by find_stages */
    uint32_t num_stages;
    xnn_dims_t *dims;   /* per value: its declared dims (the shape proof, xnnpack_shapes.h) */
    uint8_t *writable;  /* per value: a node may write it (not a constant, not an external input) */
    quant_t *quant;     /* per value: its verified element type and quantization */
    uint8_t *use;       /* per value: USE_* bits (every value a node writes must be read or an output) */
    const void **data;  /* per value: its constant bytes, or NULL */
    uint32_t *producer; /* per value: the index of the node writing it (prove_producers), or UINT32_MAX */
    uint32_t *stage_of; /* per value hidden by a via_convert stage: that stage's index in stages */
    uint8_t *ext_taken; /* per argument: an XNNPACK value is defined on its external id (at most one) */
    uint32_t num_externs;
    uint32_t num_nodes;
} payload_t;

#define OV_NONE 0u
#define OV_HIDDEN 0xFFu
#define OV_SKIP 0xFEu   /* a staged Convert's output: not defined (a node reading it fails) */
#define USE_READ 1u
#define USE_WRITTEN 2u
#define USE_OUTPUT 4u
#define USE_SOURCE 8u   /* a constant or an external input: readable before any node runs */
#define USE_PRODUCED 16u /* a node of the payload writes it (prove_producers: at most one) */

/* What XNNPACK's define function of a node kind takes (the schema's field
 * order): value inputs (field ids; `bias` the optional one or UINT8_MAX), the
 * output's field and the datatype rule (prove_dtypes). */
enum { DT_FLOAT = 1, DT_SAME, DT_CONVERT, DT_WEIGHTS };
typedef struct node_kind {
    uint8_t nin;
    uint8_t in[3];
    uint8_t bias;
    uint8_t out;
    uint8_t rule;
} node_kind_t;

/* Node kind `tag`'s fields and rule; false for a kind this backend does not define. */
static bool node_kind(uint8_t tag, node_kind_t *k)
{
    static const node_kind_t conv = {3u, {15u, 16u, 17u}, 17u, 18u, DT_WEIGHTS};
    static const node_kind_t fc = {3u, {0u, 1u, 2u}, 2u, 3u, DT_WEIGHTS};
    static const node_kind_t pool = {1u, {10u, 0u, 0u}, UINT8_MAX, 11u, DT_SAME};
    static const node_kind_t shape = {1u, {2u, 0u, 0u}, UINT8_MAX, 3u, DT_SAME};
    static const node_kind_t binary = {2u, {0u, 1u, 0u}, UINT8_MAX, 2u, DT_SAME};
    static const node_kind_t unary = {1u, {0u, 0u, 0u}, UINT8_MAX, 1u, DT_SAME};

    switch (tag) {
    case XN_CONV2D: case XN_DEPTHWISE_CONV2D: *k = conv; return true;
    case XN_FULLY_CONNECTED: *k = fc; return true;
    case XN_MAX_POOL: case XN_AVG_POOL: *k = pool; break;
    case XN_STATIC_TRANSPOSE: case XN_STATIC_RESHAPE: *k = shape; break;
    case XN_ADD: case XN_MULTIPLY: case XN_SUBTRACT: case XN_DIV: case XN_MINIMUM: *k = binary; break;
    case XN_CLAMP: case XN_SIGMOID: case XN_SOFTMAX: case XN_GLOBAL_AVG_POOL: case XN_FLOOR: case XN_CEILING:
    case XN_SQRT: case XN_HARDSWISH: case XN_CONVERT: *k = unary; break;
    default: return false;
    }
    switch (tag) { /* XNNPACK 2022 defines these for fp32 only; the others also for qint8 */
    case XN_AVG_POOL: case XN_DIV: case XN_MINIMUM: case XN_SOFTMAX: case XN_FLOOR: case XN_CEILING: case XN_SQRT:
    case XN_HARDSWISH: k->rule = DT_FLOAT; break;
    case XN_CONVERT: k->rule = DT_CONVERT; break;
    default: break;
    }
    return true;
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* Header and flatbuffer root. Errors: BACKEND_PAYLOAD, flatbuffer errors. */
static mote_err_t payload_open(const mote_delegate_init_t *ctx, payload_t *p)
{
    const uint8_t *d = ctx->payload;
    uint64_t fb_off, fb_size, c_off, c_size;

    MOTE_CHECK(d != NULL && ctx->payload_size >= XH_MIN_HEADER && memcmp(d + 4, "XH00", 4) == 0,
               MOTE_ERR_BACKEND_PAYLOAD);
    MOTE_CHECK(((uint32_t)d[8] | ((uint32_t)d[9] << 8)) >= XH_MIN_HEADER, MOTE_ERR_BACKEND_PAYLOAD);
    fb_off = rd32(d + 10);
    fb_size = rd32(d + 14);
    c_off = rd32(d + 18);
    c_size = (uint64_t)rd32(d + 22) | ((uint64_t)rd32(d + 26) << 32);
    MOTE_CHECK(fb_off <= ctx->payload_size && fb_size <= ctx->payload_size - fb_off && fb_size >= 8u,
               MOTE_ERR_BACKEND_PAYLOAD);
    MOTE_CHECK(c_off <= ctx->payload_size && c_size <= ctx->payload_size - c_off, MOTE_ERR_BACKEND_PAYLOAD);
    p->fb.buf = d + fb_off;
    p->fb.size = (uint32_t)fb_size;
    MOTE_CHECK(memcmp(p->fb.buf + 4, "XN01", 4) == 0, MOTE_ERR_BACKEND_PAYLOAD);
    p->consts = d + c_off;
    p->consts_size = c_size;
    p->end = d + ctx->payload_size;
    MOTE_TRY(mote_fb_root(&p->fb, &p->graph));
    return mote_fb_vec_field(&p->fb, &p->graph, XG_CONSTANTS, 4u, &p->const_entries);
}

static uint32_t scalar_u32(const payload_t *p, const mote_fb_table_t *t, uint32_t id, uint32_t def, mote_err_t *err)
{
    uint64_t v = def;
    if (*err == MOTE_OK) {
        *err = mote_fb_scalar(&p->fb, t, id, 4u, def, &v);
    }
    return (uint32_t)v;
}

/* Bytes readable after [ptr, ptr + n): up to the end of the program file or
 * of its .ptd when ptr lies in one, else `fallback` (what the caller knows). */
static size_t bytes_after(const mote_program_t *prog, const uint8_t *ptr, size_t n, size_t fallback)
{
    const uintptr_t at = (uintptr_t)ptr;
    const uint8_t *base[2];
    size_t size[2];
    uint32_t i;

    base[0] = prog->data;
    size[0] = prog->size;
    base[1] = prog->data_map != NULL ? prog->data_map->data : NULL;
    size[1] = prog->data_map != NULL ? prog->data_map->size : 0u;
    for (i = 0; i < 2u; i++) {
        if (base[i] != NULL && at >= (uintptr_t)base[i] && at - (uintptr_t)base[i] <= size[i] &&
            n <= size[i] - (at - (uintptr_t)base[i])) {
            return size[i] - (at - (uintptr_t)base[i]) - n;
        }
    }
    return fallback;
}

/* Constant entry `k`'s bytes: exactly `nbytes`, 4-byte aligned, inside the
 * payload's constant data, or the program's named data its named_key names
 * (ExecuTorch keeps delegate weights there). *after (unless NULL): how many
 * bytes of the same buffer (the payload, the named entry) follow them. */
static mote_err_t constant_data(const payload_t *p, const mote_program_t *prog, uint32_t k, uint64_t nbytes,
                                const void **data, size_t *after)
{
    mote_fb_table_t e;
    uint64_t off, size;
    const char *key;
    const uint8_t *named;
    uint32_t key_len;
    size_t named_size;

    MOTE_CHECK(k < p->const_entries.len, MOTE_ERR_BACKEND_PAYLOAD);
    MOTE_TRY(mote_fb_vec_table(&p->fb, &p->const_entries, k, &e));
    MOTE_TRY(mote_fb_scalar(&p->fb, &e, 0, 8u, 0u, &off));
    MOTE_TRY(mote_fb_scalar(&p->fb, &e, 1, 8u, 0u, &size));
    MOTE_TRY(mote_fb_string_field(&p->fb, &e, 2, &key, &key_len));
    MOTE_CHECK(size == nbytes, MOTE_ERR_BACKEND_PAYLOAD);
    if (key != NULL && key_len > 0u) {
        MOTE_TRY(mote_program_named_data(prog, key, key_len, &named, &named_size));
        MOTE_CHECK((uint64_t)named_size >= nbytes && (((uintptr_t)named) & 3u) == 0u, MOTE_ERR_BACKEND_PAYLOAD);
        *data = named;
        if (after != NULL) {
            *after = bytes_after(prog, named, (size_t)nbytes, named_size - (size_t)nbytes);
        }
        return MOTE_OK;
    }
    MOTE_CHECK(off <= p->consts_size && size <= p->consts_size - off, MOTE_ERR_BACKEND_PAYLOAD);
    MOTE_CHECK((((uintptr_t)(p->consts + off)) & 3u) == 0u, MOTE_ERR_BACKEND_PAYLOAD);
    *data = p->consts + off;
    if (after != NULL) {
        *after = bytes_after(prog, p->consts + off, (size_t)size, (size_t)(p->end - (p->consts + off + size)));
    }
    return MOTE_OK;
}

/* An external value's argument: an fp32 (or, for a qint8 value, int8) tensor of the value's element count. */
static mote_err_t check_arg(const mote_value_t *v, uint64_t numel, const quant_t *q)
{
    MOTE_CHECK(v->tag == MOTE_TAG_TENSOR, MOTE_ERR_KERNEL_ARGS);
    MOTE_CHECK(q->dtype == xnn_datatype_fp32 || q->dtype == xnn_datatype_qint8, MOTE_ERR_BACKEND_PAYLOAD);
    MOTE_CHECK(v->u.t->dtype == (q->dtype == xnn_datatype_fp32 ? MOTE_DTYPE_FLOAT32 : MOTE_DTYPE_INT8),
               MOTE_ERR_KERNEL_DTYPE);
    MOTE_CHECK((uint64_t)v->u.t->numel == numel && (uint64_t)v->u.t->nbytes == numel * q->elsize,
               MOTE_ERR_KERNEL_SHAPE);
    return MOTE_OK;
}

/* An external value's argument index and flags: an argument of the call, and
 * what XNNPACK writes one of the trailing outputs init proves writable. */
static mote_err_t check_external(const mote_delegate_init_t *ctx, uint32_t num_externs, uint32_t ext, uint32_t flags)
{
    MOTE_CHECK(ext < num_externs, MOTE_ERR_BACKEND_PAYLOAD);
    MOTE_CHECK(!(flags & XNN_VALUE_FLAG_EXTERNAL_OUTPUT) || ext >= num_externs - ctx->num_outputs,
               MOTE_ERR_BACKEND_PAYLOAD);
    return MOTE_OK;
}

/* XValue `xv`'s tensor table and, for a quantized value, its XNNQuantParams
 * table and tag (*qtag 0 for a plain tensor). */
static mote_err_t value_tensor(const payload_t *p, const mote_fb_table_t *xv, mote_fb_table_t *t,
                               mote_fb_table_t *qt, uint8_t *qtag)
{
    uint8_t tag;
    bool present;
    mote_fb_table_t outer;

    *qtag = 0;
    MOTE_TRY(mote_fb_union_field(&p->fb, xv, 0, XV_QUANTIZED, &tag, &outer));
    if (tag == XV_TENSOR) {
        *t = outer;
        return MOTE_OK;
    }
    MOTE_CHECK(tag == XV_QUANTIZED, MOTE_ERR_BACKEND_PAYLOAD);
    MOTE_TRY(mote_fb_table_field(&p->fb, &outer, XQ_TENSOR, t, &present));
    MOTE_CHECK(present, MOTE_ERR_BACKEND_PAYLOAD);
    MOTE_TRY(mote_fb_union_field(&p->fb, &outer, XQ_PARAMS, XQP_MAX_TAG, qtag, qt));
    MOTE_CHECK(*qtag == XQP_PER_TENSOR || *qtag == XQP_PER_CHANNEL, MOTE_ERR_BACKEND_PAYLOAD); /* not dynamic */
    return MOTE_OK;
}

static float f32_bits(uint64_t v)
{
    uint32_t u = (uint32_t)v;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* A scale XNNPACK takes: positive, normal, finite. */
static bool good_scale(float s)
{
    return isnormal(s) && s > 0.0f;
}

/* The element type and quantization of a value of datatype `dtype` and
 * `ndim` dims `shape`: fp32 unquantized; qint8 / qint32 per tensor (int8
 * zero point in [-128, 127], int32 zero point 0); qcint8 / qcint32 per
 * channel (one good scale per entry of dim channel_dim, inline or in
 * constant data entry scale_buffer_idx). BACKEND_PAYLOAD otherwise. */
static mote_err_t check_quant(const payload_t *p, const mote_program_t *prog, uint64_t dtype,
                              const mote_fb_table_t *qt, uint8_t qtag, const size_t *shape, uint32_t ndim,
                              quant_t *q)
{
    uint64_t v;
    mote_err_t err = MOTE_OK;
    uint32_t k;

    q->kind = qtag;
    q->dtype = (enum xnn_datatype)dtype;
    q->elsize = (dtype == (uint64_t)xnn_datatype_qint8 || dtype == (uint64_t)xnn_datatype_qcint8) ? 1u : 4u;
    if (qtag == 0u) {
        MOTE_CHECK(dtype == (uint64_t)xnn_datatype_fp32, MOTE_ERR_BACKEND_PAYLOAD);
        return MOTE_OK;
    }
    if (qtag == XQP_PER_TENSOR) {
        MOTE_CHECK(dtype == (uint64_t)xnn_datatype_qint8 || dtype == (uint64_t)xnn_datatype_qint32,
                   MOTE_ERR_BACKEND_PAYLOAD);
        MOTE_TRY(mote_fb_scalar(&p->fb, qt, 0, 4u, 0u, &v));
        q->scale = f32_bits(v);
        MOTE_TRY(mote_fb_scalar(&p->fb, qt, 1, 4u, 0u, &v));
        q->zero_point = (int32_t)(uint32_t)v;
        MOTE_CHECK(good_scale(q->scale), MOTE_ERR_BACKEND_PAYLOAD);
        MOTE_CHECK(dtype == (uint64_t)xnn_datatype_qint8 ? (q->zero_point >= -128 && q->zero_point <= 127)
                                                           : q->zero_point == 0,
                   MOTE_ERR_BACKEND_PAYLOAD);
        return MOTE_OK;
    }
    MOTE_CHECK(dtype == (uint64_t)xnn_datatype_qcint8 || dtype == (uint64_t)xnn_datatype_qcint32,
               MOTE_ERR_BACKEND_PAYLOAD);
    {
        mote_fb_vec_t scales;
        uint32_t idx;
        const void *data = NULL;
        MOTE_TRY(mote_fb_scalar(&p->fb, qt, 1, 4u, 0u, &v));
        MOTE_CHECK(v < ndim, MOTE_ERR_BACKEND_PAYLOAD);
        q->channel_dim = (uint32_t)v;
        MOTE_TRY(mote_fb_vec_field(&p->fb, qt, 0, 4u, &scales));
        if (scales.len > 0u) {
            MOTE_CHECK(scales.len == shape[q->channel_dim], MOTE_ERR_BACKEND_PAYLOAD);
            data = p->fb.buf + scales.pos;
        } else { /* ExecuTorch may keep the scales in constant data */
            idx = scalar_u32(p, qt, 2, 0u, &err);
            MOTE_TRY(err);
            MOTE_CHECK(idx != 0u, MOTE_ERR_BACKEND_PAYLOAD);
            MOTE_TRY(constant_data(p, prog, idx, (uint64_t)shape[q->channel_dim] * 4u, &data, NULL));
        }
        MOTE_CHECK((((uintptr_t)data) & 3u) == 0u, MOTE_ERR_BACKEND_PAYLOAD);
        q->scales = (const float *)data;
        for (k = 0; k < shape[q->channel_dim]; k++) {
            MOTE_CHECK(good_scale(q->scales[k]), MOTE_ERR_BACKEND_PAYLOAD);
        }
    }
    return MOTE_OK;
}

/* Defines value `xid`-to-be in XNNPACK as `q` says. */
static mote_err_t define_as(xnn_subgraph_t sg, const quant_t *q, uint32_t ndim, const size_t *shape,
                            const void *data, uint32_t ext, uint32_t flags, uint32_t *xid)
{
    if (q->kind == 0u) {
        return xnn_err(xnn_define_tensor_value(sg, xnn_datatype_fp32, ndim, shape, data, ext, flags, xid));
    }
    if (q->kind == XQP_PER_TENSOR) {
        return xnn_err(xnn_define_quantized_tensor_value(sg, q->dtype, q->zero_point, q->scale, ndim, shape, data,
                                                         ext, flags, xid));
    }
    return xnn_err(xnn_define_channelwise_quantized_tensor_value(sg, q->dtype, q->scales, ndim, q->channel_dim,
                                                                 shape, data, ext, flags, xid));
}

/* XNNPACK keeps one value per external id: a second value defined on `ext`
 * would replace the first one's dims and datatype under the nodes already
 * proven against them. BACKEND_PAYLOAD when `ext` is taken (INVALID: internal). */
static mote_err_t take_external(const payload_t *p, uint32_t ext)
{
    if (ext == XNN_INVALID_VALUE_ID) {
        return MOTE_OK;
    }
    MOTE_CHECK(ext < p->num_externs && !p->ext_taken[ext], MOTE_ERR_BACKEND_PAYLOAD);
    p->ext_taken[ext] = 1u;
    return MOTE_OK;
}

/* Defines xvalue `i` and records its XNNPACK id. */
static mote_err_t define_value(payload_t *p, xnn_subgraph_t sg, const mote_fb_vec_t *values, uint32_t i,
                               const mote_delegate_init_t *ctx, uint32_t num_externs)
{
    mote_fb_table_t xv, t, qt;
    mote_fb_vec_t dims;
    uint8_t qtag;
    size_t shape[XN_MAX_DIMS];
    uint64_t numel = 1, dtype;
    uint32_t k, cidx, ext, flags, id, xid;
    const void *data = NULL;
    quant_t q;
    mote_err_t err = MOTE_OK;

    MOTE_TRY(mote_fb_vec_table(&p->fb, values, i, &xv));
    MOTE_TRY(value_tensor(p, &xv, &t, &qt, &qtag));
    MOTE_TRY(mote_fb_scalar(&p->fb, &t, XT_DATATYPE, 2u, 0u, &dtype));
    MOTE_TRY(mote_fb_vec_field(&p->fb, &t, XT_DIMS, 4u, &dims));
    MOTE_CHECK(dims.len <= XN_MAX_DIMS && scalar_u32(p, &t, XT_NUM_DIMS, 0u, &err) == dims.len,
               MOTE_ERR_BACKEND_PAYLOAD);
    for (k = 0; k < dims.len; k++) {
        shape[k] = mote_fb_u32_at(&p->fb, dims.pos + 4u * k);
        /* no empty tensors: XNNPACK gives no workspace to a graph whose internal values
         * all have 0 bytes, and a node's setup asserts its output's data is not NULL */
        MOTE_CHECK(shape[k] >= 1u, MOTE_ERR_BACKEND_PAYLOAD);
        numel *= shape[k]; /* at most 6 factors below 2^32 each: checked below before any use */
        MOTE_CHECK(numel <= (uint64_t)UINT32_MAX, MOTE_ERR_SIZE_OVERFLOW);
    }
    MOTE_TRY(check_quant(p, ctx->prog, dtype, &qt, qtag, shape, dims.len, &q));
    cidx = scalar_u32(p, &t, XT_CONST, 0u, &err);
    ext = scalar_u32(p, &t, XT_EXTERNAL, 0u, &err); /* the schema's defaults are 0 */
    flags = scalar_u32(p, &t, XT_FLAGS, 0u, &err);
    id = scalar_u32(p, &t, XT_ID, 0u, &err);
    MOTE_TRY(err);
    MOTE_CHECK(id < p->num_values && p->ids[id] == XNN_INVALID_VALUE_ID, MOTE_ERR_BACKEND_PAYLOAD);
    MOTE_CHECK((flags & ~(uint32_t)(XNN_VALUE_FLAG_EXTERNAL_INPUT | XNN_VALUE_FLAG_EXTERNAL_OUTPUT)) == 0u,
               MOTE_ERR_BACKEND_PAYLOAD);
    p->dims[id].n = dims.len;
    for (k = 0; k < dims.len; k++) {
        p->dims[id].d[k] = (uint32_t)shape[k];
    }
    p->writable[id] = cidx == 0u && !(flags & XNN_VALUE_FLAG_EXTERNAL_INPUT);
    if (p->ov_flags[id] == OV_SKIP) {
        MOTE_CHECK(flags == 0u && cidx == 0u, MOTE_ERR_BACKEND_PAYLOAD);
        return MOTE_OK;
    }
    if (p->ov_flags[id] != OV_NONE) { /* edge transposes are staged as floats (find_stage) */
        MOTE_CHECK(q.kind == 0u, MOTE_ERR_BACKEND_PAYLOAD);
    }
    if (p->ov_flags[id] == OV_HIDDEN) { /* an edge transpose's argument side: staged instead */
        MOTE_TRY(check_external(ctx, num_externs, ext, flags));
        return check_arg(ctx->args[ext], numel, &q);
    }
    if (p->ov_flags[id] != OV_NONE) {   /* the staged side of an edge transpose: the argument's flags */
        flags = p->ov_flags[id];
        ext = p->ov_ext[id];
        p->writable[id] = !(flags & XNN_VALUE_FLAG_EXTERNAL_INPUT);
        MOTE_CHECK(cidx == 0u, MOTE_ERR_BACKEND_PAYLOAD);
        MOTE_TRY(check_external(ctx, num_externs, ext, flags));
    } else if (flags != 0u) { /* external: argument `ext` of the call */
        MOTE_CHECK(cidx == 0u, MOTE_ERR_BACKEND_PAYLOAD);
        MOTE_TRY(check_external(ctx, num_externs, ext, flags));
        MOTE_TRY(check_arg(ctx->args[ext], numel, &q));
    } else {
        ext = XNN_INVALID_VALUE_ID;
    }
    if (cidx != 0u) {
        size_t after;
        MOTE_TRY(constant_data(p, ctx->prog, cidx, numel * q.elsize, &data, &after));
        if (after < XNN_EXTRA_BYTES) { /* XNNPACK reads up to XNN_EXTRA_BYTES past a tensor's data */
            uint8_t *copy = (uint8_t *)mote_pool_alloc(ctx->pool, (size_t)(numel * q.elsize) + XNN_EXTRA_BYTES, 16u);
            MOTE_CHECK(copy != NULL, MOTE_ERR_BACKEND_MEMORY);
            memcpy(copy, data, (size_t)(numel * q.elsize));
            memset(copy + numel * q.elsize, 0, XNN_EXTRA_BYTES);
            data = copy;
        }
    }
    MOTE_TRY(take_external(p, ext));
    MOTE_TRY(define_as(sg, &q, dims.len, shape, data, ext, flags, &xid));
    p->ids[id] = xid;
    p->use[id] = (uint8_t)(((flags & XNN_VALUE_FLAG_EXTERNAL_OUTPUT) ? USE_OUTPUT : 0u) |
                           ((data != NULL || (flags & XNN_VALUE_FLAG_EXTERNAL_INPUT)) ? USE_SOURCE : 0u));
    p->quant[id] = q;
    p->data[id] = data;
    return MOTE_OK;
}

/* Node field `f` as a defined value's XNNPACK id (INVALID stays INVALID where
 * `optional`); *dims its declared dims (NULL for an absent optional one). */
static uint32_t value_of(const payload_t *p, const mote_fb_table_t *n, uint32_t f, int optional, mote_err_t *err,
                         const xnn_dims_t **dims, uint32_t *raw)
{
    uint32_t id = scalar_u32(p, n, f, 0u, err);
    *dims = NULL;
    *raw = id;
    if (*err != MOTE_OK) {
        return XNN_INVALID_VALUE_ID;
    }
    if (optional && id == XNN_INVALID_VALUE_ID) {
        return id;
    }
    if (id >= p->num_values || p->ids[id] == XNN_INVALID_VALUE_ID) {
        *err = MOTE_ERR_BACKEND_PAYLOAD;
        return XNN_INVALID_VALUE_ID;
    }
    *dims = &p->dims[id];
    return p->ids[id];
}

/* A value a node reads: a constant, an input, or what an earlier node wrote
 * (Debian's XNNPACK gives a value no node writes no memory, and asserts). */
static uint32_t node_val(const payload_t *p, const mote_fb_table_t *n, uint32_t f, int optional, mote_err_t *err,
                         const xnn_dims_t **dims)
{
    uint32_t raw, id = value_of(p, n, f, optional, err, dims, &raw);
    if (*err == MOTE_OK && id != XNN_INVALID_VALUE_ID) {
        if (!(p->use[raw] & (USE_WRITTEN | USE_SOURCE))) {
            *err = MOTE_ERR_BACKEND_PAYLOAD;
            return XNN_INVALID_VALUE_ID;
        }
        p->use[raw] |= USE_READ;
    }
    return id;
}

/* A value a node writes: not a constant (program bytes), not an input argument. */
static uint32_t node_out(const payload_t *p, const mote_fb_table_t *n, uint32_t f, mote_err_t *err,
                         const xnn_dims_t **dims)
{
    uint32_t raw, id = value_of(p, n, f, 0, err, dims, &raw);
    if (*err == MOTE_OK && !p->writable[raw]) {
        *err = MOTE_ERR_BACKEND_PAYLOAD;
    }
    if (*err == MOTE_OK) {
        p->use[raw] |= USE_WRITTEN;
    }
    return id;
}

/* XNode.output_min_max (field 3): the fused clamp; none = unbounded. */
static mote_err_t node_min_max(const payload_t *p, const mote_fb_table_t *xn, float *lo, float *hi)
{
    mote_fb_table_t mm;
    uint64_t a, b;
    uint32_t ua, ub;
    bool present;

    *lo = -INFINITY;
    *hi = INFINITY;
    MOTE_TRY(mote_fb_table_field(&p->fb, xn, 3, &mm, &present));
    if (present) {
        MOTE_TRY(mote_fb_scalar(&p->fb, &mm, 0, 4u, 0u, &a));
        MOTE_TRY(mote_fb_scalar(&p->fb, &mm, 1, 4u, 0u, &b));
        ua = (uint32_t)a;
        ub = (uint32_t)b;
        memcpy(lo, &ua, 4);
        memcpy(hi, &ub, 4);
        MOTE_CHECK(!(*lo > *hi), MOTE_ERR_BACKEND_PAYLOAD);
    }
    return MOTE_OK;
}

/* Convolution and depthwise convolution (fields: 4 paddings, kernel, stride,
 * dilation, group channels, groups, adjustments, input, filter, bias, output, flags). */
static mote_err_t define_conv(const payload_t *p, xnn_subgraph_t sg, const mote_fb_table_t *n, uint8_t tag,
                              float lo, float hi)
{
    uint32_t f[15], k, in, filt, bias, out, flags;
    const xnn_dims_t *din, *dfilt, *dbias, *dout;
    mote_err_t err = MOTE_OK;

    for (k = 0; k < 15u; k++) {
        f[k] = scalar_u32(p, n, k, 0u, &err);
    }
    in = node_val(p, n, 15, 0, &err, &din);
    filt = node_val(p, n, 16, 0, &err, &dfilt);
    bias = node_val(p, n, 17, 1, &err, &dbias);
    out = node_out(p, n, 18, &err, &dout);
    flags = scalar_u32(p, n, 19, 0u, &err);
    MOTE_TRY(err);
    MOTE_CHECK(flags == 0u, MOTE_ERR_BACKEND_PAYLOAD); /* e.g. TensorFlow SAME padding: other output sizes */
    MOTE_TRY(xnn_check_conv(din, dfilt, dbias, dout, f, tag == XN_DEPTHWISE_CONV2D));
    if (tag == XN_DEPTHWISE_CONV2D) { /* groups = channels, group_output_channels = depth multiplier */
        return xnn_err(xnn_define_depthwise_convolution_2d(sg, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7],
                                                           f[8], f[9], f[11], f[12], lo, hi, in, filt, bias, out,
                                                           flags));
    }
    return xnn_err(xnn_define_convolution_2d(sg, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9],
                                             f[12], f[10], f[11], lo, hi, in, filt, bias, out, flags));
}

/* Max / average pooling (4 paddings, pooling, stride, dilation, input, output, flags). */
static mote_err_t define_pool(const payload_t *p, xnn_subgraph_t sg, const mote_fb_table_t *n, uint8_t tag,
                              float lo, float hi)
{
    uint32_t f[10], k, in, out, flags;
    const xnn_dims_t *din, *dout;
    mote_err_t err = MOTE_OK;

    for (k = 0; k < 10u; k++) {
        f[k] = scalar_u32(p, n, k, 0u, &err);
    }
    in = node_val(p, n, 10, 0, &err, &din);
    out = node_out(p, n, 11, &err, &dout);
    flags = scalar_u32(p, n, 12, 0u, &err);
    MOTE_TRY(err);
    MOTE_CHECK(flags == 0u, MOTE_ERR_BACKEND_PAYLOAD);
    MOTE_TRY(xnn_check_pool(din, dout, f));
    if (tag == XN_MAX_POOL) {
        return xnn_err(xnn_define_max_pooling_2d(sg, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9],
                                                 lo, hi, in, out, flags));
    }
    MOTE_CHECK(f[8] <= 1u && f[9] <= 1u, MOTE_ERR_BACKEND_PAYLOAD); /* XNNPACK's average pooling has no dilation */
    return xnn_err(xnn_define_average_pooling_2d(sg, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], lo, hi, in,
                                                 out, flags));
}

/* A transpose that only moves dimensions of size 1 keeps the bytes in order:
 * a reshape (Debian's 2022 XNNPACK has no subgraph transpose). Fields: num_dims,
 * perm, input, output, flags. A transpose that moves data inside the
 * subgraph: BACKEND_PAYLOAD (at its edges find_stage stages it). */
static mote_err_t define_transpose(const payload_t *p, xnn_subgraph_t sg, const mote_fb_table_t *n)
{
    mote_fb_vec_t perm;
    size_t shape[XN_MAX_DIMS];
    uint32_t k, last = 0, in, out, flags, src;
    const xnn_dims_t *din, *dout;
    xnn_dims_t permuted;
    mote_err_t err = MOTE_OK;

    MOTE_TRY(mote_fb_vec_field(&p->fb, n, 1, 4u, &perm));
    in = node_val(p, n, 2, 0, &err, &din);
    out = node_out(p, n, 3, &err, &dout);
    flags = scalar_u32(p, n, 4, 0u, &err);
    MOTE_TRY(err);
    MOTE_CHECK(perm.len == din->n, MOTE_ERR_BACKEND_PAYLOAD);
    permuted.n = perm.len;
    for (k = 0; k < perm.len; k++) {
        src = mote_fb_u32_at(&p->fb, perm.pos + 4u * k);
        MOTE_CHECK(src < din->n, MOTE_ERR_BACKEND_PAYLOAD);
        permuted.d[k] = din->d[src];
        shape[k] = din->d[src];
        if (din->d[src] != 1u) { /* dimensions of size > 1 must keep their order */
            MOTE_CHECK(src + 1u > last, MOTE_ERR_BACKEND_PAYLOAD);
            last = src + 1u;
        }
    }
    MOTE_TRY(xnn_check_same(&permuted, dout));
    return xnn_err(xnn_define_static_reshape(sg, perm.len, shape, in, out, flags));
}

static mote_err_t define_reshape(const payload_t *p, xnn_subgraph_t sg, const mote_fb_table_t *n)
{
    mote_fb_vec_t shape;
    size_t dims[XN_MAX_DIMS];
    uint32_t k, in, out, flags;
    const xnn_dims_t *din, *dout;
    xnn_dims_t want;
    mote_err_t err = MOTE_OK;

    MOTE_TRY(mote_fb_vec_field(&p->fb, n, 1, 4u, &shape));
    MOTE_CHECK(shape.len <= XN_MAX_DIMS, MOTE_ERR_BACKEND_PAYLOAD);
    want.n = shape.len;
    for (k = 0; k < shape.len; k++) {
        dims[k] = mote_fb_u32_at(&p->fb, shape.pos + 4u * k);
        want.d[k] = (uint32_t)dims[k];
    }
    in = node_val(p, n, 2, 0, &err, &din);
    out = node_out(p, n, 3, &err, &dout);
    flags = scalar_u32(p, n, 4, 0u, &err);
    MOTE_TRY(err);
    MOTE_TRY(xnn_check_numel(din, dout));
    MOTE_TRY(xnn_check_same(&want, dout));
    return xnn_err(xnn_define_static_reshape(sg, shape.len, dims, in, out, flags));
}

/* Two inputs, one output (fields input1, input2, output, flags). */
static mote_err_t define_binary(const payload_t *p, xnn_subgraph_t sg, const mote_fb_table_t *n, uint8_t tag,
                                float lo, float hi)
{
    mote_err_t err = MOTE_OK;
    const xnn_dims_t *da, *db, *dout;
    uint32_t a = node_val(p, n, 0, 0, &err, &da), b = node_val(p, n, 1, 0, &err, &db);
    uint32_t out = node_out(p, n, 2, &err, &dout);
    uint32_t flags = scalar_u32(p, n, 3, 0u, &err);

    MOTE_TRY(err);
    MOTE_TRY(xnn_check_broadcast(da, db, dout));
    switch (tag) {
    case XN_ADD: return xnn_err(xnn_define_add2(sg, lo, hi, a, b, out, flags));
    case XN_MULTIPLY: return xnn_err(xnn_define_multiply2(sg, lo, hi, a, b, out, flags));
    case XN_SUBTRACT: return xnn_err(xnn_define_subtract(sg, lo, hi, a, b, out, flags));
    case XN_DIV: return xnn_err(xnn_define_divide(sg, lo, hi, a, b, out, flags));
    default: return xnn_err(xnn_define_minimum2(sg, a, b, out, flags)); /* XN_MINIMUM */
    }
}

/* One input, one output (fields input, output, flags). */
static mote_err_t define_unary(const payload_t *p, xnn_subgraph_t sg, const mote_fb_table_t *n, uint8_t tag,
                               float lo, float hi)
{
    mote_err_t err = MOTE_OK;
    const xnn_dims_t *din, *dout;
    uint32_t in = node_val(p, n, 0, 0, &err, &din), out = node_out(p, n, 1, &err, &dout);
    uint32_t flags = scalar_u32(p, n, 2, 0u, &err);

    MOTE_TRY(err);
    MOTE_TRY(tag == XN_GLOBAL_AVG_POOL ? xnn_check_global_pool(din, dout) : xnn_check_same(din, dout));
    switch (tag) {
    case XN_CLAMP: return xnn_err(xnn_define_clamp(sg, lo, hi, in, out, flags));
    case XN_SIGMOID: return xnn_err(xnn_define_sigmoid(sg, in, out, flags));
    case XN_SOFTMAX: return xnn_err(xnn_define_softmax(sg, in, out, flags));
    case XN_GLOBAL_AVG_POOL: /* XNNPACK's later KEEP_DIMS flag (0x40): the 2022 library always keeps them */
        return xnn_err(xnn_define_global_average_pooling_2d(sg, lo, hi, in, out, flags & ~(uint32_t)0x40u));
    case XN_FLOOR: return xnn_err(xnn_define_floor(sg, in, out, flags));
    case XN_CEILING: return xnn_err(xnn_define_ceiling(sg, in, out, flags));
    case XN_SQRT: return xnn_err(xnn_define_square_root(sg, in, out, flags));
    case XN_CONVERT: return xnn_err(xnn_define_convert(sg, in, out, flags)); /* fp32 <-> qint8 */
    default: return xnn_err(xnn_define_hardswish(sg, in, out, flags)); /* XN_HARDSWISH */
    }
}

/* An internal qint8 value of `n` dims quantized as value `like` (per tensor). */
static mote_err_t temp_like(const payload_t *p, xnn_subgraph_t sg, uint32_t like, uint32_t n, const size_t *shape,
                            uint32_t *xid)
{
    const quant_t *q = &p->quant[like];
    return xnn_err(xnn_define_quantized_tensor_value(sg, xnn_datatype_qint8, q->zero_point, q->scale, n, shape, NULL,
                                                     XNN_INVALID_VALUE_ID, 0u, xid));
}

/* A fully connected node with per-channel int8 weights (qcint8 [OC, IC]):
 * Debian's 2022 XNNPACK has no qc8 fully connected, so it runs as the same
 * arithmetic in a 1x1 convolution on [M, 1, 1, IC] (reshape in, convolve,
 * reshape out) with the filter's bytes seen as [OC, 1, 1, IC]. */
static mote_err_t define_fc_qc8(const payload_t *p, xnn_subgraph_t sg, const uint32_t raw[4], const uint32_t xid[4],
                                float lo, float hi)
{
    const xnn_dims_t *din = &p->dims[raw[0]], *dfilt = &p->dims[raw[1]];
    const quant_t *fq = &p->quant[raw[1]];
    size_t ic = dfilt->d[1], oc = dfilt->d[0], m = (size_t)(xnn_numel(din) / ic);
    size_t x4[4] = {m, 1, 1, ic}, f4[4] = {oc, 1, 1, ic}, y4[4] = {m, 1, 1, oc};
    uint32_t xin, filt, yout;

    MOTE_CHECK(fq->channel_dim == 0u && p->data[raw[1]] != NULL && p->quant[raw[0]].kind == XQP_PER_TENSOR &&
                   p->quant[raw[3]].kind == XQP_PER_TENSOR,
               MOTE_ERR_BACKEND_PAYLOAD);
    MOTE_TRY(temp_like(p, sg, raw[0], 4u, x4, &xin));
    MOTE_TRY(temp_like(p, sg, raw[3], 4u, y4, &yout));
    MOTE_TRY(xnn_err(xnn_define_channelwise_quantized_tensor_value(sg, xnn_datatype_qcint8, fq->scales, 4u, 0u, f4,
                                                                   p->data[raw[1]], XNN_INVALID_VALUE_ID, 0u,
                                                                   &filt)));
    MOTE_TRY(xnn_err(xnn_define_static_reshape(sg, 4u, x4, xid[0], xin, 0u)));
    MOTE_TRY(xnn_err(xnn_define_convolution_2d(sg, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, ic, oc, lo, hi, xin, filt, xid[2],
                                               yout, 0u)));
    {
        const xnn_dims_t *dout = &p->dims[raw[3]];
        size_t shape[XN_MAX_DIMS];
        uint32_t k;
        for (k = 0; k < dout->n; k++) {
            shape[k] = dout->d[k];
        }
        return xnn_err(xnn_define_static_reshape(sg, dout->n, shape, yout, xid[3], 0u));
    }
}

/* Fully connected (fields input, filter, bias, output, flags). */
static mote_err_t define_fc(const payload_t *p, xnn_subgraph_t sg, const mote_fb_table_t *n, float lo, float hi)
{
    const xnn_dims_t *din, *dfilt, *dbias, *dout;
    mote_err_t err = MOTE_OK;
    uint32_t raw[4], xid[4], k, flags;

    xid[0] = node_val(p, n, 0, 0, &err, &din);
    xid[1] = node_val(p, n, 1, 0, &err, &dfilt);
    xid[2] = node_val(p, n, 2, 1, &err, &dbias);
    xid[3] = node_out(p, n, 3, &err, &dout);
    flags = scalar_u32(p, n, 4, 0u, &err);
    for (k = 0; k < 4u; k++) {
        raw[k] = scalar_u32(p, n, k, 0u, &err); /* node_val proved each below num_values (or no bias) */
    }
    MOTE_TRY(err);
    MOTE_CHECK((flags & ~(uint32_t)(XNN_FLAG_TRANSPOSE_WEIGHTS | XNN_FLAG_TENSORFLOW_RESHAPE_2D)) == 0u,
               MOTE_ERR_BACKEND_PAYLOAD);
    MOTE_TRY(xnn_check_fc(din, dfilt, dbias, dout, (flags & XNN_FLAG_TRANSPOSE_WEIGHTS) != 0u));
    if (p->quant[raw[1]].dtype == xnn_datatype_qcint8) {
        MOTE_CHECK(!(flags & XNN_FLAG_TRANSPOSE_WEIGHTS) && dbias != NULL, MOTE_ERR_BACKEND_PAYLOAD);
        return define_fc_qc8(p, sg, raw, xid, lo, hi);
    }
    return xnn_err(xnn_define_fully_connected(sg, lo, hi, xid[0], xid[1], xid[2], xid[3], flags));
}

/* A Convert whose input is a staged argument (stage_t.via_convert): it reads
 * the permuted floats (a new external fp32 value of the target's dims) and
 * writes the transpose's output. Convert nodes of other inputs: define_unary. */
static mote_err_t define_staged_convert(const payload_t *p, xnn_subgraph_t sg, const mote_fb_table_t *n, bool *done)
{
    mote_err_t err = MOTE_OK;
    uint32_t in = scalar_u32(p, n, 0, 0u, &err), out = scalar_u32(p, n, 1, 0u, &err), k, sid;
    const stage_t *st = NULL;
    size_t shape[XN_MAX_DIMS];

    *done = false;
    MOTE_TRY(err);
    if (in >= p->num_values || p->ov_flags[in] != OV_HIDDEN) {
        return MOTE_OK;
    }
    if (p->stage_of[in] < p->num_stages && p->stages[p->stage_of[in]].via_convert &&
        p->stages[p->stage_of[in]].hidden == in) {
        st = &p->stages[p->stage_of[in]];
    }
    /* the Convert writes the target: the same proof as node_out (not a constant, not an input) */
    MOTE_CHECK(st != NULL && out == st->mid && p->ids[st->target] != XNN_INVALID_VALUE_ID && p->writable[st->target],
               MOTE_ERR_BACKEND_PAYLOAD);
    MOTE_CHECK(p->quant[st->target].dtype == xnn_datatype_qint8, MOTE_ERR_BACKEND_PAYLOAD); /* fp32 -> qint8 */
    MOTE_TRY(take_external(p, st->ext));
    for (k = 0; k < p->dims[st->target].n; k++) {
        shape[k] = p->dims[st->target].d[k];
    }
    MOTE_TRY(xnn_err(xnn_define_tensor_value(sg, xnn_datatype_fp32, p->dims[st->target].n, shape, NULL, st->ext,
                                             XNN_VALUE_FLAG_EXTERNAL_INPUT, &sid)));
    *done = true;
    p->use[st->target] |= USE_WRITTEN;
    return xnn_err(xnn_define_convert(sg, sid, p->ids[st->target], 0u));
}

/* The datatypes of node `n` (kind `tag`) are a combination XNNPACK's define
 * function takes (node_kind_t.rule): DT_FLOAT all fp32; DT_SAME every input
 * of the output's datatype, fp32 or qint8; DT_CONVERT fp32 -> qint8 or
 * qint8 -> fp32; DT_WEIGHTS input and output fp32 with an fp32 filter and
 * bias, or qint8 with a qint8 filter of zero point 0 and a qint32 bias or a
 * qcint8 filter and a qcint32 bias (no bias: INVALID, the one optional id).
 * Every id names a defined value. BACKEND_PAYLOAD otherwise. */
static mote_err_t prove_dtypes(const payload_t *p, uint8_t tag, const mote_fb_table_t *n)
{
    node_kind_t k;
    enum xnn_datatype dt[3] = {xnn_datatype_invalid, xnn_datatype_invalid, xnn_datatype_invalid};
    enum xnn_datatype out_dt = xnn_datatype_invalid;
    uint32_t i, id;
    mote_err_t err = MOTE_OK;

    MOTE_CHECK(node_kind(tag, &k), MOTE_ERR_BACKEND_PAYLOAD);
    for (i = 0; i <= k.nin; i++) {
        const uint8_t f = i < k.nin ? k.in[i] : k.out;
        id = scalar_u32(p, n, f, 0u, &err);
        MOTE_TRY(err);
        if (f == k.bias && id == XNN_INVALID_VALUE_ID) {
            dt[i] = xnn_datatype_invalid; /* no bias */
            continue;
        }
        MOTE_CHECK(id < p->num_values && p->ids[id] != XNN_INVALID_VALUE_ID, MOTE_ERR_BACKEND_PAYLOAD);
        if (i < k.nin) {
            dt[i] = p->quant[id].dtype;
            MOTE_CHECK(!(i == 1u && k.rule == DT_WEIGHTS && dt[1] == xnn_datatype_qint8) ||
                           p->quant[id].zero_point == 0,
                       MOTE_ERR_BACKEND_PAYLOAD); /* XNNPACK logs, then computes as if it were 0 */
        } else {
            out_dt = p->quant[id].dtype;
        }
    }
    switch (k.rule) {
    case DT_FLOAT: case DT_SAME:
        MOTE_CHECK(out_dt == xnn_datatype_fp32 || (k.rule == DT_SAME && out_dt == xnn_datatype_qint8),
                   MOTE_ERR_BACKEND_PAYLOAD);
        for (i = 0; i < k.nin; i++) {
            MOTE_CHECK(dt[i] == out_dt, MOTE_ERR_BACKEND_PAYLOAD);
        }
        return MOTE_OK;
    case DT_CONVERT:
        MOTE_CHECK((dt[0] == xnn_datatype_fp32 && out_dt == xnn_datatype_qint8) ||
                       (dt[0] == xnn_datatype_qint8 && out_dt == xnn_datatype_fp32),
                   MOTE_ERR_BACKEND_PAYLOAD);
        return MOTE_OK;
    default: /* DT_WEIGHTS */
        MOTE_CHECK(dt[0] == out_dt, MOTE_ERR_BACKEND_PAYLOAD);
        if (out_dt == xnn_datatype_fp32) {
            MOTE_CHECK(dt[1] == xnn_datatype_fp32 && (dt[2] == xnn_datatype_invalid || dt[2] == xnn_datatype_fp32),
                       MOTE_ERR_BACKEND_PAYLOAD);
            return MOTE_OK;
        }
        MOTE_CHECK(out_dt == xnn_datatype_qint8, MOTE_ERR_BACKEND_PAYLOAD);
        MOTE_CHECK((dt[1] == xnn_datatype_qint8 && (dt[2] == xnn_datatype_invalid || dt[2] == xnn_datatype_qint32)) ||
                       (dt[1] == xnn_datatype_qcint8 &&
                        (dt[2] == xnn_datatype_invalid || dt[2] == xnn_datatype_qcint32)),
                   MOTE_ERR_BACKEND_PAYLOAD);
        return MOTE_OK;
    }
}

static mote_err_t define_node(const payload_t *p, xnn_subgraph_t sg, const mote_fb_table_t *xn)
{
    mote_fb_table_t n;
    uint8_t tag;
    float lo, hi;
    mote_err_t err = MOTE_OK;

    MOTE_TRY(mote_fb_union_field(&p->fb, xn, 0, XN_MAX_TAG, &tag, &n));
    MOTE_TRY(node_min_max(p, xn, &lo, &hi));
    if (tag == XN_CONVERT) {
        bool done;
        MOTE_TRY(define_staged_convert(p, sg, &n, &done));
        if (done) {
            return MOTE_OK;
        }
    }
    if (tag == XN_STATIC_TRANSPOSE) {
        uint32_t in = scalar_u32(p, &n, 2, 0u, &err);
        MOTE_TRY(err);
        if (in < p->num_values && p->ov_flags[in] != OV_NONE) {
            return MOTE_OK; /* an edge transpose: staged by the backend (find_stage) */
        }
    }
    MOTE_TRY(prove_dtypes(p, tag, &n));
    switch (tag) {
    case XN_CONV2D: case XN_DEPTHWISE_CONV2D: return define_conv(p, sg, &n, tag, lo, hi);
    case XN_MAX_POOL: case XN_AVG_POOL: return define_pool(p, sg, &n, tag, lo, hi);
    case XN_STATIC_RESHAPE: return define_reshape(p, sg, &n);
    case XN_STATIC_TRANSPOSE: return define_transpose(p, sg, &n);
    case XN_ADD: case XN_MULTIPLY: case XN_SUBTRACT: case XN_DIV: case XN_MINIMUM:
        return define_binary(p, sg, &n, tag, lo, hi);
    case XN_CLAMP: case XN_SIGMOID: case XN_SOFTMAX: case XN_GLOBAL_AVG_POOL: case XN_FLOOR: case XN_CEILING:
    case XN_SQRT: case XN_HARDSWISH: case XN_CONVERT:
        return define_unary(p, sg, &n, tag, lo, hi);
    case XN_FULLY_CONNECTED: return define_fc(p, sg, &n, lo, hi);
    default:
        return MOTE_ERR_BACKEND_PAYLOAD; /* an operator this backend does not define */
    }
}

/* Value `id`'s tensor table (ids are positions: checked), dims and flags. */
static mote_err_t value_at(const payload_t *p, const mote_fb_vec_t *values, uint32_t id, mote_fb_vec_t *dims,
                           uint32_t *flags, uint32_t *ext, bool *quantized)
{
    mote_fb_table_t xv, t, qt;
    uint8_t tag;
    mote_err_t err = MOTE_OK;

    MOTE_CHECK(id < values->len, MOTE_ERR_BACKEND_PAYLOAD);
    MOTE_TRY(mote_fb_vec_table(&p->fb, values, id, &xv));
    MOTE_TRY(value_tensor(p, &xv, &t, &qt, &tag));
    *quantized = tag != 0u;
    MOTE_TRY(mote_fb_vec_field(&p->fb, &t, XT_DIMS, 4u, dims));
    MOTE_CHECK(dims->len <= XN_MAX_DIMS && scalar_u32(p, &t, XT_ID, 0u, &err) == id, MOTE_ERR_BACKEND_PAYLOAD);
    *flags = scalar_u32(p, &t, XT_FLAGS, 0u, &err);
    *ext = scalar_u32(p, &t, XT_EXTERNAL, 0u, &err);
    return err;
}

/* *src: the value a Convert node turns into value `mid` when that is an
 * external fp32 input (INVALID when no Convert writes `mid` or its input is
 * not one); *ext its argument index. A source whose dims differ from `mid`'s
 * is BACKEND_PAYLOAD. Constant time: `mid`'s writer is p->producer[mid]. */
static mote_err_t convert_source(const payload_t *p, const mote_fb_vec_t *values, const mote_fb_vec_t *nodes,
                                 uint32_t mid, const mote_fb_vec_t *dmid, uint32_t *src, uint32_t *ext)
{
    mote_fb_table_t xn, n;
    mote_fb_vec_t dims;
    uint32_t j, k, flags;
    uint8_t tag;
    bool quantized;
    mote_err_t err = MOTE_OK;

    *src = XNN_INVALID_VALUE_ID;
    if (mid >= p->num_values || p->producer[mid] >= nodes->len) {
        return MOTE_OK; /* no node writes it */
    }
    MOTE_TRY(mote_fb_vec_table(&p->fb, nodes, p->producer[mid], &xn));
    MOTE_TRY(mote_fb_union_field(&p->fb, &xn, 0, XN_MAX_TAG, &tag, &n));
    if (tag != XN_CONVERT) {
        return MOTE_OK;
    }
    k = scalar_u32(p, &n, 0, 0u, &err);
    MOTE_TRY(err);
    MOTE_TRY(value_at(p, values, k, &dims, &flags, ext, &quantized));
    if (!(flags & XNN_VALUE_FLAG_EXTERNAL_INPUT) || quantized || dims.len != dmid->len) {
        return MOTE_OK;
    }
    for (j = 0; j < dims.len; j++) {
        MOTE_CHECK(mote_fb_u32_at(&p->fb, dims.pos + 4u * j) == mote_fb_u32_at(&p->fb, dmid->pos + 4u * j),
                   MOTE_ERR_BACKEND_PAYLOAD);
    }
    *src = k;
    return MOTE_OK;
}

/* Transpose node `n` that moves data at the subgraph's edge (its input an
 * external input, its output an external output, or its input a Convert of
 * an external input): a stage, and the overrides that make its other side the
 * external value (or let the Convert write its output). Layout-free
 * transposes stay nodes (define_transpose). */
static mote_err_t find_stage(payload_t *p, const mote_fb_vec_t *values, const mote_fb_vec_t *nodes,
                             const mote_fb_table_t *n, bool *staged)
{
    uint32_t conv_src = XNN_INVALID_VALUE_ID;
    mote_fb_vec_t perm, din, dout;
    uint32_t in_id, out_id, fin, fout, ein, eout, k, last = 0, src, side, other;
    bool moves = false, qin, qout;
    stage_t *st;
    mote_err_t err = MOTE_OK;

    *staged = false;
    MOTE_TRY(mote_fb_vec_field(&p->fb, n, 1, 4u, &perm));
    in_id = scalar_u32(p, n, 2, 0u, &err);
    out_id = scalar_u32(p, n, 3, 0u, &err);
    MOTE_TRY(err);
    MOTE_TRY(value_at(p, values, in_id, &din, &fin, &ein, &qin));
    MOTE_TRY(value_at(p, values, out_id, &dout, &fout, &eout, &qout));
    MOTE_CHECK(perm.len == din.len && din.len == dout.len && perm.len >= 1u, MOTE_ERR_BACKEND_PAYLOAD);
    for (k = 0; k < perm.len; k++) {   /* a permutation, and out dims = in dims permuted: the */
        uint32_t j;                    /* staging copy stays inside both tensors */
        src = mote_fb_u32_at(&p->fb, perm.pos + 4u * k);
        MOTE_CHECK(src < din.len, MOTE_ERR_BACKEND_PAYLOAD);
        for (j = 0; j < k; j++) {
            MOTE_CHECK(mote_fb_u32_at(&p->fb, perm.pos + 4u * j) != src, MOTE_ERR_BACKEND_PAYLOAD);
        }
        MOTE_CHECK(mote_fb_u32_at(&p->fb, dout.pos + 4u * k) == mote_fb_u32_at(&p->fb, din.pos + 4u * src),
                   MOTE_ERR_BACKEND_PAYLOAD);
        if (mote_fb_u32_at(&p->fb, din.pos + 4u * src) != 1u) {
            moves = moves || src + 1u <= last;
            last = src + 1u;
        }
    }
    if (moves && !((fin & XNN_VALUE_FLAG_EXTERNAL_INPUT) || (fout & XNN_VALUE_FLAG_EXTERNAL_OUTPUT))) {
        MOTE_TRY(convert_source(p, values, nodes, in_id, &din, &conv_src, &ein));
    }
    if (!moves || (conv_src == XNN_INVALID_VALUE_ID &&
                   !((fin & XNN_VALUE_FLAG_EXTERNAL_INPUT) || (fout & XNN_VALUE_FLAG_EXTERNAL_OUTPUT)))) {
        return MOTE_OK;                     /* a node (define_transpose decides) */
    }
    MOTE_CHECK(p->num_stages < p->num_values, MOTE_ERR_BACKEND_PAYLOAD);
    st = &p->stages[p->num_stages];
    st->via_convert = conv_src != XNN_INVALID_VALUE_ID;
    if (st->via_convert) {
        MOTE_CHECK(qin && qout && p->ov_flags[conv_src] == OV_NONE && p->ov_flags[in_id] == OV_NONE,
                   MOTE_ERR_BACKEND_PAYLOAD);
        st->hidden = conv_src;
        st->mid = in_id;
        st->target = out_id;
        p->ov_flags[conv_src] = OV_HIDDEN;
        p->stage_of[conv_src] = p->num_stages;
        p->ov_flags[in_id] = OV_SKIP;
    }
    MOTE_CHECK(st->via_convert || (!qin && !qout), MOTE_ERR_BACKEND_PAYLOAD); /* the staging copy moves floats */
    st->is_output = (fout & XNN_VALUE_FLAG_EXTERNAL_OUTPUT) != 0u && !(fin & XNN_VALUE_FLAG_EXTERNAL_INPUT);
    side = st->is_output ? out_id : in_id;     /* the argument's side: hidden */
    other = st->is_output ? in_id : out_id;    /* the staged side: the external value */
    MOTE_CHECK(st->via_convert || (p->ov_flags[side] == OV_NONE && p->ov_flags[other] == OV_NONE),
               MOTE_ERR_BACKEND_PAYLOAD);
    st->ext = st->is_output ? eout : ein;
    st->ndim = din.len;
    st->numel = 1;
    for (k = 0; k < din.len; k++) {
        st->dims[k] = mote_fb_u32_at(&p->fb, din.pos + 4u * k);
        st->perm[k] = mote_fb_u32_at(&p->fb, perm.pos + 4u * k);
        MOTE_CHECK(st->dims[k] != 0u && st->dims[k] <= UINT32_MAX / st->numel, MOTE_ERR_BACKEND_PAYLOAD);
        st->numel *= st->dims[k];
    }
    if (!st->via_convert) {
        p->ov_flags[side] = OV_HIDDEN;
        p->ov_flags[other] = (uint8_t)(st->is_output ? XNN_VALUE_FLAG_EXTERNAL_OUTPUT : XNN_VALUE_FLAG_EXTERNAL_INPUT);
        p->ov_ext[other] = st->ext;
    }
    p->num_stages++;
    *staged = true;
    return MOTE_OK;
}

/* One pass over the payload's nodes, before XNNPACK sees anything: every
 * value has at most one producing node (XNNPACK's subgraph analysis asserts
 * `producer == XNN_INVALID_NODE_ID` otherwise), and no node writes a value the
 * payload declares an external input or a constant. Each output id is
 * marked USE_PRODUCED in p->use (zeroed before) and its node recorded in
 * p->producer (convert_source looks it up): linear in nodes, no memory
 * beyond the value table. BACKEND_PAYLOAD otherwise. */
static mote_err_t prove_producers(payload_t *p, const mote_fb_vec_t *values, const mote_fb_vec_t *nodes)
{
    mote_fb_table_t xn, n, xv, t, qt;
    uint32_t i, out, flags, cidx;
    uint8_t tag, qtag;
    node_kind_t kind;
    mote_err_t err = MOTE_OK;

    for (i = 0; i < nodes->len; i++) {
        MOTE_TRY(mote_fb_vec_table(&p->fb, nodes, i, &xn));
        MOTE_TRY(mote_fb_union_field(&p->fb, &xn, 0, XN_MAX_TAG, &tag, &n));
        MOTE_CHECK(node_kind(tag, &kind), MOTE_ERR_BACKEND_PAYLOAD); /* an operator this backend does not define */
        out = scalar_u32(p, &n, kind.out, 0u, &err);
        MOTE_TRY(err);
        MOTE_CHECK(out < p->num_values && !(p->use[out] & USE_PRODUCED), MOTE_ERR_BACKEND_PAYLOAD);
        p->use[out] |= USE_PRODUCED;
        p->producer[out] = i;
        MOTE_TRY(mote_fb_vec_table(&p->fb, values, out, &xv));
        MOTE_TRY(value_tensor(p, &xv, &t, &qt, &qtag));
        flags = scalar_u32(p, &t, XT_FLAGS, 0u, &err);
        cidx = scalar_u32(p, &t, XT_CONST, 0u, &err);
        MOTE_CHECK(scalar_u32(p, &t, XT_ID, 0u, &err) == out, MOTE_ERR_BACKEND_PAYLOAD); /* ids are positions */
        MOTE_TRY(err);
        MOTE_CHECK(cidx == 0u && !(flags & XNN_VALUE_FLAG_EXTERNAL_INPUT), MOTE_ERR_BACKEND_PAYLOAD);
    }
    return MOTE_OK;
}

/* Every value, then every node, into `sg`; the number of outputs into ctx. */
static mote_err_t define_graph(payload_t *p, xnn_subgraph_t sg, mote_delegate_init_t *ctx, uint32_t num_externs)
{
    mote_fb_vec_t values, nodes, outs;
    mote_fb_table_t xn;
    uint32_t i;

    MOTE_TRY(mote_fb_vec_field(&p->fb, &p->graph, XG_VALUES, 4u, &values));
    MOTE_TRY(mote_fb_vec_field(&p->fb, &p->graph, XG_NODES, 4u, &nodes));
    MOTE_TRY(mote_fb_vec_field(&p->fb, &p->graph, XG_OUTPUT_IDS, 4u, &outs));
    MOTE_CHECK(outs.len >= 1u && outs.len <= num_externs, MOTE_ERR_BACKEND_PAYLOAD);
    MOTE_CHECK(nodes.len <= MOTE_XNNPACK_MAX_NODES && values.len <= MOTE_XNNPACK_MAX_VALUES, MOTE_ERR_UNSUPPORTED);
    ctx->num_outputs = outs.len; /* the trailing arguments: outputs */
    p->num_values = values.len;
    p->num_nodes = nodes.len;
    p->ids = (uint32_t *)mote_pool_alloc(ctx->pool, (size_t)values.len * 4u + 4u, 4u);
    p->ov_ext = (uint32_t *)mote_pool_alloc(ctx->pool, (size_t)values.len * 4u + 4u, 4u);
    p->ov_flags = (uint8_t *)mote_pool_alloc(ctx->pool, (size_t)values.len + 1u, 1u);
    p->stages = (stage_t *)mote_pool_alloc(ctx->pool, sizeof(stage_t) * ((size_t)values.len + 1u), sizeof(void *));
    p->dims = (xnn_dims_t *)mote_pool_alloc(ctx->pool, sizeof(xnn_dims_t) * ((size_t)values.len + 1u), 4u);
    p->writable = (uint8_t *)mote_pool_alloc(ctx->pool, (size_t)values.len + 1u, 1u);
    p->quant = (quant_t *)mote_pool_alloc(ctx->pool, sizeof(quant_t) * ((size_t)values.len + 1u), sizeof(void *));
    p->data = (const void **)mote_pool_alloc(ctx->pool, sizeof(void *) * ((size_t)values.len + 1u), sizeof(void *));
    p->use = (uint8_t *)mote_pool_alloc(ctx->pool, (size_t)values.len + 1u, 1u);
    p->ext_taken = (uint8_t *)mote_pool_alloc(ctx->pool, (size_t)num_externs, 1u);
    p->producer = (uint32_t *)mote_pool_alloc(ctx->pool, (size_t)values.len * 4u + 4u, 4u);
    p->stage_of = (uint32_t *)mote_pool_alloc(ctx->pool, (size_t)values.len * 4u + 4u, 4u);
    p->num_externs = num_externs;
    MOTE_CHECK(p->ids != NULL && p->ov_ext != NULL && p->ov_flags != NULL && p->stages != NULL && p->dims != NULL &&
                   p->writable != NULL && p->quant != NULL && p->data != NULL && p->use != NULL &&
                   p->ext_taken != NULL && p->producer != NULL && p->stage_of != NULL,
               MOTE_ERR_BACKEND_MEMORY);
    p->num_stages = 0;
    for (i = 0; i < values.len; i++) {
        p->ids[i] = XNN_INVALID_VALUE_ID;
        p->ov_flags[i] = OV_NONE;
        p->writable[i] = 0;
        p->quant[i].kind = 0u;
        p->quant[i].dtype = xnn_datatype_fp32;
        p->data[i] = NULL;
        p->use[i] = 0u;
        p->producer[i] = UINT32_MAX;
        p->stage_of[i] = UINT32_MAX;
    }
    memset(p->ext_taken, 0, num_externs);
    MOTE_TRY(prove_producers(p, &values, &nodes));
    for (i = 0; i < nodes.len; i++) {      /* edge transposes first: they change which values are external */
        mote_fb_table_t n;
        uint8_t tag;
        bool staged;
        MOTE_TRY(mote_fb_vec_table(&p->fb, &nodes, i, &xn));
        MOTE_TRY(mote_fb_union_field(&p->fb, &xn, 0, XN_MAX_TAG, &tag, &n));
        if (tag == XN_STATIC_TRANSPOSE) {
            MOTE_TRY(find_stage(p, &values, &nodes, &n, &staged));
        }
    }
    for (i = 0; i < values.len; i++) {
        MOTE_TRY(define_value(p, sg, &values, i, ctx, num_externs));
    }
    for (i = 0; i < nodes.len; i++) {
        MOTE_TRY(mote_fb_vec_table(&p->fb, &nodes, i, &xn));
        MOTE_TRY(define_node(p, sg, &xn));
    }
    for (i = 0; i < values.len; i++) { /* Debian's XNNPACK gives a result nobody reads no memory (an assert) */
        MOTE_CHECK(!(p->use[i] & USE_WRITTEN) || (p->use[i] & (USE_READ | USE_OUTPUT)), MOTE_ERR_BACKEND_PAYLOAD);
    }
    for (i = 0; i < p->num_stages; i++) {
        /* XNNPACK reads an external input up to XNN_EXTRA_BYTES past its end */
        p->stages[i].buf = (float *)mote_pool_alloc(ctx->pool, (size_t)p->stages[i].numel * 4u + XNN_EXTRA_BYTES, 16u);
        MOTE_CHECK(p->stages[i].buf != NULL, MOTE_ERR_BACKEND_MEMORY);
    }
    return MOTE_OK;
}

/* Binds the arguments' storage to the runtime's external values. An argument
 * without storage yet (a view the method resolves when it runs) leaves the
 * runtime unbound until execute: Debian's XNNPACK asserts on a NULL pointer. */
static mote_err_t bind(xnn_delegate_t *d, mote_value_t *const *args)
{
    uint32_t k;

    d->bound = 0;
    for (k = 0; k < d->nargs; k++) {
        d->ext[k].id = k;
        d->ext[k].data = args[k]->u.t->data;
        if (d->ext[k].data == NULL) {
            return MOTE_OK;
        }
    }
    for (k = 0; k < d->num_stages; k++) {
        d->ext[d->stages[k].ext].data = d->stages[k].buf;
    }
    MOTE_TRY(xnn_err(xnn_setup_runtime(d->runtime, d->nargs, d->ext)));
    d->bound = 1;
    return MOTE_OK;
}

/* dst = src transposed: dst dim k is src dim perm[k]; src has `dims`. */
static void permute(const stage_t *st, const float *src, float *dst)
{
    uint32_t stride[XN_MAX_DIMS], idx[XN_MAX_DIMS], k, i, off;
    uint32_t acc = 1;

    for (k = st->ndim; k-- > 0u;) {
        stride[k] = acc;
        acc *= st->dims[k];
    }
    for (k = 0; k < st->ndim; k++) {
        idx[k] = 0;
    }
    for (i = 0; i < st->numel; i++) {
        off = 0;
        for (k = 0; k < st->ndim; k++) {
            off += idx[k] * stride[st->perm[k]];
        }
        dst[i] = src[off];
        for (k = st->ndim; k-- > 0u;) { /* next output index, last dimension fastest */
            if (++idx[k] < st->dims[st->perm[k]]) {
                break;
            }
            idx[k] = 0;
        }
    }
}

static mote_err_t xnnpack_init(mote_delegate_init_t *ctx, void **handle)
{
    payload_t p;
    xnn_subgraph_t sg = NULL;
    xnn_delegate_t *d;
    uint64_t num_externs;
    mote_err_t err;
    uint32_t k;

    MOTE_TRY(payload_open(ctx, &p));
    MOTE_TRY(mote_fb_scalar(&p.fb, &p.graph, XG_NUM_EXTERNS, 4u, 0u, &num_externs));
    MOTE_CHECK(num_externs == ctx->nargs && num_externs >= 2u, MOTE_ERR_KERNEL_ARGS);
    for (k = 0; k < ctx->nargs; k++) { /* bind reads each one's storage, named by a value or not */
        MOTE_CHECK(ctx->args[k]->tag == MOTE_TAG_TENSOR && ctx->args[k]->u.t != NULL, MOTE_ERR_KERNEL_ARGS);
    }
    g_pool = ctx->pool;
    if (!g_initialized) {
        MOTE_TRY(xnn_err(xnn_initialize(&k_allocator)));
        g_initialized = 1;
    }
    d = (xnn_delegate_t *)mote_pool_alloc(ctx->pool, sizeof(*d), sizeof(void *));
    MOTE_CHECK(d != NULL, MOTE_ERR_BACKEND_MEMORY);
    d->pool = ctx->pool;
    d->nargs = ctx->nargs;
    d->runtime = NULL;
    d->bound = 0;
    d->ext = (struct xnn_external_value *)mote_pool_alloc(ctx->pool, sizeof(*d->ext) * ctx->nargs,
                                                          sizeof(void *));
    MOTE_CHECK(d->ext != NULL, MOTE_ERR_BACKEND_MEMORY);
    err = xnn_err(xnn_create_subgraph((uint32_t)num_externs, 0, &sg));
    if (err == MOTE_OK) {
        err = define_graph(&p, sg, ctx, (uint32_t)num_externs);
    }
    d->stages = p.stages;
    d->num_stages = err == MOTE_OK ? p.num_stages : 0u;
    if (err == MOTE_OK) {
        d->staged = (uint8_t *)mote_pool_alloc(ctx->pool, ctx->nargs, 1u);
        err = d->staged == NULL ? MOTE_ERR_BACKEND_MEMORY : MOTE_OK;
    }
    if (err == MOTE_OK) {
        memset(d->staged, 0, ctx->nargs);
        for (k = 0; k < d->num_stages; k++) {
            d->staged[d->stages[k].ext] = 1u;
        }
    }
    if (err == MOTE_OK) {
        g_reserve = planner_reserve((uint64_t)num_externs + p.num_values + 3u * (uint64_t)p.num_nodes);
        g_plain_left = 3u; /* the runtime, its operator data, its blobs (see g_reserve) */
        err = xnn_err(xnn_create_runtime_v2(sg, NULL, 0, &d->runtime));
        g_plain_left = 0u;
        /* Debian's XNNPACK returns success without a runtime when the pool runs out after
         * the operators are created (its status still holds the last operator's success) */
        err = err == MOTE_OK && d->runtime == NULL ? MOTE_ERR_BACKEND_MEMORY : err;
    }
    if (sg != NULL) {
        (void)xnn_delete_subgraph(sg);
    }
    if (err == MOTE_OK) {
        err = bind(d, ctx->args);
    }
    if (err != MOTE_OK) {
        if (d->runtime != NULL) {
            (void)xnn_delete_runtime(d->runtime);
        }
        g_pool = NULL;
        return err;
    }
    g_pool = NULL;
    *handle = d;
    return MOTE_OK;
}

static mote_err_t xnnpack_execute(void *handle, mote_value_t *const *args, uint32_t nargs)
{
    xnn_delegate_t *d = (xnn_delegate_t *)handle;
    mote_err_t err = MOTE_OK;
    uint32_t k;

    MOTE_CHECK(nargs == d->nargs, MOTE_ERR_KERNEL_ARGS);
    g_pool = d->pool;
    for (k = 0; k < nargs; k++) { /* every argument has storage by now */
        if (args[k]->u.t->data == NULL) {
            g_pool = NULL;
            return MOTE_ERR_BACKEND_FAILED;
        }
    }
    for (k = 0; k < nargs; k++) { /* storage moved (an et_view): bind again */
        if (!d->bound || (d->ext[k].data != args[k]->u.t->data && !d->staged[k])) {
            err = bind(d, args);
            break;
        }
    }
    for (k = 0; err == MOTE_OK && k < d->num_stages; k++) {
        if (!d->stages[k].is_output) {
            permute(&d->stages[k], (const float *)args[d->stages[k].ext]->u.t->data, d->stages[k].buf);
        }
    }
    if (err == MOTE_OK && xnn_invoke_runtime(d->runtime) != xnn_status_success) {
        err = MOTE_ERR_BACKEND_FAILED;
    }
    for (k = 0; err == MOTE_OK && k < d->num_stages; k++) {
        if (d->stages[k].is_output) {
            permute(&d->stages[k], d->stages[k].buf, (float *)args[d->stages[k].ext]->u.t->data);
        }
    }
    g_pool = NULL;
    return err;
}

static void xnnpack_destroy(void *handle)
{
    xnn_delegate_t *d = (xnn_delegate_t *)handle;

    g_pool = d->pool;
    (void)xnn_delete_runtime(d->runtime);
    d->runtime = NULL;
    g_pool = NULL;
}

const mote_backend_t mote_backend_xnnpack = {"XnnpackBackend", xnnpack_init, xnnpack_execute, xnnpack_destroy};
