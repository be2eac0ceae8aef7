// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated devices: GPUs of a multicast-capable fabric, each with an
 * aperture of device memory that allocations are charged to. Backing pages
 * come later and lazily, so the aperture can be as large as a real part's.
 */
#include <linux/jhash.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/nospec.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cumc_internal.h"

static unsigned int num_devices = 8;
static unsigned long mem_size_mib = 81920;
static unsigned long granularity = 2UL << 20;

static struct cumk_device **cumk_devices;

atomic64_t cumk_fabric_stats[CUMC_STAT_NR];

static int cumk_param_set_num_devices(const char *val,
				      const struct kernel_param *kp)
{
	unsigned int n;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	if (n < 1 || n > CUMC_MAX_DEVICES)
		return -EINVAL;
	*(unsigned int *)kp->arg = n;
	return 0;
}

static const struct kernel_param_ops cumk_num_devices_ops = {
	.set = cumk_param_set_num_devices,
	.get = param_get_uint,
};
module_param_cb(num_devices, &cumk_num_devices_ops, &num_devices, 0444);
MODULE_PARM_DESC(num_devices, "Number of simulated devices, 1 to 128 (default 8)");

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
		 "Device memory per device in MiB, backed lazily (default 81920, up to 16 TiB)");

u32 cumk_num_devices(void)
{
	return num_devices;
}

u64 cumk_device_granularity(void)
{
	return granularity;
}

static u64 cumk_device_mem_total(void)
{
	return round_down((u64)mem_size_mib << 20, granularity);
}

/* The device ordinal, hashed: the same UUID every load, an RFC 4122 v4 shape. */
static void cumk_device_make_uuid(struct cumk_device *dev)
{
	u32 words[4];
	int i;

	for (i = 0; i < 4; i++)
		words[i] = jhash_2words(dev->ordinal, i, 0x63756d63);
	memcpy(dev->uuid, words, sizeof(dev->uuid));
	dev->uuid[6] = (dev->uuid[6] & 0x0f) | 0x40;
	dev->uuid[8] = (dev->uuid[8] & 0x3f) | 0x80;
}

struct cumk_device *cumk_device_get(u32 ordinal)
{
	if (ordinal >= num_devices)
		return NULL;
	return cumk_devices[array_index_nospec(ordinal, num_devices)];
}

int cumk_device_charge(struct cumk_device *dev, u64 bytes)
{
	int ret = 0;

	spin_lock(&dev->lock);
	if (bytes > cumk_device_mem_total() - dev->mem_used)
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

/* Fill @info, whose @device names the device, as CUMC_DEVICE_INFO answers. */
int cumk_device_describe(struct cumc_device_info *info)
{
	struct cumk_device *dev;

	if (info->flags || info->__reserved)
		return -EOPNOTSUPP;
	dev = cumk_device_get(info->device);
	if (!dev)
		return -ENODEV;

	info->caps = CUMC_CAP_VMM | CUMC_CAP_HANDLE_FD |
		     CUMC_CAP_HANDLE_FABRIC | CUMC_CAP_MULTICAST;
	memcpy(info->uuid, dev->uuid, sizeof(info->uuid));
	strscpy_pad(info->name, "cumc H100 SXM (simulated)", sizeof(info->name));
	info->pci_domain = 0;
	info->pci_bus = 0x10 + dev->ordinal;
	info->pci_device = 0;
	info->mem_total = cumk_device_mem_total();
	spin_lock(&dev->lock);
	info->mem_free = info->mem_total - dev->mem_used;
	spin_unlock(&dev->lock);
	info->granularity = granularity;
	return 0;
}

int cumk_device_ioctl_info(struct cumk_ucmd *ucmd)
{
	return cumk_device_describe(ucmd->cmd);
}

int cumk_devices_init(void)
{
	u32 i;

	cumk_devices = kcalloc(num_devices, sizeof(*cumk_devices), GFP_KERNEL);
	if (!cumk_devices)
		return -ENOMEM;
	for (i = 0; i < num_devices; i++) {
		struct cumk_device *dev = kzalloc(sizeof(*dev), GFP_KERNEL);

		if (!dev)
			goto err_free_devices;
		dev->ordinal = i;
		spin_lock_init(&dev->lock);
		cumk_device_make_uuid(dev);
		cumk_devices[i] = dev;
	}
	return 0;

err_free_devices:
	while (i--)
		kfree(cumk_devices[i]);
	kfree(cumk_devices);
	return -ENOMEM;
}

/* Called after the last client is gone: nothing is charged any more. */
void cumk_devices_exit(void)
{
	u32 i;

	for (i = 0; i < num_devices; i++) {
		WARN_ON(cumk_devices[i]->mem_used);
		kfree(cumk_devices[i]);
	}
	kfree(cumk_devices);
}
