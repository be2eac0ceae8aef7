// SPDX-License-Identifier: GPL-2.0
/*
 * A device falling off the bus (its PCI device removed: QEMU's device_del,
 * a sysfs remove or unbind; a system-memory device deleted from cumc's
 * bus or unbound), in the order that keeps every holder safe:
 *
 * 1. The device is marked lost: calls naming it fail with ENOLINK, and no
 *    fault of its memory is still inserting a PTE.
 * 2. Every PTE of /dev/cumc is zapped, in every process. Memory of other
 *    devices faults back in on its next touch; memory of this one gets
 *    SIGBUS, as a process touching a GPU that fell off the bus does.
 * 3. Its allocations give their memory back now: the device's capacity,
 *    and the pages and bookkeeping charged to memory cgroups. The objects
 *    stay, empty, until their holders release them.
 * 4. Every multicast team with a member on it fails: waiters wake, later
 *    binds and maps fail with EIO, the control plane hears TEAM_FAILED.
 *
 * Another node's GPU is lost the same way when that node is (its VM or its
 * IMEX daemon gone): this node's mappings of its memory get SIGBUS.
 *
 * The device keeps its ordinal until the module is unloaded. Nothing here
 * waits on userspace, so a loss completes whatever processes are doing.
 *
 * A GPU lost with its node, not off the bus, comes back when the node
 * does (its daemon connected again and proved it holds the domain's
 * secret): what is made of it from then on works; allocations made
 * before stay without memory, their mappings with SIGBUS, and teams that
 * failed stay failed.
 */
#include <linux/device.h>
#include <linux/mutex.h>

#include "cumc_internal.h"

/* Orders losses and returns: a GPU never comes back amid its loss. */
static DEFINE_MUTEX(cumk_loss_lock);

static void cumk_loss_handle_locked(struct cumk_device *dev)
{
	lockdep_assert_held(&cumk_loss_lock);
	cumk_device_mark_lost(dev);
	cumk_vm_zap_all();
	cumk_mem_lose_device(dev);
	if (!dev->remote)
		cumk_notify_device_lost(dev->ordinal);
	/* The replicas of a team held here let go of what they map of it. */
	cumk_mc_lose_device(dev);
}

/*
 * @dev fell off the bus: lost for good. @bus_dev is the device that was
 * removed from its bus, PCI (cumc_pci.c) or cumc's own (cumc_bus.c), in
 * its driver's remove().
 */
void cumk_loss_remove(struct device *bus_dev, struct cumk_device *dev)
{
	if (dev->remote)
		dev_info(bus_dev, "cumc GPU %pUb of node %u removed\n",
			 dev->uuid, dev->node);
	else
		dev_info(bus_dev, "cumc device %u removed: lost to its users\n",
			 dev->ordinal);
	mutex_lock(&cumk_loss_lock);
	dev->removed = true;
	cumk_loss_handle_locked(dev);
	mutex_unlock(&cumk_loss_lock);
}

/* Node @node's working GPUs are lost; the node's losses are counted first. */
static void cumk_loss_node_locked(u32 node)
{
	struct cumk_device *dev;
	unsigned long index = 0;

	lockdep_assert_held(&cumk_loss_lock);
	cumk_node_count_loss(node);
	for (; (dev = cumk_device_next_remote(&index)); index++)
		if (dev->node == node && !cumk_device_check(dev))
			cumk_loss_handle_locked(dev);
}

/*
 * Another node was lost (its IMEX daemon says so): its GPUs are lost to
 * this node as if they had fallen off the bus, and the control plane hears
 * of the node.
 */
void cumk_loss_node(u32 node)
{
	mutex_lock(&cumk_loss_lock);
	cumk_loss_node_locked(node);
	mutex_unlock(&cumk_loss_lock);
	cumk_notify_node_lost(node);
}

/* Node @node is back: its GPUs lost with it, and not removed, work again. */
void cumk_loss_node_back(u32 node)
{
	struct cumk_device *dev;
	unsigned long index = 0;

	mutex_lock(&cumk_loss_lock);
	for (; (dev = cumk_device_next_remote(&index)); index++)
		if (dev->node == node && cumk_device_check(dev) &&
		    !dev->removed)
			cumk_device_revive(dev);
	mutex_unlock(&cumk_loss_lock);
}

/* This node is cut off from the others: every other node's GPU is lost. */
void cumk_loss_remote_all(void)
{
	struct cumk_device *dev;
	unsigned long index = 0;

	mutex_lock(&cumk_loss_lock);
	for (; (dev = cumk_device_next_remote(&index)); index++) {
		/* Each node's loss counted once, before its first GPU's. */
		if (!cumk_device_check(dev))
			cumk_loss_node_locked(dev->node);
	}
	mutex_unlock(&cumk_loss_lock);
}
