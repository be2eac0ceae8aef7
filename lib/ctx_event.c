// SPDX-License-Identifier: MIT
/*
 * Events over a whole context: cuCtxRecordEvent and cuCtxWaitEvent, and
 * the same for green contexts (green.c), which are contexts of the
 * registry too. An event records everything submitted to the context's
 * streams so far; a wait holds back every stream of it.
 */
#include <stdlib.h>

#include "context.h"
#include "stream.h"

/*
 * The context's legacy stream waits for every other stream of it, then
 * records @event. That stream's later work waits for the others' earlier
 * work as well, an ordering stricter than the real driver's, never looser.
 */
CUresult libcumc_ctx_record_event(CUcontext ctx, CUevent event)
{
	struct libcumc_stream *legacy;
	CUcontext event_ctx;
	CUresult res = libcumc_event_ctx(event, &event_ctx);

	if (res == CUDA_SUCCESS && event_ctx != ctx)
		res = CUDA_ERROR_INVALID_HANDLE;
	if (res == CUDA_SUCCESS)
		res = libcumc_stream_legacy_of(ctx, &legacy);
	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_stream_join_ctx(legacy);
	if (res == CUDA_SUCCESS)
		res = libcumc_event_record_on(legacy, event);
	libcumc_stream_put(legacy);
	return res;
}

/*
 * Every stream of the context waits for @event, its legacy stream (made
 * if need be) included, so that blocking streams made later wait too
 * through it; a non-blocking stream made later does not.
 */
CUresult libcumc_ctx_wait_event(CUcontext ctx, CUevent event)
{
	struct libcumc_stream **streams, *legacy;
	CUcontext event_ctx;
	size_t count, i;
	CUresult res = libcumc_event_ctx(event, &event_ctx);

	if (res == CUDA_SUCCESS)
		res = libcumc_stream_legacy_of(ctx, &legacy);
	if (res != CUDA_SUCCESS)
		return res;
	libcumc_stream_put(legacy);
	res = libcumc_streams_of_ctx(ctx, &streams, &count);
	if (res != CUDA_SUCCESS)
		return res;
	for (i = 0; i < count; i++) {
		if (res == CUDA_SUCCESS)
			res = libcumc_event_wait_on(streams[i], event);
		libcumc_stream_put(streams[i]);
	}
	free(streams);
	return res;
}

/*
 * cuda.h names no current-context fallback: NULL, like any handle that is
 * not a live context, answers CUDA_ERROR_INVALID_CONTEXT.
 */
static CUresult ctx_event_check(CUcontext ctx)
{
	CUdevice dev;

	if (!ctx)
		return CUDA_ERROR_INVALID_CONTEXT;
	return libcumc_context_device(ctx, &dev);
}

CUresult CUDAAPI cuCtxRecordEvent(CUcontext hCtx, CUevent hEvent)
{
	CUresult res = ctx_event_check(hCtx);

	return res ?: libcumc_ctx_record_event(hCtx, hEvent);
}

CUresult CUDAAPI cuCtxWaitEvent(CUcontext hCtx, CUevent hEvent)
{
	CUresult res = ctx_event_check(hCtx);

	return res ?: libcumc_ctx_wait_event(hCtx, hEvent);
}
