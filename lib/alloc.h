/* SPDX-License-Identifier: MIT */
/*
 * What cuMemAlloc handed out (alloc.c), for pointer.c and va.c.
 */
#ifndef _CUMC_LIB_ALLOC_H
#define _CUMC_LIB_ALLOC_H

#include <stdbool.h>
#include <stdint.h>

#include "internal.h"

struct libcumc_alloc_info {
	CUdeviceptr base;	/* as cuMemAlloc returned it */
	size_t size;		/* as asked for */
	CUcontext ctx;		/* current at cuMemAlloc */
	CUdevice dev;
	unsigned long long buffer_id;	/* never reused in the process */
	unsigned int sync_memops;	/* CU_POINTER_ATTRIBUTE_SYNC_MEMOPS */
	unsigned int managed;		/* cuMemAllocManaged's flags; 0: plain */
	CUdeviceptr chunk_base;		/* the module's allocation beneath */
	size_t chunk_length;
};

/*
 * What cuMemAdvise and cuMemPrefetchAsync left on one CPU page of managed
 * memory (managed.c), all zero until then: no read-mostly advice, no
 * preferred or prefetch location (CU_MEM_LOCATION_TYPE_INVALID), accessed
 * by no one.
 */
#define CUMC_ACCESSED_BY_HOST CUMC_MAX_DEVICES	/* the host's bit */
#define CUMC_ACCESSED_BY_WORDS ((CUMC_ACCESSED_BY_HOST + 64) / 64)
struct libcumc_page_advice {
	uint64_t accessed_by[CUMC_ACCESSED_BY_WORDS];	/* bit d: device d */
	int preferred_id, prefetch_id;
	unsigned char read_mostly;
	unsigned char preferred_type, prefetch_type;	/* CUmemLocationType */
};

/*
 * cuMemAllocManaged: cuMemAlloc memory (on the current context's device,
 * reachable by the CPU and every device) marked managed, with @flags as
 * its default attachment.
 */
CUresult libcumc_alloc_managed(const struct libcumc_driver *drv,
			       CUdeviceptr *dptr, size_t bytesize,
			       unsigned int flags);

/*
 * Calls @fn on the advice of the CPU pages [@addr, @addr + @len) touches
 * (@len > 0), clipped to the managed allocation holding them, under the
 * registry's lock; @fn must not call back into the library.  False, and
 * no call, when the range is not wholly inside one managed allocation, or
 * the advice cannot be allocated (*@no_memory then).
 */
bool libcumc_managed_visit(CUdeviceptr addr, size_t len,
			   void (*fn)(struct libcumc_page_advice *pages,
				      size_t count, void *arg),
			   void *arg, bool *no_memory);

/* True, and *@info, when @addr lies in a live cuMemAlloc allocation. */
bool libcumc_alloc_lookup(CUdeviceptr addr, struct libcumc_alloc_info *info);

/* Sets SYNC_MEMOPS of the allocation holding @addr; false if none. */
bool libcumc_alloc_set_sync_memops(CUdeviceptr addr, unsigned int value);

/*
 * Frees the cuMemAlloc allocations made while @ctx was current, as the
 * real driver does when a context is destroyed or a primary context reset
 * (context.c, with host_mem.c's).
 */
void libcumc_alloc_free_context(CUcontext ctx);

#endif /* _CUMC_LIB_ALLOC_H */
