// SPDX-License-Identifier: GPL-2.0
/*
 * Physical allocations: device memory charged to a device's capacity and
 * placed by its backend. An allocation holds its device memory until it
 * is freed or its device is lost, whichever comes first; after a loss the
 * object stays, without memory, until its last holder lets go.
 */
#include <linux/list.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "cumc_internal.h"

#define CUMK_HANDLE_TYPES_ALL (CUMC_HANDLE_FD | CUMC_HANDLE_FABRIC)

/*
 * 0 while @mem's device works and @mem has its memory, -ENOLINK once it
 * is lost: a GPU back from its node's loss (cumc_loss.c) does not bring
 * back what the loss took.
 */
int cumk_mem_check(struct cumk_mem *mem)
{
	int ret = cumk_device_check(mem->dev);

	/* Pairs with the loss's mems_lock: unbacked before revived. */
	smp_rmb();
	if (!ret && !READ_ONCE(mem->backed))
		ret = -ENOLINK;
	return ret;
}

/*
 * The page frame at @index of @mem, backed on first use. The caller holds
 * cumk_device_srcu's read lock until it has inserted the frame, so that a
 * loss waits for it.
 */
int cumk_mem_pfn(struct cumk_mem *mem, pgoff_t index, unsigned long *pfn)
{
	/* Once lost (and then no longer backed), nothing is left to map. */
	if (cumk_mem_check(mem))
		return -ENOLINK;
	/*
	 * Another node's memory only under a lease from the node vouching
	 * for it: once that ran out, the node is being lost here.
	 */
	if (mem->dev->remote && !cumk_lease_valid(mem->lease_node))
		return -ENOLINK;
	return mem->dev->ops->mem_pfn(mem, index, pfn);
}

/*
 * Give @mem's device memory back, under the device's mems_lock: whichever
 * of a free and a loss comes second finds nothing left to give.
 */
static void cumk_mem_unback_locked(struct cumk_mem *mem)
{
	struct cumk_device *dev = mem->dev;

	lockdep_assert_held(&dev->mems_lock);
	if (!mem->backed)
		return;
	list_del(&mem->dev_link);
	WRITE_ONCE(mem->backed, false);
	dev->ops->mem_free(mem);
	/* Another node's GPU's capacity is that node's to count. */
	if (!dev->remote)
		cumk_device_uncharge(dev, mem->length);
}

/*
 * @dev is lost and faults of its memory fail: every allocation on it gives
 * its memory back now, not when its holders let go.
 */
void cumk_mem_lose_device(struct cumk_device *dev)
{
	struct cumk_mem *mem, *next;

	mutex_lock(&dev->mems_lock);
	list_for_each_entry_safe(mem, next, &dev->mems, dev_link)
		cumk_mem_unback_locked(mem);
	mutex_unlock(&dev->mems_lock);
}

/* Free @mem, whose last holder let go; for imported memory, cumc_remote.c. */
void cumk_mem_free(struct cumk_mem *mem)
{
	mutex_lock(&mem->dev->mems_lock);
	cumk_mem_unback_locked(mem);
	mutex_unlock(&mem->dev->mems_lock);
	if (mem->dev->remote)
		cumk_lease_put(mem->lease_node, mem->lease_gen);
	mem_cgroup_put(mem->memcg);
	cumk_stat_add(mem->dev, CUMK_STAT_OBJECTS, -1);
	atomic_dec(&cumk_live_mems);
	mutex_destroy(&mem->touch_lock);
	kfree(mem);
}

static void cumk_mem_destroy(struct cumk_object *obj)
{
	cumk_mem_free(to_cumk_mem(obj));
}

static const struct cumk_object_ops cumk_mem_ops = {
	.destroy = cumk_mem_destroy,
};

/* List @mem, backed now, on its device, unless the device was lost. */
static int cumk_mem_list_backed(struct cumk_mem *mem)
{
	struct cumk_device *dev = mem->dev;
	int ret;

	mutex_lock(&dev->mems_lock);
	/* A loss sweeps the list after it marks the device: look again. */
	ret = cumk_device_check(dev);
	if (!ret) {
		list_add_tail(&mem->dev_link, &dev->mems);
		WRITE_ONCE(mem->backed, true);
	}
	mutex_unlock(&dev->mems_lock);
	return ret;
}

/* Charge the device, have its backend place @mem, and list it there. */
static int cumk_mem_back(struct cumk_mem *mem)
{
	struct cumk_device *dev = mem->dev;
	int ret;

	if (cumk_fault_hit(CUMC_FAULT_MEM_EXHAUSTED, dev))
		return -ENOSPC;
	ret = cumk_device_charge(dev, mem->length);
	if (ret)
		return ret;
	ret = dev->ops->mem_alloc(mem);
	if (ret)
		goto err_uncharge;
	ret = cumk_mem_list_backed(mem);
	if (ret)
		goto err_free;
	return 0;

err_free:
	dev->ops->mem_free(mem);
err_uncharge:
	cumk_device_uncharge(dev, mem->length);
	return ret;
}

static void cumk_mem_share_work_fn(struct work_struct *work);

static struct cumk_mem *cumk_mem_alloc(struct cumk_device *dev, u64 length)
{
	struct cumk_mem *mem;

	mem = kzalloc(sizeof(*mem), CUMK_GFP);
	if (!mem)
		return NULL;
	mem->dev = dev;
	mem->length = length;
	mutex_init(&mem->touch_lock);
	xa_init_flags(&mem->pages, XA_FLAGS_ACCOUNT);
	INIT_WORK(&mem->share_work, cumk_mem_share_work_fn);
	return mem;
}

/*
 * An allocation another node made on its GPU @dev and shared with this
 * one: @length bytes at @extents (taken over, whatever happens), charged
 * to @usage as one object, its end left to @ops (cumc_remote.c), which
 * calls cumk_mem_free(). It is mapped under the lease of node @lease_node
 * (cumc_lease.c), which it keeps renewing while it lives.
 */
struct cumk_mem *cumk_mem_create_remote(struct cumk_usage *usage,
					struct cumk_device *dev, u64 length,
					u32 handle_types,
					struct cumk_extent *extents,
					unsigned int nr_extents,
					const struct cumk_object_ops *ops,
					u32 lease_node)
{
	struct cumk_mem *mem;
	int ret;

	mem = cumk_mem_alloc(dev, length);
	ret = -ENOMEM;
	if (!mem)
		goto err_free_extents;
	ret = cumk_object_charge(usage, &mem->obj);
	if (ret)
		goto err_free_mem;
	mem->extents = extents;
	mem->nr_extents = nr_extents;
	ret = cumk_mem_list_backed(mem);
	if (ret)
		goto err_uncharge;
	mem->lease_node = lease_node;
	mem->lease_gen = cumk_lease_get(lease_node);
	cumk_object_init(&mem->obj, CUMK_OBJ_MEM, handle_types, ops);
	atomic_inc(&cumk_live_mems);
	cumk_stat_add(dev, CUMK_STAT_OBJECTS, 1);
	return mem;

err_uncharge:
	cumk_object_uncharge(&mem->obj);
err_free_mem:
	mutex_destroy(&mem->touch_lock);
	kfree(mem);
err_free_extents:
	kvfree(extents);
	return ERR_PTR(ret);
}

int cumk_mem_ioctl_create(struct cumk_ucmd *ucmd)
{
	struct cumc_mem_create *cmd = ucmd->cmd;
	struct cumk_client *client = ucmd->client;
	struct cumk_device *dev;
	struct cumk_mem *mem;
	int ret;

	if (cmd->flags || cmd->handle_types & ~CUMK_HANDLE_TYPES_ALL)
		return -EOPNOTSUPP;
	dev = cumk_device_get(cmd->device);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	if (cmd->handle_types & CUMC_HANDLE_FABRIC &&
	    READ_ONCE(client->channel) == CUMK_NO_CHANNEL)
		return -EPERM;
	if (!cmd->length || !IS_ALIGNED(cmd->length, cumk_device_granularity()))
		return -EINVAL;

	mem = cumk_mem_alloc(dev, cmd->length);
	if (!mem)
		return -ENOMEM;
	/* What the module keeps for it is charged to its creator's cgroup. */
	mem->memcg = get_mem_cgroup_from_mm(current->mm);
	ret = cumk_object_charge(client->usage, &mem->obj);
	if (ret)
		goto err_free_mem;
	ret = cumk_mem_back(mem);
	if (ret)
		goto err_uncharge;
	cumk_object_init(&mem->obj, CUMK_OBJ_MEM, cmd->handle_types,
			 &cumk_mem_ops);
	atomic_inc(&cumk_live_mems);
	cumk_stat_add(dev, CUMK_STAT_OBJECTS, 1);

	ret = cumk_ucmd_new_object(ucmd, &mem->obj, &cmd->out_handle);
	if (ret)
		cumk_object_put(&mem->obj);
	return ret;

err_uncharge:
	cumk_object_uncharge(&mem->obj);
err_free_mem:
	mem_cgroup_put(mem->memcg);
	mutex_destroy(&mem->touch_lock);
	kfree(mem);
	return ret;
}

int cumk_mem_ioctl_info(struct cumk_ucmd *ucmd)
{
	struct cumc_mem_info *cmd = ucmd->cmd;
	struct cumk_object *obj;
	struct cumk_mem *mem;
	int ret;

	if (cmd->flags)
		return -EOPNOTSUPP;
	obj = cumk_handle_get(ucmd->client, cmd->handle, CUMK_OBJ_MEM);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	mem = to_cumk_mem(obj);
	ret = cumk_mem_check(mem);
	if (!ret) {
		cmd->out_device = mem->dev->ordinal;
		cmd->out_handle_types = mem->obj.handle_types;
		cmd->out_length = mem->length;
	}
	cumk_object_put(obj);
	return ret;
}

/*
 * Back and zero every page of @mem, a fabric GPU's, for another node to
 * map without asking; what that costs the module is charged to the memory
 * cgroup of @mem's creator, whoever asks.
 */
static int cumk_mem_share(struct cumk_mem *mem)
{
	struct mem_cgroup *old;
	int ret;

	if (READ_ONCE(mem->shared))
		return 0;
	old = set_active_memcg(mem->memcg);
	ret = mem->dev->ops->mem_share(mem);
	set_active_memcg(old);
	return ret;
}

/* Zeroing for sharing runs here, beside whoever asked for it. */
#define CUMK_MEM_SHARE_INLINE_PAGES 2048
static struct workqueue_struct *cumk_mem_share_wq;

static void cumk_mem_share_work_fn(struct work_struct *work)
{
	struct cumk_mem *mem = container_of(work, struct cumk_mem, share_work);

	cumk_mem_share(mem);
	atomic_set(&mem->sharing, 0);
	cumk_object_put(&mem->obj);
}

/*
 * Have @mem shared (cumk_mem_share()) by a worker, not by the caller (the
 * IMEX daemon, whose thread other nodes' calls wait for): 0 once it is,
 * -EINPROGRESS while it is being done (the caller asks again), or why it
 * cannot be (-EOPNOTSUPP, -ENOLINK). A failed attempt is made again at
 * the next request.
 */
int cumk_mem_share_start(struct cumk_mem *mem)
{
	struct cumk_device *dev = mem->dev;
	int ret;

	if (!dev->fabric || dev->remote || !dev->ops->mem_share)
		return -EOPNOTSUPP;
	ret = cumk_mem_check(mem);
	if (ret || READ_ONCE(mem->shared))
		return ret;
	/* Little left to zero (8 MiB at most): not worth a worker. */
	if ((mem->length >> PAGE_SHIFT) - READ_ONCE(mem->nr_touched) <=
	    CUMK_MEM_SHARE_INLINE_PAGES)
		return cumk_mem_share(mem);
	if (!atomic_cmpxchg(&mem->sharing, 0, 1)) {
		kref_get(&mem->obj.ref);
		queue_work(cumk_mem_share_wq, &mem->share_work);
	}
	return -EINPROGRESS;
}

int cumk_mem_share_init(void)
{
	cumk_mem_share_wq = alloc_workqueue("cumc_share", WQ_UNBOUND, 0);
	return cumk_mem_share_wq ? 0 : -ENOMEM;
}

/* At unload: the zeroing under way ends first. */
void cumk_mem_share_exit(void)
{
	destroy_workqueue(cumk_mem_share_wq);
}

/*
 * Share [@offset, +@length) of @mem, memory of a GPU of the fabric, with
 * another node: every page backed and zeroed, and where the bytes are
 * on the GPU into @out (at most @max runs, offsets from @offset). The
 * number of runs, or -EOPNOTSUPP (memory that cannot leave this node),
 * -ENOLINK (lost), -E2BIG (too scattered for one call).
 */
int cumk_mem_share_range(struct cumk_mem *mem, u64 offset, u64 length,
			 struct cumk_remote_extent *out, unsigned int max)
{
	struct cumk_device *dev = mem->dev;
	u64 end = offset + length;
	unsigned int i, n = 0;
	int ret;

	/* Another node's memory was shared by its node already. */
	if (!dev->fabric || (!dev->remote && !dev->ops->mem_share))
		return -EOPNOTSUPP;
	ret = cumk_mem_check(mem) ?: dev->remote ? 0 : cumk_mem_share(mem);
	if (ret)
		return ret;
	mutex_lock(&dev->mems_lock);
	ret = mem->backed ? 0 : -ENOLINK;
	for (i = 0; !ret && i < mem->nr_extents; i++) {
		const struct cumk_extent *e = &mem->extents[i];
		u64 from = max(e->mem_offset, offset);
		u64 to = min(e->mem_offset + e->length, end);

		if (from >= to)
			continue;
		if (n == max) {
			ret = -E2BIG;
			break;
		}
		out[n].mem_offset = cpu_to_le64(from - offset);
		out[n].dev_offset = cpu_to_le64(e->dev_offset + from -
						e->mem_offset);
		out[n].length = cpu_to_le64(to - from);
		n++;
	}
	mutex_unlock(&dev->mems_lock);
	return ret ?: n;
}

/*
 * The @n runs another node sent, checked against its GPU @dev: page-aligned
 * runs inside its memory that cover @length bytes in order. -EPROTO when
 * they do not.
 */
struct cumk_extent *cumk_mem_extents_import(const struct cumk_remote_extent *in,
					    unsigned int n,
					    struct cumk_device *dev,
					    u64 length)
{
	struct cumk_extent *extents;
	u64 placed = 0;
	unsigned int i;

	if (!n)
		return ERR_PTR(-EPROTO);
	extents = kvcalloc(n, sizeof(*extents), CUMK_GFP);
	if (!extents)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < n; i++) {
		struct cumk_extent *e = &extents[i];

		e->mem_offset = le64_to_cpu(in[i].mem_offset);
		e->dev_offset = le64_to_cpu(in[i].dev_offset);
		e->length = le64_to_cpu(in[i].length);
		if (e->mem_offset != placed || !e->length ||
		    !PAGE_ALIGNED(e->dev_offset) || !PAGE_ALIGNED(e->length) ||
		    e->length > length - placed ||
		    e->dev_offset > dev->mem_total ||
		    e->length > dev->mem_total - e->dev_offset)
			break;
		placed += e->length;
	}
	if (i < n || placed != length) {
		kvfree(extents);
		return ERR_PTR(-EPROTO);
	}
	return extents;
}
