// SPDX-License-Identifier: MIT
/*
 * A stream program as users build them: the toolkit's cuda.h and its
 * -lcuda stub only, run by lib/tests/abi/libcuda.sh on libcumc as
 * libcuda.so.1, once as is and once built with
 * -DCUDA_API_PER_THREAD_DEFAULT_STREAM (then it links against the _ptds
 * and _ptsz entry points).  On a created stream and on the NULL stream:
 * an async set and copy, a host function, a stream memory write and wait,
 * events with their elapsed time.  Exit status 0 when all of it worked.
 */
#include <cuda.h>
#include <stdio.h>
#include <string.h>

#define CHECK(call) do {						\
	CUresult res_ = (call);						\
	const char *name_ = "?";					\
									\
	if (res_ != CUDA_SUCCESS) {					\
		cuGetErrorName(res_, &name_);				\
		fprintf(stderr, "%s: %s\n", #call, name_);		\
		return 1;						\
	}								\
} while (0)

static void CUDA_CB count_fn(void *arg)
{
	(*(int *)arg)++;
}

static int on_stream(CUstream s, CUdeviceptr va, int *calls)
{
	unsigned int words[4] = { 0 };
	CUevent start, end;
	float ms = -1;

	CHECK(cuEventCreate(&start, CU_EVENT_DEFAULT));
	CHECK(cuEventCreate(&end, CU_EVENT_BLOCKING_SYNC));
	CHECK(cuEventRecord(start, s));
	CHECK(cuMemsetD32Async(va, 0x600d, 4, s));
	CHECK(cuStreamWriteValue32(s, va + 4, 7, 0));
	CHECK(cuStreamWaitValue32(s, va + 4, 7, CU_STREAM_WAIT_VALUE_EQ));
	CHECK(cuMemcpyDtoHAsync(words, va, sizeof(words), s));
	CHECK(cuLaunchHostFunc(s, count_fn, calls));
	CHECK(cuEventRecord(end, s));
	CHECK(cuEventSynchronize(end));
	CHECK(cuStreamSynchronize(s));
	CHECK(cuEventElapsedTime(&ms, start, end));
	CHECK(cuEventDestroy(start));
	CHECK(cuEventDestroy(end));
	if (words[0] != 0x600d || words[1] != 7 || words[3] != 0x600d || ms < 0) {
		fprintf(stderr, "words %x %x %x, %f ms\n", words[0], words[1],
			words[3], ms);
		return 1;
	}
	return 0;
}

int main(void)
{
	CUmemAllocationProp prop = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED,
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 },
	};
	CUmemAccessDesc access = {
		.location = prop.location,
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};
	CUmemGenericAllocationHandle mem;
	CUdeviceptr va;
	CUcontext ctx;
	CUstream s;
	size_t gran;
	int calls = 0;

	CHECK(cuInit(0));
	CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
	CHECK(cuCtxSetCurrent(ctx));
	CHECK(cuMemGetAllocationGranularity(&gran, &prop,
					    CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	CHECK(cuMemCreate(&mem, gran, &prop, 0));
	CHECK(cuMemAddressReserve(&va, gran, 0, 0, 0));
	CHECK(cuMemMap(va, gran, 0, mem, 0));
	CHECK(cuMemSetAccess(va, gran, &access, 1));
	CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	if (on_stream(s, va, &calls) || on_stream(NULL, va + 64, &calls))
		return 1;
	CHECK(cuStreamDestroy(s));
	CHECK(cuMemsetD8(va, 0, 64));
	CHECK(cuCtxSynchronize());
	CHECK(cuMemUnmap(va, gran));
	CHECK(cuMemAddressFree(va, gran));
	CHECK(cuMemRelease(mem));
	CHECK(cuDevicePrimaryCtxRelease(0));
	if (calls != 2) {
		fprintf(stderr, "%d host function calls\n", calls);
		return 1;
	}
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
	printf("per-thread default stream build: streams, events, memory operations\n");
#else
	printf("streams, events, memory operations\n");
#endif
	return 0;
}
