// SPDX-License-Identifier: MIT
/*
 * Sharing pools between processes: cuMemPoolExportToShareableHandle,
 * cuMemPoolImportFromShareableHandle, cuMemPoolExportPointer and
 * cuMemPoolImportPointer.
 *
 * A pool created with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR keeps its
 * blocks in a /dev/cumc client of its own; the descriptor it exports is
 * that client's (a duplicate). The 64 bytes of a pointer's export data
 * name a block by its handle in that client and the allocation by its
 * offset. The importer, holding the pool's descriptor, exports the block
 * through it (CUMC_EXPORT_FD), imports it into its own client and maps it.
 * A handle of another pool's client is not found in this one (the module's
 * handles are per client), so export data of another pool is refused.
 * Everything an importer needs is the module's; the library of the
 * exporting process holds nothing another process reads.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "entry.h"
#include "mempool.h"

#define CUMC_POOL_PTR_MAGIC 0x504d5543	/* "CUMP" */
#define CUMC_POOL_PTR_VERSION 1

/* The layout of CUmemPoolPtrExportData; the rest of its bytes are zero. */
struct libcumc_pool_ptr_data {
	uint32_t magic;
	uint32_t version;
	uint64_t handle;	/* of the block, in the pool's client */
	uint64_t block_length;
	uint64_t offset;	/* of the allocation in the block */
	uint64_t size;		/* of the allocation */
	unsigned char zero[24];
};

static_assert(sizeof(struct libcumc_pool_ptr_data) ==
	      sizeof(CUmemPoolPtrExportData), "export data is 64 bytes");

/* EPERM: no IMEX channel, NOT_PERMITTED (as cuMemExportToShareableHandle). */
static const struct libcumc_errno_result libcumc_pool_fabric_errors[] = {
	{ ENOENT, CUDA_ERROR_INVALID_VALUE },
	{ ENOTCONN, CUDA_ERROR_INVALID_HANDLE },
	{ EHOSTUNREACH, CUDA_ERROR_INVALID_HANDLE },
	{ EHOSTDOWN, CUDA_ERROR_INVALID_HANDLE },
	{ ETIMEDOUT, CUDA_ERROR_INVALID_HANDLE },
	{ EPROTO, CUDA_ERROR_INVALID_HANDLE },
	{ 0 }
};

/* Export @p, a pool of this process, as the type it was made with. */
static CUresult libcumc_pool_export(const struct libcumc_driver *drv,
				    struct libcumc_pool *p,
				    CUmemAllocationHandleType type, void *out)
{
	struct cumc_export_fabric export = {
		.size = sizeof(export),
		.handle = p->anchor,
	};
	CUresult res;
	int fd;

	if (p->imported)
		return CUDA_ERROR_INVALID_VALUE;
	if (type == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR &&
	    p->client_fd >= 0) {
		fd = fcntl(p->client_fd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			return CUDA_ERROR_OUT_OF_MEMORY;
		memcpy(out, &fd, sizeof(fd));
		p->exported = true;
		return CUDA_SUCCESS;
	}
	if (type != CU_MEM_HANDLE_TYPE_FABRIC || !p->fabric)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_ioctl(drv, CUMC_EXPORT_FABRIC, &export,
			    libcumc_pool_fabric_errors);
	if (res == CUDA_SUCCESS) {
		memcpy(out, export.out_fabric, sizeof(export.out_fabric));
		p->exported = true;
	}
	return res;
}

/*
 * A pool of this process made to be shared: a duplicate of its client's
 * descriptor, or the fabric handle of its anchor. Any other type is a bad
 * value, as for a pool created without it.
 */
CUresult libcumc_impl_cuMemPoolExportToShareableHandle(
	const struct libcumc_driver *drv, void *handle_out, CUmemoryPool pool,
	CUmemAllocationHandleType handleType, unsigned long long flags)
{
	struct libcumc_pool *p;
	CUresult res;

	if (!handle_out || flags)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&libcumc_pools_lock);
	p = libcumc_pool_find(pool);
	res = p ? libcumc_pool_export(drv, p, handleType, handle_out) :
		  CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_unlock(&libcumc_pools_lock);
	return res;
}

/* Whether @fd is a /dev/cumc client (not an export, not another file). */
static bool libcumc_is_client(int fd)
{
	struct cumc_query query = { .size = sizeof(query) };

	return ioctl(fd, CUMC_QUERY, &query) == 0 &&
	       query.api_version >= CUMC_API_VERSION;
}

/* A new imported pool. Under the lock. */
static struct libcumc_pool *libcumc_pool_imported(
			const struct libcumc_driver *drv, CUdevice dev,
			CUmemAllocationHandleType type)
{
	struct libcumc_pool *p = libcumc_pool_new(drv, dev);

	if (p) {
		p->imported = true;
		p->handle_types = type;
	}
	return p;
}

/*
 * The descriptor travels in the pointer's value, as for
 * cuMemImportFromShareableHandle; the caller keeps it (the pool holds a
 * duplicate). The pool learns its device from its first pointer.
 */
static CUresult libcumc_pool_import_fd(const struct libcumc_driver *drv,
				       uintptr_t fd, CUmemoryPool *pool_out)
{
	struct libcumc_pool *p;
	int dup_fd;

	if (fd > INT_MAX || !libcumc_is_client(fd))
		return CUDA_ERROR_INVALID_VALUE;
	dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup_fd < 0)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&libcumc_pools_lock);
	p = libcumc_pool_imported(drv, -1,
				  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	if (p) {
		p->client_fd = dup_fd;
		*pool_out = (CUmemoryPool)p->id;
	}
	pthread_mutex_unlock(&libcumc_pools_lock);
	if (!p) {
		close(dup_fd);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	return CUDA_SUCCESS;
}

/*
 * The memory the fabric handle @fabric names, imported: info->handle is
 * its new handle of this process's client.  One that names no memory (a
 * multicast object's) is released again: INVALID_VALUE.
 */
static CUresult libcumc_pool_fabric_open(const struct libcumc_driver *drv,
					 const void *fabric,
					 struct cumc_mem_info *info)
{
	struct cumc_import_fabric import = { .size = sizeof(import) };
	CUresult res;

	memcpy(import.fabric, fabric, sizeof(import.fabric));
	res = libcumc_ioctl(drv, CUMC_IMPORT_FABRIC, &import,
			    libcumc_pool_fabric_errors);
	if (res != CUDA_SUCCESS)
		return res;
	*info = (struct cumc_mem_info){
		.size = sizeof(*info),
		.handle = import.out_handle,
	};
	if (libcumc_ioctl(drv, CUMC_MEM_INFO, info, NULL) != CUDA_SUCCESS) {
		libcumc_release_handle(drv, import.out_handle);
		return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

/*
 * @handle points to the fabric handle of the pool's anchor: imported, it
 * tells the device (and keeps the anchor while the pool lives here).
 */
static CUresult libcumc_pool_import_fabric(const struct libcumc_driver *drv,
					   const void *handle,
					   CUmemoryPool *pool_out)
{
	struct cumc_mem_info info;
	struct libcumc_pool *p;
	CUresult res;

	if (!handle)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_pool_fabric_open(drv, handle, &info);
	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&libcumc_pools_lock);
	p = libcumc_pool_imported(drv, info.out_device,
				  CU_MEM_HANDLE_TYPE_FABRIC);
	if (p) {
		p->fabric = true;
		p->anchor = info.handle;
		*pool_out = (CUmemoryPool)p->id;
	}
	pthread_mutex_unlock(&libcumc_pools_lock);
	if (!p) {
		libcumc_release_handle(drv, info.handle);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	return CUDA_SUCCESS;
}

CUresult libcumc_impl_cuMemPoolImportFromShareableHandle(
	const struct libcumc_driver *drv, CUmemoryPool *pool_out, void *handle,
	CUmemAllocationHandleType handleType, unsigned long long flags)
{
	if (!pool_out || flags)
		return CUDA_ERROR_INVALID_VALUE;
	if (handleType == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
		return libcumc_pool_import_fd(drv, (uintptr_t)handle, pool_out);
	if (handleType == CU_MEM_HANDLE_TYPE_FABRIC)
		return libcumc_pool_import_fabric(drv, handle, pool_out);
	return CUDA_ERROR_INVALID_VALUE;
}

/*
 * An allocation of a pool of this process that was exported already
 * ("an already shared memory pool": the real driver refuses others), not
 * being freed.
 */
CUresult CUDAAPI cuMemPoolExportPointer(CUmemPoolPtrExportData *shareData_out,
					CUdeviceptr ptr)
{
	struct libcumc_pool_ptr_data data = {
		.magic = CUMC_POOL_PTR_MAGIC,
		.version = CUMC_POOL_PTR_VERSION,
	};
	struct libcumc_block *block;
	struct libcumc_pool *pool;
	struct libcumc_seg *seg;
	CUresult res = CUDA_SUCCESS;

	if (!shareData_out)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&libcumc_pools_lock);
	pool = libcumc_pool_lookup(ptr, &block, &seg);
	if (!pool || !pool->live || !pool->exported ||
	    (!block->handle && !pool->fabric) ||
	    seg->state != CUMC_SEG_USED) {
		res = CUDA_ERROR_INVALID_VALUE;
	} else if (pool->fabric) {
		/* The whole block is the allocation: its fabric handle. */
		memcpy(&data, block->fabric, sizeof(data));
	} else {
		data.handle = block->handle;
		data.block_length = block->length;
		data.offset = seg->offset;
		data.size = seg->size;
	}
	pthread_mutex_unlock(&libcumc_pools_lock);
	if (res == CUDA_SUCCESS)
		memcpy(shareData_out, &data, sizeof(data));
	return res;
}

static bool libcumc_ptr_data_valid(const struct libcumc_pool_ptr_data *data)
{
	size_t i;

	for (i = 0; i < sizeof(data->zero); i++)
		if (data->zero[i])
			return false;
	return data->magic == CUMC_POOL_PTR_MAGIC &&
	       data->version == CUMC_POOL_PTR_VERSION && data->handle &&
	       data->size && data->offset < data->block_length &&
	       data->size <= data->block_length - data->offset;
}

/* Unknown in the pool's client: another pool's data, or freed since. */
static const struct libcumc_errno_result libcumc_pool_ptr_errors[] = {
	{ ENOENT, CUDA_ERROR_INVALID_VALUE },
	{ EPERM, CUDA_ERROR_INVALID_VALUE },
	{ 0 }
};

/* The block @data names, as a new handle of this process's client. */
static CUresult libcumc_import_block(const struct libcumc_driver *drv,
				     const struct libcumc_pool *pool,
				     const struct libcumc_pool_ptr_data *data,
				     __u64 *handle, struct cumc_mem_info *info)
{
	struct libcumc_driver pdrv = libcumc_pool_drv(drv, pool);
	struct cumc_export_fd export = {
		.size = sizeof(export),
		.handle = data->handle,
	};
	struct cumc_import_fd import = { .size = sizeof(import) };
	CUresult res;

	res = libcumc_ioctl(&pdrv, CUMC_EXPORT_FD, &export,
			    libcumc_pool_ptr_errors);
	if (res != CUDA_SUCCESS)
		return res;
	import.fd = export.out_fd;
	res = libcumc_ioctl(drv, CUMC_IMPORT_FD, &import, NULL);
	close(export.out_fd);
	if (res != CUDA_SUCCESS)
		return res;
	info->size = sizeof(*info);
	info->handle = import.out_handle;
	res = libcumc_ioctl(drv, CUMC_MEM_INFO, info, NULL);
	if (res == CUDA_SUCCESS && info->out_length != data->block_length)
		res = CUDA_ERROR_INVALID_VALUE;
	if (res == CUDA_SUCCESS && pool->device >= 0 &&
	    info->out_device != (__u32)pool->device)
		res = CUDA_ERROR_INVALID_VALUE;
	if (res != CUDA_SUCCESS) {
		libcumc_release_handle(drv, import.out_handle);
		return res;
	}
	*handle = import.out_handle;
	return CUDA_SUCCESS;
}

/*
 * Map the block @handle names (of this process's client, which this
 * consumes) and record the pointer @offset into it.
 */
static CUresult libcumc_import_record(const struct libcumc_driver *drv,
				      struct libcumc_pool *pool, __u64 handle,
				      const struct cumc_mem_info *info,
				      size_t offset, CUdeviceptr *ptr_out)
{
	struct libcumc_import *imp = calloc(1, sizeof(*imp));
	CUresult res = CUDA_ERROR_OUT_OF_MEMORY;

	if (imp) {
		if (pool->device < 0) {
			pool->device = info->out_device;
			pool->access[pool->device] = CUMC_ACCESS_READWRITE;
		}
		imp->map_length = info->out_length;
		res = libcumc_pool_map(drv, pool, handle, imp->map_length,
				       &imp->map_addr);
	}
	libcumc_release_handle(drv, handle);
	if (res != CUDA_SUCCESS) {
		free(imp);
		return res;
	}
	imp->ptr = imp->map_addr + offset;
	imp->next = pool->imports;
	pool->imports = imp;
	*ptr_out = imp->ptr;
	return CUDA_SUCCESS;
}

static CUresult libcumc_pool_import_ptr(const struct libcumc_driver *drv,
					struct libcumc_pool *pool,
					const struct libcumc_pool_ptr_data *data,
					CUdeviceptr *ptr_out)
{
	struct cumc_mem_info info = { 0 };
	CUresult res;
	__u64 handle;

	res = libcumc_import_block(drv, pool, data, &handle, &info);
	if (res != CUDA_SUCCESS)
		return res;
	return libcumc_import_record(drv, pool, handle, &info, data->offset,
				     ptr_out);
}

/*
 * The export data of a fabric pool is its block's fabric handle: a block
 * of the pool's device, or it is another pool's (not always told apart:
 * see api.md).
 */
static CUresult libcumc_pool_import_fabric_ptr(
			const struct libcumc_driver *drv,
			struct libcumc_pool *pool,
			const CUmemPoolPtrExportData *data,
			CUdeviceptr *ptr_out)
{
	struct cumc_mem_info info;
	CUresult res;

	res = libcumc_pool_fabric_open(drv, data->reserved, &info);
	if (res != CUDA_SUCCESS)
		return res;
	if (info.out_device != (__u32)pool->device) {
		libcumc_release_handle(drv, info.handle);
		return CUDA_ERROR_INVALID_VALUE;
	}
	return libcumc_import_record(drv, pool, info.handle, &info, 0,
				     ptr_out);
}

/*
 * Each import maps the whole block that holds the allocation anew, at an
 * address of its own; cuMemFreeAsync or cuMemFree unmaps it.
 */
CUresult libcumc_impl_cuMemPoolImportPointer(const struct libcumc_driver *drv,
					     CUdeviceptr *ptr_out,
					     CUmemoryPool pool,
					     CUmemPoolPtrExportData *shareData)
{
	struct libcumc_pool_ptr_data data;
	struct libcumc_pool *p;
	CUresult res = CUDA_SUCCESS;

	if (!ptr_out || !shareData)
		return CUDA_ERROR_INVALID_VALUE;
	memcpy(&data, shareData, sizeof(data));
	pthread_mutex_lock(&libcumc_pools_lock);
	p = libcumc_pool_find(pool);
	if (!p || !p->imported)
		res = CUDA_ERROR_INVALID_VALUE;
	else if (p->fabric)
		res = libcumc_pool_import_fabric_ptr(drv, p, shareData,
						     ptr_out);
	else if (!libcumc_ptr_data_valid(&data))
		res = CUDA_ERROR_INVALID_VALUE;
	else
		res = libcumc_pool_import_ptr(drv, p, &data, ptr_out);
	pthread_mutex_unlock(&libcumc_pools_lock);
	return res;
}
