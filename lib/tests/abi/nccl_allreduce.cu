// SPDX-License-Identifier: MIT
// NCCL on libcumc, built by lib/tests/abi/nccl.sh with plain nvcc against
// an NCCL: one communicator for each device the runtime reports
// (ncclCommInitAll, at least two devices), and a float sum all-reduce over
// all of them, each device's buffer filled first, every element of each
// device's result checked. With arguments, one round for each, NCCL_ALGO
// set to it for that round's communicators ("NVLS": NCCL's NVLink SHARP
// path; "-": NCCL's own choice), the process's device code loaded once for
// all. Each round says
// "nccl allreduce (ALGO): right" or "... wrong"; the last line is "nccl
// allreduce: right" when every round was, "nccl allreduce: wrong" (a CUDA
// call failed or a sum is wrong), or, when an NCCL call fails, "nccl
// allreduce: stopped at CALL: ERROR (NCCL's last error message)", so that
// nccl.sh can tell where NCCL stops.
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

// One round on @count devices: 0 right, 1 wrong, 2 NCCL stopped.
static int round_of(int count, const char *algo)
{
	std::vector<ncclComm_t> comms(count);
	std::vector<cudaStream_t> streams(count);
	std::vector<float *> buf(count);
	std::vector<int> devices(count);
	std::vector<float> h(n);

	if (algo && strcmp(algo, "-"))
		setenv("NCCL_ALGO", algo, 1);
	else
		unsetenv("NCCL_ALGO");
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
	if (failures)
		return 1;
	if (!NCCL_OK(ncclCommInitAll(comms.data(), count, devices.data())) ||
	    !NCCL_OK(ncclGroupStart()))
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
		CHECK(cudaFree(buf[d]));
		CHECK(cudaStreamDestroy(streams[d]));
	}
	for (int d = 0; d < count; d++)
		if (!NCCL_OK(ncclCommDestroy(comms[d])))
			return 2;
	printf("nccl allreduce (%s): %s\n",
	       algo && strcmp(algo, "-") ? algo : "NCCL's choice",
	       failures ? "wrong" : "right");
	return failures != 0;
}

int main(int argc, char **argv)
{
	int count = 0, version = 0, res = 0;

	CHECK(cudaGetDeviceCount(&count));
	if (count < 2) {
		printf("nccl allreduce: %d devices, 2 needed\n", count);
		return 1;
	}
	if (!NCCL_OK(ncclGetVersion(&version)))
		return 2;
	printf("nccl allreduce: NCCL %d on %d devices\n", version, count);
	for (int a = 1; a < argc || (a == 1 && argc == 1); a++) {
		res = round_of(count, argc > 1 ? argv[a] : nullptr);
		if (res == 2)
			return 2;
		if (res)
			break;
	}
	printf("nccl allreduce: %s\n", res ? "wrong" : "right");
	return res;
}
