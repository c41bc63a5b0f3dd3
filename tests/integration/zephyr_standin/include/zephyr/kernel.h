/*
 * STAND-IN, not Zephyr's header: declarations of the few kernel functions
 * Mote's Zephyr port and sample call, with Zephyr's names and signatures, so
 * that their sources compile outside a Zephyr tree. Nothing here is
 * implemented; a stand-in build compiles and never links against Zephyr.
 * (In Zephyr k_cycle_get_32 is an inline over the timer driver and k_panic a
 * macro over the architecture's fatal-error path.)
 */
#ifndef ZEPHYR_STANDIN_KERNEL_H
#define ZEPHYR_STANDIN_KERNEL_H

#include <stdint.h>

uint32_t k_cycle_get_32(void);

void zephyr_standin_k_panic(void) __attribute__((noreturn));
#define k_panic() zephyr_standin_k_panic()

#endif /* ZEPHYR_STANDIN_KERNEL_H */
