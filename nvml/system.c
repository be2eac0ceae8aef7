// SPDX-License-Identifier: MIT
/*
 * The system's versions. The driver is cumc's module, not an NVIDIA
 * driver branch: its version is cumc's own, never a made-up branch number
 * that a program comparing branches would trust. The CUDA version is the
 * one cuDriverGetVersion answers.
 */
#include <stdio.h>

#include "internal.h"

/* CUMC_VERSION comes from the Makefile, as for the tools. */
#ifndef CUMC_VERSION
#error "build with -DCUMC_VERSION=\"x.y.z\""
#endif

static nvmlReturn_t cumc_nvml_string(char *buf, unsigned int length,
				     const char *fmt, const char *value)
{
	unsigned int count;

	if (!buf)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (cumc_nvml_count(&count) != NVML_SUCCESS)
		return NVML_ERROR_UNINITIALIZED;
	if ((unsigned int)snprintf(NULL, 0, fmt, value) >= length)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	snprintf(buf, length, fmt, value);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
	return cumc_nvml_string(version, length, "%s", CUMC_VERSION);
}

/* NVML's version is the CUDA major version, then the driver's. */
nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length)
{
	return cumc_nvml_string(version, length, "13.%s", CUMC_VERSION);
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion)
{
	if (!cudaDriverVersion)
		return NVML_ERROR_INVALID_ARGUMENT;
	*cudaDriverVersion = CUMC_NVML_CUDA_VERSION;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion)
{
	return nvmlSystemGetCudaDriverVersion(cudaDriverVersion);
}
