// SPDX-License-Identifier: GPL-2.0
/*
 * Physical allocations: device memory charged to a device's aperture.
 */
#include <linux/slab.h>

#include "cumc_internal.h"

#define CUMC_HANDLE_TYPES_ALL (CUMC_HANDLE_FD | CUMC_HANDLE_FABRIC)

static void cumc_mem_destroy(struct cumc_object *obj)
{
	struct cumc_mem *mem = container_of(obj, struct cumc_mem, obj);

	cumc_device_uncharge(mem->dev, mem->length);
	atomic_dec(&cumc_live_mems);
	kfree(mem);
}

int cumc_mem_create(struct cumc_client *client, struct cumc_mem_create *cmd)
{
	struct cumc_device *dev;
	struct cumc_mem *mem;
	int ret;

	if (cmd->flags || cmd->handle_types & ~CUMC_HANDLE_TYPES_ALL)
		return -EOPNOTSUPP;
	dev = cumc_device_get(cmd->device);
	if (!dev)
		return -ENODEV;
	if (!cmd->length || !IS_ALIGNED(cmd->length, cumc_device_granularity()))
		return -EINVAL;

	mem = kzalloc(sizeof(*mem), GFP_KERNEL_ACCOUNT);
	if (!mem)
		return -ENOMEM;
	ret = cumc_device_charge(dev, cmd->length);
	if (ret)
		goto err_free_mem;
	mem->dev = dev;
	mem->length = cmd->length;
	mem->handle_types = cmd->handle_types;
	cumc_object_init(&mem->obj, CUMC_OBJ_MEM, cumc_mem_destroy);
	atomic_inc(&cumc_live_mems);

	ret = cumc_handle_insert(client, &mem->obj, &cmd->out_handle);
	if (ret)
		cumc_object_put(&mem->obj);
	return ret;

err_free_mem:
	kfree(mem);
	return ret;
}

int cumc_mem_info(struct cumc_client *client, struct cumc_mem_info *cmd)
{
	struct cumc_object *obj;
	struct cumc_mem *mem;

	if (cmd->flags)
		return -EOPNOTSUPP;
	obj = cumc_handle_get(client, cmd->handle, CUMC_OBJ_MEM);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	mem = container_of(obj, struct cumc_mem, obj);
	cmd->out_device = mem->dev->ordinal;
	cmd->out_handle_types = mem->handle_types;
	cmd->out_length = mem->length;
	cumc_object_put(obj);
	return 0;
}
