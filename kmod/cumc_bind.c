// SPDX-License-Identifier: GPL-2.0
/*
 * CUMC_MC_ADD_DEVICE, CUMC_MC_BIND_MEM, CUMC_MC_BIND_ADDR and
 * CUMC_MC_UNBIND: a client adds devices to a multicast team and binds its
 * memory into the object for one member, once the team is ready. The
 * memory is named by a handle or by an address in one of the client's
 * reservations; the object's kind (struct cumk_mc_kind) does the rest:
 * for one of this node's alone, the fabric page table (cumc_fabric.c)
 * keeps the binding; a team that spans nodes has the other nodes told
 * (cumc_remote_mc.c).
 */
#include "cumc_internal.h"
#include "cumc_trace.h"

int cumk_bind_ioctl_add_device(struct cumk_ucmd *ucmd)
{
	struct cumc_mc_add_device *cmd = ucmd->cmd;
	struct cumk_device *dev;
	struct cumk_mc *mc;
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EOPNOTSUPP;
	dev = cumk_device_get(cmd->device);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	mc = cumk_mc_get(ucmd->client, cmd->handle);
	if (IS_ERR(mc))
		return PTR_ERR(mc);
	/* Refused before the join: the team is left as it was. */
	if (!cumk_cond_multicast(dev))
		ret = -EOPNOTSUPP;
	else if (cumk_fault_hit(CUMC_FAULT_ADD_DEVICE, dev))
		ret = -EIO;
	else
		ret = mc->kind->join(mc, dev);
	cumk_object_put(&mc->obj);
	return ret;
}

/* The memory and offset a bind names, with a reference on the memory. */
static struct cumk_mem *cumk_bind_source(struct cumk_client *client,
					 struct cumc_mc_bind *cmd,
					 bool by_addr, u64 *mem_offset)
{
	struct cumk_object *obj;

	if (by_addr) {
		if (cmd->mem_offset)
			return ERR_PTR(-EINVAL);
		return cumk_va_resolve(client, cmd->mem, cmd->length,
				       mem_offset);
	}
	obj = cumk_handle_get(client, cmd->mem, CUMK_OBJ_MEM);
	if (IS_ERR(obj))
		return ERR_CAST(obj);
	*mem_offset = cmd->mem_offset;
	return to_cumk_mem(obj);
}

static int cumk_bind(struct cumk_ucmd *ucmd, bool by_addr)
{
	struct cumc_mc_bind *cmd = ucmd->cmd;
	struct cumk_device *dev, *member;
	struct cumk_mem *mem;
	struct cumk_mc *mc;
	u64 mem_offset;
	u32 device;
	int ret;

	if (cmd->flags || cmd->__reserved || cmd->__reserved2)
		return -EOPNOTSUPP;
	if (cmd->device_from > CUMC_MC_BIND_DEVICE_OF_MEM ||
	    (cmd->device_from == CUMC_MC_BIND_DEVICE_OF_MEM && cmd->device))
		return -EINVAL;
	mc = cumk_mc_get(ucmd->client, cmd->handle);
	if (IS_ERR(mc))
		return PTR_ERR(mc);
	ret = cumk_team_wait_ready(mc);
	if (ret)
		goto out_put;
	mem = cumk_bind_source(ucmd->client, cmd, by_addr, &mem_offset);
	if (IS_ERR(mem)) {
		ret = PTR_ERR(mem);
		goto out_put;
	}
	/* The binding may be gone, memory and all, once it is in: keep dev. */
	dev = mem->dev;
	device = cmd->device_from == CUMC_MC_BIND_DEVICE_OF_MEM ?
		 dev->ordinal : cmd->device;
	/* Another node's memory is no member's of this node. */
	member = cumk_device_find(device);
	if (!member || member->remote) {
		cumk_object_put(&mem->obj);
		ret = -EINVAL;
		goto out_put;
	}
	ret = mc->kind->bind(mc, member, mem, mem_offset, cmd->mc_offset,
			     cmd->length, ucmd->client->usage);
	if (ret)
		goto out_put;
	cumk_stat_add(dev, CUMK_STAT_BINDS, 1);
	trace_cumc_bind(mc->id, device, cmd->mc_offset, cmd->length);
	cumk_notify_bind(CUMC_CMD_BIND_NTF, mc->id, device, cmd->mc_offset,
			 cmd->length);
out_put:
	cumk_object_put(&mc->obj);
	return ret;
}

int cumk_bind_ioctl_mem(struct cumk_ucmd *ucmd)
{
	return cumk_bind(ucmd, false);
}

int cumk_bind_ioctl_addr(struct cumk_ucmd *ucmd)
{
	return cumk_bind(ucmd, true);
}

int cumk_bind_ioctl_unbind(struct cumk_ucmd *ucmd)
{
	struct cumc_mc_unbind *cmd = ucmd->cmd;
	struct cumk_device *member;
	struct cumk_mc *mc;
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EOPNOTSUPP;
	member = cumk_device_find(cmd->device);
	if (!member)
		return -EINVAL;
	mc = cumk_mc_get(ucmd->client, cmd->handle);
	if (IS_ERR(mc))
		return PTR_ERR(mc);
	/* A fabric manager that lost track refuses it, binding kept. */
	if (cumk_fault_hit(CUMC_FAULT_UNBIND_INVALID, member))
		ret = -EINVAL;
	else
		ret = mc->kind->unbind(mc, member, cmd->mc_offset,
				       cmd->length, ucmd->client->usage);
	if (!ret) {
		trace_cumc_unbind(mc->id, cmd->device, cmd->mc_offset,
				  cmd->length);
		cumk_notify_bind(CUMC_CMD_UNBIND_NTF, mc->id, cmd->device,
				 cmd->mc_offset, cmd->length);
	}
	cumk_object_put(&mc->obj);
	return ret;
}
