// SPDX-License-Identifier: MIT
/*
 * The first stream memory operations API (CUDA 8.0 to 11.6): the
 * unversioned cuStreamWaitValue32/64, cuStreamWriteValue32/64 and
 * cuStreamBatchMemOp, and their _ptsz flavours.  Since CUDA 12.0 they
 * work only where the driver's module option enables them, and the
 * devices then answer CAN_USE_STREAM_MEM_OPS_V1 1; cumc's answer 0, so
 * every call is NOT_SUPPORTED, with a CUMC_LOG note naming the _v2
 * entry points that replace them (stream_memop.c).
 */
#include "entry.h"
#include "log.h"

static CUresult libcumc_memop_v1(void)
{
	libcumc_log_note("the v1 stream memory operations are disabled, as "
			 "CAN_USE_STREAM_MEM_OPS_V1 says: use the _v2 ones");
	return CUDA_ERROR_NOT_SUPPORTED;
}

/* Nothing is read: no argument changes the answer. */
#define CUMC_UNUSED __attribute__((unused))

#define CUMC_MEMOP_V1(symbol, value_type)				\
CUresult libcumc_impl_##symbol(						\
	const struct libcumc_driver *drv CUMC_UNUSED,			\
	CUstream stream CUMC_UNUSED, CUdeviceptr addr CUMC_UNUSED,	\
	value_type value CUMC_UNUSED, unsigned int flags CUMC_UNUSED)	\
{									\
	return libcumc_memop_v1();					\
}

CUMC_MEMOP_V1(cuStreamWaitValue32, cuuint32_t)
CUMC_MEMOP_V1(cuStreamWaitValue32_ptsz, cuuint32_t)
CUMC_MEMOP_V1(cuStreamWaitValue64, cuuint64_t)
CUMC_MEMOP_V1(cuStreamWaitValue64_ptsz, cuuint64_t)
CUMC_MEMOP_V1(cuStreamWriteValue32, cuuint32_t)
CUMC_MEMOP_V1(cuStreamWriteValue32_ptsz, cuuint32_t)
CUMC_MEMOP_V1(cuStreamWriteValue64, cuuint64_t)
CUMC_MEMOP_V1(cuStreamWriteValue64_ptsz, cuuint64_t)

#define CUMC_BATCH_V1(symbol)						\
CUresult libcumc_impl_##symbol(						\
	const struct libcumc_driver *drv CUMC_UNUSED,			\
	CUstream stream CUMC_UNUSED, unsigned int count CUMC_UNUSED,	\
	CUstreamBatchMemOpParams *paramArray CUMC_UNUSED,		\
	unsigned int flags CUMC_UNUSED)					\
{									\
	return libcumc_memop_v1();					\
}

CUMC_BATCH_V1(cuStreamBatchMemOp)
CUMC_BATCH_V1(cuStreamBatchMemOp_ptsz)
