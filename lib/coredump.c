// SPDX-License-Identifier: MIT
/*
 * cuCoredump*Attribute*: the settings of GPU coredumps, process-wide and
 * per context, kept and answered as cuda.h describes. cumc writes no GPU
 * coredump (a faulting kernel fails its context, ctx_fault.c, and dumps
 * nothing), so turning one on, on an exception or by the user's pipe,
 * answers CUDA_ERROR_NOT_SUPPORTED; the rest only changes what is read
 * back.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "internal.h"
#include "log.h"

/* cuda.h: strings of up to 1023 characters. */
#define COREDUMP_PATH_MAX 1024

struct coredump_settings {
	bool on_exception;
	bool user_trigger;
	int flags;			/* CUCoredumpGenerationFlags */
	char file[COREDUMP_PATH_MAX];
	char pipe[COREDUMP_PATH_MAX];
};

/* The settings of one context, made from the process's on first change. */
struct coredump_ctx {
	struct coredump_ctx *next;
	CUcontext ctx;
	struct coredump_settings settings;
};

/*
 * The process's settings and the contexts' ones, under coredump_lock. A
 * context's entry outlives it: context handles are never reused, and
 * there is one entry for each context whose settings changed.
 */
static pthread_mutex_t coredump_lock = PTHREAD_MUTEX_INITIALIZER;
/*
 * The process's, zero: nothing on, every region; the file and pipe empty
 * (cuda.h names core.cuda.HOST.PID and corepipe.cuda.HOST.PID; driver 580
 * answers an empty string until one is set).
 */
static struct coredump_settings coredump_global;
static struct coredump_ctx *coredump_ctxs;

/* The settings of @ctx (NULL: the process's), made if @make. */
static struct coredump_settings *coredump_find(CUcontext ctx, bool make)
{
	struct coredump_ctx *c;

	if (!ctx)
		return &coredump_global;
	for (c = coredump_ctxs; c; c = c->next)
		if (c->ctx == ctx)
			return &c->settings;
	if (!make)
		return &coredump_global;
	c = malloc(sizeof(*c));
	if (!c)
		return NULL;
	c->ctx = ctx;
	c->settings = coredump_global;
	c->next = coredump_ctxs;
	coredump_ctxs = c;
	return &c->settings;
}

/* The current context, for the per-context calls. */
static CUresult coredump_current(CUcontext *ctx)
{
	CUdevice dev;
	CUresult res = libcumc_current_device(&dev);

	if (res == CUDA_SUCCESS)
		*ctx = libcumc_stack_top();
	return res;
}

/* The bytes @attrib's value takes, 0 for no attribute. */
static size_t coredump_size(CUcoredumpSettings attrib,
			    const struct coredump_settings *s)
{
	switch (attrib) {
	case CU_COREDUMP_ENABLE_ON_EXCEPTION:
	case CU_COREDUMP_TRIGGER_HOST:
	case CU_COREDUMP_LIGHTWEIGHT:
	case CU_COREDUMP_ENABLE_USER_TRIGGER:
		return sizeof(bool);
	case CU_COREDUMP_GENERATION_FLAGS:
		return sizeof(int);
	case CU_COREDUMP_FILE:
		return strlen(s->file) + 1;
	case CU_COREDUMP_PIPE:
		return strlen(s->pipe) + 1;
	default:
		return 0;
	}
}

static void coredump_read(CUcoredumpSettings attrib,
			  const struct coredump_settings *s, void *value)
{
	bool b;

	switch (attrib) {
	case CU_COREDUMP_ENABLE_ON_EXCEPTION:
		b = s->on_exception;
		break;
	case CU_COREDUMP_TRIGGER_HOST:
		b = !(s->flags & CU_COREDUMP_SKIP_ABORT);
		break;
	case CU_COREDUMP_LIGHTWEIGHT:
		b = (s->flags & CU_COREDUMP_LIGHTWEIGHT_FLAGS) ==
		    CU_COREDUMP_LIGHTWEIGHT_FLAGS;
		break;
	case CU_COREDUMP_ENABLE_USER_TRIGGER:
		b = s->user_trigger;
		break;
	case CU_COREDUMP_GENERATION_FLAGS:
		memcpy(value, &s->flags, sizeof(int));
		return;
	case CU_COREDUMP_FILE:
		strcpy(value, s->file);
		return;
	default:
		strcpy(value, s->pipe);
		return;
	}
	memcpy(value, &b, sizeof(b));
}

static bool coredump_is_string(CUcoredumpSettings attrib)
{
	return attrib == CU_COREDUMP_FILE || attrib == CU_COREDUMP_PIPE;
}

static CUresult coredump_get(CUcontext ctx, CUcoredumpSettings attrib,
			     void *value, size_t *size)
{
	const struct coredump_settings *s;
	CUresult res = CUDA_SUCCESS;
	size_t need;

	if (!size)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&coredump_lock);
	s = coredump_find(ctx, false);
	need = coredump_size(attrib, s);
	if (!need)
		res = CUDA_ERROR_INVALID_VALUE;
	else if (!value)
		*size = coredump_is_string(attrib) ? COREDUMP_PATH_MAX : need;
	else if (*size < need)
		res = CUDA_ERROR_INVALID_VALUE;
	else
		coredump_read(attrib, s, value);
	pthread_mutex_unlock(&coredump_lock);
	return res;
}

static const int coredump_all_flags = CU_COREDUMP_LIGHTWEIGHT_FLAGS |
				      CU_COREDUMP_SKIP_ABORT;

/* @value checked against *@size already; a string ends within it. */
static CUresult coredump_write(CUcoredumpSettings attrib,
			       struct coredump_settings *s, const void *value,
			       size_t size)
{
	bool b = false;
	int flags;

	if (size == sizeof(bool))
		memcpy(&b, value, sizeof(b));
	switch (attrib) {
	case CU_COREDUMP_ENABLE_ON_EXCEPTION:
	case CU_COREDUMP_ENABLE_USER_TRIGGER:
		if (b) {
			libcumc_log_note("cumc writes no GPU coredump");
			return CUDA_ERROR_NOT_SUPPORTED;
		}
		return CUDA_SUCCESS;
	case CU_COREDUMP_TRIGGER_HOST:
		s->flags = b ? s->flags & ~CU_COREDUMP_SKIP_ABORT :
			       s->flags | CU_COREDUMP_SKIP_ABORT;
		return CUDA_SUCCESS;
	case CU_COREDUMP_LIGHTWEIGHT:
		s->flags = b ? s->flags | CU_COREDUMP_LIGHTWEIGHT_FLAGS :
			       s->flags & ~CU_COREDUMP_LIGHTWEIGHT_FLAGS;
		return CUDA_SUCCESS;
	case CU_COREDUMP_GENERATION_FLAGS:
		memcpy(&flags, value, sizeof(flags));
		if (flags & ~coredump_all_flags)
			return CUDA_ERROR_INVALID_VALUE;
		s->flags = flags;
		return CUDA_SUCCESS;
	case CU_COREDUMP_FILE:
		memcpy(s->file, value, size);
		return CUDA_SUCCESS;
	default:
		memcpy(s->pipe, value, size);
		return CUDA_SUCCESS;
	}
}

static CUresult coredump_set(CUcontext ctx, CUcoredumpSettings attrib,
			     void *value, size_t *size)
{
	struct coredump_settings *s;
	CUresult res = CUDA_SUCCESS;
	size_t need;

	if (!size || attrib < CU_COREDUMP_ENABLE_ON_EXCEPTION ||
	    attrib >= CU_COREDUMP_MAX)
		return CUDA_ERROR_INVALID_VALUE;
	/* cuda.h: the user's trigger is the process's alone. */
	if (ctx && (attrib == CU_COREDUMP_ENABLE_USER_TRIGGER ||
		    attrib == CU_COREDUMP_PIPE))
		return CUDA_ERROR_NOT_PERMITTED;
	pthread_mutex_lock(&coredump_lock);
	if (!value) {
		*size = coredump_is_string(attrib) ? COREDUMP_PATH_MAX :
			coredump_size(attrib, NULL);
		goto out;
	}
	if (coredump_is_string(attrib))
		/* An empty string, or one without its NUL within *size, is refused. */
		need = strnlen(value, *size) + 1;
	else
		need = coredump_size(attrib, NULL);
	if (*size < need || need > COREDUMP_PATH_MAX ||
	    (coredump_is_string(attrib) && need == 1)) {
		res = CUDA_ERROR_INVALID_VALUE;
		goto out;
	}
	s = coredump_find(ctx, true);
	res = s ? coredump_write(attrib, s, value, need) :
		  CUDA_ERROR_OUT_OF_MEMORY;
out:
	pthread_mutex_unlock(&coredump_lock);
	return res;
}

CUresult CUDAAPI cuCoredumpGetAttribute(CUcoredumpSettings attrib,
					void *value, size_t *size)
{
	CUcontext ctx;
	CUresult res = coredump_current(&ctx);

	return res ?: coredump_get(ctx, attrib, value, size);
}

CUresult CUDAAPI cuCoredumpGetAttributeGlobal(CUcoredumpSettings attrib,
					      void *value, size_t *size)
{
	return coredump_get(NULL, attrib, value, size);
}

CUresult CUDAAPI cuCoredumpSetAttribute(CUcoredumpSettings attrib,
					void *value, size_t *size)
{
	CUcontext ctx;
	CUresult res = coredump_current(&ctx);

	return res ?: coredump_set(ctx, attrib, value, size);
}

CUresult CUDAAPI cuCoredumpSetAttributeGlobal(CUcoredumpSettings attrib,
					      void *value, size_t *size)
{
	return coredump_set(NULL, attrib, value, size);
}
