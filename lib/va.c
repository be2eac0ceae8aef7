// SPDX-License-Identifier: MIT
/*
 * The device address space: reservations (cuMemAddressReserve/Free),
 * mappings (cuMemMap/Unmap), access (cuMemSetAccess/GetAccess) and what is
 * mapped where (cuMemRetainAllocationHandle, cuMemGetAddressRange).  The
 * module owns all of it: a reservation is a mapping it makes in the calling
 * process, so a device address is an ordinary pointer that the CPU, standing
 * in for every device, loads and stores through once access is granted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mc_views.h"
#include "va.h"

/*
 * The documented errors of free, unmap and set-access name no code for a
 * range outside the caller's reservations, not mapped, or still mapped:
 * each is a bad value.
 */
static const struct libcumc_errno_result
libcumc_bad_range_is_invalid_value[] = {
	{ ENXIO, CUDA_ERROR_INVALID_VALUE },
	{ EBUSY, CUDA_ERROR_INVALID_VALUE },
	{ 0 }
};

static const struct libcumc_errno_result libcumc_map_errors[] = {
	/* Outside the caller's reservations, over a mapping, no such handle. */
	{ ENXIO, CUDA_ERROR_INVALID_VALUE },
	{ EEXIST, CUDA_ERROR_INVALID_VALUE },
	{ ENOENT, CUDA_ERROR_INVALID_VALUE },
	/* The team of a multicast object failed to form. */
	{ EIO, CUDA_ERROR_ILLEGAL_STATE },
	{ 0 }
};

static const struct libcumc_errno_result libcumc_query_errors[] = {
	{ ENXIO, CUDA_ERROR_NOT_FOUND },
	{ 0 }
};

static void libcumc_query_init(struct cumc_va_query *q, CUdeviceptr addr,
			       CUdevice device, __u32 flags)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->flags = flags;
	q->addr = addr;
	q->device = device;
}

CUresult libcumc_address_query(const struct libcumc_driver *drv,
			       CUdeviceptr addr, CUdevice device,
			       struct cumc_va_query *q)
{
	libcumc_query_init(q, addr, device, 0);
	return libcumc_ioctl(drv, CUMC_VA_QUERY, q, libcumc_query_errors);
}

CUresult libcumc_mapping_query(const struct libcumc_driver *drv,
			       CUdeviceptr addr, CUdevice device,
			       struct cumc_va_query *q)
{
	CUresult res = libcumc_address_query(drv, addr, device, q);

	if (res == CUDA_SUCCESS && !q->out_map_addr)
		return CUDA_ERROR_NOT_FOUND;
	return res;
}

/* The module checks sizes, alignment and the hint against the granularity. */
CUresult CUDAAPI cuMemAddressReserve(CUdeviceptr *ptr, size_t size,
				     size_t alignment, CUdeviceptr addr,
				     unsigned long long flags)
{
	const struct libcumc_driver *drv;
	struct cumc_va_reserve reserve = {
		.size = sizeof(reserve),
		.length = size,
		.alignment = alignment,
		.addr = addr,
	};
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	if (!ptr || flags)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_ioctl(drv, CUMC_VA_RESERVE, &reserve, NULL);
	if (res == CUDA_SUCCESS)
		*ptr = reserve.out_addr;
	return res;
}

CUresult CUDAAPI cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
	const struct libcumc_driver *drv;
	struct cumc_va_free va_free = {
		.size = sizeof(va_free),
		.addr = ptr,
		.length = size,
	};
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	return libcumc_ioctl(drv, CUMC_VA_FREE, &va_free,
			     libcumc_bad_range_is_invalid_value);
}

/* The module refuses a non-zero offset and a size other than the object's. */
CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
			  CUmemGenericAllocationHandle handle,
			  unsigned long long flags)
{
	const struct libcumc_driver *drv;
	struct cumc_map map = {
		.size = sizeof(map),
		.addr = ptr,
		.length = size,
		.handle = handle,
		.offset = offset,
	};
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	if (flags)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_ioctl(drv, CUMC_MAP, &map, libcumc_map_errors);
}

CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	const struct libcumc_driver *drv;
	struct cumc_unmap unmap = {
		.size = sizeof(unmap),
		.addr = ptr,
		.length = size,
	};
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_ioctl(drv, CUMC_UNMAP, &unmap,
			    libcumc_bad_range_is_invalid_value);
	/* Multicast views of the range: gone with it. */
	if (res == CUDA_SUCCESS)
		libcumc_mc_forget(ptr, size);
	return res;
}

/* Device memory is accessed by devices only: no host location applies. */
static CUresult libcumc_access_desc_check(const struct libcumc_driver *drv,
					  const CUmemAccessDesc *desc)
{
	if (desc->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
		return CUDA_ERROR_INVALID_VALUE;
	if (desc->flags != CU_MEM_ACCESS_FLAGS_PROT_NONE &&
	    desc->flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
	    desc->flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_check_device(drv, desc->location.id);
}

/*
 * @desc as the module takes it: one entry per device, a later descriptor
 * for a device replacing an earlier one, so that any number of them fits
 * in @out's num_devices entries.  Returns how many entries there are.
 */
static __u32 libcumc_access_descs(const CUmemAccessDesc *desc, size_t count,
				  struct cumc_access_desc *out)
{
	__u32 n = 0, j;
	size_t i;

	for (i = 0; i < count; i++) {
		for (j = 0; j < n; j++)
			if (out[j].device == (__u32)desc[i].location.id)
				break;
		out[j].device = desc[i].location.id;
		out[j].access = desc[i].flags;
		if (j == n)
			n++;
	}
	return n;
}

CUresult CUDAAPI cuMemSetAccess(CUdeviceptr ptr, size_t size,
				const CUmemAccessDesc *desc, size_t count)
{
	const struct libcumc_driver *drv;
	struct cumc_set_access set = {
		.size = sizeof(set),
		.addr = ptr,
		.length = size,
	};
	struct cumc_access_desc *descs;
	CUresult res = libcumc_driver(&drv);
	size_t i;

	if (res != CUDA_SUCCESS)
		return res;
	if (!desc || !count)
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < count; i++) {
		res = libcumc_access_desc_check(drv, &desc[i]);
		if (res != CUDA_SUCCESS)
			return res;
	}
	descs = calloc(drv->num_devices, sizeof(*descs));
	if (!descs)
		return CUDA_ERROR_OUT_OF_MEMORY;
	set.num_descs = libcumc_access_descs(desc, count, descs);
	set.descs = (uintptr_t)descs;
	res = libcumc_ioctl(drv, CUMC_SET_ACCESS, &set,
			    libcumc_bad_range_is_invalid_value);
	free(descs);
	/* Multicast views were made for the old access: learn them anew. */
	if (res == CUDA_SUCCESS)
		libcumc_mc_forget(ptr, size);
	return res;
}

CUresult CUDAAPI cuMemGetAccess(unsigned long long *flags,
				const CUmemLocation *location,
				CUdeviceptr ptr)
{
	const struct libcumc_driver *drv;
	struct cumc_va_query q;
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	if (!flags || !location ||
	    location->type != CU_MEM_LOCATION_TYPE_DEVICE)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_check_device(drv, location->id);
	if (res == CUDA_SUCCESS)
		res = libcumc_mapping_query(drv, ptr, location->id, &q);
	/*
	 * Access belongs to mappings: elsewhere there is nothing to report,
	 * and NVIDIA's driver 580 says so with PROT_NONE beside the error.
	 */
	if (res == CUDA_ERROR_NOT_FOUND) {
		*flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (res == CUDA_SUCCESS)
		*flags = q.out_access;
	return res;
}

/*
 * A new handle to what is mapped at @addr, each to be released: the real
 * driver hands back the value used to map, which cumc cannot know.
 */
CUresult CUDAAPI cuMemRetainAllocationHandle(
			CUmemGenericAllocationHandle *handle, void *addr)
{
	const struct libcumc_driver *drv;
	struct cumc_va_query q;
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	if (!handle)
		return CUDA_ERROR_INVALID_VALUE;
	libcumc_query_init(&q, (uintptr_t)addr, 0, CUMC_VA_QUERY_RETAIN);
	res = libcumc_ioctl(drv, CUMC_VA_QUERY, &q,
			    libcumc_bad_range_is_invalid_value);
	if (res == CUDA_SUCCESS)
		*handle = q.out_handle;
	return res;
}

/* The mapping holding @dptr, as the real driver answers for VMM memory. */
CUresult CUDAAPI cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize,
					 CUdeviceptr dptr)
{
	const struct libcumc_driver *drv;
	struct cumc_va_query q;
	CUdevice dev;
	CUresult res = libcumc_driver(&drv);

	if (res == CUDA_SUCCESS)
		res = libcumc_current_device(&dev);
	if (res == CUDA_SUCCESS)
		res = libcumc_mapping_query(drv, dptr, dev, &q);
	if (res != CUDA_SUCCESS)
		return res;
	if (pbase)
		*pbase = q.out_map_addr;
	if (psize)
		*psize = q.out_map_length;
	return CUDA_SUCCESS;
}
