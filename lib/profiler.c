// SPDX-License-Identifier: MIT
/*
 * cuProfilerStart/Stop: marks for a profiler attached to the process
 * (Nsight's). None attaches to cumc, and without one NVIDIA's driver
 * accepts both and does nothing; so does cumc, for the current context.
 */
#include "internal.h"

static CUresult profiler_mark(void)
{
	CUdevice dev;

	return libcumc_current_device(&dev);
}

CUresult CUDAAPI cuProfilerStart(void)
{
	return profiler_mark();
}

CUresult CUDAAPI cuProfilerStop(void)
{
	return profiler_mark();
}
