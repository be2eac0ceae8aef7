/* SPDX-License-Identifier: MIT */
/*
 * Entry points cuGetProcAddress hands out whose ABI no cuda.h declares any
 * more, for the compiler to check their definitions against.
 */
#ifndef _CUMC_LIB_PROCADDR_H
#define _CUMC_LIB_PROCADDR_H

#include <cuda.h>

/*
 * A CUMC_PROC or CUMC_PROC_PTDS entry of entry_points.h: a function of
 * that symbol's ABI at version.
 */
struct libcumc_proc {
	const char *symbol;
	int version;
	void *function;
};

/* entry_points.c: the legacy flavours, and the per-thread ones. */
extern const struct libcumc_proc libcumc_procs[];
extern const size_t libcumc_num_procs;
extern const struct libcumc_proc libcumc_procs_ptds[];
extern const size_t libcumc_num_procs_ptds;

/*
 * cuGetProcAddress of CUDA 11.3 to 11.8, without symbolStatus.  Binaries
 * built then link against the unversioned name, which today's headers map
 * to cuGetProcAddress_v2, so the symbol is given that name here.
 */
CUresult CUDAAPI cuGetProcAddress_v1(const char *symbol, void **pfn,
				     int cudaVersion, cuuint64_t flags)
	__asm__("cuGetProcAddress");

/*
 * cuEventElapsedTime of CUDA 2.0 to 12.8, which today's headers map to
 * cuEventElapsedTime_v2; same ABI.
 */
CUresult CUDAAPI cuEventElapsedTime_v1(float *pMilliseconds, CUevent hStart,
				       CUevent hEnd)
	__asm__("cuEventElapsedTime");

/* cuLinkCreate before CUDA 6.5 (link.c), which today's headers map to _v2. */
CUresult CUDAAPI cuLinkCreate_v1(unsigned int numOptions,
				 CUjit_option *options, void **optionValues,
				 CUlinkState *stateOut)
	__asm__("cuLinkCreate");

/*
 * The batch copies of CUDA 12.8 (copy3d.c), with failIdx, which today's
 * headers map to _v2, and their per-thread default stream forms.
 */
CUresult CUDAAPI cuMemcpyBatchAsync_v1(CUdeviceptr *dsts, CUdeviceptr *srcs,
				       size_t *sizes, size_t count,
				       CUmemcpyAttributes *attrs,
				       size_t *attrsIdxs, size_t numAttrs,
				       size_t *failIdx, CUstream hStream)
	__asm__("cuMemcpyBatchAsync");
CUresult CUDAAPI cuMemcpyBatchAsync_ptsz(CUdeviceptr *dsts, CUdeviceptr *srcs,
					 size_t *sizes, size_t count,
					 CUmemcpyAttributes *attrs,
					 size_t *attrsIdxs, size_t numAttrs,
					 size_t *failIdx, CUstream hStream);
CUresult CUDAAPI cuMemcpy3DBatchAsync_v1(size_t numOps,
					 CUDA_MEMCPY3D_BATCH_OP *opList,
					 size_t *failIdx,
					 unsigned long long flags,
					 CUstream hStream)
	__asm__("cuMemcpy3DBatchAsync");
CUresult CUDAAPI cuMemcpy3DBatchAsync_ptsz(size_t numOps,
					   CUDA_MEMCPY3D_BATCH_OP *opList,
					   size_t *failIdx,
					   unsigned long long flags,
					   CUstream hStream);

/*
 * cuTexRefSetAddress2D of CUDA 3.2 to 4.0 (texref.c), which today's
 * headers map to _v3; it reads no argument in cumc.
 */
CUresult CUDAAPI cuTexRefSetAddress2D_v2(CUtexref hTexRef,
					 const CUDA_ARRAY_DESCRIPTOR *desc,
					 CUdeviceptr dptr, size_t Pitch);

/*
 * The launches of per-thread default stream builds (launch.c).
 */
CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX,
				     unsigned int gridDimY, unsigned int gridDimZ,
				     unsigned int blockDimX, unsigned int blockDimY,
				     unsigned int blockDimZ,
				     unsigned int sharedMemBytes,
				     CUstream hStream, void **kernelParams,
				     void **extra);
CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig *config,
				       CUfunction f, void **kernelParams,
				       void **extra);
CUresult CUDAAPI cuLaunchCooperativeKernel_ptsz(CUfunction f,
				unsigned int gridDimX, unsigned int gridDimY,
				unsigned int gridDimZ, unsigned int blockDimX,
				unsigned int blockDimY, unsigned int blockDimZ,
				unsigned int sharedMemBytes, CUstream hStream,
				void **kernelParams);

/*
 * Stream-ordered allocator (mempool_alloc.c): the per-thread default
 * stream variants, in which a NULL stream is CU_STREAM_PER_THREAD.
 */
CUresult CUDAAPI cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize,
				      CUstream hStream);
CUresult CUDAAPI cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream);
CUresult CUDAAPI cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr,
					      size_t bytesize,
					      CUmemoryPool pool,
					      CUstream hStream);

#endif /* _CUMC_LIB_PROCADDR_H */
