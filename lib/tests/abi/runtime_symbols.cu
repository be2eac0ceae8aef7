// SPDX-License-Identifier: MIT
// A CUDA runtime program over module variables, built by
// lib/tests/abi/runtime.sh with plain nvcc (the static runtime): a
// __constant__ table written with cudaMemcpyToSymbol, a __device__ table
// written with cudaMemcpyToSymbolAsync, a kernel on the same stream that
// reads both and changes the second, which cudaMemcpyFromSymbolAsync
// reads back in stream order; cudaGetSymbolAddress and cudaGetSymbolSize,
// a cudaMemset through that address, and what cudaPointerGetAttributes
// says of it. Every call's error and every element are checked; the last
// line says whether all were right.
#include <cstdio>

#include "runtime_check.h"

static const int n = 64;
static const size_t bytes = n * sizeof(int);

__constant__ int coeff[n];
__device__ int table[n];

__global__ void scale(int *out)
{
	int i = threadIdx.x;

	out[i] = table[i] * coeff[i];
	table[i] += 1;
}

static void expect(int got, int want, const char *what, int i)
{
	if (got != want) {
		printf("%s: element %d is %d, not %d\n", what, i, got, want);
		failures++;
	}
}

int main()
{
	int h[n], k[n], got[n], out[n];
	cudaPointerAttributes attr;
	cudaStream_t stream;
	size_t size = 0;
	void *addr = nullptr;
	int *dout;

	for (int i = 0; i < n; i++) {
		h[i] = 5 + i;
		k[i] = 3 - 2 * i;
	}
	CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
	CHECK(cudaMalloc(&dout, bytes));
	CHECK(cudaMemcpyToSymbol(coeff, k, bytes));
	CHECK(cudaMemcpyToSymbolAsync(table, h, bytes, 0, cudaMemcpyHostToDevice,
				      stream));
	scale<<<1, n, 0, stream>>>(dout);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpyFromSymbolAsync(got, table, bytes, 0,
					cudaMemcpyDeviceToHost, stream));
	CHECK(cudaStreamSynchronize(stream));
	CHECK(cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost));
	for (int i = 0; i < n; i++) {
		expect(got[i], h[i] + 1, "table after the kernel", i);
		expect(out[i], h[i] * k[i], "the kernel's products", i);
	}

	CHECK(cudaGetSymbolAddress(&addr, table));
	CHECK(cudaGetSymbolSize(&size, table));
	if (size != bytes) {
		printf("cudaGetSymbolSize: %zu bytes, not %zu\n", size, bytes);
		failures++;
	}
	CHECK(cudaMemset(addr, 0, bytes));
	CHECK(cudaMemcpyFromSymbol(got, table, bytes));
	for (int i = 0; i < n; i++)
		expect(got[i], 0, "table after cudaMemset", i);
	CHECK(cudaMemcpyFromSymbol(got, coeff, bytes / 2, bytes / 2));
	for (int i = 0; i < n / 2; i++)
		expect(got[i], k[n / 2 + i], "coeff's second half", i);
	CHECK(cudaPointerGetAttributes(&attr, addr));
	if (attr.type != cudaMemoryTypeDevice || attr.device != 0 ||
	    attr.devicePointer != addr) {
		printf("cudaPointerGetAttributes: type %d, device %d\n",
		       (int)attr.type, attr.device);
		failures++;
	}

	CHECK(cudaFree(dout));
	CHECK(cudaStreamDestroy(stream));
	printf("runtime symbols: %s\n", failures ? "wrong" : "right");
	return failures != 0;
}
