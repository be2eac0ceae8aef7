// SPDX-License-Identifier: MIT
/*
 * Issuing /dev/cumc commands, and the one place where an errno becomes a
 * CUresult.
 */
#include <errno.h>
#include <sys/ioctl.h>

#include "internal.h"
#include "log.h"

/* What uapi/linux/cumc.h says each errno means, for every command. */
static CUresult libcumc_common_result(int err)
{
	switch (err) {
	case EFAULT:
	case EINVAL:
	case E2BIG:
		return CUDA_ERROR_INVALID_VALUE;
	case EOPNOTSUPP:
		return CUDA_ERROR_NOT_SUPPORTED;
	case ENODEV:
		return CUDA_ERROR_INVALID_DEVICE;
	case ENOENT:
		return CUDA_ERROR_INVALID_HANDLE;
	case ENOSPC:
	case ENOMEM:
	case EDQUOT:
		return CUDA_ERROR_OUT_OF_MEMORY;
	case EPERM:
	case EACCES:
		return CUDA_ERROR_NOT_PERMITTED;
	case ETIMEDOUT:
		return CUDA_ERROR_SYSTEM_NOT_READY;
	case ENOLINK:
		/* The device fell off the bus: what the real driver answers then. */
		return CUDA_ERROR_UNKNOWN;
	case ENOTTY:
		/* A module older than this library lacks the command. */
		return CUDA_ERROR_SYSTEM_DRIVER_MISMATCH;
	default:
		return CUDA_ERROR_OPERATING_SYSTEM;
	}
}

static CUresult libcumc_errno_to_result(int err,
					const struct libcumc_errno_result *site)
{
	for (; site && site->err; site++)
		if (site->err == err)
			return site->result;
	return libcumc_common_result(err);
}

CUresult libcumc_ioctl(const struct libcumc_driver *drv, unsigned long request,
		       void *arg, const struct libcumc_errno_result *site)
{
	const char *name;
	int ret, err;

	do
		ret = ioctl(drv->fd, request, arg);
	while (ret < 0 && errno == EINTR);
	if (ret == 0)
		return CUDA_SUCCESS;
	err = errno;
	name = libcumc_ioctl_name(request);
	libcumc_log_errno(name ? name : "ioctl", NULL, err);
	return libcumc_errno_to_result(err, site);
}
