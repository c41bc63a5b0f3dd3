/*
 * mote/backend.h - delegates: backends that run the subgraphs a program hands
 * them (ExecuTorch's delegation: ExecutionPlan.delegates holds
 * BackendDelegate{id, processed, compile_specs}; a DelegateCall instruction
 * names one and lists its arguments, the subgraph's inputs then outputs).
 *
 * A backend is a constant table entry (mote_backend_t). The build's backend
 * registry, mote_backend_registry[], is generated with the kernel registry
 * (kernels/gen_registry.py --backend SYMBOL): only the backends a build names
 * are linked, and a DelegateCall to any other id fails mote_method_init with
 * MOTE_ERR_NO_SUCH_BACKEND.
 *
 * Memory: a backend takes memory only from the caller. mote_memory_t.backend
 * (mote/method.h) is the method's backend pool; every allocation a backend
 * makes, at init and at execute, comes from it through mote_pool_alloc, and
 * runs out with MOTE_ERR_BACKEND_MEMORY rather than reaching for the heap.
 * How much a backend needs depends on the library behind it (XNNPACK packs
 * weights and sizes its workspace itself): the host reports the pool's high
 * water mark (mote_method_backend_pool_used) so a caller can size it.
 *
 * Verification follows the runtime's rules: init hands the backend its
 * payload (bounds checked inside the program) and the call's arguments; the
 * backend must read the payload with a verifying reader, refuse what it
 * cannot run (MOTE_ERR_BACKEND_PAYLOAD) and check every argument's dtype and
 * byte size against the tensors its payload declares. It reports how many
 * trailing arguments it writes; init proves those writable planned memory
 * (the write proof of mote/method.h) before the method may run.
 */
#ifndef MOTE_BACKEND_H
#define MOTE_BACKEND_H

#include "mote/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A bump allocator over caller memory: [base, base + size) bytes, `used` taken, `peak` its maximum. */
typedef struct mote_pool {
    uint8_t *base;
    size_t size;
    size_t used;
    size_t peak;
} mote_pool_t;

/**
 * `size` bytes aligned to `align` (a power of two) from `pool`, or NULL when
 * the pool is too small (or align is not a power of two). Memory is given
 * back only by mote_pool_release (or by re-initialising the method).
 */
void *mote_pool_alloc(mote_pool_t *pool, size_t size, size_t align);

/** Gives back everything allocated after `mark` (a former pool->used); a no-op for a later mark. */
void mote_pool_release(mote_pool_t *pool, size_t mark);

/** What a backend's init gets for one DelegateCall. */
typedef struct mote_delegate_init {
    const uint8_t *payload;       /* BackendDelegate.processed bytes, inside the program (read-only) */
    size_t payload_size;          /* bytes */
    mote_value_t *const *args;    /* the call's arguments (value table entries), inputs then outputs */
    uint32_t nargs;
    mote_pool_t *pool;            /* the method's backend pool: the only memory the backend may take */
    const struct mote_program *prog; /* the program, for named data (mote_program_named_data) */
    uint32_t num_outputs;         /* set by init: the trailing arguments the backend writes */
} mote_delegate_init_t;

/** One backend: what the registry holds. */
typedef struct mote_backend {
    /** The id programs name it by (BackendDelegate.id, e.g. "XnnpackBackend"). */
    const char *id;
    /**
     * Reads and verifies the payload, prepares the subgraph for the call's
     * arguments, sets ctx->num_outputs and *handle (memory from ctx->pool).
     * Errors: BACKEND_PAYLOAD, BACKEND_MEMORY, KERNEL_ARGS / KERNEL_DTYPE /
     * KERNEL_SHAPE (arguments differ from the payload's tensors).
     */
    mote_err_t (*init)(mote_delegate_init_t *ctx, void **handle);
    /** Runs the subgraph on the arguments init saw. Errors: BACKEND_FAILED, BACKEND_MEMORY. */
    mote_err_t (*execute)(void *handle, mote_value_t *const *args, uint32_t nargs);
    /** Releases what the library behind the backend holds (its memory is the pool's). */
    void (*destroy)(void *handle);
} mote_backend_t;

/** The build's backends (generated: kernels/gen_registry.py); NULL entries are skipped. */
extern const mote_backend_t *const mote_backend_registry[];
/** Number of entries in mote_backend_registry. */
extern const uint32_t mote_backend_registry_len;

#ifdef __cplusplus
}
#endif
#endif /* MOTE_BACKEND_H */
