// SPDX-License-Identifier: MIT
// A CUDA runtime program over two GPUs, built by lib/tests/abi/runtime.sh
// with plain nvcc (the static runtime): peer access and cudaMemcpyPeer,
// a kernel on each device, streams and events, a kernel captured from a
// stream into a graph and launched, cudaGetDriverEntryPointByVersion
// handing out a driver function, and cudaDeviceReset with work after it.
// Every call's error and every element are checked; the last line says
// whether all were right.
#include <cstdio>

__global__ void fill(int *p, int base, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		p[i] = base + i;
}

static int failures;

static void check(cudaError_t err, const char *what)
{
	if (err != cudaSuccess) {
		printf("%s: %s\n", what, cudaGetErrorString(err));
		failures++;
	}
}

#define CHECK(call) check((call), #call)

static void expect(const int *h, int base, int n, const char *what)
{
	for (int i = 0; i < n; i++)
		if (h[i] != base + i) {
			printf("%s: element %d is %d, not %d\n", what, i, h[i],
			       base + i);
			failures++;
			return;
		}
}

int main()
{
	const int n = 256;
	int count = 0, can = 0, h[n];
	int *d0 = nullptr, *d1 = nullptr;
	cudaStream_t stream;
	cudaEvent_t start, stop;
	cudaGraph_t graph;
	cudaGraphExec_t exec;
	cudaDriverEntryPointQueryResult found;
	void *fn = nullptr;
	float ms = -1;

	CHECK(cudaGetDeviceCount(&count));
	if (count < 2) {
		printf("runtime peers: %d devices, 2 needed\n", count);
		return 1;
	}
	CHECK(cudaDeviceCanAccessPeer(&can, 0, 1));
	if (!can) {
		printf("cudaDeviceCanAccessPeer: device 0 cannot reach 1\n");
		failures++;
	}
	CHECK(cudaSetDevice(0));
	CHECK(cudaDeviceEnablePeerAccess(1, 0));
	CHECK(cudaMalloc(&d0, n * sizeof(int)));
	CHECK(cudaSetDevice(1));
	CHECK(cudaMalloc(&d1, n * sizeof(int)));
	fill<<<1, n>>>(d1, 1000, n);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaMemcpyPeer(d0, 0, d1, 1, n * sizeof(int)));
	CHECK(cudaSetDevice(0));
	CHECK(cudaMemcpy(h, d0, sizeof(h), cudaMemcpyDeviceToHost));
	expect(h, 1000, n, "device 1's kernel, copied to device 0");

	CHECK(cudaStreamCreate(&stream));
	CHECK(cudaEventCreate(&start));
	CHECK(cudaEventCreate(&stop));
	CHECK(cudaEventRecord(start, stream));
	fill<<<1, n, 0, stream>>>(d0, 2000, n);
	CHECK(cudaEventRecord(stop, stream));
	CHECK(cudaEventSynchronize(stop));
	CHECK(cudaEventElapsedTime(&ms, start, stop));
	if (ms < 0) {
		printf("cudaEventElapsedTime: %f ms\n", ms);
		failures++;
	}
	CHECK(cudaMemcpy(h, d0, sizeof(h), cudaMemcpyDeviceToHost));
	expect(h, 2000, n, "a kernel on a stream");

	CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
	fill<<<1, n, 0, stream>>>(d0, 3000, n);
	CHECK(cudaStreamEndCapture(stream, &graph));
	CHECK(cudaGraphInstantiate(&exec, graph, 0));
	CHECK(cudaGraphLaunch(exec, stream));
	CHECK(cudaStreamSynchronize(stream));
	CHECK(cudaMemcpy(h, d0, sizeof(h), cudaMemcpyDeviceToHost));
	expect(h, 3000, n, "a captured kernel's graph");
	CHECK(cudaGraphExecDestroy(exec));
	CHECK(cudaGraphDestroy(graph));

	CHECK(cudaGetDriverEntryPointByVersion("cuMulticastCreate", &fn, 12010,
					       cudaEnableDefault, &found));
	if (!fn || found != cudaDriverEntryPointSuccess) {
		printf("cudaGetDriverEntryPointByVersion: no cuMulticastCreate\n");
		failures++;
	}

	CHECK(cudaFree(d0));
	CHECK(cudaSetDevice(1));
	CHECK(cudaFree(d1));
	CHECK(cudaDeviceReset());
	CHECK(cudaMalloc(&d1, n * sizeof(int)));
	fill<<<1, n>>>(d1, 4000, n);
	CHECK(cudaMemcpy(h, d1, sizeof(h), cudaMemcpyDeviceToHost));
	expect(h, 4000, n, "a kernel after cudaDeviceReset");
	CHECK(cudaFree(d1));

	printf("runtime peers: %s\n", failures ? "wrong" : "right");
	return failures != 0;
}
