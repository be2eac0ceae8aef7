/* SPDX-License-Identifier: MIT */
/*
 * CUDA arrays (array.c) and mipmapped arrays (mipmap.c): what the
 * copies (copy3d.c) and texture objects (texobj.c) need of them.
 */
#ifndef _CUMC_LIB_ARRAY_H
#define _CUMC_LIB_ARRAY_H

#include <stdbool.h>
#include <stddef.h>

#include "internal.h"

/*
 * An array's elements, packed in host memory of the library: element x of
 * row y of layer (or slice) z is at data + (z * rows + y) * row_bytes +
 * x * elem_size.  A block-compressed array's elements are its 4x4 blocks,
 * its rows rows of blocks.  The layout never changes while the array lives.
 */
struct libcumc_array_layout {
	unsigned char *data;
	size_t row_bytes;	/* Width (in blocks) * element size */
	size_t rows;		/* Height (in blocks), 1 for a 1D array */
	size_t slices;		/* Depth or layers, 1 for a 1D or 2D array */
	size_t elem_size;	/* bytes of one element, all channels */
};

struct libcumc_array;

/*
 * A reference to the live array @handle and its layout; CUDA_ERROR_INVALID_HANDLE
 * (nothing taken) for any other value.  The memory stays until the last
 * reference is put, even if the array is destroyed meanwhile.
 */
CUresult libcumc_array_get(CUarray handle, struct libcumc_array **array,
			   struct libcumc_array_layout *layout);
void libcumc_array_put(struct libcumc_array *array);

/*
 * The bytes of an element of @format with @channels, 0 if that is no
 * element of an array cumc makes.
 */
size_t libcumc_format_element_size(CUarray_format format,
				   unsigned int channels);

/*
 * Whether @desc describes an array cumc makes: CUDA_SUCCESS, or the error
 * cuArray3DCreate answers for it.
 */
CUresult libcumc_array_check(const CUDA_ARRAY3D_DESCRIPTOR *desc);

/*
 * A new array of @desc in *@pHandle, for the current context;
 * @mipmap_level: one level of a mipmapped array, which cuArrayDestroy
 * refuses (libcumc_array_drop_level() destroys it).
 */
CUresult libcumc_array_make(const CUDA_ARRAY3D_DESCRIPTOR *desc,
			    bool mipmap_level, CUarray *pHandle);
void libcumc_array_drop_level(CUarray handle);

/* *@desc of the live array @handle, CUDA_ERROR_INVALID_HANDLE if none. */
CUresult libcumc_array_desc(CUarray handle, CUDA_ARRAY3D_DESCRIPTOR *desc);

/*
 * The descriptor and level count of the live mipmapped array @handle
 * (mipmap.c), CUDA_ERROR_INVALID_HANDLE if none.
 */
CUresult libcumc_mipmap_desc(CUmipmappedArray handle,
			     CUDA_ARRAY3D_DESCRIPTOR *desc,
			     unsigned int *num_levels);

#endif /* _CUMC_LIB_ARRAY_H */
