/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences between the kernels cumc builds for, in one place.
 *
 * Minimum: Linux 6.1. The module keeps VA mappings and fabric bindings in
 * maple trees (mtree_*), merged in 6.1; its generic netlink family uses
 * resv_start_op, also 6.1. Older kernels would need those two replaced by
 * xarray or rbtree code and are refused here rather than half supported.
 *
 * Every other version check of the module is below, one per difference,
 * each named after the kernel API it hides. Documentation/install.md lists
 * them. Checked by building against Debian 12's 6.1 headers only.
 */
#ifndef CUMC_COMPAT_H
#define CUMC_COMPAT_H

#include <linux/device.h>
#include <linux/mm.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "cumc needs Linux 6.1 or later (maple tree, genl resv_start_op)"
#endif

/*
 * class_create() lost its owner argument in 6.4 (commit "driver core:
 * class: remove module * from class_create()").
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define cumc_class_create(name) class_create(name)
#else
#define cumc_class_create(name) class_create(THIS_MODULE, name)
#endif

/*
 * struct class's devnode() callback takes a const struct device * from 6.2
 * on. CUMC_DEVNODE_CONST is the qualifier a devnode() of ours must use.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define CUMC_DEVNODE_CONST const
#else
#define CUMC_DEVNODE_CONST
#endif

/*
 * vma->vm_flags became read-only in 6.3: changes go through
 * vm_flags_set()/vm_flags_clear(), which also assert the mmap write lock.
 * Before, the field was written directly (under the same lock).
 */
static inline void cumc_vm_flags_set(struct vm_area_struct *vma,
				     unsigned long flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

static inline void cumc_vm_flags_clear(struct vm_area_struct *vma,
				       unsigned long flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/*
 * Needing no wrapper above 6.1, for the record:
 * - no_llseek was defined as NULL from 6.0 and removed in 6.12: files that
 *   must not seek leave .llseek unset.
 * - get_random_u32_below() is 6.2 mainline and in the 6.1 stable series
 *   Debian 12 ships (prandom_u32_max() before).
 * - strscpy_pad() (5.2), mmap_read_lock() (5.8), vma_lookup() (5.14),
 *   misc_register() and init_pseudo() are unchanged since.
 */

#endif /* CUMC_COMPAT_H */
