// SPDX-License-Identifier: MIT
/*
 * Each thread's stack of current contexts; its top is the current context.
 * Only the owning thread touches a stack, so no lock is needed.
 */
#include <pthread.h>
#include <stdlib.h>

#include "context.h"

struct libcumc_ctx_stack {
	CUcontext *entries;
	size_t depth;
	size_t capacity;
};

static __thread struct libcumc_ctx_stack libcumc_stack;
/* Frees a thread's entries when it exits; thread-local storage cannot. */
static pthread_key_t libcumc_stack_key;
static pthread_once_t libcumc_stack_key_once = PTHREAD_ONCE_INIT;

static void libcumc_stack_key_create(void)
{
	pthread_key_create(&libcumc_stack_key, free);
}

static CUresult libcumc_stack_grow(void)
{
	size_t capacity = libcumc_stack.capacity ?
			  2 * libcumc_stack.capacity : 8;
	CUcontext *entries;

	entries = reallocarray(libcumc_stack.entries, capacity,
			       sizeof(*entries));
	if (!entries)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_once(&libcumc_stack_key_once, libcumc_stack_key_create);
	pthread_setspecific(libcumc_stack_key, entries);
	libcumc_stack.entries = entries;
	libcumc_stack.capacity = capacity;
	return CUDA_SUCCESS;
}

CUresult libcumc_stack_push(CUcontext ctx)
{
	if (libcumc_stack.depth == libcumc_stack.capacity) {
		CUresult res = libcumc_stack_grow();

		if (res != CUDA_SUCCESS)
			return res;
	}
	libcumc_stack.entries[libcumc_stack.depth++] = ctx;
	return CUDA_SUCCESS;
}

CUcontext libcumc_stack_pop(void)
{
	if (!libcumc_stack.depth)
		return NULL;
	return libcumc_stack.entries[--libcumc_stack.depth];
}

CUcontext libcumc_stack_top(void)
{
	if (!libcumc_stack.depth)
		return NULL;
	return libcumc_stack.entries[libcumc_stack.depth - 1];
}

CUresult libcumc_stack_replace_top(CUcontext ctx)
{
	if (!libcumc_stack.depth)
		return libcumc_stack_push(ctx);
	libcumc_stack.entries[libcumc_stack.depth - 1] = ctx;
	return CUDA_SUCCESS;
}

/* In a forked child: the forking thread's stack held the parent's contexts. */
void libcumc_stack_forget(void)
{
	libcumc_stack.depth = 0;
}
