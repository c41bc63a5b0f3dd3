/*
 * test_kernels.c - three tiny fp32 kernels and a registry, for the runtime's
 * own tests only (independent of kernels/): aten::add.out, aten::mul.out,
 * aten::relu.out. Same-shape operands, or a one-element `other`. Each checks
 * the exact argument count first, so its out tensor is the last argument (what
 * mote_kernel_registry_outputs[] tells init).
 */
#include "mote/backend.h"
#include "mote/kernel.h"

static mote_err_t f32_tensor(const mote_value_t *v, const mote_tensor_t **t)
{
    if (v->tag != MOTE_TAG_TENSOR || v->u.t->dtype != MOTE_DTYPE_FLOAT32) {
        return MOTE_ERR_KERNEL_ARGS;
    }
    *t = v->u.t;
    return MOTE_OK;
}

static mote_err_t binary(mote_value_t *const *args, uint32_t nargs, uint32_t out_arg, int mul)
{
    const mote_tensor_t *a, *b, *o;
    const float *x, *y;
    float *z, alpha = 1.0f;
    uint32_t i;

    if (nargs != out_arg + 1u || f32_tensor(args[0], &a) != MOTE_OK || f32_tensor(args[1], &b) != MOTE_OK ||
        f32_tensor(args[out_arg], &o) != MOTE_OK) {
        return MOTE_ERR_KERNEL_ARGS;
    }
    if (!mul) {
        if (args[2]->tag == MOTE_TAG_INT) {
            alpha = (float)args[2]->u.i;
        } else if (args[2]->tag == MOTE_TAG_DOUBLE) {
            alpha = (float)args[2]->u.d;
        } else {
            return MOTE_ERR_KERNEL_ARGS;
        }
    }
    if (a->numel != o->numel || (b->numel != a->numel && b->numel != 1u)) {
        return MOTE_ERR_KERNEL_SHAPE;
    }
    x = (const float *)a->data;
    y = (const float *)b->data;
    z = (float *)o->data;
    for (i = 0; i < o->numel; i++) {
        float yi = y[b->numel == 1u ? 0u : i];
        z[i] = mul ? x[i] * yi : x[i] + alpha * yi;
    }
    return MOTE_OK;
}

static mote_err_t test_add_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    (void)ctx;
    return binary(args, nargs, 3u, 0);
}

static mote_err_t test_mul_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    (void)ctx;
    return binary(args, nargs, 2u, 1);
}

static mote_err_t test_relu_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    const mote_tensor_t *a, *o;
    const float *x;
    float *z;
    uint32_t i;

    (void)ctx;
    if (nargs != 2u || f32_tensor(args[0], &a) != MOTE_OK || f32_tensor(args[1], &o) != MOTE_OK) {
        return MOTE_ERR_KERNEL_ARGS;
    }
    if (a->numel != o->numel) {
        return MOTE_ERR_KERNEL_SHAPE;
    }
    x = (const float *)a->data;
    z = (float *)o->data;
    for (i = 0; i < o->numel; i++) {
        z[i] = x[i] > 0.0f ? x[i] : 0.0f;
    }
    return MOTE_OK;
}

const mote_kernel_entry_t mote_kernel_registry[] = {
    {"aten::add.out", test_add_out},
    {"aten::mul.out", test_mul_out},
    {"aten::relu.out", test_relu_out},
};
/* each writes its last argument only */
const uint8_t mote_kernel_registry_outputs[] = {1u, 1u, 1u};
const uint32_t mote_kernel_registry_len = sizeof(mote_kernel_registry) / sizeof(mote_kernel_registry[0]);
const mote_backend_t *const mote_backend_registry[1] = {NULL};
const uint32_t mote_backend_registry_len = 0u;
