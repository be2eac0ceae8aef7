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

/*
 * A fabric handle names no pool of cumc (NOT_SUPPORTED); every other type
 * but a descriptor is a bad value, as for the real driver on Linux.
 */
static CUresult libcumc_pool_share_type_check(CUmemAllocationHandleType type)
{
	switch (type) {
	case CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR:
		return CUDA_SUCCESS;
	case CU_MEM_HANDLE_TYPE_FABRIC:
		return CUDA_ERROR_NOT_SUPPORTED;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

/*
 * A pool of this process made to be shared as a descriptor: a duplicate.
 * No pool is made to be shared by fabric handle: that type is a bad value
 * here, as for a pool created without it.
 */
CUresult CUDAAPI cuMemPoolExportToShareableHandle(void *handle_out,
			CUmemoryPool pool, CUmemAllocationHandleType handleType,
			unsigned long long flags)
{
	const struct libcumc_driver *drv;
	struct libcumc_pool *p;
	int fd = -1;
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	if (!handle_out || flags)
		return CUDA_ERROR_INVALID_VALUE;
	if (handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&libcumc_pools_lock);
	p = libcumc_pool_find(pool);
	if (!p || p->imported || p->client_fd < 0) {
		res = CUDA_ERROR_INVALID_VALUE;
	} else {
		fd = fcntl(p->client_fd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			res = CUDA_ERROR_OUT_OF_MEMORY;
		else
			p->exported = true;
	}
	pthread_mutex_unlock(&libcumc_pools_lock);
	if (res == CUDA_SUCCESS)
		memcpy(handle_out, &fd, sizeof(fd));
	return res;
}

/* Whether @fd is a /dev/cumc client (not an export, not another file). */
static bool libcumc_is_client(int fd)
{
	struct cumc_query query = { .size = sizeof(query) };

	return ioctl(fd, CUMC_QUERY, &query) == 0 &&
	       query.api_version >= CUMC_API_VERSION;
}

/*
 * The descriptor travels in the pointer's value, as for
 * cuMemImportFromShareableHandle; the caller keeps it (the pool holds a
 * duplicate). The pool learns its device from its first pointer.
 */
CUresult CUDAAPI cuMemPoolImportFromShareableHandle(CUmemoryPool *pool_out,
			void *handle, CUmemAllocationHandleType handleType,
			unsigned long long flags)
{
	const struct libcumc_driver *drv;
	uintptr_t fd = (uintptr_t)handle;
	struct libcumc_pool *p;
	int dup_fd;
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	if (!pool_out || flags)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_pool_share_type_check(handleType);
	if (res != CUDA_SUCCESS)
		return res;
	if (fd > INT_MAX || !libcumc_is_client(fd))
		return CUDA_ERROR_INVALID_VALUE;
	dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup_fd < 0)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&libcumc_pools_lock);
	p = libcumc_pool_new(drv, -1);
	if (p) {
		p->imported = true;
		p->handle_types = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
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
	const struct libcumc_driver *drv;
	struct libcumc_block *block;
	struct libcumc_pool *pool;
	struct libcumc_seg *seg;
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	if (!shareData_out)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&libcumc_pools_lock);
	pool = libcumc_pool_lookup(ptr, &block, &seg);
	if (!pool || !pool->live || !pool->exported || !block->handle ||
	    seg->state != CUMC_SEG_USED) {
		res = CUDA_ERROR_INVALID_VALUE;
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
	struct cumc_release release = { .size = sizeof(release) };
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
		release.handle = import.out_handle;
		libcumc_ioctl(drv, CUMC_RELEASE, &release, NULL);
		return res;
	}
	*handle = import.out_handle;
	return CUDA_SUCCESS;
}

static CUresult libcumc_pool_import_ptr(const struct libcumc_driver *drv,
					struct libcumc_pool *pool,
					const struct libcumc_pool_ptr_data *data,
					CUdeviceptr *ptr_out)
{
	struct cumc_release release = { .size = sizeof(release) };
	struct libcumc_import *imp = calloc(1, sizeof(*imp));
	struct cumc_mem_info info = { 0 };
	CUresult res;
	__u64 handle;

	if (!imp)
		return CUDA_ERROR_OUT_OF_MEMORY;
	res = libcumc_import_block(drv, pool, data, &handle, &info);
	if (res != CUDA_SUCCESS) {
		free(imp);
		return res;
	}
	if (pool->device < 0) {
		pool->device = info.out_device;
		pool->access[pool->device] = CUMC_ACCESS_READWRITE;
	}
	imp->map_length = data->block_length;
	res = libcumc_pool_map(drv, pool, handle, imp->map_length,
				 &imp->map_addr);
	release.handle = handle;
	libcumc_ioctl(drv, CUMC_RELEASE, &release, NULL);
	if (res != CUDA_SUCCESS) {
		free(imp);
		return res;
	}
	imp->ptr = imp->map_addr + data->offset;
	imp->next = pool->imports;
	pool->imports = imp;
	*ptr_out = imp->ptr;
	return CUDA_SUCCESS;
}

/*
 * Each import maps the whole block that holds the allocation anew, at an
 * address of its own; cuMemFreeAsync or cuMemFree unmaps it.
 */
CUresult CUDAAPI cuMemPoolImportPointer(CUdeviceptr *ptr_out,
					CUmemoryPool pool,
					CUmemPoolPtrExportData *shareData)
{
	struct libcumc_pool_ptr_data data;
	const struct libcumc_driver *drv;
	struct libcumc_pool *p;
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	if (!ptr_out || !shareData)
		return CUDA_ERROR_INVALID_VALUE;
	memcpy(&data, shareData, sizeof(data));
	if (!libcumc_ptr_data_valid(&data))
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&libcumc_pools_lock);
	p = libcumc_pool_find(pool);
	if (!p || !p->imported)
		res = CUDA_ERROR_INVALID_VALUE;
	else
		res = libcumc_pool_import_ptr(drv, p, &data, ptr_out);
	pthread_mutex_unlock(&libcumc_pools_lock);
	return res;
}
