// SPDX-License-Identifier: GPL-2.0
/*
 * Physical allocations: device memory charged to a device's aperture.
 *
 * Backing pages come on first touch, zeroed, so that untouched memory costs
 * nothing and no client ever reads what another left behind.
 */
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "cumc_internal.h"

#define CUMC_HANDLE_TYPES_ALL (CUMC_HANDLE_FD | CUMC_HANDLE_FABRIC)

/* The page at @index of @mem, allocated on first use; NULL when out of memory. */
struct page *cumk_mem_page(struct cumk_mem *mem, pgoff_t index)
{
	struct page *page, *old;

	page = xa_load(&mem->pages, index);
	if (page)
		return page;
	page = alloc_page(GFP_HIGHUSER | __GFP_ZERO | __GFP_ACCOUNT);
	if (!page)
		return NULL;
	old = xa_cmpxchg(&mem->pages, index, NULL, page, GFP_KERNEL_ACCOUNT);
	if (old) {
		/* Lost a race to another toucher, or the xarray is out of memory. */
		__free_page(page);
		return xa_is_err(old) ? NULL : old;
	}
	atomic_long_inc(&cumk_live_pages);
	return page;
}

static void cumk_mem_free_pages(struct cumk_mem *mem)
{
	struct page *page;
	unsigned long index;

	xa_for_each(&mem->pages, index, page) {
		__free_page(page);
		atomic_long_dec(&cumk_live_pages);
	}
	xa_destroy(&mem->pages);
}

static void cumk_mem_destroy(struct cumk_object *obj)
{
	struct cumk_mem *mem = container_of(obj, struct cumk_mem, obj);

	cumk_mem_free_pages(mem);
	cumk_device_uncharge(mem->dev, mem->length);
	cumk_stat_add(mem->dev, CUMC_STAT_OBJECTS, -1);
	atomic_dec(&cumk_live_mems);
	kfree(mem);
}

static const struct cumk_object_ops cumk_mem_ops = {
	.destroy = cumk_mem_destroy,
};

int cumk_mem_ioctl_create(struct cumk_ucmd *ucmd)
{
	struct cumc_mem_create *cmd = ucmd->cmd;
	struct cumk_client *client = ucmd->client;
	struct cumk_device *dev;
	struct cumk_mem *mem;
	int ret;

	if (cmd->flags || cmd->handle_types & ~CUMC_HANDLE_TYPES_ALL)
		return -EOPNOTSUPP;
	dev = cumk_device_get(cmd->device);
	if (!dev)
		return -ENODEV;
	if (cmd->handle_types & CUMC_HANDLE_FABRIC &&
	    READ_ONCE(client->channel) == CUMC_NO_CHANNEL)
		return -EPERM;
	if (!cmd->length || !IS_ALIGNED(cmd->length, cumk_device_granularity()))
		return -EINVAL;

	mem = kzalloc(sizeof(*mem), CUMC_GFP);
	if (!mem)
		return -ENOMEM;
	ret = cumk_object_charge(client->usage, &mem->obj);
	if (ret)
		goto err_free_mem;
	if (cumk_fault_hit(CUMC_FAULT_MEM_EXHAUSTED, dev))
		ret = -ENOSPC;
	else
		ret = cumk_device_charge(dev, cmd->length);
	if (ret)
		goto err_uncharge;
	mem->dev = dev;
	mem->length = cmd->length;
	xa_init_flags(&mem->pages, XA_FLAGS_ACCOUNT);
	cumk_object_init(&mem->obj, CUMC_OBJ_MEM, cmd->handle_types,
			 &cumk_mem_ops);
	atomic_inc(&cumk_live_mems);
	cumk_stat_add(dev, CUMC_STAT_OBJECTS, 1);

	ret = cumk_ucmd_new_object(ucmd, &mem->obj, &cmd->out_handle);
	if (ret)
		cumk_object_put(&mem->obj);
	return ret;

err_uncharge:
	cumk_object_uncharge(&mem->obj);
err_free_mem:
	kfree(mem);
	return ret;
}

int cumk_mem_ioctl_info(struct cumk_ucmd *ucmd)
{
	struct cumc_mem_info *cmd = ucmd->cmd;
	struct cumk_object *obj;
	struct cumk_mem *mem;

	if (cmd->flags)
		return -EOPNOTSUPP;
	obj = cumk_handle_get(ucmd->client, cmd->handle, CUMC_OBJ_MEM);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	mem = container_of(obj, struct cumk_mem, obj);
	cmd->out_device = mem->dev->ordinal;
	cmd->out_handle_types = mem->obj.handle_types;
	cmd->out_length = mem->length;
	cumk_object_put(obj);
	return 0;
}
