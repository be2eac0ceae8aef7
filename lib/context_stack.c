// SPDX-License-Identifier: MIT
/*
 * Each thread's stack of current contexts; its top is the current context.
 * Only the owning thread touches a stack, so no lock is needed.
 */
#include <pthread.h>
#include <stdlib.h>

#include "context.h"

struct cumc_ctx_stack {
	CUcontext *entries;
	size_t depth;
	size_t capacity;
};

static __thread struct cumc_ctx_stack cumc_stack;
/* Frees a thread's entries when it exits; thread-local storage cannot. */
static pthread_key_t cumc_stack_key;
static pthread_once_t cumc_stack_key_once = PTHREAD_ONCE_INIT;

static void cumc_stack_key_create(void)
{
	pthread_key_create(&cumc_stack_key, free);
}

static CUresult cumc_stack_grow(void)
{
	size_t capacity = cumc_stack.capacity ? 2 * cumc_stack.capacity : 8;
	CUcontext *entries;

	entries = reallocarray(cumc_stack.entries, capacity, sizeof(*entries));
	if (!entries)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_once(&cumc_stack_key_once, cumc_stack_key_create);
	pthread_setspecific(cumc_stack_key, entries);
	cumc_stack.entries = entries;
	cumc_stack.capacity = capacity;
	return CUDA_SUCCESS;
}

CUresult cumc_stack_push(CUcontext ctx)
{
	if (cumc_stack.depth == cumc_stack.capacity) {
		CUresult res = cumc_stack_grow();

		if (res != CUDA_SUCCESS)
			return res;
	}
	cumc_stack.entries[cumc_stack.depth++] = ctx;
	return CUDA_SUCCESS;
}

CUcontext cumc_stack_pop(void)
{
	return cumc_stack.depth ? cumc_stack.entries[--cumc_stack.depth] : NULL;
}

CUcontext cumc_stack_top(void)
{
	return cumc_stack.depth ? cumc_stack.entries[cumc_stack.depth - 1] : NULL;
}

CUresult cumc_stack_replace_top(CUcontext ctx)
{
	if (!cumc_stack.depth)
		return cumc_stack_push(ctx);
	cumc_stack.entries[cumc_stack.depth - 1] = ctx;
	return CUDA_SUCCESS;
}

/* In a forked child: the forking thread's stack held the parent's contexts. */
void cumc_stack_forget(void)
{
	cumc_stack.depth = 0;
}
