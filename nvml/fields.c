// SPDX-License-Identifier: MIT
/*
 * Field values: NVML's query of many counters and states at once, each
 * value with its own return.  cumc answers the one NCCL's topology
 * detection reads on sm_90 in place of nvmlDeviceGetNvLinkState: each
 * link's state (NVML_FI_DEV_NVLINK_GET_STATE, the link in scopeId),
 * enabled for the 18 links nvlink.c describes.  Any other field NVML
 * defines is NOT_SUPPORTED and one it does not INVALID_ARGUMENT, each in
 * its value, as driver 580 answers on an H200 (conformance/nvml).
 */
#include <string.h>
#include <time.h>

#include "internal.h"

/* Microseconds since 1970, when the value was read. */
static long long cumc_nvml_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static void cumc_nvml_field(nvmlFieldValue_t *v, long long now)
{
	if (v->fieldId >= NVML_FI_MAX) {
		v->nvmlReturn = NVML_ERROR_INVALID_ARGUMENT;
		return;
	}
	v->timestamp = now;
	v->latencyUsec = 0;
	v->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
	memset(&v->value, 0, sizeof(v->value));
	if (v->fieldId != NVML_FI_DEV_NVLINK_GET_STATE)
		v->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
	else if (v->scopeId >= NVML_NVLINK_MAX_LINKS)
		v->nvmlReturn = NVML_ERROR_INVALID_ARGUMENT;
	else {
		v->value.uiVal = NVML_FEATURE_ENABLED;
		v->nvmlReturn = NVML_SUCCESS;
	}
}

nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount,
				      nvmlFieldValue_t *values)
{
	struct cumc_device_info info;
	nvmlReturn_t ret;
	long long now;
	int i;

	if (valuesCount <= 0 || !values)
		return NVML_ERROR_INVALID_ARGUMENT;
	ret = cumc_nvml_device_info(device, &info);
	if (ret != NVML_SUCCESS)
		return ret;
	now = cumc_nvml_now_us();
	for (i = 0; i < valuesCount; i++)
		cumc_nvml_field(&values[i], now);
	return NVML_SUCCESS;
}
