/* SPDX-License-Identifier: MIT */
/*
 * Host memory that CUDA knows of: cuMemAllocHost/cuMemHostAlloc
 * allocations and cuMemHostRegister ranges (host_mem.c).  With unified
 * addressing, their device pointer is their host address, so the entry
 * points that take a device address (copies, sets, stream memory
 * operations, pointer attributes) accept these ranges too.
 */
#ifndef _CUMC_LIB_HOST_MEM_H
#define _CUMC_LIB_HOST_MEM_H

#include <stdbool.h>

#include "internal.h"

/*
 * True when [addr, addr + len) lies inside one live host allocation or
 * registered range (len 0: @addr itself does).  Thread-safe; the answer
 * holds while the caller's program does not free the range concurrently,
 * which would be its own race with the real driver too.
 */
bool libcumc_host_range(CUdeviceptr addr, size_t len);

/* As libcumc_host_range, and the range may be written by a device. */
bool libcumc_host_range_writable(CUdeviceptr addr, size_t len);

struct libcumc_host_info {
	CUdeviceptr base;	/* the allocation or registered range */
	size_t size;
	unsigned int flags;	/* CU_MEMHOSTALLOC_* or CU_MEMHOSTREGISTER_* */
	bool registered;	/* by cuMemHostRegister */
	CUcontext ctx;		/* current when it was made */
	CUdevice dev;		/* that context's device */
	unsigned long long buffer_id;
};

/* True, and *@info, when @addr lies in host memory CUDA knows of. */
bool libcumc_host_lookup(CUdeviceptr addr, struct libcumc_host_info *info);

/* Frees the host allocations and registrations made in @ctx. */
void libcumc_host_free_context(CUcontext ctx);

#endif /* _CUMC_LIB_HOST_MEM_H */
