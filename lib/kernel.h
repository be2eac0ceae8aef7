/* SPDX-License-Identifier: MIT */
/*
 * Modules and kernels (module.c, link.c, launch.c, occupancy.c):
 * libcumc's side of device code, over libcumc-ptx's interface
 * (ptx/cumc_ptx.h), the only way lib/ reaches the PTX component.
 *
 * A CUmodule or CUlibrary is a pointer to a module of the registry, a
 * CUfunction or CUkernel one into it, never dereferenced before the
 * registry has found it live.  A module is counted: the registry holds
 * one reference until cuModuleUnload (cuLibraryUnload for a library's),
 * each queued launch one more, so a kernel still on a stream keeps its
 * code.
 */
#ifndef _CUMC_LIB_KERNEL_H
#define _CUMC_LIB_KERNEL_H

#include <stdbool.h>

#include "cumc_ptx.h"
#include "internal.h"

/* The architecture of the simulated GPUs: the PTX cumc picks is for it. */
#define CUMC_PTX_ARCH 90

struct libcumc_module;

struct libcumc_function {
	struct libcumc_module *mod;
	const struct cumc_ptx_function *ptx;
	/*
	 * cuFuncSetAttribute's settings.  A launch on another thread reads
	 * them while they may be set: accessed with __atomic builtins.
	 */
	int max_dynamic_shared;	/* the most dynamic shared memory a launch has */
	int carveout;		/* the preferred carveout, -1: the default */
	/* The legacy launch's settings (launch.c); NULL until first set. */
	struct libcumc_legacy_launch *legacy;
};

/* What cuFuncSetBlockShape, cuFuncSetSharedSize and cuParamSet* set. */
#define CUMC_LEGACY_PARAM_MAX 4096	/* the legacy parameter space */
struct libcumc_legacy_launch {
	unsigned int block[3];
	unsigned int shared;
	size_t param_size;
	unsigned char params[CUMC_LEGACY_PARAM_MAX];
};

/* The live function @f names, with a reference on its module. */
CUresult libcumc_function_get(CUfunction f, struct libcumc_function **out);
/* The same for the live kernel (a library's function) @k names. */
CUresult libcumc_kernel_get(CUkernel k, struct libcumc_function **out);
void libcumc_module_put(struct libcumc_module *mod);
/*
 * cuModuleLoadData for callers inside the library: the CUDA runtime's
 * fat binaries (runtime_tables.c) load as any image.
 */
CUresult libcumc_module_load_data(CUmodule *module, const void *image);
/* CUDA_ERROR_INVALID_HANDLE unless @library is a live library. */
CUresult libcumc_library_check(CUlibrary library);
/* The PTX ISA version of @fn's module, major * 10 + minor. */
unsigned int libcumc_function_ptx_version(const struct libcumc_function *fn);

struct libcumc_stream;

/*
 * Queue a launch of @fn on @stream, as cuLaunchKernel does (launch.c);
 * the caller's module reference of @fn goes to the launch.
 */
CUresult libcumc_launch_on(struct libcumc_stream *stream,
			   struct libcumc_function *fn,
			   const unsigned int dims[6], unsigned int shared,
			   bool cooperative, void **kernelParams, void **extra);

/*
 * A copy of the arguments of a launch of @fn, as cuGraphAddKernelNode
 * keeps them: *@buf (malloc'd, *@size bytes) holds them packed, *@args
 * (malloc'd, *@count long) points at each.
 */
CUresult libcumc_kernel_args_copy(const struct libcumc_function *fn,
				  void **kernelParams, void **extra,
				  unsigned char **buf, size_t *size,
				  void ***args, unsigned int *count);

/* The CUresult of a libcumc-ptx status. */
CUresult libcumc_ptx_result(enum cumc_ptx_status st);
/* Whether a counted option array has its arrays. */
CUresult libcumc_options_check(unsigned int num, const void *options,
			       void **values);
/*
 * The whole of the file @path in *@buf (malloc'd, NUL-terminated: images
 * have no size of their own), *@len its bytes.
 */
CUresult libcumc_read_file(const char *path, char **buf, size_t *len);

#endif /* _CUMC_LIB_KERNEL_H */
