#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#define P(expr) printf("%-70s -> %d\n", #expr, (int)(expr))
#define V(fmt, x) printf("  %s = " fmt "\n", #x, x)
int main(void)
{
	CUdevice dev = 0; CUcontext pctx, cctx; CUdeviceptr a, b, base; size_t sz, pitch;
	unsigned int flags; int v, active; void *h, *h2; CUmodule mod; CUfunction f; CUlibrary lib;
	P(cuInit(0));
	P(cuDevicePrimaryCtxGetState(0, &flags, &active)); V("%u", flags); V("%d", active);
	P(cuDevicePrimaryCtxRetain(&pctx, 0)); P(cuCtxSetCurrent(pctx));
	P(cuDevicePrimaryCtxGetState(0, &flags, &active)); V("%u", flags); V("%d", active);
	P(cuCtxGetFlags(&flags)); V("%u", flags);
	P(cuCtxSetFlags(0x100)); P(cuCtxSetFlags(3)); P(cuCtxSetFlags(1)); P(cuCtxGetFlags(&flags)); V("%u", flags);
	P(cuDevicePrimaryCtxGetState(0, &flags, &active)); V("%u", flags);
	P(cuCtxSetFlags(0));
	P(cuCtxCreate(&cctx, NULL, CU_CTX_SCHED_YIELD | CU_CTX_SYNC_MEMOPS, 0)); P(cuCtxGetFlags(&flags)); V("%u", flags);
	P(cuCtxDestroy(cctx)); P(cuCtxSetCurrent(pctx));
	/* cuMemAlloc */
	P(cuMemAlloc(&a, 4)); P(cuMemAlloc(&b, 4)); V("%llx", a); V("%llx", b); V("%lld", (long long)(b - a));
	P(cuMemGetAddressRange(&base, &sz, a + 2)); V("%llx", base); V("%zu", sz);
	{ unsigned long long r = 0; P(cuPointerGetAttribute(&r, CU_POINTER_ATTRIBUTE_RANGE_SIZE, a)); V("%llu", r);
	  P(cuPointerGetAttribute(&r, CU_POINTER_ATTRIBUTE_MAPPING_SIZE, a)); V("%llu", r);
	  unsigned int u = 7; P(cuPointerGetAttribute(&u, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, a)); V("%u", u);
	  unsigned int one = 1; P(cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, a + 1));
	  P(cuPointerGetAttribute(&u, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, a)); V("%u", u);
	  P(cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a));
	  P(cuPointerSetAttribute(NULL, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, a));
	  P(cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, (CUdeviceptr)(uintptr_t)&one));
	  P(cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, 0));
	  CUcontext c = NULL; P(cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, a)); V("%d", c == pctx);
	  P(cuPointerGetAttribute(&r, CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES, a)); }
	P(cuMemAlloc(&b, 600 << 10)); P(cuMemGetAddressRange(&base, &sz, b)); V("%zu", sz); P(cuMemFree(b));
	P(cuMemAlloc(&b, 5 << 20)); P(cuMemGetAddressRange(&base, &sz, b)); V("%zu", sz); P(cuMemFree(b));
	P(cuMemAlloc(&b, 0)); P(cuMemAlloc(NULL, 4)); P(cuMemAlloc(&b, 1ULL << 60));
	P(cuMemFree(0)); P(cuMemFree(a + 2)); P(cuMemFree(0x1234)); P(cuMemFree(a)); P(cuMemFree(a));
	P(cuMemAllocPitch(&b, &pitch, 100, 10, 4)); V("%zu", pitch); P(cuMemFree(b));
	P(cuMemAllocPitch(&b, &pitch, 513, 3, 16)); V("%zu", pitch); P(cuMemFree(b));
	P(cuMemAllocPitch(&b, &pitch, 100, 10, 2)); P(cuMemAllocPitch(&b, &pitch, 0, 10, 4));
	/* host */
	P(cuMemAllocHost(&h, 100)); P(cuMemHostGetFlags(&flags, h)); V("%u", flags);
	{ unsigned int u = 0; P(cuPointerGetAttribute(&u, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)h)); V("%u", u);
	  P(cuPointerGetAttribute(&u, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, (CUdeviceptr)(uintptr_t)h)); V("%u", u);
	  unsigned int one = 1; P(cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, (CUdeviceptr)(uintptr_t)h)); }
	P(cuMemGetAddressRange(&base, &sz, (CUdeviceptr)(uintptr_t)h + 5)); V("%zu", sz); V("%d", base == (CUdeviceptr)(uintptr_t)h);
	P(cuMemHostGetDevicePointer(&b, (char *)h + 5, 0)); V("%d", b == (CUdeviceptr)(uintptr_t)h + 5);
	P(cuMemHostGetDevicePointer(&b, h, 1));
	P(cuMemFreeHost((char *)h + 1)); P(cuMemFreeHost(h)); P(cuMemFreeHost(h));
	P(cuMemHostAlloc(&h, 100, 0x8)); P(cuMemHostAlloc(&h, 0, 0)); P(cuMemHostAlloc(&h, 100, 7));
	P(cuMemHostGetFlags(&flags, h)); V("%u", flags); P(cuMemFreeHost(h));
	h2 = malloc(1 << 16);
	P(cuMemHostRegister((char *)h2 + 100, 4096, 0)); P(cuMemHostRegister((char *)h2 + 200, 16, 0));
	P(cuMemHostGetFlags(&flags, (char *)h2 + 100)); V("%u", flags);
	P(cuMemHostGetDevicePointer(&b, (char *)h2 + 200, 0)); V("%d", b == (CUdeviceptr)(uintptr_t)h2 + 200);
	P(cuMemHostUnregister((char *)h2 + 101)); P(cuMemHostUnregister((char *)h2 + 100)); P(cuMemHostUnregister((char *)h2 + 100));
	P(cuMemHostRegister(h2, 0, 0)); P(cuMemHostRegister(h2, 4096, 0x10));
	{ void *gone = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); munmap(gone, 4096);
	  P(cuMemHostRegister(gone, 4096, 0)); }
	P(cuMemHostUnregister(NULL));
	/* peer */
	P(cuDeviceCanAccessPeer(&v, 0, 0)); V("%d", v);
	P(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 0));
	P(cuDeviceGetP2PAttribute(&v, (CUdevice_P2PAttribute)0, 0, 0));
	P(cuCtxEnablePeerAccess(pctx, 0)); P(cuCtxEnablePeerAccess(pctx, 1)); P(cuCtxDisablePeerAccess(pctx)); P(cuCtxEnablePeerAccess(NULL, 0));
	/* modules */
	P(cuModuleLoadData(&mod, "garbage garbage garbage")); P(cuModuleLoad(&mod, "/nonexistent/x.cubin"));
	P(cuModuleLoad(&mod, "/etc/hostname")); P(cuModuleLoadData(&mod, NULL)); P(cuModuleLoadData(NULL, "x"));
	P(cuModuleLoadFatBinary(&mod, "garbage garbage"));
	P(cuModuleUnload(NULL)); P(cuModuleGetFunction(&f, NULL, "k")); P(cuModuleGetFunction(NULL, NULL, "k"));
	P(cuModuleGetGlobal(&b, &sz, NULL, "g"));
	P(cuLibraryLoadData(&lib, "garbage garbage", NULL, NULL, 0, NULL, NULL, 0));
	P(cuLibraryLoadFromFile(&lib, "/nonexistent", NULL, NULL, 0, NULL, NULL, 0));
	P(cuLibraryUnload(NULL)); P(cuLibraryGetKernel((CUkernel *)&f, NULL, "k"));
	P(cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
	P(cuLaunchCooperativeKernel(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL));
	P(cuLaunchKernelEx(NULL, NULL, NULL, NULL));
	P(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, NULL)); P(cuFuncGetAttribute(NULL, CU_FUNC_ATTRIBUTE_NUM_REGS, NULL));
	/* VMM */
	{ CUmemAllocationProp prop = {0}; CUmemGenericAllocationHandle hd, hn; CUdeviceptr va; size_t g;
	  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED; prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE; prop.location.id = 0;
	  P(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM)); V("%zu", g);
	  P(cuMemCreate(&hd, 2 * g, &prop, 0)); P(cuMemAddressReserve(&va, 6 * g, 0, 0, 0));
	  P(cuMemMap(va, g, 0, hd, 0)); P(cuMemMap(va, 2 * g, g, hd, 0)); P(cuMemMap(va, 3 * g, 0, hd, 0));
	  P(cuMemMap(va, 2 * g + 4096, 0, hd, 0)); P(cuMemMap(va, 0, 0, hd, 0)); P(cuMemMap(va + 4096, 2 * g, 0, hd, 0));
	  P(cuMemMap(va, 2 * g, 4096, hd, 0));
	  P(cuMemUnmap(va, g)); P(cuMemUnmap(va, 6 * g)); P(cuMemUnmap(va + 6 * g, g));
	  P(cuMemMap(va, 2 * g, 0, hd, 0));
	  { CUmemAccessDesc d = { { CU_MEM_LOCATION_TYPE_DEVICE, 5 }, CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
	    P(cuMemSetAccess(va, 2 * g, &d, 1)); d.location.id = -1; P(cuMemSetAccess(va, 2 * g, &d, 1));
	    d.location.id = 0; P(cuMemSetAccess(va, 2 * g, &d, 1)); }
	  { unsigned int one = 1; P(cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, va));
	    P(cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, va + 3 * g)); }
	  P(cuMemUnmap(va, g)); P(cuMemUnmap(va + g, 2 * g)); P(cuMemUnmap(va, 3 * g)); P(cuMemUnmap(va + 2 * g, 2 * g));
	  P(cuMemUnmap(va, 2 * g)); P(cuMemUnmap(va, 2 * g));
	  P(cuMemAddressFree(va, 6 * g));
	  P(cuMemUnmap(va, 2 * g));
	  { void *m = aligned_alloc(1 << 21, 4 << 20); P(cuMemUnmap((CUdeviceptr)(uintptr_t)m, 2 * g)); }
	  P(cuMemUnmap(0x7f0000000000ULL, 2 * g));
	  prop.location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA; prop.location.id = 0;
	  P(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM)); V("%zu", g);
	  P(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)); V("%zu", g);
	  prop.location.id = 1; P(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	  prop.location.id = 99; P(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	  prop.location.type = CU_MEM_LOCATION_TYPE_HOST; prop.location.id = 0;
	  P(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM)); V("%zu", g);
	  P(cuMemCreate(&hn, 2 << 20, &prop, 0)); P(cuMemRelease(hn));
	  P(cuMemRelease(hd)); }
	{ static const int attrs[] = { CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID,
	    CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED, CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED,
	    CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
	    CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED, CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED };
	  for (unsigned i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) { cuDeviceGetAttribute(&v, attrs[i], 0); printf("attr %d = %d\n", attrs[i], v); } }
	{ int ver; cuDriverGetVersion(&ver); printf("driver %d\n", ver); }
	return 0;
}
