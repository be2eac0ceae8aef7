// SPDX-License-Identifier: MIT
/*
 * cuGetErrorName and cuGetErrorString: the name and a one-sentence
 * explanation of every CUresult the CUDA 13.0 header defines.
 */
#include <cuda.h>

struct libcumc_error_text {
	const char *name;
	const char *description;
};

/* Indexed by value: lookups are one bounds check and one load. */
#define CUMC_ERROR(code, text) [code] = { #code, text }

static const struct libcumc_error_text libcumc_errors[] = {
	CUMC_ERROR(CUDA_SUCCESS,
		   "no error; for a query, the queried work has completed"),
	CUMC_ERROR(CUDA_ERROR_INVALID_VALUE,
		   "an argument is outside the range of values the call accepts"),
	CUMC_ERROR(CUDA_ERROR_OUT_OF_MEMORY,
		   "not enough memory or other resources were left to carry out the call"),
	CUMC_ERROR(CUDA_ERROR_NOT_INITIALIZED,
		   "the driver has not been initialized with cuInit, or initialization failed"),
	CUMC_ERROR(CUDA_ERROR_DEINITIALIZED,
		   "the driver is shutting down"),
	CUMC_ERROR(CUDA_ERROR_PROFILER_DISABLED,
		   "profiling is unavailable in this run, typically because an external profiler owns it"),
	CUMC_ERROR(CUDA_ERROR_PROFILER_NOT_INITIALIZED,
		   "deprecated: the profiler was used before being initialized"),
	CUMC_ERROR(CUDA_ERROR_PROFILER_ALREADY_STARTED,
		   "deprecated: profiling was started while already running"),
	CUMC_ERROR(CUDA_ERROR_PROFILER_ALREADY_STOPPED,
		   "deprecated: profiling was stopped while not running"),
	CUMC_ERROR(CUDA_ERROR_STUB_LIBRARY,
		   "the program is linked against a stub driver library rather than a working driver"),
	CUMC_ERROR(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER,
		   "the call needs a newer driver than the one installed"),
	CUMC_ERROR(CUDA_ERROR_DEVICE_UNAVAILABLE,
		   "the device cannot be used right now, for example because of its compute mode"),
	CUMC_ERROR(CUDA_ERROR_NO_DEVICE,
		   "the driver found no CUDA-capable device"),
	CUMC_ERROR(CUDA_ERROR_INVALID_DEVICE,
		   "the device ordinal does not name a device, or the device cannot do what was asked"),
	CUMC_ERROR(CUDA_ERROR_DEVICE_NOT_LICENSED,
		   "the device lacks the license (vGPU/Grid) needed to use it"),
	CUMC_ERROR(CUDA_ERROR_INVALID_IMAGE,
		   "the kernel image or module is not valid for the device"),
	CUMC_ERROR(CUDA_ERROR_INVALID_CONTEXT,
		   "no context is current to the thread, or the context passed is not a valid one"),
	CUMC_ERROR(CUDA_ERROR_CONTEXT_ALREADY_CURRENT,
		   "deprecated: the context given was already the current one"),
	CUMC_ERROR(CUDA_ERROR_MAP_FAILED,
		   "mapping or registering a resource failed"),
	CUMC_ERROR(CUDA_ERROR_UNMAP_FAILED,
		   "unmapping or unregistering a resource failed"),
	CUMC_ERROR(CUDA_ERROR_ARRAY_IS_MAPPED,
		   "the array cannot be destroyed while it is mapped"),
	CUMC_ERROR(CUDA_ERROR_ALREADY_MAPPED,
		   "the resource or address range is already mapped"),
	CUMC_ERROR(CUDA_ERROR_NO_BINARY_FOR_GPU,
		   "the module holds no kernel image built for this device"),
	CUMC_ERROR(CUDA_ERROR_ALREADY_ACQUIRED,
		   "the resource has already been acquired"),
	CUMC_ERROR(CUDA_ERROR_NOT_MAPPED,
		   "the resource or address range is not mapped"),
	CUMC_ERROR(CUDA_ERROR_NOT_MAPPED_AS_ARRAY,
		   "the mapped resource cannot be accessed as an array"),
	CUMC_ERROR(CUDA_ERROR_NOT_MAPPED_AS_POINTER,
		   "the mapped resource cannot be accessed through a pointer"),
	CUMC_ERROR(CUDA_ERROR_ECC_UNCORRECTABLE,
		   "the device detected an ECC error it could not correct"),
	CUMC_ERROR(CUDA_ERROR_UNSUPPORTED_LIMIT,
		   "the device does not support the requested CUlimit"),
	CUMC_ERROR(CUDA_ERROR_CONTEXT_ALREADY_IN_USE,
		   "the context is already bound to another CPU thread"),
	CUMC_ERROR(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED,
		   "these two devices cannot access each other's memory"),
	CUMC_ERROR(CUDA_ERROR_INVALID_PTX,
		   "just-in-time compilation of PTX code failed"),
	CUMC_ERROR(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT,
		   "the OpenGL or DirectX context is in error"),
	CUMC_ERROR(CUDA_ERROR_NVLINK_UNCORRECTABLE,
		   "an uncorrectable NVLink error occurred"),
	CUMC_ERROR(CUDA_ERROR_JIT_COMPILER_NOT_FOUND,
		   "the PTX just-in-time compiler library could not be found"),
	CUMC_ERROR(CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
		   "the PTX was produced by a toolchain this driver does not support"),
	CUMC_ERROR(CUDA_ERROR_JIT_COMPILATION_DISABLED,
		   "just-in-time compilation of PTX has been disabled"),
	CUMC_ERROR(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY,
		   "the device does not support the requested execution affinity type"),
	CUMC_ERROR(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC,
		   "the code calls cudaDeviceSynchronize from the device, which is not supported"),
	CUMC_ERROR(CUDA_ERROR_CONTAINED,
		   "a device fault was contained; the process must exit before CUDA can be used again"),
	CUMC_ERROR(CUDA_ERROR_INVALID_SOURCE,
		   "the device source code is invalid or failed to compile or link"),
	CUMC_ERROR(CUDA_ERROR_FILE_NOT_FOUND,
		   "the named file does not exist"),
	CUMC_ERROR(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND,
		   "a symbol of a shared object could not be resolved"),
	CUMC_ERROR(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED,
		   "a shared object failed to initialize"),
	CUMC_ERROR(CUDA_ERROR_OPERATING_SYSTEM,
		   "a call into the operating system failed"),
	CUMC_ERROR(CUDA_ERROR_INVALID_HANDLE,
		   "a handle passed to the call does not refer to a live object"),
	CUMC_ERROR(CUDA_ERROR_ILLEGAL_STATE,
		   "an object the call depends on is not in a state that allows the operation"),
	CUMC_ERROR(CUDA_ERROR_LOSSY_QUERY,
		   "answering the query would drop information, for example about newer features"),
	CUMC_ERROR(CUDA_ERROR_NOT_FOUND,
		   "the named symbol, such as a function or variable, was not found"),
	CUMC_ERROR(CUDA_ERROR_NOT_READY,
		   "work issued earlier has not finished yet; this is a status, not a failure"),
	CUMC_ERROR(CUDA_ERROR_ILLEGAL_ADDRESS,
		   "a kernel accessed an invalid memory address; the process must exit"),
	CUMC_ERROR(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
		   "the launch needs more registers, argument space or other resources than available"),
	CUMC_ERROR(CUDA_ERROR_LAUNCH_TIMEOUT,
		   "a kernel ran longer than the device time limit allows; the process must exit"),
	CUMC_ERROR(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING,
		   "the kernel was launched with an incompatible texturing mode"),
	CUMC_ERROR(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,
		   "peer access to this context is already enabled"),
	CUMC_ERROR(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED,
		   "peer access to this context has not been enabled"),
	CUMC_ERROR(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE,
		   "the device's primary context has already been initialized"),
	CUMC_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED,
		   "the current context is destroyed, or is a primary context not yet initialized"),
	CUMC_ERROR(CUDA_ERROR_ASSERT,
		   "a device-side assertion failed; the context can no longer be used"),
	CUMC_ERROR(CUDA_ERROR_TOO_MANY_PEERS,
		   "the hardware has no resources left to enable another peer mapping"),
	CUMC_ERROR(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
		   "the host memory range is already registered"),
	CUMC_ERROR(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,
		   "the host pointer does not belong to a registered range"),
	CUMC_ERROR(CUDA_ERROR_HARDWARE_STACK_ERROR,
		   "a kernel corrupted or overflowed its stack; the process must exit"),
	CUMC_ERROR(CUDA_ERROR_ILLEGAL_INSTRUCTION,
		   "a kernel executed an illegal instruction; the process must exit"),
	CUMC_ERROR(CUDA_ERROR_MISALIGNED_ADDRESS,
		   "a kernel accessed memory at a misaligned address; the process must exit"),
	CUMC_ERROR(CUDA_ERROR_INVALID_ADDRESS_SPACE,
		   "a kernel used an address in the wrong address space for its instruction; the process must exit"),
	CUMC_ERROR(CUDA_ERROR_INVALID_PC,
		   "a kernel's program counter left its code; the process must exit"),
	CUMC_ERROR(CUDA_ERROR_LAUNCH_FAILED,
		   "a kernel faulted while running; the process must exit"),
	CUMC_ERROR(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
		   "a cooperative launch asked for more blocks than can be resident at once"),
	CUMC_ERROR(CUDA_ERROR_TENSOR_MEMORY_LEAK,
		   "a kernel exited without freeing all of its tensor memory; the process must exit"),
	CUMC_ERROR(CUDA_ERROR_NOT_PERMITTED,
		   "the caller is not allowed to perform this operation"),
	CUMC_ERROR(CUDA_ERROR_NOT_SUPPORTED,
		   "this system or device does not support the operation"),
	CUMC_ERROR(CUDA_ERROR_SYSTEM_NOT_READY,
		   "the system is not ready for CUDA work; check required services such as the fabric manager"),
	CUMC_ERROR(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH,
		   "the CUDA driver and the display driver versions do not match"),
	CUMC_ERROR(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE,
		   "forward-compatibility mode is not supported on the visible hardware"),
	CUMC_ERROR(CUDA_ERROR_MPS_CONNECTION_FAILED,
		   "connecting to the MPS control daemon or server failed"),
	CUMC_ERROR(CUDA_ERROR_MPS_RPC_FAILURE,
		   "a remote call between the MPS client and server failed"),
	CUMC_ERROR(CUDA_ERROR_MPS_SERVER_NOT_READY,
		   "the MPS server cannot accept new clients yet"),
	CUMC_ERROR(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED,
		   "the MPS server has no resources left for another client"),
	CUMC_ERROR(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED,
		   "the MPS server has no resources left for another device connection"),
	CUMC_ERROR(CUDA_ERROR_MPS_CLIENT_TERMINATED,
		   "the MPS server terminated this client; the process must exit"),
	CUMC_ERROR(CUDA_ERROR_CDP_NOT_SUPPORTED,
		   "the module uses dynamic parallelism, which this configuration does not support"),
	CUMC_ERROR(CUDA_ERROR_CDP_VERSION_MISMATCH,
		   "the module mixes incompatible versions of dynamic parallelism"),
	CUMC_ERROR(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
		   "the operation is not allowed while the stream is being captured"),
	CUMC_ERROR(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
		   "the stream capture was invalidated by an earlier error"),
	CUMC_ERROR(CUDA_ERROR_STREAM_CAPTURE_MERGE,
		   "the operation would merge two separate stream captures"),
	CUMC_ERROR(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED,
		   "the capture was not started on this stream"),
	CUMC_ERROR(CUDA_ERROR_STREAM_CAPTURE_UNJOINED,
		   "the capture forked into a stream that was never joined back"),
	CUMC_ERROR(CUDA_ERROR_STREAM_CAPTURE_ISOLATION,
		   "the operation would create a dependency across the capture boundary"),
	CUMC_ERROR(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
		   "the operation would implicitly depend on a capture through the legacy stream"),
	CUMC_ERROR(CUDA_ERROR_CAPTURED_EVENT,
		   "the event was last recorded in a stream that is being captured"),
	CUMC_ERROR(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,
		   "a capture not begun in relaxed mode was ended from another thread"),
	CUMC_ERROR(CUDA_ERROR_TIMEOUT,
		   "the wait ran out of time"),
	CUMC_ERROR(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
		   "the graph changes break the rules for updating an instantiated graph"),
	CUMC_ERROR(CUDA_ERROR_EXTERNAL_DEVICE,
		   "a device outside CUDA signalled an error; the process must exit"),
	CUMC_ERROR(CUDA_ERROR_INVALID_CLUSTER_SIZE,
		   "the kernel launch used an invalid cluster configuration"),
	CUMC_ERROR(CUDA_ERROR_FUNCTION_NOT_LOADED,
		   "the function handle refers to a function that is not loaded"),
	CUMC_ERROR(CUDA_ERROR_INVALID_RESOURCE_TYPE,
		   "a resource passed is of a type the operation does not accept"),
	CUMC_ERROR(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION,
		   "the resources passed are insufficient or do not fit the operation"),
	CUMC_ERROR(CUDA_ERROR_KEY_ROTATION,
		   "the encryption key rotation sequence failed"),
	CUMC_ERROR(CUDA_ERROR_UNKNOWN,
		   "an unknown internal error occurred"),
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

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr)
{
	const struct libcumc_error_text *text;

	if (!pStr)
		return CUDA_ERROR_INVALID_VALUE;
	text = libcumc_error_lookup(error);
	*pStr = text ? text->name : NULL;
	return text ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
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
