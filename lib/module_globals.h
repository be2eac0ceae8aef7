/* SPDX-License-Identifier: MIT */
/*
 * The `.global` and `.const` variables of loaded modules and libraries
 * (module_globals.c).  Their storage is libcumc-ptx's, in the process,
 * and cuModuleGetGlobal hands out its address as a device pointer: the
 * entry points that take a device address (copies, sets, pointer
 * attributes, kernels of other modules) find these ranges here, from the
 * load of their module to its unload.
 */
#ifndef _CUMC_LIB_MODULE_GLOBALS_H
#define _CUMC_LIB_MODULE_GLOBALS_H

#include <stdbool.h>

#include "cumc_ptx.h"
#include "internal.h"

struct libcumc_global_info {
	CUdeviceptr base;	/* the variable */
	size_t size;
	CUcontext ctx;		/* current at the module's load; NULL: a library's */
	CUdevice dev;		/* that context's device */
	unsigned long long buffer_id;
};

/*
 * Records every variable of @ptx, of a module loaded in @ctx (on @dev),
 * or of a library when @ctx is NULL.  CUDA_ERROR_OUT_OF_MEMORY, and
 * nothing recorded, when the registry cannot grow.
 */
CUresult libcumc_globals_add(const struct cumc_ptx_module *ptx, CUcontext ctx,
			     CUdevice dev);

/* Forgets @ptx's variables: its module is being unloaded. */
void libcumc_globals_remove(const struct cumc_ptx_module *ptx);

/*
 * True when [addr, addr + len) lies inside one variable of a loaded
 * module (len 0: @addr itself does).  Thread-safe; the answer holds while
 * the program does not unload the module concurrently, which would be its
 * own race with the real driver too.
 */
bool libcumc_global_range(CUdeviceptr addr, size_t len);

/* True, and *@info, when @addr lies in a variable of a loaded module. */
bool libcumc_global_lookup(CUdeviceptr addr, struct libcumc_global_info *info);

#endif /* _CUMC_LIB_MODULE_GLOBALS_H */
