/* method.c - method requirements, verification/initialisation and execution. */
#include "mote/method.h"
#include "mote/port.h"
#include "program_internal.h"

#define MOTE_METHOD_MAGIC 0x4d455448u /* "METH" */
#define KIND_KERNEL 1u
#define KIND_MOVE 3u
#define KIND_JUMP_FALSE 4u
#define KIND_FREE 5u
#define KIND_VIEW 6u

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
    uint64_t bytes;
    if (n > (uint64_t)0x7fffffffu) {
        return MOTE_ERR_SIZE_OVERFLOW;
    }
    bytes = (n * elem + 7u) & ~(uint64_t)7u;
    *off = (size_t)*at;
    *at += bytes;
    if (*at > (uint64_t)SIZE_MAX || *at > (uint64_t)0x7fffffffu) {
        return MOTE_ERR_SIZE_OVERFLOW;
    }
    return MOTE_OK;
}

static mote_err_t method_layout(const method_counts_t *c, method_layout_t *l)
{
    uint64_t at = 0;
    mote_err_t err = layout_add(&at, c->values, sizeof(mote_value_t), &l->values);
    if (err == MOTE_OK) {
        err = layout_add(&at, c->tensors, sizeof(mote_tensor_t), &l->tensors);
    }
    if (err == MOTE_OK) {
        err = layout_add(&at, c->ints, sizeof(int64_t), &l->ints);
    }
    if (err == MOTE_OK) {
        err = layout_add(&at, c->tptrs, sizeof(mote_tensor_t *), &l->tptrs);
    }
    if (err == MOTE_OK) {
        err = layout_add(&at, c->instrs, sizeof(mote_instr_t), &l->instrs);
    }
    if (err == MOTE_OK) {
        err = layout_add(&at, c->kargs, sizeof(mote_value_t *), &l->kargs);
    }
    l->total = (size_t)at;
    return err;
}

/* The method's single chain's instruction vector (empty if no chain). */
static mote_err_t method_instructions(const mote_fb_t *fb, const mote_fb_table_t *plan, mote_fb_vec_t *out)
{
    mote_fb_vec_t chains;
    mote_fb_table_t chain;
    mote_err_t err = mote_fb_vec_field(fb, plan, MOTE_F_PLAN_CHAINS, 4u, &chains);

    out->pos = 0;
    out->len = 0;
    if (err != MOTE_OK || chains.len == 0u) {
        return err;
    }
    if (chains.len > 1u) {
        return MOTE_ERR_UNSUPPORTED;
    }
    err = mote_fb_vec_table(fb, &chains, 0, &chain);
    if (err == MOTE_OK) {
        err = mote_fb_vec_field(fb, &chain, MOTE_F_CHAIN_INSTRUCTIONS, 4u, out);
    }
    return err;
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
    mote_err_t err = mote_program_plan(prog, index, &plan);

    if (err != MOTE_OK) {
        return err;
    }
    fb = mote_program_fb(prog);
    *c = (method_counts_t){0};
    err = mote_fb_vec_field(&fb, &plan, MOTE_F_PLAN_VALUES, 4u, &v);
    if (err != MOTE_OK) {
        return err;
    }
    c->values = v.len;
    for (i = 0; i < v.len && err == MOTE_OK; i++) {
        err = mote_fb_vec_table(&fb, &v, i, &t);
        if (err == MOTE_OK) {
            err = mote_fb_union_field(&fb, &t, MOTE_F_EVALUE_VAL, MOTE_TAG_OPT_TENSOR_LIST, &tag, &u);
        }
        if (err != MOTE_OK) {
            break;
        }
        if (tag == MOTE_TAG_NONE) {
            err = MOTE_ERR_BAD_UNION_TAG;
        } else if (tag == MOTE_TAG_TENSOR) {
            c->tensors++;
        } else if (tag == MOTE_TAG_INT_LIST) {
            err = mote_fb_vec_field(&fb, &u, 0, 8u, &items);
            c->ints += items.len;
        } else if (tag == MOTE_TAG_TENSOR_LIST || tag == MOTE_TAG_OPT_TENSOR_LIST) {
            err = mote_fb_vec_field(&fb, &u, 0, 4u, &items);
            c->tptrs += items.len;
        }
    }
    if (err == MOTE_OK) {
        err = method_instructions(&fb, &plan, &v);
    }
    if (err != MOTE_OK) {
        return err;
    }
    c->instrs = v.len;
    for (i = 0; i < v.len && err == MOTE_OK; i++) {
        err = mote_fb_vec_table(&fb, &v, i, &t);
        if (err == MOTE_OK) {
            err = mote_fb_union_field(&fb, &t, MOTE_F_INSTR_ARGS, MOTE_INSTR_FREE, &tag, &u);
        }
        if (err == MOTE_OK && tag == 0u) {
            err = MOTE_ERR_BAD_UNION_TAG;
        }
        if (err == MOTE_OK && (tag == MOTE_INSTR_KERNEL || tag == MOTE_INSTR_DELEGATE)) {
            err = mote_fb_vec_field(&fb, &u, 1, 4u, &items);
            c->kargs += items.len;
        }
    }
    if (err == MOTE_OK) {
        err = mote_fb_vec_field(&fb, &plan, MOTE_F_PLAN_BUFFER_SIZES, 8u, &v);
    }
    if (err != MOTE_OK) {
        return err;
    }
    if (v.len > MOTE_MAX_ARENAS + 1u) {
        return MOTE_ERR_UNSUPPORTED;
    }
    c->num_arenas = v.len > 0u ? v.len - 1u : 0u;
    for (i = 1; i < v.len; i++) {
        sz = mote_fb_u64_at(&fb, v.pos + 8u * i);
        if (sz > (uint64_t)0x7fffffffu) { /* negative int64, or beyond 2 GiB */
            return MOTE_ERR_SIZE_OVERFLOW;
        }
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
    mote_err_t err;

    if (out == NULL) {
        return MOTE_ERR_INVALID_ARGUMENT;
    }
    err = method_count(prog, method_index, &c);
    if (err == MOTE_OK) {
        err = method_layout(&c, &l);
    }
    if (err != MOTE_OK) {
        return err;
    }
    out->state_size = l.total;
    out->state_align = MOTE_STATE_ALIGN;
    out->num_arenas = c.num_arenas;
    for (i = 0; i < MOTE_MAX_ARENAS; i++) {
        out->arena_size[i] = (size_t)c.arena_size[i];
    }
    out->arena_align = MOTE_ARENA_ALIGN;
    return MOTE_OK;
}

/* Shape, dtype and storage of one tensor value. */
static mote_err_t tensor_parse(const mote_program_t *prog, const mote_fb_t *fb, const mote_fb_table_t *t,
                               const method_counts_t *c, const mote_memory_t *mem, mote_tensor_t *out)
{
    mote_fb_vec_t sizes, order;
    mote_fb_table_t sub;
    uint64_t dtype, x, id, lo, hi;
    uint64_t numel = 1, nbytes;
    uint32_t i, esize, seen = 0;
    bool has_alloc;
    mote_err_t err;

    err = mote_fb_scalar(fb, t, MOTE_F_TENSOR_DTYPE, 1u, 0u, &dtype);
    if (err != MOTE_OK) {
        return err;
    }
    esize = (uint32_t)mote_dtype_size((uint8_t)dtype);
    if (esize == 0u || dtype > 0xffu) {
        return MOTE_ERR_BAD_DTYPE;
    }
    err = mote_fb_scalar(fb, t, MOTE_F_TENSOR_STORAGE_OFFSET, 4u, 0u, &x);
    if (err == MOTE_OK && x != 0u) {
        err = MOTE_ERR_UNSUPPORTED;
    }
    if (err == MOTE_OK) {
        err = mote_fb_scalar(fb, t, MOTE_F_TENSOR_DYNAMISM, 1u, 0u, &x);
    }
    if (err == MOTE_OK && x > 1u) { /* only static or bounded shapes */
        err = MOTE_ERR_UNSUPPORTED;
    }
    if (err == MOTE_OK) {
        err = mote_fb_table_field(fb, t, MOTE_F_TENSOR_EXTRA, &sub, &has_alloc);
        if (err == MOTE_OK && has_alloc) {
            err = mote_fb_scalar(fb, &sub, MOTE_F_EXTRA_LOCATION, 1u, 0u, &x);
            if (err == MOTE_OK && x != 0u) { /* external data */
                err = MOTE_ERR_UNSUPPORTED;
            }
        }
    }
    if (err == MOTE_OK) {
        err = mote_fb_vec_field(fb, t, MOTE_F_TENSOR_SIZES, 4u, &sizes);
    }
    if (err == MOTE_OK) {
        err = mote_fb_vec_field(fb, t, MOTE_F_TENSOR_DIM_ORDER, 1u, &order);
    }
    if (err != MOTE_OK) {
        return err;
    }
    if (sizes.len > MOTE_MAX_DIM || (order.len != 0u && order.len != sizes.len)) {
        return MOTE_ERR_BAD_SHAPE;
    }
    for (i = 0; i < sizes.len; i++) {
        int32_t s = (int32_t)mote_fb_u32_at(fb, sizes.pos + 4u * i);
        if (s < 0) {
            return MOTE_ERR_BAD_SHAPE;
        }
        numel *= (uint64_t)s; /* <= 2^31 * 2^31 before the check below */
        if (numel > 0xffffffffu) {
            return MOTE_ERR_SIZE_OVERFLOW;
        }
    }
    for (i = 0; i < order.len; i++) {
        uint8_t d = fb->buf[order.pos + i];
        if (d >= order.len || (seen & (1u << d)) != 0u) {
            return MOTE_ERR_BAD_SHAPE;
        }
        seen |= 1u << d;
    }
    nbytes = numel * esize;
    if (nbytes > 0xffffffffu) {
        return MOTE_ERR_SIZE_OVERFLOW;
    }
    out->sizes = sizes.len != 0u ? (const int32_t *)(const void *)(fb->buf + sizes.pos) : NULL;
    out->dim_order = order.len != 0u ? fb->buf + order.pos : NULL;
    out->numel = (uint32_t)numel;
    out->nbytes = (uint32_t)nbytes;
    out->dim = (uint8_t)sizes.len;
    out->dtype = (uint8_t)dtype;
    out->data = NULL;

    err = mote_fb_scalar(fb, t, MOTE_F_TENSOR_BUFFER_IDX, 4u, 0u, &x);
    if (err == MOTE_OK) {
        err = mote_fb_table_field(fb, t, MOTE_F_TENSOR_ALLOC, &sub, &has_alloc);
    }
    if (err != MOTE_OK) {
        return err;
    }
    if (x != 0u && has_alloc) {
        return MOTE_ERR_UNSUPPORTED; /* mutable tensor with an initial value */
    }
    if (x != 0u) {
        const uint8_t *p;
        err = mote_program_constant(prog, (uint32_t)x, out->nbytes, esize, &p);
        out->data = (void *)(uintptr_t)p;
        return err;
    }
    if (!has_alloc) {
        return MOTE_OK; /* filled at run time: must be an et_view output */
    }
    err = mote_fb_scalar(fb, &sub, MOTE_F_ALLOC_ID, 4u, 0u, &id);
    if (err == MOTE_OK) {
        err = mote_fb_scalar(fb, &sub, MOTE_F_ALLOC_LOW, 4u, 0u, &lo);
    }
    if (err == MOTE_OK) {
        err = mote_fb_scalar(fb, &sub, MOTE_F_ALLOC_HIGH, 4u, 0u, &hi);
    }
    if (err != MOTE_OK) {
        return err;
    }
    lo |= hi << 32;
    if (id == 0u || id > c->num_arenas || lo > c->arena_size[id - 1u] ||
        nbytes > c->arena_size[id - 1u] - lo) {
        return MOTE_ERR_BAD_ALLOCATION;
    }
    if ((lo % esize) != 0u) {
        return MOTE_ERR_BAD_ALIGNMENT;
    }
    out->data = mem->arenas[id - 1u].ptr != NULL ? (uint8_t *)mem->arenas[id - 1u].ptr + (size_t)lo : NULL;
    return MOTE_OK;
}

/* Scalars, strings, tensors; lists are resolved by values_lists(). */
static mote_err_t values_parse(mote_method_t *m, const mote_fb_t *fb, const mote_fb_vec_t *vals,
                               const method_counts_t *c, const mote_memory_t *mem, mote_tensor_t *tensors)
{
    const mote_program_t *prog = m->prog;
    mote_fb_table_t t, u;
    mote_fb_vec_t items;
    uint32_t i, k, nt = 0;
    uint64_t x;
    uint8_t tag;
    mote_err_t err = MOTE_OK;

    for (i = 0; i < vals->len && err == MOTE_OK; i++) {
        mote_value_t *v = &m->values[i];
        err = mote_fb_vec_table(fb, vals, i, &t);
        if (err == MOTE_OK) {
            err = mote_fb_union_field(fb, &t, MOTE_F_EVALUE_VAL, MOTE_TAG_OPT_TENSOR_LIST, &tag, &u);
        }
        if (err != MOTE_OK) {
            break;
        }
        v->tag = tag;
        v->u.i = 0;
        switch (tag) {
        case MOTE_TAG_INT:
            err = mote_fb_scalar(fb, &u, 0, 8u, 0u, &x);
            v->u.i = (int64_t)x;
            break;
        case MOTE_TAG_BOOL:
            err = mote_fb_scalar(fb, &u, 0, 1u, 0u, &x);
            if (err == MOTE_OK && x > 1u) {
                err = MOTE_ERR_BAD_VALUE_TYPE;
            }
            v->u.b = x != 0u;
            break;
        case MOTE_TAG_DOUBLE: {
            union { uint64_t u; double d; } pun;
            err = mote_fb_scalar(fb, &u, 0, 8u, 0u, &x);
            pun.u = x;
            v->u.d = pun.d;
            break;
        }
        case MOTE_TAG_STRING:
            err = mote_fb_string_field(fb, &u, 0, &v->u.str.ptr, &v->u.str.len);
            break;
        case MOTE_TAG_TENSOR:
            if (nt >= c->tensors) {
                return MOTE_ERR_BAD_INDEX; /* program changed under us */
            }
            v->u.t = &tensors[nt];
            err = tensor_parse(prog, fb, &u, c, mem, &tensors[nt]);
            nt++;
            break;
        case MOTE_TAG_DOUBLE_LIST:
            err = mote_fb_vec_field(fb, &u, 0, 8u, &items);
            v->u.doubles.items = (const double *)(const void *)(fb->buf + items.pos);
            v->u.doubles.len = items.len;
            break;
        case MOTE_TAG_BOOL_LIST:
            err = mote_fb_vec_field(fb, &u, 0, 1u, &items);
            for (k = 0; err == MOTE_OK && k < items.len; k++) {
                if (fb->buf[items.pos + k] > 1u) {
                    err = MOTE_ERR_BAD_VALUE_TYPE;
                }
            }
            v->u.bools.items = fb->buf + items.pos;
            v->u.bools.len = items.len;
            break;
        default: /* NULL, lists resolved later */
            break;
        }
    }
    return err;
}

/* Int lists into int64 arrays, tensor lists into tensor-pointer arrays. */
static mote_err_t values_lists(mote_method_t *m, const mote_fb_t *fb, const mote_fb_vec_t *vals,
                               const method_counts_t *c, int64_t *ints, mote_tensor_t **tptrs)
{
    mote_fb_table_t t, u;
    mote_fb_vec_t items;
    uint64_t ni = 0, ntp = 0;
    uint32_t i, k;
    uint8_t tag;
    mote_err_t err = MOTE_OK;

    for (i = 0; i < vals->len && err == MOTE_OK; i++) {
        mote_value_t *v = &m->values[i];
        if (v->tag != MOTE_TAG_INT_LIST && v->tag != MOTE_TAG_TENSOR_LIST && v->tag != MOTE_TAG_OPT_TENSOR_LIST) {
            continue;
        }
        err = mote_fb_vec_table(fb, vals, i, &t);
        if (err == MOTE_OK) {
            err = mote_fb_union_field(fb, &t, MOTE_F_EVALUE_VAL, MOTE_TAG_OPT_TENSOR_LIST, &tag, &u);
        }
        if (err == MOTE_OK) {
            err = mote_fb_vec_field(fb, &u, 0, v->tag == MOTE_TAG_INT_LIST ? 8u : 4u, &items);
        }
        if (err != MOTE_OK) {
            break;
        }
        if (v->tag == MOTE_TAG_INT_LIST) {
            if (items.len > c->ints - ni) {
                return MOTE_ERR_BAD_INDEX;
            }
            v->u.ints.items = ints + ni;
            v->u.ints.len = items.len;
            for (k = 0; k < items.len; k++) {
                uint64_t idx = mote_fb_u64_at(fb, items.pos + 8u * k);
                if (idx >= m->num_values) {
                    return MOTE_ERR_BAD_INDEX;
                }
                if (m->values[idx].tag != MOTE_TAG_INT) {
                    return MOTE_ERR_BAD_VALUE_TYPE;
                }
                ints[ni++] = m->values[idx].u.i;
            }
        } else {
            if (items.len > c->tptrs - ntp) {
                return MOTE_ERR_BAD_INDEX;
            }
            v->u.tensors.items = tptrs + ntp;
            v->u.tensors.len = items.len;
            for (k = 0; k < items.len; k++) {
                int32_t idx = (int32_t)mote_fb_u32_at(fb, items.pos + 4u * k);
                mote_tensor_t *p = NULL;
                if (idx == -1 && v->tag == MOTE_TAG_OPT_TENSOR_LIST) {
                    p = NULL;
                } else if (idx < 0 || (uint32_t)idx >= m->num_values) {
                    return MOTE_ERR_BAD_INDEX;
                } else if (m->values[idx].tag == MOTE_TAG_TENSOR) {
                    p = m->values[idx].u.t;
                } else if (m->values[idx].tag != MOTE_TAG_NULL || v->tag != MOTE_TAG_OPT_TENSOR_LIST) {
                    return MOTE_ERR_BAD_VALUE_TYPE;
                }
                tptrs[ntp++] = p;
            }
        }
    }
    return err;
}

/* Does "name" + "." + "overload" equal the registry entry `entry`? */
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
    if (overload[0] != '\0') {
        if (entry[i] != '.') {
            return false;
        }
        i++;
        for (k = 0; overload[k] != '\0'; k++, i++) {
            if (entry[i] != overload[k]) {
                return false;
            }
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
    mote_err_t err = mote_fb_vec_field(fb, plan, id, 4u, &v);

    if (err != MOTE_OK) {
        return err;
    }
    for (i = 0; i < v.len; i++) {
        if (mote_fb_u32_at(fb, v.pos + 4u * i) >= nvalues) {
            return MOTE_ERR_BAD_INDEX;
        }
    }
    *items = (const int32_t *)(const void *)(fb->buf + v.pos);
    *len = v.len;
    return MOTE_OK;
}

/*
 * ExecuTorch's KernelCall lists the schema arguments (out tensors last) and
 * then the return values, which for an out-variant are the out tensors again.
 * Kernels receive the schema arguments only: a trailing run of k indices
 * repeating the k before it (k <= 4) is dropped; so is a trailing TensorList
 * holding exactly the k tensors before it (multi-output ops, in the caller).
 */
static uint32_t strip_returns(const mote_fb_t *fb, const mote_fb_vec_t *args)
{
    uint32_t n = args->len, k, j;

    for (k = 4u; k >= 1u; k--) {
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

/* One KernelCall: et_view or a registry kernel; args into value pointers. */
static mote_err_t instr_kernel(mote_method_t *m, const mote_fb_t *fb, const mote_fb_table_t *call,
                               const mote_fb_vec_t *ops, mote_instr_t *ins, mote_value_t **kargs)
{
    mote_fb_table_t op;
    mote_fb_vec_t args;
    uint64_t op_index;
    const char *name, *overload;
    uint32_t i, len;
    mote_err_t err;

    err = mote_fb_scalar(fb, call, 0, 4u, 0u, &op_index);
    if (err == MOTE_OK) {
        err = mote_fb_vec_field(fb, call, 1, 4u, &args);
    }
    if (err != MOTE_OK) {
        return err;
    }
    if (op_index >= ops->len) {
        return MOTE_ERR_BAD_INDEX;
    }
    err = mote_fb_vec_table(fb, ops, (uint32_t)op_index, &op);
    if (err == MOTE_OK) {
        err = mote_fb_string_field(fb, &op, MOTE_F_OPERATOR_NAME, &name, &len);
    }
    if (err == MOTE_OK) {
        err = mote_fb_string_field(fb, &op, MOTE_F_OPERATOR_OVERLOAD, &overload, &len);
    }
    if (err != MOTE_OK) {
        return err;
    }
    if (name == NULL) {
        return MOTE_ERR_BAD_INSTRUCTION;
    }
    overload = overload != NULL ? overload : "";
    for (i = 0; i < args.len; i++) {
        uint32_t idx = mote_fb_u32_at(fb, args.pos + 4u * i);
        if (idx >= m->num_values) {
            return MOTE_ERR_BAD_INDEX;
        }
        kargs[i] = &m->values[idx];
    }
    ins->a = strip_returns(fb, &args);
    ins->args = (mote_value_t *const *)kargs;
    if (ins->a == args.len && ins->a >= 2u && kargs[ins->a - 1u]->tag == MOTE_TAG_TENSOR_LIST) {
        /* several outputs: the return value is one TensorList of the out tensors */
        const mote_value_t *ret = kargs[ins->a - 1u];
        uint32_t k = ret->u.tensors.len, j;
        for (j = 0; k != 0u && k < ins->a && j < k; j++) {
            const mote_value_t *o = kargs[ins->a - 1u - k + j];
            if (o->tag != MOTE_TAG_TENSOR || o->u.t != ret->u.tensors.items[j]) {
                break;
            }
        }
        if (k != 0u && j == k) {
            ins->a--;
        }
    }
    if (op_name_eq("executorch_prim::et_view.default", name, overload)) {
        mote_tensor_t *in, *out;
        if (ins->a != 3u || kargs[0]->tag != MOTE_TAG_TENSOR || kargs[2]->tag != MOTE_TAG_TENSOR) {
            return MOTE_ERR_BAD_INSTRUCTION;
        }
        in = kargs[0]->u.t;
        out = kargs[2]->u.t;
        if (in->dtype != out->dtype || in->nbytes != out->nbytes) {
            return MOTE_ERR_BAD_INSTRUCTION;
        }
        if (in->data == NULL && in->nbytes != 0u) {
            return MOTE_ERR_BAD_ALLOCATION; /* viewing something with no storage yet */
        }
        out->data = in->data;
        ins->kind = KIND_VIEW;
        ins->a = mote_fb_u32_at(fb, args.pos);
        ins->b = mote_fb_u32_at(fb, args.pos + 8u);
        return MOTE_OK;
    }
    if (ins->a != 0u && kargs[ins->a - 1u]->tag == MOTE_TAG_TENSOR) {
        /* the out tensor must be writable memory, not constant data in the program */
        const uint8_t *d = (const uint8_t *)kargs[ins->a - 1u]->u.t->data;
        if (d != NULL && d >= m->prog->data && d < m->prog->data + m->prog->size) {
            return MOTE_ERR_BAD_INSTRUCTION;
        }
    }
    for (i = 0; i < mote_kernel_registry_len; i++) {
        if (mote_kernel_registry[i].name != NULL && mote_kernel_registry[i].fn != NULL &&
            op_name_eq(mote_kernel_registry[i].name, name, overload)) {
            ins->kind = KIND_KERNEL;
            ins->fn = mote_kernel_registry[i].fn;
            return MOTE_OK;
        }
    }
    m->failed_op = (int32_t)op_index;
    MOTE_LOGF("no kernel for operator %s.%s", name, overload);
    return MOTE_ERR_OP_NOT_FOUND;
}

static mote_err_t instrs_parse(mote_method_t *m, const mote_fb_t *fb, const mote_fb_table_t *plan,
                               const method_counts_t *c, mote_value_t **kargs)
{
    mote_fb_vec_t v, ops;
    mote_fb_table_t t, u;
    uint64_t a, b, nk = 0;
    uint32_t i;
    uint8_t tag;
    mote_err_t err = method_instructions(fb, plan, &v);

    if (err == MOTE_OK) {
        err = mote_fb_vec_field(fb, plan, MOTE_F_PLAN_OPERATORS, 4u, &ops);
    }
    if (err == MOTE_OK && v.len != m->num_instrs) {
        err = MOTE_ERR_BAD_INDEX;
    }
    for (i = 0; i < v.len && err == MOTE_OK; i++) {
        mote_instr_t *ins = &m->instrs[i];
        m->failed_instr = (int32_t)i;
        ins->kind = 0;
        ins->a = 0;
        ins->b = 0;
        ins->fn = NULL;
        ins->args = NULL;
        ins->scratch = NULL;
        ins->scratch_size = 0;
        err = mote_fb_vec_table(fb, &v, i, &t);
        if (err == MOTE_OK) {
            err = mote_fb_union_field(fb, &t, MOTE_F_INSTR_ARGS, MOTE_INSTR_FREE, &tag, &u);
        }
        if (err != MOTE_OK) {
            break;
        }
        switch (tag) {
        case MOTE_INSTR_KERNEL: {
            mote_fb_vec_t args;
            err = mote_fb_vec_field(fb, &u, 1, 4u, &args);
            if (err == MOTE_OK && args.len > c->kargs - nk) {
                err = MOTE_ERR_BAD_INDEX;
            }
            if (err == MOTE_OK) {
                err = instr_kernel(m, fb, &u, &ops, ins, kargs + nk);
                nk += args.len;
            }
            break;
        }
        case MOTE_INSTR_DELEGATE:
            err = MOTE_ERR_NO_SUCH_BACKEND;
            break;
        case MOTE_INSTR_MOVE:
        case MOTE_INSTR_JUMP_FALSE:
            err = mote_fb_scalar(fb, &u, 0, 4u, 0u, &a);
            if (err == MOTE_OK) {
                err = mote_fb_scalar(fb, &u, 1, 4u, 0u, &b);
            }
            if (err == MOTE_OK && a >= m->num_values) {
                err = MOTE_ERR_BAD_INDEX;
            }
            if (err == MOTE_OK && tag == MOTE_INSTR_MOVE && b >= m->num_values) {
                err = MOTE_ERR_BAD_INDEX;
            }
            if (err == MOTE_OK && tag == MOTE_INSTR_JUMP_FALSE && b > v.len) {
                err = MOTE_ERR_BAD_INSTRUCTION;
            }
            ins->kind = tag == MOTE_INSTR_MOVE ? KIND_MOVE : KIND_JUMP_FALSE;
            ins->a = (uint32_t)a;
            ins->b = (uint32_t)b;
            break;
        default: /* FreeCall */
            err = mote_fb_scalar(fb, &u, 0, 4u, 0u, &a);
            if (err == MOTE_OK && a >= m->num_values) {
                err = MOTE_ERR_BAD_INDEX;
            }
            ins->kind = KIND_FREE;
            break;
        }
    }
    return err;
}

static mote_err_t memory_check(const mote_memory_t *mem, const mote_method_requirements_t *req)
{
    uint32_t i;

    if (mem->state.ptr == NULL || mem->state.size < req->state_size) {
        return MOTE_ERR_MEMORY_TOO_SMALL;
    }
    if (((uintptr_t)mem->state.ptr & (MOTE_STATE_ALIGN - 1u)) != 0u) {
        return MOTE_ERR_MEMORY_ALIGNMENT;
    }
    if (mem->num_arenas > MOTE_MAX_ARENAS) {
        return MOTE_ERR_INVALID_ARGUMENT;
    }
    if (mem->num_arenas < req->num_arenas) {
        return MOTE_ERR_MEMORY_TOO_SMALL;
    }
    for (i = 0; i < req->num_arenas; i++) {
        if (req->arena_size[i] == 0u) {
            continue;
        }
        if (mem->arenas[i].ptr == NULL || mem->arenas[i].size < req->arena_size[i]) {
            return MOTE_ERR_MEMORY_TOO_SMALL;
        }
        if (((uintptr_t)mem->arenas[i].ptr & (MOTE_ARENA_ALIGN - 1u)) != 0u) {
            return MOTE_ERR_MEMORY_ALIGNMENT;
        }
    }
    return MOTE_OK;
}

/* Gives each planned scratch slot to its kernel call after verifying it:
 * a kernel instruction, inside arenas[0], not given twice. */
static mote_err_t scratch_slots_apply(mote_method_t *m, const mote_memory_t *mem)
{
    uint32_t i;
    uint8_t *base;
    size_t asize;

    if (mem->num_scratch_slots == 0u) {
        return MOTE_OK;
    }
    if (mem->scratch_slots == NULL || mem->num_arenas < 1u || mem->arenas[0].ptr == NULL) {
        return MOTE_ERR_BAD_SCRATCH_PLAN;
    }
    base = (uint8_t *)mem->arenas[0].ptr;
    asize = mem->arenas[0].size;
    for (i = 0; i < mem->num_scratch_slots; i++) {
        const mote_scratch_slot_t *s = &mem->scratch_slots[i];
        mote_instr_t *ins;
        if (s->instruction >= m->num_instrs) {
            return MOTE_ERR_BAD_SCRATCH_PLAN;
        }
        ins = &m->instrs[s->instruction];
        if (ins->kind != KIND_KERNEL || ins->scratch != NULL) {
            return MOTE_ERR_BAD_SCRATCH_PLAN;
        }
        if ((size_t)s->offset > asize || (size_t)s->size > asize - (size_t)s->offset) {
            return MOTE_ERR_BAD_SCRATCH_PLAN;
        }
        if (s->size != 0u) {
            ins->scratch = base + s->offset;
            ins->scratch_size = s->size;
        }
    }
    return MOTE_OK;
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
    uint32_t i;
    mote_err_t err;

    if (m == NULL) {
        return MOTE_ERR_INVALID_ARGUMENT;
    }
    m->magic = 0;
    m->failed_op = -1;
    m->failed_instr = -1;
    if (mem == NULL) {
        return MOTE_ERR_INVALID_ARGUMENT;
    }
    err = method_count(prog, method_index, &c);
    if (err == MOTE_OK) {
        err = method_layout(&c, &l);
    }
    if (err == MOTE_OK) {
        err = mote_method_memory_requirements(prog, method_index, &req);
    }
    if (err == MOTE_OK) {
        err = memory_check(mem, &req);
    }
    if (err != MOTE_OK) {
        return err;
    }
    fb = mote_program_fb(prog);
    err = mote_program_plan(prog, method_index, &plan);
    if (err == MOTE_OK) {
        err = mote_fb_vec_field(&fb, &plan, MOTE_F_PLAN_VALUES, 4u, &vals);
    }
    if (err != MOTE_OK) {
        return err;
    }
    state = (uint8_t *)mem->state.ptr;
    m->prog = prog;
    m->values = (mote_value_t *)(void *)(state + l.values);
    m->num_values = vals.len;
    m->instrs = (mote_instr_t *)(void *)(state + l.instrs);
    m->num_instrs = (uint32_t)c.instrs;
    m->scratch = mem->scratch;
    err = values_parse(m, &fb, &vals, &c, mem, (mote_tensor_t *)(void *)(state + l.tensors));
    if (err == MOTE_OK) {
        err = values_lists(m, &fb, &vals, &c, (int64_t *)(void *)(state + l.ints),
                           (mote_tensor_t **)(void *)(state + l.tptrs));
    }
    if (err == MOTE_OK) {
        err = index_vector(&fb, &plan, MOTE_F_PLAN_INPUTS, m->num_values, &m->inputs, &m->num_inputs);
    }
    if (err == MOTE_OK) {
        err = index_vector(&fb, &plan, MOTE_F_PLAN_OUTPUTS, m->num_values, &m->outputs, &m->num_outputs);
    }
    if (err == MOTE_OK) {
        err = instrs_parse(m, &fb, &plan, &c, (mote_value_t **)(void *)(state + l.kargs));
    }
    if (err == MOTE_OK) {
        err = scratch_slots_apply(m, mem);
    }
    if (err != MOTE_OK) {
        return err;
    }
    m->failed_instr = -1;
    /* every tensor now has storage: planned, constant, or an et_view alias */
    for (i = 0; i < m->num_values; i++) {
        const mote_value_t *v = &m->values[i];
        if (v->tag == MOTE_TAG_TENSOR && v->u.t->data == NULL && v->u.t->nbytes != 0u) {
            uint32_t k;
            for (k = 0; k < m->num_inputs; k++) {
                if ((uint32_t)m->inputs[k] == i) {
                    return MOTE_ERR_UNSUPPORTED; /* input memory not planned (alloc_graph_input=False) */
                }
            }
            return MOTE_ERR_BAD_ALLOCATION;
        }
    }
    m->magic = MOTE_METHOD_MAGIC;
    return MOTE_OK;
}

mote_err_t mote_method_execute(mote_method_t *m)
{
    mote_kernel_ctx_t ctx;
    uint32_t pc = 0;
    mote_err_t err;

    if (m == NULL || m->magic != MOTE_METHOD_MAGIC) {
        return MOTE_ERR_NOT_INITIALIZED;
    }
    ctx.scratch = m->scratch.ptr;
    ctx.scratch_size = m->scratch.size;
    while (pc < m->num_instrs) {
        const mote_instr_t *ins = &m->instrs[pc];
        mote_value_t *v = m->values;
        err = MOTE_OK;
        switch (ins->kind) {
        case KIND_KERNEL:
            if (ins->scratch != NULL) {
                ctx.scratch = ins->scratch;
                ctx.scratch_size = ins->scratch_size;
            } else {
                ctx.scratch = m->scratch.ptr;
                ctx.scratch_size = m->scratch.size;
            }
            err = ins->fn(&ctx, ins->args, ins->a);
            pc++;
            break;
        case KIND_VIEW:
            if (v[ins->a].tag != MOTE_TAG_TENSOR || v[ins->b].tag != MOTE_TAG_TENSOR) {
                err = MOTE_ERR_BAD_VALUE_TYPE;
            } else {
                v[ins->b].u.t->data = v[ins->a].u.t->data;
            }
            pc++;
            break;
        case KIND_MOVE:
            v[ins->b] = v[ins->a];
            pc++;
            break;
        case KIND_JUMP_FALSE:
            if (v[ins->a].tag != MOTE_TAG_BOOL) {
                err = MOTE_ERR_BAD_VALUE_TYPE;
            } else if (v[ins->a].u.b) {
                pc++;
            } else if (ins->b <= m->num_instrs) {
                pc = ins->b;
            } else {
                err = MOTE_ERR_JUMP_OUT_OF_RANGE;
            }
            break;
        default:
            pc++;
            break;
        }
        if (err != MOTE_OK) {
            m->failed_instr = (int32_t)(ins - m->instrs);
            MOTE_LOGF("instruction %d failed: %d", (int)m->failed_instr, (int)err);
            return err;
        }
    }
    return MOTE_OK;
}

mote_err_t mote_method_state_counts(const mote_program_t *prog, uint32_t method_index,
                                    uint64_t counts[MOTE_STATE_REGIONS])
{
    method_counts_t c;
    mote_err_t err;

    if (counts == NULL) {
        return MOTE_ERR_INVALID_ARGUMENT;
    }
    err = method_count(prog, method_index, &c);
    if (err != MOTE_OK) {
        return err;
    }
    counts[0] = c.values;
    counts[1] = c.tensors;
    counts[2] = c.ints;
    counts[3] = c.tptrs;
    counts[4] = c.instrs;
    counts[5] = c.kargs;
    return MOTE_OK;
}

int32_t mote_method_failed_operator(const mote_method_t *m)
{
    return m != NULL ? m->failed_op : -1;
}

int32_t mote_method_failed_instruction(const mote_method_t *m)
{
    return m != NULL ? m->failed_instr : -1;
}

uint32_t mote_method_num_inputs(const mote_method_t *m)
{
    return (m != NULL && m->magic == MOTE_METHOD_MAGIC) ? m->num_inputs : 0u;
}

uint32_t mote_method_num_outputs(const mote_method_t *m)
{
    return (m != NULL && m->magic == MOTE_METHOD_MAGIC) ? m->num_outputs : 0u;
}

static mote_err_t io_value(const mote_method_t *m, uint32_t i, bool input, const mote_value_t **v)
{
    if (m == NULL || m->magic != MOTE_METHOD_MAGIC) {
        return MOTE_ERR_NOT_INITIALIZED;
    }
    if (v == NULL) {
        return MOTE_ERR_INVALID_ARGUMENT;
    }
    if (i >= (input ? m->num_inputs : m->num_outputs)) {
        return MOTE_ERR_INPUT_INDEX;
    }
    *v = &m->values[input ? m->inputs[i] : m->outputs[i]];
    return MOTE_OK;
}

mote_err_t mote_method_input_value(const mote_method_t *m, uint32_t i, const mote_value_t **v)
{
    return io_value(m, i, true, v);
}

mote_err_t mote_method_output_value(const mote_method_t *m, uint32_t i, const mote_value_t **v)
{
    return io_value(m, i, false, v);
}

static mote_err_t io_tensor(const mote_method_t *m, uint32_t i, bool input, const mote_tensor_t **t)
{
    const mote_value_t *v;
    mote_err_t err = io_value(m, i, input, &v);

    if (err != MOTE_OK) {
        return err;
    }
    if (t == NULL) {
        return MOTE_ERR_INVALID_ARGUMENT;
    }
    if (v->tag != MOTE_TAG_TENSOR) {
        return MOTE_ERR_BAD_VALUE_TYPE;
    }
    *t = v->u.t;
    return MOTE_OK;
}

mote_err_t mote_method_input_tensor(const mote_method_t *m, uint32_t i, const mote_tensor_t **t)
{
    return io_tensor(m, i, true, t);
}

mote_err_t mote_method_get_output(const mote_method_t *m, uint32_t i, const mote_tensor_t **t)
{
    return io_tensor(m, i, false, t);
}

mote_err_t mote_method_set_input_checked(mote_method_t *m, uint32_t i, uint8_t dtype, const int64_t *sizes,
                                         uint32_t dim, const void *data, size_t nbytes)
{
    const mote_tensor_t *t;
    uint32_t k;
    mote_err_t err = io_tensor(m, i, true, &t);

    if (err != MOTE_OK) {
        return err;
    }
    if (dtype != t->dtype) {
        return MOTE_ERR_INPUT_DTYPE;
    }
    if (dim != t->dim || (dim != 0u && sizes == NULL)) {
        return MOTE_ERR_INPUT_SHAPE;
    }
    for (k = 0; k < dim; k++) {
        if (sizes[k] != (int64_t)t->sizes[k]) {
            return MOTE_ERR_INPUT_SHAPE;
        }
    }
    return mote_method_set_input(m, i, data, nbytes);
}

mote_err_t mote_method_set_input(mote_method_t *m, uint32_t i, const void *data, size_t nbytes)
{
    const mote_tensor_t *t;
    const uint8_t *src = (const uint8_t *)data;
    uint8_t *dst;
    size_t k;
    mote_err_t err = io_tensor(m, i, true, &t);

    if (err != MOTE_OK) {
        return err;
    }
    if (data == NULL && nbytes != 0u) {
        return MOTE_ERR_INVALID_ARGUMENT;
    }
    if (nbytes != t->nbytes) {
        return MOTE_ERR_INPUT_SHAPE;
    }
    dst = (uint8_t *)t->data;
    for (k = 0; k < nbytes; k++) {
        dst[k] = src[k];
    }
    return MOTE_OK;
}
