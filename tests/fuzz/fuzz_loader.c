/*
 * fuzz_loader.c - fuzz target over the whole runtime path a device takes:
 * mote_program_load [-> mote_data_map_load + mote_program_set_data_map] ->
 * mote_method_memory_requirements -> memory from a fixed static pool ->
 * mote_method_init -> inputs from the fuzz data -> execute -> outputs read
 * back, for up to FUZZ_MAX_METHODS methods of each input.
 *
 * Fuzz data layout: a plain .pte (run with zeroed inputs), or a container
 * that also carries a .ptd and the input bytes, so that mutation reaches the
 * external weights and the data-dependent kernel paths (index, gather,
 * embedding, scatter, index_put) too:
 *
 *   [program: P bytes][.ptd: D bytes][input bytes: I bytes][u32 P][u32 D]["MFZ1"]
 *
 * (u32 little-endian; I = size - 12 - P - D.) D = 0: no .ptd attached; a
 * .ptd that fails mote_data_map_load (or its index) is not attached either
 * (init then refuses the external tensors). A container's program and .ptd
 * get their key indexes (mote_program_set_named_index, mote_data_map_set_index,
 * as mote-run and the host binding give them, in exactly sized buffers with
 * poisoned bytes after them); a plain program gets none (the scan path). The input bytes are one stream: tensor
 * input 0 takes its nbytes first, input 1 the next, ..., wrapping around to
 * the stream's start when it runs out (I = 0: zeros). Data whose last 12
 * bytes are not such a trailer (P + D beyond the data, or no "MFZ1") is a
 * plain program. tests/fuzz/test_libfuzzer.py writes containers
 * (fuzz_container()).
 *
 * libFuzzer:  clang -fsanitize=fuzzer,address,undefined -DMOTE_LIBFUZZER
 *             (LLVMFuzzerTestOneInput is the entry point; the pytest
 *             tests/fuzz/test_libfuzzer.py builds it as fuzz_mote, linked
 *             with every kernel of kernels/).
 * Standalone: without MOTE_LIBFUZZER a main() runs each file named on the
 *             command line and prints "<code> <NAME> <stage>" per file (the
 *             first method's first failing status and the stage it came
 *             from, or "0 MOTE_OK done"); tests/fuzz/test_fuzz.py uses this
 *             built by gcc under ASan+UBSan, linked with the test registry
 *             (tests/runtime/test_kernels.c: add, mul, relu).
 *
 * What a crash means here:
 *  - The program bytes sit in read-only pages that end at a PROT_NONE guard
 *    page (the 0..15 bytes of alignment slack before it are ASan-poisoned):
 *    any write into the program, or any read past its end, faults.
 *  - State and arenas are carved from one static pool with exact sizes;
 *    every byte of the pool not handed to the runtime is ASan-poisoned, so
 *    init/execute/kernels touching memory outside the caller's buffers are
 *    reported (ASan builds).
 *  - Init returning MOTE_OK although a caller buffer is smaller than the
 *    reported requirement aborts (the requirements/init contract).
 *  - Init returning MOTE_OK for a method with a backward JumpFalseCall aborts
 *    (the execute bound, mote/method.h): every method that passes init is
 *    executed. The check reads the method's private instruction table
 *    (kind 4 = jump-false, b = destination).
 *
 * Inputs whose requirements exceed the pool are still given to init, with
 * empty buffers (init must refuse them).
 *
 * Environment (both modes): MOTE_FUZZ_STATS=1 prints per-stage counters at
 * exit; MOTE_FUZZ_VERBOSE=1 (libFuzzer mode) prints "mote_fuzz: <code>
 * <NAME> <stage>" per input, as the standalone driver does;
 * MOTE_FUZZ_STOP=load|requirements|init stops every input after that stage
 * (the pytest uses it to measure the loader-only coverage baseline).
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mote/mote.h"
#include "mote/data_map.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_ASAN 1
#endif
#ifdef FUZZ_ASAN
#include <sanitizer/asan_interface.h>
#define FUZZ_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define FUZZ_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define FUZZ_POISON(p, n) ((void)(p), (void)(n))
#define FUZZ_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#ifndef MAP_ANONYMOUS
#define MAP_ANONYMOUS MAP_ANON
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/** State + arenas + redzones of one method must fit in this many bytes. */
#define FUZZ_POOL_BYTES ((size_t)2 << 20)
/** The backend pool delegates allocate from (XNNPACK's packed weights and workspace). */
#define FUZZ_BACKEND_BYTES ((size_t)8 << 20)
/** Poisoned gap before and after every buffer handed to the runtime. */
#define FUZZ_REDZONE 64u
/** Methods tried per input. */
#define FUZZ_MAX_METHODS 4u
/** Largest program accepted (libFuzzer's -max_len should stay below). */
#define FUZZ_MAX_PROGRAM ((size_t)16 << 20)

/* Stages, in order; a stage's counter counts inputs that reached it. */
enum { ST_LOAD, ST_REQ, ST_INIT, ST_INPUT, ST_EXEC, ST_DONE, ST_COUNT };
static const char *const stage_names[ST_COUNT] = {"load", "requirements", "init", "input", "execute", "done"};

static struct {
    unsigned long inputs;            /* fuzz_one calls */
    unsigned long reached[ST_COUNT]; /* methods that reached (started) each stage */
    unsigned long ok[ST_COUNT];      /* ... and passed it */
    unsigned long too_big;           /* requirements above the pool: init given empty buffers */
    unsigned long ptd_reached;       /* containers with a .ptd, ... */
    unsigned long ptd_ok;            /* ... which mote_data_map_load accepted (attached) */
    unsigned long input_bytes;       /* inputs whose bytes came from the fuzz data (not zeros) */
    unsigned long index_ok;          /* key indexes built (program named data, .ptd) */
} stats;

static int stop_after = ST_DONE; /* MOTE_FUZZ_STOP */
static int verbose;               /* MOTE_FUZZ_VERBOSE */

#if defined(__GNUC__) || defined(__clang__)
#define FUZZ_ALIGNED(n) __attribute__((aligned(n)))
#else
#error "the fuzz harness needs GCC or Clang"
#endif
static uint8_t pool[FUZZ_POOL_BYTES] FUZZ_ALIGNED(64);
/* A .pte carries no kernel scratch slots (mote_model.h does): calls share this
   buffer, as in the host binding (aot/host/runtime.py, HOST_SCRATCH_BYTES); an
   int8 call planned in place by rows needs it for its row ring. */
#define FUZZ_SCRATCH_BYTES ((size_t)1 << 20)
static uint8_t scratch[FUZZ_SCRATCH_BYTES] FUZZ_ALIGNED(64);
static uint8_t backend_pool[FUZZ_BACKEND_BYTES] FUZZ_ALIGNED(64);
/* Key indexes (4 bytes per named entry); an index needing more is given this much and must be refused. */
#define FUZZ_INDEX_BYTES ((size_t)1 << 20)
static uint32_t named_index_buf[FUZZ_INDEX_BYTES / 4u];
static uint32_t ptd_index_buf[FUZZ_INDEX_BYTES / 4u];
static uint8_t input_buf[FUZZ_POOL_BYTES]; /* one input's bytes; an input is at most an arena */
static volatile uint8_t sink;

/* The input byte stream of the current fuzz input (container), read cyclically. */
static struct {
    const uint8_t *data;
    size_t size;
    size_t at;
} in_stream;

static void print_stats(void)
{
    int s;
    fprintf(stderr, "mote_fuzz: inputs %lu", stats.inputs);
    for (s = 0; s < ST_DONE; s++) {
        fprintf(stderr, " %s %lu/%lu", stage_names[s], stats.ok[s], stats.reached[s]);
    }
    fprintf(stderr, " too_big %lu ptd %lu/%lu input_bytes %lu index %lu\n", stats.too_big, stats.ptd_ok,
            stats.ptd_reached, stats.input_bytes, stats.index_ok);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *e = getenv("MOTE_FUZZ_STOP");
    int s;
    (void)argc;
    (void)argv;
    for (s = 0; e != NULL && s < ST_DONE; s++) {
        if (strcmp(e, stage_names[s]) == 0) {
            stop_after = s;
        }
    }
    e = getenv("MOTE_FUZZ_VERBOSE");
    verbose = e != NULL && e[0] != '\0' && e[0] != '0';
    e = getenv("MOTE_FUZZ_STATS");
    if (e != NULL && e[0] != '\0' && e[0] != '0') {
        atexit(print_stats);
    }
    FUZZ_POISON(pool, sizeof(pool));
    FUZZ_POISON(named_index_buf, sizeof(named_index_buf));
    FUZZ_POISON(ptd_index_buf, sizeof(ptd_index_buf));
    return 0;
}

static size_t round16(size_t n)
{
    return (n + 15u) & ~(size_t)15u;
}

/* Read-only copy of the program, ending at a PROT_NONE guard page. */
typedef struct {
    uint8_t *map;
    size_t map_len;
    const uint8_t *prog;
    size_t span; /* prog .. guard page */
} ro_copy_t;

static int ro_copy_make(ro_copy_t *c, const uint8_t *data, size_t size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t span = round16(size);
    size_t body = span == 0 ? page : (span + page - 1u) / page * page;
    uint8_t *p, *prog;

    p = (uint8_t *)mmap(NULL, body + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == (uint8_t *)MAP_FAILED) {
        return -1;
    }
    prog = p + body - span; /* 16-byte aligned: body and span are multiples of 16 */
    if (size != 0) {
        memcpy(prog, data, size);
    }
    if (mprotect(p, body, PROT_READ) != 0 || mprotect(p + body, page, PROT_NONE) != 0) {
        munmap(p, body + page);
        return -1;
    }
    FUZZ_POISON(prog + size, span - size);
    c->map = p;
    c->map_len = body + page;
    c->prog = prog;
    c->span = span;
    return 0;
}

static void ro_copy_free(ro_copy_t *c)
{
    FUZZ_UNPOISON(c->prog, c->span); /* the address range may be mapped again */
    munmap(c->map, c->map_len);
}

/* Hands out `size` bytes of the pool at *at (16-aligned, redzone before), zeroed and unpoisoned. */
static void *pool_take(size_t *at, size_t size)
{
    uint8_t *p = pool + *at + FUZZ_REDZONE;
    FUZZ_UNPOISON(p, size);
    memset(p, 0, size);
    *at += FUZZ_REDZONE + round16(size);
    return p;
}

/* Fills input_buf[0:n] with the next n bytes of the input stream (wrapping), or zeros if it is empty. */
static void input_fill(size_t n)
{
    size_t k = 0, take;
    if (in_stream.size == 0) {
        memset(input_buf, 0, n);
        return;
    }
    stats.input_bytes++;
    while (k < n) {
        take = in_stream.size - in_stream.at;
        take = take < n - k ? take : n - k;
        memcpy(input_buf + k, in_stream.data + in_stream.at, take);
        k += take;
        in_stream.at += take;
        if (in_stream.at == in_stream.size) {
            in_stream.at = 0;
        }
    }
}

/* Bytes pool_take needs for the requirements (+ final redzone), saturating. */
static size_t pool_need(const mote_method_requirements_t *req)
{
    size_t need = FUZZ_REDZONE + round16(req->state_size), i;
    if (req->state_size > FUZZ_POOL_BYTES) {
        return (size_t)-1;
    }
    for (i = 0; i < req->num_arenas && i < MOTE_MAX_ARENAS; i++) {
        if (req->arena_size[i] > FUZZ_POOL_BYTES) {
            return (size_t)-1;
        }
        need += FUZZ_REDZONE + round16(req->arena_size[i]);
    }
    return need + FUZZ_REDZONE;
}

/* 1 if an initialised method jumps backwards (init must have refused it). Reads the private instruction table. */
static int jumps_back(const mote_method_t *m)
{
    uint32_t i;
    for (i = 0; i < m->num_instrs; i++) {
        if (m->instrs[i].kind == 4u && m->instrs[i].b <= i) {
            return 1;
        }
    }
    return 0;
}

/* Runs method k of a loaded program as far as it goes; *stage is where it stopped. */
static mote_err_t run_method(const mote_program_t *prog, uint32_t k, int *stage)
{
    static mote_method_t m;
    mote_method_requirements_t req;
    mote_memory_t mem;
    mote_err_t err;
    size_t at = 0, need;
    uint32_t i, n;
    int too_small = 0;

    *stage = ST_REQ;
    stats.reached[ST_REQ]++;
    err = mote_method_memory_requirements(prog, k, &req);
    if (err != MOTE_OK) {
        return err;
    }
    stats.ok[ST_REQ]++;
    if (stop_after == ST_REQ) {
        return err;
    }

    *stage = ST_INIT;
    stats.reached[ST_INIT]++;
    memset(&mem, 0, sizeof(mem));
    mem.scratch.ptr = scratch;
    mem.scratch.size = FUZZ_SCRATCH_BYTES;
    mem.backend.ptr = backend_pool;
    mem.backend.size = FUZZ_BACKEND_BYTES;
    need = pool_need(&req);
    mem.num_arenas = req.num_arenas;
    if (need <= FUZZ_POOL_BYTES && req.num_arenas <= MOTE_MAX_ARENAS) {
        mem.state.ptr = pool_take(&at, req.state_size);
        mem.state.size = req.state_size;
        for (i = 0; i < req.num_arenas; i++) {
            mem.arenas[i].ptr = pool_take(&at, req.arena_size[i]);
            mem.arenas[i].size = req.arena_size[i];
        }
    } else {
        /* too big for the pool: empty (poisoned) buffers, which init must refuse */
        stats.too_big++;
        mem.state.ptr = pool + FUZZ_REDZONE;
        too_small = req.state_size > 0;
        for (i = 0; i < req.num_arenas && i < MOTE_MAX_ARENAS; i++) {
            mem.arenas[i].ptr = pool + FUZZ_REDZONE;
            too_small |= req.arena_size[i] > 0;
        }
    }
    err = mote_method_init(&m, prog, k, &mem);
    if (err == MOTE_OK && too_small) {
        fprintf(stderr, "mote_fuzz: init accepted buffers smaller than its requirements\n");
        abort();
    }
    if (err != MOTE_OK) {
        goto out;
    }
    stats.ok[ST_INIT]++;
    if (stop_after == ST_INIT) {
        goto out;
    }

    *stage = ST_INPUT;
    stats.reached[ST_INPUT]++;
    n = mote_method_num_inputs(&m);
    for (i = 0; i < n && err == MOTE_OK; i++) {
        const mote_tensor_t *t;
        if (mote_method_input_tensor(&m, i, &t) != MOTE_OK) {
            continue; /* a non-tensor input (int, bool, ...) keeps its program value */
        }
        if (t->nbytes > sizeof(input_buf)) {
            err = MOTE_ERR_INPUT_SHAPE;
            break;
        }
        input_fill(t->nbytes);
        err = mote_method_set_input(&m, i, input_buf, t->nbytes);
    }
    if (err != MOTE_OK) {
        goto out;
    }
    stats.ok[ST_INPUT]++;

    *stage = ST_EXEC;
    if (jumps_back(&m)) {
        fprintf(stderr, "mote_fuzz: init accepted a backward jump (execute has no bound)\n");
        abort();
    }
    stats.reached[ST_EXEC]++;
    err = mote_method_execute(&m);
    if (err != MOTE_OK) {
        goto out;
    }
    stats.ok[ST_EXEC]++;
    *stage = ST_DONE;
    n = mote_method_num_outputs(&m);
    for (i = 0; i < n; i++) {
        const mote_tensor_t *t;
        uint32_t b;
        uint8_t acc = 0;
        if (mote_method_get_output(&m, i, &t) != MOTE_OK) {
            continue;
        }
        for (b = 0; b < t->nbytes; b++) { /* every output byte must be readable */
            acc ^= ((const uint8_t *)t->data)[b];
        }
        sink = acc;
    }
out:
    mote_method_destroy(&m); /* delegates' library handles (a no-op for a method init refused) */
    FUZZ_POISON(pool, at + FUZZ_REDZONE);
    return err;
}

static uint32_t get_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Builds a key index of `need` bytes in buf (at most FUZZ_INDEX_BYTES; the rest stays poisoned) with
   set(); MOTE_OK only if set() accepted it. */
static mote_err_t index_give(uint32_t *buf, size_t need, void *obj,
                             mote_err_t (*set)(void *obj, uint32_t *index, size_t size))
{
    size_t give = need < FUZZ_INDEX_BYTES ? need : FUZZ_INDEX_BYTES;
    mote_err_t err;
    FUZZ_UNPOISON(buf, give);
    err = set(obj, buf, give);
    if (err == MOTE_OK && give < need) {
        fprintf(stderr, "mote_fuzz: an index smaller than its size was accepted\n");
        abort();
    }
    if (err == MOTE_OK) {
        stats.index_ok++;
    }
    return err;
}

static mote_err_t set_named_index(void *prog, uint32_t *index, size_t size)
{
    return mote_program_set_named_index((mote_program_t *)prog, index, size);
}

static mote_err_t set_ptd_index(void *map, uint32_t *index, size_t size)
{
    return mote_data_map_set_index((mote_data_map_t *)map, index, size);
}

/* Splits the fuzz data (layout: top of file) into program, .ptd and input bytes. */
static void split(const uint8_t *data, size_t size, size_t *prog_len, size_t *ptd_len)
{
    size_t p, d;
    *prog_len = size;
    *ptd_len = 0;
    in_stream.data = NULL;
    in_stream.size = 0;
    in_stream.at = 0;
    if (size < 12u || memcmp(data + size - 4u, "MFZ1", 4) != 0) {
        return;
    }
    p = get_u32le(data + size - 12u);
    d = get_u32le(data + size - 8u);
    if (p > size - 12u || d > size - 12u - p) {
        return;
    }
    *prog_len = p;
    *ptd_len = d;
    in_stream.data = data + p + d;
    in_stream.size = size - 12u - p - d;
}

/* One input: the first method's status and stage in *first_stage. */
static mote_err_t fuzz_one(const uint8_t *data, size_t size, int *first_stage)
{
    static mote_program_t prog;
    static mote_data_map_t map;
    ro_copy_t ro, ro_ptd;
    mote_err_t err, first;
    size_t prog_len, ptd_len;
    uint32_t k, n;
    int stage, have_ptd = 0;

    stats.inputs++;
    *first_stage = ST_LOAD;
    split(data, size, &prog_len, &ptd_len);
    if (prog_len > FUZZ_MAX_PROGRAM || ptd_len > FUZZ_MAX_PROGRAM || ro_copy_make(&ro, data, prog_len) != 0) {
        return MOTE_ERR_INVALID_ARGUMENT;
    }
    if (ptd_len > 0u) {
        if (ro_copy_make(&ro_ptd, data + prog_len, ptd_len) != 0) {
            ro_copy_free(&ro);
            return MOTE_ERR_INVALID_ARGUMENT;
        }
        have_ptd = 1;
    }
    stats.reached[ST_LOAD]++;
    first = err = mote_program_load(&prog, ro.prog, prog_len);
    if (err == MOTE_OK) {
        stats.ok[ST_LOAD]++;
        if (in_stream.data != NULL) { /* a container: the program's named-data index */
            first = err = index_give(named_index_buf, mote_program_named_index_size(&prog), &prog, set_named_index);
        }
    }
    if (err == MOTE_OK) {
        if (have_ptd) {
            stats.ptd_reached++;
            if (mote_data_map_load(&map, ro_ptd.prog, ptd_len) == MOTE_OK &&
                index_give(ptd_index_buf, mote_data_map_index_size(&map), &map, set_ptd_index) == MOTE_OK) {
                stats.ptd_ok++;
                if (mote_program_set_data_map(&prog, &map) != MOTE_OK) {
                    fprintf(stderr, "mote_fuzz: a loaded .ptd was not attached to a loaded program\n");
                    abort();
                }
            }
        }
    }
    n = err == MOTE_OK && stop_after > ST_LOAD ? mote_program_method_count(&prog) : 0u;
    for (k = 0; k < n && k < FUZZ_MAX_METHODS; k++) {
        err = run_method(&prog, k, &stage);
        if (k == 0) {
            first = err;
            *first_stage = stage;
        }
    }
    if (have_ptd) {
        ro_copy_free(&ro_ptd);
    }
    ro_copy_free(&ro);
    FUZZ_POISON(named_index_buf, sizeof(named_index_buf));
    FUZZ_POISON(ptd_index_buf, sizeof(ptd_index_buf));
    return first;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int stage;
    mote_err_t err = fuzz_one(data, size, &stage);
    if (verbose) {
        fprintf(stderr, "mote_fuzz: %d %s %s\n", (int)err, mote_err_name(err), stage_names[stage]);
    }
    return 0;
}

#ifndef MOTE_LIBFUZZER
int main(int argc, char **argv)
{
    int a;
    (void)LLVMFuzzerInitialize(&argc, &argv);
    for (a = 1; a < argc; a++) {
        FILE *f = fopen(argv[a], "rb");
        long n;
        uint8_t *buf;
        mote_err_t err;
        int stage;
        if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
            fprintf(stderr, "fuzz_loader: cannot read %s\n", argv[a]);
            return 1;
        }
        buf = (uint8_t *)malloc(n == 0 ? 1 : (size_t)n);
        if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
            fprintf(stderr, "fuzz_loader: cannot read %s\n", argv[a]);
            return 1;
        }
        fclose(f);
        err = fuzz_one(buf, (size_t)n, &stage);
        printf("%d %s %s\n", (int)err, mote_err_name(err), stage_names[stage]);
        fflush(stdout);
        free(buf);
    }
    return 0;
}
#endif
