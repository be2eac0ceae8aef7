// SPDX-License-Identifier: MIT
/*
 * Context flags: cuCtxGetFlags, cuCtxSetFlags, cuDevicePrimaryCtxGetState
 * and cuDevicePrimaryCtxSetFlags.  Flags are kept and answered; none
 * changes what cumc does (nothing runs asynchronously to schedule, and
 * every memory operation is synchronous already).
 */
#include "context.h"
#include "entry.h"
#include "internal.h"

/* Exactly one scheduling policy, and only flags the header defines. */
bool libcumc_ctx_flags_valid(unsigned int flags)
{
	unsigned int sched = flags & CU_CTX_SCHED_MASK;

	if (flags & ~(unsigned int)CU_CTX_FLAGS_MASK)
		return false;
	return sched == CU_CTX_SCHED_AUTO || sched == CU_CTX_SCHED_SPIN ||
	       sched == CU_CTX_SCHED_YIELD || sched == CU_CTX_SCHED_BLOCKING_SYNC;
}

CUresult CUDAAPI cuCtxGetFlags(unsigned int *flags)
{
	CUdevice dev;
	CUresult res;

	if (!flags)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_current_device(&dev);
	if (res == CUDA_SUCCESS)
		res = libcumc_context_flags(libcumc_stack_top(), flags);
	return res;
}

/* The current context's flags, replaced; the values of cuCtxCreate. */
CUresult CUDAAPI cuCtxSetFlags(unsigned int flags)
{
	CUdevice dev;
	CUresult res;

	if (!libcumc_ctx_flags_valid(flags))
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_current_device(&dev);
	if (res == CUDA_SUCCESS)
		res = libcumc_context_set_flags(libcumc_stack_top(), flags);
	return res;
}

CUresult libcumc_impl_cuDevicePrimaryCtxGetState(
	const struct libcumc_driver *drv, CUdevice dev, unsigned int *flags,
	int *active)
{
	CUresult res;

	if (!flags || !active)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_check_device(drv, dev);
	if (res == CUDA_SUCCESS)
		libcumc_primary_state(dev, flags, active);
	return res;
}

/* Since CUDA 11.0, also while the primary context is active. */
CUresult libcumc_impl_cuDevicePrimaryCtxSetFlags_v2(
	const struct libcumc_driver *drv, CUdevice dev, unsigned int flags)
{
	CUresult res;

	res = libcumc_check_device(drv, dev);
	if (res != CUDA_SUCCESS)
		return res;
	if (!libcumc_ctx_flags_valid(flags))
		return CUDA_ERROR_INVALID_VALUE;
	libcumc_primary_set_flags(dev, flags);
	return CUDA_SUCCESS;
}
