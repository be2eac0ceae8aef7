/* SPDX-License-Identifier: MIT */
/*
 * The samples' way of checking driver calls (lib/tests/abi/samples.sh):
 * a failed call prints its text and the error's name, and the program
 * exits 1.
 */
#ifndef SAMPLE_CHECK_H
#define SAMPLE_CHECK_H

#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call) do {						\
	CUresult res_ = (call);						\
	const char *name_ = "?";					\
									\
	if (res_ != CUDA_SUCCESS) {					\
		cuGetErrorName(res_, &name_);				\
		fprintf(stderr, "%s: %s\n", #call, name_);		\
		exit(1);						\
	}								\
} while (0)

#endif
