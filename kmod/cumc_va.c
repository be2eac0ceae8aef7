// SPDX-License-Identifier: GPL-2.0
/*
 * Device address space: reservations, mappings and CPU access.
 *
 * Reservations are ranges of arenas: VMAs of /dev/cumc in the caller's
 * process that the module makes (cumk_vm_map) and owns, each a struct
 * cumk_arena with a range map of the reservations in it. Without
 * CUMC_VA_RESERVE_SHARED (API version 2's callers) a reservation is a
 * single arena of its own, which freeing, or the process's munmap of it,
 * unmaps. With it, a client's first reservation in a process maps a shared
 * arena of CUMK_VA_ARENA_LENGTH bytes (or a power of two that holds the
 * reservation, when larger); from then on reserving and freeing are an
 * insert and a remove in that map under the arena's lock, with no mmap or
 * munmap. When no arena of the client in the
 * process has room, another is mapped; arenas stay until the process exits
 * or unmaps them whole (close() then frees every reservation in them), so
 * their address space is bounded by the most the process held reserved at
 * once. A hint outside every arena, where the process has nothing mapped,
 * gets a single arena of its own at the hint, the reservation's size, as
 * does a reservation when no shared arena can be mapped; freeing it unmaps
 * it.
 *
 * Each reservation has a table of mappings: address range -> allocation
 * and per-device access. Nothing is populated when mapping or granting
 * access; the fault handler inserts one page at a time, allocating the
 * backing page on first touch. Unmapping or taking access away zaps the
 * PTEs of the range, so both cost what was touched, not what was mapped.
 *
 * An arena's VMA refuses splitting, mremap and mprotect (cumc_vm.c): the
 * process can only unmap it whole, taking every reservation in it along.
 * A freed reservation's range is free for the arena's next reservations,
 * not for other mappings of the process.
 *
 * Lock order: mmap_lock, then the client's arenas_lock, then
 * cumk_arena.lock. Every path to an arena goes through its VMA under
 * mmap_lock, or through the client's list under arenas_lock (a shared
 * arena leaves the list, in close(), before it is freed): either keeps
 * the arena alive. Reserving without a hint and freeing in a shared arena
 * go through the list, and take no mmap_lock.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "cumc_internal.h"

/* Bounds that keep every sum of an address and a length far from overflow. */
#define CUMK_VA_MAX_LENGTH CUMK_VM_MAX_OFFSETS
#define CUMK_VA_MAX_ALIGNMENT BIT_ULL(40)
/*
 * A shared arena: 4 TiB of the 128 TiB of x86-64 user space, which costs
 * nothing until touched (no page tables, no commit charge: VM_NORESERVE).
 */
#define CUMK_VA_ARENA_LENGTH BIT_ULL(42)
/* Attempts to place a reservation in arenas that others may fill meanwhile. */
#define CUMK_VA_PLACE_TRIES 3

static const struct vm_operations_struct cumk_arena_vm_ops;

static enum cumc_access cumk_mapping_cpu_access(const struct cumk_mapping *m)
{
	if (!bitmap_empty(m->writers, CUMC_MAX_DEVICES))
		return CUMC_ACCESS_READWRITE;
	if (!bitmap_empty(m->readers, CUMC_MAX_DEVICES))
		return CUMC_ACCESS_READ;
	return CUMC_ACCESS_NONE;
}

static enum cumc_access cumk_mapping_device_access(const struct cumk_mapping *m,
						   u32 device)
{
	if (test_bit(device, m->writers))
		return CUMC_ACCESS_READWRITE;
	if (test_bit(device, m->readers))
		return CUMC_ACCESS_READ;
	return CUMC_ACCESS_NONE;
}

/* Free @m, whose bytes are charged to @client, the reservation's. */
static void cumk_mapping_free(struct cumk_client *client,
			      struct cumk_mapping *m)
{
	cumk_usage_uncharge_mapping(client->usage, m->length);
	if (m->obj->type == CUMK_OBJ_MC && m->grant)
		cumk_grant_put(m->grant);
	cumk_object_put(m->obj);
	atomic_dec(&cumk_live_mappings);
	/* Kept for the client's next map, as cumk_va_destroy() keeps a va. */
	if (cmpxchg(&client->spare_mapping, NULL, m))
		kfree(m);
}

static void cumk_mapping_release(struct cumk_range *r, void *client)
{
	cumk_mapping_free(client, container_of(r, struct cumk_mapping, range));
}

/* The mapping holding @addr, or NULL. */
static struct cumk_mapping *cumk_mapping_find(struct cumk_va *va, u64 addr)
{
	struct cumk_range *r;

	lockdep_assert_held(&va->arena->lock);
	r = cumk_range_find(&va->mappings, addr);
	return r ? container_of(r, struct cumk_mapping, range) : NULL;
}

/*
 * A new reservation of @client, in no arena yet, charged for. The struct
 * the client's last free left behind is taken first: a reserve-free loop
 * allocates nothing (kernel memory accounting is a good part of the cost
 * of an allocation).
 */
static struct cumk_va *cumk_va_create(struct cumk_client *client, u64 length)
{
	struct cumk_va *va;
	int ret;

	ret = cumk_usage_charge(client->usage, CUMK_QUOTA_RANGES, 1);
	if (ret)
		return ERR_PTR(ret);
	va = xchg(&client->spare_va, NULL);
	if (va)
		memset(va, 0, sizeof(*va));
	else
		va = kzalloc(sizeof(*va), CUMK_GFP);
	if (!va) {
		cumk_usage_uncharge(client->usage, CUMK_QUOTA_RANGES, 1);
		return ERR_PTR(-ENOMEM);
	}
	va->client = client;
	va->length = length;
	cumk_range_map_init(&va->mappings);
	atomic_inc(&cumk_live_vas);
	return va;
}

/* Free @va, in no arena any more, with whatever is still mapped in it. */
static void cumk_va_destroy(struct cumk_va *va)
{
	cumk_range_map_destroy(&va->mappings, cumk_mapping_release,
			       va->client);
	cumk_usage_uncharge(va->client->usage, CUMK_QUOTA_RANGES, 1);
	atomic_dec(&cumk_live_vas);
	/* Kept for the client's next reservation, unless one is kept. */
	if (cmpxchg(&va->client->spare_va, NULL, va))
		kfree(va);
}

static void cumk_va_release(struct cumk_range *r, void *unused)
{
	cumk_va_destroy(container_of(r, struct cumk_va, range));
}

/* The reservation of @arena holding @addr, or NULL. */
static struct cumk_va *cumk_arena_va(struct cumk_arena *arena, u64 addr)
{
	struct cumk_range *r;

	lockdep_assert_held(&arena->lock);
	r = cumk_range_find(&arena->reservations, addr);
	return r ? container_of(r, struct cumk_va, range) : NULL;
}

static bool cumk_va_contains(const struct cumk_va *va, u64 addr, u64 length)
{
	return addr >= va->addr && length <= va->addr + va->length - addr;
}

/* Put @va at @addr in @arena, where nothing is. */
static void cumk_arena_insert(struct cumk_arena *arena, struct cumk_va *va,
			      u64 addr)
{
	lockdep_assert_held_write(&arena->lock);
	WARN_ON(cumk_range_insert(&arena->reservations, &va->range, addr,
				  va->length));
	va->arena = arena;
	va->addr = addr;
	if (arena->cursor == addr)
		arena->cursor = addr + va->length;
}

static void cumk_arena_remove(struct cumk_arena *arena, struct cumk_va *va)
{
	lockdep_assert_held_write(&arena->lock);
	cumk_range_remove(&arena->reservations, &va->range);
	arena->cursor = min(arena->cursor, va->addr);
}

/* Whether [@addr, @addr + @length) is inside @arena and free in it. */
static bool cumk_arena_room_at(struct cumk_arena *arena, u64 addr, u64 length)
{
	u64 end = arena->start + arena->length;

	return addr >= arena->start && addr < end && length <= end - addr &&
	       !cumk_range_first(&arena->reservations, addr, addr + length - 1);
}

/*
 * The lowest start aligned to @align of @length free bytes in @arena, from
 * its cursor on; 0 if there is none. O(log n) while the arena has no hole
 * below the room found; each hole too small for the request, or misaligned
 * for it, costs one more lookup. Moves the cursor past the reservations
 * that leave no byte free between them.
 */
static u64 cumk_arena_find_room(struct cumk_arena *arena, u64 length,
				u64 align)
{
	u64 end = arena->start + arena->length;
	u64 pos = arena->cursor, at;
	struct cumk_range *r;
	bool dense = true;

	lockdep_assert_held_write(&arena->lock);
	for (;;) {
		at = ALIGN(pos, align);
		if (at < pos || at >= end || length > end - at)
			return 0;
		r = cumk_range_first(&arena->reservations, pos, at + length - 1);
		if (!r)
			return at;
		/* [pos, r->last] is all taken: nothing free below r->last + 1. */
		if (dense && r->start <= pos)
			arena->cursor = r->last + 1;
		else
			dense = false;
		pos = r->last + 1;
	}
}

static void cumk_arena_free(struct cumk_arena *arena)
{
	cumk_range_map_destroy(&arena->reservations, cumk_va_release, NULL);
	cumk_vm_free_offsets(arena->pgoff);
	kfree(arena);
}

static struct cumk_arena *cumk_arena_alloc(struct cumk_client *client,
					   u64 length, bool single)
{
	struct cumk_arena *arena;
	int ret;

	arena = kzalloc(sizeof(*arena), CUMK_GFP);
	if (!arena)
		return ERR_PTR(-ENOMEM);
	arena->client = client;
	arena->mm = current->mm;
	arena->length = length;
	arena->single = single;
	INIT_LIST_HEAD(&arena->link);
	init_rwsem(&arena->lock);
	cumk_range_map_init(&arena->reservations);
	ret = cumk_vm_alloc_offsets(arena, &arena->pgoff);
	if (ret) {
		kfree(arena);
		return ERR_PTR(ret);
	}
	return arena;
}

/* The arena's VMA is made: it shows from now on, to the client's list. */
static void cumk_arena_attach(struct vm_area_struct *vma, void *unused)
{
	struct cumk_arena *arena = vma->vm_private_data;
	struct cumk_client *client = arena->client;

	arena->start = vma->vm_start;
	arena->cursor = vma->vm_start;
	mutex_lock(&client->arenas_lock);
	list_add_tail(&arena->link, &client->arenas);
	mutex_unlock(&client->arenas_lock);
}

/*
 * A single arena's VMA is made: its one reservation is at its start. No
 * one else can see it yet (the mmap_lock is held for writing).
 */
static void cumk_arena_attach_single(struct vm_area_struct *vma, void *va)
{
	struct cumk_arena *arena = vma->vm_private_data;

	arena->start = vma->vm_start;
	arena->cursor = vma->vm_start;
	down_write(&arena->lock);
	cumk_arena_insert(arena, va, vma->vm_start);
	up_write(&arena->lock);
}

static void cumk_arena_vm_close(struct vm_area_struct *vma)
{
	struct cumk_arena *arena = vma->vm_private_data;
	struct cumk_client *client = arena->client;

	mutex_lock(&client->arenas_lock);
	list_del(&arena->link);
	mutex_unlock(&client->arenas_lock);
	cumk_arena_free(arena);
}

/*
 * Map a shared arena of at least @length bytes, aligned to @align, into
 * the calling process. It joins the client's list as it is made: the
 * caller looks for room again.
 */
static int cumk_arena_create(struct file *filp, u64 length, u64 align)
{
	struct cumk_client *client = filp->private_data;
	u64 arena_length = max_t(u64, CUMK_VA_ARENA_LENGTH,
				 roundup_pow_of_two(length));
	struct cumk_vm_request req = {
		.length = arena_length,
		.alignment = align,
		.writable = true,
		.vm_ops = &cumk_arena_vm_ops,
		.attach = cumk_arena_attach,
	};
	struct cumk_arena *arena;
	unsigned long addr;

	if (arena_length > CUMK_VA_MAX_LENGTH)
		return -ENOMEM;
	arena = cumk_arena_alloc(client, arena_length, false);
	if (IS_ERR(arena))
		return PTR_ERR(arena);
	req.pgoff = arena->pgoff;
	req.private = arena;
	addr = cumk_vm_map(filp, &req);
	if (!req.taken)
		cumk_arena_free(arena);
	return IS_ERR_VALUE(addr) ? (long)addr : 0;
}

/*
 * Map a single arena holding only @va, at @hint if it is free: the slow
 * path, an mmap of its own. Returns the address or an error.
 */
static long cumk_arena_create_single(struct file *filp, struct cumk_va *va,
				     u64 hint, u64 align)
{
	struct cumk_vm_request req = {
		.addr = hint,
		.length = va->length,
		.alignment = align,
		.writable = true,
		.vm_ops = &cumk_arena_vm_ops,
		.attach = cumk_arena_attach_single,
		.attach_arg = va,
	};
	struct cumk_arena *arena;
	unsigned long addr;

	arena = cumk_arena_alloc(filp->private_data, va->length, true);
	if (IS_ERR(arena)) {
		cumk_va_destroy(va);
		return PTR_ERR(arena);
	}
	req.pgoff = arena->pgoff;
	req.private = arena;
	addr = cumk_vm_map(filp, &req);
	/* Once taken, the VMA owns the arena and the reservation in it. */
	if (!req.taken) {
		cumk_arena_free(arena);
		cumk_va_destroy(va);
	}
	return addr;
}

/* The arena of @client holding @addr in this process, or NULL. */
static struct cumk_arena *cumk_arena_find(struct cumk_client *client, u64 addr)
{
	struct vm_area_struct *vma;
	struct cumk_arena *arena;

	mmap_assert_locked(current->mm);
	if (addr >= TASK_SIZE)
		return NULL;
	vma = vma_lookup(current->mm, addr);
	if (!vma || vma->vm_ops != &cumk_arena_vm_ops)
		return NULL;
	arena = vma->vm_private_data;
	return arena->client == client ? arena : NULL;
}

/* Put @va at @hint, in the shared arena holding it, if it is free there. */
static bool cumk_va_place_at(struct cumk_client *client, struct cumk_va *va,
			     u64 hint)
{
	struct cumk_arena *arena = cumk_arena_find(client, hint);
	bool placed;

	if (!arena || arena->single)
		return false;
	down_write(&arena->lock);
	placed = !arena->closing &&
		 cumk_arena_room_at(arena, hint, va->length);
	if (placed)
		cumk_arena_insert(arena, va, hint);
	up_write(&arena->lock);
	return placed;
}

/* Put @va in the first shared arena of @client in this process with room. */
static u64 cumk_va_place_anywhere(struct cumk_client *client,
				  struct cumk_va *va, u64 align)
{
	struct cumk_arena *arena;
	u64 addr = 0;

	mutex_lock(&client->arenas_lock);
	list_for_each_entry(arena, &client->arenas, link) {
		if (arena->mm != current->mm)
			continue;
		down_write(&arena->lock);
		if (!arena->closing)
			addr = cumk_arena_find_room(arena, va->length, align);
		if (addr)
			cumk_arena_insert(arena, va, addr);
		up_write(&arena->lock);
		if (addr)
			break;
	}
	mutex_unlock(&client->arenas_lock);
	return addr;
}

/* Whether the process has nothing at all mapped in [@addr, @addr + @length). */
static bool cumk_va_hole(u64 addr, u64 length)
{
	return addr + length <= TASK_SIZE && addr + length > addr &&
	       !find_vma_intersection(current->mm, addr, addr + length);
}

/*
 * Place @va in an arena of the caller, at *@addr: at @hint when free in an
 * arena, else anywhere there is room. -ENOSPC when no arena has room; 1
 * when @hint is outside every arena, in a hole of the process, where the
 * slow path can honour it. Once placed, @va is the arena's: another
 * thread may free it as soon as the locks are dropped. Only the hint
 * needs the mmap_lock, to look at the process's VMAs; the client's list
 * finds the room.
 */
static int cumk_va_place(struct cumk_client *client, struct cumk_va *va,
			 u64 hint, u64 align, u64 *addr)
{
	bool placed = false, hole = false;

	if (hint && IS_ALIGNED(hint, align)) {
		mmap_read_lock(current->mm);
		placed = cumk_va_place_at(client, va, hint);
		hole = !placed && cumk_va_hole(hint, va->length);
		mmap_read_unlock(current->mm);
	}
	if (placed) {
		*addr = hint;
		return 0;
	}
	if (hole)
		return 1;
	*addr = cumk_va_place_anywhere(client, va, align);
	return *addr ? 0 : -ENOSPC;
}

static vm_fault_t cumk_arena_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct cumk_arena *arena = vma->vm_private_data;
	unsigned long addr = vmf->address & PAGE_MASK;
	struct cumk_mapping *m = NULL;
	enum cumc_access access;
	unsigned long vm_flags = vma->vm_flags;
	unsigned long pfn;
	struct cumk_va *va;
	vm_fault_t ret;
	int idx, err;

	down_read(&arena->lock);
	idx = srcu_read_lock(&cumk_device_srcu);
	va = cumk_arena_va(arena, addr);
	if (va)
		m = cumk_mapping_find(va, addr);
	/* Multicast addresses take multimem operations only (the views). */
	access = m && m->obj->type == CUMK_OBJ_MEM ?
		 cumk_mapping_cpu_access(m) : CUMC_ACCESS_NONE;
	if (access == CUMC_ACCESS_NONE ||
	    (vmf->flags & FAULT_FLAG_WRITE && access != CUMC_ACCESS_READWRITE)) {
		ret = VM_FAULT_SIGSEGV;
		goto out;
	}
	err = cumk_mem_pfn(to_cumk_mem(m->obj), (addr - m->addr) >> PAGE_SHIFT,
			   &pfn);
	if (err) {
		ret = cumk_vm_fault_error(err);
		goto out;
	}
	if (access != CUMC_ACCESS_READWRITE)
		vm_flags &= ~VM_WRITE;
	/* Zaps hold the arena's lock for writing: they see every insert. */
	if (!READ_ONCE(m->populated))
		WRITE_ONCE(m->populated, true);
	ret = vmf_insert_pfn_prot(vma, addr, pfn, vm_get_page_prot(vm_flags));
out:
	srcu_read_unlock(&cumk_device_srcu, idx);
	up_read(&arena->lock);
	return ret;
}

/*
 * A write to a page inserted read-only. Without this hook the kernel would
 * make a shared PFN mapping writable on its own.
 */
static vm_fault_t cumk_arena_pfn_mkwrite(struct vm_fault *vmf)
{
	struct cumk_arena *arena = vmf->vma->vm_private_data;
	unsigned long addr = vmf->address & PAGE_MASK;
	struct cumk_mapping *m = NULL;
	struct cumk_va *va;
	bool writable;

	down_read(&arena->lock);
	va = cumk_arena_va(arena, addr);
	if (va)
		m = cumk_mapping_find(va, addr);
	writable = m && m->obj->type == CUMK_OBJ_MEM &&
		   cumk_mapping_cpu_access(m) == CUMC_ACCESS_READWRITE;
	up_read(&arena->lock);
	return writable ? 0 : VM_FAULT_SIGSEGV;
}

static const struct vm_operations_struct cumk_arena_vm_ops = {
	.fault = cumk_arena_fault,
	.pfn_mkwrite = cumk_arena_pfn_mkwrite,
	.close = cumk_arena_vm_close,
	.may_split = cumk_vm_may_split,
	.mremap = cumk_vm_mremap,
	.mprotect = cumk_vm_mprotect,
};

/*
 * Reserve @va: in an arena with room, mapping another when none has
 * any, or in a single arena of its own for a hint outside every arena
 * or when no arena can be mapped. Returns the address or an error; on
 * error @va is gone.
 */
static long cumk_va_reserve(struct file *filp, struct cumk_va *va, u64 hint,
			    u64 align)
{
	struct cumk_client *client = filp->private_data;
	int tries, ret;
	u64 addr;

	for (tries = 0; tries < CUMK_VA_PLACE_TRIES; tries++) {
		ret = cumk_va_place(client, va, tries ? 0 : hint, align, &addr);
		if (!ret)
			return addr;
		if (ret > 0)
			break;
		/* No room: another arena, then look again. */
		ret = cumk_arena_create(filp, va->length, align);
		if (ret)
			break;
	}
	/* The hint where nothing is, or no arena to be had: one of its own. */
	return cumk_arena_create_single(filp, va, hint, align);
}

/* The file offset of @addr in @arena, for cumk_vm_zap(). */
static unsigned long cumk_arena_pgoff(struct cumk_arena *arena, u64 addr)
{
	return arena->pgoff + ((addr - arena->start) >> PAGE_SHIFT);
}

/* Zap what was ever inserted for @m: nothing when it was never touched. */
static void cumk_mapping_zap(struct cumk_arena *arena, struct cumk_mapping *m)
{
	if (m->obj->type == CUMK_OBJ_MEM && READ_ONCE(m->populated))
		cumk_vm_zap(cumk_arena_pgoff(arena, m->addr), m->length);
}

/*
 * Take the reservation [@addr, @addr + @length) out of @arena, deciding
 * and acting under the arena's lock: of two concurrent frees, one removes
 * it.
 */
static struct cumk_va *cumk_arena_take(struct cumk_arena *arena, u64 addr,
				       u64 length)
{
	struct cumk_va *va;

	down_write(&arena->lock);
	va = cumk_arena_va(arena, addr);
	if (!va || va->addr != addr)
		va = ERR_PTR(-ENXIO);
	else if (va->length != length)
		va = ERR_PTR(-EINVAL);
	else if (!cumk_range_map_empty(&va->mappings))
		va = ERR_PTR(-EBUSY);
	else
		cumk_arena_remove(arena, va);
	up_write(&arena->lock);
	return va;
}

/*
 * A reservation of @client in a shared arena of this process, taken out
 * of it; NULL when no shared arena holds @addr. The client's list finds
 * the arena, and the list's lock keeps it alive: no mmap_lock.
 */
static struct cumk_va *cumk_va_take_shared(struct cumk_client *client,
					   u64 addr, u64 length)
{
	struct cumk_arena *arena;
	struct cumk_va *va = NULL;

	mutex_lock(&client->arenas_lock);
	list_for_each_entry(arena, &client->arenas, link) {
		if (arena->mm == current->mm &&
		    addr - arena->start < arena->length) {
			va = cumk_arena_take(arena, addr, length);
			break;
		}
	}
	mutex_unlock(&client->arenas_lock);
	return va;
}

/*
 * A reservation of @client in a single arena, found by the arena's VMA,
 * taken out of it; *@unmap_addr and *@unmap_length: the arena, to unmap.
 * Shared arenas are the list's: one mapped since the list was looked at
 * holds no reservation the caller can have been given.
 */
static struct cumk_va *cumk_va_take_single(struct cumk_client *client,
					   u64 addr, u64 length,
					   u64 *unmap_addr, u64 *unmap_length)
{
	struct cumk_arena *arena;
	struct cumk_va *va = ERR_PTR(-ENXIO);

	mmap_read_lock(current->mm);
	arena = cumk_arena_find(client, addr);
	if (arena && arena->single)
		va = cumk_arena_take(arena, addr, length);
	if (!IS_ERR(va)) {
		*unmap_addr = arena->start;
		*unmap_length = arena->length;
	}
	mmap_read_unlock(current->mm);
	return va;
}

/* Take the reservation [@addr, @addr + @length) of @client and free it. */
static int cumk_va_free(struct cumk_client *client, u64 addr, u64 length)
{
	u64 unmap_addr = 0, unmap_length = 0;
	struct cumk_va *va;

	va = cumk_va_take_shared(client, addr, length);
	if (!va)
		va = cumk_va_take_single(client, addr, length, &unmap_addr,
					 &unmap_length);
	if (IS_ERR(va))
		return PTR_ERR(va);
	cumk_va_destroy(va);
	/*
	 * A single arena, empty now, and taking no other reservation.
	 * Unmapping it can only race with the process unmapping that range
	 * itself.
	 */
	if (unmap_addr)
		cumk_vm_unmap(unmap_addr, unmap_length);
	return 0;
}

/* A reservation whose answer could not be written: the caller never knew it. */
static void cumk_va_undo_reserve(struct cumk_ucmd *ucmd)
{
	struct cumc_va_reserve *cmd = ucmd->cmd;

	cumk_va_free(ucmd->client, cmd->out_addr, cmd->length);
}

int cumk_va_ioctl_reserve(struct cumk_ucmd *ucmd)
{
	struct cumc_va_reserve *cmd = ucmd->cmd;
	u64 granularity = cumk_device_granularity();
	u64 align = max(cmd->alignment, granularity);
	struct cumk_va *va;
	long addr;

	if (cmd->flags & ~CUMC_VA_RESERVE_SHARED)
		return -EOPNOTSUPP;
	if (!cmd->length || cmd->length > CUMK_VA_MAX_LENGTH ||
	    !IS_ALIGNED(cmd->length, granularity) ||
	    (cmd->alignment && !is_power_of_2(cmd->alignment)) ||
	    align > CUMK_VA_MAX_ALIGNMENT ||
	    !IS_ALIGNED(cmd->addr, granularity) || cmd->addr >= TASK_SIZE)
		return -EINVAL;

	va = cumk_va_create(ucmd->client, cmd->length);
	if (IS_ERR(va))
		return PTR_ERR(va);
	if (cmd->flags & CUMC_VA_RESERVE_SHARED)
		addr = cumk_va_reserve(ucmd->filp, va, cmd->addr, align);
	else
		addr = cumk_arena_create_single(ucmd->filp, va, cmd->addr,
						align);
	if (IS_ERR_VALUE(addr))
		return addr;
	cmd->out_addr = addr;
	ucmd->undo = cumk_va_undo_reserve;
	return 0;
}

int cumk_va_ioctl_free(struct cumk_ucmd *ucmd)
{
	struct cumc_va_free *cmd = ucmd->cmd;

	if (cmd->flags)
		return -EOPNOTSUPP;
	return cumk_va_free(ucmd->client, cmd->addr, cmd->length);
}

/* Range checks shared by MAP, UNMAP and SET_ACCESS. */
static int cumk_va_check_range(u64 addr, u64 length)
{
	u64 granularity = cumk_device_granularity();

	if (!length || length > CUMK_VA_MAX_LENGTH ||
	    !IS_ALIGNED(addr, granularity) || !IS_ALIGNED(length, granularity))
		return -EINVAL;
	return 0;
}

/* Insert @m into the reservation of @client holding all of it. */
static int cumk_va_insert(struct cumk_client *client, struct cumk_mapping *m)
{
	struct cumk_arena *arena;
	struct cumk_va *va;
	int ret;

	mmap_assert_locked(current->mm);
	arena = cumk_arena_find(client, m->addr);
	if (!arena)
		return -ENXIO;
	down_write(&arena->lock);
	va = cumk_arena_va(arena, m->addr);
	if (!va || !cumk_va_contains(va, m->addr, m->length))
		ret = -ENXIO;
	else
		ret = cumk_range_insert(&va->mappings, &m->range, m->addr,
					m->length);
	/* Counted before an unmap, once the lock is dropped, can free it. */
	if (!ret)
		atomic_inc(&cumk_live_mappings);
	up_write(&arena->lock);
	return ret;
}

/*
 * What a mapping of @obj may cover: a whole allocation, or the start of a
 * multicast object once its team is ready (which may mean waiting).
 */
static int cumk_map_check_object(struct cumk_object *obj, u64 length)
{
	struct cumk_mc *mc;

	if (obj->type == CUMK_OBJ_MEM) {
		if (length != to_cumk_mem(obj)->length)
			return -EINVAL;
		return cumk_mem_check(to_cumk_mem(obj));
	}
	mc = to_cumk_mc(obj);
	if (length > mc->length)
		return -EINVAL;
	return cumk_team_wait_ready(mc);
}

int cumk_va_ioctl_map(struct cumk_ucmd *ucmd)
{
	struct cumc_map *cmd = ucmd->cmd;
	struct cumk_client *client = ucmd->client;
	struct cumk_device *dev;
	struct cumk_object *obj;
	struct cumk_mapping *m;
	int ret;

	if (cmd->flags)
		return -EOPNOTSUPP;
	ret = cumk_va_check_range(cmd->addr, cmd->length);
	if (ret || cmd->offset)
		return -EINVAL;
	obj = cumk_handle_get(client, cmd->handle, CUMK_OBJ_ANY);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	ret = cumk_map_check_object(obj, cmd->length);
	if (ret)
		goto err_put;
	ret = cumk_usage_charge_mapping(client->usage, cmd->length);
	if (ret)
		goto err_put;
	m = xchg(&client->spare_mapping, NULL);
	if (m)
		memset(m, 0, sizeof(*m));
	else
		m = kzalloc(sizeof(*m), CUMK_GFP);
	if (!m) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	m->obj = obj;
	m->addr = cmd->addr;
	m->length = cmd->length;
	/* Read now: once inserted, an unmap may free what m holds. */
	dev = obj->type == CUMK_OBJ_MEM ? to_cumk_mem(obj)->dev : NULL;

	mmap_read_lock(current->mm);
	ret = cumk_va_insert(client, m);
	if (ret)
		goto err_unlock_mm;
	cumk_stat_add(dev, CUMK_STAT_MAPS, 1);
	mmap_read_unlock(current->mm);
	return 0;

err_unlock_mm:
	mmap_read_unlock(current->mm);
	kfree(m);
err_uncharge:
	cumk_usage_uncharge_mapping(client->usage, cmd->length);
err_put:
	cumk_object_put(obj);
	return ret;
}

/*
 * [addr, addr + length) must be exactly a run of adjacent whole mappings:
 * EINVAL when it cuts one, ENXIO when part of it is not mapped.
 */
static int cumk_va_whole_mappings(struct cumk_va *va, u64 addr, u64 length)
{
	u64 end = addr + length;
	struct cumk_mapping *m;

	while (addr < end) {
		m = cumk_mapping_find(va, addr);
		if (!m)
			return -ENXIO;
		if (m->addr != addr || m->length > end - addr)
			return -EINVAL;
		addr += m->length;
	}
	return 0;
}

/*
 * Locks for an operation on whole mappings: mmap_lock, then the arena's.
 * The reservation holding all of [@addr, @addr + @length).
 */
static struct cumk_va *cumk_va_lock_range(struct cumk_client *client, u64 addr,
					  u64 length)
{
	struct cumk_arena *arena;
	struct cumk_va *va;
	int ret;

	ret = cumk_va_check_range(addr, length);
	if (ret)
		return ERR_PTR(ret);
	mmap_read_lock(current->mm);
	arena = cumk_arena_find(client, addr);
	if (!arena) {
		ret = -ENXIO;
		goto err_unlock_mm;
	}
	down_write(&arena->lock);
	va = cumk_arena_va(arena, addr);
	if (!va || !cumk_va_contains(va, addr, length))
		ret = -ENXIO;
	else
		ret = cumk_va_whole_mappings(va, addr, length);
	if (ret)
		goto err_unlock_arena;
	return va;

err_unlock_arena:
	up_write(&arena->lock);
err_unlock_mm:
	mmap_read_unlock(current->mm);
	return ERR_PTR(ret);
}

static void cumk_va_unlock_range(struct cumk_va *va)
{
	up_write(&va->arena->lock);
	mmap_read_unlock(current->mm);
}

int cumk_va_ioctl_unmap(struct cumk_ucmd *ucmd)
{
	struct cumc_unmap *cmd = ucmd->cmd;
	struct cumk_client *client = ucmd->client;
	struct cumk_mapping *m, *next;
	LIST_HEAD(unmapped);
	struct cumk_va *va;
	u64 addr;

	if (cmd->flags)
		return -EOPNOTSUPP;
	va = cumk_va_lock_range(client, cmd->addr, cmd->length);
	if (IS_ERR(va))
		return PTR_ERR(va);
	for (addr = cmd->addr; addr < cmd->addr + cmd->length; addr += m->length) {
		m = cumk_mapping_find(va, addr);
		cumk_range_remove(&va->mappings, &m->range);
		cumk_mapping_zap(va->arena, m);
		list_add(&m->unmap_link, &unmapped);
	}
	cumk_va_unlock_range(va);

	/* The PTEs are gone: now the pages may go with their allocations. */
	list_for_each_entry_safe(m, next, &unmapped, unmap_link)
		cumk_mapping_free(client, m);
	return 0;
}

static int cumk_access_check(const struct cumc_access_desc *descs, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		struct cumk_device *dev = cumk_device_get(descs[i].device);

		if (IS_ERR(dev))
			return PTR_ERR(dev);
		if (descs[i].access != CUMC_ACCESS_NONE &&
		    descs[i].access != CUMC_ACCESS_READ &&
		    descs[i].access != CUMC_ACCESS_READWRITE)
			return -EINVAL;
	}
	return 0;
}

/* Returns true when the CPU may now do less through @m than before. */
static bool cumk_mapping_set_access(struct cumk_mapping *m,
				    const struct cumc_access_desc *descs, u32 n)
{
	enum cumc_access before = cumk_mapping_cpu_access(m);
	u32 i;

	for (i = 0; i < n; i++) {
		assign_bit(descs[i].device, m->readers,
			   descs[i].access & CUMC_ACCESS_READ);
		assign_bit(descs[i].device, m->writers,
			   descs[i].access == CUMC_ACCESS_READWRITE);
	}
	return cumk_mapping_cpu_access(m) < before;
}

int cumk_va_ioctl_set_access(struct cumk_ucmd *ucmd)
{
	struct cumc_set_access *cmd = ucmd->cmd;
	struct cumc_access_desc *descs;
	struct cumk_mapping *m;
	struct cumk_va *va;
	u64 addr;
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EOPNOTSUPP;
	if (!cmd->num_descs || cmd->num_descs > cumk_num_devices())
		return -EINVAL;
	descs = memdup_user(u64_to_user_ptr(cmd->descs),
			    array_size(cmd->num_descs, sizeof(*descs)));
	if (IS_ERR(descs))
		return PTR_ERR(descs);
	ret = cumk_access_check(descs, cmd->num_descs);
	if (ret)
		goto out_free;
	va = cumk_va_lock_range(ucmd->client, cmd->addr, cmd->length);
	ret = PTR_ERR_OR_ZERO(va);
	if (ret)
		goto out_free;
	for (addr = cmd->addr; addr < cmd->addr + cmd->length; addr += m->length) {
		m = cumk_mapping_find(va, addr);
		if (cumk_mapping_set_access(m, descs, cmd->num_descs))
			cumk_mapping_zap(va->arena, m);
		/* The views made from it can do what it can, no more. */
		if (m->obj->type == CUMK_OBJ_MC && m->grant)
			cumk_grant_set(m->grant, to_cumk_mc(m->obj),
				       cumk_mapping_cpu_access(m));
	}
	cumk_va_unlock_range(va);
out_free:
	kfree(descs);
	return ret;
}

static void cumk_va_query_fill(struct cumk_va *va, struct cumk_mapping *m,
			       struct cumc_va_query *cmd)
{
	struct cumc_va_query in = *cmd;

	/* Nothing the caller left in the output members may come back. */
	*cmd = (struct cumc_va_query) {
		.size = in.size,
		.flags = in.flags,
		.addr = in.addr,
		.device = in.device,
	};
	cmd->out_va_addr = va->addr;
	cmd->out_va_length = va->length;
	if (!m)
		return;
	cmd->out_map_addr = m->addr;
	cmd->out_map_length = m->length;
	cmd->out_type = m->obj->type == CUMK_OBJ_MEM ? CUMC_VA_MEM : CUMC_VA_MULTICAST;
	if (m->obj->type == CUMK_OBJ_MEM)
		cmd->out_mem_device = to_cumk_mem(m->obj)->dev->ordinal;
	cmd->out_handle_types = m->obj->handle_types;
	cmd->out_access = cumk_mapping_device_access(m, cmd->device);
	cmd->out_access_any = cumk_mapping_cpu_access(m);
}

/*
 * With mmap_lock read and the arena's lock read held (the caller lets go
 * with cumk_va_unlock_read()), the reservation of @client holding @addr.
 */
static struct cumk_va *cumk_va_lock_read(struct cumk_client *client, u64 addr)
{
	struct cumk_arena *arena;
	struct cumk_va *va;

	mmap_read_lock(current->mm);
	arena = cumk_arena_find(client, addr);
	if (!arena)
		goto err_unlock_mm;
	down_read(&arena->lock);
	va = cumk_arena_va(arena, addr);
	if (!va)
		goto err_unlock_arena;
	return va;

err_unlock_arena:
	up_read(&arena->lock);
err_unlock_mm:
	mmap_read_unlock(current->mm);
	return NULL;
}

static void cumk_va_unlock_read(struct cumk_va *va)
{
	up_read(&va->arena->lock);
	mmap_read_unlock(current->mm);
}

int cumk_va_ioctl_query(struct cumk_ucmd *ucmd)
{
	struct cumc_va_query *cmd = ucmd->cmd;
	struct cumk_client *client = ucmd->client;
	struct cumk_object *retained = NULL;
	struct cumk_mapping *m;
	struct cumk_va *va;
	int ret = 0;

	if (cmd->flags & ~CUMC_VA_QUERY_RETAIN || cmd->__reserved ||
	    cmd->__reserved2)
		return -EOPNOTSUPP;
	ret = PTR_ERR_OR_ZERO(cumk_device_get(cmd->device));
	if (ret)
		return ret;
	va = cumk_va_lock_read(client, cmd->addr);
	if (!va)
		return -ENXIO;
	m = cumk_mapping_find(va, cmd->addr);
	cumk_va_query_fill(va, m, cmd);
	if (cmd->flags & CUMC_VA_QUERY_RETAIN) {
		if (m) {
			retained = m->obj;
			kref_get(&retained->ref);
		} else {
			ret = -ENXIO;
		}
	}
	cumk_va_unlock_read(va);
	if (!retained)
		return ret;
	return cumk_handle_retain(client, retained, &ucmd->new_handle,
				  &cmd->out_handle);
}

/*
 * The allocation mapped at [addr, addr + length), which must lie in one
 * mapping, with a new reference, and the offset of @addr in it.
 */
struct cumk_mem *cumk_va_resolve(struct cumk_client *client, u64 addr,
				 u64 length, u64 *mem_offset)
{
	struct cumk_mem *mem;
	struct cumk_mapping *m;
	struct cumk_va *va;

	va = cumk_va_lock_read(client, addr);
	if (!va)
		return ERR_PTR(-ENXIO);
	m = cumk_mapping_find(va, addr);
	if (!m || m->obj->type != CUMK_OBJ_MEM) {
		mem = ERR_PTR(-ENXIO);
	} else if (length > m->addr + m->length - addr) {
		mem = ERR_PTR(-EINVAL);
	} else {
		kref_get(&m->obj->ref);
		mem = to_cumk_mem(m->obj);
		*mem_offset = addr - m->addr;
	}
	cumk_va_unlock_read(va);
	return mem;
}

/* @m's grant, made on first use; another thread may make it at once. */
static struct cumk_grant *cumk_mapping_grant(struct cumk_mapping *m)
{
	struct cumk_grant *grant, *old;

	grant = READ_ONCE(m->grant);
	if (!grant) {
		grant = cumk_grant_create(cumk_mapping_cpu_access(m));
		if (!grant)
			return NULL;
		old = cmpxchg(&m->grant, NULL, grant);
		if (old) {
			cumk_grant_put(grant);
			grant = old;
		}
	}
	kref_get(&grant->ref);
	return grant;
}

/*
 * The multicast object whose mapping holds @addr, with a new reference,
 * the mapping's start and length and its grant, with a reference too: what
 * the CPU may do through it, now and after a later CUMC_SET_ACCESS.
 */
struct cumk_mc *cumk_va_mc_mapping(struct cumk_client *client, u64 addr,
				   u64 *map_addr, u64 *length,
				   struct cumk_grant **grant)
{
	struct cumk_mc *mc = ERR_PTR(-ENXIO);
	enum cumc_access access;
	struct cumk_mapping *m;
	struct cumk_va *va;

	va = cumk_va_lock_read(client, addr);
	if (!va)
		return mc;
	m = cumk_mapping_find(va, addr);
	if (m && m->obj->type == CUMK_OBJ_MC) {
		access = cumk_mapping_cpu_access(m);
		if (access == CUMC_ACCESS_NONE) {
			mc = ERR_PTR(-EACCES);
		} else {
			*grant = cumk_mapping_grant(m);
			if (*grant) {
				kref_get(&m->obj->ref);
				mc = to_cumk_mc(m->obj);
				*map_addr = m->addr;
				*length = m->length;
			} else {
				mc = ERR_PTR(-ENOMEM);
			}
		}
	}
	cumk_va_unlock_read(va);
	return mc;
}

/*
 * An empty shared arena of @client in this process, marked closing so
 * that nothing is placed in it any more, or NULL.
 */
static struct cumk_arena *cumk_arena_take_empty(struct cumk_client *client)
{
	struct cumk_arena *arena, *found = NULL;

	mutex_lock(&client->arenas_lock);
	list_for_each_entry(arena, &client->arenas, link) {
		if (arena->mm != current->mm)
			continue;
		down_write(&arena->lock);
		if (!arena->closing &&
		    cumk_range_map_empty(&arena->reservations)) {
			arena->closing = true;
			found = arena;
		}
		up_write(&arena->lock);
		if (found)
			break;
	}
	mutex_unlock(&client->arenas_lock);
	return found;
}

/*
 * The client's file is being closed (one of its descriptors): unmap its
 * empty arenas in this process, each of which holds the file, so that a
 * client with nothing reserved goes with its last descriptor as it did
 * when every reservation was a VMA of its own. Arenas that still hold
 * reservations stay, and keep the client, until they are unmapped whole
 * or the process exits. At exit the address space is already gone.
 */
void cumk_va_flush(struct cumk_client *client)
{
	struct cumk_arena *arena;
	u64 start, length;

	if (!current->mm || list_empty_careful(&client->arenas))
		return;
	for (;;) {
		mmap_read_lock(current->mm);
		arena = cumk_arena_take_empty(client);
		if (arena) {
			start = arena->start;
			length = arena->length;
		}
		mmap_read_unlock(current->mm);
		if (!arena)
			return;
		cumk_vm_unmap(start, length);
	}
}
