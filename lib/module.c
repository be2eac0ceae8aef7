// SPDX-License-Identifier: MIT
/*
 * Modules: device code loaded through libcumc-ptx (ptx/cumc_ptx.h), which
 * parses the PTX of an image (PTX text, a fatbin's PTX for compute_90 or
 * lower, a host object's fatbin wrapper) and runs its kernels (launch.c).
 *
 * - an image with machine code (SASS) only answers
 *   CUDA_ERROR_NO_BINARY_FOR_GPU, the real driver's "no kernel image is
 *   available for execution on the device", and CUMC_LOG says how to
 *   build with PTX; anything else that is not device code is
 *   CUDA_ERROR_INVALID_IMAGE and a file that cannot be opened
 *   CUDA_ERROR_FILE_NOT_FOUND, as driver 580 answers (measured);
 * - PTX that does not parse is CUDA_ERROR_INVALID_PTX, PTX cumc does not
 *   execute yet CUDA_ERROR_NOT_SUPPORTED; CUMC_LOG and a JIT error log
 *   buffer name the instruction and line;
 * - libraries (cuLibrary*) do not load device code yet: a load of device
 *   code answers CUDA_ERROR_NO_BINARY_FOR_GPU, and their handles, which
 *   cannot exist, CUDA_ERROR_INVALID_HANDLE;
 * - a handle not of a live module or function is CUDA_ERROR_INVALID_HANDLE,
 *   before the other arguments, as driver 580 answers for a NULL handle.
 */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cumc_ptx.h"
#include "internal.h"
#include "kernel.h"
#include "log.h"
#include "procaddr.h"

/* The architecture of the simulated GPUs: the PTX cumc picks is for it. */
#define CUMC_PTX_ARCH 90

struct libcumc_module {
	struct libcumc_module *next;
	struct cumc_ptx_module *ptx;
	struct libcumc_function *funcs;
	unsigned int nfuncs;
	unsigned int refs;
};

static pthread_mutex_t libcumc_modules_lock = PTHREAD_MUTEX_INITIALIZER;
static struct libcumc_module *libcumc_modules;

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

/* The whole of a module file: images have no size of their own. */
static CUresult libcumc_read_file(const char *path, char **buf, size_t *len)
{
	size_t cap = 64 << 10;
	ssize_t n;
	char *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		libcumc_log_errno("open", path, errno);
		return CUDA_ERROR_FILE_NOT_FOUND;
	}
	*len = 0;
	*buf = NULL;
	do {
		if (*len + 1 >= cap || !*buf) {
			p = realloc(*buf, cap *= 2);
			if (!p) {
				free(*buf);
				close(fd);
				return CUDA_ERROR_OUT_OF_MEMORY;
			}
			*buf = p;
		}
		n = read(fd, *buf + *len, cap - *len - 1);
		if (n > 0)
			*len += n;
	} while (n > 0 || (n < 0 && errno == EINTR));
	close(fd);
	if (n < 0) {
		free(*buf);
		return CUDA_ERROR_FILE_NOT_FOUND;
	}
	(*buf)[*len] = '\0';
	return CUDA_SUCCESS;
}

static CUresult libcumc_ptx_result(enum cumc_ptx_status st)
{
	switch (st) {
	case CUMC_PTX_OK: return CUDA_SUCCESS;
	case CUMC_PTX_ENOMEM: return CUDA_ERROR_OUT_OF_MEMORY;
	case CUMC_PTX_ENOPTX: return CUDA_ERROR_NO_BINARY_FOR_GPU;
	case CUMC_PTX_ESYNTAX: return CUDA_ERROR_INVALID_PTX;
	case CUMC_PTX_EUNSUPPORTED: return CUDA_ERROR_NOT_SUPPORTED;
	default: return CUDA_ERROR_INVALID_IMAGE;
	}
}

/* The JIT's error log, where cuModuleLoadDataEx's options ask for it. */
static void libcumc_jit_log(const char *log, unsigned int num,
			    const CUjit_option *options, void **values)
{
	char *buf = NULL;
	size_t size = 0;
	unsigned int i;

	for (i = 0; i < num; i++) {
		if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
			buf = values[i];
		else if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
			size = (uintptr_t)values[i];
	}
	if (buf && size)
		snprintf(buf, size, "%s", log);
}

static CUresult libcumc_module_new(struct cumc_ptx_module *ptx,
				   CUmodule *out)
{
	struct libcumc_module *mod = calloc(1, sizeof(*mod));
	unsigned int i, n = cumc_ptx_function_count(ptx);

	if (mod)
		mod->funcs = calloc(n ? n : 1, sizeof(*mod->funcs));
	if (!mod || !mod->funcs) {
		free(mod);
		cumc_ptx_unload(ptx);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	mod->ptx = ptx;
	mod->nfuncs = n;
	mod->refs = 1;
	for (i = 0; i < n; i++) {
		mod->funcs[i].mod = mod;
		mod->funcs[i].ptx = cumc_ptx_function_at(ptx, i);
	}
	pthread_mutex_lock(&libcumc_modules_lock);
	mod->next = libcumc_modules;
	libcumc_modules = mod;
	pthread_mutex_unlock(&libcumc_modules_lock);
	*out = (CUmodule)mod;
	return CUDA_SUCCESS;
}

/* Loads @image (@len 0: its own size); @log receives what failed. */
static CUresult libcumc_module_load(CUmodule *out, const void *image,
				    size_t len, char *log, size_t log_size)
{
	struct cumc_ptx_module *ptx;
	enum cumc_ptx_status st;

	st = cumc_ptx_load(image, len, CUMC_PTX_ARCH, &ptx, log, log_size);
	if (st != CUMC_PTX_OK) {
		libcumc_log_note(log);
		return libcumc_ptx_result(st);
	}
	return libcumc_module_new(ptx, out);
}

CUresult CUDAAPI cuModuleLoad(CUmodule *module, const char *fname)
{
	CUresult res = libcumc_module_begin();
	char log[256];
	size_t len;
	char *buf;

	if (res != CUDA_SUCCESS)
		return res;
	if (!module || !fname)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_read_file(fname, &buf, &len);
	if (res != CUDA_SUCCESS)
		return res;
	res = len ? libcumc_module_load(module, buf, len, log, sizeof(log)) :
		    CUDA_ERROR_INVALID_IMAGE;
	free(buf);
	return res;
}

CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image)
{
	CUresult res = libcumc_module_begin();
	char log[256];

	if (res != CUDA_SUCCESS)
		return res;
	if (!module || !image)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_module_load(module, image, 0, log, sizeof(log));
}

CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *image,
				    unsigned int numOptions,
				    CUjit_option *options,
				    void **optionValues)
{
	CUresult res = libcumc_module_begin();
	char log[256];

	if (res == CUDA_SUCCESS)
		res = libcumc_options_check(numOptions, options, optionValues);
	if (res != CUDA_SUCCESS)
		return res;
	if (!module || !image)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_module_load(module, image, 0, log, sizeof(log));
	if (res != CUDA_SUCCESS)
		libcumc_jit_log(log, numOptions, options, optionValues);
	return res;
}

/* A fat binary is loaded as any image: the same ABI and answers. */
CUresult CUDAAPI cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin)
	__attribute__((alias("cuModuleLoadData")));

/* Every handle of the library entry points names nothing that can exist. */
static CUresult libcumc_no_such_handle(void)
{
	const struct libcumc_driver *drv;
	CUresult res = libcumc_driver(&drv);

	return res != CUDA_SUCCESS ? res : CUDA_ERROR_INVALID_HANDLE;
}

/* The live module @hmod names; call with the registry locked. */
static struct libcumc_module *libcumc_module_find(CUmodule hmod)
{
	struct libcumc_module *mod;

	for (mod = libcumc_modules; mod; mod = mod->next)
		if ((CUmodule)mod == hmod)
			return mod;
	return NULL;
}

void libcumc_module_put(struct libcumc_module *mod)
{
	bool last;

	pthread_mutex_lock(&libcumc_modules_lock);
	last = --mod->refs == 0;
	pthread_mutex_unlock(&libcumc_modules_lock);
	if (!last)
		return;
	cumc_ptx_unload(mod->ptx);
	free(mod->funcs);
	free(mod);
}

CUresult libcumc_function_get(CUfunction f, struct libcumc_function **out)
{
	struct libcumc_module *mod;
	CUresult res = CUDA_ERROR_INVALID_HANDLE;

	pthread_mutex_lock(&libcumc_modules_lock);
	for (mod = libcumc_modules; mod; mod = mod->next) {
		uintptr_t p = (uintptr_t)f, lo = (uintptr_t)mod->funcs;

		if (p >= lo && p < lo + mod->nfuncs * sizeof(*mod->funcs) &&
		    (p - lo) % sizeof(*mod->funcs) == 0) {
			mod->refs++;
			*out = (struct libcumc_function *)f;
			res = CUDA_SUCCESS;
			break;
		}
	}
	pthread_mutex_unlock(&libcumc_modules_lock);
	return res;
}

unsigned int libcumc_function_ptx_version(const struct libcumc_function *fn)
{
	return cumc_ptx_version(fn->mod->ptx);
}

CUresult CUDAAPI cuModuleUnload(CUmodule hmod)
{
	struct libcumc_module *mod, **pp;
	CUresult res = libcumc_no_such_handle();

	if (res != CUDA_ERROR_INVALID_HANDLE)
		return res;
	pthread_mutex_lock(&libcumc_modules_lock);
	for (pp = &libcumc_modules; *pp && (CUmodule)*pp != hmod;
	     pp = &(*pp)->next)
		;
	mod = *pp;
	if (mod)
		*pp = mod->next;
	pthread_mutex_unlock(&libcumc_modules_lock);
	if (!mod)
		return CUDA_ERROR_INVALID_HANDLE;
	libcumc_module_put(mod);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod,
				     const char *name)
{
	struct libcumc_module *mod;
	CUresult res = libcumc_no_such_handle();
	unsigned int i;

	if (res != CUDA_ERROR_INVALID_HANDLE)
		return res;
	pthread_mutex_lock(&libcumc_modules_lock);
	mod = libcumc_module_find(hmod);
	if (mod && (!hfunc || !name))
		res = CUDA_ERROR_INVALID_VALUE;
	else if (mod)
		res = CUDA_ERROR_NOT_FOUND;
	for (i = 0; mod && res == CUDA_ERROR_NOT_FOUND && i < mod->nfuncs; i++)
		if (!strcmp(cumc_ptx_function_name(mod->funcs[i].ptx), name)) {
			*hfunc = (CUfunction)&mod->funcs[i];
			res = CUDA_SUCCESS;
		}
	pthread_mutex_unlock(&libcumc_modules_lock);
	return res;
}

CUresult CUDAAPI cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes,
				      CUmodule hmod, const char *name)
{
	struct libcumc_module *mod;
	CUresult res = libcumc_no_such_handle();
	void *addr;
	size_t size;

	if (res != CUDA_ERROR_INVALID_HANDLE)
		return res;
	pthread_mutex_lock(&libcumc_modules_lock);
	mod = libcumc_module_find(hmod);
	if (mod && !name)
		res = CUDA_ERROR_INVALID_VALUE;
	else if (mod && cumc_ptx_global_find(mod->ptx, name, &addr, &size))
		res = CUDA_ERROR_NOT_FOUND;
	else if (mod) {
		if (dptr)
			*dptr = (CUdeviceptr)(uintptr_t)addr;
		if (bytes)
			*bytes = size;
		res = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&libcumc_modules_lock);
	return res;
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
