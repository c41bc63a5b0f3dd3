/*
 * mote/trace.h - the event tracer: a start and end tick around every
 * instruction of mote_method_execute, written into a caller's buffer.
 *
 * Compiled in only with MOTE_TRACE defined when the runtime is built.
 * Without it this header declares nothing and the execute loop has no
 * tracing code: zero bytes of code, zero cycles; mote_method_t keeps its one
 * `tracer` pointer (NULL) in every build, so an application compiled
 * without MOTE_TRACE can use a runtime built with it and the reverse. The
 * Linux host library (libmote.so) is built with MOTE_TRACE; firmware only
 * when `aot build --trace profile|debug` asks for it.
 *
 * Ticks come from mote_port_ticks() (mote/port.h): DWT CYCCNT core cycles on
 * Cortex-M silicon, exact instruction counts under QEMU -icount shift=0
 * (ports/cortex-m/cycles.c), CLOCK_MONOTONIC nanoseconds on Linux. They are
 * 32-bit and wrap: take differences modulo 2^32 (end - start in uint32_t).
 *
 * One event per executed instruction, in execution order (a JumpFalse loop
 * repeats indices). When the buffer is full, later instructions are counted
 * in `dropped` and not recorded; execution is never affected.
 */
#ifndef MOTE_TRACE_H
#define MOTE_TRACE_H

#ifdef MOTE_TRACE

#include "mote/types.h"

#ifdef __cplusplus
extern "C" {
#endif

struct mote_method;

/** One executed instruction. */
typedef struct mote_trace_event {
    uint32_t instr; /* instruction index in the method's chain */
    uint32_t start; /* mote_port_ticks() just before the instruction ran */
    uint32_t end;   /* mote_port_ticks() just after it */
} mote_trace_event_t;

/**
 * Called after instruction `instr` has run (after its end tick was taken, so
 * the time it spends is not in any event, but it is in run_end - run_start).
 * A numerical debugger reads the instruction's outputs here through
 * mote_method_value(). It must not change the method.
 */
typedef void (*mote_trace_fn_t)(void *user, const struct mote_method *m, uint32_t instr);

/** A tracer; the caller owns it and its event buffer (no heap). */
typedef struct mote_tracer {
    mote_trace_event_t *events; /* caller's buffer of `capacity` entries, or NULL */
    uint32_t capacity;          /* entries in events */
    uint32_t count;             /* events written by the last execute */
    uint32_t dropped;           /* instructions of the last execute that did not fit */
    uint32_t run_start;         /* ticks at the start of the last execute */
    uint32_t run_end;           /* ticks at its end */
    uint32_t overhead;          /* ticks between two back-to-back mote_port_ticks()
                                   calls, measured at the start of each execute;
                                   every event's end - start includes it once */
    mote_trace_fn_t after;      /* optional per-instruction callback, or NULL */
    void *user;                 /* passed to `after` */
} mote_tracer_t;

/**
 * Attaches `t` to the initialised method `m` (NULL detaches). Each later
 * mote_method_execute resets t->count and t->dropped, then records. Errors:
 * NOT_INITIALIZED, INVALID_ARGUMENT (events NULL with a non-zero capacity).
 */
MOTE_NODISCARD mote_err_t mote_method_set_tracer(struct mote_method *m, mote_tracer_t *t);

#ifdef __cplusplus
}
#endif

#endif /* MOTE_TRACE */
#endif /* MOTE_TRACE_H */
