/* SPDX-License-Identifier: MIT */
/*
 * CUDA arrays (array.c): what the copies (copy3d.c) need of one.
 */
#ifndef _CUMC_LIB_ARRAY_H
#define _CUMC_LIB_ARRAY_H

#include <stddef.h>

#include "internal.h"

/*
 * An array's elements, packed in host memory of the library: element x of
 * row y of layer (or slice) z is at data + (z * rows + y) * row_bytes +
 * x * elem_size.  The layout never changes while the array lives.
 */
struct libcumc_array_layout {
	unsigned char *data;
	size_t row_bytes;	/* Width * element size */
	size_t rows;		/* Height, 1 for a 1D array */
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

#endif /* _CUMC_LIB_ARRAY_H */
