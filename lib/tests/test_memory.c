// SPDX-License-Identifier: MIT
/*
 * Physical allocations and memory information against the module (runs in
 * the VM): cuMemGetAllocationGranularity, cuMemCreate, cuMemRelease,
 * cuMemGetAllocationPropertiesFromHandle and cuMemGetInfo.
 */
#include <check.h>
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "child.h"
#include "vmm.h"

static int device_count(void)
{
	int count = 0;

	ck_assert_int_eq(cuDeviceGetCount(&count), CUDA_SUCCESS);
	return count;
}

static size_t granularity(CUdevice dev)
{
	CUmemAllocationProp prop = vmm_prop(dev);
	size_t gran = 0;

	ck_assert_int_eq(cuMemGetAllocationGranularity(&gran, &prop,
			CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);
	return gran;
}

static CUmemGenericAllocationHandle create(CUdevice dev, size_t size)
{
	CUmemAllocationProp prop = vmm_prop(dev);
	CUmemGenericAllocationHandle handle = 0;

	ck_assert_int_eq(cuMemCreate(&handle, size, &prop, 0), CUDA_SUCCESS);
	ck_assert_uint_ne(handle, 0);
	return handle;
}

/* Free and total bytes of @dev, through its primary context. */
static void mem_info(CUdevice dev, size_t *free_bytes, size_t *total)
{
	CUcontext ctx;

	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&ctx, dev), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxPushCurrent(ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemGetInfo(free_bytes, total), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxPopCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease(dev), CUDA_SUCCESS);
}

static size_t free_bytes_of(CUdevice dev)
{
	size_t free_bytes, total;

	mem_info(dev, &free_bytes, &total);
	return free_bytes;
}

static void setup(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
}

START_TEST(everything_needs_init)
{
	CUmemAllocationProp prop = vmm_prop(0);
	CUmemGenericAllocationHandle handle;
	size_t a, b;

	ck_assert_int_eq(cuMemGetInfo(&a, &b), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemGetAllocationGranularity(&a, &prop,
			CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemCreate(&handle, 2 << 20, &prop, 0),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemRelease(1), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemGetAllocationPropertiesFromHandle(&prop, 1),
			 CUDA_ERROR_NOT_INITIALIZED);
}
END_TEST

START_TEST(granularity_is_one_power_of_two)
{
	static const CUmemAllocationHandleType types[] = {
		CU_MEM_HANDLE_TYPE_NONE, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
		CU_MEM_HANDLE_TYPE_FABRIC,
		CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR | CU_MEM_HANDLE_TYPE_FABRIC,
	};
	CUmemAllocationProp prop = vmm_prop(_i % device_count());
	size_t expected = granularity(0), minimum, recommended;
	size_t i;

	ck_assert_uint_ge(expected, 4096);
	ck_assert_uint_eq(expected & (expected - 1), 0);
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		prop.requestedHandleTypes = types[i];
		ck_assert_int_eq(cuMemGetAllocationGranularity(&minimum, &prop,
				CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);
		ck_assert_int_eq(cuMemGetAllocationGranularity(&recommended, &prop,
				CU_MEM_ALLOC_GRANULARITY_RECOMMENDED), CUDA_SUCCESS);
		ck_assert_uint_eq(minimum, expected);
		ck_assert_uint_eq(recommended, expected);
	}
}
END_TEST

START_TEST(granularity_bad_arguments_refused)
{
	CUmemAllocationProp prop = vmm_prop(0);
	size_t gran = 77;

	ck_assert_int_eq(cuMemGetAllocationGranularity(NULL, &prop,
			CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemGetAllocationGranularity(&gran, NULL,
			CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemGetAllocationGranularity(&gran, &prop,
			(CUmemAllocationGranularity_flags)2), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemGetAllocationGranularity(&gran, &prop,
			(CUmemAllocationGranularity_flags)-1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(gran, 77);
}
END_TEST

/* One way to spoil a property, and what each entry point answers. */
struct bad_prop {
	const char *what;
	void (*spoil)(CUmemAllocationProp *prop);
	CUresult granularity_result;
	CUresult create_result;
};

static void no_type(CUmemAllocationProp *p) { p->type = CU_MEM_ALLOCATION_TYPE_INVALID; }
static void managed(CUmemAllocationProp *p) { p->type = CU_MEM_ALLOCATION_TYPE_MANAGED; }
static void type_max(CUmemAllocationProp *p) { p->type = CU_MEM_ALLOCATION_TYPE_MAX; }
static void no_location(CUmemAllocationProp *p) { p->location.type = CU_MEM_LOCATION_TYPE_INVALID; }
static void host(CUmemAllocationProp *p)
{
	p->location.type = CU_MEM_LOCATION_TYPE_HOST;
	p->requestedHandleTypes = CU_MEM_HANDLE_TYPE_NONE;
}
static void shared_host(CUmemAllocationProp *p) { p->location.type = CU_MEM_LOCATION_TYPE_HOST; }
static void host_numa(CUmemAllocationProp *p)
{
	p->location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
	p->location.id = 0;
}
static void host_numa_current(CUmemAllocationProp *p) { p->location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT; }
static void location_max(CUmemAllocationProp *p) { p->location.type = CU_MEM_LOCATION_TYPE_MAX; }
static void negative_device(CUmemAllocationProp *p) { p->location.id = -1; }
static void missing_device(CUmemAllocationProp *p) { p->location.id = 1 << 20; }
static void win32(CUmemAllocationProp *p) { p->requestedHandleTypes = CU_MEM_HANDLE_TYPE_WIN32; }
static void win32_kmt(CUmemAllocationProp *p)
{
	p->requestedHandleTypes |= CU_MEM_HANDLE_TYPE_WIN32_KMT;
}
static void unknown_handle_type(CUmemAllocationProp *p) { p->requestedHandleTypes = 0x10; }
static void handle_type_max(CUmemAllocationProp *p) { p->requestedHandleTypes = CU_MEM_HANDLE_TYPE_MAX; }
static void win32_metadata(CUmemAllocationProp *p) { p->win32HandleMetaData = p; }
static void rdma(CUmemAllocationProp *p) { p->allocFlags.gpuDirectRDMACapable = 1; }
static void tile_pool(CUmemAllocationProp *p) { p->allocFlags.usage = CU_MEM_CREATE_USAGE_TILE_POOL; }
static void decompress(CUmemAllocationProp *p) { p->allocFlags.usage = CU_MEM_CREATE_USAGE_HW_DECOMPRESS; }
static void unknown_usage(CUmemAllocationProp *p) { p->allocFlags.usage = 0x4; }
static void unknown_compression(CUmemAllocationProp *p) { p->allocFlags.compressionType = 2; }
static void reserved(CUmemAllocationProp *p) { p->allocFlags.reserved[3] = 1; }

static const struct bad_prop bad_props[] = {
	{ "type INVALID", no_type, CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_VALUE },
	{ "type MANAGED", managed, CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_VALUE },
	{ "type MAX", type_max, CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_VALUE },
	{ "location INVALID", no_location, CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_VALUE },
	{ "location HOST_NUMA_CURRENT", host_numa_current, CUDA_ERROR_INVALID_VALUE,
	  CUDA_ERROR_INVALID_VALUE },
	{ "location MAX", location_max, CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_VALUE },
	{ "device -1", negative_device, CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_DEVICE },
	{ "device 2^20", missing_device, CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_DEVICE },
	{ "WIN32 handle", win32, CUDA_ERROR_NOT_SUPPORTED, CUDA_ERROR_NOT_SUPPORTED },
	{ "WIN32_KMT handle", win32_kmt, CUDA_ERROR_NOT_SUPPORTED, CUDA_ERROR_NOT_SUPPORTED },
	{ "handle type 0x10", unknown_handle_type, CUDA_ERROR_INVALID_VALUE,
	  CUDA_ERROR_INVALID_VALUE },
	{ "handle type MAX", handle_type_max, CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_VALUE },
	{ "win32HandleMetaData", win32_metadata, CUDA_ERROR_INVALID_VALUE,
	  CUDA_ERROR_INVALID_VALUE },
	{ "gpuDirectRDMACapable", rdma, CUDA_ERROR_NOT_SUPPORTED, CUDA_ERROR_NOT_SUPPORTED },
	{ "usage TILE_POOL", tile_pool, CUDA_ERROR_NOT_SUPPORTED, CUDA_ERROR_NOT_SUPPORTED },
	{ "usage HW_DECOMPRESS", decompress, CUDA_ERROR_NOT_SUPPORTED, CUDA_ERROR_NOT_SUPPORTED },
	{ "usage 0x4", unknown_usage, CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_VALUE },
	{ "compressionType 2", unknown_compression, CUDA_ERROR_INVALID_VALUE,
	  CUDA_ERROR_INVALID_VALUE },
	{ "reserved byte", reserved, CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_VALUE },
};

#define NUM_BAD_PROPS (sizeof(bad_props) / sizeof(bad_props[0]))

START_TEST(bad_property_refused)
{
	const struct bad_prop *bad = &bad_props[_i];
	CUmemAllocationProp prop = vmm_prop(0);
	CUmemGenericAllocationHandle handle = 77;
	size_t gran = 77, before = free_bytes_of(0);

	bad->spoil(&prop);
	ck_assert_msg(cuMemGetAllocationGranularity(&gran, &prop,
			CU_MEM_ALLOC_GRANULARITY_RECOMMENDED) == bad->granularity_result,
		      "granularity: %s", bad->what);
	ck_assert_msg(cuMemCreate(&handle, 2 << 20, &prop, 0) == bad->create_result,
		      "create: %s", bad->what);
	ck_assert_uint_eq(gran, 77);
	ck_assert_uint_eq(handle, 77);
	ck_assert_uint_eq(free_bytes_of(0), before);
}
END_TEST

/*
 * NCCL's host-memory probe: driver 580 answers 2 MiB for host NUMA nodes
 * and the host; cuMemCreate there is NOT_SUPPORTED in cumc (device memory
 * only).
 */
START_TEST(host_numa_granularity_as_driver_580)
{
	CUmemAllocationProp prop = vmm_prop(0);
	CUmemGenericAllocationHandle handle = 77;
	size_t gran = 77;

	host_numa(&prop);
	ck_assert_int_eq(cuMemGetAllocationGranularity(&gran, &prop,
			CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);
	ck_assert_uint_eq(gran, 2 << 20);
	gran = 77;
	ck_assert_int_eq(cuMemGetAllocationGranularity(&gran, &prop,
			CU_MEM_ALLOC_GRANULARITY_RECOMMENDED), CUDA_SUCCESS);
	ck_assert_uint_eq(gran, 2 << 20);
	ck_assert_int_eq(cuMemCreate(&handle, 2 << 20, &prop, 0), CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_uint_eq(handle, 77);
	/* Any node id, as driver 580 answers. */
	gran = 77;
	prop.location.id = 99;
	ck_assert_int_eq(cuMemGetAllocationGranularity(&gran, &prop,
			CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);
	ck_assert_uint_eq(gran, 2 << 20);
	/* HOST: the same, unshareable. */
	gran = 77;
	host(&prop);
	ck_assert_int_eq(cuMemGetAllocationGranularity(&gran, &prop,
			CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);
	ck_assert_uint_eq(gran, 2 << 20);
	ck_assert_int_eq(cuMemCreate(&handle, 2 << 20, &prop, 0), CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_uint_eq(handle, 77);
	/* Shareable HOST: driver 580 answers the granularity, not the create. */
	gran = 77;
	shared_host(&prop);
	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	ck_assert_int_eq(cuMemGetAllocationGranularity(&gran, &prop,
			CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);
	ck_assert_uint_eq(gran, 2 << 20);
	ck_assert_int_eq(cuMemCreate(&handle, 2 << 20, &prop, 0), CUDA_ERROR_INVALID_VALUE);
	gran = 77;
	host_numa(&prop);
	prop.type = CU_MEM_ALLOCATION_TYPE_INVALID;
	ck_assert_int_eq(cuMemGetAllocationGranularity(&gran, &prop,
			CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(gran, 77);
}
END_TEST

static void create_and_read_back(const CUmemAllocationProp *prop, size_t size)
{
	CUmemGenericAllocationHandle handle;
	CUmemAllocationProp got;

	ck_assert_int_eq(cuMemCreate(&handle, size, prop, 0), CUDA_SUCCESS);
	memset(&got, 0xa5, sizeof(got));
	ck_assert_int_eq(cuMemGetAllocationPropertiesFromHandle(&got, handle),
			 CUDA_SUCCESS);
	ck_assert_mem_eq(&got, prop, sizeof(got));
	ck_assert_int_eq(cuMemRelease(handle), CUDA_SUCCESS);
}

START_TEST(create_every_device_and_handle_type)
{
	CUdevice dev = _i % device_count();
	CUmemAllocationProp prop = vmm_prop(dev);
	CUmemGenericAllocationHandle handle;
	CUresult res;

	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_NONE;
	create_and_read_back(&prop, 3 * granularity(dev));
	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	create_and_read_back(&prop, granularity(dev));
	/*
	 * Fabric memory needs an IMEX channel where the module implements
	 * them: refused as by the driver, until the client attaches one.
	 */
	prop.requestedHandleTypes |= CU_MEM_HANDLE_TYPE_FABRIC;
	res = cuMemCreate(&handle, granularity(dev), &prop, 0);
	ck_assert(res == CUDA_SUCCESS || res == CUDA_ERROR_NOT_PERMITTED);
	if (res == CUDA_SUCCESS) {
		ck_assert_int_eq(cuMemRelease(handle), CUDA_SUCCESS);
		create_and_read_back(&prop, granularity(dev));
	}
}
END_TEST

/* A hint, as documented: honoured by uncompressed memory that says so. */
START_TEST(compression_request_gets_uncompressed_memory)
{
	CUmemAllocationProp prop = vmm_prop(0), got;
	CUmemGenericAllocationHandle handle;

	prop.allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_GENERIC;
	ck_assert_int_eq(cuMemCreate(&handle, granularity(0), &prop, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemGetAllocationPropertiesFromHandle(&got, handle),
			 CUDA_SUCCESS);
	ck_assert_int_eq(got.allocFlags.compressionType, CU_MEM_ALLOCATION_COMP_NONE);
	ck_assert_int_eq(cuMemRelease(handle), CUDA_SUCCESS);
}
END_TEST

START_TEST(create_needs_no_context)
{
	CUcontext ctx = (CUcontext)1;

	ck_assert_int_eq(cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
	ck_assert_ptr_null(ctx);
	ck_assert_int_eq(cuMemRelease(create(1, granularity(1))), CUDA_SUCCESS);
}
END_TEST

START_TEST(create_bad_sizes_and_arguments_refused)
{
	CUmemAllocationProp prop = vmm_prop(0);
	CUmemGenericAllocationHandle handle = 77;
	size_t gran = granularity(0);

	ck_assert_int_eq(cuMemCreate(&handle, 0, &prop, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemCreate(&handle, gran / 2, &prop, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemCreate(&handle, gran + 4096, &prop, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemCreate(&handle, SIZE_MAX, &prop, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemCreate(&handle, gran, &prop, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemCreate(&handle, gran, &prop, ~0ull), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemCreate(NULL, gran, &prop, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemCreate(&handle, gran, NULL, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(handle, 77);
}
END_TEST

START_TEST(create_beyond_the_device_is_out_of_memory)
{
	CUmemAllocationProp prop = vmm_prop(2);
	CUmemGenericAllocationHandle handle = 77, whole;
	size_t free_bytes, total, gran = granularity(2);

	mem_info(2, &free_bytes, &total);
	ck_assert_int_eq(cuMemCreate(&handle, total + gran, &prop, 0),
			 CUDA_ERROR_OUT_OF_MEMORY);
	ck_assert_int_eq(cuMemCreate(&handle, SIZE_MAX - gran + 1, &prop, 0),
			 CUDA_ERROR_OUT_OF_MEMORY);
	ck_assert_uint_eq(handle, 77);
	/* Backed lazily: the whole device costs nothing until touched. */
	whole = create(2, free_bytes);
	ck_assert_uint_eq(free_bytes_of(2), 0);
	ck_assert_int_eq(cuMemCreate(&handle, gran, &prop, 0), CUDA_ERROR_OUT_OF_MEMORY);
	ck_assert_int_eq(cuMemRelease(whole), CUDA_SUCCESS);
	ck_assert_uint_eq(free_bytes_of(2), free_bytes);
}
END_TEST

/* The module's max_objects, or 0 when it cannot be read. */
static unsigned long max_objects(void)
{
	FILE *f = fopen("/sys/module/cumc/parameters/max_objects", "r");
	unsigned long value = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%lu", &value) != 1)
		value = 0;
	fclose(f);
	return value;
}

static int set_max_objects(unsigned long value)
{
	FILE *f = fopen("/sys/module/cumc/parameters/max_objects", "w");
	int ret;

	if (!f)
		return -1;
	ret = fprintf(f, "%lu", value) < 0;
	return fclose(f) || ret ? -1 : 0;
}

/* The module's EDQUOT: a client at its quota is out of memory. */
START_TEST(create_over_quota_is_out_of_memory)
{
	CUmemAllocationProp prop = vmm_prop(0);
	CUmemGenericAllocationHandle first = 0, second = 77;
	unsigned long saved = max_objects();
	CUresult r1, r2;

	ck_assert_uint_ne(saved, 0);
	ck_assert_int_eq(set_max_objects(1), 0);
	r1 = cuMemCreate(&first, granularity(0), &prop, 0);
	r2 = cuMemCreate(&second, granularity(0), &prop, 0);
	/* Restored before any assertion can end the test. */
	ck_assert_int_eq(set_max_objects(saved), 0);
	ck_assert_int_eq(r1, CUDA_SUCCESS);
	ck_assert_int_eq(r2, CUDA_ERROR_OUT_OF_MEMORY);
	ck_assert_uint_eq(second, 77);
	ck_assert_int_eq(cuMemRelease(first), CUDA_SUCCESS);
}
END_TEST

START_TEST(release_bad_handles_refused)
{
	CUmemGenericAllocationHandle handle = create(0, granularity(0));
	CUmemAllocationProp prop;

	ck_assert_int_eq(cuMemRelease(handle), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(handle), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemGetAllocationPropertiesFromHandle(&prop, handle),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemRelease(0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemRelease(0xdeadbeefcafeull), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemRelease(~0ull), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemGetAllocationPropertiesFromHandle(&prop, 0),
			 CUDA_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(properties_null_refused)
{
	CUmemGenericAllocationHandle handle = create(0, granularity(0));

	ck_assert_int_eq(cuMemGetAllocationPropertiesFromHandle(NULL, handle),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemRelease(handle), CUDA_SUCCESS);
}
END_TEST

START_TEST(mem_info_follows_allocations)
{
	CUdevice dev = _i % device_count();
	size_t free_bytes, total, device_total, gran = granularity(dev);
	CUmemGenericAllocationHandle handle;

	mem_info(dev, &free_bytes, &total);
	ck_assert_int_eq(cuDeviceTotalMem(&device_total, dev), CUDA_SUCCESS);
	ck_assert_uint_eq(total, device_total);
	ck_assert_uint_le(free_bytes, total);
	handle = create(dev, 5 * gran);
	ck_assert_uint_eq(free_bytes_of(dev), free_bytes - 5 * gran);
	ck_assert_int_eq(cuMemRelease(handle), CUDA_SUCCESS);
	ck_assert_uint_eq(free_bytes_of(dev), free_bytes);
}
END_TEST

START_TEST(mem_info_needs_a_live_context)
{
	size_t free_bytes = 77, total = 77;
	CUcontext ctx;

	ck_assert_int_eq(cuMemGetInfo(&free_bytes, &total), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxCreate(&ctx, NULL, 0, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemGetInfo(NULL, &total), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemGetInfo(&free_bytes, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxPushCurrent(ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxDestroy(ctx), CUDA_SUCCESS);
	/* Destroy popped one copy; the one below is current and dead. */
	ck_assert_int_eq(cuMemGetInfo(&free_bytes, &total),
			 CUDA_ERROR_CONTEXT_IS_DESTROYED);
	ck_assert_uint_eq(free_bytes, 77);
	ck_assert_uint_eq(total, 77);
}
END_TEST

static CUmemGenericAllocationHandle parent_handle;
static size_t child_size;

static int child_has_its_own_client(void)
{
	CUmemAllocationProp prop = vmm_prop(0);
	CUmemGenericAllocationHandle mine;

	CHILD_EXPECT(cuMemCreate(&mine, child_size, &prop, 0) ==
		     CUDA_ERROR_NOT_INITIALIZED);
	CHILD_EXPECT(cuInit(0) == CUDA_SUCCESS);
	/* The parent's handle means nothing in another client. */
	CHILD_EXPECT(cuMemGetAllocationPropertiesFromHandle(&prop, parent_handle) ==
		     CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(cuMemRelease(parent_handle) == CUDA_ERROR_INVALID_VALUE);
	prop = vmm_prop(0);
	/* Left allocated: the module frees it when the child exits. */
	CHILD_EXPECT(cuMemCreate(&mine, child_size, &prop, 0) == CUDA_SUCCESS);
	return 0;
}

START_TEST(forked_child_allocates_in_its_own_client)
{
	size_t before;

	child_size = granularity(0);
	parent_handle = create(0, child_size);
	before = free_bytes_of(0);
	assert_child_passes(child_has_its_own_client);
	ck_assert_uint_eq(free_bytes_of(0), before);
	ck_assert_int_eq(cuMemGetAllocationPropertiesFromHandle(
			&(CUmemAllocationProp){ 0 }, parent_handle), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(parent_handle), CUDA_SUCCESS);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("memory");
	TCase *gran = tcase_create("granularity and properties");
	TCase *alloc = tcase_create("allocations");

	check_add_uninit(s, everything_needs_init);

	tcase_add_checked_fixture(gran, setup, NULL);
	tcase_add_loop_test(gran, granularity_is_one_power_of_two, 0, 8);
	tcase_add_test(gran, granularity_bad_arguments_refused);
	tcase_add_loop_test(gran, bad_property_refused, 0, NUM_BAD_PROPS);
	tcase_add_test(gran, host_numa_granularity_as_driver_580);
	suite_add_tcase(s, gran);

	tcase_add_checked_fixture(alloc, setup, NULL);
	tcase_add_loop_test(alloc, create_every_device_and_handle_type, 0, 8);
	tcase_add_test(alloc, compression_request_gets_uncompressed_memory);
	tcase_add_test(alloc, create_needs_no_context);
	tcase_add_test(alloc, create_bad_sizes_and_arguments_refused);
	tcase_add_test(alloc, create_beyond_the_device_is_out_of_memory);
	tcase_add_test(alloc, create_over_quota_is_out_of_memory);
	tcase_add_test(alloc, release_bad_handles_refused);
	tcase_add_test(alloc, properties_null_refused);
	tcase_add_loop_test(alloc, mem_info_follows_allocations, 0, 8);
	tcase_add_test(alloc, mem_info_needs_a_live_context);
	tcase_add_test(alloc, forked_child_allocates_in_its_own_client);
	suite_add_tcase(s, alloc);

	return check_run_forked(s);
}
