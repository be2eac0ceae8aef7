// SPDX-License-Identifier: MIT
/*
 * Multicast objects: cuMulticastCreate, the team, binding memory.
 *
 * Mapping (cuMemMap), access, export and release of a multicast handle go
 * through the same entry points as an allocation's; the module tells the
 * two apart.
 */
#include <errno.h>
#include <stdbool.h>

#include "entry.h"
#include "internal.h"

/* What every multicast entry point's errno means beyond the common table. */
static const struct libcumc_errno_result libcumc_mc_errors[] = {
	/* The documented errors name no INVALID_HANDLE. */
	{ ENOENT, CUDA_ERROR_INVALID_VALUE },
	/* A device added twice, a range bound twice. */
	{ EEXIST, CUDA_ERROR_INVALID_VALUE },
	/* A range that was never bound; an address mapped to no allocation. */
	{ ENXIO, CUDA_ERROR_INVALID_VALUE },
	/* The team failed to form: the system is in an illegal state. */
	{ EIO, CUDA_ERROR_ILLEGAL_STATE },
	{ 0 }
};

/* The multicast handle types cumc offers, as CUMC_HANDLE_* bits. */
static CUresult libcumc_mc_handle_types(unsigned long long types, __u32 *out)
{
	if (types & ~(unsigned long long)(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR |
					  CU_MEM_HANDLE_TYPE_FABRIC))
		return CUDA_ERROR_INVALID_VALUE;
	*out = 0;
	if (types & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
		*out |= CUMC_HANDLE_FD;
	if (types & CU_MEM_HANDLE_TYPE_FABRIC)
		*out |= CUMC_HANDLE_FABRIC;
	return CUDA_SUCCESS;
}

static CUresult libcumc_mc_prop_check(const struct libcumc_driver *drv,
				      const CUmulticastObjectProp *prop,
				      __u32 *handle_types)
{
	CUresult res;

	if (!prop || prop->flags)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_mc_handle_types(prop->handleTypes, handle_types);
	if (res != CUDA_SUCCESS)
		return res;
	/*
	 * A team shared by fabric handle may span nodes (the module knows
	 * whether this one is in a multi-node fabric); any other is this
	 * node's devices.
	 */
	if (prop->numDevices > (*handle_types & CUMC_HANDLE_FABRIC ?
				CUMC_MAX_DEVICES : drv->num_devices))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

static size_t libcumc_pow2_floor(size_t x)
{
	return x ? (size_t)1 << (63 - __builtin_clzll(x)) : 0;
}

/*
 * RECOMMENDED grows with the size: the largest power of two at most an
 * eighth of it, so rounding the size up to it wastes at most an eighth,
 * kept between the minimum and the fabric page size.
 */
static size_t
libcumc_mc_recommended_granularity(const struct libcumc_driver *drv,
				   size_t size)
{
	size_t granularity = libcumc_pow2_floor(size / 8);

	if (granularity < drv->mc_granularity)
		return drv->mc_granularity;
	if (granularity > drv->mc_page_size)
		return drv->mc_page_size;
	return granularity;
}

/*
 * NOT_SUPPORTED when no device of this process can join a team, as the
 * real driver answers without NVSwitch or fabric manager: the module says
 * so in each device's CUMC_CAP_MULTICAST.
 */
static CUresult libcumc_mc_supported(const struct libcumc_driver *drv)
{
	struct cumc_device_info info;
	CUresult res;
	CUdevice dev;

	for (dev = 0; dev < (CUdevice)drv->num_devices; dev++) {
		res = libcumc_device_info(drv, dev, &info);
		if (res != CUDA_SUCCESS)
			return res;
		if (info.caps & CUMC_CAP_MULTICAST)
			return CUDA_SUCCESS;
	}
	return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult libcumc_impl_cuMulticastGetGranularity(
	const struct libcumc_driver *drv, size_t *granularity,
	const CUmulticastObjectProp *prop, CUmulticastGranularity_flags option)
{
	__u32 handle_types;
	CUresult res;

	if (!granularity)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_mc_prop_check(drv, prop, &handle_types);
	if (res == CUDA_SUCCESS)
		res = libcumc_mc_supported(drv);
	if (res != CUDA_SUCCESS)
		return res;
	switch (option) {
	case CU_MULTICAST_GRANULARITY_MINIMUM:
		*granularity = drv->mc_granularity;
		return CUDA_SUCCESS;
	case CU_MULTICAST_GRANULARITY_RECOMMENDED:
		*granularity = libcumc_mc_recommended_granularity(drv,
								  prop->size);
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

CUresult CUDAAPI cuMulticastCreate(CUmemGenericAllocationHandle *mcHandle,
				   const CUmulticastObjectProp *prop)
{
	struct cumc_mc_create create = { .size = sizeof(create) };
	const struct libcumc_driver *drv;
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	if (!mcHandle)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_mc_prop_check(drv, prop, &create.handle_types);
	if (res != CUDA_SUCCESS)
		return res;
	create.num_devices = prop->numDevices;
	create.length = prop->size;
	res = libcumc_ioctl(drv, CUMC_MC_CREATE, &create, libcumc_mc_errors);
	if (res == CUDA_SUCCESS)
		*mcHandle = create.out_handle;
	return res;
}

CUresult CUDAAPI cuMulticastAddDevice(CUmemGenericAllocationHandle mcHandle,
				      CUdevice dev)
{
	struct cumc_mc_add_device add = {
		.size = sizeof(add),
		.handle = mcHandle,
		.device = (__u32)dev,
	};
	const struct libcumc_driver *drv;
	CUresult res = libcumc_driver(&drv);

	if (res == CUDA_SUCCESS)
		res = libcumc_check_device(drv, dev);
	if (res != CUDA_SUCCESS)
		return res;
	return libcumc_ioctl(drv, CUMC_MC_ADD_DEVICE, &add, libcumc_mc_errors);
}

/*
 * Bind by allocation handle or (@request BIND_ADDR) by address, for @dev
 * (the _v2 binds: it must exist) or, @of_mem, for the device the memory
 * lives on, which the module finds in the same command. An unknown memory
 * handle is ENOENT, an address not mapped to an allocation ENXIO, memory of
 * a device that is no member EINVAL: all CUDA_ERROR_INVALID_VALUE.
 */
static CUresult libcumc_mc_bind(unsigned long request, bool of_mem,
				CUdevice dev, CUmemGenericAllocationHandle mc,
				size_t mc_offset, __u64 mem, size_t mem_offset,
				size_t size, unsigned long long flags)
{
	struct cumc_mc_bind bind = {
		.size = sizeof(bind),
		.handle = mc,
		.device = of_mem ? 0 : (__u32)dev,
		.mc_offset = mc_offset,
		.mem = mem,
		.mem_offset = mem_offset,
		.length = size,
		.device_from = of_mem ? CUMC_MC_BIND_DEVICE_OF_MEM :
					CUMC_MC_BIND_DEVICE_GIVEN,
	};
	const struct libcumc_driver *drv;
	CUresult res = libcumc_driver(&drv);

	if (res == CUDA_SUCCESS && !of_mem)
		res = libcumc_check_device(drv, dev);
	if (res != CUDA_SUCCESS)
		return res;
	if (flags)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_ioctl(drv, request, &bind, libcumc_mc_errors);
}

CUresult CUDAAPI cuMulticastBindMem(CUmemGenericAllocationHandle mcHandle,
				    size_t mcOffset,
				    CUmemGenericAllocationHandle memHandle,
				    size_t memOffset, size_t size,
				    unsigned long long flags)
{
	return libcumc_mc_bind(CUMC_MC_BIND_MEM, true, 0, mcHandle, mcOffset,
			       memHandle, memOffset, size, flags);
}

CUresult CUDAAPI cuMulticastBindMem_v2(CUmemGenericAllocationHandle mcHandle,
				       CUdevice dev, size_t mcOffset,
				       CUmemGenericAllocationHandle memHandle,
				       size_t memOffset, size_t size,
				       unsigned long long flags)
{
	return libcumc_mc_bind(CUMC_MC_BIND_MEM, false, dev, mcHandle,
			       mcOffset, memHandle, memOffset, size, flags);
}

CUresult CUDAAPI cuMulticastBindAddr(CUmemGenericAllocationHandle mcHandle,
				     size_t mcOffset, CUdeviceptr memptr,
				     size_t size, unsigned long long flags)
{
	return libcumc_mc_bind(CUMC_MC_BIND_ADDR, true, 0, mcHandle, mcOffset,
			       memptr, 0, size, flags);
}

CUresult CUDAAPI cuMulticastBindAddr_v2(CUmemGenericAllocationHandle mcHandle,
					CUdevice dev, size_t mcOffset,
					CUdeviceptr memptr, size_t size,
					unsigned long long flags)
{
	return libcumc_mc_bind(CUMC_MC_BIND_ADDR, false, dev, mcHandle,
			       mcOffset, memptr, 0, size, flags);
}

CUresult CUDAAPI cuMulticastUnbind(CUmemGenericAllocationHandle mcHandle,
				   CUdevice dev, size_t mcOffset, size_t size)
{
	struct cumc_mc_unbind unbind = {
		.size = sizeof(unbind),
		.handle = mcHandle,
		.device = (__u32)dev,
		.mc_offset = mcOffset,
		.length = size,
	};
	const struct libcumc_driver *drv;
	CUresult res = libcumc_driver(&drv);

	if (res == CUDA_SUCCESS)
		res = libcumc_check_device(drv, dev);
	if (res != CUDA_SUCCESS)
		return res;
	return libcumc_ioctl(drv, CUMC_MC_UNBIND, &unbind, libcumc_mc_errors);
}
