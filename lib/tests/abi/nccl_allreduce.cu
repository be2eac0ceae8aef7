// SPDX-License-Identifier: MIT
// NCCL on libcumc, built by lib/tests/abi/nccl.sh with plain nvcc and the
// toolkit's libnccl: one communicator for each device the runtime reports
// (ncclCommInitAll, at least two devices), and a float sum all-reduce over
// all of them, each device's buffer filled first. Every element of each
// device's result is checked. The last line is "nccl allreduce: right",
// "nccl allreduce: wrong" (a CUDA call failed or a sum is wrong), or,
// when an NCCL call fails, "nccl allreduce: stopped at CALL: ERROR (NCCL's
// last error message)", so that nccl.sh can tell where NCCL stops.
#include <cstdio>
#include <vector>

#include <nccl.h>

#include "runtime_check.h"

static const size_t n = 4096;

// NCCL's answer to @what: false, with the last line said, when it failed.
static bool nccl_ok(ncclResult_t result, const char *what)
{
	if (result == ncclSuccess)
		return true;
	printf("nccl allreduce: stopped at %s: %s (%s)\n", what,
	       ncclGetErrorString(result), ncclGetLastError(nullptr));
	return false;
}

#define NCCL_OK(call) nccl_ok((call), #call)

// Device @d's contribution to element @i: small integers, exact in float.
static float value(int d, size_t i)
{
	return (float)(d + 1 + i % 7);
}

int main()
{
	int count = 0, version = 0;

	CHECK(cudaGetDeviceCount(&count));
	if (count < 2) {
		printf("nccl allreduce: %d devices, 2 needed\n", count);
		return 1;
	}
	if (!NCCL_OK(ncclGetVersion(&version)))
		return 2;
	printf("nccl allreduce: NCCL %d on %d devices\n", version, count);

	std::vector<ncclComm_t> comms(count);
	std::vector<cudaStream_t> streams(count);
	std::vector<float *> buf(count);
	std::vector<int> devices(count);
	std::vector<float> h(n);

	for (int d = 0; d < count; d++) {
		devices[d] = d;
		for (size_t i = 0; i < n; i++)
			h[i] = value(d, i);
		CHECK(cudaSetDevice(d));
		CHECK(cudaMalloc(&buf[d], n * sizeof(float)));
		CHECK(cudaMemcpy(buf[d], h.data(), n * sizeof(float),
				 cudaMemcpyHostToDevice));
		CHECK(cudaStreamCreate(&streams[d]));
	}
	if (failures) {
		printf("nccl allreduce: wrong\n");
		return 1;
	}
	if (!NCCL_OK(ncclCommInitAll(comms.data(), count, devices.data())))
		return 2;
	if (!NCCL_OK(ncclGroupStart()))
		return 2;
	for (int d = 0; d < count; d++)
		if (!NCCL_OK(ncclAllReduce(buf[d], buf[d], n, ncclFloat,
					   ncclSum, comms[d], streams[d])))
			return 2;
	if (!NCCL_OK(ncclGroupEnd()))
		return 2;
	for (int d = 0; d < count; d++) {
		CHECK(cudaSetDevice(d));
		CHECK(cudaStreamSynchronize(streams[d]));
	}
	for (int d = 0; d < count; d++) {
		CHECK(cudaSetDevice(d));
		CHECK(cudaMemcpy(h.data(), buf[d], n * sizeof(float),
				 cudaMemcpyDeviceToHost));
		for (size_t i = 0; i < n; i++) {
			float sum = 0;

			for (int m = 0; m < count; m++)
				sum += value(m, i);
			if (h[i] != sum) {
				printf("device %d: element %zu is %g, not %g\n",
				       d, i, h[i], sum);
				failures++;
				break;
			}
		}
	}
	for (int d = 0; d < count; d++)
		if (!NCCL_OK(ncclCommDestroy(comms[d])))
			return 2;
	printf("nccl allreduce: %s\n", failures ? "wrong" : "right");
	return failures != 0;
}
