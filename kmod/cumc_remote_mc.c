// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast teams across the nodes of a multi-node fabric.
 *
 * The node that created a multicast object (its origin) holds the team:
 * its members, their bindings and its setup. Every other node that imports
 * the object's fabric handle gets a replica, one per node however often it
 * imports, that follows the origin:
 *
 * - A device of node X joins through X's replica: X asks the origin
 *   (MC_JOIN) and waits for the answer, however late, until the origin is
 *   lost: the origin gives the device a slot in its team, X places it in
 *   the same slot of its replica.
 * - X binds memory of its device: it binds it in its replica first (every
 *   check a bind makes is made there), then asks the origin (MC_BIND) with
 *   where the memory lies on the GPU; the origin binds it over its own
 *   mapping of that GPU. If the origin refuses, or X cannot know what it
 *   did (no answer in time), X unbinds it again and has the origin unbind
 *   it too (below): a bind takes effect on every node or on none.
 * - X unbinds: X unbinds in its replica and posts MC_UNBIND to the origin,
 *   which unbinds and tells the other replicas. X keeps its memory (in
 *   quarantine) until the origin says that every node let go of it
 *   (MC_RELEASED), or the origin is lost and every lease it could still
 *   have granted on it ran out.
 * - The origin tells every replica but the one that asked what changed
 *   (MC_UPDATE: members, bindings, the team's state), one post after the
 *   other through the daemons, in the order it happened. Each is answered
 *   once applied; memory of the origin's own that it unbinds stays in use
 *   until every replica has answered the unbind, or has been lost and its
 *   lease ran out (cumc_lease.c). A replica's binds wait for the team as
 *   the origin's do: for the state to arrive, until the fabric manager's
 *   deadline once its members are all in.
 * - A replica starts from a copy of the whole team, asked for once it can
 *   hear what changes (MC_ACTIVATE): nothing is missed, and what is heard
 *   twice changes nothing the second time. Nobody uses it before then.
 *
 * Each node then maps every member's bound memory itself, from its own
 * replica, as on one node (cumc_view.c), under its lease from the origin,
 * which vouches for every binding it sends. An update changes only what
 * other nodes bound: a replica's own bindings are its own to undo. A node
 * lost fails the teams it is a member of (its GPUs are lost, cumc_loss.c,
 * and the origin tells the replicas) and the replicas of the teams it
 * held, which unbind all other nodes' memory; a replica released unbinds
 * its node's memory, as above, and has the origin let go of its hold.
 * Documentation/multinode.md tells the whole story.
 */
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>

#include "cumc_internal.h"

/**
 * struct cumk_mc_holder - another node holding a replica of a team held here
 * @link: in the object's @holders
 * @node: the node
 * @hold: the hold this node keeps for it (cumc_remote.c)
 * @active: it hears of changes: it asked for the whole team
 * @usage: what that node's bindings are charged to here
 */
struct cumk_mc_holder {
	struct list_head link;
	u32 node;
	u32 hold;
	bool active;
	struct cumk_usage *usage;
};

/**
 * struct cumk_mc_replica - this node's replica of another node's team
 * @mc: the replica; the entry holds no reference, @mc's end removes it
 * @apply_lock: one change applied at a time, the first copy of the team
 *              before any; held while the first copy is awaited, so that
 *              another import waits for it
 * @deferred_lock: guards @activating and @deferred
 * @activating: the first copy is on its way: changes wait in @deferred
 * @deferred: changes heard meanwhile, in order (struct cumk_mc_deferred)
 *
 * Changes heard before the first copy arrives are kept, not waited with:
 * the daemon hears them on the one thread that also brings that copy's
 * answer, after them, so a change that waited for the copy would keep the
 * copy from coming (until fm_timeout_ms, when the import fails). Nobody
 * maps the replica before the copy and what was kept are applied.
 */
struct cumk_mc_replica {
	struct cumk_mc *mc;
	struct mutex apply_lock; /* serializes changes to a replica */
	spinlock_t deferred_lock; /* guards activating and deferred */
	bool activating;
	struct list_head deferred;
};

/* A change from the origin, kept until the replica's first copy is in. */
struct cumk_mc_deferred {
	struct list_head link;
	size_t len;
	u8 call[];
};

/*
 * (origin node << 32 | hold) -> struct cumk_mc_replica. Entries come and
 * go under cumk_replicas_lock, which import also holds while it looks for a
 * replica it has, so that a node has one per team.
 */
static DEFINE_XARRAY(cumk_replicas);
static DEFINE_MUTEX(cumk_replicas_lock); /* serializes replicas' creation */

/**
 * struct cumk_mc_quarantine - this node's memory, bound in another node's
 *                             team, unbound, that other nodes may still map
 * @wait: ends with the origin's MC_RELEASED, or once the origin is lost and
 *        every lease it may have granted ran out
 * @link: in a list of those whose origin is lost
 * @origin: the origin
 * @cookie: its entry in cumk_mc_quarantines, which MC_RELEASED names
 * @mem: the memory; the quarantine holds a reference
 */
struct cumk_mc_quarantine {
	struct cumk_lease_wait wait;
	struct list_head link;
	u32 origin;
	u32 cookie;
	struct cumk_mem *mem;
};

/* Cookie -> struct cumk_mc_quarantine; its xa_lock is a leaf. */
static DEFINE_XARRAY_ALLOC1(cumk_mc_quarantines);
static u32 cumk_mc_next_cookie; /* under cumk_mc_quarantines' lock */

/**
 * struct cumk_mc_revoke - on the origin, an unbind every replica must take
 * @wait: one part per replica told, done when it answered, or when it is
 *        lost and its lease ran out
 * @mem: this node's memory that was unbound, kept until then, or NULL
 * @reply_node: the replica that asked for the unbind, told MC_RELEASED
 *              then; CUMK_NO_NODE when none did
 * @reply_cookie: what its MC_UNBIND named
 */
struct cumk_mc_revoke {
	struct cumk_lease_wait wait;
	struct cumk_mem *mem;
	u32 reply_node;
	u32 reply_cookie;
};

static const struct cumk_object_ops cumk_replica_ops;
static const struct cumk_mc_kind cumk_replica_kind;

static unsigned long cumk_replica_key(u32 node, u32 hold)
{
	return (unsigned long)node << 32 | hold;
}

/* Tell node @node to let go of the hold @hold it keeps for this one. */
static void cumk_replica_put_hold(u32 node, u32 hold)
{
	struct cumk_remote_hold_args put = { .hold = cpu_to_le32(hold) };

	cumk_lease_post(node, CUMK_REMOTE_EXPORT_PUT, &put, sizeof(put), NULL,
			NULL);
}

static void cumk_writer_member(struct cumk_wire_writer *w, u32 slot,
			       struct cumk_device *dev)
{
	cumk_wire_member(w, slot, dev->uuid, dev->node);
}

/* A binding's record: where [@mem_offset, +@length) of @mem lies. */
static void cumk_writer_bind(struct cumk_wire_writer *w, u32 slot,
			     struct cumk_mem *mem, u64 mem_offset,
			     u64 mc_offset, u64 length)
{
	struct cumk_remote_extent *room;
	unsigned int max;
	int n;

	room = cumk_wire_bind_room(w, &max);
	if (!room)
		return;
	n = cumk_mem_share_range(mem, mem_offset, length, room, max);
	if (n < 0) {
		w->error = n;
		return;
	}
	cumk_wire_bind(w, slot, mem->dev->uuid, mem->dev->node, mc_offset,
		       length, n);
}

static void cumk_writer_unbind(struct cumk_wire_writer *w, u32 slot,
			       struct cumk_device *dev, u64 mc_offset,
			       u64 length, u32 cookie)
{
	cumk_wire_unbind(w, slot, dev->uuid, dev->node, mc_offset, length,
			 cookie);
}

/* The team's state, once it left FORMING. */
static void cumk_writer_state(struct cumk_wire_writer *w, struct cumk_mc *mc)
{
	enum cumc_team_state_uapi state = cumk_team_uapi_state(mc);

	if (state != CUMC_TEAM_STATE_FORMING)
		cumk_wire_state(w, state == CUMC_TEAM_STATE_READY);
}

/* The whole team: members, their bindings, its state. */
static void cumk_writer_team(struct cumk_wire_writer *w, struct cumk_mc *mc)
{
	struct cumk_bind *b;
	u32 i;

	lockdep_assert_held(&mc->lock);
	for (i = 0; i < mc->team.num_members; i++) {
		cumk_writer_member(w, i, mc->members[i].dev);
		for (b = cumk_fabric_first_bind(mc, i); b;
		     b = cumk_fabric_next_bind(b))
			cumk_writer_bind(w, i, b->mem, b->mem_offset,
					 b->mc_offset, b->length);
	}
	cumk_writer_state(w, mc);
}

/* A replica answered an update of @ctx's, or is lost. */
static void cumk_mc_revoked(u32 node, int result, const void *answer,
			    size_t len, void *ctx)
{
	struct cumk_mc_revoke *rv = ctx;

	if (result)
		cumk_lease_wait_expire(&rv->wait, node, 0);
	else
		cumk_lease_wait_done(&rv->wait);
}

/*
 * Tell every active holder of @mc but node @except what @w holds; the
 * caller holds @mc's lock, so that changes go out in the order they
 * happened. Each is posted: it arrives, or its node is lost. With @rv,
 * each holder's answer is one part of @rv's wait. A holder that cannot be
 * told (the changes could not be written) fails.
 */
static void cumk_mc_push(struct cumk_mc *mc, struct cumk_wire_writer *w,
			 u32 except, struct cumk_mc_revoke *rv)
{
	struct cumk_mc_holder *h;

	lockdep_assert_held(&mc->lock);
	if (!w->error && !w->call->nr_records)
		return;
	list_for_each_entry(h, &mc->holders, link) {
		if (!h->active || h->node == except)
			continue;
		if (w->error) {
			cumk_lease_fail(h->node);
			continue;
		}
		w->call->hold.hold = cpu_to_le32(h->hold);
		if (rv)
			cumk_lease_wait_add(&rv->wait);
		cumk_lease_post(h->node, CUMK_REMOTE_MC_UPDATE, w->call,
				w->len, rv ? cumk_mc_revoked : NULL, rv);
	}
}

static void cumk_mc_revoke_release(struct cumk_lease_wait *w)
{
	struct cumk_mc_revoke *rv = container_of(w, struct cumk_mc_revoke,
						 wait);
	struct cumk_mc_released done = {
		.cookie = cpu_to_le32(rv->reply_cookie),
	};

	if (rv->mem)
		cumk_object_put(&rv->mem->obj);
	if (rv->reply_node != CUMK_NO_NODE)
		cumk_lease_post(rv->reply_node, CUMK_REMOTE_MC_RELEASED,
				&done, sizeof(done), NULL, NULL);
	kfree(rv);
}

/* A revocation keeping @mem (or NULL), answering @reply_node's @cookie. */
static struct cumk_mc_revoke *cumk_mc_revoke_new(struct cumk_mem *mem,
						 u32 reply_node, u32 cookie)
{
	struct cumk_mc_revoke *rv;

	rv = kzalloc(sizeof(*rv), GFP_KERNEL | __GFP_NOFAIL);
	cumk_lease_wait_init(&rv->wait, cumk_mc_revoke_release);
	rv->mem = mem;
	rv->reply_node = reply_node;
	rv->reply_cookie = cookie;
	return rv;
}

static struct cumk_mc_holder *cumk_mc_holder(struct cumk_mc *mc, u32 hold)
{
	struct cumk_mc_holder *h;

	lockdep_assert_held(&mc->lock);
	list_for_each_entry(h, &mc->holders, link)
		if (h->hold == hold)
			return h;
	return NULL;
}

/* Memory of another node bound into a team here: no hold of its own. */
static void cumk_mc_bound_mem_destroy(struct cumk_object *obj)
{
	cumk_mem_free(to_cumk_mem(obj));
}

static const struct cumk_object_ops cumk_mc_bound_mem_ops = {
	.destroy = cumk_mc_bound_mem_destroy,
};

/* The member in @slot if it is the GPU @uuid names, else NULL. */
static struct cumk_device *cumk_mc_member(struct cumk_mc *mc, u32 slot,
					  const u8 *uuid)
{
	struct cumk_device *dev = NULL;

	down_read(&mc->lock);
	if (slot < mc->num_devices && mc->members[slot].dev &&
	    !memcmp(mc->members[slot].dev->uuid, uuid, 16))
		dev = mc->members[slot].dev;
	up_read(&mc->lock);
	return dev;
}

/*
 * Bind, for the member in @slot, another node's memory that @r describes,
 * charged to @usage. A binding this node knows already changes nothing.
 * It is mapped under the lease of the node vouching for it: a replica's
 * origin, else the node whose GPU it is.
 */
static int cumk_mc_apply_bind(struct cumk_mc *mc, u32 slot,
			      struct cumk_device *dev,
			      const struct cumk_mc_record *r, u32 n,
			      struct cumk_usage *usage)
{
	u64 length = le64_to_cpu(r->length);
	struct cumk_extent *extents;
	struct cumk_mem *mem;
	int ret;

	extents = cumk_mem_extents_import(r->extents, n, dev, length);
	if (IS_ERR(extents))
		return PTR_ERR(extents);
	mem = cumk_mem_create_remote(usage, dev, length, CUMC_HANDLE_FABRIC,
				     extents, n, &cumk_mc_bound_mem_ops,
				     mc->replica ? mc->origin_node : dev->node);
	if (IS_ERR(mem))
		return PTR_ERR(mem);
	ret = cumk_fabric_bind(mc, dev, mem, 0, le64_to_cpu(r->mc_offset),
			       length, usage);
	return ret == -EEXIST ? 0 : ret;
}

/*
 * The first binding in @mc of a member of this node (@remote false) or of
 * another node (@remote true; of node @node only, unless CUMK_NO_NODE):
 * its device and range, read under @mc's lock, or false when none is left.
 */
static bool cumk_mc_first_bind_of(struct cumk_mc *mc, bool remote, u32 node,
				  struct cumk_device **dev, u64 *offset,
				  u64 *length)
{
	struct cumk_bind *b;
	u32 i;

	*dev = NULL;
	down_read(&mc->lock);
	for (i = 0; i < mc->team.num_members && !*dev; i++) {
		struct cumk_device *member = mc->members[i].dev;

		if (member->remote != remote ||
		    (node != CUMK_NO_NODE && member->node != node))
			continue;
		b = cumk_fabric_first_bind(mc, i);
		if (b) {
			*dev = member;
			*offset = b->mc_offset;
			*length = b->length;
		}
	}
	up_read(&mc->lock);
	return *dev;
}

/*
 * Unbind every binding of another node's memory in @mc, or of node
 * @node's only.
 */
static void cumk_mc_unbind_remote(struct cumk_mc *mc, u32 node)
{
	struct cumk_device *dev;
	u64 offset, length;

	while (cumk_mc_first_bind_of(mc, true, node, &dev, &offset, &length))
		cumk_fabric_unbind(mc, dev, offset, length, NULL);
}

/*
 * The replica @mc fails (its origin says so, or is lost): nothing of
 * another node stays mapped from it.
 */
static void cumk_replica_fail(struct cumk_mc *mc)
{
	cumk_team_settle_remote(mc, false);
	cumk_mc_unbind_remote(mc, CUMK_NO_NODE);
}

/*
 * Apply one record @r (of @n runs) to the replica @mc; @update: it came in
 * an MC_UPDATE, which never changes this node's own bindings.
 */
static int cumk_mc_apply_one(struct cumk_mc *mc,
			     const struct cumk_mc_record *r, u32 n,
			     struct cumk_usage *usage, bool update)
{
	u32 slot = le32_to_cpu(r->slot);
	struct cumk_device *dev;
	int ret;

	switch (le32_to_cpu(r->type)) {
	case CUMK_MC_RECORD_STATE:
		if (le32_to_cpu(r->ready))
			cumk_team_settle_remote(mc, true);
		else
			cumk_replica_fail(mc);
		return 0;
	case CUMK_MC_RECORD_UNBIND:
		dev = cumk_mc_member(mc, slot, r->uuid);
		if (!dev)
			return 0;
		if (update && !dev->remote)
			return -EPROTO;
		cumk_fabric_unbind(mc, dev, le64_to_cpu(r->mc_offset),
				   le64_to_cpu(r->length), NULL);
		return 0;
	case CUMK_MC_RECORD_MEMBER:
	case CUMK_MC_RECORD_BIND:
		break;
	default:
		return -EPROTO;
	}
	/* A member this node cannot reach fails the team here. */
	dev = cumk_device_find_uuid(r->uuid);
	if (!dev || dev->node != le32_to_cpu(r->node))
		return -EHOSTDOWN;
	ret = cumk_team_place(mc, slot, dev);
	if (ret || le32_to_cpu(r->type) == CUMK_MC_RECORD_MEMBER)
		return ret;
	/* This node's own bindings it made, and undoes, itself. */
	if (!dev->remote)
		return update ? -EPROTO : 0;
	return cumk_mc_apply_bind(mc, slot, dev, r, n, usage);
}

/*
 * Apply the records of @call (@len bytes, checked here), in order; the
 * bindings they add are charged to @usage. A record that cannot be applied
 * leaves the replica behind its origin: its team fails.
 */
static int cumk_mc_apply(struct cumk_mc *mc, const struct cumk_mc_call *call,
			 size_t len, struct cumk_usage *usage, bool update)
{
	const struct cumk_mc_record *r;
	struct cumk_wire_reader rd;
	int ret;

	ret = cumk_wire_read_init(&rd, call, len);
	while (!ret && (r = cumk_wire_read(&rd))) {
		if (IS_ERR(r))
			ret = PTR_ERR(r);
		else
			ret = cumk_mc_apply_one(mc, r,
						le32_to_cpu(r->nr_extents),
						usage, update);
	}
	if (ret)
		cumk_replica_fail(mc);
	return ret;
}

/* Node @node imports @mc as its hold @hold: what it learns first. */
int cumk_remote_mc_export(struct cumk_mc *mc, u32 node, u32 hold,
			  void **answer, size_t *answer_len)
{
	struct cumk_mc_export *ex;
	struct cumk_mc_holder *h;

	/* A replica is not shared on: its team is its origin's to share. */
	if (mc->replica)
		return -EOPNOTSUPP;
	ex = kzalloc(sizeof(*ex), GFP_KERNEL);
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!ex || !h)
		goto err_free;
	h->usage = cumk_usage_create(false);
	if (!h->usage)
		goto err_free;
	h->node = node;
	h->hold = hold;
	down_write(&mc->lock);
	list_add_tail(&h->link, &mc->holders);
	up_write(&mc->lock);
	ex->head.version = cpu_to_le32(CUMK_REMOTE_VERSION);
	ex->head.hold = cpu_to_le32(hold);
	ex->head.type = cpu_to_le32(CUMK_OBJ_MC);
	ex->head.handle_types = cpu_to_le32(mc->obj.handle_types);
	ex->num_devices = cpu_to_le32(mc->num_devices);
	ex->length = cpu_to_le64(mc->length);
	*answer = ex;
	*answer_len = sizeof(*ex);
	return 0;

err_free:
	kfree(h);
	kfree(ex);
	return -ENOMEM;
}

/*
 * Unbind everything bound for the GPUs of node @node, telling the others,
 * as many bindings at a time as one message holds.
 */
static void cumk_mc_unbind_node(struct cumk_mc *mc, u32 node)
{
	const size_t per = sizeof(struct cumk_mc_record);
	struct cumk_wire_writer w;
	struct cumk_bind *b;
	u32 i;

	do {
		if (cumk_wire_init(&w, CUMC_IMEX_PAYLOAD_MAX)) {
			/* Not written down: who cannot hear of it fails. */
			down_read(&mc->lock);
			cumk_mc_push(mc, &w, node, NULL);
			up_read(&mc->lock);
			cumk_mc_unbind_remote(mc, node);
			return;
		}
		down_read(&mc->lock);
		for (i = 0; i < mc->team.num_members; i++) {
			struct cumk_device *dev = mc->members[i].dev;

			if (!dev->remote || dev->node != node)
				continue;
			for (b = cumk_fabric_first_bind(mc, i);
			     b && w.cap - w.len >= per;
			     b = cumk_fabric_next_bind(b))
				cumk_writer_unbind(&w, i, dev, b->mc_offset,
						   b->length, 0);
		}
		up_read(&mc->lock);
		/* Applied here as a replica applies them: the same records. */
		cumk_mc_apply(mc, w.call, w.len, NULL, false);
		down_read(&mc->lock);
		cumk_mc_push(mc, &w, node, NULL);
		up_read(&mc->lock);
		i = le32_to_cpu(w.call->nr_records);
		cumk_wire_free(&w);
	} while (i);
}

/*
 * Hold @hold is gone: its node no longer hears of the team, and what it
 * bound is unbound (its node confirmed it let go, or is lost and its
 * memory no longer vouched for).
 */
void cumk_remote_mc_unexport(struct cumk_mc *mc, u32 hold)
{
	struct cumk_mc_holder *h;

	down_write(&mc->lock);
	h = cumk_mc_holder(mc, hold);
	if (h)
		list_del(&h->link);
	up_write(&mc->lock);
	if (!h)
		return;
	cumk_mc_unbind_node(mc, h->node);
	cumk_usage_put(h->usage);
	kfree(h);
}

/* The replica of node @node's hold @hold, with a reference on its object. */
static struct cumk_mc_replica *cumk_replica_get(u32 node, u32 hold)
{
	struct cumk_mc_replica *rep;

	mutex_lock(&cumk_replicas_lock);
	rep = xa_load(&cumk_replicas, cumk_replica_key(node, hold));
	if (rep && !kref_get_unless_zero(&rep->mc->obj.ref))
		rep = NULL;
	mutex_unlock(&cumk_replicas_lock);
	return rep;
}

/* Keep @call for after the first copy: 1 when kept, 0 when that is in. */
static int cumk_replica_defer(struct cumk_mc_replica *rep,
			      const struct cumk_mc_call *call, size_t len)
{
	struct cumk_mc_deferred *d;
	int ret = 0;

	/*
	 * Activation ends once, before which it was set, under the lock
	 * cumk_replica_get() takes: seen over, it is over, and most changes
	 * come then, with nothing to copy.
	 */
	if (!READ_ONCE(rep->activating))
		return 0;
	d = kmalloc(struct_size(d, call, len), CUMK_GFP);
	if (!d)
		return -ENOMEM;
	d->len = len;
	memcpy(d->call, call, len);
	spin_lock(&rep->deferred_lock);
	if (rep->activating) {
		list_add_tail(&d->link, &rep->deferred);
		ret = 1;
	}
	spin_unlock(&rep->deferred_lock);
	if (!ret)
		kfree(d);
	return ret;
}

/*
 * The first copy is in (@apply) or failed: apply, or drop, the changes
 * kept meanwhile, oldest first, until none is left and changes apply as
 * they come. Those the copy already holds change nothing again.
 */
static void cumk_replica_drain(struct cumk_mc_replica *rep, bool apply)
{
	struct cumk_mc_deferred *d;

	lockdep_assert_held(&rep->apply_lock);
	for (;;) {
		spin_lock(&rep->deferred_lock);
		d = list_first_entry_or_null(&rep->deferred,
					     struct cumk_mc_deferred, link);
		if (d)
			list_del(&d->link);
		else
			WRITE_ONCE(rep->activating, false);
		spin_unlock(&rep->deferred_lock);
		if (!d)
			return;
		if (apply)
			cumk_mc_apply(rep->mc, (void *)d->call, d->len,
				      rep->mc->fabric_usage, true);
		kfree(d);
	}
}

/*
 * MC_UPDATE from the origin @caller: changes for its replica here. One
 * for no replica (gone, or never made) changes nothing; one that cannot
 * be applied fails the replica. Either way it was taken.
 */
void cumk_remote_mc_update(u32 caller, const void *args, size_t args_len)
{
	const struct cumk_mc_call *call = args;
	struct cumk_mc_replica *rep;
	int ret;

	if (args_len < sizeof(*call) || args_len > CUMC_IMEX_PAYLOAD_MAX)
		return;
	/* Only from the origin: the key is its node. */
	rep = cumk_replica_get(caller, le32_to_cpu(call->hold.hold));
	if (!rep)
		return;
	ret = cumk_replica_defer(rep, call, args_len);
	if (ret < 0) {
		cumk_replica_fail(rep->mc);
	} else if (!ret) {
		mutex_lock(&rep->apply_lock);
		cumk_mc_apply(rep->mc, call, args_len, rep->mc->fabric_usage,
			      true);
		mutex_unlock(&rep->apply_lock);
	}
	cumk_object_put(&rep->mc->obj);
}

static void cumk_mc_quarantine_release(struct cumk_lease_wait *w)
{
	struct cumk_mc_quarantine *q =
		container_of(w, struct cumk_mc_quarantine, wait);

	cumk_object_put(&q->mem->obj);
	kfree(q);
}

/* What a quarantine waits past a lost origin's lease: see multinode.md. */
static unsigned int cumk_mc_quarantine_extra_ms(void)
{
	unsigned int ms = cumk_lease_ms();

	return ms + ms / 4;
}

/*
 * Keep @mem, this node's memory that was bound at @mc_offset for the
 * member @dev in @slot of the replica @mc and is unbound here now, until
 * the origin has every node let go of it: the origin is told to unbind it
 * (an undo of a bind it may or may not have made, or an unbind) and
 * answers MC_RELEASED. Takes over the caller's reference on @mem.
 */
static void cumk_mc_quarantine(struct cumk_mc *mc, u32 slot,
			       struct cumk_device *dev, u64 mc_offset,
			       u64 length, struct cumk_mem *mem)
{
	u32 origin = mc->origin_node, cookie;
	struct cumk_mc_quarantine *q;
	struct cumk_wire_writer w;
	int ret;

	q = kzalloc(sizeof(*q), GFP_KERNEL | __GFP_NOFAIL);
	cumk_lease_wait_init(&q->wait, cumk_mc_quarantine_release);
	INIT_LIST_HEAD(&q->link);
	q->origin = origin;
	q->mem = mem;
	ret = xa_alloc_cyclic(&cumk_mc_quarantines, &q->cookie, q,
			      xa_limit_32b, &cumk_mc_next_cookie, GFP_KERNEL);
	if (ret < 0) {
		/* It cannot be named: the origin fails, the wait is its lease. */
		cumk_lease_fail(origin);
		cumk_lease_wait_expire(&q->wait, origin,
				       cumk_mc_quarantine_extra_ms());
		return;
	}
	cookie = q->cookie;
	cumk_wire_init(&w, CUMK_WIRE_SMALL);
	w.call->hold.hold = cpu_to_le32(mc->origin_hold);
	cumk_writer_unbind(&w, slot, dev, mc_offset, length, cookie);
	cumk_lease_post(origin, CUMK_REMOTE_MC_UNBIND, w.call, w.len, NULL,
			NULL);
	cumk_wire_free(&w);
	/*
	 * The origin lost meanwhile: whoever takes it out of the table
	 * waits for the origin's leases instead (cumk_remote_mc_origin_lost()
	 * marks it lost before it looks).
	 */
	if (!cumk_lease_lost(origin))
		return;
	/* Released meanwhile, @q may be gone: compared, not read. */
	xa_lock(&cumk_mc_quarantines);
	if (xa_load(&cumk_mc_quarantines, cookie) == q)
		__xa_erase(&cumk_mc_quarantines, cookie);
	else
		q = NULL;
	xa_unlock(&cumk_mc_quarantines);
	if (q)
		cumk_lease_wait_expire(&q->wait, origin,
				       cumk_mc_quarantine_extra_ms());
}

/* MC_RELEASED from @caller: every node let go of what it names. */
void cumk_remote_mc_released(u32 caller, const void *args, size_t len)
{
	const struct cumk_mc_released *done = args;
	struct cumk_mc_quarantine *q;
	u32 cookie;

	if (len != sizeof(*done))
		return;
	cookie = le32_to_cpu(done->cookie);
	xa_lock(&cumk_mc_quarantines);
	q = xa_load(&cumk_mc_quarantines, cookie);
	if (q && q->origin == caller)
		__xa_erase(&cumk_mc_quarantines, cookie);
	else
		q = NULL;
	xa_unlock(&cumk_mc_quarantines);
	if (q)
		cumk_lease_wait_done(&q->wait);
}

/*
 * Unbind, in the replica @mc, this node's binding of @member at
 * [@mc_offset, +@length) that @who may undo (NULL: the module), and
 * quarantine its memory until every node let go of it.
 */
static int cumk_replica_unbind(struct cumk_mc *mc, struct cumk_device *member,
			       u64 mc_offset, u64 length,
			       struct cumk_usage *who)
{
	struct cumk_mem *mem;
	int slot, ret;

	ret = cumk_fabric_unbind_keep(mc, member, mc_offset, length, who,
				      &mem);
	if (ret)
		return ret;
	down_read(&mc->lock);
	slot = cumk_team_slot_of(mc, member);
	up_read(&mc->lock);
	cumk_mc_quarantine(mc, slot, member, mc_offset, length, mem);
	return 0;
}

/* The replica goes: this node's bindings in it are undone on every node. */
static void cumk_replica_let_go(struct cumk_mc *mc)
{
	struct cumk_device *dev;
	u64 offset, length;

	while (cumk_mc_first_bind_of(mc, false, CUMK_NO_NODE, &dev, &offset,
				     &length))
		if (cumk_replica_unbind(mc, dev, offset, length, NULL))
			return;
}

/*
 * The replica's last holder let go: its own bindings are undone, then the
 * origin lets go of its hold (the same queue: in that order).
 */
static void cumk_replica_destroy(struct cumk_object *obj)
{
	struct cumk_mc *mc = to_cumk_mc(obj);
	struct cumk_remote_hold_args put = {
		.hold = cpu_to_le32(mc->origin_hold),
	};
	struct cumk_mc_replica *rep;

	mutex_lock(&cumk_replicas_lock);
	rep = xa_erase(&cumk_replicas,
		       cumk_replica_key(mc->origin_node, mc->origin_hold));
	mutex_unlock(&cumk_replicas_lock);
	/* One never registered is its creator's to let go of. */
	if (rep) {
		cumk_replica_let_go(mc);
		cumk_lease_post(mc->origin_node, CUMK_REMOTE_EXPORT_PUT, &put,
				sizeof(put), NULL, NULL);
		cumk_lease_put(mc->origin_node, mc->origin_lease_gen);
	}
	kfree(rep);
	cumk_usage_put(mc->fabric_usage);
	cumk_mc_free(mc);
}

static const struct cumk_object_ops cumk_replica_ops = {
	.destroy = cumk_replica_destroy,
	.publish = cumk_mc_publish,
};

static struct cumk_mc_replica *cumk_replica_find(u32 node,
						 const u8 *fabric_handle)
{
	struct cumk_mc_replica *rep;
	unsigned long key;

	lockdep_assert_held(&cumk_replicas_lock);
	xa_for_each(&cumk_replicas, key, rep)
		if (rep->mc->origin_node == node &&
		    !memcmp(rep->mc->origin_handle, fabric_handle,
			    CUMC_FABRIC_HANDLE_SIZE) &&
		    kref_get_unless_zero(&rep->mc->obj.ref))
			return rep;
	return NULL;
}

/*
 * This node's replica of the team node @node exported as @handle, or NULL;
 * once its first copy is in (or failed): nobody uses it before.
 */
struct cumk_mc *cumk_remote_mc_find(u32 node, const u8 *fabric_handle)
{
	struct cumk_mc_replica *rep;

	mutex_lock(&cumk_replicas_lock);
	rep = cumk_replica_find(node, fabric_handle);
	mutex_unlock(&cumk_replicas_lock);
	if (!rep)
		return NULL;
	/* The reference keeps @rep, which only the object's end frees. */
	mutex_lock(&rep->apply_lock);
	mutex_unlock(&rep->apply_lock);
	return rep->mc;
}

/*
 * Call @op on the origin of @mc with @w's records, waiting @timeout at
 * most; the answer in *@answer.
 */
static int cumk_replica_call(struct cumk_mc *mc, u32 op,
			     struct cumk_wire_writer *w, long timeout,
			     void **answer, size_t *answer_len)
{
	int ret;

	*answer = NULL;
	*answer_len = 0;
	if (w->error)
		return w->error;
	w->call->hold.hold = cpu_to_le32(mc->origin_hold);
	ret = cumk_imex_call(mc->origin_node, op, w->call, w->len, timeout,
			     answer, answer_len, NULL, NULL);
	/* The origin lost this node: this one loses it too. */
	if (ret == -ESTALE)
		cumk_lease_fail(mc->origin_node);
	/* An origin out of reach is a team failed, as far as this node goes. */
	if (ret == -ENOTCONN || ret == -EHOSTDOWN || ret == -EHOSTUNREACH ||
	    ret == -ESTALE)
		ret = -EIO;
	return ret;
}

static long cumk_replica_timeout(void)
{
	return msecs_to_jiffies(cumk_team_fm_timeout_ms());
}

/* Ask the origin for the whole team and apply it: the replica is live. */
static int cumk_replica_activate(struct cumk_mc *mc)
{
	struct cumk_wire_writer w;
	size_t answer_len;
	void *answer;
	int ret;

	cumk_wire_init(&w, CUMK_WIRE_SMALL);
	ret = cumk_replica_call(mc, CUMK_REMOTE_MC_ACTIVATE, &w,
				cumk_replica_timeout(), &answer, &answer_len);
	cumk_wire_free(&w);
	if (ret)
		return ret;
	ret = -EPROTO;
	if (answer_len >= sizeof(struct cumk_mc_call))
		ret = cumk_mc_apply(mc, answer, answer_len, mc->fabric_usage,
				    false);
	kfree(answer);
	return ret;
}

/* A new replica, not registered yet, of what node @node's answer describes. */
static struct cumk_mc *cumk_replica_new(struct cumk_usage *usage, u32 node,
					const u8 *fabric_handle,
					const struct cumk_mc_export *ex)
{
	u32 num_devices = le32_to_cpu(ex->num_devices);
	u64 length = le64_to_cpu(ex->length);
	struct cumk_usage *fabric_usage;
	struct cumk_mc *mc;

	if (!num_devices || num_devices > CUMC_MAX_DEVICES || !length ||
	    length > CUMK_VM_MAX_OFFSETS / num_devices ||
	    !IS_ALIGNED(length, cumk_fabric_granularity()))
		return ERR_PTR(-EPROTO);
	fabric_usage = cumk_usage_create(false);
	if (!fabric_usage)
		return ERR_PTR(-ENOMEM);
	mc = cumk_mc_alloc(usage, num_devices, length,
			   le32_to_cpu(ex->head.handle_types), &cumk_replica_ops,
			   &cumk_replica_kind);
	if (IS_ERR(mc)) {
		cumk_usage_put(fabric_usage);
		return mc;
	}
	mc->replica = true;
	mc->origin_node = node;
	mc->origin_hold = le32_to_cpu(ex->head.hold);
	memcpy(mc->origin_handle, fabric_handle, CUMC_FABRIC_HANDLE_SIZE);
	mc->fabric_usage = fabric_usage;
	return mc;
}

/*
 * Register @mc, new, as this node's replica, locked for its first copy;
 * it keeps renewing its lease from the origin while it lives.
 */
static struct cumk_mc_replica *cumk_replica_register(struct cumk_mc *mc)
{
	struct cumk_mc_replica *rep;
	int ret;

	lockdep_assert_held(&cumk_replicas_lock);
	rep = kzalloc(sizeof(*rep), GFP_KERNEL);
	if (!rep)
		return ERR_PTR(-ENOMEM);
	rep->mc = mc;
	mutex_init(&rep->apply_lock);
	spin_lock_init(&rep->deferred_lock);
	rep->activating = true;
	INIT_LIST_HEAD(&rep->deferred);
	mutex_lock(&rep->apply_lock);
	ret = xa_insert(&cumk_replicas,
			cumk_replica_key(mc->origin_node, mc->origin_hold),
			rep, GFP_KERNEL);
	if (ret) {
		mutex_unlock(&rep->apply_lock);
		kfree(rep);
		return ERR_PTR(ret);
	}
	mc->origin_lease_gen = cumk_lease_get(mc->origin_node);
	return rep;
}

/*
 * The replica of the team node @node's answer @answer describes, exported
 * as @fabric_handle: this node's one, made now and filled in if there is
 * none yet. The hold the answer names is let go of here if it is not
 * needed, or on failure.
 */
struct cumk_mc *cumk_remote_mc_replica(struct cumk_usage *usage, u32 node,
				       const u8 *fabric_handle,
				       const void *answer, size_t len)
{
	const struct cumk_mc_export *ex = answer;
	struct cumk_mc_replica *rep;
	struct cumk_mc *mc;
	int ret;

	if (len != sizeof(*ex)) {
		ret = -EPROTO;
		goto err_put_hold;
	}
	mutex_lock(&cumk_replicas_lock);
	rep = cumk_replica_find(node, fabric_handle);
	if (rep) {
		/* Imported meanwhile: this hold is one too many. */
		mutex_unlock(&cumk_replicas_lock);
		cumk_replica_put_hold(node, le32_to_cpu(ex->head.hold));
		mutex_lock(&rep->apply_lock);
		mutex_unlock(&rep->apply_lock);
		return rep->mc;
	}
	mc = cumk_replica_new(usage, node, fabric_handle, ex);
	rep = IS_ERR(mc) ? ERR_CAST(mc) : cumk_replica_register(mc);
	mutex_unlock(&cumk_replicas_lock);
	if (IS_ERR(rep)) {
		if (!IS_ERR(mc))
			cumk_object_put(&mc->obj);
		ret = PTR_ERR(rep);
		goto err_put_hold;
	}
	/* Changes may come from now on; they are kept for after the copy. */
	ret = cumk_replica_activate(mc);
	cumk_replica_drain(rep, !ret);
	mutex_unlock(&rep->apply_lock);
	if (ret) {
		/* Registered: its end lets go of the hold. */
		cumk_object_put(&mc->obj);
		return ERR_PTR(ret);
	}
	return mc;

err_put_hold:
	if (len >= sizeof(ex->head))
		cumk_replica_put_hold(node, le32_to_cpu(ex->head.hold));
	return ERR_PTR(ret);
}

/* The record of a call from a replica, checked to be one of node @caller's. */
static const struct cumk_mc_record *
cumk_mc_call_record(const void *args, size_t len, u32 caller,
		    struct cumk_device **dev)
{
	const struct cumk_mc_record *r = cumk_wire_only(args, len);

	if (IS_ERR(r))
		return r;
	*dev = cumk_device_find_remote(r->uuid);
	if (!*dev || (*dev)->node != caller)
		return ERR_PTR(-ENODEV);
	return r;
}

/*
 * MC_JOIN: node @caller's GPU joins; its slot is the answer. A device that
 * is a member already joined through a call its node gave up on: the
 * answer is its slot, as the first time.
 */
static int cumk_mc_run_join(struct cumk_mc *mc, struct cumk_device *dev,
			    void **answer, size_t *answer_len)
{
	__le32 *slot_answer;
	int slot, ret;

	slot_answer = kmalloc(sizeof(*slot_answer), GFP_KERNEL);
	if (!slot_answer)
		return -ENOMEM;
	ret = mc->kind->join(mc, dev);
	if (!ret || ret == -EEXIST) {
		down_read(&mc->lock);
		slot = cumk_team_slot_of(mc, dev);
		up_read(&mc->lock);
		if (slot >= 0) {
			*slot_answer = cpu_to_le32(slot);
			*answer = slot_answer;
			*answer_len = sizeof(*slot_answer);
			return 0;
		}
	}
	kfree(slot_answer);
	return ret;
}

/*
 * The usage node @caller's bindings are charged to here, with a
 * reference, and @dev's slot; NULL and -EPROTO when it is no member.
 */
static struct cumk_usage *cumk_mc_caller_usage(struct cumk_mc *mc, u32 caller,
					       struct cumk_device *dev,
					       u32 want_slot)
{
	struct cumk_usage *usage = NULL;
	struct cumk_mc_holder *h;
	int slot;

	down_read(&mc->lock);
	slot = cumk_team_slot_of(mc, dev);
	list_for_each_entry(h, &mc->holders, link)
		if (h->node == caller) {
			usage = cumk_usage_get(h->usage);
			break;
		}
	up_read(&mc->lock);
	if (usage && slot >= 0 && (u32)slot == want_slot)
		return usage;
	if (usage)
		cumk_usage_put(usage);
	return NULL;
}

/*
 * MC_BIND of node @caller for its GPU @dev: done here, then told to the
 * other replicas. Refused (-EAGAIN: its node asks again) while this node
 * has no lease from the caller to map its memory under.
 */
static int cumk_mc_run_bind(struct cumk_mc *mc, u32 caller,
			    struct cumk_device *dev,
			    const struct cumk_mc_record *r)
{
	u32 n = le32_to_cpu(r->nr_extents);
	struct cumk_usage *usage;
	struct cumk_wire_writer w;
	int ret;

	usage = cumk_mc_caller_usage(mc, caller, dev, le32_to_cpu(r->slot));
	if (!usage)
		return -EPROTO;
	/* Written before: nothing changes here unless the others hear of it. */
	ret = cumk_wire_init(&w, sizeof(*w.call) + struct_size(r, extents, n));
	if (ret)
		goto out_put;
	cumk_wire_copy(&w, r);
	if (cumk_team_uapi_state(mc) != CUMC_TEAM_STATE_READY) {
		ret = -EIO;
	} else if (!cumk_lease_valid(caller)) {
		cumk_lease_renew_soon(caller);
		ret = -EAGAIN;
	} else {
		ret = cumk_mc_apply_bind(mc, le32_to_cpu(r->slot), dev, r, n,
					 usage);
	}
	if (!ret) {
		/* The other replicas hear of it as the caller said it. */
		down_read(&mc->lock);
		cumk_mc_push(mc, &w, caller, NULL);
		up_read(&mc->lock);
	}
	cumk_wire_free(&w);
out_put:
	cumk_usage_put(usage);
	return ret;
}

/*
 * MC_UNBIND, posted by node @caller for its GPU's binding in @mc (its hold
 * here, referenced; NULL when there is none): unbound here,
 * told to the other replicas, and once every one let go (or is lost and
 * its lease ran out), the caller hears MC_RELEASED with its cookie. A
 * binding unknown here (a bind refused, or never heard of) or a team
 * gone (every replica let go of it) is released at once.
 */
void cumk_remote_mc_unbind_post(struct cumk_mc *mc, u32 caller,
				const void *args, size_t len)
{
	const struct cumk_mc_record *r;
	struct cumk_mc_revoke *rv;
	struct cumk_device *dev;
	struct cumk_wire_writer w;

	r = cumk_mc_call_record(args, len, caller, &dev);
	/* What cannot be read cannot be answered: the caller is at fault. */
	if (IS_ERR(r) || le32_to_cpu(r->type) != CUMK_MC_RECORD_UNBIND)
		return;
	rv = cumk_mc_revoke_new(NULL, caller, le32_to_cpu(r->cookie));
	if (mc && !mc->replica &&
	    !cumk_fabric_unbind(mc, dev, le64_to_cpu(r->mc_offset),
				le64_to_cpu(r->length), NULL)) {
		cumk_wire_init(&w, CUMK_WIRE_SMALL);
		cumk_writer_unbind(&w, le32_to_cpu(r->slot), dev,
				   le64_to_cpu(r->mc_offset),
				   le64_to_cpu(r->length), 0);
		down_read(&mc->lock);
		cumk_mc_push(mc, &w, caller, rv);
		up_read(&mc->lock);
		cumk_wire_free(&w);
	}
	cumk_lease_wait_done(&rv->wait);
}

/* MC_ACTIVATE: node @caller's replica hears of changes from now on. */
static int cumk_mc_run_activate(struct cumk_mc *mc, u32 caller, u32 hold,
				void **answer, size_t *answer_len)
{
	struct cumk_mc_holder *h;
	struct cumk_wire_writer w;
	int ret;

	ret = cumk_wire_init(&w, CUMC_IMEX_PAYLOAD_MAX);
	if (ret)
		return ret;
	w.call->hold.hold = cpu_to_le32(hold);
	down_write(&mc->lock);
	h = cumk_mc_holder(mc, hold);
	if (h && h->node == caller) {
		cumk_writer_team(&w, mc);
		/* Under the same lock: every later change reaches it. */
		h->active = !w.error;
	}
	up_write(&mc->lock);
	ret = !h || h->node != caller ? -ENOENT : w.error;
	if (ret) {
		cumk_wire_free(&w);
		return ret;
	}
	*answer = kmemdup(w.call, w.len, GFP_KERNEL);
	*answer_len = w.len;
	cumk_wire_free(&w);
	return *answer ? 0 : -ENOMEM;
}

/* A call of node @caller on the team @mc held here (cumc_remote.c). */
int cumk_remote_mc_run(struct cumk_mc *mc, u32 caller, u32 op,
		       const void *args, size_t args_len, void **answer,
		       size_t *answer_len)
{
	const struct cumk_mc_call *call = args;
	const struct cumk_mc_record *r;
	struct cumk_device *dev;

	if (mc->replica)
		return -EPROTO;
	if (op == CUMK_REMOTE_MC_ACTIVATE)
		return cumk_mc_run_activate(mc, caller,
					    le32_to_cpu(call->hold.hold),
					    answer, answer_len);
	r = cumk_mc_call_record(args, args_len, caller, &dev);
	if (IS_ERR(r))
		return PTR_ERR(r);
	switch (op) {
	case CUMK_REMOTE_MC_JOIN:
		return cumk_mc_run_join(mc, dev, answer, answer_len);
	case CUMK_REMOTE_MC_BIND:
		return cumk_mc_run_bind(mc, caller, dev, r);
	default:
		return -EOPNOTSUPP;
	}
}

/* The team's state, once set up or failed, to every replica. */
static void cumk_mc_push_state(struct cumk_mc *mc)
{
	struct cumk_wire_writer w;

	cumk_wire_init(&w, CUMK_WIRE_SMALL);
	down_read(&mc->lock);
	cumk_writer_state(&w, mc);
	cumk_mc_push(mc, &w, CUMK_NO_NODE, NULL);
	up_read(&mc->lock);
	cumk_wire_free(&w);
}

/*
 * On the origin, @dev joins the team: the replicas hear of it, and of the
 * team's setup if it completed the team.
 */
static int cumk_origin_join(struct cumk_mc *mc, struct cumk_device *dev)
{
	struct cumk_wire_writer w;
	u32 slot;
	int ret;

	ret = cumk_team_join(mc, dev, &slot);
	if (ret)
		return ret;
	cumk_wire_init(&w, CUMK_WIRE_SMALL);
	down_read(&mc->lock);
	cumk_writer_member(&w, slot, dev);
	cumk_writer_state(&w, mc);
	cumk_mc_push(mc, &w, CUMK_NO_NODE, NULL);
	up_read(&mc->lock);
	cumk_wire_free(&w);
	return 0;
}

/* On a replica, @dev joins: the origin places it, however late it answers. */
static int cumk_replica_join(struct cumk_mc *mc, struct cumk_device *dev)
{
	struct cumk_wire_writer w;
	size_t answer_len;
	void *answer;
	int ret;

	cumk_wire_init(&w, CUMK_WIRE_SMALL);
	/* Joined already here: the origin would say so, as one node does. */
	down_read(&mc->lock);
	ret = cumk_team_slot_of(mc, dev) >= 0 ? -EEXIST : 0;
	up_read(&mc->lock);
	if (ret)
		goto out_free;
	cumk_writer_member(&w, 0, dev);
	/* A join cannot be undone: its outcome is waited for. */
	ret = cumk_replica_call(mc, CUMK_REMOTE_MC_JOIN, &w,
				MAX_SCHEDULE_TIMEOUT, &answer, &answer_len);
	if (ret)
		goto out_free;
	ret = answer_len == sizeof(__le32) ?
	      cumk_team_place(mc, le32_to_cpu(*(__le32 *)answer), dev) : -EPROTO;
	kfree(answer);
out_free:
	cumk_wire_free(&w);
	return ret;
}

/*
 * MC_BIND of the replica @mc's record in @w to its origin, asked again
 * while the origin waits for a lease from this node, until the fabric
 * manager's timeout.
 */
static int cumk_replica_bind_call(struct cumk_mc *mc, struct cumk_wire_writer *w)
{
	unsigned long deadline = jiffies + cumk_replica_timeout();
	long left, pause = msecs_to_jiffies(10) ?: 1;
	size_t answer_len;
	void *answer;
	int ret;

	for (;;) {
		left = (long)(deadline - jiffies);
		if (left <= 0)
			return -ETIMEDOUT;
		ret = cumk_replica_call(mc, CUMK_REMOTE_MC_BIND, w, left,
					&answer, &answer_len);
		kfree(answer);
		if (ret != -EAGAIN)
			return ret;
		schedule_timeout_killable(min(pause, left));
		if (fatal_signal_pending(current))
			return -EINTR;
		pause = min_t(long, 2 * pause, msecs_to_jiffies(200));
	}
}

/*
 * A replica binds: here first, then at the origin; anything but the
 * origin's success undoes it on both (cumk_replica_unbind()).
 */
static int cumk_replica_bind(struct cumk_mc *mc, struct cumk_device *member,
			     struct cumk_mem *mem, u64 mem_offset,
			     u64 mc_offset, u64 length,
			     struct cumk_usage *usage)
{
	struct cumk_wire_writer w;
	int slot, ret;

	/* The binding takes the caller's reference; this one is the call's. */
	kref_get(&mem->obj.ref);
	ret = cumk_fabric_bind(mc, member, mem, mem_offset, mc_offset, length,
			       usage);
	if (ret)
		goto out_put;
	down_read(&mc->lock);
	slot = cumk_team_slot_of(mc, member);
	up_read(&mc->lock);
	ret = cumk_wire_init(&w, CUMC_IMEX_PAYLOAD_MAX);
	if (!ret) {
		cumk_writer_bind(&w, slot, mem, mem_offset, mc_offset, length);
		ret = w.error;
	}
	if (ret) {
		/* The origin never heard of it: undone here alone. */
		cumk_wire_free(&w);
		cumk_fabric_unbind(mc, member, mc_offset, length, NULL);
		goto out_put;
	}
	ret = cumk_replica_bind_call(mc, &w);
	cumk_wire_free(&w);
	/*
	 * Refused, or no answer in time: the origin may have bound it, or
	 * may yet. Undone here, and there after the bind (the same queue);
	 * the memory stays until every node let go. Unbound meanwhile: so
	 * was it there.
	 */
	if (ret)
		cumk_replica_unbind(mc, member, mc_offset, length, NULL);
out_put:
	cumk_object_put(&mem->obj);
	return ret;
}

/*
 * On the origin, bind [@mem_offset, +@length) of @mem at @mc_offset for
 * @member, as cumk_fabric_bind() does, and tell every replica where the
 * memory is. Takes over the caller's reference on @mem.
 */
static int cumk_origin_bind(struct cumk_mc *mc, struct cumk_device *member,
			    struct cumk_mem *mem, u64 mem_offset,
			    u64 mc_offset, u64 length,
			    struct cumk_usage *usage)
{
	struct cumk_wire_writer w;
	int slot, ret;

	/*
	 * Where the memory lies is written before it is bound: a replica
	 * that asks for the team after the bind sees it in its copy, one
	 * that asked before hears of it, and the origin of a team shared
	 * across nodes zeroes what was never touched now, in the binder's
	 * context, not later in the daemon's.
	 */
	ret = cumk_wire_init(&w, CUMC_IMEX_PAYLOAD_MAX);
	if (ret)
		goto err_put;
	down_read(&mc->lock);
	slot = cumk_team_slot_of(mc, member);
	up_read(&mc->lock);
	if (slot >= 0 && mem->dev == member && member->fabric) {
		cumk_writer_bind(&w, slot, mem, mem_offset, mc_offset, length);
		ret = w.error;
		/* Memory that cannot leave its node binds for this node only. */
		if (ret == -EOPNOTSUPP) {
			cumk_wire_clear(&w);
			ret = 0;
		}
		if (ret)
			goto err_free;
	}
	ret = cumk_fabric_bind(mc, member, mem, mem_offset, mc_offset, length,
			       usage);
	if (!ret) {
		down_read(&mc->lock);
		cumk_mc_push(mc, &w, CUMK_NO_NODE, NULL);
		up_read(&mc->lock);
	}
	cumk_wire_free(&w);
	return ret;

err_free:
	cumk_wire_free(&w);
err_put:
	cumk_object_put(&mem->obj);
	return ret;
}

/*
 * On the origin, unbind @member's binding [@mc_offset, +@length), which
 * @who made: the replicas told, the memory kept until every one let go of
 * it, or is lost and its lease ran out. (From a replica: undone there, the
 * origin told, the memory kept until every node let go of it:
 * cumk_replica_unbind().)
 */
static int cumk_origin_unbind(struct cumk_mc *mc, struct cumk_device *member,
			      u64 mc_offset, u64 length,
			      struct cumk_usage *who)
{
	struct cumk_mc_revoke *rv;
	struct cumk_wire_writer w;
	struct cumk_mem *mem;
	int ret;

	ret = cumk_fabric_unbind_keep(mc, member, mc_offset, length, who, &mem);
	if (ret)
		return ret;
	rv = cumk_mc_revoke_new(mem, CUMK_NO_NODE, 0);
	cumk_wire_init(&w, CUMK_WIRE_SMALL);
	down_read(&mc->lock);
	cumk_writer_unbind(&w, cumk_team_slot_of(mc, member), member,
			   mc_offset, length, 0);
	cumk_mc_push(mc, &w, CUMK_NO_NODE, rv);
	up_read(&mc->lock);
	cumk_wire_free(&w);
	cumk_lease_wait_done(&rv->wait);
	return 0;
}

/* A team made here and shared by fabric handle: the replicas hear of all. */
const struct cumk_mc_kind cumk_remote_mc_origin = {
	.join = cumk_origin_join,
	.bind = cumk_origin_bind,
	.unbind = cumk_origin_unbind,
	.settled = cumk_mc_push_state,
};

/* Another node's team: this node's changes go through that node. */
static const struct cumk_mc_kind cumk_replica_kind = {
	.join = cumk_replica_join,
	.bind = cumk_replica_bind,
	.unbind = cumk_replica_unbind,
};

/*
 * Node @node is lost (or, @all, this node is cut off from every other):
 * the replicas of the teams it held fail, and this node's memory that
 * waited for it to say every node let go waits for its leases to run out.
 */
void cumk_remote_mc_origin_lost(bool all, u32 node)
{
	struct cumk_mc_quarantine *q, *next;
	struct cumk_mc_replica *rep;
	unsigned long key = 0;
	struct cumk_mc *mc;
	LIST_HEAD(list);

	for (;; key++) {
		mc = NULL;
		mutex_lock(&cumk_replicas_lock);
		rep = xa_find(&cumk_replicas, &key, ULONG_MAX, XA_PRESENT);
		if (rep && (all || rep->mc->origin_node == node) &&
		    kref_get_unless_zero(&rep->mc->obj.ref))
			mc = rep->mc;
		mutex_unlock(&cumk_replicas_lock);
		if (!rep)
			break;
		if (mc) {
			cumk_replica_fail(mc);
			cumk_object_put(&mc->obj);
		}
	}
	xa_lock(&cumk_mc_quarantines);
	xa_for_each(&cumk_mc_quarantines, key, q) {
		if (!all && q->origin != node)
			continue;
		__xa_erase(&cumk_mc_quarantines, key);
		list_add_tail(&q->link, &list);
	}
	xa_unlock(&cumk_mc_quarantines);
	list_for_each_entry_safe(q, next, &list, link) {
		list_del(&q->link);
		cumk_lease_wait_expire(&q->wait, q->origin,
				       cumk_mc_quarantine_extra_ms());
	}
}

/* At unload: every quarantine ends; no node uses this one's memory. */
void cumk_remote_mc_exit(void)
{
	struct cumk_mc_quarantine *q;
	unsigned long cookie;

	xa_for_each(&cumk_mc_quarantines, cookie, q) {
		xa_erase(&cumk_mc_quarantines, cookie);
		cumk_lease_wait_done(&q->wait);
	}
	xa_destroy(&cumk_mc_quarantines);
}
