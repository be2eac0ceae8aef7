// SPDX-License-Identifier: MIT
/*
 * Texture and surface objects: cuTexObjectCreate, cuSurfObjectCreate,
 * their descriptors and destruction.  The objects are what cuda.h
 * describes, checked as it documents, and kept to be read back; no
 * kernel samples or stores through one in cumc, since libcumc-ptx has no
 * texture or surface instructions (a module using them fails to load,
 * Documentation/ptx.md).  A CUtexObject or CUsurfObject is a number of
 * one registry shared by both kinds, from 1 up.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "array.h"
#include "device_attr.h"
#include "stream.h"

struct libcumc_texobj {
	struct libcumc_texobj *next;
	unsigned long long handle;
	bool surface;
	CUDA_RESOURCE_DESC res;
	CUDA_TEXTURE_DESC tex;		/* a texture's */
	bool has_view;			/* a texture made with a view */
	CUDA_RESOURCE_VIEW_DESC view;
};

/* Guards libcumc_texobjs and libcumc_last_texobj. */
static pthread_mutex_t libcumc_texobjs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct libcumc_texobj *libcumc_texobjs;
static unsigned long long libcumc_last_texobj;

#define CUMC_TRSF_FLAGS (CU_TRSF_READ_AS_INTEGER | \
			 CU_TRSF_NORMALIZED_COORDINATES | CU_TRSF_SRGB | \
			 CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION | \
			 CU_TRSF_SEAMLESS_CUBEMAP)

static size_t libcumc_attr(CUdevice_attribute attrib)
{
	const struct libcumc_device_attr_dev any = { 0 };
	int value = 0;

	libcumc_device_attribute_value(&any, attrib, &value);
	return value;
}

/* Device memory a texture reads: aligned as documented, and mapped. */
static CUresult libcumc_texture_memory(CUdeviceptr addr, size_t len)
{
	const struct libcumc_driver *drv;
	bool multicast;
	CUresult res;

	if (addr % libcumc_attr(CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT))
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_driver(&drv);
	if (res == CUDA_SUCCESS)
		res = libcumc_span_check(drv, addr, len, CUMC_ACCESS_READ,
					 &multicast);
	return res;
}

static CUresult libcumc_linear_valid(const CUDA_RESOURCE_DESC *r)
{
	size_t elem = libcumc_format_element_size(r->res.linear.format,
					   r->res.linear.numChannels);

	if (!elem || !r->res.linear.sizeInBytes ||
	    r->res.linear.sizeInBytes / elem >
	    libcumc_attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH))
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_texture_memory(r->res.linear.devPtr,
				      r->res.linear.sizeInBytes);
}

static CUresult libcumc_pitch2d_valid(const CUDA_RESOURCE_DESC *r)
{
	size_t elem = libcumc_format_element_size(r->res.pitch2D.format,
					   r->res.pitch2D.numChannels);
	size_t w = r->res.pitch2D.width, h = r->res.pitch2D.height;
	size_t pitch = r->res.pitch2D.pitchInBytes;
	size_t row, len;

	if (!elem || !w || !h ||
	    w > libcumc_attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH) ||
	    h > libcumc_attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT) ||
	    pitch > libcumc_attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH) ||
	    pitch % libcumc_attr(CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT) ||
	    __builtin_mul_overflow(w, elem, &row) || row > pitch)
		return CUDA_ERROR_INVALID_VALUE;
	/* The last row ends at its width, not at the pitch. */
	len = (h - 1) * pitch + row;
	return libcumc_texture_memory(r->res.pitch2D.devPtr, len);
}

static CUresult libcumc_resource_valid(const CUDA_RESOURCE_DESC *r)
{
	CUDA_ARRAY3D_DESCRIPTOR desc;
	unsigned int levels;

	if (r->flags)
		return CUDA_ERROR_INVALID_VALUE;
	switch (r->resType) {
	case CU_RESOURCE_TYPE_ARRAY:
		if (libcumc_array_desc(r->res.array.hArray, &desc))
			return CUDA_ERROR_INVALID_VALUE;
		return CUDA_SUCCESS;
	case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY:
		if (libcumc_mipmap_desc(r->res.mipmap.hMipmappedArray, &desc,
					&levels))
			return CUDA_ERROR_INVALID_VALUE;
		return CUDA_SUCCESS;
	case CU_RESOURCE_TYPE_LINEAR:
		return libcumc_linear_valid(r);
	case CU_RESOURCE_TYPE_PITCH2D:
		return libcumc_pitch2d_valid(r);
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

static bool libcumc_texture_desc_valid(const CUDA_TEXTURE_DESC *t)
{
	unsigned int i;

	for (i = 0; i < 3; i++)
		if ((unsigned int)t->addressMode[i] > CU_TR_ADDRESS_MODE_BORDER)
			return false;
	return (unsigned int)t->filterMode <= CU_TR_FILTER_MODE_LINEAR &&
	       (unsigned int)t->mipmapFilterMode <= CU_TR_FILTER_MODE_LINEAR &&
	       !(t->flags & ~(unsigned int)CUMC_TRSF_FLAGS);
}

/* A view: of an array or mipmapped array only, its ranges in order. */
static bool libcumc_view_valid(const CUDA_RESOURCE_DESC *r,
			       const CUDA_RESOURCE_VIEW_DESC *v)
{
	return (r->resType == CU_RESOURCE_TYPE_ARRAY ||
		r->resType == CU_RESOURCE_TYPE_MIPMAPPED_ARRAY) &&
	       (unsigned int)v->format <= CU_RES_VIEW_FORMAT_UNSIGNED_BC7 &&
	       v->firstMipmapLevel <= v->lastMipmapLevel &&
	       v->firstLayer <= v->lastLayer;
}

static CUresult libcumc_texobj_add(struct libcumc_texobj *obj,
				   unsigned long long *handle)
{
	struct libcumc_texobj *copy = malloc(sizeof(*copy));

	if (!copy)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*copy = *obj;
	pthread_mutex_lock(&libcumc_texobjs_lock);
	copy->handle = ++libcumc_last_texobj;
	copy->next = libcumc_texobjs;
	libcumc_texobjs = copy;
	*handle = copy->handle;
	pthread_mutex_unlock(&libcumc_texobjs_lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuTexObjectCreate(CUtexObject *pTexObject,
				   const CUDA_RESOURCE_DESC *pResDesc,
				   const CUDA_TEXTURE_DESC *pTexDesc,
				   const CUDA_RESOURCE_VIEW_DESC *pResViewDesc)
{
	struct libcumc_texobj obj = { 0 };
	CUdevice dev;
	CUresult res = libcumc_current_device(&dev);

	if (res != CUDA_SUCCESS)
		return res;
	if (!pTexObject || !pResDesc || !pTexDesc ||
	    !libcumc_texture_desc_valid(pTexDesc) ||
	    (pResViewDesc && !libcumc_view_valid(pResDesc, pResViewDesc)))
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_resource_valid(pResDesc);
	if (res != CUDA_SUCCESS)
		return res;
	obj.res = *pResDesc;
	obj.tex = *pTexDesc;
	if (pResViewDesc) {
		obj.has_view = true;
		obj.view = *pResViewDesc;
	}
	return libcumc_texobj_add(&obj, pTexObject);
}

/*
 * A surface reads and writes the elements of an array.  NVIDIA's driver
 * makes one over an array without CUDA_ARRAY3D_SURFACE_LDST too.
 */
CUresult CUDAAPI cuSurfObjectCreate(CUsurfObject *pSurfObject,
				    const CUDA_RESOURCE_DESC *pResDesc)
{
	struct libcumc_texobj obj = { .surface = true };
	CUDA_ARRAY3D_DESCRIPTOR desc;
	CUdevice dev;
	CUresult res = libcumc_current_device(&dev);

	if (res != CUDA_SUCCESS)
		return res;
	if (!pSurfObject || !pResDesc || pResDesc->flags ||
	    pResDesc->resType != CU_RESOURCE_TYPE_ARRAY ||
	    libcumc_array_desc(pResDesc->res.array.hArray, &desc))
		return CUDA_ERROR_INVALID_VALUE;
	obj.res = *pResDesc;
	return libcumc_texobj_add(&obj, pSurfObject);
}

/*
 * A copy of the live object @handle of the kind @surface in *@out;
 * CUDA_ERROR_INVALID_VALUE for any other value, as documented.
 */
static CUresult libcumc_texobj_get(unsigned long long handle, bool surface,
				   struct libcumc_texobj *out)
{
	struct libcumc_texobj *obj;

	pthread_mutex_lock(&libcumc_texobjs_lock);
	for (obj = libcumc_texobjs; obj; obj = obj->next)
		if (obj->handle == handle && obj->surface == surface) {
			*out = *obj;
			break;
		}
	pthread_mutex_unlock(&libcumc_texobjs_lock);
	return obj ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* The null object 0 is nothing to destroy: success, as NVIDIA's driver says. */
static CUresult libcumc_texobj_destroy(unsigned long long handle, bool surface)
{
	struct libcumc_texobj **link, *obj = NULL;

	if (!handle)
		return CUDA_SUCCESS;
	pthread_mutex_lock(&libcumc_texobjs_lock);
	for (link = &libcumc_texobjs; *link; link = &(*link)->next)
		if ((*link)->handle == handle && (*link)->surface == surface) {
			obj = *link;
			*link = obj->next;
			break;
		}
	pthread_mutex_unlock(&libcumc_texobjs_lock);
	free(obj);
	return obj ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuTexObjectDestroy(CUtexObject texObject)
{
	return libcumc_texobj_destroy(texObject, false);
}

CUresult CUDAAPI cuSurfObjectDestroy(CUsurfObject surfObject)
{
	return libcumc_texobj_destroy(surfObject, true);
}

CUresult CUDAAPI cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *pResDesc,
					    CUtexObject texObject)
{
	struct libcumc_texobj obj;
	CUresult res;

	if (!pResDesc)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_texobj_get(texObject, false, &obj);
	if (res == CUDA_SUCCESS)
		*pResDesc = obj.res;
	return res;
}

CUresult CUDAAPI cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC *pResDesc,
					     CUsurfObject surfObject)
{
	struct libcumc_texobj obj;
	CUresult res;

	if (!pResDesc)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_texobj_get(surfObject, true, &obj);
	if (res == CUDA_SUCCESS)
		*pResDesc = obj.res;
	return res;
}

CUresult CUDAAPI cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC *pTexDesc,
					   CUtexObject texObject)
{
	struct libcumc_texobj obj;
	CUresult res;

	if (!pTexDesc)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_texobj_get(texObject, false, &obj);
	if (res == CUDA_SUCCESS)
		*pTexDesc = obj.tex;
	return res;
}

/*
 * An object made without a view has none to write: NVIDIA's driver answers
 * success and leaves *pResViewDesc as it was.
 */
CUresult CUDAAPI cuTexObjectGetResourceViewDesc(
		CUDA_RESOURCE_VIEW_DESC *pResViewDesc, CUtexObject texObject)
{
	struct libcumc_texobj obj;
	CUresult res;

	if (!pResViewDesc)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_texobj_get(texObject, false, &obj);
	if (res == CUDA_SUCCESS && obj.has_view)
		*pResViewDesc = obj.view;
	return res;
}

/*
 * Every device answers MAXIMUM_TEXTURE1D_LINEAR_WIDTH elements, whatever
 * their size, for a format and channel count an array could have.
 */
CUresult CUDAAPI cuDeviceGetTexture1DLinearMaxWidth(size_t *maxWidthInElements,
						    CUarray_format format,
						    unsigned int numChannels,
						    CUdevice dev)
{
	const struct libcumc_driver *drv;
	CUresult res = libcumc_driver(&drv);

	if (res == CUDA_SUCCESS)
		res = libcumc_check_device(drv, dev);
	if (res != CUDA_SUCCESS)
		return res;
	if (!maxWidthInElements ||
	    !libcumc_format_element_size(format, numChannels))
		return CUDA_ERROR_INVALID_VALUE;
	*maxWidthInElements =
		libcumc_attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH);
	return CUDA_SUCCESS;
}

/* A forked child forgets its parent's objects with its contexts. */
static void libcumc_texobjs_forget_parent(void)
{
	libcumc_texobjs = NULL;
	pthread_mutex_init(&libcumc_texobjs_lock, NULL);
}

__attribute__((constructor)) static void libcumc_texobjs_atfork(void)
{
	pthread_atfork(NULL, NULL, libcumc_texobjs_forget_parent);
}
