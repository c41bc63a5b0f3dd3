/*
 * mote/model.h - the embedding API: run the one model `aot generate` made for
 * this build without knowing about arenas, state or scratch.
 *
 * `aot generate MODEL --board BOARD -o DIR` writes the program (model_pte.c,
 * a const array in flash), its exact sizes (mote_model.h) and the kernel
 * registry; runtime/embed/mote_model.c, compiled with DIR on the include
 * path, declares every buffer the model needs as static storage of exactly
 * those sizes (state, arena, the mutable buffers' arena when the model keeps
 * state across runs, scratch: see mote_model.h) and implements the
 * calls below on top of mote/program.h and mote/method.h. Nothing is
 * allocated at run time; the linker reports a model that does not fit.
 *
 *     #include "mote/model.h"
 *     #include "mote_model.h"        // MOTE_MODEL_INPUT0_NUMEL, ...
 *
 *     static float x[MOTE_MODEL_INPUT0_NUMEL];
 *
 *     int main(void) {
 *         if (mote_model_init() != MOTE_OK) return 1;
 *         ... fill x ...
 *         if (mote_model_set_input(0, x, sizeof x) != MOTE_OK) return 1;
 *         if (mote_model_run() != MOTE_OK) return 1;
 *         const void *y; size_t n;
 *         if (mote_model_get_output(0, &y, &n) != MOTE_OK) return 1;
 *         ... n bytes of output 0 at y (dtype MOTE_MODEL_OUTPUT0_DTYPE) ...
 *     }
 *
 * Port hooks (mote/port.h) the application's platform provides: mote_port_log
 * (used by mote_model_selftest and by a runtime built with MOTE_LOG),
 * mote_port_ticks and mote_port_abort. Mote's bare-metal Cortex-M port
 * (ports/cortex-m), its Zephyr port (ports/zephyr) and its Linux port provide
 * all three.
 *
 * One model per build under these names. Several models in one build (`aot generate
 * kws=a.py digits=b.py`): each model has every function below as mote_model_<name>_*
 * (its mote_model_<name>.h; mote_models.h includes them all), compiled from the same
 * runtime/embed/mote_model.c. The functions are not reentrant: call one model's from one
 * thread (with --memory separate, two models may run from two threads).
 */
#ifndef MOTE_MODEL_API_H
#define MOTE_MODEL_API_H

#include "mote/method.h"
#include "mote/program.h"
#include "mote/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Loads and verifies the program in flash and initialises its methods in the
 * static storage (one runtime state each, the arenas shared). With MOTE_VERIFY_CHECKSUM defined it first checks the
 * program's CRC-32 against MOTE_MODEL_CRC32. Safe to call again (re-inits).
 * Errors: CHECKSUM, the loader's and mote_method_init's codes (a program the
 * kernel registry cannot run: OP_NOT_FOUND); with external weights
 * (MOTE_MODEL_PTD_BYTES) the .ptd loader's, and UNSUPPORTED for a .ptd whose
 * keys are not in order (aot generate writes them in order; lookups are then
 * binary searches needing no RAM).
 */
MOTE_NODISCARD mote_err_t mote_model_init(void);

/**
 * Makes method `name` ("prefill", "decode", "reset": a program made from a
 * model file's methods()) the one mote_model_set_input / _run / _get_output /
 * _num_inputs / _num_outputs use; init starts on MOTE_MODEL_DEFAULT_METHOD.
 * All methods are initialised by mote_model_init and share the arena (so an
 * output is valid only until any method runs again; set a method's inputs
 * right before running it) and the mutable buffers (one state).
 * Errors: NOT_INITIALIZED, INVALID_ARGUMENT, NO_SUCH_METHOD.
 */
MOTE_NODISCARD mote_err_t mote_model_select_method(const char *name);

/** Number of inputs / outputs of the model (0 before a successful init). */
uint32_t mote_model_num_inputs(void);
uint32_t mote_model_num_outputs(void);

/**
 * Copies `nbytes` bytes into input `index` (its dtype and shape are the
 * program's: MOTE_MODEL_INPUT<i>_DTYPE, _NUMEL, _BYTES). Errors:
 * NOT_INITIALIZED, INVALID_ARGUMENT (data NULL), INPUT_INDEX, INPUT_SHAPE
 * (nbytes is not MOTE_MODEL_INPUT<i>_BYTES).
 */
MOTE_NODISCARD mote_err_t mote_model_set_input(uint32_t index, const void *data, size_t nbytes);

/** Runs one inference. Errors: NOT_INITIALIZED, a kernel's MOTE_ERR_KERNEL_* code. */
MOTE_NODISCARD mote_err_t mote_model_run(void);

/**
 * Sets the model's mutable buffers (state its forward keeps across runs: a
 * frame history, running statistics, a KV cache) back to their initial
 * values, as mote_model_init left them. A model without any: nothing to do.
 * Errors: NOT_INITIALIZED.
 */
MOTE_NODISCARD mote_err_t mote_model_reset_state(void);

/**
 * Output `index` after mote_model_run: `*data` points at its bytes inside the
 * arena (valid until the next run), `*nbytes` is its size
 * (MOTE_MODEL_OUTPUT<i>_BYTES). Errors: NOT_INITIALIZED, INVALID_ARGUMENT
 * (NULL out-pointer), INPUT_INDEX.
 */
MOTE_NODISCARD mote_err_t mote_model_get_output(uint32_t index, const void **data, size_t *nbytes);

/** The initialised method, for everything else mote/method.h offers (NULL before init). */
mote_method_t *mote_model_method(void);
/** The loaded program, for mote/program.h's queries (NULL before init). */
const mote_program_t *mote_model_program(void);

/**
 * Runs the self-test cases `aot generate --selftest N` embedded
 * (model_selftest.c) and prints, through mote_port_log, one line per case and
 * output and then the verdict that `aot test` and `aot monitor` read:
 *
 *   MOTE SELFTEST CASE case=<k> output=<o> max_abs_err=<e> tol=<t> result=PASS|FAIL
 *   MOTE SELFTEST PASS n=<cases> max_abs_err=<e>
 *   MOTE SELFTEST FAIL case=<k> output=<o> element=<i> got=<g> want=<w> tol=<t> failed=<f> n=<cases> max_abs_err=<e>
 *
 * In a build of several models (mote_model_<name>_selftest()) every line ends
 * with " model=<name>"; one model's lines are as above.
 *
 * An element passes when its bytes equal the expected ones, or for float
 * outputs when |got - want| <= the output's tolerance. The cases exist in
 * builds made with --selftest (mote_model.h defines MOTE_MODEL_SELFTEST_CASES).
 * Returns MOTE_OK on PASS, MOTE_ERR_SELFTEST on FAIL, the first init/run
 * error, or MOTE_ERR_UNSUPPORTED in a build generated without --selftest.
 */
MOTE_NODISCARD mote_err_t mote_model_selftest(void);

#ifdef __cplusplus
}
#endif
#endif /* MOTE_MODEL_API_H */
