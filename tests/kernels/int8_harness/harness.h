/* Harness services (startup.c). */
#ifndef MOTE_INT8_HARNESS_H
#define MOTE_INT8_HARNESS_H
#include <stdint.h>
void harness_puts(const char *s);
void harness_exit(int code);
void harness_ticks_start(void);
uint32_t harness_ticks(void);
void harness_spin(uint32_t n);
#endif
