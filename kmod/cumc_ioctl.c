// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl dispatch: one table, size-first extensible structs.
 *
 * Each command names the kernel's struct and the last member it has always
 * had; the caller's size must reach that member. copy_struct_from_user()
 * zero-fills a shorter struct and refuses a longer one with a non-zero tail,
 * so old binaries keep working and new ones fail loudly on old modules.
 */
#include <linux/nospec.h>
#include <linux/uaccess.h>

#include "cumc_internal.h"

struct cumc_ucmd {
	struct cumc_client *client;
	void __user *ubuffer;
	u32 user_size;
	void *cmd;
};

union cumc_ucmd_buffer {
	struct cumc_query query;
	struct cumc_device_info device_info;
	struct cumc_mem_create mem_create;
	struct cumc_mem_info mem_info;
	struct cumc_release release;
};

struct cumc_ioctl_op {
	unsigned int size;
	unsigned int min_size;
	unsigned int ioctl_num;
	int (*execute)(struct cumc_ucmd *ucmd);
};

/* Write the command's struct back, no more of it than the caller has. */
static int cumc_ucmd_respond(struct cumc_ucmd *ucmd, size_t cmd_len)
{
	if (copy_to_user(ucmd->ubuffer, ucmd->cmd,
			 min_t(size_t, ucmd->user_size, cmd_len)))
		return -EFAULT;
	return 0;
}

static int cumc_query(struct cumc_ucmd *ucmd)
{
	struct cumc_query *cmd = ucmd->cmd;

	if (cmd->flags)
		return -EOPNOTSUPP;
	cmd->api_version = CUMC_API_VERSION;
	cmd->num_devices = cumc_num_devices();
	return cumc_ucmd_respond(ucmd, sizeof(*cmd));
}

static int cumc_ioctl_device_info(struct cumc_ucmd *ucmd)
{
	struct cumc_device_info *cmd = ucmd->cmd;
	int ret;

	ret = cumc_device_info(cmd);
	if (ret)
		return ret;
	return cumc_ucmd_respond(ucmd, sizeof(*cmd));
}

static int cumc_ioctl_mem_create(struct cumc_ucmd *ucmd)
{
	struct cumc_mem_create *cmd = ucmd->cmd;
	int ret;

	ret = cumc_mem_create(ucmd->client, cmd);
	if (ret)
		return ret;
	ret = cumc_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret)
		cumc_handle_release(ucmd->client, cmd->out_handle);
	return ret;
}

static int cumc_ioctl_mem_info(struct cumc_ucmd *ucmd)
{
	struct cumc_mem_info *cmd = ucmd->cmd;
	int ret;

	ret = cumc_mem_info(ucmd->client, cmd);
	if (ret)
		return ret;
	return cumc_ucmd_respond(ucmd, sizeof(*cmd));
}

static int cumc_ioctl_release(struct cumc_ucmd *ucmd)
{
	struct cumc_release *cmd = ucmd->cmd;

	if (cmd->flags)
		return -EOPNOTSUPP;
	return cumc_handle_release(ucmd->client, cmd->handle);
}

#define CUMC_IOCTL_OP(_ioctl, _fn, _struct, _last)			\
	[_IOC_NR(_ioctl) - CUMC_CMD_BASE] = {				\
		.size = sizeof(_struct) +				\
			BUILD_BUG_ON_ZERO(sizeof(union cumc_ucmd_buffer) < \
					  sizeof(_struct)),		\
		.min_size = offsetofend(_struct, _last),		\
		.ioctl_num = _ioctl,					\
		.execute = _fn,						\
	}

static const struct cumc_ioctl_op cumc_ioctl_ops[] = {
	CUMC_IOCTL_OP(CUMC_QUERY, cumc_query, struct cumc_query, num_devices),
	CUMC_IOCTL_OP(CUMC_DEVICE_INFO, cumc_ioctl_device_info,
		      struct cumc_device_info, granularity),
	CUMC_IOCTL_OP(CUMC_MEM_CREATE, cumc_ioctl_mem_create,
		      struct cumc_mem_create, out_handle),
	CUMC_IOCTL_OP(CUMC_MEM_INFO, cumc_ioctl_mem_info,
		      struct cumc_mem_info, out_length),
	CUMC_IOCTL_OP(CUMC_RELEASE, cumc_ioctl_release,
		      struct cumc_release, handle),
};

long cumc_fops_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	const struct cumc_ioctl_op *op;
	union cumc_ucmd_buffer buf;
	struct cumc_ucmd ucmd = {
		.client = filp->private_data,
		.ubuffer = (void __user *)arg,
		.cmd = &buf,
	};
	unsigned int nr = _IOC_NR(cmd);
	int ret;

	if (nr < CUMC_CMD_BASE ||
	    nr - CUMC_CMD_BASE >= ARRAY_SIZE(cumc_ioctl_ops))
		return -ENOTTY;
	op = &cumc_ioctl_ops[array_index_nospec(nr - CUMC_CMD_BASE,
						ARRAY_SIZE(cumc_ioctl_ops))];
	if (op->ioctl_num != cmd)
		return -ENOTTY;

	ret = get_user(ucmd.user_size, (u32 __user *)ucmd.ubuffer);
	if (ret)
		return ret;
	if (ucmd.user_size < op->min_size)
		return -EINVAL;
	ret = copy_struct_from_user(ucmd.cmd, op->size, ucmd.ubuffer,
				    ucmd.user_size);
	if (ret)
		return ret;
	return op->execute(&ucmd);
}
