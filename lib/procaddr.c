// SPDX-License-Identifier: MIT
/*
 * cuGetProcAddress: entry points by name and CUDA version, from
 * procaddr_table.h.  It needs no cuInit: programs use it to find cuInit.
 */
#include <stdbool.h>
#include <string.h>

#include "internal.h"
#include "procaddr.h"

struct libcumc_proc {
	const char *symbol;
	int version;
	void *function;
};

#define CUMC_PROC(symbol, version, function) \
	{ symbol, version, (void *)function },
static const struct libcumc_proc libcumc_procs[] = {
#include "procaddr_table.h"
};
#undef CUMC_PROC

#define CUMC_NUM_PROCS (sizeof(libcumc_procs) / sizeof(libcumc_procs[0]))

/* Entries of a symbol ascend by version: the last one that fits wins. */
static CUdriverProcAddressQueryResult
libcumc_proc_lookup(const char *symbol, int version, void **pfn)
{
	bool known = false;
	size_t i;

	*pfn = NULL;
	for (i = 0; i < CUMC_NUM_PROCS; i++) {
		if (strcmp(libcumc_procs[i].symbol, symbol))
			continue;
		known = true;
		if (libcumc_procs[i].version <= version)
			*pfn = libcumc_procs[i].function;
	}
	if (*pfn)
		return CU_GET_PROC_ADDRESS_SUCCESS;
	return known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT :
		       CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
}

/*
 * Without streams, the legacy and per-thread default stream flavours of
 * an entry point are one function; asking for both at once is refused.
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
CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn,
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
	status = libcumc_proc_lookup(symbol, cudaVersion, pfn);
	if (symbolStatus)
		*symbolStatus = status;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGetProcAddress_v1(const char *symbol, void **pfn,
				     int cudaVersion, cuuint64_t flags)
{
	return cuGetProcAddress_v2(symbol, pfn, cudaVersion, flags, NULL);
}
