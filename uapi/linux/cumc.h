/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * cumc: a software NVLink multicast fabric.
 *
 * The ioctl interface of /dev/cumc. One open file is one client (a driver
 * instance in CUDA terms); every object a client creates belongs to that file
 * and goes away with it unless it was shared.
 */
#ifndef _UAPI_LINUX_CUMC_H
#define _UAPI_LINUX_CUMC_H

#include <linux/ioctl.h>
#include <linux/types.h>

/*
 * DOC: extensible structs and the errno table
 *
 * Every command takes one struct whose first member is __u32 size, set by the
 * caller to sizeof() the struct it was compiled with. The kernel accepts a
 * struct shorter than its own down to the last member the command has always
 * had (the missing tail reads as zero) and a longer one whose unknown tail is
 * all zero. Members named __reserved, and flag bits not defined here, must be
 * zero. Output members are written back up to the smaller of the two sizes.
 *
 * Errors, the same meaning for every command:
 *  ENOTTY     unknown ioctl number
 *  EFAULT     the struct (or memory it points to) is not accessible
 *  EINVAL     size smaller than the command's minimum, or a member out of
 *             its documented range
 *  E2BIG      size larger than the kernel's struct with a non-zero tail
 *  EOPNOTSUPP a flag or reserved member is non-zero, or a value the
 *             simulated devices do not support
 *  ENODEV     no such device
 *  ENOENT     no such handle in this client: never issued by it, released,
 *             or issued by another client
 *  ENOSPC     the device has not that much memory free
 *  ENOMEM     the kernel could not allocate its own bookkeeping
 *
 * Handles are opaque non-zero 64-bit values, valid only in the file that
 * issued them; userspace must not read meaning into their bits.
 */

/* Bumped when a command or member is added. */
#define CUMC_API_VERSION 1

/* ioctl type 0xCC, numbers 0x80 and up (0x00-0x0f belong to ibmvmc). */
#define CUMC_TYPE 0xCC

enum {
	CUMC_CMD_BASE = 0x80,
	CUMC_CMD_QUERY = CUMC_CMD_BASE,
	CUMC_CMD_DEVICE_INFO,
	CUMC_CMD_MEM_CREATE,
	CUMC_CMD_MEM_INFO,
	CUMC_CMD_RELEASE,
};

/**
 * struct cumc_query - CUMC_QUERY: what this module offers
 * @size: sizeof(struct cumc_query)
 * @flags: must be 0
 * @api_version: (out) CUMC_API_VERSION of the running module
 * @num_devices: (out) number of simulated devices
 */
struct cumc_query {
	__u32 size;
	__u32 flags;
	__u32 api_version;
	__u32 num_devices;
};

#define CUMC_QUERY _IO(CUMC_TYPE, CUMC_CMD_QUERY)

/* Capabilities of a simulated device (struct cumc_device_info). */
enum cumc_device_caps {
	CUMC_CAP_VMM = 1 << 0,
	CUMC_CAP_HANDLE_FD = 1 << 1,
	CUMC_CAP_HANDLE_FABRIC = 1 << 2,
	CUMC_CAP_MULTICAST = 1 << 3,
};

#define CUMC_DEVICE_NAME_LEN 64

/**
 * struct cumc_device_info - CUMC_DEVICE_INFO: one simulated device
 * @size: sizeof(struct cumc_device_info)
 * @flags: must be 0
 * @device: ordinal, below cumc_query.num_devices (ENODEV otherwise)
 * @caps: (out) enum cumc_device_caps
 * @uuid: (out) stable across module loads for a given ordinal
 * @name: (out) NUL-terminated marketing-style name
 * @pci_domain: (out) PCI-like location of the device, unique per device
 * @pci_bus: (out)
 * @pci_device: (out)
 * @__reserved: must be 0
 * @mem_total: (out) bytes of device memory
 * @mem_free: (out) bytes of device memory not allocated
 * @granularity: (out) allocation granularity in bytes, a power of two;
 *               sizes of allocations are multiples of it
 */
struct cumc_device_info {
	__u32 size;
	__u32 flags;
	__u32 device;
	__u32 caps;
	__u8 uuid[16];
	char name[CUMC_DEVICE_NAME_LEN];
	__u32 pci_domain;
	__u32 pci_bus;
	__u32 pci_device;
	__u32 __reserved;
	__aligned_u64 mem_total;
	__aligned_u64 mem_free;
	__aligned_u64 granularity;
};

#define CUMC_DEVICE_INFO _IO(CUMC_TYPE, CUMC_CMD_DEVICE_INFO)

/* Ways an object may be shared, chosen when it is created. */
enum cumc_handle_types {
	CUMC_HANDLE_FD = 1 << 0,
	CUMC_HANDLE_FABRIC = 1 << 1,
};

/**
 * struct cumc_mem_create - CUMC_MEM_CREATE: allocate device memory
 * @size: sizeof(struct cumc_mem_create)
 * @flags: must be 0
 * @device: ordinal of the device the memory lives on
 * @handle_types: enum cumc_handle_types the object may be exported as
 * @length: bytes, a non-zero multiple of the device's granularity
 * @out_handle: (out) the new allocation's handle
 *
 * The memory reads as zero until written. ENOSPC when the device has less
 * than @length free.
 */
struct cumc_mem_create {
	__u32 size;
	__u32 flags;
	__u32 device;
	__u32 handle_types;
	__aligned_u64 length;
	__aligned_u64 out_handle;
};

#define CUMC_MEM_CREATE _IO(CUMC_TYPE, CUMC_CMD_MEM_CREATE)

/**
 * struct cumc_mem_info - CUMC_MEM_INFO: the properties of an allocation
 * @size: sizeof(struct cumc_mem_info)
 * @flags: must be 0
 * @handle: an allocation handle of this client
 * @out_device: (out) the device the memory lives on
 * @out_handle_types: (out) as given to CUMC_MEM_CREATE
 * @out_length: (out) bytes
 */
struct cumc_mem_info {
	__u32 size;
	__u32 flags;
	__aligned_u64 handle;
	__u32 out_device;
	__u32 out_handle_types;
	__aligned_u64 out_length;
};

#define CUMC_MEM_INFO _IO(CUMC_TYPE, CUMC_CMD_MEM_INFO)

/**
 * struct cumc_release - CUMC_RELEASE: give up a handle
 * @size: sizeof(struct cumc_release)
 * @flags: must be 0
 * @handle: a handle of this client
 *
 * The handle is gone at once; the object it named lives on while anything
 * else (a mapping, another client's handle) still holds it.
 */
struct cumc_release {
	__u32 size;
	__u32 flags;
	__aligned_u64 handle;
};

#define CUMC_RELEASE _IO(CUMC_TYPE, CUMC_CMD_RELEASE)

#endif /* _UAPI_LINUX_CUMC_H */
