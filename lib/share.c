// SPDX-License-Identifier: MIT
/*
 * Sharing across processes: cuMemExportToShareableHandle and
 * cuMemImportFromShareableHandle, over CUMC_EXPORT_FD/CUMC_IMPORT_FD and
 * CUMC_EXPORT_FABRIC/CUMC_IMPORT_FABRIC.
 *
 * The handle may name any object the module can share, an allocation or a
 * multicast object: the library does not look at its kind, the module
 * decides.
 *
 * Both entry points document INVALID_VALUE, NOT_PERMITTED and
 * NOT_SUPPORTED only; importing across nodes adds the real driver's
 * INVALID_HANDLE. NOT_PERMITTED keeps the meaning the documentation
 * and programs probing for IMEX give it: no access to the IMEX channel.
 * Everything else the caller got wrong (an unknown handle, a handle type
 * the object was not created with, a descriptor that is closed or not a
 * cumc export, a fabric handle naming nothing) is INVALID_VALUE.
 */
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "entry.h"
#include "internal.h"
#include "log.h"

static_assert(sizeof(CUmemFabricHandle) == CUMC_FABRIC_HANDLE_SIZE,
	      "a fabric handle is the module's 64 bytes");

/* EPERM: the object was not created with the type asked for. */
static const struct libcumc_errno_result libcumc_export_errors[] = {
	{ ENOENT, CUDA_ERROR_INVALID_VALUE },
	{ EPERM, CUDA_ERROR_INVALID_VALUE },
	{ 0 }
};

/* EPERM: no IMEX channel; it stays NOT_PERMITTED. */
static const struct libcumc_errno_result libcumc_no_channel_export_errors[] = {
	{ ENOENT, CUDA_ERROR_INVALID_VALUE },
	{ 0 }
};

static const struct libcumc_errno_result libcumc_import_fd_errors[] = {
	{ EBADF, CUDA_ERROR_INVALID_VALUE },
	{ EBADFD, CUDA_ERROR_INVALID_VALUE },
	{ 0 }
};

/*
 * ENOENT: forged, or its object is gone. EPERM (channel) stays. Another
 * node's handle that cannot be looked up there (the node outside this
 * node's IMEX domain, lost, silent, or no IMEX daemon here) is what the
 * real driver answers then: "invalid resource handle" (see
 * Documentation/multinode.md).
 */
static const struct libcumc_errno_result libcumc_import_fabric_errors[] = {
	{ ENOENT, CUDA_ERROR_INVALID_VALUE },
	{ ENOTCONN, CUDA_ERROR_INVALID_HANDLE },
	{ EHOSTUNREACH, CUDA_ERROR_INVALID_HANDLE },
	{ EHOSTDOWN, CUDA_ERROR_INVALID_HANDLE },
	{ ETIMEDOUT, CUDA_ERROR_INVALID_HANDLE },
	{ EPROTO, CUDA_ERROR_INVALID_HANDLE },
	{ 0 }
};

/*
 * As for cuMemCreate's requestedHandleTypes: the Windows types are defined
 * by the API but not implemented (NOT_SUPPORTED); NONE, a combination or
 * an undefined value is not a handle type (INVALID_VALUE).
 */
static CUresult libcumc_share_type_check(CUmemAllocationHandleType type)
{
	switch (type) {
	case CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR:
	case CU_MEM_HANDLE_TYPE_FABRIC:
		return CUDA_SUCCESS;
	case CU_MEM_HANDLE_TYPE_WIN32:
	case CU_MEM_HANDLE_TYPE_WIN32_KMT:
		return CUDA_ERROR_NOT_SUPPORTED;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

static CUresult libcumc_export_fd(const struct libcumc_driver *drv,
				  CUmemGenericAllocationHandle handle, int *fd)
{
	struct cumc_export_fd cmd = {
		.size = sizeof(cmd),
		.handle = handle,
	};
	CUresult res;

	res = libcumc_ioctl(drv, CUMC_EXPORT_FD, &cmd, libcumc_export_errors);
	if (res == CUDA_SUCCESS)
		*fd = cmd.out_fd;
	return res;
}

/*
 * The module answers EPERM both for a missing channel and for an object
 * without the fabric type; the library knows which applies.
 */
static CUresult libcumc_export_fabric(const struct libcumc_driver *drv,
				      CUmemGenericAllocationHandle handle,
				      CUmemFabricHandle *fh)
{
	struct cumc_export_fabric cmd = {
		.size = sizeof(cmd),
		.handle = handle,
	};
	CUresult res;

	res = libcumc_ioctl(drv, CUMC_EXPORT_FABRIC, &cmd,
			    drv->channel < 0 ?
				    libcumc_no_channel_export_errors :
				    libcumc_export_errors);
	if (res == CUDA_SUCCESS)
		memcpy(fh->data, cmd.out_fabric, sizeof(fh->data));
	return res;
}

CUresult libcumc_impl_cuMemExportToShareableHandle(
	const struct libcumc_driver *drv, void *shareableHandle,
	CUmemGenericAllocationHandle handle,
	CUmemAllocationHandleType handleType, unsigned long long flags)
{
	CUresult res;

	if (!shareableHandle || flags)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_share_type_check(handleType);
	if (res != CUDA_SUCCESS)
		return res;
	if (handleType == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
		return libcumc_export_fd(drv, handle, shareableHandle);
	return libcumc_export_fabric(drv, handle, shareableHandle);
}

/* The descriptor travels in the pointer's value: (void *)(uintptr_t)fd. */
static CUresult libcumc_import_fd(const struct libcumc_driver *drv,
				  CUmemGenericAllocationHandle *handle,
				  void *osHandle)
{
	uintptr_t fd = (uintptr_t)osHandle;
	struct cumc_import_fd cmd = { .size = sizeof(cmd) };
	CUresult res;

	if (fd > INT_MAX)
		return CUDA_ERROR_INVALID_VALUE;
	cmd.fd = fd;
	res = libcumc_ioctl(drv, CUMC_IMPORT_FD, &cmd,
			    libcumc_import_fd_errors);
	if (res == CUDA_SUCCESS)
		*handle = cmd.out_handle;
	return res;
}

static CUresult libcumc_import_fabric(const struct libcumc_driver *drv,
				      CUmemGenericAllocationHandle *handle,
				      const CUmemFabricHandle *fh)
{
	struct cumc_import_fabric cmd = { .size = sizeof(cmd) };
	CUresult res;

	if (!fh)
		return CUDA_ERROR_INVALID_VALUE;
	memcpy(cmd.fabric, fh->data, sizeof(cmd.fabric));
	res = libcumc_ioctl(drv, CUMC_IMPORT_FABRIC, &cmd,
			    libcumc_import_fabric_errors);
	if (res == CUDA_SUCCESS)
		*handle = cmd.out_handle;
	return res;
}

CUresult libcumc_impl_cuMemImportFromShareableHandle(
	const struct libcumc_driver *drv, CUmemGenericAllocationHandle *handle,
	void *osHandle, CUmemAllocationHandleType shHandleType)
{
	CUresult res;

	if (!handle)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_share_type_check(shHandleType);
	if (res != CUDA_SUCCESS)
		return res;
	if (shHandleType == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
		return libcumc_import_fd(drv, handle, osHandle);
	return libcumc_import_fabric(drv, handle, osHandle);
}

/*
 * dma-buf exports of device memory: cumc's memory is not a device's BAR
 * a NIC could reach (DMA_BUF_SUPPORTED is 0).  The arguments are checked
 * first, as for any call.
 */
CUresult CUDAAPI cuMemGetHandleForAddressRange(void *handle, CUdeviceptr dptr,
					       size_t size,
					       CUmemRangeHandleType handleType,
					       unsigned long long flags)
{
	if (!handle || !dptr || !size ||
	    handleType != CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD ||
	    (flags & ~(unsigned long long)CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE))
		return CUDA_ERROR_INVALID_VALUE;
	libcumc_log_note("cumc memory has no dma-buf");
	return CUDA_ERROR_NOT_SUPPORTED;
}
