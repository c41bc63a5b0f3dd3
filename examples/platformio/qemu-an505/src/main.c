/*
 * main.c - a PlatformIO application that embeds a Mote model.
 *
 * The build (Mote's library extraScript) compiles the model named by
 * custom_mote_model in platformio.ini, and this file only uses the
 * embedding API of mote/model.h: init, the self-test, then one inference
 * of its own. Sizes come from the generated mote_model.h, so this file does
 * not change when the model does (any float32 or integer input works).
 */
#include <stddef.h>
#include <stdint.h>

#include "mote/model.h"
#include "mote/port.h"
#include "mote_model.h"

#define DTYPE_FLOAT32 6 /* MOTE_MODEL_INPUT0_DTYPE / OUTPUT0_DTYPE for float32 */

#if MOTE_MODEL_INPUT0_DTYPE == DTYPE_FLOAT32
static float input[MOTE_MODEL_INPUT0_NUMEL];
#else
static uint8_t input[MOTE_MODEL_INPUT0_BYTES];
#endif

int main(void)
{
    mote_err_t err = mote_model_init();
    if (err != MOTE_OK) {
        mote_port_log("app: mote_model_init failed (%d)", (int)err);
        return 1;
    }
    mote_port_log("app: model %s loaded: %u input(s), %u output(s)", MOTE_MODEL_NAME,
                  (unsigned)mote_model_num_inputs(), (unsigned)mote_model_num_outputs());

#ifdef MOTE_MODEL_SELFTEST_CASES
    /* custom_mote_selftest: the cases computed on the host, checked here. */
    if (mote_model_selftest() != MOTE_OK) {
        return 1;
    }
#endif

    /* Your own data goes here: this example feeds a ramp. */
    for (size_t i = 0; i < sizeof(input) / sizeof(input[0]); i++) {
#if MOTE_MODEL_INPUT0_DTYPE == DTYPE_FLOAT32
        input[i] = (float)((int)(i % 16u) - 8) / 8.0f;
#else
        input[i] = (uint8_t)i;
#endif
    }
    uint32_t t0 = mote_port_ticks();
    err = mote_model_set_input(0, input, sizeof(input));
    if (err == MOTE_OK) {
        err = mote_model_run();
    }
    uint32_t ticks = mote_port_ticks() - t0;
    const void *out = NULL;
    size_t out_bytes = 0;
    if (err == MOTE_OK) {
        err = mote_model_get_output(0, &out, &out_bytes);
    }
    if (err != MOTE_OK) {
        mote_port_log("app: inference failed (%d)", (int)err);
        return 1;
    }
#if MOTE_MODEL_OUTPUT0_DTYPE == DTYPE_FLOAT32
    const float *scores = (const float *)out;
    size_t n = out_bytes / sizeof(float), best = 0;
    for (size_t i = 1; i < n; i++) {
        if (scores[i] > scores[best]) {
            best = i;
        }
    }
    mote_port_log("app: inference in %u ticks: class %u of %u (score x1000 = %d)", (unsigned)ticks,
                  (unsigned)best, (unsigned)n, (int)(scores[best] * 1000.0f));
#else
    mote_port_log("app: inference in %u ticks: %u output bytes, first %u", (unsigned)ticks,
                  (unsigned)out_bytes, (unsigned)((const uint8_t *)out)[0]);
#endif
    return 0;
}
