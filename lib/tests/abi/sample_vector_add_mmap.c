// SPDX-License-Identifier: MIT
/*
 * The host code of the CUDA samples' vectorAddMMAP, as its users write it:
 * built against the toolkit's cuda.h and linked with its -lcuda stub, run
 * by lib/tests/abi/samples.sh on libcumc as libcuda.so.1.  The vectors are
 * striped over every device that device 0 can access as a peer (the
 * sample's backing devices), each stripe a cuMemCreate mapped into one
 * reservation and released at once; one cuMemSetAccess grants device 0
 * the whole range; the inputs go in with cuMemcpyHtoD and the result
 * comes back with cuMemcpyDtoH.  Only the kernel launch is replaced: a CPU
 * loop adds the vectors through their device addresses, which cumc maps
 * for the CPU.  Exit status 0 when every call succeeded and every element
 * of the result is right, as the sample checks it.
 */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call) do {						\
	CUresult res_ = (call);						\
	const char *name_ = "?";					\
									\
	if (res_ != CUDA_SUCCESS) {					\
		cuGetErrorName(res_, &name_);				\
		fprintf(stderr, "%s: %s\n", #call, name_);		\
		exit(1);						\
	}								\
} while (0)

#define MAX_DEVICES 128
#define ELEMENTS (3 * 1024 * 1024 + 17)

/* Device 0 and every device it can reach as a peer, VMM-capable. */
static int backing_devices(CUdevice mapping, CUdevice *devs)
{
	int count, n = 0, capable, vmm;
	CUdevice dev;

	CHECK(cuDeviceGetCount(&count));
	for (dev = 0; dev < count && n < MAX_DEVICES; dev++) {
		capable = dev == mapping;
		if (!capable)
			CHECK(cuDeviceCanAccessPeer(&capable, mapping, dev));
		CHECK(cuDeviceGetAttribute(&vmm,
			CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev));
		if (capable && vmm)
			devs[n++] = dev;
	}
	return n;
}

/* The sample's simpleMallocMultiDeviceMmap. */
static CUdeviceptr malloc_striped(size_t *alloc_size, size_t size,
				  const CUdevice *backing, int num_backing,
				  CUdevice mapping)
{
	CUmemAllocationProp prop = { .type = CU_MEM_ALLOCATION_TYPE_PINNED,
				     .location.type = CU_MEM_LOCATION_TYPE_DEVICE };
	CUmemAccessDesc access = {
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, mapping },
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};
	CUmemGenericAllocationHandle handle;
	size_t min_gran = 0, gran, stripe;
	CUdeviceptr dptr;
	int i;

	for (i = 0; i < num_backing; i++) {
		prop.location.id = backing[i];
		CHECK(cuMemGetAllocationGranularity(&gran, &prop,
					CU_MEM_ALLOC_GRANULARITY_MINIMUM));
		if (gran > min_gran)
			min_gran = gran;
	}
	stripe = (size + num_backing - 1) / num_backing;
	stripe = (stripe + min_gran - 1) / min_gran * min_gran;
	size = stripe * num_backing;
	*alloc_size = size;

	CHECK(cuMemAddressReserve(&dptr, size, 0, 0, 0));
	for (i = 0; i < num_backing; i++) {
		prop.location.id = backing[i];
		CHECK(cuMemCreate(&handle, stripe, &prop, 0));
		CHECK(cuMemMap(dptr + stripe * i, stripe, 0, handle, 0));
		/* The mapping keeps the memory: the sample lets the handle go. */
		CHECK(cuMemRelease(handle));
	}
	CHECK(cuMemSetAccess(dptr, size, &access, 1));
	return dptr;
}

static void free_striped(CUdeviceptr dptr, size_t size)
{
	CHECK(cuMemUnmap(dptr, size));
	CHECK(cuMemAddressFree(dptr, size));
}

/* vecAdd_kernel, on the CPU, through the device addresses. */
static void vec_add(CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, int n)
{
	const float *in_a = (const float *)(uintptr_t)a;
	const float *in_b = (const float *)(uintptr_t)b;
	float *out = (float *)(uintptr_t)c;
	int i;

	for (i = 0; i < n; i++)
		out[i] = in_a[i] + in_b[i];
}

int main(void)
{
	CUdevice backing[MAX_DEVICES], device;
	size_t size = ELEMENTS * sizeof(float), alloc_size;
	CUdeviceptr d_a, d_b, d_c;
	float *h_a, *h_b, *h_c;
	int num_backing, i, vmm;
	CUcontext ctx;

	CHECK(cuInit(0));
	CHECK(cuDeviceGet(&device, 0));
	CHECK(cuDeviceGetAttribute(&vmm,
		CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED, device));
	if (!vmm) {
		fprintf(stderr, "device 0 does not support VMM\n");
		return 1;
	}
	CHECK(cuCtxCreate(&ctx, NULL, 0, device));

	h_a = malloc(size);
	h_b = malloc(size);
	h_c = malloc(size);
	if (!h_a || !h_b || !h_c)
		return 1;
	srand(1);
	for (i = 0; i < ELEMENTS; i++) {
		h_a[i] = rand() / (float)RAND_MAX;
		h_b[i] = rand() / (float)RAND_MAX;
	}

	num_backing = backing_devices(device, backing);
	d_a = malloc_striped(&alloc_size, size, backing, num_backing, device);
	d_b = malloc_striped(&alloc_size, size, backing, num_backing, device);
	d_c = malloc_striped(&alloc_size, size, backing, num_backing, device);

	CHECK(cuMemcpyHtoD(d_a, h_a, size));
	CHECK(cuMemcpyHtoD(d_b, h_b, size));
	vec_add(d_a, d_b, d_c, ELEMENTS);
	CHECK(cuCtxSynchronize());
	CHECK(cuMemcpyDtoH(h_c, d_c, size));

	for (i = 0; i < ELEMENTS; i++) {
		float sum = h_a[i] + h_b[i];

		if (h_c[i] - sum > 1e-5f || sum - h_c[i] > 1e-5f) {
			fprintf(stderr, "Result verification failed at element %d\n", i);
			return 1;
		}
	}

	free_striped(d_a, alloc_size);
	free_striped(d_b, alloc_size);
	free_striped(d_c, alloc_size);
	CHECK(cuCtxDestroy(ctx));
	free(h_a);
	free(h_b);
	free(h_c);
	printf("vectorAddMMAP: %d elements striped over %d devices, result right\n",
	       ELEMENTS, num_backing);
	return 0;
}
