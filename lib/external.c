// SPDX-License-Identifier: MIT
/*
 * External memory and semaphores (cuImportExternalMemory,
 * cuImportExternalSemaphore and what uses their handles): memory and
 * synchronization objects of Vulkan, Direct3D, NvSci or dma-buf
 * exporters, which cumc's simulated devices cannot reach.  An import
 * answers CUDA_ERROR_NOT_SUPPORTED with a CUMC_LOG note (an OPAQUE_FD memory
 * import of a closed fd: CUDA_ERROR_UNKNOWN, as NVIDIA's), so no external
 * memory or semaphore ever exists: every call on one answers
 * CUDA_ERROR_INVALID_HANDLE.  Nothing is written.
 */
#include <fcntl.h>
#include <stdbool.h>

#include "log.h"
#include "stream.h"

static CUresult libcumc_no_import(void)
{
	libcumc_log_note("cumc imports no memory or semaphores of other APIs (Vulkan, Direct3D, NvSci, dma-buf)");
	return CUDA_ERROR_NOT_SUPPORTED;
}

/*
 * A file descriptor that is not open is what NVIDIA's driver answers
 * CUDA_ERROR_UNKNOWN for, before looking at what it exports.
 */
static bool libcumc_fd_closed(int fd)
{
	return fcntl(fd, F_GETFD) < 0;
}

CUresult CUDAAPI cuImportExternalMemory(CUexternalMemory *extMem_out,
		const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *memHandleDesc)
{
	if (!extMem_out || !memHandleDesc)
		return CUDA_ERROR_INVALID_VALUE;
	if (memHandleDesc->type == CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD &&
	    libcumc_fd_closed(memHandleDesc->handle.fd))
		return CUDA_ERROR_UNKNOWN;
	return libcumc_no_import();
}

CUresult CUDAAPI cuImportExternalSemaphore(CUexternalSemaphore *extSem_out,
		const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC *semHandleDesc)
{
	if (!extSem_out || !semHandleDesc)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_no_import();
}

CUresult CUDAAPI cuExternalMemoryGetMappedBuffer(CUdeviceptr *devPtr,
		CUexternalMemory extMem,
		const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *bufferDesc)
{
	(void)devPtr;
	(void)extMem;
	(void)bufferDesc;
	return CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuExternalMemoryGetMappedMipmappedArray(
		CUmipmappedArray *mipmap, CUexternalMemory extMem,
		const CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC *mipmapDesc)
{
	(void)mipmap;
	(void)extMem;
	(void)mipmapDesc;
	return CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuDestroyExternalMemory(CUexternalMemory extMem)
{
	(void)extMem;
	return CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuDestroyExternalSemaphore(CUexternalSemaphore extSem)
{
	(void)extSem;
	return CUDA_ERROR_INVALID_HANDLE;
}

/* No semaphores is nothing to do; any semaphore is none of cumc's. */
static CUresult libcumc_semaphores(const CUexternalSemaphore *sems,
				   const void *params, unsigned int count)
{
	if (!count)
		return CUDA_SUCCESS;
	if (!sems || !params)
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuSignalExternalSemaphoresAsync(
		const CUexternalSemaphore *extSemArray,
		const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS *paramsArray,
		unsigned int numExtSems, CUstream stream)
{
	(void)stream;
	return libcumc_semaphores(extSemArray, paramsArray, numExtSems);
}

CUresult CUDAAPI cuSignalExternalSemaphoresAsync_ptsz(
		const CUexternalSemaphore *extSemArray,
		const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS *paramsArray,
		unsigned int numExtSems, CUstream stream)
{
	(void)stream;
	return libcumc_semaphores(extSemArray, paramsArray, numExtSems);
}

CUresult CUDAAPI cuWaitExternalSemaphoresAsync(
		const CUexternalSemaphore *extSemArray,
		const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS *paramsArray,
		unsigned int numExtSems, CUstream stream)
{
	(void)stream;
	return libcumc_semaphores(extSemArray, paramsArray, numExtSems);
}

CUresult CUDAAPI cuWaitExternalSemaphoresAsync_ptsz(
		const CUexternalSemaphore *extSemArray,
		const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS *paramsArray,
		unsigned int numExtSems, CUstream stream)
{
	(void)stream;
	return libcumc_semaphores(extSemArray, paramsArray, numExtSems);
}
