// SPDX-License-Identifier: MIT
/*
 * Context-local storage for the CUDA runtime (table c693336e,
 * Documentation/runtime.md): the runtime keeps its state of each context
 * in it, under a key of its own. Slot meanings and the answer for a
 * missing key are those ZLUDA published; the runtime starts on them.
 *
 * Values stay until deleted. Context handles are never reused, so a
 * destroyed context's values are never found again; the destructor the
 * runtime passes is kept but not called, as what it must be given has
 * not been established.
 */
#include <pthread.h>
#include <stdlib.h>

#include "context.h"
#include "internal.h"
#include "log.h"
#include "runtime_cls.h"

struct libcumc_cls_entry {
	CUcontext ctx;
	void *key;
	void *value;
	libcumc_cls_dtor dtor;
};

/* libcumc_cls_lock guards the entries, their count and room. */
static pthread_mutex_t libcumc_cls_lock = PTHREAD_MUTEX_INITIALIZER;
static struct libcumc_cls_entry *libcumc_cls_entries;
static size_t libcumc_cls_count, libcumc_cls_room;

/* @ctx, or the current context for NULL, when live. */
static CUresult libcumc_cls_context(CUcontext *ctx)
{
	const struct libcumc_driver *drv;
	CUresult res = libcumc_driver(&drv);
	CUdevice dev;

	if (res != CUDA_SUCCESS)
		return res;
	if (!*ctx)
		*ctx = libcumc_stack_top();
	return *ctx ? libcumc_context_device(*ctx, &dev) :
		      CUDA_ERROR_INVALID_CONTEXT;
}

/* The entry of @key in @ctx, or NULL; the lock held. */
static struct libcumc_cls_entry *libcumc_cls_find(CUcontext ctx, void *key)
{
	size_t i;

	for (i = 0; i < libcumc_cls_count; i++)
		if (libcumc_cls_entries[i].ctx == ctx &&
		    libcumc_cls_entries[i].key == key)
			return &libcumc_cls_entries[i];
	return NULL;
}

/* A new entry at the end; NULL when there is no memory. The lock held. */
static struct libcumc_cls_entry *libcumc_cls_add(void)
{
	struct libcumc_cls_entry *more;
	size_t room;

	if (libcumc_cls_count == libcumc_cls_room) {
		room = libcumc_cls_room ? 2 * libcumc_cls_room : 16;
		more = realloc(libcumc_cls_entries, room * sizeof(*more));
		if (!more)
			return NULL;
		libcumc_cls_entries = more;
		libcumc_cls_room = room;
	}
	return &libcumc_cls_entries[libcumc_cls_count++];
}

CUresult libcumc_cls_put(CUcontext ctx, void *key, void *value,
			 libcumc_cls_dtor dtor)
{
	struct libcumc_cls_entry *e;
	CUresult res;

	libcumc_log_slot_enter();
	res = libcumc_cls_context(&ctx);
	if (res != CUDA_SUCCESS)
		return libcumc_log_slot_exit("c693336e slot 0", res);
	pthread_mutex_lock(&libcumc_cls_lock);
	e = libcumc_cls_find(ctx, key);
	if (!e)
		e = libcumc_cls_add();
	if (e)
		*e = (struct libcumc_cls_entry){ ctx, key, value, dtor };
	pthread_mutex_unlock(&libcumc_cls_lock);
	return libcumc_log_slot_exit("c693336e slot 0",
				e ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY);
}

CUresult libcumc_cls_delete(CUcontext ctx, void *key)
{
	struct libcumc_cls_entry *e;
	CUresult res;

	libcumc_log_slot_enter();
	res = libcumc_cls_context(&ctx);
	if (res != CUDA_SUCCESS)
		return libcumc_log_slot_exit("c693336e slot 1", res);
	pthread_mutex_lock(&libcumc_cls_lock);
	e = libcumc_cls_find(ctx, key);
	if (e)
		*e = libcumc_cls_entries[--libcumc_cls_count];
	pthread_mutex_unlock(&libcumc_cls_lock);
	return libcumc_log_slot_exit("c693336e slot 1",
				e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE);
}

CUresult libcumc_cls_get(void **value, CUcontext ctx, void *key)
{
	struct libcumc_cls_entry *e;
	CUresult res;

	libcumc_log_slot_enter();
	res = libcumc_cls_context(&ctx);
	if (res == CUDA_SUCCESS && !value)
		res = CUDA_ERROR_INVALID_VALUE;
	if (res != CUDA_SUCCESS)
		return libcumc_log_slot_exit("c693336e slot 2", res);
	pthread_mutex_lock(&libcumc_cls_lock);
	e = libcumc_cls_find(ctx, key);
	if (e)
		*value = e->value;
	pthread_mutex_unlock(&libcumc_cls_lock);
	/* A missing key is the runtime's question, not a failure to log. */
	return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
