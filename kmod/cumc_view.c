// SPDX-License-Identifier: GPL-2.0
/*
 * Member views: CUMC_MC_VIEW maps, for a member of a multicast mapping's
 * team, the memory bound for it, so that libcumc runs multimem operations
 * over plain loads and stores. A view's byte o is the member's memory
 * bound at multicast offset o; unbound parts raise SIGBUS. A view holds
 * its object; its pages come from the fabric page table at fault time and
 * go when the binding does (cumc_fabric.c zaps them).
 *
 * A view can do what the multicast mapping it was made from can do, now:
 * it shares the mapping's grant, which CUMC_SET_ACCESS changes. Taking
 * access away zaps the object's views, so the next access faults and is
 * checked against the grant again (SIGSEGV when it is not allowed). A view
 * is charged to its client as a mapping (cumc_quota.c).
 */
#include <linux/mm.h>
#include <linux/slab.h>

#include "cumc_internal.h"

/**
 * struct cumk_view - what a member view VMA shows
 * @mc: the multicast object; the view holds a reference
 * @slot: the member's slot in the team
 * @grant: what the CPU may do through it; the view holds a reference
 * @usage: its client's, charged one mapping; the view holds a reference
 * @length: the view's bytes, charged as mapped
 */
struct cumk_view {
	struct cumk_mc *mc;
	u32 slot;
	struct cumk_grant *grant;
	struct cumk_usage *usage;
	u64 length;
};

static vm_fault_t cumk_view_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct cumk_view *view = vma->vm_private_data;
	struct cumk_mc *mc = view->mc;
	unsigned long addr = vmf->address & PAGE_MASK;
	unsigned long vm_flags = vma->vm_flags;
	unsigned long pfn;
	vm_fault_t ret;
	int idx, err, access;

	down_read(&mc->lock);
	access = READ_ONCE(view->grant->access);
	if (access == CUMC_ACCESS_NONE ||
	    (vmf->flags & FAULT_FLAG_WRITE && access != CUMC_ACCESS_READWRITE)) {
		up_read(&mc->lock);
		return VM_FAULT_SIGSEGV;
	}
	if (access != CUMC_ACCESS_READWRITE)
		vm_flags &= ~VM_WRITE;
	idx = srcu_read_lock(&cumk_device_srcu);
	err = cumk_fabric_pfn(mc, view->slot, addr - vma->vm_start, &pfn);
	if (err)
		ret = cumk_vm_fault_error(err);
	else
		ret = vmf_insert_pfn_prot(vma, addr, pfn,
					  vm_get_page_prot(vm_flags));
	srcu_read_unlock(&cumk_device_srcu, idx);
	up_read(&mc->lock);
	return ret;
}

/*
 * A write to a page inserted read-only, because the mapping lost write
 * access after the view was made. Without this hook the kernel would make
 * a shared PFN mapping writable on its own.
 */
static vm_fault_t cumk_view_pfn_mkwrite(struct vm_fault *vmf)
{
	struct cumk_view *view = vmf->vma->vm_private_data;
	int access;

	down_read(&view->mc->lock);
	access = READ_ONCE(view->grant->access);
	up_read(&view->mc->lock);
	return access == CUMC_ACCESS_READWRITE ? 0 : VM_FAULT_SIGSEGV;
}

static void cumk_view_free(struct cumk_view *view)
{
	cumk_usage_uncharge_mapping(view->usage, view->length);
	cumk_usage_put(view->usage);
	cumk_grant_put(view->grant);
	cumk_object_put(&view->mc->obj);
	atomic_dec(&cumk_live_views);
	kfree(view);
}

static void cumk_view_close(struct vm_area_struct *vma)
{
	cumk_view_free(vma->vm_private_data);
}

static const struct vm_operations_struct cumk_view_vm_ops = {
	.fault = cumk_view_fault,
	.pfn_mkwrite = cumk_view_pfn_mkwrite,
	.close = cumk_view_close,
	.may_split = cumk_vm_may_split,
	.mremap = cumk_vm_mremap,
	.mprotect = cumk_vm_mprotect,
};

/*
 * Map the view of member @slot; it takes references on @mc and @grant of
 * its own. Member @slot's view starts @slot pages past an aligned address:
 * a reduction reads every member at the same offset, and views all
 * aligned alike would put those pages in one set of a set-indexed TLB (one
 * entry of QEMU's direct-mapped one, where the f32 sum of a kernel's
 * multimem.ld_reduce took three times as long: Documentation/performance.md).
 */
static long cumk_view_map(struct file *filp, struct cumk_mc *mc, u32 slot,
			  u64 length, struct cumk_grant *grant, bool writable)
{
	struct cumk_client *client = filp->private_data;
	struct cumk_vm_request req = {
		.length = length,
		.alignment = cumk_fabric_granularity(),
		.stagger = (u64)slot << PAGE_SHIFT,
		.pgoff = cumk_fabric_view_pgoff(mc, slot),
		.writable = writable,
		.vm_ops = &cumk_view_vm_ops,
	};
	struct cumk_view *view;
	unsigned long addr;
	int ret;

	view = kzalloc(sizeof(*view), CUMK_GFP);
	if (!view)
		return -ENOMEM;
	ret = cumk_usage_charge_mapping(client->usage, length);
	if (ret) {
		kfree(view);
		return ret;
	}
	view->usage = cumk_usage_get(client->usage);
	view->length = length;
	kref_get(&grant->ref);
	view->grant = grant;
	kref_get(&mc->obj.ref);
	view->mc = mc;
	view->slot = slot;
	atomic_inc(&cumk_live_views);
	req.private = view;
	addr = cumk_vm_map(filp, &req);
	if (!req.taken)
		cumk_view_free(view);
	return addr;
}

/* The slot of @device, a member of @mc's team. */
static int cumk_view_slot(struct cumk_mc *mc, u32 device)
{
	int slot;

	down_read(&mc->lock);
	slot = cumk_team_slot(mc, device);
	up_read(&mc->lock);
	return slot;
}

static void cumk_view_unmap_all(const u64 *addrs, u32 n, u64 length)
{
	while (n--)
		cumk_vm_unmap(addrs[n], length);
}

/*
 * Every member's view, into the caller's array; all of them or, when the
 * answer cannot be written, none.
 */
static int cumk_view_all(struct cumk_ucmd *ucmd, struct cumk_mc *mc,
			 u64 length, struct cumk_grant *grant, bool writable)
{
	struct cumc_mc_view *cmd = ucmd->cmd;
	u32 n = mc->num_devices;
	long addr;
	u64 *addrs;
	u32 slot;
	int ret;

	if (cmd->num_views < n)
		return -EINVAL;
	addrs = kcalloc(n, sizeof(*addrs), CUMK_GFP);
	if (!addrs)
		return -ENOMEM;
	for (slot = 0; slot < n; slot++) {
		addr = cumk_view_map(ucmd->filp, mc, slot, length, grant,
				     writable);
		if (IS_ERR_VALUE(addr)) {
			ret = addr;
			goto err_unmap;
		}
		addrs[slot] = addr;
	}
	cmd->out_addr = addrs[0];
	cmd->out_num_members = n;
	cmd->out_access = writable ? CUMC_ACCESS_READWRITE : CUMC_ACCESS_READ;
	ret = -EFAULT;
	if (copy_to_user(u64_to_user_ptr(cmd->views), addrs,
			 array_size(n, sizeof(*addrs))))
		goto err_unmap;
	ret = cumk_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret)
		goto err_unmap;
	kfree(addrs);
	return 0;

err_unmap:
	cumk_view_unmap_all(addrs, slot, length);
	kfree(addrs);
	return ret;
}

static int cumk_view_one(struct cumk_ucmd *ucmd, struct cumk_mc *mc,
			 u64 length, struct cumk_grant *grant, bool writable)
{
	struct cumc_mc_view *cmd = ucmd->cmd;
	long addr;
	int slot, ret;

	slot = cumk_view_slot(mc, cmd->device);
	if (slot < 0)
		return slot;
	addr = cumk_view_map(ucmd->filp, mc, slot, length, grant, writable);
	if (IS_ERR_VALUE(addr))
		return addr;
	cmd->out_addr = addr;
	ret = cumk_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret)
		cumk_vm_unmap(addr, length);
	return ret;
}

/*
 * Both forms answer themselves: a lost answer must take the views back.
 * Asking for the views of all members (@views) is the form of API
 * version 2; a version-1 caller's struct ends before it.
 */
int cumk_view_ioctl(struct cumk_ucmd *ucmd)
{
	struct cumc_mc_view *cmd = ucmd->cmd;
	bool all = cmd->views;
	struct cumk_grant *grant;
	u64 map_addr, length;
	struct cumk_mc *mc;
	bool writable;
	int ret;

	if (cmd->flags || cmd->__reserved || cmd->__reserved2)
		return -EOPNOTSUPP;
	if (all ? cmd->device : cmd->num_views)
		return -EINVAL;
	mc = cumk_va_mc_mapping(ucmd->client, cmd->addr, &map_addr, &length,
				&grant);
	if (IS_ERR(mc))
		return PTR_ERR(mc);
	/* Read-only now means a read-only VMA, whatever comes later. */
	writable = READ_ONCE(grant->access) == CUMC_ACCESS_READWRITE;
	cmd->out_length = length;
	cmd->out_num_members = 0;
	cmd->out_map_addr = all ? map_addr : 0;
	cmd->out_access = 0;
	if (all)
		ret = cumk_view_all(ucmd, mc, length, grant, writable);
	else if (map_addr != cmd->addr)
		ret = -ENXIO;
	else
		ret = cumk_view_one(ucmd, mc, length, grant, writable);
	cumk_grant_put(grant);
	cumk_object_put(&mc->obj);
	return ret;
}
