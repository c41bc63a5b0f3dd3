/*
 * method_exec.c - running an initialised method, and its inputs and outputs.
 * Init (method_init.c) verified everything; the loop only dispatches.
 */
#include "method_internal.h"

mote_err_t mote_method_execute(mote_method_t *m)
{
    mote_kernel_ctx_t ctx;
    uint32_t pc = 0;
    mote_err_t err;

    MOTE_CHECK(m != NULL && m->magic == MOTE_METHOD_MAGIC, MOTE_ERR_NOT_INITIALIZED);
    while (pc < m->num_instrs) {
        const mote_instr_t *ins = &m->instrs[pc];
        mote_value_t *v = m->values;
        err = MOTE_OK;
        switch (ins->kind) {
        case MOTE_INSTR_KERNEL:
            ctx.scratch = ins->scratch != NULL ? ins->scratch : m->scratch.ptr;
            ctx.scratch_size = ins->scratch != NULL ? ins->scratch_size : m->scratch.size;
            err = ins->fn(&ctx, ins->args, ins->a);
            pc++;
            break;
        case MOTE_INSTR_VIEW:
            if (v[ins->a].tag != MOTE_TAG_TENSOR || v[ins->b].tag != MOTE_TAG_TENSOR) {
                err = MOTE_ERR_BAD_VALUE_TYPE;
            } else {
                v[ins->b].u.t->data = v[ins->a].u.t->data;
            }
            pc++;
            break;
        case MOTE_INSTR_MOVE:
            v[ins->b] = v[ins->a];
            pc++;
            break;
        case MOTE_INSTR_JUMP_FALSE:
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
        default: /* MOTE_INSTR_FREE: memory is planned */
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
