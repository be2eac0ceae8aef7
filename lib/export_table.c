// SPDX-License-Identifier: MIT
/*
 * cuGetExportTable: the driver's private, undocumented interface to the
 * CUDA runtime and NVRTC, tables of functions named by a UUID. libcumc
 * has none of them yet, so it refuses every request with
 * CUDA_ERROR_NOT_SUPPORTED. Exporting the name matters in itself:
 * NVRTC looks it up in libcuda.so.1 after a successful cuInit and called
 * the NULL a missing symbol gave it, killing every compile.
 */
#include <stddef.h>

#include "internal.h"

CUresult CUDAAPI cuGetExportTable(const void **ppExportTable,
				  const CUuuid *pExportTableId)
{
	if (!ppExportTable || !pExportTableId)
		return CUDA_ERROR_INVALID_VALUE;
	*ppExportTable = NULL;
	return CUDA_ERROR_NOT_SUPPORTED;
}
