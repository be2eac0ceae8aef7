// SPDX-License-Identifier: GPL-2.0
/*
 * Range maps: non-overlapping ranges of u64, each found by any address in
 * it. A reservation's mappings and each multicast member's bindings (the
 * fabric page table) are range maps.
 *
 * An interval tree (an rbtree augmented with the last byte of each
 * subtree) rather than a maple tree: it is in every kernel cumc builds for,
 * and its nodes are embedded in the entries, so inserting allocates nothing
 * and cannot fail for want of memory. Every operation is O(log n) but
 * destroying, which is O(n). The map has no lock of its own: its owner's
 * lock serializes changes and lookups.
 */
#include <linux/interval_tree_generic.h>

#include "cumc_internal.h"

#define CUMK_RANGE_START(r) ((r)->start)
#define CUMK_RANGE_LAST(r) ((r)->last)

INTERVAL_TREE_DEFINE(struct cumk_range, rb, u64, subtree_last,
		     CUMK_RANGE_START, CUMK_RANGE_LAST, static, cumk_range_tree)

void cumk_range_map_init(struct cumk_range_map *map)
{
	map->root = RB_ROOT_CACHED;
}

bool cumk_range_map_empty(const struct cumk_range_map *map)
{
	return RB_EMPTY_ROOT(&map->root.rb_root);
}

/*
 * Add @r as [@start, @start + @length), @length > 0 and the sum at most
 * 2^64; EEXIST when any part of it is taken.
 */
int cumk_range_insert(struct cumk_range_map *map, struct cumk_range *r,
		      u64 start, u64 length)
{
	u64 last = start + length - 1;

	if (cumk_range_tree_iter_first(&map->root, start, last))
		return -EEXIST;
	r->start = start;
	r->last = last;
	cumk_range_tree_insert(r, &map->root);
	return 0;
}

void cumk_range_remove(struct cumk_range_map *map, struct cumk_range *r)
{
	cumk_range_tree_remove(r, &map->root);
}

/* The range holding @addr, or NULL. */
struct cumk_range *cumk_range_find(struct cumk_range_map *map, u64 addr)
{
	return cumk_range_tree_iter_first(&map->root, addr, addr);
}

/* The lowest range overlapping [@start, @last], or NULL. */
struct cumk_range *cumk_range_first(struct cumk_range_map *map, u64 start,
				    u64 last)
{
	return cumk_range_tree_iter_first(&map->root, start, last);
}

/* The range after @r overlapping [@start, @last], or NULL. */
struct cumk_range *cumk_range_next(struct cumk_range *r, u64 start, u64 last)
{
	return cumk_range_tree_iter_next(r, start, last);
}

/*
 * Empty @map, passing every range to @release, which may free it: a
 * post-order walk never looks at a node again once it has been passed on.
 */
void cumk_range_map_destroy(struct cumk_range_map *map,
			    void (*release)(struct cumk_range *r, void *data),
			    void *data)
{
	struct cumk_range *r, *next;

	rbtree_postorder_for_each_entry_safe(r, next, &map->root.rb_root, rb)
		release(r, data);
	map->root = RB_ROOT_CACHED;
}
