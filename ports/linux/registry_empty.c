/* registry_empty.c - an empty kernel registry, for builds without kernels/. */
#include "mote/backend.h"
#include "mote/kernel.h"

const mote_kernel_entry_t mote_kernel_registry[1] = {{NULL, NULL}};
const uint8_t mote_kernel_registry_outputs[1] = {0u};
const uint32_t mote_kernel_registry_len = 0u;
const mote_backend_t *const mote_backend_registry[1] = {NULL};
const uint32_t mote_backend_registry_len = 0u;
