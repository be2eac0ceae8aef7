// SPDX-License-Identifier: MIT
/*
 * CUDA arrays: cuArrayCreate, cuArray3DCreate, their descriptors and
 * cuArrayDestroy.  No device code reads an array in cumc (texture and
 * surface instructions do not run), so an array is the copies' business
 * only: its elements live packed in host memory of the library
 * (array.h), and a CUarray is a registry number, as a CUevent is.
 *
 * An array belongs to the context current when it was made, but is not
 * freed with it: it lives until cuArrayDestroy (or the process's end).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "array.h"
#include "device_attr.h"
#include "log.h"
#include "stream.h"

struct libcumc_array {
	struct libcumc_array *next;	/* in libcumc_arrays, while live */
	CUarray handle;
	atomic_uint refs;		/* the registry's and each copy's */
	CUDA_ARRAY3D_DESCRIPTOR desc;	/* as created */
	struct libcumc_array_layout layout;
	bool mipmap_level;		/* destroyed with its mipmapped array */
};

/* Array handles start here, clear of the streams' and events' numbers. */
#define CUMC_ARRAY_HANDLE_BASE 0xa7000000u

/* Guards libcumc_arrays and libcumc_last_array. */
static pthread_mutex_t libcumc_arrays_lock = PTHREAD_MUTEX_INITIALIZER;
static struct libcumc_array *libcumc_arrays;
static uintptr_t libcumc_last_array;

#define CUMC_ARRAY_FLAGS (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST | \
			  CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_TEXTURE_GATHER | \
			  CUDA_ARRAY3D_DEPTH_TEXTURE | \
			  CUDA_ARRAY3D_COLOR_ATTACHMENT | CUDA_ARRAY3D_SPARSE | \
			  CUDA_ARRAY3D_DEFERRED_MAPPING | \
			  CUDA_ARRAY3D_VIDEO_ENCODE_DECODE)

/* What arrays need of hardware cumc does not simulate. */
#define CUMC_ARRAY_HARDWARE_FLAGS (CUDA_ARRAY3D_DEPTH_TEXTURE | \
				   CUDA_ARRAY3D_COLOR_ATTACHMENT | \
				   CUDA_ARRAY3D_SPARSE | \
				   CUDA_ARRAY3D_DEFERRED_MAPPING | \
				   CUDA_ARRAY3D_VIDEO_ENCODE_DECODE)

/*
 * The bytes of one channel of @format and the channels it fixes (0: any
 * of 1, 2 or 4).  0 bytes: a format with no element of its own (block
 * compressed: libcumc_format_block()) or that cumc does not lay out (YUV,
 * packed 10-bit); -1: no format at all.
 */
static int libcumc_format_channel(CUarray_format format,
				  unsigned int *fixed_channels)
{
	*fixed_channels = 0;
	switch (format) {
	case CU_AD_FORMAT_UNSIGNED_INT8:
	case CU_AD_FORMAT_SIGNED_INT8:
		return 1;
	case CU_AD_FORMAT_UNSIGNED_INT16:
	case CU_AD_FORMAT_SIGNED_INT16:
	case CU_AD_FORMAT_HALF:
		return 2;
	case CU_AD_FORMAT_UNSIGNED_INT32:
	case CU_AD_FORMAT_SIGNED_INT32:
	case CU_AD_FORMAT_FLOAT:
		return 4;
	case CU_AD_FORMAT_UNORM_INT8X1:
	case CU_AD_FORMAT_SNORM_INT8X1:
		*fixed_channels = 1;
		return 1;
	case CU_AD_FORMAT_UNORM_INT8X2:
	case CU_AD_FORMAT_SNORM_INT8X2:
		*fixed_channels = 2;
		return 1;
	case CU_AD_FORMAT_UNORM_INT8X4:
	case CU_AD_FORMAT_SNORM_INT8X4:
		*fixed_channels = 4;
		return 1;
	case CU_AD_FORMAT_UNORM_INT16X1:
	case CU_AD_FORMAT_SNORM_INT16X1:
		*fixed_channels = 1;
		return 2;
	case CU_AD_FORMAT_UNORM_INT16X2:
	case CU_AD_FORMAT_SNORM_INT16X2:
		*fixed_channels = 2;
		return 2;
	case CU_AD_FORMAT_UNORM_INT16X4:
	case CU_AD_FORMAT_SNORM_INT16X4:
		*fixed_channels = 4;
		return 2;
	case CU_AD_FORMAT_NV12:
	case CU_AD_FORMAT_BC1_UNORM ... CU_AD_FORMAT_P010:	/* BC* and P010 */
	case CU_AD_FORMAT_P016 ... CU_AD_FORMAT_Y410:
	case CU_AD_FORMAT_Y416 ... CU_AD_FORMAT_YUV444_16bit_SemiPlanar:
	case CU_AD_FORMAT_UNORM_INT_101010_2:
		return 0;
	default:
		return -1;
	}
}

/*
 * The bytes of a 4x4 block of the block-compressed @format and its
 * channels (cuda.h); 0 for any other format.
 */
static size_t libcumc_format_block(CUarray_format format,
				   unsigned int *channels)
{
	switch (format) {
	case CU_AD_FORMAT_BC1_UNORM:
	case CU_AD_FORMAT_BC1_UNORM_SRGB:
		*channels = 4;
		return 8;
	case CU_AD_FORMAT_BC2_UNORM ... CU_AD_FORMAT_BC3_UNORM_SRGB:
	case CU_AD_FORMAT_BC7_UNORM:
	case CU_AD_FORMAT_BC7_UNORM_SRGB:
		*channels = 4;
		return 16;
	case CU_AD_FORMAT_BC4_UNORM:
	case CU_AD_FORMAT_BC4_SNORM:
		*channels = 1;
		return 8;
	case CU_AD_FORMAT_BC5_UNORM:
	case CU_AD_FORMAT_BC5_SNORM:
		*channels = 2;
		return 16;
	case CU_AD_FORMAT_BC6H_UF16:
	case CU_AD_FORMAT_BC6H_SF16:
		*channels = 3;
		return 16;
	default:
		return 0;
	}
}

/* The 4x4 blocks that cover @extent texels. */
static size_t libcumc_blocks(size_t extent)
{
	return extent / 4 + (extent % 4 != 0);
}

/* The kinds of array of cuArray3DCreate's table of extents. */
enum libcumc_array_kind {
	CUMC_ARRAY_1D,
	CUMC_ARRAY_2D,
	CUMC_ARRAY_3D,
	CUMC_ARRAY_1D_LAYERED,
	CUMC_ARRAY_2D_LAYERED,
	CUMC_ARRAY_CUBEMAP,
	CUMC_ARRAY_CUBEMAP_LAYERED,
	CUMC_ARRAY_2D_GATHER,
};

#define ATTR(name) CU_DEVICE_ATTRIBUTE_MAXIMUM_##name

/*
 * The attributes bounding width, height and depth (or layers) of each
 * kind, for texture use and for surface use (CUDA_ARRAY3D_SURFACE_LDST);
 * 0 where the extent has no bound of its own (a cubemap's height is its
 * width).
 */
static const struct libcumc_array_limits {
	CUdevice_attribute texture[3];
	CUdevice_attribute surface[3];
} libcumc_array_limits[] = {
	[CUMC_ARRAY_1D] = {
		{ ATTR(TEXTURE1D_WIDTH) },
		{ ATTR(SURFACE1D_WIDTH) } },
	[CUMC_ARRAY_2D] = {
		{ ATTR(TEXTURE2D_WIDTH), ATTR(TEXTURE2D_HEIGHT) },
		{ ATTR(SURFACE2D_WIDTH), ATTR(SURFACE2D_HEIGHT) } },
	[CUMC_ARRAY_3D] = {
		{ ATTR(TEXTURE3D_WIDTH), ATTR(TEXTURE3D_HEIGHT),
		  ATTR(TEXTURE3D_DEPTH) },
		{ ATTR(SURFACE3D_WIDTH), ATTR(SURFACE3D_HEIGHT),
		  ATTR(SURFACE3D_DEPTH) } },
	[CUMC_ARRAY_1D_LAYERED] = {
		{ ATTR(TEXTURE1D_LAYERED_WIDTH), 0,
		  ATTR(TEXTURE1D_LAYERED_LAYERS) },
		{ ATTR(SURFACE1D_LAYERED_WIDTH), 0,
		  ATTR(SURFACE1D_LAYERED_LAYERS) } },
	[CUMC_ARRAY_2D_LAYERED] = {
		{ ATTR(TEXTURE2D_LAYERED_WIDTH), ATTR(TEXTURE2D_LAYERED_HEIGHT),
		  ATTR(TEXTURE2D_LAYERED_LAYERS) },
		{ ATTR(SURFACE2D_LAYERED_WIDTH), ATTR(SURFACE2D_LAYERED_HEIGHT),
		  ATTR(SURFACE2D_LAYERED_LAYERS) } },
	[CUMC_ARRAY_CUBEMAP] = {
		{ ATTR(TEXTURECUBEMAP_WIDTH) },
		{ ATTR(SURFACECUBEMAP_WIDTH) } },
	[CUMC_ARRAY_CUBEMAP_LAYERED] = {
		{ ATTR(TEXTURECUBEMAP_LAYERED_WIDTH), 0,
		  ATTR(TEXTURECUBEMAP_LAYERED_LAYERS) },
		{ ATTR(SURFACECUBEMAP_LAYERED_WIDTH), 0,
		  ATTR(SURFACECUBEMAP_LAYERED_LAYERS) } },
	[CUMC_ARRAY_2D_GATHER] = {
		{ ATTR(TEXTURE2D_GATHER_WIDTH), ATTR(TEXTURE2D_GATHER_HEIGHT) },
		{ ATTR(TEXTURE2D_GATHER_WIDTH), ATTR(TEXTURE2D_GATHER_HEIGHT) } },
};

/* A 3D texture may also take the alternate, narrower and deeper, shape. */
static const CUdevice_attribute libcumc_3d_alternate[3] = {
	ATTR(TEXTURE3D_WIDTH_ALTERNATE), ATTR(TEXTURE3D_HEIGHT_ALTERNATE),
	ATTR(TEXTURE3D_DEPTH_ALTERNATE),
};

#undef ATTR

static bool libcumc_within(const size_t extent[3],
			   const CUdevice_attribute limit[3])
{
	const struct libcumc_device_attr_dev any = { 0 };
	unsigned int i;
	int value;

	for (i = 0; i < 3; i++) {
		if (!limit[i])
			continue;
		value = 0;
		libcumc_device_attribute_value(&any, limit[i], &value);
		if (extent[i] > (size_t)value)
			return false;
	}
	return true;
}

/*
 * Whether the extents of @d make an array cuda.h's table allows, within
 * the limits cumc's devices answer, for texture or (with
 * CUDA_ARRAY3D_SURFACE_LDST) surface use.
 */
static bool libcumc_extents_valid(const CUDA_ARRAY3D_DESCRIPTOR *d)
{
	bool layered = d->Flags & CUDA_ARRAY3D_LAYERED;
	bool cubemap = d->Flags & CUDA_ARRAY3D_CUBEMAP;
	bool gather = d->Flags & CUDA_ARRAY3D_TEXTURE_GATHER;
	const size_t extent[3] = { d->Width, d->Height, d->Depth };
	const struct libcumc_array_limits *limits;
	enum libcumc_array_kind kind;

	if (!d->Width || (!d->Height && d->Depth && !layered) ||
	    (layered && !d->Depth))
		return false;
	if (cubemap && (d->Width != d->Height || d->Depth % 6 ||
			(!layered && d->Depth != 6)))
		return false;
	if (gather && (!d->Height || d->Depth))
		return false;
	if (cubemap)
		kind = layered ? CUMC_ARRAY_CUBEMAP_LAYERED : CUMC_ARRAY_CUBEMAP;
	else if (layered)
		kind = d->Height ? CUMC_ARRAY_2D_LAYERED : CUMC_ARRAY_1D_LAYERED;
	else if (d->Depth)
		kind = CUMC_ARRAY_3D;
	else if (gather)
		kind = CUMC_ARRAY_2D_GATHER;
	else
		kind = d->Height ? CUMC_ARRAY_2D : CUMC_ARRAY_1D;
	limits = &libcumc_array_limits[kind];
	if (d->Flags & CUDA_ARRAY3D_SURFACE_LDST)
		return libcumc_within(extent, limits->surface);
	return libcumc_within(extent, limits->texture) ||
	       (kind == CUMC_ARRAY_3D &&
		libcumc_within(extent, libcumc_3d_alternate));
}

size_t libcumc_format_element_size(CUarray_format format,
				   unsigned int channels)
{
	unsigned int fixed_channels;
	int channel = libcumc_format_channel(format, &fixed_channels);

	if (channel <= 0 ||
	    (fixed_channels ? channels != fixed_channels :
	     channels != 1 && channels != 2 && channels != 4))
		return 0;
	return (size_t)channel * channels;
}

/*
 * The layout of a valid @d, its memory not yet allocated.  A
 * block-compressed array is laid out as its 4x4 blocks: an element is a
 * block, a row a row of blocks (the copies move those bytes as they are).
 */
static CUresult libcumc_array_describe(const CUDA_ARRAY3D_DESCRIPTOR *d,
				       struct libcumc_array_layout *layout)
{
	unsigned int fixed_channels;
	int channel = libcumc_format_channel(d->Format, &fixed_channels);
	size_t block = libcumc_format_block(d->Format, &fixed_channels);

	if (d->Flags & ~(unsigned int)CUMC_ARRAY_FLAGS || channel < 0)
		return CUDA_ERROR_INVALID_VALUE;
	if (fixed_channels ? d->NumChannels != fixed_channels :
	    d->NumChannels != 1 && d->NumChannels != 2 && d->NumChannels != 4)
		return CUDA_ERROR_INVALID_VALUE;
	if (!libcumc_extents_valid(d))
		return CUDA_ERROR_INVALID_VALUE;
	if (!channel && !block) {
		libcumc_log_note("cumc lays out no YUV or packed 10-bit array format");
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	if (d->Flags & CUMC_ARRAY_HARDWARE_FLAGS) {
		libcumc_log_note("cumc has no sparse, deferred-mapping, depth, color-attachment or video arrays");
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	layout->rows = d->Height ? d->Height : 1;
	layout->slices = d->Depth ? d->Depth : 1;
	if (block) {
		layout->elem_size = block;
		layout->row_bytes = libcumc_blocks(d->Width) * block;
		layout->rows = libcumc_blocks(layout->rows);
	} else {
		layout->elem_size = (size_t)channel * d->NumChannels;
		layout->row_bytes = d->Width * layout->elem_size;
	}
	return CUDA_SUCCESS;
}

CUresult libcumc_array_check(const CUDA_ARRAY3D_DESCRIPTOR *desc)
{
	struct libcumc_array_layout layout;

	return libcumc_array_describe(desc, &layout);
}

CUresult libcumc_array_make(const CUDA_ARRAY3D_DESCRIPTOR *desc,
			    bool mipmap_level, CUarray *pHandle)
{
	struct libcumc_array *array;
	size_t bytes;
	CUdevice dev;
	CUresult res;

	if (!pHandle || !desc)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_current_device(&dev);
	if (res != CUDA_SUCCESS)
		return res;
	array = calloc(1, sizeof(*array));
	if (!array)
		return CUDA_ERROR_OUT_OF_MEMORY;
	array->desc = *desc;
	array->mipmap_level = mipmap_level;
	res = libcumc_array_describe(desc, &array->layout);
	if (res != CUDA_SUCCESS)
		goto err_free;
	res = CUDA_ERROR_OUT_OF_MEMORY;
	if (__builtin_mul_overflow(array->layout.row_bytes, array->layout.rows,
				   &bytes) ||
	    __builtin_mul_overflow(bytes, array->layout.slices, &bytes))
		goto err_free;
	/* Zeroed: an array never shows memory someone else used. */
	array->layout.data = calloc(1, bytes);
	if (!array->layout.data)
		goto err_free;
	atomic_init(&array->refs, 1);
	pthread_mutex_lock(&libcumc_arrays_lock);
	array->handle = (CUarray)(CUMC_ARRAY_HANDLE_BASE + ++libcumc_last_array);
	array->next = libcumc_arrays;
	libcumc_arrays = array;
	*pHandle = array->handle;
	pthread_mutex_unlock(&libcumc_arrays_lock);
	return CUDA_SUCCESS;

err_free:
	free(array);
	return res;
}

CUresult CUDAAPI cuArray3DCreate_v2(CUarray *pHandle,
				    const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray)
{
	return libcumc_array_make(pAllocateArray, false, pHandle);
}

CUresult CUDAAPI cuArrayCreate_v2(CUarray *pHandle,
				  const CUDA_ARRAY_DESCRIPTOR *pAllocateArray)
{
	CUDA_ARRAY3D_DESCRIPTOR desc;

	if (!pAllocateArray)
		return CUDA_ERROR_INVALID_VALUE;
	desc = (CUDA_ARRAY3D_DESCRIPTOR){
		.Width = pAllocateArray->Width,
		.Height = pAllocateArray->Height,
		.Format = pAllocateArray->Format,
		.NumChannels = pAllocateArray->NumChannels,
	};
	return libcumc_array_make(&desc, false, pHandle);
}

/* Called with libcumc_arrays_lock held. */
static struct libcumc_array *libcumc_array_find(CUarray handle)
{
	struct libcumc_array *array;

	for (array = libcumc_arrays; array; array = array->next)
		if (array->handle == handle)
			return array;
	return NULL;
}

CUresult libcumc_array_get(CUarray handle, struct libcumc_array **array,
			   struct libcumc_array_layout *layout)
{
	struct libcumc_array *found;

	pthread_mutex_lock(&libcumc_arrays_lock);
	found = libcumc_array_find(handle);
	if (found)
		atomic_fetch_add(&found->refs, 1);
	pthread_mutex_unlock(&libcumc_arrays_lock);
	if (!found)
		return CUDA_ERROR_INVALID_HANDLE;
	*array = found;
	if (layout)
		*layout = found->layout;
	return CUDA_SUCCESS;
}

void libcumc_array_put(struct libcumc_array *array)
{
	if (!array || atomic_fetch_sub(&array->refs, 1) != 1)
		return;
	free(array->layout.data);
	free(array);
}

CUresult libcumc_array_desc(CUarray handle, CUDA_ARRAY3D_DESCRIPTOR *desc)
{
	struct libcumc_array *array;

	pthread_mutex_lock(&libcumc_arrays_lock);
	array = libcumc_array_find(handle);
	if (array)
		*desc = array->desc;
	pthread_mutex_unlock(&libcumc_arrays_lock);
	return array ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *pArrayDescriptor,
					   CUarray hArray)
{
	if (!pArrayDescriptor)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_array_desc(hArray, pArrayDescriptor);
}

/* A 3D or layered array answers its width and height, as one layer. */
CUresult CUDAAPI cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR *pArrayDescriptor,
					 CUarray hArray)
{
	CUDA_ARRAY3D_DESCRIPTOR desc;
	CUresult res;

	if (!pArrayDescriptor)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_array_desc(hArray, &desc);
	if (res != CUDA_SUCCESS)
		return res;
	*pArrayDescriptor = (CUDA_ARRAY_DESCRIPTOR){
		.Width = desc.Width,
		.Height = desc.Height,
		.Format = desc.Format,
		.NumChannels = desc.NumChannels,
	};
	return CUDA_SUCCESS;
}

/*
 * Takes @handle out of the registry and puts its reference, unless it is
 * not live or is a mipmap level and @mipmap_level is false.
 */
static CUresult libcumc_array_unlink(CUarray handle, bool mipmap_level)
{
	struct libcumc_array **link, *array = NULL;

	pthread_mutex_lock(&libcumc_arrays_lock);
	for (link = &libcumc_arrays; *link; link = &(*link)->next)
		if ((*link)->handle == handle &&
		    (*link)->mipmap_level == mipmap_level) {
			array = *link;
			*link = array->next;
			break;
		}
	pthread_mutex_unlock(&libcumc_arrays_lock);
	if (!array)
		return CUDA_ERROR_INVALID_HANDLE;
	libcumc_array_put(array);
	return CUDA_SUCCESS;
}

void libcumc_array_drop_level(CUarray handle)
{
	libcumc_array_unlink(handle, true);
}

static bool libcumc_array_is_level(CUarray handle)
{
	struct libcumc_array *array;
	bool level;

	pthread_mutex_lock(&libcumc_arrays_lock);
	array = libcumc_array_find(handle);
	level = array && array->mipmap_level;
	pthread_mutex_unlock(&libcumc_arrays_lock);
	return level;
}

/*
 * A copy still running on a stream keeps the memory until it is done.  A
 * mipmap level goes only with its mipmapped array: destroying it alone
 * answers success, as NVIDIA's driver does, and leaves it.
 */
CUresult CUDAAPI cuArrayDestroy(CUarray hArray)
{
	CUresult res = libcumc_array_unlink(hArray, false);

	if (res == CUDA_ERROR_INVALID_HANDLE && libcumc_array_is_level(hArray))
		return CUDA_SUCCESS;
	return res;
}

/*
 * The queries of layouts cumc never makes: planar (multi-planar formats
 * answer NOT_SUPPORTED at creation), sparse and deferred-mapping arrays
 * (the device attributes say unsupported).  For any live array they
 * answer INVALID_VALUE, as cuda.h documents for an array not of that kind.
 */
static CUresult libcumc_array_not_of_kind(const void *out, CUarray handle)
{
	CUDA_ARRAY3D_DESCRIPTOR desc;

	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	if (libcumc_array_desc(handle, &desc) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_HANDLE;
	return CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuArrayGetPlane(CUarray *pPlaneArray, CUarray hArray,
				 unsigned int planeIdx)
{
	(void)planeIdx;
	return libcumc_array_not_of_kind(pPlaneArray, hArray);
}

CUresult CUDAAPI cuArrayGetSparseProperties(
		CUDA_ARRAY_SPARSE_PROPERTIES *sparseProperties, CUarray array)
{
	return libcumc_array_not_of_kind(sparseProperties, array);
}

CUresult CUDAAPI cuArrayGetMemoryRequirements(
		CUDA_ARRAY_MEMORY_REQUIREMENTS *memoryRequirements,
		CUarray array, CUdevice device)
{
	(void)device;
	return libcumc_array_not_of_kind(memoryRequirements, array);
}

/* No sparse array exists to map memory into (the device attribute says so). */
static CUresult libcumc_map_array(const CUarrayMapInfo *list,
				  unsigned int count)
{
	if (!list || !count)
		return CUDA_ERROR_INVALID_VALUE;
	libcumc_log_note("cumc has no sparse arrays (SPARSE_CUDA_ARRAY_SUPPORTED is 0)");
	return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult CUDAAPI cuMemMapArrayAsync(CUarrayMapInfo *mapInfoList,
				    unsigned int count, CUstream hStream)
{
	(void)hStream;
	return libcumc_map_array(mapInfoList, count);
}

CUresult CUDAAPI cuMemMapArrayAsync_ptsz(CUarrayMapInfo *mapInfoList,
					 unsigned int count, CUstream hStream)
{
	(void)hStream;
	return libcumc_map_array(mapInfoList, count);
}

/* A forked child forgets its parent's arrays with its contexts. */
static void libcumc_arrays_forget_parent(void)
{
	libcumc_arrays = NULL;
	pthread_mutex_init(&libcumc_arrays_lock, NULL);
}

__attribute__((constructor)) static void libcumc_arrays_atfork(void)
{
	pthread_atfork(NULL, NULL, libcumc_arrays_forget_parent);
}
