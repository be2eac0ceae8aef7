// SPDX-License-Identifier: MIT
/*
 * Every NVML function cumc does not answer (nvml/unsupported.h, generated
 * from NVIDIA's nvml.h) is exported all the same, so that programs and
 * bindings that look it up find it, and answers NVML_ERROR_NOT_SUPPORTED,
 * what NVIDIA's library answers for a feature a GPU lacks: callers handle
 * that answer, while a missing symbol stops a program from loading.
 *
 * Each takes no parameters: under the x86-64 and AArch64 calling
 * conventions a caller passing arguments to such a function is safe, as
 * the caller owns its argument registers and stack. Nothing is written
 * through any of them.
 */
#include "internal.h"

#define CUMC_NVML_UNSUPPORTED(name)		\
	nvmlReturn_t name(void);		\
	nvmlReturn_t name(void)			\
	{					\
		return NVML_ERROR_NOT_SUPPORTED;	\
	}

#include "unsupported.h"
