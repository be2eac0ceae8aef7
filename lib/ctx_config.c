// SPDX-License-Identifier: MIT
/*
 * A context's settings and identity: cuCtxGetLimit, cuCtxSetLimit,
 * cuCtxGetCacheConfig, cuCtxSetCacheConfig, cuCtxGetSharedMemConfig,
 * cuCtxSetSharedMemConfig, cuCtxGetApiVersion, cuCtxGetId,
 * cuCtxGetExecAffinity and cuCtxResetPersistingL2Cache.
 *
 * Limits and the cache preference are kept in the context's registry
 * entry (context.h), so they go with it, and answered; none changes what
 * cumc runs (kernels' stacks, printf and malloc are the host's, and no
 * cache is simulated).
 */
#include <stdint.h>
#include <string.h>

#include "context.h"
#include "entry.h"

/* What a new context answers: driver 580's on an H200 (conformance/). */
static const size_t libcumc_default_limits[CU_LIMIT_MAX] = {
	[CU_LIMIT_STACK_SIZE] = 1024,
	[CU_LIMIT_PRINTF_FIFO_SIZE] = (8 << 20) + (256 << 10),
	[CU_LIMIT_MALLOC_HEAP_SIZE] = 8 << 20,
	[CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT] = 2048,
	[CU_LIMIT_MAX_L2_FETCH_GRANULARITY] = 64,
	[CU_LIMIT_PERSISTING_L2_CACHE_SIZE] = 45 * 256 * 1024,
	/* Not a CIG context: the whole opt-in shared memory, no CIG. */
	[CU_LIMIT_SHMEM_SIZE] = 227 * 1024,
	[CU_LIMIT_CIG_ENABLED] = 0,
};

/* The most CU_LIMIT_PERSISTING_L2_CACHE_SIZE takes (its device attribute). */
#define CUMC_MAX_PERSISTING_L2 (75 * 512 * 1024)

typedef CUresult (*libcumc_settings_fn)(struct libcumc_ctx_settings *c,
					void *arg);

struct libcumc_config_call {
	libcumc_settings_fn fn;
	void *arg;
};

/* The call on settings a new context has not had yet: the defaults. */
static CUresult libcumc_config_call(struct libcumc_ctx_settings *c, void *arg)
{
	struct libcumc_config_call *call = arg;

	if (!c->set) {
		memcpy(c->limits, libcumc_default_limits, sizeof(c->limits));
		c->cache = CU_FUNC_CACHE_PREFER_NONE;
		c->set = true;
	}
	return call->fn(c, call->arg);
}

/* Runs @fn on the current context's settings, under the registry's lock. */
static CUresult libcumc_config_do(libcumc_settings_fn fn, void *arg)
{
	struct libcumc_config_call call = { fn, arg };
	CUdevice dev;
	CUresult res = libcumc_current_device(&dev);

	if (res != CUDA_SUCCESS)
		return res;
	return libcumc_context_settings_do(libcumc_stack_top(),
					   libcumc_config_call, &call);
}

struct libcumc_limit_op {
	CUlimit limit;
	size_t value;
};

/*
 * Compute capability 9.0 has no device-runtime synchronization depth, and
 * a context that is not a CIG one has no shared memory fallback to set.
 */
static CUresult libcumc_limit_check(CUlimit limit)
{
	if ((unsigned int)limit >= CU_LIMIT_MAX)
		return CUDA_ERROR_INVALID_VALUE;
	if (limit == CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH ||
	    limit == CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED)
		return CUDA_ERROR_UNSUPPORTED_LIMIT;
	return CUDA_SUCCESS;
}

static CUresult libcumc_limit_get(struct libcumc_ctx_settings *c, void *arg)
{
	struct libcumc_limit_op *op = arg;

	op->value = c->limits[op->limit];
	return CUDA_SUCCESS;
}

/* The hints are clamped to their ranges, as the documentation allows. */
static CUresult libcumc_limit_set(struct libcumc_ctx_settings *c, void *arg)
{
	struct libcumc_limit_op *op = arg;
	size_t value = op->value;

	switch (op->limit) {
	case CU_LIMIT_SHMEM_SIZE:
	case CU_LIMIT_CIG_ENABLED:
		/* Read-only, as documented. */
		return CUDA_ERROR_INVALID_VALUE;
	case CU_LIMIT_MAX_L2_FETCH_GRANULARITY:
		if (value > 128)
			value = 128;
		break;
	case CU_LIMIT_PERSISTING_L2_CACHE_SIZE:
		if (value > CUMC_MAX_PERSISTING_L2)
			value = CUMC_MAX_PERSISTING_L2;
		break;
	default:
		break;
	}
	c->limits[op->limit] = value;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetLimit(size_t *pvalue, CUlimit limit)
{
	struct libcumc_limit_op op = { .limit = limit };
	CUresult res;

	if (!pvalue)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_limit_check(limit);
	if (res == CUDA_SUCCESS)
		res = libcumc_config_do(libcumc_limit_get, &op);
	if (res == CUDA_SUCCESS)
		*pvalue = op.value;
	return res;
}

CUresult CUDAAPI cuCtxSetLimit(CUlimit limit, size_t value)
{
	struct libcumc_limit_op op = { .limit = limit, .value = value };
	CUresult res = libcumc_limit_check(limit);

	if (res == CUDA_SUCCESS)
		res = libcumc_config_do(libcumc_limit_set, &op);
	return res;
}

static CUresult libcumc_cache_get(struct libcumc_ctx_settings *c, void *arg)
{
	*(CUfunc_cache *)arg = c->cache;
	return CUDA_SUCCESS;
}

static CUresult libcumc_cache_set(struct libcumc_ctx_settings *c, void *arg)
{
	c->cache = *(CUfunc_cache *)arg;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetCacheConfig(CUfunc_cache *pconfig)
{
	CUfunc_cache cache;
	CUresult res;

	if (!pconfig)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_config_do(libcumc_cache_get, &cache);
	if (res == CUDA_SUCCESS)
		*pconfig = cache;
	return res;
}

CUresult CUDAAPI cuCtxSetCacheConfig(CUfunc_cache config)
{
	if ((unsigned int)config > CU_FUNC_CACHE_PREFER_EQUAL)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_config_do(libcumc_cache_set, &config);
}

/*
 * Deprecated since CUDA 12.8: the bank size of Hopper is four bytes and
 * cannot change.  A valid setting is accepted and changes nothing.
 */
CUresult CUDAAPI cuCtxGetSharedMemConfig(CUsharedconfig *pConfig)
{
	CUdevice dev;
	CUresult res;

	if (!pConfig)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_current_device(&dev);
	if (res == CUDA_SUCCESS)
		*pConfig = CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;
	return res;
}

CUresult CUDAAPI cuCtxSetSharedMemConfig(CUsharedconfig config)
{
	CUdevice dev;

	if ((unsigned int)config > CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_current_device(&dev);
}

/* @ctx, or the current context for NULL; INVALID_CONTEXT unless live. */
static CUresult libcumc_ctx_or_current(CUcontext *ctx)
{
	CUdevice dev;
	CUresult res;

	if (*ctx)
		return libcumc_context_device(*ctx, &dev);
	res = libcumc_current_device(&dev);
	if (res == CUDA_SUCCESS)
		*ctx = libcumc_stack_top();
	return res;
}

/* Every context is of the CUDA 3.2 API, as cuCtxCreate_v2 made them. */
CUresult CUDAAPI cuCtxGetApiVersion(CUcontext ctx, unsigned int *version)
{
	CUresult res;

	if (!version)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_ctx_or_current(&ctx);
	if (res == CUDA_SUCCESS)
		*version = 3020;
	return res;
}

/* The handle's number: unique in the process and never reused. */
CUresult CUDAAPI cuCtxGetId(CUcontext ctx, unsigned long long *ctxId)
{
	CUresult res;

	if (!ctxId)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_ctx_or_current(&ctx);
	if (res == CUDA_SUCCESS)
		*ctxId = (uintptr_t)ctx;
	return res;
}

/* No execution affinity outside MPS: a context has the whole device. */
CUresult CUDAAPI cuCtxGetExecAffinity(CUexecAffinityParam *pExecAffinity,
				      CUexecAffinityType type)
{
	CUdevice dev;
	CUresult res;

	if (!pExecAffinity || type != CU_EXEC_AFFINITY_TYPE_SM_COUNT)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_current_device(&dev);
	if (res != CUDA_SUCCESS)
		return res;
	pExecAffinity->type = CU_EXEC_AFFINITY_TYPE_SM_COUNT;
	pExecAffinity->param.smCount.val = 132;
	return CUDA_SUCCESS;
}

/* No L2 cache is simulated: there are no persisting lines to reset. */
CUresult CUDAAPI cuCtxResetPersistingL2Cache(void)
{
	CUdevice dev;

	return libcumc_current_device(&dev);
}
