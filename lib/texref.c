// SPDX-License-Identifier: MIT
/*
 * Texture and surface references (cuTexRef*, cuSurfRef*, cuModuleGetTexRef,
 * cuModuleGetSurfRef, cuParamSetTexRef): deprecated, in favour of texture
 * and surface objects (texobj.c).  A texture reference that cuTexRefCreate
 * makes is its state only, as on NVIDIA's driver (which makes one too):
 * what it is bound to (an array, a mipmapped array, linear or pitched
 * memory), its format and its sampling settings, set and read back.  No
 * kernel reads one: libcumc-ptx has no texture instruction, so a module
 * never holds a reference and cuModuleGetTexRef, cuModuleGetSurfRef and
 * cuParamSetTexRef answer CUDA_ERROR_NOT_SUPPORTED with a CUMC_LOG note.
 * Surface references come only from modules, so none ever exists.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "log.h"
#include "procaddr.h"

struct libcumc_texref {
	struct libcumc_texref *next;
	CUtexref handle;
	/* An ARRAY, MIPMAPPED_ARRAY, LINEAR or PITCH2D resource; flags 1: bound */
	CUDA_RESOURCE_DESC bound;
	CUarray_format format;
	int channels;
	CUDA_TEXTURE_DESC sampling;
};

/* Texture reference handles start here, clear of the arrays' numbers. */
#define CUMC_TEXREF_HANDLE_BASE 0xa9000000u

/* Guards libcumc_texrefs, libcumc_last_texref and every texref's members. */
static pthread_mutex_t libcumc_texrefs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct libcumc_texref *libcumc_texrefs;
static uintptr_t libcumc_last_texref;

static CUresult libcumc_no_references(void)
{
	libcumc_log_note("cumc's modules hold no texture or surface references (deprecated), and kernels read none: use texture and surface objects");
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

CUresult CUDAAPI cuTexRefCreate(CUtexref *pTexRef)
{
	struct libcumc_texref *ref;

	if (!pTexRef)
		return CUDA_ERROR_INVALID_VALUE;
	ref = calloc(1, sizeof(*ref));
	if (!ref)
		return CUDA_ERROR_OUT_OF_MEMORY;
	ref->format = CU_AD_FORMAT_FLOAT;
	ref->channels = 1;
	pthread_mutex_lock(&libcumc_texrefs_lock);
	ref->handle = (CUtexref)(CUMC_TEXREF_HANDLE_BASE +
				 ++libcumc_last_texref);
	ref->next = libcumc_texrefs;
	libcumc_texrefs = ref;
	*pTexRef = ref->handle;
	pthread_mutex_unlock(&libcumc_texrefs_lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuTexRefDestroy(CUtexref hTexRef)
{
	struct libcumc_texref **link, *ref = NULL;

	pthread_mutex_lock(&libcumc_texrefs_lock);
	for (link = &libcumc_texrefs; *link; link = &(*link)->next)
		if ((*link)->handle == hTexRef) {
			ref = *link;
			*link = ref->next;
			break;
		}
	pthread_mutex_unlock(&libcumc_texrefs_lock);
	if (!ref)
		return CUDA_ERROR_INVALID_HANDLE;
	free(ref);
	return CUDA_SUCCESS;
}

/*
 * The live reference @handle with libcumc_texrefs_lock held, or NULL
 * (the lock not held).
 */
static struct libcumc_texref *libcumc_texref_lock(CUtexref handle)
{
	struct libcumc_texref *ref;

	pthread_mutex_lock(&libcumc_texrefs_lock);
	for (ref = libcumc_texrefs; ref; ref = ref->next)
		if (ref->handle == handle)
			return ref;
	pthread_mutex_unlock(&libcumc_texrefs_lock);
	return NULL;
}

static void libcumc_texref_unlock(void)
{
	pthread_mutex_unlock(&libcumc_texrefs_lock);
}

/* Binds @ref to @bound, superseding what it was bound to. */
static CUresult libcumc_texref_bind(CUtexref handle,
				    const CUDA_RESOURCE_DESC *bound,
				    const CUDA_ARRAY3D_DESCRIPTOR *format)
{
	struct libcumc_texref *ref = libcumc_texref_lock(handle);

	if (!ref)
		return CUDA_ERROR_INVALID_HANDLE;
	ref->bound = *bound;
	ref->bound.flags = 1;
	if (format) {
		ref->format = format->Format;
		ref->channels = (int)format->NumChannels;
	}
	libcumc_texref_unlock();
	return CUDA_SUCCESS;
}

/* CU_TRSA_OVERRIDE_FORMAT takes the array's format; no other flag exists. */
static bool libcumc_bind_flags_valid(unsigned int flags)
{
	return !(flags & ~CU_TRSA_OVERRIDE_FORMAT);
}

CUresult CUDAAPI cuTexRefSetArray(CUtexref hTexRef, CUarray hArray,
		unsigned int Flags)
{
	CUDA_RESOURCE_DESC bound = { .resType = CU_RESOURCE_TYPE_ARRAY };
	CUDA_ARRAY3D_DESCRIPTOR desc;

	if (!libcumc_bind_flags_valid(Flags) ||
	    libcumc_array_desc(hArray, &desc) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_VALUE;
	bound.res.array.hArray = hArray;
	return libcumc_texref_bind(hTexRef, &bound,
				   Flags & CU_TRSA_OVERRIDE_FORMAT ? &desc : NULL);
}

CUresult CUDAAPI cuTexRefSetMipmappedArray(CUtexref hTexRef,
		CUmipmappedArray hMipmappedArray, unsigned int Flags)
{
	CUDA_RESOURCE_DESC bound = {
		.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY,
	};
	CUDA_ARRAY3D_DESCRIPTOR desc;
	unsigned int levels;

	if (!libcumc_bind_flags_valid(Flags) ||
	    libcumc_mipmap_desc(hMipmappedArray, &desc, &levels) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_VALUE;
	bound.res.mipmap.hMipmappedArray = hMipmappedArray;
	return libcumc_texref_bind(hTexRef, &bound,
				   Flags & CU_TRSA_OVERRIDE_FORMAT ? &desc : NULL);
}

/* cumc needs no alignment of the address: the offset is always 0. */
CUresult CUDAAPI cuTexRefSetAddress_v2(size_t *ByteOffset, CUtexref hTexRef,
		CUdeviceptr dptr, size_t bytes)
{
	CUDA_RESOURCE_DESC bound = { .resType = CU_RESOURCE_TYPE_LINEAR };
	CUresult res;

	if (!dptr)
		return CUDA_ERROR_INVALID_VALUE;
	bound.res.linear.devPtr = dptr;
	bound.res.linear.sizeInBytes = bytes;
	res = libcumc_texref_bind(hTexRef, &bound, NULL);
	if (res == CUDA_SUCCESS && ByteOffset)
		*ByteOffset = 0;
	return res;
}

/* The rows of @desc's elements must fit in @Pitch bytes each. */
CUresult CUDAAPI cuTexRefSetAddress2D_v3(CUtexref hTexRef,
		const CUDA_ARRAY_DESCRIPTOR *desc, CUdeviceptr dptr, size_t Pitch)
{
	CUDA_RESOURCE_DESC bound = { .resType = CU_RESOURCE_TYPE_PITCH2D };
	CUDA_ARRAY3D_DESCRIPTOR format;
	size_t elem, row;

	if (!desc || !dptr)
		return CUDA_ERROR_INVALID_VALUE;
	elem = libcumc_format_element_size(desc->Format, desc->NumChannels);
	if (!elem || __builtin_mul_overflow(desc->Width, elem, &row) ||
	    row > Pitch)
		return CUDA_ERROR_INVALID_VALUE;
	bound.res.pitch2D.devPtr = dptr;
	bound.res.pitch2D.format = desc->Format;
	bound.res.pitch2D.numChannels = desc->NumChannels;
	bound.res.pitch2D.width = desc->Width;
	bound.res.pitch2D.height = desc->Height;
	bound.res.pitch2D.pitchInBytes = Pitch;
	format = (CUDA_ARRAY3D_DESCRIPTOR){
		.Format = desc->Format, .NumChannels = desc->NumChannels,
	};
	return libcumc_texref_bind(hTexRef, &bound, &format);
}

CUresult CUDAAPI cuTexRefSetAddress2D_v2(CUtexref hTexRef,
					 const CUDA_ARRAY_DESCRIPTOR *desc,
					 CUdeviceptr dptr, size_t Pitch)
	__attribute__((alias("cuTexRefSetAddress2D_v3")));

CUresult CUDAAPI cuTexRefSetFormat(CUtexref hTexRef, CUarray_format fmt,
		int NumPackedComponents)
{
	struct libcumc_texref *ref;

	if (NumPackedComponents <= 0 ||
	    !libcumc_format_element_size(fmt, (unsigned int)NumPackedComponents))
		return CUDA_ERROR_INVALID_VALUE;
	ref = libcumc_texref_lock(hTexRef);
	if (!ref)
		return CUDA_ERROR_INVALID_HANDLE;
	ref->format = fmt;
	ref->channels = NumPackedComponents;
	libcumc_texref_unlock();
	return CUDA_SUCCESS;
}

/*
 * The live reference @handle with libcumc_texrefs_lock held, if the
 * arguments are @valid: CUDA_SUCCESS, else the error (the lock not held).
 */
static CUresult libcumc_texref_open(CUtexref handle, bool valid,
				    struct libcumc_texref **ref)
{
	if (!valid)
		return CUDA_ERROR_INVALID_VALUE;
	*ref = libcumc_texref_lock(handle);
	return *ref ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/*
 * Copies @size bytes at @offset in the reference's sampling description
 * to @dst, if the arguments are @valid.
 */
static CUresult libcumc_texref_sampling_get(CUtexref handle, bool valid,
					    void *dst, size_t offset,
					    size_t size)
{
	struct libcumc_texref *ref;
	CUresult res = libcumc_texref_open(handle, valid, &ref);

	if (res == CUDA_SUCCESS) {
		memcpy(dst, (const char *)&ref->sampling + offset, size);
		libcumc_texref_unlock();
	}
	return res;
}

/* The setters' counterpart: @src replaces those bytes. */
static CUresult libcumc_texref_sampling_set(CUtexref handle, bool valid,
					    const void *src, size_t offset,
					    size_t size)
{
	struct libcumc_texref *ref;
	CUresult res = libcumc_texref_open(handle, valid, &ref);

	if (res == CUDA_SUCCESS) {
		memcpy((char *)&ref->sampling + offset, src, size);
		libcumc_texref_unlock();
	}
	return res;
}

static bool libcumc_filter_valid(CUfilter_mode fm)
{
	return fm == CU_TR_FILTER_MODE_POINT || fm == CU_TR_FILTER_MODE_LINEAR;
}

static bool libcumc_address_mode_valid(int dim, CUaddress_mode am)
{
	return dim >= 0 && dim < 3 && (unsigned int)am <= CU_TR_ADDRESS_MODE_BORDER;
}

CUresult CUDAAPI cuTexRefSetAddressMode(CUtexref hTexRef, int dim,
		CUaddress_mode am)
{
	struct libcumc_texref *ref;
	CUresult res = libcumc_texref_open(hTexRef,
					   libcumc_address_mode_valid(dim, am),
					   &ref);

	if (res == CUDA_SUCCESS) {
		ref->sampling.addressMode[dim] = am;
		libcumc_texref_unlock();
	}
	return res;
}

CUresult CUDAAPI cuTexRefSetFilterMode(CUtexref hTexRef, CUfilter_mode fm)
{
	return libcumc_texref_sampling_set(hTexRef, libcumc_filter_valid(fm),
			&fm, offsetof(CUDA_TEXTURE_DESC, filterMode), sizeof(fm));
}

CUresult CUDAAPI cuTexRefSetMipmapFilterMode(CUtexref hTexRef,
		CUfilter_mode fm)
{
	return libcumc_texref_sampling_set(hTexRef, libcumc_filter_valid(fm),
			&fm, offsetof(CUDA_TEXTURE_DESC, mipmapFilterMode),
			sizeof(fm));
}

CUresult CUDAAPI cuTexRefSetMipmapLevelBias(CUtexref hTexRef, float bias)
{
	return libcumc_texref_sampling_set(hTexRef, true, &bias,
			offsetof(CUDA_TEXTURE_DESC, mipmapLevelBias),
			sizeof(bias));
}

CUresult CUDAAPI cuTexRefSetMipmapLevelClamp(CUtexref hTexRef,
		float minMipmapLevelClamp, float maxMipmapLevelClamp)
{
	struct libcumc_texref *ref;
	CUresult res = libcumc_texref_open(hTexRef,
			minMipmapLevelClamp <= maxMipmapLevelClamp,
			&ref);

	if (res == CUDA_SUCCESS) {
		ref->sampling.minMipmapLevelClamp = minMipmapLevelClamp;
		ref->sampling.maxMipmapLevelClamp = maxMipmapLevelClamp;
		libcumc_texref_unlock();
	}
	return res;
}

CUresult CUDAAPI cuTexRefSetMaxAnisotropy(CUtexref hTexRef,
		unsigned int maxAniso)
{
	return libcumc_texref_sampling_set(hTexRef, true, &maxAniso,
			offsetof(CUDA_TEXTURE_DESC, maxAnisotropy),
			sizeof(maxAniso));
}

CUresult CUDAAPI cuTexRefSetBorderColor(CUtexref hTexRef, float *pBorderColor)
{
	return libcumc_texref_sampling_set(hTexRef, !!pBorderColor,
			pBorderColor, offsetof(CUDA_TEXTURE_DESC, borderColor),
			sizeof(float[4]));
}

#define CUMC_TEXREF_FLAGS (CU_TRSF_READ_AS_INTEGER |			\
			   CU_TRSF_NORMALIZED_COORDINATES |		\
			   CU_TRSF_SRGB |				\
			   CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION |	\
			   CU_TRSF_SEAMLESS_CUBEMAP)

CUresult CUDAAPI cuTexRefSetFlags(CUtexref hTexRef, unsigned int Flags)
{
	return libcumc_texref_sampling_set(hTexRef,
			!(Flags & ~CUMC_TEXREF_FLAGS), &Flags,
			offsetof(CUDA_TEXTURE_DESC, flags), sizeof(Flags));
}

/* Not bound to memory of that kind: CUDA_ERROR_INVALID_VALUE (cuda.h). */
static CUresult libcumc_texref_bound(CUtexref handle, CUresourcetype type,
				     CUDA_RESOURCE_DESC *bound)
{
	struct libcumc_texref *ref = libcumc_texref_lock(handle);
	CUresult res = CUDA_ERROR_INVALID_VALUE;

	if (!ref)
		return CUDA_ERROR_INVALID_HANDLE;
	if (ref->bound.flags && ref->bound.resType == type) {
		*bound = ref->bound;
		res = CUDA_SUCCESS;
	}
	libcumc_texref_unlock();
	return res;
}

/* Linear memory, bound by SetAddress or SetAddress2D. */
CUresult CUDAAPI cuTexRefGetAddress_v2(CUdeviceptr *pdptr, CUtexref hTexRef)
{
	CUDA_RESOURCE_DESC bound;
	CUresult res;

	if (!pdptr)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_texref_bound(hTexRef, CU_RESOURCE_TYPE_LINEAR, &bound);
	if (res == CUDA_SUCCESS) {
		*pdptr = bound.res.linear.devPtr;
		return res;
	}
	res = libcumc_texref_bound(hTexRef, CU_RESOURCE_TYPE_PITCH2D, &bound);
	if (res == CUDA_SUCCESS)
		*pdptr = bound.res.pitch2D.devPtr;
	return res;
}

CUresult CUDAAPI cuTexRefGetArray(CUarray *phArray, CUtexref hTexRef)
{
	CUDA_RESOURCE_DESC bound;
	CUresult res;

	if (!phArray)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_texref_bound(hTexRef, CU_RESOURCE_TYPE_ARRAY, &bound);
	if (res == CUDA_SUCCESS)
		*phArray = bound.res.array.hArray;
	return res;
}

CUresult CUDAAPI cuTexRefGetMipmappedArray(CUmipmappedArray *phMipmappedArray,
		CUtexref hTexRef)
{
	CUDA_RESOURCE_DESC bound;
	CUresult res;

	if (!phMipmappedArray)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_texref_bound(hTexRef, CU_RESOURCE_TYPE_MIPMAPPED_ARRAY,
				   &bound);
	if (res == CUDA_SUCCESS)
		*phMipmappedArray = bound.res.mipmap.hMipmappedArray;
	return res;
}

CUresult CUDAAPI cuTexRefGetAddressMode(CUaddress_mode *pam, CUtexref hTexRef,
		int dim)
{
	struct libcumc_texref *ref;
	CUresult res = libcumc_texref_open(hTexRef, pam && dim >= 0 && dim < 3,
					   &ref);

	if (res == CUDA_SUCCESS) {
		*pam = ref->sampling.addressMode[dim];
		libcumc_texref_unlock();
	}
	return res;
}

CUresult CUDAAPI cuTexRefGetFilterMode(CUfilter_mode *pfm, CUtexref hTexRef)
{
	return libcumc_texref_sampling_get(hTexRef, !!pfm, pfm,
			offsetof(CUDA_TEXTURE_DESC, filterMode), sizeof(*pfm));
}

/* Either output may be NULL, not both. */
CUresult CUDAAPI cuTexRefGetFormat(CUarray_format *pFormat, int *pNumChannels,
		CUtexref hTexRef)
{
	struct libcumc_texref *ref;
	CUresult res = libcumc_texref_open(hTexRef, pFormat || pNumChannels,
					   &ref);

	if (res == CUDA_SUCCESS) {
		if (pFormat)
			*pFormat = ref->format;
		if (pNumChannels)
			*pNumChannels = ref->channels;
		libcumc_texref_unlock();
	}
	return res;
}

CUresult CUDAAPI cuTexRefGetMipmapFilterMode(CUfilter_mode *pfm,
		CUtexref hTexRef)
{
	return libcumc_texref_sampling_get(hTexRef, !!pfm, pfm,
			offsetof(CUDA_TEXTURE_DESC, mipmapFilterMode),
			sizeof(*pfm));
}

CUresult CUDAAPI cuTexRefGetMipmapLevelBias(float *pbias, CUtexref hTexRef)
{
	return libcumc_texref_sampling_get(hTexRef, !!pbias, pbias,
			offsetof(CUDA_TEXTURE_DESC, mipmapLevelBias),
			sizeof(*pbias));
}

CUresult CUDAAPI cuTexRefGetMipmapLevelClamp(float *pminMipmapLevelClamp,
		float *pmaxMipmapLevelClamp, CUtexref hTexRef)
{
	struct libcumc_texref *ref;
	CUresult res = libcumc_texref_open(hTexRef,
			pminMipmapLevelClamp && pmaxMipmapLevelClamp,
			&ref);

	if (res == CUDA_SUCCESS) {
		*pminMipmapLevelClamp = ref->sampling.minMipmapLevelClamp;
		*pmaxMipmapLevelClamp = ref->sampling.maxMipmapLevelClamp;
		libcumc_texref_unlock();
	}
	return res;
}

CUresult CUDAAPI cuTexRefGetMaxAnisotropy(int *pmaxAniso, CUtexref hTexRef)
{
	struct libcumc_texref *ref;
	CUresult res = libcumc_texref_open(hTexRef, !!pmaxAniso, &ref);

	if (res == CUDA_SUCCESS) {
		*pmaxAniso = (int)ref->sampling.maxAnisotropy;
		libcumc_texref_unlock();
	}
	return res;
}

CUresult CUDAAPI cuTexRefGetBorderColor(float *pBorderColor, CUtexref hTexRef)
{
	return libcumc_texref_sampling_get(hTexRef, !!pBorderColor,
			pBorderColor, offsetof(CUDA_TEXTURE_DESC, borderColor),
			sizeof(float[4]));
}

CUresult CUDAAPI cuTexRefGetFlags(unsigned int *pFlags, CUtexref hTexRef)
{
	return libcumc_texref_sampling_get(hTexRef, !!pFlags, pFlags,
			offsetof(CUDA_TEXTURE_DESC, flags), sizeof(*pFlags));
}

/* No surface reference ever exists (none comes from a module). */
CUresult CUDAAPI cuSurfRefSetArray(CUsurfref hSurfRef, CUarray hArray,
		unsigned int Flags)
{
	(void)hSurfRef;
	(void)hArray;
	(void)Flags;
	return CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuSurfRefGetArray(CUarray *phArray, CUsurfref hSurfRef)
{
	(void)hSurfRef;
	return phArray ? CUDA_ERROR_INVALID_HANDLE : CUDA_ERROR_INVALID_VALUE;
}
