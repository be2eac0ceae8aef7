// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl dispatch: one table, size-first extensible structs.
 *
 * Each command names the kernel's struct and the last member it has always
 * had; the caller's size must reach that member. copy_struct_from_user()
 * zero-fills a shorter struct and refuses a longer one with a non-zero tail,
 * so old binaries keep working and new ones fail loudly on old modules.
 */
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/uaccess.h>

#include "cumc_internal.h"

struct cumc_ucmd {
	struct file *filp;
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
	struct cumc_va_reserve va_reserve;
	struct cumc_va_free va_free;
	struct cumc_map map;
	struct cumc_unmap unmap;
	struct cumc_set_access set_access;
	struct cumc_va_query va_query;
	struct cumc_export_fd export_fd;
	struct cumc_import_fd import_fd;
	struct cumc_attach_channel attach_channel;
	struct cumc_export_fabric export_fabric;
	struct cumc_import_fabric import_fabric;
	struct cumc_mc_create mc_create;
	struct cumc_mc_add_device mc_add_device;
	struct cumc_mc_bind mc_bind;
	struct cumc_mc_unbind mc_unbind;
	struct cumc_mc_info mc_info;
	struct cumc_mc_view mc_view;
};

/*
 * What the dispatcher does after a command succeeded: write the struct back
 * (@respond), and when that fails, undo what the command made visible: the
 * handle at offset @undo_handle, the mapping at offsets @undo_addr and
 * @undo_len of the struct (an offset of 0 is the size member: none).
 */
struct cumc_ioctl_op {
	unsigned int size;
	unsigned int min_size;
	unsigned int ioctl_num;
	int (*execute)(struct cumc_ucmd *ucmd);
	bool respond;
	u16 undo_handle;
	u16 undo_addr;
	u16 undo_len;
};

/* Write the command's struct back, no more of it than the caller has. */
static int cumc_ucmd_respond(struct cumc_ucmd *ucmd, size_t cmd_len)
{
	if (copy_to_user(ucmd->ubuffer, ucmd->cmd,
			 min_t(size_t, ucmd->user_size, cmd_len)))
		return -EFAULT;
	return 0;
}

static u64 cumc_ucmd_u64(struct cumc_ucmd *ucmd, unsigned int offset)
{
	return *(u64 *)((char *)ucmd->cmd + offset);
}

static int cumc_ioctl_finish(const struct cumc_ioctl_op *op,
			     struct cumc_ucmd *ucmd)
{
	int ret;

	if (!op->respond)
		return 0;
	ret = cumc_ucmd_respond(ucmd, op->size);
	if (!ret)
		return 0;
	if (op->undo_handle)
		cumc_handle_release(ucmd->client,
				    cumc_ucmd_u64(ucmd, op->undo_handle));
	if (op->undo_addr)
		vm_munmap(cumc_ucmd_u64(ucmd, op->undo_addr),
			  cumc_ucmd_u64(ucmd, op->undo_len));
	return ret;
}

static int cumc_query(struct cumc_ucmd *ucmd)
{
	struct cumc_query *cmd = ucmd->cmd;

	if (cmd->flags)
		return -EOPNOTSUPP;
	cmd->api_version = CUMC_API_VERSION;
	cmd->num_devices = cumc_num_devices();
	cmd->mc_granularity = cumc_mc_granularity();
	cmd->mc_page_size = cumc_mc_page_size();
	return 0;
}

static int cumc_ioctl_device_info(struct cumc_ucmd *ucmd)
{
	return cumc_device_info(ucmd->cmd);
}

static int cumc_ioctl_release(struct cumc_ucmd *ucmd)
{
	struct cumc_release *cmd = ucmd->cmd;

	if (cmd->flags)
		return -EOPNOTSUPP;
	return cumc_handle_release(ucmd->client, cmd->handle);
}

/* The descriptor becomes visible only once the caller has its number. */
static int cumc_ioctl_export_fd(struct cumc_ucmd *ucmd)
{
	struct cumc_export_fd *cmd = ucmd->cmd;
	struct file *filp;
	int fd, ret;

	if (cmd->flags || cmd->__reserved)
		return -EOPNOTSUPP;
	fd = cumc_export_fd_prepare(ucmd->client, cmd->handle, &filp);
	if (fd < 0)
		return fd;
	cmd->out_fd = fd;
	ret = cumc_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret) {
		cumc_export_fd_abort(fd, filp);
		return ret;
	}
	fd_install(fd, filp);
	return 0;
}

static int cumc_ioctl_mem_create(struct cumc_ucmd *ucmd)
{
	return cumc_mem_create(ucmd->client, ucmd->cmd);
}

static int cumc_ioctl_mem_info(struct cumc_ucmd *ucmd)
{
	return cumc_mem_info(ucmd->client, ucmd->cmd);
}

static int cumc_ioctl_va_reserve(struct cumc_ucmd *ucmd)
{
	return cumc_va_reserve(ucmd->filp, ucmd->cmd);
}

static int cumc_ioctl_va_free(struct cumc_ucmd *ucmd)
{
	return cumc_va_free(ucmd->client, ucmd->cmd);
}

static int cumc_ioctl_map(struct cumc_ucmd *ucmd)
{
	return cumc_map(ucmd->client, ucmd->cmd);
}

static int cumc_ioctl_unmap(struct cumc_ucmd *ucmd)
{
	return cumc_unmap(ucmd->client, ucmd->cmd);
}

static int cumc_ioctl_set_access(struct cumc_ucmd *ucmd)
{
	return cumc_set_access(ucmd->client, ucmd->cmd);
}

static int cumc_ioctl_va_query(struct cumc_ucmd *ucmd)
{
	return cumc_va_query(ucmd->client, ucmd->cmd);
}

static int cumc_ioctl_import_fd(struct cumc_ucmd *ucmd)
{
	return cumc_import_fd(ucmd->client, ucmd->cmd);
}

static int cumc_ioctl_attach_channel(struct cumc_ucmd *ucmd)
{
	return cumc_attach_channel(ucmd->client, ucmd->cmd);
}

static int cumc_ioctl_export_fabric(struct cumc_ucmd *ucmd)
{
	return cumc_export_fabric(ucmd->client, ucmd->cmd);
}

static int cumc_ioctl_import_fabric(struct cumc_ucmd *ucmd)
{
	return cumc_import_fabric(ucmd->client, ucmd->cmd);
}

static int cumc_ioctl_mc_create(struct cumc_ucmd *ucmd)
{
	return cumc_mc_create(ucmd->client, ucmd->cmd);
}

static int cumc_ioctl_mc_add_device(struct cumc_ucmd *ucmd)
{
	return cumc_mc_add_device(ucmd->client, ucmd->cmd);
}

static int cumc_ioctl_mc_unbind(struct cumc_ucmd *ucmd)
{
	return cumc_fabric_unbind(ucmd->client, ucmd->cmd);
}

static int cumc_ioctl_mc_info(struct cumc_ucmd *ucmd)
{
	return cumc_mc_info(ucmd->client, ucmd->cmd);
}

static int cumc_ioctl_mc_view(struct cumc_ucmd *ucmd)
{
	return cumc_fabric_view(ucmd->filp, ucmd->cmd);
}

static int cumc_ioctl_mc_bind_mem(struct cumc_ucmd *ucmd)
{
	return cumc_fabric_bind(ucmd->client, ucmd->cmd, false);
}

static int cumc_ioctl_mc_bind_addr(struct cumc_ucmd *ucmd)
{
	return cumc_fabric_bind(ucmd->client, ucmd->cmd, true);
}

#define CUMC_IOCTL_ENTRY(_ioctl, _fn, _struct, _last, ...)		\
	[_IOC_NR(_ioctl) - CUMC_CMD_BASE] = {				\
		.size = sizeof(_struct) +				\
			BUILD_BUG_ON_ZERO(sizeof(union cumc_ucmd_buffer) < \
					  sizeof(_struct)),		\
		.min_size = offsetofend(_struct, _last),		\
		.ioctl_num = _ioctl,					\
		.execute = _fn,						\
		__VA_ARGS__						\
	}
/* Commands that only act. */
#define CUMC_IOCTL_OP(_ioctl, _fn, _struct, _last)			\
	CUMC_IOCTL_ENTRY(_ioctl, _fn, _struct, _last)
/* Commands that answer in their struct. */
#define CUMC_IOCTL_OUT(_ioctl, _fn, _struct, _last)			\
	CUMC_IOCTL_ENTRY(_ioctl, _fn, _struct, _last, .respond = true)
/* Commands that answer a new handle, released if the answer is lost. */
#define CUMC_IOCTL_NEW_HANDLE(_ioctl, _fn, _struct, _last, _handle)	\
	CUMC_IOCTL_ENTRY(_ioctl, _fn, _struct, _last, .respond = true,	\
			 .undo_handle = offsetof(_struct, _handle))
/* Commands that answer a new mapping, unmapped if the answer is lost. */
#define CUMC_IOCTL_NEW_MAPPING(_ioctl, _fn, _struct, _last, _addr, _len) \
	CUMC_IOCTL_ENTRY(_ioctl, _fn, _struct, _last, .respond = true,	\
			 .undo_addr = offsetof(_struct, _addr),		\
			 .undo_len = offsetof(_struct, _len))

static const struct cumc_ioctl_op cumc_ioctl_ops[] = {
	CUMC_IOCTL_OUT(CUMC_QUERY, cumc_query, struct cumc_query, num_devices),
	CUMC_IOCTL_OUT(CUMC_DEVICE_INFO, cumc_ioctl_device_info,
		       struct cumc_device_info, granularity),
	CUMC_IOCTL_NEW_HANDLE(CUMC_MEM_CREATE, cumc_ioctl_mem_create,
			      struct cumc_mem_create, out_handle, out_handle),
	CUMC_IOCTL_OUT(CUMC_MEM_INFO, cumc_ioctl_mem_info,
		       struct cumc_mem_info, out_length),
	CUMC_IOCTL_OP(CUMC_RELEASE, cumc_ioctl_release,
		      struct cumc_release, handle),
	CUMC_IOCTL_NEW_MAPPING(CUMC_VA_RESERVE, cumc_ioctl_va_reserve,
			       struct cumc_va_reserve, out_addr, out_addr,
			       length),
	CUMC_IOCTL_OP(CUMC_VA_FREE, cumc_ioctl_va_free,
		      struct cumc_va_free, length),
	CUMC_IOCTL_OP(CUMC_MAP, cumc_ioctl_map, struct cumc_map, offset),
	CUMC_IOCTL_OP(CUMC_UNMAP, cumc_ioctl_unmap, struct cumc_unmap, length),
	CUMC_IOCTL_OP(CUMC_SET_ACCESS, cumc_ioctl_set_access,
		      struct cumc_set_access, __reserved),
	/* A retained handle is counted like a new one: undone the same way. */
	CUMC_IOCTL_NEW_HANDLE(CUMC_VA_QUERY, cumc_ioctl_va_query,
			      struct cumc_va_query, out_access_any, out_handle),
	CUMC_IOCTL_OP(CUMC_EXPORT_FD, cumc_ioctl_export_fd,
		      struct cumc_export_fd, __reserved),
	CUMC_IOCTL_NEW_HANDLE(CUMC_IMPORT_FD, cumc_ioctl_import_fd,
			      struct cumc_import_fd, out_handle, out_handle),
	CUMC_IOCTL_OUT(CUMC_ATTACH_CHANNEL, cumc_ioctl_attach_channel,
		       struct cumc_attach_channel, out_channel),
	CUMC_IOCTL_OUT(CUMC_EXPORT_FABRIC, cumc_ioctl_export_fabric,
		       struct cumc_export_fabric, out_fabric),
	CUMC_IOCTL_NEW_HANDLE(CUMC_IMPORT_FABRIC, cumc_ioctl_import_fabric,
			      struct cumc_import_fabric, out_handle, out_handle),
	CUMC_IOCTL_NEW_HANDLE(CUMC_MC_CREATE, cumc_ioctl_mc_create,
			      struct cumc_mc_create, out_handle, out_handle),
	CUMC_IOCTL_OP(CUMC_MC_ADD_DEVICE, cumc_ioctl_mc_add_device,
		      struct cumc_mc_add_device, __reserved),
	CUMC_IOCTL_OP(CUMC_MC_BIND_MEM, cumc_ioctl_mc_bind_mem,
		      struct cumc_mc_bind, length),
	CUMC_IOCTL_OP(CUMC_MC_BIND_ADDR, cumc_ioctl_mc_bind_addr,
		      struct cumc_mc_bind, length),
	CUMC_IOCTL_OP(CUMC_MC_UNBIND, cumc_ioctl_mc_unbind,
		      struct cumc_mc_unbind, length),
	CUMC_IOCTL_OUT(CUMC_MC_INFO, cumc_ioctl_mc_info,
		       struct cumc_mc_info, __reserved),
	CUMC_IOCTL_NEW_MAPPING(CUMC_MC_VIEW, cumc_ioctl_mc_view,
			       struct cumc_mc_view, out_length, out_addr,
			       out_length),
};

long cumc_fops_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	const struct cumc_ioctl_op *op;
	union cumc_ucmd_buffer buf;
	struct cumc_ucmd ucmd = {
		.filp = filp,
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
	ret = op->execute(&ucmd);
	if (ret)
		return ret;
	return cumc_ioctl_finish(op, &ucmd);
}
