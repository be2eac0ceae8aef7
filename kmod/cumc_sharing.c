// SPDX-License-Identifier: GPL-2.0
/*
 * Sharing objects between clients: POSIX file descriptors, fabric handles
 * and attaching the IMEX channels (cumc_channel.c) that guard the latter.
 *
 * An exported fd is an anonymous file holding a reference on the object.
 * A fabric handle is a random token naming an entry of the fabric export
 * table (cumc_object.c), which holds no reference: an import takes one
 * only if the object is still alive.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>

#include "cumc_compat.h"
#include "cumc_internal.h"

static int cumk_export_release(struct inode *inode, struct file *filp)
{
	cumk_object_put(filp->private_data);
	return 0;
}

static const struct file_operations cumk_export_fops = {
	.owner = THIS_MODULE,
	.release = cumk_export_release,
	.llseek = noop_llseek,
};

/* Memory of a lost device is shared no further (-ENOLINK). */
static int cumk_sharing_check(struct cumk_object *obj)
{
	return obj->type == CUMK_OBJ_MEM ? cumk_mem_check(to_cumk_mem(obj)) : 0;
}

/* The descriptor becomes visible only once the caller has its number. */
int cumk_sharing_ioctl_export_fd(struct cumk_ucmd *ucmd)
{
	struct cumc_export_fd *cmd = ucmd->cmd;
	struct cumk_object *obj;
	struct file *filp;
	int fd, ret;

	if (cmd->flags || cmd->__reserved)
		return -EOPNOTSUPP;
	obj = cumk_handle_get(ucmd->client, cmd->handle, CUMK_OBJ_ANY);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	ret = -EPERM;
	if (!(obj->handle_types & CUMC_HANDLE_FD))
		goto err_put;
	ret = cumk_sharing_check(obj);
	if (ret)
		goto err_put;
	fd = get_unused_fd_flags(O_CLOEXEC);
	ret = fd;
	if (fd < 0)
		goto err_put;
	filp = anon_inode_getfile("[cumc-export]", &cumk_export_fops, obj,
				  O_RDWR | O_CLOEXEC);
	if (IS_ERR(filp)) {
		ret = PTR_ERR(filp);
		goto err_put_fd;
	}
	cmd->out_fd = fd;
	ret = cumk_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret) {
		/* The file's release drops the object's reference. */
		put_unused_fd(fd);
		fput(filp);
		return ret;
	}
	fd_install(fd, filp);
	return 0;

err_put_fd:
	put_unused_fd(fd);
err_put:
	cumk_object_put(obj);
	return ret;
}

/* The importer-not-permitted fault, on the object's device if it has one. */
static bool cumk_import_fault(struct cumk_object *obj)
{
	struct cumk_device *dev = NULL;

	if (obj->type == CUMK_OBJ_MEM)
		dev = to_cumk_mem(obj)->dev;
	return cumk_fault_hit(CUMC_FAULT_IMPORT_NOT_PERMITTED, dev);
}

int cumk_sharing_ioctl_import_fd(struct cumk_ucmd *ucmd)
{
	struct cumc_import_fd *cmd = ucmd->cmd;
	struct cumk_object *obj;
	struct fd f;
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EOPNOTSUPP;
	f = fdget(cmd->fd);
	if (!cumk_fd_file(f))
		return -EBADF;
	if (cumk_fd_file(f)->f_op != &cumk_export_fops) {
		fdput(f);
		return -EBADFD;
	}
	obj = cumk_fd_file(f)->private_data;
	kref_get(&obj->ref);
	fdput(f);
	ret = cumk_sharing_check(obj);
	if (!ret && cumk_import_fault(obj))
		ret = -EPERM;
	if (!ret)
		ret = cumk_ucmd_new_handle(ucmd, obj, &cmd->out_handle);
	if (ret)
		cumk_object_put(obj);
	return ret;
}

int cumk_sharing_ioctl_attach_channel(struct cumk_ucmd *ucmd)
{
	struct cumc_attach_channel *cmd = ucmd->cmd;
	struct cumk_client *client = ucmd->client;
	struct fd f;
	int channel;

	if (cmd->flags)
		return -EOPNOTSUPP;
	f = fdget(cmd->fd);
	if (!cumk_fd_file(f))
		return -EBADF;
	channel = cumk_channel_of_file(cumk_fd_file(f));
	fdput(f);
	if (channel < 0)
		return channel;
	if (cmpxchg(&client->channel, CUMK_NO_CHANNEL, channel) !=
	    CUMK_NO_CHANNEL)
		return -EBUSY;
	cmd->out_channel = channel;
	return 0;
}

int cumk_sharing_ioctl_export_fabric(struct cumk_ucmd *ucmd)
{
	struct cumc_export_fabric *cmd = ucmd->cmd;
	struct cumk_client *client = ucmd->client;
	int channel = READ_ONCE(client->channel);
	struct cumk_object *obj;
	int ret;

	if (cmd->flags)
		return -EOPNOTSUPP;
	obj = cumk_handle_get(client, cmd->handle, CUMK_OBJ_ANY);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	ret = -EPERM;
	if (!(obj->handle_types & CUMC_HANDLE_FABRIC) ||
	    channel == CUMK_NO_CHANNEL)
		goto out_put;
	ret = cumk_sharing_check(obj);
	if (ret)
		goto out_put;
	ret = cumk_object_fabric_publish(obj, channel);
	if (ret)
		goto out_put;
	cumk_object_fabric_handle(obj, cmd->out_fabric);
out_put:
	cumk_object_put(obj);
	return ret;
}

/* The object of a fabric handle this node exported on @channel. */
static struct cumk_object *cumk_sharing_fabric_local(const u8 *fabric_handle,
						     int channel)
{
	struct cumk_object *obj;
	int ret;

	obj = cumk_object_fabric_lookup(fabric_handle);
	if (!obj)
		return ERR_PTR(-ENOENT);
	if (obj->fabric_channel != channel || cumk_import_fault(obj)) {
		ret = -EPERM;
		goto err_put;
	}
	ret = cumk_sharing_check(obj);
	if (ret)
		goto err_put;
	return obj;

err_put:
	cumk_object_put(obj);
	return ERR_PTR(ret);
}

int cumk_sharing_ioctl_import_fabric(struct cumk_ucmd *ucmd)
{
	struct cumc_import_fabric *cmd = ucmd->cmd;
	int channel = READ_ONCE(ucmd->client->channel);
	struct cumk_object *obj;
	int ret, handle_channel;
	u32 node;

	if (cmd->flags)
		return -EOPNOTSUPP;
	if (channel == CUMK_NO_CHANNEL)
		return -EPERM;
	if (!cumk_object_fabric_origin(cmd->fabric, &node, &handle_channel))
		return -ENOENT;
	if (node == cumk_node_index()) {
		obj = cumk_sharing_fabric_local(cmd->fabric, channel);
	} else {
		/* A node outside any fabric has no other node to ask. */
		if (!cumk_node_in_fabric())
			return -ENOENT;
		/* Exported on another channel: refused as a local one is. */
		if (handle_channel != channel)
			return -EPERM;
		obj = cumk_remote_import(ucmd->client->usage, cmd->fabric,
					 node);
	}
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	ret = cumk_ucmd_new_handle(ucmd, obj, &cmd->out_handle);
	if (ret)
		cumk_object_put(obj);
	return ret;
}

int cumk_sharing_init(void)
{
	cumk_object_fabric_init();
	return cumk_channel_init();
}

void cumk_sharing_exit(void)
{
	cumk_channel_exit();
}
