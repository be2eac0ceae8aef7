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
 *             simulated devices do not support; multicast on a device
 *             DEV_SET took it from (cumc_netlink.h)
 *  ENODEV     no such device
 *  ENOENT     no such handle in this client: never issued by it, released,
 *             or issued by another client
 *  ENOSPC     the device has not that much memory free; a bind found the
 *             fabric out of resources (injected faults, cumc_netlink.h);
 *             a bind or map of a team whose setup found the fabric's
 *             multicast limit reached (FABRIC_SET, cumc_netlink.h);
 *             the address ranges unprivileged users may hold together are
 *             all taken (all but the module's reserved_address_ranges)
 *  ENOMEM     the kernel could not allocate its own bookkeeping, or no
 *             address range of the requested size is free
 *  ENXIO      an address that is not in a reservation of this client, or
 *             a range that is not covered by whole mappings
 *  EEXIST     part of the range is mapped already
 *  EBUSY      the reservation still has mappings; an IMEX channel is
 *             attached already
 *  EPERM      the object was not created with that handle type, or the
 *             client has no IMEX channel or not the one a fabric handle
 *             was exported on; an unbind of a binding another user made
 *  EBADF      not an open file descriptor
 *  EBADFD     an open file descriptor of the wrong kind (not a cumc export,
 *             not an IMEX channel)
 *  EMFILE     no free file descriptor
 *  EACCES     a multicast view of a mapping no device may access
 *  EIO        the multicast team failed to form (its setup failed, or the
 *             fabric-illegal-state fault of cumc_netlink.h was injected);
 *             a device's join refused (the add-device fault)
 *  ETIMEDOUT  the multicast team's setup was not answered within the
 *             module's fm_timeout_ms: the fabric manager is down or slow
 *             (or the fabric-not-ready fault was injected); retryable
 *  EOVERFLOW  a handle retained 2^32 - 1 times
 *  EDQUOT     the client, or all clients of its user together, would
 *             pass one of its quotas (the module's max_handles,
 *             max_objects, max_address_ranges, max_mapped_bytes,
 *             max_bound_bytes, max_mappings, max_bindings and their
 *             max_user_ forms); nothing was changed
 *  ENOLINK    the device fell off the bus (Documentation/devices.md)
 *
 * Importing another node's fabric handle (Documentation/multinode.md):
 *  ENOTCONN     no IMEX daemon is attached on this node
 *  EHOSTUNREACH the exporting node is not in this node's IMEX domain
 *  EHOSTDOWN    the exporting node, or its GPU, is lost
 *  ETIMEDOUT    the exporting node did not answer within fm_timeout_ms
 *  EPROTO       its answer made no sense (another module version)
 *  EINTR        the caller was killed while waiting
 *
 * Handles are opaque non-zero 64-bit values, valid only in the file that
 * issued them; userspace must not read meaning into their bits.
 */

/*
 * Bumped when a command, flag or member is added.
 * 2: cumc_mc_bind.device_from, cumc_mc_view.views.
 * 3: CUMC_VA_RESERVE_SHARED.
 */
#define CUMC_API_VERSION 3

/* The most simulated devices a module may have, so the largest team. */
#define CUMC_MAX_DEVICES 128

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
	CUMC_CMD_MC_CREATE,
	CUMC_CMD_MC_ADD_DEVICE,
	CUMC_CMD_MC_BIND_MEM,
	CUMC_CMD_MC_BIND_ADDR,
	CUMC_CMD_MC_UNBIND,
	CUMC_CMD_MC_INFO,
	CUMC_CMD_MC_VIEW,
};

/**
 * struct cumc_query - CUMC_QUERY: what this module offers
 * @size: sizeof(struct cumc_query)
 * @flags: must be 0
 * @api_version: (out) CUMC_API_VERSION of the running module
 * @num_devices: (out) number of simulated devices
 * @mc_granularity: (out) the minimum granularity of multicast objects,
 *                  their sizes, offsets and bindings, in bytes
 * @mc_page_size: (out) the fabric page size: the largest recommended
 *                multicast granularity, in bytes
 */
struct cumc_query {
	__u32 size;
	__u32 flags;
	__u32 api_version;
	__u32 num_devices;
	__aligned_u64 mc_granularity;
	__aligned_u64 mc_page_size;
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
 * /dev/cumc that the module owns, or with CUMC_VA_RESERVE_SHARED a range of
 * one that the module shares among the client's reservations, an arena: see
 * Documentation/uapi.md); CUMC_MAP backs part of it with an allocation,
 * CUMC_SET_ACCESS grants devices access, and from then on CPU loads and
 * stores through the address reach the device memory. Touching a part of a
 * reservation that is unmapped or to which no device has the access needed
 * raises SIGSEGV. The CPU stands in for every device: an address is
 * readable when any device may read it, writable when any device may write
 * it. Reservations are not inherited across fork().
 *
 * All addresses and lengths are multiples of the granularity
 * (cumc_device_info.granularity) unless said otherwise.
 */

/* CUMC_VA_RESERVE flags */
enum cumc_va_reserve_flags {
	/*
	 * API version 3: a range of one of the client's arenas, shared with
	 * its other such reservations, instead of a mapping of its own
	 * (Documentation/uapi.md). Bit 0 stays unused: binaries of version 2
	 * check that it is refused.
	 */
	CUMC_VA_RESERVE_SHARED = 1 << 1,
};

/**
 * struct cumc_va_reserve - CUMC_VA_RESERVE: reserve device address space
 * @size: sizeof(struct cumc_va_reserve)
 * @flags: 0 or CUMC_VA_RESERVE_SHARED
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

/* What a mapping maps (cumc_va_query.out_type). */
enum cumc_va_type {
	CUMC_VA_NONE = 0,
	CUMC_VA_MEM = 1,
	CUMC_VA_MULTICAST = 2,
};

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
 * @out_handle: (out) with CUMC_VA_QUERY_RETAIN, a handle to the mapped
 *              allocation: the one this client already has, counted once
 *              more (it takes one more CUMC_RELEASE to go), or a new one
 * @out_mem_device: (out) the device of the mapped allocation
 * @out_access: (out) enum cumc_access of @device to the mapping
 * @out_handle_types: (out) of the mapped allocation
 * @out_access_any: (out) the highest enum cumc_access any device has: what
 *                  the CPU may do through the address (for an allocation)
 * @out_type: (out) enum cumc_va_type of what is mapped
 * @__reserved2: must be 0
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
	__u32 out_type;
	__u32 __reserved2;
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
 * IMEX channels are the character devices /dev/cumc-imex-channels/channelN
 * and, under NVIDIA's name, /dev/nvidia-caps-imex-channels/channelN (the
 * same channel); their file permissions decide who may use them. A client attaches one by
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
 * @fd: an open descriptor of channel N, by either name
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
 * gone); EPERM when this client has not attached its IMEX channel, or not
 * the channel the handle was exported on. A handle another node exported
 * is looked up there, through the two nodes' IMEX daemons, with the errors
 * of the table above; EOPNOTSUPP when that node cannot share the object
 * with this one (a multicast object, memory not of a fabric GPU).
 */
struct cumc_import_fabric {
	__u32 size;
	__u32 flags;
	__u8 fabric[CUMC_FABRIC_HANDLE_SIZE];
	__aligned_u64 out_handle;
};

#define CUMC_IMPORT_FABRIC _IO(CUMC_TYPE, CUMC_CMD_IMPORT_FABRIC)

/*
 * DOC: multicast
 *
 * A multicast object (CUMC_MC_CREATE) has a team of num_devices devices and
 * a length per device. Clients add devices with CUMC_MC_ADD_DEVICE, possibly
 * from other processes (after sharing the object); when the last one joins,
 * the fabric sets the team up and it becomes ready. CUMC_MC_BIND_MEM and
 * CUMC_MC_BIND_ADDR bind memory of a member device at an offset of the
 * object; CUMC_MAP maps the object into a reservation. Binds and maps wait
 * for the team to be ready (interruptibly: a signal ends the wait and the
 * call leaves nothing behind; it restarts if the signal handler allows).
 *
 * Plain loads and stores through a multicast mapping fault, as they are
 * undefined on the hardware. Instead, CUMC_MC_VIEW maps, for one member, a
 * view of the memory bound for it: the view's byte at offset o is the
 * member's bound memory at multicast offset o. libcumc runs multimem
 * operations over the views of all members, without a system call each.
 * Unbound parts of a view raise SIGBUS.
 *
 * Offsets, lengths and sizes are multiples of cumc_query.mc_granularity.
 */

/**
 * struct cumc_mc_create - CUMC_MC_CREATE: make a multicast object
 * @size: sizeof(struct cumc_mc_create)
 * @flags: must be 0
 * @num_devices: team size, 1 to cumc_query.num_devices
 * @handle_types: enum cumc_handle_types it may be exported as
 * @length: bytes per device, non-zero; @num_devices * @length at most 2^47
 * @out_handle: (out) the new object's handle
 */
struct cumc_mc_create {
	__u32 size;
	__u32 flags;
	__u32 num_devices;
	__u32 handle_types;
	__aligned_u64 length;
	__aligned_u64 out_handle;
};

#define CUMC_MC_CREATE _IO(CUMC_TYPE, CUMC_CMD_MC_CREATE)

/**
 * struct cumc_mc_add_device - CUMC_MC_ADD_DEVICE: a device joins the team
 * @size: sizeof(struct cumc_mc_add_device)
 * @flags: must be 0
 * @handle: a multicast handle of this client
 * @device: ordinal of the device
 * @__reserved: must be 0
 *
 * EEXIST when the device is a member already; EINVAL when the team is
 * complete.
 */
struct cumc_mc_add_device {
	__u32 size;
	__u32 flags;
	__aligned_u64 handle;
	__u32 device;
	__u32 __reserved;
};

#define CUMC_MC_ADD_DEVICE _IO(CUMC_TYPE, CUMC_CMD_MC_ADD_DEVICE)

/* How a bind names its member (cumc_mc_bind.device_from). */
enum cumc_mc_bind_device_from {
	/* @device names the member. */
	CUMC_MC_BIND_DEVICE_GIVEN = 0,
	/*
	 * The member is the device the memory lives on (cuMulticastBindMem
	 * and cuMulticastBindAddr name no device); @device must be 0.
	 */
	CUMC_MC_BIND_DEVICE_OF_MEM = 1,
};

/**
 * struct cumc_mc_bind - CUMC_MC_BIND_MEM, CUMC_MC_BIND_ADDR: bind memory
 * @size: sizeof(struct cumc_mc_bind)
 * @flags: must be 0
 * @handle: a multicast handle of this client
 * @device: the member whose memory this is; the memory must live on it
 * @__reserved: must be 0
 * @mc_offset: where in the multicast object
 * @mem: CUMC_MC_BIND_MEM: an allocation handle of this client;
 *       CUMC_MC_BIND_ADDR: an address mapped to an allocation in a
 *       reservation of this client
 * @mem_offset: CUMC_MC_BIND_MEM: where in the allocation;
 *              CUMC_MC_BIND_ADDR: must be 0
 * @length: bytes; the memory range must lie in one allocation
 * @device_from: enum cumc_mc_bind_device_from (since API version 2)
 * @__reserved2: must be 0
 *
 * Waits for the team to be ready. EINVAL: not a member, memory of another
 * device, ranges unaligned or past the end of the object or allocation,
 * memory created without handle types bound to an object created with
 * some (a shareable team may span processes, so must its memory), an
 * unknown @device_from; EEXIST: overlaps another binding of the same
 * member; EIO: the team failed; ENOSPC: it failed at the fabric's
 * multicast limit.
 */
struct cumc_mc_bind {
	__u32 size;
	__u32 flags;
	__aligned_u64 handle;
	__u32 device;
	__u32 __reserved;
	__aligned_u64 mc_offset;
	__aligned_u64 mem;
	__aligned_u64 mem_offset;
	__aligned_u64 length;
	__u32 device_from;
	__u32 __reserved2;
};

#define CUMC_MC_BIND_MEM _IO(CUMC_TYPE, CUMC_CMD_MC_BIND_MEM)
#define CUMC_MC_BIND_ADDR _IO(CUMC_TYPE, CUMC_CMD_MC_BIND_ADDR)

/**
 * struct cumc_mc_unbind - CUMC_MC_UNBIND: undo a binding
 * @size: sizeof(struct cumc_mc_unbind)
 * @flags: must be 0
 * @handle: a multicast handle of this client
 * @device: the member
 * @__reserved: must be 0
 * @mc_offset: the multicast offset of a binding of that member
 * @length: its length
 *
 * EINVAL when @device is not a member; ENXIO when no binding of it has
 * exactly that range.
 */
struct cumc_mc_unbind {
	__u32 size;
	__u32 flags;
	__aligned_u64 handle;
	__u32 device;
	__u32 __reserved;
	__aligned_u64 mc_offset;
	__aligned_u64 length;
};

#define CUMC_MC_UNBIND _IO(CUMC_TYPE, CUMC_CMD_MC_UNBIND)

/* The team of a multicast object (cumc_mc_info.out_state). */
enum cumc_team_state_uapi {
	CUMC_TEAM_STATE_FORMING = 0,
	CUMC_TEAM_STATE_READY = 1,
	CUMC_TEAM_STATE_FAILED = 2,
};

/**
 * struct cumc_mc_info - CUMC_MC_INFO: a multicast object's properties
 * @size: sizeof(struct cumc_mc_info)
 * @flags: must be 0
 * @handle: a multicast handle of this client
 * @members: user pointer to an array of @num_members_max __u32, or 0;
 *           receives the ordinals of the members in the order they joined
 * @num_members_max: entries of @members
 * @out_num_devices: (out) team size
 * @out_num_members: (out) devices added so far
 * @out_state: (out) enum cumc_team_state_uapi
 * @out_length: (out) bytes per device
 * @out_handle_types: (out) as created
 * @__reserved: must be 0
 */
struct cumc_mc_info {
	__u32 size;
	__u32 flags;
	__aligned_u64 handle;
	__aligned_u64 members;
	__u32 num_members_max;
	__u32 out_num_devices;
	__u32 out_num_members;
	__u32 out_state;
	__aligned_u64 out_length;
	__u32 out_handle_types;
	__u32 __reserved;
};

#define CUMC_MC_INFO _IO(CUMC_TYPE, CUMC_CMD_MC_INFO)

/**
 * struct cumc_mc_view - CUMC_MC_VIEW: map members' bound memory
 * @size: sizeof(struct cumc_mc_view)
 * @flags: must be 0
 * @addr: the start of a mapping of a multicast object in a reservation of
 *        this client, to which some device has access (EACCES otherwise);
 *        with @views, any address in such a mapping
 * @device: a member of the object's team; must be 0 with @views
 * @__reserved: must be 0
 * @out_addr: (out) the view: its byte o is the member's memory bound at
 *            multicast offset o; read-write when the mapping is. With
 *            @views, the first member's view
 * @out_length: (out) the mapping's length, and that of each view
 * @views: 0, or (since API version 2) a user pointer to @num_views __u64
 *         that receive the view of every member, in the order the members
 *         joined: all of them in one call
 * @num_views: entries of @views, at least the team size (EINVAL otherwise);
 *             must be 0 without @views
 * @out_num_members: (out) with @views, the team size
 * @out_map_addr: (out) with @views, the start of the mapping
 * @out_access: (out) with @views, the enum cumc_access of the views:
 *              CUMC_ACCESS_READWRITE when some device may write the
 *              mapping, else CUMC_ACCESS_READ
 * @__reserved2: must be 0
 *
 * A view holds the object; munmap() it when done. With @views, either
 * every view is made or none.
 */
struct cumc_mc_view {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
	__u32 device;
	__u32 __reserved;
	__aligned_u64 out_addr;
	__aligned_u64 out_length;
	__aligned_u64 views;
	__u32 num_views;
	__u32 out_num_members;
	__aligned_u64 out_map_addr;
	__u32 out_access;
	__u32 __reserved2;
};

#define CUMC_MC_VIEW _IO(CUMC_TYPE, CUMC_CMD_MC_VIEW)

#endif /* _UAPI_LINUX_CUMC_H */
