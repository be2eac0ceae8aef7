// SPDX-License-Identifier: GPL-2.0
/*
 * Device memory in a PCI BAR: the backend of cumc's PCI devices.
 *
 * The memory has a fixed capacity and an allocator over it. Free memory is
 * a range map of runs, by device offset, merged with their neighbours when
 * memory comes back. An allocation takes the first run large enough for
 * it; when fragmentation leaves none, it takes runs in address order until
 * it has enough, as a GPU's page tables map discontiguous memory into one
 * allocation. Capacity is charged before the allocator is asked, so the
 * allocator never runs out.
 *
 * Processes map the BAR's page frames themselves (PFN mappings, see
 * Documentation/devices.md for why not ZONE_DEVICE pages). A page is zeroed
 * on its first touch, through the kernel's mapping of the BAR, so that no
 * allocation shows what an earlier one left and untouched memory stays
 * untouched in the host's sparse file.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "cumc_internal.h"

/**
 * struct cumk_bar - a device whose memory is a BAR
 * @dev: the device
 * @mem_phys: the physical address of device memory's first byte
 * @mem_vaddr: the kernel's mapping of it, valid until the device is lost
 * @alloc_lock: protects @free; taken after a multicast object's lock (a
 *              binding's release may free the last reference to memory)
 * @free: free runs, struct cumk_bar_run by device offset
 */
struct cumk_bar {
	struct cumk_device dev;
	phys_addr_t mem_phys;
	void *mem_vaddr;
	struct mutex alloc_lock; /* protects free */
	struct cumk_range_map free;
};

struct cumk_bar_run {
	struct cumk_range range;
};

static struct cumk_bar *to_cumk_bar(struct cumk_device *dev)
{
	return container_of(dev, struct cumk_bar, dev);
}

static struct cumk_bar_run *cumk_bar_run_of(struct cumk_range *r)
{
	return r ? container_of(r, struct cumk_bar_run, range) : NULL;
}

/* Bytes of a run (ranges keep their last byte, not their length). */
static u64 cumk_run_length(const struct cumk_range *r)
{
	return r->last - r->start + 1;
}

/* The first run, in address order, of at least @length bytes; or NULL. */
static struct cumk_bar_run *cumk_bar_fit(struct cumk_bar *bar, u64 length)
{
	struct cumk_range *r;

	lockdep_assert_held(&bar->alloc_lock);
	cumk_range_for_each(r, &bar->free, 0, U64_MAX)
		if (cumk_run_length(r) >= length)
			return cumk_bar_run_of(r);
	return NULL;
}

/* How many runs it takes to hold @length bytes: one that fits, or gathered. */
static unsigned int cumk_bar_runs_needed(struct cumk_bar *bar, u64 length)
{
	struct cumk_range *r;
	unsigned int n = 0;

	if (cumk_bar_fit(bar, length))
		return 1;
	cumk_range_for_each(r, &bar->free, 0, U64_MAX) {
		n++;
		if (cumk_run_length(r) >= length)
			break;
		length -= cumk_run_length(r);
	}
	return n;
}

/* Take up to @want bytes from the start of @run. */
static u64 cumk_bar_take(struct cumk_bar *bar, struct cumk_bar_run *run,
			 u64 want, u64 *dev_offset)
{
	u64 start = run->range.start, length = cumk_run_length(&run->range);

	*dev_offset = start;
	cumk_range_remove(&bar->free, &run->range);
	if (want >= length) {
		kfree(run);
		return length;
	}
	/* What is left of the run cannot overlap anything: it was free. */
	WARN_ON(cumk_range_insert(&bar->free, &run->range, start + want,
				  length - want));
	return want;
}

/* Where the next part of an allocation goes: a run that fits, else the first. */
static struct cumk_bar_run *cumk_bar_next_run(struct cumk_bar *bar, u64 length)
{
	return cumk_bar_fit(bar, length) ?:
	       cumk_bar_run_of(cumk_range_first(&bar->free, 0, U64_MAX));
}

static int cumk_bar_mem_alloc(struct cumk_mem *mem)
{
	struct cumk_bar *bar = to_cumk_bar(mem->dev);
	struct cumk_extent *ext;
	u64 placed = 0;
	unsigned int n;

	mutex_lock(&bar->alloc_lock);
	n = cumk_bar_runs_needed(bar, mem->length);
	mem->extents = kvcalloc(n, sizeof(*mem->extents), CUMK_GFP);
	if (!mem->extents) {
		mutex_unlock(&bar->alloc_lock);
		return -ENOMEM;
	}
	for (ext = mem->extents; placed < mem->length; ext++) {
		struct cumk_bar_run *run = cumk_bar_next_run(bar,
						mem->length - placed);

		ext->mem_offset = placed;
		ext->length = cumk_bar_take(bar, run, mem->length - placed,
					    &ext->dev_offset);
		placed += ext->length;
	}
	mem->nr_extents = ext - mem->extents;
	mutex_unlock(&bar->alloc_lock);
	return 0;
}

/* Give [@start, @start + @length) back, merged with the runs beside it. */
static void cumk_bar_give_back(struct cumk_bar *bar, u64 start, u64 length)
{
	struct cumk_bar_run *prev = NULL, *next, *run;

	lockdep_assert_held(&bar->alloc_lock);
	if (start)
		prev = cumk_bar_run_of(cumk_range_find(&bar->free, start - 1));
	next = cumk_bar_run_of(cumk_range_find(&bar->free, start + length));
	if (prev) {
		cumk_range_remove(&bar->free, &prev->range);
		length += start - prev->range.start;
		start = prev->range.start;
	}
	if (next) {
		cumk_range_remove(&bar->free, &next->range);
		length += cumk_run_length(&next->range);
	}
	run = prev ?: next;
	if (prev && next)
		kfree(next);
	/* Memory coming back cannot be refused: a small, rare allocation. */
	if (!run)
		run = kmalloc(sizeof(*run), GFP_KERNEL | __GFP_NOFAIL);
	WARN_ON(cumk_range_insert(&bar->free, &run->range, start, length));
}

static void cumk_bar_mem_free(struct cumk_mem *mem)
{
	struct cumk_bar *bar = to_cumk_bar(mem->dev);
	unsigned long index;
	unsigned int i;
	void *entry;

	mutex_lock(&bar->alloc_lock);
	for (i = 0; i < mem->nr_extents; i++)
		cumk_bar_give_back(bar, mem->extents[i].dev_offset,
				   mem->extents[i].length);
	mutex_unlock(&bar->alloc_lock);
	kvfree(mem->extents);
	mem->extents = NULL;
	mem->nr_extents = 0;
	xa_for_each(&mem->pages, index, entry)
		atomic_long_dec(&cumk_live_pages);
	xa_destroy(&mem->pages);
}

/* The device offset of byte @offset of @mem. */
static u64 cumk_bar_dev_offset(struct cumk_mem *mem, u64 offset)
{
	unsigned int lo = 0, hi = mem->nr_extents;

	while (hi - lo > 1) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (mem->extents[mid].mem_offset <= offset)
			lo = mid;
		else
			hi = mid;
	}
	return mem->extents[lo].dev_offset + offset - mem->extents[lo].mem_offset;
}

static int cumk_bar_mem_pfn(struct cumk_mem *mem, pgoff_t index,
			    unsigned long *pfn)
{
	struct cumk_bar *bar = to_cumk_bar(mem->dev);
	u64 dev_offset = cumk_bar_dev_offset(mem, (u64)index << PAGE_SHIFT);
	int ret = 0;

	if (!xa_load(&mem->pages, index)) {
		mutex_lock(&mem->touch_lock);
		if (!xa_load(&mem->pages, index)) {
			memset(bar->mem_vaddr + dev_offset, 0, PAGE_SIZE);
			ret = xa_err(xa_store(&mem->pages, index, xa_mk_value(0),
					      GFP_KERNEL_ACCOUNT));
			if (!ret) {
				atomic_long_inc(&cumk_live_pages);
				WRITE_ONCE(mem->nr_touched,
					   mem->nr_touched + 1);
			}
		}
		mutex_unlock(&mem->touch_lock);
	}
	*pfn = PHYS_PFN(bar->mem_phys + dev_offset);
	return ret;
}

/*
 * Zero every page not touched yet, so that another node, which maps the
 * memory without asking this one, never sees an earlier allocation's data.
 */
static int cumk_bar_mem_share(struct cumk_mem *mem)
{
	pgoff_t index, pages = mem->length >> PAGE_SHIFT;
	unsigned long pfn;
	int ret = 0;

	if (READ_ONCE(mem->shared))
		return 0;
	for (index = 0; index < pages && !ret; index++) {
		ret = cumk_bar_mem_pfn(mem, index, &pfn);
		cond_resched();
	}
	if (!ret)
		WRITE_ONCE(mem->shared, true);
	return ret;
}

/*
 * Memory of another node's GPU: that node placed and zeroed it; this one
 * maps it where the extents say and keeps nothing else.
 */
static void cumk_bar_remote_mem_free(struct cumk_mem *mem)
{
	kvfree(mem->extents);
	mem->extents = NULL;
	mem->nr_extents = 0;
}

static int cumk_bar_remote_mem_pfn(struct cumk_mem *mem, pgoff_t index,
				   unsigned long *pfn)
{
	struct cumk_bar *bar = to_cumk_bar(mem->dev);

	*pfn = PHYS_PFN(bar->mem_phys +
			cumk_bar_dev_offset(mem, (u64)index << PAGE_SHIFT));
	return 0;
}

static void cumk_bar_free_run(struct cumk_range *r, void *data)
{
	kfree(cumk_bar_run_of(r));
}

static void cumk_bar_release(struct cumk_device *dev)
{
	struct cumk_bar *bar = to_cumk_bar(dev);

	cumk_range_map_destroy(&bar->free, cumk_bar_free_run, NULL);
	kfree(bar);
}

static const struct cumk_backend_ops cumk_bar_ops = {
	.name = "pci",
	.mem_alloc = cumk_bar_mem_alloc,
	.mem_free = cumk_bar_mem_free,
	.mem_pfn = cumk_bar_mem_pfn,
	.mem_share = cumk_bar_mem_share,
	.release = cumk_bar_release,
};

/* Nothing is allocated on another node's GPU from here, nor shared on. */
static const struct cumk_backend_ops cumk_bar_remote_ops = {
	.name = "pci",
	.mem_free = cumk_bar_remote_mem_free,
	.mem_pfn = cumk_bar_remote_mem_pfn,
	.release = cumk_bar_release,
};

/*
 * A device whose @mem_size bytes of memory start at @phys, mapped at
 * @vaddr, @mem_offset into its BAR; its capacity is what is left once the
 * start is aligned to the granularity, rounded down to it. The caller has
 * checked that this is at least a granule (cumc_pci.c), fills in the
 * device's identity and adds it. A @remote device is another node's GPU.
 */
struct cumk_device *cumk_bar_create(phys_addr_t phys, void *vaddr,
				    u64 mem_offset, u64 mem_size, bool remote)
{
	u64 granularity = cumk_device_granularity();
	u64 skip = round_up(mem_offset, granularity) - mem_offset;
	struct cumk_bar_run *run;
	struct cumk_bar *bar;

	bar = kzalloc(sizeof(*bar), GFP_KERNEL);
	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!bar || !run) {
		kfree(run);
		kfree(bar);
		return ERR_PTR(-ENOMEM);
	}
	cumk_device_init(&bar->dev, remote ? &cumk_bar_remote_ops : &cumk_bar_ops);
	/* Allocations are granularity-aligned in the BAR, as on a GPU. */
	bar->mem_phys = phys + skip;
	bar->mem_vaddr = vaddr + skip;
	bar->dev.mem_total = round_down(mem_size - skip, granularity);
	mutex_init(&bar->alloc_lock);
	cumk_range_map_init(&bar->free);
	cumk_range_insert(&bar->free, &run->range, 0, bar->dev.mem_total);
	return &bar->dev;
}
