// SPDX-License-Identifier: MIT
/*
 * Device code does not run in cumc: the simulated GPUs have memory, not
 * SMs.  The entry points that load modules and libraries and launch
 * kernels exist so that programs link and fail cleanly:
 *
 * - a load of device code (an ELF cubin, a fatbin, PTX text) answers
 *   CUDA_ERROR_NO_BINARY_FOR_GPU, the real driver's "no kernel image is
 *   available for execution on the device"; anything else is
 *   CUDA_ERROR_INVALID_IMAGE and a file that cannot be opened
 *   CUDA_ERROR_FILE_NOT_FOUND, as driver 580 answers (measured);
 * - since no module, library, function or kernel can exist, any handle
 *   given to the other entry points is CUDA_ERROR_INVALID_HANDLE, before
 *   the other arguments, as driver 580 answers for a NULL handle;
 * - NULL images, file names and outputs of the loads, the launch config
 *   and cuFuncGetAttribute's output are CUDA_ERROR_INVALID_VALUE.
 *
 * Nothing here dereferences a handle or an option array; of an image,
 * the first four bytes are read (and PTX, a NUL-terminated string by the
 * documentation, is searched for its .version directive).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "log.h"
#include "procaddr.h"

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

/* Magic numbers: ELF, a fatbin, the fatbin wrapper of host objects. */
#define CUMC_ELF_MAGIC		0x464c457fu	/* "\x7fELF" */
#define CUMC_FATBIN_MAGIC	0xba55ed50u
#define CUMC_FATBIN_WRAPPER	0x466243b1u

/* Device code cumc cannot run, or no device code at all. */
static CUresult libcumc_image_result(const unsigned char *image, size_t len)
{
	uint32_t magic = 0;

	if (len >= sizeof(magic))
		memcpy(&magic, image, sizeof(magic));
	if (magic == CUMC_ELF_MAGIC || magic == CUMC_FATBIN_MAGIC ||
	    magic == CUMC_FATBIN_WRAPPER)
		return CUDA_ERROR_NO_BINARY_FOR_GPU;
	if (memmem(image, len, ".version", 8))
		return CUDA_ERROR_NO_BINARY_FOR_GPU;
	return CUDA_ERROR_INVALID_IMAGE;
}

/* An image in memory: binary magic first, else a PTX string. */
static CUresult libcumc_load_data(void *out, const void *image)
{
	uint32_t magic = 0;

	if (!out || !image)
		return CUDA_ERROR_INVALID_VALUE;
	/* No magic has a NUL byte: a shorter string is read no further. */
	if (strnlen(image, sizeof(magic)) == sizeof(magic))
		memcpy(&magic, image, sizeof(magic));
	if (magic == CUMC_ELF_MAGIC || magic == CUMC_FATBIN_MAGIC ||
	    magic == CUMC_FATBIN_WRAPPER)
		return CUDA_ERROR_NO_BINARY_FOR_GPU;
	return libcumc_image_result(image, strlen(image));
}

/* The first 64 KiB of a file tell what it is. */
static CUresult libcumc_load_file(void *out, const char *path)
{
	static const size_t peek = 64 << 10;
	unsigned char *buf;
	ssize_t len;
	CUresult res;
	int fd;

	if (!out || !path)
		return CUDA_ERROR_INVALID_VALUE;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		libcumc_log_errno("open", path, errno);
		return CUDA_ERROR_FILE_NOT_FOUND;
	}
	buf = malloc(peek);
	if (!buf) {
		close(fd);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	len = read(fd, buf, peek);
	close(fd);
	res = len < 0 ? CUDA_ERROR_FILE_NOT_FOUND :
			libcumc_image_result(buf, len);
	free(buf);
	return res;
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

CUresult CUDAAPI cuModuleUnload(CUmodule hmod)
{
	(void)hmod;
	return libcumc_no_such_handle();
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod,
				     const char *name)
{
	(void)hfunc; (void)hmod; (void)name;
	return libcumc_no_such_handle();
}

CUresult CUDAAPI cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes,
				      CUmodule hmod, const char *name)
{
	(void)dptr; (void)bytes; (void)hmod; (void)name;
	return libcumc_no_such_handle();
}

/*
 * The checks both cuLibraryLoad* make before loading anything.  Libraries
 * are context-independent: no current context needed.
 */
static CUresult libcumc_library_options(unsigned int numJitOptions,
					CUjit_option *jitOptions,
					void **jitOptionsValues,
					unsigned int numLibraryOptions,
					CUlibraryOption *libraryOptions,
					void **libraryOptionValues)
{
	const struct libcumc_driver *drv;
	CUresult res = libcumc_driver(&drv);

	if (res == CUDA_SUCCESS)
		res = libcumc_options_check(numJitOptions, jitOptions,
					    jitOptionsValues);
	if (res == CUDA_SUCCESS)
		res = libcumc_options_check(numLibraryOptions, libraryOptions,
					    libraryOptionValues);
	return res;
}

CUresult CUDAAPI cuLibraryLoadData(CUlibrary *library, const void *code,
				   CUjit_option *jitOptions,
				   void **jitOptionsValues,
				   unsigned int numJitOptions,
				   CUlibraryOption *libraryOptions,
				   void **libraryOptionValues,
				   unsigned int numLibraryOptions)
{
	CUresult res = libcumc_library_options(numJitOptions, jitOptions,
					       jitOptionsValues,
					       numLibraryOptions,
					       libraryOptions,
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
	CUresult res = libcumc_library_options(numJitOptions, jitOptions,
					       jitOptionsValues,
					       numLibraryOptions,
					       libraryOptions,
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
	(void)pKernel; (void)library; (void)name;
	return libcumc_no_such_handle();
}

CUresult CUDAAPI cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes,
				    CUlibrary library, const char *name)
{
	(void)dptr; (void)bytes; (void)library; (void)name;
	return libcumc_no_such_handle();
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

CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX,
				     unsigned int gridDimY, unsigned int gridDimZ,
				     unsigned int blockDimX, unsigned int blockDimY,
				     unsigned int blockDimZ,
				     unsigned int sharedMemBytes,
				     CUstream hStream, void **kernelParams,
				     void **extra)
{
	return cuLaunchKernel(f, gridDimX, gridDimY, gridDimZ, blockDimX,
			      blockDimY, blockDimZ, sharedMemBytes, hStream,
			      kernelParams, extra);
}

CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig *config,
				       CUfunction f, void **kernelParams,
				       void **extra)
{
	return cuLaunchKernelEx(config, f, kernelParams, extra);
}

CUresult CUDAAPI cuLaunchCooperativeKernel_ptsz(CUfunction f,
				unsigned int gridDimX, unsigned int gridDimY,
				unsigned int gridDimZ, unsigned int blockDimX,
				unsigned int blockDimY, unsigned int blockDimZ,
				unsigned int sharedMemBytes, CUstream hStream,
				void **kernelParams)
{
	return cuLaunchCooperativeKernel(f, gridDimX, gridDimY, gridDimZ,
					 blockDimX, blockDimY, blockDimZ,
					 sharedMemBytes, hStream, kernelParams);
}

CUresult CUDAAPI cuFuncGetAttribute(int *pi, CUfunction_attribute attrib,
				    CUfunction hfunc)
{
	const struct libcumc_driver *drv;
	CUresult res = libcumc_driver(&drv);

	(void)hfunc;
	if (res != CUDA_SUCCESS)
		return res;
	(void)attrib;
	/* The handle before the attribute, as driver 580 answers. */
	return pi ? CUDA_ERROR_INVALID_HANDLE : CUDA_ERROR_INVALID_VALUE;
}
