// SPDX-License-Identifier: GPL-2.0
/*
 * A multicast team's records on the wire (cumc_wire.h): a writer fills a
 * call with records, one after the other, each with its runs of memory;
 * a reader walks a call another node sent, and trusts nothing in it: a
 * record that does not fit the call, or claims more runs than a call can
 * carry, is -EPROTO. Neither knows teams or devices: cumc_remote_mc.c
 * says what the records are of, and applies what it reads.
 */
#include <linux/err.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cumc_wire.h"

/*
 * A writer of @cap bytes; a small one (CUMK_WIRE_SMALL) never fails, so
 * that what must be told is never lost for want of memory.
 */
int cumk_wire_init(struct cumk_wire_writer *w, size_t cap)
{
	w->call = cap <= CUMK_WIRE_SMALL ?
		  kzalloc(cap, GFP_KERNEL | __GFP_NOFAIL) :
		  kvzalloc(cap, GFP_KERNEL);
	w->len = sizeof(*w->call);
	w->cap = cap;
	w->error = w->call ? 0 : -ENOMEM;
	return w->error;
}

void cumk_wire_free(struct cumk_wire_writer *w)
{
	kvfree(w->call);
}

/* Forget every record written, and the failure if any: an empty call. */
void cumk_wire_clear(struct cumk_wire_writer *w)
{
	w->error = 0;
	w->call->nr_records = 0;
	w->len = sizeof(*w->call);
}

/*
 * A record of @type for @slot with @nr_extents runs, of the GPU @uuid
 * (NULL: none) of node @node; its other fields are zero for the caller to
 * fill in. NULL when the writer failed, or now fails: no room (-E2BIG).
 */
struct cumk_mc_record *cumk_wire_add(struct cumk_wire_writer *w,
				     enum cumk_mc_record_type type, u32 slot,
				     const u8 *uuid, u32 node,
				     unsigned int nr_extents)
{
	struct cumk_mc_record *r;
	size_t len = struct_size(r, extents, nr_extents);

	if (w->error)
		return NULL;
	if (len > w->cap - w->len) {
		w->error = -E2BIG;
		return NULL;
	}
	r = (void *)w->call + w->len;
	w->len += len;
	le32_add_cpu(&w->call->nr_records, 1);
	r->type = cpu_to_le32(type);
	r->slot = cpu_to_le32(slot);
	r->nr_extents = cpu_to_le32(nr_extents);
	if (uuid) {
		memcpy(r->uuid, uuid, sizeof(r->uuid));
		r->node = cpu_to_le32(node);
	}
	return r;
}

void cumk_wire_member(struct cumk_wire_writer *w, u32 slot, const u8 *uuid,
		      u32 node)
{
	cumk_wire_add(w, CUMK_MC_RECORD_MEMBER, slot, uuid, node, 0);
}

/*
 * Where the runs of the next record go, and in *@max how many fit; the
 * caller writes them there, then cumk_wire_bind() with how many it wrote.
 * NULL when the writer failed, or now fails: no room for a record.
 */
struct cumk_remote_extent *cumk_wire_bind_room(struct cumk_wire_writer *w,
					       unsigned int *max)
{
	size_t room = w->cap - w->len;
	struct cumk_mc_record *r;

	if (w->error)
		return NULL;
	if (room < sizeof(*r)) {
		w->error = -E2BIG;
		return NULL;
	}
	r = (void *)w->call + w->len;
	*max = (room - sizeof(*r)) / sizeof(r->extents[0]);
	return r->extents;
}

/*
 * A binding's record: [@mc_offset, +@length) of @slot is the memory whose
 * @nr_extents runs cumk_wire_bind_room()'s caller wrote.
 */
void cumk_wire_bind(struct cumk_wire_writer *w, u32 slot, const u8 *uuid,
		    u32 node, u64 mc_offset, u64 length,
		    unsigned int nr_extents)
{
	struct cumk_mc_record *r;

	r = cumk_wire_add(w, CUMK_MC_RECORD_BIND, slot, uuid, node,
			  nr_extents);
	if (r) {
		r->mc_offset = cpu_to_le64(mc_offset);
		r->length = cpu_to_le64(length);
	}
}

void cumk_wire_unbind(struct cumk_wire_writer *w, u32 slot, const u8 *uuid,
		      u32 node, u64 mc_offset, u64 length, u32 cookie)
{
	struct cumk_mc_record *r;

	r = cumk_wire_add(w, CUMK_MC_RECORD_UNBIND, slot, uuid, node, 0);
	if (r) {
		r->mc_offset = cpu_to_le64(mc_offset);
		r->length = cpu_to_le64(length);
		r->cookie = cpu_to_le32(cookie);
	}
}

/* The team's state once it left FORMING: @ready, or failed. */
void cumk_wire_state(struct cumk_wire_writer *w, bool ready)
{
	struct cumk_mc_record *r;

	r = cumk_wire_add(w, CUMK_MC_RECORD_STATE, 0, NULL, 0, 0);
	if (r)
		r->ready = cpu_to_le32(ready);
}

/* @r, as read from another call, passed on as it is. */
int cumk_wire_copy(struct cumk_wire_writer *w,
		   const struct cumk_mc_record *r)
{
	size_t len = struct_size(r, extents, le32_to_cpu(r->nr_extents));

	if (w->error)
		return w->error;
	if (len > w->cap - w->len) {
		w->error = -E2BIG;
		return w->error;
	}
	memcpy((void *)w->call + w->len, r, len);
	w->len += len;
	le32_add_cpu(&w->call->nr_records, 1);
	return 0;
}

/* Read the records of the call @args of @len bytes. */
int cumk_wire_read_init(struct cumk_wire_reader *rd, const void *args,
			size_t len)
{
	if (len < sizeof(*rd->call) || len > CUMC_IMEX_PAYLOAD_MAX)
		return -EPROTO;
	rd->call = args;
	rd->len = len;
	rd->at = sizeof(*rd->call);
	rd->left = le32_to_cpu(rd->call->nr_records);
	return 0;
}

/*
 * The next record, whole within the call; NULL when the call said it has
 * no more, ERR_PTR(-EPROTO) when the next does not fit (and then none
 * after it is read).
 */
const struct cumk_mc_record *cumk_wire_read(struct cumk_wire_reader *rd)
{
	const struct cumk_mc_record *r;
	u32 n;

	if (!rd->left)
		return NULL;
	r = (const void *)rd->call + rd->at;
	if (rd->len - rd->at < sizeof(*r))
		goto err;
	n = le32_to_cpu(r->nr_extents);
	if (n > CUMK_REMOTE_MAX_EXTENTS(sizeof(*rd->call) + sizeof(*r)) ||
	    rd->len - rd->at < struct_size(r, extents, n))
		goto err;
	rd->at += struct_size(r, extents, n);
	rd->left--;
	return r;

err:
	rd->left = 0;
	return ERR_PTR(-EPROTO);
}

/* The one record of a call that carries exactly one, and nothing after. */
const struct cumk_mc_record *cumk_wire_only(const void *args, size_t len)
{
	const struct cumk_mc_record *r;
	struct cumk_wire_reader rd;

	if (cumk_wire_read_init(&rd, args, len) || rd.left != 1)
		return ERR_PTR(-EPROTO);
	r = cumk_wire_read(&rd);
	if (!IS_ERR(r) && rd.at != len)
		return ERR_PTR(-EPROTO);
	return r;
}
