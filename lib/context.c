// SPDX-License-Identifier: MIT
/*
 * Context management: primary contexts, created contexts and the calling
 * thread's current context.  Contexts carry no state besides their device,
 * a green context's SMs (green.c) and their streams (stream.c): module
 * allocations belong to no context; the library's cuMemAlloc and host
 * memory go with theirs.
 *
 * These entry points sit above the rest of the library: destroying a
 * context calls down into its streams and memory, which learn the current
 * device below (current_device.c), never from here.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "alloc.h"
#include "context.h"
#include "entry.h"
#include "host_mem.h"
#include "internal.h"
#include "stream.h"

/* @ctx, or the current context when @ctx is NULL (the _v2 queries). */
static CUresult libcumc_given_or_current_device(CUcontext ctx, CUdevice *dev)
{
	if (ctx)
		return libcumc_context_device(ctx, dev);
	return libcumc_current_device(dev);
}

/*
 * The memory made while @ctx was current: its cuMemAlloc allocations and
 * its host allocations and registrations.
 */
static void libcumc_context_memory_free(CUcontext ctx)
{
	libcumc_alloc_free_context(ctx);
	libcumc_host_free_context(ctx);
}

/* A forked child forgets its parent's contexts along with its client. */
static void libcumc_contexts_forget_parent(void)
{
	libcumc_registry_forget();
	libcumc_stack_forget();
}

__attribute__((constructor)) static void libcumc_contexts_atfork(void)
{
	pthread_atfork(NULL, NULL, libcumc_contexts_forget_parent);
}

CUresult libcumc_impl_cuDevicePrimaryCtxRetain(const struct libcumc_driver *drv,
					       CUcontext *pctx, CUdevice dev)
{
	CUresult res;

	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_check_device(drv, dev);
	if (res != CUDA_SUCCESS)
		return res;
	return libcumc_primary_retain(dev, pctx);
}

CUresult libcumc_primary_put(CUdevice dev)
{
	CUcontext ctx = libcumc_primary_handle(dev);
	CUresult res = libcumc_primary_release(dev);

	/* The last release destroys it, its streams and its memory with it. */
	if (res == CUDA_SUCCESS)
		libcumc_streams_reap();
	if (res == CUDA_SUCCESS && libcumc_context_destroyed(ctx))
		libcumc_context_memory_free(ctx);
	return res;
}

CUresult libcumc_impl_cuDevicePrimaryCtxRelease_v2(
	const struct libcumc_driver *drv, CUdevice dev)
{
	CUresult res = libcumc_check_device(drv, dev);

	return res != CUDA_SUCCESS ? res : libcumc_primary_put(dev);
}

/*
 * Resetting destroys a primary context's allocations and state: its
 * cuMemAlloc and host memory go (cuMemCreate allocations belong to no
 * context and outlive it); the handle and the retain count are left
 * alone, as the documentation requires of the count.
 */
CUresult libcumc_impl_cuDevicePrimaryCtxReset_v2(
	const struct libcumc_driver *drv, CUdevice dev)
{
	CUcontext ctx;
	CUresult res;

	res = libcumc_check_device(drv, dev);
	if (res != CUDA_SUCCESS)
		return res;
	ctx = libcumc_primary_handle(dev);
	if (ctx)
		libcumc_context_memory_free(ctx);
	return CUDA_SUCCESS;
}

/* Before CUDA 11.0 these had the same ABI and, without state, do the same. */
CUresult libcumc_impl_cuDevicePrimaryCtxRelease(
	const struct libcumc_driver *drv, CUdevice dev)
	__attribute__((alias("libcumc_impl_cuDevicePrimaryCtxRelease_v2")));
CUresult libcumc_impl_cuDevicePrimaryCtxReset(
	const struct libcumc_driver *drv, CUdevice dev)
	__attribute__((alias("libcumc_impl_cuDevicePrimaryCtxReset_v2")));

static CUresult libcumc_exec_affinity_check(const CUexecAffinityParam *params,
					    int count)
{
	int i;

	if (count < 0 || (count && !params))
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < count; i++)
		if ((unsigned int)params[i].type >= CU_EXEC_AFFINITY_TYPE_MAX)
			return CUDA_ERROR_INVALID_VALUE;
	/* SM-count affinity exists only under MPS, which cumc is not. */
	return count ? CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY : CUDA_SUCCESS;
}

static CUresult libcumc_ctx_params_check(const CUctxCreateParams *params)
{
	if (!params)
		return CUDA_SUCCESS;
	/* Both at once is undefined in the documentation: refuse it. */
	if (params->cigParams && params->execAffinityParams)
		return CUDA_ERROR_INVALID_VALUE;
	/* No graphics interop: both CIG attributes answer 0. */
	if (params->cigParams)
		return CUDA_ERROR_NOT_SUPPORTED;
	return libcumc_exec_affinity_check(params->execAffinityParams,
					   params->numExecAffinityParams);
}

CUresult libcumc_impl_cuCtxCreate_v4(const struct libcumc_driver *drv,
				     CUcontext *pctx,
				     CUctxCreateParams *ctxCreateParams,
				     unsigned int flags, CUdevice dev)
{
	CUcontext ctx;
	CUresult res;

	if (!pctx || !libcumc_ctx_flags_valid(flags))
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_check_device(drv, dev);
	if (res == CUDA_SUCCESS)
		res = libcumc_ctx_params_check(ctxCreateParams);
	if (res == CUDA_SUCCESS)
		res = libcumc_context_create(dev, &ctx);
	if (res != CUDA_SUCCESS)
		return res;
	libcumc_context_set_flags(ctx, flags);
	res = libcumc_stack_push(ctx);
	if (res != CUDA_SUCCESS) {
		libcumc_context_destroy(ctx);
		return res;
	}
	*pctx = ctx;
	return CUDA_SUCCESS;
}

void libcumc_context_teardown(CUcontext ctx)
{
	/* Its streams end before its memory goes: their work may use it. */
	libcumc_streams_ctx_gone(ctx);
	libcumc_context_memory_free(ctx);
	/* Current elsewhere, it stays there and answers CONTEXT_IS_DESTROYED. */
	if (libcumc_stack_top() == ctx)
		libcumc_stack_pop();
}

/*
 * The older ABIs of cuCtxCreate, which binaries built against headers
 * before CUDA 12.5 (_v2) and 11.4 (_v3) link to: the same context, with
 * no parameters or with only the execution-affinity array.
 */
CUresult libcumc_impl_cuCtxCreate_v2(const struct libcumc_driver *drv,
				     CUcontext *pctx, unsigned int flags,
				     CUdevice dev)
{
	return libcumc_impl_cuCtxCreate_v4(drv, pctx, NULL, flags, dev);
}

CUresult libcumc_impl_cuCtxCreate_v3(const struct libcumc_driver *drv,
				     CUcontext *pctx,
				     CUexecAffinityParam *paramsArray,
				     int numParams, unsigned int flags,
				     CUdevice dev)
{
	CUctxCreateParams params = {
		.execAffinityParams = paramsArray,
		.numExecAffinityParams = numParams,
	};

	return libcumc_impl_cuCtxCreate_v4(drv, pctx, &params, flags, dev);
}

/* Ends a live created context (a primary one: INVALID_CONTEXT). */
static CUresult libcumc_ctx_destroy(CUcontext ctx)
{
	CUresult res = libcumc_context_destroy(ctx);

	if (res == CUDA_SUCCESS)
		libcumc_context_teardown(ctx);
	return res;
}

CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx)
{
	if (!ctx)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_ctx_destroy(ctx);
}

/*
 * The usage counts of the deprecated cuCtxAttach and cuCtxDetach: the
 * attaches a context has beyond its creation, by handle (never reused).
 */
struct libcumc_attach {
	CUcontext ctx;
	unsigned int count;
};

static pthread_mutex_t libcumc_attach_lock = PTHREAD_MUTEX_INITIALIZER;
static struct libcumc_attach *libcumc_attaches;
static size_t libcumc_num_attaches;

CUresult CUDAAPI cuCtxAttach(CUcontext *pctx, unsigned int flags)
{
	struct libcumc_attach *a;
	CUcontext ctx;
	CUdevice dev;
	CUresult res;
	size_t i;

	if (!pctx || flags)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_current_device(&dev);
	if (res != CUDA_SUCCESS)
		return res;
	ctx = libcumc_stack_top();
	pthread_mutex_lock(&libcumc_attach_lock);
	for (i = 0; i < libcumc_num_attaches; i++)
		if (libcumc_attaches[i].ctx == ctx)
			break;
	if (i == libcumc_num_attaches) {
		a = reallocarray(libcumc_attaches, i + 1, sizeof(*a));
		if (!a) {
			res = CUDA_ERROR_OUT_OF_MEMORY;
			goto out;
		}
		libcumc_attaches = a;
		a[i].ctx = ctx;
		a[i].count = 0;
		libcumc_num_attaches++;
	}
	libcumc_attaches[i].count++;
	*pctx = ctx;
out:
	pthread_mutex_unlock(&libcumc_attach_lock);
	return res;
}

/* A forked child has none of its parent's contexts. */
static void libcumc_attach_forget_parent(void)
{
	free(libcumc_attaches);
	libcumc_attaches = NULL;
	libcumc_num_attaches = 0;
	pthread_mutex_init(&libcumc_attach_lock, NULL);
}

__attribute__((constructor)) static void libcumc_attach_atfork(void)
{
	pthread_atfork(NULL, NULL, libcumc_attach_forget_parent);
}

/*
 * One use less of the current context; the last ends it as cuCtxDestroy
 * does (a primary context ends by release only: INVALID_CONTEXT).
 */
CUresult CUDAAPI cuCtxDetach(CUcontext ctx)
{
	CUdevice dev;
	size_t i;

	if (!ctx || ctx != libcumc_stack_top() ||
	    libcumc_context_device(ctx, &dev) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_CONTEXT;
	pthread_mutex_lock(&libcumc_attach_lock);
	for (i = 0; i < libcumc_num_attaches; i++)
		if (libcumc_attaches[i].ctx == ctx) {
			if (!--libcumc_attaches[i].count)
				libcumc_attaches[i] =
					libcumc_attaches[--libcumc_num_attaches];
			pthread_mutex_unlock(&libcumc_attach_lock);
			return CUDA_SUCCESS;
		}
	pthread_mutex_unlock(&libcumc_attach_lock);
	return libcumc_ctx_destroy(ctx);
}

CUresult CUDAAPI cuCtxPushCurrent_v2(CUcontext ctx)
{
	CUdevice dev;
	CUresult res;

	if (!ctx)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_context_device(ctx, &dev);
	return res != CUDA_SUCCESS ? res : libcumc_stack_push(ctx);
}

/* A NULL pctx pops without reporting what was popped. */
CUresult CUDAAPI cuCtxPopCurrent_v2(CUcontext *pctx)
{
	CUcontext popped;

	popped = libcumc_stack_pop();
	if (!popped)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (pctx)
		*pctx = popped;
	return CUDA_SUCCESS;
}

/* Before CUDA 4.0 these had the same ABI; the stack semantics are today's. */
#undef cuCtxDestroy
#undef cuCtxPushCurrent
#undef cuCtxPopCurrent
CUresult CUDAAPI cuCtxDestroy(CUcontext ctx)
	__attribute__((alias("cuCtxDestroy_v2")));
CUresult CUDAAPI cuCtxPushCurrent(CUcontext ctx)
	__attribute__((alias("cuCtxPushCurrent_v2")));
CUresult CUDAAPI cuCtxPopCurrent(CUcontext *pctx)
	__attribute__((alias("cuCtxPopCurrent_v2")));

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx)
{
	CUdevice dev;
	CUresult res;

	if (!ctx) {
		libcumc_stack_pop();
		return CUDA_SUCCESS;
	}
	res = libcumc_context_device(ctx, &dev);
	return res != CUDA_SUCCESS ? res : libcumc_stack_replace_top(ctx);
}

CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx)
{
	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	*pctx = libcumc_stack_top();
	return CUDA_SUCCESS;
}

static CUresult libcumc_ctx_get_device(CUdevice *device, CUcontext ctx)
{
	const struct libcumc_driver *drv;
	CUdevice dev;
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	if (!device)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_given_or_current_device(ctx, &dev);
	if (res == CUDA_SUCCESS)
		*device = dev;
	return res;
}

CUresult CUDAAPI cuCtxGetDevice(CUdevice *device)
{
	return libcumc_ctx_get_device(device, NULL);
}

CUresult CUDAAPI cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
	return libcumc_ctx_get_device(device, ctx);
}

/* Waits for the work of every stream of the context, implicit ones too. */
static CUresult libcumc_ctx_synchronize(CUcontext ctx)
{
	const struct libcumc_driver *drv;
	CUdevice dev;
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_given_or_current_device(ctx, &dev);
	if (res != CUDA_SUCCESS)
		return res;
	return libcumc_streams_sync_ctx(ctx ? ctx : libcumc_stack_top());
}

CUresult CUDAAPI cuCtxSynchronize(void)
{
	return libcumc_ctx_synchronize(NULL);
}

CUresult CUDAAPI cuCtxSynchronize_v2(CUcontext ctx)
{
	return libcumc_ctx_synchronize(ctx);
}
