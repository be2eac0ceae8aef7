// SPDX-License-Identifier: MIT
/*
 * Green contexts: a device's SMs (MULTIPROCESSOR_COUNT of the simulated
 * device) as a resource, split into partitions by cuda.h's rules for
 * compute capability 9.0 (at least 8 SMs, a multiple of 8), descriptors
 * of those partitions, and contexts of a descriptor's SMs. A green
 * context is a context of the registry that knows its SMs
 * (context_registry.c); its CUgreenCtx is its CUcontext's number, so
 * cuCtxFromGreenCtx converts without a table and a stream knows its
 * green context from its context (stream.c). Its kernels run on no more
 * host workers than it has SMs (launch.c; Documentation/api.md, "Green
 * contexts").
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include "context.h"
#include "entry.h"
#include "internal.h"
#include "occupancy.h"
#include "stream.h"

/* cuda.h's guideline for compute capability 9.0 and newer. */
#define GREEN_MIN_SMS 8
#define GREEN_SM_ALIGNMENT 8
/*
 * CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING: pairs of SMs (driver
 * 580 on an H200 splits its 132 into 33 groups of 4 for a minCount of 3).
 */
#define GREEN_MIN_SMS_UNCOSCHEDULED 2

#define GREEN_SPLIT_FLAGS (CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING | \
			   CU_DEV_SM_RESOURCE_SPLIT_MAX_POTENTIAL_CLUSTER_SIZE)

/*
 * What libcumc keeps in a resource's _internal_padding: which device it
 * is of and which split made it (0 for a whole device's), so that a
 * descriptor takes only parts of one split of one device.
 */
struct green_origin {
	uint32_t magic;
	int device;
	uint64_t split;
};

#define GREEN_MAGIC 0x63756d63u	/* "cumc" */

_Static_assert(sizeof(struct green_origin) <=
	       sizeof(((CUdevResource *)0)->_internal_padding),
	       "a resource's origin fits in its padding");

/* The descriptor cuDevResourceGenerateDesc makes. */
struct CUdevResourceDesc_st {
	int device;
	unsigned int sm_count;
};

/* Split numbers; 0 is a whole device's resource. */
static uint64_t green_splits;
static pthread_mutex_t green_lock = PTHREAD_MUTEX_INITIALIZER;

static void green_set_origin(CUdevResource *r, int device, uint64_t split)
{
	struct green_origin o = { GREEN_MAGIC, device, split };

	memcpy(r->_internal_padding, &o, sizeof(o));
}

/* The origin of @r; false when libcumc did not make it. */
static bool green_get_origin(const CUdevResource *r, struct green_origin *o)
{
	memcpy(o, r->_internal_padding, sizeof(*o));
	return o->magic == GREEN_MAGIC;
}

static void green_sm_resource(CUdevResource *r, int device, uint64_t split,
			      unsigned int sms, unsigned int min_sms,
			      unsigned int alignment)
{
	memset(r, 0, sizeof(*r));
	r->type = CU_DEV_RESOURCE_TYPE_SM;
	r->sm.smCount = sms;
	r->sm.minSmPartitionSize = min_sms;
	r->sm.smCoscheduledAlignment = alignment;
	green_set_origin(r, device, split);
}

static CUresult green_device_resource(CUdevice dev, CUdevResource *resource,
				      CUdevResourceType type)
{
	if (!resource)
		return CUDA_ERROR_INVALID_VALUE;
	if (type != CU_DEV_RESOURCE_TYPE_SM)
		return CUDA_ERROR_INVALID_RESOURCE_TYPE;
	green_sm_resource(resource, dev, 0, libcumc_sm_count(), GREEN_MIN_SMS,
			  GREEN_SM_ALIGNMENT);
	return CUDA_SUCCESS;
}

CUresult libcumc_impl_cuDeviceGetDevResource(const struct libcumc_driver *drv,
					     CUdevice device,
					     CUdevResource *resource,
					     CUdevResourceType type)
{
	CUresult res = libcumc_check_device(drv, device);

	return res ?: green_device_resource(device, resource, type);
}

/* A green context's resource is its SMs, its device's alignment kept. */
static CUresult green_context_resource(CUcontext hCtx, CUdevResource *resource,
				       CUdevResourceType type)
{
	unsigned int green_sms;
	CUdevice dev;
	CUresult res;

	if (!hCtx)
		return CUDA_ERROR_INVALID_CONTEXT;
	res = libcumc_context_device(hCtx, &dev);
	if (res != CUDA_SUCCESS)
		return res;
	res = green_device_resource(dev, resource, type);
	green_sms = libcumc_context_green_sms(hCtx);
	if (res == CUDA_SUCCESS && green_sms)
		resource->sm.smCount = green_sms;
	return res;
}

CUresult CUDAAPI cuCtxGetDevResource(CUcontext hCtx, CUdevResource *resource,
				     CUdevResourceType type)
{
	return green_context_resource(hCtx, resource, type);
}

static unsigned int green_round_up(unsigned int n, unsigned int to)
{
	return (n + to - 1) / to * to;
}

CUresult CUDAAPI cuDevSmResourceSplitByCount(CUdevResource *result,
					     unsigned int *nbGroups,
					     const CUdevResource *input,
					     CUdevResource *remaining,
					     unsigned int useFlags,
					     unsigned int minCount)
{
	unsigned int min_sms = GREEN_MIN_SMS, alignment = GREEN_SM_ALIGNMENT;
	unsigned int size, groups, i;
	struct green_origin origin;
	uint64_t split;

	if (!nbGroups || !input || (result && !*nbGroups) ||
	    (useFlags & ~GREEN_SPLIT_FLAGS))
		return CUDA_ERROR_INVALID_VALUE;
	if (input->type != CU_DEV_RESOURCE_TYPE_SM ||
	    !green_get_origin(input, &origin))
		return CUDA_ERROR_INVALID_RESOURCE_TYPE;
	if (useFlags & CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING) {
		min_sms = GREEN_MIN_SMS_UNCOSCHEDULED;
		alignment = GREEN_MIN_SMS_UNCOSCHEDULED;
	}
	size = green_round_up(minCount > min_sms ? minCount : min_sms, alignment);
	groups = input->sm.smCount / size;
	if (!groups)
		return CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION;
	if (!result) {
		*nbGroups = groups;
		return CUDA_SUCCESS;
	}
	if (groups > *nbGroups)
		groups = *nbGroups;
	pthread_mutex_lock(&green_lock);
	split = ++green_splits;
	pthread_mutex_unlock(&green_lock);
	/* A part's minSmPartitionSize is 0, as driver 580 answers. */
	for (i = 0; i < groups; i++)
		green_sm_resource(&result[i], origin.device, split, size, 0,
				  alignment);
	if (remaining)
		green_sm_resource(remaining, origin.device, split,
				  input->sm.smCount - groups * size, 0, alignment);
	*nbGroups = groups;
	return CUDA_SUCCESS;
}

/*
 * A descriptor of SM resources of one device and one split (or one
 * whole device's resource). Descriptors have no destructor in cuda.h:
 * each lives as long as the process, as on NVIDIA's driver.
 */
CUresult CUDAAPI cuDevResourceGenerateDesc(CUdevResourceDesc *phDesc,
					   CUdevResource *resources,
					   unsigned int nbResources)
{
	struct green_origin first, o;
	struct CUdevResourceDesc_st *desc;
	unsigned int i, sms = 0;

	if (!phDesc || !resources || !nbResources)
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < nbResources; i++) {
		if (resources[i].type != CU_DEV_RESOURCE_TYPE_SM ||
		    !green_get_origin(&resources[i], &o))
			return CUDA_ERROR_INVALID_RESOURCE_TYPE;
		if (!i)
			first = o;
		else if (o.device != first.device || o.split != first.split ||
			 !o.split)
			return CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION;
		sms += resources[i].sm.smCount;
	}
	desc = malloc(sizeof(*desc));
	if (!desc)
		return CUDA_ERROR_OUT_OF_MEMORY;
	desc->device = first.device;
	desc->sm_count = sms;
	*phDesc = desc;
	return CUDA_SUCCESS;
}

/*
 * A green context retains its device's primary context until destroyed,
 * as cuda.h says; the context it is converted to is its own (Documentation/
 * api.md says what cumc's differs in).
 */
CUresult libcumc_impl_cuGreenCtxCreate(const struct libcumc_driver *drv,
				       CUgreenCtx *phCtx,
				       CUdevResourceDesc desc, CUdevice dev,
				       unsigned int flags)
{
	CUcontext primary, ctx;
	CUresult res;

	if (!phCtx || !desc || flags != CU_GREEN_CTX_DEFAULT_STREAM)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_check_device(drv, dev);
	if (res)
		return res;
	if (desc->device != dev)
		return CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION;
	res = libcumc_primary_retain(dev, &primary);
	if (res)
		return res;
	res = libcumc_green_create(dev, desc->sm_count, &ctx);
	if (res) {
		libcumc_primary_put(dev);
		return res;
	}
	*phCtx = (CUgreenCtx)ctx;
	return CUDA_SUCCESS;
}

/*
 * The context of a live green context; CUDA_ERROR_CONTEXT_IS_DESTROYED
 * for a handle no longer live, CUDA_ERROR_INVALID_CONTEXT for any other.
 */
static CUresult green_ctx(CUgreenCtx green, CUcontext *ctx)
{
	if (libcumc_context_destroyed((CUcontext)green))
		return CUDA_ERROR_CONTEXT_IS_DESTROYED;
	if (!libcumc_context_green_sms((CUcontext)green))
		return CUDA_ERROR_INVALID_CONTEXT;
	*ctx = (CUcontext)green;
	return CUDA_SUCCESS;
}

/*
 * Its streams go with it, their pending work still completing, as
 * cuCtxDestroy's do; so does the memory allocated while it was current.
 */
CUresult CUDAAPI cuGreenCtxDestroy(CUgreenCtx hCtx)
{
	CUcontext ctx;
	CUdevice dev;
	CUresult res = green_ctx(hCtx, &ctx);

	if (res == CUDA_SUCCESS)
		res = libcumc_context_device(ctx, &dev);
	if (res == CUDA_SUCCESS)
		res = libcumc_green_destroy(ctx);
	if (res != CUDA_SUCCESS)
		return res;
	libcumc_context_teardown(ctx);
	return libcumc_primary_put(dev);
}

CUresult CUDAAPI cuCtxFromGreenCtx(CUcontext *pContext, CUgreenCtx hCtx)
{
	if (!pContext)
		return CUDA_ERROR_INVALID_VALUE;
	return green_ctx(hCtx, pContext);
}

CUresult CUDAAPI cuGreenCtxGetDevResource(CUgreenCtx hCtx,
					  CUdevResource *resource,
					  CUdevResourceType type)
{
	CUcontext ctx;
	CUresult res = green_ctx(hCtx, &ctx);

	if (!resource)
		return CUDA_ERROR_INVALID_VALUE;
	if (type != CU_DEV_RESOURCE_TYPE_SM)
		return CUDA_ERROR_INVALID_RESOURCE_TYPE;
	return res ?: green_context_resource(ctx, resource, type);
}

/* Both go through the context's own (ctx_event.c). */
CUresult CUDAAPI cuGreenCtxRecordEvent(CUgreenCtx hCtx, CUevent hEvent)
{
	CUcontext ctx;
	CUresult res = green_ctx(hCtx, &ctx);

	return res ?: libcumc_ctx_record_event(ctx, hEvent);
}

CUresult CUDAAPI cuGreenCtxWaitEvent(CUgreenCtx hCtx, CUevent hEvent)
{
	CUcontext ctx;
	CUresult res = green_ctx(hCtx, &ctx);

	return res ?: libcumc_ctx_wait_event(ctx, hEvent);
}

/* Only CU_STREAM_NON_BLOCKING, which cuda.h requires. */
CUresult CUDAAPI cuGreenCtxStreamCreate(CUstream *phStream,
					CUgreenCtx greenCtx,
					unsigned int flags, int priority)
{
	CUcontext ctx;
	CUdevice dev;
	CUresult res;

	if (!phStream || flags != CU_STREAM_NON_BLOCKING)
		return CUDA_ERROR_INVALID_VALUE;
	res = green_ctx(greenCtx, &ctx);
	if (res == CUDA_SUCCESS)
		res = libcumc_context_device(ctx, &dev);
	return res ?: libcumc_stream_create_in(ctx, dev, flags, priority,
					       phStream);
}

/*
 * Handles are never reused, so the number is unique for the process's
 * life; NULL names the current context when it is green.
 */
CUresult CUDAAPI cuGreenCtxGetId(CUgreenCtx greenCtx,
				 unsigned long long *greenCtxId)
{
	CUcontext ctx;
	CUresult res;

	if (!greenCtxId)
		return CUDA_ERROR_INVALID_VALUE;
	if (!greenCtx)
		greenCtx = (CUgreenCtx)libcumc_stack_top();
	res = green_ctx(greenCtx, &ctx);
	if (res == CUDA_SUCCESS)
		*greenCtxId = (uintptr_t)ctx;
	return res;
}
