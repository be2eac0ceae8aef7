// SPDX-License-Identifier: MIT
/*
 * Mipmapped arrays: cuMipmappedArrayCreate, GetLevel and Destroy.  A
 * mipmapped array is its levels, each an array of its own (array.c),
 * level l halving each extent the mipmap shrinks (width, height, and a 3D
 * array's depth; not the layers of a layered array or cubemap), down to 1.
 * The levels belong to the mipmapped array: cuMipmappedArrayDestroy
 * destroys them, cuArrayDestroy answers success and leaves them (NVIDIA's
 * driver answers success too).  A level count past the chain's (down to
 * 1 by 1) makes the whole chain and 0 makes the base level alone: the
 * driver accepts both.
 */
#include <pthread.h>
#include <stdlib.h>

#include "array.h"

struct libcumc_mipmap {
	struct libcumc_mipmap *next;
	CUmipmappedArray handle;
	CUDA_ARRAY3D_DESCRIPTOR desc;
	unsigned int num_levels;
	CUarray levels[];
};

/* Mipmapped array handles start here, clear of the arrays' numbers. */
#define CUMC_MIPMAP_HANDLE_BASE 0xa8000000u

/* Guards libcumc_mipmaps and libcumc_last_mipmap. */
static pthread_mutex_t libcumc_mipmaps_lock = PTHREAD_MUTEX_INITIALIZER;
static struct libcumc_mipmap *libcumc_mipmaps;
static uintptr_t libcumc_last_mipmap;

static bool libcumc_depth_shrinks(const CUDA_ARRAY3D_DESCRIPTOR *d)
{
	return !(d->Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP));
}

/* 1 + floor(log2) of the largest extent that shrinks. */
static unsigned int libcumc_max_levels(const CUDA_ARRAY3D_DESCRIPTOR *d)
{
	size_t largest = d->Width;
	unsigned int levels = 0;

	if (d->Height > largest)
		largest = d->Height;
	if (libcumc_depth_shrinks(d) && d->Depth > largest)
		largest = d->Depth;
	while (largest) {
		levels++;
		largest >>= 1;
	}
	return levels;
}

static size_t libcumc_shrink(size_t extent, unsigned int level)
{
	if (!extent)
		return 0;
	extent >>= level;
	return extent ? extent : 1;
}

static void libcumc_mipmap_free(struct libcumc_mipmap *mipmap)
{
	unsigned int l;

	for (l = 0; l < mipmap->num_levels; l++)
		if (mipmap->levels[l])
			libcumc_array_drop_level(mipmap->levels[l]);
	free(mipmap);
}

CUresult CUDAAPI cuMipmappedArrayCreate(CUmipmappedArray *pHandle,
		const CUDA_ARRAY3D_DESCRIPTOR *pMipmappedArrayDesc,
		unsigned int numMipmapLevels)
{
	const CUDA_ARRAY3D_DESCRIPTOR *d = pMipmappedArrayDesc;
	struct libcumc_mipmap *mipmap;
	CUDA_ARRAY3D_DESCRIPTOR level;
	CUresult res;
	unsigned int l;

	if (!pHandle || !d)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_array_check(d);
	if (res != CUDA_SUCCESS)
		return res;
	if (!numMipmapLevels)
		numMipmapLevels = 1;
	if (numMipmapLevels > libcumc_max_levels(d))
		numMipmapLevels = libcumc_max_levels(d);
	mipmap = calloc(1, sizeof(*mipmap) +
			   numMipmapLevels * sizeof(mipmap->levels[0]));
	if (!mipmap)
		return CUDA_ERROR_OUT_OF_MEMORY;
	mipmap->desc = *d;
	mipmap->num_levels = numMipmapLevels;
	for (l = 0; l < numMipmapLevels; l++) {
		level = *d;
		level.Width = libcumc_shrink(d->Width, l);
		level.Height = libcumc_shrink(d->Height, l);
		if (libcumc_depth_shrinks(d))
			level.Depth = libcumc_shrink(d->Depth, l);
		res = libcumc_array_make(&level, true, &mipmap->levels[l]);
		if (res != CUDA_SUCCESS)
			goto err_free;
	}
	pthread_mutex_lock(&libcumc_mipmaps_lock);
	mipmap->handle = (CUmipmappedArray)(CUMC_MIPMAP_HANDLE_BASE +
					    ++libcumc_last_mipmap);
	mipmap->next = libcumc_mipmaps;
	libcumc_mipmaps = mipmap;
	*pHandle = mipmap->handle;
	pthread_mutex_unlock(&libcumc_mipmaps_lock);
	return CUDA_SUCCESS;

err_free:
	libcumc_mipmap_free(mipmap);
	return res;
}

/* Called with libcumc_mipmaps_lock held. */
static struct libcumc_mipmap *libcumc_mipmap_find(CUmipmappedArray handle)
{
	struct libcumc_mipmap *mipmap;

	for (mipmap = libcumc_mipmaps; mipmap; mipmap = mipmap->next)
		if (mipmap->handle == handle)
			return mipmap;
	return NULL;
}

CUresult libcumc_mipmap_desc(CUmipmappedArray handle,
			     CUDA_ARRAY3D_DESCRIPTOR *desc,
			     unsigned int *num_levels)
{
	struct libcumc_mipmap *mipmap;

	pthread_mutex_lock(&libcumc_mipmaps_lock);
	mipmap = libcumc_mipmap_find(handle);
	if (mipmap) {
		*desc = mipmap->desc;
		*num_levels = mipmap->num_levels;
	}
	pthread_mutex_unlock(&libcumc_mipmaps_lock);
	return mipmap ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuMipmappedArrayGetLevel(CUarray *pLevelArray,
					  CUmipmappedArray hMipmappedArray,
					  unsigned int level)
{
	struct libcumc_mipmap *mipmap;
	CUresult res = CUDA_ERROR_INVALID_HANDLE;

	if (!pLevelArray)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&libcumc_mipmaps_lock);
	mipmap = libcumc_mipmap_find(hMipmappedArray);
	if (mipmap && level >= mipmap->num_levels) {
		res = CUDA_ERROR_INVALID_VALUE;
	} else if (mipmap) {
		*pLevelArray = mipmap->levels[level];
		res = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&libcumc_mipmaps_lock);
	return res;
}

CUresult CUDAAPI cuMipmappedArrayDestroy(CUmipmappedArray hMipmappedArray)
{
	struct libcumc_mipmap **link, *mipmap = NULL;

	pthread_mutex_lock(&libcumc_mipmaps_lock);
	for (link = &libcumc_mipmaps; *link; link = &(*link)->next)
		if ((*link)->handle == hMipmappedArray) {
			mipmap = *link;
			*link = mipmap->next;
			break;
		}
	pthread_mutex_unlock(&libcumc_mipmaps_lock);
	if (!mipmap)
		return CUDA_ERROR_INVALID_HANDLE;
	libcumc_mipmap_free(mipmap);
	return CUDA_SUCCESS;
}

/* No mipmapped array of cumc is sparse or deferred-mapping (array.c). */
static CUresult libcumc_mipmap_not_of_kind(const void *out,
					   CUmipmappedArray handle)
{
	CUDA_ARRAY3D_DESCRIPTOR desc;
	unsigned int levels;

	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	if (libcumc_mipmap_desc(handle, &desc, &levels) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_HANDLE;
	return CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuMipmappedArrayGetSparseProperties(
		CUDA_ARRAY_SPARSE_PROPERTIES *sparseProperties,
		CUmipmappedArray mipmap)
{
	return libcumc_mipmap_not_of_kind(sparseProperties, mipmap);
}

CUresult CUDAAPI cuMipmappedArrayGetMemoryRequirements(
		CUDA_ARRAY_MEMORY_REQUIREMENTS *memoryRequirements,
		CUmipmappedArray mipmap, CUdevice device)
{
	(void)device;
	return libcumc_mipmap_not_of_kind(memoryRequirements, mipmap);
}

/* A forked child forgets its parent's mipmapped arrays with its arrays. */
static void libcumc_mipmaps_forget_parent(void)
{
	libcumc_mipmaps = NULL;
	pthread_mutex_init(&libcumc_mipmaps_lock, NULL);
}

__attribute__((constructor)) static void libcumc_mipmaps_atfork(void)
{
	pthread_atfork(NULL, NULL, libcumc_mipmaps_forget_parent);
}
