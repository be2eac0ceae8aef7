/* SPDX-License-Identifier: MIT */
/*
 * Occupancy (occupancy.c): how many blocks of a function cumc runs at
 * once on one of its SMs, which the cuOccupancy* queries answer and
 * cuLaunchCooperativeKernel's co-residency check uses.
 */
#ifndef _CUMC_LIB_OCCUPANCY_H
#define _CUMC_LIB_OCCUPANCY_H

#include <stddef.h>

#include <cuda.h>

#include "kernel.h"

/* Blocks of @threads threads, @dynamic bytes of shared memory, an SM runs. */
unsigned int libcumc_occupancy(const struct libcumc_function *fn,
			       unsigned int threads, size_t dynamic);
/* The SMs of a simulated device (MULTIPROCESSOR_COUNT). */
unsigned int libcumc_sm_count(void);
/* A green context's SMs; the device's for any other context. */
unsigned int libcumc_ctx_sm_count(CUcontext ctx);

#endif /* _CUMC_LIB_OCCUPANCY_H */
