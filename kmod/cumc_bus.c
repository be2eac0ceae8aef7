// SPDX-License-Identifier: GPL-2.0
/*
 * cumc's own bus, "cumc", for the system-memory devices, so that a test
 * loses a GPU or adds one without a VM's monitor, as QEMU's device_del and
 * device_add do to a PCI GPU. The load puts num_devices of them on the bus
 * (cumc_sysmem.c); writing an index to /sys/bus/cumc/new_device adds the
 * device of that index, writing it to del_device removes it.
 *
 * The bus's driver binds every device on it. Its probe makes the
 * system-memory device, which gets the next ordinal as a PCI GPU plugged
 * in does; its remove (del_device, an unbind, the module's unload) is the
 * GPU falling off the bus, the same loss as a PCI device's remove
 * (cumc_loss.c). Documentation/devices.md has the interface.
 */
#include <linux/ctype.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/xarray.h>
#include <linux/cumc.h>

#include "cumc_compat.h"
#include "cumc_internal.h"

/*
 * Serializes new_device, del_device, the load's devices and the unload:
 * protects cumk_bus_devs and cumk_bus_open. The outermost lock of the
 * module: a registration or deletion through it probes or removes (loses)
 * the device under it, and nothing takes it under another lock. A bind or
 * unbind through the driver's own files probes or removes under the
 * device's lock alone, which the driver core takes for every probe and
 * remove: that lock, not this one, keeps the two apart.
 */
static DEFINE_MUTEX(cumk_bus_lock);
/* The devices registered on the bus, by index: each entry owns one. */
static DEFINE_XARRAY(cumk_bus_devs);
/* new_device and del_device work: from the load's devices to the unload. */
static bool cumk_bus_open;

static struct cumk_bus_dev *to_cumk_bus_dev(struct device *dev)
{
	return container_of(dev, struct cumk_bus_dev, dev);
}

static int cumk_bus_probe(struct device *dev)
{
	struct cumk_bus_dev *bdev = to_cumk_bus_dev(dev);
	struct cumk_device *cdev;

	device_lock_assert(dev);
	cdev = cumk_sysmem_add(bdev->id);
	bdev->probe_ret = PTR_ERR_OR_ZERO(cdev);
	if (IS_ERR(cdev))
		return PTR_ERR(cdev);
	bdev->cdev = cdev;
	dev_info(dev, "cumc device %u: %s, %llu MiB of system memory\n",
		 cdev->ordinal, cdev->name, cdev->mem_total >> 20);
	return 0;
}

static void cumk_bus_remove(struct device *dev)
{
	struct cumk_bus_dev *bdev = to_cumk_bus_dev(dev);

	device_lock_assert(dev);
	cumk_loss_remove(dev, bdev->cdev);
	bdev->cdev = NULL;
}

/* The ordinal of the device's GPU, while the driver holds it. */
static ssize_t ordinal_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct cumk_bus_dev *bdev = to_cumk_bus_dev(dev);
	ssize_t ret = -ENODEV;

	device_lock(dev);
	if (bdev->cdev)
		ret = sysfs_emit(buf, "%u\n", bdev->cdev->ordinal);
	device_unlock(dev);
	return ret;
}
static DEVICE_ATTR_RO(ordinal);

static struct attribute *cumk_bus_dev_attrs[] = {
	&dev_attr_ordinal.attr,
	NULL
};
ATTRIBUTE_GROUPS(cumk_bus_dev);

/*
 * An index, in decimal, alone on its line: below CUMC_MAX_DEVICES, which
 * keeps the PCI bus number it gives the device (cumc_sysmem.c) in a byte.
 */
static int cumk_bus_parse_id(const char *buf, u32 *id)
{
	/* kstrtouint() would also take a sign. */
	if (!isdigit(buf[0]) || kstrtouint(buf, 10, id) ||
	    *id >= CUMC_MAX_DEVICES)
		return -EINVAL;
	return 0;
}

static void cumk_bus_dev_release(struct device *dev)
{
	kfree(to_cumk_bus_dev(dev));
}

static struct bus_type cumk_bus_type;

/* Register the device of index @id: -EEXIST if there is one already. */
static int cumk_bus_add(u32 id)
{
	struct cumk_bus_dev *bdev;
	int ret;

	lockdep_assert_held(&cumk_bus_lock);
	if (xa_load(&cumk_bus_devs, id))
		return -EEXIST;
	bdev = kzalloc(sizeof(*bdev), GFP_KERNEL);
	if (!bdev)
		return -ENOMEM;
	bdev->id = id;
	bdev->dev.bus = &cumk_bus_type;
	bdev->dev.release = cumk_bus_dev_release;
	device_initialize(&bdev->dev);
	ret = dev_set_name(&bdev->dev, "cumc%u", id);
	if (ret)
		goto err_put;
	/* Before the device shows: nothing can fail once its GPU exists. */
	ret = xa_insert(&cumk_bus_devs, id, bdev, GFP_KERNEL);
	if (ret)
		goto err_put;
	ret = device_add(&bdev->dev);
	if (ret)
		goto err_erase;
	/*
	 * The driver probes synchronously: it has bound the device, or said
	 * why not. Left unbound without a probe (drivers_autoprobe off), the
	 * device stays, as a PCI one would.
	 */
	device_lock(&bdev->dev);
	ret = bdev->cdev ? 0 : bdev->probe_ret;
	device_unlock(&bdev->dev);
	if (ret)
		goto err_del;
	return 0;

err_del:
	device_del(&bdev->dev);
err_erase:
	xa_erase(&cumk_bus_devs, id);
err_put:
	put_device(&bdev->dev);
	return ret;
}

/* Unregister the device of index @id: its GPU, if bound, is lost. */
static int cumk_bus_del(u32 id)
{
	struct cumk_bus_dev *bdev;

	lockdep_assert_held(&cumk_bus_lock);
	bdev = xa_erase(&cumk_bus_devs, id);
	if (!bdev)
		return -ENODEV;
	device_unregister(&bdev->dev);
	return 0;
}

static void cumk_bus_del_all(void)
{
	struct cumk_bus_dev *bdev;
	unsigned long id;

	lockdep_assert_held(&cumk_bus_lock);
	xa_for_each(&cumk_bus_devs, id, bdev)
		cumk_bus_del(id);
}

/* new_device and del_device: @op on the index written, under the lock. */
static ssize_t cumk_bus_store(const char *buf, size_t count, int (*op)(u32 id))
{
	u32 id;
	int ret;

	ret = cumk_bus_parse_id(buf, &id);
	if (ret)
		return ret;
	mutex_lock(&cumk_bus_lock);
	ret = cumk_bus_open ? op(id) : -ENODEV;
	mutex_unlock(&cumk_bus_lock);
	return ret ? ret : count;
}

static ssize_t new_device_store(CUMK_BUS_ATTR_CONST struct bus_type *bus,
				const char *buf, size_t count)
{
	return cumk_bus_store(buf, count, cumk_bus_add);
}
static BUS_ATTR_WO(new_device);

static ssize_t del_device_store(CUMK_BUS_ATTR_CONST struct bus_type *bus,
				const char *buf, size_t count)
{
	return cumk_bus_store(buf, count, cumk_bus_del);
}
static BUS_ATTR_WO(del_device);

static struct attribute *cumk_bus_attrs[] = {
	&bus_attr_new_device.attr,
	&bus_attr_del_device.attr,
	NULL
};
ATTRIBUTE_GROUPS(cumk_bus);

static struct bus_type cumk_bus_type = {
	.name = "cumc",
	.bus_groups = cumk_bus_groups,
	.dev_groups = cumk_bus_dev_groups,
	.probe = cumk_bus_probe,
	.remove = cumk_bus_remove,
};

/* Binds every device of the bus: the bus's probe and remove do the work. */
static struct device_driver cumk_bus_driver = {
	.name = "cumc",
	.bus = &cumk_bus_type,
	.owner = THIS_MODULE,
	.probe_type = PROBE_FORCE_SYNCHRONOUS,
};

/* Called once PCI devices, if any, have been probed: the load's devices. */
int cumk_bus_init(bool pci_devices_found)
{
	u32 count = cumk_sysmem_load_count(pci_devices_found);
	u32 id;
	int ret;

	ret = bus_register(&cumk_bus_type);
	if (ret)
		return ret;
	ret = driver_register(&cumk_bus_driver);
	if (ret)
		goto err_bus;
	mutex_lock(&cumk_bus_lock);
	for (id = 0; id < count; id++) {
		ret = cumk_bus_add(id);
		if (ret)
			goto err_devices;
	}
	cumk_bus_open = true;
	mutex_unlock(&cumk_bus_lock);
	return 0;

err_devices:
	cumk_bus_del_all();
	mutex_unlock(&cumk_bus_lock);
	driver_unregister(&cumk_bus_driver);
err_bus:
	bus_unregister(&cumk_bus_type);
	return ret;
}

/* The devices still on the bus are lost, as PCI ones are at unload. */
void cumk_bus_exit(void)
{
	mutex_lock(&cumk_bus_lock);
	cumk_bus_open = false;
	cumk_bus_del_all();
	mutex_unlock(&cumk_bus_lock);
	driver_unregister(&cumk_bus_driver);
	bus_unregister(&cumk_bus_type);
}
