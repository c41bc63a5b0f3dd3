/*
 * tests/kernels/abi_helper.c - exported layout facts of the kernel ABI structs,
 * so the ctypes mirror in kernels_ffi.py fails loudly on a mismatch.
 */
#include <stddef.h>

#include "mote/kernel.h"

size_t mote_test_layout(int what);

size_t mote_test_layout(int what)
{
    switch (what) {
    case 0: return sizeof(mote_tensor_t);
    case 1: return sizeof(mote_value_t);
    case 2: return offsetof(mote_value_t, u);
    case 3: return offsetof(mote_tensor_t, numel);
    case 4: return offsetof(mote_tensor_t, dim);
    case 5: return offsetof(mote_tensor_t, dtype);
    case 6: return sizeof(mote_kernel_ctx_t);
    case 7: return sizeof(mote_kernel_entry_t);
    default: return 0;
    }
}
