/* SPDX-License-Identifier: MIT */
/*
 * The CUDA runtime programs' way of checking calls (lib/tests/abi/runtime.sh,
 * nccl.sh): a call that failed prints its text and its error and counts a
 * failure, and the program goes on, so that one run shows every call that
 * failed; its last line says whether all were right.
 */
#ifndef RUNTIME_CHECK_H
#define RUNTIME_CHECK_H

#include <cstdio>
#include <cuda.h>
#include <cuda_runtime.h>

static int failures;

static inline void check(cudaError_t err, const char *what)
{
	if (err != cudaSuccess) {
		printf("%s: %s\n", what, cudaGetErrorString(err));
		failures++;
	}
}

/* A driver function's answer, through an entry point the runtime handed out. */
static inline void check(CUresult res, const char *what)
{
	if (res != CUDA_SUCCESS) {
		printf("%s: CUresult %d\n", what, (int)res);
		failures++;
	}
}

#define CHECK(call) check((call), #call)

#endif
