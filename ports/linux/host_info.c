/* host_info.c - sizes of the runtime's caller-allocated structs, for bindings (aot/host/runtime.py). */
#include "mote/data_map.h"
#include "mote/method.h"

size_t mote_host_sizeof_program(void);
size_t mote_host_sizeof_method(void);
size_t mote_host_sizeof_data_map(void);
uint32_t mote_host_max_arenas(void);

size_t mote_host_sizeof_program(void)
{
    return sizeof(mote_program_t);
}

size_t mote_host_sizeof_method(void)
{
    return sizeof(mote_method_t);
}

uint32_t mote_host_max_arenas(void)
{
    return MOTE_MAX_ARENAS;
}

size_t mote_host_sizeof_data_map(void)
{
    return sizeof(mote_data_map_t);
}
