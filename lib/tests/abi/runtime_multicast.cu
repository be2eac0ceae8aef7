// SPDX-License-Identifier: MIT
// Multicast through the CUDA runtime on every GPU it reports (at least
// two), built by lib/tests/abi/runtime.sh with plain nvcc: the driver's VMM
// and multicast functions come from cudaGetDriverEntryPointByVersion; a
// multicast object whose team is every device, each with memory bound to
// it and mapped, and the multicast address mapped once, for every device;
// each device's kernel, launched with <<<>>>, all-reduces its own slice of
// the buffer with multimem.ld_reduce and multimem.st in inline PTX; every
// element of each device's memory must hold the sum over the devices. The
// last line says whether all were right.
#include <cstdio>
#include <vector>

#include <cuda.h>

#include "runtime_check.h"

// The all-reduce of the elements [begin, end) through the multicast
// address @mc.
__global__ void allreduce(unsigned int *mc, unsigned int begin,
			  unsigned int end)
{
	unsigned int i = begin + blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int v;

	if (i >= end)
		return;
	asm volatile("multimem.ld_reduce.relaxed.sys.global.add.u32 %0, [%1];"
		     : "=r"(v) : "l"(mc + i) : "memory");
	asm volatile("multimem.st.relaxed.sys.global.u32 [%0], %1;"
		     :: "l"(mc + i), "r"(v) : "memory");
}

static const unsigned int n = 1024;

// The driver function @name of CUDA @version, as the runtime hands it out.
template <typename F> static F driver(const char *name, int version)
{
	cudaDriverEntryPointQueryResult found;
	void *fn = nullptr;

	CHECK(cudaGetDriverEntryPointByVersion(name, &fn, version,
					       cudaEnableDefault, &found));
	if (!fn || found != cudaDriverEntryPointSuccess) {
		printf("no %s\n", name);
		failures++;
	}
	return (F)fn;
}

#define DRIVER(name, version) driver<decltype(&name)>(#name, version)

// Device @d's contribution to element @i.
static unsigned int value(int d, unsigned int i)
{
	return i + 1000 * d;
}

int main()
{
	auto mc_granularity = DRIVER(cuMulticastGetGranularity, 12010);
	auto mc_create = DRIVER(cuMulticastCreate, 12010);
	auto mc_add = DRIVER(cuMulticastAddDevice, 12010);
	auto mc_bind = DRIVER(cuMulticastBindMem, 12010);
	auto mem_create = DRIVER(cuMemCreate, 10020);
	auto reserve = DRIVER(cuMemAddressReserve, 10020);
	auto mem_map = DRIVER(cuMemMap, 10020);
	auto set_access = DRIVER(cuMemSetAccess, 10020);
	CUmulticastObjectProp mc_prop = {};
	CUmemGenericAllocationHandle mc;
	CUdeviceptr mc_va;
	unsigned int h[n];
	int members = 0;
	size_t size;

	CHECK(cudaGetDeviceCount(&members));
	if (members < 2) {
		printf("runtime multicast: %d devices, 2 needed\n", members);
		return 1;
	}
	printf("runtime multicast: a team of %d devices\n", members);
	if (failures) {
		printf("runtime multicast: wrong\n");
		return 1;
	}
	std::vector<CUmemGenericAllocationHandle> mem(members);
	std::vector<CUdeviceptr> uc_va(members);
	std::vector<CUmemAccessDesc> everyone(members);

	// The runtime's context on each device, current on device 0 at last.
	for (int d = members - 1; d >= 0; d--) {
		CHECK(cudaSetDevice(d));
		CHECK(cudaFree(nullptr));
	}
	mc_prop.numDevices = members;
	CHECK(mc_granularity(&size, &mc_prop, CU_MULTICAST_GRANULARITY_MINIMUM));
	if (size < n * sizeof(unsigned int))
		size = n * sizeof(unsigned int);
	mc_prop.size = size;
	CHECK(mc_create(&mc, &mc_prop));
	for (int d = 0; d < members; d++)
		CHECK(mc_add(mc, d));
	for (int d = 0; d < members; d++) {
		CUmemAllocationProp prop = {};
		CUmemAccessDesc own = {};

		prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
		prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		prop.location.id = d;
		CHECK(mem_create(&mem[d], size, &prop, 0));
		CHECK(mc_bind(mc, 0, mem[d], 0, size, 0));
		own.location = prop.location;
		own.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
		CHECK(reserve(&uc_va[d], size, 0, 0, 0));
		CHECK(mem_map(uc_va[d], size, 0, mem[d], 0));
		CHECK(set_access(uc_va[d], size, &own, 1));
		everyone[d] = own;
	}
	CHECK(reserve(&mc_va, size, 0, 0, 0));
	CHECK(mem_map(mc_va, size, 0, mc, 0));
	CHECK(set_access(mc_va, size, everyone.data(), members));
	if (failures) {
		printf("runtime multicast: wrong\n");
		return 1;
	}
	for (int d = 0; d < members; d++) {
		for (unsigned int i = 0; i < n; i++)
			h[i] = value(d, i);
		CHECK(cudaSetDevice(d));
		CHECK(cudaMemcpy((void *)uc_va[d], h, sizeof(h),
				 cudaMemcpyHostToDevice));
	}
	for (int d = 0; d < members; d++) {
		unsigned int begin = n * d / members;
		unsigned int end = n * (d + 1) / members;

		CHECK(cudaSetDevice(d));
		allreduce<<<(end - begin + 255) / 256, 256>>>(
			(unsigned int *)mc_va, begin, end);
		CHECK(cudaGetLastError());
	}
	for (int d = 0; d < members; d++) {
		CHECK(cudaSetDevice(d));
		CHECK(cudaDeviceSynchronize());
	}
	for (int d = 0; d < members; d++) {
		CHECK(cudaSetDevice(d));
		CHECK(cudaMemcpy(h, (void *)uc_va[d], sizeof(h),
				 cudaMemcpyDeviceToHost));
		for (unsigned int i = 0; i < n; i++) {
			unsigned int sum = 0;

			for (int m = 0; m < members; m++)
				sum += value(m, i);
			if (h[i] != sum) {
				printf("device %d: element %u is %u, not %u\n",
				       d, i, h[i], sum);
				failures++;
				break;
			}
		}
	}
	printf("runtime multicast: %s\n", failures ? "wrong" : "right");
	return failures != 0;
}
