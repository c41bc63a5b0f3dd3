/*
 * main.c - a user's application with a Mote model (examples/cmake).
 *
 * Runs the self-test cases `aot generate --selftest` embedded, then one
 * inference of its own through the three calls of mote/model.h, and prints
 * the class with the highest score. mote_port_log comes from the platform
 * (here Mote's bare-metal port; on Zephyr printk, on Arduino Serial).
 */
#include <stddef.h>
#include <stdint.h>

#include "mote/model.h"
#include "mote/port.h"
#include "mote_model.h"

static float input[MOTE_MODEL_INPUT0_NUMEL]; /* float32: MOTE_MODEL_INPUT0_DTYPE */

int main(void)
{
    if (mote_model_selftest() != MOTE_OK) {
        return 1; /* the FAIL line says which case and element */
    }
    for (uint32_t i = 0; i < MOTE_MODEL_INPUT0_NUMEL; ++i) {
        input[i] = (float)(i % 16u) / 16.0f;
    }
    const void *out;
    size_t nbytes;
    mote_err_t err = mote_model_set_input(0, input, sizeof input);
    if (err == MOTE_OK) err = mote_model_run();
    if (err == MOTE_OK) err = mote_model_get_output(0, &out, &nbytes);
    if (err != MOTE_OK) {
        mote_port_log("app: %s (%d)", mote_err_name(err), (int)err);
        return 1;
    }
    const float *score = (const float *)out;
    uint32_t best = 0;
    for (uint32_t k = 1; k < nbytes / sizeof(float); ++k) {
        if (score[k] > score[best]) best = k;
    }
    mote_port_log("app: class %u (score %d/1000)", (unsigned)best, (int)(score[best] * 1000.0f));
    return 0;
}
