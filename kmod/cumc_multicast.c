// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast objects (cuMulticastCreate): a team of devices (cumc_team.c)
 * and, for each member, the memory bound into it (the fabric page table,
 * cumc_fabric.c), both under the object's lock.
 *
 * Joins, binds and unbinds go through the object's kind (struct
 * cumk_mc_kind): an object of this node's alone is the local kind here,
 * straight to the team and the fabric page table; one shared across nodes
 * is cumc_remote_mc.c's origin or replica kind.
 *
 * An object is published to the control plane (its id resolves, its
 * creation is announced) only once its creation can no longer fail; until
 * then its id is reserved and dumps do not see it.
 */
#include <linux/overflow.h>
#include <linux/slab.h>

#include "cumc_internal.h"

/*
 * Live multicast objects by id, for the control plane. Its xa_lock is a
 * leaf; lookups take a reference with kref_get_unless_zero() under it, as
 * an object leaves only from its destroy. Nodes are charged to the memory
 * cgroup of the creator that made the array grow.
 */
static DEFINE_XARRAY_FLAGS(cumk_mc_ids, XA_FLAGS_ALLOC1 | XA_FLAGS_ACCOUNT);
static u32 cumk_mc_next_id; /* under cumk_mc_ids' lock, by xa_alloc_cyclic() */

static void cumk_mc_notify(struct cumk_mc *mc, u8 cmd)
{
	cumk_notify_mc(cmd, mc->id, mc->num_devices, mc->length);
}

/* Free @mc, whose last holder let go; for a replica, cumc_remote_mc.c. */
void cumk_mc_free(struct cumk_mc *mc)
{
	xa_erase(&cumk_mc_ids, mc->id);
	if (mc->published)
		cumk_mc_notify(mc, CUMC_CMD_MC_DELETE_NTF);
	cumk_stat_add(NULL, CUMK_STAT_OBJECTS, -1);
	cumk_team_release(mc);
	cumk_fabric_release(mc);
	cumk_vm_free_offsets(mc->pgoff);
	cumk_usage_uncharge(mc->obj.usage, CUMK_QUOTA_RANGES, 1);
	atomic_dec(&cumk_live_mcs);
	kfree(mc);
}

static void cumk_mc_destroy(struct cumk_object *obj)
{
	cumk_mc_free(to_cumk_mc(obj));
}

/* Its creation cannot fail any more: the control plane may see it. */
void cumk_mc_publish(struct cumk_object *obj)
{
	struct cumk_mc *mc = to_cumk_mc(obj);
	void *old;

	mc->published = true;
	/* Storing over a reservation allocates nothing. */
	old = xa_store(&cumk_mc_ids, mc->id, mc, CUMK_GFP);
	WARN_ON(old);
	cumk_mc_notify(mc, CUMC_CMD_MC_CREATE_NTF);
}

static const struct cumk_object_ops cumk_mc_ops = {
	.destroy = cumk_mc_destroy,
	.publish = cumk_mc_publish,
};

/*
 * The largest team: this node's devices, or with a fabric handle on a
 * multi-node fabric, as many as a team may have, the other nodes' too.
 */
static u32 cumk_mc_max_devices(u32 handle_types)
{
	if (handle_types & CUMC_HANDLE_FABRIC && cumk_node_in_fabric())
		return CUMC_MAX_DEVICES;
	return cumk_num_devices();
}

/* Whether any of this node's devices may join a team (DEV_SET). */
static bool cumk_mc_any_multicast(void)
{
	struct cumk_device *dev;
	u32 i;

	for (i = 0; (dev = cumk_device_find(i)); i++)
		if (cumk_cond_multicast(dev))
			return true;
	return false;
}

static int cumk_mc_check_create(struct cumk_client *client,
				struct cumc_mc_create *cmd)
{
	if (cmd->flags || cmd->handle_types & ~(CUMC_HANDLE_FD | CUMC_HANDLE_FABRIC))
		return -EOPNOTSUPP;
	if (!cumk_mc_any_multicast())
		return -EOPNOTSUPP;
	/* The member views of all devices share one range of file offsets. */
	if (!cmd->num_devices ||
	    cmd->num_devices > cumk_mc_max_devices(cmd->handle_types) ||
	    !cmd->length ||
	    cmd->length > CUMK_VM_MAX_OFFSETS / cmd->num_devices ||
	    !IS_ALIGNED(cmd->length, cumk_fabric_granularity()))
		return -EINVAL;
	if (cmd->handle_types & CUMC_HANDLE_FABRIC &&
	    READ_ONCE(client->channel) == CUMK_NO_CHANNEL)
		return -EPERM;
	return 0;
}

static int cumk_mc_local_join(struct cumk_mc *mc, struct cumk_device *dev)
{
	u32 slot;

	return cumk_team_join(mc, dev, &slot);
}

/* An object only this node's devices join: its team is all here. */
static const struct cumk_mc_kind cumk_mc_local = {
	.join = cumk_mc_local_join,
	.bind = cumk_fabric_bind,
	.unbind = cumk_fabric_unbind,
};

/*
 * The kind of an object made here and shareable by fabric handle, which
 * other nodes may hold replicas of: cumc_remote_mc.c's, set once at load
 * before any object exists (that file is above this one).
 */
static const struct cumk_mc_kind *cumk_mc_origin;

void cumk_mc_set_origin_kind(const struct cumk_mc_kind *kind)
{
	cumk_mc_origin = kind;
}

/*
 * A new multicast object of @num_devices devices and @length bytes each,
 * charged to @usage, its end left to @ops, of kind @kind; the caller
 * checked the sizes.
 */
struct cumk_mc *cumk_mc_alloc(struct cumk_usage *usage, u32 num_devices,
			      u64 length, u32 handle_types,
			      const struct cumk_object_ops *ops,
			      const struct cumk_mc_kind *kind)
{
	struct cumk_mc *mc;
	u32 i;
	int ret;

	mc = kzalloc(struct_size(mc, members, num_devices), CUMK_GFP);
	if (!mc)
		return ERR_PTR(-ENOMEM);
	mc->kind = kind;
	mc->num_devices = num_devices;
	mc->length = length;
	init_rwsem(&mc->lock);
	INIT_LIST_HEAD(&mc->holders);
	cumk_team_init(mc);
	for (i = 0; i < mc->num_devices; i++)
		cumk_range_map_init(&mc->members[i].binds);
	ret = cumk_object_charge(usage, &mc->obj);
	if (ret)
		goto err_free_mc;
	ret = cumk_usage_charge(usage, CUMK_QUOTA_RANGES, 1);
	if (ret)
		goto err_uncharge_object;
	ret = cumk_vm_alloc_offsets(mc, &mc->pgoff);
	if (ret)
		goto err_uncharge_range;
	/*
	 * Reserved, not stored: cumk_mc_publish() stores it. Cyclic: a late
	 * fabric manager answer must not reach a new object.
	 */
	ret = xa_alloc_cyclic(&cumk_mc_ids, &mc->id, NULL, xa_limit_31b,
			      &cumk_mc_next_id, CUMK_GFP);
	if (ret < 0)
		goto err_free_offsets;
	cumk_object_init(&mc->obj, CUMK_OBJ_MC, handle_types, ops);
	atomic_inc(&cumk_live_mcs);
	cumk_stat_add(NULL, CUMK_STAT_OBJECTS, 1);
	return mc;

err_free_offsets:
	cumk_vm_free_offsets(mc->pgoff);
err_uncharge_range:
	cumk_usage_uncharge(usage, CUMK_QUOTA_RANGES, 1);
err_uncharge_object:
	cumk_object_uncharge(&mc->obj);
err_free_mc:
	kfree(mc);
	return ERR_PTR(ret);
}

int cumk_mc_ioctl_create(struct cumk_ucmd *ucmd)
{
	struct cumc_mc_create *cmd = ucmd->cmd;
	struct cumk_mc *mc;
	int ret;

	ret = cumk_mc_check_create(ucmd->client, cmd);
	if (ret)
		return ret;
	mc = cumk_mc_alloc(ucmd->client->usage, cmd->num_devices, cmd->length,
			   cmd->handle_types, &cumk_mc_ops,
			   cmd->handle_types & CUMC_HANDLE_FABRIC ?
			   cumk_mc_origin : &cumk_mc_local);
	if (IS_ERR(mc))
		return PTR_ERR(mc);
	ret = cumk_ucmd_new_object(ucmd, &mc->obj, &cmd->out_handle);
	if (ret)
		cumk_object_put(&mc->obj);
	return ret;
}

/* The live object of id @id or the next above it, with a reference. */
struct cumk_mc *cumk_mc_get_next(unsigned long *id)
{
	struct cumk_mc *mc;

	xa_lock(&cumk_mc_ids);
	for (mc = xa_find(&cumk_mc_ids, id, ULONG_MAX, XA_PRESENT); mc;
	     mc = xa_find_after(&cumk_mc_ids, id, ULONG_MAX, XA_PRESENT))
		if (kref_get_unless_zero(&mc->obj.ref))
			break;
	xa_unlock(&cumk_mc_ids);
	return mc;
}

/*
 * An external fabric manager answers request @req_id (the object's id). An
 * answer for an object freed meanwhile finds nothing and is dropped.
 */
int cumk_mc_fm_respond(u32 req_id, bool ok)
{
	unsigned long id = req_id;
	struct cumk_mc *mc = cumk_mc_get_next(&id);
	int ret = -ENOENT;

	if (!mc)
		return ret;
	if (id == req_id)
		ret = cumk_team_respond(mc, ok);
	/* Other nodes holding the team hear how its setup went. */
	if (!ret && mc->kind->settled)
		mc->kind->settled(mc);
	cumk_object_put(&mc->obj);
	return ret;
}

/*
 * Module unload, once no client is left: what a FABRIC_STALL still holds
 * is let go of (cumk_team_stop()).
 */
void cumk_mc_exit(void)
{
	unsigned long id = 0;
	struct cumk_mc *mc;

	for (; (mc = cumk_mc_get_next(&id)); id++) {
		cumk_team_stop(mc);
		cumk_object_put(&mc->obj);
	}
}

/*
 * Every team with a member on the lost @dev fails, and its kind is told
 * (other nodes' replicas hear of it).
 */
void cumk_mc_lose_device(struct cumk_device *dev)
{
	unsigned long id = 0;
	struct cumk_mc *mc;

	for (; (mc = cumk_mc_get_next(&id)); id++) {
		if (cumk_team_lose_device(mc, dev) && mc->kind->settled)
			mc->kind->settled(mc);
		cumk_object_put(&mc->obj);
	}
}

/* The multicast object @handle names in @client, with a new reference. */
struct cumk_mc *cumk_mc_get(struct cumk_client *client, u64 handle)
{
	struct cumk_object *obj = cumk_handle_get(client, handle, CUMK_OBJ_MC);

	return IS_ERR(obj) ? ERR_CAST(obj) : to_cumk_mc(obj);
}

int cumk_mc_ioctl_info(struct cumk_ucmd *ucmd)
{
	struct cumc_mc_info *cmd = ucmd->cmd;
	u32 ordinals[CUMC_MAX_DEVICES];
	struct cumk_mc *mc;
	u32 i, n;

	if (cmd->flags || cmd->__reserved)
		return -EOPNOTSUPP;
	mc = cumk_mc_get(ucmd->client, cmd->handle);
	if (IS_ERR(mc))
		return PTR_ERR(mc);
	down_read(&mc->lock);
	cmd->out_num_devices = mc->num_devices;
	cmd->out_num_members = mc->team.num_members;
	cmd->out_state = cumk_team_uapi_state(mc);
	cmd->out_length = mc->length;
	cmd->out_handle_types = mc->obj.handle_types;
	for (i = 0; i < mc->team.num_members; i++)
		ordinals[i] = mc->members[i].dev->ordinal;
	up_read(&mc->lock);
	cumk_object_put(&mc->obj);

	n = min(cmd->num_members_max, cmd->out_num_members);
	if (cmd->members && n &&
	    copy_to_user(u64_to_user_ptr(cmd->members), ordinals,
			 n * sizeof(*ordinals)))
		return -EFAULT;
	return 0;
}
