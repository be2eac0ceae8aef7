/* SPDX-License-Identifier: MIT */
/*
 * Contexts exist only in libcumc: the module has no such object, and no
 * allocation belongs to one.  A CUcontext is a number the registry issues,
 * never a pointer that is dereferenced, so a garbage or destroyed handle is
 * recognised and refused; numbers are not reused, so a destroyed handle
 * never comes to name a newer context.
 */
#ifndef _CUMC_LIB_CONTEXT_H
#define _CUMC_LIB_CONTEXT_H

#include <cuda.h>

/* The registry of live contexts (context_registry.c), thread-safe. */
CUresult cumc_context_create(CUdevice dev, CUcontext *ctx);
/* CUDA_ERROR_INVALID_CONTEXT for a primary context: only release ends it. */
CUresult cumc_context_destroy(CUcontext ctx);
/* CUDA_ERROR_INVALID_CONTEXT unless @ctx is live. */
CUresult cumc_context_device(CUcontext ctx, CUdevice *dev);
CUresult cumc_primary_retain(CUdevice dev, CUcontext *ctx);
/* CUDA_ERROR_INVALID_CONTEXT when the primary context is not retained. */
CUresult cumc_primary_release(CUdevice dev);
void cumc_registry_forget(void);

/* The calling thread's stack of current contexts (context_stack.c). */
CUresult cumc_stack_push(CUcontext ctx);
CUcontext cumc_stack_pop(void);
CUcontext cumc_stack_top(void);
CUresult cumc_stack_replace_top(CUcontext ctx);
void cumc_stack_forget(void);

#endif /* _CUMC_LIB_CONTEXT_H */
