/* SPDX-License-Identifier: MIT */
/*
 * Device addresses as the module describes them (CUMC_VA_QUERY), for the
 * entry points that look at an address: va.c, pointer.c and copy.c.
 */
#ifndef _CUMC_LIB_VA_H
#define _CUMC_LIB_VA_H

#include "internal.h"

/*
 * What the module knows of @addr, with @device's access in out_access:
 * CUDA_ERROR_NOT_FOUND when @addr lies in no reservation of this client.
 * An address in a reservation but not mapped has out_map_addr 0.
 */
CUresult libcumc_address_query(const struct libcumc_driver *drv,
			       CUdeviceptr addr, CUdevice device,
			       struct cumc_va_query *q);

/*
 * As libcumc_address_query, and CUDA_ERROR_NOT_FOUND for an unmapped
 * address.
 */
CUresult libcumc_mapping_query(const struct libcumc_driver *drv,
			       CUdeviceptr addr, CUdevice device,
			       struct cumc_va_query *q);

/* The end of the mapping @q describes (@q came from a mapped address). */
static inline CUdeviceptr libcumc_mapping_end(const struct cumc_va_query *q)
{
	return q->out_map_addr + q->out_map_length;
}

#endif /* _CUMC_LIB_VA_H */
