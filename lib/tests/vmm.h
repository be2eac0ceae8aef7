/* SPDX-License-Identifier: MIT */
/*
 * Test helpers for the device address space (test_va, test_pointer,
 * test_copy, test_vmm_samples, test_faults): allocations mapped with
 * access, contexts, the module's object counts, and whether the CPU faults
 * on an address.
 *
 * Whether an access faults is decided in a child sharing our address space
 * (clone(CLONE_VM)): a fork()ed child does not inherit reservations, so it
 * would fault whatever access was granted.
 */
#ifndef CUMC_TESTS_VMM_H
#define CUMC_TESTS_VMM_H

#include <check.h>
#include <cuda.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "internal.h"
#include "objects.h"
#include "probe.h"

static inline void *vmm_ptr(CUdeviceptr addr)
{
	return (void *)(uintptr_t)addr;
}

static inline volatile unsigned char *vmm_bytes(CUdeviceptr addr)
{
	return (volatile unsigned char *)(uintptr_t)addr;
}

static inline int vmm_device_count(void)
{
	int count = 0;

	ck_assert_int_eq(cuDeviceGetCount(&count), CUDA_SUCCESS);
	return count;
}

static inline CUmemAllocationProp vmm_prop(CUdevice dev)
{
	CUmemAllocationProp prop;

	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	return prop;
}

static inline size_t vmm_granularity(void)
{
	CUmemAllocationProp prop = vmm_prop(0);
	size_t gran = 0;

	ck_assert_int_eq(cuMemGetAllocationGranularity(&gran, &prop,
			CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);
	return gran;
}

static inline CUmemGenericAllocationHandle vmm_create(CUdevice dev, size_t size)
{
	CUmemAllocationProp prop = vmm_prop(dev);
	CUmemGenericAllocationHandle handle = 0;

	ck_assert_int_eq(cuMemCreate(&handle, size, &prop, 0), CUDA_SUCCESS);
	return handle;
}

static inline CUdeviceptr vmm_reserve(size_t size)
{
	CUdeviceptr va = 0;

	ck_assert_int_eq(cuMemAddressReserve(&va, size, 0, 0, 0), CUDA_SUCCESS);
	ck_assert_uint_ne(va, 0);
	return va;
}

static inline CUresult vmm_set_access(CUdeviceptr va, size_t size,
				      CUdevice dev, CUmemAccess_flags flags)
{
	CUmemAccessDesc desc = {
		.location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = dev },
		.flags = flags,
	};

	return cuMemSetAccess(va, size, &desc, 1);
}

/* A new allocation on @dev mapped at @va, read-write for @dev. */
static inline CUmemGenericAllocationHandle vmm_map_new(CUdevice dev,
						       CUdeviceptr va,
						       size_t size)
{
	CUmemGenericAllocationHandle handle = vmm_create(dev, size);

	ck_assert_int_eq(cuMemMap(va, size, 0, handle, 0), CUDA_SUCCESS);
	ck_assert_int_eq(vmm_set_access(va, size, dev,
			CU_MEM_ACCESS_FLAGS_PROT_READWRITE), CUDA_SUCCESS);
	return handle;
}

/* One reservation wholly mapped to one allocation, read-write for @dev. */
struct vmm_buf {
	CUdeviceptr va;
	size_t size;
	CUmemGenericAllocationHandle handle;
};

static inline struct vmm_buf vmm_buf_new(CUdevice dev, size_t size)
{
	struct vmm_buf buf = { .size = size };

	buf.va = vmm_reserve(size);
	buf.handle = vmm_map_new(dev, buf.va, size);
	return buf;
}

static inline void vmm_buf_free(const struct vmm_buf *buf)
{
	ck_assert_int_eq(cuMemUnmap(buf->va, buf->size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(buf->handle), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(buf->va, buf->size), CUDA_SUCCESS);
}

/* Make @dev's primary context current (copies and sets need one). */
static inline void vmm_use_device(CUdevice dev)
{
	CUcontext ctx;

	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&ctx, dev), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
}

static inline size_t vmm_free_bytes(CUdevice dev)
{
	size_t free_bytes, total;
	CUcontext ctx;

	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&ctx, dev), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxPushCurrent(ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemGetInfo(&free_bytes, &total), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxPopCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease(dev), CUDA_SUCCESS);
	return free_bytes;
}

/* The module's multicast granularity (CUMC_QUERY). */
static inline size_t vmm_mc_granularity(void)
{
	struct cumc_query query = { .size = sizeof(query) };
	const struct libcumc_driver *drv;

	ck_assert_int_eq(libcumc_driver(&drv), CUDA_SUCCESS);
	ck_assert_int_eq(ioctl(drv->fd, CUMC_QUERY, &query), 0);
	return query.mc_granularity;
}

/*
 * A ready one-device multicast object of @size bytes, made through the
 * module directly: these tests are about addresses, not about the
 * multicast entry points.  cuMemRelease gives it back.
 */
static inline CUmemGenericAllocationHandle vmm_multicast_new(size_t size)
{
	struct cumc_mc_create create = {
		.size = sizeof(create),
		.num_devices = 1,
		.length = size,
	};
	struct cumc_mc_add_device add = { .size = sizeof(add) };
	const struct libcumc_driver *drv;

	ck_assert_int_eq(libcumc_driver(&drv), CUDA_SUCCESS);
	ck_assert_int_eq(ioctl(drv->fd, CUMC_MC_CREATE, &create), 0);
	add.handle = create.out_handle;
	ck_assert_int_eq(ioctl(drv->fd, CUMC_MC_ADD_DEVICE, &add), 0);
	return create.out_handle;
}

/*
 * The module's live objects (debugfs, lib/tests/objects.h), for leak
 * checks; the test fails when they cannot be read.
 */
static inline struct st_objects vmm_counts_now(void)
{
	struct st_objects c;

	ck_assert_msg(!st_objects_read(&c), "cannot read %s", ST_OBJECTS_PATH);
	return c;
}

#define vmm_assert_counts_eq(a, b) do {				\
	ck_assert_int_eq((a).clients, (b).clients);		\
	ck_assert_int_eq((a).mems, (b).mems);			\
	ck_assert_int_eq((a).pages, (b).pages);			\
	ck_assert_int_eq((a).vas, (b).vas);			\
	ck_assert_int_eq((a).mappings, (b).mappings);		\
	ck_assert_int_eq((a).mcs, (b).mcs);			\
	ck_assert_int_eq((a).binds, (b).binds);			\
	ck_assert_int_eq((a).views, (b).views);			\
} while (0)

/*
 * Load from (and with @write, store back to) @addr in a child sharing our
 * memory: 0 when it could, the signal that killed it otherwise.
 */
static inline int vmm_touch_in_child(CUdeviceptr addr, bool write)
{
	/* Children die of SIGSEGV on purpose: no core files. */
	struct rlimit no_core = { 0, 0 };
	int ret;

	ck_assert_int_eq(setrlimit(RLIMIT_CORE, &no_core), 0);
	ret = probe_touch_in_child(addr, write);
	ck_assert_int_ge(ret, 0);
	return ret;
}

#define vmm_assert_load_ok(addr) ck_assert_int_eq(vmm_touch_in_child(addr, false), 0)
#define vmm_assert_store_ok(addr) ck_assert_int_eq(vmm_touch_in_child(addr, true), 0)
#define vmm_assert_load_faults(addr) \
	ck_assert_int_eq(vmm_touch_in_child(addr, false), SIGSEGV)
#define vmm_assert_store_faults(addr) \
	ck_assert_int_eq(vmm_touch_in_child(addr, true), SIGSEGV)

#endif /* CUMC_TESTS_VMM_H */
