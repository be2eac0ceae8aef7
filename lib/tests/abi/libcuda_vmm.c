// SPDX-License-Identifier: MIT
/*
 * A driver-API program as users build them: the toolkit's cuda.h, linked
 * with the toolkit's -lcuda (its stub), nothing of cumc's in its source
 * or its link line. At run time it gets whatever libcuda.so.1 the library
 * path gives: run by lib/tests/abi/libcuda.sh, libcumc. One VMM round
 * trip: create, reserve, map, grant access, write, read back, tear down;
 * then cuMemAlloc and host memory, and a peer query.
 * Exit status 0 when every call succeeded and the bytes came back.
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
	char name[64], back[16];
	CUdeviceptr va;
	CUcontext ctx;
	CUdevice dev;
	size_t gran;
	int version;

	CHECK(cuInit(0));
	CHECK(cuDriverGetVersion(&version));
	CHECK(cuDeviceGet(&dev, 0));
	CHECK(cuDeviceGetName(name, sizeof(name), dev));
	CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CHECK(cuCtxSetCurrent(ctx));
	CHECK(cuMemGetAllocationGranularity(&gran, &prop,
					    CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	CHECK(cuMemCreate(&mem, gran, &prop, 0));
	CHECK(cuMemAddressReserve(&va, gran, 0, 0, 0));
	CHECK(cuMemMap(va, gran, 0, mem, 0));
	CHECK(cuMemSetAccess(va, gran, &access, 1));
	CHECK(cuMemcpyHtoD(va, "libcuda.so.1", 13));
	CHECK(cuMemcpyDtoH(back, va, 13));
	CHECK(cuMemUnmap(va, gran));
	CHECK(cuMemAddressFree(va, gran));
	CHECK(cuMemRelease(mem));
	/* Plain and host allocation, peer access (branch alloc). */
	{
		CUdeviceptr d;
		void *host;
		int can = -1, n;

		CHECK(cuDeviceGetCount(&n));
		CHECK(cuDeviceCanAccessPeer(&can, dev, n > 1 ? 1 : 0));
		if (can != (n > 1)) {
			fprintf(stderr, "cuDeviceCanAccessPeer answered %d\n", can);
			return 1;
		}
		CHECK(cuMemAlloc(&d, 13));
		CHECK(cuMemAllocHost(&host, 13));
		memcpy(host, "libcuda.so.1", 13);
		CHECK(cuMemcpyHtoD(d, host, 13));
		CHECK(cuMemcpyDtoH(back, d, 13));
		CHECK(cuMemFreeHost(host));
		CHECK(cuMemFree(d));
	}
	CHECK(cuDevicePrimaryCtxRelease(dev));
	if (strcmp(back, "libcuda.so.1")) {
		fprintf(stderr, "read back '%.13s'\n", back);
		return 1;
	}
	printf("driver version %d, device 0: %s, %zu bytes mapped, written and read\n",
	       version, name, gran);
	return 0;
}
