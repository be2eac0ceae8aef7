// SPDX-License-Identifier: MIT
/*
 * The device of the calling thread's current context (internal.h): what
 * most entry points start from.  Below the context entry points
 * (context.c), which tear contexts down by calling into the memory and
 * stream code that asks this file.
 */
#include "context.h"
#include "internal.h"

CUresult libcumc_current_device(CUdevice *dev)
{
	CUcontext current = libcumc_stack_top();

	if (!current)
		return CUDA_ERROR_INVALID_CONTEXT;
	/* Destroyed by another thread while current here, or fully released. */
	if (libcumc_context_device(current, dev) != CUDA_SUCCESS)
		return CUDA_ERROR_CONTEXT_IS_DESTROYED;
	return CUDA_SUCCESS;
}

CUresult libcumc_current_device_info(const struct libcumc_driver *drv,
				     CUdevice *dev,
				     struct cumc_device_info *info)
{
	CUresult res = libcumc_current_device(dev);

	return res != CUDA_SUCCESS ? res : libcumc_device_info(drv, *dev, info);
}
