// SPDX-License-Identifier: GPL-2.0
/*
 * The fabric page table: for each member of a multicast object, which
 * memory is bound at each multicast offset (struct cumk_bind in the
 * member's range map), under the object's lock.
 *
 * A binding holds its memory and the binder's charge. Unbinding zaps the
 * member's views in every process before the memory is let go, so no PTE
 * outlives the binding it came from. The member views (cumc_view.c) find
 * their pages here.
 */
#include <linux/moduleparam.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "cumc_internal.h"

static unsigned long mc_page_size = SZ_512M;

module_param_cb(mc_page_size, &cumk_param_ops_page_pow2, &mc_page_size, 0444);
MODULE_PARM_DESC(mc_page_size,
		 "Fabric page size in bytes, the largest recommended multicast granularity (default 512 MiB)");

/* Multicast bindings map device memory: the allocation granularity. */
u64 cumk_fabric_granularity(void)
{
	return cumk_device_granularity();
}

u64 cumk_fabric_page_size(void)
{
	return max_t(u64, mc_page_size, cumk_fabric_granularity());
}

static void cumk_bind_free(struct cumk_bind *b)
{
	cumk_usage_uncharge_bind(b->usage, b->length);
	cumk_usage_put(b->usage);
	cumk_stat_add(b->mem->dev, CUMK_STAT_BOUND_BYTES, -(s64)b->length);
	cumk_object_put(&b->mem->obj);
	atomic_dec(&cumk_live_binds);
	kfree(b);
}

static void cumk_bind_release(struct cumk_range *r, void *unused)
{
	cumk_bind_free(container_of(r, struct cumk_bind, range));
}

static struct cumk_bind *cumk_bind_of(struct cumk_range *r)
{
	return r ? container_of(r, struct cumk_bind, range) : NULL;
}

/* The binding of member @slot holding @mc_offset, or NULL. */
static struct cumk_bind *cumk_fabric_find(struct cumk_mc *mc, u32 slot,
					  u64 mc_offset)
{
	lockdep_assert_held(&mc->lock);
	return cumk_bind_of(cumk_range_find(&mc->members[slot].binds,
					    mc_offset));
}

static int cumk_fabric_check(struct cumk_mc *mc, struct cumk_device *member,
			     struct cumk_bind *b)
{
	u64 granularity = cumk_fabric_granularity();

	if (!b->length || !IS_ALIGNED(b->mc_offset, granularity) ||
	    !IS_ALIGNED(b->mem_offset, granularity) ||
	    !IS_ALIGNED(b->length, granularity))
		return -EINVAL;
	if (b->mc_offset > mc->length || b->length > mc->length - b->mc_offset)
		return -EINVAL;
	if (b->mem_offset > b->mem->length ||
	    b->length > b->mem->length - b->mem_offset)
		return -EINVAL;
	if (b->mem->dev != member)
		return -EINVAL;
	/* A shareable team may reach other processes: so must its memory. */
	if (mc->obj.handle_types && !b->mem->obj.handle_types)
		return -EINVAL;
	return 0;
}

/* Insert @b for @member. */
static int cumk_fabric_insert(struct cumk_mc *mc, struct cumk_device *member,
			      struct cumk_bind *b)
{
	int slot, ret;

	down_write(&mc->lock);
	slot = cumk_team_slot_of(mc, member);
	ret = slot < 0 ? slot :
	      cumk_range_insert(&mc->members[slot].binds, &b->range,
				b->mc_offset, b->length);
	up_write(&mc->lock);
	return ret;
}

/*
 * Bind [@mem_offset, +@length) of @mem at @mc_offset for @member (a device
 * of any node), charged to @usage, the binder's. Takes over the caller's
 * reference on @mem, even on failure.
 */
int cumk_fabric_bind(struct cumk_mc *mc, struct cumk_device *member,
		     struct cumk_mem *mem,
		     u64 mem_offset, u64 mc_offset, u64 length,
		     struct cumk_usage *usage)
{
	struct cumk_bind *b;
	int ret;

	b = kzalloc(sizeof(*b), CUMK_GFP);
	if (!b) {
		cumk_object_put(&mem->obj);
		return -ENOMEM;
	}
	b->mem = mem;
	b->mem_offset = mem_offset;
	b->mc_offset = mc_offset;
	b->length = length;
	ret = cumk_fabric_check(mc, member, b);
	if (ret)
		goto err_free;
	ret = cumk_usage_charge_bind(usage, length);
	if (ret)
		goto err_free;
	b->usage = cumk_usage_get(usage);
	ret = -ENOSPC;
	if (cumk_fault_hit(CUMC_FAULT_BIND_NO_RESOURCES, mem->dev))
		goto err_uncharge;
	atomic_inc(&cumk_live_binds);
	cumk_stat_add(mem->dev, CUMK_STAT_BOUND_BYTES, length);
	ret = cumk_fabric_insert(mc, member, b);
	if (ret) {
		/* b was never visible: it goes the way an unbound one does. */
		cumk_bind_free(b);
		return ret;
	}
	return 0;

err_uncharge:
	cumk_usage_uncharge_bind(usage, length);
	cumk_usage_put(usage);
err_free:
	cumk_object_put(&mem->obj);
	kfree(b);
	return ret;
}

/* The view file offset of member @slot's multicast offset 0. */
unsigned long cumk_fabric_view_pgoff(struct cumk_mc *mc, u32 slot)
{
	return mc->pgoff + ((slot * mc->length) >> PAGE_SHIFT);
}

/*
 * The binding of @member that is exactly [@mc_offset, +@length), and its
 * member's slot: -ENXIO when there is none, -EPERM when @who is not NULL
 * and was not opened by the user who opened the binder's client.
 */
static struct cumk_bind *cumk_fabric_find_exact(struct cumk_mc *mc,
						struct cumk_device *member,
						u64 mc_offset, u64 length,
						struct cumk_usage *who,
						int *slot)
{
	struct cumk_bind *b = NULL;

	lockdep_assert_held(&mc->lock);
	*slot = cumk_team_slot_of(mc, member);
	if (*slot < 0)
		return ERR_PTR(*slot);
	if (mc_offset < mc->length)
		b = cumk_fabric_find(mc, *slot, mc_offset);
	if (!b || b->mc_offset != mc_offset || b->length != length)
		return ERR_PTR(-ENXIO);
	if (who && !cumk_usage_same_user(b->usage, who))
		return ERR_PTR(-EPERM);
	return b;
}

/* Whether cumk_fabric_unbind() would find the binding, as it answers. */
int cumk_fabric_may_unbind(struct cumk_mc *mc, struct cumk_device *member,
			   u64 mc_offset, u64 length, struct cumk_usage *who)
{
	struct cumk_bind *b;
	int slot;

	down_read(&mc->lock);
	b = cumk_fabric_find_exact(mc, member, mc_offset, length, who, &slot);
	up_read(&mc->lock);
	return PTR_ERR_OR_ZERO(b);
}

/*
 * Remove the binding of @member that is exactly [@mc_offset, +@length);
 * with @keep, hand its memory, referenced, to *@keep. See
 * cumk_fabric_unbind().
 */
static int cumk_fabric_remove(struct cumk_mc *mc, struct cumk_device *member,
			      u64 mc_offset, u64 length, struct cumk_usage *who,
			      struct cumk_mem **keep)
{
	struct cumk_bind *b;
	int slot, ret = 0;

	down_write(&mc->lock);
	b = cumk_fabric_find_exact(mc, member, mc_offset, length, who, &slot);
	if (IS_ERR(b)) {
		ret = PTR_ERR(b);
		goto out_unlock;
	}
	cumk_range_remove(&mc->members[slot].binds, &b->range);
	cumk_vm_zap(cumk_fabric_view_pgoff(mc, slot) +
		    (b->mc_offset >> PAGE_SHIFT), b->length);
out_unlock:
	up_write(&mc->lock);
	if (ret)
		return ret;
	if (keep) {
		kref_get(&b->mem->obj.ref);
		*keep = b->mem;
	}
	cumk_bind_free(b);
	return 0;
}

/*
 * Remove the binding of @member that is exactly [@mc_offset, +@length);
 * only a client of the user who bound it (@who, its usage record) may, or
 * the module itself (@who NULL: another node, a team going away). The
 * user, not the client: a user's processes may already ptrace and kill
 * each other, and a job's leader may undo a dead rank's bindings.
 */
int cumk_fabric_unbind(struct cumk_mc *mc, struct cumk_device *member,
		       u64 mc_offset, u64 length, struct cumk_usage *who)
{
	return cumk_fabric_remove(mc, member, mc_offset, length, who, NULL);
}

/*
 * The same, but the memory stays: *@mem gets it, with a reference, for a
 * caller that lets go of it only once other nodes did (cumc_remote_mc.c).
 */
int cumk_fabric_unbind_keep(struct cumk_mc *mc, struct cumk_device *member,
			    u64 mc_offset, u64 length, struct cumk_usage *who,
			    struct cumk_mem **mem)
{
	return cumk_fabric_remove(mc, member, mc_offset, length, who, mem);
}

/* The object is going: no view of it is left, so nothing to zap. */
void cumk_fabric_release(struct cumk_mc *mc)
{
	u32 i;

	for (i = 0; i < mc->team.num_members; i++)
		cumk_range_map_destroy(&mc->members[i].binds,
				       cumk_bind_release, NULL);
}

/*
 * The page frame of member @slot's memory bound at @offset: -ENOENT when
 * nothing is bound there, else as cumk_mem_pfn().
 */
int cumk_fabric_pfn(struct cumk_mc *mc, u32 slot, u64 offset,
		    unsigned long *pfn)
{
	struct cumk_bind *b;

	lockdep_assert_held(&mc->lock);
	b = cumk_fabric_find(mc, slot, offset);
	if (!b)
		return -ENOENT;
	return cumk_mem_pfn(b->mem, (b->mem_offset + offset - b->mc_offset) >>
				    PAGE_SHIFT, pfn);
}

/* Member @slot's bindings in offset order, for the control plane. */
struct cumk_bind *cumk_fabric_first_bind(struct cumk_mc *mc, u32 slot)
{
	lockdep_assert_held(&mc->lock);
	return cumk_bind_of(cumk_range_first(&mc->members[slot].binds, 0,
					     U64_MAX));
}

struct cumk_bind *cumk_fabric_next_bind(struct cumk_bind *b)
{
	return cumk_bind_of(cumk_range_next(&b->range, 0, U64_MAX));
}
