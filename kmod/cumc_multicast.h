/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Multicast objects: the object, its team, its fabric page table, the binds
 * into it, the member views and their grants (cumc_multicast.c, cumc_team.c,
 * cumc_fabric.c, cumc_bind.c, cumc_view.c, cumc_grant.c).
 */
#ifndef _CUMK_MULTICAST_H
#define _CUMK_MULTICAST_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/rwsem.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/cumc.h>
#include "cumc_object.h"
#include "cumc_range.h"

struct cumk_client;
struct cumk_device;
struct cumk_mem;
struct cumk_ucmd;
struct cumk_usage;

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

struct cumk_mc;

/**
 * struct cumk_mc_kind - what differs between the kinds of multicast object:
 *                       one of this node's alone (local, cumc_multicast.c),
 *                       one of this node's shared by fabric handle with
 *                       other nodes (origin), another node's (replica,
 *                       both cumc_remote_mc.c)
 * @join: @dev joins the team
 * @bind: bind [@mem_offset, +@length) of @mem at @mc_offset for @member,
 *        charged to @usage; takes over the caller's reference on @mem
 * @unbind: unbind @member's binding [@mc_offset, +@length), which @who made
 *          (NULL: whoever made it)
 * @settled: the team left FORMING, or failed, outside a join (a stall's
 *           end, a fabric manager's answer, a member lost); called without
 *           the object's lock; NULL when nobody else needs to know
 */
struct cumk_mc_kind {
	int (*join)(struct cumk_mc *mc, struct cumk_device *dev);
	int (*bind)(struct cumk_mc *mc, struct cumk_device *member,
		    struct cumk_mem *mem, u64 mem_offset, u64 mc_offset,
		    u64 length, struct cumk_usage *usage);
	int (*unbind)(struct cumk_mc *mc, struct cumk_device *member,
		      u64 mc_offset, u64 length, struct cumk_usage *who);
	void (*settled)(struct cumk_mc *mc);
};

/**
 * struct cumk_mc - a multicast object (cuMulticastCreate)
 * @obj: its handle-table identity
 * @kind: its kind's operations, fixed at creation
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
	const struct cumk_mc_kind *kind;
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
			      const struct cumk_object_ops *ops,
			      const struct cumk_mc_kind *kind);
void cumk_mc_set_origin_kind(const struct cumk_mc_kind *kind);
void cumk_mc_publish(struct cumk_object *obj);
void cumk_mc_free(struct cumk_mc *mc);
int cumk_mc_ioctl_create(struct cumk_ucmd *ucmd);
int cumk_mc_ioctl_info(struct cumk_ucmd *ucmd);
struct cumk_mc *cumk_mc_get_next(unsigned long *id);
int cumk_mc_fm_respond(u32 req_id, bool ok);
void cumk_mc_exit(void);
void cumk_mc_lose_device(struct cumk_device *dev);

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

#endif /* _CUMK_MULTICAST_H */
