// SPDX-License-Identifier: MIT
/*
 * The device address space: reservations (cuMemAddressReserve/Free),
 * mappings (cuMemMap/Unmap), access (cuMemSetAccess/GetAccess) and what is
 * mapped where (cuMemRetainAllocationHandle), and the one path by which the
 * library maps memory of its own (va.h).  The
 * module owns all of it: a reservation is a mapping it makes in the calling
 * process, so a device address is an ordinary pointer that the CPU, standing
 * in for every device, loads and stores through once access is granted.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "entry.h"
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

/* ENXIO: outside a reservation or partly unmapped, told apart after. */
static const struct libcumc_errno_result libcumc_unmap_errors[] = {
	{ ENXIO, CUDA_ERROR_NOT_FOUND },
	{ EBUSY, CUDA_ERROR_INVALID_VALUE },
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
static CUresult libcumc_va_reserve(const struct libcumc_driver *drv,
				   size_t length, size_t alignment,
				   CUdeviceptr hint, CUdeviceptr *addr)
{
	struct cumc_va_reserve reserve = {
		.size = sizeof(reserve),
		.length = length,
		.alignment = alignment,
		.addr = hint,
		/* A range of an arena: no mmap or munmap per reservation. */
		.flags = CUMC_VA_RESERVE_SHARED,
	};
	CUresult res = libcumc_ioctl(drv, CUMC_VA_RESERVE, &reserve, NULL);

	if (res == CUDA_SUCCESS)
		*addr = reserve.out_addr;
	return res;
}

static CUresult libcumc_va_free(const struct libcumc_driver *drv,
				CUdeviceptr addr, size_t length)
{
	struct cumc_va_free va_free = {
		.size = sizeof(va_free),
		.addr = addr,
		.length = length,
	};

	return libcumc_ioctl(drv, CUMC_VA_FREE, &va_free,
			     libcumc_bad_range_is_invalid_value);
}

CUresult libcumc_impl_cuMemAddressReserve(const struct libcumc_driver *drv,
					  CUdeviceptr *ptr, size_t size,
					  size_t alignment, CUdeviceptr addr,
					  unsigned long long flags)
{
	if (!ptr || flags)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_va_reserve(drv, size, alignment, addr, ptr);
}

CUresult libcumc_impl_cuMemAddressFree(const struct libcumc_driver *drv,
				       CUdeviceptr ptr, size_t size)
{
	return libcumc_va_free(drv, ptr, size);
}

/*
 * The device granularity, the same on every device (the module has one):
 * asked once, for the checks that must come before the module's.
 */
static CUresult libcumc_granularity(const struct libcumc_driver *drv,
				    size_t *granularity)
{
	static size_t cached;
	struct cumc_device_info info;
	size_t g = __atomic_load_n(&cached, __ATOMIC_RELAXED);
	CUresult res;

	if (!g) {
		res = libcumc_device_info(drv, 0, &info);
		if (res != CUDA_SUCCESS)
			return res;
		g = info.granularity;
		__atomic_store_n(&cached, g, __ATOMIC_RELAXED);
	}
	*granularity = g;
	return CUDA_SUCCESS;
}

/*
 * After the address checks, what is left of the module's EINVAL is a
 * length other than the allocation's (misaligned or not): NVIDIA's driver
 * 580 answers NOT_SUPPORTED there, as for a non-zero offset.
 */
static const struct libcumc_errno_result libcumc_map_length_errors[] = {
	{ EINVAL, CUDA_ERROR_NOT_SUPPORTED },
	{ ENXIO, CUDA_ERROR_INVALID_VALUE },
	{ EEXIST, CUDA_ERROR_INVALID_VALUE },
	{ ENOENT, CUDA_ERROR_INVALID_VALUE },
	{ EIO, CUDA_ERROR_ILLEGAL_STATE },
	{ 0 }
};

/* The whole allocation @handle names at @addr; the module maps no less. */
static CUresult libcumc_va_map(const struct libcumc_driver *drv,
			       CUdeviceptr addr, size_t length,
			       CUmemGenericAllocationHandle handle)
{
	struct cumc_map map = {
		.size = sizeof(map),
		.addr = addr,
		.length = length,
		.handle = handle,
	};

	return libcumc_ioctl(drv, CUMC_MAP, &map, libcumc_map_length_errors);
}

/*
 * A misaligned address or an empty range is a bad value; then a non-zero
 * offset, a partial map and a map larger than the allocation are
 * NOT_SUPPORTED, as NVIDIA's driver 580 answers (measured: see
 * conformance/alloc); the module maps whole allocations only.
 */
CUresult libcumc_impl_cuMemMap(const struct libcumc_driver *drv,
			       CUdeviceptr ptr, size_t size, size_t offset,
			       CUmemGenericAllocationHandle handle,
			       unsigned long long flags)
{
	size_t granularity;
	CUresult res;

	if (flags)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_granularity(drv, &granularity);
	if (res != CUDA_SUCCESS)
		return res;
	if (!size || ptr % granularity)
		return CUDA_ERROR_INVALID_VALUE;
	if (offset)
		return CUDA_ERROR_NOT_SUPPORTED;
	return libcumc_va_map(drv, ptr, size, handle);
}

/* The mappings of exactly [addr, addr + length); @site reads the errno. */
static CUresult libcumc_va_unmap(const struct libcumc_driver *drv,
				 CUdeviceptr addr, size_t length,
				 const struct libcumc_errno_result *site)
{
	struct cumc_unmap unmap = {
		.size = sizeof(unmap),
		.addr = addr,
		.length = length,
	};

	return libcumc_ioctl(drv, CUMC_UNMAP, &unmap, site);
}

/*
 * The mappings in [ptr, ptr + size), which lies inside one reservation of
 * this client, each whole (CUDA_ERROR_INVALID_VALUE when the range cuts
 * one), unmapped one by one; holes between them are skipped.  Stepping
 * over a hole costs one query per granule, on a path only an unmap over
 * holes takes.
 */
static CUresult libcumc_unmap_over_holes(const struct libcumc_driver *drv,
					 CUdeviceptr ptr, size_t size)
{
	struct cumc_va_query q;
	CUdeviceptr addr, end;
	size_t granularity;
	bool pass;
	CUresult res;

	res = libcumc_granularity(drv, &granularity);
	if (res == CUDA_SUCCESS)
		res = libcumc_address_query(drv, ptr, 0, &q);
	if (res == CUDA_ERROR_NOT_FOUND)
		return CUDA_ERROR_INVALID_VALUE;
	if (res != CUDA_SUCCESS)
		return res;
	if (__builtin_add_overflow(ptr, size, &end) ||
	    end > q.out_va_addr + q.out_va_length)
		return CUDA_ERROR_INVALID_VALUE;
	/* First every mapping checked, then every one unmapped. */
	for (pass = false; ; pass = true) {
		for (addr = ptr; addr < end;) {
			res = libcumc_address_query(drv, addr, 0, &q);
			if (res != CUDA_SUCCESS)
				return res == CUDA_ERROR_NOT_FOUND ?
				       CUDA_ERROR_INVALID_VALUE : res;
			if (!q.out_map_addr) {
				addr += granularity;
				continue;
			}
			if (q.out_map_addr < ptr ||
			    libcumc_mapping_end(&q) > end)
				return CUDA_ERROR_INVALID_VALUE;
			if (pass) {
				res = libcumc_va_unmap(drv, q.out_map_addr,
					q.out_map_length,
					libcumc_bad_range_is_invalid_value);
				if (res != CUDA_SUCCESS)
					return res;
			}
			addr = libcumc_mapping_end(&q);
		}
		if (pass)
			return CUDA_SUCCESS;
	}
}

/*
 * NVIDIA's driver 580 (measured) unmaps the whole mappings of a range of
 * one reservation and skips what is not mapped: a range with nothing
 * mapped answers CUDA_SUCCESS, as does one of mappings and holes.  A range
 * that cuts a mapping, or lies outside the caller's reservations, answers
 * CUDA_ERROR_INVALID_VALUE, as there.
 */
CUresult libcumc_impl_cuMemUnmap(const struct libcumc_driver *drv,
				 CUdeviceptr ptr, size_t size)
{
	CUresult res;

	res = libcumc_va_unmap(drv, ptr, size, libcumc_unmap_errors);
	if (res == CUDA_ERROR_NOT_FOUND)
		res = libcumc_unmap_over_holes(drv, ptr, size);
	/* Multicast views of the range: gone with it. */
	if (res == CUDA_SUCCESS)
		libcumc_mc_forget(ptr, size);
	return res;
}

/*
 * Device memory is accessed by devices only: no host location applies.  A
 * bad device is a bad value here, as NVIDIA's driver 580 answers.
 */
static CUresult libcumc_access_desc_check(const struct libcumc_driver *drv,
					  const CUmemAccessDesc *desc)
{
	if (desc->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
		return CUDA_ERROR_INVALID_VALUE;
	if (desc->flags != CU_MEM_ACCESS_FLAGS_PROT_NONE &&
	    desc->flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
	    desc->flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
		return CUDA_ERROR_INVALID_VALUE;
	if (libcumc_check_device(drv, desc->location.id) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
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

CUresult libcumc_va_set_access(const struct libcumc_driver *drv,
			       CUdeviceptr addr, size_t length,
			       const struct cumc_access_desc *descs,
			       __u32 num_descs)
{
	struct cumc_set_access set = {
		.size = sizeof(set),
		.addr = addr,
		.length = length,
		.num_descs = num_descs,
		.descs = (uintptr_t)descs,
	};

	return libcumc_ioctl(drv, CUMC_SET_ACCESS, &set,
			     libcumc_bad_range_is_invalid_value);
}

CUresult libcumc_impl_cuMemSetAccess(const struct libcumc_driver *drv,
				     CUdeviceptr ptr, size_t size,
				     const CUmemAccessDesc *desc, size_t count)
{
	struct cumc_access_desc *descs;
	CUresult res = CUDA_SUCCESS;
	size_t i;

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
	res = libcumc_va_set_access(drv, ptr, size, descs,
				    libcumc_access_descs(desc, count, descs));
	free(descs);
	/* Multicast views were made for the old access: learn them anew. */
	if (res == CUDA_SUCCESS)
		libcumc_mc_forget(ptr, size);
	return res;
}

CUresult libcumc_va_reserve_own(const struct libcumc_driver *drv,
				size_t length, CUdeviceptr *addr)
{
	return libcumc_va_reserve(drv, length, 0, 0, addr);
}

void libcumc_va_free_own(const struct libcumc_driver *drv, CUdeviceptr addr,
			 size_t length)
{
	libcumc_va_free(drv, addr, length);
}

CUresult libcumc_va_map_at(const struct libcumc_driver *drv, CUdeviceptr addr,
			   CUmemGenericAllocationHandle handle, size_t length,
			   const struct cumc_access_desc *descs,
			   __u32 num_descs)
{
	CUresult res = libcumc_va_map(drv, addr, length, handle);

	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_va_set_access(drv, addr, length, descs, num_descs);
	if (res != CUDA_SUCCESS)
		libcumc_va_unmap(drv, addr, length, NULL);
	return res;
}

void libcumc_va_unmap_at(const struct libcumc_driver *drv, CUdeviceptr addr,
			 size_t length)
{
	libcumc_va_unmap(drv, addr, length, NULL);
}

CUresult libcumc_va_map_handle(const struct libcumc_driver *drv,
			       CUmemGenericAllocationHandle handle,
			       size_t length,
			       const struct cumc_access_desc *descs,
			       __u32 num_descs, CUdeviceptr *addr)
{
	CUdeviceptr va;
	CUresult res = libcumc_va_reserve(drv, length, 0, 0, &va);

	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_va_map_at(drv, va, handle, length, descs, num_descs);
	if (res != CUDA_SUCCESS) {
		libcumc_va_free(drv, va, length);
		return res;
	}
	*addr = va;
	return CUDA_SUCCESS;
}

void libcumc_va_unmap_handle(const struct libcumc_driver *drv,
			     CUdeviceptr addr, size_t length)
{
	libcumc_va_unmap(drv, addr, length, NULL);
	libcumc_va_free(drv, addr, length);
}

CUresult libcumc_impl_cuMemGetAccess(const struct libcumc_driver *drv,
				     unsigned long long *flags,
				     const CUmemLocation *location,
				     CUdeviceptr ptr)
{
	struct cumc_va_query q;
	CUresult res;

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
CUresult libcumc_retain_mapped(const struct libcumc_driver *drv,
			       CUdeviceptr addr, __u64 *handle)
{
	struct cumc_va_query q;
	CUresult res;

	libcumc_query_init(&q, addr, 0, CUMC_VA_QUERY_RETAIN);
	res = libcumc_ioctl(drv, CUMC_VA_QUERY, &q,
			    libcumc_bad_range_is_invalid_value);
	if (res == CUDA_SUCCESS)
		*handle = q.out_handle;
	return res;
}

CUresult libcumc_impl_cuMemRetainAllocationHandle(
	const struct libcumc_driver *drv, CUmemGenericAllocationHandle *handle,
	void *addr)
{
	__u64 h;
	CUresult res;

	if (!handle)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_retain_mapped(drv, (uintptr_t)addr, &h);
	if (res == CUDA_SUCCESS)
		*handle = h;
	return res;
}
