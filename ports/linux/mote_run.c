/*
 * mote-run - run one method of a .pte program on the host.
 *
 *   mote-run [-m METHOD] [-o PREFIX|OUT.npz] [-d WEIGHTS.ptd] [-t] program.pte [input.npy|inputs.npz ...]
 *
 * Inputs are .npy files (little-endian, C order) matching the method's input
 * dtypes and shapes, or .npz archives written by numpy.savez (stored, not
 * savez_compressed), which contribute their arrays in arr_0, arr_1, ... order
 * (member order when the arrays are named); files and archives may be mixed,
 * in command-line order. Each output i is written to PREFIX<i>.npy (default
 * PREFIX "out"), or, when the -o argument ends in ".npz", all outputs go to
 * that one archive as output_0, output_1, ... Exit status 0 on success, 1 on
 * a usage/IO error, 2 on a runtime error (its mote_err_t name is printed).
 *
 * -d attaches the .ptd holding the program's external weights (mote/data_map.h).
 * -t prints each stage's wall time to stderr, one line per stage:
 * "mote-run: time STAGE SECONDS" for load (the .pte), index (its named-data
 * index), ptd_load, ptd_index (a .ptd's key index, when its keys are not in
 * order), requirements, init and execute (benchmarks/ read them).
 */
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mote/data_map.h"
#include "mote/mote.h"
#include "npy.h"
#include "npz.h"

#define RUN_MAX_INPUTS 64
/* Kernel scratch (bytes) for every call: a .pte does not carry the plan's
 * scratch slots, and the int8 kernels that run in place by rows need their row
 * ring there (kernels/requant.h); the host Method gives the same
 * (aot/host/runtime.py HOST_SCRATCH_BYTES). */
#define RUN_SCRATCH_BYTES ((size_t)1 << 20)
/* The backend pool delegates allocate from (mote/backend.h): XNNPACK's packed
 * weights and workspace, in MiB unless -p MiB says otherwise (aot/host/runtime.py
 * HOST_BACKEND_POOL_BYTES; aot compare passes what the program needs). Pages of it
 * stay untouched until a delegate uses them. */
#define RUN_BACKEND_POOL_MIB 64u
#define RUN_BACKEND_POOL_MAX_MIB (1u << 20) /* 1 TiB: a bound on -p, not an allocation */
#define RUN_USAGE                                                                                        \
    "usage: mote-run [-m METHOD] [-o PREFIX|OUT.npz] [-d WEIGHTS.ptd] [-p POOL_MIB] [-t] program.pte "   \
    "[input.npy|inputs.npz ...]\n"

/* Every input array, in order; data points into the file buffers, kept until exit. */
static mote_npz_member_t run_inputs[RUN_MAX_INPUTS];
static const char *run_input_file[RUN_MAX_INPUTS];
static uint8_t *run_files[RUN_MAX_INPUTS]; /* the input files' buffers (the arrays point into them) */
static mote_npz_writer_t run_npz_out;

static void *aligned_zalloc(size_t size, size_t align)
{
    void *p = NULL;
    if (posix_memalign(&p, align, size == 0 ? align : size) != 0) {
        return NULL;
    }
    memset(p, 0, size == 0 ? align : size);
    return p;
}

/* Reads a whole file into a 16-byte aligned buffer. */
static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    long n;

    if (f == NULL) {
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = (uint8_t *)aligned_zalloc((size_t)n, MOTE_PROGRAM_ALIGN);
        if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
        *size = (size_t)n;
    }
    fclose(f);
    return buf;
}

/* -t: seconds since the last call (the first call starts the clock). */
static int run_timed;
static double run_clock(void)
{
    static struct timespec last;
    struct timespec now;
    double dt;
    clock_gettime(CLOCK_MONOTONIC, &now);
    dt = (double)(now.tv_sec - last.tv_sec) + 1e-9 * (double)(now.tv_nsec - last.tv_nsec);
    last = now;
    return dt;
}

static void run_stage(const char *stage)
{
    const double dt = run_clock();
    if (run_timed) {
        fprintf(stderr, "mote-run: time %s %.9f\n", stage, dt);
    }
}

/* A caller index of `size` bytes (at least 4) for mote_*_set_index, kept until exit. */
static uint32_t *index_alloc(size_t size)
{
    return (uint32_t *)aligned_zalloc(size < 4u ? 4u : size, 16u);
}

/* The program's path, named by every error line (set once main has it). */
static const char *run_program_path = "";

static int fail(const char *what, mote_err_t err)
{
    fprintf(stderr, "mote-run: %s: %s: %s (%d)\n", run_program_path, what, mote_err_name(err), (int)err);
    return 2;
}

int main(int argc, char **argv)
{
    const char *method_name = "forward", *prefix = "out", *path = NULL, *ptd_path = NULL;
    const char *inputs[RUN_MAX_INPUTS];
    uint32_t ninputs = 0, narrays = 0, i, index;
    size_t plen;
    int to_npz;
    int a;
    size_t size;
    static uint8_t *file, *ptd; /* static: the buffers stay reachable until exit */
    static uint32_t *named_index, *ptd_index;
    static mote_data_map_t map;
    size_t ptd_size;
    mote_program_t prog;
    mote_method_t method;
    mote_method_requirements_t req;
    static mote_memory_t mem;
    mote_err_t err;
    unsigned long pool_mib = RUN_BACKEND_POOL_MIB;

    for (a = 1; a < argc; a++) {
        if (strcmp(argv[a], "-m") == 0 && a + 1 < argc) {
            method_name = argv[++a];
        } else if (strcmp(argv[a], "-o") == 0 && a + 1 < argc) {
            prefix = argv[++a];
        } else if (strcmp(argv[a], "-d") == 0 && a + 1 < argc) {
            ptd_path = argv[++a];
        } else if (strcmp(argv[a], "-p") == 0 && a + 1 < argc) {
            char *end = NULL;
            pool_mib = strtoul(argv[++a], &end, 10);
            if (end == argv[a] || *end != '\0' || pool_mib == 0 || pool_mib > RUN_BACKEND_POOL_MAX_MIB) {
                fprintf(stderr, "mote-run: -p %s: the backend pool in MiB, 1 to %u\n", argv[a],
                        RUN_BACKEND_POOL_MAX_MIB);
                return 1;
            }
        } else if (strcmp(argv[a], "-t") == 0) {
            run_timed = 1;
        } else if (argv[a][0] == '-') {
            fprintf(stderr, RUN_USAGE);
            return 1;
        } else if (path == NULL) {
            path = argv[a];
        } else if (ninputs < RUN_MAX_INPUTS) {
            inputs[ninputs++] = argv[a];
        } else {
            fprintf(stderr, "mote-run: too many inputs\n");
            return 1;
        }
    }
    if (path == NULL) {
        fprintf(stderr, RUN_USAGE);
        return 1;
    }
    run_program_path = path;
    file = read_file(path, &size);
    if (file == NULL) {
        fprintf(stderr, "mote-run: cannot read %s\n", path);
        return 1;
    }
    (void)run_clock();
    err = mote_program_load(&prog, file, size);
    if (err != MOTE_OK) {
        return fail("load", err);
    }
    run_stage("load");
    named_index = index_alloc(mote_program_named_index_size(&prog));
    if (named_index == NULL) {
        fprintf(stderr, "mote-run: out of memory\n");
        return 1;
    }
    err = mote_program_set_named_index(&prog, named_index, mote_program_named_index_size(&prog));
    if (err != MOTE_OK) {
        return fail("named data index", err);
    }
    run_stage("index");
    if (ptd_path != NULL) {
        ptd = read_file(ptd_path, &ptd_size);
        if (ptd == NULL) {
            fprintf(stderr, "mote-run: cannot read %s\n", ptd_path);
            return 1;
        }
        (void)run_clock();
        err = mote_data_map_load(&map, ptd, ptd_size);
        if (err != MOTE_OK) {
            return fail("load .ptd", err);
        }
        run_stage("ptd_load");
        ptd_index = index_alloc(mote_data_map_index_size(&map));
        if (ptd_index == NULL) {
            fprintf(stderr, "mote-run: out of memory\n");
            return 1;
        }
        err = mote_data_map_set_index(&map, ptd_index, mote_data_map_index_size(&map));
        if (err == MOTE_OK) {
            err = mote_program_set_data_map(&prog, &map);
        }
        if (err != MOTE_OK) {
            return fail(".ptd index", err);
        }
        run_stage("ptd_index");
    }
    err = mote_program_method_index(&prog, method_name, &index);
    if (err == MOTE_OK) {
        err = mote_method_memory_requirements(&prog, index, &req);
    }
    if (err != MOTE_OK) {
        return fail("method", err);
    }
    run_stage("requirements");
    memset(&mem, 0, sizeof(mem));
    mem.state.ptr = aligned_zalloc(req.state_size, req.state_align);
    mem.state.size = req.state_size;
    mem.num_arenas = req.num_arenas;
    for (i = 0; i < req.num_arenas; i++) {
        mem.arenas[i].ptr = aligned_zalloc(req.arena_size[i], req.arena_align);
        mem.arenas[i].size = req.arena_size[i];
        if (mem.arenas[i].ptr == NULL) {
            fprintf(stderr, "mote-run: out of memory\n");
            return 1;
        }
    }
    mem.scratch.ptr = aligned_zalloc(RUN_SCRATCH_BYTES, 16u);
    mem.scratch.size = RUN_SCRATCH_BYTES;
    if (posix_memalign(&mem.backend.ptr, 16u, (size_t)pool_mib << 20) != 0) { /* not zeroed: pages stay untouched */
        mem.backend.ptr = NULL;
    }
    mem.backend.size = (size_t)pool_mib << 20;
    if (mem.state.ptr == NULL || mem.scratch.ptr == NULL || mem.backend.ptr == NULL) {
        fprintf(stderr, "mote-run: out of memory\n");
        return 1;
    }
    (void)run_clock();
    err = mote_method_init(&method, &prog, index, &mem);
    if (err == MOTE_ERR_OP_NOT_FOUND) {
        const char *name = "?", *overload = "";
        if (mote_program_operator_name(&prog, index, (uint32_t)mote_method_failed_operator(&method), &name,
                                       &overload) == MOTE_OK) {
            fprintf(stderr, "mote-run: no kernel for %s.%s\n", name, overload);
        }
    }
    if (err == MOTE_ERR_BACKEND_MEMORY) { /* one line: the pool's size and the option that sets it */
        fprintf(stderr, "mote-run: %s: init: %s (%d): the delegates need more than the %lu MiB backend pool "
                        "(-p MiB sets it)\n", run_program_path, mote_err_name(err), (int)err, pool_mib);
        return 2;
    }
    if (err != MOTE_OK) {
        return fail("init", err);
    }
    run_stage("init");
    for (i = 0; i < ninputs; i++) {
        size_t nsize;
        uint8_t *nbuf = run_files[i] = read_file(inputs[i], &nsize);
        const char *why = "";
        if (nbuf == NULL) {
            fprintf(stderr, "mote-run: %s: cannot read\n", inputs[i]);
            return 1;
        }
        if (mote_npz_is_zip(nbuf, nsize)) {
            uint32_t got = 0, k;
            if (mote_npz_parse(nbuf, nsize, &run_inputs[narrays], RUN_MAX_INPUTS - narrays, &got, &why) != 0) {
                fprintf(stderr, "mote-run: %s: %s\n", inputs[i], why);
                return 1;
            }
            for (k = 0; k < got; k++) {
                run_input_file[narrays + k] = inputs[i];
            }
            narrays += got;
        } else if (narrays >= RUN_MAX_INPUTS) {
            fprintf(stderr, "mote-run: too many inputs\n");
            return 1;
        } else if (mote_npy_parse(nbuf, nsize, &run_inputs[narrays].npy, &why) != 0) {
            fprintf(stderr, "mote-run: %s: %s\n", inputs[i], why);
            return 1;
        } else {
            run_inputs[narrays].name[0] = '\0';
            run_input_file[narrays++] = inputs[i];
        }
    }
    if (narrays != mote_method_num_inputs(&method)) {
        fprintf(stderr, "mote-run: method takes %u inputs, %u given\n", mote_method_num_inputs(&method), narrays);
        return 1;
    }
    for (i = 0; i < narrays; i++) {
        const mote_npy_t *npy = &run_inputs[i].npy;
        err = mote_method_set_input_checked(&method, i, npy->dtype, npy->shape, npy->dim, npy->data, npy->nbytes);
        if (err != MOTE_OK) {
            fprintf(stderr, "mote-run: input %u (%s%s%s)\n", i, run_input_file[i],
                    run_inputs[i].name[0] != '\0' ? ":" : "", run_inputs[i].name);
            return fail("set_input", err);
        }
    }
    (void)run_clock();
    err = mote_method_execute(&method);
    if (err != MOTE_OK) {
        fprintf(stderr, "mote-run: instruction %d failed\n", (int)mote_method_failed_instruction(&method));
        return fail("execute", err);
    }
    run_stage("execute");
    plen = strlen(prefix);
    to_npz = plen >= 4 && strcmp(prefix + plen - 4, ".npz") == 0;
    if (to_npz && mote_npz_open(&run_npz_out, prefix) != 0) {
        fprintf(stderr, "mote-run: cannot write %s\n", prefix);
        return 1;
    }
    for (i = 0; i < mote_method_num_outputs(&method); i++) {
        const mote_tensor_t *t;
        char out[4096];
        int wr;
        err = mote_method_get_output(&method, i, &t);
        if (err != MOTE_OK) {
            return fail("output", err);
        }
        if (to_npz) {
            snprintf(out, sizeof(out), "output_%u", i);
            wr = mote_npz_add(&run_npz_out, out, t->dtype, t->sizes, t->dim, t->data, t->nbytes);
        } else {
            snprintf(out, sizeof(out), "%s%u.npy", prefix, i);
            wr = mote_npy_write(out, t->dtype, t->sizes, t->dim, t->data, t->nbytes);
        }
        if (wr != 0) {
            fprintf(stderr, "mote-run: cannot write %s\n", to_npz ? prefix : out);
            return 1;
        }
        printf("output %u: dtype %u, %u elements -> %s%s%s\n", i, (unsigned)t->dtype, (unsigned)t->numel,
               to_npz ? prefix : out, to_npz ? ":" : "", to_npz ? out : "");
    }
    if (to_npz && mote_npz_close(&run_npz_out) != 0) {
        fprintf(stderr, "mote-run: cannot write %s\n", prefix);
        return 1;
    }
    if (mote_method_backend_pool_used(&method) > 0u) { /* what delegates took of the pool (aot compare reads it) */
        printf("backend pool: %lu bytes\n", (unsigned long)mote_method_backend_pool_used(&method));
    }
    return 0;
}
