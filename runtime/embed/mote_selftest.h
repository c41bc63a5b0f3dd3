/*
 * mote_selftest.h - the self-test checker shared by the embedding API
 * (mote_model_selftest) and Mote's firmware app (ports/cortex-m/app).
 *
 * Expected-output blob (aot.deploy.selftest.selftest_blob), per case: one
 * float32 tolerance per output, padded to 8 bytes, then each output's
 * expected bytes, each padded to 8 bytes. The blob must be 4-byte aligned.
 * Lines are printed through mote_port_log (mote/port.h); their format is
 * read by aot.deploy.protocol (see mote/model.h for the three forms).
 */
#ifndef MOTE_EMBED_SELFTEST_H
#define MOTE_EMBED_SELFTEST_H

#include <stdint.h>

#include "mote/method.h"

/** Running verdict over the cases checked so far. */
typedef struct mote_selftest {
    const uint8_t *cursor; /* next case in the expected-output blob */
    float max_err;         /* largest |got - want| over every element, any output */
    uint32_t failed;       /* failing (case, output) pairs */
    uint32_t first_case, first_output, first_element; /* the first failing element */
    float first_got, first_want, first_tol;
    const char *model;     /* the model's name, " model=<name>" ending every line; NULL (begin): one model */
} mote_selftest_t;

/** Starts a run over the expected-output blob at `blob` (lines without a model name). */
void mote_selftest_begin(mote_selftest_t *st, const uint8_t *blob);

/**
 * Compares the outputs of `m` (just executed on case `index`) with the next
 * case of the blob and prints one CASE line per output. Errors: those of
 * mote_method_get_output.
 */
MOTE_NODISCARD mote_err_t mote_selftest_check(mote_selftest_t *st, const mote_method_t *m, uint32_t index);

/** Prints the PASS or FAIL line over `cases` cases; returns MOTE_OK or MOTE_ERR_SELFTEST. */
MOTE_NODISCARD mote_err_t mote_selftest_verdict(const mote_selftest_t *st, uint32_t cases);

/** `v` with 4 significant digits ("1.234e-5", "0", "nan", "-inf") into buf; returns buf. */
const char *mote_selftest_format(float v, char buf[16]);

#endif /* MOTE_EMBED_SELFTEST_H */
