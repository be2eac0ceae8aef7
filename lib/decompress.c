// SPDX-License-Identifier: MIT
/*
 * Batches of decompressions (cuMemBatchDecompressAsync). cumc's devices
 * have no decompression engine (MEM_DECOMPRESS_ALGORITHM_MASK is 0): a
 * batch whose arguments are all as cuda.h requires answers
 * CUDA_ERROR_NOT_SUPPORTED and queues nothing (Documentation/api.md,
 * "Memory").
 */
#include <stdbool.h>
#include <stdint.h>

#include "log.h"
#include "stream.h"

static bool decompress_algorithm_known(CUmemDecompressAlgorithm algo)
{
	switch (algo) {
	case CU_MEM_DECOMPRESS_ALGORITHM_DEFLATE:
	case CU_MEM_DECOMPRESS_ALGORITHM_SNAPPY:
	case CU_MEM_DECOMPRESS_ALGORITHM_LZ4:
		return true;
	default:
		return false;
	}
}

static bool decompress_params_valid(const CUmemDecompressParams *p)
{
	size_t i;

	if (!p->src || !p->dst || !p->dstActBytes || !p->srcNumBytes ||
	    !decompress_algorithm_known(p->algo))
		return false;
	for (i = 0; i < sizeof(p->padding); i++)
		if (p->padding[i])
			return false;
	return true;
}

/*
 * *@errorIndex, when given, is the failing operation's index, or SIZE_MAX
 * for an error of the whole batch, as cuda.h defines it.
 */
static CUresult decompress_batch(CUmemDecompressParams *paramsArray,
				 size_t count, unsigned int flags,
				 size_t *errorIndex, CUstream hStream, bool ptds)
{
	struct libcumc_stream *stream;
	size_t failed = SIZE_MAX, i;
	CUresult res;

	res = (!paramsArray || !count || flags) ? CUDA_ERROR_INVALID_VALUE :
		libcumc_stream_get(hStream, ptds, &stream);
	if (res == CUDA_SUCCESS) {
		libcumc_stream_put(stream);
		for (i = 0; i < count && res == CUDA_SUCCESS; i++)
			if (!decompress_params_valid(&paramsArray[i])) {
				res = CUDA_ERROR_INVALID_VALUE;
				failed = i;
			}
	}
	if (res == CUDA_SUCCESS) {
		libcumc_log_note("cumc's devices have no decompression engine");
		res = CUDA_ERROR_NOT_SUPPORTED;
	}
	if (errorIndex)
		*errorIndex = failed;
	return res;
}

CUresult CUDAAPI cuMemBatchDecompressAsync(CUmemDecompressParams *paramsArray,
					   size_t count, unsigned int flags,
					   size_t *errorIndex, CUstream stream)
{
	return decompress_batch(paramsArray, count, flags, errorIndex, stream,
				false);
}

CUresult CUDAAPI cuMemBatchDecompressAsync_ptsz(
	CUmemDecompressParams *paramsArray, size_t count, unsigned int flags,
	size_t *errorIndex, CUstream stream)
{
	return decompress_batch(paramsArray, count, flags, errorIndex, stream,
				true);
}
