/* SPDX-License-Identifier: MIT */
/*
 * What cuGetProcAddress can hand out, as an X-macro list:
 *
 *   CUMC_PROC(symbol, version, function)
 *
 * symbol	the base name a caller asks for, without any _vN suffix
 * version	the CUDA version (1000 * major + 10 * minor) that introduced
 *		the ABI of this entry, i.e. the N of the PFN_<symbol>_vN
 *		typedef in the toolkit's cudaTypedefs.h
 * function	the libcumc function with that ABI
 *
 * A lookup for (symbol, cudaVersion) takes the entry of that symbol with
 * the highest version <= cudaVersion; entries of a symbol are adjacent and
 * in ascending version order.
 *
 * Versions whose ABI differs from every function libcumc has are left
 * out, so an old caller gets CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
 * rather than a function it would call with the wrong arguments:
 *   2000:  cuDeviceTotalMem, cuMemGetInfo (32-bit sizes)
 *   2000:  cuMemGetAddressRange, cuMemcpyHtoD/DtoH/DtoD,
 *          cuMemsetD8/D16/D32 (32-bit addresses and sizes)
 *   2000, 3020: cuCtxCreate (no params argument)
 *   11040: cuCtxCreate (execution-affinity array instead of params)
 *
 * Some versions share one function because the behaviour that set them
 * apart does not exist in cumc: cuDeviceGetUuid 9020 (MIG-unaware),
 * cuDevicePrimaryCtxRelease/Reset 7000, cuCtxDestroy/PushCurrent/
 * PopCurrent 2000 (pre-4.0 context stack).
 *
 * The per-thread default stream variants (_ptds, _ptsz), in which the
 * NULL stream is the calling thread's per-thread default stream, are
 * listed as
 *
 *   CUMC_PROC_PTDS(symbol, version, function)
 *
 * where version is the N of the toolkit's PFN_<symbol>_vN_ptds/_ptsz.  A
 * lookup with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM takes the
 * CUMC_PROC_PTDS entry that fits, if any, else the CUMC_PROC one; other
 * lookups take CUMC_PROC entries only.  An includer may define either
 * macro alone: the other one then expands to nothing.
 *
 * Functions of the old ABIs that cuda.h no longer declares are declared
 * in procaddr.h.
 */

#ifndef CUMC_PROC
#define CUMC_PROC(symbol, version, function)
#endif
#ifndef CUMC_PROC_PTDS
#define CUMC_PROC_PTDS(symbol, version, function)
#endif

CUMC_PROC("cuGetErrorString", 6000, cuGetErrorString)
CUMC_PROC("cuGetErrorName", 6000, cuGetErrorName)

CUMC_PROC("cuInit", 2000, cuInit)
CUMC_PROC("cuDriverGetVersion", 2020, cuDriverGetVersion)
CUMC_PROC("cuGetExportTable", 3000, cuGetExportTable)
CUMC_PROC("cuGetProcAddress", 11030, cuGetProcAddress_v1)
CUMC_PROC("cuGetProcAddress", 12000, cuGetProcAddress_v2)

CUMC_PROC("cuDeviceGet", 2000, cuDeviceGet)
CUMC_PROC("cuDeviceGetCount", 2000, cuDeviceGetCount)
CUMC_PROC("cuDeviceGetName", 2000, cuDeviceGetName)
CUMC_PROC("cuDeviceGetUuid", 9020, cuDeviceGetUuid_v2)
CUMC_PROC("cuDeviceGetUuid", 11040, cuDeviceGetUuid_v2)
CUMC_PROC("cuDeviceTotalMem", 3020, cuDeviceTotalMem_v2)
CUMC_PROC("cuDeviceGetAttribute", 2000, cuDeviceGetAttribute)

CUMC_PROC("cuDevicePrimaryCtxRetain", 7000, cuDevicePrimaryCtxRetain)
CUMC_PROC("cuDevicePrimaryCtxRelease", 7000, cuDevicePrimaryCtxRelease_v2)
CUMC_PROC("cuDevicePrimaryCtxRelease", 11000, cuDevicePrimaryCtxRelease_v2)
CUMC_PROC("cuDevicePrimaryCtxReset", 7000, cuDevicePrimaryCtxReset_v2)
CUMC_PROC("cuDevicePrimaryCtxReset", 11000, cuDevicePrimaryCtxReset_v2)

CUMC_PROC("cuCtxCreate", 12050, cuCtxCreate_v4)
CUMC_PROC("cuCtxDestroy", 2000, cuCtxDestroy_v2)
CUMC_PROC("cuCtxDestroy", 4000, cuCtxDestroy_v2)
CUMC_PROC("cuCtxPushCurrent", 2000, cuCtxPushCurrent_v2)
CUMC_PROC("cuCtxPushCurrent", 4000, cuCtxPushCurrent_v2)
CUMC_PROC("cuCtxPopCurrent", 2000, cuCtxPopCurrent_v2)
CUMC_PROC("cuCtxPopCurrent", 4000, cuCtxPopCurrent_v2)
CUMC_PROC("cuCtxSetCurrent", 4000, cuCtxSetCurrent)
CUMC_PROC("cuCtxGetCurrent", 4000, cuCtxGetCurrent)
CUMC_PROC("cuCtxGetDevice", 2000, cuCtxGetDevice)
CUMC_PROC("cuCtxGetDevice", 13000, cuCtxGetDevice_v2)
CUMC_PROC("cuCtxSynchronize", 2000, cuCtxSynchronize)
CUMC_PROC("cuCtxSynchronize", 13000, cuCtxSynchronize_v2)

CUMC_PROC("cuMemGetInfo", 3020, cuMemGetInfo_v2)
CUMC_PROC("cuMemGetAddressRange", 3020, cuMemGetAddressRange_v2)

CUMC_PROC("cuMemcpyHtoD", 3020, cuMemcpyHtoD_v2)
CUMC_PROC("cuMemcpyDtoH", 3020, cuMemcpyDtoH_v2)
CUMC_PROC("cuMemcpyDtoD", 3020, cuMemcpyDtoD_v2)
CUMC_PROC("cuMemsetD8", 3020, cuMemsetD8_v2)
CUMC_PROC("cuMemsetD16", 3020, cuMemsetD16_v2)
CUMC_PROC("cuMemsetD32", 3020, cuMemsetD32_v2)

CUMC_PROC("cuMemAddressReserve", 10020, cuMemAddressReserve)
CUMC_PROC("cuMemAddressFree", 10020, cuMemAddressFree)
CUMC_PROC("cuMemMap", 10020, cuMemMap)
CUMC_PROC("cuMemUnmap", 10020, cuMemUnmap)
CUMC_PROC("cuMemSetAccess", 10020, cuMemSetAccess)
CUMC_PROC("cuMemGetAccess", 10020, cuMemGetAccess)
CUMC_PROC("cuMemRetainAllocationHandle", 11000, cuMemRetainAllocationHandle)
CUMC_PROC("cuPointerGetAttribute", 4000, cuPointerGetAttribute)
CUMC_PROC("cuPointerGetAttributes", 7000, cuPointerGetAttributes)

CUMC_PROC("cuMemCreate", 10020, cuMemCreate)
CUMC_PROC("cuMemRelease", 10020, cuMemRelease)
CUMC_PROC("cuMemGetAllocationGranularity", 10020, cuMemGetAllocationGranularity)
CUMC_PROC("cuMemGetAllocationPropertiesFromHandle", 10020,
	  cuMemGetAllocationPropertiesFromHandle)
CUMC_PROC("cuMemExportToShareableHandle", 10020,
	  cuMemExportToShareableHandle)
CUMC_PROC("cuMemImportFromShareableHandle", 10020,
	  cuMemImportFromShareableHandle)

CUMC_PROC("cuMulticastCreate", 12010, cuMulticastCreate)
CUMC_PROC("cuMulticastAddDevice", 12010, cuMulticastAddDevice)
CUMC_PROC("cuMulticastBindMem", 12010, cuMulticastBindMem)
CUMC_PROC("cuMulticastBindMem", 13010, cuMulticastBindMem_v2)
CUMC_PROC("cuMulticastBindAddr", 12010, cuMulticastBindAddr)
CUMC_PROC("cuMulticastBindAddr", 13010, cuMulticastBindAddr_v2)
CUMC_PROC("cuMulticastUnbind", 12010, cuMulticastUnbind)
CUMC_PROC("cuMulticastGetGranularity", 12010, cuMulticastGetGranularity)

/*
 * Plain and host allocation, context flags, peer access, modules and
 * launches (branch alloc).  cuMemHostRegister 4000 has the ABI of 6050;
 * the per-thread-stream launch variants are left to the streams branch.
 */
CUMC_PROC("cuMemAlloc", 3020, cuMemAlloc_v2)
CUMC_PROC("cuMemAllocPitch", 3020, cuMemAllocPitch_v2)
CUMC_PROC("cuMemFree", 3020, cuMemFree_v2)
CUMC_PROC("cuMemAllocHost", 3020, cuMemAllocHost_v2)
CUMC_PROC("cuMemHostAlloc", 2020, cuMemHostAlloc)
CUMC_PROC("cuMemFreeHost", 2000, cuMemFreeHost)
CUMC_PROC("cuMemHostGetDevicePointer", 3020, cuMemHostGetDevicePointer_v2)
CUMC_PROC("cuMemHostGetFlags", 2030, cuMemHostGetFlags)
CUMC_PROC("cuMemHostRegister", 4000, cuMemHostRegister_v2)
CUMC_PROC("cuMemHostRegister", 6050, cuMemHostRegister_v2)
CUMC_PROC("cuMemHostUnregister", 4000, cuMemHostUnregister)
CUMC_PROC("cuPointerSetAttribute", 6000, cuPointerSetAttribute)

CUMC_PROC("cuCtxGetFlags", 7000, cuCtxGetFlags)
CUMC_PROC("cuCtxSetFlags", 12010, cuCtxSetFlags)
CUMC_PROC("cuDevicePrimaryCtxGetState", 7000, cuDevicePrimaryCtxGetState)
CUMC_PROC("cuDevicePrimaryCtxSetFlags", 11000, cuDevicePrimaryCtxSetFlags_v2)

CUMC_PROC("cuDeviceCanAccessPeer", 4000, cuDeviceCanAccessPeer)
CUMC_PROC("cuDeviceGetP2PAttribute", 8000, cuDeviceGetP2PAttribute)
CUMC_PROC("cuCtxEnablePeerAccess", 4000, cuCtxEnablePeerAccess)
CUMC_PROC("cuCtxDisablePeerAccess", 4000, cuCtxDisablePeerAccess)

CUMC_PROC("cuModuleLoad", 2000, cuModuleLoad)
CUMC_PROC("cuModuleLoadData", 2000, cuModuleLoadData)
CUMC_PROC("cuModuleLoadDataEx", 2010, cuModuleLoadDataEx)
CUMC_PROC("cuModuleLoadFatBinary", 2000, cuModuleLoadFatBinary)
CUMC_PROC("cuModuleUnload", 2000, cuModuleUnload)
CUMC_PROC("cuModuleGetFunction", 2000, cuModuleGetFunction)
CUMC_PROC("cuModuleGetGlobal", 3020, cuModuleGetGlobal_v2)
CUMC_PROC("cuModuleGetFunctionCount", 12040, cuModuleGetFunctionCount)
CUMC_PROC("cuModuleEnumerateFunctions", 12040, cuModuleEnumerateFunctions)
CUMC_PROC("cuLibraryLoadData", 12000, cuLibraryLoadData)
CUMC_PROC("cuLibraryLoadFromFile", 12000, cuLibraryLoadFromFile)
CUMC_PROC("cuLibraryUnload", 12000, cuLibraryUnload)
CUMC_PROC("cuLibraryGetKernel", 12000, cuLibraryGetKernel)
CUMC_PROC("cuLibraryGetGlobal", 12000, cuLibraryGetGlobal)
CUMC_PROC("cuLibraryGetKernelCount", 12040, cuLibraryGetKernelCount)
CUMC_PROC("cuLibraryEnumerateKernels", 12040, cuLibraryEnumerateKernels)
CUMC_PROC("cuLibraryGetModule", 12000, cuLibraryGetModule)
CUMC_PROC("cuKernelGetFunction", 12000, cuKernelGetFunction)
CUMC_PROC("cuLaunchKernel", 4000, cuLaunchKernel)
CUMC_PROC("cuLaunchKernelEx", 11060, cuLaunchKernelEx)
CUMC_PROC("cuLaunchCooperativeKernel", 9000, cuLaunchCooperativeKernel)
CUMC_PROC("cuFuncGetAttribute", 2020, cuFuncGetAttribute)
CUMC_PROC("cuLinkCreate", 5050, cuLinkCreate_v1)
CUMC_PROC("cuLinkCreate", 6050, cuLinkCreate_v2)
CUMC_PROC("cuLinkAddData", 6050, cuLinkAddData_v2)
CUMC_PROC("cuLinkAddFile", 6050, cuLinkAddFile_v2)
CUMC_PROC("cuLinkComplete", 5050, cuLinkComplete)
CUMC_PROC("cuLinkDestroy", 5050, cuLinkDestroy)
CUMC_PROC("cuFuncSetAttribute", 9000, cuFuncSetAttribute)
CUMC_PROC("cuFuncSetCacheConfig", 3000, cuFuncSetCacheConfig)
CUMC_PROC("cuKernelGetAttribute", 12000, cuKernelGetAttribute)
CUMC_PROC("cuKernelSetAttribute", 12000, cuKernelSetAttribute)
CUMC_PROC("cuOccupancyMaxActiveBlocksPerMultiprocessor", 6050, cuOccupancyMaxActiveBlocksPerMultiprocessor)
CUMC_PROC("cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", 7000, cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags)
CUMC_PROC("cuOccupancyMaxPotentialBlockSize", 6050, cuOccupancyMaxPotentialBlockSize)
CUMC_PROC("cuOccupancyMaxPotentialBlockSizeWithFlags", 7000, cuOccupancyMaxPotentialBlockSizeWithFlags)
CUMC_PROC("cuOccupancyAvailableDynamicSMemPerBlock", 10020, cuOccupancyAvailableDynamicSMemPerBlock)

/* Streams (stream.c) */
CUMC_PROC("cuCtxGetStreamPriorityRange", 5050, cuCtxGetStreamPriorityRange)
CUMC_PROC("cuStreamCreate", 2000, cuStreamCreate)
CUMC_PROC("cuStreamCreateWithPriority", 5050, cuStreamCreateWithPriority)
CUMC_PROC("cuStreamDestroy", 2000, cuStreamDestroy_v2)
CUMC_PROC("cuStreamDestroy", 4000, cuStreamDestroy_v2)
CUMC_PROC("cuStreamGetPriority", 5050, cuStreamGetPriority)
CUMC_PROC("cuStreamGetFlags", 5050, cuStreamGetFlags)
CUMC_PROC("cuStreamIsCapturing", 10000, cuStreamIsCapturing)
CUMC_PROC("cuStreamGetId", 12000, cuStreamGetId)
CUMC_PROC("cuStreamGetDevice", 12080, cuStreamGetDevice)
CUMC_PROC("cuStreamGetCtx", 9020, cuStreamGetCtx)
CUMC_PROC("cuStreamGetCtx", 12050, cuStreamGetCtx_v2)
CUMC_PROC("cuStreamQuery", 2000, cuStreamQuery)
CUMC_PROC("cuStreamSynchronize", 2000, cuStreamSynchronize)
CUMC_PROC("cuStreamAddCallback", 5000, cuStreamAddCallback)
CUMC_PROC("cuLaunchHostFunc", 10000, cuLaunchHostFunc)

/* Copies and sets on streams, the unified copy (copy.c) */
CUMC_PROC("cuMemcpy", 4000, cuMemcpy)
CUMC_PROC("cuMemcpyAsync", 4000, cuMemcpyAsync)
CUMC_PROC("cuMemcpyHtoDAsync", 3020, cuMemcpyHtoDAsync_v2)
CUMC_PROC("cuMemcpyDtoHAsync", 3020, cuMemcpyDtoHAsync_v2)
CUMC_PROC("cuMemcpyDtoDAsync", 3020, cuMemcpyDtoDAsync_v2)
CUMC_PROC("cuMemsetD8Async", 3020, cuMemsetD8Async)
CUMC_PROC("cuMemsetD16Async", 3020, cuMemsetD16Async)
CUMC_PROC("cuMemsetD32Async", 3020, cuMemsetD32Async)

/* Events (event.c) */
CUMC_PROC("cuEventCreate", 2000, cuEventCreate)
CUMC_PROC("cuEventRecord", 2000, cuEventRecord)
CUMC_PROC("cuEventRecordWithFlags", 11010, cuEventRecordWithFlags)
CUMC_PROC("cuEventQuery", 2000, cuEventQuery)
CUMC_PROC("cuEventSynchronize", 2000, cuEventSynchronize)
CUMC_PROC("cuEventDestroy", 2000, cuEventDestroy_v2)
CUMC_PROC("cuEventDestroy", 4000, cuEventDestroy_v2)
CUMC_PROC("cuEventElapsedTime", 2000, cuEventElapsedTime_v1)
CUMC_PROC("cuEventElapsedTime", 12080, cuEventElapsedTime_v2)
CUMC_PROC("cuStreamWaitEvent", 3020, cuStreamWaitEvent)

/*
 * Stream memory operations (stream_memop.c): the _v2 ABI of CUDA 11.7
 * only; the v1 functions (8000, 9000), deprecated and off by default on
 * NVIDIA's driver, are left out.
 */
CUMC_PROC("cuStreamWaitValue32", 11070, cuStreamWaitValue32_v2)
CUMC_PROC("cuStreamWaitValue64", 11070, cuStreamWaitValue64_v2)
CUMC_PROC("cuStreamWriteValue32", 11070, cuStreamWriteValue32_v2)
CUMC_PROC("cuStreamWriteValue64", 11070, cuStreamWriteValue64_v2)
CUMC_PROC("cuStreamBatchMemOp", 11070, cuStreamBatchMemOp_v2)

/* The per-thread default stream variants (see above) */
CUMC_PROC_PTDS("cuMemcpy", 7000, cuMemcpy_ptds)
CUMC_PROC_PTDS("cuMemcpyHtoD", 7000, cuMemcpyHtoD_v2_ptds)
CUMC_PROC_PTDS("cuMemcpyDtoH", 7000, cuMemcpyDtoH_v2_ptds)
CUMC_PROC_PTDS("cuMemcpyDtoD", 7000, cuMemcpyDtoD_v2_ptds)
CUMC_PROC_PTDS("cuMemsetD8", 7000, cuMemsetD8_v2_ptds)
CUMC_PROC_PTDS("cuMemsetD16", 7000, cuMemsetD16_v2_ptds)
CUMC_PROC_PTDS("cuMemsetD32", 7000, cuMemsetD32_v2_ptds)
CUMC_PROC_PTDS("cuMemcpyAsync", 7000, cuMemcpyAsync_ptsz)
CUMC_PROC_PTDS("cuMemcpyHtoDAsync", 7000, cuMemcpyHtoDAsync_v2_ptsz)
CUMC_PROC_PTDS("cuMemcpyDtoHAsync", 7000, cuMemcpyDtoHAsync_v2_ptsz)
CUMC_PROC_PTDS("cuMemcpyDtoDAsync", 7000, cuMemcpyDtoDAsync_v2_ptsz)
CUMC_PROC_PTDS("cuMemsetD8Async", 7000, cuMemsetD8Async_ptsz)
CUMC_PROC_PTDS("cuMemsetD16Async", 7000, cuMemsetD16Async_ptsz)
CUMC_PROC_PTDS("cuMemsetD32Async", 7000, cuMemsetD32Async_ptsz)
CUMC_PROC_PTDS("cuStreamGetPriority", 7000, cuStreamGetPriority_ptsz)
CUMC_PROC_PTDS("cuStreamGetFlags", 7000, cuStreamGetFlags_ptsz)
CUMC_PROC_PTDS("cuStreamIsCapturing", 10000, cuStreamIsCapturing_ptsz)
CUMC_PROC_PTDS("cuStreamGetId", 12000, cuStreamGetId_ptsz)
CUMC_PROC_PTDS("cuStreamGetDevice", 12080, cuStreamGetDevice_ptsz)
CUMC_PROC_PTDS("cuStreamGetCtx", 9020, cuStreamGetCtx_ptsz)
CUMC_PROC_PTDS("cuStreamGetCtx", 12050, cuStreamGetCtx_v2_ptsz)
CUMC_PROC_PTDS("cuStreamWaitEvent", 7000, cuStreamWaitEvent_ptsz)
CUMC_PROC_PTDS("cuStreamAddCallback", 7000, cuStreamAddCallback_ptsz)
CUMC_PROC_PTDS("cuStreamQuery", 7000, cuStreamQuery_ptsz)
CUMC_PROC_PTDS("cuStreamSynchronize", 7000, cuStreamSynchronize_ptsz)
CUMC_PROC_PTDS("cuLaunchHostFunc", 10000, cuLaunchHostFunc_ptsz)
CUMC_PROC_PTDS("cuLaunchKernel", 7000, cuLaunchKernel_ptsz)
CUMC_PROC_PTDS("cuLaunchKernelEx", 11060, cuLaunchKernelEx_ptsz)
CUMC_PROC_PTDS("cuLaunchCooperativeKernel", 9000, cuLaunchCooperativeKernel_ptsz)
CUMC_PROC_PTDS("cuEventRecord", 7000, cuEventRecord_ptsz)
CUMC_PROC_PTDS("cuEventRecordWithFlags", 11010, cuEventRecordWithFlags_ptsz)
CUMC_PROC_PTDS("cuStreamWaitValue32", 11070, cuStreamWaitValue32_v2_ptsz)
CUMC_PROC_PTDS("cuStreamWaitValue64", 11070, cuStreamWaitValue64_v2_ptsz)
CUMC_PROC_PTDS("cuStreamWriteValue32", 11070, cuStreamWriteValue32_v2_ptsz)
CUMC_PROC_PTDS("cuStreamWriteValue64", 11070, cuStreamWriteValue64_v2_ptsz)
CUMC_PROC_PTDS("cuStreamBatchMemOp", 11070, cuStreamBatchMemOp_v2_ptsz)

/* Stream-ordered allocator: memory pools */
CUMC_PROC("cuMemPoolCreate", 11020, cuMemPoolCreate)
CUMC_PROC("cuMemPoolDestroy", 11020, cuMemPoolDestroy)
CUMC_PROC("cuMemPoolSetAttribute", 11020, cuMemPoolSetAttribute)
CUMC_PROC("cuMemPoolGetAttribute", 11020, cuMemPoolGetAttribute)
CUMC_PROC("cuMemPoolSetAccess", 11020, cuMemPoolSetAccess)
CUMC_PROC("cuMemPoolGetAccess", 11020, cuMemPoolGetAccess)
CUMC_PROC("cuMemPoolTrimTo", 11020, cuMemPoolTrimTo)
CUMC_PROC("cuMemPoolExportToShareableHandle", 11020,
	  cuMemPoolExportToShareableHandle)
CUMC_PROC("cuMemPoolImportFromShareableHandle", 11020,
	  cuMemPoolImportFromShareableHandle)
CUMC_PROC("cuMemPoolExportPointer", 11020, cuMemPoolExportPointer)
CUMC_PROC("cuMemPoolImportPointer", 11020, cuMemPoolImportPointer)
CUMC_PROC("cuDeviceGetDefaultMemPool", 11020, cuDeviceGetDefaultMemPool)
CUMC_PROC("cuDeviceGetMemPool", 11020, cuDeviceGetMemPool)
CUMC_PROC("cuDeviceSetMemPool", 11020, cuDeviceSetMemPool)
CUMC_PROC("cuMemAllocAsync", 11020, cuMemAllocAsync)
CUMC_PROC("cuMemFreeAsync", 11020, cuMemFreeAsync)
CUMC_PROC("cuMemAllocFromPoolAsync", 11020, cuMemAllocFromPoolAsync)
CUMC_PROC_PTDS("cuMemAllocAsync", 11020, cuMemAllocAsync_ptsz)
CUMC_PROC_PTDS("cuMemFreeAsync", 11020, cuMemFreeAsync_ptsz)
CUMC_PROC_PTDS("cuMemAllocFromPoolAsync", 11020, cuMemAllocFromPoolAsync_ptsz)
