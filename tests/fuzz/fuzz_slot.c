/*
 * fuzz_slot.c - a program arriving in a model slot (mote/slot.h), file by file,
 * into ONE slot: every file is offered to mote_slot_load in turn, as a device
 * would be offered a new image while a model is active.
 *
 *   fuzz_slot [--arena N] [--state N] [--mutable N] [--scratch N]
 *             [--in DTYPE:D0xD1x...]... [--out DTYPE:D0x...]... [--run] file...
 *
 * Per file one line:  <code> <NAME> active=<bank> <report line>[ out=<hex>]
 * (the report line is mote_slot_report_line's; out: with --run and a model
 * active, output 0's first 32 bytes after running the active model on inputs
 * whose bytes are all 0x3f, i.e. floats of about 0.75).
 *
 * What a crash means here (ASan+UBSan build, tests/fuzz/test_fuzz_slot.py):
 *  - The image sits in read-only pages that end at a PROT_NONE guard page, and
 *    the region handed to the slot is exactly the file: a read past it or any
 *    write into it faults.
 *  - Arena, scratch, the two banks' state and mutable buffers are malloc'ed at
 *    exactly the reserved sizes: any access outside them is an ASan report.
 *  - A file refused while a model is active must leave it active and giving
 *    the same bytes: the driver checks (exit status 4 otherwise).
 *
 * libFuzzer (clang, -DMOTE_LIBFUZZER; CMake target fuzz_mote_slot with
 * -DMOTE_LIBFUZZER=ON, linked with every kernel of kernels/): each input is one
 * image in a fresh slot whose application takes and gives float32[2, 3, 4]
 * (seed it with images of such programs, e.g. test_fuzz_slot.py's), in
 * read-only pages before a guard page; an accepted image is run once.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mote/mote.h"
#include "mote/slot.h"

#define MAX_IO 8

#ifndef MOTE_LIBFUZZER /* the standalone driver's helpers */
static size_t parse_size(const char *s)
{
    return (size_t)strtoull(s, NULL, 0);
}

/* "6:1x16" -> dtype 6, sizes {1, 16}. */
static int parse_io(const char *s, mote_slot_io_t *io)
{
    char *end;
    memset(io, 0, sizeof(*io));
    io->dtype = (uint8_t)strtoul(s, &end, 10);
    if (*end != ':') {
        return -1;
    }
    s = end + 1;
    while (*s != '\0') {
        if (io->dim >= MOTE_MAX_DIM) {
            return -1;
        }
        io->sizes[io->dim++] = (int32_t)strtol(s, &end, 10);
        s = *end == 'x' ? end + 1 : end;
        if (end == s && *s != '\0') {
            return -1;
        }
    }
    return 0;
}

/* The file in read-only pages followed by a PROT_NONE guard page, 4096-aligned (so 16-aligned). */
static const uint8_t *map_readonly(const char *path, size_t *size, void **base, size_t *maplen)
{
    FILE *f = fopen(path, "rb");
    long n;
    size_t page = (size_t)sysconf(_SC_PAGESIZE), len, off;
    uint8_t *p;
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        if (f) fclose(f);
        return NULL;
    }
    len = ((size_t)n + page - 1) / page * page;
    if (len == 0) len = page;
    p = mmap(NULL, len + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        fclose(f);
        return NULL;
    }
    /* the image ends exactly at the guard page when its size allows 16-byte alignment */
    off = (len - (size_t)n) & ~(size_t)15u;
    if (fread(p + off, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        munmap(p, len + page);
        return NULL;
    }
    fclose(f);
    mprotect(p, len, PROT_READ);
    mprotect(p + len, page, PROT_NONE);
    *size = (size_t)n;
    *base = p;
    *maplen = len + page;
    return p + off;
}

#endif

/* Runs the active model on 0x3f bytes; writes output 0's first bytes (hex) to out[]. */
static mote_err_t run_active_once(mote_slot_t *s, char *out, size_t outsz)
{
    static uint8_t in[1u << 16];
    mote_method_t *m = mote_slot_method(s);
    const mote_tensor_t *t;
    uint32_t i;
    size_t k;
    if (m == NULL) {
        out[0] = '\0';
        return MOTE_OK;
    }
    memset(in, 0x3f, sizeof(in));
    for (i = 0; i < mote_method_num_inputs(m); i++) {
        MOTE_TRY(mote_method_input_tensor(m, i, &t));
        if (t->nbytes > sizeof(in)) {
            return MOTE_ERR_INPUT_SHAPE;
        }
        MOTE_TRY(mote_method_set_input(m, i, in, t->nbytes));
    }
    MOTE_TRY(mote_method_execute(m));
    if (mote_method_num_outputs(m) == 0u) {
        out[0] = '\0';
        return MOTE_OK;
    }
    MOTE_TRY(mote_method_get_output(m, 0, &t));
    for (k = 0; k < t->nbytes && k < 32u && 2u * k + 2u < outsz; k++) {
        snprintf(out + 2u * k, 3, "%02x", ((const uint8_t *)t->data)[k]);
    }
    out[2u * k] = '\0';
    return MOTE_OK;
}

/* run_active_once; a failed run writes "E<code>" to out[] (a model whose kernels refuse
 * its shapes at run time is still the active one, and refuses them again the same way). */
static mote_err_t run_active(mote_slot_t *s, char *out, size_t outsz)
{
    mote_err_t err;
    out[0] = '\0';
    err = run_active_once(s, out, outsz);
    if (err != MOTE_OK) {
        snprintf(out, outsz, "E%d", (int)err);
    }
    return err;
}

#ifndef MOTE_LIBFUZZER
/* n bytes, 16-byte aligned (malloc'ed at exactly n: ASan reports a byte past them). */
static void *alloc_exact(size_t n)
{
    void *p = NULL;
    if (n == 0u || posix_memalign(&p, 16, n) != 0) {
        return NULL;
    }
    return p;
}

#endif

#ifdef MOTE_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static mote_slot_io_t io;
    static mote_slot_t slot;
    static uint8_t arena[1u << 16] __attribute__((aligned(16)));
    static uint8_t state[2][1u << 16] __attribute__((aligned(16)));
    static uint8_t mut[2][4096] __attribute__((aligned(16)));
    static uint8_t scratch[4096] __attribute__((aligned(16)));
    mote_slot_memory_t mem;
    mote_slot_report_t report;
    char out[80], line[256];
    size_t page = (size_t)sysconf(_SC_PAGESIZE), len = (size + page - 1u) / page * page;
    uint8_t *p;
    uint32_t b;

    (void)line;
    if (len == 0u) {
        len = page;
    }
    io.dtype = 6u;
    io.dim = 3u;
    io.sizes[0] = 2;
    io.sizes[1] = 3;
    io.sizes[2] = 4;
    memset(&mem, 0, sizeof(mem));
    mem.arena.ptr = arena;
    mem.arena.size = sizeof(arena);
    mem.scratch.ptr = scratch;
    mem.scratch.size = sizeof(scratch);
    for (b = 0; b < 2u; b++) {
        mem.state[b].ptr = state[b];
        mem.state[b].size = sizeof(state[b]);
        mem.mutable_arena[b].ptr = mut[b];
        mem.mutable_arena[b].size = sizeof(mut[b]);
    }
    mem.inputs = &io;
    mem.num_inputs = 1u;
    mem.outputs = &io;
    mem.num_outputs = 1u;
    if (mote_slot_init(&slot, &mem) != MOTE_OK) {
        abort();
    }
    p = mmap(NULL, len + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        return 0;
    }
    {
        size_t off = (len - size) & ~(size_t)15u; /* end at the guard page, 16-byte aligned */
        memcpy(p + off, data, size);
        mprotect(p, len, PROT_READ);
        mprotect(p + len, page, PROT_NONE);
        if (mote_slot_load(&slot, p + off, size, &report) == MOTE_OK) {
            (void)run_active(&slot, out, sizeof(out));
        }
        (void)mote_slot_report_line(&report, line, sizeof(line));
    }
    munmap(p, len + page);
    return 0;
}
#else
int main(int argc, char **argv)
{
    static mote_slot_io_t ins[MAX_IO], outs[MAX_IO];
    static mote_slot_t slot;
    mote_slot_memory_t mem;
    size_t arena = 4096, state = 8192, mut = 0, scratch = 0;
    uint32_t nin = 0, nout = 0, b;
    int run = 0, i, status = 0;
    char line[256], before[80], after[80];

    for (i = 1; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        if (strcmp(argv[i], "--run") == 0) {
            run = 1;
        } else if (i + 1 < argc && strcmp(argv[i], "--arena") == 0) {
            arena = parse_size(argv[++i]);
        } else if (i + 1 < argc && strcmp(argv[i], "--state") == 0) {
            state = parse_size(argv[++i]);
        } else if (i + 1 < argc && strcmp(argv[i], "--mutable") == 0) {
            mut = parse_size(argv[++i]);
        } else if (i + 1 < argc && strcmp(argv[i], "--scratch") == 0) {
            scratch = parse_size(argv[++i]);
        } else if (i + 1 < argc && strcmp(argv[i], "--in") == 0 && nin < MAX_IO) {
            if (parse_io(argv[++i], &ins[nin++]) != 0) return 2;
        } else if (i + 1 < argc && strcmp(argv[i], "--out") == 0 && nout < MAX_IO) {
            if (parse_io(argv[++i], &outs[nout++]) != 0) return 2;
        } else {
            fprintf(stderr, "fuzz_slot: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    memset(&mem, 0, sizeof(mem));
    mem.arena.ptr = alloc_exact(arena);
    mem.arena.size = arena;
    mem.scratch.ptr = alloc_exact(scratch);
    mem.scratch.size = scratch;
    for (b = 0; b < 2u; b++) {
        mem.state[b].ptr = alloc_exact(state);
        mem.state[b].size = state;
        mem.mutable_arena[b].ptr = alloc_exact(mut);
        mem.mutable_arena[b].size = mut;
    }
    mem.inputs = ins;
    mem.num_inputs = nin;
    mem.outputs = outs;
    mem.num_outputs = nout;
    if (mote_slot_init(&slot, &mem) != MOTE_OK) {
        return 2;
    }
    for (; i < argc; i++) {
        size_t size = 0, maplen = 0;
        void *base = NULL;
        const uint8_t *image = map_readonly(argv[i], &size, &base, &maplen);
        mote_slot_report_t report;
        mote_err_t err, rerr = MOTE_OK;
        int32_t was = slot.active;
        if (image == NULL) {
            printf("-1 NO_FILE active=%d %s\n", (int)slot.active, argv[i]);
            continue;
        }
        before[0] = '\0';
        if (run && was >= 0) {
            rerr = run_active(&slot, before, sizeof(before));
        }
        err = mote_slot_load(&slot, image, size, &report);
        mote_slot_report_line(&report, line, sizeof(line));
        printf("%d %s active=%d %s", (int)err, mote_err_name(err), (int)slot.active, line);
        if (run && slot.active >= 0) {
            rerr = run_active(&slot, after, sizeof(after));
            printf(" out=%s run=%d", after, (int)rerr);
            if (err != MOTE_OK && (slot.active != was || strcmp(before, after) != 0)) {
                printf(" PREVIOUS_MODEL_CHANGED");
                status = 4;
            }
        }
        printf("\n");
        fflush(stdout);
        /* an image stays mapped while it may be the active model's (it is used in place) */
        if (slot.active < 0 || err != MOTE_OK) {
            munmap(base, maplen);
        }
    }
    return status;
}
#endif /* MOTE_LIBFUZZER */
