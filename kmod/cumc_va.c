// SPDX-License-Identifier: GPL-2.0
/*
 * Device address space: reservations, mappings and CPU access.
 *
 * A reservation is a VMA of /dev/cumc in the caller's process that the
 * module makes (cumk_vm_map). The VMA owns the reservation (struct cumk_va)
 * and with it a table of mappings: address range -> allocation and
 * per-device access. Nothing is populated when mapping or granting access;
 * the fault handler inserts one page at a time, allocating the backing page
 * on first touch. Unmapping or taking access away zaps the PTEs of the
 * range, so both cost what was touched, not what was mapped.
 *
 * Lock order: mmap_lock, then cumk_va.lock. Every path to a reservation
 * goes through its VMA under mmap_lock, which keeps the reservation alive.
 */
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "cumc_internal.h"

/* Bounds that keep every sum of an address and a length far from overflow. */
#define CUMC_VA_MAX_LENGTH CUMC_VM_MAX_OFFSETS
#define CUMC_VA_MAX_ALIGNMENT BIT_ULL(40)

static const struct vm_operations_struct cumk_va_vm_ops;

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
	if (m->obj->type == CUMC_OBJ_MC && m->grant)
		cumk_grant_put(m->grant);
	cumk_object_put(m->obj);
	atomic_dec(&cumk_live_mappings);
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

	lockdep_assert_held(&va->lock);
	r = cumk_range_find(&va->mappings, addr);

	return r ? container_of(r, struct cumk_mapping, range) : NULL;
}

static void cumk_va_destroy(struct cumk_va *va)
{
	cumk_range_map_destroy(&va->mappings, cumk_mapping_release,
			       va->client);
	cumk_vm_free_offsets(va->pgoff);
	cumk_usage_uncharge(va->client->usage, CUMC_QUOTA_RANGES, 1);
	atomic_dec(&cumk_live_vas);
	kfree(va);
}

static vm_fault_t cumk_va_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct cumk_va *va = vma->vm_private_data;
	unsigned long addr = vmf->address & PAGE_MASK;
	enum cumc_access access;
	struct cumk_mapping *m;
	unsigned long vm_flags = vma->vm_flags;
	unsigned long pfn;
	vm_fault_t ret;
	int idx, err;

	down_read(&va->lock);
	idx = srcu_read_lock(&cumk_device_srcu);
	m = cumk_mapping_find(va, addr);
	/* Multicast addresses take multimem operations only (the views). */
	access = m && m->obj->type == CUMC_OBJ_MEM ?
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
	/* Zaps hold va->lock for writing, so they see every page we insert. */
	if (!READ_ONCE(m->populated))
		WRITE_ONCE(m->populated, true);
	ret = vmf_insert_pfn_prot(vma, addr, pfn, vm_get_page_prot(vm_flags));
out:
	srcu_read_unlock(&cumk_device_srcu, idx);
	up_read(&va->lock);
	return ret;
}

/*
 * A write to a page inserted read-only. Without this hook the kernel would
 * make a shared PFN mapping writable on its own.
 */
static vm_fault_t cumk_va_pfn_mkwrite(struct vm_fault *vmf)
{
	struct cumk_va *va = vmf->vma->vm_private_data;
	struct cumk_mapping *m;
	bool writable;

	down_read(&va->lock);
	m = cumk_mapping_find(va, vmf->address & PAGE_MASK);
	writable = m && m->obj->type == CUMC_OBJ_MEM &&
		   cumk_mapping_cpu_access(m) == CUMC_ACCESS_READWRITE;
	up_read(&va->lock);
	return writable ? 0 : VM_FAULT_SIGSEGV;
}

static void cumk_va_vm_close(struct vm_area_struct *vma)
{
	cumk_va_destroy(vma->vm_private_data);
}

static const struct vm_operations_struct cumk_va_vm_ops = {
	.fault = cumk_va_fault,
	.pfn_mkwrite = cumk_va_pfn_mkwrite,
	.close = cumk_va_vm_close,
	.may_split = cumk_vm_may_split,
	.mremap = cumk_vm_mremap,
	.mprotect = cumk_vm_mprotect,
};

int cumk_va_ioctl_reserve(struct cumk_ucmd *ucmd)
{
	struct cumc_va_reserve *cmd = ucmd->cmd;
	u64 granularity = cumk_device_granularity();
	struct cumk_vm_request req = {
		.addr = cmd->addr,
		.length = cmd->length,
		.alignment = max(cmd->alignment, granularity),
		.writable = true,
		.vm_ops = &cumk_va_vm_ops,
	};
	struct cumk_client *client = ucmd->client;
	unsigned long addr;
	struct cumk_va *va;
	int ret;

	if (cmd->flags)
		return -EOPNOTSUPP;
	if (!cmd->length || cmd->length > CUMC_VA_MAX_LENGTH ||
	    !IS_ALIGNED(cmd->length, granularity) ||
	    (cmd->alignment && !is_power_of_2(cmd->alignment)) ||
	    req.alignment > CUMC_VA_MAX_ALIGNMENT ||
	    !IS_ALIGNED(cmd->addr, granularity) || cmd->addr >= TASK_SIZE)
		return -EINVAL;

	va = kzalloc(sizeof(*va), CUMC_GFP);
	if (!va)
		return -ENOMEM;
	va->client = client;
	init_rwsem(&va->lock);
	cumk_range_map_init(&va->mappings);
	ret = cumk_usage_charge(client->usage, CUMC_QUOTA_RANGES, 1);
	if (ret)
		goto err_free_va;
	ret = cumk_vm_alloc_offsets(va, &va->pgoff);
	if (ret)
		goto err_uncharge;
	atomic_inc(&cumk_live_vas);
	req.pgoff = va->pgoff;
	req.private = va;
	addr = cumk_vm_map(ucmd->filp, &req);
	if (!req.taken)
		cumk_va_destroy(va);
	if (IS_ERR_VALUE(addr))
		return (long)addr;
	cmd->out_addr = addr;
	ucmd->new_map_addr = addr;
	ucmd->new_map_length = cmd->length;
	return 0;

err_uncharge:
	cumk_usage_uncharge(client->usage, CUMC_QUOTA_RANGES, 1);
err_free_va:
	kfree(va);
	return ret;
}

/* The VMA of a reservation of @client holding @addr. */
static struct vm_area_struct *cumk_va_find(struct cumk_client *client, u64 addr)
{
	struct vm_area_struct *vma;

	mmap_assert_locked(current->mm);
	if (addr >= TASK_SIZE)
		return NULL;
	vma = vma_lookup(current->mm, addr);
	if (!vma || vma->vm_ops != &cumk_va_vm_ops)
		return NULL;
	if (((struct cumk_va *)vma->vm_private_data)->client != client)
		return NULL;
	return vma;
}

static bool cumk_va_contains(struct vm_area_struct *vma, u64 addr, u64 length)
{
	return addr >= vma->vm_start && length <= vma->vm_end - addr;
}

/* The file offset of @addr, for cumk_vm_zap(). */
static unsigned long cumk_va_pgoff(struct vm_area_struct *vma, u64 addr)
{
	return vma->vm_pgoff + ((addr - vma->vm_start) >> PAGE_SHIFT);
}

/* Zap what was ever inserted for @m: nothing when it was never touched. */
static void cumk_mapping_zap(struct vm_area_struct *vma, struct cumk_mapping *m)
{
	if (m->obj->type == CUMC_OBJ_MEM && READ_ONCE(m->populated))
		cumk_vm_zap(cumk_va_pgoff(vma, m->addr), m->length);
}

/*
 * The unmap of a reservation being freed failed (no memory for the VMA
 * tree, or a fatal signal): the reservation is still there, so it may be
 * freed again. Only the free that set @va's flag clears it; @va lives as
 * long as the VMA that names it, which a failed munmap left in place
 * unless another thread unmapped the range meanwhile, and then no VMA of
 * this client at @addr names it.
 */
static void cumk_va_free_failed(struct cumk_client *client, u64 addr,
				struct cumk_va *va)
{
	struct vm_area_struct *vma;

	mmap_read_lock(current->mm);
	vma = cumk_va_find(client, addr);
	if (vma && vma->vm_start == addr && vma->vm_private_data == va) {
		down_write(&va->lock);
		va->freeing = false;
		up_write(&va->lock);
	}
	mmap_read_unlock(current->mm);
}

int cumk_va_ioctl_free(struct cumk_ucmd *ucmd)
{
	struct cumc_va_free *cmd = ucmd->cmd;
	struct cumk_client *client = ucmd->client;
	struct vm_area_struct *vma;
	struct cumk_va *va;
	int ret = 0;

	if (cmd->flags)
		return -EOPNOTSUPP;
	mmap_read_lock(current->mm);
	vma = cumk_va_find(client, cmd->addr);
	if (!vma || vma->vm_start != cmd->addr) {
		ret = -ENXIO;
		goto out_unlock;
	}
	va = vma->vm_private_data;
	if (vma->vm_end - vma->vm_start != cmd->length) {
		ret = -EINVAL;
		goto out_unlock;
	}
	/* Decided under the lock: of two concurrent frees, one unmaps. */
	down_write(&va->lock);
	if (va->freeing)
		ret = -ENXIO;
	else if (!cumk_range_map_empty(&va->mappings))
		ret = -EBUSY;
	else
		va->freeing = true;
	up_write(&va->lock);
out_unlock:
	mmap_read_unlock(current->mm);
	if (ret)
		return ret;
	ret = vm_munmap(cmd->addr, cmd->length);
	if (ret)
		cumk_va_free_failed(client, cmd->addr, va);
	return ret;
}

/* Range checks shared by MAP, UNMAP and SET_ACCESS. */
static int cumk_va_check_range(u64 addr, u64 length)
{
	u64 granularity = cumk_device_granularity();

	if (!length || length > CUMC_VA_MAX_LENGTH ||
	    !IS_ALIGNED(addr, granularity) || !IS_ALIGNED(length, granularity))
		return -EINVAL;
	return 0;
}

static int cumk_va_insert(struct cumk_va *va, struct cumk_mapping *m)
{
	int ret;

	down_write(&va->lock);
	if (va->freeing)
		ret = -ENXIO;
	else
		ret = cumk_range_insert(&va->mappings, &m->range, m->addr,
					m->length);
	/* Counted before an unmap, once the lock is dropped, can free it. */
	if (!ret)
		atomic_inc(&cumk_live_mappings);
	up_write(&va->lock);
	return ret;
}

/*
 * What a mapping of @obj may cover: a whole allocation, or the start of a
 * multicast object once its team is ready (which may mean waiting).
 */
static int cumk_map_check_object(struct cumk_object *obj, u64 length)
{
	struct cumk_mc *mc;

	if (obj->type == CUMC_OBJ_MEM) {
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
	struct vm_area_struct *vma;
	struct cumk_device *dev;
	struct cumk_object *obj;
	struct cumk_mapping *m;
	int ret;

	if (cmd->flags)
		return -EOPNOTSUPP;
	ret = cumk_va_check_range(cmd->addr, cmd->length);
	if (ret || cmd->offset)
		return -EINVAL;
	obj = cumk_handle_get(client, cmd->handle, CUMC_OBJ_ANY);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	ret = cumk_map_check_object(obj, cmd->length);
	if (ret)
		goto err_put;
	ret = cumk_usage_charge_mapping(client->usage, cmd->length);
	if (ret)
		goto err_put;
	m = kzalloc(sizeof(*m), CUMC_GFP);
	if (!m) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	m->obj = obj;
	m->addr = cmd->addr;
	m->length = cmd->length;
	/* Read now: once inserted, an unmap may free what m holds. */
	dev = obj->type == CUMC_OBJ_MEM ? to_cumk_mem(obj)->dev : NULL;

	mmap_read_lock(current->mm);
	vma = cumk_va_find(client, cmd->addr);
	if (!vma || !cumk_va_contains(vma, cmd->addr, cmd->length)) {
		ret = -ENXIO;
		goto err_unlock_mm;
	}
	ret = cumk_va_insert(vma->vm_private_data, m);
	if (ret)
		goto err_unlock_mm;
	cumk_stat_add(dev, CUMC_STAT_MAPS, 1);
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

/* Locks for an operation on whole mappings: mmap_lock, then va->lock. */
static int cumk_va_lock_range(struct cumk_client *client, u64 addr, u64 length,
			      struct vm_area_struct **vmap)
{
	struct vm_area_struct *vma;
	struct cumk_va *va;
	int ret;

	ret = cumk_va_check_range(addr, length);
	if (ret)
		return ret;
	mmap_read_lock(current->mm);
	vma = cumk_va_find(client, addr);
	if (!vma || !cumk_va_contains(vma, addr, length)) {
		mmap_read_unlock(current->mm);
		return -ENXIO;
	}
	va = vma->vm_private_data;
	down_write(&va->lock);
	ret = cumk_va_whole_mappings(va, addr, length);
	if (ret) {
		up_write(&va->lock);
		mmap_read_unlock(current->mm);
		return ret;
	}
	*vmap = vma;
	return 0;
}

static void cumk_va_unlock_range(struct vm_area_struct *vma)
{
	struct cumk_va *va = vma->vm_private_data;

	up_write(&va->lock);
	mmap_read_unlock(current->mm);
}

int cumk_va_ioctl_unmap(struct cumk_ucmd *ucmd)
{
	struct cumc_unmap *cmd = ucmd->cmd;
	struct cumk_client *client = ucmd->client;
	struct vm_area_struct *vma;
	struct cumk_mapping *m, *next;
	LIST_HEAD(unmapped);
	struct cumk_va *va;
	u64 addr;
	int ret;

	if (cmd->flags)
		return -EOPNOTSUPP;
	ret = cumk_va_lock_range(client, cmd->addr, cmd->length, &vma);
	if (ret)
		return ret;
	va = vma->vm_private_data;
	for (addr = cmd->addr; addr < cmd->addr + cmd->length; addr += m->length) {
		m = cumk_mapping_find(va, addr);
		cumk_range_remove(&va->mappings, &m->range);
		cumk_mapping_zap(vma, m);
		list_add(&m->unmap_link, &unmapped);
	}
	cumk_va_unlock_range(vma);

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
	struct vm_area_struct *vma;
	struct cumk_mapping *m;
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
	ret = cumk_va_lock_range(ucmd->client, cmd->addr, cmd->length, &vma);
	if (ret)
		goto out_free;
	for (addr = cmd->addr; addr < cmd->addr + cmd->length; addr += m->length) {
		m = cumk_mapping_find(vma->vm_private_data, addr);
		if (cumk_mapping_set_access(m, descs, cmd->num_descs))
			cumk_mapping_zap(vma, m);
		/* The views made from it can do what it can, no more. */
		if (m->obj->type == CUMC_OBJ_MC && m->grant)
			cumk_grant_set(m->grant, to_cumk_mc(m->obj),
				       cumk_mapping_cpu_access(m));
	}
	cumk_va_unlock_range(vma);
out_free:
	kfree(descs);
	return ret;
}

static void cumk_va_query_fill(struct vm_area_struct *vma,
			       struct cumk_mapping *m, struct cumc_va_query *cmd)
{
	struct cumc_va_query in = *cmd;

	/* Nothing the caller left in the output members may come back. */
	*cmd = (struct cumc_va_query) {
		.size = in.size,
		.flags = in.flags,
		.addr = in.addr,
		.device = in.device,
	};
	cmd->out_va_addr = vma->vm_start;
	cmd->out_va_length = vma->vm_end - vma->vm_start;
	if (!m)
		return;
	cmd->out_map_addr = m->addr;
	cmd->out_map_length = m->length;
	cmd->out_type = m->obj->type == CUMC_OBJ_MEM ? CUMC_VA_MEM : CUMC_VA_MULTICAST;
	if (m->obj->type == CUMC_OBJ_MEM)
		cmd->out_mem_device = to_cumk_mem(m->obj)->dev->ordinal;
	cmd->out_handle_types = m->obj->handle_types;
	cmd->out_access = cumk_mapping_device_access(m, cmd->device);
	cmd->out_access_any = cumk_mapping_cpu_access(m);
}

int cumk_va_ioctl_query(struct cumk_ucmd *ucmd)
{
	struct cumc_va_query *cmd = ucmd->cmd;
	struct cumk_client *client = ucmd->client;
	struct cumk_object *retained = NULL;
	struct vm_area_struct *vma;
	struct cumk_mapping *m;
	struct cumk_va *va;
	int ret = 0;

	if (cmd->flags & ~CUMC_VA_QUERY_RETAIN || cmd->__reserved ||
	    cmd->__reserved2)
		return -EOPNOTSUPP;
	ret = PTR_ERR_OR_ZERO(cumk_device_get(cmd->device));
	if (ret)
		return ret;
	mmap_read_lock(current->mm);
	vma = cumk_va_find(client, cmd->addr);
	if (!vma) {
		mmap_read_unlock(current->mm);
		return -ENXIO;
	}
	va = vma->vm_private_data;
	down_read(&va->lock);
	m = cumk_mapping_find(va, cmd->addr);
	cumk_va_query_fill(vma, m, cmd);
	if (cmd->flags & CUMC_VA_QUERY_RETAIN) {
		if (m) {
			retained = m->obj;
			kref_get(&retained->ref);
		} else {
			ret = -ENXIO;
		}
	}
	up_read(&va->lock);
	mmap_read_unlock(current->mm);
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
	struct cumk_mem *mem = ERR_PTR(-ENXIO);
	struct vm_area_struct *vma;
	struct cumk_mapping *m;
	struct cumk_va *va;

	mmap_read_lock(current->mm);
	vma = cumk_va_find(client, addr);
	if (!vma)
		goto out_unlock_mm;
	va = vma->vm_private_data;
	down_read(&va->lock);
	m = cumk_mapping_find(va, addr);
	if (!m || m->obj->type != CUMC_OBJ_MEM) {
		mem = ERR_PTR(-ENXIO);
	} else if (length > m->addr + m->length - addr) {
		mem = ERR_PTR(-EINVAL);
	} else {
		kref_get(&m->obj->ref);
		mem = to_cumk_mem(m->obj);
		*mem_offset = addr - m->addr;
	}
	up_read(&va->lock);
out_unlock_mm:
	mmap_read_unlock(current->mm);
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
	struct vm_area_struct *vma;
	enum cumc_access access;
	struct cumk_mapping *m;
	struct cumk_va *va;

	mmap_read_lock(current->mm);
	vma = cumk_va_find(client, addr);
	if (!vma)
		goto out_unlock_mm;
	va = vma->vm_private_data;
	down_read(&va->lock);
	m = cumk_mapping_find(va, addr);
	if (m && m->obj->type == CUMC_OBJ_MC) {
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
	up_read(&va->lock);
out_unlock_mm:
	mmap_read_unlock(current->mm);
	return mc;
}
