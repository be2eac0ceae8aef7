// SPDX-License-Identifier: MIT
/*
 * Texture and surface references (cuTexRef*, cuSurfRef*, cuModuleGetTexRef,
 * cuModuleGetSurfRef, cuParamSetTexRef): deprecated, in favour of texture
 * and surface objects (texobj.c).  cumc has none: a
 * module never holds one (libcumc-ptx has no texture instruction), and
 * every call answers CUDA_ERROR_NOT_SUPPORTED with a CUMC_LOG note saying
 * so, touching none of its arguments.
 */
#include "log.h"
#include "procaddr.h"

static CUresult libcumc_no_references(void)
{
	libcumc_log_note("cumc has no texture or surface references (deprecated): use texture and surface objects");
	return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult CUDAAPI cuModuleGetTexRef(CUtexref *pTexRef, CUmodule hmod,
		const char *name)
{
	(void)pTexRef;
	(void)hmod;
	(void)name;
	return libcumc_no_references();
}

CUresult CUDAAPI cuModuleGetSurfRef(CUsurfref *pSurfRef, CUmodule hmod,
		const char *name)
{
	(void)pSurfRef;
	(void)hmod;
	(void)name;
	return libcumc_no_references();
}

CUresult CUDAAPI cuParamSetTexRef(CUfunction hfunc, int texunit,
		CUtexref hTexRef)
{
	(void)hfunc;
	(void)texunit;
	(void)hTexRef;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefSetArray(CUtexref hTexRef, CUarray hArray,
		unsigned int Flags)
{
	(void)hTexRef;
	(void)hArray;
	(void)Flags;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefSetMipmappedArray(CUtexref hTexRef,
		CUmipmappedArray hMipmappedArray, unsigned int Flags)
{
	(void)hTexRef;
	(void)hMipmappedArray;
	(void)Flags;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefSetAddress_v2(size_t *ByteOffset, CUtexref hTexRef,
		CUdeviceptr dptr, size_t bytes)
{
	(void)ByteOffset;
	(void)hTexRef;
	(void)dptr;
	(void)bytes;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefSetAddress2D_v3(CUtexref hTexRef,
		const CUDA_ARRAY_DESCRIPTOR *desc, CUdeviceptr dptr, size_t Pitch)
{
	(void)hTexRef;
	(void)desc;
	(void)dptr;
	(void)Pitch;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefSetFormat(CUtexref hTexRef, CUarray_format fmt,
		int NumPackedComponents)
{
	(void)hTexRef;
	(void)fmt;
	(void)NumPackedComponents;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefSetAddressMode(CUtexref hTexRef, int dim,
		CUaddress_mode am)
{
	(void)hTexRef;
	(void)dim;
	(void)am;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefSetFilterMode(CUtexref hTexRef, CUfilter_mode fm)
{
	(void)hTexRef;
	(void)fm;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefSetMipmapFilterMode(CUtexref hTexRef,
		CUfilter_mode fm)
{
	(void)hTexRef;
	(void)fm;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefSetMipmapLevelBias(CUtexref hTexRef, float bias)
{
	(void)hTexRef;
	(void)bias;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefSetMipmapLevelClamp(CUtexref hTexRef,
		float minMipmapLevelClamp, float maxMipmapLevelClamp)
{
	(void)hTexRef;
	(void)minMipmapLevelClamp;
	(void)maxMipmapLevelClamp;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefSetMaxAnisotropy(CUtexref hTexRef,
		unsigned int maxAniso)
{
	(void)hTexRef;
	(void)maxAniso;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefSetBorderColor(CUtexref hTexRef, float *pBorderColor)
{
	(void)hTexRef;
	(void)pBorderColor;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefSetFlags(CUtexref hTexRef, unsigned int Flags)
{
	(void)hTexRef;
	(void)Flags;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefGetAddress_v2(CUdeviceptr *pdptr, CUtexref hTexRef)
{
	(void)pdptr;
	(void)hTexRef;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefGetArray(CUarray *phArray, CUtexref hTexRef)
{
	(void)phArray;
	(void)hTexRef;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefGetMipmappedArray(CUmipmappedArray *phMipmappedArray,
		CUtexref hTexRef)
{
	(void)phMipmappedArray;
	(void)hTexRef;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefGetAddressMode(CUaddress_mode *pam, CUtexref hTexRef,
		int dim)
{
	(void)pam;
	(void)hTexRef;
	(void)dim;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefGetFilterMode(CUfilter_mode *pfm, CUtexref hTexRef)
{
	(void)pfm;
	(void)hTexRef;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefGetFormat(CUarray_format *pFormat, int *pNumChannels,
		CUtexref hTexRef)
{
	(void)pFormat;
	(void)pNumChannels;
	(void)hTexRef;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefGetMipmapFilterMode(CUfilter_mode *pfm,
		CUtexref hTexRef)
{
	(void)pfm;
	(void)hTexRef;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefGetMipmapLevelBias(float *pbias, CUtexref hTexRef)
{
	(void)pbias;
	(void)hTexRef;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefGetMipmapLevelClamp(float *pminMipmapLevelClamp,
		float *pmaxMipmapLevelClamp, CUtexref hTexRef)
{
	(void)pminMipmapLevelClamp;
	(void)pmaxMipmapLevelClamp;
	(void)hTexRef;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefGetMaxAnisotropy(int *pmaxAniso, CUtexref hTexRef)
{
	(void)pmaxAniso;
	(void)hTexRef;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefGetBorderColor(float *pBorderColor, CUtexref hTexRef)
{
	(void)pBorderColor;
	(void)hTexRef;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefGetFlags(unsigned int *pFlags, CUtexref hTexRef)
{
	(void)pFlags;
	(void)hTexRef;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefCreate(CUtexref *pTexRef)
{
	(void)pTexRef;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefDestroy(CUtexref hTexRef)
{
	(void)hTexRef;
	return libcumc_no_references();
}

CUresult CUDAAPI cuSurfRefSetArray(CUsurfref hSurfRef, CUarray hArray,
		unsigned int Flags)
{
	(void)hSurfRef;
	(void)hArray;
	(void)Flags;
	return libcumc_no_references();
}

CUresult CUDAAPI cuSurfRefGetArray(CUarray *phArray, CUsurfref hSurfRef)
{
	(void)phArray;
	(void)hSurfRef;
	return libcumc_no_references();
}

CUresult CUDAAPI cuTexRefSetAddress2D_v2(CUtexref hTexRef,
					 const CUDA_ARRAY_DESCRIPTOR *desc,
					 CUdeviceptr dptr, size_t Pitch)
	__attribute__((alias("cuTexRefSetAddress2D_v3")));
