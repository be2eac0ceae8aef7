// SPDX-License-Identifier: MIT
/*
 * Device management: the simulated devices as CUDA devices, each described
 * by the module's CUMC_DEVICE_INFO.
 */
#include <stdio.h>
#include <string.h>

#include "device_attr.h"
#include "entry.h"
#include "internal.h"

CUresult libcumc_check_device(const struct libcumc_driver *drv, CUdevice dev)
{
	if (dev < 0 || (unsigned int)dev >= drv->num_devices)
		return CUDA_ERROR_INVALID_DEVICE;
	return CUDA_SUCCESS;
}

CUresult libcumc_device_info(const struct libcumc_driver *drv, CUdevice dev,
			     struct cumc_device_info *info)
{
	CUresult res = libcumc_check_device(drv, dev);

	if (res != CUDA_SUCCESS)
		return res;
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->device = dev;
	return libcumc_ioctl(drv, CUMC_DEVICE_INFO, info, NULL);
}

/* The driver and the CUMC_DEVICE_INFO of @dev, for an entry point's output. */
static CUresult libcumc_query_device(CUdevice dev, const void *output,
				     struct cumc_device_info *info)
{
	const struct libcumc_driver *drv;
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	if (!output)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_device_info(drv, dev, info);
}

CUresult libcumc_impl_cuDeviceGet(const struct libcumc_driver *drv,
				  CUdevice *device, int ordinal)
{
	CUresult res;

	if (!device)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_check_device(drv, ordinal);
	if (res == CUDA_SUCCESS)
		*device = ordinal;
	return res;
}

CUresult libcumc_impl_cuDeviceGetCount(const struct libcumc_driver *drv,
				       int *count)
{
	if (!count)
		return CUDA_ERROR_INVALID_VALUE;
	*count = drv->num_devices;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev)
{
	struct cumc_device_info info;
	CUresult res = libcumc_query_device(dev, name, &info);

	if (res != CUDA_SUCCESS)
		return res;
	/* No room even for the terminating NUL is not a usable buffer. */
	if (len <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	snprintf(name, len, "%.*s", (int)sizeof(info.name), info.name);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
	struct cumc_device_info info;
	CUresult res = libcumc_query_device(dev, uuid, &info);

	if (res == CUDA_SUCCESS)
		memcpy(uuid->bytes, info.uuid, sizeof(uuid->bytes));
	return res;
}

/* The pre-11.4 name: without MIG, the UUID it gives is the same. */
#undef cuDeviceGetUuid
CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
	__attribute__((alias("cuDeviceGetUuid_v2")));

CUresult CUDAAPI cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
	struct cumc_device_info info;
	CUresult res = libcumc_query_device(dev, bytes, &info);

	if (res == CUDA_SUCCESS)
		*bytes = info.mem_total;
	return res;
}

CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib,
				      CUdevice dev)
{
	struct cumc_device_info info;
	struct libcumc_device_attr_dev attr_dev;
	CUresult res = libcumc_query_device(dev, pi, &info);

	if (res != CUDA_SUCCESS)
		return res;
	attr_dev.ordinal = dev;
	attr_dev.pci_domain = info.pci_domain;
	attr_dev.pci_bus = info.pci_bus;
	attr_dev.pci_device = info.pci_device;
	attr_dev.multicast = !!(info.caps & CUMC_CAP_MULTICAST);
	return libcumc_device_attribute_value(&attr_dev, attrib, pi);
}
