/*
 * mote_model.c - the embedding API (mote/model.h) over the generated model.
 *
 * Compiled with the folder `aot generate` wrote on the include path: it
 * reads the exact sizes from mote_model.h and the program from model_pte.h,
 * and declares every buffer as static storage of exactly those sizes, so a
 * model that does not fit fails at link time, never at run time. The
 * kernel scratch planned inside the arena (MOTE_MODEL_SCRATCH_SLOTS) is
 * handed to the runtime as is; a separate scratch buffer exists only when
 * the plan does not cover a kernel's need (MOTE_MODEL_SCRATCH_BYTES > 0).
 *
 * Several models in one build (`aot generate A=a.py B=b.py`): this file is
 * compiled once per model through a generated wrapper (OUT/<name>/
 * mote_embed_<name>.c) that first includes the model's mote_embed_names.h.
 * It renames every external symbol (mote_model_init -> mote_model_<name>_init,
 * mote_model_pte -> mote_model_<name>_pte, the arenas, ...), names the model's
 * headers (MOTE_EMBED_MODEL_HEADER, MOTE_EMBED_PTE_HEADER) and, with
 * --memory shared, sizes the one activation arena and scratch every model
 * uses (MOTE_EMBED_SHARED_ARENA0_BYTES, MOTE_EMBED_SHARED_SCRATCH_BYTES;
 * defined once in the generated mote_models.c). The rest is static, one copy
 * per model. Without the wrapper nothing below changes.
 */
#include <stddef.h>
#include <stdint.h>

#include "mote/data_map.h"
#include "mote/model.h"
#include "mote/program.h"
/* The one-model headers are named literally: a build tool that scans #include lines
 * for dependencies (SCons, under PlatformIO) sees them and recompiles this file when
 * `aot generate` rewrites them. */
#ifdef MOTE_EMBED_PTE_HEADER
#include MOTE_EMBED_PTE_HEADER
#else
#include "model_pte.h"
#endif
#ifdef MOTE_EMBED_MODEL_HEADER
#include MOTE_EMBED_MODEL_HEADER
#else
#include "mote_model.h"
#endif

#ifndef MOTE_MODEL_STATE_BYTES
#error "mote_model.h has no MOTE_MODEL_STATE_BYTES: generate it with `aot generate` (or `aot build`)"
#endif
#if defined(MOTE_VERIFY_CHECKSUM) && !defined(MOTE_MODEL_CRC32)
#error "MOTE_VERIFY_CHECKSUM needs MOTE_MODEL_CRC32 (the program's CRC-32) in mote_model.h: regenerate it"
#endif
#ifndef MOTE_MODEL_NUM_SCRATCH_SLOTS
#define MOTE_MODEL_NUM_SCRATCH_SLOTS 0
#endif

/* The runtime state's size depends on the ABI (pointer sizes): mote_model.h
 * gives it for the board `aot generate` was asked for. A build of the same
 * sources for another ABI (a 64-bit host test) defines MOTE_EMBED_STATE_BYTES
 * to its own figure (mote_method_memory_requirements on that host). */
#ifndef MOTE_EMBED_STATE_BYTES
#define MOTE_EMBED_STATE_BYTES MOTE_MODEL_STATE_BYTES
#endif

/* Exactly-sized static memory (bytes from mote_model.h). An empty arena
 * still gets one aligned block: C has no zero-length arrays. With method
 * images (MOTE_MODEL_IMAGE: model_image.c holds every method's runtime state
 * in flash, pointing into these arenas by name) there is no state buffer. */
#ifdef MOTE_MODEL_IMAGE
extern const mote_method_image_t mote_model_images[MOTE_MODEL_NUM_METHODS];
#else
static uint8_t mote_embed_state[MOTE_EMBED_STATE_BYTES > 0 ? MOTE_EMBED_STATE_BYTES : 8]
    __attribute__((aligned(MOTE_STATE_ALIGN)));
#endif
/* Not static: model_image.c names them. */
#ifdef MOTE_EMBED_SHARED_ARENA0_BYTES
/* --memory shared: the activation arena of every model of the build (mote_models.c), at least
 * this model's MOTE_MODEL_ARENA0_BYTES; the models run one at a time. */
extern uint8_t mote_embed_arena0[MOTE_EMBED_SHARED_ARENA0_BYTES];
#else
extern uint8_t mote_embed_arena0[];
uint8_t mote_embed_arena0[MOTE_MODEL_ARENA0_BYTES > 0 ? MOTE_MODEL_ARENA0_BYTES : MOTE_ARENA_ALIGN]
    __attribute__((aligned(MOTE_ARENA_ALIGN)));
#endif
/* Memory id 2: the mutable buffers (model state kept across runs), when the
 * model has any. A program with more arenas was not made by Mote's planner. */
#if defined(MOTE_MODEL_NUM_ARENAS) && MOTE_MODEL_NUM_ARENAS > 2
#error "mote_model.h describes more than two arenas: the embedding API holds the activations and the mutable buffers"
#endif
#if defined(MOTE_MODEL_NUM_ARENAS) && MOTE_MODEL_NUM_ARENAS > 1
#define MOTE_EMBED_ARENAS 2u
extern uint8_t mote_embed_arena1[];
uint8_t mote_embed_arena1[MOTE_MODEL_ARENA1_BYTES > 0 ? MOTE_MODEL_ARENA1_BYTES : MOTE_ARENA_ALIGN]
    __attribute__((aligned(MOTE_ARENA_ALIGN)));
#else
#define MOTE_EMBED_ARENAS 1u
#endif
#if MOTE_MODEL_SCRATCH_BYTES > 0
#ifdef MOTE_EMBED_SHARED_SCRATCH_BYTES
/* --memory shared: one kernel scratch for every model (mote_models.c). */
extern uint8_t mote_embed_scratch[MOTE_EMBED_SHARED_SCRATCH_BYTES];
#else
static uint8_t mote_embed_scratch[MOTE_MODEL_SCRATCH_BYTES] __attribute__((aligned(MOTE_ARENA_ALIGN)));
#endif
#endif
#if MOTE_MODEL_NUM_SCRATCH_SLOTS > 0
static const mote_scratch_slot_t mote_embed_slots[] = MOTE_MODEL_SCRATCH_SLOTS;
#endif

#ifndef MOTE_MODEL_NUM_METHODS /* a mote_model.h from before several methods */
#define MOTE_MODEL_NUM_METHODS 1u
#define MOTE_MODEL_DEFAULT_METHOD 0u
#endif

static mote_program_t mote_embed_program;
#ifdef MOTE_MODEL_PTD_BYTES
/* The external weights (model_ptd.c): a .ptd the program names its constants in. */
extern const uint8_t mote_model_ptd[];
static mote_data_map_t mote_embed_map;
#endif
/* One initialised method per execution plan. They share arena 0 (they never
 * run at once) and the mutable buffers' arena (one state, e.g. a KV cache
 * prefill writes and decode reads); each has its own part of the state buffer. */
static mote_method_t mote_embed_methods[MOTE_MODEL_NUM_METHODS];
static uint32_t mote_embed_current;
static int mote_embed_ready;

/* The memory of method `index`: its runtime state at *state_used, the shared arenas. */
static mote_err_t mote_embed_memory(uint32_t index, size_t *state_used, mote_memory_t *mem)
{
    mote_method_requirements_t req;
    MOTE_TRY(mote_method_memory_requirements(&mote_embed_program, index, &req));
    /* mote_model.h describes the arenas this storage holds; a program with
     * more was not generated for this build. */
    MOTE_CHECK(req.num_arenas <= MOTE_EMBED_ARENAS, MOTE_ERR_UNSUPPORTED);
    *mem = (mote_memory_t){0};
#ifdef MOTE_MODEL_IMAGE
    (void)state_used;
    mem->image = &mote_model_images[index];
#else
    MOTE_CHECK(req.state_size <= sizeof(mote_embed_state) - *state_used, MOTE_ERR_MEMORY_TOO_SMALL);
    mem->state.ptr = mote_embed_state + *state_used;
    mem->state.size = req.state_size;
    *state_used += (req.state_size + (MOTE_STATE_ALIGN - 1u)) & ~(size_t)(MOTE_STATE_ALIGN - 1u);
#endif
    mem->num_arenas = req.num_arenas;
    if (req.num_arenas > 0u) {
        mem->arenas[0].ptr = mote_embed_arena0;
        mem->arenas[0].size = sizeof(mote_embed_arena0);
    }
#if MOTE_EMBED_ARENAS > 1
    if (req.num_arenas > 1u) {
        mem->arenas[1].ptr = mote_embed_arena1;
        mem->arenas[1].size = sizeof(mote_embed_arena1);
    }
#endif
#if MOTE_MODEL_SCRATCH_BYTES > 0
    mem->scratch.ptr = mote_embed_scratch;
    mem->scratch.size = sizeof(mote_embed_scratch);
#endif
#if MOTE_MODEL_NUM_SCRATCH_SLOTS > 0
    if (index == 0u) { /* the plan's slots are method 0's instructions */
        mem->scratch_slots = mote_embed_slots;
        mem->num_scratch_slots = (uint32_t)(sizeof(mote_embed_slots) / sizeof(mote_embed_slots[0]));
    }
#endif
    return MOTE_OK;
}

mote_err_t mote_model_init(void)
{
    size_t state_used = 0;
    uint32_t i;
    mote_memory_t mem;

    mote_embed_ready = 0;
#ifdef MOTE_VERIFY_CHECKSUM
    MOTE_TRY(mote_program_verify_crc32(mote_model_pte, MOTE_MODEL_PTE_SIZE, (uint32_t)(MOTE_MODEL_CRC32)));
#endif
    MOTE_TRY(mote_program_load(&mote_embed_program, mote_model_pte, MOTE_MODEL_PTE_SIZE));
#ifdef MOTE_MODEL_PTD_BYTES
    MOTE_TRY(mote_data_map_load(&mote_embed_map, mote_model_ptd, (size_t)MOTE_MODEL_PTD_BYTES));
    /* aot generate writes the keys in order: each lookup a binary search without memory. Keys out
     * of order would need an index in RAM (mote_data_map_set_index) or a scan per external tensor
     * (O(n m)): refused instead. */
    MOTE_CHECK(mote_data_map_index_size(&mote_embed_map) == 0u, MOTE_ERR_UNSUPPORTED);
    MOTE_TRY(mote_program_set_data_map(&mote_embed_program, &mote_embed_map));
#endif
    MOTE_CHECK(mote_program_method_count(&mote_embed_program) == MOTE_MODEL_NUM_METHODS, MOTE_ERR_UNSUPPORTED);
    for (i = 0; i < MOTE_MODEL_NUM_METHODS; i++) {
        MOTE_TRY(mote_embed_memory(i, &state_used, &mem));
        MOTE_TRY(mote_method_init(&mote_embed_methods[i], &mote_embed_program, i, &mem));
    }
    mote_embed_current = MOTE_MODEL_DEFAULT_METHOD;
    mote_embed_ready = 1;
    return MOTE_OK;
}

mote_err_t mote_model_select_method(const char *name)
{
    uint32_t index;
    MOTE_CHECK(mote_embed_ready, MOTE_ERR_NOT_INITIALIZED);
    MOTE_CHECK(name != NULL, MOTE_ERR_INVALID_ARGUMENT);
    MOTE_TRY(mote_program_method_index(&mote_embed_program, name, &index));
    mote_embed_current = index;
    return MOTE_OK;
}

uint32_t mote_model_num_inputs(void)
{
    return mote_embed_ready ? mote_method_num_inputs(&mote_embed_methods[mote_embed_current]) : 0u;
}

uint32_t mote_model_num_outputs(void)
{
    return mote_embed_ready ? mote_method_num_outputs(&mote_embed_methods[mote_embed_current]) : 0u;
}

mote_err_t mote_model_set_input(uint32_t index, const void *data, size_t nbytes)
{
    MOTE_CHECK(mote_embed_ready, MOTE_ERR_NOT_INITIALIZED);
    MOTE_CHECK(data != NULL, MOTE_ERR_INVALID_ARGUMENT);
    return mote_method_set_input(&mote_embed_methods[mote_embed_current], index, data, nbytes);
}

mote_err_t mote_model_run(void)
{
    MOTE_CHECK(mote_embed_ready, MOTE_ERR_NOT_INITIALIZED);
    return mote_method_execute(&mote_embed_methods[mote_embed_current]);
}

mote_err_t mote_model_reset_state(void)
{
    MOTE_CHECK(mote_embed_ready, MOTE_ERR_NOT_INITIALIZED);
    return mote_method_reset_state(&mote_embed_methods[mote_embed_current]);
}

mote_err_t mote_model_get_output(uint32_t index, const void **data, size_t *nbytes)
{
    MOTE_CHECK(mote_embed_ready, MOTE_ERR_NOT_INITIALIZED);
    MOTE_CHECK(data != NULL && nbytes != NULL, MOTE_ERR_INVALID_ARGUMENT);
    const mote_tensor_t *t;
    MOTE_TRY(mote_method_get_output(&mote_embed_methods[mote_embed_current], index, &t));
    *data = t->data;
    *nbytes = t->nbytes;
    return MOTE_OK;
}

mote_method_t *mote_model_method(void)
{
    return mote_embed_ready ? &mote_embed_methods[mote_embed_current] : NULL;
}

const mote_program_t *mote_model_program(void)
{
    return mote_embed_ready ? &mote_embed_program : NULL;
}

#ifndef MOTE_MODEL_SELFTEST_CASES
/* Generated without --selftest: no cases to run (mote_model_selftest.c runs them). */
mote_err_t mote_model_selftest(void)
{
    return MOTE_ERR_UNSUPPORTED;
}
#endif
