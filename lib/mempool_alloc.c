// SPDX-License-Identifier: MIT
/*
 * A pool's memory and allocations: cuMemAllocAsync,
 * cuMemAllocFromPoolAsync and cuMemFreeAsync.
 *
 * An allocation is handed out at once (allowed: it must not be used before
 * its stream reaches it, which no program can tell apart). A free goes
 * into its stream as a host function (stream.h): only when the
 * stream reaches it does the memory return to the pool, so reuse by any
 * later allocation, in any stream, follows every free it depends on,
 * whatever the REUSE_* attributes allow. Blocks nothing is allocated from
 * go back to the module then too, down to the release threshold.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graph.h"
#include "mempool.h"
#include "procaddr.h"
#include "stream.h"
#include "va.h"

static size_t libcumc_round_up(size_t n, size_t to)
{
	return (n + to - 1) / to * to;
}

/* A fabric pool's block: made here, with its fabric handle kept. */
static CUresult libcumc_block_fabric(const struct libcumc_driver *drv,
				     const struct libcumc_pool *pool,
				     struct libcumc_block *block, __u64 *handle)
{
	struct cumc_export_fabric export = { .size = sizeof(export) };
	CUresult res;

	res = libcumc_mem_create(drv, pool->device, block->length,
				 CUMC_HANDLE_FABRIC, &export.handle);
	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_ioctl(drv, CUMC_EXPORT_FABRIC, &export, NULL);
	if (res != CUDA_SUCCESS) {
		libcumc_release_handle(drv, export.handle);
		return res;
	}
	memcpy(block->fabric, export.out_fabric, sizeof(block->fabric));
	*handle = export.handle;
	return CUDA_SUCCESS;
}

/*
 * The memory of a new block, as a handle of this process's client: made
 * there, or made in the pool's own client and imported through a
 * descriptor, so that it can be exported from the pool's client later.
 */
static CUresult libcumc_block_memory(const struct libcumc_driver *drv,
				     const struct libcumc_pool *pool,
				     struct libcumc_block *block, __u64 *handle)
{
	struct libcumc_driver pdrv = libcumc_pool_drv(drv, pool);
	struct cumc_export_fd export = { .size = sizeof(export) };
	struct cumc_import_fd import = { .size = sizeof(import) };
	CUresult res;

	if (pool->fabric)
		return libcumc_block_fabric(drv, pool, block, handle);
	if (pool->client_fd < 0)
		return libcumc_mem_create(drv, pool->device, block->length, 0,
					  handle);
	res = libcumc_mem_create(&pdrv, pool->device, block->length,
				 CUMC_HANDLE_FD, &block->handle);
	if (res != CUDA_SUCCESS)
		return res;
	export.handle = block->handle;
	res = libcumc_ioctl(&pdrv, CUMC_EXPORT_FD, &export, NULL);
	if (res == CUDA_SUCCESS) {
		import.fd = export.out_fd;
		res = libcumc_ioctl(drv, CUMC_IMPORT_FD, &import, NULL);
		close(export.out_fd);
	}
	if (res != CUDA_SUCCESS) {
		libcumc_release_handle(&pdrv, block->handle);
		return res;
	}
	*handle = import.out_handle;
	return CUDA_SUCCESS;
}

/* A new block of @length bytes, one free segment, added to @pool. */
static CUresult libcumc_block_add(const struct libcumc_driver *drv,
				  struct libcumc_pool *pool, size_t length)
{
	struct libcumc_block *block = calloc(1, sizeof(*block));
	struct libcumc_seg *seg = calloc(1, sizeof(*seg));
	__u64 handle = 0;
	CUresult res = CUDA_ERROR_OUT_OF_MEMORY;

	if (!block || !seg)
		goto err_free;
	block->length = length;
	res = libcumc_block_memory(drv, pool, block, &handle);
	if (res != CUDA_SUCCESS)
		goto err_free;
	res = libcumc_pool_map(drv, pool, handle, length, &block->addr);
	/* Mapped, the memory needs no handle here. */
	libcumc_release_handle(drv, handle);
	if (res != CUDA_SUCCESS)
		goto err_release;
	seg->length = length;
	seg->state = CUMC_SEG_FREE;
	block->segs = seg;
	block->next = pool->blocks;
	pool->blocks = block;
	pool->reserved += length;
	if (pool->reserved > pool->reserved_high)
		pool->reserved_high = pool->reserved;
	return CUDA_SUCCESS;

err_release:
	if (block->handle) {
		struct libcumc_driver pdrv = libcumc_pool_drv(drv, pool);

		libcumc_release_handle(&pdrv, block->handle);
	}
err_free:
	free(seg);
	free(block);
	return res;
}

/* Split @seg so that it is @length long; the rest stays free after it. */
static bool libcumc_seg_split(struct libcumc_seg *seg, size_t length)
{
	struct libcumc_seg *rest;

	if (seg->length == length)
		return true;
	rest = calloc(1, sizeof(*rest));
	if (!rest)
		return false;
	rest->offset = seg->offset + length;
	rest->length = seg->length - length;
	rest->state = CUMC_SEG_FREE;
	rest->next = seg->next;
	seg->next = rest;
	seg->length = length;
	return true;
}

/*
 * The first free segment of @length bytes or more, first fit; in a fabric
 * pool, a whole block nothing is allocated from.
 */
static struct libcumc_seg *libcumc_pool_fit(struct libcumc_pool *pool,
					    size_t length,
					    struct libcumc_block **block)
{
	struct libcumc_seg *seg;
	struct libcumc_block *b;

	for (b = pool->blocks; b; b = b->next)
		for (seg = b->segs; seg; seg = seg->next)
			if (seg->state == CUMC_SEG_FREE &&
			    seg->length >= length &&
			    (!pool->fabric || seg->length == b->length)) {
				*block = b;
				return seg;
			}
	return NULL;
}

/*
 * Reuse freed memory first; else a new block, as large as the request
 * rounded to the granularity, within the pool's maxSize.
 */
static CUresult libcumc_pool_alloc(const struct libcumc_driver *drv,
				   struct libcumc_pool *pool, size_t size,
				   CUdeviceptr *dptr)
{
	size_t length = libcumc_round_up(size, CUMC_POOL_ALIGN);
	size_t block_length = libcumc_round_up(size, pool->granularity);
	struct libcumc_block *block;
	struct libcumc_seg *seg;
	CUresult res;

	if (length < size || block_length < size ||
	    block_length > pool->mem_total)
		return CUDA_ERROR_OUT_OF_MEMORY;
	seg = libcumc_pool_fit(pool, length, &block);
	if (!seg) {
		if (pool->max_size &&
		    block_length > pool->max_size - pool->reserved)
			return CUDA_ERROR_OUT_OF_MEMORY;
		res = libcumc_block_add(drv, pool, block_length);
		if (res != CUDA_SUCCESS)
			return res;
		block = pool->blocks;
		seg = block->segs;
	}
	/* A fabric handle names a whole block: the allocation is all of it. */
	if (pool->fabric)
		length = seg->length;
	if (!libcumc_seg_split(seg, length))
		return CUDA_ERROR_OUT_OF_MEMORY;
	seg->state = CUMC_SEG_USED;
	seg->size = size;
	pool->used += size;
	if (pool->used > pool->used_high)
		pool->used_high = pool->used;
	*dptr = block->addr + seg->offset;
	return CUDA_SUCCESS;
}

/* Merge @seg with the free segments around it. */
static void libcumc_seg_coalesce(struct libcumc_block *block,
				 struct libcumc_seg *seg)
{
	struct libcumc_seg *prev = NULL, *s, *next;

	for (s = block->segs; s != seg; s = s->next)
		prev = s;
	next = seg->next;
	if (next && next->state == CUMC_SEG_FREE) {
		seg->length += next->length;
		seg->next = next->next;
		free(next);
	}
	if (prev && prev->state == CUMC_SEG_FREE) {
		prev->length += seg->length;
		prev->next = seg->next;
		free(seg);
	}
}

/*
 * The memory is the pool's again: reusable, and released beyond the
 * threshold; a destroyed pool goes with its last allocation.
 */
static void libcumc_seg_release(const struct libcumc_driver *drv,
				struct libcumc_pool *pool,
				struct libcumc_block *block,
				struct libcumc_seg *seg)
{
	seg->state = CUMC_SEG_FREE;
	seg->size = 0;
	libcumc_seg_coalesce(block, seg);
	if (!pool->live)
		libcumc_pool_trim(drv, pool, 0);
	else if (pool->reserved > pool->release_threshold)
		libcumc_pool_trim(drv, pool, pool->release_threshold);
	if (!pool->live && !libcumc_pool_busy(pool))
		libcumc_pool_free(pool);
}

struct libcumc_pool *libcumc_pool_lookup(CUdeviceptr ptr,
					 struct libcumc_block **block,
					 struct libcumc_seg **seg)
{
	struct libcumc_pool *pool;
	struct libcumc_block *b;
	struct libcumc_seg *s;

	for (pool = libcumc_pool_first(); pool; pool = pool->next)
		for (b = pool->blocks; b; b = b->next) {
			if (ptr < b->addr || ptr - b->addr >= b->length)
				continue;
			for (s = b->segs; s; s = s->next)
				if (b->addr + s->offset == ptr &&
				    s->state != CUMC_SEG_FREE) {
					*block = b;
					*seg = s;
					return pool;
				}
			return NULL;
		}
	return NULL;
}

struct libcumc_pool *libcumc_pool_lookup_import(CUdeviceptr ptr,
						struct libcumc_import **imp)
{
	struct libcumc_pool *pool;
	struct libcumc_import *i;

	for (pool = libcumc_pool_first(); pool; pool = pool->next)
		for (i = pool->imports; i; i = i->next)
			if (i->ptr == ptr) {
				*imp = i;
				return pool;
			}
	return NULL;
}

void libcumc_pool_drop_import(const struct libcumc_driver *drv,
			      struct libcumc_pool *pool,
			      struct libcumc_import *imp)
{
	struct libcumc_import **link;

	for (link = &pool->imports; *link != imp; link = &(*link)->next)
		;
	*link = imp->next;
	libcumc_va_unmap_handle(drv, imp->map_addr, imp->map_length);
	free(imp);
	if (!pool->live && !libcumc_pool_busy(pool))
		libcumc_pool_free(pool);
}

/*
 * Whether @stream captures, its capture active or invalidated: the
 * allocator's calls then make graph memory nodes (graph.h).
 */
static bool libcumc_stream_captures(struct libcumc_stream *stream)
{
	struct libcumc_capture_info info;

	return libcumc_capture_info(stream, &info) == CUDA_SUCCESS &&
	       info.status != CU_STREAM_CAPTURE_STATUS_NONE;
}

/*
 * The stream @handle names, with a reference, when valid by what
 * cuStreamQuery answers: NOT_READY is a stream with work pending. The
 * NULL stream needs a current context; @ptds as for libcumc_stream_get.
 * With @captures, a capturing stream is taken as it is (*@captures set),
 * where querying it would end its capture.
 */
static CUresult libcumc_stream_checked(CUstream handle, bool ptds,
				       struct libcumc_stream **stream,
				       bool *captures)
{
	CUresult res = libcumc_stream_get(handle, ptds, stream);

	if (res != CUDA_SUCCESS)
		return res;
	if (captures) {
		*captures = libcumc_stream_captures(*stream);
		if (*captures)
			return CUDA_SUCCESS;
	}
	res = libcumc_stream_query(*stream);
	if (res == CUDA_SUCCESS || res == CUDA_ERROR_NOT_READY)
		return CUDA_SUCCESS;
	libcumc_stream_put(*stream);
	return res;
}

/* Checks common to both allocating entry points. */
static CUresult libcumc_alloc_check(CUdeviceptr *dptr, CUstream handle,
				    bool ptds, struct libcumc_stream **stream,
				    bool *captures)
{
	if (!dptr)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_stream_checked(handle, ptds, stream, captures);
}

/*
 * Size 0 succeeds with address 0, which cuMemFreeAsync takes, as the real
 * driver (580) answers.
 */
static CUresult libcumc_pool_alloc_any(const struct libcumc_driver *drv,
				       struct libcumc_pool *pool, size_t size,
				       CUdeviceptr *dptr)
{
	if (!size) {
		*dptr = 0;
		return CUDA_SUCCESS;
	}
	return libcumc_pool_alloc(drv, pool, size, dptr);
}

static CUresult libcumc_alloc_async(CUdeviceptr *dptr, size_t bytesize,
				    CUstream hStream, bool ptds)
{
	const struct libcumc_driver *drv;
	struct libcumc_stream *stream;
	struct libcumc_pool *pool;
	bool captures;
	CUdevice dev;
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_alloc_check(dptr, hStream, ptds, &stream, &captures);
	if (res != CUDA_SUCCESS)
		return res;
	if (captures) {
		res = libcumc_graph_mem_capture_alloc(stream, bytesize, dptr);
		libcumc_stream_put(stream);
		return res;
	}
	/* The stream's device (the NULL stream's: the current context's). */
	dev = libcumc_stream_dev(stream);
	libcumc_stream_put(stream);
	pthread_mutex_lock(&libcumc_pools_lock);
	res = libcumc_current_pool_get(drv, dev, &pool);
	if (res == CUDA_SUCCESS)
		res = libcumc_pool_alloc_any(drv, pool, bytesize, dptr);
	pthread_mutex_unlock(&libcumc_pools_lock);
	return res;
}

/* Imported pools make no allocations (documented). */
static CUresult libcumc_alloc_from_pool(CUdeviceptr *dptr, size_t bytesize,
					CUmemoryPool pool, CUstream hStream,
					bool ptds)
{
	const struct libcumc_driver *drv;
	struct libcumc_stream *stream;
	struct libcumc_pool *p;
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_alloc_check(dptr, hStream, ptds, &stream, NULL);
	if (res != CUDA_SUCCESS)
		return res;
	libcumc_stream_put(stream);
	pthread_mutex_lock(&libcumc_pools_lock);
	p = libcumc_pool_find(pool);
	if (!p || p->imported)
		res = CUDA_ERROR_INVALID_VALUE;
	else
		res = libcumc_pool_alloc_any(drv, p, bytesize, dptr);
	pthread_mutex_unlock(&libcumc_pools_lock);
	return res;
}

/* What a free waiting in its stream names: never a pointer into a pool. */
struct libcumc_pending_free {
	uintptr_t pool;
	CUdeviceptr ptr;
};

/* Under the lock: the free of @ptr is reached, or failed to be queued. */
static void libcumc_free_reached(const struct libcumc_driver *drv,
				 uintptr_t id, CUdeviceptr ptr)
{
	struct libcumc_import *imp;
	struct libcumc_block *block;
	struct libcumc_pool *pool;
	struct libcumc_seg *seg;

	pool = libcumc_pool_lookup(ptr, &block, &seg);
	if (pool && pool->id == id && seg->state == CUMC_SEG_FREEING) {
		libcumc_seg_release(drv, pool, block, seg);
		return;
	}
	pool = libcumc_pool_lookup_import(ptr, &imp);
	if (pool && pool->id == id && imp->freeing)
		libcumc_pool_drop_import(drv, pool, imp);
}

/* The host function the stream runs when it reaches a free. */
static void CUDA_CB libcumc_free_fn(void *data)
{
	struct libcumc_pending_free *pending = data;
	const struct libcumc_driver *drv;

	if (libcumc_driver(&drv) == CUDA_SUCCESS) {
		pthread_mutex_lock(&libcumc_pools_lock);
		libcumc_free_reached(drv, pending->pool, pending->ptr);
		pthread_mutex_unlock(&libcumc_pools_lock);
	}
	free(pending);
}

/* Mark @ptr as being freed; the pool's id, or 0 when @ptr is no pool's. */
static uintptr_t libcumc_free_begin(CUdeviceptr ptr)
{
	struct libcumc_import *imp;
	struct libcumc_block *block;
	struct libcumc_pool *pool;
	struct libcumc_seg *seg;

	pool = libcumc_pool_lookup(ptr, &block, &seg);
	if (pool && seg->state == CUMC_SEG_USED) {
		/* Not in use by the program (as the real driver counts). */
		seg->state = CUMC_SEG_FREEING;
		pool->used -= seg->size;
		return pool->id;
	}
	pool = libcumc_pool_lookup_import(ptr, &imp);
	if (pool && !imp->freeing) {
		imp->freeing = true;
		return pool->id;
	}
	return 0;
}

/* Undo libcumc_free_begin when the free could not be queued. */
static void libcumc_free_abort(CUdeviceptr ptr)
{
	struct libcumc_import *imp;
	struct libcumc_block *block;
	struct libcumc_seg *seg;
	struct libcumc_pool *pool = libcumc_pool_lookup(ptr, &block, &seg);

	if (pool) {
		seg->state = CUMC_SEG_USED;
		pool->used += seg->size;
	}
	else if (libcumc_pool_lookup_import(ptr, &imp))
		imp->freeing = false;
}

/*
 * Queues the free of @dptr on @stream: only the start of an allocation of
 * a pool, or of an imported pointer, not being freed already.
 */
static CUresult libcumc_free_queue(CUdeviceptr dptr,
				   struct libcumc_stream *stream)
{
	struct libcumc_pending_free *pending;
	CUresult res;

	pending = malloc(sizeof(*pending));
	if (!pending)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pending->ptr = dptr;
	pthread_mutex_lock(&libcumc_pools_lock);
	pending->pool = libcumc_free_begin(dptr);
	pthread_mutex_unlock(&libcumc_pools_lock);
	if (!pending->pool) {
		free(pending);
		return CUDA_ERROR_INVALID_VALUE;
	}
	/* Outside the lock: the stream may run the function at once. */
	res = libcumc_stream_host_fn(stream, libcumc_free_fn, pending);
	if (res != CUDA_SUCCESS) {
		pthread_mutex_lock(&libcumc_pools_lock);
		libcumc_free_abort(dptr);
		pthread_mutex_unlock(&libcumc_pools_lock);
		free(pending);
	}
	return res;
}

static CUresult libcumc_free_async(CUdeviceptr dptr, CUstream hStream,
				   bool ptds)
{
	const struct libcumc_driver *drv;
	struct libcumc_stream *stream;
	bool captures;
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_stream_checked(hStream, ptds, &stream, &captures);
	if (res != CUDA_SUCCESS)
		return res;
	if (dptr && captures)
		res = libcumc_graph_mem_capture_free(stream, dptr);
	else if (dptr)
		res = libcumc_graph_mem_free_on(stream, dptr);
	if (res == CUDA_ERROR_NOT_FOUND)
		res = libcumc_free_queue(dptr, stream);
	libcumc_stream_put(stream);
	return res;
}

/* The pool of the allocation holding @ptr. Under the lock. */
static struct libcumc_pool *libcumc_pool_holding(CUdeviceptr ptr)
{
	struct libcumc_pool *pool;
	struct libcumc_import *imp;
	struct libcumc_block *b;
	struct libcumc_seg *s;

	for (pool = libcumc_pool_first(); pool; pool = pool->next) {
		for (b = pool->blocks; b; b = b->next) {
			if (ptr < b->addr || ptr - b->addr >= b->length)
				continue;
			for (s = b->segs; s; s = s->next)
				if (ptr - b->addr >= s->offset &&
				    ptr - b->addr - s->offset < s->length)
					return s->state == CUMC_SEG_USED ?
					       pool : NULL;
		}
		for (imp = pool->imports; imp; imp = imp->next)
			if (ptr >= imp->map_addr &&
			    ptr - imp->map_addr < imp->map_length)
				return imp->freeing ? NULL : pool;
	}
	return NULL;
}

CUresult libcumc_pool_of(CUdeviceptr ptr, void *data)
{
	struct libcumc_pool *pool;
	CUmemoryPool handle = NULL;

	pthread_mutex_lock(&libcumc_pools_lock);
	pool = libcumc_pool_holding(ptr);
	if (pool)
		handle = (CUmemoryPool)pool->id;
	pthread_mutex_unlock(&libcumc_pools_lock);
	if (!pool)
		return CUDA_ERROR_INVALID_VALUE;
	memcpy(data, &handle, sizeof(handle));
	return CUDA_SUCCESS;
}

CUresult libcumc_pool_free_now(CUdeviceptr ptr)
{
	const struct libcumc_driver *drv;
	uintptr_t id;
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&libcumc_pools_lock);
	id = libcumc_free_begin(ptr);
	if (id)
		libcumc_free_reached(drv, id, ptr);
	pthread_mutex_unlock(&libcumc_pools_lock);
	return id ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize,
				 CUstream hStream)
{
	return libcumc_alloc_async(dptr, bytesize, hStream, false);
}

CUresult CUDAAPI cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize,
					 CUmemoryPool pool, CUstream hStream)
{
	return libcumc_alloc_from_pool(dptr, bytesize, pool, hStream, false);
}

/*
 * Only the start of an allocation of a pool, or of an imported pointer,
 * not being freed already; 0 (what a size-0 allocation returns) is a
 * no-op, as with the real driver.
 */
CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
	return libcumc_free_async(dptr, hStream, false);
}

/* A NULL stream of a _ptsz call is the per-thread default stream. */
CUresult CUDAAPI cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize,
				      CUstream hStream)
{
	return libcumc_alloc_async(dptr, bytesize, hStream, true);
}

CUresult CUDAAPI cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream)
{
	return libcumc_free_async(dptr, hStream, true);
}

CUresult CUDAAPI cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr,
					      size_t bytesize,
					      CUmemoryPool pool,
					      CUstream hStream)
{
	return libcumc_alloc_from_pool(dptr, bytesize, pool, hStream, true);
}
