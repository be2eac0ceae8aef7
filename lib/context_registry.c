// SPDX-License-Identifier: MIT
/*
 * The live contexts of the process: those of cuCtxCreate until
 * cuCtxDestroy, green contexts' until cuGreenCtxDestroy (green.c), and
 * one primary context per device while it is retained.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "internal.h"

struct libcumc_context {
	struct libcumc_context *next;
	CUcontext handle;
	CUdevice device;
	bool primary;
	unsigned int retains;		/* of a primary context */
	unsigned int flags;		/* CUctx_flags as created or set */
	/* A green context's SMs, a part of its device's; 0 for the others. */
	unsigned int green_sms;
	struct libcumc_ctx_settings settings;
};

static pthread_mutex_t libcumc_contexts_lock = PTHREAD_MUTEX_INITIALIZER;
static struct libcumc_context *libcumc_contexts;
/*
 * Flags of each device's primary context, kept while it is inactive too
 * (cuDevicePrimaryCtxSetFlags); devices are fewer than CUMC_MAX_DEVICES.
 */
static unsigned int libcumc_primary_flags[CUMC_MAX_DEVICES];
/* The last handle issued: handles count up and are never reused. */
static uintptr_t libcumc_last_handle;

static struct libcumc_context *libcumc_find(CUcontext handle)
{
	struct libcumc_context *ctx;

	for (ctx = libcumc_contexts; ctx; ctx = ctx->next)
		if (ctx->handle == handle)
			return ctx;
	return NULL;
}

static struct libcumc_context *libcumc_find_primary(CUdevice dev)
{
	struct libcumc_context *ctx;

	for (ctx = libcumc_contexts; ctx; ctx = ctx->next)
		if (ctx->primary && ctx->device == dev)
			return ctx;
	return NULL;
}

static struct libcumc_context *libcumc_add(CUdevice dev, bool primary)
{
	struct libcumc_context *ctx = calloc(1, sizeof(*ctx));

	if (!ctx)
		return NULL;
	ctx->handle = (CUcontext)++libcumc_last_handle;
	ctx->device = dev;
	ctx->primary = primary;
	ctx->next = libcumc_contexts;
	libcumc_contexts = ctx;
	return ctx;
}

static void libcumc_remove(struct libcumc_context *victim)
{
	struct libcumc_context **link;

	for (link = &libcumc_contexts; *link != victim; link = &(*link)->next)
		;
	*link = victim->next;
	free(victim);
}

static CUresult libcumc_create(CUdevice dev, unsigned int green_sms,
			       CUcontext *handle)
{
	struct libcumc_context *ctx;

	pthread_mutex_lock(&libcumc_contexts_lock);
	ctx = libcumc_add(dev, false);
	if (ctx) {
		ctx->green_sms = green_sms;
		*handle = ctx->handle;
	}
	pthread_mutex_unlock(&libcumc_contexts_lock);
	return ctx ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult libcumc_context_create(CUdevice dev, CUcontext *handle)
{
	return libcumc_create(dev, 0, handle);
}

CUresult libcumc_green_create(CUdevice dev, unsigned int sms,
			      CUcontext *handle)
{
	return libcumc_create(dev, sms, handle);
}

/* Ends @handle when it is live and green (@green) or neither. */
static CUresult libcumc_destroy(CUcontext handle, bool green)
{
	CUresult res = CUDA_ERROR_INVALID_CONTEXT;
	struct libcumc_context *ctx;

	pthread_mutex_lock(&libcumc_contexts_lock);
	ctx = libcumc_find(handle);
	if (ctx && !ctx->primary && !ctx->green_sms == !green) {
		libcumc_remove(ctx);
		res = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&libcumc_contexts_lock);
	return res;
}

CUresult libcumc_context_destroy(CUcontext handle)
{
	return libcumc_destroy(handle, false);
}

CUresult libcumc_green_destroy(CUcontext handle)
{
	return libcumc_destroy(handle, true);
}

unsigned int libcumc_context_green_sms(CUcontext handle)
{
	struct libcumc_context *ctx;
	unsigned int sms;

	pthread_mutex_lock(&libcumc_contexts_lock);
	ctx = libcumc_find(handle);
	sms = ctx ? ctx->green_sms : 0;
	pthread_mutex_unlock(&libcumc_contexts_lock);
	return sms;
}

CUresult libcumc_context_settings_do(CUcontext handle,
				     CUresult (*fn)(struct libcumc_ctx_settings *s,
						    void *arg),
				     void *arg)
{
	struct libcumc_context *ctx;
	CUresult res;

	pthread_mutex_lock(&libcumc_contexts_lock);
	ctx = libcumc_find(handle);
	res = ctx ? fn(&ctx->settings, arg) : CUDA_ERROR_INVALID_CONTEXT;
	pthread_mutex_unlock(&libcumc_contexts_lock);
	return res;
}

/* The device's primary context while retained, else NULL; no retain. */
CUcontext libcumc_primary_handle(CUdevice dev)
{
	struct libcumc_context *ctx;
	CUcontext handle;

	pthread_mutex_lock(&libcumc_contexts_lock);
	ctx = libcumc_find_primary(dev);
	handle = ctx ? ctx->handle : NULL;
	pthread_mutex_unlock(&libcumc_contexts_lock);
	return handle;
}

/* Issued once and not live: destroyed (handles are never reused). */
bool libcumc_context_destroyed(CUcontext handle)
{
	bool destroyed;

	pthread_mutex_lock(&libcumc_contexts_lock);
	destroyed = handle && (uintptr_t)handle <= libcumc_last_handle &&
		    !libcumc_find(handle);
	pthread_mutex_unlock(&libcumc_contexts_lock);
	return destroyed;
}

CUresult libcumc_context_device(CUcontext handle, CUdevice *dev)
{
	struct libcumc_context *ctx;

	pthread_mutex_lock(&libcumc_contexts_lock);
	ctx = libcumc_find(handle);
	if (ctx)
		*dev = ctx->device;
	pthread_mutex_unlock(&libcumc_contexts_lock);
	return ctx ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult libcumc_primary_retain(CUdevice dev, CUcontext *handle)
{
	struct libcumc_context *ctx;

	pthread_mutex_lock(&libcumc_contexts_lock);
	ctx = libcumc_find_primary(dev);
	if (!ctx) {
		ctx = libcumc_add(dev, true);
		if (ctx)
			ctx->flags = libcumc_primary_flags[dev];
	}
	if (ctx) {
		ctx->retains++;
		*handle = ctx->handle;
	}
	pthread_mutex_unlock(&libcumc_contexts_lock);
	return ctx ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

/*
 * The last release destroys the primary context: the next retain makes a
 * new one with a new handle, and the old handle is refused like any
 * destroyed context's.
 */
CUresult libcumc_primary_release(CUdevice dev)
{
	struct libcumc_context *ctx;

	pthread_mutex_lock(&libcumc_contexts_lock);
	ctx = libcumc_find_primary(dev);
	if (ctx && !--ctx->retains)
		libcumc_remove(ctx);
	pthread_mutex_unlock(&libcumc_contexts_lock);
	return ctx ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

/*
 * A primary context answers its flags with CU_CTX_MAP_HOST, as the real
 * driver 580 does (8 for a primary context never given flags); a created
 * context answers the flags it was created or set with (measured).
 */
CUresult libcumc_context_flags(CUcontext handle, unsigned int *flags)
{
	struct libcumc_context *ctx;

	pthread_mutex_lock(&libcumc_contexts_lock);
	ctx = libcumc_find(handle);
	if (ctx)
		*flags = ctx->flags | (ctx->primary ? CU_CTX_MAP_HOST : 0);
	pthread_mutex_unlock(&libcumc_contexts_lock);
	return ctx ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

/*
 * The context's own flags: driver 580 leaves the device's primary-context
 * flags (cuDevicePrimaryCtxGetState) as they were (measured).
 */
CUresult libcumc_context_set_flags(CUcontext handle, unsigned int flags)
{
	struct libcumc_context *ctx;

	pthread_mutex_lock(&libcumc_contexts_lock);
	ctx = libcumc_find(handle);
	if (ctx)
		ctx->flags = flags;
	pthread_mutex_unlock(&libcumc_contexts_lock);
	return ctx ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

void libcumc_primary_state(CUdevice dev, unsigned int *flags, int *active)
{
	pthread_mutex_lock(&libcumc_contexts_lock);
	*flags = libcumc_primary_flags[dev];
	*active = libcumc_find_primary(dev) != NULL;
	pthread_mutex_unlock(&libcumc_contexts_lock);
}

/* Since CUDA 11.0 also while active: the live context takes them too. */
void libcumc_primary_set_flags(CUdevice dev, unsigned int flags)
{
	struct libcumc_context *ctx;

	pthread_mutex_lock(&libcumc_contexts_lock);
	libcumc_primary_flags[dev] = flags;
	ctx = libcumc_find_primary(dev);
	if (ctx)
		ctx->flags = flags;
	pthread_mutex_unlock(&libcumc_contexts_lock);
}

/* In a forked child, where no other thread runs: the parent's contexts go. */
void libcumc_registry_forget(void)
{
	while (libcumc_contexts)
		libcumc_remove(libcumc_contexts);
	memset(libcumc_primary_flags, 0, sizeof(libcumc_primary_flags));
	pthread_mutex_init(&libcumc_contexts_lock, NULL);
}
