// SPDX-License-Identifier: MIT
/*
 * The host code of the CUDA samples' vectorAddMMAP, as its users write it:
 * built against the toolkit's cuda.h and linked with its -lcuda stub, run
 * by lib/tests/abi/samples.sh on libcumc as libcuda.so.1.  The vectors are
 * striped over every device that device 0 can access as a peer (the
 * sample's backing devices), each stripe a cuMemCreate mapped into one
 * reservation and released at once; one cuMemSetAccess grants device 0
 * the whole range; the inputs go in with cuMemcpyHtoD and the result
 * comes back with cuMemcpyDtoH.  The kernel (sample_vector_add.cu) is a
 * fatbin of compute_90 PTX built into the program (samples.sh turns nvcc's
 * fatbin into the array vector_add_fatbin with the toolkit's bin2c), loaded
 * with cuModuleLoadData and launched with cuLaunchKernel over the striped
 * buffers.  Exit status 0 when every call succeeded and every element of
 * the result is the sum the CPU makes, bit for bit.
 */
#include <string.h>

#include "sample_check.h"

#define MAX_DEVICES 128
/* Past the first stripe (2 MiB), so that the kernel crosses devices. */
#define ELEMENTS (512 * 1024 + 17)
#define THREADS_PER_BLOCK 256

/* bin2c's array of nvcc's fatbin, in a file of its own. */
extern const unsigned long long vector_add_fatbin[];

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

static void vec_add(CUfunction kernel, CUdeviceptr a, CUdeviceptr b,
		    CUdeviceptr c, int n)
{
	void *args[] = { &a, &b, &c, &n };

	CHECK(cuLaunchKernel(kernel, (n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK,
			     1, 1, THREADS_PER_BLOCK, 1, 1, 0, NULL, args, NULL));
}

int main(void)
{
	CUdevice backing[MAX_DEVICES], device;
	size_t size = ELEMENTS * sizeof(float), alloc_size;
	CUdeviceptr d_a, d_b, d_c;
	float *h_a, *h_b, *h_c;
	int num_backing, i, vmm;
	CUfunction kernel;
	CUmodule module;
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
	CHECK(cuModuleLoadData(&module, vector_add_fatbin));
	CHECK(cuModuleGetFunction(&kernel, module, "VecAdd_kernel"));

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
	vec_add(kernel, d_a, d_b, d_c, ELEMENTS);
	CHECK(cuCtxSynchronize());
	memset(h_c, 0, size);
	CHECK(cuMemcpyDtoH(h_c, d_c, size));

	for (i = 0; i < ELEMENTS; i++) {
		if (h_c[i] != h_a[i] + h_b[i]) {
			fprintf(stderr, "Result verification failed at element %d: %a, not %a\n",
				i, h_c[i], h_a[i] + h_b[i]);
			return 1;
		}
	}

	free_striped(d_a, alloc_size);
	free_striped(d_b, alloc_size);
	free_striped(d_c, alloc_size);
	CHECK(cuModuleUnload(module));
	CHECK(cuCtxDestroy(ctx));
	free(h_a);
	free(h_b);
	free(h_c);
	printf("vectorAddMMAP: VecAdd_kernel from an embedded fatbin, %d elements "
	       "striped over %d devices, every one right\n", ELEMENTS, num_backing);
	return 0;
}
