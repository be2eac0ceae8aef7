/* SPDX-License-Identifier: MIT */
/*
 * Context-local storage, the CUDA runtime's table c693336e
 * (runtime_cls.c): one value for each key and context.
 */
#ifndef _CUMC_LIB_RUNTIME_CLS_H
#define _CUMC_LIB_RUNTIME_CLS_H

#include <cuda.h>

/* What the runtime passes to be called as the context ends. */
typedef void (*libcumc_cls_dtor)(CUcontext ctx, void *key, void *value);

/*
 * Slot 0: keep @value under @key in @ctx (NULL: the current context),
 * replacing what was there.
 */
CUresult libcumc_cls_put(CUcontext ctx, void *key, void *value,
			 libcumc_cls_dtor dtor);
/* Slot 1: forget @key's value in @ctx. */
CUresult libcumc_cls_delete(CUcontext ctx, void *key);
/* Slot 2: @key's value in @ctx; CUDA_ERROR_INVALID_HANDLE if none. */
CUresult libcumc_cls_get(void **value, CUcontext ctx, void *key);

#endif /* _CUMC_LIB_RUNTIME_CLS_H */
