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

#define CUMC_REMOTE_VERSION 1

/* CUMC_REMOTE_EXPORT_GET's arguments: the fabric handle. */
struct cumk_remote_get_args {
	u8 handle[CUMC_FABRIC_HANDLE_SIZE];
};

struct cumk_remote_extent {
	__le64 mem_offset;
	__le64 dev_offset;
	__le64 length;
};

/* CUMC_REMOTE_EXPORT_GET's answer, little-endian. */
struct cumk_remote_export {
	__le32 version;
	__le32 hold;
	__le32 handle_types;
	__le32 nr_extents;
	__le64 length;
	u8 dev_uuid[16];
	struct cumk_remote_extent extents[];
};

/* CUMC_REMOTE_EXPORT_PUT's arguments. */
struct cumk_remote_put_args {
	__le32 hold;
};

#define CUMC_REMOTE_MAX_EXTENTS						\
	((CUMC_IMEX_PAYLOAD_MAX - sizeof(struct cumk_remote_export)) /	\
	 sizeof(struct cumk_remote_extent))

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

/* Memory this node can share with others: a local GPU's of the fabric. */
static int cumk_remote_shareable(struct cumk_object *obj)
{
	struct cumk_mem *mem;

	if (obj->type != CUMC_OBJ_MEM)
		return -EOPNOTSUPP;
	mem = to_cumk_mem(obj);
	if (!mem->dev->fabric || !mem->dev->ops->mem_share)
		return -EOPNOTSUPP;
	return cumk_mem_check(mem) ?: mem->dev->ops->mem_share(mem);
}

/* @mem's description for another node, or a negative errno. */
static int cumk_remote_describe(struct cumk_mem *mem, u32 hold,
				void **answer, size_t *answer_len)
{
	struct cumk_remote_export *ex;
	unsigned int i, n;
	size_t len;
	int ret;

	mutex_lock(&mem->dev->mems_lock);
	ret = mem->backed ? 0 : -ENOLINK;
	n = mem->nr_extents;
	if (!ret && n > CUMC_REMOTE_MAX_EXTENTS)
		ret = -E2BIG;
	len = struct_size(ex, extents, n);
	ex = ret ? NULL : kzalloc(len, GFP_KERNEL);
	if (!ret && !ex)
		ret = -ENOMEM;
	if (!ret) {
		ex->version = cpu_to_le32(CUMC_REMOTE_VERSION);
		ex->hold = cpu_to_le32(hold);
		ex->handle_types = cpu_to_le32(mem->obj.handle_types);
		ex->nr_extents = cpu_to_le32(n);
		ex->length = cpu_to_le64(mem->length);
		memcpy(ex->dev_uuid, mem->dev->uuid, sizeof(ex->dev_uuid));
		for (i = 0; i < n; i++) {
			ex->extents[i].mem_offset =
				cpu_to_le64(mem->extents[i].mem_offset);
			ex->extents[i].dev_offset =
				cpu_to_le64(mem->extents[i].dev_offset);
			ex->extents[i].length = cpu_to_le64(mem->extents[i].length);
		}
	}
	mutex_unlock(&mem->dev->mems_lock);
	*answer = ex;
	*answer_len = len;
	return ret;
}

static void cumk_remote_hold_free(struct cumk_remote_hold *h)
{
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
	ret = cumk_remote_shareable(h->obj);
	if (ret)
		goto err_put;
	ret = xa_alloc_cyclic(&cumk_remote_holds, &id, h, xa_limit_31b,
			      &cumk_remote_next_hold, GFP_KERNEL);
	if (ret < 0)
		goto err_put;
	ret = cumk_remote_describe(to_cumk_mem(h->obj), id, answer,
				   answer_len);
	if (ret) {
		xa_erase(&cumk_remote_holds, id);
		goto err_put;
	}
	return 0;

err_put:
	cumk_object_put(h->obj);
err_free:
	kfree(h);
	return ret;
}

/* CUMC_REMOTE_EXPORT_PUT: only the node a hold is for lets go of it. */
static int cumk_remote_export_put(u32 caller, const void *args, size_t len)
{
	const struct cumk_remote_put_args *put = args;
	struct cumk_remote_hold *h;
	u32 id;

	if (len != sizeof(*put))
		return -EINVAL;
	id = le32_to_cpu(put->hold);
	xa_lock(&cumk_remote_holds);
	h = xa_load(&cumk_remote_holds, id);
	if (h && h->node == caller)
		__xa_erase(&cumk_remote_holds, id);
	else
		h = NULL;
	xa_unlock(&cumk_remote_holds);
	if (!h)
		return -ENOENT;
	cumk_remote_hold_free(h);
	return 0;
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
	default:
		return -EOPNOTSUPP;
	}
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
			cumk_remote_hold_free(h);
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
}

static void cumk_remote_mem_destroy(struct cumk_object *obj)
{
	struct cumk_mem *mem = to_cumk_mem(obj);
	struct cumk_remote_put_args put = {
		.hold = cpu_to_le32(mem->remote_hold),
	};

	cumk_imex_cast(mem->remote_node, CUMC_REMOTE_EXPORT_PUT, &put,
		       sizeof(put));
	cumk_mem_free(mem);
}

static const struct cumk_object_ops cumk_remote_mem_ops = {
	.destroy = cumk_remote_mem_destroy,
};

/*
 * The extents of an answer, checked against the GPU @dev they are on:
 * page-aligned runs inside its memory that cover @length bytes in order.
 */
static struct cumk_extent *
cumk_remote_extents(const struct cumk_remote_export *ex, unsigned int n,
		    struct cumk_device *dev, u64 length)
{
	struct cumk_extent *extents;
	u64 placed = 0;
	unsigned int i;

	extents = kvcalloc(n, sizeof(*extents), CUMC_GFP);
	if (!extents)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < n; i++) {
		struct cumk_extent *e = &extents[i];

		e->mem_offset = le64_to_cpu(ex->extents[i].mem_offset);
		e->dev_offset = le64_to_cpu(ex->extents[i].dev_offset);
		e->length = le64_to_cpu(ex->extents[i].length);
		if (e->mem_offset != placed || !e->length ||
		    !PAGE_ALIGNED(e->dev_offset) || !PAGE_ALIGNED(e->length) ||
		    e->length > length - placed ||
		    e->dev_offset > dev->mem_total ||
		    e->length > dev->mem_total - e->dev_offset)
			break;
		placed += e->length;
	}
	if (i < n || placed != length) {
		kvfree(extents);
		return ERR_PTR(-EPROTO);
	}
	return extents;
}

/* An allocation of this node over what node @node's answer @ex describes. */
static struct cumk_mem *cumk_remote_mem(struct cumk_ucmd *ucmd, u32 node,
					const struct cumk_remote_export *ex,
					size_t len)
{
	struct cumk_extent *extents;
	struct cumk_device *dev;
	struct cumk_mem *mem;
	u64 length;
	u32 n;

	if (len < sizeof(*ex) || le32_to_cpu(ex->version) != CUMC_REMOTE_VERSION)
		return ERR_PTR(-EPROTO);
	n = le32_to_cpu(ex->nr_extents);
	length = le64_to_cpu(ex->length);
	if (!n || n > CUMC_REMOTE_MAX_EXTENTS || len != struct_size(ex, extents, n) ||
	    !length || !IS_ALIGNED(length, cumk_device_granularity()))
		return ERR_PTR(-EPROTO);
	/* A GPU this node cannot reach, or no longer: as good as lost. */
	dev = cumk_device_find_remote(ex->dev_uuid);
	if (!dev || dev->node != node)
		return ERR_PTR(-EHOSTDOWN);
	extents = cumk_remote_extents(ex, n, dev, length);
	if (IS_ERR(extents))
		return ERR_CAST(extents);
	mem = cumk_mem_create_remote(ucmd->client->usage, dev, length,
				     le32_to_cpu(ex->handle_types), extents, n,
				     &cumk_remote_mem_ops);
	if (!IS_ERR(mem)) {
		mem->remote_node = node;
		mem->remote_hold = le32_to_cpu(ex->hold);
	}
	return mem;
}

/* CUMC_IMPORT_FABRIC of a handle node @node exported. */
int cumk_remote_import(struct cumk_ucmd *ucmd, const u8 *fabric_handle,
		       u32 node)
{
	struct cumc_import_fabric *cmd = ucmd->cmd;
	struct cumk_remote_get_args get;
	struct cumk_remote_put_args put;
	struct cumk_remote_export *ex;
	struct cumk_mem *mem;
	size_t len;
	int ret;

	memcpy(get.handle, fabric_handle, sizeof(get.handle));
	ret = cumk_imex_call(node, CUMC_REMOTE_EXPORT_GET, &get, sizeof(get),
			     (void **)&ex, &len);
	if (ret)
		return ret;
	mem = cumk_remote_mem(ucmd, node, ex, len);
	if (IS_ERR(mem)) {
		ret = PTR_ERR(mem);
		goto err_put_hold;
	}
	kfree(ex);
	ret = cumk_ucmd_new_handle(ucmd, &mem->obj, &cmd->out_handle);
	if (ret)
		cumk_object_put(&mem->obj);
	return ret;

err_put_hold:
	/* An answer too short to name its hold leaves it to the node's loss. */
	if (len >= sizeof(*ex)) {
		put.hold = ex->hold;
		cumk_imex_cast(node, CUMC_REMOTE_EXPORT_PUT, &put, sizeof(put));
	}
	kfree(ex);
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
