/* registry_empty.c - an empty kernel registry, for builds without kernels/. */
#include "mote/kernel.h"

const mote_kernel_entry_t mote_kernel_registry[1] = {{NULL, NULL}};
const uint32_t mote_kernel_registry_len = 0u;
