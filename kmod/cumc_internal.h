/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cumc private header: the objects of the module and what each file offers
 * the others.
 *
 * Lifetimes: a client (an open file of /dev/cumc) owns a table of handles;
 * each handle holds one reference on the object it names. Objects hold a
 * reference on the device they live on. Devices live from module load to
 * unload.
 */
#ifndef _CUMC_INTERNAL_H
#define _CUMC_INTERNAL_H

#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>
#include <linux/cumc.h>

#define CUMC_MAX_DEVICES 128

/**
 * struct cumc_device - one simulated GPU
 * @ordinal: its index, as userspace names it
 * @uuid: stable for a given ordinal
 * @lock: protects @mem_used
 * @mem_used: bytes of the aperture handed to allocations
 */
struct cumc_device {
	u32 ordinal;
	u8 uuid[16];
	spinlock_t lock; /* protects mem_used */
	u64 mem_used;
};

enum cumc_object_type {
	CUMC_OBJ_MEM = 1,
};

/**
 * struct cumc_object - what a handle names
 * @type: enum cumc_object_type, fixed at creation
 * @ref: one per handle, mapping or other holder
 * @destroy: frees the containing object at the last cumc_object_put()
 */
struct cumc_object {
	enum cumc_object_type type;
	struct kref ref;
	void (*destroy)(struct cumc_object *obj);
};

/**
 * struct cumc_client - one open file of /dev/cumc
 * @handles: handle id -> struct cumc_object *, each entry holding a
 *           reference; the xarray's own lock serializes changes
 * @tag: the upper 32 bits of every handle this client issues, unique among
 *       live clients so that another client's handle never resolves here
 */
struct cumc_client {
	struct xarray handles;
	u32 next_id;
	u32 tag;
};

/**
 * struct cumc_mem - a physical allocation (cuMemCreate)
 * @obj: its handle-table identity
 * @dev: the device whose memory it is
 * @length: bytes, a multiple of the device's granularity
 * @handle_types: enum cumc_handle_types it may be exported as
 */
struct cumc_mem {
	struct cumc_object obj;
	struct cumc_device *dev;
	u64 length;
	u32 handle_types;
};

/* cumc_device.c: the simulated devices */
int cumc_devices_init(void);
void cumc_devices_exit(void);
u32 cumc_num_devices(void);
struct cumc_device *cumc_device_get(u32 ordinal);
u64 cumc_device_granularity(void);
int cumc_device_charge(struct cumc_device *dev, u64 bytes);
void cumc_device_uncharge(struct cumc_device *dev, u64 bytes);
int cumc_device_info(struct cumc_device_info *info);

/* cumc_client.c: open files and their handle tables */
struct cumc_client *cumc_client_create(void);
void cumc_client_destroy(struct cumc_client *client);
void cumc_object_init(struct cumc_object *obj, enum cumc_object_type type,
		      void (*destroy)(struct cumc_object *obj));
void cumc_object_put(struct cumc_object *obj);
int cumc_handle_insert(struct cumc_client *client, struct cumc_object *obj,
		       u64 *handle);
struct cumc_object *cumc_handle_get(struct cumc_client *client, u64 handle,
				    enum cumc_object_type type);
int cumc_handle_release(struct cumc_client *client, u64 handle);

/* cumc_memory.c: physical allocations */
int cumc_mem_create(struct cumc_client *client, struct cumc_mem_create *cmd);
int cumc_mem_info(struct cumc_client *client, struct cumc_mem_info *cmd);

/* cumc_debugfs.c: counters the tests read */
extern atomic_t cumc_live_clients;
extern atomic_t cumc_live_mems;
void cumc_debugfs_init(void);
void cumc_debugfs_exit(void);

/* cumc_ioctl.c: argument marshalling and the dispatch table */
long cumc_fops_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);

#endif /* _CUMC_INTERNAL_H */
