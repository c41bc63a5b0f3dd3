/*
 * method_exec.c - running an initialised method, and its inputs and outputs.
 * Init (method_init.c) verified everything; the loop only dispatches.
 */
#include "method_internal.h"

/* Runs instruction *pc and moves *pc to the next one. */
static mote_err_t exec_one(mote_method_t *m, uint32_t *pc)
{
    const mote_instr_t *ins = &m->instrs[*pc];
    mote_value_t *v = m->values;
    mote_kernel_ctx_t ctx;
    mote_err_t err = MOTE_OK;

    switch (ins->kind) {
    case MOTE_INSTR_KERNEL:
        ctx.scratch = ins->scratch != NULL ? ins->scratch : m->scratch.ptr;
        ctx.scratch_size = ins->scratch != NULL ? ins->scratch_size : m->scratch.size;
        err = ins->fn(&ctx, ins->args, ins->a);
        (*pc)++;
        break;
#if MOTE_RUNTIME_DELEGATES
    case MOTE_INSTR_DELEGATE:
        err = mote_backend_registry[ins->b]->execute(ins->scratch, ins->args, ins->a);
        (*pc)++;
        break;
#endif
    case MOTE_INSTR_VIEW:
        if (v[ins->a].tag != MOTE_TAG_TENSOR || v[ins->b].tag != MOTE_TAG_TENSOR) {
            err = MOTE_ERR_BAD_VALUE_TYPE;
        } else if (v[ins->b].u.t->data != v[ins->a].u.t->data) {
            /* never true with a method image (init proved them equal), which is read-only */
            v[ins->b].u.t->data = v[ins->a].u.t->data;
        }
        (*pc)++;
        break;
#if MOTE_RUNTIME_CONTROL /* else init refused them (mote/config.h) */
    case MOTE_INSTR_MOVE:
        v[ins->b] = v[ins->a];
        (*pc)++;
        break;
    case MOTE_INSTR_JUMP_FALSE:
        if (v[ins->a].tag != MOTE_TAG_BOOL) {
            err = MOTE_ERR_BAD_VALUE_TYPE;
        } else if (v[ins->a].u.b) {
            (*pc)++;
        } else if (ins->b <= m->num_instrs) {
            *pc = ins->b;
        } else {
            err = MOTE_ERR_JUMP_OUT_OF_RANGE;
        }
        break;
#endif
    default: /* MOTE_INSTR_FREE: memory is planned */
        (*pc)++;
        break;
    }
    return err;
}

static mote_err_t exec_failed(mote_method_t *m, uint32_t pc, mote_err_t err)
{
    m->failed_instr = (int32_t)pc;
    MOTE_LOGF("instruction %d failed: %d", (int)pc, (int)err);
    return err;
}

#ifdef MOTE_TRACE
/* The traced loop: ticks around each instruction, the callback after it. */
static mote_err_t exec_traced(mote_method_t *m, mote_tracer_t *t)
{
    uint32_t pc = 0;
    uint32_t k;

    t->overhead = UINT32_MAX;
    for (k = 0; k < 3u; k++) { /* the least of three: a first call may pay a cache miss */
        uint32_t t0 = mote_port_ticks();
        uint32_t d = mote_port_ticks() - t0;
        t->overhead = d < t->overhead ? d : t->overhead;
    }
    t->count = 0;
    t->dropped = 0;
    t->run_start = mote_port_ticks();
    while (pc < m->num_instrs) {
        uint32_t at = pc;
        uint32_t start = mote_port_ticks();
        mote_err_t err = exec_one(m, &pc);
        uint32_t end = mote_port_ticks();
        if (t->count < t->capacity) {
            mote_trace_event_t *e = &t->events[t->count++];
            e->instr = at;
            e->start = start;
            e->end = end;
        } else {
            t->dropped++;
        }
        if (err != MOTE_OK) {
            t->run_end = end;
            return exec_failed(m, at, err);
        }
        if (t->after != NULL) {
            t->after(t->user, m, at);
        }
    }
    t->run_end = mote_port_ticks();
    return MOTE_OK;
}

mote_err_t mote_method_set_tracer(mote_method_t *m, mote_tracer_t *t)
{
    MOTE_CHECK(m != NULL && m->magic == MOTE_METHOD_MAGIC, MOTE_ERR_NOT_INITIALIZED);
    MOTE_CHECK(t == NULL || t->events != NULL || t->capacity == 0u, MOTE_ERR_INVALID_ARGUMENT);
    m->tracer = t;
    return MOTE_OK;
}
#endif

mote_err_t mote_method_execute(mote_method_t *m)
{
    uint32_t pc = 0;

    MOTE_CHECK(m != NULL && m->magic == MOTE_METHOD_MAGIC, MOTE_ERR_NOT_INITIALIZED);
#ifdef MOTE_TRACE
    if (m->tracer != NULL) {
        return exec_traced(m, m->tracer);
    }
#endif
    while (pc < m->num_instrs) {
        uint32_t at = pc;
        mote_err_t err = exec_one(m, &pc);
        if (err != MOTE_OK) {
            return exec_failed(m, at, err);
        }
    }
    return MOTE_OK;
}

mote_err_t mote_method_value(const mote_method_t *m, uint32_t index, const mote_value_t **v)
{
    MOTE_CHECK(m != NULL && m->magic == MOTE_METHOD_MAGIC, MOTE_ERR_NOT_INITIALIZED);
    MOTE_CHECK(v != NULL, MOTE_ERR_INVALID_ARGUMENT);
    MOTE_CHECK(index < m->num_values, MOTE_ERR_BAD_INDEX);
    *v = &m->values[index];
    return MOTE_OK;
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
    MOTE_CHECK(m != NULL && m->magic == MOTE_METHOD_MAGIC, MOTE_ERR_NOT_INITIALIZED);
    MOTE_CHECK(v != NULL, MOTE_ERR_INVALID_ARGUMENT);
    MOTE_CHECK(i < (input ? m->num_inputs : m->num_outputs), MOTE_ERR_INPUT_INDEX);
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

    MOTE_TRY(io_value(m, i, input, &v));
    MOTE_CHECK(t != NULL, MOTE_ERR_INVALID_ARGUMENT);
    MOTE_CHECK(v->tag == MOTE_TAG_TENSOR, MOTE_ERR_BAD_VALUE_TYPE);
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

    MOTE_TRY(io_tensor(m, i, true, &t));
    MOTE_CHECK(dtype == t->dtype, MOTE_ERR_INPUT_DTYPE);
    MOTE_CHECK(dim == t->dim && (dim == 0u || sizes != NULL), MOTE_ERR_INPUT_SHAPE);
    for (k = 0; k < dim; k++) {
        MOTE_CHECK(sizes[k] == (int64_t)t->sizes[k], MOTE_ERR_INPUT_SHAPE);
    }
    return mote_method_set_input(m, i, data, nbytes);
}

/* Writes only planned memory: init proved no input is a constant (method_verify.c). */
mote_err_t mote_method_set_input(mote_method_t *m, uint32_t i, const void *data, size_t nbytes)
{
    const mote_tensor_t *t;
    const uint8_t *src = (const uint8_t *)data;
    uint8_t *dst;
    size_t k;

    MOTE_TRY(io_tensor(m, i, true, &t));
    MOTE_CHECK(data != NULL || nbytes == 0u, MOTE_ERR_INVALID_ARGUMENT);
    MOTE_CHECK(nbytes == t->nbytes, MOTE_ERR_INPUT_SHAPE);
    dst = (uint8_t *)t->data;
    for (k = 0; k < nbytes; k++) {
        dst[k] = src[k];
    }
    return MOTE_OK;
}
