// SPDX-License-Identifier: GPL-2.0
/*
 * Memory shared across the nodes of a multi-node fabric.
 *
 * Every node's VM maps every GPU's BAR, as every node of an NVLink domain
 * reaches every GPU; what a node may map of another's GPU is what that
 * node shared. A fabric handle exported on node A and imported on node B
 * becomes, on B, a call to A's kernel through the two IMEX daemons
 * (cumc_imex.c): A looks the handle up as a local import would, zeroes
 * what was never touched (on a worker, charged to the allocation's owner:
 * B asks again until that is done), takes a hold on the allocation on B's
 * behalf and answers where its bytes are on the GPU. B makes an allocation
 * object of its own over those bytes of its mapping of the same GPU, under
 * a lease from A (cumc_lease.c); when B lets go of it, it tells A to drop
 * the hold, which A then does at once: B confirmed that it maps it no
 * more. When B is lost, A drops B's holds only once B's lease ran out plus
 * a margin; when A is lost, or B's lease from A runs out, B loses A's GPUs
 * (cumc_loss.c): their mappings get SIGBUS. A node holds at most
 * max_node_holds holds for another. Documentation/multinode.md tells the
 * whole story.
 */
#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/sched/signal.h>
#include <linux/notifier.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>

#include "cumc_internal.h"

static unsigned int max_node_holds = 4096;
module_param(max_node_holds, uint, 0644);
MODULE_PARM_DESC(max_node_holds,
		 "The most allocations and multicast objects this node holds for another node's imports (default 4096)");

/**
 * struct cumk_remote_hold - an allocation of this node another one imported
 * @node: that node
 * @id: its id, which that node names it by
 * @obj: the allocation; the hold keeps a reference
 * @link: in a list of holds being let go of
 * @wait: a hold let go of because its node is lost goes when its lease
 *        has run out (cumc_lease.c)
 */
struct cumk_remote_hold {
	u32 node;
	u32 id;
	struct cumk_object *obj;
	struct list_head link;
	struct cumk_lease_wait wait;
};

/* Hold id -> struct cumk_remote_hold; its xa_lock is a leaf. */
static DEFINE_XARRAY_ALLOC1(cumk_remote_holds);
/* Under cumk_remote_holds' lock: */
static u32 cumk_remote_next_hold;
static unsigned int cumk_remote_node_holds[CUMK_MAX_NODES];
atomic_t cumk_live_holds = ATOMIC_INIT(0);

/* Serializes losing nodes; taken before any object's lock. */
static DEFINE_MUTEX(cumk_remote_loss_lock);

/* @mem's description for another node, or a negative errno. */
static int cumk_remote_mem_describe(struct cumk_mem *mem, u32 hold,
				    void **answer, size_t *answer_len)
{
	struct cumk_remote_mem_export *ex;
	size_t len;
	int n;

	len = struct_size(ex, extents, CUMK_REMOTE_MEM_MAX_EXTENTS);
	ex = kzalloc(len, GFP_KERNEL);
	if (!ex)
		return -ENOMEM;
	n = cumk_mem_share_range(mem, 0, mem->length, ex->extents,
				 CUMK_REMOTE_MEM_MAX_EXTENTS);
	if (n < 0) {
		kfree(ex);
		return n;
	}
	ex->head.version = cpu_to_le32(CUMK_REMOTE_VERSION);
	ex->head.hold = cpu_to_le32(hold);
	ex->head.type = cpu_to_le32(CUMK_OBJ_MEM);
	ex->head.handle_types = cpu_to_le32(mem->obj.handle_types);
	ex->length = cpu_to_le64(mem->length);
	memcpy(ex->dev_uuid, mem->dev->uuid, sizeof(ex->dev_uuid));
	ex->nr_extents = cpu_to_le32(n);
	*answer = ex;
	*answer_len = struct_size(ex, extents, n);
	return 0;
}

/* @obj's description for node @node, held for it as @hold. */
static int cumk_remote_describe(struct cumk_object *obj, u32 node, u32 hold,
				void **answer, size_t *answer_len)
{
	if (obj->type == CUMK_OBJ_MC)
		return cumk_remote_mc_export(to_cumk_mc(obj), node, hold,
					     answer, answer_len);
	return cumk_remote_mem_describe(to_cumk_mem(obj), hold, answer,
					answer_len);
}

/* @h, out of the table, goes: a team held here stops telling its node. */
static void cumk_remote_hold_free(struct cumk_remote_hold *h)
{
	if (h->obj->type == CUMK_OBJ_MC)
		cumk_remote_mc_unexport(to_cumk_mc(h->obj), h->id);
	cumk_object_put(h->obj);
	atomic_dec(&cumk_live_holds);
	kfree(h);
}

static void cumk_remote_hold_release(struct cumk_lease_wait *w)
{
	cumk_remote_hold_free(container_of(w, struct cumk_remote_hold, wait));
}

/* Erase hold @id, which is @h, under the table's lock. */
static void cumk_remote_hold_erase(struct cumk_remote_hold *h, u32 id)
{
	__xa_erase(&cumk_remote_holds, id);
	cumk_remote_node_holds[h->node]--;
}

/*
 * A call this node runs for another answers late, as a fabric manager or
 * node that stalls would: after this node's fm_timeout_ms, and a second.
 */
static void cumk_remote_maybe_late(void)
{
	if (cumk_fault_hit(CUMC_FAULT_REMOTE_LATE, NULL))
		msleep(cumk_team_fm_timeout_ms() + 1000);
}

/*
 * CUMK_REMOTE_EXPORT_GET for node @caller. -EINPROGRESS: the allocation is
 * being zeroed for sharing; the caller asks again.
 */
static int cumk_remote_export_get(u32 caller, const void *args, size_t len,
				  void **answer, size_t *answer_len)
{
	const struct cumk_remote_get_args *get = args;
	struct cumk_remote_hold *h;
	u32 id;
	int ret;

	if (len != sizeof(*get))
		return -EINVAL;
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	h->node = caller;
	h->obj = cumk_object_fabric_lookup(get->handle);
	ret = -ENOENT;
	if (!h->obj)
		goto err_free;
	if (h->obj->type == CUMK_OBJ_MEM) {
		ret = cumk_mem_share_start(to_cumk_mem(h->obj));
		if (ret)
			goto err_put;
	}
	cumk_remote_maybe_late();
	/*
	 * The id is reserved, not stored: a node lost or this node cut off
	 * meanwhile cannot find the hold and free it under the description.
	 */
	ret = -ENOSPC;
	xa_lock(&cumk_remote_holds);
	if (cumk_remote_node_holds[caller] < READ_ONCE(max_node_holds)) {
		cumk_remote_node_holds[caller]++;
		ret = __xa_alloc_cyclic(&cumk_remote_holds, &id, NULL,
					xa_limit_31b, &cumk_remote_next_hold,
					GFP_KERNEL);
		if (ret < 0)
			cumk_remote_node_holds[caller]--;
	}
	xa_unlock(&cumk_remote_holds);
	if (ret < 0)
		goto err_put;
	h->id = id;
	ret = cumk_remote_describe(h->obj, caller, id, answer, answer_len);
	if (ret) {
		xa_lock(&cumk_remote_holds);
		cumk_remote_hold_erase(h, id);
		xa_unlock(&cumk_remote_holds);
		goto err_put;
	}
	atomic_inc(&cumk_live_holds);
	/* Storing over a reservation allocates nothing. */
	WARN_ON(xa_store(&cumk_remote_holds, id, h, GFP_KERNEL));
	/*
	 * Lost meanwhile, after its holds were let go of: this one goes the
	 * same way, unless a loss already took it.
	 */
	if (cumk_lease_lost(caller)) {
		xa_lock(&cumk_remote_holds);
		if (xa_load(&cumk_remote_holds, id) == h)
			cumk_remote_hold_erase(h, id);
		else
			h = NULL;
		xa_unlock(&cumk_remote_holds);
	} else {
		h = NULL;
	}
	if (h) {
		cumk_lease_wait_init(&h->wait, cumk_remote_hold_release);
		cumk_lease_wait_expire(&h->wait, caller, 0);
	}
	return 0;

err_put:
	cumk_object_put(h->obj);
err_free:
	kfree(h);
	return ret;
}

/* The hold id an MC call or EXPORT_PUT names, or 0 (none) when too short. */
static u32 cumk_remote_hold_id(const void *args, size_t len)
{
	const struct cumk_remote_hold_args *h = args;

	return len < sizeof(*h) ? 0 : le32_to_cpu(h->hold);
}

/* CUMK_REMOTE_EXPORT_PUT: only the node a hold is for lets go of it. */
static int cumk_remote_export_put(u32 caller, const void *args, size_t len)
{
	u32 id = cumk_remote_hold_id(args, len);
	struct cumk_remote_hold *h;

	if (len != sizeof(struct cumk_remote_hold_args))
		return -EINVAL;
	xa_lock(&cumk_remote_holds);
	h = xa_load(&cumk_remote_holds, id);
	if (h && h->node == caller)
		cumk_remote_hold_erase(h, id);
	else
		h = NULL;
	xa_unlock(&cumk_remote_holds);
	if (!h)
		return -ENOENT;
	cumk_remote_hold_free(h);
	return 0;
}

/* The multicast object node @caller holds as its hold @id, referenced. */
static struct cumk_mc *cumk_remote_held_mc(u32 caller, u32 id)
{
	struct cumk_remote_hold *h;
	struct cumk_mc *mc = NULL;

	xa_lock(&cumk_remote_holds);
	h = xa_load(&cumk_remote_holds, id);
	if (h && h->node == caller && h->obj->type == CUMK_OBJ_MC) {
		kref_get(&h->obj->ref);
		mc = to_cumk_mc(h->obj);
	}
	xa_unlock(&cumk_remote_holds);
	return mc;
}

/* A call on a team held here, from node @caller, which holds a replica. */
static int cumk_remote_mc_call(u32 caller, u32 op, const void *args,
			       size_t len, void **answer, size_t *answer_len)
{
	struct cumk_mc *mc;
	int ret;

	mc = cumk_remote_held_mc(caller, cumk_remote_hold_id(args, len));
	if (!mc)
		return -ENOENT;
	if (op != CUMK_REMOTE_MC_UNBIND)
		cumk_remote_maybe_late();
	ret = cumk_remote_mc_run(mc, caller, op, args, len, answer,
				 answer_len);
	cumk_object_put(&mc->obj);
	return ret;
}

/*
 * Run call @op of node @caller here (IMEX_CALL). What a node posts (it
 * waits for no answer, only for the call to have arrived) answers 0 once
 * it was taken, whatever came of it here: any other answer means to the
 * poster that the message could not be taken (cumk_remote_post()).
 */
int cumk_remote_run(u32 caller, u32 op, const void *args, size_t args_len,
		    void **answer, size_t *answer_len)
{
	struct cumk_mc *mc;

	*answer = NULL;
	*answer_len = 0;
	if (caller == cumk_node_index() || caller >= CUMK_MAX_NODES)
		return -EINVAL;
	/* A node lost is lost: it hears so, and loses this one too. */
	if (cumk_lease_lost(caller))
		return op == CUMK_REMOTE_BYE ? 0 : -ESTALE;
	switch (op) {
	case CUMK_REMOTE_EXPORT_GET:
		return cumk_remote_export_get(caller, args, args_len, answer,
					      answer_len);
	case CUMK_REMOTE_EXPORT_PUT:
		cumk_remote_export_put(caller, args, args_len);
		return 0;
	case CUMK_REMOTE_MC_JOIN:
	case CUMK_REMOTE_MC_BIND:
	case CUMK_REMOTE_MC_ACTIVATE:
		return cumk_remote_mc_call(caller, op, args, args_len, answer,
					   answer_len);
	case CUMK_REMOTE_MC_UNBIND:
		mc = cumk_remote_held_mc(caller, cumk_remote_hold_id(args,
								     args_len));
		cumk_remote_mc_unbind_post(mc, caller, args, args_len);
		if (mc)
			cumk_object_put(&mc->obj);
		return 0;
	case CUMK_REMOTE_MC_UPDATE:
		cumk_remote_mc_update(caller, args, args_len);
		return 0;
	case CUMK_REMOTE_MC_RELEASED:
		cumk_remote_mc_released(caller, args, args_len);
		return 0;
	case CUMK_REMOTE_LEASE_RENEW:
		return cumk_lease_grant(caller);
	case CUMK_REMOTE_BYE:
		cumk_lease_fail(caller);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

/*
 * The answer to call @op of node @caller, @answer, could not be sent: a
 * hold EXPORT_GET took for it is let go of, as the caller cannot know its
 * id; it would keep the object until the caller is lost. (What the team
 * calls changed stays: the caller hears of its teams' state again.)
 */
void cumk_remote_run_unsent(u32 caller, u32 op, const void *answer,
			    size_t answer_len)
{
	const struct cumk_remote_export *ex = answer;
	struct cumk_remote_hold_args put;

	if (op != CUMK_REMOTE_EXPORT_GET || answer_len < sizeof(*ex))
		return;
	put.hold = ex->hold;
	cumk_remote_export_put(caller, &put, sizeof(put));
}

/* Tell node @node to let go of its hold @hold for this node. */
static void cumk_remote_put_hold(u32 node, u32 hold)
{
	struct cumk_remote_hold_args put = { .hold = cpu_to_le32(hold) };

	cumk_lease_post(node, CUMK_REMOTE_EXPORT_PUT, &put, sizeof(put), NULL,
			NULL);
}

/*
 * The answer to an EXPORT_GET whose caller gave up came: the hold it names
 * is let go of. (A replica that gave up on its first copy lets go of its
 * hold itself; a bind's caller posted its unbind.)
 */
static void cumk_remote_late_export(u32 node, int result, const void *answer,
				    size_t len, void *ctx)
{
	const struct cumk_remote_export *ex = answer;

	if (!result && len >= sizeof(*ex))
		cumk_remote_put_hold(node, le32_to_cpu(ex->hold));
}

/*
 * Let go of every hold, or those of node @node only, which is lost: each
 * goes once its node's lease from this one ran out, plus the margin
 * (cumc_lease.c), unless @now (at unload).
 */
static void cumk_remote_drop_holds(bool all, u32 node, bool now)
{
	struct cumk_remote_hold *h, *next;
	unsigned long id;
	LIST_HEAD(list);

	xa_lock(&cumk_remote_holds);
	/* Read and taken under the lock: no EXPORT_PUT frees one meanwhile. */
	xa_for_each(&cumk_remote_holds, id, h) {
		if (!all && h->node != node)
			continue;
		cumk_remote_hold_erase(h, id);
		list_add_tail(&h->link, &list);
	}
	xa_unlock(&cumk_remote_holds);
	list_for_each_entry_safe(h, next, &list, link) {
		list_del(&h->link);
		if (now) {
			cumk_remote_hold_free(h);
			continue;
		}
		cumk_lease_wait_init(&h->wait, cumk_remote_hold_release);
		cumk_lease_wait_expire(&h->wait, h->node, 0);
	}
}

/*
 * Lose node @node: calls to it fail, what it imported from here is let go
 * of once its lease ran out, its GPUs are lost to this node, the replicas
 * of its teams fail. @bye: this kernel decided it, not the daemon; the
 * node is told, so that it loses this one too.
 */
static void cumk_remote_lose(u32 node, bool bye)
{
	if (node >= CUMK_MAX_NODES || node == cumk_node_index())
		return;
	mutex_lock(&cumk_remote_loss_lock);
	if (!cumk_lease_mark_lost(node)) {
		mutex_unlock(&cumk_remote_loss_lock);
		/* Lost already: the daemon's word is heard all the same. */
		if (!bye)
			cumk_notify_node_lost(node);
		return;
	}
	if (bye)
		pr_info("cumc: node %u lost\n", node);
	cumk_imex_fail_node(node);
	cumk_remote_drop_holds(false, node, false);
	cumk_loss_node(node);
	cumk_remote_mc_origin_lost(false, node);
	mutex_unlock(&cumk_remote_loss_lock);
	if (bye)
		cumk_imex_post(node, CUMK_REMOTE_BYE, NULL, 0, true, NULL, NULL);
}

/* Node @node is lost: its daemon says so (IMEX_NODE_LOST). */
void cumk_remote_node_lost(u32 node)
{
	cumk_remote_lose(node, false);
}

/*
 * Node @node, lost, is back: its daemon connected again, after both nodes
 * lost each other (a connection that ended ends on both sides). Messages
 * go to it again and it may have leases again; what was mapped under the
 * old ones is gone on both sides, and what waits for them to run out
 * still waits.
 */
static void cumk_remote_node_back(u32 node)
{
	mutex_lock(&cumk_remote_loss_lock);
	cumk_lease_node_back(node);
	cumk_imex_node_back(node);
	/* Its GPUs lost with it serve new imports and teams again. */
	cumk_loss_node_back(node);
	mutex_unlock(&cumk_remote_loss_lock);
}

/*
 * Node @node joins (IMEX_NODE_JOIN): its daemon connected again and proved
 * it holds the domain's secret. Nothing when it was not lost.
 */
void cumk_remote_node_join(u32 node)
{
	if (node >= CUMK_MAX_NODES || node == cumk_node_index())
		return;
	cumk_remote_node_back(node);
}

/*
 * Node @node failed this one, or this one's lease from it ran out, or it
 * said it lost this one (cumk_lease_fail(), from a worker): this kernel
 * decided it, the node is told.
 */
static void cumk_remote_fail(u32 node)
{
	cumk_remote_lose(node, true);
}

/* Its mappings are gone: the exporter may let go, this node confirms it. */
static void cumk_remote_mem_destroy(struct cumk_object *obj)
{
	struct cumk_mem *mem = to_cumk_mem(obj);

	cumk_remote_put_hold(mem->remote_node, mem->remote_hold);
	cumk_mem_free(mem);
}

static const struct cumk_object_ops cumk_remote_mem_ops = {
	.destroy = cumk_remote_mem_destroy,
};

/* An allocation of this node over what node @node's answer @ex describes. */
static struct cumk_mem *cumk_remote_mem(struct cumk_usage *usage, u32 node,
					const struct cumk_remote_mem_export *ex,
					size_t len)
{
	struct cumk_extent *extents;
	struct cumk_device *dev;
	struct cumk_mem *mem;
	u64 length;
	u32 n;

	if (len < sizeof(*ex))
		return ERR_PTR(-EPROTO);
	n = le32_to_cpu(ex->nr_extents);
	length = le64_to_cpu(ex->length);
	if (n > CUMK_REMOTE_MEM_MAX_EXTENTS || len != struct_size(ex, extents, n) ||
	    !length || !IS_ALIGNED(length, cumk_device_granularity()))
		return ERR_PTR(-EPROTO);
	/* A GPU this node cannot reach, or no longer: as good as lost. */
	dev = cumk_device_find_remote(ex->dev_uuid);
	if (!dev || dev->node != node)
		return ERR_PTR(-EHOSTDOWN);
	extents = cumk_mem_extents_import(ex->extents, n, dev, length);
	if (IS_ERR(extents))
		return ERR_CAST(extents);
	mem = cumk_mem_create_remote(usage, dev, length,
				     le32_to_cpu(ex->head.handle_types),
				     extents, n, &cumk_remote_mem_ops, node);
	if (!IS_ERR(mem)) {
		mem->remote_node = node;
		mem->remote_hold = le32_to_cpu(ex->head.hold);
	}
	return mem;
}

/* The object node @node's answer @ex describes, made on this node. */
static struct cumk_object *cumk_remote_object(struct cumk_usage *usage,
					      u32 node, const u8 *handle,
					      const struct cumk_remote_export *ex,
					      size_t len)
{
	struct cumk_mem *mem;
	struct cumk_mc *mc;

	if (len < sizeof(*ex) ||
	    le32_to_cpu(ex->version) != CUMK_REMOTE_VERSION)
		return ERR_PTR(-EPROTO);
	switch (le32_to_cpu(ex->type)) {
	case CUMK_OBJ_MEM:
		mem = cumk_remote_mem(usage, node, (const void *)ex, len);
		return IS_ERR(mem) ? ERR_CAST(mem) : &mem->obj;
	case CUMK_OBJ_MC:
		mc = cumk_remote_mc_replica(usage, node, handle, ex, len);
		return IS_ERR(mc) ? ERR_CAST(mc) : &mc->obj;
	default:
		return ERR_PTR(-EPROTO);
	}
}

/* What an import from node @node tells its caller of an error. */
static int cumk_remote_import_error(u32 node, int err)
{
	/* Lost there: this node loses it too. */
	if (err == -ESTALE)
		cumk_lease_fail(node);
	/* Lost there, or refused a lease: the node is as good as lost. */
	if (err == -ESTALE || err == -EAGAIN)
		return -EHOSTDOWN;
	return err;
}

/*
 * EXPORT_GET of @get from node @node, asked again while the allocation is
 * being zeroed there, until the fabric manager's timeout.
 */
static int cumk_remote_export_call(u32 node,
				   const struct cumk_remote_get_args *get,
				   struct cumk_remote_export **ex, size_t *len)
{
	unsigned long deadline = jiffies +
		msecs_to_jiffies(cumk_team_fm_timeout_ms());
	long left, pause = msecs_to_jiffies(10) ?: 1;
	int ret;

	for (;;) {
		left = (long)(deadline - jiffies);
		if (left <= 0)
			return -ETIMEDOUT;
		ret = cumk_imex_call(node, CUMK_REMOTE_EXPORT_GET, get,
				     sizeof(*get), left, (void **)ex, len, NULL,
				     cumk_remote_late_export);
		if (ret != -EINPROGRESS)
			return ret;
		schedule_timeout_killable(min(pause, left));
		if (fatal_signal_pending(current))
			return -EINTR;
		pause = min_t(long, 2 * pause, msecs_to_jiffies(200));
	}
}

/*
 * The object of a fabric handle node @node exported, with a reference, for
 * an importer charged to @usage. A multicast object this node has a
 * replica of already is that replica, as a local import is the object
 * itself.
 */
struct cumk_object *cumk_remote_import(struct cumk_usage *usage,
				       const u8 *fabric_handle, u32 node)
{
	struct cumk_remote_get_args get;
	struct cumk_remote_export *ex;
	struct cumk_object *obj;
	struct cumk_mc *mc;
	u32 losses;
	size_t len;
	int ret;

	mc = cumk_remote_mc_find(node, fabric_handle);
	if (mc)
		return &mc->obj;
	losses = cumk_node_loss_count(node);
	/* What it answers is mapped under its lease: have one first. */
	ret = cumk_lease_ensure(node);
	if (ret)
		return ERR_PTR(cumk_remote_import_error(node, ret));
	memcpy(get.handle, fabric_handle, sizeof(get.handle));
	ret = cumk_remote_export_call(node, &get, &ex, &len);
	if (ret)
		return ERR_PTR(cumk_remote_import_error(node, ret));
	obj = cumk_remote_object(usage, node, fabric_handle, ex, len);
	/*
	 * The object lets go of the hold; until there is one, this does (a
	 * replica's making does it itself).
	 */
	if (IS_ERR(obj) && len >= sizeof(*ex) &&
	    le32_to_cpu(ex->type) != CUMK_OBJ_MC)
		cumk_remote_put_hold(node, le32_to_cpu(ex->hold));
	kfree(ex);
	if (IS_ERR(obj))
		return obj;
	/*
	 * The node was lost since it answered, and may be back: what it
	 * described, it let go of. Made after the loss marked its GPUs, the
	 * object escaped the loss's sweep; counted before, it is seen here.
	 */
	if (cumk_node_loss_count(node) != losses) {
		cumk_object_put(obj);
		return ERR_PTR(-EHOSTDOWN);
	}
	return obj;
}

/*
 * A netlink socket closed. If it was the IMEX daemon's, this node is cut
 * off from the others, which drop what they held for it and lose its GPUs
 * when they lose its daemon: it drops theirs and loses their GPUs too, so
 * that no process maps memory its node no longer keeps for it.
 */
static int cumk_remote_netlink_event(struct notifier_block *nb,
				     unsigned long event, void *ptr)
{
	struct netlink_notify *n = ptr;
	u32 node;

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC ||
	    !net_eq(n->net, &init_net) || !cumk_imex_detach(n->portid))
		return NOTIFY_DONE;
	mutex_lock(&cumk_remote_loss_lock);
	/*
	 * Every node this one had dealings with is lost: it holds memory of
	 * this one, or a lease from it, or this one of it. The others
	 * (none of which is owed anything) may still ask once a daemon is
	 * back.
	 */
	for (node = 0; node < CUMK_MAX_NODES; node++) {
		if (node == cumk_node_index() ||
		    (!cumk_lease_involved(node) &&
		     !READ_ONCE(cumk_remote_node_holds[node])))
			continue;
		cumk_lease_mark_lost(node);
		cumk_imex_fail_node(node);
	}
	cumk_remote_drop_holds(true, 0, false);
	cumk_loss_remote_all();
	cumk_remote_mc_origin_lost(true, 0);
	mutex_unlock(&cumk_remote_loss_lock);
	return NOTIFY_DONE;
}

static struct notifier_block cumk_remote_notifier = {
	.notifier_call = cumk_remote_netlink_event,
};

int cumk_remote_init(void)
{
	int ret;

	cumk_imex_init();
	cumk_lease_init(cumk_remote_fail);
	ret = cumk_mem_share_init();
	if (ret)
		return ret;
	ret = netlink_register_notifier(&cumk_remote_notifier);
	if (ret)
		cumk_mem_share_exit();
	return ret;
}

/*
 * At unload, after the family is gone and the calls failed: no node may
 * use this one's memory any more, and nothing is left waiting.
 */
void cumk_remote_exit(void)
{
	netlink_unregister_notifier(&cumk_remote_notifier);
	cumk_lease_exit();
	cumk_remote_drop_holds(true, 0, true);
	cumk_remote_mc_exit();
	/* What is released may post, which fails, which releases more. */
	while (cumk_imex_drain() | cumk_lease_drain())
		;
	cumk_mem_share_exit();
	WARN_ON(!xa_empty(&cumk_remote_holds));
	xa_destroy(&cumk_remote_holds);
}
