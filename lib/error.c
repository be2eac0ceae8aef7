// SPDX-License-Identifier: MIT
/*
 * cuGetErrorName and cuGetErrorString: the name and the description of
 * every CUresult the CUDA 13.0 header defines, each the one NVIDIA's driver
 * gives (conformance/errors/, recorded on it): programs and their tests
 * print and match these strings. Unlike that driver, a NULL output pointer
 * is refused with CUDA_ERROR_INVALID_VALUE, not written through.
 */
#include "internal.h"

struct libcumc_error_text {
	const char *name;
	const char *description;
};

/* Indexed by value: lookups are one bounds check and one load. */
#define CUMC_ERROR(code, text) [code] = { #code, text }

static const struct libcumc_error_text libcumc_errors[] = {
	CUMC_ERROR(CUDA_SUCCESS, "no error"),
	CUMC_ERROR(CUDA_ERROR_INVALID_VALUE, "invalid argument"),
	CUMC_ERROR(CUDA_ERROR_OUT_OF_MEMORY, "out of memory"),
	CUMC_ERROR(CUDA_ERROR_NOT_INITIALIZED, "initialization error"),
	CUMC_ERROR(CUDA_ERROR_DEINITIALIZED, "driver shutting down"),
	CUMC_ERROR(CUDA_ERROR_PROFILER_DISABLED,
		   "profiler disabled while using external profiling tool"),
	CUMC_ERROR(CUDA_ERROR_PROFILER_NOT_INITIALIZED,
		   "profiler not initialized: call cudaProfilerInitialize()"),
	CUMC_ERROR(CUDA_ERROR_PROFILER_ALREADY_STARTED,
		   "profiler already started"),
	CUMC_ERROR(CUDA_ERROR_PROFILER_ALREADY_STOPPED,
		   "profiler already stopped"),
	CUMC_ERROR(CUDA_ERROR_STUB_LIBRARY, "CUDA driver is a stub library"),
	CUMC_ERROR(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER,
		   "API call is not supported in the installed CUDA driver"),
	CUMC_ERROR(CUDA_ERROR_DEVICE_UNAVAILABLE,
		   "CUDA-capable device(s) is/are busy or unavailable"),
	CUMC_ERROR(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected"),
	CUMC_ERROR(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal"),
	CUMC_ERROR(CUDA_ERROR_DEVICE_NOT_LICENSED,
		   "device doesn't have valid Grid license"),
	CUMC_ERROR(CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid"),
	CUMC_ERROR(CUDA_ERROR_INVALID_CONTEXT, "invalid device context"),
	CUMC_ERROR(CUDA_ERROR_CONTEXT_ALREADY_CURRENT,
		   "context already current"),
	CUMC_ERROR(CUDA_ERROR_MAP_FAILED, "mapping of buffer object failed"),
	CUMC_ERROR(CUDA_ERROR_UNMAP_FAILED,
		   "unmapping of buffer object failed"),
	CUMC_ERROR(CUDA_ERROR_ARRAY_IS_MAPPED, "array is mapped"),
	CUMC_ERROR(CUDA_ERROR_ALREADY_MAPPED, "resource already mapped"),
	CUMC_ERROR(CUDA_ERROR_NO_BINARY_FOR_GPU,
		   "no kernel image is available for execution on the device"),
	CUMC_ERROR(CUDA_ERROR_ALREADY_ACQUIRED, "resource already acquired"),
	CUMC_ERROR(CUDA_ERROR_NOT_MAPPED, "resource not mapped"),
	CUMC_ERROR(CUDA_ERROR_NOT_MAPPED_AS_ARRAY,
		   "resource not mapped as array"),
	CUMC_ERROR(CUDA_ERROR_NOT_MAPPED_AS_POINTER,
		   "resource not mapped as pointer"),
	CUMC_ERROR(CUDA_ERROR_ECC_UNCORRECTABLE,
		   "uncorrectable ECC error encountered"),
	CUMC_ERROR(CUDA_ERROR_UNSUPPORTED_LIMIT,
		   "limit is not supported on this architecture"),
	CUMC_ERROR(CUDA_ERROR_CONTEXT_ALREADY_IN_USE,
		   "exclusive-thread device already in use by a different thread"),
	CUMC_ERROR(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED,
		   "peer access is not supported between these two devices"),
	CUMC_ERROR(CUDA_ERROR_INVALID_PTX, "a PTX JIT compilation failed"),
	CUMC_ERROR(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT,
		   "invalid OpenGL or DirectX context"),
	CUMC_ERROR(CUDA_ERROR_NVLINK_UNCORRECTABLE,
		   "uncorrectable NVLink error detected during the execution"),
	CUMC_ERROR(CUDA_ERROR_JIT_COMPILER_NOT_FOUND,
		   "PTX JIT compiler library not found"),
	CUMC_ERROR(CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
		   "the provided PTX was compiled with an unsupported toolchain."),
	CUMC_ERROR(CUDA_ERROR_JIT_COMPILATION_DISABLED,
		   "PTX JIT compilation was disabled"),
	CUMC_ERROR(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY,
		   "the provided execution affinity is not supported"),
	CUMC_ERROR(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC,
		   "the provided PTX contains unsupported call to cudaDeviceSynchronize"),
	CUMC_ERROR(CUDA_ERROR_CONTAINED,
		   "Invalid access of peer GPU memory over nvlink or a hardware error"),
	CUMC_ERROR(CUDA_ERROR_INVALID_SOURCE, "device kernel image is invalid"),
	CUMC_ERROR(CUDA_ERROR_FILE_NOT_FOUND, "file not found"),
	CUMC_ERROR(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND,
		   "shared object symbol not found"),
	CUMC_ERROR(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED,
		   "shared object initialization failed"),
	CUMC_ERROR(CUDA_ERROR_OPERATING_SYSTEM,
		   "OS call failed or operation not supported on this OS"),
	CUMC_ERROR(CUDA_ERROR_INVALID_HANDLE, "invalid resource handle"),
	CUMC_ERROR(CUDA_ERROR_ILLEGAL_STATE,
		   "the operation cannot be performed in the present state"),
	CUMC_ERROR(CUDA_ERROR_LOSSY_QUERY,
		   "attempted introspection would be semantically lossy"),
	CUMC_ERROR(CUDA_ERROR_NOT_FOUND, "named symbol not found"),
	CUMC_ERROR(CUDA_ERROR_NOT_READY, "device not ready"),
	CUMC_ERROR(CUDA_ERROR_ILLEGAL_ADDRESS,
		   "an illegal memory access was encountered"),
	CUMC_ERROR(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
		   "too many resources requested for launch"),
	CUMC_ERROR(CUDA_ERROR_LAUNCH_TIMEOUT,
		   "the launch timed out and was terminated"),
	CUMC_ERROR(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING,
		   "launch uses incompatible texturing mode"),
	CUMC_ERROR(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,
		   "peer access is already enabled"),
	CUMC_ERROR(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED,
		   "peer access has not been enabled"),
	CUMC_ERROR(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE,
		   "cannot set while device is active in this process"),
	CUMC_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, "context is destroyed"),
	CUMC_ERROR(CUDA_ERROR_ASSERT, "device-side assert triggered"),
	CUMC_ERROR(CUDA_ERROR_TOO_MANY_PEERS,
		   "peer mapping resources exhausted"),
	CUMC_ERROR(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
		   "part or all of the requested memory range is already mapped"),
	CUMC_ERROR(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,
		   "pointer does not correspond to a registered memory region"),
	CUMC_ERROR(CUDA_ERROR_HARDWARE_STACK_ERROR, "hardware stack error"),
	CUMC_ERROR(CUDA_ERROR_ILLEGAL_INSTRUCTION,
		   "an illegal instruction was encountered"),
	CUMC_ERROR(CUDA_ERROR_MISALIGNED_ADDRESS, "misaligned address"),
	CUMC_ERROR(CUDA_ERROR_INVALID_ADDRESS_SPACE,
		   "operation not supported on global/shared address space"),
	CUMC_ERROR(CUDA_ERROR_INVALID_PC, "invalid program counter"),
	CUMC_ERROR(CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure"),
	CUMC_ERROR(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
		   "too many blocks in cooperative launch"),
	CUMC_ERROR(CUDA_ERROR_TENSOR_MEMORY_LEAK,
		   "tensor memory not completely freed"),
	CUMC_ERROR(CUDA_ERROR_NOT_PERMITTED, "operation not permitted"),
	CUMC_ERROR(CUDA_ERROR_NOT_SUPPORTED, "operation not supported"),
	CUMC_ERROR(CUDA_ERROR_SYSTEM_NOT_READY, "system not yet initialized"),
	CUMC_ERROR(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH,
		   "system has unsupported display driver / cuda driver combination"),
	CUMC_ERROR(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE,
		   "forward compatibility was attempted on non supported HW"),
	CUMC_ERROR(CUDA_ERROR_MPS_CONNECTION_FAILED,
		   "MPS client failed to connect to the MPS control daemon or the MPS server"),
	CUMC_ERROR(CUDA_ERROR_MPS_RPC_FAILURE,
		   "the remote procedural call between the MPS server and the MPS client failed"),
	CUMC_ERROR(CUDA_ERROR_MPS_SERVER_NOT_READY,
		   "MPS server is not ready to accept new MPS client requests"),
	CUMC_ERROR(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED,
		   "the hardware resources required to create MPS client have been exhausted"),
	CUMC_ERROR(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED,
		   "the hardware resources required to support device connections have been exhausted"),
	CUMC_ERROR(CUDA_ERROR_MPS_CLIENT_TERMINATED,
		   "the MPS client has been terminated by the server"),
	CUMC_ERROR(CUDA_ERROR_CDP_NOT_SUPPORTED,
		   "is using CUDA Dynamic Parallelism, but the current configuration, like MPS, does not support it"),
	CUMC_ERROR(CUDA_ERROR_CDP_VERSION_MISMATCH,
		   "unsupported interaction between different versions of CUDA Dynamic Parallelism"),
	CUMC_ERROR(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
		   "operation not permitted when stream is capturing"),
	CUMC_ERROR(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
		   "operation failed due to a previous error during capture"),
	CUMC_ERROR(CUDA_ERROR_STREAM_CAPTURE_MERGE,
		   "operation would result in a merge of separate capture sequences"),
	CUMC_ERROR(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED,
		   "capture was not ended in the same stream as it began"),
	CUMC_ERROR(CUDA_ERROR_STREAM_CAPTURE_UNJOINED,
		   "capturing stream has unjoined work"),
	CUMC_ERROR(CUDA_ERROR_STREAM_CAPTURE_ISOLATION,
		   "dependency created on uncaptured work in another stream"),
	CUMC_ERROR(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
		   "operation would make the legacy stream depend on a capturing blocking stream"),
	CUMC_ERROR(CUDA_ERROR_CAPTURED_EVENT,
		   "operation not permitted on an event last recorded in a capturing stream"),
	CUMC_ERROR(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,
		   "attempt to terminate a thread-local capture sequence from another thread"),
	CUMC_ERROR(CUDA_ERROR_TIMEOUT, "wait operation timed out"),
	CUMC_ERROR(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
		   "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update"),
	CUMC_ERROR(CUDA_ERROR_EXTERNAL_DEVICE,
		   "an async error has occured in external entity outside of CUDA"),
	CUMC_ERROR(CUDA_ERROR_INVALID_CLUSTER_SIZE,
		   "a kernel launch error has occurred due to cluster misconfiguration"),
	CUMC_ERROR(CUDA_ERROR_FUNCTION_NOT_LOADED,
		   "the function handle is not loaded when calling an API that requires a loaded function"),
	CUMC_ERROR(CUDA_ERROR_INVALID_RESOURCE_TYPE,
		   "one or more resources passed in are not valid resource types for the operation"),
	CUMC_ERROR(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION,
		   "one or more resources are insufficient or non-applicable for the operation"),
	CUMC_ERROR(CUDA_ERROR_KEY_ROTATION,
		   "an error happened during the key rotation sequence"),
	CUMC_ERROR(CUDA_ERROR_UNKNOWN, "unknown error"),
};

static const struct libcumc_error_text *libcumc_error_lookup(CUresult error)
{
	/* Via unsigned: an out-of-range enum may arrive negative. */
	unsigned long long index = (unsigned long long)error;

	if (index >= sizeof(libcumc_errors) / sizeof(libcumc_errors[0]) ||
	    !libcumc_errors[index].name)
		return NULL;
	return &libcumc_errors[index];
}

const char *libcumc_error_name(CUresult error)
{
	const struct libcumc_error_text *text = libcumc_error_lookup(error);

	return text ? text->name : NULL;
}

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr)
{
	if (!pStr)
		return CUDA_ERROR_INVALID_VALUE;
	*pStr = libcumc_error_name(error);
	return *pStr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr)
{
	const struct libcumc_error_text *text;

	if (!pStr)
		return CUDA_ERROR_INVALID_VALUE;
	text = libcumc_error_lookup(error);
	*pStr = text ? text->description : NULL;
	return text ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
