// SPDX-License-Identifier: MIT
/*
 * What a function or kernel says of itself: cuFuncGetName, cuKernelGetName,
 * cuFuncGetParamInfo, cuKernelGetParamInfo, cuFuncGetModule,
 * cuKernelGetLibrary, cuFuncIsLoaded, cuFuncLoad, cuKernelSetCacheConfig,
 * cuModuleGetLoadingMode, cuLibraryGetManaged and
 * cuLibraryGetUnifiedFunction, over the registry of modules (kernel.h).
 *
 * cumc translates a module's every kernel when it is loaded, so a
 * function is always loaded and the loading mode is eager.
 */
#include "entry.h"
#include "kernel.h"

/* The live function @h names (a kernel when @kernel), with a reference. */
static CUresult libcumc_fn_get(const void *h, bool kernel,
			       struct libcumc_function **fn)
{
	if (kernel)
		return libcumc_kernel_get((CUkernel)h, fn);
	return libcumc_function_get((CUfunction)h, fn);
}

/* The name stays valid while the module it belongs to is loaded. */
static CUresult libcumc_fn_name(const char **name, const void *h, bool kernel)
{
	struct libcumc_function *fn;
	CUresult res;

	if (!name)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_fn_get(h, kernel, &fn);
	if (res != CUDA_SUCCESS)
		return res;
	*name = cumc_ptx_function_name(fn->ptx);
	libcumc_module_put(fn->mod);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncGetName(const char **name, CUfunction hfunc)
{
	return libcumc_fn_name(name, hfunc, false);
}

CUresult CUDAAPI cuKernelGetName(const char **name, CUkernel hfunc)
{
	return libcumc_fn_name(name, hfunc, true);
}

/* Where parameter @index lies in the launch's parameter buffer. */
static CUresult libcumc_fn_param(const void *h, bool kernel, size_t index,
				 size_t *offset, size_t *size)
{
	struct libcumc_function *fn;
	CUresult res;

	if (!offset)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_fn_get(h, kernel, &fn);
	if (res != CUDA_SUCCESS)
		return res;
	if (index >= cumc_ptx_param_count(fn->ptx)) {
		res = CUDA_ERROR_INVALID_VALUE;
	} else {
		size_t param_offset, param_size;

		cumc_ptx_param_layout(fn->ptx, index, &param_offset,
				      &param_size);
		*offset = param_offset;
		/* The size is optional, as documented. */
		if (size)
			*size = param_size;
	}
	libcumc_module_put(fn->mod);
	return res;
}

CUresult CUDAAPI cuFuncGetParamInfo(CUfunction func, size_t paramIndex,
				    size_t *paramOffset, size_t *paramSize)
{
	return libcumc_fn_param(func, false, paramIndex, paramOffset,
				paramSize);
}

CUresult CUDAAPI cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex,
				      size_t *paramOffset, size_t *paramSize)
{
	return libcumc_fn_param(kernel, true, paramIndex, paramOffset,
				paramSize);
}

/* A library's module is a module too, as cuLibraryGetModule hands it out. */
CUresult CUDAAPI cuFuncGetModule(CUmodule *hmod, CUfunction hfunc)
{
	struct libcumc_function *fn;
	CUresult res;

	if (!hmod)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_function_get(hfunc, &fn);
	if (res != CUDA_SUCCESS)
		return res;
	*hmod = (CUmodule)fn->mod;
	libcumc_module_put(fn->mod);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuKernelGetLibrary(CUlibrary *pLib, CUkernel kernel)
{
	struct libcumc_function *fn;
	CUresult res;

	if (!pLib)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_kernel_get(kernel, &fn);
	if (res != CUDA_SUCCESS)
		return res;
	*pLib = (CUlibrary)fn->mod;
	libcumc_module_put(fn->mod);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncIsLoaded(CUfunctionLoadingState *state,
				CUfunction function)
{
	struct libcumc_function *fn;
	CUresult res;

	if (!state)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_function_get(function, &fn);
	if (res != CUDA_SUCCESS)
		return res;
	*state = CU_FUNCTION_LOADING_STATE_LOADED;
	libcumc_module_put(fn->mod);
	return CUDA_SUCCESS;
}

/* Loaded with its module already: nothing is left to do. */
CUresult CUDAAPI cuFuncLoad(CUfunction function)
{
	struct libcumc_function *fn;
	CUresult res = libcumc_function_get(function, &fn);

	if (res == CUDA_SUCCESS)
		libcumc_module_put(fn->mod);
	return res;
}

/* As cuFuncSetCacheConfig: checked, kept nowhere (no cache to prefer). */
CUresult libcumc_impl_cuKernelSetCacheConfig(const struct libcumc_driver *drv,
					     CUkernel kernel,
					     CUfunc_cache config, CUdevice dev)
{
	struct libcumc_function *fn;
	CUresult res = libcumc_kernel_get(kernel, &fn);

	if (res != CUDA_SUCCESS)
		return res;
	libcumc_module_put(fn->mod);
	res = libcumc_check_device(drv, dev);
	if (res != CUDA_SUCCESS)
		return res;
	return (unsigned int)config > CU_FUNC_CACHE_PREFER_EQUAL ?
	       CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleGetLoadingMode(CUmoduleLoadingMode *mode)
{
	if (!mode)
		return CUDA_ERROR_INVALID_VALUE;
	*mode = CU_MODULE_EAGER_LOADING;
	return CUDA_SUCCESS;
}

/*
 * A library's names beyond its kernels and globals: cumc loads PTX, whose
 * managed variables are globals like the others (cuLibraryGetGlobal), and
 * which has no unified functions.  No name is found.
 */
static CUresult libcumc_library_name(CUlibrary library, const char *name)
{
	CUresult res = libcumc_library_check(library);

	if (res != CUDA_SUCCESS)
		return res;
	return name ? CUDA_ERROR_NOT_FOUND : CUDA_ERROR_INVALID_VALUE;
}

/* Either output may be NULL, as for cuLibraryGetGlobal. */
CUresult CUDAAPI cuLibraryGetManaged(CUdeviceptr *dptr, size_t *bytes,
				     CUlibrary library, const char *name)
{
	(void)dptr;
	(void)bytes;
	return libcumc_library_name(library, name);
}

CUresult CUDAAPI cuLibraryGetUnifiedFunction(void **fptr, CUlibrary library,
					     const char *symbol)
{
	CUresult res = libcumc_library_name(library, symbol);

	return res == CUDA_ERROR_NOT_FOUND && !fptr ?
	       CUDA_ERROR_INVALID_VALUE : res;
}
