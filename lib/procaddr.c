// SPDX-License-Identifier: MIT
/*
 * cuGetProcAddress: entry points by name and CUDA version, from the tables
 * of entry_points.c.  It needs no cuInit: programs use it to find cuInit.
 */
#include <stdbool.h>
#include <string.h>

#include "internal.h"
#include "procaddr.h"

/* Entries of a symbol ascend by version: the last one that fits wins. */
static CUdriverProcAddressQueryResult
libcumc_proc_find(const struct libcumc_proc *procs, size_t count,
		  const char *symbol, int version, void **pfn)
{
	bool known = false;
	size_t i;

	*pfn = NULL;
	for (i = 0; i < count; i++) {
		if (strcmp(procs[i].symbol, symbol))
			continue;
		known = true;
		if (procs[i].version <= version)
			*pfn = procs[i].function;
	}
	if (*pfn)
		return CU_GET_PROC_ADDRESS_SUCCESS;
	return known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT :
		       CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
}

/*
 * The per-thread default stream flavour when asked for and one exists at
 * that version (_ptds, _ptsz: the NULL stream is the calling thread's),
 * else the legacy one.
 */
static CUdriverProcAddressQueryResult
libcumc_proc_lookup(const char *symbol, int version, cuuint64_t flags,
		    void **pfn)
{
	if (flags == CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM &&
	    libcumc_proc_find(libcumc_procs_ptds, libcumc_num_procs_ptds,
			      symbol, version, pfn) == CU_GET_PROC_ADDRESS_SUCCESS)
		return CU_GET_PROC_ADDRESS_SUCCESS;
	return libcumc_proc_find(libcumc_procs, libcumc_num_procs, symbol,
				 version, pfn);
}

/*
 * CU_GET_PROC_ADDRESS_DEFAULT is the legacy flavour, as for a program
 * built without per-thread default streams; asking for both at once is
 * refused.
 */
static bool libcumc_proc_flags_valid(cuuint64_t flags)
{
	return flags == CU_GET_PROC_ADDRESS_DEFAULT ||
	       flags == CU_GET_PROC_ADDRESS_LEGACY_STREAM ||
	       flags == CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
}

/*
 * A symbol that is unknown or too new for cudaVersion is not an error:
 * CUDA_SUCCESS with *pfn NULL, the reason in *symbolStatus.
 */
static CUresult libcumc_get_proc_address(const char *symbol, void **pfn,
				int cudaVersion, cuuint64_t flags,
				CUdriverProcAddressQueryResult *symbolStatus)
{
	CUdriverProcAddressQueryResult status;

	if (!pfn)
		return CUDA_ERROR_INVALID_VALUE;
	*pfn = NULL;
	/* A version newer than this driver's is refused, as documented. */
	if (!symbol || !libcumc_proc_flags_valid(flags) || cudaVersion > CUMC_DRIVER_VERSION)
		return CUDA_ERROR_INVALID_VALUE;
	status = libcumc_proc_lookup(symbol, cudaVersion, flags, pfn);
	if (symbolStatus)
		*symbolStatus = status;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn,
				     int cudaVersion, cuuint64_t flags,
				     CUdriverProcAddressQueryResult *symbolStatus)
{
	return libcumc_get_proc_address(symbol, pfn, cudaVersion, flags,
					symbolStatus);
}

/*
 * Without symbolStatus, a symbol that is unknown or too new for
 * cudaVersion is CUDA_ERROR_NOT_FOUND, and *pfn is left alone (as driver
 * 580 answers).
 */
CUresult CUDAAPI cuGetProcAddress_v1(const char *symbol, void **pfn,
				     int cudaVersion, cuuint64_t flags)
{
	CUdriverProcAddressQueryResult status;
	void *found;
	CUresult res;

	if (!pfn)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_get_proc_address(symbol, &found, cudaVersion, flags,
				       &status);
	if (res != CUDA_SUCCESS)
		return res;
	if (status != CU_GET_PROC_ADDRESS_SUCCESS)
		return CUDA_ERROR_NOT_FOUND;
	*pfn = found;
	return CUDA_SUCCESS;
}
