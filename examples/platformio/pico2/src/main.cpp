// main.cpp - a Mote model in an Arduino sketch on the Raspberry Pi Pico 2.
//
// The Mote library builds the model named by custom_mote_model; this sketch
// uses the embedding API (mote/model.h) and provides the three port hooks
// of mote/port.h on top of Arduino: log lines go to USB serial.
#include <Arduino.h>
#include <stdarg.h>
#include <stdio.h>

#include "mote/model.h"
#include "mote/port.h"
#include "mote_model.h"

extern "C" void mote_port_log(const char *fmt, ...)
{
    char line[192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    Serial.println(line);
}

extern "C" uint32_t mote_port_ticks(void)
{
    return micros();  // Mote only takes differences of it
}

extern "C" void mote_port_abort(void)
{
    Serial.println("MOTE ABORT");
    for (;;) {
        delay(1000);
    }
}

static float input[MOTE_MODEL_INPUT0_NUMEL];  // the example's model takes float32
static bool ready = false;

void setup()
{
    Serial.begin(115200);
    while (!Serial && millis() < 5000) {
        delay(10);  // give the host a moment to open the USB serial port
    }
    if (mote_model_init() != MOTE_OK) {
        Serial.println("app: mote_model_init failed");
        return;
    }
#ifdef MOTE_MODEL_SELFTEST_CASES
    if (mote_model_selftest() != MOTE_OK) {  // prints MOTE SELFTEST PASS|FAIL
        return;
    }
#endif
    ready = true;
}

void loop()
{
    if (!ready) {
        delay(1000);
        return;
    }
    for (size_t i = 0; i < MOTE_MODEL_INPUT0_NUMEL; i++) {
        input[i] = (float)((int)((i + millis() / 1000u) % 16u) - 8) / 8.0f;  // your sensor data here
    }
    uint32_t t0 = micros();
    const void *out = NULL;
    size_t nbytes = 0;
    if (mote_model_set_input(0, input, sizeof(input)) != MOTE_OK || mote_model_run() != MOTE_OK ||
        mote_model_get_output(0, &out, &nbytes) != MOTE_OK) {
        Serial.println("app: inference failed");
        ready = false;
        return;
    }
    uint32_t us = micros() - t0;
    const float *scores = (const float *)out;
    size_t best = 0;
    for (size_t i = 1; i < nbytes / sizeof(float); i++) {
        if (scores[i] > scores[best]) {
            best = i;
        }
    }
    mote_port_log("app: class %u in %u us", (unsigned)best, (unsigned)us);
    delay(1000);
}
