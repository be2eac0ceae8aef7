// SPDX-License-Identifier: GPL-2.0
/*
 * Devices backed by system memory: what the module offers where no cumc
 * PCI device exists (insmod on a real host, a VM without them), and beside
 * PCI devices when asked. Pages come on first touch, zeroed, charged to the
 * toucher's memory cgroup, so that untouched memory costs nothing and the
 * device can be as large as a real part. Each is a device on cumc's bus
 * (cumc_bus.c), which adds them at load and on request.
 */
#include <linux/gfp.h>
#include <linux/jhash.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#include "cumc_internal.h"

#define CUMK_SYSMEM_DEFAULT_DEVICES 8

/*
 * -1 until load: CUMK_SYSMEM_DEFAULT_DEVICES when no PCI device was found,
 * else none. Once loaded, the number of system-memory devices the load
 * made; those added and deleted on cumc's bus later do not change it.
 */
static int num_devices = -1;
static unsigned long mem_size_mib = 81920;

static int cumk_param_set_num_devices(const char *val,
				      const struct kernel_param *kp)
{
	unsigned int n;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	if (n > CUMC_MAX_DEVICES)
		return -EINVAL;
	*(int *)kp->arg = n;
	return 0;
}

static const struct kernel_param_ops cumk_num_devices_ops = {
	.set = cumk_param_set_num_devices,
	.get = param_get_int,
};
module_param_cb(num_devices, &cumk_num_devices_ops, &num_devices, 0444);
MODULE_PARM_DESC(num_devices,
		 "Devices backed by system memory, 0 to 128 (default: 8 when no cumc PCI device is found, else none)");

/* Up to 16 TiB per device: sizes in bytes stay far from overflowing u64. */
static int cumk_param_set_mem_size(const char *val,
				   const struct kernel_param *kp)
{
	unsigned long mib;
	int ret;

	ret = kstrtoul(val, 0, &mib);
	if (ret)
		return ret;
	if (mib < 1 || mib > (16UL << 20))
		return -EINVAL;
	*(unsigned long *)kp->arg = mib;
	return 0;
}

static const struct kernel_param_ops cumk_mem_size_ops = {
	.set = cumk_param_set_mem_size,
	.get = param_get_ulong,
};
module_param_cb(mem_size_mib, &cumk_mem_size_ops, &mem_size_mib, 0444);
MODULE_PARM_DESC(mem_size_mib,
		 "Memory of each system-memory device in MiB, backed lazily (default 81920, up to 16 TiB)");

static int cumk_sysmem_mem_alloc(struct cumk_mem *mem)
{
	return 0;
}

static void cumk_sysmem_mem_free(struct cumk_mem *mem)
{
	struct page *page;
	unsigned long index;

	xa_for_each(&mem->pages, index, page) {
		__free_page(page);
		atomic_long_dec(&cumk_live_pages);
	}
	xa_destroy(&mem->pages);
}

static int cumk_sysmem_mem_pfn(struct cumk_mem *mem, pgoff_t index,
			       unsigned long *pfn)
{
	struct page *page, *old;

	page = xa_load(&mem->pages, index);
	if (page)
		goto out;
	page = alloc_page(GFP_HIGHUSER | __GFP_ZERO | __GFP_ACCOUNT);
	if (!page)
		return -ENOMEM;
	old = xa_cmpxchg(&mem->pages, index, NULL, page, GFP_KERNEL_ACCOUNT);
	if (old) {
		/* Lost a race to another toucher, or the xarray is out of memory. */
		__free_page(page);
		if (xa_is_err(old))
			return xa_err(old);
		page = old;
		goto out;
	}
	atomic_long_inc(&cumk_live_pages);
out:
	*pfn = page_to_pfn(page);
	return 0;
}

static void cumk_sysmem_release(struct cumk_device *dev)
{
	kfree(dev);
}

static const struct cumk_backend_ops cumk_sysmem_ops = {
	.name = "system",
	.mem_alloc = cumk_sysmem_mem_alloc,
	.mem_free = cumk_sysmem_mem_free,
	.mem_pfn = cumk_sysmem_mem_pfn,
	.release = cumk_sysmem_release,
};

/* The index, hashed: the same UUID every load, an RFC 4122 v4 shape. */
static void cumk_sysmem_make_uuid(u8 *uuid, u32 index)
{
	u32 words[4];
	int i;

	for (i = 0; i < 4; i++)
		words[i] = jhash_2words(index, i, 0x63756d63);
	memcpy(uuid, words, sizeof(words));
	uuid[6] = (uuid[6] & 0x0f) | 0x40;
	uuid[8] = (uuid[8] & 0x3f) | 0x80;
}

/*
 * Make and add the device of bus index @index (cumc_bus.c): it gets the
 * next ordinal, whatever its index.
 */
struct cumk_device *cumk_sysmem_add(u32 index)
{
	struct cumk_device *dev;
	int ret;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	cumk_device_init(dev, &cumk_sysmem_ops);
	cumk_sysmem_make_uuid(dev->uuid, index);
	strscpy(dev->name, "cumc H100 SXM (simulated)", sizeof(dev->name));
	/* Where a real system would put it: one bus per GPU. */
	dev->pci_bus = 0x10 + index;
	dev->mem_total = round_down((u64)mem_size_mib << 20,
				    cumk_device_granularity());
	ret = cumk_device_add(dev);
	if (ret) {
		kfree(dev);
		return ERR_PTR(ret);
	}
	return dev;
}

/*
 * How many devices the load makes (bus indexes 0 to the count - 1), once
 * PCI devices, if any, have been probed.
 */
u32 cumk_sysmem_load_count(bool pci_devices_found)
{
	if (num_devices < 0)
		num_devices = pci_devices_found ? 0 :
			      CUMK_SYSMEM_DEFAULT_DEVICES;
	return num_devices;
}
