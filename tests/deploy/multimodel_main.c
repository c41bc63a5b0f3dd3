/*
 * multimodel_main.c - two models ("a" and "b", generated with --selftest 2) in one
 * program through their prefixed embedding APIs (mote_models.h), run interleaved:
 *
 *   init a, init b, a case 0, b case 0, a case 1, b case 1, then a case 0 again
 *
 * and every output compared with the host runtime's expected bytes (the self-test data
 * aot generate embedded) by the self-test checker. With --memory shared the two models'
 * activations live in ONE arena: b's run overwrites a's; each case still passes only if
 * nothing of a model is kept in that arena between its runs. A stateful b (mutable
 * buffers) passes only if its state is its own. Prints the checker's lines (stderr,
 * "mote: ...") and "MULTI a=<verdict> b=<verdict> again=<verdict>"; exit 0 on PASS.
 */
#include <stdint.h>
#include <stdio.h>

#include "mote_models.h"
#include "mote_selftest.h"

extern const uint8_t mote_model_a_selftest_inputs[];
extern const uint8_t mote_model_a_selftest_expected[];
extern const uint8_t mote_model_b_selftest_inputs[];
extern const uint8_t mote_model_b_selftest_expected[];

typedef struct {
    mote_method_t *(*method)(void);
    uint32_t (*num_inputs)(void);
    mote_err_t (*set_input)(uint32_t, const void *, size_t);
    mote_err_t (*run)(void);
    const uint8_t *inputs;
    size_t set_bytes;
} model_t;

static const model_t model_a = {mote_model_a_method, mote_model_a_num_inputs, mote_model_a_set_input,
                                mote_model_a_run, mote_model_a_selftest_inputs, MOTE_MODEL_A_INPUTS_BYTES};
static const model_t model_b = {mote_model_b_method, mote_model_b_num_inputs, mote_model_b_set_input,
                                mote_model_b_run, mote_model_b_selftest_inputs, MOTE_MODEL_B_INPUTS_BYTES};

/* Sets case k's inputs, runs, checks the outputs against the next expected case of st. */
static mote_err_t run_case(const model_t *m, uint32_t k, mote_selftest_t *st)
{
    const uint8_t *set = m->inputs + (size_t)k * m->set_bytes;
    const mote_method_t *method = m->method();
    for (uint32_t i = 0; i < m->num_inputs(); ++i) {
        const mote_tensor_t *t;
        MOTE_TRY(mote_method_input_tensor(method, i, &t));
        MOTE_TRY(m->set_input(i, set, t->nbytes));
        set += t->nbytes;
    }
    MOTE_TRY(m->run());
    return mote_selftest_check(st, method, k);
}

int main(void)
{
    mote_selftest_t sa, sb, again;
    if (mote_model_a_init() != MOTE_OK || mote_model_b_init() != MOTE_OK) {
        printf("MULTI init failed\n");
        return 2;
    }
    mote_selftest_begin(&sa, mote_model_a_selftest_expected);
    mote_selftest_begin(&sb, mote_model_b_selftest_expected);
    mote_selftest_begin(&again, mote_model_a_selftest_expected);
    for (uint32_t k = 0; k < 2u; ++k) {
        if (run_case(&model_a, k, &sa) != MOTE_OK || run_case(&model_b, k, &sb) != MOTE_OK) {
            printf("MULTI run failed at case %u\n", (unsigned)k);
            return 2;
        }
    }
    if (run_case(&model_a, 0u, &again) != MOTE_OK) {
        printf("MULTI run failed (a again)\n");
        return 2;
    }
    mote_err_t va = mote_selftest_verdict(&sa, 2u);
    mote_err_t vb = mote_selftest_verdict(&sb, 2u);
    mote_err_t v2 = mote_selftest_verdict(&again, 1u);
    printf("MULTI a=%s b=%s again=%s shared=%d\n", va == MOTE_OK ? "PASS" : "FAIL", vb == MOTE_OK ? "PASS" : "FAIL",
           v2 == MOTE_OK ? "PASS" : "FAIL", (int)MOTE_MODELS_SHARED);
    /* the embedding API's own self-test of a named model: its lines end with model=a */
    mote_err_t vs = mote_model_a_selftest();
    return va == MOTE_OK && vb == MOTE_OK && v2 == MOTE_OK && vs == MOTE_OK ? 0 : 1;
}
