// SPDX-License-Identifier: MIT
/*
 * Devices: count, handles and what CUMC_DEVICE_INFO says of each, in
 * NVML's forms.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
	if (!deviceCount)
		return NVML_ERROR_INVALID_ARGUMENT;
	return cumc_nvml_count(deviceCount);
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index,
					   nvmlDevice_t *device)
{
	if (!device)
		return NVML_ERROR_INVALID_ARGUMENT;
	return cumc_nvml_handle(index, device);
}

/*
 * The pre-v2 names counted and indexed only the GPUs the caller could
 * use; every cumc device is usable, so they answer the same.
 */
nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount)
	__attribute__((alias("nvmlDeviceGetCount_v2")));
nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device)
	__attribute__((alias("nvmlDeviceGetHandleByIndex_v2")));

/* "GPU-" and the UUID's 16 bytes as 8-4-4-4-12 hex digits. */
static void cumc_nvml_uuid_string(const uint8_t *u, char out[41])
{
	snprintf(out, 41,
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
}

/*
 * The device for which @match returns true, going through them in order;
 * a lost device cannot be told from others and is skipped.
 */
static nvmlReturn_t cumc_nvml_find(bool (*match)(const struct cumc_device_info *,
						 const void *),
				   const void *key, nvmlDevice_t *device)
{
	struct cumc_device_info info;
	unsigned int count, i;
	nvmlReturn_t ret = cumc_nvml_count(&count);

	if (ret != NVML_SUCCESS)
		return ret;
	for (i = 0; i < count; i++) {
		if (cumc_nvml_handle(i, device) != NVML_SUCCESS ||
		    cumc_nvml_device_info(*device, &info) != NVML_SUCCESS)
			continue;
		if (match(&info, key))
			return NVML_SUCCESS;
	}
	return NVML_ERROR_NOT_FOUND;
}

static bool cumc_nvml_uuid_matches(const struct cumc_device_info *info,
				   const void *key)
{
	char uuid[41];

	cumc_nvml_uuid_string(info->uuid, uuid);
	return !strcasecmp(uuid, key);
}

nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device)
{
	if (!uuid || !device)
		return NVML_ERROR_INVALID_ARGUMENT;
	return cumc_nvml_find(cumc_nvml_uuid_matches, uuid, device);
}

struct cumc_nvml_pci_key {
	unsigned int domain, bus, device;
};

static bool cumc_nvml_pci_matches(const struct cumc_device_info *info,
				  const void *key)
{
	const struct cumc_nvml_pci_key *k = key;

	return info->pci_domain == k->domain && info->pci_bus == k->bus &&
	       info->pci_device == k->device;
}

/* "domain:bus:device.function" or "bus:device.function", in hex. */
static bool cumc_nvml_parse_pci(const char *id, struct cumc_nvml_pci_key *k)
{
	unsigned int function;
	int end = -1;

	if (sscanf(id, "%x:%x:%x.%x%n", &k->domain, &k->bus, &k->device,
		   &function, &end) == 4 && end >= 0 && !id[end])
		return true;
	k->domain = 0;
	end = -1;
	return sscanf(id, "%x:%x.%x%n", &k->bus, &k->device, &function,
		      &end) == 3 && end >= 0 && !id[end];
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId,
					      nvmlDevice_t *device)
{
	struct cumc_nvml_pci_key key;

	if (!pciBusId || !device || !cumc_nvml_parse_pci(pciBusId, &key))
		return NVML_ERROR_INVALID_ARGUMENT;
	return cumc_nvml_find(cumc_nvml_pci_matches, &key, device);
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *pciBusId,
					   nvmlDevice_t *device)
	__attribute__((alias("nvmlDeviceGetHandleByPciBusId_v2")));

/* @text into @buf of @length bytes, or INSUFFICIENT_SIZE. */
static nvmlReturn_t cumc_nvml_copy(char *buf, unsigned int length,
				   const char *text)
{
	if (strlen(text) >= length)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	strcpy(buf, text);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name,
			       unsigned int length)
{
	struct cumc_device_info info;
	nvmlReturn_t ret;

	if (!name)
		return NVML_ERROR_INVALID_ARGUMENT;
	ret = cumc_nvml_device_info(device, &info);
	if (ret != NVML_SUCCESS)
		return ret;
	info.name[sizeof(info.name) - 1] = '\0';
	return cumc_nvml_copy(name, length, info.name);
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid,
			       unsigned int length)
{
	struct cumc_device_info info;
	char text[41];
	nvmlReturn_t ret;

	if (!uuid)
		return NVML_ERROR_INVALID_ARGUMENT;
	ret = cumc_nvml_device_info(device, &info);
	if (ret != NVML_SUCCESS)
		return ret;
	cumc_nvml_uuid_string(info.uuid, text);
	return cumc_nvml_copy(uuid, length, text);
}

/* Index and minor number are both the ordinal (/dev/nvidiaN's N). */
static nvmlReturn_t cumc_nvml_ordinal_of(nvmlDevice_t device,
					 unsigned int *out)
{
	struct cumc_device_info info;
	nvmlReturn_t ret;

	if (!out)
		return NVML_ERROR_INVALID_ARGUMENT;
	ret = cumc_nvml_device_info(device, &info);
	if (ret == NVML_SUCCESS)
		*out = info.device;
	return ret;
}

nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index)
{
	return cumc_nvml_ordinal_of(device, index);
}

nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device,
				      unsigned int *minorNumber)
{
	return cumc_nvml_ordinal_of(device, minorNumber);
}

void cumc_nvml_pci_fill(const struct cumc_device_info *info,
			nvmlPciInfo_t *pci)
{
	memset(pci, 0, sizeof(*pci));
	pci->domain = info->pci_domain;
	pci->bus = info->pci_bus;
	pci->device = info->pci_device;
	pci->pciDeviceId = CUMC_NVML_PCI_DEVICE_ID;
	pci->pciSubSystemId = CUMC_NVML_PCI_SUBSYSTEM_ID;
	snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy),
		 NVML_DEVICE_PCI_BUS_ID_LEGACY_FMT, pci->domain & 0xffff,
		 pci->bus & 0xff, pci->device & 0x1f);
	snprintf(pci->busId, sizeof(pci->busId), NVML_DEVICE_PCI_BUS_ID_FMT,
		 pci->domain, pci->bus & 0xff, pci->device & 0x1f);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
	struct cumc_device_info info;
	nvmlReturn_t ret;

	if (!pci)
		return NVML_ERROR_INVALID_ARGUMENT;
	ret = cumc_nvml_device_info(device, &info);
	if (ret == NVML_SUCCESS)
		cumc_nvml_pci_fill(&info, pci);
	return ret;
}

/*
 * The older names were given older structs: the same first 36 bytes
 * (legacy bus id to subsystem id), then fields of their own. Only those
 * bytes are written, never past what such a caller allocated.
 */
static nvmlReturn_t cumc_nvml_pci_legacy(nvmlDevice_t device,
					 nvmlPciInfo_t *pci)
{
	nvmlPciInfo_t full;
	nvmlReturn_t ret;

	if (!pci)
		return NVML_ERROR_INVALID_ARGUMENT;
	ret = nvmlDeviceGetPciInfo_v3(device, &full);
	if (ret == NVML_SUCCESS)
		memcpy(pci, &full, offsetof(nvmlPciInfo_t, busId));
	return ret;
}

nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
	return cumc_nvml_pci_legacy(device, pci);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
	return cumc_nvml_pci_legacy(device, pci);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
	struct cumc_device_info info;
	nvmlReturn_t ret;

	if (!memory)
		return NVML_ERROR_INVALID_ARGUMENT;
	ret = cumc_nvml_device_info(device, &info);
	if (ret != NVML_SUCCESS)
		return ret;
	memory->total = info.mem_total;
	memory->free = info.mem_free;
	memory->used = info.mem_total - info.mem_free;
	return NVML_SUCCESS;
}

/* cumc keeps no device memory for itself: nothing is reserved. */
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device,
					nvmlMemory_v2_t *memory)
{
	nvmlMemory_t m;
	nvmlReturn_t ret;

	if (!memory)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (memory->version != nvmlMemory_v2)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	ret = nvmlDeviceGetMemoryInfo(device, &m);
	if (ret != NVML_SUCCESS)
		return ret;
	memory->total = m.total;
	memory->reserved = 0;
	memory->free = m.free;
	memory->used = m.used;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device,
				      nvmlComputeMode_t *mode)
{
	struct cumc_device_info info;
	nvmlReturn_t ret;

	if (!mode)
		return NVML_ERROR_INVALID_ARGUMENT;
	ret = cumc_nvml_device_info(device, &info);
	if (ret == NVML_SUCCESS)
		*mode = NVML_COMPUTEMODE_DEFAULT;
	return ret;
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device,
						int *major, int *minor)
{
	struct cumc_device_info info;
	nvmlReturn_t ret;

	if (!major || !minor)
		return NVML_ERROR_INVALID_ARGUMENT;
	ret = cumc_nvml_device_info(device, &info);
	if (ret != NVML_SUCCESS)
		return ret;
	*major = CUMC_NVML_CC_MAJOR;
	*minor = CUMC_NVML_CC_MINOR;
	return NVML_SUCCESS;
}
