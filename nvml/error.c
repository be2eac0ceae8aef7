// SPDX-License-Identifier: MIT
/* nvmlErrorString: a fixed sentence for each nvmlReturn_t. */
#include "internal.h"

static const char *const cumc_nvml_errors[] = {
	[NVML_SUCCESS] = "Success",
	[NVML_ERROR_UNINITIALIZED] = "Uninitialized",
	[NVML_ERROR_INVALID_ARGUMENT] = "Invalid Argument",
	[NVML_ERROR_NOT_SUPPORTED] = "Not Supported",
	[NVML_ERROR_NO_PERMISSION] = "Insufficient Permissions",
	[NVML_ERROR_ALREADY_INITIALIZED] = "Already Initialized",
	[NVML_ERROR_NOT_FOUND] = "Not Found",
	[NVML_ERROR_INSUFFICIENT_SIZE] = "Insufficient Size",
	[NVML_ERROR_INSUFFICIENT_POWER] = "Insufficient External Power",
	[NVML_ERROR_DRIVER_NOT_LOADED] = "Driver Not Loaded",
	[NVML_ERROR_TIMEOUT] = "Timeout",
	[NVML_ERROR_IRQ_ISSUE] = "Interrupt Request Issue",
	[NVML_ERROR_LIBRARY_NOT_FOUND] = "NVML Shared Library Not Found",
	[NVML_ERROR_FUNCTION_NOT_FOUND] = "Function Not Found",
	[NVML_ERROR_CORRUPTED_INFOROM] = "Corrupted infoROM",
	[NVML_ERROR_GPU_IS_LOST] = "GPU is lost",
	[NVML_ERROR_RESET_REQUIRED] = "GPU requires restart",
	[NVML_ERROR_OPERATING_SYSTEM] = "The operating system has blocked the request.",
	[NVML_ERROR_LIB_RM_VERSION_MISMATCH] = "RM has detected an NVML/RM version mismatch.",
	[NVML_ERROR_IN_USE] = "In use by another client",
	[NVML_ERROR_MEMORY] = "Insufficient Memory",
	[NVML_ERROR_NO_DATA] = "No data",
	[NVML_ERROR_VGPU_ECC_NOT_SUPPORTED] = "Not supported on vGPU with ECC enabled",
	[NVML_ERROR_INSUFFICIENT_RESOURCES] = "Insufficient resources",
	[NVML_ERROR_FREQ_NOT_SUPPORTED] = "Frequency not supported",
	[NVML_ERROR_ARGUMENT_VERSION_MISMATCH] = "Argument version mismatch",
	[NVML_ERROR_DEPRECATED] = "Deprecated",
	[NVML_ERROR_NOT_READY] = "Not ready",
	[NVML_ERROR_GPU_NOT_FOUND] = "GPU not found",
	[NVML_ERROR_INVALID_STATE] = "Invalid state",
	[NVML_ERROR_RESET_TYPE_NOT_SUPPORTED] = "Reset type not supported",
};

const char *nvmlErrorString(nvmlReturn_t result)
{
	unsigned int r = result;

	if (r < sizeof(cumc_nvml_errors) / sizeof(cumc_nvml_errors[0]) &&
	    cumc_nvml_errors[r])
		return cumc_nvml_errors[r];
	return "Unknown Error";
}
