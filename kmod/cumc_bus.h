/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cumc's own bus, "cumc", whose devices are the system-memory GPUs
 * (cumc_bus.c): added at load and through /sys/bus/cumc/new_device,
 * removed through del_device, where their removal is a GPU's loss.
 */
#ifndef _CUMK_BUS_H
#define _CUMK_BUS_H

#include <linux/device.h>
#include <linux/types.h>

struct cumk_device;

/**
 * struct cumk_bus_dev - a device on cumc's bus, named cumcID in sysfs
 * @dev: its driver-model device, whose reference count frees this
 * @id: the index new_device was given, or the load's 0 to num_devices - 1;
 *      the system-memory device's UUID and PCI bus derive from it
 * @cdev: the cumc device its driver's probe made, while bound; the device
 *        lock of @dev protects it
 * @probe_ret: the last probe's answer, for new_device to return
 */
struct cumk_bus_dev {
	struct device dev;
	u32 id;
	struct cumk_device *cdev;
	int probe_ret;
};

int cumk_bus_init(bool pci_devices_found);
void cumk_bus_exit(void);

#endif /* _CUMK_BUS_H */
