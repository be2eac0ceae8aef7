// SPDX-License-Identifier: MIT
/*
 * Context management against the module (runs in the VM): primary
 * contexts, created contexts, each thread's stack of current contexts,
 * handles that are destroyed or garbage, threads and a forked child.
 */
#include <check.h>
#include <cuda.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "check_run.h"
#include "child.h"

/* The names of before CUDA 11.0 and 4.0, exported for old binaries. */
#undef cuDevicePrimaryCtxRelease
#undef cuDevicePrimaryCtxReset
#undef cuCtxDestroy
#undef cuCtxPushCurrent
#undef cuCtxPopCurrent
CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev);
CUresult CUDAAPI cuDevicePrimaryCtxReset(CUdevice dev);
CUresult CUDAAPI cuCtxDestroy(CUcontext ctx);
CUresult CUDAAPI cuCtxPushCurrent(CUcontext ctx);
CUresult CUDAAPI cuCtxPopCurrent(CUcontext *pctx);

static const CUcontext garbage = (CUcontext)(uintptr_t)0xdeadbeef;

static void setup(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
}

static int device_count(void)
{
	int count = 0;

	ck_assert_int_eq(cuDeviceGetCount(&count), CUDA_SUCCESS);
	return count;
}

static CUcontext create(CUdevice dev)
{
	CUcontext ctx = NULL;

	ck_assert_int_eq(cuCtxCreate(&ctx, NULL, 0, dev), CUDA_SUCCESS);
	ck_assert_ptr_nonnull(ctx);
	return ctx;
}

static CUcontext current(void)
{
	CUcontext ctx = garbage;

	ck_assert_int_eq(cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
	return ctx;
}

static CUdevice current_device(void)
{
	CUdevice dev = -1;

	ck_assert_int_eq(cuCtxGetDevice(&dev), CUDA_SUCCESS);
	return dev;
}

START_TEST(everything_needs_init)
{
	CUctxCreateParams params = { 0 };
	CUcontext ctx;
	CUdevice dev;

	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease_v2(0), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease(0), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuDevicePrimaryCtxReset_v2(0), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuDevicePrimaryCtxReset(0), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuCtxCreate_v4(&ctx, &params, 0, 0), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuCtxDestroy_v2(garbage), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuCtxDestroy(garbage), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuCtxPushCurrent_v2(garbage), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuCtxPushCurrent(garbage), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuCtxPopCurrent_v2(&ctx), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuCtxPopCurrent(&ctx), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuCtxGetCurrent(&ctx), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuCtxGetDevice(&dev), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuCtxGetDevice_v2(&dev, NULL), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuCtxSynchronize_v2(NULL), CUDA_ERROR_NOT_INITIALIZED);
}
END_TEST

START_TEST(primary_retain_is_counted_and_not_pushed)
{
	CUcontext a = NULL, b = NULL;

	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&a, 1), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&b, 1), CUDA_SUCCESS);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_eq(a, b);
	ck_assert_ptr_null(current());
	ck_assert_int_eq(cuCtxGetDevice_v2(&(CUdevice){ 0 }, a), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease_v2(1), CUDA_SUCCESS);
	/* Still retained once: still usable. */
	ck_assert_int_eq(cuCtxSetCurrent(a), CUDA_SUCCESS);
	ck_assert_int_eq(current_device(), 1);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease(1), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease_v2(1), CUDA_ERROR_INVALID_CONTEXT);
}
END_TEST

START_TEST(primary_contexts_are_per_device)
{
	CUcontext a, b;

	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&a, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&b, 1), CUDA_SUCCESS);
	ck_assert_ptr_ne(a, b);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease_v2(0), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease_v2(1), CUDA_SUCCESS);
}
END_TEST

START_TEST(released_primary_handle_is_dead)
{
	CUcontext old, renewed;
	CUdevice dev;

	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&old, 2), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxPushCurrent(old), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease_v2(2), CUDA_SUCCESS);
	/* Release does not pop; the thread's current context is gone. */
	ck_assert_ptr_eq(current(), old);
	ck_assert_int_eq(cuCtxGetDevice(&dev), CUDA_ERROR_CONTEXT_IS_DESTROYED);
	ck_assert_int_eq(cuCtxGetDevice_v2(&dev, old), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxPushCurrent_v2(old), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&renewed, 2), CUDA_SUCCESS);
	ck_assert_ptr_ne(renewed, old);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease_v2(2), CUDA_SUCCESS);
}
END_TEST

START_TEST(primary_reset_keeps_the_retain)
{
	CUcontext ctx;

	ck_assert_int_eq(cuDevicePrimaryCtxReset_v2(0), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxReset_v2(0), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxReset(0), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSynchronize_v2(ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease_v2(0), CUDA_ERROR_INVALID_CONTEXT);
}
END_TEST

START_TEST(primary_bad_arguments_refused)
{
	int count = device_count();
	CUcontext ctx = garbage;

	ck_assert_int_eq(cuDevicePrimaryCtxRetain(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&ctx, count), CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&ctx, -1), CUDA_ERROR_INVALID_DEVICE);
	ck_assert_ptr_eq(ctx, garbage);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease_v2(count), CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease_v2(-1), CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease_v2(0), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuDevicePrimaryCtxReset_v2(count), CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuDevicePrimaryCtxReset(-1), CUDA_ERROR_INVALID_DEVICE);
}
END_TEST

START_TEST(create_pushes_and_destroy_pops)
{
	CUcontext outer = create(0), inner;

	ck_assert_ptr_eq(current(), outer);
	inner = create(3);
	ck_assert_ptr_ne(inner, outer);
	ck_assert_ptr_eq(current(), inner);
	ck_assert_int_eq(current_device(), 3);
	ck_assert_int_eq(cuCtxDestroy_v2(inner), CUDA_SUCCESS);
	ck_assert_ptr_eq(current(), outer);
	ck_assert_int_eq(current_device(), 0);
	ck_assert_int_eq(cuCtxDestroy(outer), CUDA_SUCCESS);
	ck_assert_ptr_null(current());
}
END_TEST

START_TEST(create_accepts_each_flag)
{
	static const unsigned int flags[] = {
		CU_CTX_SCHED_AUTO, CU_CTX_SCHED_SPIN, CU_CTX_SCHED_YIELD,
		CU_CTX_SCHED_BLOCKING_SYNC, CU_CTX_MAP_HOST,
		CU_CTX_LMEM_RESIZE_TO_MAX, CU_CTX_COREDUMP_ENABLE,
		CU_CTX_USER_COREDUMP_ENABLE, CU_CTX_SYNC_MEMOPS,
		CU_CTX_SCHED_YIELD | CU_CTX_MAP_HOST | CU_CTX_SYNC_MEMOPS,
	};
	size_t i;

	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		CUcontext ctx = NULL;

		ck_assert_int_eq(cuCtxCreate(&ctx, NULL, flags[i], 0), CUDA_SUCCESS);
		ck_assert_int_eq(cuCtxDestroy(ctx), CUDA_SUCCESS);
	}
}
END_TEST

START_TEST(create_bad_arguments_refused)
{
	int count = device_count();
	CUcontext ctx = garbage;

	ck_assert_int_eq(cuCtxCreate(NULL, NULL, 0, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxCreate(&ctx, NULL, 0x100, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxCreate(&ctx, NULL, CU_CTX_SCHED_SPIN | CU_CTX_SCHED_YIELD,
				     0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxCreate(&ctx, NULL, CU_CTX_SCHED_MASK, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxCreate(&ctx, NULL, 0, count), CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuCtxCreate(&ctx, NULL, 0, -1), CUDA_ERROR_INVALID_DEVICE);
	ck_assert_ptr_eq(ctx, garbage);
	ck_assert_ptr_null(current());
}
END_TEST

START_TEST(create_params)
{
	CUexecAffinityParam affinity = {
		.type = CU_EXEC_AFFINITY_TYPE_SM_COUNT,
		.param.smCount.val = 8,
	};
	CUctxCigParam cig = { CIG_DATA_TYPE_NV_BLOB, &affinity };
	CUctxCreateParams params = { 0 };
	CUcontext ctx = NULL;

	/* All empty: a plain context. */
	ck_assert_int_eq(cuCtxCreate(&ctx, &params, 0, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxDestroy(ctx), CUDA_SUCCESS);
	params.execAffinityParams = &affinity;
	params.numExecAffinityParams = 1;
	ck_assert_int_eq(cuCtxCreate(&ctx, &params, 0, 0),
			 CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY);
	params.numExecAffinityParams = -1;
	ck_assert_int_eq(cuCtxCreate(&ctx, &params, 0, 0), CUDA_ERROR_INVALID_VALUE);
	affinity.type = CU_EXEC_AFFINITY_TYPE_MAX;
	params.numExecAffinityParams = 1;
	ck_assert_int_eq(cuCtxCreate(&ctx, &params, 0, 0), CUDA_ERROR_INVALID_VALUE);
	params.execAffinityParams = NULL;
	ck_assert_int_eq(cuCtxCreate(&ctx, &params, 0, 0), CUDA_ERROR_INVALID_VALUE);
	params.numExecAffinityParams = 0;
	params.cigParams = &cig;
	ck_assert_int_eq(cuCtxCreate(&ctx, &params, 0, 0), CUDA_ERROR_NOT_SUPPORTED);
	params.execAffinityParams = &affinity;
	ck_assert_int_eq(cuCtxCreate(&ctx, &params, 0, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_ptr_null(current());
}
END_TEST

START_TEST(destroy_bad_handles_refused)
{
	CUcontext ctx = create(0), primary;
	int on_stack;

	ck_assert_int_eq(cuCtxDestroy_v2(ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxDestroy_v2(ctx), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxDestroy_v2(NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxDestroy_v2(garbage), CUDA_ERROR_INVALID_CONTEXT);
	/* Never dereferenced: a pointer to anything is just refused. */
	ck_assert_int_eq(cuCtxDestroy_v2((CUcontext)&on_stack), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxDestroy_v2((CUcontext)(uintptr_t)1), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxDestroy_v2((CUcontext)UINTPTR_MAX), CUDA_ERROR_INVALID_CONTEXT);
	/* Primary contexts end by release only. */
	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&primary, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxDestroy_v2(primary), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxSynchronize_v2(primary), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
}
END_TEST

START_TEST(destroyed_handle_refused_everywhere)
{
	CUcontext ctx = create(1);
	CUdevice dev = 77;

	ck_assert_int_eq(cuCtxDestroy_v2(ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxPushCurrent_v2(ctx), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxSetCurrent(ctx), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxGetDevice_v2(&dev, ctx), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxSynchronize_v2(ctx), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(dev, 77);
	ck_assert_ptr_null(current());
	/* Handles are not reused: a new context does not revive the old one. */
	ck_assert_ptr_ne(create(1), ctx);
	ck_assert_int_eq(cuCtxSynchronize_v2(ctx), CUDA_ERROR_INVALID_CONTEXT);
}
END_TEST

/* Destroying a context that is not on top leaves it in the stack. */
START_TEST(destroyed_below_the_top_is_destroyed_when_reached)
{
	CUcontext below = create(0), top = create(1), popped = NULL;
	CUdevice dev;

	ck_assert_int_eq(cuCtxDestroy_v2(below), CUDA_SUCCESS);
	ck_assert_ptr_eq(current(), top);
	ck_assert_int_eq(cuCtxPopCurrent_v2(&popped), CUDA_SUCCESS);
	ck_assert_ptr_eq(popped, top);
	ck_assert_ptr_eq(current(), below);
	ck_assert_int_eq(cuCtxGetDevice(&dev), CUDA_ERROR_CONTEXT_IS_DESTROYED);
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_ERROR_CONTEXT_IS_DESTROYED);
	ck_assert_int_eq(cuCtxPopCurrent_v2(&popped), CUDA_SUCCESS);
	ck_assert_ptr_eq(popped, below);
	ck_assert_int_eq(cuCtxDestroy_v2(top), CUDA_SUCCESS);
}
END_TEST

START_TEST(push_pop_is_a_stack)
{
	CUcontext a = create(0), b = create(1), popped;

	ck_assert_int_eq(cuCtxPopCurrent_v2(&popped), CUDA_SUCCESS);
	ck_assert_ptr_eq(popped, b);
	ck_assert_int_eq(cuCtxPopCurrent_v2(&popped), CUDA_SUCCESS);
	ck_assert_ptr_eq(popped, a);
	ck_assert_ptr_null(current());
	ck_assert_int_eq(cuCtxPushCurrent_v2(b), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxPushCurrent(a), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxPushCurrent_v2(a), CUDA_SUCCESS);
	ck_assert_int_eq(current_device(), 0);
	ck_assert_int_eq(cuCtxPopCurrent(NULL), CUDA_SUCCESS);
	ck_assert_ptr_eq(current(), a);
	ck_assert_int_eq(cuCtxPopCurrent_v2(&popped), CUDA_SUCCESS);
	ck_assert_int_eq(current_device(), 1);
	ck_assert_int_eq(cuCtxPopCurrent_v2(&popped), CUDA_SUCCESS);
	ck_assert_ptr_eq(popped, b);
	popped = garbage;
	ck_assert_int_eq(cuCtxPopCurrent_v2(&popped), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_ptr_eq(popped, garbage);
	ck_assert_int_eq(cuCtxPushCurrent_v2(NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxPushCurrent_v2(garbage), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_ptr_null(current());
}
END_TEST

START_TEST(deep_stack)
{
	CUcontext ctx = create(0), popped;
	int i;

	for (i = 0; i < 1000; i++)
		ck_assert_int_eq(cuCtxPushCurrent_v2(ctx), CUDA_SUCCESS);
	for (i = 0; i < 1001; i++)
		ck_assert_int_eq(cuCtxPopCurrent_v2(&popped), CUDA_SUCCESS);
	ck_assert_ptr_null(current());
}
END_TEST

START_TEST(set_current_replaces_the_top)
{
	CUcontext a = create(0), b = create(1), popped;

	ck_assert_int_eq(cuCtxSetCurrent(a), CUDA_SUCCESS);
	ck_assert_ptr_eq(current(), a);
	/* The stack was [a, b]; now [a, a]. */
	ck_assert_int_eq(cuCtxPopCurrent_v2(&popped), CUDA_SUCCESS);
	ck_assert_ptr_eq(current(), a);
	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	ck_assert_ptr_null(current());
	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetCurrent(b), CUDA_SUCCESS);
	ck_assert_ptr_eq(current(), b);
	ck_assert_int_eq(cuCtxSetCurrent(garbage), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_ptr_eq(current(), b);
}
END_TEST

START_TEST(get_current_and_device_bad_arguments)
{
	CUcontext ctx;
	CUdevice dev = 77;

	ck_assert_int_eq(cuCtxGetCurrent(NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxGetDevice(&dev), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxGetDevice_v2(&dev, NULL), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxGetDevice_v2(&dev, garbage), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(dev, 77);
	ctx = create(2);
	ck_assert_int_eq(cuCtxGetDevice(NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxGetDevice_v2(NULL, ctx), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxGetDevice_v2(&dev, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(dev, 2);
}
END_TEST

START_TEST(get_device_of_a_given_context)
{
	CUcontext a = create(4), b = create(5);
	CUdevice dev = -1;

	ck_assert_int_eq(cuCtxGetDevice_v2(&dev, a), CUDA_SUCCESS);
	ck_assert_int_eq(dev, 4);
	ck_assert_int_eq(cuCtxGetDevice_v2(&dev, b), CUDA_SUCCESS);
	ck_assert_int_eq(dev, 5);
}
END_TEST

START_TEST(synchronize_needs_a_context)
{
	CUcontext ctx;

	ck_assert_int_eq(cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxSynchronize_v2(NULL), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxSynchronize_v2(garbage), CUDA_ERROR_INVALID_CONTEXT);
	ctx = create(0);
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSynchronize_v2(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSynchronize_v2(ctx), CUDA_SUCCESS);
}
END_TEST

/* Threads: a new thread has no current context and its own stack. */
static void *thread_starts_without_context(void *shared)
{
	CUcontext ctx = garbage;

	if (cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || ctx)
		return "a new thread has a current context";
	if (cuCtxPushCurrent_v2(shared) != CUDA_SUCCESS ||
	    cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || ctx != shared)
		return "a context of another thread cannot be pushed";
	return NULL;
}

START_TEST(threads_have_their_own_stacks)
{
	CUcontext mine = create(0), other = create(1);
	pthread_t thread;
	void *failure;

	ck_assert_int_eq(pthread_create(&thread, NULL,
					thread_starts_without_context, other), 0);
	ck_assert_int_eq(pthread_join(thread, &failure), 0);
	ck_assert_msg(!failure, "%s", (char *)failure);
	ck_assert_ptr_eq(current(), other);
	ck_assert_int_eq(cuCtxPopCurrent_v2(NULL), CUDA_SUCCESS);
	ck_assert_ptr_eq(current(), mine);
}
END_TEST

#define THREADS 8
#define ROUNDS 300

/* Many threads creating, nesting, checking and destroying at once. */
static void *churn(void *arg)
{
	CUdevice dev = (CUdevice)(uintptr_t)arg, got;
	CUcontext outer, inner, ctx;
	int i;

	for (i = 0; i < ROUNDS; i++) {
		if (cuCtxCreate(&outer, NULL, 0, dev) != CUDA_SUCCESS ||
		    cuCtxCreate(&inner, NULL, 0, dev) != CUDA_SUCCESS)
			return "create failed";
		if (cuCtxGetDevice(&got) != CUDA_SUCCESS || got != dev)
			return "wrong current device";
		if (cuCtxDestroy_v2(inner) != CUDA_SUCCESS ||
		    cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || ctx != outer)
			return "destroy did not restore the outer context";
		if (cuCtxDestroy_v2(outer) != CUDA_SUCCESS ||
		    cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || ctx)
			return "stack not empty at the end of a round";
		if (cuDevicePrimaryCtxRetain(&ctx, 0) != CUDA_SUCCESS ||
		    cuCtxSynchronize_v2(ctx) != CUDA_SUCCESS ||
		    cuDevicePrimaryCtxRelease_v2(0) != CUDA_SUCCESS)
			return "primary context retain/release failed";
	}
	return NULL;
}

START_TEST(threads_churn_concurrently)
{
	pthread_t threads[THREADS];
	CUcontext primary;
	void *failure;
	int i;

	/* Held throughout, so concurrent releases never end it. */
	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&primary, 0), CUDA_SUCCESS);
	for (i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_create(&threads[i], NULL, churn,
				(void *)(uintptr_t)(i % device_count())), 0);
	for (i = 0; i < THREADS; i++) {
		ck_assert_int_eq(pthread_join(threads[i], &failure), 0);
		ck_assert_msg(!failure, "thread %d: %s", i, (char *)failure);
	}
	ck_assert_int_eq(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease_v2(0), CUDA_ERROR_INVALID_CONTEXT);
}
END_TEST

struct victim {
	CUcontext ctx;
	pthread_barrier_t made_current, destroyed;
};

static void *hold_current(void *arg)
{
	struct victim *v = arg;
	CUdevice dev;
	CUresult res;

	cuCtxSetCurrent(v->ctx);
	pthread_barrier_wait(&v->made_current);
	pthread_barrier_wait(&v->destroyed);
	res = cuCtxGetDevice(&dev);
	return res == CUDA_ERROR_CONTEXT_IS_DESTROYED ? NULL :
	       "destroyed current context not reported";
}

/* Destroyed by one thread while current to another. */
START_TEST(destroy_while_current_elsewhere)
{
	struct victim v = { .ctx = create(0) };
	pthread_t thread;
	void *failure;

	ck_assert_int_eq(cuCtxPopCurrent_v2(NULL), CUDA_SUCCESS);
	pthread_barrier_init(&v.made_current, NULL, 2);
	pthread_barrier_init(&v.destroyed, NULL, 2);
	ck_assert_int_eq(pthread_create(&thread, NULL, hold_current, &v), 0);
	pthread_barrier_wait(&v.made_current);
	ck_assert_int_eq(cuCtxDestroy_v2(v.ctx), CUDA_SUCCESS);
	pthread_barrier_wait(&v.destroyed);
	ck_assert_int_eq(pthread_join(thread, &failure), 0);
	ck_assert_msg(!failure, "%s", (char *)failure);
}
END_TEST

static CUcontext parent_ctx;

static int child_starts_without_contexts(void)
{
	CUcontext ctx = garbage;
	CUdevice dev;

	CHILD_EXPECT(cuCtxGetCurrent(&ctx) == CUDA_ERROR_NOT_INITIALIZED);
	CHILD_EXPECT(cuInit(0) == CUDA_SUCCESS);
	CHILD_EXPECT(cuCtxGetCurrent(&ctx) == CUDA_SUCCESS && !ctx);
	CHILD_EXPECT(cuCtxSetCurrent(parent_ctx) == CUDA_ERROR_INVALID_CONTEXT);
	CHILD_EXPECT(cuCtxDestroy_v2(parent_ctx) == CUDA_ERROR_INVALID_CONTEXT);
	CHILD_EXPECT(cuDevicePrimaryCtxRelease_v2(0) == CUDA_ERROR_INVALID_CONTEXT);
	CHILD_EXPECT(cuCtxCreate(&ctx, NULL, 0, 1) == CUDA_SUCCESS);
	CHILD_EXPECT(ctx != parent_ctx);
	CHILD_EXPECT(cuCtxGetDevice(&dev) == CUDA_SUCCESS && dev == 1);
	return 0;
}

START_TEST(forked_child_starts_without_contexts)
{
	CUcontext primary;

	parent_ctx = create(0);
	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&primary, 0), CUDA_SUCCESS);
	assert_child_passes(child_starts_without_contexts);
	ck_assert_ptr_eq(current(), parent_ctx);
	ck_assert_int_eq(current_device(), 0);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
}
END_TEST

/* Limits and the cache preference are the context's own (ctx_config.c). */
START_TEST(limits_and_settings_per_context)
{
	CUcontext primary, created;
	CUfunc_cache cache = 9;
	CUsharedconfig bank = 9;
	unsigned long long id1 = 0, id2 = 0;
	unsigned int api = 0;
	size_t v = 0;
	CUexecAffinityParam aff;

	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&primary, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetCurrent(primary), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE), CUDA_SUCCESS);
	ck_assert_uint_eq(v, 1024);
	ck_assert_int_eq(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 4096), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE), CUDA_SUCCESS);
	ck_assert_uint_eq(v, 4096);
	ck_assert_int_eq(cuCtxSetLimit(CU_LIMIT_MAX_L2_FETCH_GRANULARITY, 4096),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxGetLimit(&v, CU_LIMIT_MAX_L2_FETCH_GRANULARITY),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(v, 128);
	ck_assert_int_eq(cuCtxSetLimit(CU_LIMIT_CIG_ENABLED, 1),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxGetLimit(&v, CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH),
			 CUDA_ERROR_UNSUPPORTED_LIMIT);
	ck_assert_int_eq(cuCtxSetLimit(CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH, 4),
			 CUDA_ERROR_UNSUPPORTED_LIMIT);
	ck_assert_int_eq(cuCtxGetLimit(&v, CU_LIMIT_MAX), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxGetLimit(NULL, CU_LIMIT_STACK_SIZE),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_SHARED),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetCacheConfig(7), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxGetCacheConfig(&cache), CUDA_SUCCESS);
	ck_assert_int_eq(cache, CU_FUNC_CACHE_PREFER_SHARED);
	ck_assert_int_eq(cuCtxGetSharedMemConfig(&bank), CUDA_SUCCESS);
	ck_assert_int_eq(bank, CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE);
	ck_assert_int_eq(cuCtxSetSharedMemConfig(CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetSharedMemConfig(3), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxGetApiVersion(NULL, &api), CUDA_SUCCESS);
	ck_assert_uint_eq(api, 3020);
	ck_assert_int_eq(cuCtxGetId(NULL, &id1), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxGetExecAffinity(&aff, CU_EXEC_AFFINITY_TYPE_SM_COUNT),
			 CUDA_SUCCESS);
	ck_assert_int_eq(aff.param.smCount.val, 132);
	ck_assert_int_eq(cuCtxResetPersistingL2Cache(), CUDA_SUCCESS);

	/* A new context starts from the defaults, with an id of its own. */
	ck_assert_int_eq(cuCtxCreate(&created, NULL, 0, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE), CUDA_SUCCESS);
	ck_assert_uint_eq(v, 1024);
	ck_assert_int_eq(cuCtxGetCacheConfig(&cache), CUDA_SUCCESS);
	ck_assert_int_eq(cache, CU_FUNC_CACHE_PREFER_NONE);
	ck_assert_int_eq(cuCtxGetId(created, &id2), CUDA_SUCCESS);
	ck_assert_uint_ne(id1, id2);
	ck_assert_int_eq(cuCtxGetId(primary, &id2), CUDA_SUCCESS);
	ck_assert_uint_eq(id1, id2);
	ck_assert_int_eq(cuCtxDestroy(created), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxGetId(created, &id2), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxGetApiVersion(created, &api),
			 CUDA_ERROR_INVALID_CONTEXT);

	/* The primary context kept its own. */
	ck_assert_int_eq(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE), CUDA_SUCCESS);
	ck_assert_uint_eq(v, 4096);
	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE),
			 CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxGetId(NULL, &id2), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxResetPersistingL2Cache(), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
}
END_TEST

/* Binaries built against older headers call cuCtxCreate_v2 and _v3. */
START_TEST(older_create_abis)
{
	CUresult (*v2)(CUcontext *, unsigned int, CUdevice);
	CUresult (*v3)(CUcontext *, CUexecAffinityParam *, int, unsigned int,
		       CUdevice);
	CUexecAffinityParam aff = { .type = CU_EXEC_AFFINITY_TYPE_SM_COUNT,
				    .param.smCount.val = 8 };
	CUdriverProcAddressQueryResult status;
	CUcontext ctx = NULL, cur = NULL;
	unsigned int flags = 0;
	void *fn = NULL;

	ck_assert_int_eq(cuGetProcAddress("cuCtxCreate", &fn, 3020, 0, &status),
			 CUDA_SUCCESS);
	ck_assert_ptr_nonnull(fn);
	v2 = (CUresult (*)(CUcontext *, unsigned int, CUdevice))fn;
	ck_assert_int_eq(cuGetProcAddress("cuCtxCreate", &fn, 11040, 0, &status),
			 CUDA_SUCCESS);
	ck_assert_ptr_nonnull(fn);
	v3 = (CUresult (*)(CUcontext *, CUexecAffinityParam *, int,
			   unsigned int, CUdevice))fn;

	ck_assert_int_eq(v2(&ctx, CU_CTX_SCHED_YIELD, 1), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxGetCurrent(&cur), CUDA_SUCCESS);
	ck_assert_ptr_eq(cur, ctx);
	ck_assert_int_eq(cuCtxGetFlags(&flags), CUDA_SUCCESS);
	ck_assert_uint_eq(flags & CU_CTX_SCHED_MASK, CU_CTX_SCHED_YIELD);
	ck_assert_int_eq(cuCtxDestroy(ctx), CUDA_SUCCESS);
	ck_assert_int_eq(v2(NULL, 0, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(v2(&ctx, 0, device_count()), CUDA_ERROR_INVALID_DEVICE);

	ck_assert_int_eq(v3(&ctx, NULL, 0, 0, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxDestroy(ctx), CUDA_SUCCESS);
	ck_assert_int_eq(v3(&ctx, &aff, 1, 0, 0),
			 CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY);
	ck_assert_int_eq(v3(&ctx, NULL, 1, 0, 0), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

/* The deprecated usage counts: attach adds one, the last detach destroys. */
START_TEST(attach_and_detach)
{
	CUcontext ctx, got = NULL, cur;
	CUdevice dev;

	ck_assert_int_eq(cuCtxAttach(&got, 0), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxCreate(&ctx, NULL, 0, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxAttach(&got, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxAttach(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxAttach(&got, 0), CUDA_SUCCESS);
	ck_assert_ptr_eq(got, ctx);
	ck_assert_int_eq(cuCtxDetach(ctx), CUDA_SUCCESS);
	/* Still live: the creation's use is left. */
	ck_assert_int_eq(cuCtxGetCurrent(&cur), CUDA_SUCCESS);
	ck_assert_ptr_eq(cur, ctx);
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxDetach(ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxGetDevice_v2(&dev, ctx), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxDetach(ctx), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxDetach(NULL), CUDA_ERROR_INVALID_CONTEXT);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("context management");
	TCase *primary = tcase_create("primary contexts");
	TCase *ctx = tcase_create("contexts");
	TCase *threads = tcase_create("threads and fork");

	check_add_uninit(s, everything_needs_init);

	tcase_add_checked_fixture(primary, setup, NULL);
	tcase_add_test(primary, primary_retain_is_counted_and_not_pushed);
	tcase_add_test(primary, primary_contexts_are_per_device);
	tcase_add_test(primary, released_primary_handle_is_dead);
	tcase_add_test(primary, primary_reset_keeps_the_retain);
	tcase_add_test(primary, primary_bad_arguments_refused);
	suite_add_tcase(s, primary);

	tcase_add_checked_fixture(ctx, setup, NULL);
	tcase_add_test(ctx, create_pushes_and_destroy_pops);
	tcase_add_test(ctx, create_accepts_each_flag);
	tcase_add_test(ctx, create_bad_arguments_refused);
	tcase_add_test(ctx, create_params);
	tcase_add_test(ctx, destroy_bad_handles_refused);
	tcase_add_test(ctx, destroyed_handle_refused_everywhere);
	tcase_add_test(ctx, destroyed_below_the_top_is_destroyed_when_reached);
	tcase_add_test(ctx, push_pop_is_a_stack);
	tcase_add_test(ctx, deep_stack);
	tcase_add_test(ctx, set_current_replaces_the_top);
	tcase_add_test(ctx, get_current_and_device_bad_arguments);
	tcase_add_test(ctx, get_device_of_a_given_context);
	tcase_add_test(ctx, synchronize_needs_a_context);
	tcase_add_test(ctx, limits_and_settings_per_context);
	tcase_add_test(ctx, older_create_abis);
	tcase_add_test(ctx, attach_and_detach);
	suite_add_tcase(s, ctx);

	tcase_add_checked_fixture(threads, setup, NULL);
	tcase_set_timeout(threads, 60);
	tcase_add_test(threads, threads_have_their_own_stacks);
	tcase_add_test(threads, threads_churn_concurrently);
	tcase_add_test(threads, destroy_while_current_elsewhere);
	tcase_add_test(threads, forked_child_starts_without_contexts);
	suite_add_tcase(s, threads);

	return check_run_forked(s);
}
