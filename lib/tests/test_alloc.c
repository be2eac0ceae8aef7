// SPDX-License-Identifier: MIT
/*
 * cuMemAlloc, cuMemAllocPitch, cuMemFree (alloc.c), host memory
 * (host_mem.c) and cuPointerSetAttribute against the module (runs in the
 * VM): sub-allocation of small sizes, dedicated chunks for large ones,
 * what the address entry points answer for both, that nothing is left
 * behind, threads, and every bad argument.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check_run.h"
#include "host_mem.h"
#include "vmm.h"

static size_t gran;

static void setup(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	gran = vmm_granularity();
	vmm_use_device(0);
}

START_TEST(needs_init)
{
	CUdeviceptr d;
	size_t pitch;
	void *p;
	unsigned int flags;
	int one = 1;

	ck_assert_int_eq(cuMemAlloc(&d, 4), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemAllocPitch(&d, &pitch, 4, 4, 4), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemFree(1 << 30), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemAllocHost(&p, 4), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemHostAlloc(&p, 4, 0), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemFreeHost(&one), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemHostGetDevicePointer(&d, &one, 0), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemHostGetFlags(&flags, &one), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemHostRegister(&one, 4, 0), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemHostUnregister(&one), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, 1 << 30),
			 CUDA_ERROR_NOT_INITIALIZED);
}
END_TEST

static unsigned long long attr_u64(CUpointer_attribute attr, CUdeviceptr ptr)
{
	unsigned long long v = 0;

	ck_assert_int_eq(cuPointerGetAttribute(&v, attr, ptr), CUDA_SUCCESS);
	return v;
}

static unsigned int attr_uint(CUpointer_attribute attr, CUdeviceptr ptr)
{
	unsigned int v = 0;

	ck_assert_int_eq(cuPointerGetAttribute(&v, attr, ptr), CUDA_SUCCESS);
	return v;
}

static void assert_range(CUdeviceptr ptr, CUdeviceptr base, size_t size)
{
	CUdeviceptr got_base = 0;
	size_t got_size = 0;

	ck_assert_int_eq(cuMemGetAddressRange(&got_base, &got_size, ptr), CUDA_SUCCESS);
	ck_assert_uint_eq(got_base, base);
	ck_assert_uint_eq(got_size, size);
	ck_assert_uint_eq(attr_u64(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, ptr), base);
	ck_assert_uint_eq(attr_u64(CU_POINTER_ATTRIBUTE_RANGE_SIZE, ptr), size);
}

START_TEST(alloc_bad_arguments_refused)
{
	CUdeviceptr d = 77;
	size_t pitch = 77;

	ck_assert_int_eq(cuMemAlloc(NULL, 4), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAlloc(&d, 0), CUDA_ERROR_INVALID_VALUE);
	/* More than any device has. */
	ck_assert_int_eq(cuMemAlloc(&d, 1ULL << 60), CUDA_ERROR_OUT_OF_MEMORY);
	ck_assert_int_eq(cuMemAlloc(&d, ~(size_t)0), CUDA_ERROR_OUT_OF_MEMORY);
	ck_assert_int_eq(cuMemAllocPitch(NULL, &pitch, 4, 4, 4), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAllocPitch(&d, NULL, 4, 4, 4), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAllocPitch(&d, &pitch, 0, 4, 4), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAllocPitch(&d, &pitch, 4, 0, 4), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAllocPitch(&d, &pitch, 4, 4, 2), CUDA_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(d, 77);
	ck_assert_uint_eq(pitch, 77);
	/* No current context. */
	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&d, 4), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_uint_eq(d, 77);
}
END_TEST

/* Small sizes share chunks: distinct, aligned, each its own range. */
START_TEST(small_allocations_are_suballocated)
{
	enum { N = 300 };
	CUdeviceptr d[N];
	size_t before = vmm_free_bytes(0);
	struct st_objects objects = vmm_counts_now();
	unsigned long long ids[N];
	int i, j;

	for (i = 0; i < N; i++) {
		ck_assert_int_eq(cuMemAlloc(&d[i], 1 + i % 7 * 4), CUDA_SUCCESS);
		ck_assert_uint_eq(d[i] % 512, 0);
		ids[i] = attr_u64(CU_POINTER_ATTRIBUTE_BUFFER_ID, d[i]);
		for (j = 0; j < i; j++) {
			ck_assert_uint_ne(d[i], d[j]);
			ck_assert_uint_ne(ids[i], ids[j]);
		}
	}
	/* 300 small allocations cost one granule, not 300. */
	ck_assert_uint_eq(before - vmm_free_bytes(0), gran);
	for (i = 0; i < N; i++) {
		ck_assert_int_eq(cuMemsetD8(d[i], i & 0xff, 1 + i % 7 * 4), CUDA_SUCCESS);
		assert_range(d[i] + i % 7 * 4, d[i], 1 + i % 7 * 4);
	}
	for (i = 0; i < N; i++)
		ck_assert_uint_eq(vmm_bytes(d[i])[0], i & 0xff);
	/* One allocation, one reservation, one mapping for all of them. */
	ck_assert_int_eq(vmm_counts_now().vas, objects.vas + 1);
	ck_assert_int_eq(vmm_counts_now().mappings, objects.mappings + 1);
	for (i = 0; i < N; i++)
		ck_assert_int_eq(cuMemFree(d[i]), CUDA_SUCCESS);
	ck_assert_uint_eq(vmm_free_bytes(0), before);
	vmm_assert_counts_eq(vmm_counts_now(), objects);
}
END_TEST

/* Larger than a slot: a chunk of its own, rounded to the granularity. */
START_TEST(large_allocation_is_dedicated)
{
	size_t size = 2 * gran + 12345, before = vmm_free_bytes(0);
	unsigned char *host = malloc(size), *back = malloc(size);
	CUdeviceptr d;
	size_t i;

	for (i = 0; i < size; i++)
		host[i] = i * 7;
	ck_assert_int_eq(cuMemAlloc(&d, size), CUDA_SUCCESS);
	ck_assert_uint_eq(before - vmm_free_bytes(0), 3 * gran);
	ck_assert_int_eq(cuMemcpyHtoD(d, host, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(back, d, size), CUDA_SUCCESS);
	ck_assert_mem_eq(back, host, size);
	assert_range(d + size - 1, d, size);
	ck_assert_uint_eq(attr_uint(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d), CU_MEMORYTYPE_DEVICE);
	ck_assert_uint_eq(attr_uint(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d), 0);
	ck_assert_uint_eq(attr_u64(CU_POINTER_ATTRIBUTE_DEVICE_POINTER, d + 5), d + 5);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
	ck_assert_uint_eq(vmm_free_bytes(0), before);
	free(host);
	free(back);
}
END_TEST

/*
 * On the current context's device, reachable by every device (a copy
 * between devices works), owned by the context that was current.
 */
START_TEST(allocations_on_each_device)
{
	int n = vmm_device_count(), dev;
	CUdeviceptr *d = calloc(n, sizeof(*d));
	CUcontext ctx, owner;
	unsigned long long flags;
	CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, 0 };
	unsigned int v = 0xdeadbeef, got = 0;

	for (dev = 0; dev < n; dev++) {
		vmm_use_device(dev);
		ck_assert_int_eq(cuMemAlloc(&d[dev], 1 << 20), CUDA_SUCCESS);
		ck_assert_uint_eq(attr_uint(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d[dev]), dev);
		ck_assert_int_eq(cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
		ck_assert_int_eq(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT,
						       d[dev]), CUDA_SUCCESS);
		ck_assert_ptr_eq(owner, ctx);
	}
	for (dev = 0; dev < n; dev++) {
		loc.id = dev;
		ck_assert_int_eq(cuMemGetAccess(&flags, &loc, d[n - 1]), CUDA_SUCCESS);
		ck_assert_uint_eq(flags, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
	}
	ck_assert_int_eq(cuMemcpyHtoD(d[0], &v, sizeof(v)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoD(d[n - 1] + 64, d[0], sizeof(v)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(&got, d[n - 1] + 64, sizeof(got)), CUDA_SUCCESS);
	ck_assert_uint_eq(got, v);
	/* Freed from any context, and with none current. */
	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	for (dev = 0; dev < n; dev++)
		ck_assert_int_eq(cuMemFree(d[dev]), CUDA_SUCCESS);
	free(d);
}
END_TEST

START_TEST(free_refuses_what_alloc_did_not_return)
{
	CUdeviceptr d, other;
	struct vmm_buf buf = vmm_buf_new(0, gran);
	void *host;
	int local;

	ck_assert_int_eq(cuMemAlloc(&d, 100), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&other, 100), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemHostAlloc(&host, 100, 0), CUDA_SUCCESS);
	/* 0 frees nothing and succeeds, as on driver 580. */
	ck_assert_int_eq(cuMemFree(0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemFree(~0ULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemFree(d + 4), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemFree(d + 99), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemFree(buf.va), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemFree((uintptr_t)host), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemFree((uintptr_t)&local), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(d), CUDA_ERROR_INVALID_VALUE);
	/* The neighbour in the same chunk is untouched. */
	ck_assert_int_eq(cuMemsetD8(other, 1, 100), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(other), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFreeHost(host), CUDA_SUCCESS);
	vmm_buf_free(&buf);
}
END_TEST

/* Destroying a context, or resetting a primary one, frees its memory. */
START_TEST(context_end_frees_its_memory)
{
	size_t before = vmm_free_bytes(1);
	CUdeviceptr small, large, kept;
	CUcontext ctx;
	void *host;

	ck_assert_int_eq(cuCtxCreate(&ctx, NULL, 0, 1), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&small, 100), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&large, 3 * gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemHostAlloc(&host, 100, 0), CUDA_SUCCESS);
	ck_assert_uint_lt(vmm_free_bytes(1), before);
	ck_assert_int_eq(cuCtxDestroy(ctx), CUDA_SUCCESS);
	ck_assert_uint_eq(vmm_free_bytes(1), before);
	ck_assert_int_eq(cuMemFree(small), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemFree(large), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemFreeHost(host), CUDA_ERROR_INVALID_VALUE);

	/* The primary context of device 0 (setup's): reset, then release. */
	ck_assert_int_eq(cuMemAlloc(&small, 100), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxReset(0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(small), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAlloc(&kept, 100), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
	/* Still retained once: the memory stays. */
	ck_assert_int_eq(cuMemsetD8(kept, 1, 100), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(kept), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(pitch_rows_are_512_aligned)
{
	CUdeviceptr d;
	size_t pitch = 0;

	ck_assert_int_eq(cuMemAllocPitch(&d, &pitch, 100, 10, 4), CUDA_SUCCESS);
	ck_assert_uint_eq(pitch, 512);
	assert_range(d, d, 512 * 10);
	ck_assert_int_eq(cuMemsetD32(d, 0x01020304, 512 * 10 / 4), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAllocPitch(&d, &pitch, 513, 3, 16), CUDA_SUCCESS);
	ck_assert_uint_eq(pitch, 1024);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
}
END_TEST

/* Threads allocating and freeing at once leave nothing behind. */
static void *alloc_free_loop(void *arg)
{
	CUdeviceptr d[16];
	unsigned int seed = (uintptr_t)arg;
	int round, i;

	vmm_use_device((uintptr_t)arg % vmm_device_count());
	for (round = 0; round < 20; round++) {
		for (i = 0; i < 16; i++) {
			size_t size = 1 + rand_r(&seed) % (i % 4 == 3 ? 3 << 20 : 4096);

			if (cuMemAlloc(&d[i], size) != CUDA_SUCCESS)
				return (void *)1;
			memset(vmm_ptr(d[i]), i, size < 64 ? size : 64);
		}
		for (i = 0; i < 16; i++)
			if (cuMemFree(d[i]) != CUDA_SUCCESS)
				return (void *)1;
	}
	return NULL;
}

START_TEST(threads_leave_nothing_behind)
{
	pthread_t t[4];
	size_t before0 = vmm_free_bytes(0), before1 = vmm_free_bytes(1 % vmm_device_count());
	void *ret;
	uintptr_t i;

	for (i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, alloc_free_loop, (void *)i), 0);
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(pthread_join(t[i], &ret), 0);
		ck_assert_ptr_null(ret);
	}
	ck_assert_uint_eq(vmm_free_bytes(0), before0);
	ck_assert_uint_eq(vmm_free_bytes(1 % vmm_device_count()), before1);
}
END_TEST

/* Host allocations and registrations from threads at once. */
static void *host_alloc_loop(void *arg)
{
	static char bufs[4][64 * 4096];
	char *mine = bufs[(uintptr_t)arg];
	void *p[8];
	int round, i;

	vmm_use_device(0);
	for (round = 0; round < 10; round++) {
		for (i = 0; i < 8; i++)
			if (cuMemHostAlloc(&p[i], 100 + i * 5000, 0) != CUDA_SUCCESS ||
			    !libcumc_host_range((uintptr_t)p[i], 100 + i * 5000))
				return (void *)1;
		if (cuMemHostRegister(mine, sizeof(bufs[0]), 0) != CUDA_SUCCESS)
			return (void *)1;
		for (i = 0; i < 8; i++)
			if (cuMemFreeHost(p[i]) != CUDA_SUCCESS)
				return (void *)1;
		if (cuMemHostUnregister(mine) != CUDA_SUCCESS)
			return (void *)1;
	}
	return NULL;
}

START_TEST(host_memory_from_threads)
{
	pthread_t t[4];
	void *ret;
	uintptr_t i;

	for (i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, host_alloc_loop, (void *)i), 0);
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(pthread_join(t[i], &ret), 0);
		ck_assert_ptr_null(ret);
	}
}
END_TEST

START_TEST(sync_memops_is_the_only_settable_attribute)
{
	CUdeviceptr d;
	struct vmm_buf buf = vmm_buf_new(0, gran);
	unsigned int one = 1, zero = 0;
	void *host;

	ck_assert_int_eq(cuMemAlloc(&d, 64), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemHostAlloc(&host, 64, 0), CUDA_SUCCESS);
	ck_assert_uint_eq(attr_uint(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d), 0);
	ck_assert_int_eq(cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d + 8),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(attr_uint(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d), 1);
	ck_assert_int_eq(cuPointerSetAttribute(&zero, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(attr_uint(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d), 0);
	/* Host memory accepts it; mapped VMM memory does not (driver 580). */
	ck_assert_int_eq(cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, buf.va),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
					       (uintptr_t)host), CUDA_SUCCESS);
	/* Anything else is a bad value. */
	ck_assert_int_eq(cuPointerSetAttribute(NULL, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_CONTEXT, d),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuPointerSetAttribute(&one, (CUpointer_attribute)99, d),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
					       (uintptr_t)&one), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
	ck_assert_int_eq(cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemFreeHost(host), CUDA_SUCCESS);
	vmm_buf_free(&buf);
}
END_TEST

/* Host memory */

START_TEST(host_alloc_bad_arguments_refused)
{
	void *p = (void *)77;
	CUdeviceptr d = 77;
	unsigned int flags = 77;
	int local;

	ck_assert_int_eq(cuMemHostAlloc(NULL, 4, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemHostAlloc(&p, 4, 0x8), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemHostAlloc(&p, 4, 0x80000000u), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAllocHost(NULL, 4), CUDA_ERROR_INVALID_VALUE);
	ck_assert_ptr_eq(p, (void *)77);
	/* Zero bytes succeed, as on driver 580: NULL, which frees nothing. */
	ck_assert_int_eq(cuMemHostAlloc(&p, 0, 0), CUDA_SUCCESS);
	ck_assert_ptr_null(p);
	ck_assert_int_eq(cuMemFreeHost(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFreeHost(&local), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemHostGetDevicePointer(&d, &local, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemHostGetFlags(&flags, &local), CUDA_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(d, 77);
	ck_assert_uint_eq(flags, 77);
	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemHostAlloc(&p, 4, 0), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuMemAllocHost(&p, 4), CUDA_ERROR_INVALID_CONTEXT);
}
END_TEST

/* Unified addressing: the device pointer is the host address. */
START_TEST(host_alloc_is_its_own_device_pointer)
{
	static const unsigned int all_flags[] = {
		0, CU_MEMHOSTALLOC_PORTABLE, CU_MEMHOSTALLOC_DEVICEMAP,
		CU_MEMHOSTALLOC_WRITECOMBINED,
		CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP |
		CU_MEMHOSTALLOC_WRITECOMBINED,
	};
	unsigned int i, flags;
	CUdeviceptr d;
	unsigned char *p;
	void *host_ptr;

	for (i = 0; i < sizeof(all_flags) / sizeof(all_flags[0]); i++) {
		ck_assert_int_eq(cuMemHostAlloc((void **)&p, 10000, all_flags[i]), CUDA_SUCCESS);
		memset(p, 0x5a, 10000);
		ck_assert_int_eq(cuMemHostGetDevicePointer(&d, p, 0), CUDA_SUCCESS);
		ck_assert_uint_eq(d, (uintptr_t)p);
		ck_assert_int_eq(cuMemHostGetDevicePointer(&d, p + 9999, 0), CUDA_SUCCESS);
		ck_assert_uint_eq(d, (uintptr_t)p + 9999);
		ck_assert_int_eq(cuMemHostGetDevicePointer(&d, p, 1), CUDA_ERROR_INVALID_VALUE);
		ck_assert_int_eq(cuMemHostGetDevicePointer(NULL, p, 0), CUDA_ERROR_INVALID_VALUE);
		ck_assert_int_eq(cuMemHostGetFlags(&flags, p + 17), CUDA_SUCCESS);
		/* Unified addressing maps them all, as driver 580 answers. */
		ck_assert_uint_eq(flags, all_flags[i] | CU_MEMHOSTALLOC_DEVICEMAP);
		ck_assert_uint_eq(attr_uint(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
					    (uintptr_t)p), 0);
		ck_assert_int_eq(cuMemHostGetFlags(NULL, p), CUDA_ERROR_INVALID_VALUE);
		ck_assert_uint_eq(attr_uint(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (uintptr_t)p + 3),
				  CU_MEMORYTYPE_HOST);
		ck_assert_int_eq(cuPointerGetAttribute(&host_ptr, CU_POINTER_ATTRIBUTE_HOST_POINTER,
						       (uintptr_t)p + 3), CUDA_SUCCESS);
		ck_assert_ptr_eq(host_ptr, p + 3);
		ck_assert_uint_eq(attr_u64(CU_POINTER_ATTRIBUTE_DEVICE_POINTER, (uintptr_t)p + 3),
				  (uintptr_t)p + 3);
		assert_range((uintptr_t)p + 500, (uintptr_t)p, 10000);
		ck_assert_int_eq(cuMemFreeHost(p + 1), CUDA_ERROR_INVALID_VALUE);
		ck_assert_int_eq(cuMemFreeHost(p), CUDA_SUCCESS);
		ck_assert_int_eq(cuMemFreeHost(p), CUDA_ERROR_INVALID_VALUE);
		ck_assert_int_eq(cuMemHostGetDevicePointer(&d, p, 0), CUDA_ERROR_INVALID_VALUE);
	}
	ck_assert_int_eq(cuMemAllocHost((void **)&p, 1), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemHostGetFlags(&flags, p), CUDA_SUCCESS);
	ck_assert_uint_eq(flags, CU_MEMHOSTALLOC_DEVICEMAP);
	ck_assert_int_eq(cuMemFreeHost(p), CUDA_SUCCESS);
}
END_TEST

/* Copies take host memory as a device address; its end is its end. */
START_TEST(copies_through_host_memory)
{
	unsigned int *h, src[64], dst[64];
	CUdeviceptr d, hd;
	int i;

	for (i = 0; i < 64; i++)
		src[i] = i * 3 + 1;
	ck_assert_int_eq(cuMemHostAlloc((void **)&h, sizeof(src), CU_MEMHOSTALLOC_DEVICEMAP),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemHostGetDevicePointer(&hd, h, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&d, sizeof(src)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(hd, src, sizeof(src)), CUDA_SUCCESS);
	ck_assert_mem_eq(h, src, sizeof(src));
	ck_assert_int_eq(cuMemcpyDtoD(d, hd, sizeof(src)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD32(hd, 0, 64), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoD(hd, d, sizeof(src)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(dst, hd, sizeof(dst)), CUDA_SUCCESS);
	ck_assert_mem_eq(dst, src, sizeof(src));
	/* One byte past the allocation is not CUDA's. */
	ck_assert_int_eq(cuMemcpyDtoH(dst, hd + 4, sizeof(dst)), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemsetD8(hd + 1, 0, sizeof(src)), CUDA_ERROR_INVALID_VALUE);
	ck_assert(libcumc_host_range(hd, sizeof(src)));
	ck_assert(libcumc_host_range(hd + 10, 0));
	ck_assert(!libcumc_host_range(hd + 1, sizeof(src)));
	ck_assert(!libcumc_host_range(d, 4));
	ck_assert_int_eq(cuMemFreeHost(h), CUDA_SUCCESS);
	ck_assert(!libcumc_host_range(hd, 4));
	ck_assert_int_eq(cuMemcpyDtoD(hd, d, 4), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
}
END_TEST

START_TEST(host_register_and_unregister)
{
	size_t page = sysconf(_SC_PAGESIZE);
	unsigned char *buf = malloc(3 * page), *ro;
	unsigned int flags, v = 1;
	CUdeviceptr d;
	void *gone;

	ck_assert_int_eq(cuMemHostRegister(buf + 100, page, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemHostGetDevicePointer(&d, buf + 200, 0), CUDA_SUCCESS);
	ck_assert_uint_eq(d, (uintptr_t)buf + 200);
	ck_assert_int_eq(cuMemHostGetFlags(&flags, buf + 100), CUDA_SUCCESS);
	ck_assert_uint_eq(flags, CU_MEMHOSTREGISTER_DEVICEMAP);
	ck_assert_int_eq(cuMemcpyHtoD(d, &v, sizeof(v)), CUDA_SUCCESS);
	ck_assert_uint_eq(buf[200], 1);
	ck_assert_int_eq(cuMemHostRegister(buf + 150, 10, 0),
			 CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
	/* Freed with Unregister, never FreeHost, and only from its start. */
	ck_assert_int_eq(cuMemFreeHost(buf + 100), CUDA_ERROR_INVALID_VALUE);
	/* Inside a registered range, not its start: a bad value (driver 580). */
	ck_assert_int_eq(cuMemHostUnregister(buf + 101), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemHostUnregister(buf + 100), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemHostUnregister(buf + 100), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
	ck_assert_int_eq(cuMemHostUnregister(NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemHostGetDevicePointer(&d, buf + 200, 0), CUDA_ERROR_INVALID_VALUE);

	/* Bad arguments. */
	ck_assert_int_eq(cuMemHostRegister(NULL, page, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemHostRegister(buf, 0, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemHostRegister(buf, page, 0x10), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemHostRegister(buf, page, CU_MEMHOSTREGISTER_IOMEMORY),
			 CUDA_ERROR_INVALID_VALUE);
	gone = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(gone, MAP_FAILED);
	ck_assert_int_eq(munmap(gone, page), 0);
	ck_assert_int_eq(cuMemHostRegister(gone, page, 0), CUDA_ERROR_INVALID_VALUE);

	/* Read-only: devices read it, never write it. */
	ro = buf + page;
	ck_assert_int_eq(cuMemHostRegister(ro, page, CU_MEMHOSTREGISTER_READ_ONLY),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(attr_uint(CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, (uintptr_t)ro),
			  CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READ);
	ck_assert_int_eq(cuMemcpyDtoH(&v, (uintptr_t)ro, sizeof(v)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD((uintptr_t)ro, &v, sizeof(v)), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemHostUnregister(ro), CUDA_SUCCESS);
	free(buf);

	/* A host allocation is no registered range (driver 580). */
	ck_assert_int_eq(cuMemAllocHost(&gone, 100), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemHostRegister(gone, 64, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemHostUnregister(gone), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemHostUnregister((char *)gone + 4), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemFreeHost(gone), CUDA_SUCCESS);
}
END_TEST

/* No decompression engine: a valid batch is refused, after the checks. */
START_TEST(batch_decompress_refused_after_its_checks)
{
	CUmemDecompressParams p[2];
	CUdeviceptr src, dst, actual;
	size_t failed = 7;
	int i;

	ck_assert_int_eq(cuMemAlloc(&src, 4096), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&dst, 4096), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&actual, 4096), CUDA_SUCCESS);
	memset(p, 0, sizeof(p));
	for (i = 0; i < 2; i++) {
		p[i].srcNumBytes = 64;
		p[i].dstNumBytes = 4096;
		p[i].dstActBytes = (cuuint32_t *)(uintptr_t)actual;
		p[i].src = (const void *)(uintptr_t)src;
		p[i].dst = (void *)(uintptr_t)dst;
		p[i].algo = CU_MEM_DECOMPRESS_ALGORITHM_LZ4;
	}
	ck_assert_int_eq(cuMemBatchDecompressAsync(p, 2, 0, &failed, NULL),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_uint_eq(failed, SIZE_MAX);
	ck_assert_int_eq(cuMemBatchDecompressAsync(NULL, 2, 0, &failed, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemBatchDecompressAsync(p, 0, 0, NULL, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemBatchDecompressAsync(p, 2, 1, NULL, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemBatchDecompressAsync(p, 2, 0, NULL, (CUstream)&p),
			 CUDA_ERROR_INVALID_HANDLE);
	/* The failing operation is named. */
	p[1].padding[3] = 1;
	ck_assert_int_eq(cuMemBatchDecompressAsync(p, 2, 0, &failed, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(failed, 1);
	p[1].padding[3] = 0;
	p[1].algo = CU_MEM_DECOMPRESS_ALGORITHM_LZ4 | CU_MEM_DECOMPRESS_ALGORITHM_SNAPPY;
	ck_assert_int_eq(cuMemBatchDecompressAsync(p, 2, 0, &failed, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(failed, 1);
	p[0].src = NULL;
	ck_assert_int_eq(cuMemBatchDecompressAsync(p, 2, 0, &failed, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(failed, 0);
	ck_assert_int_eq(cuMemFree(src), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(dst), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(actual), CUDA_SUCCESS);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("alloc");
	TCase *plain = tcase_create("cuMemAlloc");
	TCase *host = tcase_create("host memory");

	check_add_uninit(s, needs_init);

	tcase_add_checked_fixture(plain, setup, NULL);
	tcase_set_timeout(plain, 120);
	tcase_add_test(plain, alloc_bad_arguments_refused);
	tcase_add_test(plain, small_allocations_are_suballocated);
	tcase_add_test(plain, large_allocation_is_dedicated);
	tcase_add_test(plain, allocations_on_each_device);
	tcase_add_test(plain, free_refuses_what_alloc_did_not_return);
	tcase_add_test(plain, context_end_frees_its_memory);
	tcase_add_test(plain, pitch_rows_are_512_aligned);
	tcase_add_test(plain, threads_leave_nothing_behind);
	tcase_add_test(plain, batch_decompress_refused_after_its_checks);
	tcase_add_test(plain, sync_memops_is_the_only_settable_attribute);
	suite_add_tcase(s, plain);

	tcase_add_checked_fixture(host, setup, NULL);
	tcase_set_timeout(host, 60);
	tcase_add_test(host, host_alloc_bad_arguments_refused);
	tcase_add_test(host, host_alloc_is_its_own_device_pointer);
	tcase_add_test(host, copies_through_host_memory);
	tcase_add_test(host, host_register_and_unregister);
	tcase_add_test(host, host_memory_from_threads);
	suite_add_tcase(s, host);

	return check_run_forked(s);
}
