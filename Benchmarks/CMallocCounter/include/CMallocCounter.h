// Counts heap allocations made by this process, for the benchmarks'
// "allocations per component" figure.
//
// The executable that links this target defines malloc, calloc, realloc,
// posix_memalign, aligned_alloc and memalign; glibc's dynamic linker binds
// every library's calls to them, so Swift's runtime allocations are counted
// too. Each forwards to glibc's own implementation (__libc_malloc and
// friends), so behaviour is unchanged apart from one atomic increment.
#ifndef ALMANAC_CMALLOCCOUNTER_H
#define ALMANAC_CMALLOCCOUNTER_H

#include <stdint.h>

/// Allocations made since the process started (malloc, calloc, realloc of a
/// new or moved block, and the aligned variants). Zero where interposition is
/// not supported (anything but glibc).
uint64_t almanac_allocation_count(void);

/// Whether allocations are actually being counted on this platform.
int almanac_allocation_counting_supported(void);

#endif
