#include "CMallocCounter.h"

#if defined(__linux__) && defined(__GLIBC__)
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

static _Atomic uint64_t allocations;

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

void *malloc(size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL && size != 0) return ENOMEM;
    *result = pointer;
    return 0;
}

uint64_t almanac_allocation_count(void) { return atomic_load_explicit(&allocations, memory_order_relaxed); }
int almanac_allocation_counting_supported(void) { return 1; }
#else
uint64_t almanac_allocation_count(void) { return 0; }
int almanac_allocation_counting_supported(void) { return 0; }
#endif
