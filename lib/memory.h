/* SPDX-License-Identifier: MIT */
/*
 * The module's physical allocations (memory.c) for the library's own
 * memory: cuMemAlloc's chunks (alloc.c) and pools' blocks (mempool*.c)
 * are made and released as cuMemCreate and cuMemRelease make and release
 * a program's.
 */
#ifndef _CUMC_LIB_MEMORY_H
#define _CUMC_LIB_MEMORY_H

#include "internal.h"

/*
 * CUMC_MEM_CREATE of @length bytes on @dev, shareable as @handle_types
 * (enum cumc_handle_types): *@handle, a handle of @drv's client.
 */
CUresult libcumc_mem_create(const struct libcumc_driver *drv, CUdevice dev,
			    size_t length, __u32 handle_types, __u64 *handle);

/* CUMC_RELEASE of @handle, a handle of @drv's client. */
CUresult libcumc_release_handle(const struct libcumc_driver *drv,
				__u64 handle);

#endif /* _CUMC_LIB_MEMORY_H */
