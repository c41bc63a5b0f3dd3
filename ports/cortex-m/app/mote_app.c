/*
 * mote_app.c - the firmware application `aot build` links for every board.
 *
 * Runs the model through the embedding API (mote/model.h): the program
 * stays in flash (mote_model_pte, generated model_pte.c; constants are used
 * in place, never copied to RAM) and every buffer is static storage sized by
 * the generated mote_model.h (runtime/embed/mote_model.c). It runs the model
 * on each input set and prints one line per inference on the UART:
 *
 *   MOTE BOOT <board>
 *   MOTE MODEL pte=<bytes> state=<bytes> arena=<bytes>[ mutable=<bytes>]
 *   OUT <index> <cycles> <output 0 hex>[,<output 1 hex>...]
 *   MOTE STACK used=<bytes>      (main stack high-water mark; reserve: size.json)
 *   MOTE DONE <count>
 *
 * Output tensors are printed as the hex of their raw little-endian bytes, so
 * the host compares them bit for bit. <cycles> is the inference's cycle
 * count from mote_port_cycles(): DWT cycles on silicon, exact instruction
 * counts under QEMU -icount shift=0. Errors print
 * "MOTE ERROR <stage> <code>" and exit with status 1.
 *
 * Checksum: with MOTE_VERIFY_CHECKSUM defined, mote_model_init first compares
 * the CRC-32 of the whole program with MOTE_MODEL_CRC32 from mote_model.h; the
 * app stops with "MOTE ERROR checksum <code>" on a mismatch (a corrupted
 * flash image never reaches the loader) and "MOTE ERROR init <code>" on any
 * other load or init failure.
 *
 * Inputs: MOTE_APP_EMBEDDED_INPUTS (default) reads `mote_inputs_count` input
 * sets from the generated inputs.S blob (each set is the method's inputs'
 * bytes back to back). MOTE_APP_UART_INPUTS instead reads, per inference, one
 * line "I <hex of all input bytes>\n" from the UART; a line "Q" ends the run.
 * A line "R" sets the model's state (its mutable buffers: a streaming model's
 * history) back to its initial values (mote_model_reset_state) and prints
 *
 *   MOTE RESET
 *
 * so a stateful model runs stream after stream (clip after clip) in one boot.
 *
 * Self-test: with MOTE_APP_SELFTEST defined (aot build --selftest), the input
 * sets are the self-test's cases (generated model_selftest_inputs.c), and
 * after each inference the outputs are checked against their expected bytes
 * (model_selftest.c) by the embedding API's checker (runtime/embed/
 * mote_selftest.h). An element passes when its bytes equal the expected ones
 * or, for float outputs, when |got - want| <= the output's tolerance. Lines
 * (after each case's OUT line, then at the end):
 *
 *   MOTE SELFTEST CASE case=<k> output=<o> max_abs_err=<e> tol=<t> result=PASS|FAIL
 *   MOTE SELFTEST PASS n=<cases> max_abs_err=<e>
 *   MOTE SELFTEST FAIL case=<k> output=<o> element=<i> got=<g> want=<w> tol=<t>
 *                      failed=<failing case outputs> n=<cases> max_abs_err=<e>
 *
 * and main returns 1 when it failed. Numbers print as 4 significant digits
 * ("1.234e-7", "0", "nan", "inf"); aot.deploy.protocol reads these lines.
 *
 * Tracing (aot build --trace profile|debug; needs MOTE_TRACE, mote/trace.h):
 * after each inference's OUT line (timed without the tracer) the same inputs
 * run once more with the event tracer attached, then print
 *
 *   PROF <instr> <start> <end>        one per executed instruction (ticks)
 *   MOTE PROF events=<n> dropped=<d> overhead=<ticks> run=<ticks>
 *
 * and with MOTE_APP_TRACE_DEBUG, during that run, after each instruction
 * listed in the generated mote_debug_pairs[] (model_debug.c: instruction,
 * value index pairs in instruction order), one line per output tensor:
 *
 *   DBG <instr> <value> <tensor hex>
 *
 * Several models (aot build A=a.py B=b.py; MOTE_APP_MODELS, the generated
 * mote_models.h): every model is initialised first, then each runs its input
 * sets (or self-test cases) in turn, case k of every model before case k+1, so
 * with --memory shared each run follows another model's run in the same arena.
 * The lines name the model they belong to:
 *
 *   MOTE MODEL name=<name> pte=<bytes> state=<bytes> arena=<bytes>[ mutable=<bytes>]
 *   MOTE RUN model=<name>                 (the OUT and SELFTEST CASE lines after it are its)
 *   OUT <index> <cycles> <outputs hex>    (index: the model's own case number)
 *   MOTE RUN model=<name>                 (before each model's verdict, at the end)
 *   MOTE SELFTEST PASS|FAIL ... model=<name>   (every SELFTEST line ends with model=<name>)
 *
 * and MOTE DONE counts every inference. One model: the lines above, unchanged.
 */
#include <stddef.h>
#include <stdint.h>

#include "mote/model.h"
#include "mote/program.h"
#ifdef MOTE_APP_MODELS
#include "mote_models.h"
#else
#include "mote_model.h"
#endif
#include "mote_port.h"
#ifdef MOTE_APP_SELFTEST
#include "mote_selftest.h"
#endif

#ifndef MOTE_APP_BOARD_NAME
#define MOTE_APP_BOARD_NAME "unknown"
#endif

#if defined(MOTE_APP_SELFTEST) && defined(MOTE_APP_UART_INPUTS)
#error "MOTE_APP_SELFTEST runs the embedded cases: it cannot be combined with MOTE_APP_UART_INPUTS"
#endif

#ifdef MOTE_APP_MODELS
#if defined(MOTE_APP_UART_INPUTS) || defined(MOTE_APP_TRACE)
#error "MOTE_APP_MODELS (several models) runs embedded inputs, untraced"
#endif
/* One model of several (mote_models.h's MOTE_MODELS_EACH order): what the app prints and
 * runs. Its API is called through a switch on the model's index (app_api_*), direct calls
 * the stack analysis follows (aot.deploy.stack). */
typedef struct {
    const char *name;
    uint32_t pte_bytes;
    int image; /* the runtime state is in flash (a method image): none in RAM */
    const uint8_t *sets;     /* the input sets, set_bytes each */
    const uint32_t *count;   /* how many */
    uint32_t set_bytes;
    const uint8_t *expected; /* MOTE_APP_SELFTEST: the expected outputs */
} app_model_t;
#define APP_ID(n, N) APP_ID_##n,
enum { MOTE_MODELS_EACH(APP_ID) APP_NUM_MODELS };
#define APP_MODEL_INFO(n, N) #n, (uint32_t)MOTE_MODEL_##N##_PTE_BYTES, MOTE_MODEL_##N##_STATE_BYTES == 0u
#ifdef MOTE_APP_SELFTEST
/* Generated by aot build --selftest (<name>/model_selftest_inputs.c, model_selftest.c). */
#define APP_DECLARE(n, N) extern const uint8_t mote_model_##n##_selftest_inputs[]; \
    extern const uint8_t mote_model_##n##_selftest_expected[]; \
    static const uint32_t app_count_##n = (uint32_t)(MOTE_MODEL_##N##_SELFTEST_CASES);
#define APP_MODEL(n, N) {APP_MODEL_INFO(n, N), mote_model_##n##_selftest_inputs, &app_count_##n, \
    MOTE_MODEL_##N##_INPUTS_BYTES, mote_model_##n##_selftest_expected},
#else
/* Generated by aot build (<name>/model_inputs.S). */
#define APP_DECLARE(n, N) extern const uint8_t mote_model_##n##_inputs[]; \
    extern const uint32_t mote_model_##n##_inputs_count;
#define APP_MODEL(n, N) {APP_MODEL_INFO(n, N), mote_model_##n##_inputs, &mote_model_##n##_inputs_count, \
    MOTE_MODEL_##N##_INPUTS_BYTES, NULL},
#endif
MOTE_MODELS_EACH(APP_DECLARE)
static const app_model_t app_models[APP_NUM_MODELS] = {MOTE_MODELS_EACH(APP_MODEL)};

#define APP_CASE_INIT(n, N) case APP_ID_##n: return mote_model_##n##_init();
#define APP_CASE_METHOD(n, N) case APP_ID_##n: return mote_model_##n##_method();
#define APP_CASE_PROGRAM(n, N) case APP_ID_##n: return mote_model_##n##_program();
#define APP_CASE_NUM_INPUTS(n, N) case APP_ID_##n: return mote_model_##n##_num_inputs();
#define APP_CASE_NUM_OUTPUTS(n, N) case APP_ID_##n: return mote_model_##n##_num_outputs();
#define APP_CASE_SET_INPUT(n, N) case APP_ID_##n: return mote_model_##n##_set_input(i, data, nbytes);
#define APP_CASE_RUN(n, N) case APP_ID_##n: return mote_model_##n##_run();
#define APP_CASE_GET_OUTPUT(n, N) case APP_ID_##n: return mote_model_##n##_get_output(i, data, nbytes);
static mote_err_t app_api_init(uint32_t j)
{
    switch (j) { MOTE_MODELS_EACH(APP_CASE_INIT) default: return MOTE_ERR_INVALID_ARGUMENT; }
}
static mote_method_t *app_api_method(uint32_t j)
{
    switch (j) { MOTE_MODELS_EACH(APP_CASE_METHOD) default: return NULL; }
}
static const mote_program_t *app_api_program(uint32_t j)
{
    switch (j) { MOTE_MODELS_EACH(APP_CASE_PROGRAM) default: return NULL; }
}
static uint32_t app_api_num_inputs(uint32_t j)
{
    switch (j) { MOTE_MODELS_EACH(APP_CASE_NUM_INPUTS) default: return 0u; }
}
static uint32_t app_api_num_outputs(uint32_t j)
{
    switch (j) { MOTE_MODELS_EACH(APP_CASE_NUM_OUTPUTS) default: return 0u; }
}
static mote_err_t app_api_set_input(uint32_t j, uint32_t i, const void *data, size_t nbytes)
{
    switch (j) { MOTE_MODELS_EACH(APP_CASE_SET_INPUT) default: return MOTE_ERR_INVALID_ARGUMENT; }
}
static mote_err_t app_api_run(uint32_t j)
{
    switch (j) { MOTE_MODELS_EACH(APP_CASE_RUN) default: return MOTE_ERR_INVALID_ARGUMENT; }
}
static mote_err_t app_api_get_output(uint32_t j, uint32_t i, const void **data, size_t *nbytes)
{
    switch (j) { MOTE_MODELS_EACH(APP_CASE_GET_OUTPUT) default: return MOTE_ERR_INVALID_ARGUMENT; }
}
/* The app's functions take the index of the model they run (one model: none, mote_model_*). */
#define APP_M_ONLY uint32_t j
#define APP_M uint32_t j,
#define APP_J j
#define APP_J_ j,
#define APP_FN(f) app_api_##f
#else
#define APP_M_ONLY void
#define APP_M
#define APP_J
#define APP_J_
#define APP_FN(f) mote_model_##f
#endif

#ifdef MOTE_APP_MODELS
#elif defined(MOTE_APP_SELFTEST)
/* Generated by aot build --selftest (model_selftest_inputs.c, model_selftest.c). */
extern const uint8_t mote_selftest_inputs[];
extern const uint8_t mote_selftest_expected[];
#define APP_INPUTS mote_selftest_inputs
#define APP_INPUT_COUNT ((uint32_t)(MOTE_MODEL_SELFTEST_CASES))
#elif !defined(MOTE_APP_UART_INPUTS)
/* Generated by aot build (model_inputs.S). */
extern const uint8_t mote_inputs[];
extern const uint32_t mote_inputs_count;
#define APP_INPUTS mote_inputs
#define APP_INPUT_COUNT mote_inputs_count
#endif

#ifdef MOTE_APP_TRACE
#include "mote/trace.h"
#ifndef MOTE_TRACE
#error "MOTE_APP_TRACE needs the runtime built with MOTE_TRACE"
#endif
#endif

static void app_fail(const char *stage, mote_err_t err)
{
    mote_port_puts("MOTE ERROR ");
    mote_port_puts(stage);
    mote_port_putc(' ');
    mote_port_put_i32((int32_t)err);
    mote_port_putc('\n');
    mote_port_exit(1);
}

static void app_put_hex_bytes(const uint8_t *p, uint32_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (uint32_t i = 0; i < n; ++i) {
        mote_port_putc(digits[p[i] >> 4]);
        mote_port_putc(digits[p[i] & 15u]);
    }
}

static void app_init(APP_M_ONLY)
{
    mote_err_t err = APP_FN(init)(APP_J);
    if (err != MOTE_OK) {
        app_fail(err == MOTE_ERR_CHECKSUM ? "checksum" : "init", err);
    }
    /* The runtime's own requirements, so a host test sees the state and
     * arena the device needs next to mote_model.h's figures. */
    mote_method_requirements_t req;
    err = mote_method_memory_requirements(APP_FN(program)(APP_J), 0, &req);
    if (err != MOTE_OK) {
        app_fail("requirements", err);
    }
#ifdef MOTE_APP_MODELS
    mote_port_puts("MOTE MODEL name=");
    mote_port_puts(app_models[j].name);
    mote_port_puts(" pte=");
    mote_port_put_u32(app_models[j].pte_bytes);
    mote_port_puts(" state=");
    mote_port_put_u32(app_models[j].image ? 0u : (uint32_t)req.state_size);
#else
    mote_port_puts("MOTE MODEL pte=");
    mote_port_put_u32((uint32_t)MOTE_MODEL_PTE_BYTES);
    mote_port_puts(" state=");
#ifdef MOTE_MODEL_IMAGE /* the state is in flash (model_image.c): no state buffer */
    mote_port_put_u32(0u);
#else
    mote_port_put_u32((uint32_t)req.state_size);
#endif
#endif
    mote_port_puts(" arena=");
    mote_port_put_u32(req.num_arenas > 0 ? (uint32_t)req.arena_size[0] : 0u);
    if (req.num_arenas > 1) { /* memory id 2: the mutable buffers */
        mote_port_puts(" mutable=");
        mote_port_put_u32((uint32_t)req.arena_size[1]);
    }
    mote_port_putc('\n');
}

/* Copies one input set (all inputs back to back) into the method. */
static void app_set_inputs(APP_M const uint8_t *set)
{
    const mote_method_t *method = APP_FN(method)(APP_J);
    uint32_t n = APP_FN(num_inputs)(APP_J);
    for (uint32_t i = 0; i < n; ++i) {
        const mote_tensor_t *t;
        mote_err_t err = mote_method_input_tensor(method, i, &t);
        if (err == MOTE_OK) {
            err = APP_FN(set_input)(APP_J_ i, set, t->nbytes);
        }
        if (err != MOTE_OK) {
            app_fail("input", err);
        }
        set += t->nbytes;
    }
}

#ifdef MOTE_APP_TRACE
/* Room for every instruction once (MOTE_APP_TRACE_EVENTS: the chain's length). */
static mote_trace_event_t app_events[MOTE_APP_TRACE_EVENTS];
static mote_tracer_t app_tracer;

#ifdef MOTE_APP_TRACE_DEBUG
extern const uint32_t mote_debug_pairs[];   /* (instruction, value index) pairs */
extern const uint32_t mote_debug_pairs_count;

/* Prints the listed outputs of instruction `instr` (pairs are in instruction order). */
static void app_debug_after(void *user, const mote_method_t *m, uint32_t instr)
{
    (void)user;
    for (uint32_t k = 0; k < mote_debug_pairs_count; ++k) {
        const mote_value_t *v;
        if (mote_debug_pairs[2u * k] != instr || mote_method_value(m, mote_debug_pairs[2u * k + 1u], &v) != MOTE_OK
            || v->tag != MOTE_TAG_TENSOR) {
            continue;
        }
        mote_port_puts("DBG ");
        mote_port_put_u32(instr);
        mote_port_putc(' ');
        mote_port_put_u32(mote_debug_pairs[2u * k + 1u]);
        mote_port_putc(' ');
        app_put_hex_bytes((const uint8_t *)v->u.t->data, (uint32_t)v->u.t->nbytes);
        mote_port_putc('\n');
    }
}
#endif

/* Runs the method's current inputs once more with the tracer, prints the events. */
static void app_trace_one(void)
{
    mote_method_t *m = mote_model_method();
    app_tracer.events = app_events;
    app_tracer.capacity = (uint32_t)(sizeof(app_events) / sizeof(app_events[0]));
#ifdef MOTE_APP_TRACE_DEBUG
    app_tracer.after = app_debug_after;
#endif
    mote_err_t err = mote_method_set_tracer(m, &app_tracer);
    if (err == MOTE_OK) {
        err = mote_model_run();
    }
    if (err == MOTE_OK) {
        err = mote_method_set_tracer(m, NULL);
    }
    if (err != MOTE_OK) {
        app_fail("trace", err);
    }
    for (uint32_t k = 0; k < app_tracer.count; ++k) {
        mote_port_puts("PROF ");
        mote_port_put_u32(app_events[k].instr);
        mote_port_putc(' ');
        mote_port_put_u32(app_events[k].start);
        mote_port_putc(' ');
        mote_port_put_u32(app_events[k].end);
        mote_port_putc('\n');
    }
    mote_port_puts("MOTE PROF events=");
    mote_port_put_u32(app_tracer.count);
    mote_port_puts(" dropped=");
    mote_port_put_u32(app_tracer.dropped);
    mote_port_puts(" overhead=");
    mote_port_put_u32(app_tracer.overhead);
    mote_port_puts(" run=");
    mote_port_put_u32(app_tracer.run_end - app_tracer.run_start);
    mote_port_putc('\n');
}
#endif

/* Runs input set `set` (already copied in) and prints its OUT line. */
static void app_run_one(APP_M uint32_t index, const uint8_t *set)
{
    /* Two back-to-back reads measure the counter's own overhead. */
    uint32_t c0 = mote_port_cycles();
    uint32_t c1 = mote_port_cycles();
    mote_err_t err = APP_FN(run)(APP_J);
    uint32_t c2 = mote_port_cycles();
    if (err != MOTE_OK) {
        app_fail("execute", err);
    }
    mote_port_puts("OUT ");
    mote_port_put_u32(index);
    mote_port_putc(' ');
    mote_port_put_u32((c2 - c1) - (c1 - c0));
    mote_port_putc(' ');
    uint32_t n = APP_FN(num_outputs)(APP_J);
    for (uint32_t o = 0; o < n; ++o) {
        const void *data;
        size_t nbytes;
        err = APP_FN(get_output)(APP_J_ o, &data, &nbytes);
        if (err != MOTE_OK) {
            app_fail("output", err);
        }
        if (o > 0) {
            mote_port_putc(',');
        }
        app_put_hex_bytes((const uint8_t *)data, (uint32_t)nbytes);
    }
    mote_port_putc('\n');
#ifdef MOTE_APP_TRACE
    /* Inputs are planned in the arena: the run just made may have reused their bytes. */
    app_set_inputs(set);
    app_trace_one();
#else
    (void)set;
#endif
}

#ifdef MOTE_APP_UART_INPUTS
/* "R": the state back to its initial values, acknowledged. */
static void app_reset_state(void)
{
    mote_err_t err = mote_model_reset_state();
    if (err != MOTE_OK) {
        app_fail("reset", err);
    }
    mote_port_puts("MOTE RESET\n");
}

/* Reads "I <hex>\n" into buf (exactly `len` bytes), resetting the state on
 * each "R" line before it. Returns 0 on 'Q' or EOF. */
static int app_read_input_line(uint8_t *buf, uint32_t len)
{
    int c;
    do {
        c = mote_port_getc();
        if (c < 0 || c == 'Q') return 0;
        if (c == 'R') app_reset_state();
    } while (c != 'I');
    uint32_t got = mote_port_read_hex_rest(buf, len);
    if (got != len) {
        app_fail("uart-input-length", MOTE_ERR_INPUT_SHAPE);
    }
    return 1;
}

static uint8_t app_uart_input[MOTE_MODEL_INPUTS_BYTES];
#endif

#ifdef MOTE_APP_MODELS
static void app_run_model(uint32_t j)
{
    mote_port_puts("MOTE RUN model=");
    mote_port_puts(app_models[j].name);
    mote_port_putc('\n');
}

/* Every model initialised, then case k of each model in turn; each model's verdict. */
int main(void)
{
#ifdef MOTE_APP_SELFTEST
    static mote_selftest_t st[APP_NUM_MODELS];
#endif
    uint32_t count = 0, most = 0;
    int status = 0;
    mote_port_puts("MOTE BOOT " MOTE_APP_BOARD_NAME "\n");
    for (uint32_t j = 0; j < APP_NUM_MODELS; ++j) {
        app_init(j);
        most = *app_models[j].count > most ? *app_models[j].count : most;
#ifdef MOTE_APP_SELFTEST
        mote_selftest_begin(&st[j], app_models[j].expected);
        st[j].model = app_models[j].name; /* " model=<name>" on its SELFTEST lines, as mote_model_<name>_selftest() */
#endif
    }
    for (uint32_t k = 0; k < most; ++k) {
        for (uint32_t j = 0; j < APP_NUM_MODELS; ++j) {
            const app_model_t *m = &app_models[j];
            if (k >= *m->count) {
                continue;
            }
            const uint8_t *set = m->sets + (size_t)k * m->set_bytes;
            app_run_model(j);
            app_set_inputs(j, set);
            app_run_one(j, k, set);
            ++count;
#ifdef MOTE_APP_SELFTEST
            mote_err_t err = mote_selftest_check(&st[j], app_api_method(j), k);
            if (err != MOTE_OK) {
                app_fail("output", err);
            }
#endif
        }
    }
#ifdef MOTE_APP_SELFTEST
    for (uint32_t j = 0; j < APP_NUM_MODELS; ++j) {
        app_run_model(j);
        if (mote_selftest_verdict(&st[j], *app_models[j].count) != MOTE_OK) {
            status = 1;
        }
    }
#endif
    mote_port_puts("MOTE STACK used=");
    mote_port_put_u32(mote_port_stack_peak());
    mote_port_puts("\nMOTE DONE ");
    mote_port_put_u32(count);
    mote_port_putc('\n');
    return status;
}
#else
int main(void)
{
    mote_port_puts("MOTE BOOT " MOTE_APP_BOARD_NAME "\n");
    app_init();
    uint32_t count = 0;
#ifdef MOTE_APP_UART_INPUTS
    mote_port_puts("MOTE READY\n");
    while (app_read_input_line(app_uart_input, sizeof(app_uart_input))) {
        app_set_inputs(app_uart_input);
        app_run_one(count++, app_uart_input);
    }
#else
#ifdef MOTE_APP_SELFTEST
    mote_selftest_t st;
    mote_selftest_begin(&st, mote_selftest_expected);
#endif
    for (; count < APP_INPUT_COUNT; ++count) {
        app_set_inputs(APP_INPUTS + (size_t)count * MOTE_MODEL_INPUTS_BYTES);
        app_run_one(count, APP_INPUTS + (size_t)count * MOTE_MODEL_INPUTS_BYTES);
#ifdef MOTE_APP_SELFTEST
        mote_err_t err = mote_selftest_check(&st, mote_model_method(), count);
        if (err != MOTE_OK) {
            app_fail("output", err);
        }
#endif
    }
#endif
    int status = 0;
#ifdef MOTE_APP_SELFTEST
    status = mote_selftest_verdict(&st, count) == MOTE_OK ? 0 : 1;
#endif
    mote_port_puts("MOTE STACK used=");
    mote_port_put_u32(mote_port_stack_peak());
    mote_port_puts("\nMOTE DONE ");
    mote_port_put_u32(count);
    mote_port_putc('\n');
    return status;
}
#endif
