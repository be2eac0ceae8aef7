/* SPDX-License-Identifier: MIT */
/*
 * Device addresses as the module describes them (CUMC_VA_QUERY), for the
 * entry points that look at an address: va.c, pointer.c and copy.c; and
 * the library's own mappings (va.c).
 */
#ifndef _CUMC_LIB_VA_H
#define _CUMC_LIB_VA_H

#include "internal.h"

/*
 * What the module knows of @addr, with @device's access in out_access:
 * CUDA_ERROR_NOT_FOUND when @addr lies in no reservation of this client.
 * An address in a reservation but not mapped has out_map_addr 0.
 */
CUresult libcumc_address_query(const struct libcumc_driver *drv,
			       CUdeviceptr addr, CUdevice device,
			       struct cumc_va_query *q);

/*
 * As libcumc_address_query, and CUDA_ERROR_NOT_FOUND for an unmapped
 * address.
 */
CUresult libcumc_mapping_query(const struct libcumc_driver *drv,
			       CUdeviceptr addr, CUdevice device,
			       struct cumc_va_query *q);

/* The end of the mapping @q describes (@q came from a mapped address). */
static inline CUdeviceptr libcumc_mapping_end(const struct cumc_va_query *q)
{
	return q->out_map_addr + q->out_map_length;
}

/*
 * Grants @num_descs devices their access of @descs (one entry a device)
 * on the mappings of [addr, addr + length), as cuMemSetAccess does.  The
 * library's own memory is no multicast mapping: this and the two below
 * leave multicast views (mc_views.h) alone.
 */
CUresult libcumc_va_set_access(const struct libcumc_driver *drv,
			       CUdeviceptr addr, size_t length,
			       const struct cumc_access_desc *descs,
			       __u32 num_descs);

/*
 * Reserve, map, set access: the library's own memory (cuMemAlloc's chunks
 * in alloc.c, pools' blocks in mempool*.c) is the allocation @handle of
 * @length bytes mapped over a reservation of its own at *@addr, with the
 * access of @descs as above; nothing is left behind on failure.  The
 * mapping holds the allocation: the caller may release @handle.
 */
CUresult libcumc_va_map_handle(const struct libcumc_driver *drv,
			       CUmemGenericAllocationHandle handle,
			       size_t length,
			       const struct cumc_access_desc *descs,
			       __u32 num_descs, CUdeviceptr *addr);

/*
 * A new handle of the allocation mapped at @addr, to be released
 * (cuMemRetainAllocationHandle, and ipc.c's exports of cuMemAlloc chunks).
 */
CUresult libcumc_retain_mapped(const struct libcumc_driver *drv,
			       CUdeviceptr addr, __u64 *handle);

/*
 * The same in steps, for memory whose addresses outlive its mappings
 * (graph_mem.c's allocations): a reservation of @length bytes of the
 * library's own at *@addr; @handle mapped over all of it with the access
 * of @descs (nothing left mapped on failure); the mapping undone; the
 * reservation freed.
 */
CUresult libcumc_va_reserve_own(const struct libcumc_driver *drv,
				size_t length, CUdeviceptr *addr);
CUresult libcumc_va_map_at(const struct libcumc_driver *drv, CUdeviceptr addr,
			   CUmemGenericAllocationHandle handle, size_t length,
			   const struct cumc_access_desc *descs,
			   __u32 num_descs);
void libcumc_va_unmap_at(const struct libcumc_driver *drv, CUdeviceptr addr,
			 size_t length);
void libcumc_va_free_own(const struct libcumc_driver *drv, CUdeviceptr addr,
			 size_t length);

/* Unmaps what libcumc_va_map_handle mapped, and frees its reservation. */
void libcumc_va_unmap_handle(const struct libcumc_driver *drv,
			     CUdeviceptr addr, size_t length);

#endif /* _CUMC_LIB_VA_H */
