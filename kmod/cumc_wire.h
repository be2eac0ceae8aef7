/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The multi-node wire format: the calls one node's module makes on
 * another's, through the daemons, which carry them as they are. Their
 * numbers and layouts are the module's own, little-endian, and every node
 * of a fabric runs the same module (CUMK_REMOTE_VERSION). A multicast
 * team's changes travel as records, written and read by cumc_wire.c.
 */
#ifndef _CUMK_WIRE_H
#define _CUMK_WIRE_H

#include <linux/types.h>
#include <linux/cumc.h>
#include <linux/cumc_netlink.h>

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

/* A run of another node's GPU memory, as calls carry it. */
struct cumk_remote_extent {
	__le64 mem_offset;
	__le64 dev_offset;
	__le64 length;
};

#define CUMK_REMOTE_VERSION 2

/* CUMK_REMOTE_EXPORT_GET's arguments: the fabric handle. */
struct cumk_remote_get_args {
	u8 handle[CUMC_FABRIC_HANDLE_SIZE];
};

/*
 * CUMK_REMOTE_EXPORT_GET's answer: this header, then what the object's
 * kind adds (struct cumk_remote_mem_export, struct cumk_mc_export).
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

/* CUMK_REMOTE_EXPORT_GET's answer for an allocation (cumc_remote.c). */
struct cumk_remote_mem_export {
	struct cumk_remote_export head;
	__le64 length;
	u8 dev_uuid[16];
	__le32 nr_extents;
	__le32 pad;
	struct cumk_remote_extent extents[];
};

#define CUMK_REMOTE_MEM_MAX_EXTENTS					\
	CUMK_REMOTE_MAX_EXTENTS(sizeof(struct cumk_remote_mem_export))

/* CUMK_REMOTE_EXPORT_GET's answer for a multicast object. */
struct cumk_mc_export {
	struct cumk_remote_export head;
	__le32 num_devices;
	__le32 pad;
	__le64 length;
};

enum cumk_mc_record_type {
	CUMK_MC_RECORD_MEMBER = 1,	/* slot, uuid, node */
	CUMK_MC_RECORD_BIND,		/* slot, uuid, node, range, extents */
	CUMK_MC_RECORD_UNBIND,		/* slot, uuid, node, range (cookie) */
	CUMK_MC_RECORD_STATE,		/* ready (1) or failed (0) */
};

/*
 * One change of a team. @cookie: in a replica's MC_UNBIND, what the
 * origin's MC_RELEASED names.
 */
struct cumk_mc_record {
	__le32 type;
	__le32 slot;
	__le64 mc_offset;
	__le64 length;
	u8 uuid[16];
	__le32 node;
	__le32 ready;
	__le32 nr_extents;
	__le32 cookie;
	struct cumk_remote_extent extents[];
};

/*
 * The arguments of MC_JOIN, MC_BIND and MC_UNBIND (one record), and of
 * MC_UPDATE and the answer of MC_ACTIVATE (records one after the other).
 */
struct cumk_mc_call {
	struct cumk_remote_hold_args hold;
	__le32 nr_records;
	u8 records[];
};

/* MC_RELEASED's arguments: what the replica's MC_UNBIND named. */
struct cumk_mc_released {
	__le32 cookie;
};

/**
 * struct cumk_wire_writer - a call of team records being written
 * @call: the call; its hold is the sender's to fill in
 * @len: bytes of it written
 * @cap: bytes it may have, at most CUMC_IMEX_PAYLOAD_MAX
 * @error: the first failure (-ENOMEM, -E2BIG, or what a caller set):
 *         the writer takes no record after it
 */
struct cumk_wire_writer {
	struct cumk_mc_call *call;
	size_t len;
	size_t cap;
	int error;
};

/* Room for a record or two without runs: a member, a state, an unbind. */
#define CUMK_WIRE_SMALL 256

int cumk_wire_init(struct cumk_wire_writer *w, size_t cap);
void cumk_wire_free(struct cumk_wire_writer *w);
void cumk_wire_clear(struct cumk_wire_writer *w);
struct cumk_mc_record *cumk_wire_add(struct cumk_wire_writer *w,
				     enum cumk_mc_record_type type, u32 slot,
				     const u8 *uuid, u32 node,
				     unsigned int nr_extents);
void cumk_wire_member(struct cumk_wire_writer *w, u32 slot, const u8 *uuid,
		      u32 node);
struct cumk_remote_extent *cumk_wire_bind_room(struct cumk_wire_writer *w,
					       unsigned int *max);
void cumk_wire_bind(struct cumk_wire_writer *w, u32 slot, const u8 *uuid,
		    u32 node, u64 mc_offset, u64 length,
		    unsigned int nr_extents);
void cumk_wire_unbind(struct cumk_wire_writer *w, u32 slot, const u8 *uuid,
		      u32 node, u64 mc_offset, u64 length, u32 cookie);
void cumk_wire_state(struct cumk_wire_writer *w, bool ready);
int cumk_wire_copy(struct cumk_wire_writer *w,
		   const struct cumk_mc_record *r);

/**
 * struct cumk_wire_reader - the records of a call being read
 * @call: the call
 * @len: its bytes
 * @at: where the next record starts
 * @left: records the call says are still to come
 */
struct cumk_wire_reader {
	const struct cumk_mc_call *call;
	size_t len;
	size_t at;
	u32 left;
};

int cumk_wire_read_init(struct cumk_wire_reader *rd, const void *args,
			size_t len);
const struct cumk_mc_record *cumk_wire_read(struct cumk_wire_reader *rd);
const struct cumk_mc_record *cumk_wire_only(const void *args, size_t len);

#endif /* _CUMK_WIRE_H */
