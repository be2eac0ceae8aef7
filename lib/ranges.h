/* SPDX-License-Identifier: MIT */
/*
 * A set of disjoint address ranges kept sorted, for the registries of
 * cuMemAlloc and host allocations: lookups by any address inside a range
 * in O(log n).  Each element starts with a struct libcumc_range; the
 * caller holds its own lock around every call.
 */
#ifndef _CUMC_LIB_RANGES_H
#define _CUMC_LIB_RANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct libcumc_range {
	uintptr_t base;
	size_t size;
};

struct libcumc_ranges {
	void *items;
	size_t count, capacity;
	size_t elem_size;	/* >= sizeof(struct libcumc_range) */
};

#define LIBCUMC_RANGES_INIT(type) { .elem_size = sizeof(type) }

/* The element whose range holds @addr, or NULL. */
void *libcumc_ranges_find(const struct libcumc_ranges *set, uintptr_t addr);
/* Copies @elem in; false when memory runs out or it overlaps another. */
bool libcumc_ranges_insert(struct libcumc_ranges *set, const void *elem);
/* @elem: what libcumc_ranges_find returned; later pointers move. */
void libcumc_ranges_remove(struct libcumc_ranges *set, void *elem);
/* Forget every element (a forked child: the parent's are not its). */
void libcumc_ranges_clear(struct libcumc_ranges *set);

#endif /* _CUMC_LIB_RANGES_H */
