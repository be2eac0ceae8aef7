/* SPDX-License-Identifier: MIT */
/*
 * cumc's libnvidia-ml.so.1, private header: the state nvmlInit opens and
 * what every device query goes through (Documentation/nvml.md).
 */
#ifndef _CUMC_NVML_INTERNAL_H
#define _CUMC_NVML_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <nvml.h>
#include <linux/cumc.h>

/*
 * What the devices are as the driver API sees them: these must agree with
 * lib/device_attr.c (CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_*,
 * GPU_PCI_DEVICE_ID, GPU_PCI_SUBSYSTEM_ID) and lib/internal.h
 * (CUMC_DRIVER_VERSION); lib/tests/test_nvml.c compares them.
 */
#define CUMC_NVML_CC_MAJOR		9
#define CUMC_NVML_CC_MINOR		0
#define CUMC_NVML_PCI_DEVICE_ID		0x233010deu
#define CUMC_NVML_PCI_SUBSYSTEM_ID	0x16c110deu
#define CUMC_NVML_CUDA_VERSION		13010

/* A handle is a pointer to one of these, one per ordinal, never freed. */
struct nvmlDevice_st {
	unsigned int ordinal;
};

/*
 * The handle of @ordinal, once nvmlInit succeeded: UNINITIALIZED,
 * INVALID_ARGUMENT past the devices, GPU_IS_LOST for a device that fell
 * off the bus.
 */
nvmlReturn_t cumc_nvml_handle(unsigned int ordinal, nvmlDevice_t *device);

/* The number of devices nvmlInit found; UNINITIALIZED before it. */
nvmlReturn_t cumc_nvml_count(unsigned int *count);

/*
 * CUMC_DEVICE_INFO of @device: UNINITIALIZED, INVALID_ARGUMENT for a
 * handle that is not one, GPU_IS_LOST once it fell off the bus.
 */
nvmlReturn_t cumc_nvml_device_info(nvmlDevice_t device,
				   struct cumc_device_info *info);

/* Fills @pci from @info, both bus id forms. */
void cumc_nvml_pci_fill(const struct cumc_device_info *info,
			nvmlPciInfo_t *pci);

/* A device's fabric identity, as the control plane's DEV_GET gives it. */
struct cumc_nvml_fabric {
	uint32_t state;		/* enum cumc_fabric_state: NVML's values */
	uint32_t clique_id;
	uint8_t cluster_uuid[16];
	uint32_t health_mask;	/* DEV_SET's, when has_health_mask */
	bool has_health_mask;
	bool lost;
};

/* DEV_GET's answer for @ordinal: SUCCESS, or why there is none. */
nvmlReturn_t cumc_nvml_fabric_get(unsigned int ordinal,
				  struct cumc_nvml_fabric *fabric);

#endif /* _CUMC_NVML_INTERNAL_H */
