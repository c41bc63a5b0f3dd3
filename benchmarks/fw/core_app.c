/*
 * core_app.c - the smallest complete Mote application, for bench_size.py.
 *
 * Loads a program from flash, sizes and initialises its method from static
 * buffers, sets its one input, executes it and checks the output, with the
 * empty kernel registry (ports/linux/registry_empty.c): what remains in the
 * link is the runtime core (loader, verifier, method init/execute) plus the
 * port. The program is an identity model (no instructions), so the execute
 * path really runs. Prints "CORE OK <state> <arena>" and exits 0, or
 * "CORE FAIL <stage> <code>" and exits 1.
 *
 * core_sizes.h (generated) defines CORE_STATE_BYTES, CORE_ARENA_BYTES and
 * CORE_INPUT_BYTES for the program and the target ABI.
 */
#include <stddef.h>
#include <stdint.h>

#include "core_sizes.h"
#include "mote/method.h"
#include "mote/program.h"
#include "mote_port.h"

extern const uint8_t mote_model_pte[];
extern const uint8_t mote_model_pte_end[];

static uint8_t core_state[CORE_STATE_BYTES] __attribute__((aligned(MOTE_STATE_ALIGN)));
static uint8_t core_arena[CORE_ARENA_BYTES] __attribute__((aligned(MOTE_ARENA_ALIGN)));
static uint8_t core_input[CORE_INPUT_BYTES];
static mote_program_t core_program;
static mote_method_t core_method;

static void core_fail(const char *stage, int32_t code)
{
    mote_port_puts("CORE FAIL ");
    mote_port_puts(stage);
    mote_port_putc(' ');
    mote_port_put_i32(code);
    mote_port_putc('\n');
    mote_port_exit(1);
}

int main(void)
{
    mote_err_t err = mote_program_load(&core_program, mote_model_pte,
                                       (size_t)(mote_model_pte_end - mote_model_pte));
    if (err != MOTE_OK) core_fail("load", (int32_t)err);
    mote_method_requirements_t req;
    err = mote_method_memory_requirements(&core_program, 0, &req);
    if (err != MOTE_OK) core_fail("requirements", (int32_t)err);
    mote_memory_t mem = {0};
    mem.state.ptr = core_state;
    mem.state.size = sizeof(core_state);
    mem.num_arenas = req.num_arenas;
    if (req.num_arenas > 0) {
        mem.arenas[0].ptr = core_arena;
        mem.arenas[0].size = sizeof(core_arena);
    }
    err = mote_method_init(&core_method, &core_program, 0, &mem);
    if (err != MOTE_OK) core_fail("init", (int32_t)err);
    for (uint32_t i = 0; i < CORE_INPUT_BYTES; ++i) core_input[i] = (uint8_t)(i * 7u + 1u);
    err = mote_method_set_input(&core_method, 0, core_input, sizeof(core_input));
    if (err != MOTE_OK) core_fail("input", (int32_t)err);
    err = mote_method_execute(&core_method);
    if (err != MOTE_OK) core_fail("execute", (int32_t)err);
    const mote_tensor_t *out;
    err = mote_method_get_output(&core_method, 0, &out);
    if (err != MOTE_OK) core_fail("output", (int32_t)err);
    const uint8_t *p = (const uint8_t *)out->data;
    for (uint32_t i = 0; i < CORE_INPUT_BYTES; ++i) {
        if (p[i] != core_input[i]) core_fail("compare", (int32_t)i);
    }
    mote_port_puts("CORE OK ");
    mote_port_put_u32((uint32_t)req.state_size);
    mote_port_putc(' ');
    mote_port_put_u32(req.num_arenas > 0 ? (uint32_t)req.arena_size[0] : 0u);
    mote_port_putc('\n');
    return 0;
}
