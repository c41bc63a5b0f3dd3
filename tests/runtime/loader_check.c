/*
 * loader_check - load + init (+ optionally execute) .pte files through the
 * runtime and print one line per file:  <code> <NAME> <stage>
 * where stage is load|requirements|init|execute|ok.
 *
 *   loader_check [--run] [--state-delta N] file...
 *
 * Memory for state and arenas is malloc'ed at exactly the required sizes
 * (outside the runtime), so ASan catches any access past them. Linked with
 * -Wl,--wrap=malloc,... : calls made while the runtime runs are counted and
 * printed at the end as "heap_calls <n>".
 */
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mote/mote.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);

static int counting;
static unsigned long heap_calls;

void *__wrap_malloc(size_t n)
{
    heap_calls += (unsigned long)counting;
    return __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t m)
{
    heap_calls += (unsigned long)counting;
    return __real_calloc(n, m);
}
void *__wrap_realloc(void *p, size_t n)
{
    heap_calls += (unsigned long)counting;
    return __real_realloc(p, n);
}
void __wrap_free(void *p)
{
    heap_calls += (unsigned long)counting;
    __real_free(p);
}

#define CHECK_MAX_BYTES ((size_t)256 << 20)

static void *exact_alloc(size_t size)
{
    /* ASan's malloc returns 16-byte aligned blocks; so does glibc on x86_64 */
    return malloc(size == 0 ? 1 : size);
}

static const char *check_one(const uint8_t *data, size_t size, int run, long delta, mote_err_t *code)
{
    mote_program_t prog;
    mote_method_t m;
    mote_method_requirements_t req;
    mote_memory_t mem;
    uint32_t i;
    mote_err_t err;
    const char *stage = "ok";

    memset(&mem, 0, sizeof(mem));
    counting = 1;
    err = mote_program_load(&prog, data, size);
    counting = 0;
    if (err != MOTE_OK) {
        *code = err;
        return "load";
    }
    counting = 1;
    err = mote_method_memory_requirements(&prog, 0, &req);
    counting = 0;
    if (err != MOTE_OK) {
        *code = err;
        return "requirements";
    }
    if (req.state_size > CHECK_MAX_BYTES) {
        *code = MOTE_ERR_MEMORY_TOO_SMALL;
        return "requirements";
    }
    mem.state.size = (size_t)((long)req.state_size + delta);
    mem.state.ptr = exact_alloc(mem.state.size);
    mem.num_arenas = req.num_arenas;
    for (i = 0; i < req.num_arenas; i++) {
        mem.arenas[i].size = req.arena_size[i] <= CHECK_MAX_BYTES ? req.arena_size[i] : 0;
        mem.arenas[i].ptr = exact_alloc(mem.arenas[i].size);
    }
    counting = 1;
    err = mote_method_init(&m, &prog, 0, &mem);
    counting = 0;
    if (err != MOTE_OK) {
        stage = "init";
    } else if (run) {
        counting = 1;
        err = mote_method_execute(&m);
        counting = 0;
        if (err != MOTE_OK) {
            stage = "execute";
        }
    }
    free(mem.state.ptr);
    for (i = 0; i < req.num_arenas; i++) {
        free(mem.arenas[i].ptr);
    }
    *code = err;
    return stage;
}

int main(int argc, char **argv)
{
    int a, run = 0;
    long delta = 0;

    for (a = 1; a < argc; a++) {
        FILE *f;
        long n;
        uint8_t *buf;
        mote_err_t code = MOTE_OK;
        const char *stage;

        if (strcmp(argv[a], "--run") == 0) {
            run = 1;
            continue;
        }
        if (strcmp(argv[a], "--state-delta") == 0 && a + 1 < argc) {
            delta = strtol(argv[++a], NULL, 10);
            continue;
        }
        f = fopen(argv[a], "rb");
        if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
            fprintf(stderr, "loader_check: cannot read %s\n", argv[a]);
            return 1;
        }
        /* exactly-sized copy: ASan flags any read past the end of the file */
        buf = (uint8_t *)malloc(n == 0 ? 1 : (size_t)n);
        if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
            fprintf(stderr, "loader_check: cannot read %s\n", argv[a]);
            return 1;
        }
        fclose(f);
        stage = check_one(buf, (size_t)n, run, delta, &code);
        printf("%d %s %s\n", (int)code, mote_err_name(code), stage);
        free(buf);
    }
    printf("heap_calls %lu\n", heap_calls);
    return 0;
}
