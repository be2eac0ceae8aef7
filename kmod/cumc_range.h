/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Range maps: non-overlapping ranges found by any byte in them
 * (cumc_range.c).
 */
#ifndef _CUMK_RANGE_H
#define _CUMK_RANGE_H

#include <linux/rbtree.h>
#include <linux/types.h>

/**
 * struct cumk_range - an entry of a range map, embedded in what it maps
 * @rb: its node in the map's tree
 * @start: its first byte
 * @last: its last byte: inclusive, so that a range may end at 2^64
 * @subtree_last: the highest @last below @rb, which the tree maintains
 */
struct cumk_range {
	struct rb_node rb;
	u64 start;
	u64 last;
	u64 subtree_last;
};

/**
 * struct cumk_range_map - non-overlapping ranges, found by any byte in them
 * @root: an interval tree of struct cumk_range; no lock of its own, its
 *        owner's lock protects it
 */
struct cumk_range_map {
	struct rb_root_cached root;
};

/* cumc_range.c: range maps, under their owner's lock */
void cumk_range_map_init(struct cumk_range_map *map);
bool cumk_range_map_empty(const struct cumk_range_map *map);
int cumk_range_insert(struct cumk_range_map *map, struct cumk_range *r,
		      u64 start, u64 length);
void cumk_range_remove(struct cumk_range_map *map, struct cumk_range *r);
struct cumk_range *cumk_range_find(struct cumk_range_map *map, u64 addr);
struct cumk_range *cumk_range_first(struct cumk_range_map *map, u64 start,
				    u64 last);
struct cumk_range *cumk_range_next(struct cumk_range *r, u64 start, u64 last);
void cumk_range_map_destroy(struct cumk_range_map *map,
			    void (*release)(struct cumk_range *r, void *data),
			    void *data);

/* Every entry of @map overlapping [@start, @last], in address order. */
#define cumk_range_for_each(r, map, start, last)			\
	for ((r) = cumk_range_first(map, start, last); (r);		\
	     (r) = cumk_range_next(r, start, last))

#endif /* _CUMK_RANGE_H */
