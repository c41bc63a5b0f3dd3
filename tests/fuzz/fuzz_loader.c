/*
 * fuzz_loader.c - fuzz target for the loader and the method verifier.
 *
 * libFuzzer:  clang -fsanitize=fuzzer,address,undefined -DMOTE_LIBFUZZER ...
 *             (LLVMFuzzerTestOneInput below is the entry point)
 * Standalone: without MOTE_LIBFUZZER a main() runs each file named on the
 *             command line and prints "<code> <NAME>" per file; the pytest
 *             mutation loop (tests/fuzz/test_fuzz.py) uses this under ASan+UBSan.
 * Linked with the test registry (tests/runtime/test_kernels.c: add, mul,
 * relu), so init of programs made of those ops verifies every instruction;
 * other programs stop at the first missing operator (MOTE_ERR_OP_NOT_FOUND)
 * after the values and the memory plan are verified. Nothing is executed
 * (a mutated JumpFalseCall may loop forever, as it may in ExecuTorch).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mote/mote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_BYTES ((size_t)64 << 20)


static mote_err_t fuzz_one(const uint8_t *data, size_t size)
{
    mote_program_t prog;
    mote_method_t m;
    mote_method_requirements_t req;
    mote_memory_t mem;
    uint8_t *copy;
    uint32_t i, k, n;
    mote_err_t err, first = MOTE_OK;

    /* the loader needs a 16-byte aligned buffer; malloc gives one, exactly sized */
    copy = (uint8_t *)malloc(size == 0 ? 1 : size);
    if (copy == NULL) {
        return MOTE_ERR_MEMORY_TOO_SMALL;
    }
    if (size != 0) {
        memcpy(copy, data, size);
    }
    err = mote_program_load(&prog, copy, size);
    n = err == MOTE_OK ? mote_program_method_count(&prog) : 0u;
    first = err;
    for (k = 0; k < n && k < 4u; k++) {
        const char *name;
        memset(&mem, 0, sizeof(mem));
        err = mote_program_method_name(&prog, k, &name);
        if (err == MOTE_OK) {
            err = mote_method_memory_requirements(&prog, k, &req);
        }
        if (err == MOTE_OK && req.state_size <= FUZZ_MAX_BYTES) {
            mem.state.ptr = malloc(req.state_size == 0 ? 1 : req.state_size);
            mem.state.size = req.state_size;
            mem.num_arenas = req.num_arenas;
            for (i = 0; i < req.num_arenas; i++) {
                mem.arenas[i].size = req.arena_size[i] <= FUZZ_MAX_BYTES ? req.arena_size[i] : 0;
                mem.arenas[i].ptr = malloc(mem.arenas[i].size == 0 ? 1 : mem.arenas[i].size);
            }
            err = mote_method_init(&m, &prog, k, &mem);
            free(mem.state.ptr);
            for (i = 0; i < req.num_arenas; i++) {
                free(mem.arenas[i].ptr);
            }
        }
        if (k == 0) {
            first = err;
        }
    }
    free(copy);
    return first;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)fuzz_one(data, size);
    return 0;
}

#ifndef MOTE_LIBFUZZER
int main(int argc, char **argv)
{
    int a;
    for (a = 1; a < argc; a++) {
        FILE *f = fopen(argv[a], "rb");
        long n;
        uint8_t *buf;
        mote_err_t err;
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
        err = fuzz_one(buf, (size_t)n);
        (void)LLVMFuzzerTestOneInput(buf, (size_t)n);
        printf("%d %s\n", (int)err, mote_err_name(err));
        free(buf);
    }
    return 0;
}
#endif
