// SPDX-License-Identifier: MIT
/*
 * NVLink, as NCCL's topology detection reads it: for each link, whether
 * it can carry P2P, whether it is up, and what is at its other end.
 *
 * The simulated topology (Documentation/nvml.md): every GPU has
 * NVML_NVLINK_MAX_LINKS (18) links, all up, all to the NVSwitch fabric,
 * spread over four NVSwitch chips 5, 4, 4 and 5 links each, as on an HGX
 * H100 board (cumc's GPUs are H100s). No link reaches a GPU directly, so
 * NCCL sees every GPU pair connected through the switches, which is what
 * cumc's fabric does: every device reaches every other, and multicast.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define CUMC_NVML_NVSWITCH_PCI_DEVICE_ID 0x22a310deu
/* The bus the switches are reported on: no cumc GPU sits there. */
#define CUMC_NVML_NVSWITCH_BUS 0xff

/* The first link of each switch, and the end of the last one's. */
static const unsigned int cumc_nvml_switch_first[] = { 0, 5, 9, 13, 18 };

static unsigned int cumc_nvml_link_switch(unsigned int link)
{
	unsigned int s = 0;

	while (link >= cumc_nvml_switch_first[s + 1])
		s++;
	return s;
}

/* The device is there and @link is one of its links. */
static nvmlReturn_t cumc_nvml_link_check(nvmlDevice_t device,
					 unsigned int link)
{
	struct cumc_device_info info;
	nvmlReturn_t ret = cumc_nvml_device_info(device, &info);

	if (ret != NVML_SUCCESS)
		return ret;
	return link < NVML_NVLINK_MAX_LINKS ? NVML_SUCCESS :
	       NVML_ERROR_INVALID_ARGUMENT;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link,
				      nvmlEnableState_t *isActive)
{
	nvmlReturn_t ret;

	if (!isActive)
		return NVML_ERROR_INVALID_ARGUMENT;
	ret = cumc_nvml_link_check(device, link);
	if (ret == NVML_SUCCESS)
		*isActive = NVML_FEATURE_ENABLED;
	return ret;
}

/* P2P and its atomics over the link; no system memory, no SLI bridge. */
nvmlReturn_t nvmlDeviceGetNvLinkCapability(nvmlDevice_t device,
					   unsigned int link,
					   nvmlNvLinkCapability_t capability,
					   unsigned int *capResult)
{
	nvmlReturn_t ret;

	if (!capResult || (unsigned int)capability >= NVML_NVLINK_CAP_COUNT)
		return NVML_ERROR_INVALID_ARGUMENT;
	ret = cumc_nvml_link_check(device, link);
	if (ret != NVML_SUCCESS)
		return ret;
	*capResult = capability == NVML_NVLINK_CAP_P2P_SUPPORTED ||
		     capability == NVML_NVLINK_CAP_P2P_ATOMICS ||
		     capability == NVML_NVLINK_CAP_VALID;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device,
						 unsigned int link,
						 nvmlIntNvLinkDeviceType_t *pNvLinkDeviceType)
{
	nvmlReturn_t ret;

	if (!pNvLinkDeviceType)
		return NVML_ERROR_INVALID_ARGUMENT;
	ret = cumc_nvml_link_check(device, link);
	if (ret == NVML_SUCCESS)
		*pNvLinkDeviceType = NVML_NVLINK_DEVICE_TYPE_SWITCH;
	return ret;
}

/* The switch at the link's end: 0000:ff:0S.0 for switch S. */
static void cumc_nvml_switch_pci(unsigned int link, nvmlPciInfo_t *pci)
{
	memset(pci, 0, sizeof(*pci));
	pci->bus = CUMC_NVML_NVSWITCH_BUS;
	pci->device = cumc_nvml_link_switch(link);
	pci->pciDeviceId = CUMC_NVML_NVSWITCH_PCI_DEVICE_ID;
	snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy),
		 NVML_DEVICE_PCI_BUS_ID_LEGACY_FMT, pci->domain, pci->bus,
		 pci->device);
	snprintf(pci->busId, sizeof(pci->busId), NVML_DEVICE_PCI_BUS_ID_FMT,
		 pci->domain, pci->bus, pci->device);
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device,
						 unsigned int link,
						 nvmlPciInfo_t *pci)
{
	nvmlReturn_t ret;

	if (!pci)
		return NVML_ERROR_INVALID_ARGUMENT;
	ret = cumc_nvml_link_check(device, link);
	if (ret == NVML_SUCCESS)
		cumc_nvml_switch_pci(link, pci);
	return ret;
}

/* The older name's struct ends before busId (device.c says why). */
nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo(nvmlDevice_t device,
					      unsigned int link,
					      nvmlPciInfo_t *pci)
{
	nvmlPciInfo_t full;
	nvmlReturn_t ret;

	if (!pci)
		return NVML_ERROR_INVALID_ARGUMENT;
	ret = nvmlDeviceGetNvLinkRemotePciInfo_v2(device, link, &full);
	if (ret == NVML_SUCCESS)
		memcpy(pci, &full, offsetof(nvmlPciInfo_t, busId));
	return ret;
}

/*
 * Between two GPUs: reads, writes and atomics over NVLink, as the fabric
 * carries them; not over PCIe, which cumc's GPUs do not use between each
 * other.  A GPU with itself, as driver 580 answers on an H200: success,
 * NOT_SUPPORTED for every capability, and OK for INDEX_UNKNOWN.
 */
nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t device1, nvmlDevice_t device2,
				    nvmlGpuP2PCapsIndex_t p2pIndex,
				    nvmlGpuP2PStatus_t *p2pStatus)
{
	struct cumc_device_info info;
	nvmlReturn_t ret;

	if (!p2pStatus || (unsigned int)p2pIndex > NVML_P2P_CAPS_INDEX_UNKNOWN)
		return NVML_ERROR_INVALID_ARGUMENT;
	ret = cumc_nvml_device_info(device1, &info);
	if (ret == NVML_SUCCESS)
		ret = cumc_nvml_device_info(device2, &info);
	if (ret != NVML_SUCCESS)
		return ret;
	if (p2pIndex == NVML_P2P_CAPS_INDEX_UNKNOWN)
		*p2pStatus = NVML_P2P_STATUS_OK;
	else if (device1 == device2 || p2pIndex == NVML_P2P_CAPS_INDEX_PCI)
		*p2pStatus = NVML_P2P_STATUS_NOT_SUPPORTED;
	else
		*p2pStatus = NVML_P2P_STATUS_OK;
	return NVML_SUCCESS;
}
