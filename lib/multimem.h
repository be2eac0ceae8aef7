/* SPDX-License-Identifier: MIT */
/*
 * The multimem data path over a span of member views, for the entry points,
 * kernels' multimem instructions, cuMemcpy/cuMemset to multicast addresses
 * and the benchmarks.
 */
#ifndef _CUMC_LIB_MULTIMEM_H
#define _CUMC_LIB_MULTIMEM_H

#include <cumc.h>

#include "mc_views.h"

/* Copy @bytes from @src into every member at @span. */
void libcumc_mc_broadcast(const struct libcumc_mc_span *span, const void *src,
			  size_t bytes);

/* @dst[i] = the reduction over the members of element i at @span. */
void libcumc_mc_ld_reduce(void *dst, const struct libcumc_mc_span *span,
			  size_t count, cumcDataType type, cumcReduceOp op);

/*
 * Combine element i of @src into element i at @span of every member,
 * atomically per element.
 */
void libcumc_mc_red(const struct libcumc_mc_span *span, const void *src,
		    size_t count, cumcDataType type, cumcReduceOp op);

/*
 * What cumcMultimemSt, cumcMultimemLdReduce and cumcMultimemRed do (cumc.h
 * documents them), for them (@hold NULL: the mapping acquired and released
 * by the call) and for kernels' multimem instructions (@hold: the worker's,
 * kept held between instructions; mc_views.h).
 */
CUresult libcumc_multimem_st(struct libcumc_mc_hold *hold, CUdeviceptr mcDst,
			     const void *src, size_t bytes);
CUresult libcumc_multimem_ld_reduce(struct libcumc_mc_hold *hold, void *dst,
				    CUdeviceptr mcSrc, size_t count,
				    cumcDataType type, cumcReduceOp op);
CUresult libcumc_multimem_red(struct libcumc_mc_hold *hold, CUdeviceptr mcDst,
			      const void *src, size_t count, cumcDataType type,
			      cumcReduceOp op);

/*
 * A ld_reduce into @buf and then a st of @buf at @mc, as a kernel's
 * multimem.ld_reduce and the multimem.st of its results after it make
 * them: one check and one lookup, refused whole (nothing read, nothing
 * stored) where either would be.
 */
CUresult libcumc_multimem_ld_reduce_st(struct libcumc_mc_hold *hold, void *buf,
				       CUdeviceptr mc, size_t count,
				       cumcDataType type, cumcReduceOp op);
/*
 * What libcumc_multimem_ld_reduce_st() would answer, touching no member:
 * for a kernel's executor that makes the pair later.  On success, @range
 * (where not NULL) gets the multicast addresses [range[0], range[1]) that
 * @hold's mapping covers: any ld_reduce_st of @type and @op inside them,
 * aligned to @type, would succeed too while @hold holds that mapping.
 */
CUresult libcumc_multimem_ld_reduce_st_check(struct libcumc_mc_hold *hold,
					     CUdeviceptr mc, size_t count,
					     cumcDataType type,
					     cumcReduceOp op,
					     uint64_t range[2]);

#endif /* _CUMC_LIB_MULTIMEM_H */
