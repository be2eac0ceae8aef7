/* SPDX-License-Identifier: MIT */
/*
 * What cuMemAlloc handed out (alloc.c), for pointer.c and va.c.
 */
#ifndef _CUMC_LIB_ALLOC_H
#define _CUMC_LIB_ALLOC_H

#include <stdbool.h>

#include "internal.h"

struct libcumc_alloc_info {
	CUdeviceptr base;	/* as cuMemAlloc returned it */
	size_t size;		/* as asked for */
	CUcontext ctx;		/* current at cuMemAlloc */
	CUdevice dev;
	unsigned long long buffer_id;	/* never reused in the process */
	unsigned int sync_memops;	/* CU_POINTER_ATTRIBUTE_SYNC_MEMOPS */
};

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
