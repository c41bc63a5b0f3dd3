/*
 * method_init.c - a method's exact memory requirements, the verification of
 * its structure (values, tensors, lists, memory plan, instructions, operators)
 * and its initialisation into the caller's state buffer. The write proof is
 * in method_verify.c, the execute loop in method_exec.c.
 */
#include "method_internal.h"

/* Counts found by walking a method's structure (64-bit: entries may alias). */
typedef struct method_counts {
    uint64_t values, tensors, ints, tptrs, instrs, kargs;
    uint32_t num_arenas;
    uint64_t arena_size[MOTE_MAX_ARENAS];
} method_counts_t;

/* Byte offsets of each region in the state buffer. */
typedef struct method_layout {
    size_t values, tensors, ints, tptrs, instrs, kargs, total;
} method_layout_t;

static mote_err_t layout_add(uint64_t *at, uint64_t n, uint64_t elem, size_t *off)
{
    MOTE_CHECK(n <= (uint64_t)MOTE_MAX_BYTES, MOTE_ERR_SIZE_OVERFLOW);
    *off = (size_t)*at;
    *at += (n * elem + 7u) & ~(uint64_t)7u;
    MOTE_CHECK(*at <= (uint64_t)SIZE_MAX && *at <= (uint64_t)MOTE_MAX_BYTES, MOTE_ERR_SIZE_OVERFLOW);
    return MOTE_OK;
}

static mote_err_t method_layout(const method_counts_t *c, method_layout_t *l)
{
    uint64_t at = 0;

    MOTE_TRY(layout_add(&at, c->values, sizeof(mote_value_t), &l->values));
    MOTE_TRY(layout_add(&at, c->tensors, sizeof(mote_tensor_t), &l->tensors));
    MOTE_TRY(layout_add(&at, c->ints, sizeof(int64_t), &l->ints));
    MOTE_TRY(layout_add(&at, c->tptrs, sizeof(mote_tensor_t *), &l->tptrs));
    MOTE_TRY(layout_add(&at, c->instrs, sizeof(mote_instr_t), &l->instrs));
    MOTE_TRY(layout_add(&at, c->kargs, sizeof(mote_value_t *), &l->kargs));
    l->total = (size_t)at;
    return MOTE_OK;
}

/*
 * Init's writes into the state: without an image they store the entry init
 * computed; with one (mote/method.h) they compare it with the image's entry,
 * field by field (padding is never compared), and write nothing.
 */
static mote_err_t tensor_put(const mote_method_t *m, mote_tensor_t *dst, const mote_tensor_t *t, bool by_view)
{
    if (MOTE_WRITES_STATE(m)) {
        *dst = *t;
        return MOTE_OK;
    }
    /* an et_view output's storage is its input's: proven where the view is met */
    MOTE_CHECK((by_view || dst->data == t->data) && dst->sizes == t->sizes && dst->dim_order == t->dim_order &&
                   dst->numel == t->numel && dst->nbytes == t->nbytes && dst->dim == t->dim &&
                   dst->dtype == t->dtype,
               MOTE_ERR_BAD_IMAGE);
    return MOTE_OK;
}

static mote_err_t value_put(const mote_method_t *m, mote_value_t *dst, const mote_value_t *v)
{
    bool same;

    if (MOTE_WRITES_STATE(m)) {
        *dst = *v;
        return MOTE_OK;
    }
    switch (v->tag) {
    case MOTE_TAG_INT: same = dst->u.i == v->u.i; break;
    case MOTE_TAG_BOOL: same = dst->u.b == v->u.b; break;
#if MOTE_RUNTIME_DOUBLES
    case MOTE_TAG_DOUBLE: { /* the same bits (no double arithmetic: no soft-float compare linked) */
        union {
            double d;
            uint64_t u;
        } a, b;
        a.d = dst->u.d;
        b.d = v->u.d;
        same = a.u == b.u;
        break;
    }
#endif
    case MOTE_TAG_TENSOR: same = dst->u.t == v->u.t; break;
    /* the list members share one layout: items pointer, then len */
    case MOTE_TAG_INT_LIST: same = dst->u.ints.items == v->u.ints.items && dst->u.ints.len == v->u.ints.len; break;
    /* value kinds a build leaves out (mote/config.h) never get here: value_parse refused them */
#if MOTE_RUNTIME_STRINGS
    case MOTE_TAG_STRING: same = dst->u.str.ptr == v->u.str.ptr && dst->u.str.len == v->u.str.len; break;
#endif
#if MOTE_RUNTIME_DOUBLES
    case MOTE_TAG_DOUBLE_LIST:
        same = dst->u.doubles.items == v->u.doubles.items && dst->u.doubles.len == v->u.doubles.len;
        break;
#endif
#if MOTE_RUNTIME_BOOL_LISTS
    case MOTE_TAG_BOOL_LIST: same = dst->u.bools.items == v->u.bools.items && dst->u.bools.len == v->u.bools.len; break;
#endif
#if MOTE_RUNTIME_TENSOR_LISTS
    case MOTE_TAG_TENSOR_LIST: case MOTE_TAG_OPT_TENSOR_LIST:
        same = dst->u.tensors.items == v->u.tensors.items && dst->u.tensors.len == v->u.tensors.len;
        break;
#endif
    default: same = true; break; /* NULL */
    }
    MOTE_CHECK(same && dst->tag == v->tag, MOTE_ERR_BAD_IMAGE);
    return MOTE_OK;
}

static mote_err_t instr_put(const mote_method_t *m, mote_instr_t *dst, const mote_instr_t *ins)
{
    if (MOTE_WRITES_STATE(m)) {
        *dst = *ins;
        return MOTE_OK;
    }
    MOTE_CHECK(dst->kind == ins->kind && dst->a == ins->a && dst->b == ins->b && dst->fn == ins->fn &&
                   dst->args == ins->args && dst->scratch == ins->scratch && dst->scratch_size == ins->scratch_size,
               MOTE_ERR_BAD_IMAGE);
    return MOTE_OK;
}

/* A pointer entry of the int-list, tensor-list or kernel-argument tables. */
static mote_err_t ptr_put(const mote_method_t *m, void **dst, void *p)
{
    if (MOTE_WRITES_STATE(m)) {
        *dst = p;
        return MOTE_OK;
    }
    MOTE_CHECK(*dst == p, MOTE_ERR_BAD_IMAGE);
    return MOTE_OK;
}

/* The method's single chain's instruction vector (empty if no chain). */
static mote_err_t method_instructions(const mote_fb_t *fb, const mote_fb_table_t *plan, mote_fb_vec_t *out)
{
    mote_fb_vec_t chains;
    mote_fb_table_t chain;

    out->pos = 0;
    out->len = 0;
    MOTE_TRY(mote_fb_vec_field(fb, plan, MOTE_F_PLAN_CHAINS, 4u, &chains));
    if (chains.len == 0u) {
        return MOTE_OK;
    }
    MOTE_CHECK(chains.len == 1u, MOTE_ERR_UNSUPPORTED);
    MOTE_TRY(mote_fb_vec_table(fb, &chains, 0, &chain));
    return mote_fb_vec_field(fb, &chain, MOTE_F_CHAIN_INSTRUCTIONS, 4u, out);
}

/* Walks values, instructions and the memory plan: verifies structure, counts. */
static mote_err_t method_count(const mote_program_t *prog, uint32_t index, method_counts_t *c)
{
    mote_fb_t fb;
    mote_fb_table_t plan, t, u;
    mote_fb_vec_t v, items;
    uint32_t i;
    uint8_t tag;
    uint64_t sz;

    MOTE_TRY(mote_program_plan(prog, index, &plan));
    fb = mote_program_fb(prog);
    *c = (method_counts_t){0};
    MOTE_TRY(mote_fb_vec_field(&fb, &plan, MOTE_F_PLAN_VALUES, 4u, &v));
    c->values = v.len;
    for (i = 0; i < v.len; i++) {
        MOTE_TRY(mote_fb_vec_table(&fb, &v, i, &t));
        MOTE_TRY(mote_fb_union_field(&fb, &t, MOTE_F_EVALUE_VAL, MOTE_TAG_OPT_TENSOR_LIST, &tag, &u));
        MOTE_CHECK(tag != MOTE_TAG_NONE, MOTE_ERR_BAD_UNION_TAG);
        if (tag == MOTE_TAG_TENSOR) {
            c->tensors++;
        } else if (tag == MOTE_TAG_INT_LIST) {
            MOTE_TRY(mote_fb_vec_field(&fb, &u, 0, 8u, &items));
            c->ints += items.len;
        } else if (MOTE_RUNTIME_TENSOR_LISTS && (tag == MOTE_TAG_TENSOR_LIST || tag == MOTE_TAG_OPT_TENSOR_LIST)) {
            MOTE_TRY(mote_fb_vec_field(&fb, &u, 0, 4u, &items));
            c->tptrs += items.len;
        }
    }
    MOTE_TRY(method_instructions(&fb, &plan, &v));
    c->instrs = v.len;
    for (i = 0; i < v.len; i++) {
        MOTE_TRY(mote_fb_vec_table(&fb, &v, i, &t));
        /* the wire union's tags are 1..MOTE_INSTR_FREE (MOTE_INSTR_VIEW is the runtime's own) */
        MOTE_TRY(mote_fb_union_field(&fb, &t, MOTE_F_INSTR_ARGS, MOTE_INSTR_FREE, &tag, &u));
        MOTE_CHECK(tag != 0u, MOTE_ERR_BAD_UNION_TAG);
        if (tag == MOTE_INSTR_KERNEL || tag == MOTE_INSTR_DELEGATE) {
            MOTE_TRY(mote_fb_vec_field(&fb, &u, 1, 4u, &items));
            c->kargs += items.len;
        }
    }
    MOTE_TRY(mote_fb_vec_field(&fb, &plan, MOTE_F_PLAN_BUFFER_SIZES, 8u, &v));
    MOTE_CHECK(v.len <= MOTE_MAX_ARENAS + 1u, MOTE_ERR_UNSUPPORTED);
    c->num_arenas = v.len > 0u ? v.len - 1u : 0u;
    for (i = 1; i < v.len; i++) {
        sz = mote_fb_u64_at(&fb, v.pos + 8u * i);
        MOTE_CHECK(sz <= (uint64_t)MOTE_MAX_BYTES, MOTE_ERR_SIZE_OVERFLOW); /* negative int64, or too large */
        c->arena_size[i - 1u] = sz;
    }
    return MOTE_OK;
}

mote_err_t mote_method_memory_requirements(const mote_program_t *prog, uint32_t method_index,
                                           mote_method_requirements_t *out)
{
    method_counts_t c;
    method_layout_t l;
    uint32_t i;

    MOTE_CHECK(out != NULL, MOTE_ERR_INVALID_ARGUMENT);
    MOTE_TRY(method_count(prog, method_index, &c));
    MOTE_TRY(method_layout(&c, &l));
    out->state_size = l.total;
    out->state_align = MOTE_STATE_ALIGN;
    out->num_arenas = c.num_arenas;
    for (i = 0; i < MOTE_MAX_ARENAS; i++) {
        out->arena_size[i] = (size_t)c.arena_size[i];
    }
    out->arena_align = MOTE_ARENA_ALIGN;
    return MOTE_OK;
}

mote_err_t mote_method_state_counts(const mote_program_t *prog, uint32_t method_index,
                                    uint64_t counts[MOTE_STATE_REGIONS])
{
    method_counts_t c;

    MOTE_CHECK(counts != NULL, MOTE_ERR_INVALID_ARGUMENT);
    MOTE_TRY(method_count(prog, method_index, &c));
    counts[0] = c.values;
    counts[1] = c.tensors;
    counts[2] = c.ints;
    counts[3] = c.tptrs;
    counts[4] = c.instrs;
    counts[5] = c.kargs;
    return MOTE_OK;
}

/* Shape of one tensor value: dtype, sizes, dim order, numel, nbytes. */
static mote_err_t tensor_shape(const mote_fb_t *fb, const mote_fb_table_t *t, mote_tensor_t *out)
{
    mote_fb_vec_t sizes, order;
    mote_fb_table_t extra;
    uint64_t dtype, x, numel = 1, nbytes;
    uint32_t i, esize, seen = 0;
    bool present;

    MOTE_TRY(mote_fb_scalar(fb, t, MOTE_F_TENSOR_DTYPE, 1u, 0u, &dtype));
    esize = (uint32_t)mote_dtype_size((uint8_t)dtype);
    MOTE_CHECK(esize != 0u && dtype <= 0xffu, MOTE_ERR_BAD_DTYPE);
    MOTE_TRY(mote_fb_scalar(fb, t, MOTE_F_TENSOR_STORAGE_OFFSET, 4u, 0u, &x));
    MOTE_CHECK(x == 0u, MOTE_ERR_UNSUPPORTED);
    MOTE_TRY(mote_fb_scalar(fb, t, MOTE_F_TENSOR_DYNAMISM, 1u, 0u, &x));
    MOTE_CHECK(x <= 1u, MOTE_ERR_UNSUPPORTED); /* only static or bounded shapes */
    MOTE_TRY(mote_fb_table_field(fb, t, MOTE_F_TENSOR_EXTRA, &extra, &present));
    if (present) {
        MOTE_TRY(mote_fb_scalar(fb, &extra, MOTE_F_EXTRA_LOCATION, 1u, 0u, &x));
        MOTE_CHECK(x <= 1u, MOTE_ERR_UNSUPPORTED); /* SEGMENT or EXTERNAL (tensor_external) */
        /* built without external tensors (mote/config.h): tensor_external_key finds none */
        MOTE_CHECK(MOTE_RUNTIME_EXTERNAL || x == 0u, MOTE_ERR_EXTERNAL_MISSING);
    }
    MOTE_TRY(mote_fb_vec_field(fb, t, MOTE_F_TENSOR_SIZES, 4u, &sizes));
    MOTE_TRY(mote_fb_vec_field(fb, t, MOTE_F_TENSOR_DIM_ORDER, 1u, &order));
    MOTE_CHECK(sizes.len <= MOTE_MAX_DIM && (order.len == 0u || order.len == sizes.len), MOTE_ERR_BAD_SHAPE);
    for (i = 0; i < sizes.len; i++) {
        const int32_t s = (int32_t)mote_fb_u32_at(fb, sizes.pos + 4u * i);
        MOTE_CHECK(s >= 0, MOTE_ERR_BAD_SHAPE);
        numel *= (uint64_t)s; /* <= 2^32 * 2^31 before the check below */
        MOTE_CHECK(numel <= 0xffffffffu, MOTE_ERR_SIZE_OVERFLOW);
    }
    for (i = 0; i < order.len; i++) {
        const uint8_t d = fb->buf[order.pos + i];
        MOTE_CHECK(d < order.len && (seen & (1u << d)) == 0u, MOTE_ERR_BAD_SHAPE);
        seen |= 1u << d;
    }
    nbytes = numel * esize;
    MOTE_CHECK(nbytes <= 0xffffffffu, MOTE_ERR_SIZE_OVERFLOW);
    out->sizes = sizes.len != 0u ? (const int32_t *)(const void *)(fb->buf + sizes.pos) : NULL;
    out->dim_order = order.len != 0u ? fb->buf + order.pos : NULL;
    out->numel = (uint32_t)numel;
    out->nbytes = (uint32_t)nbytes;
    out->dim = (uint8_t)sizes.len;
    out->dtype = (uint8_t)dtype;
    out->data = NULL;
    return MOTE_OK;
}

/* Is tensor table `t` external (ExtraTensorInfo location EXTERNAL)? Its key then. */
static mote_err_t tensor_external_key(const mote_fb_t *fb, const mote_fb_table_t *t, const char **key,
                                      uint32_t *len)
{
    mote_fb_table_t extra;
    uint64_t loc = 0;
    bool present;

    *key = NULL;
    *len = 0;
    if (!MOTE_RUNTIME_EXTERNAL) {
        return MOTE_OK; /* tensor_shape refused an external tensor */
    }
    MOTE_TRY(mote_fb_table_field(fb, t, MOTE_F_TENSOR_EXTRA, &extra, &present));
    if (present) {
        MOTE_TRY(mote_fb_scalar(fb, &extra, MOTE_F_EXTRA_LOCATION, 1u, 0u, &loc));
    }
    if (loc == 1u) {
        MOTE_TRY(mote_fb_string_field(fb, &extra, MOTE_F_EXTRA_FQN, key, len));
        MOTE_CHECK(*key != NULL, MOTE_ERR_EXTERNAL_MISSING);
    }
    return MOTE_OK;
}

/* The bytes of external tensor `out` (key `key`) in the program's .ptd: same
 * dtype, sizes and dim order when the entry has a layout, at least nbytes,
 * aligned to the element size. */
#if MOTE_RUNTIME_EXTERNAL
static mote_err_t tensor_external(const mote_program_t *prog, const char *key, uint32_t len, mote_tensor_t *out)
{
    mote_data_entry_t e;
    uint32_t i;

    MOTE_TRY(mote_data_map_find(prog->data_map, key, len, &e));
    if (e.has_layout) {
        const mote_fb_t mfb = {prog->data_map->data, (uint32_t)prog->data_map->size};
        MOTE_CHECK(e.dtype == out->dtype && e.dim == out->dim, MOTE_ERR_EXTERNAL_MISMATCH);
        for (i = 0; i < e.dim; i++) {
            MOTE_CHECK((int32_t)mote_fb_u32_at(&mfb, e.sizes_pos + 4u * i) == out->sizes[i],
                       MOTE_ERR_EXTERNAL_MISMATCH);
            MOTE_CHECK(e.order_len == 0u || out->dim_order == NULL || mfb.buf[e.order_pos + i] == out->dim_order[i],
                       MOTE_ERR_EXTERNAL_MISMATCH);
        }
    }
    MOTE_CHECK(e.nbytes >= out->nbytes, MOTE_ERR_DATA_TOO_SHORT);
    MOTE_CHECK(((uintptr_t)e.data & (mote_dtype_size(out->dtype) - 1u)) == 0u, MOTE_ERR_BAD_ALIGNMENT);
    out->data = (void *)(uintptr_t)e.data;
    return MOTE_OK;
}
#else /* built without external tensors (mote/config.h) */
static mote_err_t tensor_external(const mote_program_t *prog, const char *key, uint32_t len, mote_tensor_t *out)
{
    (void)prog;
    (void)key;
    (void)len;
    (void)out;
    return MOTE_ERR_EXTERNAL_MISSING;
}
#endif

/* The initial value of the mutable buffer tensor `t` (data_buffer_idx `buffer`,
 * `nbytes` bytes): its ExtraTensorInfo's mutable_data_segments entry, offset
 * `buffer` (ExecuTorch's layout; without an ExtraTensorInfo, entry 0). */
static mote_err_t tensor_initial(const mote_program_t *prog, const mote_fb_t *fb, const mote_fb_table_t *t,
                                 uint32_t buffer, uint32_t nbytes, const uint8_t **data)
{
    mote_fb_table_t extra;
    uint64_t seg = 0;
    bool present;

    MOTE_TRY(mote_fb_table_field(fb, t, MOTE_F_TENSOR_EXTRA, &extra, &present));
    if (present) {
        MOTE_TRY(mote_fb_scalar(fb, &extra, MOTE_F_EXTRA_MUTABLE_SEGMENT, 8u, 0u, &seg));
    }
    MOTE_CHECK(seg <= 0xffffffffu, MOTE_ERR_BAD_INDEX);
    return mote_program_mutable_data(prog, (uint32_t)seg, buffer, nbytes, data);
}

/* Shape and storage of one tensor value: constant, planned (a mutable buffer
 * when it also names data), or none (an et_view output). */
static mote_err_t tensor_parse(const mote_program_t *prog, const mote_fb_t *fb, const mote_fb_table_t *t,
                               const method_counts_t *c, const mote_memory_t *mem, mote_tensor_t *out,
                               bool *by_view)
{
    mote_fb_table_t alloc;
    uint64_t buffer, id, lo, hi;
    const uint8_t *p;
    const char *key;
    uint32_t key_len;
    bool planned;

    MOTE_TRY(tensor_shape(fb, t, out));
    MOTE_TRY(mote_fb_scalar(fb, t, MOTE_F_TENSOR_BUFFER_IDX, 4u, 0u, &buffer));
    MOTE_TRY(mote_fb_table_field(fb, t, MOTE_F_TENSOR_ALLOC, &alloc, &planned));
    MOTE_TRY(tensor_external_key(fb, t, &key, &key_len));
    *by_view = key == NULL && buffer == 0u && !planned;
    if (key != NULL) { /* a constant kept in the caller's .ptd; its data_buffer_idx is not used */
        MOTE_CHECK(!planned, MOTE_ERR_UNSUPPORTED);
        return tensor_external(prog, key, key_len, out);
    }
    if (buffer != 0u && !planned) {
        MOTE_TRY(mote_program_constant(prog, (uint32_t)buffer, out->nbytes, (uint32_t)mote_dtype_size(out->dtype),
                                       &p));
        out->data = (void *)(uintptr_t)p;
        return MOTE_OK;
    }
    if (buffer != 0u) { /* a mutable buffer: planned, its initial value in the program */
        MOTE_CHECK(MOTE_RUNTIME_MUTABLE, MOTE_ERR_UNSUPPORTED); /* built without (mote/config.h) */
        MOTE_TRY(tensor_initial(prog, fb, t, (uint32_t)buffer, out->nbytes, &p));
    }
    if (!planned) {
        return MOTE_OK; /* storage comes from an et_view (method_verify.c checks it does) */
    }
    MOTE_TRY(mote_fb_scalar(fb, &alloc, MOTE_F_ALLOC_ID, 4u, 0u, &id));
    MOTE_TRY(mote_fb_scalar(fb, &alloc, MOTE_F_ALLOC_LOW, 4u, 0u, &lo));
    MOTE_TRY(mote_fb_scalar(fb, &alloc, MOTE_F_ALLOC_HIGH, 4u, 0u, &hi));
    lo |= hi << 32;
    MOTE_CHECK(id != 0u && id <= c->num_arenas && lo <= c->arena_size[id - 1u] &&
                   out->nbytes <= c->arena_size[id - 1u] - lo,
               MOTE_ERR_BAD_ALLOCATION);
    /* lo <= an arena size (size_t) here: a 32-bit remainder on 32-bit targets */
    MOTE_CHECK((size_t)lo % mote_dtype_size(out->dtype) == 0u, MOTE_ERR_BAD_ALIGNMENT);
    out->data = mem->arenas[id - 1u].ptr != NULL ? (uint8_t *)mem->arenas[id - 1u].ptr + (size_t)lo : NULL;
    return MOTE_OK;
}

/* One scalar, string or tensor value; lists are resolved by values_lists(). */
static mote_err_t value_parse(mote_method_t *m, const mote_fb_t *fb, const mote_fb_table_t *u, uint8_t tag,
                              const method_counts_t *c, const mote_memory_t *mem, mote_tensor_t *tensors,
                              uint32_t *nt, mote_value_t *v)
{
    uint64_t x;

    v->tag = tag;
    v->u.i = 0;
    switch (tag) {
    case MOTE_TAG_INT:
        MOTE_TRY(mote_fb_scalar(fb, u, 0, 8u, 0u, &x));
        v->u.i = (int64_t)x;
        return MOTE_OK;
    case MOTE_TAG_BOOL:
        MOTE_TRY(mote_fb_scalar(fb, u, 0, 1u, 0u, &x));
        MOTE_CHECK(x <= 1u, MOTE_ERR_BAD_VALUE_TYPE);
        v->u.b = x != 0u;
        return MOTE_OK;
    case MOTE_TAG_TENSOR: {
        mote_tensor_t t;
        bool by_view;
        MOTE_CHECK(*nt < c->tensors, MOTE_ERR_BAD_INDEX); /* program changed under us */
        v->u.t = &tensors[*nt];
        (*nt)++;
        MOTE_TRY(tensor_parse(m->prog, fb, u, c, mem, &t, &by_view));
        return tensor_put(m, v->u.t, &t, by_view);
    }
#if MOTE_RUNTIME_DOUBLES
    case MOTE_TAG_DOUBLE: {
        union {
            uint64_t u;
            double d;
        } pun;
        MOTE_TRY(mote_fb_scalar(fb, u, 0, 8u, 0u, &x));
        pun.u = x;
        v->u.d = pun.d;
        return MOTE_OK;
    }
    case MOTE_TAG_DOUBLE_LIST: {
        mote_fb_vec_t items;
        MOTE_TRY(mote_fb_vec_field(fb, u, 0, 8u, &items));
        v->u.doubles.items = (const double *)(const void *)(fb->buf + items.pos);
        v->u.doubles.len = items.len;
        return MOTE_OK;
    }
#endif
#if MOTE_RUNTIME_STRINGS
    case MOTE_TAG_STRING:
        return mote_fb_string_field(fb, u, 0, &v->u.str.ptr, &v->u.str.len);
#endif
#if MOTE_RUNTIME_BOOL_LISTS
    case MOTE_TAG_BOOL_LIST: {
        mote_fb_vec_t items;
        uint32_t k;
        MOTE_TRY(mote_fb_vec_field(fb, u, 0, 1u, &items));
        for (k = 0; k < items.len; k++) {
            MOTE_CHECK(fb->buf[items.pos + k] <= 1u, MOTE_ERR_BAD_VALUE_TYPE);
        }
        v->u.bools.items = fb->buf + items.pos;
        v->u.bools.len = items.len;
        return MOTE_OK;
    }
#endif
#if MOTE_RUNTIME_TENSOR_LISTS
    case MOTE_TAG_TENSOR_LIST:
    case MOTE_TAG_OPT_TENSOR_LIST:
#endif
    case MOTE_TAG_NULL:
    case MOTE_TAG_INT_LIST: /* lists are resolved later */
        return MOTE_OK;
    default: /* a value kind this build leaves out (mote/config.h) */
        return MOTE_ERR_UNSUPPORTED;
    }
}

/* Scalars, strings, tensors of every value. */
static mote_err_t values_parse(mote_method_t *m, const mote_fb_t *fb, const mote_fb_vec_t *vals,
                               const method_counts_t *c, const mote_memory_t *mem, mote_tensor_t *tensors)
{
    mote_fb_table_t t, u;
    uint32_t i, nt = 0;
    uint8_t tag;

    for (i = 0; i < vals->len; i++) {
        mote_value_t v;
        MOTE_TRY(mote_fb_vec_table(fb, vals, i, &t));
        MOTE_TRY(mote_fb_union_field(fb, &t, MOTE_F_EVALUE_VAL, MOTE_TAG_OPT_TENSOR_LIST, &tag, &u));
        MOTE_TRY(value_parse(m, fb, &u, tag, c, mem, tensors, &nt, &v));
        if (!MOTE_WRITES_STATE(m) && (tag == MOTE_TAG_INT_LIST || tag == MOTE_TAG_TENSOR_LIST ||
                                 tag == MOTE_TAG_OPT_TENSOR_LIST)) {
            /* its items are compared by values_lists() */
            MOTE_CHECK(m->values[i].tag == tag, MOTE_ERR_BAD_IMAGE);
            continue;
        }
        MOTE_TRY(value_put(m, &m->values[i], &v));
    }
    return MOTE_OK;
}

/* Items of an int list (value indices) into int64s at `ints`. */
static mote_err_t int_list_resolve(const mote_method_t *m, const mote_fb_t *fb, const mote_fb_vec_t *items,
                                   int64_t *ints)
{
    uint32_t k;

    for (k = 0; k < items->len; k++) {
        const uint64_t idx = mote_fb_u64_at(fb, items->pos + 8u * k);
        MOTE_CHECK(idx < m->num_values, MOTE_ERR_BAD_INDEX);
        MOTE_CHECK(m->values[idx].tag == MOTE_TAG_INT, MOTE_ERR_BAD_VALUE_TYPE);
        if (MOTE_WRITES_STATE(m)) {
            ints[k] = m->values[idx].u.i;
        } else {
            MOTE_CHECK(ints[k] == m->values[idx].u.i, MOTE_ERR_BAD_IMAGE);
        }
    }
    return MOTE_OK;
}

#if MOTE_RUNTIME_TENSOR_LISTS
/* Items of a (optional) tensor list (value indices, -1 = None) into tensor pointers at `tptrs`. */
static mote_err_t tensor_list_resolve(const mote_method_t *m, const mote_fb_t *fb, const mote_fb_vec_t *items,
                                      bool optional, mote_tensor_t **tptrs)
{
    uint32_t k;

    for (k = 0; k < items->len; k++) {
        const int32_t idx = (int32_t)mote_fb_u32_at(fb, items->pos + 4u * k);
        mote_tensor_t *t = NULL;
        if (idx != -1 || !optional) {
            MOTE_CHECK(idx >= 0 && (uint32_t)idx < m->num_values, MOTE_ERR_BAD_INDEX);
            if (m->values[idx].tag == MOTE_TAG_TENSOR) {
                t = m->values[idx].u.t;
            } else {
                MOTE_CHECK(optional && m->values[idx].tag == MOTE_TAG_NULL, MOTE_ERR_BAD_VALUE_TYPE);
            }
        }
        MOTE_TRY(ptr_put(m, (void **)&tptrs[k], t));
    }
    return MOTE_OK;
}
#endif

#if MOTE_RUNTIME_TENSOR_LISTS
/* Does the tensor list `items` name a constant tensor? (Items that name no tensor: tensor_list_resolve refuses.) */
static bool tensor_list_has_constant(const mote_method_t *m, const mote_fb_t *fb, const mote_fb_vec_t *items)
{
    uint32_t k;

    for (k = 0; k < items->len; k++) {
        const int32_t idx = (int32_t)mote_fb_u32_at(fb, items->pos + 4u * k);
        if (idx >= 0 && (uint32_t)idx < m->num_values && m->values[idx].tag == MOTE_TAG_TENSOR &&
            mote_method_is_constant(m, m->values[idx].u.t)) {
            return true;
        }
    }
    return false;
}
#endif

/*
 * Int lists into int64 arrays, tensor lists into tensor-pointer arrays (in
 * state). Tensor lists that name a constant tensor go last, from
 * m->const_lists on, so the write proof knows a list out argument writable by
 * its place (mote_method_verify_outputs), not by reading it at every call.
 */
static mote_err_t values_lists(mote_method_t *m, const mote_fb_t *fb, const mote_fb_vec_t *vals,
                               const method_counts_t *c, int64_t *ints, mote_tensor_t **tptrs)
{
    mote_fb_table_t t, u;
    mote_fb_vec_t items;
    uint64_t ni = 0, ntp = 0;
    uint32_t i, pass;
    uint8_t tag;

    m->const_lists = (mote_tensor_t *const *)tptrs;
    for (pass = 0; pass < 2u; pass++) {
        for (i = 0; i < vals->len; i++) {
            mote_value_t v = m->values[i];
            const bool is_ints = v.tag == MOTE_TAG_INT_LIST;
            if (!is_ints && v.tag != MOTE_TAG_TENSOR_LIST && v.tag != MOTE_TAG_OPT_TENSOR_LIST) {
                continue;
            }
            if (is_ints && pass != 0u) {
                continue;
            }
            MOTE_TRY(mote_fb_vec_table(fb, vals, i, &t));
            MOTE_TRY(mote_fb_union_field(fb, &t, MOTE_F_EVALUE_VAL, MOTE_TAG_OPT_TENSOR_LIST, &tag, &u));
            MOTE_TRY(mote_fb_vec_field(fb, &u, 0, is_ints ? 8u : 4u, &items));
            if (is_ints) {
                MOTE_CHECK(items.len <= c->ints - ni, MOTE_ERR_BAD_INDEX);
                MOTE_TRY(int_list_resolve(m, fb, &items, ints + ni));
                v.u.ints.items = ints + ni;
                v.u.ints.len = items.len;
                ni += items.len;
            } else {
#if MOTE_RUNTIME_TENSOR_LISTS
                const bool has_const = v.tag == MOTE_TAG_TENSOR_LIST && tensor_list_has_constant(m, fb, &items);
                if (has_const != (pass == 1u)) {
                    continue;
                }
                MOTE_CHECK(items.len <= c->tptrs - ntp, MOTE_ERR_BAD_INDEX);
                MOTE_TRY(tensor_list_resolve(m, fb, &items, v.tag == MOTE_TAG_OPT_TENSOR_LIST, tptrs + ntp));
                v.u.tensors.items = tptrs + ntp;
                v.u.tensors.len = items.len;
                ntp += items.len;
#else
                (void)tptrs;
                (void)ntp;
                return MOTE_ERR_UNSUPPORTED; /* value_parse refused them */
#endif
            }
            MOTE_TRY(value_put(m, &m->values[i], &v));
        }
        if (pass == 0u) {
            m->const_lists = (mote_tensor_t *const *)(tptrs + ntp);
        }
    }
    return MOTE_OK;
}

/* Does "name" + "." + "overload" equal the registry entry `entry`? */
/* An array, not a literal: a literal would be tail-merged with the registry's
 * "....default" names, which the size report's per-object attribution counts twice. */
static const char k_default_overload[] = "default";

static bool op_name_eq(const char *entry, const char *name, const char *overload)
{
    uint32_t i = 0, k = 0;
    while (name[k] != '\0') {
        if (entry[i] != name[k]) {
            return false;
        }
        i++;
        k++;
    }
    if (overload[0] == '\0') {
        /* ExecuTorch names a default overload without one ("aten::copy_") */
        if (entry[i] == '\0') {
            return true;
        }
        overload = k_default_overload;
    }
    if (entry[i] != '.') {
        return false;
    }
    i++;
    for (k = 0; overload[k] != '\0'; k++, i++) {
        if (entry[i] != overload[k]) {
            return false;
        }
    }
    return entry[i] == '\0';
}

/* Index vector of method inputs/outputs, each a valid value index. */
static mote_err_t index_vector(const mote_fb_t *fb, const mote_fb_table_t *plan, uint32_t id, uint32_t nvalues,
                               const int32_t **items, uint32_t *len)
{
    mote_fb_vec_t v;
    uint32_t i;

    MOTE_TRY(mote_fb_vec_field(fb, plan, id, 4u, &v));
    for (i = 0; i < v.len; i++) {
        MOTE_CHECK(mote_fb_u32_at(fb, v.pos + 4u * i) < nvalues, MOTE_ERR_BAD_INDEX);
    }
    *items = (const int32_t *)(const void *)(fb->buf + v.pos);
    *len = v.len;
    return MOTE_OK;
}

/*
 * ExecuTorch's KernelCall lists the schema arguments (out tensors last) and
 * then the return values, which for an out-variant are the out tensors again.
 * Kernels receive the schema arguments only: a trailing run of k indices
 * repeating the k before it (k <= MOTE_MAX_KERNEL_OUTPUTS) is dropped; so is
 * a trailing TensorList holding exactly the k tensors before it (multi-output
 * ops, in the caller).
 */
static uint32_t strip_returns(const mote_fb_t *fb, const mote_fb_vec_t *args)
{
    uint32_t n = args->len, k, j;

    for (k = MOTE_MAX_KERNEL_OUTPUTS; k >= 1u; k--) {
        if (2u * k > n) {
            continue;
        }
        for (j = 0; j < k; j++) {
            if (mote_fb_u32_at(fb, args->pos + 4u * (n - k + j)) !=
                mote_fb_u32_at(fb, args->pos + 4u * (n - 2u * k + j))) {
                break;
            }
        }
        if (j == k) {
            return n - k;
        }
    }
    return n;
}

/* Drops a trailing TensorList return holding exactly the out tensors before
 * it: several out tensors, or one `Tensor(a!)[] out` list (ExecuTorch writes
 * split_with_sizes_copy's return as a second list of the same tensors).
 * Comparing two lists reads their items: *budget (the method's tensor-list
 * items, c->tptrs) bounds what init reads over all calls, so init stays linear
 * (ExecuTorch compares each call's own return list once); a program that
 * would read more, by repeating long lists in many calls, is UNSUPPORTED. */
static mote_err_t strip_list_return(mote_instr_t *ins, mote_value_t *const *kargs, uint32_t nargs_in_call,
                                    uint64_t *budget)
{
    const mote_value_t *ret, *prev;
    uint32_t k, j;

    if (!MOTE_RUNTIME_TENSOR_LISTS || ins->a != nargs_in_call || ins->a < 2u ||
        kargs[ins->a - 1u]->tag != MOTE_TAG_TENSOR_LIST) {
        return MOTE_OK;
    }
    ret = kargs[ins->a - 1u];
    prev = kargs[ins->a - 2u];
    if (prev->tag == MOTE_TAG_TENSOR_LIST && prev->u.tensors.len == ret->u.tensors.len) {
        if (prev->u.tensors.items != ret->u.tensors.items) { /* one list twice is equal unread */
            MOTE_CHECK(ret->u.tensors.len <= *budget, MOTE_ERR_UNSUPPORTED);
            *budget -= ret->u.tensors.len;
            for (j = 0; j < ret->u.tensors.len && prev->u.tensors.items[j] == ret->u.tensors.items[j]; j++) {
            }
            if (j != ret->u.tensors.len) {
                return MOTE_OK;
            }
        }
        ins->a--;
        return MOTE_OK;
    }
    if (prev->tag == MOTE_TAG_TENSOR_LIST) {
        return MOTE_OK;
    }
    k = ret->u.tensors.len;
    if (k == 0u || k >= ins->a) {
        return MOTE_OK;
    }
    for (j = 0; j < k; j++) { /* at most the call's own arguments */
        const mote_value_t *o = kargs[ins->a - 1u - k + j];
        if (o->tag != MOTE_TAG_TENSOR || o->u.t != ret->u.tensors.items[j]) {
            return MOTE_OK;
        }
    }
    ins->a--;
    return MOTE_OK;
}

/* Is registry entry `e` (writing its last `nouts` arguments) a valid one (name, kernel,
 * 1..MOTE_MAX_KERNEL_OUTPUTS outputs) for operator `op`.`ovl`? A macro: instr_link's loop
 * compiles as it did before mote_method_missing_operator shared it. */
#define REGISTRY_MATCH(e, nouts, op, ovl)                                                                 \
    ((e)->name != NULL && (e)->fn != NULL && (nouts) >= 1u && (nouts) <= MOTE_MAX_KERNEL_OUTPUTS &&     \
     op_name_eq((e)->name, (op), (ovl)))

/* The registry kernel of `name`.`overload`: links it after proving its out arguments writable. */
static mote_err_t instr_link(mote_method_t *m, uint32_t op_index, const char *name, const char *overload,
                             mote_instr_t *ins, mote_value_t *const *kargs)
{
    uint32_t i;

    for (i = 0; i < mote_kernel_registry_len; i++) {
        const mote_kernel_entry_t *e = &mote_kernel_registry[i];
        const uint32_t nouts = mote_kernel_registry_outputs[i];
        if (REGISTRY_MATCH(e, nouts, name, overload)) {
            MOTE_TRY(mote_method_verify_outputs(m, kargs, ins->a, nouts));
            ins->kind = MOTE_INSTR_KERNEL;
            ins->fn = e->fn;
            return MOTE_OK;
        }
    }
    m->failed_op = (int32_t)op_index;
    MOTE_LOGF("no kernel for operator %s.%s", name, overload);
    return MOTE_ERR_OP_NOT_FOUND;
}

mote_err_t mote_method_missing_operator(const mote_program_t *prog, uint32_t method_index, int32_t *op_index)
{
    mote_fb_table_t plan, op;
    mote_fb_vec_t ops;
    mote_fb_t fb;
    const char *name, *overload;
    uint32_t i, k, len;

    MOTE_CHECK(op_index != NULL, MOTE_ERR_INVALID_ARGUMENT);
    *op_index = -1;
    MOTE_TRY(mote_program_plan(prog, method_index, &plan));
    fb = mote_program_fb(prog);
    MOTE_TRY(mote_fb_vec_field(&fb, &plan, MOTE_F_PLAN_OPERATORS, 4u, &ops));
    MOTE_CHECK(ops.len <= (uint32_t)INT32_MAX, MOTE_ERR_UNSUPPORTED);
    for (i = 0; i < ops.len; i++) {
        MOTE_TRY(mote_fb_vec_table(&fb, &ops, i, &op));
        MOTE_TRY(mote_fb_string_field(&fb, &op, MOTE_F_OPERATOR_NAME, &name, &len));
        MOTE_TRY(mote_fb_string_field(&fb, &op, MOTE_F_OPERATOR_OVERLOAD, &overload, &len));
        MOTE_CHECK(name != NULL, MOTE_ERR_BAD_INSTRUCTION);
        overload = overload != NULL ? overload : "";
        if (op_name_eq("executorch_prim::et_view.default", name, overload)) {
            continue; /* the runtime runs it itself */
        }
        for (k = 0; k < mote_kernel_registry_len; k++) {
            const mote_kernel_entry_t *e = &mote_kernel_registry[k];
            if (REGISTRY_MATCH(e, mote_kernel_registry_outputs[k], name, overload)) {
                break;
            }
        }
        if (k == mote_kernel_registry_len) {
            *op_index = (int32_t)i;
            return MOTE_OK;
        }
    }
    return MOTE_OK;
}

/* Is value `idx` a tensor whose storage only an et_view gives (not planned, not constant)? */
static mote_err_t value_by_view(const mote_method_t *m, const mote_fb_t *fb, uint32_t idx, bool *by_view)
{
    mote_fb_table_t plan, t, u, alloc;
    mote_fb_vec_t vals;
    uint64_t buffer;
    const char *key;
    uint32_t len;
    uint8_t tag;
    bool planned;

    *by_view = false;
    MOTE_TRY(mote_program_plan(m->prog, m->method_index, &plan));
    MOTE_TRY(mote_fb_vec_field(fb, &plan, MOTE_F_PLAN_VALUES, 4u, &vals));
    MOTE_CHECK(idx < vals.len, MOTE_ERR_BAD_INDEX);
    MOTE_TRY(mote_fb_vec_table(fb, &vals, idx, &t));
    MOTE_TRY(mote_fb_union_field(fb, &t, MOTE_F_EVALUE_VAL, MOTE_TAG_OPT_TENSOR_LIST, &tag, &u));
    if (tag != MOTE_TAG_TENSOR) {
        return MOTE_OK;
    }
    MOTE_TRY(mote_fb_scalar(fb, &u, MOTE_F_TENSOR_BUFFER_IDX, 4u, 0u, &buffer));
    MOTE_TRY(mote_fb_table_field(fb, &u, MOTE_F_TENSOR_ALLOC, &alloc, &planned));
    MOTE_TRY(tensor_external_key(fb, &u, &key, &len));
    *by_view = key == NULL && buffer == 0u && !planned;
    return MOTE_OK;
}

/* One KernelCall: et_view or a registry kernel; args into value pointers. */
static mote_err_t instr_kernel(mote_method_t *m, const mote_fb_t *fb, const mote_fb_table_t *call,
                               const mote_fb_vec_t *ops, mote_instr_t *ins, mote_value_t **kargs, uint64_t *budget)
{
    mote_fb_table_t op;
    mote_fb_vec_t args;
    uint64_t op_index;
    const char *name, *overload;
    uint32_t i, len;

    MOTE_TRY(mote_fb_scalar(fb, call, 0, 4u, 0u, &op_index));
    MOTE_TRY(mote_fb_vec_field(fb, call, 1, 4u, &args));
    MOTE_CHECK(op_index < ops->len, MOTE_ERR_BAD_INDEX);
    MOTE_TRY(mote_fb_vec_table(fb, ops, (uint32_t)op_index, &op));
    MOTE_TRY(mote_fb_string_field(fb, &op, MOTE_F_OPERATOR_NAME, &name, &len));
    MOTE_TRY(mote_fb_string_field(fb, &op, MOTE_F_OPERATOR_OVERLOAD, &overload, &len));
    MOTE_CHECK(name != NULL, MOTE_ERR_BAD_INSTRUCTION);
    overload = overload != NULL ? overload : "";
    for (i = 0; i < args.len; i++) {
        const uint32_t idx = mote_fb_u32_at(fb, args.pos + 4u * i);
        MOTE_CHECK(idx < m->num_values, MOTE_ERR_BAD_INDEX);
        MOTE_TRY(ptr_put(m, (void **)&kargs[i], &m->values[idx]));
    }
    ins->a = strip_returns(fb, &args);
    ins->args = (mote_value_t *const *)kargs;
    MOTE_TRY(strip_list_return(ins, kargs, args.len, budget));
    if (op_name_eq("executorch_prim::et_view.default", name, overload)) {
        MOTE_CHECK(ins->a == 3u && kargs[0]->tag == MOTE_TAG_TENSOR && kargs[2]->tag == MOTE_TAG_TENSOR,
                   MOTE_ERR_BAD_INSTRUCTION);
        ins->kind = MOTE_INSTR_VIEW;
        ins->a = mote_fb_u32_at(fb, args.pos);
        ins->b = mote_fb_u32_at(fb, args.pos + 8u);
        /* with an image, the input's storage must be fixed already (its own, or an
         * earlier view's): image_views_check proves it for every view at once */
        return mote_method_verify_view(m, kargs[0]->u.t, kargs[2]->u.t);
    }
    return instr_link(m, (uint32_t)op_index, name, overload, ins, kargs);
}

#if MOTE_RUNTIME_DELEGATES /* else init refuses a DelegateCall (mote/config.h) */
static bool str_eq(const char *a, const char *b)
{
    uint32_t i = 0;
    while (a[i] != '\0' && a[i] == b[i]) {
        i++;
    }
    return a[i] == b[i];
}

/* The registry backend named `id`. Errors: NO_SUCH_BACKEND. */
static mote_err_t backend_find(const char *id, uint32_t *index)
{
    uint32_t i;

    for (i = 0; i < mote_backend_registry_len; i++) {
        const mote_backend_t *b = mote_backend_registry[i];
        if (b != NULL && b->id != NULL && b->init != NULL && b->execute != NULL && str_eq(b->id, id)) {
            *index = i;
            return MOTE_OK;
        }
    }
    MOTE_LOGF("no backend %s in this build", id);
    return MOTE_ERR_NO_SUCH_BACKEND;
}

/* One DelegateCall: its backend found, args into value pointers, the backend's
 * init run on its payload, and the arguments it writes proven writable. */
static mote_err_t instr_delegate(mote_method_t *m, const mote_fb_t *fb, const mote_fb_table_t *plan,
                                 const mote_fb_table_t *call, mote_instr_t *ins, mote_value_t **kargs)
{
    mote_fb_vec_t args;
    mote_delegate_init_t ctx;
    uint64_t index;
    const char *id;
    uint32_t i, b;
    void *handle = NULL;
    mote_err_t err;

    MOTE_CHECK(MOTE_WRITES_STATE(m), MOTE_ERR_UNSUPPORTED); /* its handle is made at init */
    MOTE_TRY(mote_fb_scalar(fb, call, MOTE_F_DELEGATE_CALL_INDEX, 4u, 0u, &index));
    MOTE_TRY(mote_fb_vec_field(fb, call, MOTE_F_DELEGATE_CALL_ARGS, 4u, &args));
    MOTE_CHECK(index <= UINT32_MAX, MOTE_ERR_BAD_INDEX);
    MOTE_TRY(mote_program_delegate(m->prog, plan, (uint32_t)index, &id, &ctx.payload, &ctx.payload_size));
    MOTE_TRY(backend_find(id, &b));
    for (i = 0; i < args.len; i++) {
        const uint32_t idx = mote_fb_u32_at(fb, args.pos + 4u * i);
        MOTE_CHECK(idx < m->num_values, MOTE_ERR_BAD_INDEX);
        kargs[i] = &m->values[idx];
    }
    ctx.args = (mote_value_t *const *)kargs;
    ctx.nargs = args.len;
    ctx.pool = &m->pool;
    ctx.prog = m->prog;
    ctx.num_outputs = 0;
    MOTE_TRY(mote_backend_registry[b]->init(&ctx, &handle));
    ins->kind = MOTE_INSTR_DELEGATE; /* set before the proof: a failure destroys the handle */
    ins->a = args.len;
    ins->b = b;
    ins->args = (mote_value_t *const *)kargs;
    ins->scratch = handle;
    err = ctx.num_outputs >= 1u ? MOTE_OK : MOTE_ERR_BACKEND_PAYLOAD; /* a subgraph that writes nothing */
    return err == MOTE_OK ? mote_method_verify_outputs(m, ctx.args, args.len, ctx.num_outputs) : err;
}

#endif

/* Releases the backends' handles of instructions [0, n). */
static void delegates_destroy(mote_method_t *m, uint32_t n)
{
    uint32_t i;

    if (!MOTE_RUNTIME_DELEGATES) {
        return; /* init refused every DelegateCall */
    }
    for (i = 0; i < n && i < m->num_instrs; i++) {
        mote_instr_t *ins = &m->instrs[i];
        if (ins->kind == MOTE_INSTR_DELEGATE && ins->scratch != NULL) {
            const mote_backend_t *be = mote_backend_registry[ins->b];
            if (be->destroy != NULL) {
                be->destroy(ins->scratch);
            }
            ins->scratch = NULL;
        }
    }
}

/* MoveCall / JumpFalseCall (a, b) or FreeCall (a) at instruction `index`: indices checked.
 * A jump goes forward only (index < b <= num_instrs), so the program counter only grows
 * and execute runs at most num_instrs instructions (mote/method.h). */
static mote_err_t instr_control(mote_method_t *m, const mote_fb_t *fb, const mote_fb_table_t *u, uint8_t tag,
                                uint32_t index, uint32_t num_instrs, mote_instr_t *ins)
{
    uint64_t a, b = 0;

    MOTE_CHECK(MOTE_RUNTIME_CONTROL, MOTE_ERR_UNSUPPORTED); /* built without (mote/config.h) */
    MOTE_TRY(mote_fb_scalar(fb, u, 0, 4u, 0u, &a));
    MOTE_CHECK(a < m->num_values, MOTE_ERR_BAD_INDEX);
    if (tag != MOTE_INSTR_FREE) {
        MOTE_TRY(mote_fb_scalar(fb, u, 1, 4u, 0u, &b));
    }
    if (tag == MOTE_INSTR_MOVE) {
        MOTE_CHECK(MOTE_WRITES_STATE(m), MOTE_ERR_UNSUPPORTED); /* it rewrites a value at run time */
        MOTE_CHECK(b < m->num_values, MOTE_ERR_BAD_INDEX);
        MOTE_TRY(mote_method_verify_move(m, (uint32_t)a, (uint32_t)b));
    } else if (tag == MOTE_INSTR_JUMP_FALSE) {
        MOTE_CHECK(b <= num_instrs, MOTE_ERR_BAD_INSTRUCTION);
        MOTE_CHECK(b > index, MOTE_ERR_BACKWARD_JUMP); /* a loop: execute could not be bounded */
    }
    ins->kind = tag;
    ins->a = (uint32_t)a;
    ins->b = (uint32_t)b;
    return MOTE_OK;
}

/* The caller's scratch slots as instrs_parse meets them: in instruction order
 * (sorted) one cursor walks them once; otherwise each call scans them all. */
typedef struct slot_cursor {
    uint32_t next;
    bool sorted;
} slot_cursor_t;

/* The planned scratch slot of kernel call `index` (at most one; none: NULL, 0). */
static mote_err_t scratch_slot_of(const mote_memory_t *mem, uint32_t index, mote_instr_t *ins, slot_cursor_t *cur)
{
    uint32_t i = cur->sorted ? cur->next : 0u;

    for (; i < mem->num_scratch_slots; i++) {
        const mote_scratch_slot_t *s = &mem->scratch_slots[i];
        if (s->instruction != index) {
            if (cur->sorted) {
                break; /* the slots of later instructions */
            }
            continue;
        }
        MOTE_CHECK(ins->kind == MOTE_INSTR_KERNEL, MOTE_ERR_BAD_SCRATCH_PLAN);
        if (s->size != 0u) {
            MOTE_CHECK(ins->scratch == NULL, MOTE_ERR_BAD_SCRATCH_PLAN); /* a second slot */
            ins->scratch = (uint8_t *)mem->arenas[0].ptr + s->offset;
            ins->scratch_size = s->size;
        }
    }
    if (cur->sorted) {
        cur->next = i;
    }
    return MOTE_OK;
}

static mote_err_t instrs_parse(mote_method_t *m, const mote_fb_t *fb, const mote_fb_table_t *plan,
                               const method_counts_t *c, const mote_memory_t *mem, mote_value_t **kargs)
{
    mote_fb_vec_t v, ops, args;
    mote_fb_table_t t, u;
    uint64_t nk = 0, list_budget = c->tptrs; /* strip_list_return's reads */
    uint32_t i;
    uint8_t tag;
    slot_cursor_t cur;

    cur.next = 0;
    cur.sorted = true;
    for (i = 1; i < mem->num_scratch_slots; i++) {
        cur.sorted = cur.sorted && mem->scratch_slots[i - 1u].instruction <= mem->scratch_slots[i].instruction;
    }
    MOTE_TRY(method_instructions(fb, plan, &v));
    MOTE_TRY(mote_fb_vec_field(fb, plan, MOTE_F_PLAN_OPERATORS, 4u, &ops));
    MOTE_CHECK(v.len == m->num_instrs, MOTE_ERR_BAD_INDEX);
    for (i = 0; i < v.len; i++) {
        mote_instr_t ins = {0};
        m->failed_instr = (int32_t)i;
        MOTE_TRY(mote_fb_vec_table(fb, &v, i, &t));
        MOTE_TRY(mote_fb_union_field(fb, &t, MOTE_F_INSTR_ARGS, MOTE_INSTR_FREE, &tag, &u));
        if (tag == MOTE_INSTR_KERNEL) {
            MOTE_TRY(mote_fb_vec_field(fb, &u, 1, 4u, &args));
            MOTE_CHECK(args.len <= c->kargs - nk, MOTE_ERR_BAD_INDEX);
            MOTE_TRY(instr_kernel(m, fb, &u, &ops, &ins, kargs + nk, &list_budget));
            nk += args.len;
        } else if (tag == MOTE_INSTR_DELEGATE) {
#if MOTE_RUNTIME_DELEGATES
            MOTE_TRY(mote_fb_vec_field(fb, &u, MOTE_F_DELEGATE_CALL_ARGS, 4u, &args));
            MOTE_CHECK(args.len <= c->kargs - nk, MOTE_ERR_BAD_INDEX);
            /* stored before its checks: a failure destroys the handle */
            m->instrs[i] = ins;
            MOTE_TRY(instr_delegate(m, fb, plan, &u, &m->instrs[i], kargs + nk));
            MOTE_TRY(scratch_slot_of(mem, i, &m->instrs[i], &cur));
            nk += args.len;
            continue;
#else
            return MOTE_ERR_NO_SUCH_BACKEND; /* built without (mote/config.h), as with an empty registry */
#endif
        } else {
            MOTE_TRY(instr_control(m, fb, &u, tag, i, v.len, &ins));
        }
        MOTE_TRY(scratch_slot_of(mem, i, &ins, &cur));
        MOTE_TRY(instr_put(m, &m->instrs[i], &ins));
    }
    return MOTE_OK;
}

static mote_err_t memory_check(const mote_memory_t *mem, const mote_method_requirements_t *req)
{
    uint32_t i;

    if (MOTE_RUNTIME_STATE && mem->image == NULL) { /* an image holds the state */
        MOTE_CHECK(mem->state.ptr != NULL && mem->state.size >= req->state_size, MOTE_ERR_MEMORY_TOO_SMALL);
        MOTE_CHECK(((uintptr_t)mem->state.ptr & (MOTE_STATE_ALIGN - 1u)) == 0u, MOTE_ERR_MEMORY_ALIGNMENT);
    }
    MOTE_CHECK(mem->num_arenas <= MOTE_MAX_ARENAS, MOTE_ERR_INVALID_ARGUMENT);
    MOTE_CHECK(mem->num_arenas >= req->num_arenas, MOTE_ERR_MEMORY_TOO_SMALL);
    for (i = 0; i < req->num_arenas; i++) {
        if (req->arena_size[i] == 0u) {
            continue;
        }
        MOTE_CHECK(mem->arenas[i].ptr != NULL && mem->arenas[i].size >= req->arena_size[i],
                   MOTE_ERR_MEMORY_TOO_SMALL);
        MOTE_CHECK(((uintptr_t)mem->arenas[i].ptr & (MOTE_ARENA_ALIGN - 1u)) == 0u, MOTE_ERR_MEMORY_ALIGNMENT);
    }
    return MOTE_OK;
}

/* Every planned scratch slot names an instruction and lies inside arenas[0]
 * (instrs_parse gives each to its kernel call: scratch_slot_of). */
static mote_err_t scratch_slots_check(const mote_memory_t *mem, uint64_t num_instrs)
{
    uint32_t i;
    size_t asize;

    if (mem->num_scratch_slots == 0u) {
        return MOTE_OK;
    }
    MOTE_CHECK(mem->scratch_slots != NULL && mem->num_arenas >= 1u && mem->arenas[0].ptr != NULL,
               MOTE_ERR_BAD_SCRATCH_PLAN);
    asize = mem->arenas[0].size;
    for (i = 0; i < mem->num_scratch_slots; i++) {
        const mote_scratch_slot_t *s = &mem->scratch_slots[i];
        MOTE_CHECK(s->instruction < num_instrs, MOTE_ERR_BAD_SCRATCH_PLAN);
        MOTE_CHECK((size_t)s->offset <= asize && (size_t)s->size <= asize - (size_t)s->offset,
                   MOTE_ERR_BAD_SCRATCH_PLAN);
    }
    return MOTE_OK;
}

/* The image's tables: as many entries as the method's state has (c), each
 * table present when it has any. */
static mote_err_t image_check(const mote_method_image_t *img, const method_counts_t *c)
{
    const uint64_t want[MOTE_STATE_REGIONS] = {c->values, c->tensors, c->ints, c->tptrs, c->instrs, c->kargs};
    const void *const tables[MOTE_STATE_REGIONS] = {img->values, img->tensors, img->ints,
                                                    img->tptrs, img->instrs, img->kargs};
    uint32_t i;

    for (i = 0; i < MOTE_STATE_REGIONS; i++) {
        MOTE_CHECK(img->counts[i] == want[i] && (want[i] == 0u || tables[i] != NULL), MOTE_ERR_BAD_IMAGE);
    }
    return MOTE_OK;
}

/* Value indices one pass of image_views_check covers: a bitmap of this many bits on the stack. */
#define MOTE_VIEW_WINDOW 2048u

/*
 * With an image: every et_view whose input's storage only a view gives
 * (value_by_view) comes after a view that outputs that input, so the image's
 * view chains start at storage (init compared each view's output with its
 * input); and every tensor whose storage only a view gives has the storage of
 * one or none. One pass over the instructions per MOTE_VIEW_WINDOW value
 * indices marks the views' outputs in order: O(instructions * ceil(values /
 * MOTE_VIEW_WINDOW)) steps, each value's flatbuffer read once.
 */
static mote_err_t image_views_check(mote_method_t *m, const mote_fb_t *fb)
{
    uint8_t seen[MOTE_VIEW_WINDOW / 8u];
    uint32_t lo, hi, i;
    bool by_view;

    for (lo = 0; lo < m->num_values; lo = hi) {
        hi = m->num_values - lo < MOTE_VIEW_WINDOW ? m->num_values : lo + MOTE_VIEW_WINDOW;
        for (i = 0; i < MOTE_VIEW_WINDOW / 8u; i++) {
            seen[i] = 0;
        }
        for (i = 0; i < m->num_instrs; i++) {
            const mote_instr_t *ins = &m->instrs[i];
            if (ins->kind != MOTE_INSTR_VIEW) {
                continue;
            }
            if (ins->a >= lo && ins->a < hi && (seen[(ins->a - lo) / 8u] & (1u << ((ins->a - lo) % 8u))) == 0u) {
                MOTE_TRY(value_by_view(m, fb, ins->a, &by_view));
                if (by_view) {
                    m->failed_instr = (int32_t)i;
                    return MOTE_ERR_BAD_IMAGE; /* no earlier view gave the input storage */
                }
            }
            if (ins->b >= lo && ins->b < hi) {
                seen[(ins->b - lo) / 8u] |= (uint8_t)(1u << ((ins->b - lo) % 8u));
            }
        }
        for (i = lo; i < hi; i++) {
            if (m->values[i].tag != MOTE_TAG_TENSOR || m->values[i].u.t->data == NULL ||
                (seen[(i - lo) / 8u] & (1u << ((i - lo) % 8u))) != 0u) {
                continue;
            }
            MOTE_TRY(value_by_view(m, fb, i, &by_view));
            MOTE_CHECK(!by_view, MOTE_ERR_BAD_IMAGE);
        }
    }
    return MOTE_OK;
}

/* Copies every mutable buffer's initial value from the program into its
 * planned storage (init verified both: the data lies inside its segment, the
 * storage inside its arena, and neither is in the other). */
static mote_err_t method_load_mutable(mote_method_t *m)
{
#if !MOTE_RUNTIME_MUTABLE
    (void)m; /* init refused every mutable buffer */
    return MOTE_OK;
#else
    mote_fb_t fb = mote_program_fb(m->prog);
    mote_fb_table_t plan, t, u;
    mote_fb_vec_t vals;
    uint64_t buffer;
    uint32_t i, k;
    uint8_t tag;
    bool planned;
    const uint8_t *p;

    MOTE_TRY(mote_program_plan(m->prog, m->method_index, &plan));
    MOTE_TRY(mote_fb_vec_field(&fb, &plan, MOTE_F_PLAN_VALUES, 4u, &vals));
    MOTE_CHECK(vals.len == m->num_values, MOTE_ERR_BAD_INDEX);
    for (i = 0; i < vals.len; i++) {
        if (m->values[i].tag != MOTE_TAG_TENSOR) {
            continue;
        }
        MOTE_TRY(mote_fb_vec_table(&fb, &vals, i, &t));
        MOTE_TRY(mote_fb_union_field(&fb, &t, MOTE_F_EVALUE_VAL, MOTE_TAG_OPT_TENSOR_LIST, &tag, &u));
        MOTE_TRY(mote_fb_scalar(&fb, &u, MOTE_F_TENSOR_BUFFER_IDX, 4u, 0u, &buffer));
        MOTE_TRY(mote_fb_table_field(&fb, &u, MOTE_F_TENSOR_ALLOC, &t, &planned));
        if (buffer == 0u || !planned) {
            continue;
        }
        {
            mote_tensor_t *dst = m->values[i].u.t;
            uint8_t *d = (uint8_t *)dst->data;
            MOTE_TRY(tensor_initial(m->prog, &fb, &u, (uint32_t)buffer, dst->nbytes, &p));
            for (k = 0; k < dst->nbytes; k++) {
                d[k] = p[k];
            }
        }
    }
    return MOTE_OK;
#endif
}

mote_err_t mote_method_init(mote_method_t *m, const mote_program_t *prog, uint32_t method_index,
                            const mote_memory_t *mem)
{
    mote_method_requirements_t req;
    method_counts_t c;
    method_layout_t l;
    mote_fb_t fb;
    mote_fb_table_t plan;
    mote_fb_vec_t vals;
    uint8_t *state;
    const mote_method_image_t *img;
    mote_tensor_t *tensors;
    int64_t *ints;
    mote_tensor_t **tptrs;
    mote_value_t **kargs;
    mote_err_t err;

    MOTE_CHECK(m != NULL, MOTE_ERR_INVALID_ARGUMENT);
    m->magic = 0;
    m->failed_op = -1;
    m->failed_instr = -1;
    m->tracer = NULL;
    MOTE_CHECK(mem != NULL, MOTE_ERR_INVALID_ARGUMENT);
    MOTE_CHECK(MOTE_RUNTIME_STATE || mem->image != NULL, MOTE_ERR_UNSUPPORTED); /* built without (mote/config.h) */
    MOTE_TRY(method_count(prog, method_index, &c));
    MOTE_TRY(method_layout(&c, &l));
    MOTE_TRY(mote_method_memory_requirements(prog, method_index, &req));
    MOTE_TRY(memory_check(mem, &req));
    MOTE_TRY(scratch_slots_check(mem, c.instrs));
    fb = mote_program_fb(prog);
    MOTE_TRY(mote_program_plan(prog, method_index, &plan));
    MOTE_TRY(mote_fb_vec_field(&fb, &plan, MOTE_F_PLAN_VALUES, 4u, &vals));
    img = mem->image;
    m->prog = prog;
    m->image = img;
    m->method_index = method_index;
    m->num_values = vals.len;
    m->num_instrs = (uint32_t)c.instrs;
    if (!MOTE_RUNTIME_STATE || img != NULL) { /* read, compared, never written (casts only for the shared types) */
        MOTE_TRY(image_check(img, &c));
        m->values = (mote_value_t *)(uintptr_t)img->values;
        m->instrs = (mote_instr_t *)(uintptr_t)img->instrs;
        tensors = (mote_tensor_t *)(uintptr_t)img->tensors;
        ints = (int64_t *)(uintptr_t)img->ints;
        tptrs = (mote_tensor_t **)(uintptr_t)img->tptrs;
        kargs = (mote_value_t **)(uintptr_t)img->kargs;
    } else {
        state = (uint8_t *)mem->state.ptr;
        m->values = (mote_value_t *)(void *)(state + l.values);
        m->instrs = (mote_instr_t *)(void *)(state + l.instrs);
        tensors = (mote_tensor_t *)(void *)(state + l.tensors);
        ints = (int64_t *)(void *)(state + l.ints);
        tptrs = (mote_tensor_t **)(void *)(state + l.tptrs);
        kargs = (mote_value_t **)(void *)(state + l.kargs);
    }
    m->scratch = mem->scratch;
    m->pool.base = (uint8_t *)mem->backend.ptr;
    m->pool.size = mem->backend.ptr != NULL ? mem->backend.size : 0u;
    m->pool.used = 0;
    m->pool.peak = 0;
    MOTE_TRY(values_parse(m, &fb, &vals, &c, mem, tensors));
    MOTE_TRY(values_lists(m, &fb, &vals, &c, ints, tptrs));
    MOTE_TRY(index_vector(&fb, &plan, MOTE_F_PLAN_INPUTS, m->num_values, &m->inputs, &m->num_inputs));
    MOTE_TRY(index_vector(&fb, &plan, MOTE_F_PLAN_OUTPUTS, m->num_values, &m->outputs, &m->num_outputs));
    err = instrs_parse(m, &fb, &plan, &c, mem, kargs);
    if (err == MOTE_OK) {
        m->failed_instr = -1;
        err = mote_method_verify_storage(m);
    }
    if (err == MOTE_OK && !MOTE_WRITES_STATE(m)) {
        err = image_views_check(m, &fb);
    }
    if (err != MOTE_OK) { /* instructions up to the failing one hold backend handles */
        delegates_destroy(m, m->failed_instr >= 0 ? (uint32_t)m->failed_instr + 1u : m->num_instrs);
        return err;
    }
    m->magic = MOTE_METHOD_MAGIC;
    return method_load_mutable(m);
}

void mote_method_destroy(mote_method_t *m)
{
    if (m != NULL && m->magic == MOTE_METHOD_MAGIC) {
        delegates_destroy(m, m->num_instrs);
        m->magic = 0;
    }
}

size_t mote_method_backend_pool_used(const mote_method_t *m)
{
    return (m != NULL && m->magic == MOTE_METHOD_MAGIC) ? m->pool.peak : 0u;
}

mote_err_t mote_method_reset_state(mote_method_t *m)
{
    MOTE_CHECK(m != NULL && m->magic == MOTE_METHOD_MAGIC, MOTE_ERR_NOT_INITIALIZED);
    return method_load_mutable(m);
}

int32_t mote_method_failed_operator(const mote_method_t *m)
{
    return m != NULL ? m->failed_op : -1;
}

int32_t mote_method_failed_instruction(const mote_method_t *m)
{
    return m != NULL ? m->failed_instr : -1;
}
