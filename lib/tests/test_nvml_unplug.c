// SPDX-License-Identifier: MIT
/*
 * A GPU falling off the bus, as NVML sees it (runs in the VM, with the
 * GPU-loss tests, last): every query naming it answers
 * NVML_ERROR_GPU_IS_LOST, while the driver API answers CUDA_ERROR_UNKNOWN
 * for it (test_unplug.c); the other GPUs go on. Without scripts/vm-run's
 * control channel there is nothing to unplug, and the test says so.
 */
#include <check.h>
#include <cuda.h>
#include <nvml.h>
#include <stdio.h>

#include "check_run.h"
#include "unplug.h"

/* The last device that is a cumc PCI device, its address in @pci; or -1. */
static int pci_device(char *pci, size_t len)
{
	int count = 0, domain, bus, slot;

	ck_assert_int_eq(cuDeviceGetCount(&count), CUDA_SUCCESS);
	for (int dev = count - 1; dev >= 0; dev--)
		if (!cuDeviceGetAttribute(&domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID,
					  dev) &&
		    !cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev) &&
		    !cuDeviceGetAttribute(&slot, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID,
					  dev) &&
		    unplug_pci_bound(domain, bus, slot, pci, len))
			return dev;
	return -1;
}

START_TEST(lost_gpu_answers_gpu_is_lost)
{
	nvmlGpuFabricInfoV_t fabric = { .version = nvmlGpuFabricInfo_v3 };
	nvmlDevice_t lost, healthy, again;
	char pci[32], why[128], name[96];
	nvmlEnableState_t active;
	nvmlPciInfo_t info;
	nvmlMemory_t mem;
	size_t bytes;
	int ordinal;

	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	ck_assert_int_eq(nvmlInit(), NVML_SUCCESS);
	if (!unplug_channel()) {
		printf("# no control channel to unplug a GPU: nothing to test\n");
		return;
	}
	ordinal = pci_device(pci, sizeof(pci));
	ck_assert_int_ge(ordinal, 1);
	ck_assert_int_eq(nvmlDeviceGetHandleByPciBusId(pci, &lost), NVML_SUCCESS);
	ck_assert_int_eq(nvmlDeviceGetHandleByIndex(0, &healthy), NVML_SUCCESS);

	ck_assert_msg(!unplug_gpu(pci, why, sizeof(why)), "unplug %s: %s", pci,
		      why);

	ck_assert_int_eq(nvmlDeviceGetName(lost, name, sizeof(name)),
			 NVML_ERROR_GPU_IS_LOST);
	ck_assert_int_eq(nvmlDeviceGetUUID(lost, name, sizeof(name)),
			 NVML_ERROR_GPU_IS_LOST);
	ck_assert_int_eq(nvmlDeviceGetPciInfo(lost, &info), NVML_ERROR_GPU_IS_LOST);
	ck_assert_int_eq(nvmlDeviceGetMemoryInfo(lost, &mem),
			 NVML_ERROR_GPU_IS_LOST);
	ck_assert_int_eq(nvmlDeviceGetGpuFabricInfoV(lost, &fabric),
			 NVML_ERROR_GPU_IS_LOST);
	ck_assert_int_eq(nvmlDeviceGetNvLinkState(lost, 0, &active),
			 NVML_ERROR_GPU_IS_LOST);
	ck_assert_int_eq(nvmlDeviceGetHandleByIndex(ordinal, &again),
			 NVML_ERROR_GPU_IS_LOST);
	/* The driver API tells the same story in its own words. */
	ck_assert_int_eq(cuDeviceTotalMem(&bytes, ordinal), CUDA_ERROR_UNKNOWN);
	/* The others go on. */
	ck_assert_int_eq(nvmlDeviceGetName(healthy, name, sizeof(name)),
			 NVML_SUCCESS);
	ck_assert_int_eq(nvmlDeviceGetGpuFabricInfoV(healthy, &fabric),
			 NVML_SUCCESS);
	ck_assert_int_eq(nvmlShutdown(), NVML_SUCCESS);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nvml unplug");
	TCase *tc = tcase_create("lost GPU");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, lost_gpu_answers_gpu_is_lost);
	suite_add_tcase(s, tc);
	return check_run(s);
}
