// SPDX-License-Identifier: MIT
/*
 * Device management entry points against the module (runs in the VM):
 * cuDeviceGet, cuDeviceGetCount, cuDeviceGetName, cuDeviceGetUuid (both
 * names), cuDeviceTotalMem and cuDeviceGetAttribute.
 */
#include <check.h>
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "child.h"

/* The pre-11.4 name, exported for old binaries; no header declares it now. */
#undef cuDeviceGetUuid
CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice dev);

static int device_count(void)
{
	int count = -1;

	ck_assert_int_eq(cuDeviceGetCount(&count), CUDA_SUCCESS);
	ck_assert_int_gt(count, 0);
	return count;
}

static void setup(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
}

START_TEST(everything_needs_init)
{
	char name[64];
	CUuuid uuid;
	size_t bytes;
	int value;
	CUdevice dev;

	ck_assert_int_eq(cuDeviceGet(&dev, 0), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuDeviceGetCount(&value), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuDeviceGetName(name, sizeof(name), 0),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuDeviceGetUuid_v2(&uuid, 0), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuDeviceGetUuid(&uuid, 0), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuDeviceTotalMem(&bytes, 0), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuDeviceGetAttribute(&value,
			CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, 0),
			 CUDA_ERROR_NOT_INITIALIZED);
	/* Bad arguments do not hide the missing cuInit. */
	ck_assert_int_eq(cuDeviceGet(NULL, -1), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuDeviceGetCount(NULL), CUDA_ERROR_NOT_INITIALIZED);
}
END_TEST

START_TEST(get_every_ordinal)
{
	int count = device_count(), i;
	CUdevice dev;

	for (i = 0; i < count; i++) {
		dev = -1;
		ck_assert_int_eq(cuDeviceGet(&dev, i), CUDA_SUCCESS);
		ck_assert_int_eq(dev, i);
	}
}
END_TEST

START_TEST(get_bad_ordinal_or_null_refused)
{
	int count = device_count();
	CUdevice dev = 77;

	ck_assert_int_eq(cuDeviceGet(&dev, count), CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuDeviceGet(&dev, -1), CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuDeviceGet(&dev, 0x7fffffff), CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(dev, 77);
	ck_assert_int_eq(cuDeviceGet(NULL, 0), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(count_null_refused)
{
	ck_assert_int_eq(cuDeviceGetCount(NULL), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(name_is_the_simulated_h100)
{
	char name[256];

	memset(name, 'x', sizeof(name));
	ck_assert_int_eq(cuDeviceGetName(name, sizeof(name), 0), CUDA_SUCCESS);
	ck_assert_ptr_nonnull(memchr(name, '\0', sizeof(name)));
	ck_assert_ptr_nonnull(strstr(name, "H100"));
}
END_TEST

START_TEST(name_is_shortened_to_len)
{
	char full[256], name[8];

	ck_assert_int_eq(cuDeviceGetName(full, sizeof(full), 0), CUDA_SUCCESS);
	memset(name, 'x', sizeof(name));
	ck_assert_int_eq(cuDeviceGetName(name, 5, 0), CUDA_SUCCESS);
	ck_assert_int_eq(strlen(name), 4);
	ck_assert_int_eq(strncmp(name, full, 4), 0);
	ck_assert_int_eq(name[5], 'x');
	ck_assert_int_eq(cuDeviceGetName(name, 1, 0), CUDA_SUCCESS);
	ck_assert_str_eq(name, "");
}
END_TEST

START_TEST(name_bad_arguments_refused)
{
	char name[64] = "untouched";

	ck_assert_int_eq(cuDeviceGetName(NULL, 64, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetName(name, 0, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetName(name, -1, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetName(name, sizeof(name), device_count()),
			 CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuDeviceGetName(name, sizeof(name), -1),
			 CUDA_ERROR_INVALID_DEVICE);
	ck_assert_str_eq(name, "untouched");
}
END_TEST

START_TEST(uuids_are_stable_and_distinct)
{
	int count = device_count(), i, j;
	CUuuid *uuids = calloc(count, sizeof(*uuids));
	CUuuid again;

	ck_assert_ptr_nonnull(uuids);
	for (i = 0; i < count; i++) {
		ck_assert_int_eq(cuDeviceGetUuid_v2(&uuids[i], i), CUDA_SUCCESS);
		ck_assert_int_eq(cuDeviceGetUuid(&again, i), CUDA_SUCCESS);
		ck_assert_mem_eq(uuids[i].bytes, again.bytes, 16);
		for (j = 0; j < i; j++)
			ck_assert_mem_ne(uuids[i].bytes, uuids[j].bytes, 16);
	}
	free(uuids);
}
END_TEST

START_TEST(uuid_bad_arguments_refused)
{
	CUuuid uuid;

	ck_assert_int_eq(cuDeviceGetUuid_v2(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetUuid(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetUuid_v2(&uuid, device_count()),
			 CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuDeviceGetUuid(&uuid, -1), CUDA_ERROR_INVALID_DEVICE);
}
END_TEST

START_TEST(total_memory_is_reported)
{
	int count = device_count(), i;
	size_t bytes;

	for (i = 0; i < count; i++) {
		bytes = 0;
		ck_assert_int_eq(cuDeviceTotalMem(&bytes, i), CUDA_SUCCESS);
		ck_assert_uint_gt(bytes, 0);
	}
	ck_assert_int_eq(cuDeviceTotalMem(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceTotalMem(&bytes, count),
			 CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuDeviceTotalMem(&bytes, -1), CUDA_ERROR_INVALID_DEVICE);
}
END_TEST

static int attribute(CUdevice_attribute attrib, CUdevice dev)
{
	int value = -12345;

	ck_assert_int_eq(cuDeviceGetAttribute(&value, attrib, dev), CUDA_SUCCESS);
	return value;
}

START_TEST(attributes_of_an_h100_with_multicast)
{
	int dev = _i % device_count();

	ck_assert_int_eq(attribute(CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
				   dev), 1);
	ck_assert_int_eq(attribute(CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
				   dev), 1);
	ck_assert_int_eq(attribute(CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED,
				   dev), 1);
	ck_assert_int_eq(attribute(CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, dev), 1);
	ck_assert_int_eq(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
				   dev), 9);
	ck_assert_int_eq(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
				   dev), 0);
	ck_assert_int_eq(attribute(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, dev), 1);
	ck_assert_int_eq(attribute(CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED,
				   dev), 0);
}
END_TEST

/* Where nvidia-smi would show the devices: one PCI location each. */
START_TEST(pci_locations_are_distinct)
{
	int count = device_count(), i, j;

	for (i = 0; i < count; i++)
		for (j = 0; j < i; j++)
			ck_assert(attribute(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, i) !=
				  attribute(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, j) ||
				  attribute(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, i) !=
				  attribute(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, j) ||
				  attribute(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, i) !=
				  attribute(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, j));
}
END_TEST

START_TEST(attribute_bad_arguments_refused)
{
	int value = 7;

	ck_assert_int_eq(cuDeviceGetAttribute(NULL,
			CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_MAX, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetAttribute(&value, (CUdevice_attribute)0, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetAttribute(&value, (CUdevice_attribute)-1, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetAttribute(&value,
			CU_DEVICE_ATTRIBUTE_WARP_SIZE, device_count()),
			 CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuDeviceGetAttribute(&value,
			CU_DEVICE_ATTRIBUTE_WARP_SIZE, -1), CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(value, 7);
}
END_TEST

static int child_sees_devices_after_its_own_init(void)
{
	int count = -1;
	CUuuid uuid;

	CHILD_EXPECT(cuDeviceGetCount(&count) == CUDA_ERROR_NOT_INITIALIZED);
	CHILD_EXPECT(cuDeviceGetUuid_v2(&uuid, 0) == CUDA_ERROR_NOT_INITIALIZED);
	CHILD_EXPECT(cuInit(0) == CUDA_SUCCESS);
	CHILD_EXPECT(cuDeviceGetCount(&count) == CUDA_SUCCESS && count > 0);
	CHILD_EXPECT(cuDeviceGetUuid_v2(&uuid, count - 1) == CUDA_SUCCESS);
	return 0;
}

START_TEST(forked_child_initializes_again)
{
	device_count();
	assert_child_passes(child_sees_devices_after_its_own_init);
	device_count();
}
END_TEST

/* The bus id agrees with the PCI attributes, and names its device back. */
START_TEST(pci_bus_ids_both_ways)
{
	int n = 0, i, domain, bus, device;
	char id[32], expected[32], cut[5];
	CUdevice back;

	ck_assert_int_eq(cuDeviceGetCount(&n), CUDA_SUCCESS);
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(cuDeviceGetAttribute(&domain,
				 CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, i), CUDA_SUCCESS);
		ck_assert_int_eq(cuDeviceGetAttribute(&bus,
				 CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, i), CUDA_SUCCESS);
		ck_assert_int_eq(cuDeviceGetAttribute(&device,
				 CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, i), CUDA_SUCCESS);
		snprintf(expected, sizeof(expected), "%04X:%02X:%02X.0",
			 domain, bus, device);
		ck_assert_int_eq(cuDeviceGetPCIBusId(id, sizeof(id), i),
				 CUDA_SUCCESS);
		ck_assert_str_eq(id, expected);
		back = -1;
		ck_assert_int_eq(cuDeviceGetByPCIBusId(&back, id), CUDA_SUCCESS);
		ck_assert_int_eq(back, i);
		/* Lower case, and without the function, name it too. */
		snprintf(expected, sizeof(expected), "%x:%x:%x", domain, bus,
			 device);
		back = -1;
		ck_assert_int_eq(cuDeviceGetByPCIBusId(&back, expected),
				 CUDA_SUCCESS);
		ck_assert_int_eq(back, i);
	}
	ck_assert_int_eq(cuDeviceGetPCIBusId(cut, sizeof(cut), 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(strlen(cut), sizeof(cut) - 1);
	ck_assert_int_eq(cuDeviceGetPCIBusId(NULL, 32, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetPCIBusId(id, 0, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetPCIBusId(id, 32, n), CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuDeviceGetByPCIBusId(&back, "ffff:ff:1f.0"),
			 CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuDeviceGetByPCIBusId(&back, "not a bus id"),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetByPCIBusId(&back, "0000:01:00.1"),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetByPCIBusId(NULL, id), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetByPCIBusId(&back, NULL), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(deprecated_and_platform_queries)
{
	int major = 0, minor = -1, v = -1;
	CUexecAffinityType bad = CU_EXEC_AFFINITY_TYPE_MAX;
	unsigned int mask;
	char luid[8];
	CUdevprop prop;

	ck_assert_int_eq(cuDeviceComputeCapability(&major, &minor, 0), CUDA_SUCCESS);
	ck_assert_int_eq(major, 9);
	ck_assert_int_eq(minor, 0);
	ck_assert_int_eq(cuDeviceComputeCapability(NULL, &minor, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceComputeCapability(&major, &minor, -1),
			 CUDA_ERROR_INVALID_DEVICE);
	memset(&prop, 0, sizeof(prop));
	ck_assert_int_eq(cuDeviceGetProperties(&prop, 0), CUDA_SUCCESS);
	ck_assert_int_eq(prop.maxThreadsPerBlock, 1024);
	ck_assert_int_eq(prop.maxThreadsDim[2], 64);
	ck_assert_int_eq(prop.maxGridSize[0], 2147483647);
	ck_assert_int_eq(prop.SIMDWidth, 32);
	ck_assert_int_eq(prop.sharedMemPerBlock, 48 * 1024);
	ck_assert_int_eq(cuDeviceGetProperties(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetExecAffinitySupport(&v,
			 CU_EXEC_AFFINITY_TYPE_SM_COUNT, 0), CUDA_SUCCESS);
	ck_assert_int_eq(v, 0);
	ck_assert_int_eq(cuDeviceGetExecAffinitySupport(&v, bad, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetLuid(luid, &mask, 0), CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuDeviceGetLuid(NULL, &mask, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetNvSciSyncAttributes(luid, 0, 1),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuDeviceGetNvSciSyncAttributes(NULL, 0, 1),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuFlushGPUDirectRDMAWrites(
			 CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
			 CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER),
			 CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuFlushGPUDirectRDMAWrites(
			 CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX, 7),
			 CUDA_ERROR_INVALID_VALUE);
	{
		CUcontext ctx;

		ck_assert_int_eq(cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
		ck_assert_int_eq(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
		ck_assert_int_eq(cuFlushGPUDirectRDMAWrites(
				 CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
				 CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_ALL_DEVICES),
				 CUDA_ERROR_NOT_SUPPORTED);
	}
}
END_TEST

static void never_called(CUasyncNotificationInfo *info, void *user,
			 CUasyncCallbackHandle h)
{
	(void)info;
	(void)h;
	*(int *)user = 1;
}

/* Kept until unregistered; cumc sets no budget to go over. */
START_TEST(async_notifications)
{
	CUasyncCallbackHandle h1 = NULL, h2 = NULL;
	int called = 0;

	ck_assert_int_eq(cuDeviceRegisterAsyncNotification(0, never_called,
			 &called, &h1), CUDA_SUCCESS);
	ck_assert_int_eq(cuDeviceRegisterAsyncNotification(1, never_called,
			 &called, &h2), CUDA_SUCCESS);
	ck_assert_ptr_nonnull(h1);
	ck_assert_ptr_ne(h1, h2);
	ck_assert_int_eq(cuDeviceUnregisterAsyncNotification(1, h1),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceUnregisterAsyncNotification(0, h1), CUDA_SUCCESS);
	ck_assert_int_eq(cuDeviceUnregisterAsyncNotification(0, h1),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceUnregisterAsyncNotification(1, h2), CUDA_SUCCESS);
	ck_assert_int_eq(cuDeviceRegisterAsyncNotification(0, NULL, NULL, &h1),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceRegisterAsyncNotification(0, never_called,
			 NULL, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceRegisterAsyncNotification(-1, never_called,
			 NULL, &h1), CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(called, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("device management");
	TCase *tc = tcase_create("devices");

	check_add_uninit(s, everything_needs_init);

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, get_every_ordinal);
	tcase_add_test(tc, get_bad_ordinal_or_null_refused);
	tcase_add_test(tc, count_null_refused);
	tcase_add_test(tc, name_is_the_simulated_h100);
	tcase_add_test(tc, name_is_shortened_to_len);
	tcase_add_test(tc, name_bad_arguments_refused);
	tcase_add_test(tc, uuids_are_stable_and_distinct);
	tcase_add_test(tc, uuid_bad_arguments_refused);
	tcase_add_test(tc, total_memory_is_reported);
	tcase_add_loop_test(tc, attributes_of_an_h100_with_multicast, 0, 8);
	tcase_add_test(tc, pci_locations_are_distinct);
	tcase_add_test(tc, attribute_bad_arguments_refused);
	tcase_add_test(tc, forked_child_initializes_again);
	tcase_add_test(tc, pci_bus_ids_both_ways);
	tcase_add_test(tc, deprecated_and_platform_queries);
	tcase_add_test(tc, async_notifications);
	suite_add_tcase(s, tc);

	return check_run_forked(s);
}
