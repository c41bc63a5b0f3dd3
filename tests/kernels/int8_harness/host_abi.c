/*
 * Host-side ABI probe for the int8 kernel tests: sizes and offsets of the
 * structs the Python ctypes mirror must match.
 */
#include <stddef.h>

#include "mote/kernel.h"

size_t mote_test_abi(int what);

size_t mote_test_abi(int what)
{
    switch (what) {
    case 0: return sizeof(mote_tensor_t);
    case 1: return sizeof(mote_value_t);
    case 2: return offsetof(mote_value_t, u);
    case 3: return offsetof(mote_tensor_t, numel);
    case 4: return offsetof(mote_tensor_t, dim);
    case 5: return sizeof(mote_kernel_ctx_t);
    default: return 0;
    }
}
