/*
 * main.c - an application with two Mote models (examples/cmake-models).
 *
 * Each model has its own API, mote_model_<name>_* (mote_model_kws.h,
 * mote_model_image.h, both included by mote_models.h). It runs both
 * models' self-tests, then one inference of each, and prints each top class.
 * With MEMORY shared the models take turns in one activation arena: an
 * output is valid until any model runs again, so it is read before the next.
 */
#include <stddef.h>
#include <stdint.h>

#include "mote/port.h"
#include "mote_models.h"

static float features[MOTE_MODEL_KWS_INPUT0_NUMEL]; /* float32: MFCC frames x coefficients */
static float pixels[MOTE_MODEL_IMAGE_INPUT0_NUMEL]; /* float32: grey levels 0..1 */

/* The index of the highest of the float scores (nbytes / 4 of them). */
static uint32_t top_class(const void *scores, size_t nbytes)
{
    const float *s = (const float *)scores;
    uint32_t best = 0;
    for (uint32_t k = 1; k < nbytes / sizeof(float); ++k) {
        if (s[k] > s[best]) best = k;
    }
    return best;
}

static int report(const char *model, mote_err_t err, const void *out, size_t nbytes)
{
    if (err != MOTE_OK) {
        mote_port_log("app: %s: %s (%d)", model, mote_err_name(err), (int)err);
        return 1;
    }
    const uint32_t best = top_class(out, nbytes);
    mote_port_log("app: %s: class %u (score %d/1000)", model, (unsigned)best,
                  (int)(((const float *)out)[best] * 1000.0f));
    return 0;
}

int main(void)
{
    mote_port_log("app: %u models, memory %s", (unsigned)MOTE_MODELS_COUNT, MOTE_MODELS_SHARED ? "shared" : "separate");
    if (mote_model_kws_selftest() != MOTE_OK || mote_model_image_selftest() != MOTE_OK) {
        return 1; /* the FAIL line says which case and element */
    }
    for (uint32_t i = 0; i < MOTE_MODEL_KWS_INPUT0_NUMEL; ++i) {
        features[i] = (float)((int32_t)(i % 7u) - 3) / 3.0f;
    }
    for (uint32_t i = 0; i < MOTE_MODEL_IMAGE_INPUT0_NUMEL; ++i) {
        pixels[i] = (float)(i % 16u) / 16.0f;
    }
    const void *out = NULL;
    size_t nbytes = 0;
    mote_err_t err = mote_model_kws_set_input(0, features, sizeof features);
    if (err == MOTE_OK) err = mote_model_kws_run();
    if (err == MOTE_OK) err = mote_model_kws_get_output(0, &out, &nbytes);
    if (report("kws", err, out, nbytes) != 0) return 1;
    err = mote_model_image_set_input(0, pixels, sizeof pixels);
    if (err == MOTE_OK) err = mote_model_image_run();
    if (err == MOTE_OK) err = mote_model_image_get_output(0, &out, &nbytes);
    return report("image", err, out, nbytes);
}
