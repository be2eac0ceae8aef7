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
#include <linux/gfp.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <linux/cumc.h>
#include <linux/cumc_netlink.h>

struct seq_file;

/*
 * Lock order, outermost first (see also each lock where declared):
 *   mmap_lock > cumc_va.lock > cumc_mc.lock > i_mmap_rwsem
 *   genl_mutex (netlink commands and dumps) > cumc_mc.lock
 *   cumc_mc_ids' xa_lock and cumc_fault_lock are leaves: nothing is taken
 *   under them; a dump takes a reference under the xa_lock, drops it, and
 *   only then takes cumc_mc.lock.
 * Events (cumc_nl_*) are sent with GFP_KERNEL and take no cumc lock, so
 * they may be sent under cumc_mc.lock.
 */

/*
 * What the module allocates on a caller's behalf: charged to the caller's
 * memory cgroup, and failing with ENOMEM at the cgroup's limit rather than
 * calling the cgroup's OOM killer, which would kill the caller for asking.
 * Pages faulted into mappings are the exception: they are the caller's
 * memory like any other it touches (cumc_mem_page()).
 */
#define CUMC_GFP (GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL)

/* Counters of the control plane's STATS_GET, per device and fabric-wide. */
enum cumc_stat {
	CUMC_STAT_OBJECTS,
	CUMC_STAT_BOUND_BYTES,
	CUMC_STAT_BINDS,
	CUMC_STAT_MAPS,
	CUMC_STAT_WAITS,
	CUMC_STAT_FAULTS,
	CUMC_STAT_NR
};

/**
 * struct cumc_device - one simulated GPU
 * @ordinal: its index, as userspace names it
 * @uuid: stable for a given ordinal
 * @lock: protects @mem_used
 * @mem_used: bytes of the aperture handed to allocations
 * @stats: enum cumc_stat counters, atomic: no lock
 */
struct cumc_device {
	u32 ordinal;
	u8 uuid[16];
	spinlock_t lock; /* protects mem_used */
	u64 mem_used;
	atomic64_t stats[CUMC_STAT_NR];
};

extern atomic64_t cumc_fabric_stats[CUMC_STAT_NR];

/* Count @n for @dev (may be NULL: fabric-wide only) and the fabric. */
static inline void cumc_stat_add(struct cumc_device *dev, enum cumc_stat stat,
				 s64 n)
{
	atomic64_add(n, &cumc_fabric_stats[stat]);
	if (dev)
		atomic64_add(n, &dev->stats[stat]);
}

/**
 * struct cumc_range - an entry of a range map, embedded in what it maps
 * @rb: its node in the map's tree
 * @start: its first byte
 * @last: its last byte: inclusive, so that a range may end at 2^64
 * @subtree_last: the highest @last below @rb, which the tree maintains
 */
struct cumc_range {
	struct rb_node rb;
	u64 start;
	u64 last;
	u64 subtree_last;
};

/**
 * struct cumc_range_map - non-overlapping ranges, found by any byte in them
 * @root: an interval tree of struct cumc_range; no lock of its own, its
 *        owner's lock protects it
 */
struct cumc_range_map {
	struct rb_root_cached root;
};

enum cumc_object_type {
	CUMC_OBJ_ANY = 0,	/* only as a lookup filter */
	CUMC_OBJ_MEM,
	CUMC_OBJ_MC,
};

/* What a client's usage record counts; each has a limit (cumc_quota.c). */
enum cumc_quota_type {
	CUMC_QUOTA_HANDLES,	/* entries of its handle table */
	CUMC_QUOTA_OBJECTS,	/* allocations and multicast objects it made */
	CUMC_QUOTA_RANGES,	/* file offset slots: reservations, mc objects */
	CUMC_QUOTA_MAPPED,	/* bytes mapped in its reservations */
	CUMC_QUOTA_BOUND,	/* bytes it bound into multicast objects */
	CUMC_QUOTA_NR
};

/**
 * struct cumc_usage - what is charged to one client
 * @ref: one for the client, one for each object and binding charged to it,
 *       which may outlive the client
 * @used: enum cumc_quota_type counts, atomic: no lock
 */
struct cumc_usage {
	struct kref ref;
	atomic64_t used[CUMC_QUOTA_NR];
};

#define CUMC_FABRIC_SECRET_LEN 32
#define CUMC_NO_CHANNEL (-1)

/**
 * struct cumc_object - what a handle names
 * @type: enum cumc_object_type, fixed at creation
 * @handle_types: enum cumc_handle_types it may be exported as
 * @ref: one per handle, mapping, exported fd or other holder
 * @destroy: frees the containing object at the last cumc_object_put()
 * @fabric_id: its entry in the fabric export table, 0 until first exported
 *             as a fabric handle; set once under cumc_fabric_lock
 * @fabric_channel: the IMEX channel of that export
 * @fabric_secret: the random part of its fabric handle
 * @usage: the creator's, charged one object (and for a multicast object one
 *         address range) until the object is freed; holds a reference
 */
struct cumc_object {
	enum cumc_object_type type;
	u32 handle_types;
	struct kref ref;
	void (*destroy)(struct cumc_object *obj);
	u32 fabric_id;
	int fabric_channel;
	u8 fabric_secret[CUMC_FABRIC_SECRET_LEN];
	struct cumc_usage *usage;
};

/**
 * struct cumc_client - one open file of /dev/cumc
 * @handles: handle id -> struct cumc_handle, each holding a reference on
 *           its object; the xarray's own lock serializes changes
 * @next_id: where the cyclic search for a free handle id starts
 * @tag: the upper 32 bits of every handle this client issues, unique among
 *       live clients so that another client's handle never resolves here
 * @reserve_lock: one CUMC_VA_RESERVE at a time; taken before mmap_lock
 * @pending_lock: protects @pending and @pending_task
 * @pending: the mapping cumc_vm_map() is placing with vm_mmap()
 * @pending_task: the thread doing so; only its mmap may take @pending
 * @channel: the IMEX channel attached, or CUMC_NO_CHANNEL; set once
 * @usage: what is charged to this client, and may outlive it
 */
struct cumc_client {
	struct xarray handles;
	u32 next_id;
	u32 tag;
	struct mutex reserve_lock; /* one cumc_vm_map() at a time */
	spinlock_t pending_lock; /* protects pending, pending_task */
	struct cumc_vm_request *pending;
	struct task_struct *pending_task;
	int channel;
	struct cumc_usage *usage;
};

/**
 * struct cumc_mem - a physical allocation (cuMemCreate)
 * @obj: its handle-table identity
 * @dev: the device whose memory it is
 * @length: bytes, a multiple of the device's granularity
 * @pages: page index -> struct page *, filled on first touch; its own lock
 *         serializes insertions
 */
struct cumc_mem {
	struct cumc_object obj;
	struct cumc_device *dev;
	u64 length;
	struct xarray pages;
};

static inline struct cumc_mem *to_cumc_mem(struct cumc_object *obj)
{
	return container_of(obj, struct cumc_mem, obj);
}

enum cumc_team_state {
	CUMC_TEAM_FORMING,
	CUMC_TEAM_READY,
	CUMC_TEAM_FAILED,
};

/**
 * struct cumc_bind - memory of one member bound into a multicast object
 * @mc_offset: where in the multicast object
 * @length: bytes
 * @mem: the memory, on the member's device; the binding holds a reference
 * @mem_offset: where in @mem
 * @usage: the binder's, charged @length bytes; holds a reference
 * @unbind_link: in the list of bindings an unbind or teardown frees
 * @range: its entry in its member's @binds, over [@mc_offset,
 *         @mc_offset + @length)
 */
struct cumc_bind {
	struct cumc_range range;
	u64 mc_offset;
	u64 length;
	struct cumc_mem *mem;
	u64 mem_offset;
	struct cumc_usage *usage;
	struct list_head unbind_link;
};

/**
 * struct cumc_mc_member - one device of a multicast team
 * @dev: the device, NULL while the slot is free
 * @binds: multicast offset range -> struct cumc_bind: this member's part
 *         of the fabric page table
 */
struct cumc_mc_member {
	struct cumc_device *dev;
	struct cumc_range_map binds;
};

/**
 * struct cumc_mc - a multicast object (cuMulticastCreate)
 * @obj: its handle-table identity
 * @num_devices: the team size
 * @length: bytes per device, a multiple of the multicast granularity
 * @pgoff: file offsets of the member views (see cumc_vm.c): member slot i
 *         shows at @pgoff + i * (@length >> PAGE_SHIFT)
 * @lock: protects @num_members, @state, the members and their bindings;
 *        taken after mmap_lock and cumc_va.lock, before i_mmap_rwsem
 * @num_members: devices added so far; they fill the slots in order
 * @state: enum cumc_team_state; moves once, away from FORMING
 * @team_wq: binds and maps waiting for the team to leave FORMING
 * @id: its entry in cumc_mc_ids, the control plane's name for it and the
 *      request id of its team setup; fixed at creation
 * @setup_requested: the team is complete and its setup was asked for
 * @setup_deadline: jiffies after which waiters give up with -ETIMEDOUT
 * @fm_pending: an external fabric manager's answer is awaited
 * @members: @num_devices slots
 */
struct cumc_mc {
	struct cumc_object obj;
	u32 id;
	bool setup_requested;
	bool fm_pending;
	unsigned long setup_deadline;
	u32 num_devices;
	u64 length;
	unsigned long pgoff;
	struct rw_semaphore lock;
	u32 num_members;
	enum cumc_team_state state;
	wait_queue_head_t team_wq;
	struct cumc_mc_member members[];
};

static inline struct cumc_mc *to_cumc_mc(struct cumc_object *obj)
{
	return container_of(obj, struct cumc_mc, obj);
}

/**
 * struct cumc_vm_request - a mapping cumc_vm_map() is to make
 * @addr: preferred start, or 0
 * @length: bytes
 * @alignment: of the start address, a power of two
 * @pgoff: the file offset that names what the mapping shows
 * @writable: map read-write, else read-only
 * @vm_ops: the VMA's operations
 * @private: the VMA's private data, which its close() releases
 * @taken: set once a VMA owns @private
 */
struct cumc_vm_request {
	u64 addr;
	u64 length;
	u64 alignment;
	unsigned long pgoff;
	bool writable;
	const struct vm_operations_struct *vm_ops;
	void *private;
	bool taken;
};

/**
 * struct cumc_mapping - an object mapped into a reservation
 * @addr: start address
 * @length: bytes: an allocation's whole length, or the start of a
 *          multicast object
 * @obj: the allocation or multicast object; the mapping holds a reference
 * @readers: devices that may read through the mapping
 * @writers: devices that may write through the mapping
 * @populated: a page of it was ever inserted; set by the fault handler,
 *             so that taking an untouched mapping away zaps nothing
 * @unmap_link: in CUMC_UNMAP's list of mappings to free
 * @range: its entry in its reservation's @mappings, over [@addr,
 *         @addr + @length)
 */
struct cumc_mapping {
	struct cumc_range range;
	u64 addr;
	u64 length;
	struct cumc_object *obj;
	DECLARE_BITMAP(readers, CUMC_MAX_DEVICES);
	DECLARE_BITMAP(writers, CUMC_MAX_DEVICES);
	bool populated;
	struct list_head unmap_link;
};

/**
 * struct cumc_va - a reservation of device address space, owned by its VMA
 * @client: the client that made it, charged one address range for it and
 *          the bytes of its mappings; the VMA holds the client's file, so
 *          the client outlives the reservation
 * @pgoff: the file offsets of its VMA (see cumc_vm.c)
 * @lock: protects @mappings, the mappings in it and @freeing; taken after
 *        mmap_lock
 * @mappings: address range -> struct cumc_mapping
 * @freeing: CUMC_VA_FREE is removing it: no new mappings
 */
struct cumc_va {
	struct cumc_client *client;
	unsigned long pgoff;
	struct rw_semaphore lock;
	struct cumc_range_map mappings;
	bool freeing;
};

/* cumc_range.c: range maps, under their owner's lock */
void cumc_range_map_init(struct cumc_range_map *map);
bool cumc_range_map_empty(const struct cumc_range_map *map);
int cumc_range_insert(struct cumc_range_map *map, struct cumc_range *r,
		      u64 start, u64 length);
void cumc_range_remove(struct cumc_range_map *map, struct cumc_range *r);
struct cumc_range *cumc_range_find(struct cumc_range_map *map, u64 addr);
struct cumc_range *cumc_range_first(struct cumc_range_map *map, u64 start,
				    u64 last);
struct cumc_range *cumc_range_next(struct cumc_range *r, u64 start, u64 last);
void cumc_range_map_destroy(struct cumc_range_map *map,
			    void (*release)(struct cumc_range *r, void *data),
			    void *data);

/* Every entry of @map overlapping [@start, @last], in address order. */
#define cumc_range_for_each(r, map, start, last)			\
	for ((r) = cumc_range_first(map, start, last); (r);		\
	     (r) = cumc_range_next(r, start, last))

/* cumc_quota.c: per-client quotas */
struct cumc_usage *cumc_usage_create(void);
struct cumc_usage *cumc_usage_get(struct cumc_usage *usage);
void cumc_usage_put(struct cumc_usage *usage);
int cumc_usage_charge(struct cumc_usage *usage, enum cumc_quota_type quota,
		      u64 n);
void cumc_usage_uncharge(struct cumc_usage *usage, enum cumc_quota_type quota,
			 u64 n);
u64 cumc_usage_read(struct cumc_usage *usage, enum cumc_quota_type quota);

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
int cumc_object_charge(struct cumc_client *client, struct cumc_object *obj);
void cumc_object_uncharge(struct cumc_object *obj);
void cumc_object_init(struct cumc_object *obj, enum cumc_object_type type,
		      u32 handle_types, void (*destroy)(struct cumc_object *obj));
void cumc_object_put(struct cumc_object *obj);
int cumc_handle_insert(struct cumc_client *client, struct cumc_object *obj,
		       u64 *handle);
int cumc_handle_retain(struct cumc_client *client, struct cumc_object *obj,
		       u64 *handle);
struct cumc_object *cumc_handle_get(struct cumc_client *client, u64 handle,
				    enum cumc_object_type type);
int cumc_handle_release(struct cumc_client *client, u64 handle);

/* cumc_memory.c: physical allocations */
int cumc_mem_create(struct cumc_client *client, struct cumc_mem_create *cmd);
int cumc_mem_info(struct cumc_client *client, struct cumc_mem_info *cmd);
struct page *cumc_mem_page(struct cumc_mem *mem, pgoff_t index);

/* cumc_vm.c: mappings the module makes in a client's process */
int cumc_vm_init(void);
void cumc_vm_exit(void);
void cumc_vm_open(struct file *filp);
/*
 * Each owner of offsets gets a slot of 2^47 bytes of them; slot 0 is unused
 * and the last ends below 2^63, as loff_t needs.
 */
#define CUMC_VM_SLOT_SHIFT 47
#define CUMC_VM_MAX_SLOTS ((1U << (63 - CUMC_VM_SLOT_SHIFT)) - 1)
/* What one owner of file offsets may map: a reservation, all member views. */
#define CUMC_VM_MAX_OFFSETS BIT_ULL(CUMC_VM_SLOT_SHIFT)
int cumc_vm_alloc_offsets(void *owner, unsigned long *pgoff);
void cumc_vm_free_offsets(unsigned long pgoff);
void cumc_vm_zap(unsigned long pgoff, u64 length);
unsigned long cumc_vm_get_unmapped_area(struct file *filp, unsigned long addr,
					unsigned long len, unsigned long pgoff,
					unsigned long flags);
int cumc_vm_mmap(struct file *filp, struct vm_area_struct *vma);
unsigned long cumc_vm_map(struct file *filp, struct cumc_vm_request *req);
int cumc_vm_may_split(struct vm_area_struct *vma, unsigned long addr);
int cumc_vm_mremap(struct vm_area_struct *vma);
int cumc_vm_mprotect(struct vm_area_struct *vma, unsigned long start,
		     unsigned long end, unsigned long newflags);

/* cumc_va.c: device address space */
int cumc_va_reserve(struct file *filp, struct cumc_va_reserve *cmd);
int cumc_va_free(struct cumc_client *client, struct cumc_va_free *cmd);
int cumc_map(struct cumc_client *client, struct cumc_map *cmd);
int cumc_unmap(struct cumc_client *client, struct cumc_unmap *cmd);
int cumc_set_access(struct cumc_client *client, struct cumc_set_access *cmd);
int cumc_va_query(struct cumc_client *client, struct cumc_va_query *cmd);
struct cumc_mem *cumc_va_resolve(struct cumc_client *client, u64 addr,
				 u64 length, u64 *mem_offset);
struct cumc_mc *cumc_va_mc_mapping(struct cumc_client *client, u64 addr,
				   u64 *length, bool *writable);

/* cumc_multicast.c: multicast objects and their teams */
u64 cumc_mc_granularity(void);
u64 cumc_mc_page_size(void);
int cumc_mc_create(struct cumc_client *client, struct cumc_mc_create *cmd);
int cumc_mc_add_device(struct cumc_client *client,
		       struct cumc_mc_add_device *cmd);
int cumc_mc_info(struct cumc_client *client, struct cumc_mc_info *cmd);
int cumc_mc_member_slot(struct cumc_mc *mc, u32 device);
struct cumc_mc *cumc_mc_get_next(unsigned long *id);
struct cumc_mc *cumc_mc_get_by_id(u32 id);

/* cumc_fabric.c: team setup, the fabric page table and member views */
void cumc_fabric_team_complete(struct cumc_mc *mc);
enum cumc_fm_mode cumc_fabric_fm_mode(void);
void cumc_fabric_set_fm_mode(enum cumc_fm_mode mode);
u32 cumc_fabric_fm_timeout_ms(void);
void cumc_fabric_set_fm_timeout_ms(u32 ms);
int cumc_fabric_fm_respond(u32 req_id, bool ok);
int cumc_fabric_wait_ready(struct cumc_mc *mc);
int cumc_fabric_bind(struct cumc_client *client, struct cumc_mc_bind *cmd,
		     bool by_addr);
int cumc_fabric_unbind(struct cumc_client *client, struct cumc_mc_unbind *cmd);
void cumc_fabric_release_binds(struct cumc_mc *mc);
int cumc_fabric_view(struct file *filp, struct cumc_mc_view *cmd);

/* cumc_sharing.c: exported fds, fabric handles and IMEX channels */
int cumc_sharing_init(void);
void cumc_sharing_exit(void);
int cumc_export_fd_prepare(struct cumc_client *client, u64 handle,
			   struct file **filep);
void cumc_export_fd_abort(int fd, struct file *filp);
int cumc_import_fd(struct cumc_client *client, struct cumc_import_fd *cmd);
int cumc_attach_channel(struct cumc_client *client,
			struct cumc_attach_channel *cmd);
int cumc_export_fabric(struct cumc_client *client,
		       struct cumc_export_fabric *cmd);
int cumc_import_fabric(struct cumc_client *client,
		       struct cumc_import_fabric *cmd);
void cumc_fabric_unexport(struct cumc_object *obj);

/* cumc_debugfs.c: counters the tests read */
extern atomic_t cumc_live_clients;
extern atomic_t cumc_live_mems;
extern atomic_long_t cumc_live_pages;
extern atomic_t cumc_live_vas;
extern atomic_t cumc_live_mappings;
extern atomic_t cumc_live_mcs;
extern atomic_t cumc_live_binds;
extern atomic_t cumc_live_views;
extern atomic_t cumc_live_usages;
void cumc_debugfs_init(void);
void cumc_clients_show(struct seq_file *m);
void cumc_debugfs_exit(void);

/* cumc_fault.c: fault injection; cumc_fault_lock (a leaf) guards the table */
int cumc_fault_set(enum cumc_fault_type type, s32 device,
		   enum cumc_fault_mode mode, u32 value);
bool cumc_fault_hit(enum cumc_fault_type type, struct cumc_device *dev);
bool cumc_fault_hit_mc(enum cumc_fault_type type, struct cumc_mc *mc);
struct cumc_fault_info {
	u32 type;
	s32 device;	/* -1: fabric-wide */
	u32 mode;
	u32 value;
	u64 hits;
};

int cumc_fault_get(unsigned int index, struct cumc_fault_info *info);

/* cumc_netlink.c: the generic netlink family and its monitor events */
int cumc_netlink_init(void);
void cumc_netlink_exit(void);
void cumc_nl_mc_event(struct cumc_mc *mc, u8 cmd);
void cumc_nl_bind_event(struct cumc_mc *mc, u8 cmd, u32 device,
			u64 mc_offset, u64 length);

/* cumc_ioctl.c: argument marshalling and the dispatch table */
long cumc_fops_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);

#endif /* _CUMC_INTERNAL_H */
