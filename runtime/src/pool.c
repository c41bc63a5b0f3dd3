/* pool.c - the backend pool (mote/backend.h): a bump allocator over caller memory. */
#include "mote/backend.h"

void *mote_pool_alloc(mote_pool_t *pool, size_t size, size_t align)
{
    uintptr_t start, at;
    size_t pad;

    if (pool == NULL || pool->base == NULL || align == 0u || (align & (align - 1u)) != 0u ||
        pool->used > pool->size) {
        return NULL;
    }
    start = (uintptr_t)(pool->base + pool->used);
    at = (start + (align - 1u)) & ~(uintptr_t)(align - 1u);
    pad = (size_t)(at - start);
    /* both subtractions are checked first: no size arithmetic can wrap */
    if (pad > pool->size - pool->used || size > pool->size - pool->used - pad) {
        return NULL;
    }
    pool->used += pad + size;
    pool->peak = pool->used > pool->peak ? pool->used : pool->peak;
    return (void *)at;
}

void mote_pool_release(mote_pool_t *pool, size_t mark)
{
    if (pool != NULL && mark < pool->used) {
        pool->used = mark;
    }
}
