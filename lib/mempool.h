/* SPDX-License-Identifier: MIT */
/*
 * The stream-ordered allocator: memory pools and their mappings
 * (mempool.c), allocations from them (mempool_alloc.c) and sharing them
 * with other processes (mempool_share.c), each calling only the files
 * before it.
 *
 * A pool's memory is ordinary module allocations ("blocks"), each mapped
 * at a reservation of its own in this process; allocations are pieces
 * ("segments") of blocks. A pool that may be shared as a POSIX file
 * descriptor keeps its blocks in a /dev/cumc client of its own, whose
 * descriptor is what it exports: the module holds everything an importer
 * needs, the library nothing (DESIGN.md).
 *
 * A CUmemoryPool is a number the registry issues, never a pointer: a
 * garbage or destroyed pool is refused. All state is under one lock.
 */
#ifndef _CUMC_LIB_MEMPOOL_H
#define _CUMC_LIB_MEMPOOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "internal.h"
#include "memory.h"

/* Allocations are aligned to this, as the real driver's are. */
#define CUMC_POOL_ALIGN 512

enum libcumc_seg_state {
	CUMC_SEG_FREE,
	CUMC_SEG_USED,
	/* cuMemFreeAsync was called; its stream has not reached the free. */
	CUMC_SEG_FREEING,
};

/* A piece of a block: free, allocated, or being freed. */
struct libcumc_seg {
	struct libcumc_seg *next;	/* by offset */
	size_t offset;
	size_t length;
	size_t size;			/* asked for, of an allocation */
	enum libcumc_seg_state state;
};

/* One module allocation of the pool, mapped at @addr. */
struct libcumc_block {
	struct libcumc_block *next;
	CUdeviceptr addr;
	size_t length;
	/* Its handle in the pool's own client, 0 when it has none. */
	__u64 handle;
	/* Of a fabric pool's block: its fabric handle. */
	unsigned char fabric[CUMC_FABRIC_HANDLE_SIZE];
	struct libcumc_seg *segs;
};

/* A pointer another process's pool exported, mapped here (import). */
struct libcumc_import {
	struct libcumc_import *next;
	CUdeviceptr map_addr;		/* the whole block is mapped */
	size_t map_length;
	CUdeviceptr ptr;		/* what the caller got */
	bool freeing;
};

struct libcumc_pool {
	struct libcumc_pool *next;
	uintptr_t id;
	/* Until cuMemPoolDestroy: then it lives on while memory is out. */
	bool live;
	bool is_default;
	bool imported;
	/* Exported once: its pointers may be exported (documented). */
	bool exported;
	CUdevice device;		/* -1: an imported pool not yet used */
	CUmemAllocationHandleType handle_types;
	size_t max_size;		/* 0: the device's memory */
	size_t granularity;
	size_t mem_total;		/* of the device */
	/* The pool's own client (POSIX fd pools, imported pools), or -1. */
	int client_fd;
	/*
	 * Shared by fabric handle: each allocation is a whole block, named by
	 * the block's fabric handle; the pool itself by that of @anchor, an
	 * allocation of one granule made for it (imported: a handle of it).
	 */
	bool fabric;
	__u64 anchor;
	int reuse_follow_event_deps;
	int reuse_allow_opportunistic;
	int reuse_allow_internal_deps;
	uint64_t release_threshold;
	uint64_t reserved, reserved_high;
	uint64_t used, used_high;	/* bytes asked for, not yet freed */
	/* enum cumc_access of every device (drv->num_devices entries). */
	unsigned char *access;
	struct libcumc_block *blocks;
	struct libcumc_import *imports;
};

extern pthread_mutex_t libcumc_pools_lock;

/* The pool @handle names, live; NULL for garbage or destroyed handles. */
struct libcumc_pool *libcumc_pool_find(CUmemoryPool handle);

/* The first pool of the registry (destroyed ones too). Under the lock. */
struct libcumc_pool *libcumc_pool_first(void);

/* The current pool of @dev (a checked device). Under the lock. */
CUresult libcumc_current_pool_get(const struct libcumc_driver *drv,
				  CUdevice dev, struct libcumc_pool **pool);

/* A new pool, registered, or NULL (out of memory). Under the lock. */
struct libcumc_pool *libcumc_pool_new(const struct libcumc_driver *drv,
				      CUdevice device);

/* Unregister and free @pool, which holds no memory. Under the lock. */
void libcumc_pool_free(struct libcumc_pool *pool);

/* The driver state with @pool's own client as its file. */
static inline struct libcumc_driver libcumc_pool_drv(
			const struct libcumc_driver *drv,
			const struct libcumc_pool *pool)
{
	struct libcumc_driver pdrv = *drv;

	pdrv.fd = pool->client_fd;
	return pdrv;
}

/*
 * Map @handle (of this process's client) over a reservation of its own,
 * with @pool's access; the mapping holds the memory.
 */
CUresult libcumc_pool_map(const struct libcumc_driver *drv,
			  const struct libcumc_pool *pool, __u64 handle,
			  size_t length, CUdeviceptr *addr);

/* Release the blocks nothing is allocated from, down to @keep bytes. */
void libcumc_pool_trim(const struct libcumc_driver *drv,
		       struct libcumc_pool *pool, uint64_t keep);

/* Whether @pool holds any memory or allocation still. */
bool libcumc_pool_busy(const struct libcumc_pool *pool);

/*
 * The pool, block and segment holding the allocation that starts at
 * @ptr, any pool (destroyed ones too). Under the lock.
 */
struct libcumc_pool *libcumc_pool_lookup(CUdeviceptr ptr,
					 struct libcumc_block **block,
					 struct libcumc_seg **seg);

/* The imported pointer @ptr of any pool, or NULL. Under the lock. */
struct libcumc_pool *libcumc_pool_lookup_import(CUdeviceptr ptr,
						struct libcumc_import **imp);

/* Unmap and forget an imported pointer. Under the lock. */
void libcumc_pool_drop_import(const struct libcumc_driver *drv,
			      struct libcumc_pool *pool,
			      struct libcumc_import *imp);

/*
 * CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: the pool whose memory holds @ptr
 * (an allocation or an imported pointer, not being freed) into @data, as
 * a CUmemoryPool; CUDA_ERROR_INVALID_VALUE for other memory.
 */
CUresult libcumc_pool_of(CUdeviceptr ptr, void *data);

/*
 * For cuMemFree (plain allocation): frees @ptr at once when it came from
 * a pool (cuMemAllocAsync, cuMemPoolImportPointer). CUDA_ERROR_NOT_FOUND
 * when it did not.
 */
CUresult libcumc_pool_free_now(CUdeviceptr ptr);

#endif /* _CUMC_LIB_MEMPOOL_H */
