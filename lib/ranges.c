// SPDX-License-Identifier: MIT
/*
 * Sorted disjoint ranges: a binary search over an array, which stays small
 * (one element per live allocation) and is cheap to scan.
 */
#include <stdlib.h>
#include <string.h>

#include "ranges.h"

static struct libcumc_range *libcumc_ranges_at(const struct libcumc_ranges *set,
					       size_t i)
{
	char *items = set->items;

	return (struct libcumc_range *)(items + i * set->elem_size);
}

/* The number of elements whose base is <= @addr. */
static size_t libcumc_ranges_upper(const struct libcumc_ranges *set,
				   uintptr_t addr)
{
	size_t lo = 0, hi = set->count, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (libcumc_ranges_at(set, mid)->base <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void *libcumc_ranges_find(const struct libcumc_ranges *set, uintptr_t addr)
{
	size_t i = libcumc_ranges_upper(set, addr);
	struct libcumc_range *r;

	if (!i)
		return NULL;
	r = libcumc_ranges_at(set, i - 1);
	return addr - r->base < r->size ? r : NULL;
}

static bool libcumc_ranges_grow(struct libcumc_ranges *set)
{
	size_t capacity = set->capacity ? 2 * set->capacity : 16;
	void *items = reallocarray(set->items, capacity, set->elem_size);

	if (!items)
		return false;
	set->items = items;
	set->capacity = capacity;
	return true;
}

bool libcumc_ranges_insert(struct libcumc_ranges *set, const void *elem)
{
	const struct libcumc_range *r = elem;
	struct libcumc_range *prev, *next;
	size_t i = libcumc_ranges_upper(set, r->base);

	if (!r->size || r->base + r->size < r->base)
		return false;
	prev = i ? libcumc_ranges_at(set, i - 1) : NULL;
	next = i < set->count ? libcumc_ranges_at(set, i) : NULL;
	if ((prev && r->base - prev->base < prev->size) ||
	    (next && next->base - r->base < r->size))
		return false;
	if (set->count == set->capacity && !libcumc_ranges_grow(set))
		return false;
	memmove(libcumc_ranges_at(set, i + 1), libcumc_ranges_at(set, i),
		(set->count - i) * set->elem_size);
	memcpy(libcumc_ranges_at(set, i), elem, set->elem_size);
	set->count++;
	return true;
}

void libcumc_ranges_remove(struct libcumc_ranges *set, void *elem)
{
	size_t i = ((char *)elem - (char *)set->items) / set->elem_size;

	memmove(elem, libcumc_ranges_at(set, i + 1),
		(set->count - i - 1) * set->elem_size);
	set->count--;
}

void libcumc_ranges_clear(struct libcumc_ranges *set)
{
	free(set->items);
	set->items = NULL;
	set->count = set->capacity = 0;
}
