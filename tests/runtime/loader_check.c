/*
 * loader_check - load + init (+ optionally execute) .pte files through the
 * runtime and print one line per file:  <code> <NAME> <stage>
 * where stage is load|requirements|init|input|execute|ok.
 *
 *   loader_check [--run] [--state-delta N] [--write-probe] file...
 *
 * The program bytes live in read-only pages (mmap + mprotect PROT_READ),
 * followed by an inaccessible guard page; under ASan the bytes between the
 * file's end and the guard page are poisoned too, so any read past the file
 * and any write into it is caught. A write into the program makes the checker
 * print "PROGRAM_WRITE_FAULT" and exit with status 3 (a distinct failure);
 * --write-probe does such a write on purpose after loading each file, which
 * proves the pages really are read-only.
 *
 * --run sets every tensor input to zeros (mote_method_set_input) and executes.
 * Memory for state and arenas is malloc'ed at exactly the required sizes
 * (outside the runtime), so ASan catches any access past them. Linked with
 * -Wl,--wrap=malloc,... : calls made while the runtime runs are counted and
 * printed at the end as "heap_calls <n>".
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mote/mote.h"

#if defined(__SANITIZE_ADDRESS__)
#define CHECK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CHECK_ASAN 1
#endif
#endif
#ifdef CHECK_ASAN
#include <sanitizer/asan_interface.h>
#endif

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
#define CHECK_WRITE_FAULT_STATUS 3

/* The current program mapping: [map, map + map_size), data pages read-only, last page PROT_NONE. */
static uint8_t *volatile map;
static volatile size_t map_size;
/* The handlers installed before ours (the sanitizer's), for every other fault. */
static struct sigaction old_segv, old_bus;

static void on_segv(int sig, siginfo_t *info, void *ctx)
{
    static const char msg[] = "PROGRAM_WRITE_FAULT\n";
    const uintptr_t a = (uintptr_t)info->si_addr, lo = (uintptr_t)map;
    if (map != NULL && a >= lo && a - lo < map_size) {
        if (write(STDOUT_FILENO, msg, sizeof msg - 1u) < 0) {
            _exit(CHECK_WRITE_FAULT_STATUS + 1);
        }
        _exit(CHECK_WRITE_FAULT_STATUS);
    }
    /* any other fault: the previous handler (the sanitizer's report), else the default action */
    {
        const struct sigaction *old = sig == SIGBUS ? &old_bus : &old_segv;
        if ((old->sa_flags & SA_SIGINFO) != 0 && old->sa_sigaction != NULL) {
            old->sa_sigaction(sig, info, ctx);
        } else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN && old->sa_handler != NULL) {
            old->sa_handler(sig);
        }
        signal(sig, SIG_DFL);
        raise(sig);
    }
}

/*
 * Copies `n` bytes of `src` into fresh read-only pages (16-byte aligned start,
 * guard page after). Returns the program pointer or NULL.
 */
static const uint8_t *program_map(const uint8_t *src, size_t n)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t data_pages = (n + page - 1u) / page + 1u; /* at least one readable page */
    uint8_t *p;

    map_size = (data_pages + 1u) * page;
    p = (uint8_t *)mmap(NULL, map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        map = NULL;
        return NULL;
    }
    if (n != 0u) {
        memcpy(p, src, n);
    }
    if (mprotect(p, data_pages * page, PROT_READ) != 0 || mprotect(p + data_pages * page, page, PROT_NONE) != 0) {
        munmap(p, map_size);
        map = NULL;
        return NULL;
    }
#ifdef CHECK_ASAN
    ASAN_POISON_MEMORY_REGION(p + n, data_pages * page - n); /* past the file's end */
#endif
    map = p;
    return p;
}

static void program_unmap(void)
{
    if (map != NULL) {
#ifdef CHECK_ASAN
        ASAN_UNPOISON_MEMORY_REGION(map, map_size);
#endif
        munmap((void *)map, map_size);
        map = NULL;
    }
}

static void *exact_alloc(size_t size)
{
    /* ASan's malloc returns 16-byte aligned blocks; so does glibc on x86_64 */
    return malloc(size == 0 ? 1 : size);
}

/* Zeros into every tensor input. */
static mote_err_t zero_inputs(mote_method_t *m)
{
    uint32_t i, n = mote_method_num_inputs(m);
    mote_err_t err = MOTE_OK;

    for (i = 0; i < n && err == MOTE_OK; i++) {
        const mote_value_t *v;
        err = mote_method_input_value(m, i, &v);
        if (err == MOTE_OK && v->tag == MOTE_TAG_TENSOR) {
            void *zeros = calloc(1, v->u.t->nbytes == 0u ? 1u : v->u.t->nbytes);
            counting = 1;
            err = mote_method_set_input(m, i, zeros, v->u.t->nbytes);
            counting = 0;
            free(zeros);
        }
    }
    return err;
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
        err = zero_inputs(&m);
        if (err != MOTE_OK) {
            stage = "input";
        } else {
            counting = 1;
            err = mote_method_execute(&m);
            counting = 0;
            if (err != MOTE_OK) {
                stage = "execute";
            }
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
    int a, run = 0, probe = 0;
    long delta = 0;
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, &old_segv) != 0 || sigaction(SIGBUS, &sa, &old_bus) != 0) {
        fprintf(stderr, "loader_check: cannot install the fault handler\n");
        return 1;
    }
    for (a = 1; a < argc; a++) {
        FILE *f;
        long n;
        uint8_t *buf;
        const uint8_t *prog;
        mote_err_t code = MOTE_OK;
        const char *stage;

        if (strcmp(argv[a], "--run") == 0) {
            run = 1;
            continue;
        }
        if (strcmp(argv[a], "--write-probe") == 0) {
            probe = 1;
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
        buf = (uint8_t *)malloc(n == 0 ? 1 : (size_t)n);
        if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
            fprintf(stderr, "loader_check: cannot read %s\n", argv[a]);
            return 1;
        }
        fclose(f);
        prog = program_map(buf, (size_t)n);
        free(buf);
        if (prog == NULL) {
            fprintf(stderr, "loader_check: cannot map %s\n", argv[a]);
            return 1;
        }
        if (probe) {
            fflush(stdout);
            ((volatile uint8_t *)(uintptr_t)prog)[0] ^= 1u; /* must fault */
            printf("PROGRAM_WRITABLE\n");
            return 2;
        }
        stage = check_one(prog, (size_t)n, run, delta, &code);
        printf("%d %s %s\n", (int)code, mote_err_name(code), stage);
        fflush(stdout);
        program_unmap();
    }
    printf("heap_calls %lu\n", heap_calls);
    return 0;
}
