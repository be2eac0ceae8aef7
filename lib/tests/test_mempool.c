// SPDX-License-Identifier: MIT
/*
 * The stream-ordered allocator against the module (runs in the VM):
 * cuMemPool*, cuDevice{Get,Set,GetDefault}MemPool, cuMemAllocAsync,
 * cuMemAllocFromPoolAsync, cuMemFreeAsync, and pools shared with another
 * process (a forked child that calls cuInit for itself, fed descriptors
 * over a Unix socket).
 */
#include <check.h>
#include <cuda.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_run.h"
#include "child.h"
#include "fdpass.h"
#include "mempool.h"
#include "procaddr.h"
#include "vmm.h"

#define GARBAGE_POOL ((CUmemoryPool)(uintptr_t)0xdeadbeef)
#define MIB (1ULL << 20)

static CUcontext ctx;

static void setup(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
}

static CUmemPoolProps pool_props(CUdevice dev, CUmemAllocationHandleType types)
{
	CUmemPoolProps props;

	memset(&props, 0, sizeof(props));
	props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	props.handleTypes = types;
	props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	props.location.id = dev;
	return props;
}

static CUmemoryPool new_pool(CUdevice dev, CUmemAllocationHandleType types)
{
	CUmemPoolProps props = pool_props(dev, types);
	CUmemoryPool pool = NULL;

	ck_assert_int_eq(cuMemPoolCreate(&pool, &props), CUDA_SUCCESS);
	ck_assert_ptr_nonnull(pool);
	return pool;
}

static cuuint64_t attr64(CUmemoryPool pool, CUmemPool_attribute attr)
{
	cuuint64_t v = 0xbadULL;

	ck_assert_int_eq(cuMemPoolGetAttribute(pool, attr, &v), CUDA_SUCCESS);
	return v;
}

static void set64(CUmemoryPool pool, CUmemPool_attribute attr, cuuint64_t v)
{
	ck_assert_int_eq(cuMemPoolSetAttribute(pool, attr, &v), CUDA_SUCCESS);
}

static size_t gran(CUdevice dev)
{
	CUmemAllocationProp prop = vmm_prop(dev);
	size_t g = 0;

	ck_assert_int_eq(cuMemGetAllocationGranularity(&g, &prop,
			CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);
	return g;
}

static CUdeviceptr alloc_from(CUmemoryPool pool, size_t size)
{
	CUdeviceptr p = 0;

	ck_assert_int_eq(cuMemAllocFromPoolAsync(&p, size, pool, NULL),
			 CUDA_SUCCESS);
	ck_assert_uint_ne(p, 0);
	return p;
}

static void free_sync(CUdeviceptr p)
{
	ck_assert_int_eq(cuMemFreeAsync(p, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(NULL), CUDA_SUCCESS);
}

START_TEST(everything_needs_init)
{
	CUmemPoolProps props = pool_props(0, CU_MEM_HANDLE_TYPE_NONE);
	CUmemPoolPtrExportData data;
	CUmemAccessDesc desc = { { CU_MEM_LOCATION_TYPE_DEVICE, 0 },
				 CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
	CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, 0 };
	CUmemAccess_flags flags;
	CUmemoryPool pool;
	CUdeviceptr p;
	cuuint64_t v = 0;
	int fd;

	ck_assert_int_eq(cuMemPoolCreate(&pool, &props), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemPoolDestroy(GARBAGE_POOL), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemPoolSetAttribute(GARBAGE_POOL,
			CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &v), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemPoolGetAttribute(GARBAGE_POOL,
			CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &v), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemPoolSetAccess(GARBAGE_POOL, &desc, 1),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemPoolGetAccess(&flags, GARBAGE_POOL, &loc),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemPoolTrimTo(GARBAGE_POOL, 0), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemPoolExportToShareableHandle(&fd, GARBAGE_POOL,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
			CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemPoolImportFromShareableHandle(&pool, (void *)0,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
			CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemPoolExportPointer(&data, 0x1000),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemPoolImportPointer(&p, GARBAGE_POOL, &data),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuDeviceGetDefaultMemPool(&pool, 0), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuDeviceGetMemPool(&pool, 0), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuDeviceSetMemPool(0, GARBAGE_POOL), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemAllocAsync(&p, 4096, NULL), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemAllocFromPoolAsync(&p, 4096, GARBAGE_POOL, NULL),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemFreeAsync(0x1000, NULL), CUDA_ERROR_NOT_INITIALIZED);
}
END_TEST

START_TEST(create_and_destroy_on_every_device)
{
	CUmemoryPool a = new_pool(_i, CU_MEM_HANDLE_TYPE_NONE);
	CUmemoryPool b = new_pool(_i, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);

	ck_assert_ptr_ne(a, b);
	ck_assert_int_eq(cuMemPoolDestroy(a), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemPoolDestroy(b), CUDA_SUCCESS);
	/* Destroyed handles are refused, and never come back for new pools. */
	ck_assert_int_eq(cuMemPoolDestroy(a), CUDA_ERROR_INVALID_VALUE);
	ck_assert_ptr_ne(new_pool(_i, CU_MEM_HANDLE_TYPE_NONE), a);
}
END_TEST

/*
 * One bad property each, with what cuMemPoolCreate answers for it (the
 * real driver 580's answers, but for the pools cumc does not provide).
 */
#define NUM_BAD_PROPS 14
static void bad_props(int i, CUmemPoolProps *props, CUresult *want)
{
	*props = pool_props(0, CU_MEM_HANDLE_TYPE_NONE);
	*want = CUDA_ERROR_INVALID_VALUE;
	switch (i) {
	case 0: props->allocType = CU_MEM_ALLOCATION_TYPE_INVALID; break;
	case 1:
		props->allocType = CU_MEM_ALLOCATION_TYPE_MANAGED;
		*want = CUDA_ERROR_NOT_SUPPORTED;
		break;
	case 2: props->location.id = 8; break;
	case 3: props->location.id = -1; break;
	case 4: props->location.type = CU_MEM_LOCATION_TYPE_INVALID; break;
	case 5:
		props->location.type = CU_MEM_LOCATION_TYPE_HOST;
		*want = CUDA_ERROR_NOT_SUPPORTED;
		break;
	case 6: props->handleTypes = 0x10; break;
	case 7: props->handleTypes = CU_MEM_HANDLE_TYPE_WIN32; break;
	case 8: props->handleTypes = 0x100; break;
	case 9: props->handleTypes = CU_MEM_HANDLE_TYPE_WIN32_KMT; break;
	case 10: props->reserved[53] = 1; break;
	case 11:
		props->location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
		*want = CUDA_ERROR_NOT_SUPPORTED;
		break;
	case 12:
		props->handleTypes = CU_MEM_HANDLE_TYPE_FABRIC |
				     CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
		*want = CUDA_ERROR_NOT_SUPPORTED;
		break;
	case 13: props->reserved[0] = 1; break;
	}
}

START_TEST(create_bad_properties_refused)
{
	CUmemoryPool pool = GARBAGE_POOL;
	CUmemPoolProps props;
	CUresult want;

	bad_props(_i, &props, &want);
	ck_assert_int_eq(cuMemPoolCreate(&pool, &props), want);
	ck_assert_ptr_eq(pool, GARBAGE_POOL);
}
END_TEST

/* As the real driver: an intent and a Windows-only member, not checked. */
START_TEST(create_ignores_usage_and_win32_attributes)
{
	CUmemPoolProps props = pool_props(0, CU_MEM_HANDLE_TYPE_NONE);
	CUmemoryPool pool;

	props.usage = CU_MEM_POOL_CREATE_USAGE_HW_DECOMPRESS | 1;
	props.win32SecurityAttributes = &props;
	ck_assert_int_eq(cuMemPoolCreate(&pool, &props), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemPoolDestroy(pool), CUDA_SUCCESS);
}
END_TEST

START_TEST(create_null_arguments_refused)
{
	CUmemPoolProps props = pool_props(0, CU_MEM_HANDLE_TYPE_NONE);
	CUmemoryPool pool;

	ck_assert_int_eq(cuMemPoolCreate(NULL, &props), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolCreate(&pool, NULL), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

/* Every entry point that takes a pool, with a pool that is not one. */
static void assert_pool_refused(CUmemoryPool bad)
{
	CUmemAccessDesc desc = { { CU_MEM_LOCATION_TYPE_DEVICE, 1 },
				 CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
	CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, 0 };
	CUmemPoolPtrExportData data;
	CUmemAccess_flags flags;
	CUdeviceptr p = 0;
	cuuint64_t v = 0;
	int fd = -1;

	memset(&data, 0, sizeof(data));
	ck_assert_int_eq(cuMemPoolDestroy(bad), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolSetAttribute(bad,
			CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &v), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolGetAttribute(bad,
			CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &v), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolSetAccess(bad, &desc, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolGetAccess(&flags, bad, &loc),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolTrimTo(bad, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolExportToShareableHandle(&fd, bad,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
			CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolImportPointer(&p, bad, &data),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceSetMemPool(0, bad), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAllocFromPoolAsync(&p, 4096, bad, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(p, 0);
	ck_assert_int_eq(fd, -1);
}

START_TEST(garbage_and_destroyed_pools_refused)
{
	CUmemoryPool pool = new_pool(0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);

	assert_pool_refused(NULL);
	assert_pool_refused(GARBAGE_POOL);
	assert_pool_refused((CUmemoryPool)(uintptr_t)1000000);
	assert_pool_refused((CUmemoryPool)&pool);
	ck_assert_int_eq(cuMemPoolDestroy(pool), CUDA_SUCCESS);
	assert_pool_refused(pool);
}
END_TEST

START_TEST(attribute_defaults)
{
	CUmemoryPool pool = new_pool(0, CU_MEM_HANDLE_TYPE_NONE);
	int v = -1;

	ck_assert_int_eq(cuMemPoolGetAttribute(pool,
		CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES, &v), CUDA_SUCCESS);
	ck_assert_int_eq(v, 1);
	ck_assert_int_eq(cuMemPoolGetAttribute(pool,
		CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &v), CUDA_SUCCESS);
	ck_assert_int_eq(v, 1);
	ck_assert_int_eq(cuMemPoolGetAttribute(pool,
		CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES, &v), CUDA_SUCCESS);
	ck_assert_int_eq(v, 1);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD), 0);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 0);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH), 0);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 0);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH), 0);
}
END_TEST

START_TEST(attributes_set_and_refused)
{
	CUmemoryPool pool = new_pool(0, CU_MEM_HANDLE_TYPE_NONE);
	CUmemPool_attribute reuse[] = {
		CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES,
		CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC,
		CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES,
	};
	cuuint64_t v = 1;
	unsigned int i;
	int zero = 0, two = 2, got = -1;

	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(cuMemPoolSetAttribute(pool, reuse[i], &zero),
				 CUDA_SUCCESS);
		ck_assert_int_eq(cuMemPoolGetAttribute(pool, reuse[i], &got),
				 CUDA_SUCCESS);
		ck_assert_int_eq(got, 0);
		/* Any other value is true: it reads back as 1. */
		ck_assert_int_eq(cuMemPoolSetAttribute(pool, reuse[i], &two),
				 CUDA_SUCCESS);
		ck_assert_int_eq(cuMemPoolGetAttribute(pool, reuse[i], &got),
				 CUDA_SUCCESS);
		ck_assert_int_eq(got, 1);
	}
	set64(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, UINT64_MAX);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD),
			  UINT64_MAX);
	/* The current values are read-only, the high marks reset to 0 only. */
	ck_assert_int_eq(cuMemPoolSetAttribute(pool,
		CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &v), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolSetAttribute(pool,
		CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &v), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolSetAttribute(pool,
		CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &v), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolSetAttribute(pool,
		CU_MEMPOOL_ATTR_USED_MEM_HIGH, &v), CUDA_ERROR_INVALID_VALUE);
	/* Not attributes, and no value. */
	ck_assert_int_eq(cuMemPoolSetAttribute(pool, 0, &v), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolGetAttribute(pool, 0, &v), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolSetAttribute(pool, 99, &v), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolGetAttribute(pool, 99, &v), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolSetAttribute(pool,
		CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolGetAttribute(pool,
		CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, NULL), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

/*
 * Used memory counts the bytes asked for, and drops at cuMemFreeAsync;
 * reserved memory counts blocks; the high marks, and resetting those.
 */
START_TEST(usage_attributes_follow_allocations)
{
	CUmemoryPool pool = new_pool(0, CU_MEM_HANDLE_TYPE_NONE);
	size_t g = gran(0);
	CUdeviceptr a, b;

	set64(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, UINT64_MAX);
	a = alloc_from(pool, 1000);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 1000);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), g);
	b = alloc_from(pool, g + 1);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT),
			  1000 + g + 1);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT),
			  3 * g);
	ck_assert_int_eq(cuMemFreeAsync(b, NULL), CUDA_SUCCESS);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 1000);
	ck_assert_int_eq(cuStreamSynchronize(NULL), CUDA_SUCCESS);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 1000);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH),
			  1000 + g + 1);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT),
			  3 * g);
	set64(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, 0);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH), 1000);
	ck_assert_int_eq(cuMemPoolTrimTo(pool, 0), CUDA_SUCCESS);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), g);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH), 3 * g);
	set64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, 0);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH), g);
	free_sync(a);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 0);
}
END_TEST

/* Memory of a pool is the device's, readable and writable at once. */
START_TEST(allocations_are_usable_memory)
{
	CUmemoryPool pool = new_pool(_i, CU_MEM_HANDLE_TYPE_NONE);
	CUdeviceptr a = alloc_from(pool, 3 * MIB + 5);
	CUdeviceptr b = alloc_from(pool, 100);
	unsigned char *pa = (unsigned char *)a, *pb = (unsigned char *)b;
	CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, _i };
	unsigned long long flags = 0;
	CUdeviceptr base = 0;
	CUmemoryPool owner = NULL;
	size_t range = 0;

	ck_assert_uint_eq(a % 512, 0);
	ck_assert_uint_eq(b % 512, 0);
	ck_assert(b + 100 <= a || a + 3 * MIB + 5 <= b);
	memset(pa, 0xab, 3 * MIB + 5);
	memset(pb, 0xcd, 100);
	ck_assert_uint_eq(pa[3 * MIB + 4], 0xab);
	ck_assert_uint_eq(pb[99], 0xcd);
	ck_assert_int_eq(cuMemGetAccess(&flags, &loc, a), CUDA_SUCCESS);
	ck_assert_uint_eq(flags, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
	ck_assert_int_eq(cuPointerGetAttribute(&owner,
		CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, b + 99), CUDA_SUCCESS);
	ck_assert_ptr_eq(owner, pool);
	ck_assert_int_eq(cuPointerGetAttribute(&owner,
		CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, a), CUDA_SUCCESS);
	ck_assert_ptr_eq(owner, pool);
	free_sync(a);
	ck_assert_int_eq(cuMemGetAddressRange(&base, &range, b + 99), CUDA_SUCCESS);
	ck_assert_uint_le(base, b);
	ck_assert_uint_ge(base + range, b + 100);
	free_sync(b);
	ck_assert_int_eq(cuMemPoolDestroy(pool), CUDA_SUCCESS);
}
END_TEST

START_TEST(alloc_bad_arguments_refused)
{
	CUmemoryPool pool = new_pool(0, CU_MEM_HANDLE_TYPE_NONE);
	CUdeviceptr p = 0;

	ck_assert_int_eq(cuMemAllocFromPoolAsync(NULL, 4096, pool, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAllocAsync(NULL, 4096, NULL), CUDA_ERROR_INVALID_VALUE);
	/* Size 0: address 0, which frees as a no-op (the real driver's answers). */
	p = 1;
	ck_assert_int_eq(cuMemAllocFromPoolAsync(&p, 0, pool, NULL), CUDA_SUCCESS);
	ck_assert_uint_eq(p, 0);
	p = 1;
	ck_assert_int_eq(cuMemAllocAsync(&p, 0, NULL), CUDA_SUCCESS);
	ck_assert_uint_eq(p, 0);
	ck_assert_int_eq(cuMemFreeAsync(0, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAllocFromPoolAsync(&p, SIZE_MAX, pool, NULL),
			 CUDA_ERROR_OUT_OF_MEMORY);
	ck_assert_int_eq(cuMemAllocFromPoolAsync(&p, SIZE_MAX / 2, pool, NULL),
			 CUDA_ERROR_OUT_OF_MEMORY);
	ck_assert_uint_eq(p, 0);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 0);
}
END_TEST

START_TEST(max_size_bounds_the_pool)
{
	CUmemPoolProps props = pool_props(0, CU_MEM_HANDLE_TYPE_NONE);
	size_t g = gran(0);
	CUmemoryPool pool;
	CUdeviceptr a, p = 0;

	props.maxSize = 2 * g;
	ck_assert_int_eq(cuMemPoolCreate(&pool, &props), CUDA_SUCCESS);
	a = alloc_from(pool, g);
	alloc_from(pool, g);
	ck_assert_int_eq(cuMemAllocFromPoolAsync(&p, 1, pool, NULL),
			 CUDA_ERROR_OUT_OF_MEMORY);
	ck_assert_int_eq(cuMemAllocFromPoolAsync(&p, 3 * g, pool, NULL),
			 CUDA_ERROR_OUT_OF_MEMORY);
	/* Freed memory is the pool's to hand out again. */
	set64(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, UINT64_MAX);
	free_sync(a);
	ck_assert_uint_eq(alloc_from(pool, 1), a);
}
END_TEST

START_TEST(free_bad_pointers_refused)
{
	CUmemoryPool pool = new_pool(0, CU_MEM_HANDLE_TYPE_NONE);
	CUdeviceptr p = alloc_from(pool, 4096);

	ck_assert_int_eq(cuMemFreeAsync(0xdead0000, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemFreeAsync(p + 512, NULL), CUDA_ERROR_INVALID_VALUE);
	free_sync(p);
	ck_assert_int_eq(cuMemFreeAsync(p, NULL), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

/*
 * With the release threshold above what the pool holds, a free reached in
 * stream order gives the memory to the next allocation; at the default
 * threshold (0) the memory goes back to the device.
 */
START_TEST(freed_memory_is_reused)
{
	CUmemoryPool pool = new_pool(0, CU_MEM_HANDLE_TYPE_NONE);
	size_t g = gran(0);
	CUdeviceptr a, b;

	set64(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, UINT64_MAX);
	a = alloc_from(pool, 4096);
	free_sync(a);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), g);
	b = alloc_from(pool, 4096);
	ck_assert_uint_eq(b, a);
	free_sync(b);
	set64(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, 0);
	b = alloc_from(pool, 4096);
	ck_assert_uint_eq(b, a);
	free_sync(b);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 0);
}
END_TEST

/* The shape of a program: allocate, use and free, all in one stream. */
START_TEST(stream_ordered_program)
{
	CUmemoryPool pool = new_pool(0, CU_MEM_HANDLE_TYPE_NONE);
	unsigned int host[1024];
	CUdeviceptr p;
	CUstream s;
	int i;

	set64(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, UINT64_MAX);
	ck_assert_int_eq(cuDeviceSetMemPool(0, pool), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	for (i = 0; i < 3; i++) {
		memset(host, 0, sizeof(host));
		ck_assert_int_eq(cuMemAllocAsync(&p, sizeof(host), s), CUDA_SUCCESS);
		ck_assert_int_eq(cuMemsetD32Async(p, 0xc0de + i, 1024, s),
				 CUDA_SUCCESS);
		ck_assert_int_eq(cuMemcpyDtoHAsync(host, p, sizeof(host), s),
				 CUDA_SUCCESS);
		ck_assert_int_eq(cuMemFreeAsync(p, s), CUDA_SUCCESS);
		ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
		ck_assert_uint_eq(host[0], 0xc0de + i);
		ck_assert_uint_eq(host[1023], 0xc0de + i);
	}
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 0);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT),
			  gran(0));
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
}
END_TEST

static int gate[2] = { -1, -1 };

/* Holds its stream until the test writes a byte to the gate. */
static void CUDA_CB wait_gate(void *arg)
{
	char c;

	(void)arg;
	if (read(gate[0], &c, 1) != 1)
		abort();
}

/*
 * A free is reached when its stream gets there: until then the memory is
 * neither handed out again nor released, whatever else happens.
 */
START_TEST(free_returns_memory_when_the_stream_reaches_it)
{
	CUmemoryPool pool = new_pool(0, CU_MEM_HANDLE_TYPE_NONE);
	size_t g = gran(0);
	CUdeviceptr a, b;
	CUstream s;

	set64(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, 0);
	ck_assert_int_eq(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	ck_assert_int_eq(pipe(gate), 0);
	ck_assert_int_eq(cuMemAllocFromPoolAsync(&a, 4096, pool, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(s, wait_gate, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFreeAsync(a, s), CUDA_SUCCESS);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 0);
	ck_assert_int_eq(cuMemFreeAsync(a, s), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemFreeAsync(a, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolTrimTo(pool, 0), CUDA_SUCCESS);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), g);
	/* Another stream's allocation does not get it. */
	b = alloc_from(pool, 4096);
	ck_assert_uint_ne(b, a);
	ck_assert_int_eq(cuStreamQuery(s), CUDA_ERROR_NOT_READY);
	set64(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, UINT64_MAX);
	ck_assert_int_eq(write(gate[1], "g", 1), 1);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	/* Reached: the next allocation reuses it. */
	ck_assert_uint_eq(alloc_from(pool, 4096), a);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
}
END_TEST

/* A pool destroyed while a free waits in its stream goes once it is reached. */
START_TEST(destroy_with_a_free_pending)
{
	CUmemoryPool pool = new_pool(0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	size_t free0, free1, total;
	CUdeviceptr a;
	CUstream s;

	ck_assert_int_eq(cuMemGetInfo(&free0, &total), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	ck_assert_int_eq(pipe(gate), 0);
	ck_assert_int_eq(cuMemAllocFromPoolAsync(&a, 4096, pool, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(s, wait_gate, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFreeAsync(a, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemPoolDestroy(pool), CUDA_SUCCESS);
	assert_pool_refused(pool);
	ck_assert_int_eq(cuMemGetInfo(&free1, &total), CUDA_SUCCESS);
	ck_assert_uint_lt(free1, free0);
	ck_assert_int_eq(write(gate[1], "g", 1), 1);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemGetInfo(&free1, &total), CUDA_SUCCESS);
	ck_assert_uint_eq(free1, free0);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
}
END_TEST

/* Streams as their public entry points judge them. */
START_TEST(bad_streams_refused)
{
	CUmemoryPool pool = new_pool(0, CU_MEM_HANDLE_TYPE_NONE);
	CUstream bad = (CUstream)(uintptr_t)0xdead0, s;
	CUdeviceptr p = 0;

	ck_assert_int_ne(cuMemAllocAsync(&p, 64, bad), CUDA_SUCCESS);
	ck_assert_int_ne(cuMemAllocFromPoolAsync(&p, 64, pool, bad), CUDA_SUCCESS);
	ck_assert_uint_eq(p, 0);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 0);
	p = alloc_from(pool, 64);
	ck_assert_int_ne(cuMemFreeAsync(p, bad), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamCreate(&s, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_ne(cuMemFreeAsync(p, s), CUDA_SUCCESS);
	/* Still allocated: a refused free changes nothing. */
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 64);
	free_sync(p);
}
END_TEST

/* The _ptsz names: a NULL stream is the per-thread default stream. */
START_TEST(per_thread_default_stream_names)
{
	CUmemoryPool pool = new_pool(0, CU_MEM_HANDLE_TYPE_NONE);
	CUdriverProcAddressQueryResult st;
	CUdeviceptr p, q;
	void *fn;

	ck_assert_int_eq(cuGetProcAddress_v2("cuMemAllocAsync", &fn, 13000,
		CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st), CUDA_SUCCESS);
	ck_assert_ptr_eq(fn, (void *)cuMemAllocAsync_ptsz);
	ck_assert_int_eq(cuGetProcAddress_v2("cuMemFreeAsync", &fn, 13000,
		CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st), CUDA_SUCCESS);
	ck_assert_ptr_eq(fn, (void *)cuMemFreeAsync_ptsz);
	ck_assert_int_eq(cuGetProcAddress_v2("cuMemAllocFromPoolAsync", &fn, 13000,
		CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st), CUDA_SUCCESS);
	ck_assert_ptr_eq(fn, (void *)cuMemAllocFromPoolAsync_ptsz);
	ck_assert_int_eq(cuGetProcAddress_v2("cuMemAllocAsync", &fn, 13000,
		CU_GET_PROC_ADDRESS_DEFAULT, &st), CUDA_SUCCESS);
	ck_assert_ptr_eq(fn, (void *)cuMemAllocAsync);
	ck_assert_int_eq(cuGetProcAddress_v2("cuMemPoolCreate", &fn, 11020,
		CU_GET_PROC_ADDRESS_DEFAULT, &st), CUDA_SUCCESS);
	ck_assert_ptr_eq(fn, (void *)cuMemPoolCreate);
	ck_assert_int_eq(cuGetProcAddress_v2("cuMemPoolCreate", &fn, 11010,
		CU_GET_PROC_ADDRESS_DEFAULT, &st), CUDA_SUCCESS);
	ck_assert_int_eq(st, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);

	ck_assert_int_eq(cuMemAllocAsync_ptsz(&p, 64, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAllocFromPoolAsync_ptsz(&q, 64, pool, NULL),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 64);
	ck_assert_int_eq(cuMemFreeAsync_ptsz(p, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFreeAsync_ptsz(q, CU_STREAM_PER_THREAD), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(CU_STREAM_PER_THREAD), CUDA_SUCCESS);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 0);
	ck_assert_int_eq(cuMemFreeAsync_ptsz(q, NULL), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

#define THREADS 4
#define ROUNDS 25

struct worker {
	CUmemoryPool pool;
	CUresult res;
	unsigned int seed;
};

/* Allocate, write, free on a stream of its own, round after round. */
static void *alloc_free_worker(void *arg)
{
	struct worker *w = arg;
	CUdeviceptr p[4];
	CUstream s;
	int r, i;

	w->res = cuCtxSetCurrent(ctx);
	if (w->res == CUDA_SUCCESS)
		w->res = cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
	for (r = 0; r < ROUNDS && w->res == CUDA_SUCCESS; r++) {
		for (i = 0; i < 4 && w->res == CUDA_SUCCESS; i++) {
			size_t size = 1 + rand_r(&w->seed) % (MIB / 4);

			w->res = cuMemAllocFromPoolAsync(&p[i], size, w->pool, s);
			if (w->res == CUDA_SUCCESS) {
				((unsigned char *)p[i])[0] = i;
				((unsigned char *)p[i])[size - 1] = i;
			}
		}
		for (i = 0; i < 4 && w->res == CUDA_SUCCESS; i++)
			w->res = cuMemFreeAsync(p[i], s);
	}
	if (w->res == CUDA_SUCCESS)
		w->res = cuStreamSynchronize(s);
	if (w->res == CUDA_SUCCESS)
		w->res = cuStreamDestroy(s);
	return NULL;
}

/* Threads at once, each with its stream, one pool: nothing is lost. */
START_TEST(threads_share_a_pool)
{
	CUmemoryPool pool = new_pool(0, CU_MEM_HANDLE_TYPE_NONE);
	struct worker w[THREADS];
	pthread_t t[THREADS];
	int i;

	set64(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, 64 * MIB);
	for (i = 0; i < THREADS; i++) {
		w[i].pool = pool;
		w[i].seed = i + 1;
		ck_assert_int_eq(pthread_create(&t[i], NULL, alloc_free_worker,
						&w[i]), 0);
	}
	for (i = 0; i < THREADS; i++) {
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
		ck_assert_int_eq(w[i].res, CUDA_SUCCESS);
	}
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 0);
	ck_assert_uint_le(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT),
			  64 * MIB);
	ck_assert_int_eq(cuMemPoolTrimTo(pool, 0), CUDA_SUCCESS);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 0);
}
END_TEST

/* The hook cuMemFree is to use: frees pool memory at once. */
START_TEST(free_now_hook)
{
	CUmemoryPool pool = new_pool(0, CU_MEM_HANDLE_TYPE_NONE);
	CUdeviceptr p = alloc_from(pool, 4096);

	ck_assert_int_eq(libcumc_pool_free_now(p + 512), CUDA_ERROR_NOT_FOUND);
	ck_assert_int_eq(libcumc_pool_free_now(p), CUDA_SUCCESS);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 0);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 0);
	ck_assert_int_eq(libcumc_pool_free_now(p), CUDA_ERROR_NOT_FOUND);
}
END_TEST

static int child_inits_and_leaves(void)
{
	CUmemoryPool pool;

	CHILD_EXPECT(cuInit(0) == CUDA_SUCCESS);
	CHILD_EXPECT(cuDeviceGetDefaultMemPool(&pool, 0) == CUDA_SUCCESS);
	return 0;
}

/* A forked child forgets its parent's pools without touching them. */
START_TEST(forked_child_leaves_the_parents_pools_alone)
{
	CUmemoryPool fab = new_pool(0, CU_MEM_HANDLE_TYPE_FABRIC);
	CUmemoryPool fdp = new_pool(0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	CUdeviceptr a = alloc_from(fab, 64), b = alloc_from(fdp, 64);
	CUmemPoolPtrExportData data;
	CUmemFabricHandle fh;
	CUmemoryPool imp;
	int fd;

	assert_child_passes(child_inits_and_leaves);
	memset((void *)a, 1, 64);
	memset((void *)b, 2, 64);
	ck_assert_int_eq(cuMemPoolExportToShareableHandle(&fh, fab,
		CU_MEM_HANDLE_TYPE_FABRIC, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemPoolImportFromShareableHandle(&imp, &fh,
		CU_MEM_HANDLE_TYPE_FABRIC, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemPoolExportToShareableHandle(&fd, fdp,
		CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemPoolExportPointer(&data, b), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemPoolImportFromShareableHandle(&imp,
		(void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
		CUDA_SUCCESS);
	ck_assert_int_eq(cuMemPoolImportPointer(&a, imp, &data), CUDA_SUCCESS);
	ck_assert_uint_eq(((unsigned char *)a)[63], 2);
	close(fd);
}
END_TEST

START_TEST(trim_keeps_what_is_asked_and_what_is_used)
{
	CUmemoryPool pool = new_pool(0, CU_MEM_HANDLE_TYPE_NONE);
	size_t g = gran(0);
	CUdeviceptr p[4];
	int i;

	set64(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, UINT64_MAX);
	for (i = 0; i < 4; i++)
		p[i] = alloc_from(pool, g);
	for (i = 1; i < 4; i++)
		free_sync(p[i]);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 4 * g);
	/* Below what it holds: nothing to do. */
	ck_assert_int_eq(cuMemPoolTrimTo(pool, 5 * g), CUDA_SUCCESS);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 4 * g);
	/* At least minBytesToKeep stays. */
	ck_assert_int_eq(cuMemPoolTrimTo(pool, 2 * g + 1), CUDA_SUCCESS);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 3 * g);
	/* The block in use stays whatever is asked. */
	ck_assert_int_eq(cuMemPoolTrimTo(pool, 0), CUDA_SUCCESS);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), g);
	memset((void *)p[0], 1, g);
	free_sync(p[0]);
	ck_assert_int_eq(cuMemPoolTrimTo(pool, 0), CUDA_SUCCESS);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 0);
}
END_TEST

/* Destroyed with memory out: that memory lives until it is freed. */
START_TEST(destroy_with_outstanding_allocation)
{
	CUmemoryPool pool = new_pool(0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	size_t free0, free1, total;
	CUdeviceptr p;

	ck_assert_int_eq(cuMemGetInfo(&free0, &total), CUDA_SUCCESS);
	p = alloc_from(pool, 4096);
	ck_assert_int_eq(cuMemPoolDestroy(pool), CUDA_SUCCESS);
	assert_pool_refused(pool);
	memset((void *)p, 7, 4096);
	ck_assert_int_eq(cuMemGetInfo(&free1, &total), CUDA_SUCCESS);
	ck_assert_uint_lt(free1, free0);
	free_sync(p);
	ck_assert_int_eq(cuMemGetInfo(&free1, &total), CUDA_SUCCESS);
	ck_assert_uint_eq(free1, free0);
	ck_assert_int_eq(cuMemFreeAsync(p, NULL), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(access_defaults_and_changes)
{
	CUmemoryPool pool = new_pool(1, CU_MEM_HANDLE_TYPE_NONE);
	CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, 1 };
	CUmemAccessDesc desc = { { CU_MEM_LOCATION_TYPE_DEVICE, 2 },
				 CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
	CUmemAccess_flags flags = 99;
	unsigned long long mflags = 99;
	CUdeviceptr before, after;

	ck_assert_int_eq(cuMemPoolGetAccess(&flags, pool, &loc), CUDA_SUCCESS);
	ck_assert_int_eq(flags, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
	loc.id = 2;
	ck_assert_int_eq(cuMemPoolGetAccess(&flags, pool, &loc), CUDA_SUCCESS);
	ck_assert_int_eq(flags, CU_MEM_ACCESS_FLAGS_PROT_NONE);
	before = alloc_from(pool, 4096);
	ck_assert_int_eq(cuMemGetAccess(&mflags, &loc, before), CUDA_SUCCESS);
	ck_assert_uint_eq(mflags, CU_MEM_ACCESS_FLAGS_PROT_NONE);
	/* Existing and later allocations alike. */
	ck_assert_int_eq(cuMemPoolSetAccess(pool, &desc, 1), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemPoolGetAccess(&flags, pool, &loc), CUDA_SUCCESS);
	ck_assert_int_eq(flags, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
	after = alloc_from(pool, 3 * MIB);
	ck_assert_int_eq(cuMemGetAccess(&mflags, &loc, before), CUDA_SUCCESS);
	ck_assert_uint_eq(mflags, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
	ck_assert_int_eq(cuMemGetAccess(&mflags, &loc, after), CUDA_SUCCESS);
	ck_assert_uint_eq(mflags, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
	desc.flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
	ck_assert_int_eq(cuMemPoolSetAccess(pool, &desc, 1), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemGetAccess(&mflags, &loc, after), CUDA_SUCCESS);
	ck_assert_uint_eq(mflags, CU_MEM_ACCESS_FLAGS_PROT_NONE);
	/* The host has no access to device pools. */
	loc.type = CU_MEM_LOCATION_TYPE_HOST;
	ck_assert_int_eq(cuMemPoolGetAccess(&flags, pool, &loc), CUDA_SUCCESS);
	ck_assert_int_eq(flags, CU_MEM_ACCESS_FLAGS_PROT_NONE);
}
END_TEST

/* One bad descriptor each, with the real driver's (580) answer. */
#define NUM_BAD_ACCESS 8
START_TEST(access_bad_arguments_refused)
{
	CUmemoryPool pool = new_pool(1, CU_MEM_HANDLE_TYPE_NONE);
	CUmemAccessDesc descs[2] = {
		{ { CU_MEM_LOCATION_TYPE_DEVICE, 2 },
		  CU_MEM_ACCESS_FLAGS_PROT_READWRITE },
		{ { CU_MEM_LOCATION_TYPE_DEVICE, 3 },
		  CU_MEM_ACCESS_FLAGS_PROT_READWRITE },
	};
	CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, 3 };
	CUresult want = CUDA_ERROR_INVALID_VALUE;
	CUmemAccess_flags flags;

	switch (_i) {
	case 0: descs[1].location.id = 8; want = CUDA_ERROR_INVALID_DEVICE; break;
	case 1: descs[1].location.type = CU_MEM_LOCATION_TYPE_HOST;
		want = CUDA_ERROR_NOT_SUPPORTED; break;
	case 2: descs[1].flags = 2; break;
	case 3: descs[1].location.id = 1; /* the owner keeps read-write */
		descs[1].flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
		want = CUDA_ERROR_INVALID_DEVICE; break;
	case 4: descs[1].location.id = -1; want = CUDA_ERROR_INVALID_DEVICE; break;
	case 5: descs[1].flags = CU_MEM_ACCESS_FLAGS_PROT_MAX; break;
	case 6: descs[1].flags = CU_MEM_ACCESS_FLAGS_PROT_READ;
		want = CUDA_ERROR_NOT_SUPPORTED; break;
	case 7: descs[1].location.type = CU_MEM_LOCATION_TYPE_INVALID; break;
	}
	ck_assert_int_eq(cuMemPoolSetAccess(pool, descs, 2), want);
	/* Nothing of a refused call is applied. */
	loc.id = 2;
	ck_assert_int_eq(cuMemPoolGetAccess(&flags, pool, &loc), CUDA_SUCCESS);
	ck_assert_int_eq(flags, CU_MEM_ACCESS_FLAGS_PROT_NONE);
	ck_assert_int_eq(cuMemPoolSetAccess(pool, NULL, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolSetAccess(pool, NULL, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolGetAccess(NULL, pool, &loc), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolGetAccess(&flags, pool, NULL), CUDA_ERROR_INVALID_VALUE);
	loc.id = 8;
	ck_assert_int_eq(cuMemPoolGetAccess(&flags, pool, &loc), CUDA_ERROR_INVALID_VALUE);
	loc.id = 0;
	loc.type = CU_MEM_LOCATION_TYPE_INVALID;
	ck_assert_int_eq(cuMemPoolGetAccess(&flags, pool, &loc), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

/* CUDA 13.0's names: a location and an allocation type. */
START_TEST(pools_by_location)
{
	CUmemLocation dev1 = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 1 };
	CUmemLocation host = { .type = CU_MEM_LOCATION_TYPE_HOST, .id = 0 };
	CUmemLocation none = { .type = CU_MEM_LOCATION_TYPE_NONE, .id = 0 };
	CUmemLocation bad = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = -1 };
	CUmemoryPool def = NULL, by_loc = NULL, pool;

	ck_assert_int_eq(cuDeviceGetDefaultMemPool(&def, 1), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemGetDefaultMemPool(&by_loc, &dev1,
						CU_MEM_ALLOCATION_TYPE_PINNED),
			 CUDA_SUCCESS);
	ck_assert_ptr_eq(by_loc, def);
	ck_assert_int_eq(cuMemGetMemPool(&by_loc, &dev1,
					 CU_MEM_ALLOCATION_TYPE_PINNED), CUDA_SUCCESS);
	ck_assert_ptr_eq(by_loc, def);
	pool = new_pool(1, CU_MEM_HANDLE_TYPE_NONE);
	ck_assert_int_eq(cuMemSetMemPool(&dev1, CU_MEM_ALLOCATION_TYPE_PINNED,
					 pool), CUDA_SUCCESS);
	ck_assert_int_eq(cuDeviceGetMemPool(&by_loc, 1), CUDA_SUCCESS);
	ck_assert_ptr_eq(by_loc, pool);
	/* A pool of another location is refused. */
	dev1.id = 0;
	ck_assert_int_eq(cuMemSetMemPool(&dev1, CU_MEM_ALLOCATION_TYPE_PINNED,
					 pool), CUDA_ERROR_INVALID_VALUE);

	ck_assert_int_eq(cuMemGetDefaultMemPool(&by_loc, &host,
						CU_MEM_ALLOCATION_TYPE_PINNED),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuMemGetDefaultMemPool(&by_loc, &none,
						CU_MEM_ALLOCATION_TYPE_MANAGED),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuMemGetDefaultMemPool(&by_loc, &none,
						CU_MEM_ALLOCATION_TYPE_PINNED),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemGetDefaultMemPool(&by_loc, &bad,
						CU_MEM_ALLOCATION_TYPE_PINNED),
			 CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuMemGetDefaultMemPool(&by_loc, NULL,
						CU_MEM_ALLOCATION_TYPE_PINNED),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemGetMemPool(&by_loc, &host,
					 CU_MEM_ALLOCATION_TYPE_PINNED),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemGetMemPool(&by_loc, &bad,
					 CU_MEM_ALLOCATION_TYPE_PINNED),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemSetMemPool(&host, CU_MEM_ALLOCATION_TYPE_PINNED,
					 pool), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemGetMemPool(&by_loc, &dev1, 7),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolDestroy(pool), CUDA_SUCCESS);
}
END_TEST

START_TEST(default_and_current_pools)
{
	CUmemoryPool def = NULL, def2 = NULL, cur = NULL, pool, other;
	CUdeviceptr p;

	ck_assert_int_eq(cuDeviceGetDefaultMemPool(&def, 0), CUDA_SUCCESS);
	ck_assert_ptr_nonnull(def);
	ck_assert_int_eq(cuDeviceGetDefaultMemPool(&def2, 0), CUDA_SUCCESS);
	ck_assert_ptr_eq(def, def2);
	ck_assert_int_eq(cuDeviceGetDefaultMemPool(&def2, 1), CUDA_SUCCESS);
	ck_assert_ptr_ne(def, def2);
	ck_assert_int_eq(cuDeviceGetMemPool(&cur, 0), CUDA_SUCCESS);
	ck_assert_ptr_eq(cur, def);
	/* The default pool cannot be destroyed. */
	ck_assert_int_eq(cuMemPoolDestroy(def), CUDA_ERROR_INVALID_VALUE);

	/* cuMemAllocAsync allocates from the current pool. */
	pool = new_pool(0, CU_MEM_HANDLE_TYPE_NONE);
	other = new_pool(1, CU_MEM_HANDLE_TYPE_NONE);
	ck_assert_int_eq(cuDeviceSetMemPool(0, other), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceSetMemPool(0, pool), CUDA_SUCCESS);
	ck_assert_int_eq(cuDeviceGetMemPool(&cur, 0), CUDA_SUCCESS);
	ck_assert_ptr_eq(cur, pool);
	ck_assert_int_eq(cuMemAllocAsync(&p, 4096, NULL), CUDA_SUCCESS);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 4096);
	ck_assert_uint_eq(attr64(def, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 0);
	free_sync(p);
	/* Destroying the current pool makes the default current again. */
	ck_assert_int_eq(cuMemPoolDestroy(pool), CUDA_SUCCESS);
	ck_assert_int_eq(cuDeviceGetMemPool(&cur, 0), CUDA_SUCCESS);
	ck_assert_ptr_eq(cur, def);
	ck_assert_int_eq(cuMemAllocAsync(&p, 4096, NULL), CUDA_SUCCESS);
	ck_assert_uint_eq(attr64(def, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 4096);
	free_sync(p);
}
END_TEST

/* cuMemAllocAsync takes the stream's device, not the current context's. */
START_TEST(alloc_async_follows_the_streams_device)
{
	CUmemoryPool pool1 = new_pool(1, CU_MEM_HANDLE_TYPE_NONE), def0;
	CUcontext ctx1;
	CUdeviceptr p;
	CUstream s1;

	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&ctx1, 1), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxPushCurrent(ctx1), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxPopCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuDeviceSetMemPool(1, pool1), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAllocAsync(&p, 64, s1), CUDA_SUCCESS);
	ck_assert_uint_eq(attr64(pool1, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 64);
	ck_assert_int_eq(cuDeviceGetDefaultMemPool(&def0, 0), CUDA_SUCCESS);
	ck_assert_uint_eq(attr64(def0, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 0);
	ck_assert_int_eq(cuMemFreeAsync(p, s1), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s1), CUDA_SUCCESS);
	ck_assert_uint_eq(attr64(pool1, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 0);
	ck_assert_int_eq(cuStreamDestroy(s1), CUDA_SUCCESS);
}
END_TEST

START_TEST(device_pool_bad_arguments_refused)
{
	CUmemoryPool pool;

	ck_assert_int_eq(cuDeviceGetDefaultMemPool(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetDefaultMemPool(&pool, 8), CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuDeviceGetDefaultMemPool(&pool, -1), CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuDeviceGetMemPool(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetMemPool(&pool, 8), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetDefaultMemPool(&pool, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuDeviceSetMemPool(8, pool), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceSetMemPool(1, pool), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(alloc_async_needs_a_context)
{
	CUdeviceptr p;

	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAllocAsync(&p, 4096, NULL), CUDA_ERROR_INVALID_CONTEXT);
}
END_TEST

/* ---- sharing ---- */

START_TEST(export_bad_arguments_refused)
{
	CUmemoryPool none = new_pool(0, CU_MEM_HANDLE_TYPE_NONE);
	CUmemoryPool fdp = new_pool(0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	CUmemPoolPtrExportData data;
	CUdeviceptr p;
	int fd = -1;

	ck_assert_int_eq(cuMemPoolExportToShareableHandle(&fd, none,
		CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolExportToShareableHandle(NULL, fdp,
		CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolExportToShareableHandle(&fd, fdp,
		CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolExportToShareableHandle(&fd, fdp,
		CU_MEM_HANDLE_TYPE_FABRIC, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolExportToShareableHandle(&fd, fdp,
		CU_MEM_HANDLE_TYPE_NONE, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(fd, -1);
	/* A pointer of a pool that cannot be shared, or of no pool. */
	ck_assert_int_eq(cuMemPoolExportPointer(&data, alloc_from(none, 64)),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolExportPointer(&data, 0x1000),
			 CUDA_ERROR_INVALID_VALUE);
	/* Only pointers of a pool that was shared already (the real driver). */
	p = alloc_from(fdp, 64);
	ck_assert_int_eq(cuMemPoolExportPointer(&data, p), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolExportToShareableHandle(&fd, fdp,
		CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), CUDA_SUCCESS);
	close(fd);
	ck_assert_int_eq(cuMemPoolExportPointer(&data, p), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemPoolExportPointer(&data, p + 512),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolExportPointer(NULL, p), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemFreeAsync(p, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemPoolExportPointer(&data, p), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(import_bad_handles_refused)
{
	CUmemAllocationProp prop = vmm_prop(0);
	CUmemGenericAllocationHandle h;
	CUmemAccessDesc desc = { { CU_MEM_LOCATION_TYPE_DEVICE, 0 },
				 CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
	CUmemoryPool pool = GARBAGE_POOL;
	CUmemFabricHandle fh;
	CUdeviceptr va;
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	int fd;

	ck_assert_int_ge(devnull, 0);
	ck_assert_int_eq(cuMemPoolImportFromShareableHandle(&pool,
		(void *)(uintptr_t)devnull, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
		CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolImportFromShareableHandle(&pool,
		(void *)(uintptr_t)-1, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
		CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolImportFromShareableHandle(&pool,
		(void *)(uintptr_t)1000, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
		CUDA_ERROR_INVALID_VALUE);
	/* An allocation's descriptor is not a pool's. */
	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	ck_assert_int_eq(cuMemCreate(&h, gran(0), &prop, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemExportToShareableHandle(&fd, h,
		CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemPoolImportFromShareableHandle(&pool,
		(void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
		CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolImportFromShareableHandle(NULL,
		(void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
		CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolImportFromShareableHandle(&pool,
		(void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 1),
		CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolImportFromShareableHandle(&pool,
		(void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_WIN32, 0),
		CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolImportFromShareableHandle(&pool, NULL,
		CU_MEM_HANDLE_TYPE_FABRIC, 0), CUDA_ERROR_INVALID_VALUE);
	memset(&fh, 0x5a, sizeof(fh));
	ck_assert_int_eq(cuMemPoolImportFromShareableHandle(&pool, &fh,
		CU_MEM_HANDLE_TYPE_FABRIC, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_ptr_eq(pool, GARBAGE_POOL);
	close(fd);
	close(devnull);
	ck_assert_int_eq(cuMemRelease(h), CUDA_SUCCESS);
	/* Memory of no pool has no pool to answer. */
	ck_assert_int_eq(cuMemCreate(&h, gran(0), &prop, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressReserve(&va, gran(0), 0, 0, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemMap(va, gran(0), 0, h, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemSetAccess(va, gran(0), &desc, 1), CUDA_SUCCESS);
	ck_assert_int_eq(cuPointerGetAttribute(&pool,
		CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, va), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemUnmap(va, gran(0)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(va, gran(0)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(h), CUDA_SUCCESS);
}
END_TEST

/* What the exporter sends the importer: the pool and two pointers. */
struct share_msg {
	CUmemPoolPtrExportData data;	/* the shared allocation */
	CUmemPoolPtrExportData freed;	/* one freed before sending */
	CUmemPoolPtrExportData other;	/* one of another pool */
	size_t size;
};

#define PATTERN 0x5a
#define REPLY 0xa5

static int importer_sock = -1;

/*
 * The importer: a process of its own (cuInit anew), holding only what
 * came over the socket.
 */
static int importer(void)
{
	CUmemAccessDesc desc = { { CU_MEM_LOCATION_TYPE_DEVICE, 3 },
				 CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
	CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, 3 };
	unsigned long long mflags = 0;
	CUmemPoolPtrExportData bad;
	struct share_msg msg;
	CUmemoryPool pool, own;
	CUdeviceptr p = 0, q = 0;
	unsigned char *b;
	CUcontext c;
	size_t i;
	int fd;

	fd = fdpass_recv(importer_sock);
	CHILD_EXPECT(fd >= 0);
	CHILD_EXPECT(read(importer_sock, &msg, sizeof(msg)) == sizeof(msg));
	CHILD_EXPECT(cuInit(0) == CUDA_SUCCESS);
	CHILD_EXPECT(cuDevicePrimaryCtxRetain(&c, 0) == CUDA_SUCCESS);
	CHILD_EXPECT(cuCtxSetCurrent(c) == CUDA_SUCCESS);
	CHILD_EXPECT(cuMemPoolImportFromShareableHandle(&pool,
		(void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
		0) == CUDA_SUCCESS);
	close(fd);
	/* Imported pools make no allocations. */
	CHILD_EXPECT(cuMemAllocFromPoolAsync(&q, 64, pool, NULL) ==
		     CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(cuDeviceSetMemPool(0, pool) == CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(cuMemPoolSetAccess(pool, &desc, 1) == CUDA_SUCCESS);
	CHILD_EXPECT(cuMemPoolImportPointer(&p, pool, &msg.data) == CUDA_SUCCESS);
	b = (unsigned char *)p;
	for (i = 0; i < msg.size; i++)
		CHILD_EXPECT(b[i] == PATTERN);
	memset(b, REPLY, msg.size);
	CHILD_EXPECT(cuMemGetAccess(&mflags, &loc, p) == CUDA_SUCCESS);
	CHILD_EXPECT(mflags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
	CHILD_EXPECT(cuPointerGetAttribute(&own,
		CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, p) == CUDA_SUCCESS);
	CHILD_EXPECT(own == pool);
	/* Freed since, of another pool, forged, or into a pool of its own. */
	CHILD_EXPECT(cuMemPoolImportPointer(&q, pool, &msg.freed) ==
		     CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(cuMemPoolImportPointer(&q, pool, &msg.other) ==
		     CUDA_ERROR_INVALID_VALUE);
	bad = msg.data;
	bad.reserved[63] ^= 1;
	CHILD_EXPECT(cuMemPoolImportPointer(&q, pool, &bad) ==
		     CUDA_ERROR_INVALID_VALUE);
	bad = msg.data;
	bad.reserved[8] ^= 0x40;
	CHILD_EXPECT(cuMemPoolImportPointer(&q, pool, &bad) ==
		     CUDA_ERROR_INVALID_VALUE);
	memset(&bad, 0, sizeof(bad));
	CHILD_EXPECT(cuMemPoolImportPointer(&q, pool, &bad) ==
		     CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(cuMemPoolImportPointer(NULL, pool, &msg.data) ==
		     CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(cuMemPoolImportPointer(&q, pool, NULL) ==
		     CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(cuDeviceGetDefaultMemPool(&own, 0) == CUDA_SUCCESS);
	CHILD_EXPECT(cuMemPoolImportPointer(&q, own, &msg.data) ==
		     CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(q == 0);
	/* An imported pool is not exported again. */
	CHILD_EXPECT(cuMemPoolExportToShareableHandle(&fd, pool,
		CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) ==
		CUDA_ERROR_INVALID_VALUE);
	/* Freed here first, as documented; then the exporter may free it. */
	CHILD_EXPECT(cuMemFreeAsync(p, NULL) == CUDA_SUCCESS);
	CHILD_EXPECT(cuStreamSynchronize(NULL) == CUDA_SUCCESS);
	CHILD_EXPECT(cuMemFreeAsync(p, NULL) == CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(cuMemPoolDestroy(pool) == CUDA_SUCCESS);
	return 0;
}

START_TEST(export_import_across_processes)
{
	CUmemoryPool pool = new_pool(0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	CUmemoryPool other = new_pool(0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	struct share_msg msg = { .size = 100000 };
	CUdeviceptr p, gone;
	int sv[2], fd = -1, status;
	unsigned char *b;
	size_t i;
	pid_t pid;

	ck_assert_int_eq(cuMemPoolExportToShareableHandle(&fd, pool,
		CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), CUDA_SUCCESS);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(cuMemPoolExportToShareableHandle(&sv[0], other,
		CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), CUDA_SUCCESS);
	close(sv[0]);
	/* Not the start of its block: the offset travels too. */
	alloc_from(pool, 4096);
	p = alloc_from(pool, msg.size);
	memset((void *)p, PATTERN, msg.size);
	ck_assert_int_eq(cuMemPoolExportPointer(&msg.data, p), CUDA_SUCCESS);
	gone = alloc_from(pool, 8 * MIB);
	ck_assert_int_eq(cuMemPoolExportPointer(&msg.freed, gone), CUDA_SUCCESS);
	free_sync(gone);
	ck_assert_int_eq(cuMemPoolExportPointer(&msg.freed, gone),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolExportPointer(&msg.other, alloc_from(other, 64)),
			 CUDA_SUCCESS);

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(sv[0]);
		importer_sock = sv[1];
		_exit(importer());
	}
	close(sv[1]);
	ck_assert_int_eq(fdpass_send(sv[0], fd), 0);
	ck_assert_int_eq(write(sv[0], &msg, sizeof(msg)), sizeof(msg));
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_msg(WEXITSTATUS(status) == 0, "the importer failed (see stderr)");
	close(sv[0]);
	close(fd);
	b = (unsigned char *)p;
	for (i = 0; i < msg.size; i++)
		ck_assert_uint_eq(b[i], REPLY);
	free_sync(p);
	ck_assert_int_eq(cuMemPoolDestroy(pool), CUDA_SUCCESS);
}
END_TEST

/* The pool's memory outlives the exporter's pool for an importer. */
static int importer_after_destroy(void)
{
	struct share_msg msg;
	CUmemoryPool pool;
	CUdeviceptr p;
	CUcontext c;
	char go;
	int fd;

	fd = fdpass_recv(importer_sock);
	CHILD_EXPECT(fd >= 0);
	CHILD_EXPECT(read(importer_sock, &msg, sizeof(msg)) == sizeof(msg));
	CHILD_EXPECT(cuInit(0) == CUDA_SUCCESS);
	CHILD_EXPECT(cuDevicePrimaryCtxRetain(&c, 0) == CUDA_SUCCESS);
	CHILD_EXPECT(cuCtxSetCurrent(c) == CUDA_SUCCESS);
	CHILD_EXPECT(cuMemPoolImportFromShareableHandle(&pool,
		(void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
		0) == CUDA_SUCCESS);
	CHILD_EXPECT(cuMemPoolImportPointer(&p, pool, &msg.data) == CUDA_SUCCESS);
	/* Tell the exporter to free and destroy, and wait until it has. */
	CHILD_EXPECT(write(importer_sock, "i", 1) == 1);
	CHILD_EXPECT(read(importer_sock, &go, 1) == 1);
	CHILD_EXPECT(((unsigned char *)p)[msg.size - 1] == PATTERN);
	CHILD_EXPECT(cuMemFreeAsync(p, NULL) == CUDA_SUCCESS);
	CHILD_EXPECT(cuStreamSynchronize(NULL) == CUDA_SUCCESS);
	return 0;
}

START_TEST(imported_memory_outlives_the_exporters_pool)
{
	CUmemoryPool pool = new_pool(0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	struct share_msg msg = { .size = 4096 };
	size_t free0, free1, total;
	int sv[2], fd = -1, status;
	CUdeviceptr p;
	char c;
	pid_t pid;

	ck_assert_int_eq(cuMemGetInfo(&free0, &total), CUDA_SUCCESS);
	p = alloc_from(pool, msg.size);
	memset((void *)p, PATTERN, msg.size);
	ck_assert_int_eq(cuMemPoolExportToShareableHandle(&fd, pool,
		CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemPoolExportPointer(&msg.data, p), CUDA_SUCCESS);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(sv[0]);
		importer_sock = sv[1];
		_exit(importer_after_destroy());
	}
	close(sv[1]);
	ck_assert_int_eq(fdpass_send(sv[0], fd), 0);
	close(fd);
	ck_assert_int_eq(write(sv[0], &msg, sizeof(msg)), sizeof(msg));
	ck_assert_int_eq(read(sv[0], &c, 1), 1);
	free_sync(p);
	ck_assert_int_eq(cuMemPoolDestroy(pool), CUDA_SUCCESS);
	ck_assert_int_eq(write(sv[0], "e", 1), 1);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_msg(WEXITSTATUS(status) == 0, "the importer failed (see stderr)");
	close(sv[0]);
	/* Everyone is done: the memory is the device's again. */
	ck_assert_int_eq(cuMemGetInfo(&free1, &total), CUDA_SUCCESS);
	ck_assert_uint_eq(free1, free0);
}
END_TEST

/* ---- fabric pools ---- */

/* What the fabric exporter sends: handles, no descriptor. */
struct fabric_msg {
	CUmemFabricHandle pool;
	CUmemPoolPtrExportData data;
	CUmemPoolPtrExportData other_device;
	size_t size;
};

static int fabric_importer(void)
{
	CUmemPoolPtrExportData bad;
	struct fabric_msg msg;
	CUmemoryPool pool, fdp;
	CUresult res;
	CUdeviceptr p, q = 0;
	unsigned char *b;
	CUcontext c;
	size_t i;

	CHILD_EXPECT(read(importer_sock, &msg, sizeof(msg)) == sizeof(msg));
	CHILD_EXPECT(cuInit(0) == CUDA_SUCCESS);
	CHILD_EXPECT(cuDevicePrimaryCtxRetain(&c, 0) == CUDA_SUCCESS);
	CHILD_EXPECT(cuCtxSetCurrent(c) == CUDA_SUCCESS);
	res = cuMemPoolImportFromShareableHandle(&pool, &msg.pool,
		CU_MEM_HANDLE_TYPE_FABRIC, 0);
	if (res != CUDA_SUCCESS)
		fprintf(stderr, "import: %d\n", res);
	CHILD_EXPECT(res == CUDA_SUCCESS);
	CHILD_EXPECT(cuMemAllocFromPoolAsync(&q, 64, pool, NULL) ==
		     CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(cuMemPoolImportPointer(&p, pool, &msg.data) == CUDA_SUCCESS);
	b = (unsigned char *)p;
	for (i = 0; i < msg.size; i++)
		CHILD_EXPECT(b[i] == PATTERN);
	memset(b, REPLY, msg.size);
	/* Forged, or memory of another device than the pool's. */
	bad = msg.data;
	bad.reserved[30] ^= 1;
	CHILD_EXPECT(cuMemPoolImportPointer(&q, pool, &bad) ==
		     CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(cuMemPoolImportPointer(&q, pool, &msg.other_device) ==
		     CUDA_ERROR_INVALID_VALUE);
	/* Fabric export data means nothing to a pool shared by descriptor. */
	fdp = new_pool(0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	CHILD_EXPECT(cuMemPoolImportPointer(&q, fdp, &msg.data) ==
		     CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(q == 0);
	CHILD_EXPECT(cuMemFreeAsync(p, NULL) == CUDA_SUCCESS);
	CHILD_EXPECT(cuStreamSynchronize(NULL) == CUDA_SUCCESS);
	CHILD_EXPECT(cuMemPoolDestroy(pool) == CUDA_SUCCESS);
	return 0;
}

START_TEST(fabric_pool_across_processes)
{
	CUmemoryPool pool = new_pool(0, CU_MEM_HANDLE_TYPE_FABRIC);
	CUmemoryPool other = new_pool(1, CU_MEM_HANDLE_TYPE_FABRIC);
	struct fabric_msg msg = { .size = 5000 };
	CUmemFabricHandle fh;
	size_t g = gran(0);
	int sv[2], fd = -1, status;
	CUdeviceptr p, q;
	unsigned char *b;
	size_t i;
	pid_t pid;

	/* Each allocation is a whole block of its own. */
	p = alloc_from(pool, msg.size);
	q = alloc_from(pool, 64);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 2 * g);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT),
			  msg.size + 64);
	memset((void *)p, PATTERN, msg.size);
	ck_assert_int_eq(cuMemPoolExportPointer(&msg.data, p),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolExportToShareableHandle(&fd, pool,
		CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemPoolExportToShareableHandle(&msg.pool, pool,
		CU_MEM_HANDLE_TYPE_FABRIC, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemPoolExportToShareableHandle(&fh, pool,
		CU_MEM_HANDLE_TYPE_FABRIC, 0), CUDA_SUCCESS);
	ck_assert_mem_eq(&fh, &msg.pool, sizeof(fh));
	ck_assert_int_eq(cuMemPoolExportPointer(&msg.data, p), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemPoolExportToShareableHandle(&fh, other,
		CU_MEM_HANDLE_TYPE_FABRIC, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemPoolExportPointer(&msg.other_device,
						alloc_from(other, 64)), CUDA_SUCCESS);

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(sv[0]);
		importer_sock = sv[1];
		_exit(fabric_importer());
	}
	close(sv[1]);
	ck_assert_int_eq(write(sv[0], &msg, sizeof(msg)), sizeof(msg));
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_msg(WEXITSTATUS(status) == 0, "the importer failed (see stderr)");
	close(sv[0]);
	b = (unsigned char *)p;
	for (i = 0; i < msg.size; i++)
		ck_assert_uint_eq(b[i], REPLY);
	free_sync(p);
	free_sync(q);
	ck_assert_uint_eq(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 0);
	ck_assert_int_eq(cuMemPoolDestroy(pool), CUDA_SUCCESS);
	/* Its fabric handle names nothing once the pool is gone. */
	ck_assert_int_eq(cuMemPoolImportFromShareableHandle(&other, &msg.pool,
		CU_MEM_HANDLE_TYPE_FABRIC, 0), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

/* Without an IMEX channel: refused, as fabric allocations are. */
START_TEST(fabric_pools_need_an_imex_channel)
{
	CUmemPoolProps props = pool_props(0, CU_MEM_HANDLE_TYPE_FABRIC);
	CUmemFabricHandle fh;
	CUmemoryPool pool;

	ck_assert_int_eq(setenv("CUMC_IMEX_CHANNEL", "250", 1), 0);
	setup();
	ck_assert_int_eq(cuMemPoolCreate(&pool, &props), CUDA_ERROR_NOT_PERMITTED);
	memset(&fh, 0, sizeof(fh));
	ck_assert_int_ne(cuMemPoolImportFromShareableHandle(&pool, &fh,
		CU_MEM_HANDLE_TYPE_FABRIC, 0), CUDA_SUCCESS);
	props.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	ck_assert_int_eq(cuMemPoolCreate(&pool, &props), CUDA_SUCCESS);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mempool");
	TCase *pools = tcase_create("pools");
	TCase *alloc = tcase_create("allocations");
	TCase *share = tcase_create("sharing");

	check_add_uninit(s, everything_needs_init);
	check_add_uninit(s, fabric_pools_need_an_imex_channel);

	tcase_add_checked_fixture(pools, setup, NULL);
	tcase_add_loop_test(pools, create_and_destroy_on_every_device, 0, 8);
	tcase_add_loop_test(pools, create_bad_properties_refused, 0, NUM_BAD_PROPS);
	tcase_add_test(pools, create_ignores_usage_and_win32_attributes);
	tcase_add_test(pools, create_null_arguments_refused);
	tcase_add_test(pools, garbage_and_destroyed_pools_refused);
	tcase_add_test(pools, attribute_defaults);
	tcase_add_test(pools, attributes_set_and_refused);
	tcase_add_test(pools, access_defaults_and_changes);
	tcase_add_loop_test(pools, access_bad_arguments_refused, 0, NUM_BAD_ACCESS);
	tcase_add_test(pools, default_and_current_pools);
	tcase_add_test(pools, pools_by_location);
	tcase_add_test(pools, alloc_async_follows_the_streams_device);
	tcase_add_test(pools, device_pool_bad_arguments_refused);
	suite_add_tcase(s, pools);

	tcase_add_checked_fixture(alloc, setup, NULL);
	/* Threads and streams in a VM sharing its cores: slow, not stuck. */
	tcase_set_timeout(alloc, 60);
	tcase_add_test(alloc, usage_attributes_follow_allocations);
	tcase_add_loop_test(alloc, allocations_are_usable_memory, 0, 8);
	tcase_add_test(alloc, alloc_bad_arguments_refused);
	tcase_add_test(alloc, max_size_bounds_the_pool);
	tcase_add_test(alloc, free_bad_pointers_refused);
	tcase_add_test(alloc, freed_memory_is_reused);
	tcase_add_test(alloc, stream_ordered_program);
	tcase_add_test(alloc, free_returns_memory_when_the_stream_reaches_it);
	tcase_add_test(alloc, destroy_with_a_free_pending);
	tcase_add_test(alloc, bad_streams_refused);
	tcase_add_test(alloc, per_thread_default_stream_names);
	tcase_add_test(alloc, threads_share_a_pool);
	tcase_add_test(alloc, free_now_hook);
	tcase_add_test(alloc, forked_child_leaves_the_parents_pools_alone);
	tcase_add_test(alloc, trim_keeps_what_is_asked_and_what_is_used);
	tcase_add_test(alloc, destroy_with_outstanding_allocation);
	tcase_add_test(alloc, alloc_async_needs_a_context);
	suite_add_tcase(s, alloc);

	tcase_add_checked_fixture(share, setup, NULL);
	tcase_add_test(share, export_bad_arguments_refused);
	tcase_add_test(share, import_bad_handles_refused);
	tcase_add_test(share, export_import_across_processes);
	tcase_add_test(share, imported_memory_outlives_the_exporters_pool);
	tcase_add_test(share, fabric_pool_across_processes);
	suite_add_tcase(s, share);

	return check_run_forked(s);
}
