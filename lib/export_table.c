// SPDX-License-Identifier: MIT
/*
 * cuGetExportTable: the driver's private, undocumented interface to the
 * CUDA runtime and NVRTC, tables of functions named by a UUID. libcumc
 * has the seven the CUDA runtime asks for (runtime_tables.c); any other
 * request, NVRTC's among them, is refused with CUDA_ERROR_NOT_SUPPORTED,
 * naming the UUID in its CUMC_LOG line (Documentation/runtime.md).
 * Exporting the name matters in itself: NVRTC looks it up in
 * libcuda.so.1 after a successful cuInit and called the NULL a missing
 * symbol gave it, killing every compile; with this answer it compiles.
 */
#include <stddef.h>
#include <stdio.h>

#include "internal.h"
#include "log.h"
#include "runtime_tables.h"

CUresult CUDAAPI cuGetExportTable(const void **ppExportTable,
				  const CUuuid *pExportTableId)
{
	const unsigned char *b;
	char note[64];

	if (!ppExportTable || !pExportTableId)
		return CUDA_ERROR_INVALID_VALUE;
	*ppExportTable = libcumc_runtime_table(pExportTableId);
	if (*ppExportTable)
		return CUDA_SUCCESS;
	b = (const unsigned char *)pExportTableId->bytes;
	snprintf(note, sizeof(note),
		 "no table %02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
		 b[10], b[11], b[12], b[13], b[14], b[15]);
	libcumc_log_note(note);
	return CUDA_ERROR_NOT_SUPPORTED;
}
