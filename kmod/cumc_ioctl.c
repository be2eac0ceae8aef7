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
#include "cumc_trace.h"

union cumk_ucmd_buffer {
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
 * After a command succeeded the dispatcher writes its struct back
 * (@respond) and then finalizes the handle it answers, if any; when the
 * answer cannot be written it aborts the handle and calls the command's
 * undo, if it set one. Commands that need more (a descriptor, several
 * mappings) answer by themselves.
 */
struct cumk_ioctl_op {
	unsigned int size;
	unsigned int min_size;
	unsigned int ioctl_num;
	int (*execute)(struct cumk_ucmd *ucmd);
	bool respond;
};

static int cumk_ioctl_finish(const struct cumk_ioctl_op *op,
			     struct cumk_ucmd *ucmd, int ret)
{
	if (!ret && op->respond)
		ret = cumk_ucmd_respond(ucmd, op->size);
	if (!ret) {
		cumk_handle_finalize(ucmd->client, &ucmd->new_handle);
		return 0;
	}
	cumk_handle_abort(ucmd->client, &ucmd->new_handle);
	if (ucmd->undo)
		ucmd->undo(ucmd);
	return ret;
}

/* What the module offers: not any one object's, so answered here. */
static int cumk_ioctl_query(struct cumk_ucmd *ucmd)
{
	struct cumc_query *cmd = ucmd->cmd;

	if (cmd->flags)
		return -EOPNOTSUPP;
	cmd->api_version = CUMC_API_VERSION;
	cmd->num_devices = cumk_num_devices();
	cmd->mc_granularity = cumk_fabric_granularity();
	cmd->mc_page_size = cumk_fabric_page_size();
	return 0;
}

#define CUMK_IOCTL_ENTRY(_ioctl, _fn, _struct, _last, ...)		\
	[_IOC_NR(_ioctl) - CUMC_CMD_BASE] = {				\
		.size = sizeof(_struct) +				\
			BUILD_BUG_ON_ZERO(sizeof(union cumk_ucmd_buffer) < \
					  sizeof(_struct)) +		\
			BUILD_BUG_ON_ZERO(sizeof(_struct) % sizeof(u64)), \
		.min_size = offsetofend(_struct, _last),		\
		.ioctl_num = _ioctl,					\
		.execute = _fn,						\
		__VA_ARGS__						\
	}
/* Commands that only act. */
#define CUMK_IOCTL_OP(_ioctl, _fn, _struct, _last)			\
	CUMK_IOCTL_ENTRY(_ioctl, _fn, _struct, _last)
/* Commands that answer in their struct. */
#define CUMK_IOCTL_OUT(_ioctl, _fn, _struct, _last)			\
	CUMK_IOCTL_ENTRY(_ioctl, _fn, _struct, _last, .respond = true)

static const struct cumk_ioctl_op cumk_ioctl_ops[] = {
	CUMK_IOCTL_OUT(CUMC_QUERY, cumk_ioctl_query, struct cumc_query,
		       num_devices),
	CUMK_IOCTL_OUT(CUMC_DEVICE_INFO, cumk_device_ioctl_info,
		       struct cumc_device_info, granularity),
	CUMK_IOCTL_OUT(CUMC_MEM_CREATE, cumk_mem_ioctl_create,
		       struct cumc_mem_create, out_handle),
	CUMK_IOCTL_OUT(CUMC_MEM_INFO, cumk_mem_ioctl_info,
		       struct cumc_mem_info, out_length),
	CUMK_IOCTL_OP(CUMC_RELEASE, cumk_handle_ioctl_release,
		      struct cumc_release, handle),
	CUMK_IOCTL_OUT(CUMC_VA_RESERVE, cumk_va_ioctl_reserve,
		       struct cumc_va_reserve, out_addr),
	CUMK_IOCTL_OP(CUMC_VA_FREE, cumk_va_ioctl_free,
		      struct cumc_va_free, length),
	CUMK_IOCTL_OP(CUMC_MAP, cumk_va_ioctl_map, struct cumc_map, offset),
	CUMK_IOCTL_OP(CUMC_UNMAP, cumk_va_ioctl_unmap, struct cumc_unmap,
		      length),
	CUMK_IOCTL_OP(CUMC_SET_ACCESS, cumk_va_ioctl_set_access,
		      struct cumc_set_access, __reserved),
	CUMK_IOCTL_OUT(CUMC_VA_QUERY, cumk_va_ioctl_query,
		       struct cumc_va_query, out_access_any),
	CUMK_IOCTL_OP(CUMC_EXPORT_FD, cumk_sharing_ioctl_export_fd,
		      struct cumc_export_fd, __reserved),
	CUMK_IOCTL_OUT(CUMC_IMPORT_FD, cumk_sharing_ioctl_import_fd,
		       struct cumc_import_fd, out_handle),
	CUMK_IOCTL_OUT(CUMC_ATTACH_CHANNEL, cumk_sharing_ioctl_attach_channel,
		       struct cumc_attach_channel, out_channel),
	CUMK_IOCTL_OUT(CUMC_EXPORT_FABRIC, cumk_sharing_ioctl_export_fabric,
		       struct cumc_export_fabric, out_fabric),
	CUMK_IOCTL_OUT(CUMC_IMPORT_FABRIC, cumk_sharing_ioctl_import_fabric,
		       struct cumc_import_fabric, out_handle),
	CUMK_IOCTL_OUT(CUMC_MC_CREATE, cumk_mc_ioctl_create,
		       struct cumc_mc_create, out_handle),
	CUMK_IOCTL_OP(CUMC_MC_ADD_DEVICE, cumk_bind_ioctl_add_device,
		      struct cumc_mc_add_device, __reserved),
	CUMK_IOCTL_OP(CUMC_MC_BIND_MEM, cumk_bind_ioctl_mem,
		      struct cumc_mc_bind, length),
	CUMK_IOCTL_OP(CUMC_MC_BIND_ADDR, cumk_bind_ioctl_addr,
		      struct cumc_mc_bind, length),
	CUMK_IOCTL_OP(CUMC_MC_UNBIND, cumk_bind_ioctl_unbind,
		      struct cumc_mc_unbind, length),
	CUMK_IOCTL_OUT(CUMC_MC_INFO, cumk_mc_ioctl_info,
		       struct cumc_mc_info, __reserved),
	CUMK_IOCTL_OP(CUMC_MC_VIEW, cumk_view_ioctl, struct cumc_mc_view,
		      out_length),
};

long cumk_fops_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	const struct cumk_ioctl_op *op;
	union cumk_ucmd_buffer buf;
	struct cumk_ucmd ucmd = {
		.filp = filp,
		.client = filp->private_data,
		.ubuffer = (void __user *)arg,
		.cmd = &buf,
	};
	unsigned int nr = _IOC_NR(cmd);
	int ret;

	if (nr < CUMC_CMD_BASE ||
	    nr - CUMC_CMD_BASE >= ARRAY_SIZE(cumk_ioctl_ops))
		return -ENOTTY;
	op = &cumk_ioctl_ops[array_index_nospec(nr - CUMC_CMD_BASE,
						ARRAY_SIZE(cumk_ioctl_ops))];
	if (op->ioctl_num != cmd)
		return -ENOTTY;

	ret = get_user(ucmd.user_size, (u32 __user *)ucmd.ubuffer);
	if (ret)
		goto out;
	ret = -EINVAL;
	if (ucmd.user_size < op->min_size)
		goto out;
	ret = cumk_ucmd_read(&ucmd, op->size);
	if (ret)
		goto out;
	ret = cumk_ioctl_finish(op, &ucmd, op->execute(&ucmd));
out:
	/* The handle the command answered, if it made one. */
	trace_cumc_ioctl(nr, ret,
			 !ret && ucmd.new_handle.h ? ucmd.new_handle.id : 0);
	return ret;
}
