// SPDX-License-Identifier: MIT
/*
 * Device memory: physical allocations (CUMC_MEM_CREATE and friends) and
 * how much of a device is free.
 */
#include <errno.h>

#include "entry.h"
#include "mem_prop.h"
#include "memory.h"

/* An unknown handle: the documented errors name no other code for it. */
static const struct libcumc_errno_result
libcumc_bad_handle_is_invalid_value[] = {
	{ ENOENT, CUDA_ERROR_INVALID_VALUE },
	{ 0 }
};

CUresult libcumc_impl_cuMemGetInfo_v2(const struct libcumc_driver *drv,
				      size_t *free, size_t *total)
{
	struct cumc_device_info info;
	CUdevice dev;
	CUresult res;

	if (!free || !total)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_current_device_info(drv, &dev, &info);
	if (res != CUDA_SUCCESS)
		return res;
	*free = info.mem_free;
	*total = info.mem_total;
	return CUDA_SUCCESS;
}

/* What NVIDIA's driver 580 answers for host memory (measured). */
#define CUMC_HOST_GRANULARITY (2UL << 20)

/*
 * NCCL probes host-NUMA granularity before it tries host VMM memory: the
 * answer is the real driver's, 2 MiB for a HOST or HOST_NUMA location
 * (driver 580 answers it for any node id, and for a HOST location with
 * handle types, which cuMemCreate refuses).  The rest of @prop is checked
 * as for a device.
 * cuMemCreate of host memory stays CUDA_ERROR_NOT_SUPPORTED (the module
 * has device memory only), which HOST_NUMA_ID (-1) and the HOST_*VIRTUAL_
 * MEMORY_MANAGEMENT_SUPPORTED attributes (0) announce.
 */
static CUresult libcumc_host_granularity(const struct libcumc_driver *drv,
					 const CUmemAllocationProp *prop,
					 size_t *granularity)
{
	CUmemAllocationProp as_device = *prop;
	__u32 handle_types;
	CUresult res;

	as_device.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	as_device.location.id = 0;
	res = libcumc_mem_prop_check(drv, &as_device, &handle_types);
	if (res == CUDA_SUCCESS)
		*granularity = CUMC_HOST_GRANULARITY;
	return res;
}

/* MINIMUM and RECOMMENDED are one value: the device's granularity. */
CUresult libcumc_impl_cuMemGetAllocationGranularity(
	const struct libcumc_driver *drv, size_t *granularity,
	const CUmemAllocationProp *prop,
	CUmemAllocationGranularity_flags option)
{
	struct cumc_device_info info;
	__u32 handle_types;
	CUresult res;

	if (!granularity || !prop ||
	    (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM &&
	     option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
		return CUDA_ERROR_INVALID_VALUE;
	if (prop->location.type == CU_MEM_LOCATION_TYPE_HOST_NUMA ||
	    prop->location.type == CU_MEM_LOCATION_TYPE_HOST)
		return libcumc_host_granularity(drv, prop, granularity);
	res = libcumc_mem_prop_check(drv, prop, &handle_types);
	if (res == CUDA_SUCCESS)
		res = libcumc_device_info(drv, prop->location.id, &info);
	/* Its documented errors have no INVALID_DEVICE: a bad id is a value. */
	if (res == CUDA_ERROR_INVALID_DEVICE)
		return CUDA_ERROR_INVALID_VALUE;
	if (res == CUDA_SUCCESS)
		*granularity = info.granularity;
	return res;
}

/* The module checks that length is a non-zero multiple of the granularity. */
CUresult libcumc_mem_create(const struct libcumc_driver *drv, CUdevice dev,
			    size_t length, __u32 handle_types, __u64 *handle)
{
	struct cumc_mem_create create = {
		.size = sizeof(create),
		.device = dev,
		.handle_types = handle_types,
		.length = length,
	};
	CUresult res = libcumc_ioctl(drv, CUMC_MEM_CREATE, &create, NULL);

	if (res == CUDA_SUCCESS)
		*handle = create.out_handle;
	return res;
}

CUresult libcumc_release_handle(const struct libcumc_driver *drv,
				__u64 handle)
{
	struct cumc_release release = {
		.size = sizeof(release),
		.handle = handle,
	};

	return libcumc_ioctl(drv, CUMC_RELEASE, &release,
			     libcumc_bad_handle_is_invalid_value);
}

CUresult libcumc_impl_cuMemCreate(const struct libcumc_driver *drv,
				  CUmemGenericAllocationHandle *handle,
				  size_t size, const CUmemAllocationProp *prop,
				  unsigned long long flags)
{
	__u32 handle_types;
	CUresult res;

	if (!handle || !prop || flags)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_mem_prop_check(drv, prop, &handle_types);
	if (res != CUDA_SUCCESS)
		return res;
	return libcumc_mem_create(drv, prop->location.id, size, handle_types,
				  handle);
}

CUresult libcumc_impl_cuMemRelease(const struct libcumc_driver *drv,
				   CUmemGenericAllocationHandle handle)
{
	return libcumc_release_handle(drv, handle);
}

CUresult CUDAAPI cuMemGetAllocationPropertiesFromHandle(
			CUmemAllocationProp *prop,
			CUmemGenericAllocationHandle handle)
{
	const struct libcumc_driver *drv;
	struct cumc_mem_info info = {
		.size = sizeof(info),
		.handle = handle,
	};
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	if (!prop)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_ioctl(drv, CUMC_MEM_INFO, &info,
			    libcumc_bad_handle_is_invalid_value);
	if (res == CUDA_SUCCESS)
		libcumc_mem_prop_fill(prop, &info);
	return res;
}
