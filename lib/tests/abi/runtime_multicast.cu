// SPDX-License-Identifier: MIT
// Multicast through the CUDA runtime, built by lib/tests/abi/runtime.sh
// with plain nvcc: the driver's VMM and multicast functions come from
// cudaGetDriverEntryPointByVersion; a multicast object over two devices,
// each with memory bound to it and mapped, and the multicast address
// mapped on device 0; a kernel launched with <<<>>> runs an all-reduce
// with multimem.ld_reduce and multimem.st in inline PTX; each device's
// memory must hold the sums. The last line says whether all were right.
#include <cstdio>

#include <cuda.h>

__global__ void allreduce(unsigned int *mc, unsigned int n)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int v;

	if (i >= n)
		return;
	asm volatile("multimem.ld_reduce.relaxed.sys.global.add.u32 %0, [%1];"
		     : "=r"(v) : "l"(mc + i) : "memory");
	asm volatile("multimem.st.relaxed.sys.global.u32 [%0], %1;"
		     :: "l"(mc + i), "r"(v) : "memory");
}

static const unsigned int n = 1024;
static const int members = 2;
static int failures;

static void check(int err, const char *what)
{
	if (err) {
		printf("%s: error %d\n", what, err);
		failures++;
	}
}

#define CHECK(call) check((int)(call), #call)

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
	CUmemGenericAllocationHandle mc, mem[members];
	CUdeviceptr mc_va, uc_va[members];
	unsigned int h[n];
	size_t size;

	if (failures) {
		printf("runtime multicast: wrong\n");
		return 1;
	}
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
	for (int d = 0; d <= members; d++) {
		CUmemAccessDesc access = {};
		CUmemGenericAllocationHandle handle = mc;
		CUdeviceptr *va = &mc_va;

		access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		access.location.id = d < members ? d : 0;
		access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
		if (d < members) {
			CUmemAllocationProp prop = {};

			prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
			prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
			prop.location.id = d;
			CHECK(mem_create(&mem[d], size, &prop, 0));
			CHECK(mc_bind(mc, 0, mem[d], 0, size, 0));
			handle = mem[d];
			va = &uc_va[d];
		}
		CHECK(reserve(va, size, 0, 0, 0));
		CHECK(mem_map(*va, size, 0, handle, 0));
		CHECK(set_access(*va, size, &access, 1));
	}
	if (failures) {
		printf("runtime multicast: wrong\n");
		return 1;
	}
	for (int d = 0; d < members; d++) {
		for (unsigned int i = 0; i < n; i++)
			h[i] = i + 1000 * d;
		CHECK(cudaMemcpy((void *)uc_va[d], h, sizeof(h),
				 cudaMemcpyHostToDevice));
	}
	allreduce<<<n / 256, 256>>>((unsigned int *)mc_va, n);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	for (int d = 0; d < members; d++) {
		CHECK(cudaMemcpy(h, (void *)uc_va[d], sizeof(h),
				 cudaMemcpyDeviceToHost));
		for (unsigned int i = 0; i < n; i++)
			if (h[i] != 2 * i + 1000) {
				printf("device %d: element %u is %u, not %u\n",
				       d, i, h[i], 2 * i + 1000);
				failures++;
				break;
			}
	}
	printf("runtime multicast: %s\n", failures ? "wrong" : "right");
	return failures != 0;
}
