// SPDX-License-Identifier: MIT
/*
 * Managed memory (lib/managed.c) against the module (runs in the VM):
 * cuMemAllocManaged memory the CPU and the copies reach, what the pointer
 * and device attributes say of it, advice and prefetches as
 * cuMemRangeGetAttribute(s) report them page by page, the batch forms,
 * cuStreamAttachMemAsync, and every bad argument changing nothing.
 */
#include <string.h>
#include <unistd.h>

#include "check_run.h"
#include "vmm.h"

static size_t page;

static void setup(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	vmm_use_device(0);
	page = sysconf(_SC_PAGESIZE);
}

static CUdeviceptr managed_new(size_t size)
{
	CUdeviceptr d = 0;

	ck_assert_int_eq(cuMemAllocManaged(&d, size, CU_MEM_ATTACH_GLOBAL),
			 CUDA_SUCCESS);
	ck_assert(d != 0);
	return d;
}

static CUmemLocation dev_loc(int id)
{
	CUmemLocation loc = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = id };

	return loc;
}

static CUmemLocation host_loc(void)
{
	CUmemLocation loc = { .type = CU_MEM_LOCATION_TYPE_HOST, .id = 0 };

	return loc;
}

/* A 4-byte range attribute of [d, d + len). */
static int range_int(CUmem_range_attribute attr, CUdeviceptr d, size_t len)
{
	int v = 12345;

	ck_assert_int_eq(cuMemRangeGetAttribute(&v, sizeof(v), attr, d, len),
			 CUDA_SUCCESS);
	return v;
}

START_TEST(needs_init)
{
	CUmem_range_attribute attr = CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY;
	CUdeviceptr d;
	size_t size = 4;
	int v;
	void *data = &v;

	ck_assert_int_eq(cuMemAllocManaged(&d, 4, CU_MEM_ATTACH_GLOBAL),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemAdvise(1 << 30, 4, CU_MEM_ADVISE_SET_READ_MOSTLY,
				     host_loc()), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemPrefetchAsync(1 << 30, 4, host_loc(), 0, NULL),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemRangeGetAttribute(&v, 4, attr, 1 << 30, 4),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemRangeGetAttributes(&data, &size, &attr, 1,
						 1 << 30, 4),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuStreamAttachMemAsync(NULL, 1 << 30, 0,
						CU_MEM_ATTACH_GLOBAL),
			 CUDA_ERROR_NOT_INITIALIZED);
}
END_TEST

START_TEST(device_attributes_say_managed)
{
	int v = -1;

	ck_assert_int_eq(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(v, 1);
	ck_assert_int_eq(cuDeviceGetAttribute(&v,
			 CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(v, 1);
}
END_TEST

START_TEST(cpu_and_copies_share_the_memory)
{
	CUdeviceptr d = managed_new(3 * page);
	unsigned char *p = vmm_ptr(d), out[16];
	CUdeviceptr dev;

	memset(p, 0x5a, 3 * page);
	ck_assert_int_eq(cuMemcpyDtoH(out, d + page, sizeof(out)), CUDA_SUCCESS);
	ck_assert_int_eq(out[0], 0x5a);
	ck_assert_int_eq(cuMemsetD8(d + 2 * page, 0x11, 4), CUDA_SUCCESS);
	ck_assert_int_eq(p[2 * page + 3], 0x11);
	ck_assert_int_eq(p[2 * page + 4], 0x5a);
	/* A device buffer of another kind copies to and from it. */
	ck_assert_int_eq(cuMemAlloc(&dev, 16), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoD(dev, d + 2 * page, 16), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(out, dev, 16), CUDA_SUCCESS);
	ck_assert_int_eq(out[0], 0x11);
	ck_assert_int_eq(out[4], 0x5a);
	ck_assert_int_eq(cuMemFree(dev), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
	/* Freed like cuMemAlloc memory: once. */
	ck_assert_int_eq(cuMemFree(d), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(pointer_attributes)
{
	CUdeviceptr d = managed_new(100), plain;
	unsigned int managed = 7, type = 0;
	unsigned long long start = 0, size = 0;
	void *host = NULL;

	ck_assert_int_eq(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED,
					       d + 10), CUDA_SUCCESS);
	ck_assert_uint_eq(managed, 1);
	ck_assert_int_eq(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
					       d), CUDA_SUCCESS);
	ck_assert_uint_eq(type, CU_MEMORYTYPE_DEVICE);
	ck_assert_int_eq(cuPointerGetAttribute(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER,
					       d + 10), CUDA_SUCCESS);
	ck_assert_ptr_eq(host, vmm_ptr(d + 10));
	ck_assert_int_eq(cuPointerGetAttribute(&start,
					       CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
					       d + 99), CUDA_SUCCESS);
	ck_assert_uint_eq(start, d);
	ck_assert_int_eq(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
					       d), CUDA_SUCCESS);
	ck_assert_uint_eq(size, 100);

	ck_assert_int_eq(cuMemAlloc(&plain, 100), CUDA_SUCCESS);
	ck_assert_int_eq(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED,
					       plain), CUDA_SUCCESS);
	ck_assert_uint_eq(managed, 0);
	ck_assert_int_eq(cuMemFree(plain), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
}
END_TEST

START_TEST(alloc_bad_arguments)
{
	CUdeviceptr d = 0;

	ck_assert_int_eq(cuMemAllocManaged(NULL, 4, CU_MEM_ATTACH_GLOBAL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAllocManaged(&d, 0, CU_MEM_ATTACH_GLOBAL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAllocManaged(&d, 4, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAllocManaged(&d, 4, CU_MEM_ATTACH_SINGLE),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAllocManaged(&d, 4, CU_MEM_ATTACH_GLOBAL |
					   CU_MEM_ATTACH_HOST),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(d, 0);
	ck_assert_int_eq(cuMemAllocManaged(&d, 4, CU_MEM_ATTACH_HOST),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAllocManaged(&d, 4, CU_MEM_ATTACH_GLOBAL),
			 CUDA_ERROR_INVALID_CONTEXT);
}
END_TEST

START_TEST(nothing_advised_yet)
{
	CUdeviceptr d = managed_new(2 * page);
	int list[3] = { 7, 7, 7 };

	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, 2 * page), 0);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, d, 1),
			 CU_DEVICE_INVALID);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, d, 1),
			 CU_MEM_LOCATION_TYPE_INVALID);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, d, 1),
			 CU_DEVICE_INVALID);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE,
				   d, 1), CU_MEM_LOCATION_TYPE_INVALID);
	ck_assert_int_eq(cuMemRangeGetAttribute(list, sizeof(list),
						CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY,
						d, page), CUDA_SUCCESS);
	ck_assert_int_eq(list[0], CU_DEVICE_INVALID);
	ck_assert_int_eq(list[2], CU_DEVICE_INVALID);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
}
END_TEST

/* Advice on the first page only: the whole range no longer agrees. */
START_TEST(advice_is_kept_per_page)
{
	CUdeviceptr d = managed_new(4 * page);

	ck_assert_int_eq(cuMemAdvise(d, 1, CU_MEM_ADVISE_SET_READ_MOSTLY,
				     host_loc()), CUDA_SUCCESS);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, page), 1);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, 2 * page), 0);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d + page,
				   page), 0);
	ck_assert_int_eq(cuMemAdvise(d, 4 * page, CU_MEM_ADVISE_SET_READ_MOSTLY,
				     host_loc()), CUDA_SUCCESS);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, 4 * page), 1);
	ck_assert_int_eq(cuMemAdvise(d + 2 * page, page,
				     CU_MEM_ADVISE_UNSET_READ_MOSTLY, host_loc()),
			 CUDA_SUCCESS);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, 2 * page), 1);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, 4 * page), 0);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
}
END_TEST

START_TEST(preferred_location)
{
	CUdeviceptr d = managed_new(2 * page);
	int last = vmm_device_count() - 1;

	ck_assert_int_eq(cuMemAdvise(d, 2 * page,
				     CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
				     dev_loc(last)), CUDA_SUCCESS);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, d,
				   2 * page), last);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE,
				   d, 2 * page), CU_MEM_LOCATION_TYPE_DEVICE);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID,
				   d, 2 * page), last);
	ck_assert_int_eq(cuMemAdvise(d + page, page,
				     CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
				     host_loc()), CUDA_SUCCESS);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION,
				   d + page, 1), CU_DEVICE_CPU);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE,
				   d + page, 1), CU_MEM_LOCATION_TYPE_HOST);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID,
				   d + page, 1), CU_DEVICE_CPU);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, d,
				   2 * page), CU_DEVICE_INVALID);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE,
				   d, 2 * page), CU_MEM_LOCATION_TYPE_INVALID);
	/* The location of an unset is ignored, as documented. */
	ck_assert_int_eq(cuMemAdvise(d, 2 * page,
				     CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION,
				     dev_loc(-5)), CUDA_SUCCESS);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE,
				   d + page, 1), CU_MEM_LOCATION_TYPE_INVALID);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
}
END_TEST

START_TEST(accessed_by_lists_devices_then_invalid)
{
	CUdeviceptr d = managed_new(page);
	int list[4] = { 7, 7, 7, 7 }, one = 7;
	int n = vmm_device_count();

	ck_assert_int_ge(n, 2);
	ck_assert_int_eq(cuMemAdvise(d, page, CU_MEM_ADVISE_SET_ACCESSED_BY,
				     dev_loc(1)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAdvise(d, page, CU_MEM_ADVISE_SET_ACCESSED_BY,
				     dev_loc(0)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAdvise(d, page, CU_MEM_ADVISE_SET_ACCESSED_BY,
				     host_loc()), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRangeGetAttribute(list, sizeof(list),
						CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY,
						d, page), CUDA_SUCCESS);
	ck_assert_int_eq(list[0], 0);
	ck_assert_int_eq(list[1], 1);
	ck_assert_int_eq(list[2], CU_DEVICE_CPU);
	ck_assert_int_eq(list[3], CU_DEVICE_INVALID);
	/* Room for one: one of them. */
	ck_assert_int_eq(cuMemRangeGetAttribute(&one, sizeof(one),
						CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY,
						d, page), CUDA_SUCCESS);
	ck_assert_int_eq(one, 0);
	ck_assert_int_eq(cuMemAdvise(d, page, CU_MEM_ADVISE_UNSET_ACCESSED_BY,
				     dev_loc(0)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRangeGetAttribute(list, sizeof(list),
						CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY,
						d, page), CUDA_SUCCESS);
	ck_assert_int_eq(list[0], 1);
	ck_assert_int_eq(list[1], CU_DEVICE_CPU);
	ck_assert_int_eq(list[2], CU_DEVICE_INVALID);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
}
END_TEST

START_TEST(prefetch_records_the_last_location)
{
	CUdeviceptr d = managed_new(2 * page);
	CUstream s;

	ck_assert_int_eq(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemPrefetchAsync(d, 2 * page, dev_loc(1), 0, s),
			 CUDA_SUCCESS);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
				   d, 2 * page), 1);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE,
				   d, 2 * page), CU_MEM_LOCATION_TYPE_DEVICE);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID,
				   d, 2 * page), 1);
	ck_assert_int_eq(cuMemPrefetchAsync(d, 1, host_loc(), 0, NULL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
				   d, 1), CU_DEVICE_CPU);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
				   d, 2 * page), CU_DEVICE_INVALID);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
}
END_TEST

/* The pre-12.2 names take a device ordinal, CU_DEVICE_CPU for the host. */
START_TEST(device_ordinal_forms)
{
	CUresult (*advise)(CUdeviceptr, size_t, CUmem_advise, CUdevice);
	CUresult (*prefetch)(CUdeviceptr, size_t, CUdevice, CUstream);
	CUdriverProcAddressQueryResult status;
	CUdeviceptr d = managed_new(page);
	void *fn;

	ck_assert_int_eq(cuGetProcAddress("cuMemAdvise", &fn, 8000, 0, &status),
			 CUDA_SUCCESS);
	ck_assert_ptr_nonnull(fn);
	advise = (CUresult (*)(CUdeviceptr, size_t, CUmem_advise, CUdevice))fn;
	ck_assert_int_eq(cuGetProcAddress("cuMemPrefetchAsync", &fn, 8000, 0,
					  &status), CUDA_SUCCESS);
	ck_assert_ptr_nonnull(fn);
	prefetch = (CUresult (*)(CUdeviceptr, size_t, CUdevice, CUstream))fn;

	ck_assert_int_eq(advise(d, page, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
				CU_DEVICE_CPU), CUDA_SUCCESS);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE,
				   d, page), CU_MEM_LOCATION_TYPE_HOST);
	ck_assert_int_eq(advise(d, page, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
				CU_DEVICE_INVALID), CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(prefetch(d, page, 0, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
				   d, page), 0);
	ck_assert_int_eq(prefetch(d, page, vmm_device_count(), NULL),
			 CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
}
END_TEST

START_TEST(advise_and_prefetch_bad_arguments)
{
	CUdeviceptr d = managed_new(page), plain;
	CUmemLocation bad_type = { .type = CU_MEM_LOCATION_TYPE_MAX };
	CUstream s;

	ck_assert_int_eq(cuMemAlloc(&plain, page), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAdvise(d, page, 0, host_loc()),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAdvise(d, page, 7, host_loc()),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAdvise(d, 0, CU_MEM_ADVISE_SET_READ_MOSTLY,
				     host_loc()), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAdvise(d, page + 1, CU_MEM_ADVISE_SET_READ_MOSTLY,
				     host_loc()), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAdvise(plain, page, CU_MEM_ADVISE_SET_READ_MOSTLY,
				     host_loc()), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAdvise(d, page, CU_MEM_ADVISE_SET_ACCESSED_BY,
				     dev_loc(vmm_device_count())),
			 CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuMemAdvise(d, page, CU_MEM_ADVISE_SET_ACCESSED_BY,
				     bad_type), CUDA_ERROR_INVALID_VALUE);

	ck_assert_int_eq(cuMemPrefetchAsync(d, page, host_loc(), 1, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPrefetchAsync(d, page, bad_type, 0, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPrefetchAsync(d, page, dev_loc(-1), 0, NULL),
			 CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuMemPrefetchAsync(plain, page, host_loc(), 0, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPrefetchAsync(d, 0, host_loc(), 0, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamCreate(&s, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemPrefetchAsync(d, page, host_loc(), 0, s),
			 CUDA_ERROR_INVALID_HANDLE);

	/* None of it left a trace. */
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, page), 0);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE,
				   d, page), CU_MEM_LOCATION_TYPE_INVALID);
	ck_assert_int_eq(cuMemFree(plain), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
}
END_TEST

START_TEST(range_attribute_bad_arguments)
{
	CUdeviceptr d = managed_new(page), plain;
	CUmem_range_attribute attrs[2] = { CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
					   CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY };
	int a = 7, b = 7;
	void *data[2] = { &a, &b };
	size_t sizes[2] = { 4, 4 };

	ck_assert_int_eq(cuMemAlloc(&plain, 64), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRangeGetAttribute(NULL, 4,
						CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
						d, 4), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemRangeGetAttribute(&a, 8,
						CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
						d, 4), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemRangeGetAttribute(&a, 0,
						CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY,
						d, 4), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemRangeGetAttribute(&a, 4, 9, d, 4),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemRangeGetAttribute(&a, 4,
						CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
						plain, 4), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemRangeGetAttribute(&a, 4,
						CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
						d, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(a, 7);

	/* One bad size: nothing written. */
	sizes[1] = 3;
	ck_assert_int_eq(cuMemRangeGetAttributes(data, sizes, attrs, 2, d, page),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(a, 7);
	ck_assert_int_eq(cuMemRangeGetAttributes(data, sizes, attrs, 0, d, page),
			 CUDA_ERROR_INVALID_VALUE);
	sizes[1] = 4;
	ck_assert_int_eq(cuMemRangeGetAttributes(data, sizes, attrs, 2, d, page),
			 CUDA_SUCCESS);
	ck_assert_int_eq(a, 0);
	ck_assert_int_eq(b, CU_DEVICE_INVALID);
	ck_assert_int_eq(cuMemFree(plain), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
}
END_TEST

START_TEST(batch_prefetch)
{
	CUdeviceptr d[3] = { managed_new(page), managed_new(page),
			     managed_new(page) };
	size_t sizes[3] = { page, page, page };
	CUmemLocation locs[2] = { dev_loc(1), host_loc() };
	size_t idxs[2] = { 0, 2 }, bad_idxs[2] = { 0, 3 };
	CUstream s;

	ck_assert_int_eq(cuStreamCreate(&s, 0), CUDA_SUCCESS);
	/* The legacy stream is refused, as documented. */
	ck_assert_int_eq(cuMemPrefetchBatchAsync(d, sizes, 3, locs, idxs, 2, 0,
						 NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPrefetchBatchAsync(d, sizes, 3, locs, bad_idxs, 2,
						 0, s), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPrefetchBatchAsync(d, sizes, 3, locs, idxs, 2, 1,
						 s), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
				   d[0], page), CU_DEVICE_INVALID);
	ck_assert_int_eq(cuMemPrefetchBatchAsync(d, sizes, 3, locs, idxs, 2, 0,
						 s), CUDA_SUCCESS);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
				   d[0], page), 1);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
				   d[1], page), 1);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
				   d[2], page), CU_DEVICE_CPU);
	/* A discard keeps what the memory held: any value is allowed. */
	*(volatile int *)vmm_ptr(d[0]) = 42;
	ck_assert_int_eq(cuMemDiscardBatchAsync(d, sizes, 3, 0, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemDiscardAndPrefetchBatchAsync(d, sizes, 1, locs,
							   idxs, 1, 0, s),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(d[0]), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(d[1]), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(d[2]), CUDA_SUCCESS);
}
END_TEST

START_TEST(attach_to_a_stream)
{
	CUdeviceptr d = managed_new(1000), plain;
	CUstream s;

	ck_assert_int_eq(cuStreamCreate(&s, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&plain, 1000), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamAttachMemAsync(s, d, 0, CU_MEM_ATTACH_SINGLE),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamAttachMemAsync(s, d, 1000, CU_MEM_ATTACH_HOST),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamAttachMemAsync(NULL, d, 0, CU_MEM_ATTACH_GLOBAL),
			 CUDA_SUCCESS);
	/* Single to the NULL stream, a part, not the start, not managed. */
	ck_assert_int_eq(cuStreamAttachMemAsync(NULL, d, 0, CU_MEM_ATTACH_SINGLE),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamAttachMemAsync(s, d, 999, CU_MEM_ATTACH_GLOBAL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamAttachMemAsync(s, d + 8, 0, CU_MEM_ATTACH_GLOBAL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamAttachMemAsync(s, plain, 0, CU_MEM_ATTACH_GLOBAL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamAttachMemAsync(s, d, 0, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamAttachMemAsync(s, d, 0, CU_MEM_ATTACH_GLOBAL),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuMemFree(plain), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
}
END_TEST

/* Advice belongs to an allocation: a new one at the same place has none. */
START_TEST(advice_goes_with_the_allocation)
{
	CUdeviceptr d = managed_new(4 * page), again;

	ck_assert_int_eq(cuMemAdvise(d, 4 * page, CU_MEM_ADVISE_SET_READ_MOSTLY,
				     host_loc()), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRangeGetAttribute(&(int){ 0 }, 4,
						CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
						d, 4), CUDA_ERROR_INVALID_VALUE);
	again = managed_new(4 * page);
	ck_assert_int_eq(range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, again,
				   4 * page), 0);
	ck_assert_int_eq(cuMemFree(again), CUDA_SUCCESS);
}
END_TEST

/* Destroying the context frees its managed memory, as cuMemAlloc's. */
START_TEST(context_destroy_frees_managed_memory)
{
	CUcontext ctx;
	CUdeviceptr d;
	unsigned int managed;

	ck_assert_int_eq(cuCtxCreate(&ctx, NULL, 0, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAllocManaged(&d, 64, CU_MEM_ATTACH_GLOBAL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxDestroy(ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuPointerGetAttribute(&managed,
					       CU_POINTER_ATTRIBUTE_IS_MANAGED, d),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemFree(d), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("managed");
	TCase *alloc = tcase_create("allocation");
	TCase *advice = tcase_create("advice and prefetch");
	TCase *stream = tcase_create("batches and streams");

	check_add_uninit(s, needs_init);

	tcase_add_checked_fixture(alloc, setup, NULL);
	tcase_add_test(alloc, device_attributes_say_managed);
	tcase_add_test(alloc, cpu_and_copies_share_the_memory);
	tcase_add_test(alloc, pointer_attributes);
	tcase_add_test(alloc, alloc_bad_arguments);
	tcase_add_test(alloc, context_destroy_frees_managed_memory);
	suite_add_tcase(s, alloc);

	tcase_add_checked_fixture(advice, setup, NULL);
	tcase_add_test(advice, nothing_advised_yet);
	tcase_add_test(advice, advice_is_kept_per_page);
	tcase_add_test(advice, preferred_location);
	tcase_add_test(advice, accessed_by_lists_devices_then_invalid);
	tcase_add_test(advice, prefetch_records_the_last_location);
	tcase_add_test(advice, device_ordinal_forms);
	tcase_add_test(advice, advise_and_prefetch_bad_arguments);
	tcase_add_test(advice, range_attribute_bad_arguments);
	tcase_add_test(advice, advice_goes_with_the_allocation);
	suite_add_tcase(s, advice);

	tcase_add_checked_fixture(stream, setup, NULL);
	tcase_add_test(stream, batch_prefetch);
	tcase_add_test(stream, attach_to_a_stream);
	suite_add_tcase(s, stream);

	return check_run_forked(s);
}
