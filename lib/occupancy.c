// SPDX-License-Identifier: MIT
/*
 * Occupancy: what cumc runs at once.  ptx/grid.c runs a grid's blocks on
 * workers, host threads each of which keeps up to CUMC_PTX_RESIDENT
 * blocks resident and time-slices their threads; a worker is cumc's SM.
 * A cooperative launch (launch.c) runs as many workers as it takes to
 * keep every block resident, at most one per SM of the device.  So the
 * blocks of a function one SM runs at once are the fewest of:
 *
 * - CUMC_PTX_RESIDENT (16; an H100 allows 32, cumc's workers fewer);
 * - the SM's 2048 threads over the block's, counted in whole warps;
 * - the SM's 228 KiB of shared memory over the block's static and
 *   dynamic shared memory and the 1 KiB the device reserves per block;
 *
 * as the device attributes (device_attr.c) state them.  Registers do not
 * limit it: cumc has no register file (NUM_REGS counts the PTX's virtual
 * registers).  A block cumc cannot launch (over 1024 threads, more dynamic
 * shared memory than the function's MAX_DYNAMIC_SHARED_SIZE_BYTES) has
 * occupancy 0.  Flags other than CU_OCCUPANCY_DEFAULT and
 * CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE (no cache here: no effect) are a
 * bad value.
 */
#include <stdint.h>

#include "context.h"
#include "cumc_ptx.h"
#include "device_attr.h"
#include "internal.h"
#include "kernel.h"
#include "log.h"
#include "occupancy.h"

#define CUMC_WARP_SIZE 32u

/* An attribute every simulated device shares. */
static unsigned int libcumc_device_fact(CUdevice_attribute attrib)
{
	const struct libcumc_device_attr_dev any = { 0 };
	int v = 0;

	libcumc_device_attribute_value(&any, attrib, &v);
	return v > 0 ? (unsigned int)v : 0;
}

unsigned int libcumc_sm_count(void)
{
	return libcumc_device_fact(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
}

unsigned int libcumc_ctx_sm_count(CUcontext ctx)
{
	unsigned int green_sms = libcumc_context_green_sms(ctx);

	return green_sms ? green_sms : libcumc_sm_count();
}

unsigned int libcumc_occupancy(const struct libcumc_function *fn,
			       unsigned int threads, size_t dynamic)
{
	unsigned int sm_threads = libcumc_device_fact(
		CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
	size_t sm_shared = libcumc_device_fact(
		CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
	size_t shared = libcumc_device_fact(
		CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK) +
		cumc_ptx_static_shared(fn->ptx) + dynamic;
	unsigned int warps = (threads + CUMC_WARP_SIZE - 1) / CUMC_WARP_SIZE;
	unsigned int n = CUMC_PTX_RESIDENT;
	int max = __atomic_load_n(&fn->max_dynamic_shared, __ATOMIC_RELAXED);

	if (!threads || threads > CUMC_PTX_MAX_BLOCK_THREADS ||
	    dynamic > (size_t)max)
		return 0;
	if (sm_threads / CUMC_WARP_SIZE / warps < n)
		n = sm_threads / CUMC_WARP_SIZE / warps;
	if (sm_shared / shared < n)
		n = sm_shared / shared;
	return n;
}

static CUresult libcumc_occupancy_flags(unsigned int flags)
{
	return flags & ~(unsigned int)CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE ?
	       CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

/* The function @func names, with a reference: put it when done. */
static CUresult libcumc_occupancy_begin(CUfunction func,
					struct libcumc_function **fn)
{
	const struct libcumc_driver *drv;
	CUresult res = libcumc_driver(&drv);

	return res != CUDA_SUCCESS ? res : libcumc_function_get(func, fn);
}

static CUresult libcumc_max_active(int *numBlocks, CUfunction func,
				   int blockSize, size_t dynamicSMemSize,
				   unsigned int flags)
{
	struct libcumc_function *fn;
	CUresult res = libcumc_occupancy_begin(func, &fn);

	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_occupancy_flags(flags);
	if (res == CUDA_SUCCESS && (!numBlocks || blockSize <= 0))
		res = CUDA_ERROR_INVALID_VALUE;
	if (res == CUDA_SUCCESS)
		*numBlocks = libcumc_occupancy(fn, blockSize, dynamicSMemSize);
	libcumc_module_put(fn->mod);
	return res;
}

CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
				int *numBlocks, CUfunction func, int blockSize,
				size_t dynamicSMemSize, unsigned int flags)
{
	return libcumc_max_active(numBlocks, func, blockSize, dynamicSMemSize,
				  flags);
}

CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
				CUfunction func, int blockSize,
				size_t dynamicSMemSize)
{
	return libcumc_max_active(numBlocks, func, blockSize, dynamicSMemSize,
				  CU_OCCUPANCY_DEFAULT);
}

/*
 * The block size of the most threads resident on an SM, from the largest
 * (1024, or @blockSizeLimit) down a warp at a time, the larger block on a
 * tie; the grid that fills every SM with it.  The dynamic shared memory
 * is @blockSizeToDynamicSMemSize's for each size, or @dynamicSMemSize.
 * No block size fitting (too much shared memory): 0 and 0.
 */
static CUresult libcumc_potential(int *minGridSize, int *blockSize,
				  CUfunction func,
				  CUoccupancyB2DSize blockSizeToDynamicSMemSize,
				  size_t dynamicSMemSize, int blockSizeLimit,
				  unsigned int flags)
{
	struct libcumc_function *fn;
	CUresult res = libcumc_occupancy_begin(func, &fn);
	unsigned int size, top = CUMC_PTX_MAX_BLOCK_THREADS, best = 0;
	unsigned int best_blocks = 0;

	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_occupancy_flags(flags);
	if (res == CUDA_SUCCESS && (!minGridSize || !blockSize ||
				    blockSizeLimit < 0))
		res = CUDA_ERROR_INVALID_VALUE;
	if (res != CUDA_SUCCESS) {
		libcumc_module_put(fn->mod);
		return res;
	}
	if (blockSizeLimit && (unsigned int)blockSizeLimit < top)
		top = blockSizeLimit;
	for (size = top; size > 0;
	     size = (size - 1) / CUMC_WARP_SIZE * CUMC_WARP_SIZE) {
		size_t dyn = blockSizeToDynamicSMemSize ?
			     blockSizeToDynamicSMemSize(size) : dynamicSMemSize;
		unsigned int blocks = libcumc_occupancy(fn, size, dyn);

		if ((uint64_t)blocks * size > (uint64_t)best_blocks * best) {
			best = size;
			best_blocks = blocks;
		}
	}
	*blockSize = best;
	*minGridSize = best_blocks *
		       libcumc_ctx_sm_count(libcumc_stack_top());
	libcumc_module_put(fn->mod);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize,
				int *blockSize, CUfunction func,
				CUoccupancyB2DSize blockSizeToDynamicSMemSize,
				size_t dynamicSMemSize, int blockSizeLimit,
				unsigned int flags)
{
	return libcumc_potential(minGridSize, blockSize, func,
				 blockSizeToDynamicSMemSize, dynamicSMemSize,
				 blockSizeLimit, flags);
}

CUresult CUDAAPI cuOccupancyMaxPotentialBlockSize(int *minGridSize,
				int *blockSize, CUfunction func,
				CUoccupancyB2DSize blockSizeToDynamicSMemSize,
				size_t dynamicSMemSize, int blockSizeLimit)
{
	return libcumc_potential(minGridSize, blockSize, func,
				 blockSizeToDynamicSMemSize, dynamicSMemSize,
				 blockSizeLimit, CU_OCCUPANCY_DEFAULT);
}

/*
 * The most dynamic shared memory each of @numBlocks blocks of @blockSize
 * threads may have with all of them on one SM: the SM's shared memory
 * shared out, less each block's reserved and static share, at most the
 * function's MAX_DYNAMIC_SHARED_SIZE_BYTES; 0 when so many blocks never
 * run at once.
 */
CUresult CUDAAPI cuOccupancyAvailableDynamicSMemPerBlock(
				size_t *dynamicSmemSize, CUfunction func,
				int numBlocks, int blockSize)
{
	struct libcumc_function *fn;
	CUresult res = libcumc_occupancy_begin(func, &fn);
	size_t per, fixed, avail = 0;
	int max;

	if (res != CUDA_SUCCESS)
		return res;
	if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0) {
		libcumc_module_put(fn->mod);
		return CUDA_ERROR_INVALID_VALUE;
	}
	max = __atomic_load_n(&fn->max_dynamic_shared, __ATOMIC_RELAXED);
	per = libcumc_device_fact(
		CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR) /
		numBlocks;
	fixed = libcumc_device_fact(
		CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK) +
		cumc_ptx_static_shared(fn->ptx);
	/* Whether that many blocks run at once with no dynamic memory. */
	if ((unsigned int)numBlocks <= libcumc_occupancy(fn, blockSize, 0) &&
	    per > fixed)
		avail = per - fixed < (size_t)max ? per - fixed : (size_t)max;
	*dynamicSmemSize = avail;
	libcumc_module_put(fn->mod);
	return CUDA_SUCCESS;
}

/*
 * Clusters: the device answers CLUSTER_LAUNCH 0 and a grid launched with a
 * cluster dimension runs as a plain one (launch.c), so there is no
 * cluster occupancy to answer.  The function is checked first, as for
 * the other occupancy queries.
 */
static CUresult libcumc_cluster_query(int *out, CUfunction func,
				      const CUlaunchConfig *config)
{
	struct libcumc_function *fn;
	CUresult res = libcumc_occupancy_begin(func, &fn);

	if (res != CUDA_SUCCESS)
		return res;
	libcumc_module_put(fn->mod);
	if (!out || !config)
		return CUDA_ERROR_INVALID_VALUE;
	libcumc_log_note("cumc has no thread block clusters to count");
	return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult CUDAAPI cuOccupancyMaxActiveClusters(int *numClusters,
					      CUfunction func,
					      const CUlaunchConfig *config)
{
	return libcumc_cluster_query(numClusters, func, config);
}

CUresult CUDAAPI cuOccupancyMaxPotentialClusterSize(int *clusterSize,
						    CUfunction func,
						    const CUlaunchConfig *config)
{
	return libcumc_cluster_query(clusterSize, func, config);
}
