// SPDX-License-Identifier: GPL-2.0
/*
 * Memory shared across the nodes of a multi-node fabric.
 *
 * Every node's VM maps every GPU's BAR, as every node of an NVLink domain
 * reaches every GPU; what a node may map of another's GPU is what that
 * node shared. A fabric handle exported on node A and imported on node B
 * becomes, on B, a call to A's kernel through the two IMEX daemons
 * (cumc_imex.c): A looks the handle up as a local import would, zeroes
 * what was never touched, takes a hold on the allocation on B's behalf and
 * answers where its bytes are on the GPU. B makes an allocation object of
 * its own over those bytes of its mapping of the same GPU; when B lets go
 * of it, it tells A to drop the hold. When B is lost, A drops B's holds;
 * when A is lost, B loses A's GPUs (cumc_loss.c): their mappings get
 * SIGBUS. Documentation/multinode.md tells the whole story.
 */
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>

#include "cumc_internal.h"

/* CUMC_REMOTE_EXPORT_GET's arguments: the fabric handle. */
struct cumk_remote_get_args {
	u8 handle[CUMC_FABRIC_HANDLE_SIZE];
};

struct cumk_remote_mem_export {
	struct cumk_remote_export head;
	__le64 length;
	u8 dev_uuid[16];
	__le32 nr_extents;
	__le32 pad;
	struct cumk_remote_extent extents[];
};

#define CUMC_REMOTE_MEM_MAX_EXTENTS					\
	CUMC_REMOTE_MAX_EXTENTS(sizeof(struct cumk_remote_mem_export))

/**
 * struct cumk_remote_hold - an allocation of this node another one imported
 * @node: that node
 * @obj: the allocation; the hold keeps a reference
 */
struct cumk_remote_hold {
	u32 node;
	struct cumk_object *obj;
};

/* Hold id -> struct cumk_remote_hold; its xa_lock is a leaf. */
static DEFINE_XARRAY_ALLOC1(cumk_remote_holds);
static u32 cumk_remote_next_hold; /* under cumk_remote_holds' lock */

/* @mem's description for another node, or a negative errno. */
static int cumk_remote_mem_describe(struct cumk_mem *mem, u32 hold,
				    void **answer, size_t *answer_len)
{
	struct cumk_remote_mem_export *ex;
	size_t len;
	int n;

	len = struct_size(ex, extents, CUMC_REMOTE_MEM_MAX_EXTENTS);
	ex = kzalloc(len, GFP_KERNEL);
	if (!ex)
		return -ENOMEM;
	n = cumk_mem_share_range(mem, 0, mem->length, ex->extents,
				 CUMC_REMOTE_MEM_MAX_EXTENTS);
	if (n < 0) {
		kfree(ex);
		return n;
	}
	ex->head.version = cpu_to_le32(CUMC_REMOTE_VERSION);
	ex->head.hold = cpu_to_le32(hold);
	ex->head.type = cpu_to_le32(CUMC_OBJ_MEM);
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
	if (obj->type == CUMC_OBJ_MC)
		return cumk_remote_mc_export(to_cumk_mc(obj), node, hold,
					     answer, answer_len);
	return cumk_remote_mem_describe(to_cumk_mem(obj), hold, answer,
					answer_len);
}

/* @h, out of the table, goes: a team held here stops telling its node. */
static void cumk_remote_hold_free(struct cumk_remote_hold *h, u32 id)
{
	if (h->obj->type == CUMC_OBJ_MC)
		cumk_remote_mc_unexport(to_cumk_mc(h->obj), id);
	cumk_object_put(h->obj);
	kfree(h);
}

/* CUMC_REMOTE_EXPORT_GET for node @caller. */
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
	/*
	 * The id is reserved, not stored: a node lost or this node cut off
	 * meanwhile cannot find the hold and free it under the description.
	 */
	ret = xa_alloc_cyclic(&cumk_remote_holds, &id, NULL, xa_limit_31b,
			      &cumk_remote_next_hold, GFP_KERNEL);
	if (ret < 0)
		goto err_put;
	ret = cumk_remote_describe(h->obj, caller, id, answer, answer_len);
	if (ret) {
		xa_erase(&cumk_remote_holds, id);
		goto err_put;
	}
	/* Storing over a reservation allocates nothing. */
	WARN_ON(xa_store(&cumk_remote_holds, id, h, GFP_KERNEL));
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

/* CUMC_REMOTE_EXPORT_PUT: only the node a hold is for lets go of it. */
static int cumk_remote_export_put(u32 caller, const void *args, size_t len)
{
	u32 id = cumk_remote_hold_id(args, len);
	struct cumk_remote_hold *h;

	if (len != sizeof(struct cumk_remote_hold_args))
		return -EINVAL;
	xa_lock(&cumk_remote_holds);
	h = xa_load(&cumk_remote_holds, id);
	if (h && h->node == caller)
		__xa_erase(&cumk_remote_holds, id);
	else
		h = NULL;
	xa_unlock(&cumk_remote_holds);
	if (!h)
		return -ENOENT;
	cumk_remote_hold_free(h, id);
	return 0;
}

/* The multicast object node @caller holds as its hold @id, referenced. */
static struct cumk_mc *cumk_remote_held_mc(u32 caller, u32 id)
{
	struct cumk_remote_hold *h;
	struct cumk_mc *mc = NULL;

	xa_lock(&cumk_remote_holds);
	h = xa_load(&cumk_remote_holds, id);
	if (h && h->node == caller && h->obj->type == CUMC_OBJ_MC) {
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
	ret = cumk_remote_mc_run(mc, caller, op, args, len, answer,
				 answer_len);
	cumk_object_put(&mc->obj);
	return ret;
}

/* Run call @op of node @caller here (IMEX_CALL). */
int cumk_remote_run(u32 caller, u32 op, const void *args, size_t args_len,
		    void **answer, size_t *answer_len)
{
	*answer = NULL;
	*answer_len = 0;
	if (caller == cumk_node_index())
		return -EINVAL;
	switch (op) {
	case CUMC_REMOTE_EXPORT_GET:
		return cumk_remote_export_get(caller, args, args_len, answer,
					      answer_len);
	case CUMC_REMOTE_EXPORT_PUT:
		return cumk_remote_export_put(caller, args, args_len);
	case CUMC_REMOTE_MC_JOIN:
	case CUMC_REMOTE_MC_BIND:
	case CUMC_REMOTE_MC_UNBIND:
	case CUMC_REMOTE_MC_ACTIVATE:
		return cumk_remote_mc_call(caller, op, args, args_len, answer,
					   answer_len);
	case CUMC_REMOTE_MC_UPDATE:
		return cumk_remote_mc_update(caller, args, args_len);
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

	if (op != CUMC_REMOTE_EXPORT_GET || answer_len < sizeof(*ex))
		return;
	put.hold = ex->hold;
	cumk_remote_export_put(caller, &put, sizeof(put));
}

/* Let go of every hold, or those of node @node only. */
static void cumk_remote_drop_holds(bool all, u32 node)
{
	struct cumk_remote_hold *h;
	unsigned long id;

	xa_for_each(&cumk_remote_holds, id, h) {
		if (!all && h->node != node)
			continue;
		if (xa_cmpxchg(&cumk_remote_holds, id, h, NULL, 0) == h)
			cumk_remote_hold_free(h, id);
	}
}

/*
 * Node @node is lost: calls to it fail, what it imported from here is
 * let go of, and its GPUs are lost to this node.
 */
void cumk_remote_node_lost(u32 node)
{
	cumk_imex_fail_node(node);
	cumk_remote_drop_holds(false, node);
	cumk_loss_node(node);
	cumk_remote_mc_origin_lost(false, node);
}

/*
 * Node @node is back: its daemon connected again and proved it holds the
 * domain's secret. Its GPUs serve new imports and teams.
 */
void cumk_remote_node_join(u32 node)
{
	cumk_loss_node_back(node);
}

/* Tell node @node to let go of its hold @hold for this node. */
static void cumk_remote_put_hold(u32 node, u32 hold)
{
	struct cumk_remote_hold_args put = { .hold = cpu_to_le32(hold) };

	cumk_imex_cast(node, CUMC_REMOTE_EXPORT_PUT, &put, sizeof(put));
}

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
	if (n > CUMC_REMOTE_MEM_MAX_EXTENTS || len != struct_size(ex, extents, n) ||
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
				     extents, n, &cumk_remote_mem_ops);
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
	    le32_to_cpu(ex->version) != CUMC_REMOTE_VERSION)
		return ERR_PTR(-EPROTO);
	switch (le32_to_cpu(ex->type)) {
	case CUMC_OBJ_MEM:
		mem = cumk_remote_mem(usage, node, (const void *)ex, len);
		return IS_ERR(mem) ? ERR_CAST(mem) : &mem->obj;
	case CUMC_OBJ_MC:
		mc = cumk_remote_mc_replica(usage, node, handle, ex, len);
		return IS_ERR(mc) ? ERR_CAST(mc) : &mc->obj;
	default:
		return ERR_PTR(-EPROTO);
	}
}

/*
 * CUMC_IMPORT_FABRIC of a handle node @node exported. A multicast object
 * this node has a replica of already is that replica, as a local import
 * is the object itself.
 */
int cumk_remote_import(struct cumk_ucmd *ucmd, const u8 *fabric_handle,
		       u32 node)
{
	struct cumc_import_fabric *cmd = ucmd->cmd;
	struct cumk_remote_get_args get;
	struct cumk_remote_export *ex;
	struct cumk_object *obj;
	struct cumk_mc *mc;
	u32 losses;
	size_t len;
	int ret;

	mc = cumk_remote_mc_find(node, fabric_handle);
	if (mc) {
		obj = &mc->obj;
		goto out_handle;
	}
	losses = cumk_node_loss_count(node);
	memcpy(get.handle, fabric_handle, sizeof(get.handle));
	ret = cumk_imex_call(node, CUMC_REMOTE_EXPORT_GET, &get, sizeof(get),
			     (void **)&ex, &len);
	if (ret)
		return ret;
	obj = cumk_remote_object(ucmd->client->usage, node, fabric_handle, ex,
				 len);
	/*
	 * The object lets go of the hold; until there is one, this does (a
	 * replica's making does it itself).
	 */
	if (IS_ERR(obj) && len >= sizeof(*ex) &&
	    le32_to_cpu(ex->type) != CUMC_OBJ_MC)
		cumk_remote_put_hold(node, le32_to_cpu(ex->hold));
	kfree(ex);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	/*
	 * The node was lost since it answered, and may be back: what it
	 * described, it let go of. Made after the loss marked its GPUs, the
	 * object escaped the loss's sweep; counted before, it is seen here.
	 */
	if (cumk_node_loss_count(node) != losses) {
		cumk_object_put(obj);
		return -EHOSTDOWN;
	}
out_handle:
	ret = cumk_ucmd_new_handle(ucmd, obj, &cmd->out_handle);
	if (ret)
		cumk_object_put(obj);
	return ret;
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

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC ||
	    !net_eq(n->net, &init_net) || !cumk_imex_detach(n->portid))
		return NOTIFY_DONE;
	cumk_remote_drop_holds(true, 0);
	cumk_loss_remote_all();
	cumk_remote_mc_origin_lost(true, 0);
	return NOTIFY_DONE;
}

static struct notifier_block cumk_remote_notifier = {
	.notifier_call = cumk_remote_netlink_event,
};

int cumk_remote_init(void)
{
	return netlink_register_notifier(&cumk_remote_notifier);
}

/* At unload, after the family is gone: no node may use this one's memory. */
void cumk_remote_exit(void)
{
	netlink_unregister_notifier(&cumk_remote_notifier);
	cumk_remote_drop_holds(true, 0);
	xa_destroy(&cumk_remote_holds);
}
