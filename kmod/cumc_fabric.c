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
#include <linux/mm.h>
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

/*
 * The last device joined: the in-kernel fabric manager sets the team up at
 * once. Called with mc->lock held for writing.
 */
void cumc_fabric_team_complete(struct cumc_mc *mc)
{
	lockdep_assert_held_write(&mc->lock);
	WRITE_ONCE(mc->state, CUMC_TEAM_READY);
	wake_up_all(&mc->team_wq);
}

/* Wait, interruptibly, for the team to leave FORMING. */
int cumc_fabric_wait_ready(struct cumc_mc *mc)
{
	int ret;

	ret = wait_event_interruptible(mc->team_wq,
				       READ_ONCE(mc->state) != CUMC_TEAM_FORMING);
	if (ret)
		return ret;
	return READ_ONCE(mc->state) == CUMC_TEAM_READY ? 0 : -EIO;
}

static void cumc_bind_free(struct cumc_bind *b)
{
	cumc_object_put(&b->mem->obj);
	atomic_dec(&cumc_live_binds);
	kfree(b);
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
	unsigned long index = b->mc_offset;
	struct maple_tree *binds;
	int slot, ret;

	down_write(&mc->lock);
	slot = cumc_mc_member_slot(mc, device);
	if (slot < 0) {
		ret = slot;
		goto out;
	}
	binds = &mc->members[slot].binds;
	if (mt_find(binds, &index, b->mc_offset + b->length - 1))
		ret = -EEXIST;
	else
		ret = mtree_store_range(binds, b->mc_offset,
					b->mc_offset + b->length - 1, b,
					GFP_KERNEL_ACCOUNT);
out:
	up_write(&mc->lock);
	return ret;
}

int cumc_fabric_bind(struct cumc_client *client, struct cumc_mc_bind *cmd,
		     bool by_addr)
{
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
	b = kzalloc(sizeof(*b), GFP_KERNEL_ACCOUNT);
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
	atomic_inc(&cumc_live_binds);
	ret = cumc_fabric_check_bind(mc, b, cmd->device);
	if (!ret)
		ret = cumc_fabric_insert(mc, b, cmd->device);
	if (ret)
		cumc_bind_free(b);
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
		b = mtree_load(&mc->members[slot].binds, cmd->mc_offset);
	if (!b || b->mc_offset != cmd->mc_offset || b->length != cmd->length) {
		ret = -ENXIO;
		goto out_unlock;
	}
	mtree_erase(&mc->members[slot].binds, b->mc_offset);
	cumc_vm_zap(cumc_fabric_view_pgoff(mc, slot, b->mc_offset), b->length);
out_unlock:
	up_write(&mc->lock);
	if (!ret)
		cumc_bind_free(b);
	cumc_object_put(obj);
	return ret;
}

/* The object is going: no view of it is left, so nothing to zap. */
void cumc_fabric_release_binds(struct cumc_mc *mc)
{
	struct cumc_bind *b;
	unsigned long index;
	u32 i;

	for (i = 0; i < mc->num_members; i++) {
		index = 0;
		mt_for_each(&mc->members[i].binds, b, index, ULONG_MAX)
			cumc_bind_free(b);
	}
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
	b = mtree_load(&mc->members[view->slot].binds, offset);
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
	view = slot < 0 ? NULL : kzalloc(sizeof(*view), GFP_KERNEL_ACCOUNT);
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
