// SPDX-License-Identifier: GPL-2.0
/*
 * The devices: GPUs of a multicast-capable fabric, each with a fixed amount
 * of device memory that allocations are charged to. Where that memory is
 * comes from the device's backend: a PCI BAR (cumc_pci.c, cumc_bar.c) or
 * system memory (cumc_sysmem.c). Either way, devices get ordinals in the
 * order they are added and keep them until the module goes, even once
 * lost, as a real driver's device numbers stay fixed for a process.
 */
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/nospec.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <linux/string.h>

#include "cumc_internal.h"

static unsigned long granularity = 2UL << 20;

/*
 * cumk_devices[0, cumk_device_count) are the devices; an entry is written
 * before the count that covers it is published, and never changes after.
 */
static struct cumk_device *cumk_devices[CUMC_MAX_DEVICES];
static u32 cumk_device_count;
/*
 * Other nodes' GPUs, which this node reaches through the fabric: no
 * ordinals, found by UUID. Entries are added under cumk_devices_lock and
 * stay until the module goes; the xarray's lock serializes its readers.
 */
static DEFINE_XARRAY_ALLOC(cumk_remote_devices);
static DEFINE_MUTEX(cumk_devices_lock); /* serializes cumk_device_add() */

/*
 * Readers of a device's memory (page faults) hold this across the lookup
 * and the PTE they insert, so that a device being lost can wait for them
 * before it zaps every PTE and lets its memory go.
 */
DEFINE_SRCU(cumk_device_srcu);

atomic64_t cumk_fabric_stats[CUMK_STAT_NR];

/* A size in bytes: a power of two, at least one page, at most 1 GiB. */
static int cumk_param_set_page_pow2(const char *val,
				    const struct kernel_param *kp)
{
	unsigned long size;
	int ret;

	ret = kstrtoul(val, 0, &size);
	if (ret)
		return ret;
	if (size < PAGE_SIZE || size > SZ_1G || !is_power_of_2(size))
		return -EINVAL;
	*(unsigned long *)kp->arg = size;
	return 0;
}

const struct kernel_param_ops cumk_param_ops_page_pow2 = {
	.set = cumk_param_set_page_pow2,
	.get = param_get_ulong,
};
module_param_cb(granularity, &cumk_param_ops_page_pow2, &granularity, 0444);
MODULE_PARM_DESC(granularity,
		 "Allocation granularity in bytes, a power of two from PAGE_SIZE to 1 GiB (default 2 MiB)");

u32 cumk_num_devices(void)
{
	/* Pairs with cumk_device_add(): the entries below it are written. */
	return smp_load_acquire(&cumk_device_count);
}

u64 cumk_device_granularity(void)
{
	return granularity;
}

void cumk_device_init(struct cumk_device *dev,
		      const struct cumk_backend_ops *ops)
{
	dev->ops = ops;
	spin_lock_init(&dev->lock);
	mutex_init(&dev->mems_lock);
	INIT_LIST_HEAD(&dev->mems);
}

static bool cumk_device_is(struct cumk_device *dev, const u8 *uuid)
{
	return !READ_ONCE(dev->lost) &&
	       !memcmp(dev->uuid, uuid, sizeof(dev->uuid));
}

static struct cumk_device *cumk_device_by_uuid(const u8 *uuid)
{
	struct cumk_device *dev;
	unsigned long index;
	u32 i;

	lockdep_assert_held(&cumk_devices_lock);
	for (i = 0; i < cumk_device_count; i++)
		if (cumk_device_is(cumk_devices[i], uuid))
			return cumk_devices[i];
	xa_for_each(&cumk_remote_devices, index, dev)
		if (cumk_device_is(dev, uuid))
			return dev;
	return NULL;
}

/* The working GPU of another node with @uuid, or NULL. */
struct cumk_device *cumk_device_find_remote(const u8 *uuid)
{
	struct cumk_device *dev;
	unsigned long index;

	xa_for_each(&cumk_remote_devices, index, dev)
		if (cumk_device_is(dev, uuid))
			break;
	return dev;
}

/* The working GPU, of this node or another, with @uuid, or NULL. */
struct cumk_device *cumk_device_find_uuid(const u8 *uuid)
{
	struct cumk_device *dev;

	mutex_lock(&cumk_devices_lock);
	dev = cumk_device_by_uuid(uuid);
	mutex_unlock(&cumk_devices_lock);
	return dev;
}

/* The next GPU of another node from *@index on, lost or not, or NULL. */
struct cumk_device *cumk_device_next_remote(unsigned long *index)
{
	return xa_find(&cumk_remote_devices, index, ULONG_MAX, XA_PRESENT);
}

/*
 * Give @dev the next ordinal, or for another node's GPU a place among
 * those. Two live devices never share a UUID: a second device with a live
 * one's identity is the same GPU seen twice (-EEXIST).
 */
int cumk_device_add(struct cumk_device *dev)
{
	u32 index;
	int ret = 0;

	mutex_lock(&cumk_devices_lock);
	if (cumk_device_by_uuid(dev->uuid)) {
		ret = -EEXIST;
	} else if (dev->remote) {
		dev->ordinal = CUMK_NO_ORDINAL;
		ret = xa_alloc(&cumk_remote_devices, &index, dev, xa_limit_32b,
			       GFP_KERNEL);
	} else if (cumk_device_count == CUMC_MAX_DEVICES) {
		ret = -ENOSPC;
	} else {
		dev->ordinal = cumk_device_count;
		cumk_devices[dev->ordinal] = dev;
		/* Pairs with cumk_num_devices(): the entry is seen first. */
		smp_store_release(&cumk_device_count, dev->ordinal + 1);
	}
	mutex_unlock(&cumk_devices_lock);
	return ret;
}

/* The device of @ordinal, lost or not; NULL when there is none. */
struct cumk_device *cumk_device_find(u32 ordinal)
{
	u32 count = cumk_num_devices();

	if (ordinal >= count)
		return NULL;
	return cumk_devices[array_index_nospec(ordinal, count)];
}

/* 0 while @dev works; -ENOLINK once it fell off the bus. */
int cumk_device_check(struct cumk_device *dev)
{
	return READ_ONCE(dev->lost) ? -ENOLINK : 0;
}

/* The working device of @ordinal: ERR_PTR -ENODEV (none) or -ENOLINK (lost). */
struct cumk_device *cumk_device_get(u32 ordinal)
{
	struct cumk_device *dev = cumk_device_find(ordinal);
	int ret;

	if (!dev)
		return ERR_PTR(-ENODEV);
	ret = cumk_device_check(dev);
	return ret ? ERR_PTR(ret) : dev;
}

int cumk_device_charge(struct cumk_device *dev, u64 bytes)
{
	int ret = 0;

	spin_lock(&dev->lock);
	if (bytes > dev->mem_total - dev->mem_used)
		ret = -ENOSPC;
	else
		dev->mem_used += bytes;
	spin_unlock(&dev->lock);
	return ret;
}

void cumk_device_uncharge(struct cumk_device *dev, u64 bytes)
{
	spin_lock(&dev->lock);
	dev->mem_used -= bytes;
	spin_unlock(&dev->lock);
}

/*
 * From now on @dev refuses new allocations and faults of its memory; when
 * this returns, no fault that missed the news is still inserting a PTE.
 */
void cumk_device_mark_lost(struct cumk_device *dev)
{
	mutex_lock(&dev->mems_lock);
	WRITE_ONCE(dev->lost, true);
	mutex_unlock(&dev->mems_lock);
	synchronize_srcu(&cumk_device_srcu);
}

/*
 * @dev, another node's GPU lost with its node, works again for what is
 * made of it from now on: cumc_loss.c's caller holds its lock, and the
 * allocations made before were left without memory by the loss
 * (cumc_memory.c refuses them).
 */
void cumk_device_revive(struct cumk_device *dev)
{
	mutex_lock(&dev->mems_lock);
	WRITE_ONCE(dev->lost, false);
	mutex_unlock(&dev->mems_lock);
}

/* Fill @info for @dev, lost or not, as CUMC_DEVICE_INFO answers. */
void cumk_device_describe(struct cumk_device *dev,
			  struct cumc_device_info *info)
{
	info->caps = CUMC_CAP_VMM | CUMC_CAP_HANDLE_FD | CUMC_CAP_HANDLE_FABRIC;
	/* DEV_SET may turn it off (cumc_condition.c). */
	if (cumk_cond_multicast(dev))
		info->caps |= CUMC_CAP_MULTICAST;
	memcpy(info->uuid, dev->uuid, sizeof(info->uuid));
	strscpy_pad(info->name, dev->name, sizeof(info->name));
	info->pci_domain = dev->pci_domain;
	info->pci_bus = dev->pci_bus;
	info->pci_device = dev->pci_device;
	info->mem_total = dev->mem_total;
	spin_lock(&dev->lock);
	info->mem_free = info->mem_total - dev->mem_used;
	spin_unlock(&dev->lock);
	info->granularity = granularity;
}

int cumk_device_ioctl_info(struct cumk_ucmd *ucmd)
{
	struct cumc_device_info *info = ucmd->cmd;
	struct cumk_device *dev;

	if (info->flags || info->__reserved)
		return -EOPNOTSUPP;
	dev = cumk_device_get(info->device);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	cumk_device_describe(dev, info);
	return 0;
}

/* Called after the last client is gone and every backend has let go. */
static void cumk_device_release(struct cumk_device *dev)
{
	WARN_ON(dev->mem_used);
	WARN_ON(!list_empty(&dev->mems));
	dev->ops->release(dev);
}

void cumk_devices_exit(void)
{
	struct cumk_device *dev;
	unsigned long index;
	u32 i;

	for (i = 0; i < cumk_device_count; i++) {
		cumk_device_release(cumk_devices[i]);
		cumk_devices[i] = NULL;
	}
	cumk_device_count = 0;
	xa_for_each(&cumk_remote_devices, index, dev)
		cumk_device_release(dev);
	xa_destroy(&cumk_remote_devices);
}
