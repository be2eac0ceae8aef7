// SPDX-License-Identifier: MIT
/*
 * The breadth of cuda.h: green contexts' resources and their split, green
 * contexts, their streams and events, checkpointing it cannot do, coredump
 * settings, the driver's log (cuLogs*), profiler marks, and an export
 * table's refusal as the log tells it.
 */
#include <check.h>
#include <cuda.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_run.h"
#include "stream_gate.h"
#include "vmm.h"

static void setup(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	vmm_use_device(0);
}

static CUdevResource device_sms(CUdevice dev)
{
	CUdevResource r;
	int sms;

	ck_assert_int_eq(cuDeviceGetDevResource(dev, &r, CU_DEV_RESOURCE_TYPE_SM),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuDeviceGetAttribute(&sms,
			CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev), CUDA_SUCCESS);
	ck_assert_int_eq(r.type, CU_DEV_RESOURCE_TYPE_SM);
	ck_assert_uint_eq(r.sm.smCount, sms);
	return r;
}

START_TEST(device_resource_is_every_sm)
{
	CUdevResource r = device_sms(0), c;
	CUcontext ctx;

	ck_assert_uint_eq(r.sm.minSmPartitionSize, 8);
	ck_assert_uint_eq(r.sm.smCoscheduledAlignment, 8);
	ck_assert_int_eq(cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxGetDevResource(ctx, &c, CU_DEV_RESOURCE_TYPE_SM),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(c.sm.smCount, r.sm.smCount);
	ck_assert_int_eq(cuDeviceGetDevResource(0, &r, CU_DEV_RESOURCE_TYPE_INVALID),
			 CUDA_ERROR_INVALID_RESOURCE_TYPE);
	ck_assert_int_eq(cuDeviceGetDevResource(0, NULL, CU_DEV_RESOURCE_TYPE_SM),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetDevResource(-1, &r, CU_DEV_RESOURCE_TYPE_SM),
			 CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuCtxGetDevResource(NULL, &c, CU_DEV_RESOURCE_TYPE_SM),
			 CUDA_ERROR_INVALID_CONTEXT);
}
END_TEST

/* Groups of at least minCount, rounded up to a multiple of 8, the rest left. */
START_TEST(split_rounds_to_the_alignment)
{
	CUdevResource sm = device_sms(0), groups[64], rest;
	unsigned int n = 64, query = 0, i;

	ck_assert_int_eq(cuDevSmResourceSplitByCount(NULL, &query, &sm, NULL, 0, 12),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(query, sm.sm.smCount / 16);
	ck_assert_int_eq(cuDevSmResourceSplitByCount(groups, &n, &sm, &rest, 0, 12),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(n, query);
	for (i = 0; i < n; i++) {
		ck_assert_uint_eq(groups[i].sm.smCount, 16);
		ck_assert_uint_eq(groups[i].sm.minSmPartitionSize, 0);
	}
	ck_assert_uint_eq(rest.sm.smCount, sm.sm.smCount - 16 * n);
	n = 2;
	ck_assert_int_eq(cuDevSmResourceSplitByCount(groups, &n, &sm, &rest, 0, 0),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(groups[0].sm.smCount, 8);
	ck_assert_uint_eq(rest.sm.smCount, sm.sm.smCount - 16);
	/* Pairs of SMs without co-scheduling: 3 rounds up to 4 (as on an H200). */
	n = 64;
	ck_assert_int_eq(cuDevSmResourceSplitByCount(groups, &n, &sm, &rest,
			CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING, 3),
			CUDA_SUCCESS);
	ck_assert_uint_eq(groups[0].sm.smCount, 4);
	ck_assert_uint_eq(n, sm.sm.smCount / 4);
	ck_assert_uint_eq(rest.sm.smCount, sm.sm.smCount % 4);
}
END_TEST

START_TEST(split_refuses_bad_input)
{
	CUdevResource sm = device_sms(0), group, bogus;
	unsigned int n = 1;

	ck_assert_int_eq(cuDevSmResourceSplitByCount(&group, &n, &sm, NULL, 0,
			sm.sm.smCount + 1), CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION);
	ck_assert_int_eq(cuDevSmResourceSplitByCount(&group, &n, &sm, NULL, 0x100, 8),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDevSmResourceSplitByCount(&group, NULL, &sm, NULL, 0, 8),
			 CUDA_ERROR_INVALID_VALUE);
	n = 0;
	ck_assert_int_eq(cuDevSmResourceSplitByCount(&group, &n, &sm, NULL, 0, 8),
			 CUDA_ERROR_INVALID_VALUE);
	memset(&bogus, 0, sizeof(bogus));
	bogus.type = CU_DEV_RESOURCE_TYPE_SM;
	bogus.sm.smCount = 64;
	n = 1;
	ck_assert_int_eq(cuDevSmResourceSplitByCount(&group, &n, &bogus, NULL, 0, 8),
			 CUDA_ERROR_INVALID_RESOURCE_TYPE);
	/* No group of the least 8 SMs fits in a group of 4. */
	n = 1;
	ck_assert_int_eq(cuDevSmResourceSplitByCount(&group, &n, &sm, NULL,
			CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING, 4),
			CUDA_SUCCESS);
	ck_assert_uint_eq(group.sm.smCount, 4);
	ck_assert_int_eq(cuDevSmResourceSplitByCount(&bogus, &n, &group, NULL, 0, 0),
			 CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION);
}
END_TEST

START_TEST(descriptors_take_one_split)
{
	CUdevResource sm = device_sms(0), a[2], b[2];
	unsigned int n = 2;
	CUdevResourceDesc desc;

	ck_assert_int_eq(cuDevSmResourceSplitByCount(a, &n, &sm, NULL, 0, 8),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuDevSmResourceSplitByCount(b, &n, &sm, NULL, 0, 8),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuDevResourceGenerateDesc(&desc, a, 2), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevResourceGenerateDesc(&desc, &sm, 1), CUDA_SUCCESS);
	a[1] = b[0];
	ck_assert_int_eq(cuDevResourceGenerateDesc(&desc, a, 2),
			 CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION);
	ck_assert_int_eq(cuDevResourceGenerateDesc(&desc, a, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDevResourceGenerateDesc(NULL, a, 1),
			 CUDA_ERROR_INVALID_VALUE);
}
END_TEST

/* A green context of the first group of @sms SMs of device 0. */
static CUgreenCtx green_of(unsigned int sms)
{
	CUdevResource sm = device_sms(0), group;
	unsigned int n = 1;
	CUdevResourceDesc desc;
	CUgreenCtx green;

	ck_assert_int_eq(cuDevSmResourceSplitByCount(&group, &n, &sm, NULL, 0, sms),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuDevResourceGenerateDesc(&desc, &group, 1), CUDA_SUCCESS);
	ck_assert_int_eq(cuGreenCtxCreate(&green, desc, 0, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGreenCtxCreate(NULL, desc, 0, CU_GREEN_CTX_DEFAULT_STREAM),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGreenCtxCreate(&green, desc, -1, CU_GREEN_CTX_DEFAULT_STREAM),
			 CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuGreenCtxCreate(&green, desc, 0, CU_GREEN_CTX_DEFAULT_STREAM),
			 CUDA_SUCCESS);
	return green;
}

START_TEST(green_context_is_a_partition)
{
	CUgreenCtx green = green_of(16), other = (CUgreenCtx)&green;
	unsigned long long id, current_id;
	CUcontext ctx, before, got;
	CUdevResource r;
	CUdeviceptr ptr;
	CUstream stream;
	CUdevice dev;

	ck_assert_int_eq(cuCtxGetCurrent(&before), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxFromGreenCtx(&ctx, green), CUDA_SUCCESS);
	ck_assert_ptr_nonnull(ctx);
	ck_assert_ptr_ne(ctx, before);
	/* Creating it does not make it current. */
	ck_assert_int_eq(cuCtxGetCurrent(&got), CUDA_SUCCESS);
	ck_assert_ptr_eq(got, before);
	ck_assert_int_eq(cuGreenCtxGetDevResource(green, &r, CU_DEV_RESOURCE_TYPE_SM),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(r.sm.smCount, 16);
	ck_assert_int_eq(cuCtxGetDevResource(ctx, &r, CU_DEV_RESOURCE_TYPE_SM),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(r.sm.smCount, 16);
	ck_assert_int_eq(cuGreenCtxGetId(green, &id), CUDA_SUCCESS);
	/* NULL names the current context only while it is green. */
	ck_assert_int_eq(cuGreenCtxGetId(NULL, &current_id), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuGreenCtxGetId(NULL, &current_id), CUDA_SUCCESS);
	ck_assert_uint_eq(current_id, id);
	/* The whole API takes it: memory, streams, synchronization. */
	ck_assert_int_eq(cuCtxGetDevice(&dev), CUDA_SUCCESS);
	ck_assert_int_eq(dev, 0);
	ck_assert_int_eq(cuMemAlloc(&ptr, 4096), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD32(ptr, 7, 1024), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(ptr), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamCreate(&stream, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamGetGreenCtx(stream, &other), CUDA_SUCCESS);
	ck_assert_ptr_eq(other, green);
	ck_assert_int_eq(cuStreamGetCtx(stream, &got), CUDA_SUCCESS);
	ck_assert_ptr_eq(got, ctx);
	ck_assert_int_eq(cuStreamDestroy(stream), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetCurrent(before), CUDA_SUCCESS);
	/* Only cuGreenCtxDestroy ends it. */
	ck_assert_int_eq(cuCtxDestroy(ctx), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuGreenCtxDestroy(green), CUDA_SUCCESS);
	ck_assert_int_eq(cuGreenCtxDestroy(green), CUDA_ERROR_CONTEXT_IS_DESTROYED);
	ck_assert_int_eq(cuCtxFromGreenCtx(&got, green), CUDA_ERROR_CONTEXT_IS_DESTROYED);
	ck_assert_int_eq(cuGreenCtxGetId(green, &id), CUDA_ERROR_CONTEXT_IS_DESTROYED);
	ck_assert_int_eq(cuCtxGetCurrent(&got), CUDA_SUCCESS);
	ck_assert_ptr_eq(got, before);
}
END_TEST

START_TEST(green_streams)
{
	CUgreenCtx green = green_of(8), other = (CUgreenCtx)&green;
	CUstream stream, plain;
	CUcontext ctx, got;
	unsigned int flags;

	ck_assert_int_eq(cuCtxFromGreenCtx(&ctx, green), CUDA_SUCCESS);
	/* cuda.h makes CU_STREAM_NON_BLOCKING required. */
	ck_assert_int_eq(cuGreenCtxStreamCreate(&stream, green, 0, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGreenCtxStreamCreate(NULL, green, CU_STREAM_NON_BLOCKING, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGreenCtxStreamCreate(&stream, NULL, CU_STREAM_NON_BLOCKING, 0),
			 CUDA_ERROR_INVALID_CONTEXT);
	/* Made in the green context, not in the current one. */
	ck_assert_int_eq(cuGreenCtxStreamCreate(&stream, green, CU_STREAM_NON_BLOCKING, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamGetFlags(stream, &flags), CUDA_SUCCESS);
	ck_assert_uint_eq(flags, CU_STREAM_NON_BLOCKING);
	ck_assert_int_eq(cuStreamGetGreenCtx(stream, &other), CUDA_SUCCESS);
	ck_assert_ptr_eq(other, green);
	ck_assert_int_eq(cuStreamGetCtx(stream, &got), CUDA_SUCCESS);
	ck_assert_ptr_eq(got, ctx);
	ck_assert_int_eq(cuStreamGetCtx_v2(stream, &got, &other), CUDA_SUCCESS);
	ck_assert_ptr_eq(got, ctx);
	ck_assert_ptr_eq(other, green);
	ck_assert_int_eq(cuStreamGetGreenCtx(stream, NULL), CUDA_ERROR_INVALID_VALUE);
	/* A stream of an ordinary context has none. */
	ck_assert_int_eq(cuStreamCreate(&plain, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamGetGreenCtx(plain, &other), CUDA_SUCCESS);
	ck_assert_ptr_null(other);
	ck_assert_int_eq(cuStreamDestroy(plain), CUDA_SUCCESS);
	/* Its streams go with it. */
	ck_assert_int_eq(cuGreenCtxDestroy(green), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamQuery(stream), CUDA_ERROR_INVALID_HANDLE);
}
END_TEST

/* Recording captures every stream of it, non-blocking ones included. */
START_TEST(green_record_event_waits_for_all_streams)
{
	CUgreenCtx green = green_of(8);
	CUcontext ctx, before;
	struct gate gate = { 0 };
	CUevent event, foreign;
	CUstream stream;

	ck_assert_int_eq(cuCtxGetCurrent(&before), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventCreate(&foreign, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxFromGreenCtx(&ctx, green), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventCreate(&event, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGreenCtxStreamCreate(&stream, green, CU_STREAM_NON_BLOCKING, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(stream, gate_fn, &gate), CUDA_SUCCESS);
	ck_assert_int_eq(cuGreenCtxRecordEvent(NULL, event), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuGreenCtxRecordEvent(green, NULL), CUDA_ERROR_INVALID_HANDLE);
	/* The event and the green context must share a context. */
	ck_assert_int_eq(cuGreenCtxRecordEvent(green, foreign), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuGreenCtxRecordEvent(green, event), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventQuery(event), CUDA_ERROR_NOT_READY);
	atomic_store(&gate.open, 1);
	ck_assert_int_eq(cuEventSynchronize(event), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(event), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(stream), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetCurrent(before), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(foreign), CUDA_SUCCESS);
	ck_assert_int_eq(cuGreenCtxDestroy(green), CUDA_SUCCESS);
}
END_TEST

/* Waiting holds back its streams' later work, from any context's event. */
START_TEST(green_wait_event_holds_its_streams)
{
	CUgreenCtx green = green_of(8);
	struct gate gate = { 0 };
	CUstream stream, elsewhere;
	atomic_int ran = 0;
	CUevent event;

	ck_assert_int_eq(cuStreamCreate(&elsewhere, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventCreate(&event, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(elsewhere, gate_fn, &gate), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventRecord(event, elsewhere), CUDA_SUCCESS);
	ck_assert_int_eq(cuGreenCtxStreamCreate(&stream, green, CU_STREAM_NON_BLOCKING, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGreenCtxWaitEvent(NULL, event), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuGreenCtxWaitEvent(green, NULL), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuGreenCtxWaitEvent(green, event), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(stream, set_flag_fn, &ran), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamQuery(stream), CUDA_ERROR_NOT_READY);
	ck_assert_int_eq(atomic_load(&ran), 0);
	atomic_store(&gate.open, 1);
	ck_assert_int_eq(cuStreamSynchronize(stream), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&ran), 1);
	ck_assert_int_eq(cuStreamDestroy(stream), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(elsewhere), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(event), CUDA_SUCCESS);
	ck_assert_int_eq(cuGreenCtxDestroy(green), CUDA_SUCCESS);
}
END_TEST

/* Handles that are no green context's: bad input, nothing changed. */
START_TEST(green_handles_refused)
{
	CUgreenCtx green = (CUgreenCtx)&green;
	CUcontext ctx, before, got;
	unsigned long long id;
	CUdevResource r;
	CUstream stream;

	ck_assert_int_eq(cuCtxGetCurrent(&before), CUDA_SUCCESS);
	ctx = before;
	ck_assert_int_eq(cuGreenCtxDestroy(NULL), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuGreenCtxDestroy(green), CUDA_ERROR_INVALID_CONTEXT);
	/* An ordinary context is no green context. */
	ck_assert_int_eq(cuGreenCtxDestroy((CUgreenCtx)ctx), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxFromGreenCtx(&ctx, green), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxFromGreenCtx(NULL, green), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGreenCtxGetId(green, &id), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuGreenCtxGetId(green, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGreenCtxStreamCreate(&stream, green, CU_STREAM_NON_BLOCKING, 0),
			 CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuGreenCtxGetDevResource(green, &r, CU_DEV_RESOURCE_TYPE_SM),
			 CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuGreenCtxGetDevResource(green, NULL, CU_DEV_RESOURCE_TYPE_SM),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGreenCtxGetDevResource(green, &r, CU_DEV_RESOURCE_TYPE_INVALID),
			 CUDA_ERROR_INVALID_RESOURCE_TYPE);
	ck_assert_int_eq(cuCtxGetCurrent(&got), CUDA_SUCCESS);
	ck_assert_ptr_eq(got, before);
}
END_TEST

START_TEST(checkpoint_is_not_supported)
{
	CUcheckpointLockArgs lock = { .reserved0 = 0 };
	CUprocessState state = CU_PROCESS_STATE_FAILED;
	int tid;

	ck_assert_int_eq(cuCheckpointProcessGetState(getpid(), &state), CUDA_SUCCESS);
	ck_assert_int_eq(state, CU_PROCESS_STATE_RUNNING);
	ck_assert_int_eq(cuCheckpointProcessGetState(getppid(), &state), CUDA_SUCCESS);
	ck_assert_int_eq(cuCheckpointProcessGetState(getpid(), NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCheckpointProcessGetState(0, &state),
			 CUDA_ERROR_OPERATING_SYSTEM);
	ck_assert_int_eq(cuCheckpointProcessGetRestoreThreadId(getpid(), &tid),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuCheckpointProcessLock(getpid(), &lock), CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuCheckpointProcessLock(getpid(), NULL), CUDA_ERROR_NOT_SUPPORTED);
	lock.reserved1[3] = 1;
	ck_assert_int_eq(cuCheckpointProcessLock(getpid(), &lock), CUDA_ERROR_INVALID_VALUE);
	/* Never locked, so never to be checkpointed, restored or unlocked. */
	ck_assert_int_eq(cuCheckpointProcessCheckpoint(getpid(), NULL),
			 CUDA_ERROR_ILLEGAL_STATE);
	ck_assert_int_eq(cuCheckpointProcessRestore(getpid(), NULL),
			 CUDA_ERROR_ILLEGAL_STATE);
	ck_assert_int_eq(cuCheckpointProcessUnlock(getpid(), NULL),
			 CUDA_ERROR_ILLEGAL_STATE);
	ck_assert_int_eq(cuCheckpointProcessUnlock(-5, NULL), CUDA_ERROR_OPERATING_SYSTEM);
}
END_TEST

START_TEST(coredump_settings)
{
	char file[1024];
	size_t size = sizeof(bool);
	bool on = true, off = false, value = true;
	int flags = -1;

	ck_assert_int_eq(cuCoredumpGetAttribute(CU_COREDUMP_ENABLE_ON_EXCEPTION,
						&value, &size), CUDA_SUCCESS);
	ck_assert(!value);
	ck_assert_int_eq(cuCoredumpGetAttributeGlobal(CU_COREDUMP_TRIGGER_HOST,
						      &value, &size), CUDA_SUCCESS);
	ck_assert(value);
	/* Driver 580's answers: room for 1023 characters, an empty name. */
	size = 0;
	ck_assert_int_eq(cuCoredumpGetAttributeGlobal(CU_COREDUMP_FILE, NULL, &size),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(size, 1024);
	size = sizeof(file);
	strcpy(file, "x");
	ck_assert_int_eq(cuCoredumpGetAttributeGlobal(CU_COREDUMP_FILE, file, &size),
			 CUDA_SUCCESS);
	ck_assert_str_eq(file, "");
	/* Turning dumps on is what cumc cannot do; off it is already. */
	size = sizeof(bool);
	ck_assert_int_eq(cuCoredumpSetAttributeGlobal(CU_COREDUMP_ENABLE_ON_EXCEPTION,
						      &on, &size),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuCoredumpSetAttribute(CU_COREDUMP_ENABLE_ON_EXCEPTION,
						&off, &size), CUDA_SUCCESS);
	/* A context's settings change apart from the process's. */
	ck_assert_int_eq(cuCoredumpSetAttribute(CU_COREDUMP_LIGHTWEIGHT, &on, &size),
			 CUDA_SUCCESS);
	size = sizeof(flags);
	ck_assert_int_eq(cuCoredumpGetAttribute(CU_COREDUMP_GENERATION_FLAGS,
						&flags, &size), CUDA_SUCCESS);
	ck_assert_int_eq(flags, CU_COREDUMP_LIGHTWEIGHT_FLAGS);
	ck_assert_int_eq(cuCoredumpGetAttributeGlobal(CU_COREDUMP_GENERATION_FLAGS,
						      &flags, &size), CUDA_SUCCESS);
	ck_assert_int_eq(flags, 0);
	size = sizeof("dumps/here");
	ck_assert_int_eq(cuCoredumpSetAttribute(CU_COREDUMP_FILE, "dumps/here", &size),
			 CUDA_SUCCESS);
	size = sizeof(file);
	ck_assert_int_eq(cuCoredumpGetAttribute(CU_COREDUMP_FILE, file, &size),
			 CUDA_SUCCESS);
	ck_assert_str_eq(file, "dumps/here");
	/* The user's pipe is the process's alone; bad sizes and attributes refused. */
	size = sizeof("p");
	ck_assert_int_eq(cuCoredumpSetAttribute(CU_COREDUMP_PIPE, "p", &size),
			 CUDA_ERROR_NOT_PERMITTED);
	size = 0;
	ck_assert_int_eq(cuCoredumpGetAttribute(CU_COREDUMP_TRIGGER_HOST, &value, &size),
			 CUDA_ERROR_INVALID_VALUE);
	size = 8;
	ck_assert_int_eq(cuCoredumpGetAttribute(CU_COREDUMP_MAX, &flags, &size),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCoredumpGetAttribute(CU_COREDUMP_FILE, file, NULL),
			 CUDA_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(coredump_needs_a_context)
{
	size_t size = sizeof(bool);
	bool value;

	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuCoredumpGetAttribute(CU_COREDUMP_TRIGGER_HOST, &value, &size),
			 CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCoredumpGetAttributeGlobal(CU_COREDUMP_TRIGGER_HOST,
						      &value, &size), CUDA_SUCCESS);
}
END_TEST

START_TEST(profiler_marks)
{
	ck_assert_int_eq(cuProfilerStart(), CUDA_SUCCESS);
	ck_assert_int_eq(cuProfilerStop(), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuProfilerStart(), CUDA_ERROR_INVALID_CONTEXT);
}
END_TEST

/* A UUID no table has, and its line in the driver's log. */
static const CUuuid no_table = { { 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a,
				   0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a } };
static const char no_table_line[] =
	"cumc: cuGetExportTable: CUDA_ERROR_NOT_SUPPORTED (801): "
	"no table 5a5a5a5a-5a5a-5a5a-5a5a-5a5a5a5a5a5a\n";

static void fail_once(void)
{
	const void *table = &table;

	ck_assert_int_eq(cuGetExportTable(&table, &no_table), CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_ptr_null(table);
}

START_TEST(logs_keep_failing_calls)
{
	CUlogIterator it, start, origin;
	char buf[4096];
	size_t size = sizeof(buf);

	ck_assert_int_eq(cuLogsCurrent(&origin, 0), CUDA_SUCCESS);
	it = origin;
	ck_assert_int_eq(cuLogsDumpToMemory(&it, buf, &size, 0), CUDA_SUCCESS);
	ck_assert_uint_eq(size, 0);
	fail_once();
	size = sizeof(buf);
	ck_assert_int_eq(cuLogsDumpToMemory(&it, buf, &size, 0), CUDA_SUCCESS);
	ck_assert_str_eq(buf, no_table_line);
	ck_assert_uint_eq(size, strlen(no_table_line));
	/* The iterator moved past it; from the start it is there again. */
	size = sizeof(buf);
	ck_assert_int_eq(cuLogsDumpToMemory(&it, buf, &size, 0), CUDA_SUCCESS);
	ck_assert_uint_eq(size, 0);
	fail_once();
	size = sizeof(buf);
	start = origin;
	ck_assert_int_eq(cuLogsDumpToMemory(&start, buf, &size, 0), CUDA_SUCCESS);
	ck_assert_uint_eq(size, 2 * strlen(no_table_line));
	ck_assert_uint_eq(start, it + 1);
	/* Room for one line and the head: the newest, the other left out. */
	it = origin;
	size = strlen(no_table_line) + 48 + 1;
	ck_assert_int_eq(cuLogsDumpToMemory(&it, buf, &size, 0), CUDA_SUCCESS);
	ck_assert_str_eq(buf + strlen("cumc: 1 earlier lines left out\n"), no_table_line);
	ck_assert_mem_eq(buf, "cumc: 1 earlier lines left out\n",
			 strlen("cumc: 1 earlier lines left out\n"));
	ck_assert_uint_eq(size, strlen(buf));
	/* Too small for one line: nothing, and an error (a line itself). */
	it = origin;
	size = 8;
	ck_assert_int_eq(cuLogsDumpToMemory(&it, buf, &size, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(size, 0);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(cuLogsCurrent(&it, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLogsCurrent(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLogsDumpToMemory(&it, NULL, &size, 0), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

static void count_line(void *data, CUlogLevel level, char *message, size_t length)
{
	int *count = data;

	ck_assert_int_eq(level, CU_LOG_LEVEL_ERROR);
	ck_assert_uint_eq(length, strlen(no_table_line) - 1);
	ck_assert_mem_eq(message, no_table_line, length);
	(*count)++;
}

START_TEST(logs_callbacks)
{
	CUlogsCallbackHandle h;
	int count = 0;

	ck_assert_int_eq(cuLogsRegisterCallback(NULL, NULL, &h), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLogsRegisterCallback(count_line, &count, &h), CUDA_SUCCESS);
	fail_once();
	ck_assert_int_eq(count, 1);
	ck_assert_int_eq(cuLogsUnregisterCallback(h), CUDA_SUCCESS);
	fail_once();
	ck_assert_int_eq(count, 1);
	ck_assert_int_eq(cuLogsUnregisterCallback(h), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLogsUnregisterCallback(NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLogsUnregisterCallback((CUlogsCallbackHandle)&count),
			 CUDA_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(logs_dump_to_file)
{
	char path[] = "/tmp/cumc-logs-XXXXXX", buf[1024];
	CUlogIterator it;
	FILE *f;
	size_t n;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(cuLogsCurrent(&it, 0), CUDA_SUCCESS);
	fail_once();
	ck_assert_int_eq(cuLogsDumpToFile(&it, path, 0), CUDA_SUCCESS);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	unlink(path);
	ck_assert_str_eq(buf, no_table_line);
	ck_assert_int_eq(cuLogsDumpToFile(&it, "/nonexistent/dir/log", 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLogsDumpToFile(&it, NULL, 0), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("breadth");
	TCase *green = tcase_create("green contexts");
	TCase *rest = tcase_create("checkpoint, coredump, logs, profiler");

	tcase_add_checked_fixture(green, setup, NULL);
	tcase_add_test(green, device_resource_is_every_sm);
	tcase_add_test(green, split_rounds_to_the_alignment);
	tcase_add_test(green, split_refuses_bad_input);
	tcase_add_test(green, descriptors_take_one_split);
	tcase_add_test(green, green_context_is_a_partition);
	tcase_add_test(green, green_streams);
	tcase_add_test(green, green_record_event_waits_for_all_streams);
	tcase_add_test(green, green_wait_event_holds_its_streams);
	tcase_add_test(green, green_handles_refused);
	suite_add_tcase(s, green);
	tcase_add_checked_fixture(rest, setup, NULL);
	tcase_add_test(rest, checkpoint_is_not_supported);
	tcase_add_test(rest, coredump_settings);
	tcase_add_test(rest, coredump_needs_a_context);
	tcase_add_test(rest, profiler_marks);
	tcase_add_test(rest, logs_keep_failing_calls);
	tcase_add_test(rest, logs_callbacks);
	tcase_add_test(rest, logs_dump_to_file);
	suite_add_tcase(s, rest);
	return check_run_forked(s);
}
