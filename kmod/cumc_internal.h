/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cumc private header: the objects of the module and what each file offers
 * the others.
 *
 * Lifetimes: a client (an open file of /dev/cumc) owns a table of handles;
 * each handle holds one reference on the object it names. Objects point at
 * the device they live on. Devices live from their probe (or module load)
 * to module unload, past their loss: a lost device keeps its ordinal, and
 * its objects stay until their last holder lets go.
 */
#ifndef _CUMK_INTERNAL_H
#define _CUMK_INTERNAL_H

#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/kref.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/srcu.h>
#include <linux/types.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/cumc.h>
#include <linux/cumc_netlink.h>

struct genl_info;
struct genl_small_ops;
struct netlink_callback;
struct nla_policy;
struct seq_file;
struct sk_buff;

/*
 * Lock order, outermost first (see also each lock where declared):
 *   mmap_lock > cumk_client.arenas_lock > cumk_arena.lock > cumk_mc.lock
 *   > i_mmap_rwsem
 *   The netlink family runs its commands in parallel (no genl_mutex):
 *   each takes the locks of what it touches, as an ioctl does.
 *   cumk_mc_ids' xa_lock, a client's handles' xa_lock, the fabric export
 *   table's xa_lock, cumk_fault_lock and cumk_cond_lock are leaves: nothing is taken under
 *   them; a dump takes a reference under the xa_lock, drops it, and only
 *   then takes cumk_mc.lock.
 *   cumk_mc.lock > cumk_device.mems_lock > cumk_bar.alloc_lock (an object's
 *   last reference may go under the first: it gives its memory back)
 *   cumk_arena.lock or cumk_mc.lock > cumk_device_srcu (read) > cumk_mem.touch_lock
 *   (a fault); a loss waits for the SRCU readers holding none of these
 * Events (cumc_notify.c) are sent with GFP_KERNEL and take no cumc lock,
 * so they may be sent under cumk_mc.lock. Messages to other nodes
 * (cumc_imex.c) take cumk_imex_lock to queue and send, under which only
 * cumk_imex_calls' xa_lock and cumk_lease_lock are taken; an imported
 * allocation's last reference, wherever it goes, posts one. What runs
 * with a post's answer never runs in the poster's context.
 *   cumk_remote_loss_lock (losing a node) > cumk_mc.lock and the rest.
 *   cumk_remote_holds', cumk_imex_calls' and cumk_mc_quarantines'
 *   xa_locks and cumk_lease_lock are leaves.
 *
 * Who calls whom: the ioctl table and the netlink commands call the
 * objects' command handlers; binds and views call the address space, which
 * calls the multicast object and its team; nothing calls back up. Each
 * section below is one file, the owner of what it declares.
 */

/*
 * What the module allocates on a caller's behalf: charged to the caller's
 * memory cgroup, and failing with ENOMEM at the cgroup's limit rather than
 * calling the cgroup's OOM killer, which would kill the caller for asking.
 * Pages faulted into mappings are the exception: they are the caller's
 * memory like any other it touches (cumk_mem_page()).
 */
#define CUMK_GFP (GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

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

/**
 * struct cumk_range - an entry of a range map, embedded in what it maps
 * @rb: its node in the map's tree
 * @start: its first byte
 * @last: its last byte: inclusive, so that a range may end at 2^64
 * @subtree_last: the highest @last below @rb, which the tree maintains
 */
struct cumk_range {
	struct rb_node rb;
	u64 start;
	u64 last;
	u64 subtree_last;
};

/**
 * struct cumk_range_map - non-overlapping ranges, found by any byte in them
 * @root: an interval tree of struct cumk_range; no lock of its own, its
 *        owner's lock protects it
 */
struct cumk_range_map {
	struct rb_root_cached root;
};

enum cumk_object_type {
	CUMK_OBJ_ANY = 0,	/* only as a lookup filter */
	CUMK_OBJ_MEM,
	CUMK_OBJ_MC,
};

/* What a client's usage record counts; each has a limit (cumc_quota.c). */
enum cumk_quota_type {
	CUMK_QUOTA_HANDLES,	/* entries of its handle table */
	CUMK_QUOTA_OBJECTS,	/* allocations and multicast objects it made */
	CUMK_QUOTA_RANGES,	/* file offset slots: reservations, mc objects */
	CUMK_QUOTA_MAPPED,	/* bytes mapped in its reservations */
	CUMK_QUOTA_BOUND,	/* bytes it bound into multicast objects */
	CUMK_QUOTA_MAPPINGS,	/* its mappings and member views */
	CUMK_QUOTA_BINDINGS,	/* bindings it made */
	CUMK_QUOTA_NR
};

struct cumk_user;

/**
 * struct cumk_usage - what is charged to one client
 * @ref: one for the client, one for each object and binding charged to it,
 *       which may outlive the client
 * @used: enum cumk_quota_type counts, atomic: no lock
 * @user: the record of the user who opened the client, charged everything
 *        @used is (cumc_quota.c); NULL for the module's own records (what
 *        other nodes bound here); the usage holds a reference
 * @privileged: the opener had CAP_SYS_ADMIN: no per-user limits, and the
 *              address ranges kept back for the privileged
 */
struct cumk_usage {
	struct kref ref;
	atomic64_t used[CUMK_QUOTA_NR];
	struct cumk_user *user;
	bool privileged;
};

#define CUMK_FABRIC_SECRET_LEN 32
#define CUMK_NO_CHANNEL (-1)

struct cumk_object;

/**
 * struct cumk_object_ops - what differs between kinds of object
 * @destroy: frees the containing object at the last cumk_object_put()
 * @publish: makes a new object visible beyond its creator's handle (the
 *           control plane, events) once its creation can no longer fail;
 *           may be NULL
 */
struct cumk_object_ops {
	void (*destroy)(struct cumk_object *obj);
	void (*publish)(struct cumk_object *obj);
};

/**
 * struct cumk_object - what a handle names
 * @type: enum cumk_object_type, fixed at creation
 * @handle_types: enum cumc_handle_types it may be exported as
 * @ref: one per handle, mapping, exported fd or other holder
 * @ops: its kind's operations
 * @fabric_id: its entry in the fabric export table, 0 until first exported
 *             as a fabric handle; set once under cumk_fabric_lock
 * @fabric_channel: the IMEX channel of that export
 * @fabric_secret: the random part of its fabric handle
 * @usage: the creator's, charged one object (and for a multicast object one
 *         address range) until the object is freed; holds a reference
 */
struct cumk_object {
	enum cumk_object_type type;
	u32 handle_types;
	struct kref ref;
	const struct cumk_object_ops *ops;
	u32 fabric_id;
	int fabric_channel;
	u8 fabric_secret[CUMK_FABRIC_SECRET_LEN];
	struct cumk_usage *usage;
};

/**
 * struct cumk_client - one open file of /dev/cumc
 * @handles: handle id -> struct cumk_handle, each holding a reference on
 *           its object; the xarray's own lock serializes changes
 * @next_id: where the cyclic search for a free handle id starts
 * @tag: the upper 32 bits of every handle this client issues, unique among
 *       live clients so that another client's handle never resolves here
 * @reserve_lock: one CUMC_VA_RESERVE at a time; taken before mmap_lock
 * @pending_lock: protects @pending and @pending_task
 * @pending: the mapping cumk_vm_map() is placing with vm_mmap()
 * @pending_task: the thread doing so; only its mmap may take @pending
 * @arenas_lock: protects @arenas; taken after mmap_lock (of any process:
 *               a forked child shares the client) and before cumk_arena.lock
 * @arenas: the shared struct cumk_arena of this client, in every process
 * @spare_va: a freed struct cumk_va kept for the next reservation, or
 *            NULL; exchanged atomically, freed with the client
 * @spare_mapping: the same for struct cumk_mapping and the next map
 * @channel: the IMEX channel attached, or CUMK_NO_CHANNEL; set once
 * @usage: what is charged to this client, and may outlive it
 */
struct cumk_client {
	struct xarray handles;
	u32 next_id;
	u32 tag;
	struct mutex reserve_lock; /* one cumk_vm_map() at a time */
	spinlock_t pending_lock; /* protects pending, pending_task */
	struct cumk_vm_request *pending;
	struct task_struct *pending_task;
	struct mutex arenas_lock; /* protects arenas */
	struct list_head arenas;
	struct cumk_va *spare_va;
	struct cumk_mapping *spare_mapping;
	int channel;
	struct cumk_usage *usage;
};

/**
 * struct cumk_extent - a run of device memory backing part of an allocation
 * @mem_offset: where in the allocation
 * @dev_offset: where in the device's memory
 * @length: bytes
 */
struct cumk_extent {
	u64 mem_offset;
	u64 dev_offset;
	u64 length;
};

/**
 * struct cumk_mem - a physical allocation (cuMemCreate)
 * @obj: its handle-table identity
 * @dev: the device whose memory it is
 * @length: bytes, a multiple of the device's granularity
 * @dev_link: on the device's @mems while @backed; under its @mems_lock
 * @backed: it holds device memory; cleared when that is given back
 * @touch_lock: serializes first touches of its pages (cumc_bar.c)
 * @pages: page index -> the backend's state of that page (a struct page
 *         for system memory, a mark that it was zeroed for a BAR); its own
 *         lock serializes insertions
 * @extents: where its bytes are on the device, in order (cumc_bar.c)
 * @nr_extents: entries of @extents
 * @shared: it was shared with another node: every page is backed and
 *          zeroed (set once, under @touch_lock)
 * @memcg: its creator's memory cgroup, charged what sharing it costs the
 *         module (cumk_mem_share_start()); a reference, or NULL
 * @nr_touched: pages of it touched (and zeroed) so far, under @touch_lock
 * @sharing: a worker is sharing it (set with cmpxchg)
 * @share_work: that worker's work
 * @remote_node: for memory of another node's GPU, that node
 * @remote_hold: and the hold that node keeps for this one (cumc_remote.c)
 * @lease_node: for memory of another node's GPU, the node whose lease it
 *              is mapped under (cumc_lease.c)
 * @lease_gen: what cumk_lease_get() answered for it
 */
struct cumk_mem {
	struct cumk_object obj;
	struct cumk_device *dev;
	u64 length;
	struct list_head dev_link;
	bool backed;
	struct mutex touch_lock; /* one first touch of a page at a time */
	struct xarray pages;
	struct cumk_extent *extents;
	unsigned int nr_extents;
	bool shared;
	struct mem_cgroup *memcg;
	unsigned long nr_touched;
	atomic_t sharing;
	struct work_struct share_work;
	u32 remote_node;
	u32 remote_hold;
	u32 lease_node;
	u32 lease_gen;
};

static inline struct cumk_mem *to_cumk_mem(struct cumk_object *obj)
{
	return container_of(obj, struct cumk_mem, obj);
}

/* The state of a multicast team (cumc_team.c). */
enum cumk_team_state {
	CUMK_TEAM_FORMING,
	CUMK_TEAM_READY,
	CUMK_TEAM_FAILED,
};

/**
 * struct cumk_team - a multicast object's team and its setup, cumc_team.c's
 * @state: enum cumk_team_state; leaves FORMING once, and READY only for
 *         FAILED (a member lost), under the object's lock held for
 *         writing; read without it by waiters
 * @num_members: devices joined so far; they fill the object's member slots
 *               in order; under the object's lock
 * @setup_requested: the team is complete and its setup was asked for
 * @fm_pending: an external fabric manager's answer is awaited; under the
 *              object's lock
 * @setup_deadline: jiffies after which waiters give up with -ETIMEDOUT
 * @wq: binds and maps waiting for the team to leave FORMING
 * @error: why it FAILED (-EIO, or -ENOSPC past the fabric's MC limit); set
 *         with @state, read after it by waiters
 * @counted: set up by this node: counted against the MC limit until freed;
 *           set under the object's lock, read at its freeing
 * @stall: FABRIC_STALL's late answer; while pending it holds a reference
 *         on the object, so the object is never freed under it
 */
struct cumk_team {
	enum cumk_team_state state;
	u32 num_members;
	bool setup_requested;
	bool fm_pending;
	unsigned long setup_deadline;
	wait_queue_head_t wq;
	int error;
	bool counted;
	struct delayed_work stall;
};

/**
 * struct cumk_bind - memory of one member bound into a multicast object
 * @range: its entry in its member's @binds, over [@mc_offset,
 *         @mc_offset + @length)
 * @mc_offset: where in the multicast object
 * @length: bytes
 * @mem: the memory, on the member's device; the binding holds a reference
 * @mem_offset: where in @mem
 * @usage: the binder's, charged @length bytes; holds a reference
 */
struct cumk_bind {
	struct cumk_range range;
	u64 mc_offset;
	u64 length;
	struct cumk_mem *mem;
	u64 mem_offset;
	struct cumk_usage *usage;
};

/**
 * struct cumk_mc_member - one device of a multicast team
 * @dev: the device, NULL while the slot is free (cumc_team.c)
 * @binds: multicast offset range -> struct cumk_bind: this member's part
 *         of the fabric page table (cumc_fabric.c)
 */
struct cumk_mc_member {
	struct cumk_device *dev;
	struct cumk_range_map binds;
};

/**
 * struct cumk_mc - a multicast object (cuMulticastCreate)
 * @obj: its handle-table identity
 * @id: its entry in cumk_mc_ids, the control plane's name for it and the
 *      request id of its team setup; reserved at creation, published when
 *      the creation can no longer fail
 * @published: it was published: its deletion is announced
 * @num_devices: the team size
 * @length: bytes per device, a multiple of the multicast granularity
 * @pgoff: file offsets of the member views (see cumc_vm.c): member slot i
 *         shows at @pgoff + i * (@length >> PAGE_SHIFT)
 * @lock: protects @team and the members and their bindings; taken after
 *        mmap_lock and cumk_arena.lock, before i_mmap_rwsem
 * @team: the team and its setup
 * @holders: for a team held here, the other nodes holding a replica of it
 *           (struct cumk_mc_holder, cumc_remote_mc.c); under @lock
 * @replica: a replica of a team another node holds: fixed at creation
 * @origin_node: that node
 * @origin_hold: the hold it keeps for this node
 * @origin_handle: the fabric handle this node imported the object by
 * @fabric_usage: what the bindings other nodes made are charged to here
 * @origin_lease_gen: a registered replica keeps renewing its lease from
 *                    the origin: what cumk_lease_get() answered
 * @members: @num_devices slots
 */
struct cumk_mc {
	struct cumk_object obj;
	u32 id;
	bool published;
	u32 num_devices;
	u64 length;
	unsigned long pgoff;
	struct rw_semaphore lock;
	struct cumk_team team;
	struct list_head holders;
	bool replica;
	u32 origin_node;
	u32 origin_hold;
	u8 origin_handle[CUMC_FABRIC_HANDLE_SIZE];
	struct cumk_usage *fabric_usage;
	u32 origin_lease_gen;
	struct cumk_mc_member members[];
};

static inline struct cumk_mc *to_cumk_mc(struct cumk_object *obj)
{
	return container_of(obj, struct cumk_mc, obj);
}

/**
 * struct cumk_vm_request - a mapping cumk_vm_map() is to make
 * @addr: preferred start, or 0
 * @length: bytes
 * @alignment: of the start address, a power of two
 * @pgoff: the file offset that names what the mapping shows
 * @writable: map read-write, else read-only
 * @vm_ops: the VMA's operations
 * @private: the VMA's private data, which its close() releases
 * @attach: if set, called with the new VMA and @attach_arg under the
 *          mmap_lock held for writing, once the VMA owns @private, before
 *          anyone can see it
 * @attach_arg: its argument
 * @taken: set once a VMA owns @private
 */
struct cumk_vm_request {
	u64 addr;
	u64 length;
	u64 alignment;
	unsigned long pgoff;
	bool writable;
	const struct vm_operations_struct *vm_ops;
	void *private;
	void (*attach)(struct vm_area_struct *vma, void *arg);
	void *attach_arg;
	bool taken;
};

/**
 * struct cumk_grant - what the CPU may do through the member views made
 *                     from one multicast mapping (cumc_view.c)
 * @ref: one for the mapping, one for each view
 * @access: enum cumc_access: the mapping's CPU access; written under the
 *          reservation's lock for writing and the object's lock for
 *          writing, read under either
 */
struct cumk_grant {
	struct kref ref;
	int access;
};

/**
 * struct cumk_mapping - an object mapped into a reservation
 * @addr: start address
 * @length: bytes: an allocation's whole length, or the start of a
 *          multicast object
 * @obj: the allocation or multicast object; the mapping holds a reference
 * @readers: devices that may read through the mapping
 * @writers: devices that may write through the mapping
 * @populated: an allocation's: a page of it was ever inserted; set by the
 *             fault handler, so that taking an untouched mapping away
 *             zaps nothing
 * @unmap_link: in CUMC_UNMAP's list of mappings to free
 * @range: its entry in its reservation's @mappings, over [@addr,
 *         @addr + @length)
 * @grant: a multicast object's (whose pages the CPU never touches: it
 *         shares @populated's place, keeping the struct at 128 bytes):
 *         once a view was made from it, its grant; set once, with
 *         cmpxchg() under the reservation's lock for reading
 */
struct cumk_mapping {
	struct cumk_range range;
	u64 addr;
	u64 length;
	struct cumk_object *obj;
	DECLARE_BITMAP(readers, CUMC_MAX_DEVICES);
	DECLARE_BITMAP(writers, CUMC_MAX_DEVICES);
	union {
		bool populated;
		struct cumk_grant *grant;
	};
	struct list_head unmap_link;
};

/**
 * struct cumk_arena - address space a client sub-allocates reservations from
 * @client: the client whose VMA it is; the VMA holds the client's file, so
 *          the client outlives the arena
 * @mm: the process it is in, compared only: a forked child shares the
 *      client but not the arena (VM_DONTCOPY)
 * @start: its VMA's start, fixed for life (the VMA cannot move or split)
 * @length: its VMA's length
 * @pgoff: the file offsets of its VMA (see cumc_vm.c)
 * @single: made for one reservation (a hint outside every arena, or no room
 *          for a shared one), which alone it holds: freeing it unmaps the
 *          arena. Never in @client's list.
 * @closing: empty and being unmapped (cumk_va_flush()): takes no new
 *           reservation; under @lock
 * @link: in @client's arenas, under its arenas_lock (shared arenas only)
 * @lock: protects @reservations, @cursor, every reservation's mappings and
 *        the mappings in them; taken after mmap_lock and the client's
 *        arenas_lock. Every path to an arena goes through its VMA under
 *        mmap_lock or through the client's list under arenas_lock, either
 *        of which keeps the arena alive.
 * @reservations: address range -> struct cumk_va
 * @cursor: no byte of the arena below it is free: the first-fit search
 *          for room starts there
 */
struct cumk_arena {
	struct cumk_client *client;
	struct mm_struct *mm;
	u64 start;
	u64 length;
	unsigned long pgoff;
	bool single;
	bool closing;
	struct list_head link;
	struct rw_semaphore lock;
	struct cumk_range_map reservations;
	u64 cursor;
};

/**
 * struct cumk_va - a reservation of device address space, a range of an arena
 * @range: its entry in its arena's @reservations, over [@addr, @addr +
 *         @length); the arena owns the reservation and frees it with itself
 * @arena: the arena, under whose lock it is read and changed
 * @client: the client that made it, charged one address range for it and
 *          the bytes of its mappings
 * @addr: start address
 * @length: bytes
 * @mappings: address range -> struct cumk_mapping
 */
struct cumk_va {
	struct cumk_range range;
	struct cumk_arena *arena;
	struct cumk_client *client;
	u64 addr;
	u64 length;
	struct cumk_range_map mappings;
};

/**
 * struct cumk_handle_reservation - a handle given to a caller, not yet valid
 * @h: the new entry, NULL when an existing handle was retained
 * @id: its index in the client's table
 * @obj: the object; set while a reservation is pending
 * @created: @obj is new: publish it when the handle is finalized
 *
 * A command that answers a handle reserves it (cumk_handle_reserve() or
 * cumk_handle_retain()); the dispatcher finalizes it once the answer has
 * reached the caller, or aborts it. Until then nothing else sees it.
 */
struct cumk_handle_reservation {
	struct cumk_handle *h;
	u32 id;
	struct cumk_object *obj;
	bool created;
};

/**
 * struct cumk_ucmd - one ioctl call
 * @filp: the open file of /dev/cumc
 * @client: its client
 * @ubuffer: the caller's struct
 * @user_size: its size as the caller gave it
 * @cmd: the kernel's copy, the command's struct
 * @new_handle: the handle the command answers, if any
 * @new_map_addr: a mapping the command made and answers, 0 if none: undone
 *                with @new_map_length if the answer cannot be written
 * @new_map_length: its length
 * @new_va_addr: a reservation the command made and answers, 0 if none:
 *               freed with @new_va_length if the answer cannot be written
 * @new_va_length: its length
 */
struct cumk_ucmd {
	struct file *filp;
	struct cumk_client *client;
	void __user *ubuffer;
	u32 user_size;
	void *cmd;
	struct cumk_handle_reservation new_handle;
	u64 new_map_addr;
	u64 new_map_length;
	u64 new_va_addr;
	u64 new_va_length;
};

/* cumc_ucmd.c: the command's struct, in; and back, no more than the caller has */
int cumk_ucmd_read(struct cumk_ucmd *ucmd, unsigned int size);
int cumk_ucmd_respond(struct cumk_ucmd *ucmd, size_t cmd_len);

/* cumc_range.c: range maps, under their owner's lock */
void cumk_range_map_init(struct cumk_range_map *map);
bool cumk_range_map_empty(const struct cumk_range_map *map);
int cumk_range_insert(struct cumk_range_map *map, struct cumk_range *r,
		      u64 start, u64 length);
void cumk_range_remove(struct cumk_range_map *map, struct cumk_range *r);
struct cumk_range *cumk_range_find(struct cumk_range_map *map, u64 addr);
struct cumk_range *cumk_range_first(struct cumk_range_map *map, u64 start,
				    u64 last);
struct cumk_range *cumk_range_next(struct cumk_range *r, u64 start, u64 last);
void cumk_range_map_destroy(struct cumk_range_map *map,
			    void (*release)(struct cumk_range *r, void *data),
			    void *data);

/* Every entry of @map overlapping [@start, @last], in address order. */
#define cumk_range_for_each(r, map, start, last)			\
	for ((r) = cumk_range_first(map, start, last); (r);		\
	     (r) = cumk_range_next(r, start, last))

/* cumc_quota.c: per-client and per-user quotas */
struct cumk_usage *cumk_usage_create(bool opener);
struct cumk_usage *cumk_usage_get(struct cumk_usage *usage);
void cumk_usage_put(struct cumk_usage *usage);
int cumk_usage_charge(struct cumk_usage *usage, enum cumk_quota_type quota,
		      u64 n);
void cumk_usage_uncharge(struct cumk_usage *usage, enum cumk_quota_type quota,
			 u64 n);
u64 cumk_usage_read(struct cumk_usage *usage, enum cumk_quota_type quota);
int cumk_usage_charge_mapping(struct cumk_usage *usage, u64 length);
void cumk_usage_uncharge_mapping(struct cumk_usage *usage, u64 length);
int cumk_usage_charge_bind(struct cumk_usage *usage, u64 length);
void cumk_usage_uncharge_bind(struct cumk_usage *usage, u64 length);
void cumk_users_show(struct seq_file *m);
bool cumk_usage_owned_by(struct cumk_usage *usage, kuid_t uid);
bool cumk_usage_same_user(struct cumk_usage *a, struct cumk_usage *b);

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

/* cumc_sysmem.c: devices backed by system memory, when there is no PCI one */
int cumk_sysmem_init(bool pci_devices_found);

/* cumc_bar.c: device memory in a PCI BAR, and its allocator */
struct cumk_device *cumk_bar_create(phys_addr_t phys, void *vaddr,
				    u64 mem_offset, u64 mem_size, bool remote);

/* cumc_pci.c: the PCI driver of the simulated GPUs */
int cumk_pci_init(void);
void cumk_pci_exit(void);

/* cumc_loss.c: a device falling off the bus */
void cumk_loss_handle(struct cumk_device *dev);
void cumk_loss_node(u32 node);
void cumk_loss_node_back(u32 node);
void cumk_loss_remote_all(void);

/* cumc_object.c: what handles name, and the fabric export table */
int cumk_object_charge(struct cumk_usage *usage, struct cumk_object *obj);
void cumk_object_uncharge(struct cumk_object *obj);
void cumk_object_init(struct cumk_object *obj, enum cumk_object_type type,
		      u32 handle_types, const struct cumk_object_ops *ops);
void cumk_object_put(struct cumk_object *obj);
int cumk_object_fabric_publish(struct cumk_object *obj, int channel);
void cumk_object_fabric_init(void);
void cumk_object_fabric_handle(struct cumk_object *obj, u8 *out);
bool cumk_object_fabric_origin(const u8 *handle, u32 *node, int *channel);
struct cumk_object *cumk_object_fabric_lookup(const u8 *handle);

/* cumc_imex.c: the node's IMEX daemon and the calls it carries to other nodes */
/* What runs with a post's answer: @result 0 or a negative errno. */
typedef void (*cumk_imex_done_t)(u32 node, int result, const void *answer,
				 size_t len, void *ctx);
void cumk_imex_init(void);
void cumk_imex_exit(void);
bool cumk_imex_drain(void);
int cumk_imex_attach(u32 portid);
bool cumk_imex_detach(u32 portid);
bool cumk_imex_attached(void);
int cumk_imex_call(u32 node, u32 op, const void *args, size_t args_len,
		   long timeout, void **answer, size_t *answer_len,
		   ktime_t *queued, cumk_imex_done_t late);
void cumk_imex_post(u32 node, u32 op, const void *args, size_t args_len,
		    bool bypass, cumk_imex_done_t done, void *ctx);
int cumk_imex_respond(u32 id, int result, const void *answer, size_t len);
void cumk_imex_fail_node(u32 node);
void cumk_imex_node_back(u32 node);
ktime_t cumk_imex_oldest_unanswered(u32 node);

/*
 * cumc_lease.c: leases between nodes, the nodes lost, and what waits for
 * a lost node's lease to run out.
 */
/**
 * struct cumk_lease_wait - something released once other nodes let go
 * @pending: parts still to be done; the last releases it
 * @release: frees what it keeps
 */
struct cumk_lease_wait {
	atomic_t pending;
	void (*release)(struct cumk_lease_wait *w);
};

void cumk_lease_init(void (*lose)(u32 node));
unsigned int cumk_lease_ms(void);
void cumk_lease_fail(u32 node);
void cumk_lease_post(u32 node, u32 op, const void *args, size_t args_len,
		     cumk_imex_done_t done, void *ctx);
bool cumk_lease_lost(u32 node);
bool cumk_lease_mark_lost(u32 node);
bool cumk_lease_valid(u32 node);
bool cumk_lease_involved(u32 node);
u32 cumk_lease_get(u32 node);
void cumk_lease_put(u32 node, u32 gen);
void cumk_lease_node_back(u32 node);
void cumk_lease_renew_soon(u32 node);
int cumk_lease_ensure(u32 node);
int cumk_lease_grant(u32 node);
void cumk_lease_wait_init(struct cumk_lease_wait *w,
			  void (*release)(struct cumk_lease_wait *w));
void cumk_lease_wait_add(struct cumk_lease_wait *w);
void cumk_lease_wait_done(struct cumk_lease_wait *w);
void cumk_lease_wait_expire(struct cumk_lease_wait *w, u32 node,
			    unsigned int extra_ms);
void cumk_lease_exit(void);
bool cumk_lease_drain(void);

/*
 * cumc_remote.c: memory shared across nodes. The calls one node's kernel
 * makes on another's, through the daemons; their numbers and arguments
 * are the module's own (the daemons carry them as they are).
 */
enum cumk_remote_op {
	CUMK_REMOTE_EXPORT_GET = 1,	/* describe a fabric export, hold it */
	CUMK_REMOTE_EXPORT_PUT,		/* let go of such a hold */
	CUMK_REMOTE_MC_JOIN,		/* a device joins a team held there */
	CUMK_REMOTE_MC_BIND,		/* memory is bound into it */
	CUMK_REMOTE_MC_UNBIND,		/* and unbound */
	CUMK_REMOTE_MC_UPDATE,		/* what changed, to the replicas */
	CUMK_REMOTE_MC_ACTIVATE,	/* a replica asks for the whole team */
	CUMK_REMOTE_LEASE_RENEW,	/* a lease, from now on */
	CUMK_REMOTE_MC_RELEASED,	/* every node let go of an unbinding */
	CUMK_REMOTE_BYE,		/* the sender lost the node it tells */
};

/* A run of another node's GPU memory, as calls carry it (little-endian). */
struct cumk_remote_extent {
	__le64 mem_offset;
	__le64 dev_offset;
	__le64 length;
};

#define CUMK_REMOTE_VERSION 2

/*
 * CUMK_REMOTE_EXPORT_GET's answer: this header, then what the object's
 * kind adds (cumc_remote.c, cumc_remote_mc.c).
 */
struct cumk_remote_export {
	__le32 version;
	__le32 hold;
	__le32 type;
	__le32 handle_types;
};

/* CUMK_REMOTE_EXPORT_PUT's arguments, and the start of every MC call's. */
struct cumk_remote_hold_args {
	__le32 hold;
};

/* What fits in a call beside a header of @header bytes. */
#define CUMK_REMOTE_MAX_EXTENTS(header)					\
	((CUMC_IMEX_PAYLOAD_MAX - (header)) / sizeof(struct cumk_remote_extent))

int cumk_remote_import(struct cumk_ucmd *ucmd, const u8 *fabric_handle,
		       u32 node);
int cumk_remote_run(u32 caller, u32 op, const void *args, size_t args_len,
		    void **answer, size_t *answer_len);
void cumk_remote_run_unsent(u32 caller, u32 op, const void *answer,
			    size_t answer_len);
void cumk_remote_node_lost(u32 node);
void cumk_remote_node_join(u32 node);
int cumk_remote_init(void);
void cumk_remote_exit(void);

/*
 * cumc_remote_mc.c: multicast teams across nodes. The node that created a
 * shared object holds its team; the others keep replicas in step.
 */
int cumk_remote_mc_export(struct cumk_mc *mc, u32 node, u32 hold,
			  void **answer, size_t *answer_len);
void cumk_remote_mc_unexport(struct cumk_mc *mc, u32 hold);
struct cumk_mc *cumk_remote_mc_find(u32 node, const u8 *fabric_handle);
struct cumk_mc *cumk_remote_mc_replica(struct cumk_usage *usage, u32 node,
				       const u8 *fabric_handle,
				       const void *answer, size_t len);
int cumk_remote_mc_run(struct cumk_mc *mc, u32 caller, u32 op,
		       const void *args, size_t args_len, void **answer,
		       size_t *answer_len);
void cumk_remote_mc_update(u32 caller, const void *args, size_t args_len);
void cumk_remote_mc_unbind_post(struct cumk_mc *mc, u32 caller,
				const void *args, size_t len);
void cumk_remote_mc_released(u32 caller, const void *args, size_t len);
void cumk_remote_mc_origin_lost(bool all, u32 node);
void cumk_remote_mc_state_changed(struct cumk_mc *mc);
void cumk_remote_mc_exit(void);
int cumk_remote_mc_join(struct cumk_mc *mc, struct cumk_device *dev);
int cumk_remote_mc_bind(struct cumk_mc *mc, struct cumk_device *member,
			struct cumk_mem *mem, u64 mem_offset, u64 mc_offset,
			u64 length, struct cumk_usage *usage);
int cumk_remote_mc_unbind(struct cumk_mc *mc, struct cumk_device *member,
			  u64 mc_offset, u64 length, struct cumk_usage *who);
void cumk_remote_mc_push_state(u32 id);

/* cumc_client.c: open files and their handle tables */
struct cumk_client *cumk_client_create(void);
void cumk_client_destroy(struct cumk_client *client);
int cumk_handle_reserve(struct cumk_client *client, struct cumk_object *obj,
			struct cumk_handle_reservation *res, u64 *handle);
int cumk_handle_retain(struct cumk_client *client, struct cumk_object *obj,
		       struct cumk_handle_reservation *res, u64 *handle);
void cumk_handle_finalize(struct cumk_client *client,
			  struct cumk_handle_reservation *res);
void cumk_handle_abort(struct cumk_client *client,
		       struct cumk_handle_reservation *res);
struct cumk_object *cumk_handle_get(struct cumk_client *client, u64 handle,
				    enum cumk_object_type type);
int cumk_handle_ioctl_release(struct cumk_ucmd *ucmd);
void cumk_clients_show(struct seq_file *m);

/* A new handle for @obj, answered by @ucmd; takes over the reference. */
static inline int cumk_ucmd_new_handle(struct cumk_ucmd *ucmd,
				       struct cumk_object *obj, u64 *handle)
{
	return cumk_handle_reserve(ucmd->client, obj, &ucmd->new_handle,
				   handle);
}

/* The same for an object @ucmd created: published when it is finalized. */
static inline int cumk_ucmd_new_object(struct cumk_ucmd *ucmd,
				       struct cumk_object *obj, u64 *handle)
{
	int ret = cumk_ucmd_new_handle(ucmd, obj, handle);

	if (!ret)
		ucmd->new_handle.created = true;
	return ret;
}

/* cumc_memory.c: physical allocations */
int cumk_mem_ioctl_create(struct cumk_ucmd *ucmd);
int cumk_mem_ioctl_info(struct cumk_ucmd *ucmd);
int cumk_mem_pfn(struct cumk_mem *mem, pgoff_t index, unsigned long *pfn);
int cumk_mem_check(struct cumk_mem *mem);
void cumk_mem_lose_device(struct cumk_device *dev);
struct cumk_mem *cumk_mem_create_remote(struct cumk_usage *usage,
					struct cumk_device *dev, u64 length,
					u32 handle_types,
					struct cumk_extent *extents,
					unsigned int nr_extents,
					const struct cumk_object_ops *ops,
					u32 lease_node);
int cumk_mem_share_start(struct cumk_mem *mem);
int cumk_mem_share_init(void);
void cumk_mem_share_exit(void);
void cumk_mem_free(struct cumk_mem *mem);
int cumk_mem_share_range(struct cumk_mem *mem, u64 offset, u64 length,
			 struct cumk_remote_extent *out, unsigned int max);
struct cumk_extent *cumk_mem_extents_import(const struct cumk_remote_extent *in,
					    unsigned int n,
					    struct cumk_device *dev,
					    u64 length);

/* cumc_vm.c: mappings the module makes in a client's process */
int cumk_vm_init(void);
void cumk_vm_exit(void);
void cumk_vm_open(struct file *filp);
/*
 * Each owner of offsets gets a slot of 2^47 bytes of them; slot 0 is unused
 * and the last ends below 2^63, as loff_t needs.
 */
#define CUMK_VM_SLOT_SHIFT 47
#define CUMK_VM_MAX_SLOTS ((1U << (63 - CUMK_VM_SLOT_SHIFT)) - 1)
/* What one owner of file offsets may map: a reservation, all member views. */
#define CUMK_VM_MAX_OFFSETS BIT_ULL(CUMK_VM_SLOT_SHIFT)
int cumk_vm_alloc_offsets(void *owner, unsigned long *pgoff);
void cumk_vm_free_offsets(unsigned long pgoff);
void cumk_vm_zap(unsigned long pgoff, u64 length);
void cumk_vm_zap_all(void);
vm_fault_t cumk_vm_fault_error(int err);
unsigned long cumk_vm_get_unmapped_area(struct file *filp, unsigned long addr,
					unsigned long len, unsigned long pgoff,
					unsigned long flags);
int cumk_vm_mmap(struct file *filp, struct vm_area_struct *vma);
unsigned long cumk_vm_map(struct file *filp, struct cumk_vm_request *req);
void cumk_vm_unmap(unsigned long addr, u64 length);
int cumk_vm_may_split(struct vm_area_struct *vma, unsigned long addr);
int cumk_vm_mremap(struct vm_area_struct *vma);
int cumk_vm_mprotect(struct vm_area_struct *vma, unsigned long start,
		     unsigned long end, unsigned long newflags);

/* cumc_notify.c: the generic netlink family and its monitor events */
int cumk_notify_register(const struct genl_small_ops *ops, unsigned int n_ops,
			 const struct nla_policy *policy);
void cumk_notify_unregister(void);
void *cumk_notify_put_dump(struct sk_buff *skb, struct netlink_callback *cb,
			   u8 cmd);
void *cumk_notify_put_reply(struct sk_buff *msg, struct genl_info *info,
			    u8 cmd);
void cumk_notify_mc(u8 cmd, u32 id, u32 team_size, u64 length);
void cumk_notify_bind(u8 cmd, u32 id, u32 device, u64 mc_offset, u64 length);
void cumk_notify_device_lost(u32 device);
void cumk_notify_node_lost(u32 node);
int cumk_notify_unicast(struct sk_buff *msg, void *hdr, u32 portid);
void *cumk_notify_put_request(struct sk_buff *msg, u8 cmd);

/* cumc_team.c: a multicast team's forming and its setup by the fabric manager */
void cumk_team_init(struct cumk_mc *mc);
int cumk_team_join(struct cumk_mc *mc, struct cumk_device *dev, u32 *slot);
int cumk_team_place(struct cumk_mc *mc, u32 slot, struct cumk_device *dev);
void cumk_team_settle_remote(struct cumk_mc *mc, bool ok);
int cumk_team_slot(struct cumk_mc *mc, u32 device);
int cumk_team_slot_of(struct cumk_mc *mc, struct cumk_device *dev);
int cumk_team_respond(struct cumk_mc *mc, bool ok);
bool cumk_team_lose_device(struct cumk_mc *mc, struct cumk_device *dev);
int cumk_team_wait_ready(struct cumk_mc *mc);
enum cumc_team_state_uapi cumk_team_uapi_state(struct cumk_mc *mc);
enum cumc_fm_mode cumk_team_fm_mode(void);
void cumk_team_set_fm_mode(enum cumc_fm_mode mode);
u32 cumk_team_fm_timeout_ms(void);
void cumk_team_set_fm_timeout_ms(u32 ms);
u32 cumk_team_mc_limit_get(void);
void cumk_team_set_mc_limit(u32 limit);
u32 cumk_team_mc_count(void);
void cumk_team_release(struct cumk_mc *mc);
void cumk_team_stop(struct cumk_mc *mc);
int cumk_team_wq_init(void);
void cumk_team_wq_exit(void);
void cumk_team_set_settled_hook(void (*hook)(struct cumk_mc *mc));

/* cumc_fabric.c: the fabric page table, under each object's lock */
u64 cumk_fabric_granularity(void);
u64 cumk_fabric_page_size(void);
int cumk_fabric_bind(struct cumk_mc *mc, struct cumk_device *member,
		     struct cumk_mem *mem, u64 mem_offset, u64 mc_offset,
		     u64 length, struct cumk_usage *usage);
int cumk_fabric_unbind(struct cumk_mc *mc, struct cumk_device *member,
		       u64 mc_offset, u64 length, struct cumk_usage *who);
int cumk_fabric_unbind_keep(struct cumk_mc *mc, struct cumk_device *member,
			    u64 mc_offset, u64 length, struct cumk_usage *who,
			    struct cumk_mem **mem);
int cumk_fabric_may_unbind(struct cumk_mc *mc, struct cumk_device *member,
			   u64 mc_offset, u64 length, struct cumk_usage *who);
void cumk_fabric_release(struct cumk_mc *mc);
unsigned long cumk_fabric_view_pgoff(struct cumk_mc *mc, u32 slot);
int cumk_fabric_pfn(struct cumk_mc *mc, u32 slot, u64 offset,
		    unsigned long *pfn);
struct cumk_bind *cumk_fabric_first_bind(struct cumk_mc *mc, u32 slot);
struct cumk_bind *cumk_fabric_next_bind(struct cumk_bind *b);

/* cumc_multicast.c: multicast objects */
struct cumk_mc *cumk_mc_get(struct cumk_client *client, u64 handle);
struct cumk_mc *cumk_mc_alloc(struct cumk_usage *usage, u32 num_devices,
			      u64 length, u32 handle_types,
			      const struct cumk_object_ops *ops);
void cumk_mc_publish(struct cumk_object *obj);
void cumk_mc_free(struct cumk_mc *mc);
int cumk_mc_ioctl_create(struct cumk_ucmd *ucmd);
int cumk_mc_ioctl_info(struct cumk_ucmd *ucmd);
struct cumk_mc *cumk_mc_get_next(unsigned long *id);
int cumk_mc_fm_respond(u32 req_id, bool ok);
void cumk_mc_exit(void);
void cumk_mc_lose_device(struct cumk_device *dev,
			 void (*failed)(struct cumk_mc *mc));

/* cumc_va.c: device address space */
int cumk_va_ioctl_reserve(struct cumk_ucmd *ucmd);
int cumk_va_ioctl_free(struct cumk_ucmd *ucmd);
int cumk_va_ioctl_map(struct cumk_ucmd *ucmd);
int cumk_va_ioctl_unmap(struct cumk_ucmd *ucmd);
int cumk_va_ioctl_set_access(struct cumk_ucmd *ucmd);
int cumk_va_ioctl_query(struct cumk_ucmd *ucmd);
void cumk_va_unreserve(struct cumk_client *client, u64 addr, u64 length);
void cumk_va_flush(struct cumk_client *client);
struct cumk_mem *cumk_va_resolve(struct cumk_client *client, u64 addr,
				 u64 length, u64 *mem_offset);
struct cumk_mc *cumk_va_mc_mapping(struct cumk_client *client, u64 addr,
				   u64 *map_addr, u64 *length,
				   struct cumk_grant **grant);

/* cumc_bind.c: devices joining multicast teams, memory bound into them */
int cumk_bind_ioctl_add_device(struct cumk_ucmd *ucmd);
int cumk_bind_ioctl_mem(struct cumk_ucmd *ucmd);
int cumk_bind_ioctl_addr(struct cumk_ucmd *ucmd);
int cumk_bind_ioctl_unbind(struct cumk_ucmd *ucmd);

/* cumc_view.c: the member views of multicast mappings */
int cumk_view_ioctl(struct cumk_ucmd *ucmd);

/* cumc_grant.c: what the CPU may do through a mapping's member views */
struct cumk_grant *cumk_grant_create(int access);
void cumk_grant_put(struct cumk_grant *grant);
void cumk_grant_set(struct cumk_grant *grant, struct cumk_mc *mc, int access);

/* cumc_channel.c: the IMEX channel devices, under cumc's and NVIDIA's names */
int cumk_channel_init(void);
void cumk_channel_exit(void);
int cumk_channel_of_file(struct file *file);

/* cumc_sharing.c: exported fds, fabric handles and IMEX channels */
int cumk_sharing_init(void);
void cumk_sharing_exit(void);
int cumk_sharing_ioctl_export_fd(struct cumk_ucmd *ucmd);
int cumk_sharing_ioctl_import_fd(struct cumk_ucmd *ucmd);
int cumk_sharing_ioctl_attach_channel(struct cumk_ucmd *ucmd);
int cumk_sharing_ioctl_export_fabric(struct cumk_ucmd *ucmd);
int cumk_sharing_ioctl_import_fabric(struct cumk_ucmd *ucmd);

/* cumc_debugfs.c: counters the tests read */
extern atomic_t cumk_live_clients;
extern atomic_t cumk_live_mems;
extern atomic_long_t cumk_live_pages;
extern atomic_t cumk_live_vas;
extern atomic_t cumk_live_mappings;
extern atomic_t cumk_live_mcs;
extern atomic_t cumk_live_binds;
extern atomic_t cumk_live_views;
extern atomic_t cumk_live_usages;
extern atomic_t cumk_live_holds;
void cumk_debugfs_init(void);
void cumk_debugfs_exit(void);

/* cumc_fault.c: fault injection; cumk_fault_lock (a leaf) guards the table */
/* FABRIC_STALL's length when FAULT_SET gives none: torchcomms #3130's. */
#define CUMK_FAULT_STALL_DEFAULT_MS 7000
int cumk_fault_set(enum cumc_fault_type type, s32 device,
		   enum cumc_fault_mode mode, u32 value, u32 delay_ms);
bool cumk_fault_hit(enum cumc_fault_type type, struct cumk_device *dev);
bool cumk_fault_hit_mc(enum cumc_fault_type type, struct cumk_mc *mc);
bool cumk_fault_hit_mc_delay(enum cumc_fault_type type, struct cumk_mc *mc,
			     u32 *delay_ms);
struct cumk_fault_info {
	u32 type;
	s32 device;	/* -1: fabric-wide */
	u32 mode;
	u32 value;
	u64 hits;
	u32 delay_ms;	/* FABRIC_STALL's; 0 for the other kinds */
};

int cumk_fault_get(unsigned int index, struct cumk_fault_info *info);

/* cumc_condition.c: devices' conditions; cumk_cond_lock (a leaf) guards them */
void cumk_cond_apply(struct cumk_device *dev, const struct cumk_cond_change *c);
void cumk_cond_read(struct cumk_device *dev, struct cumk_cond *out);
bool cumk_cond_fabric_held(struct cumk_device *dev);
bool cumk_cond_multicast(struct cumk_device *dev);

/* cumc_netlink.c: the control plane's commands */
int cumk_netlink_init(void);
void cumk_netlink_exit(void);

/* cumc_ioctl.c: the dispatch table */
long cumk_fops_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);

#endif /* _CUMK_INTERNAL_H */
