/* SPDX-License-Identifier: MIT */
/*
 * CUmemAllocationProp, as cuMemCreate and cuMemGetAllocationGranularity
 * read it and cuMemGetAllocationPropertiesFromHandle writes it.
 */
#ifndef _CUMC_LIB_MEM_PROP_H
#define _CUMC_LIB_MEM_PROP_H

#include "internal.h"

/*
 * Check every member of @prop; on success *@handle_types holds the
 * enum cumc_handle_types it requests.
 */
CUresult libcumc_mem_prop_check(const struct libcumc_driver *drv,
				const CUmemAllocationProp *prop,
				__u32 *handle_types);

/* enum cumc_handle_types as a CUmemAllocationHandleType bitmask. */
unsigned int libcumc_cuda_handle_types(__u32 handle_types);

/* The properties of the allocation CUMC_MEM_INFO described. */
void libcumc_mem_prop_fill(CUmemAllocationProp *prop,
			   const struct cumc_mem_info *info);

#endif /* _CUMC_LIB_MEM_PROP_H */
