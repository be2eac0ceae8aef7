// SPDX-License-Identifier: GPL-2.0
/*
 * The fabric: setting teams up, the fabric page table (which memory of each
 * member is bound at each multicast offset), and the member views through
 * which userspace runs multimem operations.
 *
 * A binding holds its memory; a view holds its multicast object. Unbinding
 * zaps the member's views in every process before the memory is let go, so
 * no PTE outlives the binding it came from.
 */
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "cumc_internal.h"

/**
 * struct cumc_view - what a member view VMA shows
 * @mc: the multicast object; the view holds a reference
 * @slot: the member's slot in the team
 */
struct cumc_view {
	struct cumc_mc *mc;
	u32 slot;
};

static unsigned int fm_timeout_ms = 5000;
module_param(fm_timeout_ms, uint, 0644);
MODULE_PARM_DESC(fm_timeout_ms,
		 "How long binds and maps wait for a team's setup before failing with ETIMEDOUT (default 5000)");

static enum cumc_fm_mode cumc_fm_mode = CUMC_FM_MODE_KERNEL;

enum cumc_fm_mode cumc_fabric_fm_mode(void)
{
	return READ_ONCE(cumc_fm_mode);
}

void cumc_fabric_set_fm_mode(enum cumc_fm_mode mode)
{
	WRITE_ONCE(cumc_fm_mode, mode);
}

u32 cumc_fabric_fm_timeout_ms(void)
{
	return READ_ONCE(fm_timeout_ms);
}

void cumc_fabric_set_fm_timeout_ms(u32 ms)
{
	WRITE_ONCE(fm_timeout_ms, ms);
}

/* The team leaves FORMING: once, under mc->lock held for writing. */
static void cumc_fabric_team_settle(struct cumc_mc *mc, bool ok)
{
	WRITE_ONCE(mc->state, ok ? CUMC_TEAM_READY : CUMC_TEAM_FAILED);
	wake_up_all(&mc->team_wq);
	cumc_nl_mc_event(mc, ok ? CUMC_CMD_TEAM_READY_NTF :
				  CUMC_CMD_TEAM_FAILED_NTF);
}

/*
 * The last device joined: ask the fabric manager to set the team up. The
 * in-kernel one answers at once; an external one gets a request on the
 * monitor group. As on NVIDIA's fabric, nothing may fail once the request
 * is visible: a lost event or a silent manager only ends in waiters timing
 * out. Called with mc->lock held for writing.
 */
void cumc_fabric_team_complete(struct cumc_mc *mc)
{
	lockdep_assert_held_write(&mc->lock);
	WRITE_ONCE(mc->setup_deadline,
		   jiffies + msecs_to_jiffies(cumc_fabric_fm_timeout_ms()));
	/* Pairs with cumc_fabric_wait_ready(): the deadline is seen first. */
	smp_store_release(&mc->setup_requested, true);
	if (cumc_fault_hit_mc(CUMC_FAULT_FABRIC_ILLEGAL_STATE, mc)) {
		cumc_fabric_team_settle(mc, false);
		return;
	}
	/* The manager is down: the request goes unanswered. */
	if (cumc_fault_hit_mc(CUMC_FAULT_FABRIC_NOT_READY, mc)) {
		wake_up_all(&mc->team_wq);
		return;
	}
	if (cumc_fabric_fm_mode() == CUMC_FM_MODE_EXTERNAL) {
		mc->fm_pending = true;
		wake_up_all(&mc->team_wq);
		cumc_nl_mc_event(mc, CUMC_CMD_TEAM_SETUP_REQ_NTF);
		return;
	}
	cumc_fabric_team_settle(mc, true);
}

/*
 * An external fabric manager answers request @req_id (the object's id). An
 * answer for an object freed meanwhile finds nothing and is dropped; a late
 * one still settles the team, for later binds and maps.
 */
int cumc_fabric_fm_respond(u32 req_id, bool ok)
{
	struct cumc_mc *mc;
	int ret = 0;

	mc = cumc_mc_get_by_id(req_id);
	if (!mc)
		return -ENOENT;
	down_write(&mc->lock);
	if (!mc->fm_pending) {
		ret = mc->setup_requested ? -EALREADY : -ENOENT;
	} else {
		mc->fm_pending = false;
		if (mc->state == CUMC_TEAM_FORMING)
			cumc_fabric_team_settle(mc, ok);
	}
	up_write(&mc->lock);
	cumc_object_put(&mc->obj);
	return ret;
}

static int cumc_fabric_team_result(struct cumc_mc *mc)
{
	return READ_ONCE(mc->state) == CUMC_TEAM_READY ? 0 : -EIO;
}

static bool cumc_fabric_setup_requested(struct cumc_mc *mc)
{
	/* Pairs with cumc_fabric_team_complete(): then the deadline is set. */
	return smp_load_acquire(&mc->setup_requested);
}

/*
 * Wait, interruptibly, for the team to leave FORMING: without a limit while
 * devices are still to join, then until the setup's deadline, after which
 * the fabric is "not ready" (-ETIMEDOUT).
 */
int cumc_fabric_wait_ready(struct cumc_mc *mc)
{
	long left;
	int ret;

	if (READ_ONCE(mc->state) != CUMC_TEAM_FORMING)
		return cumc_fabric_team_result(mc);
	cumc_stat_add(NULL, CUMC_STAT_WAITS, 1);
	ret = wait_event_interruptible(mc->team_wq,
				       READ_ONCE(mc->state) != CUMC_TEAM_FORMING ||
				       cumc_fabric_setup_requested(mc));
	if (ret)
		return ret;
	left = (long)(READ_ONCE(mc->setup_deadline) - jiffies);
	if (left > 0) {
		left = wait_event_interruptible_timeout(mc->team_wq,
							READ_ONCE(mc->state) !=
							CUMC_TEAM_FORMING,
							left);
		if (left < 0)
			return left;
	}
	if (READ_ONCE(mc->state) == CUMC_TEAM_FORMING)
		return -ETIMEDOUT;
	return cumc_fabric_team_result(mc);
}

static void cumc_bind_free(struct cumc_bind *b)
{
	/* A bind refused before it was charged has no usage. */
	if (b->usage) {
		cumc_usage_uncharge(b->usage, CUMC_QUOTA_BOUND, b->length);
		cumc_usage_put(b->usage);
	}
	cumc_stat_add(b->mem->dev, CUMC_STAT_BOUND_BYTES, -(s64)b->length);
	cumc_object_put(&b->mem->obj);
	atomic_dec(&cumc_live_binds);
	kfree(b);
}

static void cumc_bind_release(struct cumc_range *r, void *unused)
{
	cumc_bind_free(container_of(r, struct cumc_bind, range));
}

/* The binding of @m holding @mc_offset, or NULL; mc->lock held. */
static struct cumc_bind *cumc_bind_find(struct cumc_mc_member *m,
					u64 mc_offset)
{
	struct cumc_range *r = cumc_range_find(&m->binds, mc_offset);

	return r ? container_of(r, struct cumc_bind, range) : NULL;
}

/* Charge @b's bytes to @client, the binder, for as long as @b lives. */
static int cumc_fabric_charge_bind(struct cumc_client *client,
				   struct cumc_bind *b)
{
	int ret;

	ret = cumc_usage_charge(client->usage, CUMC_QUOTA_BOUND, b->length);
	if (ret)
		return ret;
	b->usage = cumc_usage_get(client->usage);
	return 0;
}

/* The memory and offset a bind names, with a reference on the memory. */
static struct cumc_mem *cumc_fabric_bind_source(struct cumc_client *client,
						struct cumc_mc_bind *cmd,
						bool by_addr, u64 *mem_offset)
{
	struct cumc_object *obj;

	if (by_addr) {
		if (cmd->mem_offset)
			return ERR_PTR(-EINVAL);
		return cumc_va_resolve(client, cmd->mem, cmd->length,
				       mem_offset);
	}
	obj = cumc_handle_get(client, cmd->mem, CUMC_OBJ_MEM);
	if (IS_ERR(obj))
		return ERR_CAST(obj);
	*mem_offset = cmd->mem_offset;
	return to_cumc_mem(obj);
}

static int cumc_fabric_check_bind(struct cumc_mc *mc, struct cumc_bind *b,
				  u32 device)
{
	u64 granularity = cumc_mc_granularity();

	if (!b->length || !IS_ALIGNED(b->mc_offset, granularity) ||
	    !IS_ALIGNED(b->mem_offset, granularity) ||
	    !IS_ALIGNED(b->length, granularity))
		return -EINVAL;
	if (b->mc_offset > mc->length || b->length > mc->length - b->mc_offset)
		return -EINVAL;
	if (b->mem_offset > b->mem->length ||
	    b->length > b->mem->length - b->mem_offset)
		return -EINVAL;
	if (b->mem->dev->ordinal != device)
		return -EINVAL;
	/* A shareable team may reach other processes: so must its memory. */
	if (mc->obj.handle_types && !b->mem->obj.handle_types)
		return -EINVAL;
	return 0;
}

static int cumc_fabric_insert(struct cumc_mc *mc, struct cumc_bind *b,
			      u32 device)
{
	int slot, ret;

	down_write(&mc->lock);
	slot = cumc_mc_member_slot(mc, device);
	if (slot < 0) {
		ret = slot;
		goto out;
	}
	ret = cumc_range_insert(&mc->members[slot].binds, &b->range,
				b->mc_offset, b->length);
out:
	up_write(&mc->lock);
	return ret;
}

int cumc_fabric_bind(struct cumc_client *client, struct cumc_mc_bind *cmd,
		     bool by_addr)
{
	struct cumc_device *dev;
	struct cumc_object *obj;
	struct cumc_mc *mc;
	struct cumc_bind *b;
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EOPNOTSUPP;
	obj = cumc_handle_get(client, cmd->handle, CUMC_OBJ_MC);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	mc = to_cumc_mc(obj);
	ret = cumc_fabric_wait_ready(mc);
	if (ret)
		goto out_put;
	b = kzalloc(sizeof(*b), CUMC_GFP);
	if (!b) {
		ret = -ENOMEM;
		goto out_put;
	}
	b->mem = cumc_fabric_bind_source(client, cmd, by_addr, &b->mem_offset);
	if (IS_ERR(b->mem)) {
		ret = PTR_ERR(b->mem);
		kfree(b);
		goto out_put;
	}
	b->mc_offset = cmd->mc_offset;
	b->length = cmd->length;
	dev = b->mem->dev;
	atomic_inc(&cumc_live_binds);
	cumc_stat_add(dev, CUMC_STAT_BOUND_BYTES, b->length);
	ret = cumc_fabric_check_bind(mc, b, cmd->device);
	if (!ret)
		ret = cumc_fabric_charge_bind(client, b);
	if (!ret && cumc_fault_hit(CUMC_FAULT_BIND_NO_RESOURCES, dev))
		ret = -ENOSPC;
	if (!ret)
		ret = cumc_fabric_insert(mc, b, cmd->device);
	if (ret) {
		cumc_bind_free(b);
		goto out_put;
	}
	/* b is the fabric's now, and an unbind may free it: use dev. */
	cumc_stat_add(dev, CUMC_STAT_BINDS, 1);
	cumc_nl_bind_event(mc, CUMC_CMD_BIND_NTF, cmd->device, cmd->mc_offset,
			   cmd->length);
out_put:
	cumc_object_put(obj);
	return ret;
}

/* The view file offset of @mc_offset for member @slot. */
static unsigned long cumc_fabric_view_pgoff(struct cumc_mc *mc, u32 slot,
					    u64 mc_offset)
{
	return mc->pgoff + ((slot * mc->length + mc_offset) >> PAGE_SHIFT);
}

int cumc_fabric_unbind(struct cumc_client *client, struct cumc_mc_unbind *cmd)
{
	struct cumc_bind *b = NULL;
	struct cumc_object *obj;
	struct cumc_mc *mc;
	int slot, ret = 0;

	if (cmd->flags || cmd->__reserved)
		return -EOPNOTSUPP;
	obj = cumc_handle_get(client, cmd->handle, CUMC_OBJ_MC);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	mc = to_cumc_mc(obj);
	down_write(&mc->lock);
	slot = cumc_mc_member_slot(mc, cmd->device);
	if (slot < 0) {
		ret = slot;
		goto out_unlock;
	}
	if (cmd->mc_offset < mc->length)
		b = cumc_bind_find(&mc->members[slot], cmd->mc_offset);
	if (!b || b->mc_offset != cmd->mc_offset || b->length != cmd->length) {
		ret = -ENXIO;
		goto out_unlock;
	}
	cumc_range_remove(&mc->members[slot].binds, &b->range);
	cumc_vm_zap(cumc_fabric_view_pgoff(mc, slot, b->mc_offset), b->length);
out_unlock:
	up_write(&mc->lock);
	if (!ret) {
		cumc_bind_free(b);
		cumc_nl_bind_event(mc, CUMC_CMD_UNBIND_NTF, cmd->device,
				   cmd->mc_offset, cmd->length);
	}
	cumc_object_put(obj);
	return ret;
}

/* The object is going: no view of it is left, so nothing to zap. */
void cumc_fabric_release_binds(struct cumc_mc *mc)
{
	u32 i;

	for (i = 0; i < mc->num_members; i++)
		cumc_range_map_destroy(&mc->members[i].binds,
				       cumc_bind_release, NULL);
}

static vm_fault_t cumc_fabric_view_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct cumc_view *view = vma->vm_private_data;
	struct cumc_mc *mc = view->mc;
	u64 offset = (vmf->address & PAGE_MASK) - vma->vm_start;
	struct cumc_bind *b;
	struct page *page;
	vm_fault_t ret;

	down_read(&mc->lock);
	b = cumc_bind_find(&mc->members[view->slot], offset);
	if (!b) {
		ret = VM_FAULT_SIGBUS;
		goto out;
	}
	page = cumc_mem_page(b->mem, (b->mem_offset + offset - b->mc_offset) >>
				     PAGE_SHIFT);
	if (!page) {
		ret = VM_FAULT_OOM;
		goto out;
	}
	ret = vmf_insert_pfn_prot(vma, vmf->address & PAGE_MASK,
				  page_to_pfn(page),
				  vm_get_page_prot(vma->vm_flags));
out:
	up_read(&mc->lock);
	return ret;
}

static void cumc_fabric_view_free(struct cumc_view *view)
{
	cumc_object_put(&view->mc->obj);
	atomic_dec(&cumc_live_views);
	kfree(view);
}

static void cumc_fabric_view_close(struct vm_area_struct *vma)
{
	cumc_fabric_view_free(vma->vm_private_data);
}

static const struct vm_operations_struct cumc_fabric_view_vm_ops = {
	.fault = cumc_fabric_view_fault,
	.close = cumc_fabric_view_close,
	.may_split = cumc_vm_may_split,
	.mremap = cumc_vm_mremap,
	.mprotect = cumc_vm_mprotect,
};

int cumc_fabric_view(struct file *filp, struct cumc_mc_view *cmd)
{
	struct cumc_vm_request req = {
		.alignment = cumc_mc_granularity(),
		.vm_ops = &cumc_fabric_view_vm_ops,
	};
	struct cumc_view *view;
	unsigned long addr;
	struct cumc_mc *mc;
	int slot;

	if (cmd->flags || cmd->__reserved)
		return -EOPNOTSUPP;
	mc = cumc_va_mc_mapping(filp->private_data, cmd->addr, &req.length,
				&req.writable);
	if (IS_ERR(mc))
		return PTR_ERR(mc);
	down_read(&mc->lock);
	slot = cumc_mc_member_slot(mc, cmd->device);
	up_read(&mc->lock);
	view = slot < 0 ? NULL : kzalloc(sizeof(*view), CUMC_GFP);
	if (!view) {
		cumc_object_put(&mc->obj);
		return slot < 0 ? slot : -ENOMEM;
	}
	view->mc = mc;
	view->slot = slot;
	atomic_inc(&cumc_live_views);
	req.pgoff = cumc_fabric_view_pgoff(mc, slot, 0);
	req.private = view;
	addr = cumc_vm_map(filp, &req);
	if (!req.taken)
		cumc_fabric_view_free(view);
	if (IS_ERR_VALUE(addr))
		return (long)addr;
	cmd->out_addr = addr;
	cmd->out_length = req.length;
	return 0;
}
