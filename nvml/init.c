// SPDX-License-Identifier: MIT
/*
 * nvmlInit and nvmlShutdown: a reference-counted client of /dev/cumc that
 * every device query asks, and the devices' handles.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "internal.h"

/*
 * Queries hold the lock shared, so that nvmlShutdown cannot close the
 * client under one of them.
 */
static pthread_rwlock_t cumc_nvml_lock = PTHREAD_RWLOCK_INITIALIZER;
static unsigned int cumc_nvml_refs;
static int cumc_nvml_fd = -1;
static unsigned int cumc_nvml_num_devices;
static struct nvmlDevice_st cumc_nvml_devices[CUMC_MAX_DEVICES];

/* The module's client; CUMC_DEVICE overrides its path, as for libcumc. */
static nvmlReturn_t cumc_nvml_open(unsigned int flags)
{
	struct cumc_query query = { .size = sizeof(query) };
	const char *path = getenv("CUMC_DEVICE");
	unsigned int i;
	int fd;

	fd = open(path ? path : "/dev/cumc", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENXIO || errno == ENODEV ?
		       NVML_ERROR_DRIVER_NOT_LOADED :
		       errno == EACCES || errno == EPERM ?
		       NVML_ERROR_NO_PERMISSION : NVML_ERROR_UNKNOWN;
	/* Not cumc's device, or a module older than this library. */
	if (ioctl(fd, CUMC_QUERY, &query) || query.api_version < CUMC_API_VERSION) {
		close(fd);
		return NVML_ERROR_LIB_RM_VERSION_MISMATCH;
	}
	if (!query.num_devices && !(flags & NVML_INIT_FLAG_NO_GPUS)) {
		close(fd);
		return NVML_ERROR_GPU_NOT_FOUND;
	}
	for (i = 0; i < CUMC_MAX_DEVICES; i++)
		cumc_nvml_devices[i].ordinal = i;
	cumc_nvml_fd = fd;
	cumc_nvml_num_devices = query.num_devices;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlInitWithFlags(unsigned int flags)
{
	nvmlReturn_t ret = NVML_SUCCESS;

	if (flags & ~(NVML_INIT_FLAG_NO_GPUS | NVML_INIT_FLAG_NO_ATTACH))
		return NVML_ERROR_INVALID_ARGUMENT;
	pthread_rwlock_wrlock(&cumc_nvml_lock);
	if (!cumc_nvml_refs)
		ret = cumc_nvml_open(flags);
	if (ret == NVML_SUCCESS)
		cumc_nvml_refs++;
	pthread_rwlock_unlock(&cumc_nvml_lock);
	return ret;
}

nvmlReturn_t nvmlInit_v2(void)
{
	return nvmlInitWithFlags(0);
}

/* The pre-v2 name: it counted only the GPUs one could attach, here all. */
nvmlReturn_t nvmlInit(void) __attribute__((alias("nvmlInit_v2")));

nvmlReturn_t nvmlShutdown(void)
{
	nvmlReturn_t ret = NVML_SUCCESS;

	pthread_rwlock_wrlock(&cumc_nvml_lock);
	if (!cumc_nvml_refs)
		ret = NVML_ERROR_UNINITIALIZED;
	else if (!--cumc_nvml_refs) {
		close(cumc_nvml_fd);
		cumc_nvml_fd = -1;
	}
	pthread_rwlock_unlock(&cumc_nvml_lock);
	return ret;
}

nvmlReturn_t cumc_nvml_count(unsigned int *count)
{
	nvmlReturn_t ret = NVML_SUCCESS;

	pthread_rwlock_rdlock(&cumc_nvml_lock);
	if (!cumc_nvml_refs)
		ret = NVML_ERROR_UNINITIALIZED;
	else
		*count = cumc_nvml_num_devices;
	pthread_rwlock_unlock(&cumc_nvml_lock);
	return ret;
}

/* The ordinal of @device, or UINT32_MAX when it is no handle of ours. */
static unsigned int cumc_nvml_ordinal(nvmlDevice_t device)
{
	uintptr_t p = (uintptr_t)device, first = (uintptr_t)cumc_nvml_devices;

	if (p < first || (p - first) % sizeof(*device) ||
	    (p - first) / sizeof(*device) >= cumc_nvml_num_devices)
		return UINT32_MAX;
	return device->ordinal;
}

static nvmlReturn_t cumc_nvml_info_locked(unsigned int ordinal,
					  struct cumc_device_info *info)
{
	*info = (struct cumc_device_info){ .size = sizeof(*info),
					   .device = ordinal };
	if (!ioctl(cumc_nvml_fd, CUMC_DEVICE_INFO, info))
		return NVML_SUCCESS;
	/* ENOLINK: the device fell off the bus (Documentation/devices.md). */
	return errno == ENOLINK ? NVML_ERROR_GPU_IS_LOST : NVML_ERROR_UNKNOWN;
}

nvmlReturn_t cumc_nvml_device_info(nvmlDevice_t device,
				   struct cumc_device_info *info)
{
	nvmlReturn_t ret = NVML_ERROR_UNINITIALIZED;
	unsigned int ordinal;

	pthread_rwlock_rdlock(&cumc_nvml_lock);
	if (cumc_nvml_refs) {
		ordinal = cumc_nvml_ordinal(device);
		ret = ordinal == UINT32_MAX ? NVML_ERROR_INVALID_ARGUMENT :
		      cumc_nvml_info_locked(ordinal, info);
	}
	pthread_rwlock_unlock(&cumc_nvml_lock);
	return ret;
}

nvmlReturn_t cumc_nvml_handle(unsigned int ordinal, nvmlDevice_t *device)
{
	struct cumc_device_info info;
	nvmlReturn_t ret = NVML_ERROR_UNINITIALIZED;

	pthread_rwlock_rdlock(&cumc_nvml_lock);
	if (cumc_nvml_refs) {
		ret = ordinal >= cumc_nvml_num_devices ?
		      NVML_ERROR_INVALID_ARGUMENT :
		      cumc_nvml_info_locked(ordinal, &info);
		if (ret == NVML_SUCCESS)
			*device = &cumc_nvml_devices[ordinal];
	}
	pthread_rwlock_unlock(&cumc_nvml_lock);
	return ret;
}
