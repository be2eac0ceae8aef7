// SPDX-License-Identifier: MIT
/*
 * Allocation properties: what cumc can allocate is pinned device memory,
 * shareable as a POSIX file descriptor or a fabric handle.  A request for
 * something the API defines but cumc does not implement is
 * CUDA_ERROR_NOT_SUPPORTED, in line with the attributes answering 0 for
 * it; a value the API does not define is CUDA_ERROR_INVALID_VALUE.
 */
#include <string.h>

#include "mem_prop.h"

#define CUMC_WIN32_HANDLE_TYPES \
	(CU_MEM_HANDLE_TYPE_WIN32 | CU_MEM_HANDLE_TYPE_WIN32_KMT)
#define CUMC_DEFINED_HANDLE_TYPES						\
	(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR | CUMC_WIN32_HANDLE_TYPES |	\
	 CU_MEM_HANDLE_TYPE_FABRIC)
#define CUMC_DEFINED_USAGE \
	(CU_MEM_CREATE_USAGE_TILE_POOL | CU_MEM_CREATE_USAGE_HW_DECOMPRESS)

static CUresult libcumc_location_check(const struct libcumc_driver *drv,
				       const CUmemAllocationProp *prop)
{
	switch (prop->location.type) {
	case CU_MEM_LOCATION_TYPE_DEVICE:
		return libcumc_check_device(drv, prop->location.id);
	case CU_MEM_LOCATION_TYPE_HOST:
		/* Host allocations cannot be shared, whoever implements them. */
		if (prop->requestedHandleTypes)
			return CUDA_ERROR_INVALID_VALUE;
		return CUDA_ERROR_NOT_SUPPORTED;
	case CU_MEM_LOCATION_TYPE_HOST_NUMA:
		return CUDA_ERROR_NOT_SUPPORTED;
	default:
		/* HOST_NUMA_CURRENT included: the documentation refuses it. */
		return CUDA_ERROR_INVALID_VALUE;
	}
}

static CUresult libcumc_handle_types_check(CUmemAllocationHandleType types)
{
	if (types & ~CUMC_DEFINED_HANDLE_TYPES)
		return CUDA_ERROR_INVALID_VALUE;
	if (types & CUMC_WIN32_HANDLE_TYPES)
		return CUDA_ERROR_NOT_SUPPORTED;
	return CUDA_SUCCESS;
}

/*
 * Compression is a hint: the documentation has programs check the
 * properties of what they got, so a GENERIC request is granted
 * uncompressed memory, as on a device without compression.
 */
static CUresult libcumc_alloc_flags_check(const CUmemAllocationProp *prop)
{
	static const unsigned char zero[sizeof(prop->allocFlags.reserved)];

	if (prop->allocFlags.compressionType != CU_MEM_ALLOCATION_COMP_NONE &&
	    prop->allocFlags.compressionType != CU_MEM_ALLOCATION_COMP_GENERIC)
		return CUDA_ERROR_INVALID_VALUE;
	if (prop->allocFlags.usage & ~CUMC_DEFINED_USAGE ||
	    memcmp(prop->allocFlags.reserved, zero, sizeof(zero)))
		return CUDA_ERROR_INVALID_VALUE;
	/* Neither sparse tile pools, decompression nor GPUDirect RDMA. */
	if (prop->allocFlags.usage || prop->allocFlags.gpuDirectRDMACapable)
		return CUDA_ERROR_NOT_SUPPORTED;
	return CUDA_SUCCESS;
}

CUresult libcumc_mem_prop_check(const struct libcumc_driver *drv,
				const CUmemAllocationProp *prop,
				__u32 *handle_types)
{
	CUresult res;

	/* MANAGED is for memory pools, not for cuMemCreate. */
	if (prop->type != CU_MEM_ALLOCATION_TYPE_PINNED)
		return CUDA_ERROR_INVALID_VALUE;
	/* Windows security attributes: the header requires NULL elsewhere. */
	if (prop->win32HandleMetaData)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_handle_types_check(prop->requestedHandleTypes);
	if (res == CUDA_SUCCESS)
		res = libcumc_location_check(drv, prop);
	if (res == CUDA_SUCCESS)
		res = libcumc_alloc_flags_check(prop);
	if (res != CUDA_SUCCESS)
		return res;
	*handle_types = 0;
	if (prop->requestedHandleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
		*handle_types |= CUMC_HANDLE_FD;
	if (prop->requestedHandleTypes & CU_MEM_HANDLE_TYPE_FABRIC)
		*handle_types |= CUMC_HANDLE_FABRIC;
	return CUDA_SUCCESS;
}

unsigned int libcumc_cuda_handle_types(__u32 handle_types)
{
	unsigned int types = CU_MEM_HANDLE_TYPE_NONE;

	if (handle_types & CUMC_HANDLE_FD)
		types |= CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	if (handle_types & CUMC_HANDLE_FABRIC)
		types |= CU_MEM_HANDLE_TYPE_FABRIC;
	return types;
}

void libcumc_mem_prop_fill(CUmemAllocationProp *prop,
			   const struct cumc_mem_info *info)
{
	unsigned int types = libcumc_cuda_handle_types(info->out_handle_types);

	memset(prop, 0, sizeof(*prop));
	prop->type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop->requestedHandleTypes = (CUmemAllocationHandleType)types;
	prop->location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop->location.id = info->out_device;
}
