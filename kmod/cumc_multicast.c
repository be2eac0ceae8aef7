// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast objects (cuMulticastCreate) and the forming of their teams.
 *
 * Devices join in any order, from any client holding the object; the one
 * that completes the team hands it to the fabric (cumc_fabric.c), which
 * sets it up and wakes whoever waits to bind or map.
 */
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "cumc_internal.h"

/*
 * Live multicast objects by id, for the control plane. Its xa_lock is a
 * leaf; lookups take a reference with kref_get_unless_zero() under it, as
 * an object leaves only from its destroy. Nodes are charged to the memory
 * cgroup of the creator that made the array grow.
 */
static DEFINE_XARRAY_FLAGS(cumc_mc_ids, XA_FLAGS_ALLOC1 | XA_FLAGS_ACCOUNT);
static u32 cumc_mc_next_id; /* under cumc_mc_ids' lock, by xa_alloc_cyclic() */

static unsigned long mc_page_size = SZ_512M;

/* A power of two from the allocation granularity to 1 GiB. */
static int cumc_param_set_mc_page_size(const char *val,
				       const struct kernel_param *kp)
{
	unsigned long size;
	int ret;

	ret = kstrtoul(val, 0, &size);
	if (ret)
		return ret;
	if (size < PAGE_SIZE || size > SZ_1G || !is_power_of_2(size))
		return -EINVAL;
	*(unsigned long *)kp->arg = size;
	return 0;
}

static const struct kernel_param_ops cumc_mc_page_size_ops = {
	.set = cumc_param_set_mc_page_size,
	.get = param_get_ulong,
};
module_param_cb(mc_page_size, &cumc_mc_page_size_ops, &mc_page_size, 0444);
MODULE_PARM_DESC(mc_page_size,
		 "Fabric page size in bytes, the largest recommended multicast granularity (default 512 MiB)");

/* Multicast bindings map device memory: the allocation granularity. */
u64 cumc_mc_granularity(void)
{
	return cumc_device_granularity();
}

u64 cumc_mc_page_size(void)
{
	return max_t(u64, mc_page_size, cumc_mc_granularity());
}

static void cumc_mc_destroy(struct cumc_object *obj)
{
	struct cumc_mc *mc = to_cumc_mc(obj);

	xa_erase(&cumc_mc_ids, mc->id);
	cumc_nl_mc_event(mc, CUMC_CMD_MC_DELETE_NTF);
	cumc_stat_add(NULL, CUMC_STAT_OBJECTS, -1);
	cumc_fabric_release_binds(mc);
	cumc_vm_free_offsets(mc->pgoff);
	cumc_usage_uncharge(mc->obj.usage, CUMC_QUOTA_RANGES, 1);
	atomic_dec(&cumc_live_mcs);
	kfree(mc);
}

int cumc_mc_create(struct cumc_client *client, struct cumc_mc_create *cmd)
{
	struct cumc_mc *mc;
	u32 i;
	int ret;

	if (cmd->flags || cmd->handle_types & ~(CUMC_HANDLE_FD | CUMC_HANDLE_FABRIC))
		return -EOPNOTSUPP;
	/* The member views of all devices share one range of file offsets. */
	if (!cmd->num_devices || cmd->num_devices > cumc_num_devices() ||
	    !cmd->length ||
	    cmd->length > CUMC_VM_MAX_OFFSETS / cmd->num_devices ||
	    !IS_ALIGNED(cmd->length, cumc_mc_granularity()))
		return -EINVAL;
	if (cmd->handle_types & CUMC_HANDLE_FABRIC &&
	    READ_ONCE(client->channel) == CUMC_NO_CHANNEL)
		return -EPERM;

	mc = kzalloc(struct_size(mc, members, cmd->num_devices),
		     CUMC_GFP);
	if (!mc)
		return -ENOMEM;
	mc->num_devices = cmd->num_devices;
	mc->length = cmd->length;
	init_rwsem(&mc->lock);
	init_waitqueue_head(&mc->team_wq);
	for (i = 0; i < mc->num_devices; i++)
		cumc_range_map_init(&mc->members[i].binds);
	ret = cumc_object_charge(client, &mc->obj);
	if (ret)
		goto err_free_mc;
	ret = cumc_usage_charge(client->usage, CUMC_QUOTA_RANGES, 1);
	if (ret)
		goto err_uncharge_object;
	ret = cumc_vm_alloc_offsets(mc, &mc->pgoff);
	if (ret)
		goto err_uncharge_range;
	cumc_object_init(&mc->obj, CUMC_OBJ_MC, cmd->handle_types,
			 cumc_mc_destroy);
	/* Cyclic: a late fabric manager answer must not reach a new object. */
	ret = xa_alloc_cyclic(&cumc_mc_ids, &mc->id, mc, xa_limit_31b,
			      &cumc_mc_next_id, CUMC_GFP);
	if (ret < 0)
		goto err_free_offsets;
	atomic_inc(&cumc_live_mcs);
	cumc_stat_add(NULL, CUMC_STAT_OBJECTS, 1);

	/*
	 * Announce the object only once nothing can fail; the extra reference
	 * keeps it for the event even if its new handle is released at once.
	 */
	kref_get(&mc->obj.ref);
	ret = cumc_handle_insert(client, &mc->obj, &cmd->out_handle);
	if (ret)
		cumc_object_put(&mc->obj);
	else
		cumc_nl_mc_event(mc, CUMC_CMD_MC_CREATE_NTF);
	cumc_object_put(&mc->obj);
	return ret;

err_free_offsets:
	cumc_vm_free_offsets(mc->pgoff);
err_uncharge_range:
	cumc_usage_uncharge(client->usage, CUMC_QUOTA_RANGES, 1);
err_uncharge_object:
	cumc_object_uncharge(&mc->obj);
err_free_mc:
	kfree(mc);
	return ret;
}

/* The live object of id @id or the next above it, with a reference. */
struct cumc_mc *cumc_mc_get_next(unsigned long *id)
{
	struct cumc_mc *mc;

	xa_lock(&cumc_mc_ids);
	for (mc = xa_find(&cumc_mc_ids, id, ULONG_MAX, XA_PRESENT); mc;
	     mc = xa_find_after(&cumc_mc_ids, id, ULONG_MAX, XA_PRESENT))
		if (kref_get_unless_zero(&mc->obj.ref))
			break;
	xa_unlock(&cumc_mc_ids);
	return mc;
}

struct cumc_mc *cumc_mc_get_by_id(u32 id)
{
	unsigned long index = id;
	struct cumc_mc *mc = cumc_mc_get_next(&index);

	if (mc && index != id) {
		cumc_object_put(&mc->obj);
		return NULL;
	}
	return mc;
}

/* The slot of @device in the team, or -EINVAL when it is no member. */
int cumc_mc_member_slot(struct cumc_mc *mc, u32 device)
{
	u32 i;

	lockdep_assert_held(&mc->lock);
	for (i = 0; i < mc->num_members; i++)
		if (mc->members[i].dev->ordinal == device)
			return i;
	return -EINVAL;
}

static int cumc_mc_join(struct cumc_mc *mc, struct cumc_device *dev)
{
	int ret = 0;

	down_write(&mc->lock);
	if (cumc_mc_member_slot(mc, dev->ordinal) >= 0) {
		ret = -EEXIST;
	} else if (mc->num_members == mc->num_devices) {
		ret = -EINVAL;
	} else {
		mc->members[mc->num_members++].dev = dev;
		if (mc->num_members == mc->num_devices)
			cumc_fabric_team_complete(mc);
	}
	up_write(&mc->lock);
	return ret;
}

int cumc_mc_add_device(struct cumc_client *client,
		       struct cumc_mc_add_device *cmd)
{
	struct cumc_device *dev;
	struct cumc_object *obj;
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EOPNOTSUPP;
	dev = cumc_device_get(cmd->device);
	if (!dev)
		return -ENODEV;
	obj = cumc_handle_get(client, cmd->handle, CUMC_OBJ_MC);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	ret = cumc_mc_join(to_cumc_mc(obj), dev);
	cumc_object_put(obj);
	return ret;
}

static enum cumc_team_state_uapi cumc_mc_state_uapi(enum cumc_team_state state)
{
	switch (state) {
	case CUMC_TEAM_READY:
		return CUMC_TEAM_STATE_READY;
	case CUMC_TEAM_FAILED:
		return CUMC_TEAM_STATE_FAILED;
	default:
		return CUMC_TEAM_STATE_FORMING;
	}
}

int cumc_mc_info(struct cumc_client *client, struct cumc_mc_info *cmd)
{
	u32 ordinals[CUMC_MAX_DEVICES];
	struct cumc_object *obj;
	struct cumc_mc *mc;
	u32 i, n;

	if (cmd->flags || cmd->__reserved)
		return -EOPNOTSUPP;
	obj = cumc_handle_get(client, cmd->handle, CUMC_OBJ_MC);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	mc = to_cumc_mc(obj);
	down_read(&mc->lock);
	cmd->out_num_devices = mc->num_devices;
	cmd->out_num_members = mc->num_members;
	cmd->out_state = cumc_mc_state_uapi(mc->state);
	cmd->out_length = mc->length;
	cmd->out_handle_types = mc->obj.handle_types;
	for (i = 0; i < mc->num_members; i++)
		ordinals[i] = mc->members[i].dev->ordinal;
	up_read(&mc->lock);
	cumc_object_put(obj);

	n = min(cmd->num_members_max, cmd->out_num_members);
	if (cmd->members && n &&
	    copy_to_user(u64_to_user_ptr(cmd->members), ordinals,
			 n * sizeof(*ordinals)))
		return -EFAULT;
	return 0;
}
