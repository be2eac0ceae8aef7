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
 *  ENOMEM     the kernel could not allocate its own bookkeeping, or no
 *             address range of the requested size is free
 *  ENXIO      an address that is not in a reservation of this client, or
 *             a range that is not covered by whole mappings
 *  EEXIST     part of the range is mapped already
 *  EBUSY      the reservation still has mappings; an IMEX channel is
 *             attached already
 *  EPERM      the object was not created with that handle type, or the
 *             client has no IMEX channel or not the one a fabric handle
 *             was exported on
 *  EBADF      not an open file descriptor
 *  EBADFD     an open file descriptor of the wrong kind (not a cumc export,
 *             not an IMEX channel)
 *  EMFILE     no free file descriptor
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
	CUMC_CMD_VA_RESERVE,
	CUMC_CMD_VA_FREE,
	CUMC_CMD_MAP,
	CUMC_CMD_UNMAP,
	CUMC_CMD_SET_ACCESS,
	CUMC_CMD_VA_QUERY,
	CUMC_CMD_EXPORT_FD,
	CUMC_CMD_IMPORT_FD,
	CUMC_CMD_ATTACH_CHANNEL,
	CUMC_CMD_EXPORT_FABRIC,
	CUMC_CMD_IMPORT_FABRIC,
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

/*
 * DOC: device addresses
 *
 * A device address is an address in the calling process. CUMC_VA_RESERVE
 * places a reservation in the caller's address space (a mapping of
 * /dev/cumc that the module owns); CUMC_MAP backs part of it with an
 * allocation, CUMC_SET_ACCESS grants devices access, and from then on CPU
 * loads and stores through the address reach the device memory. Touching a
 * part of a reservation that is unmapped or to which no device has the
 * access needed raises SIGSEGV. The CPU stands in for every device: an
 * address is readable when any device may read it, writable when any
 * device may write it. Reservations are not inherited across fork().
 *
 * All addresses and lengths are multiples of the granularity
 * (cumc_device_info.granularity) unless said otherwise.
 */

/**
 * struct cumc_va_reserve - CUMC_VA_RESERVE: reserve device address space
 * @size: sizeof(struct cumc_va_reserve)
 * @flags: must be 0
 * @length: bytes, non-zero, at most 2^47
 * @alignment: a power of two, at most 2^40; 0 means the granularity
 * @addr: a preferred start address, or 0; not an error if unavailable
 * @out_addr: (out) the start of the reservation, aligned to @alignment
 */
struct cumc_va_reserve {
	__u32 size;
	__u32 flags;
	__aligned_u64 length;
	__aligned_u64 alignment;
	__aligned_u64 addr;
	__aligned_u64 out_addr;
};

#define CUMC_VA_RESERVE _IO(CUMC_TYPE, CUMC_CMD_VA_RESERVE)

/**
 * struct cumc_va_free - CUMC_VA_FREE: return a whole reservation
 * @size: sizeof(struct cumc_va_free)
 * @flags: must be 0
 * @addr: the start of a reservation of this client
 * @length: its length
 *
 * EBUSY while anything is mapped in it.
 */
struct cumc_va_free {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
	__aligned_u64 length;
};

#define CUMC_VA_FREE _IO(CUMC_TYPE, CUMC_CMD_VA_FREE)

/**
 * struct cumc_map - CUMC_MAP: back part of a reservation with an allocation
 * @size: sizeof(struct cumc_map)
 * @flags: must be 0
 * @addr: where, inside one reservation of this client
 * @length: the allocation's whole length
 * @handle: an allocation handle of this client
 * @offset: into the allocation, must be 0
 *
 * The mapping holds the allocation: releasing the handle does not unmap
 * it. No device has access until CUMC_SET_ACCESS grants it.
 */
struct cumc_map {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
	__aligned_u64 length;
	__aligned_u64 handle;
	__aligned_u64 offset;
};

#define CUMC_MAP _IO(CUMC_TYPE, CUMC_CMD_MAP)

/**
 * struct cumc_unmap - CUMC_UNMAP: remove mappings
 * @size: sizeof(struct cumc_unmap)
 * @flags: must be 0
 * @addr: start of the first mapping
 * @length: covers one or more adjacent whole mappings of one reservation
 */
struct cumc_unmap {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
	__aligned_u64 length;
};

#define CUMC_UNMAP _IO(CUMC_TYPE, CUMC_CMD_UNMAP)

/* Access of a device to a mapping: the values of CUmemAccess_flags. */
enum cumc_access {
	CUMC_ACCESS_NONE = 0,
	CUMC_ACCESS_READ = 1,
	CUMC_ACCESS_READWRITE = 3,
};

/**
 * struct cumc_access_desc - one device's access
 * @device: device ordinal
 * @access: enum cumc_access
 */
struct cumc_access_desc {
	__u32 device;
	__u32 access;
};

/**
 * struct cumc_set_access - CUMC_SET_ACCESS: set devices' access to mappings
 * @size: sizeof(struct cumc_set_access)
 * @flags: must be 0
 * @addr: start of the first mapping
 * @length: covers one or more adjacent whole mappings of one reservation
 * @descs: user pointer to @num_descs struct cumc_access_desc
 * @num_descs: 1 to the number of devices
 * @__reserved: must be 0
 *
 * All descriptors are checked before any takes effect; a later descriptor
 * for the same device overrides an earlier one.
 */
struct cumc_set_access {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
	__aligned_u64 length;
	__aligned_u64 descs;
	__u32 num_descs;
	__u32 __reserved;
};

#define CUMC_SET_ACCESS _IO(CUMC_TYPE, CUMC_CMD_SET_ACCESS)

/* CUMC_VA_QUERY flags */
enum cumc_va_query_flags {
	/* Also return a new handle to the mapped allocation. */
	CUMC_VA_QUERY_RETAIN = 1 << 0,
};

/**
 * struct cumc_va_query - CUMC_VA_QUERY: what an address is
 * @size: sizeof(struct cumc_va_query)
 * @flags: enum cumc_va_query_flags
 * @addr: any address (not necessarily aligned)
 * @device: the device whose access @out_access reports
 * @__reserved: must be 0
 * @out_va_addr: (out) the reservation holding @addr
 * @out_va_length: (out)
 * @out_map_addr: (out) the mapping holding @addr, 0 when unmapped
 * @out_map_length: (out)
 * @out_handle: (out) with CUMC_VA_QUERY_RETAIN, a new handle to the mapped
 *              allocation, to be released like any other
 * @out_mem_device: (out) the device of the mapped allocation
 * @out_access: (out) enum cumc_access of @device to the mapping
 * @out_handle_types: (out) of the mapped allocation
 * @out_access_any: (out) the highest enum cumc_access any device has: what
 *                  the CPU may do through the address
 *
 * ENXIO when @addr is not in a reservation of this client; with
 * CUMC_VA_QUERY_RETAIN, also when it is not mapped.
 */
struct cumc_va_query {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
	__u32 device;
	__u32 __reserved;
	__aligned_u64 out_va_addr;
	__aligned_u64 out_va_length;
	__aligned_u64 out_map_addr;
	__aligned_u64 out_map_length;
	__aligned_u64 out_handle;
	__u32 out_mem_device;
	__u32 out_access;
	__u32 out_handle_types;
	__u32 out_access_any;
};

#define CUMC_VA_QUERY _IO(CUMC_TYPE, CUMC_CMD_VA_QUERY)

/*
 * DOC: sharing
 *
 * An object may be shared with other clients, in this process or another,
 * in the ways named at its creation (enum cumc_handle_types):
 *
 * - CUMC_HANDLE_FD: CUMC_EXPORT_FD returns a close-on-exec file descriptor
 *   that holds the object on its own. It can travel over a Unix socket;
 *   CUMC_IMPORT_FD turns it into a new handle of the importing client.
 * - CUMC_HANDLE_FABRIC: CUMC_EXPORT_FABRIC returns a 64-byte handle, random
 *   and free of kernel pointers, that any client on the same fabric (this
 *   module instance) may import with CUMC_IMPORT_FABRIC, provided it has
 *   attached the IMEX channel the handle was exported on. A fabric handle
 *   does not hold the object: once the object is gone, it imports no more.
 *
 * IMEX channels are the character devices /dev/cumc-imex-channels/channelN;
 * their file permissions decide who may use them. A client attaches one by
 * passing an open file descriptor of it to CUMC_ATTACH_CHANNEL. Creating
 * memory with CUMC_HANDLE_FABRIC, exporting and importing fabric handles
 * need an attached channel (EPERM otherwise).
 */

/**
 * struct cumc_export_fd - CUMC_EXPORT_FD: a file descriptor for an object
 * @size: sizeof(struct cumc_export_fd)
 * @flags: must be 0
 * @handle: a handle of this client, of an object created with
 *          CUMC_HANDLE_FD (EPERM otherwise)
 * @out_fd: (out) the new descriptor, close-on-exec
 * @__reserved: must be 0
 */
struct cumc_export_fd {
	__u32 size;
	__u32 flags;
	__aligned_u64 handle;
	__s32 out_fd;
	__u32 __reserved;
};

#define CUMC_EXPORT_FD _IO(CUMC_TYPE, CUMC_CMD_EXPORT_FD)

/**
 * struct cumc_import_fd - CUMC_IMPORT_FD: a handle for an exported object
 * @size: sizeof(struct cumc_import_fd)
 * @flags: must be 0
 * @fd: a descriptor from CUMC_EXPORT_FD, of any client or process
 * @__reserved: must be 0
 * @out_handle: (out) a new handle of this client; the descriptor may be
 *              closed afterwards
 */
struct cumc_import_fd {
	__u32 size;
	__u32 flags;
	__s32 fd;
	__u32 __reserved;
	__aligned_u64 out_handle;
};

#define CUMC_IMPORT_FD _IO(CUMC_TYPE, CUMC_CMD_IMPORT_FD)

/**
 * struct cumc_attach_channel - CUMC_ATTACH_CHANNEL: use an IMEX channel
 * @size: sizeof(struct cumc_attach_channel)
 * @flags: must be 0
 * @fd: an open descriptor of /dev/cumc-imex-channels/channelN
 * @out_channel: (out) N
 *
 * Once per client (EBUSY after that). The descriptor may be closed
 * afterwards: having opened it is the proof of permission.
 */
struct cumc_attach_channel {
	__u32 size;
	__u32 flags;
	__s32 fd;
	__u32 out_channel;
};

#define CUMC_ATTACH_CHANNEL _IO(CUMC_TYPE, CUMC_CMD_ATTACH_CHANNEL)

#define CUMC_FABRIC_HANDLE_SIZE 64

/**
 * struct cumc_export_fabric - CUMC_EXPORT_FABRIC: a fabric handle
 * @size: sizeof(struct cumc_export_fabric)
 * @flags: must be 0
 * @handle: a handle of this client, of an object created with
 *          CUMC_HANDLE_FABRIC (EPERM otherwise)
 * @out_fabric: (out) the fabric handle; the same for every export of one
 *              object
 */
struct cumc_export_fabric {
	__u32 size;
	__u32 flags;
	__aligned_u64 handle;
	__u8 out_fabric[CUMC_FABRIC_HANDLE_SIZE];
};

#define CUMC_EXPORT_FABRIC _IO(CUMC_TYPE, CUMC_CMD_EXPORT_FABRIC)

/**
 * struct cumc_import_fabric - CUMC_IMPORT_FABRIC: a handle from a fabric handle
 * @size: sizeof(struct cumc_import_fabric)
 * @flags: must be 0
 * @fabric: from CUMC_EXPORT_FABRIC
 * @out_handle: (out) a new handle of this client
 *
 * ENOENT when the fabric handle names nothing (forged, or its object is
 * gone); EPERM when this client has not attached its IMEX channel.
 */
struct cumc_import_fabric {
	__u32 size;
	__u32 flags;
	__u8 fabric[CUMC_FABRIC_HANDLE_SIZE];
	__aligned_u64 out_handle;
};

#define CUMC_IMPORT_FABRIC _IO(CUMC_TYPE, CUMC_CMD_IMPORT_FABRIC)

#endif /* _UAPI_LINUX_CUMC_H */
