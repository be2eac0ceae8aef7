// SPDX-License-Identifier: MIT
/*
 * The CUDA samples' vectorAddDrv, as its users write it: built against the
 * toolkit's cuda.h and linked with its -lcuda stub, run by
 * lib/tests/abi/samples.sh on libcumc as libcuda.so.1, its kernel
 * (sample_vector_add.cu) a fatbin of compute_90 PTX that nvcc built.  On
 * every device in turn: a context, cuModuleLoad of the fatbin named on the
 * command line, cuModuleGetFunction, three cuMemAlloc buffers, the inputs
 * in with cuMemcpyHtoD, cuLaunchKernel, the result back with cuMemcpyDtoH
 * and checked element by element against the sums the CPU makes (one f32
 * addition each, exact to the bit).  Exit status 0 when every call
 * succeeded and every element on every device is right.
 */
#include <string.h>

#include "sample_check.h"

#define N 50000
#define THREADS_PER_BLOCK 256

static int run_on(CUdevice device, const char *fatbin, const float *h_a,
		  const float *h_b, float *h_c)
{
	size_t size = N * sizeof(float);
	CUdeviceptr d_a, d_b, d_c;
	CUfunction vec_add;
	CUmodule module;
	CUcontext ctx;
	int n = N, i;
	void *args[] = { &d_a, &d_b, &d_c, &n };

	CHECK(cuCtxCreate(&ctx, NULL, 0, device));
	CHECK(cuModuleLoad(&module, fatbin));
	CHECK(cuModuleGetFunction(&vec_add, module, "VecAdd_kernel"));
	CHECK(cuMemAlloc(&d_a, size));
	CHECK(cuMemAlloc(&d_b, size));
	CHECK(cuMemAlloc(&d_c, size));
	CHECK(cuMemcpyHtoD(d_a, h_a, size));
	CHECK(cuMemcpyHtoD(d_b, h_b, size));
	CHECK(cuLaunchKernel(vec_add, (N + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK,
			     1, 1, THREADS_PER_BLOCK, 1, 1, 0, NULL, args, NULL));
	CHECK(cuCtxSynchronize());
	memset(h_c, 0, size);
	CHECK(cuMemcpyDtoH(h_c, d_c, size));
	for (i = 0; i < N; i++) {
		if (h_c[i] != h_a[i] + h_b[i]) {
			fprintf(stderr, "device %d: element %d is %a, not %a\n",
				device, i, h_c[i], h_a[i] + h_b[i]);
			return 1;
		}
	}
	CHECK(cuMemFree(d_a));
	CHECK(cuMemFree(d_b));
	CHECK(cuMemFree(d_c));
	CHECK(cuModuleUnload(module));
	CHECK(cuCtxDestroy(ctx));
	return 0;
}

int main(int argc, char **argv)
{
	float *h_a = malloc(N * sizeof(float)), *h_b = malloc(N * sizeof(float));
	float *h_c = malloc(N * sizeof(float));
	int count, i;
	CUdevice dev;

	if (argc != 2) {
		fprintf(stderr, "usage: sample_vector_add_drv KERNEL.fatbin\n");
		return 2;
	}
	if (!h_a || !h_b || !h_c)
		return 1;
	srand(1);
	for (i = 0; i < N; i++) {
		h_a[i] = rand() / (float)RAND_MAX;
		h_b[i] = rand() / (float)RAND_MAX;
	}
	CHECK(cuInit(0));
	CHECK(cuDeviceGetCount(&count));
	for (dev = 0; dev < count; dev++)
		if (run_on(dev, argv[1], h_a, h_b, h_c))
			return 1;
	free(h_a);
	free(h_b);
	free(h_c);
	printf("vectorAddDrv: VecAdd_kernel from a fatbin on %d devices, "
	       "%d elements each, every one right\n", count, N);
	return 0;
}
