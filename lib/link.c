// SPDX-License-Identifier: MIT
/*
 * The JIT linker (cuLink*): device code in, an image cuModuleLoadData and
 * cuLibraryLoadData accept out.
 *
 * cumc runs PTX as it is, so there is no machine code to link: an input
 * is PTX text, or the PTX of a fatbin (nvcc's), checked by libcumc-ptx
 * when it is added (cumc_ptx_link_input: a call or an .extern variable
 * another input may define is allowed there), and cuLinkComplete joins
 * the inputs' PTX into one text (cumc_ptx_link), .extern functions and
 * variables resolved across them.  A symbol defined twice is
 * CUDA_ERROR_INVALID_PTX, one defined nowhere CUDA_ERROR_NOT_FOUND, with
 * the error log naming it.  Cubins are device code cumc cannot run
 * (CUDA_ERROR_NO_BINARY_FOR_GPU, as a module load); host objects,
 * archives and NVVM IR are CUDA_ERROR_NOT_SUPPORTED.  Once complete, a
 * link takes no more input: its image is made once.
 *
 * The logs: CU_JIT_INFO_LOG_BUFFER and CU_JIT_ERROR_LOG_BUFFER given to
 * cuLinkCreate gather what every later call of the link writes, and
 * their _SIZE_BYTES values are set to the bytes filled, the terminating
 * NUL included, as cuda.h describes.  The info log says what was linked
 * when CU_JIT_LOG_VERBOSE is set.  Every other option, there and with an
 * input, is accepted and has no effect.
 *
 * A CUlinkState is looked up among the live links before anything reads
 * it, and each call holds the links' lock, so a garbage or destroyed one
 * is CUDA_ERROR_INVALID_HANDLE, never a crash.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "kernel.h"
#include "log.h"
#include "procaddr.h"

struct libcumc_log {
	char *buf;		/* the caller's, NULL: none */
	size_t cap;
	void **size;		/* the option value set to the bytes filled */
	size_t len;
};

struct libcumc_link {
	struct libcumc_link *next;
	struct libcumc_log info, error;
	bool verbose;
	char **texts;		/* the inputs' PTX, NUL-terminated */
	size_t *lens;		/* their lengths, without the NUL */
	unsigned int count;
	char *image;		/* made by cuLinkComplete */
	size_t image_size;
};

static pthread_mutex_t libcumc_links_lock = PTHREAD_MUTEX_INITIALIZER;
static struct libcumc_link *libcumc_links;

/* Appends to @log what fits of a line, keeping it NUL-terminated. */
static void __attribute__((format(printf, 2, 3)))
libcumc_link_log(struct libcumc_log *log, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!log->buf || log->len + 1 >= log->cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(log->buf + log->len, log->cap - log->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		log->len += (size_t)n < log->cap - log->len ?
			    (size_t)n : log->cap - log->len - 1;
	*log->size = (void *)(uintptr_t)(log->len + 1);
}

/* Every option is one cuda.h knows; a count needs its arrays. */
static CUresult libcumc_link_options(unsigned int num,
				     const CUjit_option *options, void **values)
{
	CUresult res = libcumc_options_check(num, options, values);
	unsigned int i;

	for (i = 0; res == CUDA_SUCCESS && i < num; i++)
		if ((unsigned int)options[i] >= CU_JIT_NUM_OPTIONS)
			res = CUDA_ERROR_INVALID_VALUE;
	return res;
}

/* The logs of cuLinkCreate's options. */
static void libcumc_link_setup(struct libcumc_link *link, unsigned int num,
			       const CUjit_option *options, void **values)
{
	unsigned int i;

	for (i = 0; i < num; i++) {
		switch (options[i]) {
		case CU_JIT_INFO_LOG_BUFFER:
			link->info.buf = values[i];
			break;
		case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
			link->info.cap = (uintptr_t)values[i];
			link->info.size = &values[i];
			break;
		case CU_JIT_ERROR_LOG_BUFFER:
			link->error.buf = values[i];
			break;
		case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
			link->error.cap = (uintptr_t)values[i];
			link->error.size = &values[i];
			break;
		case CU_JIT_LOG_VERBOSE:
			link->verbose = values[i] != NULL;
			break;
		default:
			break;
		}
	}
	/* A buffer without its size, or a size without its buffer, is none. */
	if (!link->info.size || !link->info.cap)
		link->info.buf = NULL;
	if (!link->error.size || !link->error.cap)
		link->error.buf = NULL;
	if (link->info.buf)
		link->info.buf[0] = '\0';
	if (link->error.buf)
		link->error.buf[0] = '\0';
}

CUresult CUDAAPI cuLinkCreate_v2(unsigned int numOptions,
				 CUjit_option *options, void **optionValues,
				 CUlinkState *stateOut)
{
	struct libcumc_link *link;
	CUresult res;
	CUdevice dev;

	res = libcumc_link_options(numOptions, options, optionValues);
	if (res == CUDA_SUCCESS && !stateOut)
		res = CUDA_ERROR_INVALID_VALUE;
	/* Linking is for the current context's device, as a module load. */
	if (res == CUDA_SUCCESS)
		res = libcumc_current_device(&dev);
	if (res != CUDA_SUCCESS)
		return res;
	link = calloc(1, sizeof(*link));
	if (!link)
		return CUDA_ERROR_OUT_OF_MEMORY;
	libcumc_link_setup(link, numOptions, options, optionValues);
	pthread_mutex_lock(&libcumc_links_lock);
	link->next = libcumc_links;
	libcumc_links = link;
	pthread_mutex_unlock(&libcumc_links_lock);
	*stateOut = (CUlinkState)link;
	return CUDA_SUCCESS;
}

/* Before CUDA 6.5 the same call was unversioned: the same ABI. */
CUresult CUDAAPI cuLinkCreate_v1(unsigned int numOptions,
				 CUjit_option *options, void **optionValues,
				 CUlinkState *stateOut)
	__attribute__((alias("cuLinkCreate_v2")));

/* The live link @state names, the links' lock taken on success. */
static CUresult libcumc_link_lock(CUlinkState state,
				  struct libcumc_link **out)
{
	const struct libcumc_driver *drv;
	struct libcumc_link *link;
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&libcumc_links_lock);
	for (link = libcumc_links; link; link = link->next)
		if ((CUlinkState)link == state) {
			*out = link;
			return CUDA_SUCCESS;
		}
	pthread_mutex_unlock(&libcumc_links_lock);
	return CUDA_ERROR_INVALID_HANDLE;
}

static const char *libcumc_input_name(const char *name)
{
	return name ? name : "(unnamed)";
}

/* Keeps @data's PTX as the link's next input once libcumc-ptx checked it. */
static CUresult libcumc_link_input(struct libcumc_link *link,
				   CUjitInputType type, const void *data,
				   size_t size, const char *name)
{
	enum cumc_ptx_status st;
	char log[256] = "", *text, **texts;
	size_t text_len, *lens;

	switch (type) {
	case CU_JIT_INPUT_PTX:
	case CU_JIT_INPUT_FATBINARY:
	case CU_JIT_INPUT_CUBIN:
		break;
	case CU_JIT_INPUT_OBJECT:
	case CU_JIT_INPUT_LIBRARY:
	case CU_JIT_INPUT_NVVM:
		libcumc_link_log(&link->error,
				 "error   : %s: cumc links PTX and fatbins only\n",
				 libcumc_input_name(name));
		return CUDA_ERROR_NOT_SUPPORTED;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (link->image) {
		libcumc_link_log(&link->error,
				 "error   : %s: the link is complete\n",
				 libcumc_input_name(name));
		return CUDA_ERROR_INVALID_VALUE;
	}
	/* PTX text may come without its NUL: its size says where it ends. */
	st = cumc_ptx_link_input(data, size, CUMC_PTX_ARCH, &text, &text_len,
				 log, sizeof(log));
	if (st != CUMC_PTX_OK) {
		libcumc_link_log(&link->error, "error   : %s: %s\n",
				 libcumc_input_name(name), log);
		libcumc_log_note(log);
		return libcumc_ptx_result(st);
	}
	texts = realloc(link->texts, (link->count + 1) * sizeof(*texts));
	if (texts)
		link->texts = texts;
	lens = texts ? realloc(link->lens, (link->count + 1) * sizeof(*lens)) :
		       NULL;
	if (!lens) {
		free(text);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	link->lens = lens;
	link->texts[link->count] = text;
	link->lens[link->count++] = text_len;
	if (link->verbose)
		libcumc_link_log(&link->info, "info    : %s: %zu bytes of PTX\n",
				 libcumc_input_name(name), text_len);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLinkAddData_v2(CUlinkState state, CUjitInputType type,
				  void *data, size_t size, const char *name,
				  unsigned int numOptions, CUjit_option *options,
				  void **optionValues)
{
	struct libcumc_link *link;
	CUresult res = libcumc_link_lock(state, &link);

	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_link_options(numOptions, options, optionValues);
	if (res == CUDA_SUCCESS && (!data || !size))
		res = CUDA_ERROR_INVALID_VALUE;
	if (res == CUDA_SUCCESS)
		res = libcumc_link_input(link, type, data, size, name);
	pthread_mutex_unlock(&libcumc_links_lock);
	return res;
}

CUresult CUDAAPI cuLinkAddFile_v2(CUlinkState state, CUjitInputType type,
				  const char *path, unsigned int numOptions,
				  CUjit_option *options, void **optionValues)
{
	struct libcumc_link *link;
	CUresult res = libcumc_link_lock(state, &link);
	size_t len;
	char *buf;

	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_link_options(numOptions, options, optionValues);
	if (res == CUDA_SUCCESS && !path)
		res = CUDA_ERROR_INVALID_VALUE;
	if (res == CUDA_SUCCESS)
		res = libcumc_read_file(path, &buf, &len);
	if (res == CUDA_SUCCESS) {
		res = len ? libcumc_link_input(link, type, buf, len, path) :
			    CUDA_ERROR_INVALID_IMAGE;
		free(buf);
	} else if (res == CUDA_ERROR_FILE_NOT_FOUND) {
		libcumc_link_log(&link->error, "error   : %s: cannot be read\n",
				 path);
	}
	pthread_mutex_unlock(&libcumc_links_lock);
	return res;
}

/* The inputs joined, or the answer of what could not be. */
static CUresult libcumc_link_join(struct libcumc_link *link)
{
	enum cumc_ptx_status st;
	char log[256] = "";

	if (!link->count) {
		libcumc_link_log(&link->error, "error   : no input to link\n");
		return CUDA_ERROR_INVALID_VALUE;
	}
	st = cumc_ptx_link(link->texts, link->lens, link->count, &link->image,
			   &link->image_size, log, sizeof(log));
	if (st == CUMC_PTX_OK) {
		link->image_size++;	/* the NUL, as a PTX image counts it */
		return CUDA_SUCCESS;
	}
	libcumc_link_log(&link->error, "error   : %s\n", log);
	libcumc_log_note(log);
	return st == CUMC_PTX_EUNDEFINED ? CUDA_ERROR_NOT_FOUND :
					   libcumc_ptx_result(st);
}

/*
 * The image stays the link's, valid until cuLinkDestroy; a second call
 * gives it again.  A link of no input has nothing to give:
 * CUDA_ERROR_INVALID_VALUE.
 */
CUresult CUDAAPI cuLinkComplete(CUlinkState state, void **cubinOut,
				size_t *sizeOut)
{
	struct libcumc_link *link;
	CUresult res = libcumc_link_lock(state, &link);

	if (res != CUDA_SUCCESS)
		return res;
	if (!cubinOut || !sizeOut)
		res = CUDA_ERROR_INVALID_VALUE;
	else if (!link->image)
		res = libcumc_link_join(link);
	if (res == CUDA_SUCCESS) {
		*cubinOut = link->image;
		*sizeOut = link->image_size;
		if (link->verbose)
			libcumc_link_log(&link->info,
					 "info    : linked %u inputs into an "
					 "image of %zu bytes\n", link->count,
					 link->image_size);
	}
	pthread_mutex_unlock(&libcumc_links_lock);
	return res;
}

CUresult CUDAAPI cuLinkDestroy(CUlinkState state)
{
	struct libcumc_link **pp, *link;
	CUresult res = libcumc_link_lock(state, &link);

	if (res != CUDA_SUCCESS)
		return res;
	for (pp = &libcumc_links; *pp != link; pp = &(*pp)->next)
		;
	*pp = link->next;
	pthread_mutex_unlock(&libcumc_links_lock);
	while (link->count)
		free(link->texts[--link->count]);
	free(link->texts);
	free(link->lens);
	free(link->image);
	free(link);
	return CUDA_SUCCESS;
}
