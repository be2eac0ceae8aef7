/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences between the kernels cumc builds for, in one place.
 *
 * Minimum: Linux 5.15. The maple tree, which would have meant 6.1, gave
 * way to an interval tree (cumc_range.c) that every kernel has. Every
 * version check of the module is below, one per difference, each named
 * after the kernel API it hides and saying which release changed it.
 * Documentation/install.md lists them, with the interfaces that needed
 * none. Only the branches Debian 12's 6.1 headers select are compiled
 * here; the others follow the interfaces of the releases named.
 */
#ifndef CUMK_COMPAT_H
#define CUMK_COMPAT_H

#include <linux/device.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/version.h>
#include <net/genetlink.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 15, 0)
#error "cumc needs Linux 5.15 or later"
#endif

/*
 * class_create() lost its owner argument in 6.4 (commit "driver core:
 * class: remove module * from class_create()").
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define cumk_class_create(name) class_create(name)
#else
#define cumk_class_create(name) class_create(THIS_MODULE, name)
#endif

/*
 * struct class's devnode() callback takes a const struct device * from 6.2
 * on. CUMK_DEVNODE_CONST is the qualifier a devnode() of ours must use.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define CUMK_DEVNODE_CONST const
#else
#define CUMK_DEVNODE_CONST
#endif

/*
 * A bus attribute's show() and store() are handed a const struct bus_type
 * from 6.4 on (commit "driver core: bus: mark the struct bus_type for
 * sysfs callbacks as constant"). CUMK_BUS_ATTR_CONST is the qualifier a
 * bus attribute of ours must use.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define CUMK_BUS_ATTR_CONST const
#else
#define CUMK_BUS_ATTR_CONST
#endif

/*
 * vma->vm_flags became read-only in 6.3: changes go through
 * vm_flags_set()/vm_flags_clear(), which also assert the mmap write lock.
 * Before, the field was written directly (under the same lock).
 */
static inline void cumk_vm_flags_set(struct vm_area_struct *vma,
				     unsigned long flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

static inline void cumk_vm_flags_clear(struct vm_area_struct *vma,
				       unsigned long flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/*
 * The process's own placement policy, for a range no file constrains.
 * mm->get_unmapped_area was replaced in 6.10 by mm_get_unmapped_area(mm,
 * ...) (the policy became the MMF_TOPDOWN flag), which lost its mm
 * argument again in 6.19 (it always placed in current->mm).
 */
static inline unsigned long cumk_get_unmapped_area(unsigned long addr,
						   unsigned long len,
						   unsigned long flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 19, 0)
	return mm_get_unmapped_area(NULL, addr, len, 0, flags);
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
	return mm_get_unmapped_area(current->mm, NULL, addr, len, 0, flags);
#else
	return current->mm->get_unmapped_area(NULL, addr, len, 0, flags);
#endif
}

/*
 * struct fd became one tagged word in 6.12 (fd_file() reads the file,
 * NULL when fdget() found none); before, it had a file member.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define cumk_fd_file(f) fd_file(f)
#else
#define cumk_fd_file(f) ((f).file)
#endif

/*
 * A uniform random number below @ceil. get_random_u32_below() is 6.2
 * (backported to some 6.1 stable releases); prandom_u32_max(), which it
 * replaced, is in every release before 6.2, and random enough for fault
 * injection.
 */
static inline u32 cumk_random_below(u32 ceil)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	return get_random_u32_below(ceil);
#else
	return prandom_u32_max(ceil);
#endif
}

/*
 * Strict validation of a generic netlink family's commands from @op on,
 * including the reserved field of their genetlink header: what
 * genl_family.resv_start_op says since 6.1. Before 6.1 there is no such
 * field: commands without GENL_DONT_VALIDATE_* flags (none of ours has
 * any) are validated strictly all the same, but a non-zero reserved field
 * is let through.
 */
static inline void cumk_genl_strict_from(struct genl_family *family, u8 op)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
	family->resv_start_op = op;
#endif
}

/*
 * A generic netlink multicast group only CAP_NET_ADMIN (over the
 * listener's network namespace) may join: the flag came in 6.7 and stable
 * series (6.1.70). Without it anyone may join, and events name every
 * user's objects: Documentation/security.md says so.
 */
#ifdef GENL_MCAST_CAP_NET_ADMIN
#define CUMK_GENL_MCGRP_ADMIN(grp) \
	{ .name = (grp), .flags = GENL_MCAST_CAP_NET_ADMIN }
#else
#define CUMK_GENL_MCGRP_ADMIN(grp) { .name = (grp) }
#endif

#endif /* CUMK_COMPAT_H */
