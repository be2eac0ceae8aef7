// SPDX-License-Identifier: GPL-2.0
/*
 * Mappings the module makes in a client's process: arenas of device
 * address space, which reservations are ranges of (cumc_va.c), and views
 * of multicast members.
 *
 * The module places them itself, with vm_mmap() on the client's file from
 * inside an ioctl; a plain mmap() of /dev/cumc is refused. Every such VMA
 * gets a range of file offsets of its own in one address_space, that of a
 * private inode every client file points at. The offsets name what the VMA
 * shows (an arena, a member of a multicast object), so that
 * unmap_mapping_range() zaps exactly the PTEs of one thing in every process
 * that maps it, without that process's mmap_lock.
 */
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mount.h>
#include <linux/pseudo_fs.h>
#include <linux/sched/signal.h>

#include "cumc_compat.h"
#include "cumc_internal.h"

#define CUMK_FS_MAGIC 0x63756d63

static struct vfsmount *cumk_vm_mnt;
static struct inode *cumk_vm_inode;

/*
 * Offset slots in use: slot -> owner; its own lock. Its nodes are charged
 * to the memory cgroup of whoever made them grow.
 */
static DEFINE_XARRAY_FLAGS(cumk_vm_slots, XA_FLAGS_ALLOC1 | XA_FLAGS_ACCOUNT);

static int cumk_vm_init_fs_context(struct fs_context *fc)
{
	return init_pseudo(fc, CUMK_FS_MAGIC) ? 0 : -ENOMEM;
}

/*
 * No .owner: the module's own mount would pin it. The mount lives from
 * init to exit, and kern_unmount() tears an internal mount down at once.
 */
static struct file_system_type cumk_vm_fs_type = {
	.name = "cumc",
	.init_fs_context = cumk_vm_init_fs_context,
	.kill_sb = kill_anon_super,
};

int cumk_vm_init(void)
{
	int ret;

	cumk_vm_mnt = kern_mount(&cumk_vm_fs_type);
	if (IS_ERR(cumk_vm_mnt))
		return PTR_ERR(cumk_vm_mnt);
	cumk_vm_inode = alloc_anon_inode(cumk_vm_mnt->mnt_sb);
	if (IS_ERR(cumk_vm_inode)) {
		ret = PTR_ERR(cumk_vm_inode);
		goto err_unmount;
	}
	return 0;

err_unmount:
	kern_unmount(cumk_vm_mnt);
	return ret;
}

void cumk_vm_exit(void)
{
	iput(cumk_vm_inode);
	kern_unmount(cumk_vm_mnt);
	WARN_ON(!xa_empty(&cumk_vm_slots));
}

/* Every client file maps through the one address_space. */
void cumk_vm_open(struct file *filp)
{
	filp->f_mapping = cumk_vm_inode->i_mapping;
}

/* Offsets for up to CUMK_VM_MAX_OFFSETS bytes; ENOSPC when all are taken. */
int cumk_vm_alloc_offsets(void *owner, unsigned long *pgoff)
{
	u32 slot;
	int ret;

	ret = xa_alloc(&cumk_vm_slots, &slot, owner,
		       XA_LIMIT(1, CUMK_VM_MAX_SLOTS), CUMK_GFP);
	if (ret)
		return ret == -EBUSY ? -ENOSPC : ret;
	*pgoff = (unsigned long)slot << (CUMK_VM_SLOT_SHIFT - PAGE_SHIFT);
	return 0;
}

void cumk_vm_free_offsets(unsigned long pgoff)
{
	xa_erase(&cumk_vm_slots, pgoff >> (CUMK_VM_SLOT_SHIFT - PAGE_SHIFT));
}

/* Zap the PTEs of [pgoff, pgoff + length) in every process. */
void cumk_vm_zap(unsigned long pgoff, u64 length)
{
	unmap_mapping_range(cumk_vm_inode->i_mapping, (loff_t)pgoff << PAGE_SHIFT,
			    length, 1);
}

/*
 * What a fault gets when the page frame to insert cannot be had: SIGBUS
 * for nothing there (-ENOENT: unbound) or memory gone with its device
 * (-ENOLINK), as on a GPU off the bus; else the kernel is out of memory.
 */
vm_fault_t cumk_vm_fault_error(int err)
{
	return err == -ENOENT || err == -ENOLINK ? VM_FAULT_SIGBUS :
						   VM_FAULT_OOM;
}

/* Zap every PTE of every mapping of /dev/cumc, in every process. */
void cumk_vm_zap_all(void)
{
	unmap_mapping_range(cumk_vm_inode->i_mapping, 0, 0, 1);
}

/* The request cumk_vm_map() is placing right now in this thread. */
static struct cumk_vm_request *cumk_vm_pending(struct cumk_client *client)
{
	struct cumk_vm_request *req = NULL;

	spin_lock(&client->pending_lock);
	if (client->pending_task == current)
		req = client->pending;
	spin_unlock(&client->pending_lock);
	return req;
}

static void cumk_vm_set_pending(struct cumk_client *client,
				struct cumk_vm_request *req)
{
	spin_lock(&client->pending_lock);
	client->pending = req;
	client->pending_task = req ? current : NULL;
	spin_unlock(&client->pending_lock);
}

/* The hint when it is free and placed as asked, else anywhere, so placed. */
unsigned long cumk_vm_get_unmapped_area(struct file *filp, unsigned long addr,
					unsigned long len, unsigned long pgoff,
					unsigned long flags)
{
	struct cumk_vm_request *req = cumk_vm_pending(filp->private_data);
	unsigned long area;

	if (!req || len != req->length)
		return -ENODEV;
	if (addr && IS_ALIGNED(addr - req->stagger, req->alignment)) {
		area = cumk_get_unmapped_area(addr, len, flags);
		if (area == addr)
			return area;
	}
	area = cumk_get_unmapped_area(0, len + req->alignment + req->stagger,
				      flags);
	if (IS_ERR_VALUE(area))
		return area;
	return ALIGN(area, req->alignment) + req->stagger;
}

int cumk_vm_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct cumk_client *client = filp->private_data;
	struct cumk_vm_request *req = cumk_vm_pending(client);

	if (!req || vma->vm_end - vma->vm_start != req->length ||
	    !IS_ALIGNED(vma->vm_start - req->stagger, req->alignment) ||
	    vma->vm_pgoff != req->pgoff)
		return -ENODEV;
	cumk_vm_set_pending(client, NULL);
	req->taken = true;
	cumk_vm_flags_set(vma, VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP |
			  VM_DONTCOPY | VM_NORESERVE);
	cumk_vm_flags_clear(vma, VM_MAYEXEC);
	if (!req->writable)
		cumk_vm_flags_clear(vma, VM_WRITE | VM_MAYWRITE);
	vma->vm_ops = req->vm_ops;
	vma->vm_private_data = req->private;
	if (req->attach)
		req->attach(vma, req->attach_arg);
	return 0;
}

/*
 * Map @req into the calling process. Once the VMA exists it owns
 * req->private and releases it in its close(); req->taken says whether
 * that happened, even when the mapping then failed.
 */
unsigned long cumk_vm_map(struct file *filp, struct cumk_vm_request *req)
{
	struct cumk_client *client = filp->private_data;
	unsigned long addr;

	mutex_lock(&client->reserve_lock);
	cumk_vm_set_pending(client, req);
	addr = vm_mmap(filp, req->addr, req->length,
		       req->writable ? PROT_READ | PROT_WRITE : PROT_READ,
		       MAP_SHARED, (unsigned long)req->pgoff << PAGE_SHIFT);
	cumk_vm_set_pending(client, NULL);
	mutex_unlock(&client->reserve_lock);
	return addr;
}

/*
 * Take back a mapping cumk_vm_map() made, for a call that is failing.
 * Unmapping may itself need memory (the address space's tree); it is
 * retried, since what the call leaves behind must go, until the task is
 * dying, when its whole address space goes anyway.
 */
void cumk_vm_unmap(unsigned long addr, u64 length)
{
	while (vm_munmap(addr, length) == -ENOMEM &&
	       !fatal_signal_pending(current))
		cond_resched();
}

/* A VMA is one object for life: no partial munmap, mremap or mprotect. */
int cumk_vm_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

int cumk_vm_mremap(struct vm_area_struct *vma)
{
	return -EINVAL;
}

int cumk_vm_mprotect(struct vm_area_struct *vma, unsigned long start,
		     unsigned long end, unsigned long newflags)
{
	return -EACCES;
}
