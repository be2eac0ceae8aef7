// SPDX-License-Identifier: MIT
/*
 * Modules: device code loaded through libcumc-ptx (ptx/cumc_ptx.h), which
 * parses the PTX of an image (PTX text, a fatbin's PTX for compute_90 or
 * lower, a host object's fatbin wrapper) and runs its kernels (launch.c).
 *
 * - an image with machine code (SASS) only, unless it lies in a loaded
 *   object whose relocatable device code has PTX (ptx/relocatable.c),
 *   answers CUDA_ERROR_NO_BINARY_FOR_GPU, the real driver's "no kernel image is
 *   available for execution on the device", and CUMC_LOG says how to
 *   build with PTX; anything else that is not device code is
 *   CUDA_ERROR_INVALID_IMAGE and a file that cannot be opened
 *   CUDA_ERROR_FILE_NOT_FOUND, as driver 580 answers (measured);
 * - PTX that does not parse is CUDA_ERROR_INVALID_PTX, PTX cumc does not
 *   execute yet CUDA_ERROR_NOT_SUPPORTED; CUMC_LOG and a JIT error log
 *   buffer name the instruction and line;
 * - a library (cuLibrary*) is a module loaded at once, for every context
 *   (cumc's modules belong to none): its CUkernel handles are its
 *   module's CUfunction handles, and cuLibraryGetModule hands out the
 *   module itself;
 * - a handle not of a live module or function is CUDA_ERROR_INVALID_HANDLE,
 *   before the other arguments, as driver 580 answers for a NULL handle;
 * - a module's `.global` and `.const` variables are device memory for the
 *   rest of the library from its load to its unload (module_globals.h).
 */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "context.h"
#include "cumc_ptx.h"
#include "internal.h"
#include "kernel.h"
#include "log.h"
#include "module_globals.h"
#include "procaddr.h"

struct libcumc_module {
	struct libcumc_module *next;
	struct cumc_ptx_module *ptx;
	struct libcumc_function *funcs;
	unsigned int nfuncs;
	unsigned int refs;
	/* Loaded by cuLibraryLoad*: unloaded by cuLibraryUnload only. */
	bool library;
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

/* Options are counted arrays: a count without its array is a bad value. */
CUresult libcumc_options_check(unsigned int num, const void *options,
				      void **values)
{
	return num && (!options || !values) ? CUDA_ERROR_INVALID_VALUE :
					      CUDA_SUCCESS;
}

CUresult libcumc_read_file(const char *path, char **buf, size_t *len)
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

CUresult libcumc_ptx_result(enum cumc_ptx_status st)
{
	switch (st) {
	case CUMC_PTX_OK: return CUDA_SUCCESS;
	case CUMC_PTX_ENOMEM: return CUDA_ERROR_OUT_OF_MEMORY;
	case CUMC_PTX_ENOPTX: return CUDA_ERROR_NO_BINARY_FOR_GPU;
	case CUMC_PTX_ESYNTAX: return CUDA_ERROR_INVALID_PTX;
	case CUMC_PTX_EUNSUPPORTED: return CUDA_ERROR_NOT_SUPPORTED;
	/* vprintf, malloc, the device runtime: cumc has none of them. */
	case CUMC_PTX_EUNDEFINED: return CUDA_ERROR_NOT_SUPPORTED;
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

/*
 * The module's variables answer as device memory of the context current
 * at its load; a library's, loaded for every context, of the context
 * current when they are asked about (pointer.c).
 */
static CUresult libcumc_module_globals_add(const struct cumc_ptx_module *ptx,
					   bool library)
{
	CUdevice dev = 0;
	CUresult res;

	if (library)
		return libcumc_globals_add(ptx, NULL, 0);
	res = libcumc_current_device(&dev);
	if (res != CUDA_SUCCESS)
		return res;
	return libcumc_globals_add(ptx, libcumc_stack_top(), dev);
}

static CUresult libcumc_module_new(struct cumc_ptx_module *ptx, bool library,
				   struct libcumc_module **out)
{
	struct libcumc_module *mod = calloc(1, sizeof(*mod));
	unsigned int i, n = cumc_ptx_function_count(ptx);
	CUresult res = CUDA_ERROR_OUT_OF_MEMORY;

	if (mod)
		mod->funcs = calloc(n ? n : 1, sizeof(*mod->funcs));
	if (mod && mod->funcs)
		res = libcumc_module_globals_add(ptx, library);
	if (res != CUDA_SUCCESS) {
		if (mod)
			free(mod->funcs);
		free(mod);
		cumc_ptx_unload(ptx);
		return res;
	}
	mod->ptx = ptx;
	mod->nfuncs = n;
	mod->refs = 1;
	mod->library = library;
	for (i = 0; i < n; i++) {
		struct libcumc_function *fn = &mod->funcs[i];
		size_t st;

		fn->mod = mod;
		fn->ptx = cumc_ptx_function_at(ptx, i);
		/* Until opted in, a block has 48 KiB, its static share first. */
		st = cumc_ptx_static_shared(fn->ptx);
		fn->max_dynamic_shared = st < CUMC_PTX_DEFAULT_SHARED ?
					 CUMC_PTX_DEFAULT_SHARED - st : 0;
		fn->carveout = CU_SHAREDMEM_CARVEOUT_DEFAULT;
	}
	pthread_mutex_lock(&libcumc_modules_lock);
	mod->next = libcumc_modules;
	libcumc_modules = mod;
	pthread_mutex_unlock(&libcumc_modules_lock);
	*out = mod;
	return CUDA_SUCCESS;
}

/* Loads @image (@len 0: its own size); @log receives what failed. */
static CUresult libcumc_image_load(struct libcumc_module **out,
				   const void *image, size_t len, bool library,
				   char *log, size_t log_size)
{
	struct cumc_ptx_module *ptx;
	enum cumc_ptx_status st;

	st = cumc_ptx_load(image, len, CUMC_PTX_ARCH, &ptx, log, log_size);
	if (st != CUMC_PTX_OK) {
		libcumc_log_note(log);
		return libcumc_ptx_result(st);
	}
	return libcumc_module_new(ptx, library, out);
}

/* A module of its own, for cuModuleLoad*. */
static CUresult libcumc_module_load(CUmodule *out, const void *image,
				    size_t len, char *log, size_t log_size)
{
	struct libcumc_module *mod;
	CUresult res = libcumc_image_load(&mod, image, len, false, log,
					  log_size);

	if (res == CUDA_SUCCESS)
		*out = (CUmodule)mod;
	return res;
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

CUresult libcumc_module_load_data(CUmodule *module, const void *image)
{
	CUresult res = libcumc_module_begin();
	char log[256];

	if (res != CUDA_SUCCESS)
		return res;
	if (!module || !image)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_module_load(module, image, 0, log, sizeof(log));
}

CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image)
{
	return libcumc_module_load_data(module, image);
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

/*
 * Handles are looked up among the live modules: anything else is
 * CUDA_ERROR_INVALID_HANDLE, before the other arguments, as driver 580
 * answers for a NULL handle.
 */
static CUresult libcumc_handle_check(void)
{
	const struct libcumc_driver *drv;
	CUresult res = libcumc_driver(&drv);

	return res != CUDA_SUCCESS ? res : CUDA_ERROR_INVALID_HANDLE;
}

/*
 * The live module @h names; call with the registry locked.  A library's
 * module is a module too (cuLibraryGetModule hands it out); @library: only
 * a library's.
 */
static struct libcumc_module *libcumc_module_find(const void *h, bool library)
{
	struct libcumc_module *mod;

	for (mod = libcumc_modules; mod; mod = mod->next)
		if ((const void *)mod == h)
			return !library || mod->library ? mod : NULL;
	return NULL;
}

CUresult libcumc_library_check(CUlibrary library)
{
	CUresult res = libcumc_handle_check();

	if (res != CUDA_ERROR_INVALID_HANDLE)
		return res;
	pthread_mutex_lock(&libcumc_modules_lock);
	if (libcumc_module_find(library, true))
		res = CUDA_SUCCESS;
	pthread_mutex_unlock(&libcumc_modules_lock);
	return res;
}

void libcumc_module_put(struct libcumc_module *mod)
{
	unsigned int i;
	bool last;

	pthread_mutex_lock(&libcumc_modules_lock);
	last = --mod->refs == 0;
	pthread_mutex_unlock(&libcumc_modules_lock);
	if (!last)
		return;
	cumc_ptx_unload(mod->ptx);
	for (i = 0; i < mod->nfuncs; i++)
		free(mod->funcs[i].legacy);
	free(mod->funcs);
	free(mod);
}

/* The function @f names, in a library's module when @library. */
static struct libcumc_function *libcumc_function_find(const void *f,
						      bool library)
{
	struct libcumc_module *mod;

	for (mod = libcumc_modules; mod; mod = mod->next) {
		uintptr_t p = (uintptr_t)f, lo = (uintptr_t)mod->funcs;

		if (p >= lo && p < lo + mod->nfuncs * sizeof(*mod->funcs) &&
		    (p - lo) % sizeof(*mod->funcs) == 0)
			return !library || mod->library ?
			       (struct libcumc_function *)f : NULL;
	}
	return NULL;
}

static CUresult libcumc_function_ref(const void *f, bool library,
				     struct libcumc_function **out)
{
	CUresult res = CUDA_ERROR_INVALID_HANDLE;

	pthread_mutex_lock(&libcumc_modules_lock);
	*out = libcumc_function_find(f, library);
	if (*out) {
		(*out)->mod->refs++;
		res = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&libcumc_modules_lock);
	return res;
}

CUresult libcumc_function_get(CUfunction f, struct libcumc_function **out)
{
	return libcumc_function_ref(f, false, out);
}

CUresult libcumc_kernel_get(CUkernel k, struct libcumc_function **out)
{
	return libcumc_function_ref(k, true, out);
}

unsigned int libcumc_function_ptx_version(const struct libcumc_function *fn)
{
	return cumc_ptx_version(fn->mod->ptx);
}

/* Takes @h's module out of the registry, when it is one of that kind. */
static CUresult libcumc_unload(const void *h, bool library)
{
	struct libcumc_module *mod, **pp;
	CUresult res = libcumc_handle_check();

	if (res != CUDA_ERROR_INVALID_HANDLE)
		return res;
	pthread_mutex_lock(&libcumc_modules_lock);
	for (pp = &libcumc_modules; *pp && (const void *)*pp != h;
	     pp = &(*pp)->next)
		;
	mod = *pp;
	if (mod && mod->library == library)
		*pp = mod->next;
	else
		mod = NULL;
	pthread_mutex_unlock(&libcumc_modules_lock);
	if (!mod)
		return CUDA_ERROR_INVALID_HANDLE;
	/* Its variables' addresses are no one's now, whoever still runs it. */
	libcumc_globals_remove(mod->ptx);
	libcumc_module_put(mod);
	return CUDA_SUCCESS;
}

/* A library's module goes with its library, not through cuModuleUnload. */
CUresult CUDAAPI cuModuleUnload(CUmodule hmod)
{
	return libcumc_unload(hmod, false);
}

/* The kernel @name of @h's module, for cuModuleGetFunction and kernels. */
static CUresult libcumc_get_function(struct libcumc_function **out,
				     const void *h, bool library,
				     const char *name)
{
	struct libcumc_module *mod;
	CUresult res = libcumc_handle_check();
	unsigned int i;

	if (res != CUDA_ERROR_INVALID_HANDLE)
		return res;
	pthread_mutex_lock(&libcumc_modules_lock);
	mod = libcumc_module_find(h, library);
	if (mod && (!out || !name))
		res = CUDA_ERROR_INVALID_VALUE;
	else if (mod)
		res = CUDA_ERROR_NOT_FOUND;
	for (i = 0; mod && res == CUDA_ERROR_NOT_FOUND && i < mod->nfuncs; i++)
		if (!strcmp(cumc_ptx_function_name(mod->funcs[i].ptx), name)) {
			*out = &mod->funcs[i];
			res = CUDA_SUCCESS;
		}
	pthread_mutex_unlock(&libcumc_modules_lock);
	return res;
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod,
				     const char *name)
{
	struct libcumc_function *fn;
	CUresult res = libcumc_get_function(hfunc ? &fn : NULL, hmod, false,
					    name);

	if (res == CUDA_SUCCESS)
		*hfunc = (CUfunction)fn;
	return res;
}

/* The number of kernels of @h's module. */
static CUresult libcumc_count(unsigned int *count, const void *h, bool library)
{
	struct libcumc_module *mod;
	CUresult res = libcumc_handle_check();

	if (res != CUDA_ERROR_INVALID_HANDLE)
		return res;
	pthread_mutex_lock(&libcumc_modules_lock);
	mod = libcumc_module_find(h, library);
	if (mod && !count)
		res = CUDA_ERROR_INVALID_VALUE;
	else if (mod) {
		*count = mod->nfuncs;
		res = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&libcumc_modules_lock);
	return res;
}

CUresult CUDAAPI cuModuleGetFunctionCount(unsigned int *count, CUmodule mod)
{
	return libcumc_count(count, mod, false);
}

/*
 * The first @num kernels of @h's module, in the order of the PTX, into
 * the array @out of CUfunction or CUkernel handles (the same pointers,
 * copied bytewise since the types differ).
 */
static CUresult libcumc_enumerate(void *out, unsigned int num, const void *h,
				  bool library)
{
	struct libcumc_module *mod;
	CUresult res = libcumc_handle_check();
	unsigned int i;

	if (res != CUDA_ERROR_INVALID_HANDLE)
		return res;
	pthread_mutex_lock(&libcumc_modules_lock);
	mod = libcumc_module_find(h, library);
	if (mod && !out && num)
		res = CUDA_ERROR_INVALID_VALUE;
	else if (mod) {
		for (i = 0; i < num && i < mod->nfuncs; i++) {
			struct libcumc_function *fn = &mod->funcs[i];

			memcpy((char *)out + i * sizeof(fn), &fn, sizeof(fn));
		}
		res = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&libcumc_modules_lock);
	return res;
}

CUresult CUDAAPI cuModuleEnumerateFunctions(CUfunction *functions,
					    unsigned int numFunctions,
					    CUmodule mod)
{
	return libcumc_enumerate(functions, numFunctions, mod, false);
}

static CUresult libcumc_get_global(CUdeviceptr *dptr, size_t *bytes,
				   const void *h, bool library,
				   const char *name)
{
	struct libcumc_module *mod;
	CUresult res = libcumc_handle_check();
	void *addr;
	size_t size;

	if (res != CUDA_ERROR_INVALID_HANDLE)
		return res;
	pthread_mutex_lock(&libcumc_modules_lock);
	mod = libcumc_module_find(h, library);
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

CUresult CUDAAPI cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes,
				      CUmodule hmod, const char *name)
{
	return libcumc_get_global(dptr, bytes, hmod, false, name);
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

/*
 * A library is a module of its own, loaded at once (driver 580 loads
 * lazily and answers CUDA_SUCCESS for junk; cumc answers at the load).
 */
static CUresult libcumc_library_load(CUlibrary *library, const void *image,
				     size_t len, unsigned int num,
				     CUjit_option *options, void **values)
{
	struct libcumc_module *mod;
	char log[256];
	CUresult res = libcumc_image_load(&mod, image, len, true, log,
					  sizeof(log));

	if (res == CUDA_SUCCESS)
		*library = (CUlibrary)mod;
	else
		libcumc_jit_log(log, num, options, values);
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

	if (res != CUDA_SUCCESS)
		return res;
	if (!library || !code)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_library_load(library, code, 0, numJitOptions,
				    jitOptions, jitOptionsValues);
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
	size_t len;
	char *buf;

	if (res != CUDA_SUCCESS)
		return res;
	if (!library || !fileName)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_read_file(fileName, &buf, &len);
	if (res != CUDA_SUCCESS)
		return res;
	res = len ? libcumc_library_load(library, buf, len, numJitOptions,
					 jitOptions, jitOptionsValues) :
		    CUDA_ERROR_INVALID_IMAGE;
	free(buf);
	return res;
}

CUresult CUDAAPI cuLibraryUnload(CUlibrary library)
{
	return libcumc_unload(library, true);
}

CUresult CUDAAPI cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library,
				    const char *name)
{
	struct libcumc_function *fn;
	CUresult res = libcumc_get_function(pKernel ? &fn : NULL, library,
					    true, name);

	if (res == CUDA_SUCCESS)
		*pKernel = (CUkernel)fn;
	return res;
}

CUresult CUDAAPI cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes,
				    CUlibrary library, const char *name)
{
	return libcumc_get_global(dptr, bytes, library, true, name);
}

CUresult CUDAAPI cuLibraryGetKernelCount(unsigned int *count, CUlibrary lib)
{
	return libcumc_count(count, lib, true);
}

CUresult CUDAAPI cuLibraryEnumerateKernels(CUkernel *kernels,
					   unsigned int numKernels,
					   CUlibrary lib)
{
	return libcumc_enumerate(kernels, numKernels, lib, true);
}

/*
 * A library's code is one module for every context (cumc's modules belong
 * to no context), so the module and function of the current context are
 * the library's own: a current context is all they need.
 */
/*
 * What a library's handle @found (NULL: not a library's) stands for in the
 * current context, into @out.
 */
static CUresult libcumc_library_handle_out(void **out, void *found)
{
	CUdevice dev;
	CUresult res;

	if (!found)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_current_device(&dev);
	if (res == CUDA_SUCCESS)
		*out = found;
	return res;
}

CUresult CUDAAPI cuLibraryGetModule(CUmodule *pMod, CUlibrary library)
{
	struct libcumc_module *mod;
	CUresult res = libcumc_handle_check();

	if (res != CUDA_ERROR_INVALID_HANDLE)
		return res;
	pthread_mutex_lock(&libcumc_modules_lock);
	mod = libcumc_module_find(library, true);
	pthread_mutex_unlock(&libcumc_modules_lock);
	return libcumc_library_handle_out((void **)pMod, mod);
}

CUresult CUDAAPI cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel)
{
	struct libcumc_function *fn;
	CUresult res = libcumc_handle_check();

	if (res != CUDA_ERROR_INVALID_HANDLE)
		return res;
	pthread_mutex_lock(&libcumc_modules_lock);
	fn = libcumc_function_find(kernel, true);
	pthread_mutex_unlock(&libcumc_modules_lock);
	return libcumc_library_handle_out((void **)pFunc, fn);
}
