/*
 * mote/port.h - the few functions a port provides to the runtime.
 *
 * The runtime core calls mote_port_log only when compiled with MOTE_LOG
 * (through MOTE_LOGF) and mote_port_ticks only when compiled with MOTE_TRACE
 * (mote/trace.h); with both off the core references no port symbol.
 * ports/linux/port_linux.c is the host implementation; firmware ports
 * (ports/cortex-m, ...) provide their own.
 */
#ifndef MOTE_PORT_H
#define MOTE_PORT_H

#include "mote/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Writes one log line (printf-style format, no trailing newline needed). */
void mote_port_log(const char *fmt, ...);

/**
 * A free-running 32-bit tick counter that wraps: DWT CYCCNT core cycles on
 * Cortex-M silicon, exact instruction counts under QEMU -icount, CLOCK_MONOTONIC
 * nanoseconds on Linux.
 */
uint32_t mote_port_ticks(void);

/** Stops the program after an unrecoverable error; does not return. */
void mote_port_abort(void);

#ifdef MOTE_LOG
#define MOTE_LOGF(...) mote_port_log(__VA_ARGS__)
#else
#define MOTE_LOGF(...) ((void)0)
#endif

#ifdef __cplusplus
}
#endif
#endif /* MOTE_PORT_H */
