/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The simulated GPUs: their backends, conditions, counters, loss, and the
 * node of the fabric they belong to (cumc_device.c, cumc_node.c,
 * cumc_sysmem.c, cumc_bar.c, cumc_pci.c, cumc_loss.c, cumc_condition.c).
 */
#ifndef _CUMK_DEVICE_H
#define _CUMK_DEVICE_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/srcu.h>
#include <linux/types.h>
#include <linux/cumc.h>

struct cumk_ucmd;
struct device;

/* Counters of the control plane's STATS_GET, per device and fabric-wide. */
enum cumk_stat {
	CUMK_STAT_OBJECTS,
	CUMK_STAT_BOUND_BYTES,
	CUMK_STAT_BINDS,
	CUMK_STAT_MAPS,
	CUMK_STAT_WAITS,
	CUMK_STAT_FAULTS,
	CUMK_STAT_NR
};

struct cumk_device;
struct cumk_mem;
struct mem_cgroup;

/* As many nodes as an NVLink domain of 576 GPUs has, 4 to a node. */
#define CUMK_MAX_NODES 144
/* No node: every one is told, or none answers. */
#define CUMK_NO_NODE U32_MAX

/**
 * struct cumk_backend_ops - where a device's memory comes from
 * @name: the backend as the control plane shows it
 * @mem_alloc: place @mem's bytes; the device's capacity is already
 *             charged, so only bookkeeping can fail (-ENOMEM)
 * @mem_free: give them back; called once, when the object is freed or
 *            its device is lost, whichever comes first
 * @mem_pfn: the page frame at page @index of @mem, backed (and zeroed) on
 *           first touch; called inside cumk_device_srcu's read lock
 * @mem_share: back and zero every page of @mem now, because another node
 *             is to map it without asking; NULL where memory cannot leave
 *             the node
 * @release: free the device at module unload
 */
struct cumk_backend_ops {
	const char *name;
	int (*mem_alloc)(struct cumk_mem *mem);
	void (*mem_free)(struct cumk_mem *mem);
	int (*mem_pfn)(struct cumk_mem *mem, pgoff_t index, unsigned long *pfn);
	int (*mem_share)(struct cumk_mem *mem);
	void (*release)(struct cumk_device *dev);
};

/**
 * struct cumk_cond - a device's conditions (cumc_condition.c), under its
 *                    cumk_cond_lock; all zero: none
 * @held_state: the fabric state DEV_SET holds (NOT_STARTED, IN_PROGRESS),
 *              or CUMC_FABRIC_STATE_NOT_SUPPORTED (0): not held
 * @health_mask_set: @health_mask overrides the health mask reported
 * @health_mask: NVML's nvmlGpuFabricInfo healthMask
 * @no_multicast: the device cannot join multicast teams
 */
struct cumk_cond {
	u32 held_state;
	bool health_mask_set;
	u32 health_mask;
	bool no_multicast;
};

/**
 * struct cumk_cond_change - what one DEV_SET changes
 * @reset: drop every condition first
 * @set_state: @held_state replaces the held state (0: let go)
 * @held_state: as struct cumk_cond's
 * @set_health_mask: @health_mask overrides the health mask
 * @health_mask: as struct cumk_cond's
 * @set_multicast: @multicast says whether it may join teams
 * @multicast: as above
 */
struct cumk_cond_change {
	bool reset;
	bool set_state;
	u32 held_state;
	bool set_health_mask;
	u32 health_mask;
	bool set_multicast;
	bool multicast;
};

/* The ordinal of a device no client names: a GPU of another node. */
#define CUMK_NO_ORDINAL U32_MAX

/**
 * struct cumk_device - one simulated GPU
 * @ordinal: its index, as userspace names it; assigned when it is added;
 *           CUMK_NO_ORDINAL for a GPU of another node
 * @uuid: its identity: stable for a given GPU
 * @name: the product name it reports
 * @pci_domain: where it sits on PCI, as CUMC_DEVICE_INFO reports it
 * @pci_bus: likewise
 * @pci_device: likewise
 * @mem_total: bytes of device memory, a multiple of the granularity
 * @fabric: a GPU of a multi-node fabric: its memory is reachable from the
 *          fabric's other nodes (cumc_node.c)
 * @node: the fabric node that owns it
 * @remote: owned by another node: this node only maps memory that node
 *          shared (cumc_remote.c); it has no ordinal and no capacity here
 * @ops: its backend (cumc_sysmem.c, cumc_bar.c)
 * @lost: it fell off the bus (cumc_loss.c): set once, under @mems_lock;
 *        read under cumk_device_srcu by faults
 * @lock: protects @mem_used
 * @mem_used: bytes of @mem_total handed to allocations
 * @mems_lock: protects @mems and @lost's setting
 * @mems: its allocations that still have backing, by struct cumk_mem's
 *        @dev_link
 * @stats: enum cumk_stat counters, atomic: no lock
 * @cond: its conditions (DEV_SET), under cumc_condition.c's cumk_cond_lock
 */
struct cumk_device {
	u32 ordinal;
	u8 uuid[16];
	char name[CUMC_DEVICE_NAME_LEN];
	u32 pci_domain;
	u32 pci_bus;
	u32 pci_device;
	u64 mem_total;
	bool fabric;
	u32 node;
	bool remote;
	const struct cumk_backend_ops *ops;
	bool lost;
	bool removed;	/* off the bus: lost for good (cumc_loss.c's lock) */
	spinlock_t lock; /* protects mem_used */
	u64 mem_used;
	struct mutex mems_lock; /* protects mems, the setting of lost */
	struct list_head mems;
	atomic64_t stats[CUMK_STAT_NR];
	struct cumk_cond cond;
};

/* The fabric-wide counters; each device has its own (cumc_device.c). */
extern atomic64_t cumk_fabric_stats[CUMK_STAT_NR];

/* Count @n for @dev (may be NULL: fabric-wide only) and the fabric. */
static inline void cumk_stat_add(struct cumk_device *dev, enum cumk_stat stat,
				 s64 n)
{
	atomic64_add(n, &cumk_fabric_stats[stat]);
	if (dev)
		atomic64_add(n, &dev->stats[stat]);
}

/* cumc_device.c: the devices, their ordinals and their counters */
/* Module parameters that are a power-of-two size from a page to 1 GiB. */
extern const struct kernel_param_ops cumk_param_ops_page_pow2;
void cumk_device_init(struct cumk_device *dev,
		      const struct cumk_backend_ops *ops);
int cumk_device_add(struct cumk_device *dev);
void cumk_devices_exit(void);
u32 cumk_num_devices(void);
struct cumk_device *cumk_device_find(u32 ordinal);
struct cumk_device *cumk_device_get(u32 ordinal);
int cumk_device_check(struct cumk_device *dev);
u64 cumk_device_granularity(void);
int cumk_device_charge(struct cumk_device *dev, u64 bytes);
void cumk_device_uncharge(struct cumk_device *dev, u64 bytes);
void cumk_device_describe(struct cumk_device *dev,
			  struct cumc_device_info *info);
int cumk_device_ioctl_info(struct cumk_ucmd *ucmd);
/*
 * Faults hold it (srcu_read_lock()) from looking up a device's page frame
 * to inserting it, so that a loss can wait for them.
 */
extern struct srcu_struct cumk_device_srcu;
void cumk_device_mark_lost(struct cumk_device *dev);
void cumk_device_revive(struct cumk_device *dev);

struct cumk_device *cumk_device_find_remote(const u8 *uuid);
struct cumk_device *cumk_device_find_uuid(const u8 *uuid);
struct cumk_device *cumk_device_next_remote(unsigned long *index);

/* cumc_node.c: this node of the fabric and the cluster its GPUs declare */
u32 cumk_node_index(void);
void cumk_node_count_loss(u32 node);
u32 cumk_node_loss_count(u32 node);
int cumk_node_join_cluster(const u8 *cluster_uuid, u32 clique_id);
bool cumk_node_cluster(u8 *cluster_uuid, u32 *clique_id);
bool cumk_node_in_fabric(void);

/* cumc_sysmem.c: devices backed by system memory, made by cumc's bus */
struct cumk_device *cumk_sysmem_add(u32 index);
u32 cumk_sysmem_load_count(bool pci_devices_found);

/* cumc_bar.c: device memory in a PCI BAR, and its allocator */
struct cumk_device *cumk_bar_create(phys_addr_t phys, void *vaddr,
				    u64 mem_offset, u64 mem_size, bool remote);

/* cumc_pci.c: the PCI driver of the simulated GPUs */
int cumk_pci_init(void);
void cumk_pci_exit(void);

/* cumc_loss.c: a device falling off the bus */
void cumk_loss_remove(struct device *bus_dev, struct cumk_device *dev);
void cumk_loss_node(u32 node);
void cumk_loss_node_back(u32 node);
void cumk_loss_remote_all(void);

/* cumc_condition.c: devices' conditions; cumk_cond_lock (a leaf) guards them */
void cumk_cond_apply(struct cumk_device *dev, const struct cumk_cond_change *c);
void cumk_cond_read(struct cumk_device *dev, struct cumk_cond *out);
bool cumk_cond_fabric_held(struct cumk_device *dev);
bool cumk_cond_multicast(struct cumk_device *dev);

#endif /* _CUMK_DEVICE_H */
