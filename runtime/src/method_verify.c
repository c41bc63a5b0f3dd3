/*
 * method_verify.c - init's write proof: nothing a method writes is a
 * constant, and no value ever names a tensor larger than its storage.
 *
 * Storage of a tensor: its own (planned in an arena, or constant in the
 * program), or, for an et_view output, the storage of the view's input.
 * The invariant kept for every tensor T, at init and through any execute
 * (whatever the jumps): T.data is NULL only if T.nbytes is 0 (checked at the
 * end of init), else it points at storage of at least T.nbytes bytes, and a
 * constant's storage only if T is itself a constant. It holds because
 *   - a MoveCall only pairs values of one tag, and tensors that are not
 *     constants and have one dtype and byte size: a value slot only ever
 *     holds tensors of its first tensor's size and kind;
 *   - an et_view pairs tensors that are not constants and have one dtype and
 *     byte size, so the storage it hands on is non-constant and large enough
 *     for every tensor that can be in its output slot;
 *   - kernels write only their out arguments (the registry's count, from the
 *     MOTE_KERNEL_OUTPUTS markers) and inputs are written only by
 *     mote_method_set_input: neither may be a constant.
 */
#include "method_internal.h"

bool mote_method_is_constant(const mote_method_t *m, const mote_tensor_t *t)
{
#if MOTE_RUNTIME_EXTERNAL
    return mote_program_contains(m->prog, t->data) || mote_data_map_contains(m->prog->data_map, t->data);
#else
    return mote_program_contains(m->prog, t->data); /* no external tensor has storage */
#endif
}

mote_err_t mote_method_verify_move(const mote_method_t *m, uint32_t from, uint32_t to)
{
    const mote_value_t *a = &m->values[from];
    const mote_value_t *b = &m->values[to];

    /* a tensor list would let its slot name other tensors than init checked */
    MOTE_CHECK(a->tag == b->tag && a->tag != MOTE_TAG_TENSOR_LIST && a->tag != MOTE_TAG_OPT_TENSOR_LIST,
               MOTE_ERR_BAD_VALUE_TYPE);
    if (a->tag == MOTE_TAG_TENSOR) {
        MOTE_CHECK(!mote_method_is_constant(m, a->u.t) && !mote_method_is_constant(m, b->u.t), MOTE_ERR_ALIAS_NOT_WRITABLE);
        MOTE_CHECK(a->u.t->dtype == b->u.t->dtype && a->u.t->nbytes == b->u.t->nbytes, MOTE_ERR_ALIAS_MISMATCH);
    }
    return MOTE_OK;
}

mote_err_t mote_method_verify_view(const mote_method_t *m, mote_tensor_t *in, mote_tensor_t *out)
{
    MOTE_CHECK(in->dtype == out->dtype && in->nbytes == out->nbytes, MOTE_ERR_ALIAS_MISMATCH);
    MOTE_CHECK(in->data != NULL || in->nbytes == 0u, MOTE_ERR_BAD_ALLOCATION); /* no storage yet */
    MOTE_CHECK(!mote_method_is_constant(m, in) && !mote_method_is_constant(m, out), MOTE_ERR_ALIAS_NOT_WRITABLE);
    if (!MOTE_WRITES_STATE(m)) { /* the image holds the output's storage already */
        MOTE_CHECK(out->data == in->data, MOTE_ERR_BAD_IMAGE);
        return MOTE_OK;
    }
    out->data = in->data;
    return MOTE_OK;
}

mote_err_t mote_method_verify_outputs(const mote_method_t *m, mote_value_t *const *args, uint32_t nargs,
                                      uint32_t nouts)
{
    uint32_t i;

    MOTE_CHECK(nouts <= nargs, MOTE_ERR_BAD_INSTRUCTION);
    for (i = nargs - nouts; i < nargs; i++) {
        const mote_value_t *v = args[i];
        if (v->tag == MOTE_TAG_TENSOR) {
            MOTE_CHECK(!mote_method_is_constant(m, v->u.t), MOTE_ERR_OUTPUT_NOT_WRITABLE);
        } else if (v->tag == MOTE_TAG_TENSOR_LIST) {
            /* init placed the lists that name a constant tensor from m->const_lists on */
            MOTE_CHECK(v->u.tensors.len == 0u || v->u.tensors.items < m->const_lists, MOTE_ERR_OUTPUT_NOT_WRITABLE);
        } else {
            return MOTE_ERR_OUTPUT_NOT_WRITABLE; /* nothing a kernel can write to */
        }
    }
    return MOTE_OK;
}

mote_err_t mote_method_verify_storage(const mote_method_t *m)
{
    uint32_t i;

    for (i = 0; i < m->num_inputs; i++) {
        const mote_value_t *v = &m->values[m->inputs[i]];
        if (v->tag == MOTE_TAG_TENSOR) {
            /* input memory not planned (ExecuTorch's alloc_graph_input=False) */
            MOTE_CHECK(v->u.t->data != NULL || v->u.t->nbytes == 0u, MOTE_ERR_UNSUPPORTED);
            MOTE_CHECK(!mote_method_is_constant(m, v->u.t), MOTE_ERR_INPUT_NOT_WRITABLE);
        }
    }
    for (i = 0; i < m->num_values; i++) {
        const mote_value_t *v = &m->values[i];
        MOTE_CHECK(v->tag != MOTE_TAG_TENSOR || v->u.t->data != NULL || v->u.t->nbytes == 0u,
                   MOTE_ERR_BAD_ALLOCATION); /* unplanned, and no et_view gives it storage */
    }
    return MOTE_OK;
}
