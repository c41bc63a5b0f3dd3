/*
 * abi_probe.c - element sizes of the runtime state's regions on a target ABI.
 *
 * `aot build` compiles this file for the board (never links it) and reads
 * mote_abi_sizes from the object with pyelftools, to turn the host library's
 * mote_method_state_counts() into the target's exact state bytes. Order:
 * MOTE_STATE_REGIONS regions as documented in mote/method.h.
 */
#include "mote/method.h"

extern const uint32_t mote_abi_sizes[MOTE_STATE_REGIONS];
const uint32_t mote_abi_sizes[MOTE_STATE_REGIONS] = {
    (uint32_t)sizeof(mote_value_t),
    (uint32_t)sizeof(mote_tensor_t),
    (uint32_t)sizeof(int64_t),
    (uint32_t)sizeof(mote_tensor_t *),
    (uint32_t)sizeof(mote_instr_t),
    (uint32_t)sizeof(mote_value_t *),
};
