/* SPDX-License-Identifier: MIT */
/*
 * libcumc's <cuda.h>: the part of the CUDA 13.0 driver API that cumc
 * implements, for programs built without a CUDA toolkit.
 *
 * Names, enumerator values, struct layouts and the versioned symbol names
 * selected by the macros below are those of the toolkit's cuda.h, so a
 * program compiles the same way against either header and binaries built
 * against either run on libcumc.  tests/abi/abi_check.sh verifies that.
 *
 * The include guard is the toolkit's own: whichever of the two headers a
 * translation unit meets first wins, and the other one is skipped instead
 * of redefining every type.
 */
#ifndef __cuda_cuda_h__
#define __cuda_cuda_h__

/* The toolkit header pulls these in; programs come to rely on it. */
#include <stdlib.h>
#include <stdint.h>

typedef uint32_t cuuint32_t;
typedef uint64_t cuuint64_t;

/*
 * Versioned entry points.  A call written as cuMemcpyHtoD() links against
 * cuMemcpyHtoD_v2, exactly as with the toolkit's header; per-thread
 * default stream builds get the _ptds/_ptsz names (see below).
 */
#define cuDeviceTotalMem		cuDeviceTotalMem_v2
#define cuCtxCreate			cuCtxCreate_v4
#define cuMemGetInfo			cuMemGetInfo_v2
#define cuMemGetAddressRange		cuMemGetAddressRange_v2
#define cuMemcpyHtoD			cuMemcpyHtoD_v2
#define cuMemcpyDtoH			cuMemcpyDtoH_v2
#define cuMemcpyDtoD			cuMemcpyDtoD_v2
#define cuMemsetD8			cuMemsetD8_v2
#define cuMemsetD16			cuMemsetD16_v2
#define cuMemsetD32			cuMemsetD32_v2
#define cuCtxDestroy			cuCtxDestroy_v2
#define cuCtxPopCurrent			cuCtxPopCurrent_v2
#define cuCtxPushCurrent		cuCtxPushCurrent_v2
#define cuDevicePrimaryCtxRelease	cuDevicePrimaryCtxRelease_v2
#define cuDevicePrimaryCtxReset		cuDevicePrimaryCtxReset_v2
#define cuDeviceGetUuid			cuDeviceGetUuid_v2
#define cuGetProcAddress		cuGetProcAddress_v2
/* Plain and host allocation, modules (branch alloc). */
#define cuMemAlloc			cuMemAlloc_v2
#define cuMemAllocPitch			cuMemAllocPitch_v2
#define cuMemFree			cuMemFree_v2
#define cuMemAllocHost			cuMemAllocHost_v2
#define cuMemHostGetDevicePointer	cuMemHostGetDevicePointer_v2
#define cuMemHostRegister		cuMemHostRegister_v2
#define cuModuleGetGlobal		cuModuleGetGlobal_v2
#define cuLinkCreate			cuLinkCreate_v2
#define cuLinkAddData			cuLinkAddData_v2
#define cuLinkAddFile			cuLinkAddFile_v2
#define cuDevicePrimaryCtxSetFlags	cuDevicePrimaryCtxSetFlags_v2

/*
 * Streams, events and stream memory operations.  Entry points whose
 * default stream differs with CUDA_API_PER_THREAD_DEFAULT_STREAM link
 * against their _ptds (synchronous) or _ptsz (stream-taking) variants in
 * such builds, as with the toolkit's header: there the NULL stream is the
 * calling thread's per-thread default stream.
 */
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define __CUDA_API_PER_THREAD_DEFAULT_STREAM
#define __CUDA_API_PTDS(api) api ## _ptds
#define __CUDA_API_PTSZ(api) api ## _ptsz
#else
#define __CUDA_API_PTDS(api) api
#define __CUDA_API_PTSZ(api) api
#endif

#undef cuMemcpyHtoD
#undef cuMemcpyDtoH
#undef cuMemcpyDtoD
#undef cuMemsetD8
#undef cuMemsetD16
#undef cuMemsetD32
#define cuMemcpyHtoD			__CUDA_API_PTDS(cuMemcpyHtoD_v2)
#define cuMemcpyDtoH			__CUDA_API_PTDS(cuMemcpyDtoH_v2)
#define cuMemcpyDtoD			__CUDA_API_PTDS(cuMemcpyDtoD_v2)
#define cuMemsetD8			__CUDA_API_PTDS(cuMemsetD8_v2)
#define cuMemsetD16			__CUDA_API_PTDS(cuMemsetD16_v2)
#define cuMemsetD32			__CUDA_API_PTDS(cuMemsetD32_v2)
#define cuMemcpyHtoDAsync		__CUDA_API_PTSZ(cuMemcpyHtoDAsync_v2)
#define cuMemcpyDtoHAsync		__CUDA_API_PTSZ(cuMemcpyDtoHAsync_v2)
#define cuMemcpyDtoDAsync		__CUDA_API_PTSZ(cuMemcpyDtoDAsync_v2)
#define cuStreamDestroy			cuStreamDestroy_v2
#define cuEventDestroy			cuEventDestroy_v2
#define cuEventElapsedTime		cuEventElapsedTime_v2
#define cuStreamWriteValue32		__CUDA_API_PTSZ(cuStreamWriteValue32_v2)
#define cuStreamWaitValue32		__CUDA_API_PTSZ(cuStreamWaitValue32_v2)
#define cuStreamWriteValue64		__CUDA_API_PTSZ(cuStreamWriteValue64_v2)
#define cuStreamWaitValue64		__CUDA_API_PTSZ(cuStreamWaitValue64_v2)
#define cuStreamBatchMemOp		__CUDA_API_PTSZ(cuStreamBatchMemOp_v2)
#if defined(__CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define cuMemcpy			__CUDA_API_PTDS(cuMemcpy)
#define cuMemcpyAsync			__CUDA_API_PTSZ(cuMemcpyAsync)
#define cuMemsetD8Async			__CUDA_API_PTSZ(cuMemsetD8Async)
#define cuMemsetD16Async		__CUDA_API_PTSZ(cuMemsetD16Async)
#define cuMemsetD32Async		__CUDA_API_PTSZ(cuMemsetD32Async)
#define cuStreamGetPriority		__CUDA_API_PTSZ(cuStreamGetPriority)
#define cuStreamGetId			__CUDA_API_PTSZ(cuStreamGetId)
#define cuStreamGetFlags		__CUDA_API_PTSZ(cuStreamGetFlags)
#define cuStreamIsCapturing		__CUDA_API_PTSZ(cuStreamIsCapturing)
#define cuStreamGetDevice		__CUDA_API_PTSZ(cuStreamGetDevice)
#define cuStreamGetCtx			__CUDA_API_PTSZ(cuStreamGetCtx)
#define cuStreamGetCtx_v2		__CUDA_API_PTSZ(cuStreamGetCtx_v2)
#define cuStreamWaitEvent		__CUDA_API_PTSZ(cuStreamWaitEvent)
#define cuStreamAddCallback		__CUDA_API_PTSZ(cuStreamAddCallback)
#define cuStreamQuery			__CUDA_API_PTSZ(cuStreamQuery)
#define cuStreamSynchronize		__CUDA_API_PTSZ(cuStreamSynchronize)
#define cuEventRecord			__CUDA_API_PTSZ(cuEventRecord)
#define cuEventRecordWithFlags		__CUDA_API_PTSZ(cuEventRecordWithFlags)
#define cuLaunchHostFunc		__CUDA_API_PTSZ(cuLaunchHostFunc)
#define cuLaunchKernel			__CUDA_API_PTSZ(cuLaunchKernel)
#define cuLaunchKernelEx		__CUDA_API_PTSZ(cuLaunchKernelEx)
#define cuLaunchCooperativeKernel	__CUDA_API_PTSZ(cuLaunchCooperativeKernel)
#endif

/* Graphs and stream capture (branch graphs). */
#define cuGraphInstantiate		cuGraphInstantiateWithFlags
#define cuGraphAddKernelNode		cuGraphAddKernelNode_v2
#define cuGraphKernelNodeGetParams	cuGraphKernelNodeGetParams_v2
#define cuGraphKernelNodeSetParams	cuGraphKernelNodeSetParams_v2
#define cuGraphExecKernelNodeSetParams	cuGraphExecKernelNodeSetParams_v2
#define cuGraphExecUpdate		cuGraphExecUpdate_v2
#define cuGraphGetEdges			cuGraphGetEdges_v2
#define cuGraphNodeGetDependencies	cuGraphNodeGetDependencies_v2
#define cuGraphNodeGetDependentNodes	cuGraphNodeGetDependentNodes_v2
#define cuGraphAddDependencies		cuGraphAddDependencies_v2
#define cuGraphRemoveDependencies	cuGraphRemoveDependencies_v2
#define cuGraphAddNode			cuGraphAddNode_v2
#define cuStreamBeginCapture		__CUDA_API_PTSZ(cuStreamBeginCapture_v2)
#define cuStreamGetCaptureInfo		__CUDA_API_PTSZ(cuStreamGetCaptureInfo_v3)
#define cuStreamUpdateCaptureDependencies \
	__CUDA_API_PTSZ(cuStreamUpdateCaptureDependencies_v2)
#if defined(__CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define cuStreamEndCapture		__CUDA_API_PTSZ(cuStreamEndCapture)
#define cuGraphInstantiateWithParams	__CUDA_API_PTSZ(cuGraphInstantiateWithParams)
#define cuGraphUpload			__CUDA_API_PTSZ(cuGraphUpload)
#define cuGraphLaunch			__CUDA_API_PTSZ(cuGraphLaunch)
#define cuStreamBeginCaptureToGraph	__CUDA_API_PTSZ(cuStreamBeginCaptureToGraph)
#define cuMemBatchDecompressAsync	__CUDA_API_PTSZ(cuMemBatchDecompressAsync)
#define cuStreamGetAttribute		__CUDA_API_PTSZ(cuStreamGetAttribute)
#define cuStreamSetAttribute		__CUDA_API_PTSZ(cuStreamSetAttribute)
#define cuStreamCopyAttributes		__CUDA_API_PTSZ(cuStreamCopyAttributes)
#endif

/*
 * Arrays, 2D and 3D copies, 2D sets (lib/array.c, lib/copy3d.c).  The
 * synchronous copies and sets have _ptds flavours, the Async ones _ptsz.
 */
#define cuArrayCreate			cuArrayCreate_v2
#define cuArrayGetDescriptor		cuArrayGetDescriptor_v2
#define cuArray3DCreate			cuArray3DCreate_v2
#define cuArray3DGetDescriptor		cuArray3DGetDescriptor_v2
#define cuTexRefSetAddress		cuTexRefSetAddress_v2
#define cuTexRefGetAddress		cuTexRefGetAddress_v2
#define cuTexRefSetAddress2D		cuTexRefSetAddress2D_v3
#define cuGraphicsResourceGetMappedPointer	cuGraphicsResourceGetMappedPointer_v2
#define cuGraphicsResourceSetMapFlags	cuGraphicsResourceSetMapFlags_v2
#define cuMemcpyDtoA			__CUDA_API_PTDS(cuMemcpyDtoA_v2)
#define cuMemcpyAtoD			__CUDA_API_PTDS(cuMemcpyAtoD_v2)
#define cuMemcpyHtoA			__CUDA_API_PTDS(cuMemcpyHtoA_v2)
#define cuMemcpyAtoH			__CUDA_API_PTDS(cuMemcpyAtoH_v2)
#define cuMemcpyAtoA			__CUDA_API_PTDS(cuMemcpyAtoA_v2)
#define cuMemcpyHtoAAsync		__CUDA_API_PTSZ(cuMemcpyHtoAAsync_v2)
#define cuMemcpyAtoHAsync		__CUDA_API_PTSZ(cuMemcpyAtoHAsync_v2)
#define cuMemcpy2D			__CUDA_API_PTDS(cuMemcpy2D_v2)
#define cuMemcpy2DUnaligned		__CUDA_API_PTDS(cuMemcpy2DUnaligned_v2)
#define cuMemcpy3D			__CUDA_API_PTDS(cuMemcpy3D_v2)
#define cuMemcpy2DAsync			__CUDA_API_PTSZ(cuMemcpy2DAsync_v2)
#define cuMemcpy3DAsync			__CUDA_API_PTSZ(cuMemcpy3DAsync_v2)
#define cuMemsetD2D8			__CUDA_API_PTDS(cuMemsetD2D8_v2)
#define cuMemsetD2D16			__CUDA_API_PTDS(cuMemsetD2D16_v2)
#define cuMemsetD2D32			__CUDA_API_PTDS(cuMemsetD2D32_v2)
#define cuMemcpyBatchAsync		__CUDA_API_PTSZ(cuMemcpyBatchAsync_v2)
#define cuMemcpy3DBatchAsync		__CUDA_API_PTSZ(cuMemcpy3DBatchAsync_v2)
#if defined(__CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define cuMemcpy3DPeer			__CUDA_API_PTDS(cuMemcpy3DPeer)
#define cuMemcpyPeer			__CUDA_API_PTDS(cuMemcpyPeer)
#define cuMemcpyPeerAsync		__CUDA_API_PTSZ(cuMemcpyPeerAsync)
#define cuMemcpy3DPeerAsync		__CUDA_API_PTSZ(cuMemcpy3DPeerAsync)
#define cuMemsetD2D8Async		__CUDA_API_PTSZ(cuMemsetD2D8Async)
#define cuMemsetD2D16Async		__CUDA_API_PTSZ(cuMemsetD2D16Async)
#define cuMemsetD2D32Async		__CUDA_API_PTSZ(cuMemsetD2D32Async)
#define cuSignalExternalSemaphoresAsync	__CUDA_API_PTSZ(cuSignalExternalSemaphoresAsync)
#define cuWaitExternalSemaphoresAsync	__CUDA_API_PTSZ(cuWaitExternalSemaphoresAsync)
#define cuGraphicsMapResources		__CUDA_API_PTSZ(cuGraphicsMapResources)
#define cuGraphicsUnmapResources	__CUDA_API_PTSZ(cuGraphicsUnmapResources)
#define cuMemMapArrayAsync		__CUDA_API_PTSZ(cuMemMapArrayAsync)
#endif

/* Stream-ordered allocator: its per-thread default stream names. */
#if defined(__CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define cuMemAllocAsync			__CUDA_API_PTSZ(cuMemAllocAsync)
#define cuMemFreeAsync			__CUDA_API_PTSZ(cuMemFreeAsync)
#define cuMemAllocFromPoolAsync		__CUDA_API_PTSZ(cuMemAllocFromPoolAsync)
#endif

#define cuIpcOpenMemHandle		cuIpcOpenMemHandle_v2

/* Managed memory: CUDA 12.2's location-taking forms are the default. */
#define cuMemAdvise			cuMemAdvise_v2
#define cuMemPrefetchAsync		__CUDA_API_PTSZ(cuMemPrefetchAsync_v2)
#if defined(__CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define cuMemPrefetchBatchAsync		__CUDA_API_PTSZ(cuMemPrefetchBatchAsync)
#define cuMemDiscardBatchAsync		__CUDA_API_PTSZ(cuMemDiscardBatchAsync)
#define cuMemDiscardAndPrefetchBatchAsync \
	__CUDA_API_PTSZ(cuMemDiscardAndPrefetchBatchAsync)
#define cuStreamAttachMemAsync		__CUDA_API_PTSZ(cuStreamAttachMemAsync)
#endif

/* API version this header describes: 13.0. */
#define CUDA_VERSION 13000

#ifdef _WIN32
#define CUDAAPI __stdcall
#else
#define CUDAAPI
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Device virtual address; as wide as a host pointer. */
#if defined(_WIN64) || defined(__LP64__)
typedef unsigned long long CUdeviceptr_v2;
#else
typedef unsigned int CUdeviceptr_v2;
#endif
typedef CUdeviceptr_v2 CUdeviceptr;

/* Device ordinal. */
typedef int CUdevice_v1;
typedef CUdevice_v1 CUdevice;

/* Context handle; the struct is never defined for callers. */
typedef struct CUctx_st *CUcontext;

/* Stream, event and green context handles (streams and events: stream.c). */
typedef struct CUevent_st *CUevent;
typedef struct CUstream_st *CUstream;
typedef struct CUgreenCtx_st *CUgreenCtx;

/* 128-bit device identifier. The runtime headers share this guard. */
#ifndef CU_UUID_HAS_BEEN_DEFINED
#define CU_UUID_HAS_BEEN_DEFINED
typedef struct CUuuid_st {
	char bytes[16];
} CUuuid;
#endif

#define CU_IPC_HANDLE_SIZE 64

/* Opaque bytes naming an allocation across processes and nodes. */
typedef struct CUmemFabricHandle_st {
	unsigned char data[CU_IPC_HANDLE_SIZE];
} CUmemFabricHandle_v1;
typedef CUmemFabricHandle_v1 CUmemFabricHandle;

/* Legacy interprocess handles (cuIpcGetMemHandle, cuIpcGetEventHandle). */
typedef struct CUipcEventHandle_st {
	char reserved[CU_IPC_HANDLE_SIZE];
} CUipcEventHandle_v1;
typedef CUipcEventHandle_v1 CUipcEventHandle;

typedef struct CUipcMemHandle_st {
	char reserved[CU_IPC_HANDLE_SIZE];
} CUipcMemHandle_v1;
typedef CUipcMemHandle_v1 CUipcMemHandle;

typedef enum CUipcMem_flags_enum {
	CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 0x1
} CUipcMem_flags;

/* Flags accepted by cuCtxCreate. */
typedef enum CUctx_flags_enum {
	CU_CTX_SCHED_AUTO		= 0x00,
	CU_CTX_SCHED_SPIN		= 0x01,
	CU_CTX_SCHED_YIELD		= 0x02,
	CU_CTX_SCHED_BLOCKING_SYNC	= 0x04,
	CU_CTX_BLOCKING_SYNC		= 0x04,	/* old name of the above */
	CU_CTX_SCHED_MASK		= 0x07,
	CU_CTX_MAP_HOST			= 0x08,	/* no effect, always on */
	CU_CTX_LMEM_RESIZE_TO_MAX	= 0x10,
	CU_CTX_COREDUMP_ENABLE		= 0x20,
	CU_CTX_USER_COREDUMP_ENABLE	= 0x40,
	CU_CTX_SYNC_MEMOPS		= 0x80,
	CU_CTX_FLAGS_MASK		= 0xFF
} CUctx_flags;

/* Device properties queried by cuDeviceGetAttribute. */
typedef enum CUdevice_attribute_enum {
	CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
	CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
	CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
	CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
	CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
	CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
	CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
	CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
	CU_DEVICE_ATTRIBUTE_SHARED_MEMORY_PER_BLOCK = 8,
	CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY = 9,
	CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
	CU_DEVICE_ATTRIBUTE_MAX_PITCH = 11,
	CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12,
	CU_DEVICE_ATTRIBUTE_REGISTERS_PER_BLOCK = 12,
	CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
	CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT = 14,
	CU_DEVICE_ATTRIBUTE_GPU_OVERLAP = 15,
	CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
	CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT = 17,
	CU_DEVICE_ATTRIBUTE_INTEGRATED = 18,
	CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY = 19,
	CU_DEVICE_ATTRIBUTE_COMPUTE_MODE = 20,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH = 21,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH = 22,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT = 23,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH = 24,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT = 25,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH = 26,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH = 27,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT = 28,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS = 29,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_WIDTH = 27,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_HEIGHT = 28,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_NUMSLICES = 29,
	CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT = 30,
	CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS = 31,
	CU_DEVICE_ATTRIBUTE_ECC_ENABLED = 32,
	CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
	CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
	CU_DEVICE_ATTRIBUTE_TCC_DRIVER = 35,
	CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36,
	CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37,
	CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
	CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
	CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT = 40,
	CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH = 42,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS = 43,
	CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER = 44,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH = 45,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT = 46,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE = 47,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE = 48,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE = 49,
	CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50,
	CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT = 51,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH = 52,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH = 53,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS = 54,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH = 55,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH = 56,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT = 57,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH = 58,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT = 59,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH = 60,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH = 61,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS = 62,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH = 63,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT = 64,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS = 65,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH = 66,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH = 67,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS = 68,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH = 69,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH = 70,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT = 71,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH = 72,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH = 73,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT = 74,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH = 77,
	CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED = 78,
	CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED = 79,
	CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED = 80,
	CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
	CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
	CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY = 83,
	CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD = 84,
	CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID = 85,
	CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED = 86,
	CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO = 87,
	CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS = 88,
	CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS = 89,
	CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED = 90,
	CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM = 91,
	CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1 = 92,
	CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1 = 93,
	CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1 = 94,
	CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH = 95,
	CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH = 96,
	CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
	CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES = 98,
	CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED = 99,
	CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES = 100,
	CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST = 101,
	CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED = 102,
	CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 102,
	CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED = 103,
	CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED = 104,
	CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED = 105,
	CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR = 106,
	CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED = 107,
	CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE = 108,
	CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE = 109,
	CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED = 110,
	CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK = 111,
	CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED = 112,
	CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED = 113,
	CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED = 114,
	CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 115,
	CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED = 116,
	CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS = 117,
	CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING = 118,
	CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES = 119,
	CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH = 120,
	CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED = 121,
	CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS = 122,
	CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR = 123,
	CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 124,
	CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED = 125,
	CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT = 126,
	CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED = 127,
	CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED = 128,
	CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS = 129,
	CU_DEVICE_ATTRIBUTE_NUMA_CONFIG = 130,
	CU_DEVICE_ATTRIBUTE_NUMA_ID = 131,
	CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED = 132,
	CU_DEVICE_ATTRIBUTE_MPS_ENABLED = 133,
	CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID = 134,
	CU_DEVICE_ATTRIBUTE_D3D12_CIG_SUPPORTED = 135,
	CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK = 136,
	CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH = 137,
	CU_DEVICE_ATTRIBUTE_VULKAN_CIG_SUPPORTED = 138,
	CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID = 139,
	CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID = 140,
	CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 141,
	CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED = 142,
	CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED = 143,
	CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED = 144,
	CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 145,
	CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED = 146,
	CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED = 147,
	CU_DEVICE_ATTRIBUTE_MAX
} CUdevice_attribute;

/* Properties of an address queried by cuPointerGetAttribute(s). */
typedef enum CUpointer_attribute_enum {
	CU_POINTER_ATTRIBUTE_CONTEXT = 1,
	CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
	CU_POINTER_ATTRIBUTE_DEVICE_POINTER = 3,
	CU_POINTER_ATTRIBUTE_HOST_POINTER = 4,
	CU_POINTER_ATTRIBUTE_P2P_TOKENS = 5,
	CU_POINTER_ATTRIBUTE_SYNC_MEMOPS = 6,
	CU_POINTER_ATTRIBUTE_BUFFER_ID = 7,
	CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,
	CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
	CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE = 10,
	CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
	CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12,
	CU_POINTER_ATTRIBUTE_MAPPED = 13,
	CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES = 14,
	CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE = 15,
	CU_POINTER_ATTRIBUTE_ACCESS_FLAGS = 16,
	CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE = 17,
	CU_POINTER_ATTRIBUTE_MAPPING_SIZE = 18,
	CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR = 19,
	CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID = 20,
	CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE = 21
} CUpointer_attribute;

/* Kind of memory an address refers to (CU_POINTER_ATTRIBUTE_MEMORY_TYPE). */
typedef enum CUmemorytype_enum {
	CU_MEMORYTYPE_HOST	= 0x01,
	CU_MEMORYTYPE_DEVICE	= 0x02,
	CU_MEMORYTYPE_ARRAY	= 0x03,
	CU_MEMORYTYPE_UNIFIED	= 0x04
} CUmemorytype;

/* Answer to CU_POINTER_ATTRIBUTE_ACCESS_FLAGS. */
typedef enum CUDA_POINTER_ATTRIBUTE_ACCESS_FLAGS_enum {
	CU_POINTER_ATTRIBUTE_ACCESS_FLAG_NONE		= 0x0,
	CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READ		= 0x1,
	CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE	= 0x3
} CUDA_POINTER_ATTRIBUTE_ACCESS_FLAGS;

/* Stream-flavour selection for cuGetProcAddress. */
typedef enum CUdriverProcAddress_flags_enum {
	CU_GET_PROC_ADDRESS_DEFAULT			= 0,
	CU_GET_PROC_ADDRESS_LEGACY_STREAM		= 1 << 0,
	CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM	= 1 << 1
} CUdriverProcAddress_flags;

/* Why cuGetProcAddress did or did not return a function. */
typedef enum CUdriverProcAddressQueryResult_enum {
	CU_GET_PROC_ADDRESS_SUCCESS			= 0,
	CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND		= 1,
	CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT	= 2
} CUdriverProcAddressQueryResult;

/* Resource kinds a context can be limited by at creation. */
typedef enum CUexecAffinityType_enum {
	CU_EXEC_AFFINITY_TYPE_SM_COUNT = 0,
	CU_EXEC_AFFINITY_TYPE_MAX
} CUexecAffinityType;

/* SM-count limit for a context. */
typedef struct CUexecAffinitySmCount_st {
	unsigned int val;
} CUexecAffinitySmCount_v1;
typedef CUexecAffinitySmCount_v1 CUexecAffinitySmCount;

/* One execution-affinity limit, tagged by its type. */
typedef struct CUexecAffinityParam_st {
	CUexecAffinityType type;
	union {
		CUexecAffinitySmCount smCount;
	} param;
} CUexecAffinityParam_v1;
typedef CUexecAffinityParam_v1 CUexecAffinityParam;

/* What CUctxCigParam::sharedData points to. */
typedef enum CUcigDataType_enum {
	CIG_DATA_TYPE_D3D12_COMMAND_QUEUE	= 0x1,
	CIG_DATA_TYPE_NV_BLOB			= 0x2,
} CUcigDataType;

/* Graphics-interop data for a context created in CIG mode. */
typedef struct CUctxCigParam_st {
	CUcigDataType sharedDataType;
	void *sharedData;
} CUctxCigParam;

/* Optional extras for cuCtxCreate; NULL selects a plain context. */
typedef struct CUctxCreateParams_st {
	CUexecAffinityParam *execAffinityParams;
	int numExecAffinityParams;
	CUctxCigParam *cigParams;
} CUctxCreateParams;

/* Status codes returned by every entry point. */
typedef enum cudaError_enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_INVALID_VALUE = 1,
	CUDA_ERROR_OUT_OF_MEMORY = 2,
	CUDA_ERROR_NOT_INITIALIZED = 3,
	CUDA_ERROR_DEINITIALIZED = 4,
	CUDA_ERROR_PROFILER_DISABLED = 5,
	CUDA_ERROR_PROFILER_NOT_INITIALIZED = 6,
	CUDA_ERROR_PROFILER_ALREADY_STARTED = 7,
	CUDA_ERROR_PROFILER_ALREADY_STOPPED = 8,
	CUDA_ERROR_STUB_LIBRARY = 34,
	CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER = 36,
	CUDA_ERROR_DEVICE_UNAVAILABLE = 46,
	CUDA_ERROR_NO_DEVICE = 100,
	CUDA_ERROR_INVALID_DEVICE = 101,
	CUDA_ERROR_DEVICE_NOT_LICENSED = 102,
	CUDA_ERROR_INVALID_IMAGE = 200,
	CUDA_ERROR_INVALID_CONTEXT = 201,
	CUDA_ERROR_CONTEXT_ALREADY_CURRENT = 202,
	CUDA_ERROR_MAP_FAILED = 205,
	CUDA_ERROR_UNMAP_FAILED = 206,
	CUDA_ERROR_ARRAY_IS_MAPPED = 207,
	CUDA_ERROR_ALREADY_MAPPED = 208,
	CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
	CUDA_ERROR_ALREADY_ACQUIRED = 210,
	CUDA_ERROR_NOT_MAPPED = 211,
	CUDA_ERROR_NOT_MAPPED_AS_ARRAY = 212,
	CUDA_ERROR_NOT_MAPPED_AS_POINTER = 213,
	CUDA_ERROR_ECC_UNCORRECTABLE = 214,
	CUDA_ERROR_UNSUPPORTED_LIMIT = 215,
	CUDA_ERROR_CONTEXT_ALREADY_IN_USE = 216,
	CUDA_ERROR_PEER_ACCESS_UNSUPPORTED = 217,
	CUDA_ERROR_INVALID_PTX = 218,
	CUDA_ERROR_INVALID_GRAPHICS_CONTEXT = 219,
	CUDA_ERROR_NVLINK_UNCORRECTABLE = 220,
	CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
	CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
	CUDA_ERROR_JIT_COMPILATION_DISABLED = 223,
	CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY = 224,
	CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC = 225,
	CUDA_ERROR_CONTAINED = 226,
	CUDA_ERROR_INVALID_SOURCE = 300,
	CUDA_ERROR_FILE_NOT_FOUND = 301,
	CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND = 302,
	CUDA_ERROR_SHARED_OBJECT_INIT_FAILED = 303,
	CUDA_ERROR_OPERATING_SYSTEM = 304,
	CUDA_ERROR_INVALID_HANDLE = 400,
	CUDA_ERROR_ILLEGAL_STATE = 401,
	CUDA_ERROR_LOSSY_QUERY = 402,
	CUDA_ERROR_NOT_FOUND = 500,
	CUDA_ERROR_NOT_READY = 600,
	CUDA_ERROR_ILLEGAL_ADDRESS = 700,
	CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
	CUDA_ERROR_LAUNCH_TIMEOUT = 702,
	CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING = 703,
	CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
	CUDA_ERROR_PEER_ACCESS_NOT_ENABLED = 705,
	CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE = 708,
	CUDA_ERROR_CONTEXT_IS_DESTROYED = 709,
	CUDA_ERROR_ASSERT = 710,
	CUDA_ERROR_TOO_MANY_PEERS = 711,
	CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712,
	CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED = 713,
	CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
	CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
	CUDA_ERROR_MISALIGNED_ADDRESS = 716,
	CUDA_ERROR_INVALID_ADDRESS_SPACE = 717,
	CUDA_ERROR_INVALID_PC = 718,
	CUDA_ERROR_LAUNCH_FAILED = 719,
	CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720,
	CUDA_ERROR_TENSOR_MEMORY_LEAK = 721,
	CUDA_ERROR_NOT_PERMITTED = 800,
	CUDA_ERROR_NOT_SUPPORTED = 801,
	CUDA_ERROR_SYSTEM_NOT_READY = 802,
	CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
	CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804,
	CUDA_ERROR_MPS_CONNECTION_FAILED = 805,
	CUDA_ERROR_MPS_RPC_FAILURE = 806,
	CUDA_ERROR_MPS_SERVER_NOT_READY = 807,
	CUDA_ERROR_MPS_MAX_CLIENTS_REACHED = 808,
	CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED = 809,
	CUDA_ERROR_MPS_CLIENT_TERMINATED = 810,
	CUDA_ERROR_CDP_NOT_SUPPORTED = 811,
	CUDA_ERROR_CDP_VERSION_MISMATCH = 812,
	CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900,
	CUDA_ERROR_STREAM_CAPTURE_INVALIDATED = 901,
	CUDA_ERROR_STREAM_CAPTURE_MERGE = 902,
	CUDA_ERROR_STREAM_CAPTURE_UNMATCHED = 903,
	CUDA_ERROR_STREAM_CAPTURE_UNJOINED = 904,
	CUDA_ERROR_STREAM_CAPTURE_ISOLATION = 905,
	CUDA_ERROR_STREAM_CAPTURE_IMPLICIT = 906,
	CUDA_ERROR_CAPTURED_EVENT = 907,
	CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD = 908,
	CUDA_ERROR_TIMEOUT = 909,
	CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE = 910,
	CUDA_ERROR_EXTERNAL_DEVICE = 911,
	CUDA_ERROR_INVALID_CLUSTER_SIZE = 912,
	CUDA_ERROR_FUNCTION_NOT_LOADED = 913,
	CUDA_ERROR_INVALID_RESOURCE_TYPE = 914,
	CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION = 915,
	CUDA_ERROR_KEY_ROTATION = 916,
	CUDA_ERROR_UNKNOWN = 999
} CUresult;

/* Handle of a physical allocation or multicast object (cuMemCreate etc.). */
typedef unsigned long long CUmemGenericAllocationHandle_v1;
typedef CUmemGenericAllocationHandle_v1 CUmemGenericAllocationHandle;

/* Ways an allocation may be shared with other processes; a bitmask. */
typedef enum CUmemAllocationHandleType_enum {
	CU_MEM_HANDLE_TYPE_NONE				= 0x0,
	CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR	= 0x1,
	CU_MEM_HANDLE_TYPE_WIN32			= 0x2,
	CU_MEM_HANDLE_TYPE_WIN32_KMT			= 0x4,
	CU_MEM_HANDLE_TYPE_FABRIC			= 0x8,
	CU_MEM_HANDLE_TYPE_MAX				= 0x7FFFFFFF
} CUmemAllocationHandleType;

/* Protection a location gets on a mapped range (cuMemSetAccess). */
typedef enum CUmemAccess_flags_enum {
	CU_MEM_ACCESS_FLAGS_PROT_NONE		= 0x0,
	CU_MEM_ACCESS_FLAGS_PROT_READ		= 0x1,
	CU_MEM_ACCESS_FLAGS_PROT_READWRITE	= 0x3,
	CU_MEM_ACCESS_FLAGS_PROT_MAX		= 0x7FFFFFFF
} CUmemAccess_flags;

/* Where memory lives or who accesses it; selects the meaning of the id. */
typedef enum CUmemLocationType_enum {
	CU_MEM_LOCATION_TYPE_INVALID		= 0x0,
	CU_MEM_LOCATION_TYPE_NONE		= 0x0,
	CU_MEM_LOCATION_TYPE_DEVICE		= 0x1,
	CU_MEM_LOCATION_TYPE_HOST		= 0x2,
	CU_MEM_LOCATION_TYPE_HOST_NUMA		= 0x3,
	CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT	= 0x4,
	CU_MEM_LOCATION_TYPE_MAX		= 0x7FFFFFFF
} CUmemLocationType;

/* Kind of physical allocation cuMemCreate makes. */
typedef enum CUmemAllocationType_enum {
	CU_MEM_ALLOCATION_TYPE_INVALID	= 0x0,
	CU_MEM_ALLOCATION_TYPE_PINNED	= 0x1,	/* stays where it was placed */
	CU_MEM_ALLOCATION_TYPE_MANAGED	= 0x2,
	CU_MEM_ALLOCATION_TYPE_MAX	= 0x7FFFFFFF
} CUmemAllocationType;

/* Which granularity cuMemGetAllocationGranularity reports. */
typedef enum CUmemAllocationGranularity_flags_enum {
	CU_MEM_ALLOC_GRANULARITY_MINIMUM	= 0x0,
	CU_MEM_ALLOC_GRANULARITY_RECOMMENDED	= 0x1
} CUmemAllocationGranularity_flags;

/* A memory location: a device ordinal, a host NUMA node or the host. */
typedef struct CUmemLocation_st {
	CUmemLocationType type;
	int id;
} CUmemLocation_v1;
typedef CUmemLocation_v1 CUmemLocation;

/* The CPU and no processor, where a device ordinal is expected. */
#define CU_DEVICE_CPU		((CUdevice)-1)
#define CU_DEVICE_INVALID	((CUdevice)-2)

/* Managed memory's stream association (cuMemAllocManaged). */
typedef enum CUmemAttach_flags_enum {
	CU_MEM_ATTACH_GLOBAL	= 0x1,	/* any stream on any device */
	CU_MEM_ATTACH_HOST	= 0x2,	/* no stream on any device */
	CU_MEM_ATTACH_SINGLE	= 0x4	/* one stream of its device */
} CUmemAttach_flags;

/* Advice on how managed memory is used (cuMemAdvise). */
typedef enum CUmem_advise_enum {
	CU_MEM_ADVISE_SET_READ_MOSTLY		= 1,
	CU_MEM_ADVISE_UNSET_READ_MOSTLY		= 2,
	CU_MEM_ADVISE_SET_PREFERRED_LOCATION	= 3,
	CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION	= 4,
	CU_MEM_ADVISE_SET_ACCESSED_BY		= 5,
	CU_MEM_ADVISE_UNSET_ACCESSED_BY		= 6
} CUmem_advise;

/* What cuMemRangeGetAttribute reports of managed memory. */
typedef enum CUmem_range_attribute_enum {
	CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY			= 1,
	CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION		= 2,
	CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY			= 3,
	CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION		= 4,
	CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE		= 5,
	CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID		= 6,
	CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE	= 7,
	CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID	= 8
} CUmem_range_attribute;

/* Compression request stored in CUmemAllocationProp::allocFlags. */
typedef enum CUmemAllocationCompType_enum {
	CU_MEM_ALLOCATION_COMP_NONE	= 0x0,
	CU_MEM_ALLOCATION_COMP_GENERIC	= 0x1
} CUmemAllocationCompType;

/* Bits of CUmemAllocationProp::allocFlags.usage. */
#define CU_MEM_CREATE_USAGE_TILE_POOL		0x1
#define CU_MEM_CREATE_USAGE_HW_DECOMPRESS	0x2

/* What cuMemCreate should allocate, and where. */
typedef struct CUmemAllocationProp_st {
	CUmemAllocationType type;
	CUmemAllocationHandleType requestedHandleTypes;
	CUmemLocation location;
	void *win32HandleMetaData;	/* must be NULL outside Windows */
	struct {
		unsigned char compressionType;
		unsigned char gpuDirectRDMACapable;
		unsigned short usage;
		unsigned char reserved[4];
	} allocFlags;
} CUmemAllocationProp_v1;
typedef CUmemAllocationProp_v1 CUmemAllocationProp;

/* Which granularity cuMulticastGetGranularity reports. */
typedef enum CUmulticastGranularity_flags_enum {
	CU_MULTICAST_GRANULARITY_MINIMUM	= 0x0,
	CU_MULTICAST_GRANULARITY_RECOMMENDED	= 0x1
} CUmulticastGranularity_flags;

/* Shape of a multicast object: team size and bytes bound per device. */
typedef struct CUmulticastObjectProp_st {
	unsigned int numDevices;
	size_t size;
	unsigned long long handleTypes;	/* CUmemAllocationHandleType bits */
	unsigned long long flags;	/* must be 0 */
} CUmulticastObjectProp_v1;
typedef CUmulticastObjectProp_v1 CUmulticastObjectProp;

/* One location's access to a mapped range. */
typedef struct CUmemAccessDesc_st {
	CUmemLocation location;
	CUmemAccess_flags flags;
} CUmemAccessDesc_v1;
typedef CUmemAccessDesc_v1 CUmemAccessDesc;

/* Stream creation flags. */
typedef enum CUstream_flags_enum {
	CU_STREAM_DEFAULT		= 0x0,
	CU_STREAM_NON_BLOCKING		= 0x1	/* no implicit sync with stream 0 */
} CUstream_flags;

/* Whether a stream is being captured into a graph. */
typedef enum CUstreamCaptureStatus_enum {
	CU_STREAM_CAPTURE_STATUS_NONE		= 0,
	CU_STREAM_CAPTURE_STATUS_ACTIVE		= 1,
	CU_STREAM_CAPTURE_STATUS_INVALIDATED	= 2
} CUstreamCaptureStatus;

/* The implicit streams: legacy (also NULL) and per-thread default. */
#define CU_STREAM_LEGACY	((CUstream)0x1)
#define CU_STREAM_PER_THREAD	((CUstream)0x2)

/* Event creation flags. */
typedef enum CUevent_flags_enum {
	CU_EVENT_DEFAULT		= 0x0,
	CU_EVENT_BLOCKING_SYNC		= 0x1,
	CU_EVENT_DISABLE_TIMING		= 0x2,
	CU_EVENT_INTERPROCESS		= 0x4	/* needs CU_EVENT_DISABLE_TIMING */
} CUevent_flags;

/* cuEventRecordWithFlags flags (EXTERNAL: stream capture only). */
typedef enum CUevent_record_flags_enum {
	CU_EVENT_RECORD_DEFAULT		= 0x0,
	CU_EVENT_RECORD_EXTERNAL	= 0x1
} CUevent_record_flags;

/* cuStreamWaitEvent flags (EXTERNAL: stream capture only). */
typedef enum CUevent_wait_flags_enum {
	CU_EVENT_WAIT_DEFAULT		= 0x0,
	CU_EVENT_WAIT_EXTERNAL		= 0x1
} CUevent_wait_flags;

/* cuStreamWaitValue32/64 conditions, and the flush flag. */
typedef enum CUstreamWaitValue_flags_enum {
	CU_STREAM_WAIT_VALUE_GEQ	= 0x0,	/* (int32_t)(*addr - value) >= 0 */
	CU_STREAM_WAIT_VALUE_EQ		= 0x1,	/* *addr == value */
	CU_STREAM_WAIT_VALUE_AND	= 0x2,	/* (*addr & value) != 0 */
	CU_STREAM_WAIT_VALUE_NOR	= 0x3,	/* ~(*addr | value) != 0 */
	CU_STREAM_WAIT_VALUE_FLUSH	= 1 << 30
} CUstreamWaitValue_flags;

/* cuStreamWriteValue32/64 flags. */
typedef enum CUstreamWriteValue_flags_enum {
	CU_STREAM_WRITE_VALUE_DEFAULT			= 0x0,
	CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER	= 0x1
} CUstreamWriteValue_flags;

/* cuStreamBatchMemOp operations. */
typedef enum CUstreamBatchMemOpType_enum {
	CU_STREAM_MEM_OP_WAIT_VALUE_32		= 1,
	CU_STREAM_MEM_OP_WRITE_VALUE_32		= 2,
	CU_STREAM_MEM_OP_WAIT_VALUE_64		= 4,
	CU_STREAM_MEM_OP_WRITE_VALUE_64		= 5,
	CU_STREAM_MEM_OP_BARRIER		= 6,
	CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES	= 3
} CUstreamBatchMemOpType;

/* CUstreamBatchMemOpParams' memoryBarrier flags. */
typedef enum CUstreamMemoryBarrier_flags_enum {
	CU_STREAM_MEMORY_BARRIER_TYPE_SYS	= 0x0,
	CU_STREAM_MEMORY_BARRIER_TYPE_GPU	= 0x1
} CUstreamMemoryBarrier_flags;

/* One operation of cuStreamBatchMemOp; operation tags the member. */
typedef union CUstreamBatchMemOpParams_union {
	CUstreamBatchMemOpType operation;
	struct CUstreamMemOpWaitValueParams_st {
		CUstreamBatchMemOpType operation;
		CUdeviceptr address;
		union {
			cuuint32_t value;
			cuuint64_t value64;
		};
		unsigned int flags;
		CUdeviceptr alias;	/* driver use; ignored */
	} waitValue;
	struct CUstreamMemOpWriteValueParams_st {
		CUstreamBatchMemOpType operation;
		CUdeviceptr address;
		union {
			cuuint32_t value;
			cuuint64_t value64;
		};
		unsigned int flags;
		CUdeviceptr alias;	/* driver use; ignored */
	} writeValue;
	struct CUstreamMemOpFlushRemoteWritesParams_st {
		CUstreamBatchMemOpType operation;
		unsigned int flags;	/* must be 0 */
	} flushRemoteWrites;
	struct CUstreamMemOpMemoryBarrierParams_st {
		CUstreamBatchMemOpType operation;
		unsigned int flags;	/* CUstreamMemoryBarrier_flags */
	} memoryBarrier;
	cuuint64_t pad[6];
} CUstreamBatchMemOpParams_v1;
typedef CUstreamBatchMemOpParams_v1 CUstreamBatchMemOpParams;

#ifdef _WIN32
#define CUDA_CB __stdcall
#else
#define CUDA_CB
#endif

/* What cuLaunchHostFunc and cuStreamAddCallback run on the stream. */
typedef void (CUDA_CB *CUhostFn)(void *userData);
typedef void (CUDA_CB *CUstreamCallback)(CUstream hStream, CUresult status,
					 void *userData);
/* Stream-ordered allocator: memory pools (cuMemPool*, cuMemAllocAsync). */
typedef struct CUmemPoolHandle_st *CUmemoryPool;

typedef enum CUmemPool_attribute_enum {
	CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES = 1,	/* int */
	CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC,		/* int */
	CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES,	/* int */
	CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,			/* cuuint64_t */
	CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT,			/* cuuint64_t */
	CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH,			/* reset to 0 only */
	CU_MEMPOOL_ATTR_USED_MEM_CURRENT,			/* cuuint64_t */
	CU_MEMPOOL_ATTR_USED_MEM_HIGH				/* reset to 0 only */
} CUmemPool_attribute;

/* Bit of CUmemPoolProps::usage. */
#define CU_MEM_POOL_CREATE_USAGE_HW_DECOMPRESS 0x2

/* What cuMemPoolCreate makes: where its memory lives, how it is shared. */
typedef struct CUmemPoolProps_st {
	CUmemAllocationType allocType;	/* CU_MEM_ALLOCATION_TYPE_PINNED */
	CUmemAllocationHandleType handleTypes;
	CUmemLocation location;
	void *win32SecurityAttributes;	/* must be NULL outside Windows */
	size_t maxSize;			/* 0: no limit but the device's */
	unsigned short usage;
	unsigned char reserved[54];	/* must be 0 */
} CUmemPoolProps_v1;
typedef CUmemPoolProps_v1 CUmemPoolProps;

/* Names one pool allocation for cuMemPoolImportPointer in another process. */
typedef struct CUmemPoolPtrExportData_st {
	unsigned char reserved[64];
} CUmemPoolPtrExportData_v1;
typedef CUmemPoolPtrExportData_v1 CUmemPoolPtrExportData;

/*
 * Plain and host allocation, peer access, modules and launches (branch
 * alloc).
 */
#define CU_MEMHOSTALLOC_PORTABLE	0x01
#define CU_MEMHOSTALLOC_DEVICEMAP	0x02
#define CU_MEMHOSTALLOC_WRITECOMBINED	0x04
#define CU_MEMHOSTREGISTER_PORTABLE	0x01
#define CU_MEMHOSTREGISTER_DEVICEMAP	0x02
#define CU_MEMHOSTREGISTER_IOMEMORY	0x04
#define CU_MEMHOSTREGISTER_READ_ONLY	0x08

/* What cuDeviceGetP2PAttribute reports of a pair of devices. */
typedef enum CUdevice_P2PAttribute_enum {
	CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK			= 0x01,
	CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED			= 0x02,
	CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED			= 0x03,
	CU_DEVICE_P2P_ATTRIBUTE_ACCESS_ACCESS_SUPPORTED			= 0x04,
	CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED		= 0x04,
	CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED	= 0x05
} CUdevice_P2PAttribute;

/* The atomic operations cuDevice*AtomicCapabilities answer for. */
typedef enum CUatomicOperation_enum {
	CU_ATOMIC_OPERATION_INTEGER_ADD		= 0,
	CU_ATOMIC_OPERATION_INTEGER_MIN		= 1,
	CU_ATOMIC_OPERATION_INTEGER_MAX		= 2,
	CU_ATOMIC_OPERATION_INTEGER_INCREMENT	= 3,
	CU_ATOMIC_OPERATION_INTEGER_DECREMENT	= 4,
	CU_ATOMIC_OPERATION_AND			= 5,
	CU_ATOMIC_OPERATION_OR			= 6,
	CU_ATOMIC_OPERATION_XOR			= 7,
	CU_ATOMIC_OPERATION_EXCHANGE		= 8,
	CU_ATOMIC_OPERATION_CAS			= 9,
	CU_ATOMIC_OPERATION_FLOAT_ADD		= 10,
	CU_ATOMIC_OPERATION_FLOAT_MIN		= 11,
	CU_ATOMIC_OPERATION_FLOAT_MAX		= 12,
	CU_ATOMIC_OPERATION_MAX
} CUatomicOperation;

/* Bits of an answer: what a link does natively for one operation. */
typedef enum CUatomicOperationCapability_enum {
	CU_ATOMIC_CAPABILITY_SIGNED		= 1u << 0,
	CU_ATOMIC_CAPABILITY_UNSIGNED		= 1u << 1,
	CU_ATOMIC_CAPABILITY_REDUCTION		= 1u << 2,
	CU_ATOMIC_CAPABILITY_SCALAR_32		= 1u << 3,
	CU_ATOMIC_CAPABILITY_SCALAR_64		= 1u << 4,
	CU_ATOMIC_CAPABILITY_SCALAR_128		= 1u << 5,
	CU_ATOMIC_CAPABILITY_VECTOR_32x4	= 1u << 6
} CUatomicOperationCapability;

/* Device code: declared so that programs link; none of it runs here. */
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUlib_st *CUlibrary;
typedef struct CUkern_st *CUkernel;

typedef enum CUjit_option_enum {
	CU_JIT_MAX_REGISTERS = 0,
	CU_JIT_THREADS_PER_BLOCK = 1,
	CU_JIT_WALL_TIME = 2,
	CU_JIT_INFO_LOG_BUFFER = 3,
	CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
	CU_JIT_ERROR_LOG_BUFFER = 5,
	CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
	CU_JIT_OPTIMIZATION_LEVEL = 7,
	CU_JIT_TARGET_FROM_CUCONTEXT = 8,
	CU_JIT_TARGET = 9,
	CU_JIT_FALLBACK_STRATEGY = 10,
	CU_JIT_GENERATE_DEBUG_INFO = 11,
	CU_JIT_LOG_VERBOSE = 12,
	CU_JIT_GENERATE_LINE_INFO = 13,
	CU_JIT_CACHE_MODE = 14,
	CU_JIT_NEW_SM3X_OPT = 15,
	CU_JIT_FAST_COMPILE = 16,
	CU_JIT_GLOBAL_SYMBOL_NAMES = 17,
	CU_JIT_GLOBAL_SYMBOL_ADDRESSES = 18,
	CU_JIT_GLOBAL_SYMBOL_COUNT = 19,
	CU_JIT_LTO = 20,
	CU_JIT_FTZ = 21,
	CU_JIT_PREC_DIV = 22,
	CU_JIT_PREC_SQRT = 23,
	CU_JIT_FMA = 24,
	CU_JIT_REFERENCED_KERNEL_NAMES = 25,
	CU_JIT_REFERENCED_KERNEL_COUNT = 26,
	CU_JIT_REFERENCED_VARIABLE_NAMES = 27,
	CU_JIT_REFERENCED_VARIABLE_COUNT = 28,
	CU_JIT_OPTIMIZE_UNUSED_DEVICE_VARIABLES = 29,
	CU_JIT_POSITION_INDEPENDENT_CODE = 30,
	CU_JIT_MIN_CTA_PER_SM = 31,
	CU_JIT_MAX_THREADS_PER_BLOCK = 32,
	CU_JIT_OVERRIDE_DIRECTIVE_VALUES = 33,
	CU_JIT_SPLIT_COMPILE = 34,
	CU_JIT_NUM_OPTIONS
} CUjit_option;

typedef enum CUjitInputType_enum {
	CU_JIT_INPUT_CUBIN = 0,
	CU_JIT_INPUT_PTX = 1,
	CU_JIT_INPUT_FATBINARY = 2,
	CU_JIT_INPUT_OBJECT = 3,
	CU_JIT_INPUT_LIBRARY = 4,
	CU_JIT_INPUT_NVVM = 5,
	CU_JIT_NUM_INPUT_TYPES = 6
} CUjitInputType;

typedef struct CUlinkState_st *CUlinkState;

typedef enum CUlibraryOption_enum {
	CU_LIBRARY_HOST_UNIVERSAL_FUNCTION_AND_DATA_TABLE = 0,
	CU_LIBRARY_BINARY_IS_PRESERVED = 1,
	CU_LIBRARY_NUM_OPTIONS
} CUlibraryOption;

typedef enum CUfunction_attribute_enum {
	CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
	CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
	CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2,
	CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
	CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
	CU_FUNC_ATTRIBUTE_PTX_VERSION = 5,
	CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6,
	CU_FUNC_ATTRIBUTE_CACHE_MODE_CA = 7,
	CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
	CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9,
	CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET = 10,
	CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH = 11,
	CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT = 12,
	CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH = 13,
	CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14,
	CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE = 15,
	CU_FUNC_ATTRIBUTE_MAX
} CUfunction_attribute;

/* cuOccupancyMaxPotentialBlockSize's dynamic shared memory per block size. */
typedef size_t (CUDA_CB *CUoccupancyB2DSize)(int blockSize);

typedef enum CUoccupancy_flags_enum {
	CU_OCCUPANCY_DEFAULT = 0x0,
	CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE = 0x1
} CUoccupancy_flags;

/* A context's resource limits (cuCtxGetLimit, cuCtxSetLimit). */
typedef enum CUlimit_enum {
	CU_LIMIT_STACK_SIZE			= 0x00,
	CU_LIMIT_PRINTF_FIFO_SIZE		= 0x01,
	CU_LIMIT_MALLOC_HEAP_SIZE		= 0x02,
	CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH		= 0x03,
	CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT = 0x04,
	CU_LIMIT_MAX_L2_FETCH_GRANULARITY	= 0x05,
	CU_LIMIT_PERSISTING_L2_CACHE_SIZE	= 0x06,
	CU_LIMIT_SHMEM_SIZE			= 0x07,
	CU_LIMIT_CIG_ENABLED			= 0x08,
	CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED	= 0x09,
	CU_LIMIT_MAX
} CUlimit;

/* Shared memory bank size (deprecated: Hopper's is four bytes). */
typedef enum CUsharedconfig_enum {
	CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE		= 0x00,
	CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE	= 0x01,
	CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE	= 0x02
} CUsharedconfig;

/* The deprecated cuDeviceGetProperties' answer. */
typedef struct CUdevprop_st {
	int maxThreadsPerBlock;
	int maxThreadsDim[3];
	int maxGridSize[3];
	int sharedMemPerBlock;
	int totalConstantMemory;
	int SIMDWidth;
	int memPitch;
	int regsPerBlock;
	int clockRate;
	int textureAlign;
} CUdevprop_v1;
typedef CUdevprop_v1 CUdevprop;

/* cuLaunchCooperativeKernelMultiDevice's launches (deprecated). */
typedef struct CUDA_LAUNCH_PARAMS_st {
	CUfunction function;
	unsigned int gridDimX;
	unsigned int gridDimY;
	unsigned int gridDimZ;
	unsigned int blockDimX;
	unsigned int blockDimY;
	unsigned int blockDimZ;
	unsigned int sharedMemBytes;
	CUstream hStream;
	void **kernelParams;
} CUDA_LAUNCH_PARAMS_v1;
typedef CUDA_LAUNCH_PARAMS_v1 CUDA_LAUNCH_PARAMS;

/* cuMemGetHandleForAddressRange's handle types and flags. */
typedef enum CUmemRangeHandleType_enum {
	CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD = 0x1,
	CU_MEM_RANGE_HANDLE_TYPE_MAX = 0x7FFFFFFF
} CUmemRangeHandleType;

typedef enum CUmemRangeFlags_enum {
	CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE = 0x1
} CUmemRangeFlags;

/*
 * cuMemBatchDecompressAsync's operations, and the algorithms of
 * CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK (none in cumc).
 */
typedef enum CUmemDecompressAlgorithm_enum {
	CU_MEM_DECOMPRESS_UNSUPPORTED		= 0,
	CU_MEM_DECOMPRESS_ALGORITHM_DEFLATE	= 1 << 0,
	CU_MEM_DECOMPRESS_ALGORITHM_SNAPPY	= 1 << 1,
	CU_MEM_DECOMPRESS_ALGORITHM_LZ4		= 1 << 2
} CUmemDecompressAlgorithm;

typedef struct CUmemDecompressParams_st {
	size_t srcNumBytes;
	size_t dstNumBytes;
	cuuint32_t *dstActBytes;
	const void *src;
	void *dst;
	CUmemDecompressAlgorithm algo;
	unsigned char padding[20];	/* must be zero */
} CUmemDecompressParams;

/* Asynchronous notifications (cuDeviceRegisterAsyncNotification). */
typedef struct CUasyncCallbackEntry_st *CUasyncCallbackHandle;

typedef enum CUasyncNotificationType_enum {
	CU_ASYNC_NOTIFICATION_TYPE_OVER_BUDGET = 0x1
} CUasyncNotificationType;

typedef struct CUasyncNotificationInfo_st {
	CUasyncNotificationType type;
	union {
		struct {
			unsigned long long bytesOverBudget;
		} overBudget;
	} info;
} CUasyncNotificationInfo;

typedef void (*CUasyncCallback)(CUasyncNotificationInfo *info, void *userData,
				CUasyncCallbackHandle callback);

/* cuFlushGPUDirectRDMAWrites' target and scope. */
typedef enum CUflushGPUDirectRDMAWritesTarget_enum {
	CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX = 0
} CUflushGPUDirectRDMAWritesTarget;

typedef enum CUflushGPUDirectRDMAWritesScope_enum {
	CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER = 100,
	CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_ALL_DEVICES = 200
} CUflushGPUDirectRDMAWritesScope;

/* Whether a function's code is loaded (cuFuncIsLoaded). */
typedef enum CUfunctionLoadingState_enum {
	CU_FUNCTION_LOADING_STATE_UNLOADED = 0,
	CU_FUNCTION_LOADING_STATE_LOADED = 1,
	CU_FUNCTION_LOADING_STATE_MAX
} CUfunctionLoadingState;

/* When modules' kernels are loaded (cuModuleGetLoadingMode). */
typedef enum CUmoduleLoadingMode_enum {
	CU_MODULE_EAGER_LOADING = 0x1,
	CU_MODULE_LAZY_LOADING = 0x2
} CUmoduleLoadingMode;

typedef enum CUfunc_cache_enum {
	CU_FUNC_CACHE_PREFER_NONE = 0x00,
	CU_FUNC_CACHE_PREFER_SHARED = 0x01,
	CU_FUNC_CACHE_PREFER_L1 = 0x02,
	CU_FUNC_CACHE_PREFER_EQUAL = 0x03
} CUfunc_cache;

typedef enum CUshared_carveout_enum {
	CU_SHAREDMEM_CARVEOUT_DEFAULT = -1,
	CU_SHAREDMEM_CARVEOUT_MAX_SHARED = 100,
	CU_SHAREDMEM_CARVEOUT_MAX_L1 = 0
} CUshared_carveout;

/* A stream's or a launch's window of persisting L2 accesses. */
typedef enum CUaccessProperty_enum {
	CU_ACCESS_PROPERTY_NORMAL	= 0,
	CU_ACCESS_PROPERTY_STREAMING	= 1,
	CU_ACCESS_PROPERTY_PERSISTING	= 2
} CUaccessProperty;

typedef struct CUaccessPolicyWindow_st {
	void *base_ptr;
	size_t num_bytes;
	float hitRatio;
	CUaccessProperty hitProp;
	CUaccessProperty missProp;
} CUaccessPolicyWindow_v1;
typedef CUaccessPolicyWindow_v1 CUaccessPolicyWindow;

typedef enum CUsynchronizationPolicy_enum {
	CU_SYNC_POLICY_AUTO		= 1,
	CU_SYNC_POLICY_SPIN		= 2,
	CU_SYNC_POLICY_YIELD		= 3,
	CU_SYNC_POLICY_BLOCKING_SYNC	= 4
} CUsynchronizationPolicy;

typedef enum CUclusterSchedulingPolicy_enum {
	CU_CLUSTER_SCHEDULING_POLICY_DEFAULT		= 0,
	CU_CLUSTER_SCHEDULING_POLICY_SPREAD		= 1,
	CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING	= 2
} CUclusterSchedulingPolicy;

typedef struct CUlaunchMemSyncDomainMap_st {
	unsigned char default_;
	unsigned char remote;
} CUlaunchMemSyncDomainMap;

typedef enum CUlaunchMemSyncDomain_enum {
	CU_LAUNCH_MEM_SYNC_DOMAIN_DEFAULT	= 0,
	CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE	= 1
} CUlaunchMemSyncDomain;

/*
 * Launch attributes, and the stream attributes that are a subset of
 * them (cuStreamGetAttribute): one union of values, 64 bytes.
 */
typedef enum CUlaunchAttributeID_enum {
	CU_LAUNCH_ATTRIBUTE_IGNORE				= 0,
	CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW		= 1,
	CU_LAUNCH_ATTRIBUTE_COOPERATIVE				= 2,
	CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY		= 3,
	CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION			= 4,
	CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE = 5,
	CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION	= 6,
	CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT			= 7,
	CU_LAUNCH_ATTRIBUTE_PRIORITY				= 8,
	CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP			= 9,
	CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN			= 10,
	CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION		= 11,
	CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT		= 12,
	CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE	= 13,
	CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT	= 14,
	CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING	= 16
} CUlaunchAttributeID;

typedef union CUlaunchAttributeValue_union {
	char pad[64];
	CUaccessPolicyWindow accessPolicyWindow;
	int cooperative;
	CUsynchronizationPolicy syncPolicy;
	struct {
		unsigned int x;
		unsigned int y;
		unsigned int z;
	} clusterDim;
	CUclusterSchedulingPolicy clusterSchedulingPolicyPreference;
	int programmaticStreamSerializationAllowed;
	struct {
		CUevent event;
		int flags;
		int triggerAtBlockStart;
	} programmaticEvent;
	struct {
		CUevent event;
		int flags;
	} launchCompletionEvent;
	int priority;
	CUlaunchMemSyncDomainMap memSyncDomainMap;
	CUlaunchMemSyncDomain memSyncDomain;
	struct {
		unsigned int x;
		unsigned int y;
		unsigned int z;
	} preferredClusterDim;
	struct {
		int deviceUpdatable;
		struct CUgraphDeviceUpdatableNode_st *devNode;
	} deviceUpdatableKernelNode;
	unsigned int sharedMemCarveout;
	unsigned int nvlinkUtilCentricScheduling;
} CUlaunchAttributeValue;

typedef struct CUlaunchAttribute_st {
	CUlaunchAttributeID id;
	char pad[8 - sizeof(CUlaunchAttributeID)];
	CUlaunchAttributeValue value;
} CUlaunchAttribute;

typedef CUlaunchAttributeID CUstreamAttrID;
#define CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW \
	CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW
#define CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY \
	CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY
#define CU_STREAM_ATTRIBUTE_PRIORITY	CU_LAUNCH_ATTRIBUTE_PRIORITY
#define CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP \
	CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP
#define CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN
typedef CUlaunchAttributeValue CUstreamAttrValue_v1;
typedef CUstreamAttrValue_v1 CUstreamAttrValue;

/* The launch attributes a kernel node takes (cuGraphKernelNodeSetAttribute). */
typedef CUlaunchAttributeID CUkernelNodeAttrID;
#define CU_KERNEL_NODE_ATTRIBUTE_ACCESS_POLICY_WINDOW \
	CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW
#define CU_KERNEL_NODE_ATTRIBUTE_COOPERATIVE	CU_LAUNCH_ATTRIBUTE_COOPERATIVE
#define CU_KERNEL_NODE_ATTRIBUTE_CLUSTER_DIMENSION \
	CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
#define CU_KERNEL_NODE_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE \
	CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE
#define CU_KERNEL_NODE_ATTRIBUTE_PRIORITY	CU_LAUNCH_ATTRIBUTE_PRIORITY
#define CU_KERNEL_NODE_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP \
	CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP
#define CU_KERNEL_NODE_ATTRIBUTE_MEM_SYNC_DOMAIN \
	CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN
#define CU_KERNEL_NODE_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION \
	CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION
#define CU_KERNEL_NODE_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE \
	CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE
#define CU_KERNEL_NODE_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT \
	CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT
typedef CUlaunchAttributeValue CUkernelNodeAttrValue_v1;
typedef CUkernelNodeAttrValue_v1 CUkernelNodeAttrValue;

typedef struct CUlaunchConfig_st {
	unsigned int gridDimX;
	unsigned int gridDimY;
	unsigned int gridDimZ;
	unsigned int blockDimX;
	unsigned int blockDimY;
	unsigned int blockDimZ;
	unsigned int sharedMemBytes;
	CUstream hStream;
	CUlaunchAttribute *attrs;
	unsigned int numAttrs;
} CUlaunchConfig;

/* cuLaunchKernel's extra: a parameter buffer instead of kernelParams. */
#define CU_LAUNCH_PARAM_END_AS_INT		0x00
#define CU_LAUNCH_PARAM_END			((void *)CU_LAUNCH_PARAM_END_AS_INT)
#define CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT	0x01
#define CU_LAUNCH_PARAM_BUFFER_POINTER \
	((void *)CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT)
#define CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT	0x02
#define CU_LAUNCH_PARAM_BUFFER_SIZE ((void *)CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT)

typedef struct CUarray_st *CUarray;

/* The element formats of an array. */
typedef enum CUarray_format_enum {
	CU_AD_FORMAT_UNSIGNED_INT8		= 0x01,
	CU_AD_FORMAT_UNSIGNED_INT16		= 0x02,
	CU_AD_FORMAT_UNSIGNED_INT32		= 0x03,
	CU_AD_FORMAT_SIGNED_INT8		= 0x08,
	CU_AD_FORMAT_SIGNED_INT16		= 0x09,
	CU_AD_FORMAT_SIGNED_INT32		= 0x0a,
	CU_AD_FORMAT_HALF			= 0x10,
	CU_AD_FORMAT_FLOAT			= 0x20,
	CU_AD_FORMAT_NV12			= 0xb0,
	CU_AD_FORMAT_UNORM_INT8X1		= 0xc0,
	CU_AD_FORMAT_UNORM_INT8X2		= 0xc1,
	CU_AD_FORMAT_UNORM_INT8X4		= 0xc2,
	CU_AD_FORMAT_UNORM_INT16X1		= 0xc3,
	CU_AD_FORMAT_UNORM_INT16X2		= 0xc4,
	CU_AD_FORMAT_UNORM_INT16X4		= 0xc5,
	CU_AD_FORMAT_SNORM_INT8X1		= 0xc6,
	CU_AD_FORMAT_SNORM_INT8X2		= 0xc7,
	CU_AD_FORMAT_SNORM_INT8X4		= 0xc8,
	CU_AD_FORMAT_SNORM_INT16X1		= 0xc9,
	CU_AD_FORMAT_SNORM_INT16X2		= 0xca,
	CU_AD_FORMAT_SNORM_INT16X4		= 0xcb,
	CU_AD_FORMAT_BC1_UNORM			= 0x91,
	CU_AD_FORMAT_BC1_UNORM_SRGB		= 0x92,
	CU_AD_FORMAT_BC2_UNORM			= 0x93,
	CU_AD_FORMAT_BC2_UNORM_SRGB		= 0x94,
	CU_AD_FORMAT_BC3_UNORM			= 0x95,
	CU_AD_FORMAT_BC3_UNORM_SRGB		= 0x96,
	CU_AD_FORMAT_BC4_UNORM			= 0x97,
	CU_AD_FORMAT_BC4_SNORM			= 0x98,
	CU_AD_FORMAT_BC5_UNORM			= 0x99,
	CU_AD_FORMAT_BC5_SNORM			= 0x9a,
	CU_AD_FORMAT_BC6H_UF16			= 0x9b,
	CU_AD_FORMAT_BC6H_SF16			= 0x9c,
	CU_AD_FORMAT_BC7_UNORM			= 0x9d,
	CU_AD_FORMAT_BC7_UNORM_SRGB		= 0x9e,
	CU_AD_FORMAT_P010			= 0x9f,
	CU_AD_FORMAT_P016			= 0xa1,
	CU_AD_FORMAT_NV16			= 0xa2,
	CU_AD_FORMAT_P210			= 0xa3,
	CU_AD_FORMAT_P216			= 0xa4,
	CU_AD_FORMAT_YUY2			= 0xa5,
	CU_AD_FORMAT_Y210			= 0xa6,
	CU_AD_FORMAT_Y216			= 0xa7,
	CU_AD_FORMAT_AYUV			= 0xa8,
	CU_AD_FORMAT_Y410			= 0xa9,
	CU_AD_FORMAT_Y416			= 0xb1,
	CU_AD_FORMAT_Y444_PLANAR8		= 0xb2,
	CU_AD_FORMAT_Y444_PLANAR10		= 0xb3,
	CU_AD_FORMAT_YUV444_8bit_SemiPlanar	= 0xb4,
	CU_AD_FORMAT_YUV444_16bit_SemiPlanar	= 0xb5,
	CU_AD_FORMAT_UNORM_INT_101010_2		= 0x50,
	CU_AD_FORMAT_MAX			= 0x7FFFFFFF
} CUarray_format;

/* cuArray3DCreate's flags. */
#define CUDA_ARRAY3D_LAYERED		0x01
#define CUDA_ARRAY3D_2DARRAY		0x01
#define CUDA_ARRAY3D_SURFACE_LDST	0x02
#define CUDA_ARRAY3D_CUBEMAP		0x04
#define CUDA_ARRAY3D_TEXTURE_GATHER	0x08
#define CUDA_ARRAY3D_DEPTH_TEXTURE	0x10
#define CUDA_ARRAY3D_COLOR_ATTACHMENT	0x20
#define CUDA_ARRAY3D_SPARSE		0x40
#define CUDA_ARRAY3D_DEFERRED_MAPPING	0x80
#define CUDA_ARRAY3D_VIDEO_ENCODE_DECODE	0x100

/* A 1D or 2D array: Height 0 is a 1D one.  Extents are in elements. */
typedef struct CUDA_ARRAY_DESCRIPTOR_st {
	size_t Width;
	size_t Height;
	CUarray_format Format;
	unsigned int NumChannels;
} CUDA_ARRAY_DESCRIPTOR_v2;
typedef CUDA_ARRAY_DESCRIPTOR_v2 CUDA_ARRAY_DESCRIPTOR;

/* Any array: Height and Depth 0 for the dimensions it lacks. */
typedef struct CUDA_ARRAY3D_DESCRIPTOR_st {
	size_t Width;
	size_t Height;
	size_t Depth;
	CUarray_format Format;
	unsigned int NumChannels;
	unsigned int Flags;
} CUDA_ARRAY3D_DESCRIPTOR_v2;
typedef CUDA_ARRAY3D_DESCRIPTOR_v2 CUDA_ARRAY3D_DESCRIPTOR;

/*
 * A 2D copy: each side is host, device, unified or array memory, named by
 * the field its memory type selects; X is in bytes, Y in rows.
 */
typedef struct CUDA_MEMCPY2D_st {
	size_t srcXInBytes;
	size_t srcY;
	CUmemorytype srcMemoryType;
	const void *srcHost;
	CUdeviceptr srcDevice;
	CUarray srcArray;
	size_t srcPitch;
	size_t dstXInBytes;
	size_t dstY;
	CUmemorytype dstMemoryType;
	void *dstHost;
	CUdeviceptr dstDevice;
	CUarray dstArray;
	size_t dstPitch;
	size_t WidthInBytes;
	size_t Height;
} CUDA_MEMCPY2D_v2;
typedef CUDA_MEMCPY2D_v2 CUDA_MEMCPY2D;

/* A 3D copy: srcHeight and dstHeight are the rows of a slice. */
typedef struct CUDA_MEMCPY3D_st {
	size_t srcXInBytes;
	size_t srcY;
	size_t srcZ;
	size_t srcLOD;
	CUmemorytype srcMemoryType;
	const void *srcHost;
	CUdeviceptr srcDevice;
	CUarray srcArray;
	void *reserved0;
	size_t srcPitch;
	size_t srcHeight;
	size_t dstXInBytes;
	size_t dstY;
	size_t dstZ;
	size_t dstLOD;
	CUmemorytype dstMemoryType;
	void *dstHost;
	CUdeviceptr dstDevice;
	CUarray dstArray;
	void *reserved1;
	size_t dstPitch;
	size_t dstHeight;
	size_t WidthInBytes;
	size_t Height;
	size_t Depth;
} CUDA_MEMCPY3D_v2;
typedef CUDA_MEMCPY3D_v2 CUDA_MEMCPY3D;

/* A 3D copy whose sides name their contexts. */
typedef struct CUDA_MEMCPY3D_PEER_st {
	size_t srcXInBytes;
	size_t srcY;
	size_t srcZ;
	size_t srcLOD;
	CUmemorytype srcMemoryType;
	const void *srcHost;
	CUdeviceptr srcDevice;
	CUarray srcArray;
	CUcontext srcContext;
	size_t srcPitch;
	size_t srcHeight;
	size_t dstXInBytes;
	size_t dstY;
	size_t dstZ;
	size_t dstLOD;
	CUmemorytype dstMemoryType;
	void *dstHost;
	CUdeviceptr dstDevice;
	CUarray dstArray;
	CUcontext dstContext;
	size_t dstPitch;
	size_t dstHeight;
	size_t WidthInBytes;
	size_t Height;
	size_t Depth;
} CUDA_MEMCPY3D_PEER_v1;
typedef CUDA_MEMCPY3D_PEER_v1 CUDA_MEMCPY3D_PEER;

typedef struct CUmipmappedArray_st *CUmipmappedArray;
typedef unsigned long long CUtexObject_v1;
typedef CUtexObject_v1 CUtexObject;
typedef unsigned long long CUsurfObject_v1;
typedef CUsurfObject_v1 CUsurfObject;

/* How a texture reads coordinates outside its extent. */
typedef enum CUaddress_mode_enum {
	CU_TR_ADDRESS_MODE_WRAP		= 0,
	CU_TR_ADDRESS_MODE_CLAMP	= 1,
	CU_TR_ADDRESS_MODE_MIRROR	= 2,
	CU_TR_ADDRESS_MODE_BORDER	= 3
} CUaddress_mode;

/* How a texture reads between elements (and between mipmap levels). */
typedef enum CUfilter_mode_enum {
	CU_TR_FILTER_MODE_POINT		= 0,
	CU_TR_FILTER_MODE_LINEAR	= 1
} CUfilter_mode;

/* CUDA_TEXTURE_DESC's flags. */
#define CU_TRSF_READ_AS_INTEGER			0x01
#define CU_TRSF_NORMALIZED_COORDINATES		0x02
#define CU_TRSF_SRGB				0x10
#define CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION	0x20
#define CU_TRSF_SEAMLESS_CUBEMAP		0x40

/* What a texture or surface object reads. */
typedef enum CUresourcetype_enum {
	CU_RESOURCE_TYPE_ARRAY			= 0x00,
	CU_RESOURCE_TYPE_MIPMAPPED_ARRAY	= 0x01,
	CU_RESOURCE_TYPE_LINEAR			= 0x02,
	CU_RESOURCE_TYPE_PITCH2D		= 0x03
} CUresourcetype;

typedef struct CUDA_RESOURCE_DESC_st {
	CUresourcetype resType;
	union {
		struct {
			CUarray hArray;
		} array;
		struct {
			CUmipmappedArray hMipmappedArray;
		} mipmap;
		struct {
			CUdeviceptr devPtr;
			CUarray_format format;
			unsigned int numChannels;
			size_t sizeInBytes;
		} linear;
		struct {
			CUdeviceptr devPtr;
			CUarray_format format;
			unsigned int numChannels;
			size_t width;
			size_t height;
			size_t pitchInBytes;
		} pitch2D;
		struct {
			int reserved[32];
		} reserved;
	} res;
	unsigned int flags;
} CUDA_RESOURCE_DESC_v1;
typedef CUDA_RESOURCE_DESC_v1 CUDA_RESOURCE_DESC;

typedef struct CUDA_TEXTURE_DESC_st {
	CUaddress_mode addressMode[3];
	CUfilter_mode filterMode;
	unsigned int flags;
	unsigned int maxAnisotropy;
	CUfilter_mode mipmapFilterMode;
	float mipmapLevelBias;
	float minMipmapLevelClamp;
	float maxMipmapLevelClamp;
	float borderColor[4];
	int reserved[12];
} CUDA_TEXTURE_DESC_v1;
typedef CUDA_TEXTURE_DESC_v1 CUDA_TEXTURE_DESC;

/* How a texture object sees its array: element format, extent, levels, layers. */
typedef enum CUresourceViewFormat_enum {
	CU_RES_VIEW_FORMAT_NONE			= 0x00,
	CU_RES_VIEW_FORMAT_UINT_1X8		= 0x01,
	CU_RES_VIEW_FORMAT_UINT_2X8		= 0x02,
	CU_RES_VIEW_FORMAT_UINT_4X8		= 0x03,
	CU_RES_VIEW_FORMAT_SINT_1X8		= 0x04,
	CU_RES_VIEW_FORMAT_SINT_2X8		= 0x05,
	CU_RES_VIEW_FORMAT_SINT_4X8		= 0x06,
	CU_RES_VIEW_FORMAT_UINT_1X16		= 0x07,
	CU_RES_VIEW_FORMAT_UINT_2X16		= 0x08,
	CU_RES_VIEW_FORMAT_UINT_4X16		= 0x09,
	CU_RES_VIEW_FORMAT_SINT_1X16		= 0x0a,
	CU_RES_VIEW_FORMAT_SINT_2X16		= 0x0b,
	CU_RES_VIEW_FORMAT_SINT_4X16		= 0x0c,
	CU_RES_VIEW_FORMAT_UINT_1X32		= 0x0d,
	CU_RES_VIEW_FORMAT_UINT_2X32		= 0x0e,
	CU_RES_VIEW_FORMAT_UINT_4X32		= 0x0f,
	CU_RES_VIEW_FORMAT_SINT_1X32		= 0x10,
	CU_RES_VIEW_FORMAT_SINT_2X32		= 0x11,
	CU_RES_VIEW_FORMAT_SINT_4X32		= 0x12,
	CU_RES_VIEW_FORMAT_FLOAT_1X16		= 0x13,
	CU_RES_VIEW_FORMAT_FLOAT_2X16		= 0x14,
	CU_RES_VIEW_FORMAT_FLOAT_4X16		= 0x15,
	CU_RES_VIEW_FORMAT_FLOAT_1X32		= 0x16,
	CU_RES_VIEW_FORMAT_FLOAT_2X32		= 0x17,
	CU_RES_VIEW_FORMAT_FLOAT_4X32		= 0x18,
	CU_RES_VIEW_FORMAT_UNSIGNED_BC1		= 0x19,
	CU_RES_VIEW_FORMAT_UNSIGNED_BC2		= 0x1a,
	CU_RES_VIEW_FORMAT_UNSIGNED_BC3		= 0x1b,
	CU_RES_VIEW_FORMAT_UNSIGNED_BC4		= 0x1c,
	CU_RES_VIEW_FORMAT_SIGNED_BC4		= 0x1d,
	CU_RES_VIEW_FORMAT_UNSIGNED_BC5		= 0x1e,
	CU_RES_VIEW_FORMAT_SIGNED_BC5		= 0x1f,
	CU_RES_VIEW_FORMAT_UNSIGNED_BC6H	= 0x20,
	CU_RES_VIEW_FORMAT_SIGNED_BC6H		= 0x21,
	CU_RES_VIEW_FORMAT_UNSIGNED_BC7		= 0x22
} CUresourceViewFormat;

typedef struct CUDA_RESOURCE_VIEW_DESC_st {
	CUresourceViewFormat format;
	size_t width;
	size_t height;
	size_t depth;
	unsigned int firstMipmapLevel;
	unsigned int lastMipmapLevel;
	unsigned int firstLayer;
	unsigned int lastLayer;
	unsigned int reserved[16];
} CUDA_RESOURCE_VIEW_DESC_v1;
typedef CUDA_RESOURCE_VIEW_DESC_v1 CUDA_RESOURCE_VIEW_DESC;

typedef struct CUtexref_st *CUtexref;
typedef struct CUsurfref_st *CUsurfref;
typedef struct CUgraphicsResource_st *CUgraphicsResource;

/* cuTexRefSetArray's flag, cuParamSetTexRef's texture unit. */
#define CU_TRSA_OVERRIDE_FORMAT		0x01
#define CU_PARAM_TR_DEFAULT		-1

/* cuGraphicsResourceSetMapFlags' flags. */
typedef enum CUgraphicsMapResourceFlags_enum {
	CU_GRAPHICS_MAP_RESOURCE_FLAGS_NONE		= 0x00,
	CU_GRAPHICS_MAP_RESOURCE_FLAGS_READ_ONLY	= 0x01,
	CU_GRAPHICS_MAP_RESOURCE_FLAGS_WRITE_DISCARD	= 0x02
} CUgraphicsMapResourceFlags;

/* The tiles and mip tail of a sparse array (cuArrayGetSparseProperties). */
#define CU_ARRAY_SPARSE_PROPERTIES_SINGLE_MIPTAIL	0x1
typedef struct CUDA_ARRAY_SPARSE_PROPERTIES_st {
	struct {
		unsigned int width;
		unsigned int height;
		unsigned int depth;
	} tileExtent;
	unsigned int miptailFirstLevel;
	unsigned long long miptailSize;
	unsigned int flags;
	unsigned int reserved[4];
} CUDA_ARRAY_SPARSE_PROPERTIES_v1;
typedef CUDA_ARRAY_SPARSE_PROPERTIES_v1 CUDA_ARRAY_SPARSE_PROPERTIES;

/* The memory a deferred-mapping array needs (cuArrayGetMemoryRequirements). */
typedef struct CUDA_ARRAY_MEMORY_REQUIREMENTS_st {
	size_t size;
	size_t alignment;
	unsigned int reserved[4];
} CUDA_ARRAY_MEMORY_REQUIREMENTS_v1;
typedef CUDA_ARRAY_MEMORY_REQUIREMENTS_v1 CUDA_ARRAY_MEMORY_REQUIREMENTS;

/* Memory and semaphores of other APIs (Vulkan, Direct3D, NvSci). */
typedef struct CUextMemory_st *CUexternalMemory;
typedef struct CUextSemaphore_st *CUexternalSemaphore;

typedef enum CUexternalMemoryHandleType_enum {
	CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD		= 1,
	CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32		= 2,
	CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32_KMT		= 3,
	CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_HEAP		= 4,
	CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_RESOURCE		= 5,
	CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D11_RESOURCE		= 6,
	CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D11_RESOURCE_KMT	= 7,
	CU_EXTERNAL_MEMORY_HANDLE_TYPE_NVSCIBUF			= 8,
	CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD		= 9
} CUexternalMemoryHandleType;

#define CUDA_EXTERNAL_MEMORY_DEDICATED				0x1
#define CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC	0x01
#define CUDA_EXTERNAL_SEMAPHORE_WAIT_SKIP_NVSCIBUF_MEMSYNC	0x02
#define CUDA_NVSCISYNC_ATTR_SIGNAL				0x1
#define CUDA_NVSCISYNC_ATTR_WAIT				0x2

typedef struct CUDA_EXTERNAL_MEMORY_HANDLE_DESC_st {
	CUexternalMemoryHandleType type;
	union {
		int fd;
		struct {
			void *handle;
			const void *name;
		} win32;
		const void *nvSciBufObject;
	} handle;
	unsigned long long size;
	unsigned int flags;
	unsigned int reserved[16];
} CUDA_EXTERNAL_MEMORY_HANDLE_DESC_v1;
typedef CUDA_EXTERNAL_MEMORY_HANDLE_DESC_v1 CUDA_EXTERNAL_MEMORY_HANDLE_DESC;

typedef struct CUDA_EXTERNAL_MEMORY_BUFFER_DESC_st {
	unsigned long long offset;
	unsigned long long size;
	unsigned int flags;
	unsigned int reserved[16];
} CUDA_EXTERNAL_MEMORY_BUFFER_DESC_v1;
typedef CUDA_EXTERNAL_MEMORY_BUFFER_DESC_v1 CUDA_EXTERNAL_MEMORY_BUFFER_DESC;

typedef struct CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC_st {
	unsigned long long offset;
	CUDA_ARRAY3D_DESCRIPTOR arrayDesc;
	unsigned int numLevels;
	unsigned int reserved[16];
} CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC_v1;
typedef CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC_v1
	CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC;

typedef enum CUexternalSemaphoreHandleType_enum {
	CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD			= 1,
	CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_WIN32			= 2,
	CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_WIN32_KMT		= 3,
	CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_D3D12_FENCE			= 4,
	CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_D3D11_FENCE			= 5,
	CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_NVSCISYNC			= 6,
	CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_D3D11_KEYED_MUTEX		= 7,
	CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_D3D11_KEYED_MUTEX_KMT		= 8,
	CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD		= 9,
	CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_WIN32	= 10
} CUexternalSemaphoreHandleType;

typedef struct CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_st {
	CUexternalSemaphoreHandleType type;
	union {
		int fd;
		struct {
			void *handle;
			const void *name;
		} win32;
		const void *nvSciSyncObj;
	} handle;
	unsigned int flags;
	unsigned int reserved[16];
} CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_v1;
typedef CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_v1 CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC;

typedef struct CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_st {
	struct {
		struct {
			unsigned long long value;
		} fence;
		union {
			void *fence;
			unsigned long long reserved;
		} nvSciSync;
		struct {
			unsigned long long key;
		} keyedMutex;
		unsigned int reserved[12];
	} params;
	unsigned int flags;
	unsigned int reserved[16];
} CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_v1;
typedef CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_v1
	CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS;

typedef struct CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_st {
	struct {
		struct {
			unsigned long long value;
		} fence;
		union {
			void *fence;
			unsigned long long reserved;
		} nvSciSync;
		struct {
			unsigned long long key;
			unsigned int timeoutMs;
		} keyedMutex;
		unsigned int reserved[10];
	} params;
	unsigned int flags;
	unsigned int reserved[16];
} CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_v1;
typedef CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_v1 CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS;

/* A graph's external semaphore signal and wait nodes. */
typedef struct CUDA_EXT_SEM_SIGNAL_NODE_PARAMS_st {
	CUexternalSemaphore *extSemArray;
	const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS *paramsArray;
	unsigned int numExtSems;
} CUDA_EXT_SEM_SIGNAL_NODE_PARAMS_v1;
typedef CUDA_EXT_SEM_SIGNAL_NODE_PARAMS_v1 CUDA_EXT_SEM_SIGNAL_NODE_PARAMS;

typedef struct CUDA_EXT_SEM_WAIT_NODE_PARAMS_st {
	CUexternalSemaphore *extSemArray;
	const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS *paramsArray;
	unsigned int numExtSems;
} CUDA_EXT_SEM_WAIT_NODE_PARAMS_v1;
typedef CUDA_EXT_SEM_WAIT_NODE_PARAMS_v1 CUDA_EXT_SEM_WAIT_NODE_PARAMS;

/* Batches of copies (cuMemcpyBatchAsync, cuMemcpy3DBatchAsync). */
typedef enum CUmemcpyFlags_enum {
	CU_MEMCPY_FLAG_DEFAULT				= 0x0,
	CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE	= 0x1
} CUmemcpyFlags;

typedef enum CUmemcpySrcAccessOrder_enum {
	CU_MEMCPY_SRC_ACCESS_ORDER_INVALID		= 0x0,
	CU_MEMCPY_SRC_ACCESS_ORDER_STREAM		= 0x1,
	CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL	= 0x2,
	CU_MEMCPY_SRC_ACCESS_ORDER_ANY			= 0x3,
	CU_MEMCPY_SRC_ACCESS_ORDER_MAX			= 0x7FFFFFFF
} CUmemcpySrcAccessOrder;

typedef struct CUmemcpyAttributes_st {
	CUmemcpySrcAccessOrder srcAccessOrder;
	CUmemLocation srcLocHint;
	CUmemLocation dstLocHint;
	unsigned int flags;
} CUmemcpyAttributes_v1;
typedef CUmemcpyAttributes_v1 CUmemcpyAttributes;

typedef enum CUmemcpy3DOperandType_enum {
	CU_MEMCPY_OPERAND_TYPE_POINTER	= 0x1,
	CU_MEMCPY_OPERAND_TYPE_ARRAY	= 0x2,
	CU_MEMCPY_OPERAND_TYPE_MAX	= 0x7FFFFFFF
} CUmemcpy3DOperandType;

typedef struct CUoffset3D_st {
	size_t x;
	size_t y;
	size_t z;
} CUoffset3D_v1;
typedef CUoffset3D_v1 CUoffset3D;

typedef struct CUextent3D_st {
	size_t width;
	size_t height;
	size_t depth;
} CUextent3D_v1;
typedef CUextent3D_v1 CUextent3D;

typedef struct CUmemcpy3DOperand_st {
	CUmemcpy3DOperandType type;
	union {
		struct {
			CUdeviceptr ptr;
			size_t rowLength;
			size_t layerHeight;
			CUmemLocation locHint;
		} ptr;
		struct {
			CUarray array;
			CUoffset3D offset;
		} array;
	} op;
} CUmemcpy3DOperand_v1;
typedef CUmemcpy3DOperand_v1 CUmemcpy3DOperand;

typedef struct CUDA_MEMCPY3D_BATCH_OP_st {
	CUmemcpy3DOperand src;
	CUmemcpy3DOperand dst;
	CUextent3D extent;
	CUmemcpySrcAccessOrder srcAccessOrder;
	unsigned int flags;
} CUDA_MEMCPY3D_BATCH_OP_v1;
typedef CUDA_MEMCPY3D_BATCH_OP_v1 CUDA_MEMCPY3D_BATCH_OP;

/* Tensor maps: the 128-byte descriptors of the tensor memory accelerator. */
#define CU_TENSOR_MAP_NUM_QWORDS 16

typedef struct CUtensorMap_st {
#if defined(__cplusplus) && (__cplusplus >= 201103L)
	alignas(128)
#elif __STDC_VERSION__ >= 201112L
	_Alignas(128)
#endif
	cuuint64_t opaque[CU_TENSOR_MAP_NUM_QWORDS];
} CUtensorMap;

typedef enum CUtensorMapDataType_enum {
	CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0,
	CU_TENSOR_MAP_DATA_TYPE_UINT16,
	CU_TENSOR_MAP_DATA_TYPE_UINT32,
	CU_TENSOR_MAP_DATA_TYPE_INT32,
	CU_TENSOR_MAP_DATA_TYPE_UINT64,
	CU_TENSOR_MAP_DATA_TYPE_INT64,
	CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
	CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
	CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
	CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
	CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ,
	CU_TENSOR_MAP_DATA_TYPE_TFLOAT32,
	CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ,
	CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B,
	CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B,
	CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B
} CUtensorMapDataType;

typedef enum CUtensorMapInterleave_enum {
	CU_TENSOR_MAP_INTERLEAVE_NONE = 0,
	CU_TENSOR_MAP_INTERLEAVE_16B,
	CU_TENSOR_MAP_INTERLEAVE_32B
} CUtensorMapInterleave;

typedef enum CUtensorMapSwizzle_enum {
	CU_TENSOR_MAP_SWIZZLE_NONE = 0,
	CU_TENSOR_MAP_SWIZZLE_32B,
	CU_TENSOR_MAP_SWIZZLE_64B,
	CU_TENSOR_MAP_SWIZZLE_128B,
	CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B,
	CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B,
	CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B
} CUtensorMapSwizzle;

typedef enum CUtensorMapL2promotion_enum {
	CU_TENSOR_MAP_L2_PROMOTION_NONE = 0,
	CU_TENSOR_MAP_L2_PROMOTION_L2_64B,
	CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
	CU_TENSOR_MAP_L2_PROMOTION_L2_256B
} CUtensorMapL2promotion;

typedef enum CUtensorMapFloatOOBfill_enum {
	CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0,
	CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
} CUtensorMapFloatOOBfill;

typedef enum CUtensorMapIm2ColWideMode_enum {
	CU_TENSOR_MAP_IM2COL_WIDE_MODE_W = 0,
	CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128
} CUtensorMapIm2ColWideMode;

/* Mapping memory into sparse arrays (cuMemMapArrayAsync). */
typedef enum CUarraySparseSubresourceType_enum {
	CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_SPARSE_LEVEL	= 0,
	CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_MIPTAIL	= 1
} CUarraySparseSubresourceType;

typedef enum CUmemOperationType_enum {
	CU_MEM_OPERATION_TYPE_MAP	= 1,
	CU_MEM_OPERATION_TYPE_UNMAP	= 2
} CUmemOperationType;

typedef enum CUmemHandleType_enum {
	CU_MEM_HANDLE_TYPE_GENERIC	= 0
} CUmemHandleType;

typedef struct CUarrayMapInfo_st {
	CUresourcetype resourceType;
	union {
		CUmipmappedArray mipmap;
		CUarray array;
	} resource;
	CUarraySparseSubresourceType subresourceType;
	union {
		struct {
			unsigned int level;
			unsigned int layer;
			unsigned int offsetX;
			unsigned int offsetY;
			unsigned int offsetZ;
			unsigned int extentWidth;
			unsigned int extentHeight;
			unsigned int extentDepth;
		} sparseLevel;
		struct {
			unsigned int layer;
			unsigned long long offset;
			unsigned long long size;
		} miptail;
	} subresource;
	CUmemOperationType memOperationType;
	CUmemHandleType memHandleType;
	union {
		CUmemGenericAllocationHandle memHandle;
	} memHandle;
	unsigned long long offset;
	unsigned int deviceBitMask;
	unsigned int flags;
	unsigned int reserved[2];
} CUarrayMapInfo_v1;
typedef CUarrayMapInfo_v1 CUarrayMapInfo;

/*
 * Entry points.  The block between the PROTOTYPES markers is also compiled
 * against the toolkit's cuda.h by tests/abi/abi_check.sh, so it must hold
 * nothing but declarations.
 */
/*
 * Green contexts: device resources (SMs) and their descriptors. The
 * resource keeps the toolkit's layout: 92 bytes the driver keeps to
 * itself after the type, then the SM data in a 48-byte union.
 */
typedef struct CUdevResourceDesc_st *CUdevResourceDesc;

typedef enum {
	CU_GREEN_CTX_DEFAULT_STREAM = 0x1
} CUgreenCtxCreate_flags;

typedef enum {
	CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING = 0x1,
	CU_DEV_SM_RESOURCE_SPLIT_MAX_POTENTIAL_CLUSTER_SIZE = 0x2
} CUdevSmResourceSplit_flags;

typedef enum {
	CU_DEV_RESOURCE_TYPE_INVALID = 0,
	CU_DEV_RESOURCE_TYPE_SM = 1
} CUdevResourceType;

typedef struct CUdevSmResource_st {
	unsigned int smCount;
	unsigned int minSmPartitionSize;
	unsigned int smCoscheduledAlignment;
} CUdevSmResource;

typedef struct CUdevResource_st {
	CUdevResourceType type;
	unsigned char _internal_padding[92];
	union {
		CUdevSmResource sm;
		unsigned char _oversize[48];
	};
} CUdevResource_v1;
typedef CUdevResource_v1 CUdevResource;

/* Checkpointing a process (cuCheckpointProcess*). */
typedef enum CUprocessState_enum {
	CU_PROCESS_STATE_RUNNING = 0,
	CU_PROCESS_STATE_LOCKED,
	CU_PROCESS_STATE_CHECKPOINTED,
	CU_PROCESS_STATE_FAILED
} CUprocessState;

typedef struct CUcheckpointLockArgs_st {
	unsigned int timeoutMs;
	unsigned int reserved0;
	cuuint64_t reserved1[7];
} CUcheckpointLockArgs;

typedef struct CUcheckpointCheckpointArgs_st {
	cuuint64_t reserved[8];
} CUcheckpointCheckpointArgs;

typedef struct CUcheckpointGpuPair_st {
	CUuuid oldUuid;
	CUuuid newUuid;
} CUcheckpointGpuPair;

typedef struct CUcheckpointRestoreArgs_st {
	CUcheckpointGpuPair *gpuPairs;
	unsigned int gpuPairsCount;
	char reserved[52 - sizeof(CUcheckpointGpuPair *)];
	cuuint64_t reserved1;
} CUcheckpointRestoreArgs;

typedef struct CUcheckpointUnlockArgs_st {
	cuuint64_t reserved[8];
} CUcheckpointUnlockArgs;

/* GPU coredump settings (cuCoredump*Attribute*). */
typedef enum CUcoredumpSettings_enum {
	CU_COREDUMP_ENABLE_ON_EXCEPTION = 1,
	CU_COREDUMP_TRIGGER_HOST,
	CU_COREDUMP_LIGHTWEIGHT,
	CU_COREDUMP_ENABLE_USER_TRIGGER,
	CU_COREDUMP_FILE,
	CU_COREDUMP_PIPE,
	CU_COREDUMP_GENERATION_FLAGS,
	CU_COREDUMP_MAX
} CUcoredumpSettings;

typedef enum CUCoredumpGenerationFlags {
	CU_COREDUMP_DEFAULT_FLAGS = 0,
	CU_COREDUMP_SKIP_NONRELOCATED_ELF_IMAGES = (1 << 0),
	CU_COREDUMP_SKIP_GLOBAL_MEMORY = (1 << 1),
	CU_COREDUMP_SKIP_SHARED_MEMORY = (1 << 2),
	CU_COREDUMP_SKIP_LOCAL_MEMORY = (1 << 3),
	CU_COREDUMP_SKIP_ABORT = (1 << 4),
	CU_COREDUMP_SKIP_CONSTBANK_MEMORY = (1 << 5),
	CU_COREDUMP_LIGHTWEIGHT_FLAGS = CU_COREDUMP_SKIP_NONRELOCATED_ELF_IMAGES |
					CU_COREDUMP_SKIP_GLOBAL_MEMORY |
					CU_COREDUMP_SKIP_SHARED_MEMORY |
					CU_COREDUMP_SKIP_LOCAL_MEMORY |
					CU_COREDUMP_SKIP_CONSTBANK_MEMORY
} CUCoredumpGenerationFlags;

/* The driver's log (cuLogs*). */
typedef enum CUlogLevel_enum {
	CU_LOG_LEVEL_ERROR = 0,
	CU_LOG_LEVEL_WARNING = 1
} CUlogLevel;

typedef struct CUlogsCallbackEntry_st *CUlogsCallbackHandle;
typedef void (CUDA_CB *CUlogsCallback)(void *data, CUlogLevel logLevel,
				       char *message, size_t length);
typedef unsigned int CUlogIterator;

/* BEGIN PROTOTYPES */
CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr);
CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr);

CUresult CUDAAPI cuInit(unsigned int Flags);
CUresult CUDAAPI cuDriverGetVersion(int *driverVersion);
CUresult CUDAAPI cuGetExportTable(const void **ppExportTable,
				  const CUuuid *pExportTableId);
CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn,
				  int cudaVersion, cuuint64_t flags,
				  CUdriverProcAddressQueryResult *symbolStatus);

CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal);
CUresult CUDAAPI cuDeviceGetCount(int *count);
CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev);
CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice dev);
CUresult CUDAAPI cuDeviceTotalMem(size_t *bytes, CUdevice dev);
CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib,
				      CUdevice dev);

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev);
CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev);
CUresult CUDAAPI cuDevicePrimaryCtxReset(CUdevice dev);

CUresult CUDAAPI cuCtxCreate(CUcontext *pctx,
			     CUctxCreateParams *ctxCreateParams,
			     unsigned int flags, CUdevice dev);
CUresult CUDAAPI cuCtxDestroy(CUcontext ctx);
CUresult CUDAAPI cuCtxPushCurrent(CUcontext ctx);
CUresult CUDAAPI cuCtxPopCurrent(CUcontext *pctx);
CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx);
CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx);
CUresult CUDAAPI cuCtxGetDevice(CUdevice *device);
CUresult CUDAAPI cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx);
CUresult CUDAAPI cuCtxSynchronize(void);
CUresult CUDAAPI cuCtxSynchronize_v2(CUcontext ctx);

CUresult CUDAAPI cuMemGetInfo(size_t *free, size_t *total);
CUresult CUDAAPI cuMemGetAddressRange(CUdeviceptr *pbase, size_t *psize,
				      CUdeviceptr dptr);
CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost,
			      size_t ByteCount);
CUresult CUDAAPI cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice,
			      size_t ByteCount);
CUresult CUDAAPI cuMemcpyDtoD(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
			      size_t ByteCount);
CUresult CUDAAPI cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc,
			    size_t N);
CUresult CUDAAPI cuMemsetD16(CUdeviceptr dstDevice, unsigned short us,
			     size_t N);
CUresult CUDAAPI cuMemsetD32(CUdeviceptr dstDevice, unsigned int ui,
			     size_t N);

CUresult CUDAAPI cuMemAddressReserve(CUdeviceptr *ptr, size_t size,
				     size_t alignment, CUdeviceptr addr,
				     unsigned long long flags);
CUresult CUDAAPI cuMemAddressFree(CUdeviceptr ptr, size_t size);
CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle *handle,
			     size_t size, const CUmemAllocationProp *prop,
			     unsigned long long flags);
CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle handle);
CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
			  CUmemGenericAllocationHandle handle,
			  unsigned long long flags);
CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size);
CUresult CUDAAPI cuMemSetAccess(CUdeviceptr ptr, size_t size,
				const CUmemAccessDesc *desc, size_t count);
CUresult CUDAAPI cuMemGetAccess(unsigned long long *flags,
				const CUmemLocation *location,
				CUdeviceptr ptr);
CUresult CUDAAPI cuMemExportToShareableHandle(void *shareableHandle,
			CUmemGenericAllocationHandle handle,
			CUmemAllocationHandleType handleType,
			unsigned long long flags);
CUresult CUDAAPI cuMemImportFromShareableHandle(
			CUmemGenericAllocationHandle *handle, void *osHandle,
			CUmemAllocationHandleType shHandleType);
CUresult CUDAAPI cuMemGetAllocationGranularity(size_t *granularity,
			const CUmemAllocationProp *prop,
			CUmemAllocationGranularity_flags option);
CUresult CUDAAPI cuMemGetAllocationPropertiesFromHandle(
			CUmemAllocationProp *prop,
			CUmemGenericAllocationHandle handle);
CUresult CUDAAPI cuMemRetainAllocationHandle(
			CUmemGenericAllocationHandle *handle, void *addr);

CUresult CUDAAPI cuPointerGetAttribute(void *data,
				       CUpointer_attribute attribute,
				       CUdeviceptr ptr);
CUresult CUDAAPI cuPointerGetAttributes(unsigned int numAttributes,
					CUpointer_attribute *attributes,
					void **data, CUdeviceptr ptr);

CUresult CUDAAPI cuMulticastCreate(CUmemGenericAllocationHandle *mcHandle,
				   const CUmulticastObjectProp *prop);
CUresult CUDAAPI cuMulticastAddDevice(CUmemGenericAllocationHandle mcHandle,
				      CUdevice dev);
CUresult CUDAAPI cuMulticastBindMem(CUmemGenericAllocationHandle mcHandle,
				    size_t mcOffset,
				    CUmemGenericAllocationHandle memHandle,
				    size_t memOffset, size_t size,
				    unsigned long long flags);
CUresult CUDAAPI cuMulticastBindAddr(CUmemGenericAllocationHandle mcHandle,
				     size_t mcOffset, CUdeviceptr memptr,
				     size_t size, unsigned long long flags);
CUresult CUDAAPI cuMulticastUnbind(CUmemGenericAllocationHandle mcHandle,
				   CUdevice dev, size_t mcOffset,
				   size_t size);
CUresult CUDAAPI cuMulticastGetGranularity(size_t *granularity,
			const CUmulticastObjectProp *prop,
			CUmulticastGranularity_flags option);
/*
 * CUDA 13.1 additions: the bind names the device it applies to instead of
 * taking it from the current context.
 */
CUresult CUDAAPI cuMulticastBindMem_v2(CUmemGenericAllocationHandle mcHandle,
				       CUdevice dev, size_t mcOffset,
				       CUmemGenericAllocationHandle memHandle,
				       size_t memOffset, size_t size,
				       unsigned long long flags);
CUresult CUDAAPI cuMulticastBindAddr_v2(CUmemGenericAllocationHandle mcHandle,
					CUdevice dev, size_t mcOffset,
					CUdeviceptr memptr, size_t size,
					unsigned long long flags);
/* Plain and host allocation (branch alloc). */
CUresult CUDAAPI cuMemAlloc(CUdeviceptr *dptr, size_t bytesize);
CUresult CUDAAPI cuMemAllocPitch(CUdeviceptr *dptr, size_t *pPitch,
				 size_t WidthInBytes, size_t Height,
				 unsigned int ElementSizeBytes);
CUresult CUDAAPI cuMemFree(CUdeviceptr dptr);
CUresult CUDAAPI cuMemAllocHost(void **pp, size_t bytesize);
CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize,
				unsigned int Flags);
CUresult CUDAAPI cuMemFreeHost(void *p);
CUresult CUDAAPI cuMemHostGetDevicePointer(CUdeviceptr *pdptr, void *p,
					   unsigned int Flags);
CUresult CUDAAPI cuMemHostGetFlags(unsigned int *pFlags, void *p);
CUresult CUDAAPI cuMemHostRegister(void *p, size_t bytesize,
				   unsigned int Flags);
CUresult CUDAAPI cuMemHostUnregister(void *p);
CUresult CUDAAPI cuPointerSetAttribute(const void *value,
				       CUpointer_attribute attribute,
				       CUdeviceptr ptr);
/* Context flags (branch alloc). */
CUresult CUDAAPI cuCtxGetFlags(unsigned int *flags);
CUresult CUDAAPI cuCtxSetFlags(unsigned int flags);
CUresult CUDAAPI cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags,
					    int *active);
CUresult CUDAAPI cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags);
/* Peer access (branch alloc). */
CUresult CUDAAPI cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev,
				       CUdevice peerDev);
CUresult CUDAAPI cuDeviceGetP2PAttribute(int *value,
					 CUdevice_P2PAttribute attrib,
					 CUdevice srcDevice,
					 CUdevice dstDevice);
CUresult CUDAAPI cuDeviceGetP2PAtomicCapabilities(unsigned int *capabilities,
			const CUatomicOperation *operations,
			unsigned int count, CUdevice srcDevice,
			CUdevice dstDevice);
CUresult CUDAAPI cuDeviceGetHostAtomicCapabilities(unsigned int *capabilities,
			const CUatomicOperation *operations,
			unsigned int count, CUdevice dev);
CUresult CUDAAPI cuCtxEnablePeerAccess(CUcontext peerContext,
				       unsigned int Flags);
CUresult CUDAAPI cuCtxDisablePeerAccess(CUcontext peerContext);
/* Modules, libraries and launches: PTX through libcumc-ptx. */
CUresult CUDAAPI cuModuleLoad(CUmodule *module, const char *fname);
CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image);
CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *image,
				    unsigned int numOptions,
				    CUjit_option *options,
				    void **optionValues);
CUresult CUDAAPI cuModuleLoadFatBinary(CUmodule *module,
				       const void *fatCubin);
CUresult CUDAAPI cuModuleUnload(CUmodule hmod);
CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod,
				     const char *name);
CUresult CUDAAPI cuModuleGetGlobal(CUdeviceptr *dptr, size_t *bytes,
				   CUmodule hmod, const char *name);
CUresult CUDAAPI cuModuleGetFunctionCount(unsigned int *count, CUmodule mod);
CUresult CUDAAPI cuModuleEnumerateFunctions(CUfunction *functions,
					    unsigned int numFunctions,
					    CUmodule mod);
CUresult CUDAAPI cuLinkCreate(unsigned int numOptions, CUjit_option *options,
			      void **optionValues, CUlinkState *stateOut);
CUresult CUDAAPI cuLinkAddData(CUlinkState state, CUjitInputType type,
			       void *data, size_t size, const char *name,
			       unsigned int numOptions, CUjit_option *options,
			       void **optionValues);
CUresult CUDAAPI cuLinkAddFile(CUlinkState state, CUjitInputType type,
			       const char *path, unsigned int numOptions,
			       CUjit_option *options, void **optionValues);
CUresult CUDAAPI cuLinkComplete(CUlinkState state, void **cubinOut,
				size_t *sizeOut);
CUresult CUDAAPI cuLinkDestroy(CUlinkState state);
CUresult CUDAAPI cuLibraryLoadData(CUlibrary *library, const void *code,
				   CUjit_option *jitOptions,
				   void **jitOptionsValues,
				   unsigned int numJitOptions,
				   CUlibraryOption *libraryOptions,
				   void **libraryOptionValues,
				   unsigned int numLibraryOptions);
CUresult CUDAAPI cuLibraryLoadFromFile(CUlibrary *library,
				       const char *fileName,
				       CUjit_option *jitOptions,
				       void **jitOptionsValues,
				       unsigned int numJitOptions,
				       CUlibraryOption *libraryOptions,
				       void **libraryOptionValues,
				       unsigned int numLibraryOptions);
CUresult CUDAAPI cuLibraryUnload(CUlibrary library);
CUresult CUDAAPI cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library,
				    const char *name);
CUresult CUDAAPI cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes,
				    CUlibrary library, const char *name);
CUresult CUDAAPI cuLibraryGetKernelCount(unsigned int *count, CUlibrary lib);
CUresult CUDAAPI cuLibraryEnumerateKernels(CUkernel *kernels,
					   unsigned int numKernels,
					   CUlibrary lib);
CUresult CUDAAPI cuLibraryGetModule(CUmodule *pMod, CUlibrary library);
CUresult CUDAAPI cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel);
CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX,
				unsigned int gridDimY, unsigned int gridDimZ,
				unsigned int blockDimX, unsigned int blockDimY,
				unsigned int blockDimZ,
				unsigned int sharedMemBytes, CUstream hStream,
				void **kernelParams, void **extra);
CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
				  void **kernelParams, void **extra);
CUresult CUDAAPI cuLaunchCooperativeKernel(CUfunction f,
				unsigned int gridDimX, unsigned int gridDimY,
				unsigned int gridDimZ, unsigned int blockDimX,
				unsigned int blockDimY, unsigned int blockDimZ,
				unsigned int sharedMemBytes, CUstream hStream,
				void **kernelParams);
CUresult CUDAAPI cuFuncGetAttribute(int *pi, CUfunction_attribute attrib,
				    CUfunction hfunc);
CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc,
				    CUfunction_attribute attrib, int value);
CUresult CUDAAPI cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config);
CUresult CUDAAPI cuKernelGetAttribute(int *pi, CUfunction_attribute attrib,
				      CUkernel kernel, CUdevice dev);
CUresult CUDAAPI cuKernelSetAttribute(CUfunction_attribute attrib, int val,
				      CUkernel kernel, CUdevice dev);
CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
				CUfunction func, int blockSize,
				size_t dynamicSMemSize);
CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
				int *numBlocks, CUfunction func, int blockSize,
				size_t dynamicSMemSize, unsigned int flags);
CUresult CUDAAPI cuOccupancyMaxPotentialBlockSize(int *minGridSize,
				int *blockSize, CUfunction func,
				CUoccupancyB2DSize blockSizeToDynamicSMemSize,
				size_t dynamicSMemSize, int blockSizeLimit);
CUresult CUDAAPI cuOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize,
				int *blockSize, CUfunction func,
				CUoccupancyB2DSize blockSizeToDynamicSMemSize,
				size_t dynamicSMemSize, int blockSizeLimit,
				unsigned int flags);
CUresult CUDAAPI cuOccupancyAvailableDynamicSMemPerBlock(
				size_t *dynamicSmemSize, CUfunction func,
				int numBlocks, int blockSize);

/* Streams */
CUresult CUDAAPI cuCtxGetStreamPriorityRange(int *leastPriority,
					     int *greatestPriority);
CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int Flags);
CUresult CUDAAPI cuStreamCreateWithPriority(CUstream *phStream,
					    unsigned int flags, int priority);
CUresult CUDAAPI cuStreamDestroy(CUstream hStream);
CUresult CUDAAPI cuStreamGetPriority(CUstream hStream, int *priority);
CUresult CUDAAPI cuStreamGetFlags(CUstream hStream, unsigned int *flags);
CUresult CUDAAPI cuStreamIsCapturing(CUstream hStream,
				     CUstreamCaptureStatus *captureStatus);
CUresult CUDAAPI cuStreamGetId(CUstream hStream, unsigned long long *streamId);
CUresult CUDAAPI cuStreamGetDevice(CUstream hStream, CUdevice *device);
CUresult CUDAAPI cuStreamGetCtx(CUstream hStream, CUcontext *pctx);
CUresult CUDAAPI cuStreamGetCtx_v2(CUstream hStream, CUcontext *pCtx,
				   CUgreenCtx *pGreenCtx);
CUresult CUDAAPI cuStreamGetAttribute(CUstream hStream, CUstreamAttrID attr,
				      CUstreamAttrValue *value_out);
CUresult CUDAAPI cuStreamSetAttribute(CUstream hStream, CUstreamAttrID attr,
				      const CUstreamAttrValue *value);
CUresult CUDAAPI cuStreamCopyAttributes(CUstream dst, CUstream src);
CUresult CUDAAPI cuStreamWaitEvent(CUstream hStream, CUevent hEvent,
				   unsigned int Flags);
CUresult CUDAAPI cuStreamAddCallback(CUstream hStream,
				     CUstreamCallback callback,
				     void *userData, unsigned int flags);
CUresult CUDAAPI cuStreamQuery(CUstream hStream);
CUresult CUDAAPI cuStreamSynchronize(CUstream hStream);
CUresult CUDAAPI cuLaunchHostFunc(CUstream hStream, CUhostFn fn,
				  void *userData);

/* Asynchronous copies and sets, and the unified copy */
CUresult CUDAAPI cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount);
CUresult CUDAAPI cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src,
			       size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr dstDevice, const void *srcHost,
				   size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemcpyDtoHAsync(void *dstHost, CUdeviceptr srcDevice,
				   size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemcpyDtoDAsync(CUdeviceptr dstDevice,
				   CUdeviceptr srcDevice, size_t ByteCount,
				   CUstream hStream);
CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc,
				 size_t N, CUstream hStream);
CUresult CUDAAPI cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us,
				  size_t N, CUstream hStream);
CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui,
				  size_t N, CUstream hStream);

/* Events */
CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags);
CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream);
CUresult CUDAAPI cuEventRecordWithFlags(CUevent hEvent, CUstream hStream,
					unsigned int flags);
CUresult CUDAAPI cuEventQuery(CUevent hEvent);
CUresult CUDAAPI cuEventSynchronize(CUevent hEvent);
CUresult CUDAAPI cuEventDestroy(CUevent hEvent);
CUresult CUDAAPI cuEventElapsedTime(float *pMilliseconds, CUevent hStart,
				    CUevent hEnd);

/* Stream memory operations */
CUresult CUDAAPI cuStreamWaitValue32(CUstream stream, CUdeviceptr addr,
				     cuuint32_t value, unsigned int flags);
CUresult CUDAAPI cuStreamWaitValue64(CUstream stream, CUdeviceptr addr,
				     cuuint64_t value, unsigned int flags);
CUresult CUDAAPI cuStreamWriteValue32(CUstream stream, CUdeviceptr addr,
				      cuuint32_t value, unsigned int flags);
CUresult CUDAAPI cuStreamWriteValue64(CUstream stream, CUdeviceptr addr,
				      cuuint64_t value, unsigned int flags);
CUresult CUDAAPI cuStreamBatchMemOp(CUstream stream, unsigned int count,
				    CUstreamBatchMemOpParams *paramArray,
				    unsigned int flags);
/* Stream-ordered allocator: memory pools */
CUresult CUDAAPI cuMemPoolCreate(CUmemoryPool *pool,
				 const CUmemPoolProps *poolProps);
CUresult CUDAAPI cuMemPoolDestroy(CUmemoryPool pool);
CUresult CUDAAPI cuMemPoolSetAttribute(CUmemoryPool pool,
				       CUmemPool_attribute attr, void *value);
CUresult CUDAAPI cuMemPoolGetAttribute(CUmemoryPool pool,
				       CUmemPool_attribute attr, void *value);
CUresult CUDAAPI cuMemPoolSetAccess(CUmemoryPool pool,
				    const CUmemAccessDesc *map, size_t count);
CUresult CUDAAPI cuMemPoolGetAccess(CUmemAccess_flags *flags,
				    CUmemoryPool memPool,
				    CUmemLocation *location);
CUresult CUDAAPI cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep);
CUresult CUDAAPI cuMemPoolExportToShareableHandle(void *handle_out,
			CUmemoryPool pool, CUmemAllocationHandleType handleType,
			unsigned long long flags);
CUresult CUDAAPI cuMemPoolImportFromShareableHandle(CUmemoryPool *pool_out,
			void *handle, CUmemAllocationHandleType handleType,
			unsigned long long flags);
CUresult CUDAAPI cuMemPoolExportPointer(CUmemPoolPtrExportData *shareData_out,
					CUdeviceptr ptr);
CUresult CUDAAPI cuMemPoolImportPointer(CUdeviceptr *ptr_out,
					CUmemoryPool pool,
					CUmemPoolPtrExportData *shareData);
CUresult CUDAAPI cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out,
					   CUdevice dev);
CUresult CUDAAPI cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev);
CUresult CUDAAPI cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool);
CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize,
				 CUstream hStream);
CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream);
CUresult CUDAAPI cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize,
					 CUmemoryPool pool, CUstream hStream);
CUresult CUDAAPI cuDeviceGetDevResource(CUdevice device,
					CUdevResource *resource,
					CUdevResourceType type);
CUresult CUDAAPI cuCtxGetDevResource(CUcontext hCtx, CUdevResource *resource,
				     CUdevResourceType type);
CUresult CUDAAPI cuGreenCtxGetDevResource(CUgreenCtx hCtx,
					  CUdevResource *resource,
					  CUdevResourceType type);
CUresult CUDAAPI cuDevSmResourceSplitByCount(CUdevResource *result,
					     unsigned int *nbGroups,
					     const CUdevResource *input,
					     CUdevResource *remaining,
					     unsigned int useFlags,
					     unsigned int minCount);
CUresult CUDAAPI cuDevResourceGenerateDesc(CUdevResourceDesc *phDesc,
					   CUdevResource *resources,
					   unsigned int nbResources);
CUresult CUDAAPI cuGreenCtxCreate(CUgreenCtx *phCtx, CUdevResourceDesc desc,
				  CUdevice dev, unsigned int flags);
CUresult CUDAAPI cuGreenCtxDestroy(CUgreenCtx hCtx);
CUresult CUDAAPI cuCtxFromGreenCtx(CUcontext *pContext, CUgreenCtx hCtx);
CUresult CUDAAPI cuCtxRecordEvent(CUcontext hCtx, CUevent hEvent);
CUresult CUDAAPI cuCtxWaitEvent(CUcontext hCtx, CUevent hEvent);
CUresult CUDAAPI cuGreenCtxRecordEvent(CUgreenCtx hCtx, CUevent hEvent);
CUresult CUDAAPI cuGreenCtxWaitEvent(CUgreenCtx hCtx, CUevent hEvent);
CUresult CUDAAPI cuGreenCtxStreamCreate(CUstream *phStream,
					CUgreenCtx greenCtx,
					unsigned int flags, int priority);
CUresult CUDAAPI cuStreamGetGreenCtx(CUstream hStream, CUgreenCtx *phCtx);
CUresult CUDAAPI cuGreenCtxGetId(CUgreenCtx greenCtx,
				 unsigned long long *greenCtxId);
CUresult CUDAAPI cuCheckpointProcessGetRestoreThreadId(int pid, int *tid);
CUresult CUDAAPI cuCheckpointProcessGetState(int pid, CUprocessState *state);
CUresult CUDAAPI cuCheckpointProcessLock(int pid, CUcheckpointLockArgs *args);
CUresult CUDAAPI cuCheckpointProcessCheckpoint(int pid,
					       CUcheckpointCheckpointArgs *args);
CUresult CUDAAPI cuCheckpointProcessRestore(int pid,
					    CUcheckpointRestoreArgs *args);
CUresult CUDAAPI cuCheckpointProcessUnlock(int pid,
					   CUcheckpointUnlockArgs *args);
CUresult CUDAAPI cuCoredumpGetAttribute(CUcoredumpSettings attrib,
					void *value, size_t *size);
CUresult CUDAAPI cuCoredumpGetAttributeGlobal(CUcoredumpSettings attrib,
					      void *value, size_t *size);
CUresult CUDAAPI cuCoredumpSetAttribute(CUcoredumpSettings attrib,
					void *value, size_t *size);
CUresult CUDAAPI cuCoredumpSetAttributeGlobal(CUcoredumpSettings attrib,
					      void *value, size_t *size);
CUresult CUDAAPI cuLogsRegisterCallback(CUlogsCallback callbackFunc,
					void *userData,
					CUlogsCallbackHandle *callback_out);
CUresult CUDAAPI cuLogsUnregisterCallback(CUlogsCallbackHandle callback);
CUresult CUDAAPI cuLogsCurrent(CUlogIterator *iterator_out,
			       unsigned int flags);
CUresult CUDAAPI cuLogsDumpToFile(CUlogIterator *iterator,
				  const char *pathToFile, unsigned int flags);
CUresult CUDAAPI cuLogsDumpToMemory(CUlogIterator *iterator, char *buffer,
				    size_t *size, unsigned int flags);
/* The toolkit declares these two in cudaProfiler.h. */
CUresult CUDAAPI cuProfilerStart(void);
CUresult CUDAAPI cuProfilerStop(void);
CUresult CUDAAPI cuArrayCreate(CUarray *pHandle,
			       const CUDA_ARRAY_DESCRIPTOR *pAllocateArray);
CUresult CUDAAPI cuArray3DCreate(CUarray *pHandle,
				 const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray);
CUresult CUDAAPI cuArrayGetDescriptor(CUDA_ARRAY_DESCRIPTOR *pArrayDescriptor,
				      CUarray hArray);
CUresult CUDAAPI cuArray3DGetDescriptor(
		CUDA_ARRAY3D_DESCRIPTOR *pArrayDescriptor, CUarray hArray);
CUresult CUDAAPI cuArrayDestroy(CUarray hArray);
CUresult CUDAAPI cuMemcpyDtoA(CUarray dstArray, size_t dstOffset,
			      CUdeviceptr srcDevice, size_t ByteCount);
CUresult CUDAAPI cuMemcpyAtoD(CUdeviceptr dstDevice, CUarray srcArray,
			      size_t srcOffset, size_t ByteCount);
CUresult CUDAAPI cuMemcpyHtoA(CUarray dstArray, size_t dstOffset,
			      const void *srcHost, size_t ByteCount);
CUresult CUDAAPI cuMemcpyAtoH(void *dstHost, CUarray srcArray,
			      size_t srcOffset, size_t ByteCount);
CUresult CUDAAPI cuMemcpyAtoA(CUarray dstArray, size_t dstOffset,
			      CUarray srcArray, size_t srcOffset,
			      size_t ByteCount);
CUresult CUDAAPI cuMemcpyHtoAAsync(CUarray dstArray, size_t dstOffset,
				   const void *srcHost, size_t ByteCount,
				   CUstream hStream);
CUresult CUDAAPI cuMemcpyAtoHAsync(void *dstHost, CUarray srcArray,
				   size_t srcOffset, size_t ByteCount,
				   CUstream hStream);
CUresult CUDAAPI cuMemcpy2D(const CUDA_MEMCPY2D *pCopy);
CUresult CUDAAPI cuMemcpy2DUnaligned(const CUDA_MEMCPY2D *pCopy);
CUresult CUDAAPI cuMemcpy3D(const CUDA_MEMCPY3D *pCopy);
CUresult CUDAAPI cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER *pCopy);
CUresult CUDAAPI cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext,
			      CUdeviceptr srcDevice, CUcontext srcContext,
			      size_t ByteCount);
CUresult CUDAAPI cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext,
				   CUdeviceptr srcDevice, CUcontext srcContext,
				   size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemcpy2DAsync(const CUDA_MEMCPY2D *pCopy,
				 CUstream hStream);
CUresult CUDAAPI cuMemcpy3DAsync(const CUDA_MEMCPY3D *pCopy,
				 CUstream hStream);
CUresult CUDAAPI cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER *pCopy,
				     CUstream hStream);
CUresult CUDAAPI cuMemsetD2D8(CUdeviceptr dstDevice, size_t dstPitch,
			      unsigned char uc, size_t Width, size_t Height);
CUresult CUDAAPI cuMemsetD2D16(CUdeviceptr dstDevice, size_t dstPitch,
			       unsigned short us, size_t Width, size_t Height);
CUresult CUDAAPI cuMemsetD2D32(CUdeviceptr dstDevice, size_t dstPitch,
			       unsigned int ui, size_t Width, size_t Height);
CUresult CUDAAPI cuMemsetD2D8Async(CUdeviceptr dstDevice, size_t dstPitch,
				   unsigned char uc, size_t Width,
				   size_t Height, CUstream hStream);
CUresult CUDAAPI cuMemsetD2D16Async(CUdeviceptr dstDevice, size_t dstPitch,
				    unsigned short us, size_t Width,
				    size_t Height, CUstream hStream);
CUresult CUDAAPI cuMemsetD2D32Async(CUdeviceptr dstDevice, size_t dstPitch,
				    unsigned int ui, size_t Width,
				    size_t Height, CUstream hStream);

CUresult CUDAAPI cuMipmappedArrayCreate(CUmipmappedArray *pHandle,
		const CUDA_ARRAY3D_DESCRIPTOR *pMipmappedArrayDesc,
		unsigned int numMipmapLevels);
CUresult CUDAAPI cuMipmappedArrayGetLevel(CUarray *pLevelArray,
					  CUmipmappedArray hMipmappedArray,
					  unsigned int level);
CUresult CUDAAPI cuMipmappedArrayDestroy(CUmipmappedArray hMipmappedArray);
CUresult CUDAAPI cuTexObjectCreate(CUtexObject *pTexObject,
				   const CUDA_RESOURCE_DESC *pResDesc,
				   const CUDA_TEXTURE_DESC *pTexDesc,
				   const CUDA_RESOURCE_VIEW_DESC *pResViewDesc);
CUresult CUDAAPI cuTexObjectDestroy(CUtexObject texObject);
CUresult CUDAAPI cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *pResDesc,
					    CUtexObject texObject);
CUresult CUDAAPI cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC *pTexDesc,
					   CUtexObject texObject);
CUresult CUDAAPI cuTexObjectGetResourceViewDesc(
		CUDA_RESOURCE_VIEW_DESC *pResViewDesc, CUtexObject texObject);
CUresult CUDAAPI cuSurfObjectCreate(CUsurfObject *pSurfObject,
				    const CUDA_RESOURCE_DESC *pResDesc);
CUresult CUDAAPI cuSurfObjectDestroy(CUsurfObject surfObject);
CUresult CUDAAPI cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC *pResDesc,
					     CUsurfObject surfObject);

CUresult CUDAAPI cuArrayGetPlane(CUarray *pPlaneArray, CUarray hArray,
				 unsigned int planeIdx);
CUresult CUDAAPI cuArrayGetSparseProperties(
		CUDA_ARRAY_SPARSE_PROPERTIES *sparseProperties, CUarray array);
CUresult CUDAAPI cuMipmappedArrayGetSparseProperties(
		CUDA_ARRAY_SPARSE_PROPERTIES *sparseProperties,
		CUmipmappedArray mipmap);
CUresult CUDAAPI cuArrayGetMemoryRequirements(
		CUDA_ARRAY_MEMORY_REQUIREMENTS *memoryRequirements,
		CUarray array, CUdevice device);
CUresult CUDAAPI cuMipmappedArrayGetMemoryRequirements(
		CUDA_ARRAY_MEMORY_REQUIREMENTS *memoryRequirements,
		CUmipmappedArray mipmap, CUdevice device);
CUresult CUDAAPI cuDeviceGetTexture1DLinearMaxWidth(size_t *maxWidthInElements,
						    CUarray_format format,
						    unsigned int numChannels,
						    CUdevice dev);
/* Graphics interop: no resource can be registered in cumc (graphics.c). */
CUresult CUDAAPI cuGraphicsUnregisterResource(CUgraphicsResource resource);
CUresult CUDAAPI cuGraphicsSubResourceGetMappedArray(CUarray *pArray,
		CUgraphicsResource resource, unsigned int arrayIndex,
		unsigned int mipLevel);
CUresult CUDAAPI cuGraphicsResourceGetMappedMipmappedArray(
		CUmipmappedArray *pMipmappedArray, CUgraphicsResource resource);
CUresult CUDAAPI cuGraphicsResourceGetMappedPointer(CUdeviceptr *pDevPtr,
		size_t *pSize, CUgraphicsResource resource);
CUresult CUDAAPI cuGraphicsResourceSetMapFlags(CUgraphicsResource resource,
					       unsigned int flags);
CUresult CUDAAPI cuGraphicsMapResources(unsigned int count,
					CUgraphicsResource *resources,
					CUstream hStream);
CUresult CUDAAPI cuGraphicsUnmapResources(unsigned int count,
					  CUgraphicsResource *resources,
					  CUstream hStream);
/* Texture and surface references: deprecated; cumc has none (texref.c). */
CUresult CUDAAPI cuModuleGetTexRef(CUtexref *pTexRef, CUmodule hmod,
		const char *name);
CUresult CUDAAPI cuModuleGetSurfRef(CUsurfref *pSurfRef, CUmodule hmod,
		const char *name);
CUresult CUDAAPI cuParamSetTexRef(CUfunction hfunc, int texunit,
		CUtexref hTexRef);
CUresult CUDAAPI cuTexRefSetArray(CUtexref hTexRef, CUarray hArray,
		unsigned int Flags);
CUresult CUDAAPI cuTexRefSetMipmappedArray(CUtexref hTexRef,
		CUmipmappedArray hMipmappedArray, unsigned int Flags);
CUresult CUDAAPI cuTexRefSetAddress(size_t *ByteOffset, CUtexref hTexRef,
		CUdeviceptr dptr, size_t bytes);
CUresult CUDAAPI cuTexRefSetAddress2D(CUtexref hTexRef,
		const CUDA_ARRAY_DESCRIPTOR *desc, CUdeviceptr dptr, size_t Pitch);
CUresult CUDAAPI cuTexRefSetFormat(CUtexref hTexRef, CUarray_format fmt,
		int NumPackedComponents);
CUresult CUDAAPI cuTexRefSetAddressMode(CUtexref hTexRef, int dim,
		CUaddress_mode am);
CUresult CUDAAPI cuTexRefSetFilterMode(CUtexref hTexRef, CUfilter_mode fm);
CUresult CUDAAPI cuTexRefSetMipmapFilterMode(CUtexref hTexRef,
		CUfilter_mode fm);
CUresult CUDAAPI cuTexRefSetMipmapLevelBias(CUtexref hTexRef, float bias);
CUresult CUDAAPI cuTexRefSetMipmapLevelClamp(CUtexref hTexRef,
		float minMipmapLevelClamp, float maxMipmapLevelClamp);
CUresult CUDAAPI cuTexRefSetMaxAnisotropy(CUtexref hTexRef,
		unsigned int maxAniso);
CUresult CUDAAPI cuTexRefSetBorderColor(CUtexref hTexRef, float *pBorderColor);
CUresult CUDAAPI cuTexRefSetFlags(CUtexref hTexRef, unsigned int Flags);
CUresult CUDAAPI cuTexRefGetAddress(CUdeviceptr *pdptr, CUtexref hTexRef);
CUresult CUDAAPI cuTexRefGetArray(CUarray *phArray, CUtexref hTexRef);
CUresult CUDAAPI cuTexRefGetMipmappedArray(CUmipmappedArray *phMipmappedArray,
		CUtexref hTexRef);
CUresult CUDAAPI cuTexRefGetAddressMode(CUaddress_mode *pam, CUtexref hTexRef,
		int dim);
CUresult CUDAAPI cuTexRefGetFilterMode(CUfilter_mode *pfm, CUtexref hTexRef);
CUresult CUDAAPI cuTexRefGetFormat(CUarray_format *pFormat, int *pNumChannels,
		CUtexref hTexRef);
CUresult CUDAAPI cuTexRefGetMipmapFilterMode(CUfilter_mode *pfm,
		CUtexref hTexRef);
CUresult CUDAAPI cuTexRefGetMipmapLevelBias(float *pbias, CUtexref hTexRef);
CUresult CUDAAPI cuTexRefGetMipmapLevelClamp(float *pminMipmapLevelClamp,
		float *pmaxMipmapLevelClamp, CUtexref hTexRef);
CUresult CUDAAPI cuTexRefGetMaxAnisotropy(int *pmaxAniso, CUtexref hTexRef);
CUresult CUDAAPI cuTexRefGetBorderColor(float *pBorderColor, CUtexref hTexRef);
CUresult CUDAAPI cuTexRefGetFlags(unsigned int *pFlags, CUtexref hTexRef);
CUresult CUDAAPI cuTexRefCreate(CUtexref *pTexRef);
CUresult CUDAAPI cuTexRefDestroy(CUtexref hTexRef);
CUresult CUDAAPI cuSurfRefSetArray(CUsurfref hSurfRef, CUarray hArray,
		unsigned int Flags);
CUresult CUDAAPI cuSurfRefGetArray(CUarray *phArray, CUsurfref hSurfRef);

/* External memory and semaphores: none can be imported (external.c). */
CUresult CUDAAPI cuImportExternalMemory(CUexternalMemory *extMem_out,
		const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *memHandleDesc);
CUresult CUDAAPI cuExternalMemoryGetMappedBuffer(CUdeviceptr *devPtr,
		CUexternalMemory extMem,
		const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *bufferDesc);
CUresult CUDAAPI cuExternalMemoryGetMappedMipmappedArray(
		CUmipmappedArray *mipmap, CUexternalMemory extMem,
		const CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC *mipmapDesc);
CUresult CUDAAPI cuDestroyExternalMemory(CUexternalMemory extMem);
CUresult CUDAAPI cuImportExternalSemaphore(CUexternalSemaphore *extSem_out,
		const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC *semHandleDesc);
CUresult CUDAAPI cuSignalExternalSemaphoresAsync(
		const CUexternalSemaphore *extSemArray,
		const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS *paramsArray,
		unsigned int numExtSems, CUstream stream);
CUresult CUDAAPI cuWaitExternalSemaphoresAsync(
		const CUexternalSemaphore *extSemArray,
		const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS *paramsArray,
		unsigned int numExtSems, CUstream stream);
CUresult CUDAAPI cuDestroyExternalSemaphore(CUexternalSemaphore extSem);
CUresult CUDAAPI cuMemcpyBatchAsync(CUdeviceptr *dsts, CUdeviceptr *srcs,
				    size_t *sizes, size_t count,
				    CUmemcpyAttributes *attrs,
				    size_t *attrsIdxs, size_t numAttrs,
				    CUstream hStream);
CUresult CUDAAPI cuMemcpy3DBatchAsync(size_t numOps,
				      CUDA_MEMCPY3D_BATCH_OP *opList,
				      unsigned long long flags,
				      CUstream hStream);
/* Tensor maps (tensormap.c). */
CUresult CUDAAPI cuTensorMapEncodeTiled(CUtensorMap *tensorMap,
		CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
		void *globalAddress, const cuuint64_t *globalDim,
		const cuuint64_t *globalStrides, const cuuint32_t *boxDim,
		const cuuint32_t *elementStrides,
		CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
		CUtensorMapL2promotion l2Promotion,
		CUtensorMapFloatOOBfill oobFill);
CUresult CUDAAPI cuTensorMapEncodeIm2col(CUtensorMap *tensorMap,
		CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
		void *globalAddress, const cuuint64_t *globalDim,
		const cuuint64_t *globalStrides,
		const int *pixelBoxLowerCorner, const int *pixelBoxUpperCorner,
		cuuint32_t channelsPerPixel, cuuint32_t pixelsPerColumn,
		const cuuint32_t *elementStrides,
		CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
		CUtensorMapL2promotion l2Promotion,
		CUtensorMapFloatOOBfill oobFill);
CUresult CUDAAPI cuTensorMapEncodeIm2colWide(CUtensorMap *tensorMap,
		CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
		void *globalAddress, const cuuint64_t *globalDim,
		const cuuint64_t *globalStrides, int pixelBoxLowerCornerWidth,
		int pixelBoxUpperCornerWidth, cuuint32_t channelsPerPixel,
		cuuint32_t pixelsPerColumn, const cuuint32_t *elementStrides,
		CUtensorMapInterleave interleave, CUtensorMapIm2ColWideMode mode,
		CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
		CUtensorMapFloatOOBfill oobFill);
CUresult CUDAAPI cuTensorMapReplaceAddress(CUtensorMap *tensorMap,
					   void *globalAddress);
CUresult CUDAAPI cuMemMapArrayAsync(CUarrayMapInfo *mapInfoList,
				    unsigned int count, CUstream hStream);
/* Managed memory */
CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize,
				   unsigned int flags);
CUresult CUDAAPI cuMemAdvise(CUdeviceptr devPtr, size_t count,
			     CUmem_advise advice, CUmemLocation location);
CUresult CUDAAPI cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count,
				    CUmemLocation location, unsigned int flags,
				    CUstream hStream);
CUresult CUDAAPI cuMemPrefetchBatchAsync(CUdeviceptr *dptrs, size_t *sizes,
			size_t count, CUmemLocation *prefetchLocs,
			size_t *prefetchLocIdxs, size_t numPrefetchLocs,
			unsigned long long flags, CUstream hStream);
CUresult CUDAAPI cuMemDiscardBatchAsync(CUdeviceptr *dptrs, size_t *sizes,
			size_t count, unsigned long long flags,
			CUstream hStream);
CUresult CUDAAPI cuMemDiscardAndPrefetchBatchAsync(CUdeviceptr *dptrs,
			size_t *sizes, size_t count,
			CUmemLocation *prefetchLocs, size_t *prefetchLocIdxs,
			size_t numPrefetchLocs, unsigned long long flags,
			CUstream hStream);
CUresult CUDAAPI cuMemRangeGetAttribute(void *data, size_t dataSize,
					CUmem_range_attribute attribute,
					CUdeviceptr devPtr, size_t count);
CUresult CUDAAPI cuMemRangeGetAttributes(void **data, size_t *dataSizes,
					 CUmem_range_attribute *attributes,
					 size_t numAttributes,
					 CUdeviceptr devPtr, size_t count);
CUresult CUDAAPI cuStreamAttachMemAsync(CUstream hStream, CUdeviceptr dptr,
					size_t length, unsigned int flags);
/* Legacy interprocess memory and events */
CUresult CUDAAPI cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr);
CUresult CUDAAPI cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle handle,
				    unsigned int Flags);
CUresult CUDAAPI cuIpcCloseMemHandle(CUdeviceptr dptr);
CUresult CUDAAPI cuIpcGetEventHandle(CUipcEventHandle *pHandle,
				     CUevent event);
CUresult CUDAAPI cuIpcOpenEventHandle(CUevent *phEvent,
				      CUipcEventHandle handle);
/* What functions and kernels say of themselves */
CUresult CUDAAPI cuFuncGetName(const char **name, CUfunction hfunc);
CUresult CUDAAPI cuKernelGetName(const char **name, CUkernel hfunc);
CUresult CUDAAPI cuFuncGetParamInfo(CUfunction func, size_t paramIndex,
				    size_t *paramOffset, size_t *paramSize);
CUresult CUDAAPI cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex,
				      size_t *paramOffset, size_t *paramSize);
CUresult CUDAAPI cuFuncGetModule(CUmodule *hmod, CUfunction hfunc);
CUresult CUDAAPI cuKernelGetLibrary(CUlibrary *pLib, CUkernel kernel);
CUresult CUDAAPI cuFuncIsLoaded(CUfunctionLoadingState *state,
				CUfunction function);
CUresult CUDAAPI cuFuncLoad(CUfunction function);
CUresult CUDAAPI cuKernelSetCacheConfig(CUkernel kernel, CUfunc_cache config,
					CUdevice dev);
CUresult CUDAAPI cuModuleGetLoadingMode(CUmoduleLoadingMode *mode);
/* Contexts' settings and identity */
CUresult CUDAAPI cuCtxGetLimit(size_t *pvalue, CUlimit limit);
CUresult CUDAAPI cuCtxSetLimit(CUlimit limit, size_t value);
CUresult CUDAAPI cuCtxGetCacheConfig(CUfunc_cache *pconfig);
CUresult CUDAAPI cuCtxSetCacheConfig(CUfunc_cache config);
CUresult CUDAAPI cuCtxGetSharedMemConfig(CUsharedconfig *pConfig);
CUresult CUDAAPI cuCtxSetSharedMemConfig(CUsharedconfig config);
CUresult CUDAAPI cuCtxGetApiVersion(CUcontext ctx, unsigned int *version);
CUresult CUDAAPI cuCtxGetId(CUcontext ctx, unsigned long long *ctxId);
CUresult CUDAAPI cuCtxGetExecAffinity(CUexecAffinityParam *pExecAffinity,
				      CUexecAffinityType type);
CUresult CUDAAPI cuCtxResetPersistingL2Cache(void);
/* What else a device says of itself */
CUresult CUDAAPI cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev);
CUresult CUDAAPI cuDeviceGetByPCIBusId(CUdevice *dev, const char *pciBusId);
CUresult CUDAAPI cuDeviceComputeCapability(int *major, int *minor,
					   CUdevice dev);
CUresult CUDAAPI cuDeviceGetProperties(CUdevprop *prop, CUdevice dev);
CUresult CUDAAPI cuDeviceGetExecAffinitySupport(int *pi,
						CUexecAffinityType type,
						CUdevice dev);
CUresult CUDAAPI cuDeviceGetLuid(char *luid, unsigned int *deviceNodeMask,
				 CUdevice dev);
CUresult CUDAAPI cuDeviceGetNvSciSyncAttributes(void *nvSciSyncAttrList,
						CUdevice dev, int flags);
/* Memory pools by location and allocation type (CUDA 13.0) */
CUresult CUDAAPI cuMemGetDefaultMemPool(CUmemoryPool *pool_out,
					CUmemLocation *location,
					CUmemAllocationType type);
CUresult CUDAAPI cuMemGetMemPool(CUmemoryPool *pool, CUmemLocation *location,
				 CUmemAllocationType type);
CUresult CUDAAPI cuMemSetMemPool(CUmemLocation *location,
				 CUmemAllocationType type, CUmemoryPool pool);
/* Cluster occupancy, multi-device cooperative launches, dma-buf */
CUresult CUDAAPI cuOccupancyMaxActiveClusters(int *numClusters,
					      CUfunction func,
					      const CUlaunchConfig *config);
CUresult CUDAAPI cuOccupancyMaxPotentialClusterSize(int *clusterSize,
						    CUfunction func,
						    const CUlaunchConfig *config);
CUresult CUDAAPI cuLaunchCooperativeKernelMultiDevice(
	CUDA_LAUNCH_PARAMS *launchParamsList, unsigned int numDevices,
	unsigned int flags);
CUresult CUDAAPI cuMemGetHandleForAddressRange(void *handle, CUdeviceptr dptr,
					       size_t size,
					       CUmemRangeHandleType handleType,
					       unsigned long long flags);
CUresult CUDAAPI cuMemBatchDecompressAsync(CUmemDecompressParams *paramsArray,
					   size_t count, unsigned int flags,
					   size_t *errorIndex, CUstream stream);
CUresult CUDAAPI cuLibraryGetManaged(CUdeviceptr *dptr, size_t *bytes,
				     CUlibrary library, const char *name);
CUresult CUDAAPI cuLibraryGetUnifiedFunction(void **fptr, CUlibrary library,
					     const char *symbol);
CUresult CUDAAPI cuFlushGPUDirectRDMAWrites(
	CUflushGPUDirectRDMAWritesTarget target,
	CUflushGPUDirectRDMAWritesScope scope);
/* The legacy launch (deprecated) */
CUresult CUDAAPI cuFuncSetBlockShape(CUfunction hfunc, int x, int y, int z);
CUresult CUDAAPI cuFuncSetSharedSize(CUfunction hfunc, unsigned int bytes);
CUresult CUDAAPI cuParamSetSize(CUfunction hfunc, unsigned int numbytes);
CUresult CUDAAPI cuParamSeti(CUfunction hfunc, int offset, unsigned int value);
CUresult CUDAAPI cuParamSetf(CUfunction hfunc, int offset, float value);
CUresult CUDAAPI cuParamSetv(CUfunction hfunc, int offset, void *ptr,
			     unsigned int numbytes);
CUresult CUDAAPI cuLaunch(CUfunction f);
CUresult CUDAAPI cuLaunchGrid(CUfunction f, int grid_width, int grid_height);
CUresult CUDAAPI cuLaunchGridAsync(CUfunction f, int grid_width,
				   int grid_height, CUstream hStream);
CUresult CUDAAPI cuFuncSetSharedMemConfig(CUfunction hfunc,
					  CUsharedconfig config);
CUresult CUDAAPI cuDeviceRegisterAsyncNotification(CUdevice device,
			CUasyncCallback callbackFunc, void *userData,
			CUasyncCallbackHandle *callback);
CUresult CUDAAPI cuDeviceUnregisterAsyncNotification(CUdevice device,
			CUasyncCallbackHandle callback);
CUresult CUDAAPI cuCtxAttach(CUcontext *pctx, unsigned int flags);
CUresult CUDAAPI cuCtxDetach(CUcontext ctx);
/* END PROTOTYPES */

/*
 * Per-thread default stream builds look entry points up in that flavour
 * unless the caller names one, as with the toolkit's header.
 */
#if defined(__CUDA_API_PER_THREAD_DEFAULT_STREAM)
static inline CUresult cuGetProcAddress_v2_ptsz(const char *symbol,
		void **funcPtr, int driverVersion, cuuint64_t flags,
		CUdriverProcAddressQueryResult *symbolStatus)
{
	const int procAddressMask = (CU_GET_PROC_ADDRESS_LEGACY_STREAM |
				     CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);

	if ((flags & procAddressMask) == 0)
		flags |= CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
	return cuGetProcAddress_v2(symbol, funcPtr, driverVersion, flags,
				   symbolStatus);
}
#define cuGetProcAddress_v2 cuGetProcAddress_v2_ptsz
#endif

/*
 * Graphs (branch graphs): a CUgraph is a set of nodes and the edges
 * between them, a CUgraphExec one instantiated to be launched.
 */
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphNode_st *CUgraphNode;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUuserObject_st *CUuserObject;

typedef enum CUgraphNodeType_enum {
	CU_GRAPH_NODE_TYPE_KERNEL		= 0,
	CU_GRAPH_NODE_TYPE_MEMCPY		= 1,
	CU_GRAPH_NODE_TYPE_MEMSET		= 2,
	CU_GRAPH_NODE_TYPE_HOST			= 3,
	CU_GRAPH_NODE_TYPE_GRAPH		= 4,	/* a child graph */
	CU_GRAPH_NODE_TYPE_EMPTY		= 5,
	CU_GRAPH_NODE_TYPE_WAIT_EVENT		= 6,
	CU_GRAPH_NODE_TYPE_EVENT_RECORD		= 7,
	CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL	= 8,
	CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT	= 9,
	CU_GRAPH_NODE_TYPE_MEM_ALLOC		= 10,
	CU_GRAPH_NODE_TYPE_MEM_FREE		= 11,
	CU_GRAPH_NODE_TYPE_BATCH_MEM_OP		= 12,
	CU_GRAPH_NODE_TYPE_CONDITIONAL		= 13
} CUgraphNodeType;

/* Which calls a thread may make while a stream captures. */
typedef enum CUstreamCaptureMode_enum {
	CU_STREAM_CAPTURE_MODE_GLOBAL		= 0,
	CU_STREAM_CAPTURE_MODE_THREAD_LOCAL	= 1,
	CU_STREAM_CAPTURE_MODE_RELAXED		= 2
} CUstreamCaptureMode;

typedef struct CUDA_HOST_NODE_PARAMS_st {
	CUhostFn fn;
	void *userData;
} CUDA_HOST_NODE_PARAMS_v1;
typedef CUDA_HOST_NODE_PARAMS_v1 CUDA_HOST_NODE_PARAMS;

/* A 2D set: height rows of width elements, pitch bytes apart. */
typedef struct CUDA_MEMSET_NODE_PARAMS_st {
	CUdeviceptr dst;
	size_t pitch;
	unsigned int value;
	unsigned int elementSize;	/* 1, 2 or 4 */
	size_t width;
	size_t height;
} CUDA_MEMSET_NODE_PARAMS_v1;
typedef CUDA_MEMSET_NODE_PARAMS_v1 CUDA_MEMSET_NODE_PARAMS;

/* A kernel node's launch: func, or kern in the context ctx. */
typedef struct CUDA_KERNEL_NODE_PARAMS_v2_st {
	CUfunction func;
	unsigned int gridDimX;
	unsigned int gridDimY;
	unsigned int gridDimZ;
	unsigned int blockDimX;
	unsigned int blockDimY;
	unsigned int blockDimZ;
	unsigned int sharedMemBytes;
	void **kernelParams;
	void **extra;
	CUkernel kern;
	CUcontext ctx;
} CUDA_KERNEL_NODE_PARAMS_v2;
typedef CUDA_KERNEL_NODE_PARAMS_v2 CUDA_KERNEL_NODE_PARAMS;

/* A batch of stream memory operations as a graph node. */
typedef struct CUDA_BATCH_MEM_OP_NODE_PARAMS_v1_st {
	CUcontext ctx;
	unsigned int count;
	CUstreamBatchMemOpParams *paramArray;
	unsigned int flags;		/* must be 0 */
} CUDA_BATCH_MEM_OP_NODE_PARAMS_v1;
typedef CUDA_BATCH_MEM_OP_NODE_PARAMS_v1 CUDA_BATCH_MEM_OP_NODE_PARAMS;

/*
 * A graph allocation: device memory of the pool kind (handleTypes NONE),
 * the peers' access, its size in; its address out.
 */
typedef struct CUDA_MEM_ALLOC_NODE_PARAMS_v1_st {
	CUmemPoolProps poolProps;
	const CUmemAccessDesc *accessDescs;
	size_t accessDescCount;		/* at most one a device */
	size_t bytesize;
	CUdeviceptr dptr;
} CUDA_MEM_ALLOC_NODE_PARAMS_v1;
typedef CUDA_MEM_ALLOC_NODE_PARAMS_v1 CUDA_MEM_ALLOC_NODE_PARAMS;

/*
 * The generic builder's parameters (cuGraphAddNode): a node type and the
 * matching member of a union of 232 bytes, the unused bytes zero.
 */
typedef struct CUDA_KERNEL_NODE_PARAMS_v3_st {
	CUfunction func;
	unsigned int gridDimX;
	unsigned int gridDimY;
	unsigned int gridDimZ;
	unsigned int blockDimX;
	unsigned int blockDimY;
	unsigned int blockDimZ;
	unsigned int sharedMemBytes;
	void **kernelParams;
	void **extra;
	CUkernel kern;
	CUcontext ctx;
} CUDA_KERNEL_NODE_PARAMS_v3;

typedef struct CUDA_MEMCPY_NODE_PARAMS_st {
	int flags;			/* must be 0 */
	int reserved;			/* must be 0 */
	CUcontext copyCtx;
	CUDA_MEMCPY3D copyParams;
} CUDA_MEMCPY_NODE_PARAMS;

typedef struct CUDA_MEMSET_NODE_PARAMS_v2_st {
	CUdeviceptr dst;
	size_t pitch;
	unsigned int value;
	unsigned int elementSize;
	size_t width;
	size_t height;
	CUcontext ctx;
} CUDA_MEMSET_NODE_PARAMS_v2;

typedef struct CUDA_HOST_NODE_PARAMS_v2_st {
	CUhostFn fn;
	void *userData;
} CUDA_HOST_NODE_PARAMS_v2;

/* A condition's value, set by device code (cudaGraphSetConditional). */
typedef cuuint64_t CUgraphConditionalHandle;

/* cuGraphConditionalHandleCreate's flag: the default at each launch. */
#define CU_GRAPH_COND_ASSIGN_DEFAULT	0x1

typedef enum CUgraphConditionalNodeType_enum {
	CU_GRAPH_COND_TYPE_IF		= 0,	/* body 0 if non-zero, else 1 */
	CU_GRAPH_COND_TYPE_WHILE	= 1,	/* body 0 while non-zero */
	CU_GRAPH_COND_TYPE_SWITCH	= 2	/* body n for the value n */
} CUgraphConditionalNodeType;

typedef struct CUDA_CONDITIONAL_NODE_PARAMS {
	CUgraphConditionalHandle handle;
	CUgraphConditionalNodeType type;
	unsigned int size;		/* the number of bodies */
	CUgraph *phGraph_out;		/* out: the bodies, the node's */
	CUcontext ctx;
} CUDA_CONDITIONAL_NODE_PARAMS;

typedef enum CUgraphChildGraphNodeOwnership_enum {
	CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE	= 0,
	CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE	= 1
} CUgraphChildGraphNodeOwnership;

typedef struct CUDA_CHILD_GRAPH_NODE_PARAMS_st {
	CUgraph graph;
	CUgraphChildGraphNodeOwnership ownership;
} CUDA_CHILD_GRAPH_NODE_PARAMS;

typedef struct CUDA_EVENT_RECORD_NODE_PARAMS_st {
	CUevent event;
} CUDA_EVENT_RECORD_NODE_PARAMS;

typedef struct CUDA_EVENT_WAIT_NODE_PARAMS_st {
	CUevent event;
} CUDA_EVENT_WAIT_NODE_PARAMS;

typedef struct CUDA_EXT_SEM_SIGNAL_NODE_PARAMS_v2_st {
	CUexternalSemaphore *extSemArray;
	const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS *paramsArray;
	unsigned int numExtSems;
} CUDA_EXT_SEM_SIGNAL_NODE_PARAMS_v2;

typedef struct CUDA_EXT_SEM_WAIT_NODE_PARAMS_v2_st {
	CUexternalSemaphore *extSemArray;
	const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS *paramsArray;
	unsigned int numExtSems;
} CUDA_EXT_SEM_WAIT_NODE_PARAMS_v2;

/* Memory allocation and free nodes' parameters (dptr: out, in). */
typedef struct CUDA_MEM_ALLOC_NODE_PARAMS_v2_st {
	CUmemPoolProps poolProps;
	const CUmemAccessDesc *accessDescs;
	size_t accessDescCount;
	size_t bytesize;
	CUdeviceptr dptr;
} CUDA_MEM_ALLOC_NODE_PARAMS_v2;

typedef struct CUDA_MEM_FREE_NODE_PARAMS_st {
	CUdeviceptr dptr;
} CUDA_MEM_FREE_NODE_PARAMS;

typedef struct CUDA_BATCH_MEM_OP_NODE_PARAMS_v2_st {
	CUcontext ctx;
	unsigned int count;
	CUstreamBatchMemOpParams *paramArray;
	unsigned int flags;
} CUDA_BATCH_MEM_OP_NODE_PARAMS_v2;

typedef struct CUgraphNodeParams_st {
	CUgraphNodeType type;
	int reserved0[3];		/* must be 0 */
	union {
		long long reserved1[29];
		CUDA_KERNEL_NODE_PARAMS_v3 kernel;
		CUDA_MEMCPY_NODE_PARAMS memcpy;
		CUDA_MEMSET_NODE_PARAMS_v2 memset;
		CUDA_HOST_NODE_PARAMS_v2 host;
		CUDA_CHILD_GRAPH_NODE_PARAMS graph;
		CUDA_EVENT_WAIT_NODE_PARAMS eventWait;
		CUDA_EVENT_RECORD_NODE_PARAMS eventRecord;
		CUDA_EXT_SEM_SIGNAL_NODE_PARAMS_v2 extSemSignal;
		CUDA_EXT_SEM_WAIT_NODE_PARAMS_v2 extSemWait;
		CUDA_MEM_ALLOC_NODE_PARAMS_v2 alloc;
		CUDA_MEM_FREE_NODE_PARAMS free;
		CUDA_BATCH_MEM_OP_NODE_PARAMS_v2 memOp;
		CUDA_CONDITIONAL_NODE_PARAMS conditional;
	};
	long long reserved2;		/* must be 0 */
} CUgraphNodeParams;

/* What an edge carries: all zero is a full dependency. */
typedef struct CUgraphEdgeData_st {
	unsigned char from_port;
	unsigned char to_port;
	unsigned char type;		/* CUgraphDependencyType */
	unsigned char reserved[5];
} CUgraphEdgeData;

typedef enum CUgraphDependencyType_enum {
	CU_GRAPH_DEPENDENCY_TYPE_DEFAULT	= 0,
	CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC	= 1
} CUgraphDependencyType;

typedef enum CUgraphInstantiate_flags_enum {
	CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH	= 1,
	CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD		= 2,
	CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH	= 4,
	CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY	= 8
} CUgraphInstantiate_flags;

typedef enum CUgraphInstantiateResult_enum {
	CUDA_GRAPH_INSTANTIATE_SUCCESS				= 0,
	CUDA_GRAPH_INSTANTIATE_ERROR				= 1,
	CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE		= 2,
	CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED	= 3,
	CUDA_GRAPH_INSTANTIATE_MULTIPLE_CTXS_NOT_SUPPORTED	= 4,
	CUDA_GRAPH_INSTANTIATE_CONDITIONAL_HANDLE_UNUSED	= 5
} CUgraphInstantiateResult;

typedef struct CUDA_GRAPH_INSTANTIATE_PARAMS_st {
	cuuint64_t flags;
	CUstream hUploadStream;
	CUgraphNode hErrNode_out;
	CUgraphInstantiateResult result_out;
} CUDA_GRAPH_INSTANTIATE_PARAMS;

/* Why cuGraphExecUpdate could not update an executable. */
typedef enum CUgraphExecUpdateResult_enum {
	CU_GRAPH_EXEC_UPDATE_SUCCESS				= 0x0,
	CU_GRAPH_EXEC_UPDATE_ERROR				= 0x1,
	CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED		= 0x2,
	CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED		= 0x3,
	CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED		= 0x4,
	CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED		= 0x5,
	CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED		= 0x6,
	CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE	= 0x7,
	CU_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED		= 0x8
} CUgraphExecUpdateResult;

typedef struct CUgraphExecUpdateResultInfo_st {
	CUgraphExecUpdateResult result;
	CUgraphNode errorNode;		/* the node of the graph that failed */
	CUgraphNode errorFromNode;	/* the edge's other end, if an edge */
} CUgraphExecUpdateResultInfo_v1;
typedef CUgraphExecUpdateResultInfo_v1 CUgraphExecUpdateResultInfo;

/* cuDeviceGetGraphMemAttribute's attributes, each a cuuint64_t. */
typedef enum CUgraphMem_attribute_enum {
	CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT,
	CU_GRAPH_MEM_ATTR_USED_MEM_HIGH,	/* reset to 0 only */
	CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT,
	CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH	/* reset to 0 only */
} CUgraphMem_attribute;

typedef enum CUuserObject_flags_enum {
	CU_USER_OBJECT_NO_DESTRUCTOR_SYNC	= 1
} CUuserObject_flags;

typedef enum CUuserObjectRetain_flags_enum {
	CU_GRAPH_USER_OBJECT_MOVE		= 1
} CUuserObjectRetain_flags;

/* How cuStreamUpdateCaptureDependencies changes the dependencies. */
typedef enum CUstreamUpdateCaptureDependencies_flags_enum {
	CU_STREAM_ADD_CAPTURE_DEPENDENCIES	= 0x0,
	CU_STREAM_SET_CAPTURE_DEPENDENCIES	= 0x1
} CUstreamUpdateCaptureDependencies_flags;

/* Graphs and stream capture */
CUresult CUDAAPI cuGraphCreate(CUgraph *phGraph, unsigned int flags);
CUresult CUDAAPI cuGraphDestroy(CUgraph hGraph);
CUresult CUDAAPI cuGraphClone(CUgraph *phGraphClone, CUgraph originalGraph);
CUresult CUDAAPI cuGraphAddEmptyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
				     const CUgraphNode *dependencies,
				     size_t numDependencies);
CUresult CUDAAPI cuGraphAddHostNode(CUgraphNode *phGraphNode, CUgraph hGraph,
				    const CUgraphNode *dependencies,
				    size_t numDependencies,
				    const CUDA_HOST_NODE_PARAMS *nodeParams);
CUresult CUDAAPI cuGraphAddMemsetNode(CUgraphNode *phGraphNode, CUgraph hGraph,
				      const CUgraphNode *dependencies,
				      size_t numDependencies,
				      const CUDA_MEMSET_NODE_PARAMS *memsetParams,
				      CUcontext ctx);
CUresult CUDAAPI cuGraphAddMemcpyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
				      const CUgraphNode *dependencies,
				      size_t numDependencies,
				      const CUDA_MEMCPY3D *copyParams,
				      CUcontext ctx);
CUresult CUDAAPI cuGraphAddKernelNode(CUgraphNode *phGraphNode, CUgraph hGraph,
				      const CUgraphNode *dependencies,
				      size_t numDependencies,
				      const CUDA_KERNEL_NODE_PARAMS *nodeParams);
CUresult CUDAAPI cuGraphAddEventRecordNode(CUgraphNode *phGraphNode,
					   CUgraph hGraph,
					   const CUgraphNode *dependencies,
					   size_t numDependencies,
					   CUevent event);
CUresult CUDAAPI cuGraphAddEventWaitNode(CUgraphNode *phGraphNode,
					 CUgraph hGraph,
					 const CUgraphNode *dependencies,
					 size_t numDependencies, CUevent event);
CUresult CUDAAPI cuGraphAddChildGraphNode(CUgraphNode *phGraphNode,
					  CUgraph hGraph,
					  const CUgraphNode *dependencies,
					  size_t numDependencies,
					  CUgraph childGraph);
CUresult CUDAAPI cuGraphDestroyNode(CUgraphNode hNode);
CUresult CUDAAPI cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType *type);
CUresult CUDAAPI cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes,
				 size_t *numNodes);
CUresult CUDAAPI cuGraphGetRootNodes(CUgraph hGraph, CUgraphNode *rootNodes,
				     size_t *numRootNodes);
CUresult CUDAAPI cuGraphGetEdges(CUgraph hGraph, CUgraphNode *from,
				 CUgraphNode *to, CUgraphEdgeData *edgeData,
				 size_t *numEdges);
CUresult CUDAAPI cuGraphNodeGetDependencies(CUgraphNode hNode,
					    CUgraphNode *dependencies,
					    CUgraphEdgeData *edgeData,
					    size_t *numDependencies);
CUresult CUDAAPI cuGraphNodeGetDependentNodes(CUgraphNode hNode,
					      CUgraphNode *dependentNodes,
					      CUgraphEdgeData *edgeData,
					      size_t *numDependentNodes);
CUresult CUDAAPI cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode *from,
					const CUgraphNode *to,
					const CUgraphEdgeData *edgeData,
					size_t numDependencies);
CUresult CUDAAPI cuGraphRemoveDependencies(CUgraph hGraph,
					   const CUgraphNode *from,
					   const CUgraphNode *to,
					   const CUgraphEdgeData *edgeData,
					   size_t numDependencies);
CUresult CUDAAPI cuGraphNodeFindInClone(CUgraphNode *phNode,
					CUgraphNode hOriginalNode,
					CUgraph hClonedGraph);
CUresult CUDAAPI cuGraphHostNodeGetParams(CUgraphNode hNode,
					  CUDA_HOST_NODE_PARAMS *nodeParams);
CUresult CUDAAPI cuGraphHostNodeSetParams(CUgraphNode hNode,
					  const CUDA_HOST_NODE_PARAMS *nodeParams);
CUresult CUDAAPI cuGraphMemsetNodeGetParams(CUgraphNode hNode,
					    CUDA_MEMSET_NODE_PARAMS *nodeParams);
CUresult CUDAAPI cuGraphMemsetNodeSetParams(CUgraphNode hNode,
					const CUDA_MEMSET_NODE_PARAMS *nodeParams);
CUresult CUDAAPI cuGraphMemcpyNodeGetParams(CUgraphNode hNode,
					    CUDA_MEMCPY3D *nodeParams);
CUresult CUDAAPI cuGraphMemcpyNodeSetParams(CUgraphNode hNode,
					    const CUDA_MEMCPY3D *nodeParams);
CUresult CUDAAPI cuGraphKernelNodeGetParams(CUgraphNode hNode,
					    CUDA_KERNEL_NODE_PARAMS *nodeParams);
CUresult CUDAAPI cuGraphKernelNodeSetParams(CUgraphNode hNode,
					const CUDA_KERNEL_NODE_PARAMS *nodeParams);
CUresult CUDAAPI cuGraphEventRecordNodeGetEvent(CUgraphNode hNode,
						CUevent *event_out);
CUresult CUDAAPI cuGraphEventRecordNodeSetEvent(CUgraphNode hNode,
						CUevent event);
CUresult CUDAAPI cuGraphEventWaitNodeGetEvent(CUgraphNode hNode,
					      CUevent *event_out);
CUresult CUDAAPI cuGraphEventWaitNodeSetEvent(CUgraphNode hNode,
					      CUevent event);
CUresult CUDAAPI cuGraphChildGraphNodeGetGraph(CUgraphNode hNode,
					       CUgraph *phGraph);
CUresult CUDAAPI cuGraphInstantiate(CUgraphExec *phGraphExec, CUgraph hGraph,
				    unsigned long long flags);
CUresult CUDAAPI cuGraphInstantiateWithParams(CUgraphExec *phGraphExec,
			CUgraph hGraph,
			CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams);
CUresult CUDAAPI cuGraphExecGetFlags(CUgraphExec hGraphExec, cuuint64_t *flags);
CUresult CUDAAPI cuGraphUpload(CUgraphExec hGraphExec, CUstream hStream);
CUresult CUDAAPI cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream);
CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec hGraphExec);
CUresult CUDAAPI cuGraphNodeSetEnabled(CUgraphExec hGraphExec,
				       CUgraphNode hNode,
				       unsigned int isEnabled);
CUresult CUDAAPI cuGraphNodeGetEnabled(CUgraphExec hGraphExec,
				       CUgraphNode hNode,
				       unsigned int *isEnabled);
CUresult CUDAAPI cuGraphExecHostNodeSetParams(CUgraphExec hGraphExec,
				CUgraphNode hNode,
				const CUDA_HOST_NODE_PARAMS *nodeParams);
CUresult CUDAAPI cuGraphExecMemsetNodeSetParams(CUgraphExec hGraphExec,
				CUgraphNode hNode,
				const CUDA_MEMSET_NODE_PARAMS *memsetParams,
				CUcontext ctx);
CUresult CUDAAPI cuGraphExecMemcpyNodeSetParams(CUgraphExec hGraphExec,
				CUgraphNode hNode,
				const CUDA_MEMCPY3D *copyParams,
				CUcontext ctx);
CUresult CUDAAPI cuGraphExecKernelNodeSetParams(CUgraphExec hGraphExec,
				CUgraphNode hNode,
				const CUDA_KERNEL_NODE_PARAMS *nodeParams);
CUresult CUDAAPI cuGraphExecEventRecordNodeSetEvent(CUgraphExec hGraphExec,
						    CUgraphNode hNode,
						    CUevent event);
CUresult CUDAAPI cuGraphExecEventWaitNodeSetEvent(CUgraphExec hGraphExec,
						  CUgraphNode hNode,
						  CUevent event);
CUresult CUDAAPI cuGraphExecChildGraphNodeSetParams(CUgraphExec hGraphExec,
						    CUgraphNode hNode,
						    CUgraph childGraph);
CUresult CUDAAPI cuGraphExecUpdate(CUgraphExec hGraphExec, CUgraph hGraph,
				   CUgraphExecUpdateResultInfo *resultInfo);
CUresult CUDAAPI cuGraphAddMemAllocNode(CUgraphNode *phGraphNode,
					CUgraph hGraph,
					const CUgraphNode *dependencies,
					size_t numDependencies,
					CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams);
CUresult CUDAAPI cuGraphMemAllocNodeGetParams(CUgraphNode hNode,
				CUDA_MEM_ALLOC_NODE_PARAMS *params_out);
CUresult CUDAAPI cuGraphAddMemFreeNode(CUgraphNode *phGraphNode,
				       CUgraph hGraph,
				       const CUgraphNode *dependencies,
				       size_t numDependencies, CUdeviceptr dptr);
CUresult CUDAAPI cuGraphMemFreeNodeGetParams(CUgraphNode hNode,
					     CUdeviceptr *dptr_out);
CUresult CUDAAPI cuGraphAddBatchMemOpNode(CUgraphNode *phGraphNode,
				CUgraph hGraph, const CUgraphNode *dependencies,
				size_t numDependencies,
				const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams);
CUresult CUDAAPI cuGraphBatchMemOpNodeGetParams(CUgraphNode hNode,
				CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams_out);
CUresult CUDAAPI cuGraphBatchMemOpNodeSetParams(CUgraphNode hNode,
				const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams);
CUresult CUDAAPI cuGraphExecBatchMemOpNodeSetParams(CUgraphExec hGraphExec,
				CUgraphNode hNode,
				const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams);
CUresult CUDAAPI cuGraphAddExternalSemaphoresSignalNode(
			CUgraphNode *phGraphNode, CUgraph hGraph,
			const CUgraphNode *dependencies, size_t numDependencies,
			const CUDA_EXT_SEM_SIGNAL_NODE_PARAMS *nodeParams);
CUresult CUDAAPI cuGraphExternalSemaphoresSignalNodeGetParams(
			CUgraphNode hNode,
			CUDA_EXT_SEM_SIGNAL_NODE_PARAMS *params_out);
CUresult CUDAAPI cuGraphExternalSemaphoresSignalNodeSetParams(
			CUgraphNode hNode,
			const CUDA_EXT_SEM_SIGNAL_NODE_PARAMS *nodeParams);
CUresult CUDAAPI cuGraphExecExternalSemaphoresSignalNodeSetParams(
			CUgraphExec hGraphExec, CUgraphNode hNode,
			const CUDA_EXT_SEM_SIGNAL_NODE_PARAMS *nodeParams);
CUresult CUDAAPI cuGraphAddExternalSemaphoresWaitNode(
			CUgraphNode *phGraphNode, CUgraph hGraph,
			const CUgraphNode *dependencies, size_t numDependencies,
			const CUDA_EXT_SEM_WAIT_NODE_PARAMS *nodeParams);
CUresult CUDAAPI cuGraphExternalSemaphoresWaitNodeGetParams(
			CUgraphNode hNode,
			CUDA_EXT_SEM_WAIT_NODE_PARAMS *params_out);
CUresult CUDAAPI cuGraphExternalSemaphoresWaitNodeSetParams(
			CUgraphNode hNode,
			const CUDA_EXT_SEM_WAIT_NODE_PARAMS *nodeParams);
CUresult CUDAAPI cuGraphExecExternalSemaphoresWaitNodeSetParams(
			CUgraphExec hGraphExec, CUgraphNode hNode,
			const CUDA_EXT_SEM_WAIT_NODE_PARAMS *nodeParams);
CUresult CUDAAPI cuGraphDebugDotPrint(CUgraph hGraph, const char *path,
				      unsigned int flags);
CUresult CUDAAPI cuUserObjectCreate(CUuserObject *object_out, void *ptr,
				    CUhostFn destroy,
				    unsigned int initialRefcount,
				    unsigned int flags);
CUresult CUDAAPI cuUserObjectRetain(CUuserObject object, unsigned int count);
CUresult CUDAAPI cuUserObjectRelease(CUuserObject object, unsigned int count);
CUresult CUDAAPI cuGraphRetainUserObject(CUgraph graph, CUuserObject object,
					 unsigned int count,
					 unsigned int flags);
CUresult CUDAAPI cuGraphReleaseUserObject(CUgraph graph, CUuserObject object,
					  unsigned int count);
CUresult CUDAAPI cuDeviceGetGraphMemAttribute(CUdevice device,
					      CUgraphMem_attribute attr,
					      void *value);
CUresult CUDAAPI cuDeviceSetGraphMemAttribute(CUdevice device,
					      CUgraphMem_attribute attr,
					      void *value);
CUresult CUDAAPI cuDeviceGraphMemTrim(CUdevice device);
CUresult CUDAAPI cuStreamBeginCapture(CUstream hStream,
				      CUstreamCaptureMode mode);
CUresult CUDAAPI cuStreamEndCapture(CUstream hStream, CUgraph *phGraph);
CUresult CUDAAPI cuStreamGetCaptureInfo(CUstream hStream,
				CUstreamCaptureStatus *captureStatus_out,
				cuuint64_t *id_out, CUgraph *graph_out,
				const CUgraphNode **dependencies_out,
				const CUgraphEdgeData **edgeData_out,
				size_t *numDependencies_out);
CUresult CUDAAPI cuStreamBeginCaptureToGraph(CUstream hStream, CUgraph hGraph,
				const CUgraphNode *dependencies,
				const CUgraphEdgeData *dependencyData,
				size_t numDependencies,
				CUstreamCaptureMode mode);
CUresult CUDAAPI cuStreamUpdateCaptureDependencies(CUstream hStream,
				CUgraphNode *dependencies,
				const CUgraphEdgeData *dependencyData,
				size_t numDependencies, unsigned int flags);
CUresult CUDAAPI cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode);
CUresult CUDAAPI cuGraphAddNode(CUgraphNode *phGraphNode, CUgraph hGraph,
				const CUgraphNode *dependencies,
				const CUgraphEdgeData *dependencyData,
				size_t numDependencies,
				CUgraphNodeParams *nodeParams);
CUresult CUDAAPI cuGraphNodeSetParams(CUgraphNode hNode,
				      CUgraphNodeParams *nodeParams);
CUresult CUDAAPI cuGraphExecNodeSetParams(CUgraphExec hGraphExec,
					  CUgraphNode hNode,
					  CUgraphNodeParams *nodeParams);
CUresult CUDAAPI cuGraphConditionalHandleCreate(
			CUgraphConditionalHandle *pHandle_out, CUgraph hGraph,
			CUcontext ctx, unsigned int defaultLaunchValue,
			unsigned int flags);
CUresult CUDAAPI cuGraphKernelNodeCopyAttributes(CUgraphNode dst,
						 CUgraphNode src);
CUresult CUDAAPI cuGraphKernelNodeGetAttribute(CUgraphNode hNode,
					CUkernelNodeAttrID attr,
					CUkernelNodeAttrValue *value_out);
CUresult CUDAAPI cuGraphKernelNodeSetAttribute(CUgraphNode hNode,
					CUkernelNodeAttrID attr,
					const CUkernelNodeAttrValue *value);

#ifdef __cplusplus
}
#endif

#endif /* __cuda_cuda_h__ */
