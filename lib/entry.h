/* SPDX-License-Identifier: MIT */
/*
 * The implementations of the entry points the table marks driver
 * (entry_points.table): the exported function answers before cuInit and
 * hands its implementation the driver state first, then its own
 * arguments (log.h). A file defining one includes this header.
 */
#ifndef _CUMC_LIB_ENTRY_H
#define _CUMC_LIB_ENTRY_H

#include "internal.h"

#define CUMC_ENTRY_DRIVER(symbol, params, args, impl_params, impl_args) \
	CUresult libcumc_impl_##symbol impl_params;
#include "entry_points.h"

#endif /* _CUMC_LIB_ENTRY_H */
