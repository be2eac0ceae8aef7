// SPDX-License-Identifier: MIT
/*
 * A program written for the real driver: compiled against the CUDA
 * toolkit's own cuda.h and cudaTypedefs.h, linked to libcumc.so, it calls
 * the device, context, memory and entry-point-lookup functions and checks
 * their results.  Prints TAP, one line per check; conformance.sh builds
 * and runs it (in the VM, where /dev/cumc is).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <cuda.h>
#include <cudaTypedefs.h>

static int checks, failures;

static void check(int ok, const char *what)
{
	checks++;
	if (!ok)
		failures++;
	printf("%sok %d %s\n", ok ? "" : "not ", checks, what);
}

#define CHECK_CALL(call, expected) \
	check((call) == (expected), #call " is " #expected)

static void devices(void)
{
	char name[128] = "";
	CUuuid uuid;
	size_t bytes = 0;
	int count = 0, value = -1;
	CUdevice dev = -1;

	CHECK_CALL(cuDeviceGetCount(&count), CUDA_SUCCESS);
	check(count > 0, "at least one device");
	CHECK_CALL(cuDeviceGet(&dev, count - 1), CUDA_SUCCESS);
	check(dev == count - 1, "cuDeviceGet returns the ordinal");
	CHECK_CALL(cuDeviceGet(&dev, count), CUDA_ERROR_INVALID_DEVICE);
	CHECK_CALL(cuDeviceGetName(name, sizeof(name), 0), CUDA_SUCCESS);
	check(name[0] != '\0', "the device has a name");
	CHECK_CALL(cuDeviceGetUuid(&uuid, 0), CUDA_SUCCESS);
	CHECK_CALL(cuDeviceTotalMem(&bytes, 0), CUDA_SUCCESS);
	check(bytes > 0, "the device has memory");
	CHECK_CALL(cuDeviceGetAttribute(&value,
			CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, 0), CUDA_SUCCESS);
	check(value == 1, "multicast is supported");
	CHECK_CALL(cuDeviceGetAttribute(&value,
			CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0),
		   CUDA_SUCCESS);
	check(value == 1, "VMM is supported");
	CHECK_CALL(cuDeviceGetAttribute(&value,
			CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0), CUDA_SUCCESS);
	check(value == 9, "compute capability 9.x");
}

static void contexts(void)
{
	CUcontext primary = NULL, ctx = NULL, got = NULL;
	CUdevice dev = -1;

	CHECK_CALL(cuDevicePrimaryCtxRetain(&primary, 0), CUDA_SUCCESS);
	CHECK_CALL(cuCtxSetCurrent(primary), CUDA_SUCCESS);
	CHECK_CALL(cuCtxGetCurrent(&got), CUDA_SUCCESS);
	check(got == primary, "the primary context is current");
	CHECK_CALL(cuCtxGetDevice(&dev), CUDA_SUCCESS);
	check(dev == 0, "cuCtxGetDevice answers the primary context's device");
	CHECK_CALL(cuCtxSynchronize(), CUDA_SUCCESS);
	CHECK_CALL(cuCtxCreate(&ctx, NULL, CU_CTX_SCHED_BLOCKING_SYNC, 0),
		   CUDA_SUCCESS);
	CHECK_CALL(cuCtxGetDevice_v2(&dev, ctx), CUDA_SUCCESS);
	CHECK_CALL(cuCtxSynchronize_v2(ctx), CUDA_SUCCESS);
	CHECK_CALL(cuCtxPopCurrent(&got), CUDA_SUCCESS);
	check(got == ctx, "cuCtxPopCurrent returns the created context");
	CHECK_CALL(cuCtxPushCurrent(ctx), CUDA_SUCCESS);
	CHECK_CALL(cuCtxDestroy(ctx), CUDA_SUCCESS);
	CHECK_CALL(cuCtxDestroy(ctx), CUDA_ERROR_INVALID_CONTEXT);
	CHECK_CALL(cuCtxGetCurrent(&got), CUDA_SUCCESS);
	check(got == primary, "destroy restores the previous context");
}

static void memory(void)
{
	CUmemAllocationProp prop, got;
	CUmemGenericAllocationHandle handle = 0;
	size_t gran = 0, free_before = 0, free_after = 0, total = 0;

	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	CHECK_CALL(cuMemGetAllocationGranularity(&gran, &prop,
			CU_MEM_ALLOC_GRANULARITY_RECOMMENDED), CUDA_SUCCESS);
	check(gran && !(gran & (gran - 1)), "granularity is a power of two");
	CHECK_CALL(cuMemGetInfo(&free_before, &total), CUDA_SUCCESS);
	CHECK_CALL(cuMemCreate(&handle, 2 * gran, &prop, 0), CUDA_SUCCESS);
	CHECK_CALL(cuMemGetInfo(&free_after, &total), CUDA_SUCCESS);
	check(free_before - free_after == 2 * gran, "cuMemGetInfo sees the allocation");
	CHECK_CALL(cuMemGetAllocationPropertiesFromHandle(&got, handle), CUDA_SUCCESS);
	check(!memcmp(&got, &prop, sizeof(got)), "properties read back as created");
	CHECK_CALL(cuMemCreate(&handle, gran + 1, &prop, 0), CUDA_ERROR_INVALID_VALUE);
	CHECK_CALL(cuMemRelease(handle), CUDA_SUCCESS);
	CHECK_CALL(cuMemRelease(handle), CUDA_ERROR_INVALID_VALUE);
}

static void entry_points(void)
{
	CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
	PFN_cuGetProcAddress_v11030 get_proc_v11030 = NULL;
	PFN_cuMemGetInfo_v3020 mem_get_info = NULL;
	PFN_cuDriverGetVersion_v2020 driver_version = NULL;
	size_t free_bytes, total;
	void *pfn = NULL;
	int version = 0;

	CHECK_CALL(cuGetProcAddress("cuMemGetInfo", (void **)&mem_get_info, 13000,
				    CU_GET_PROC_ADDRESS_DEFAULT, &status),
		   CUDA_SUCCESS);
	check(mem_get_info && status == CU_GET_PROC_ADDRESS_SUCCESS,
	      "cuMemGetInfo is found");
	check(mem_get_info && mem_get_info(&free_bytes, &total) == CUDA_SUCCESS,
	      "the cuMemGetInfo found works");
	CHECK_CALL(cuGetProcAddress("cuMemCreate", &pfn, 10010, 0, &status),
		   CUDA_SUCCESS);
	check(!pfn && status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT,
	      "cuMemCreate is too new for 10.1");
	CHECK_CALL(cuGetProcAddress("cuNoSuchEntryPoint", &pfn, 13000, 0, &status),
		   CUDA_SUCCESS);
	check(!pfn && status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND,
	      "an unknown symbol is not found");
	CHECK_CALL(cuGetProcAddress("cuInit", &pfn, 13000, 4, NULL),
		   CUDA_ERROR_INVALID_VALUE);
	CHECK_CALL(cuGetProcAddress("cuGetProcAddress", (void **)&get_proc_v11030,
				    11030, 0, NULL), CUDA_SUCCESS);
	check(get_proc_v11030 &&
	      get_proc_v11030("cuDriverGetVersion", (void **)&driver_version,
			      11030, 0) == CUDA_SUCCESS &&
	      driver_version && driver_version(&version) == CUDA_SUCCESS &&
	      version == 13010,
	      "the CUDA 11.3 cuGetProcAddress works");
}

/* Binaries built before the _v2 renames link against these names. */
static void unversioned_symbols(void)
{
	static const char *const names[] = {
		"cuDeviceGetUuid", "cuDevicePrimaryCtxRelease",
		"cuDevicePrimaryCtxReset", "cuCtxDestroy", "cuCtxPushCurrent",
		"cuCtxPopCurrent", "cuGetProcAddress",
	};
	PFN_cuDeviceGetUuid_v9020 old_get_uuid;
	CUuuid old_uuid, uuid;
	char what[96];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(what, sizeof(what), "libcumc exports %s", names[i]);
		check(dlsym(RTLD_DEFAULT, names[i]) != NULL, what);
	}
	old_get_uuid = (PFN_cuDeviceGetUuid_v9020)dlsym(RTLD_DEFAULT,
							"cuDeviceGetUuid");
	check(old_get_uuid && old_get_uuid(&old_uuid, 0) == CUDA_SUCCESS &&
	      cuDeviceGetUuid(&uuid, 0) == CUDA_SUCCESS &&
	      !memcmp(&old_uuid, &uuid, sizeof(uuid)),
	      "the unversioned cuDeviceGetUuid gives the same UUID");
}

int main(void)
{
	CUdevice dev;
	int version = 0;

	CHECK_CALL(cuDeviceGet(&dev, 0), CUDA_ERROR_NOT_INITIALIZED);
	CHECK_CALL(cuInit(0), CUDA_SUCCESS);
	CHECK_CALL(cuDriverGetVersion(&version), CUDA_SUCCESS);
	check(version == 13010, "libcumc is a CUDA 13.1 driver");
	devices();
	contexts();
	memory();
	entry_points();
	unversioned_symbols();
	CHECK_CALL(cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
	printf("1..%d\n", checks);
	return failures ? 1 : 0;
}
