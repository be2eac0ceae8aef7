// SPDX-License-Identifier: MIT
/*
 * The live contexts of the process: those of cuCtxCreate until
 * cuCtxDestroy, and one primary context per device while it is retained.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "context.h"

struct cumc_context {
	struct cumc_context *next;
	CUcontext handle;
	CUdevice device;
	bool primary;
	unsigned int retains;		/* of a primary context */
};

static pthread_mutex_t cumc_contexts_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cumc_context *cumc_contexts;
/* The last handle issued: handles count up and are never reused. */
static uintptr_t cumc_last_handle;

static struct cumc_context *cumc_find(CUcontext handle)
{
	struct cumc_context *ctx;

	for (ctx = cumc_contexts; ctx; ctx = ctx->next)
		if (ctx->handle == handle)
			return ctx;
	return NULL;
}

static struct cumc_context *cumc_find_primary(CUdevice dev)
{
	struct cumc_context *ctx;

	for (ctx = cumc_contexts; ctx; ctx = ctx->next)
		if (ctx->primary && ctx->device == dev)
			return ctx;
	return NULL;
}

static struct cumc_context *cumc_add(CUdevice dev, bool primary)
{
	struct cumc_context *ctx = calloc(1, sizeof(*ctx));

	if (!ctx)
		return NULL;
	ctx->handle = (CUcontext)++cumc_last_handle;
	ctx->device = dev;
	ctx->primary = primary;
	ctx->next = cumc_contexts;
	cumc_contexts = ctx;
	return ctx;
}

static void cumc_remove(struct cumc_context *victim)
{
	struct cumc_context **link;

	for (link = &cumc_contexts; *link != victim; link = &(*link)->next)
		;
	*link = victim->next;
	free(victim);
}

CUresult cumc_context_create(CUdevice dev, CUcontext *handle)
{
	struct cumc_context *ctx;

	pthread_mutex_lock(&cumc_contexts_lock);
	ctx = cumc_add(dev, false);
	if (ctx)
		*handle = ctx->handle;
	pthread_mutex_unlock(&cumc_contexts_lock);
	return ctx ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cumc_context_destroy(CUcontext handle)
{
	CUresult res = CUDA_ERROR_INVALID_CONTEXT;
	struct cumc_context *ctx;

	pthread_mutex_lock(&cumc_contexts_lock);
	ctx = cumc_find(handle);
	if (ctx && !ctx->primary) {
		cumc_remove(ctx);
		res = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&cumc_contexts_lock);
	return res;
}

CUresult cumc_context_device(CUcontext handle, CUdevice *dev)
{
	struct cumc_context *ctx;

	pthread_mutex_lock(&cumc_contexts_lock);
	ctx = cumc_find(handle);
	if (ctx)
		*dev = ctx->device;
	pthread_mutex_unlock(&cumc_contexts_lock);
	return ctx ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult cumc_primary_retain(CUdevice dev, CUcontext *handle)
{
	struct cumc_context *ctx;

	pthread_mutex_lock(&cumc_contexts_lock);
	ctx = cumc_find_primary(dev);
	if (!ctx)
		ctx = cumc_add(dev, true);
	if (ctx) {
		ctx->retains++;
		*handle = ctx->handle;
	}
	pthread_mutex_unlock(&cumc_contexts_lock);
	return ctx ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

/*
 * The last release destroys the primary context: the next retain makes a
 * new one with a new handle, and the old handle is refused like any
 * destroyed context's.
 */
CUresult cumc_primary_release(CUdevice dev)
{
	struct cumc_context *ctx;

	pthread_mutex_lock(&cumc_contexts_lock);
	ctx = cumc_find_primary(dev);
	if (ctx && !--ctx->retains)
		cumc_remove(ctx);
	pthread_mutex_unlock(&cumc_contexts_lock);
	return ctx ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

/* In a forked child, where no other thread runs: the parent's contexts go. */
void cumc_registry_forget(void)
{
	while (cumc_contexts)
		cumc_remove(cumc_contexts);
	pthread_mutex_init(&cumc_contexts_lock, NULL);
}
