// SPDX-License-Identifier: MIT
// A CUDA runtime program over every GPU the runtime reports (at least two),
// built by lib/tests/abi/runtime.sh with plain nvcc (the static runtime):
// peer access checked and enabled between every pair; a kernel on each
// device; cudaMemcpyPeer around the ring of all devices, and kernels that
// read their neighbour's memory the other way round; a stream on each
// device joined by events (each waits for device 0's start, device 0 waits
// for each one's end and gathers their results with peer copies); a kernel
// captured from each device's stream into a graph and launched;
// cudaGetDriverEntryPointByVersion handing out a driver function; and
// cudaDeviceReset of every device with work after it. Every call's error
// and every element are checked; the last line says whether all were right.
#include <cstdio>
#include <vector>

#include "runtime_check.h"

__global__ void fill(int *p, int base, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		p[i] = base + i;
}

__global__ void copy(int *dst, const int *src, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		dst[i] = src[i];
}

static const int n = 256;
static const size_t bytes = n * sizeof(int);

// Each element of the @n ints at @h must be @base plus its index.
static void expect(const int *h, int base, const char *what, int device)
{
	for (int i = 0; i < n; i++)
		if (h[i] != base + i) {
			printf("%s, device %d: element %d is %d, not %d\n",
			       what, device, i, h[i], base + i);
			failures++;
			return;
		}
}

// The ints at device address @d (device @device's) must count up from @base.
static void expect_device(const int *d, int base, const char *what,
			  int device)
{
	int h[n];

	CHECK(cudaSetDevice(device));
	CHECK(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
	expect(h, base, what, device);
}

// Every ordered pair of devices can reach each other, and is made to.
static void enable_peers(int count)
{
	for (int a = 0; a < count; a++) {
		CHECK(cudaSetDevice(a));
		for (int b = 0; b < count; b++) {
			int can = 0;

			if (a == b)
				continue;
			CHECK(cudaDeviceCanAccessPeer(&can, a, b));
			if (!can) {
				printf("cudaDeviceCanAccessPeer: device %d cannot reach %d\n",
				       a, b);
				failures++;
			}
			CHECK(cudaDeviceEnablePeerAccess(b, 0));
		}
	}
}

// Device d's kernel fills src[d]; cudaMemcpyPeer hands it on to dst of the
// next device; then each device's kernel reads the next device's src
// through peer access into its own dst.
static void ring(int count, const std::vector<int *> &src,
		 const std::vector<int *> &dst)
{
	for (int d = 0; d < count; d++) {
		CHECK(cudaSetDevice(d));
		fill<<<1, n>>>(src[d], 1000 * (d + 1), n);
		CHECK(cudaGetLastError());
	}
	for (int d = 0; d < count; d++) {
		CHECK(cudaSetDevice(d));
		CHECK(cudaDeviceSynchronize());
	}
	for (int d = 0; d < count; d++) {
		int next = (d + 1) % count;

		CHECK(cudaMemcpyPeer(dst[next], next, src[d], d, bytes));
	}
	for (int d = 0; d < count; d++)
		expect_device(dst[d], 1000 * ((d + count - 1) % count + 1),
			      "cudaMemcpyPeer from the previous device", d);

	for (int d = 0; d < count; d++) {
		CHECK(cudaSetDevice(d));
		copy<<<1, n>>>(dst[d], src[(d + 1) % count], n);
		CHECK(cudaGetLastError());
	}
	for (int d = 0; d < count; d++)
		expect_device(dst[d], 1000 * ((d + 1) % count + 1),
			      "a kernel reading the next device", d);
}

// A stream on each device, all started by device 0's event; device 0 waits
// for each one's event and gathers each one's kernel's results.
static void streams(int count, const std::vector<int *> &src, int *gather)
{
	std::vector<cudaStream_t> stream(count);
	std::vector<cudaEvent_t> done(count);
	cudaEvent_t start, stop;
	std::vector<int> h(count * n);
	float ms = -1;

	for (int d = 0; d < count; d++) {
		CHECK(cudaSetDevice(d));
		CHECK(cudaStreamCreate(&stream[d]));
		CHECK(cudaEventCreate(&done[d]));
	}
	CHECK(cudaSetDevice(0));
	CHECK(cudaEventCreate(&start));
	CHECK(cudaEventCreate(&stop));
	CHECK(cudaEventRecord(start, stream[0]));
	for (int d = 0; d < count; d++) {
		CHECK(cudaSetDevice(d));
		CHECK(cudaStreamWaitEvent(stream[d], start, 0));
		fill<<<1, n, 0, stream[d]>>>(src[d], 2000 * (d + 1), n);
		CHECK(cudaGetLastError());
		CHECK(cudaEventRecord(done[d], stream[d]));
	}
	CHECK(cudaSetDevice(0));
	for (int d = 0; d < count; d++) {
		CHECK(cudaStreamWaitEvent(stream[0], done[d], 0));
		CHECK(cudaMemcpyPeerAsync(gather + d * n, 0, src[d], d, bytes,
					  stream[0]));
	}
	CHECK(cudaEventRecord(stop, stream[0]));
	CHECK(cudaEventSynchronize(stop));
	CHECK(cudaEventElapsedTime(&ms, start, stop));
	if (ms < 0) {
		printf("cudaEventElapsedTime: %f ms\n", ms);
		failures++;
	}
	CHECK(cudaMemcpy(h.data(), gather, count * bytes,
			 cudaMemcpyDeviceToHost));
	for (int d = 0; d < count; d++)
		expect(&h[d * n], 2000 * (d + 1),
		       "a kernel on a stream, gathered on device 0", d);

	for (int d = 0; d < count; d++) {
		CHECK(cudaSetDevice(d));
		CHECK(cudaStreamDestroy(stream[d]));
		CHECK(cudaEventDestroy(done[d]));
	}
	CHECK(cudaSetDevice(0));
	CHECK(cudaEventDestroy(start));
	CHECK(cudaEventDestroy(stop));
}

// On each device, a kernel captured from a stream into a graph, launched.
static void graphs(int count, const std::vector<int *> &src)
{
	for (int d = 0; d < count; d++) {
		cudaStream_t stream;
		cudaGraph_t graph;
		cudaGraphExec_t exec;

		CHECK(cudaSetDevice(d));
		CHECK(cudaStreamCreate(&stream));
		CHECK(cudaStreamBeginCapture(stream,
					     cudaStreamCaptureModeGlobal));
		fill<<<1, n, 0, stream>>>(src[d], 3000 * (d + 1), n);
		CHECK(cudaStreamEndCapture(stream, &graph));
		CHECK(cudaGraphInstantiate(&exec, graph, 0));
		CHECK(cudaGraphLaunch(exec, stream));
		CHECK(cudaStreamSynchronize(stream));
		expect_device(src[d], 3000 * (d + 1), "a captured kernel's graph",
			      d);
		CHECK(cudaGraphExecDestroy(exec));
		CHECK(cudaGraphDestroy(graph));
		CHECK(cudaStreamDestroy(stream));
	}
}

// Every device reset, then a kernel on each.
static void reset(int count)
{
	for (int d = 0; d < count; d++) {
		CHECK(cudaSetDevice(d));
		CHECK(cudaDeviceReset());
	}
	for (int d = 0; d < count; d++) {
		int *p = nullptr;

		CHECK(cudaSetDevice(d));
		CHECK(cudaMalloc(&p, bytes));
		fill<<<1, n>>>(p, 4000 * (d + 1), n);
		CHECK(cudaGetLastError());
		expect_device(p, 4000 * (d + 1), "a kernel after cudaDeviceReset",
			      d);
		CHECK(cudaFree(p));
	}
}

int main()
{
	int count = 0;
	int *gather = nullptr;
	cudaDriverEntryPointQueryResult found;
	void *fn = nullptr;

	CHECK(cudaGetDeviceCount(&count));
	if (count < 2) {
		printf("runtime peers: %d devices, 2 needed\n", count);
		return 1;
	}
	printf("runtime peers: %d devices\n", count);
	std::vector<int *> src(count), dst(count);

	enable_peers(count);
	for (int d = 0; d < count; d++) {
		CHECK(cudaSetDevice(d));
		CHECK(cudaMalloc(&src[d], bytes));
		CHECK(cudaMalloc(&dst[d], bytes));
	}
	CHECK(cudaSetDevice(0));
	CHECK(cudaMalloc(&gather, count * bytes));
	ring(count, src, dst);
	streams(count, src, gather);
	graphs(count, src);

	CHECK(cudaGetDriverEntryPointByVersion("cuMulticastCreate", &fn, 12010,
					       cudaEnableDefault, &found));
	if (!fn || found != cudaDriverEntryPointSuccess) {
		printf("cudaGetDriverEntryPointByVersion: no cuMulticastCreate\n");
		failures++;
	}

	for (int d = 0; d < count; d++) {
		CHECK(cudaSetDevice(d));
		CHECK(cudaFree(src[d]));
		CHECK(cudaFree(dst[d]));
	}
	CHECK(cudaSetDevice(0));
	CHECK(cudaFree(gather));
	reset(count);

	printf("runtime peers: %s\n", failures ? "wrong" : "right");
	return failures != 0;
}
