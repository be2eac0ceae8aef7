// SPDX-License-Identifier: MIT
/*
 * Device code does not run in cumc: the simulated GPUs have memory, not
 * SMs.  The entry points that load modules and libraries and launch
 * kernels exist so that programs link and fail cleanly:
 *
 * - a load of anything answers CUDA_ERROR_NO_BINARY_FOR_GPU, the real
 *   driver's "no kernel image is available for execution on the device"
 *   (a file that cannot be opened answers CUDA_ERROR_FILE_NOT_FOUND);
 * - since no module, library, function or kernel can exist, any handle
 *   given to the other entry points is CUDA_ERROR_INVALID_HANDLE;
 * - NULL outputs and names are CUDA_ERROR_INVALID_VALUE first, as
 *   everywhere.
 *
 * Nothing here dereferences a handle, an image or an option array.
 */
#include <fcntl.h>
#include <unistd.h>

#include "internal.h"

/* Module loads, like the real driver's, need a current context. */
static CUresult libcumc_module_begin(void)
{
	const struct libcumc_driver *drv;
	CUdevice dev;
	CUresult res = libcumc_driver(&drv);

	if (res == CUDA_SUCCESS)
		res = libcumc_current_device(&dev);
	return res;
}

static CUresult libcumc_load_data(void *out, const void *image)
{
	if (!out || !image)
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_ERROR_NO_BINARY_FOR_GPU;
}

static CUresult libcumc_load_file(void *out, const char *path)
{
	int fd;

	if (!out || !path)
		return CUDA_ERROR_INVALID_VALUE;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return CUDA_ERROR_FILE_NOT_FOUND;
	close(fd);
	return CUDA_ERROR_NO_BINARY_FOR_GPU;
}

/* Options are counted arrays: a count without its array is a bad value. */
static CUresult libcumc_options_check(unsigned int num, const void *options,
				      void **values)
{
	return num && (!options || !values) ? CUDA_ERROR_INVALID_VALUE :
					      CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleLoad(CUmodule *module, const char *fname)
{
	CUresult res = libcumc_module_begin();

	return res != CUDA_SUCCESS ? res : libcumc_load_file(module, fname);
}

CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image)
{
	CUresult res = libcumc_module_begin();

	return res != CUDA_SUCCESS ? res : libcumc_load_data(module, image);
}

CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *image,
				    unsigned int numOptions,
				    CUjit_option *options,
				    void **optionValues)
{
	CUresult res = libcumc_module_begin();

	if (res == CUDA_SUCCESS)
		res = libcumc_options_check(numOptions, options, optionValues);
	return res != CUDA_SUCCESS ? res : libcumc_load_data(module, image);
}

CUresult CUDAAPI cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin)
{
	CUresult res = libcumc_module_begin();

	return res != CUDA_SUCCESS ? res : libcumc_load_data(module, fatCubin);
}

/* Every handle of the entry points below names nothing that can exist. */
static CUresult libcumc_no_such_handle(void)
{
	const struct libcumc_driver *drv;
	CUresult res = libcumc_driver(&drv);

	return res != CUDA_SUCCESS ? res : CUDA_ERROR_INVALID_HANDLE;
}

/* The outputs and name, then the handle. */
static CUresult libcumc_lookup(const void *out, const char *name)
{
	const struct libcumc_driver *drv;
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	if (!out || !name)
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuModuleUnload(CUmodule hmod)
{
	(void)hmod;
	return libcumc_no_such_handle();
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod,
				     const char *name)
{
	(void)hmod;
	return libcumc_lookup(hfunc, name);
}

/* Either output may be NULL, as documented; the name may not. */
CUresult CUDAAPI cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes,
				      CUmodule hmod, const char *name)
{
	(void)dptr;
	(void)bytes;
	(void)hmod;
	return libcumc_lookup(name, name);
}

/* Libraries are context-independent: no current context needed. */
CUresult CUDAAPI cuLibraryLoadData(CUlibrary *library, const void *code,
				   CUjit_option *jitOptions,
				   void **jitOptionsValues,
				   unsigned int numJitOptions,
				   CUlibraryOption *libraryOptions,
				   void **libraryOptionValues,
				   unsigned int numLibraryOptions)
{
	const struct libcumc_driver *drv;
	CUresult res = libcumc_driver(&drv);

	if (res == CUDA_SUCCESS)
		res = libcumc_options_check(numJitOptions, jitOptions,
					    jitOptionsValues);
	if (res == CUDA_SUCCESS)
		res = libcumc_options_check(numLibraryOptions, libraryOptions,
					    libraryOptionValues);
	return res != CUDA_SUCCESS ? res : libcumc_load_data(library, code);
}

CUresult CUDAAPI cuLibraryLoadFromFile(CUlibrary *library,
				       const char *fileName,
				       CUjit_option *jitOptions,
				       void **jitOptionsValues,
				       unsigned int numJitOptions,
				       CUlibraryOption *libraryOptions,
				       void **libraryOptionValues,
				       unsigned int numLibraryOptions)
{
	const struct libcumc_driver *drv;
	CUresult res = libcumc_driver(&drv);

	if (res == CUDA_SUCCESS)
		res = libcumc_options_check(numJitOptions, jitOptions,
					    jitOptionsValues);
	if (res == CUDA_SUCCESS)
		res = libcumc_options_check(numLibraryOptions, libraryOptions,
					    libraryOptionValues);
	return res != CUDA_SUCCESS ? res : libcumc_load_file(library, fileName);
}

CUresult CUDAAPI cuLibraryUnload(CUlibrary library)
{
	(void)library;
	return libcumc_no_such_handle();
}

CUresult CUDAAPI cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library,
				    const char *name)
{
	(void)library;
	return libcumc_lookup(pKernel, name);
}

CUresult CUDAAPI cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes,
				    CUlibrary library, const char *name)
{
	(void)dptr;
	(void)bytes;
	(void)library;
	return libcumc_lookup(name, name);
}

/* No function can exist, so no launch gets past its handle. */
CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX,
				unsigned int gridDimY, unsigned int gridDimZ,
				unsigned int blockDimX, unsigned int blockDimY,
				unsigned int blockDimZ,
				unsigned int sharedMemBytes, CUstream hStream,
				void **kernelParams, void **extra)
{
	(void)f; (void)gridDimX; (void)gridDimY; (void)gridDimZ;
	(void)blockDimX; (void)blockDimY; (void)blockDimZ;
	(void)sharedMemBytes; (void)hStream; (void)kernelParams; (void)extra;
	return libcumc_no_such_handle();
}

CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
				  void **kernelParams, void **extra)
{
	const struct libcumc_driver *drv;
	CUresult res = libcumc_driver(&drv);

	(void)f; (void)kernelParams; (void)extra;
	if (res != CUDA_SUCCESS)
		return res;
	if (!config)
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuLaunchCooperativeKernel(CUfunction f,
				unsigned int gridDimX, unsigned int gridDimY,
				unsigned int gridDimZ, unsigned int blockDimX,
				unsigned int blockDimY, unsigned int blockDimZ,
				unsigned int sharedMemBytes, CUstream hStream,
				void **kernelParams)
{
	(void)f; (void)gridDimX; (void)gridDimY; (void)gridDimZ;
	(void)blockDimX; (void)blockDimY; (void)blockDimZ;
	(void)sharedMemBytes; (void)hStream; (void)kernelParams;
	return libcumc_no_such_handle();
}

CUresult CUDAAPI cuFuncGetAttribute(int *pi, CUfunction_attribute attrib,
				    CUfunction hfunc)
{
	(void)hfunc;
	if (attrib < 0 || attrib >= CU_FUNC_ATTRIBUTE_MAX) {
		const struct libcumc_driver *drv;
		CUresult res = libcumc_driver(&drv);

		return res != CUDA_SUCCESS ? res : CUDA_ERROR_INVALID_VALUE;
	}
	return libcumc_lookup(pi, "");
}
