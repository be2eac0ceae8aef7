/* SPDX-License-Identifier: MIT */
/*
 * cumc's own additions to the CUDA driver API: the multimem data path.
 *
 * On hardware, kernels reach a multicast mapping only through the PTX
 * multimem instructions. Here the simulated devices' kernels are CPU code,
 * and these calls are those instructions, each named after the one it
 * models. A multicast address is any address inside a cuMemMap of a
 * multicast object to which access was granted; every member of the team
 * must have memory bound under the range an operation touches.
 */
#ifndef CUMC_CUMC_H
#define CUMC_CUMC_H

#include <stddef.h>

#include "cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element types of the multimem operations. */
typedef enum cumcDataType_enum {
	CUMC_F16 = 0,
	CUMC_BF16 = 1,
	CUMC_F32 = 2,
	CUMC_F64 = 3,
	CUMC_S32 = 4,
	CUMC_U32 = 5,
	CUMC_S64 = 6,
	CUMC_U64 = 7
} cumcDataType;

/*
 * Reduction operators. Floating types take ADD, MIN and MAX (f64: ADD
 * only; f16 and bf16 accumulate in f32); integer types take all six.
 */
typedef enum cumcReduceOp_enum {
	CUMC_OP_ADD = 0,
	CUMC_OP_MIN = 1,
	CUMC_OP_MAX = 2,
	CUMC_OP_AND = 3,
	CUMC_OP_OR = 4,
	CUMC_OP_XOR = 5
} cumcReduceOp;

/*
 * multimem.st: store @bytes from @src at @mcDst in every member's memory.
 * Release semantics.
 */
CUresult CUDAAPI cumcMultimemSt(CUdeviceptr mcDst, const void *src,
				size_t bytes);

/*
 * multimem.ld_reduce: @dst[i] = the reduction with @op, over all members
 * in team order, of element i at @mcSrc. @dst is any memory the caller
 * may write, host or device. Acquire semantics.
 */
CUresult CUDAAPI cumcMultimemLdReduce(void *dst, CUdeviceptr mcSrc,
				      size_t count, cumcDataType type,
				      cumcReduceOp op);

/*
 * multimem.red: combine @src[i] with @op into element i at @mcDst in
 * every member's memory, atomically per element. Floating types take ADD
 * only, as on the hardware. Release semantics.
 */
CUresult CUDAAPI cumcMultimemRed(CUdeviceptr mcDst, const void *src,
				 size_t count, cumcDataType type,
				 cumcReduceOp op);

#ifdef __cplusplus
}
#endif

#endif /* CUMC_CUMC_H */
