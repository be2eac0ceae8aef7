/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Physical allocations and where their bytes are (cumc_memory.c).
 */
#ifndef _CUMK_MEMORY_H
#define _CUMK_MEMORY_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include "cumc_object.h"

struct cumk_device;
struct cumk_remote_extent;
struct cumk_ucmd;
struct mem_cgroup;

/**
 * struct cumk_extent - a run of device memory backing part of an allocation
 * @mem_offset: where in the allocation
 * @dev_offset: where in the device's memory
 * @length: bytes
 */
struct cumk_extent {
	u64 mem_offset;
	u64 dev_offset;
	u64 length;
};

/**
 * struct cumk_mem - a physical allocation (cuMemCreate)
 * @obj: its handle-table identity
 * @dev: the device whose memory it is
 * @length: bytes, a multiple of the device's granularity
 * @dev_link: on the device's @mems while @backed; under its @mems_lock
 * @backed: it holds device memory; cleared when that is given back
 * @touch_lock: serializes first touches of its pages (cumc_bar.c)
 * @pages: page index -> the backend's state of that page (a struct page
 *         for system memory, a mark that it was zeroed for a BAR); its own
 *         lock serializes insertions
 * @extents: where its bytes are on the device, in order (cumc_bar.c)
 * @nr_extents: entries of @extents
 * @shared: it was shared with another node: every page is backed and
 *          zeroed (set once, under @touch_lock)
 * @memcg: its creator's memory cgroup, charged what sharing it costs the
 *         module (cumk_mem_share_start()); a reference, or NULL
 * @nr_touched: pages of it touched (and zeroed) so far, under @touch_lock
 * @sharing: a worker is sharing it (set with cmpxchg)
 * @share_work: that worker's work
 * @remote_node: for memory of another node's GPU, that node
 * @remote_hold: and the hold that node keeps for this one (cumc_remote.c)
 * @lease_node: for memory of another node's GPU, the node whose lease it
 *              is mapped under (cumc_lease.c)
 * @lease_gen: what cumk_lease_get() answered for it
 */
struct cumk_mem {
	struct cumk_object obj;
	struct cumk_device *dev;
	u64 length;
	struct list_head dev_link;
	bool backed;
	struct mutex touch_lock; /* one first touch of a page at a time */
	struct xarray pages;
	struct cumk_extent *extents;
	unsigned int nr_extents;
	bool shared;
	struct mem_cgroup *memcg;
	unsigned long nr_touched;
	atomic_t sharing;
	struct work_struct share_work;
	u32 remote_node;
	u32 remote_hold;
	u32 lease_node;
	u32 lease_gen;
};

static inline struct cumk_mem *to_cumk_mem(struct cumk_object *obj)
{
	return container_of(obj, struct cumk_mem, obj);
}

/* cumc_memory.c: physical allocations */
int cumk_mem_ioctl_create(struct cumk_ucmd *ucmd);
int cumk_mem_ioctl_info(struct cumk_ucmd *ucmd);
int cumk_mem_pfn(struct cumk_mem *mem, pgoff_t index, unsigned long *pfn);
int cumk_mem_check(struct cumk_mem *mem);
void cumk_mem_lose_device(struct cumk_device *dev);
struct cumk_mem *cumk_mem_create_remote(struct cumk_usage *usage,
					struct cumk_device *dev, u64 length,
					u32 handle_types,
					struct cumk_extent *extents,
					unsigned int nr_extents,
					const struct cumk_object_ops *ops,
					u32 lease_node);
int cumk_mem_share_start(struct cumk_mem *mem);
int cumk_mem_share_init(void);
void cumk_mem_share_exit(void);
void cumk_mem_free(struct cumk_mem *mem);
int cumk_mem_share_range(struct cumk_mem *mem, u64 offset, u64 length,
			 struct cumk_remote_extent *out, unsigned int max);
struct cumk_extent *cumk_mem_extents_import(const struct cumk_remote_extent *in,
					    unsigned int n,
					    struct cumk_device *dev,
					    u64 length);

#endif /* _CUMK_MEMORY_H */
