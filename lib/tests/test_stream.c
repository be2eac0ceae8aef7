// SPDX-License-Identifier: MIT
/*
 * Streams (runs in the VM): in-order work on a worker, never the caller;
 * the legacy default stream's implicit synchronization with blocking
 * streams and not with non-blocking ones; per-thread default streams;
 * cuStreamQuery while work is blocked; destruction with pending work;
 * asynchronous copies and sets; stream memory operations, each wait
 * condition released by a write from another stream or thread; garbage
 * handles.
 *
 * Work is held back by gates: host functions that wait until the test
 * opens them, so that what must not have run yet can be checked.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_run.h"
#include "stream_gate.h"
#include "vmm.h"

static size_t gran;

static void setup(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	gran = vmm_granularity();
	vmm_use_device(0);
}

/* Whether a host function ran yet: it sets the flag. */
static void sleep_ms(int ms)
{
	usleep(ms * 1000);
}

START_TEST(stream_calls_need_init)
{
	CUstream s;

	ck_assert_int_eq(cuStreamCreate(&s, 0), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuStreamSynchronize(NULL), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuStreamQuery(NULL), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuStreamGetAttribute(NULL, CU_STREAM_ATTRIBUTE_PRIORITY, NULL),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuStreamSetAttribute(NULL, CU_STREAM_ATTRIBUTE_PRIORITY, NULL),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuStreamCopyAttributes(NULL, NULL), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuLaunchHostFunc(NULL, set_flag_fn, NULL),
			 CUDA_ERROR_NOT_INITIALIZED);
}
END_TEST

START_TEST(garbage_and_destroyed_handles_refused)
{
	static const uintptr_t garbage[] = { 3, 0x1234, 0xdeadbeef, ~0ul };
	unsigned int flags;
	CUstream s;
	size_t i;

	for (i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
		CUstream g = (CUstream)garbage[i];

		ck_assert_int_eq(cuStreamQuery(g), CUDA_ERROR_INVALID_HANDLE);
		ck_assert_int_eq(cuStreamSynchronize(g), CUDA_ERROR_INVALID_HANDLE);
		ck_assert_int_eq(cuStreamGetFlags(g, &flags), CUDA_ERROR_INVALID_HANDLE);
		ck_assert_int_eq(cuStreamDestroy(g), CUDA_ERROR_INVALID_HANDLE);
		ck_assert_int_eq(cuLaunchHostFunc(g, set_flag_fn, NULL),
				 CUDA_ERROR_INVALID_HANDLE);
		ck_assert_int_eq(cuMemsetD8Async(0, 0, 0, g), CUDA_ERROR_INVALID_HANDLE);
	}
	ck_assert_int_eq(cuStreamCreate(&s, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamQuery(s), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_ERROR_INVALID_HANDLE);
	/* The implicit streams are not destroyed. */
	ck_assert_int_eq(cuStreamDestroy(NULL), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuStreamDestroy(CU_STREAM_LEGACY), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuStreamDestroy(CU_STREAM_PER_THREAD), CUDA_ERROR_INVALID_HANDLE);
}
END_TEST

START_TEST(bad_arguments_refused)
{
	CUstream s;
	int prio;

	ck_assert_int_eq(cuStreamCreate(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamCreate(&s, 2), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamCreate(&s, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(s, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamGetPriority(s, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamGetPriority(s, &prio), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamAddCallback(s, NULL, NULL, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	/* The implicit streams need a current context. */
	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(NULL), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuStreamQuery(CU_STREAM_PER_THREAD), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuStreamCreate(&s, 0), CUDA_ERROR_INVALID_CONTEXT);
}
END_TEST

START_TEST(priorities_clamped_to_the_h100_range)
{
	int least = 99, greatest = 99, prio;
	unsigned int flags;
	CUstream s;

	ck_assert_int_eq(cuCtxGetStreamPriorityRange(&least, &greatest), CUDA_SUCCESS);
	ck_assert_int_eq(least, 0);
	ck_assert_int_eq(greatest, -5);
	ck_assert_int_eq(cuCtxGetStreamPriorityRange(NULL, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamCreateWithPriority(&s, CU_STREAM_NON_BLOCKING, -100),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamGetPriority(s, &prio), CUDA_SUCCESS);
	ck_assert_int_eq(prio, -5);
	ck_assert_int_eq(cuStreamGetFlags(s, &flags), CUDA_SUCCESS);
	ck_assert_uint_eq(flags, CU_STREAM_NON_BLOCKING);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamCreateWithPriority(&s, 0, 7), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamGetPriority(s, &prio), CUDA_SUCCESS);
	ck_assert_int_eq(prio, 0);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamGetPriority(NULL, &prio), CUDA_SUCCESS);
	ck_assert_int_eq(prio, 0);
}
END_TEST

START_TEST(stream_knows_its_context_and_device)
{
	CUcontext ctx, cur;
	CUgreenCtx green = (CUgreenCtx)1;
	unsigned long long id1, id2;
	CUdevice dev = -1;
	CUstream s;

	ck_assert_int_eq(cuCtxGetCurrent(&cur), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamCreate(&s, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamGetCtx(s, &ctx), CUDA_SUCCESS);
	ck_assert_ptr_eq(ctx, cur);
	ck_assert_int_eq(cuStreamGetCtx_v2(s, &ctx, &green), CUDA_SUCCESS);
	ck_assert_ptr_eq(ctx, cur);
	ck_assert_ptr_null(green);
	ck_assert_int_eq(cuStreamGetCtx(NULL, &ctx), CUDA_SUCCESS);
	ck_assert_ptr_eq(ctx, cur);
	ck_assert_int_eq(cuStreamGetDevice(s, &dev), CUDA_SUCCESS);
	ck_assert_int_eq(dev, 0);
	ck_assert_int_eq(cuStreamGetId(s, &id1), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamGetId(NULL, &id2), CUDA_SUCCESS);
	ck_assert_uint_ne(id1, id2);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
}
END_TEST

static void CUDA_CB note_thread_fn(void *arg)
{
	*(pthread_t *)arg = pthread_self();
}

START_TEST(host_functions_run_in_order_off_the_caller)
{
	static struct order_log log;
	static struct order_item items[200];
	pthread_t ran_on = pthread_self();
	CUstream s;
	int i;

	ck_assert_int_eq(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	for (i = 0; i < 200; i++) {
		items[i] = (struct order_item){ &log, i };
		ck_assert_int_eq(cuLaunchHostFunc(s, log_fn, &items[i]), CUDA_SUCCESS);
	}
	/* Not on a thread that synchronizes while it is due either. */
	ck_assert_int_eq(cuLaunchHostFunc(s, note_thread_fn, &ran_on), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert(!pthread_equal(ran_on, pthread_self()));
	ck_assert_int_eq(atomic_load(&log.next), 200);
	for (i = 0; i < 200; i++)
		ck_assert_int_eq(log.seen[i], i);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
}
END_TEST

static void CUDA_CB callback_fn(CUstream h, CUresult status, void *arg)
{
	CUstream *seen = arg;

	if (status == CUDA_SUCCESS)
		*seen = h;
}

START_TEST(callbacks_get_their_stream_and_status)
{
	CUstream s, seen = NULL;

	ck_assert_int_eq(cuStreamCreate(&s, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamAddCallback(s, callback_fn, &seen, 1),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamAddCallback(s, callback_fn, &seen, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_ptr_eq(seen, s);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
}
END_TEST

static int thread_count(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	int n = -1;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* A worker leaves after 2 s without work; the next item starts another. */
START_TEST(idle_workers_leave_and_come_back)
{
	atomic_int ran = 0;
	int before = thread_count(), i;
	CUstream s;

	ck_assert_int_eq(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	ck_assert_int_eq(thread_count(), before);
	ck_assert_int_eq(cuLaunchHostFunc(s, set_flag_fn, &ran), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_int_eq(thread_count(), before + 1);
	/* Left by now, give or take a loaded machine's scheduling. */
	for (i = 0; i < 150 && thread_count() != before; i++)
		sleep_ms(100);
	ck_assert_int_eq(thread_count(), before);
	atomic_store(&ran, 0);
	ck_assert_int_eq(cuLaunchHostFunc(s, set_flag_fn, &ran), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&ran), 1);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
}
END_TEST

START_TEST(query_not_ready_while_blocked)
{
	struct gate g = { 0 };
	atomic_int after = 0;
	CUstream s;

	ck_assert_int_eq(cuStreamCreate(&s, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamQuery(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(s, gate_fn, &g), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(s, set_flag_fn, &after), CUDA_SUCCESS);
	gate_wait_reached(&g);
	ck_assert_int_eq(cuStreamQuery(s), CUDA_ERROR_NOT_READY);
	sleep_ms(20);
	ck_assert_int_eq(atomic_load(&after), 0);
	ck_assert_int_eq(cuStreamQuery(s), CUDA_ERROR_NOT_READY);
	atomic_store(&g.open, 1);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&after), 1);
	ck_assert_int_eq(cuStreamQuery(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
}
END_TEST

/* Work on the legacy stream waits for blocking streams' earlier work. */
START_TEST(legacy_stream_waits_for_blocking_streams)
{
	struct gate g = { 0 };
	atomic_int legacy_ran = 0;
	CUstream blocking;

	ck_assert_int_eq(cuStreamCreate(&blocking, CU_STREAM_DEFAULT), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(blocking, gate_fn, &g), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(NULL, set_flag_fn, &legacy_ran), CUDA_SUCCESS);
	gate_wait_reached(&g);
	sleep_ms(20);
	ck_assert_int_eq(atomic_load(&legacy_ran), 0);
	ck_assert_int_eq(cuStreamQuery(NULL), CUDA_ERROR_NOT_READY);
	atomic_store(&g.open, 1);
	ck_assert_int_eq(cuStreamSynchronize(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&legacy_ran), 1);
	ck_assert_int_eq(cuStreamDestroy(blocking), CUDA_SUCCESS);
}
END_TEST

/* ... and not for non-blocking ones, in either direction. */
START_TEST(non_blocking_streams_are_independent_of_legacy)
{
	struct gate g = { 0 }, lg = { 0 };
	atomic_int legacy_ran = 0, nb_ran = 0;
	CUstream nb;

	ck_assert_int_eq(cuStreamCreate(&nb, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(nb, gate_fn, &g), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(CU_STREAM_LEGACY, set_flag_fn, &legacy_ran),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(CU_STREAM_LEGACY), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&legacy_ran), 1);
	ck_assert_int_eq(cuStreamQuery(nb), CUDA_ERROR_NOT_READY);
	atomic_store(&g.open, 1);
	ck_assert_int_eq(cuStreamSynchronize(nb), CUDA_SUCCESS);

	/* The legacy stream blocked: the non-blocking stream goes on. */
	ck_assert_int_eq(cuLaunchHostFunc(NULL, gate_fn, &lg), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(nb, set_flag_fn, &nb_ran), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(nb), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&nb_ran), 1);
	atomic_store(&lg.open, 1);
	ck_assert_int_eq(cuStreamSynchronize(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(nb), CUDA_SUCCESS);
}
END_TEST

/* Work on a blocking stream waits for the legacy stream's earlier work. */
START_TEST(blocking_streams_wait_for_legacy)
{
	struct gate g = { 0 };
	atomic_int ran = 0, ptds_ran = 0;
	CUstream blocking, idle;

	ck_assert_int_eq(cuStreamCreate(&blocking, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamCreate(&idle, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(idle, set_flag_fn, &(atomic_int){ 0 }),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(NULL, gate_fn, &g), CUDA_SUCCESS);
	/* Its own work done, a blocking stream does not wait for later legacy work. */
	ck_assert_int_eq(cuStreamSynchronize(idle), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamQuery(idle), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(blocking, set_flag_fn, &ran), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(CU_STREAM_PER_THREAD, set_flag_fn, &ptds_ran),
			 CUDA_SUCCESS);
	gate_wait_reached(&g);
	sleep_ms(20);
	ck_assert_int_eq(atomic_load(&ran), 0);
	ck_assert_int_eq(atomic_load(&ptds_ran), 0);
	ck_assert_int_eq(cuStreamQuery(blocking), CUDA_ERROR_NOT_READY);
	atomic_store(&g.open, 1);
	ck_assert_int_eq(cuStreamSynchronize(blocking), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&ran), 1);
	ck_assert_int_eq(cuStreamSynchronize(CU_STREAM_PER_THREAD), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&ptds_ran), 1);
	ck_assert_int_eq(cuStreamDestroy(blocking), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(idle), CUDA_SUCCESS);
}
END_TEST

struct ptds_probe {
	unsigned long long id;
	atomic_int ran;
};

static void *other_thread_ptds_id(void *arg)
{
	struct ptds_probe *p = arg;

	primary_ctx_make_current();
	ck_assert_int_eq(cuStreamGetId(CU_STREAM_PER_THREAD, &p->id), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(CU_STREAM_PER_THREAD, set_flag_fn, &p->ran),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(CU_STREAM_PER_THREAD), CUDA_SUCCESS);
	return NULL;
}

START_TEST(per_thread_streams_are_per_thread)
{
	struct ptds_probe theirs = { 0 };
	unsigned long long mine, again;
	pthread_t t;

	ck_assert_int_eq(cuStreamGetId(CU_STREAM_PER_THREAD, &mine), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamGetId(CU_STREAM_PER_THREAD, &again), CUDA_SUCCESS);
	ck_assert_uint_eq(mine, again);
	ck_assert_int_eq(pthread_create(&t, NULL, other_thread_ptds_id, &theirs), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_uint_ne(theirs.id, 0);
	ck_assert_uint_ne(theirs.id, mine);
	ck_assert_int_eq(atomic_load(&theirs.ran), 1);
	/* The legacy stream is one per context, shared by threads. */
	ck_assert_int_eq(cuStreamGetId(NULL, &again), CUDA_SUCCESS);
	ck_assert_uint_ne(again, mine);
}
END_TEST

START_TEST(destroy_with_pending_work_returns_at_once)
{
	struct gate g = { 0 };
	atomic_int after = 0;
	CUstream s;

	ck_assert_int_eq(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(s, gate_fn, &g), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(s, set_flag_fn, &after), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamQuery(s), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(atomic_load(&after), 0);
	atomic_store(&g.open, 1);
	/* Its work still completes, and the context waits for it. */
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&after), 1);
}
END_TEST

START_TEST(ctx_synchronize_waits_for_every_stream)
{
	struct gate g = { 0 };
	atomic_int flags[3] = { 0 };
	CUstream a, b;

	ck_assert_int_eq(cuStreamCreate(&a, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamCreate(&b, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(a, gate_fn, &g), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(a, set_flag_fn, &flags[0]), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(b, set_flag_fn, &flags[1]), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(CU_STREAM_PER_THREAD, set_flag_fn, &flags[2]),
			 CUDA_SUCCESS);
	gate_wait_reached(&g);
	atomic_store(&g.open, 1);
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&flags[0]), 1);
	ck_assert_int_eq(atomic_load(&flags[1]), 1);
	ck_assert_int_eq(atomic_load(&flags[2]), 1);
	ck_assert_int_eq(cuStreamDestroy(a), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(b), CUDA_SUCCESS);
}
END_TEST

START_TEST(destroying_a_context_destroys_its_streams)
{
	static atomic_int ran;
	CUcontext ctx;
	CUstream s;

	ck_assert_int_eq(cuCtxCreate(&ctx, NULL, 0, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamCreate(&s, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(s, set_flag_fn, &ran), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxDestroy(ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamQuery(s), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_ERROR_INVALID_HANDLE);
}
END_TEST

/* A worker that sleeps then stores to device memory, behind the copy. */
struct late_store {
	CUdeviceptr addr;
	unsigned int value;
};

static void CUDA_CB late_store_fn(void *arg)
{
	struct late_store *ls = arg;

	sleep_ms(50);
	atomic_store((_Atomic unsigned int *)vmm_ptr(ls->addr), ls->value);
}

START_TEST(async_copies_and_sets_run_in_stream_order)
{
	struct vmm_buf buf = vmm_buf_new(0, gran);
	unsigned char src[4096], dst[4096];
	unsigned int words[16];
	CUstream s;
	int i;

	for (i = 0; i < 4096; i++)
		src[i] = (unsigned char)(i * 7);
	ck_assert_int_eq(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD32Async(buf.va, 0xabcd1234, 1024, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoDAsync(buf.va + 4096, src, 4096, s), CUDA_SUCCESS);
	/* Staged: the source may be reused at once. */
	memset(src, 0, sizeof(src));
	ck_assert_int_eq(cuMemcpyDtoDAsync(buf.va + 8192, buf.va + 4096, 4096, s),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD8Async(buf.va + 8192, 0x5a, 1, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD16Async(buf.va + 8194, 0x1122, 1, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoHAsync(dst, buf.va + 8192, 4096, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyAsync((CUdeviceptr)words, buf.va, sizeof(words), s),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_uint_eq(dst[0], 0x5a);
	ck_assert_uint_eq(dst[1], 7);
	ck_assert_uint_eq(dst[2], 0x22);
	ck_assert_uint_eq(dst[3], 0x11);
	for (i = 4; i < 4096; i++)
		ck_assert_uint_eq(dst[i], (unsigned char)(i * 7));
	for (i = 0; i < 16; i++)
		ck_assert_uint_eq(words[i], 0xabcd1234);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	vmm_buf_free(&buf);
}
END_TEST

START_TEST(async_arguments_checked_at_enqueue)
{
	struct vmm_buf buf = vmm_buf_new(0, gran);
	unsigned char host[16];
	CUstream s;

	ck_assert_int_eq(cuStreamCreate(&s, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD32Async(buf.va + 1, 0, 1, s), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemsetD8Async(buf.va + gran - 4, 0, 8, s),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemcpyHtoDAsync(buf.va, NULL, 8, s), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemcpyDtoHAsync(NULL, buf.va, 8, s), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemcpyDtoHAsync(host, (CUdeviceptr)host, 8, s),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemcpyHtoDAsync(buf.va, host, 0, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	vmm_buf_free(&buf);
}
END_TEST

/* Synchronous copies are ordered after the legacy stream's work. */
START_TEST(sync_copies_wait_for_the_legacy_stream)
{
	struct vmm_buf buf = vmm_buf_new(0, gran);
	struct late_store ls = { buf.va, 42 };
	unsigned int out = 0;
	CUstream blocking;

	ck_assert_int_eq(cuStreamCreate(&blocking, 0), CUDA_SUCCESS);
	/* On a blocking stream, which the legacy stream waits for. */
	ck_assert_int_eq(cuLaunchHostFunc(blocking, late_store_fn, &ls), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(&out, buf.va, sizeof(out)), CUDA_SUCCESS);
	ck_assert_uint_eq(out, 42);
	ls.value = 43;
	ck_assert_int_eq(cuLaunchHostFunc(NULL, late_store_fn, &ls), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpy((CUdeviceptr)&out, buf.va, sizeof(out)), CUDA_SUCCESS);
	ck_assert_uint_eq(out, 43);
	ck_assert_int_eq(cuStreamDestroy(blocking), CUDA_SUCCESS);
	vmm_buf_free(&buf);
}
END_TEST

START_TEST(unified_copy_between_host_and_device)
{
	struct vmm_buf buf = vmm_buf_new(0, gran);
	char a[32] = "unified copies", b[32] = { 0 };

	ck_assert_int_eq(cuMemcpy(buf.va, (CUdeviceptr)a, sizeof(a)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpy(buf.va + 64, buf.va, sizeof(a)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpy((CUdeviceptr)b, buf.va + 64, sizeof(b)), CUDA_SUCCESS);
	ck_assert_str_eq(b, "unified copies");
	ck_assert_int_eq(cuMemcpy(buf.va + gran - 8, (CUdeviceptr)a, 16),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemcpy(0, (CUdeviceptr)a, 16), CUDA_ERROR_INVALID_VALUE);
	vmm_buf_free(&buf);
}
END_TEST

/* Stream memory operations. */

struct wait_case {
	unsigned int flags;
	cuuint64_t initial, value, not_yet, release;
	bool wide;
};

static const struct wait_case wait_cases[] = {
	{ CU_STREAM_WAIT_VALUE_GEQ, 0, 5, 4, 5, false },
	/* Cyclic: 0xfffffff0 is "before" 0x10. */
	{ CU_STREAM_WAIT_VALUE_GEQ, 0xfffffff0u, 0x10, 0xfffffffeu, 0x11, false },
	{ CU_STREAM_WAIT_VALUE_EQ, 0, 7, 6, 7, false },
	{ CU_STREAM_WAIT_VALUE_AND, 0, 0x4, 0x3, 0x6, false },
	{ CU_STREAM_WAIT_VALUE_NOR, 0xf, 0xfffffff0u, 0x1f, 0x7, false },
	{ CU_STREAM_WAIT_VALUE_EQ | CU_STREAM_WAIT_VALUE_FLUSH, 1, 2, 3, 2, false },
	{ CU_STREAM_WAIT_VALUE_GEQ, 1ull << 40, 3ull << 40, 2ull << 40, 3ull << 40, true },
	{ CU_STREAM_WAIT_VALUE_EQ, 0, 1ull << 33, 1, 1ull << 33, true },
	{ CU_STREAM_WAIT_VALUE_AND, 0, 1ull << 50, 1ull << 49, 1ull << 50, true },
	{ CU_STREAM_WAIT_VALUE_NOR, ~0ull, ~0ull << 1, ~0ull, ~1ull, true },
};

static void write_word(CUstream s, CUdeviceptr addr, cuuint64_t v, bool wide,
		       unsigned int flags)
{
	if (wide)
		ck_assert_int_eq(cuStreamWriteValue64(s, addr, v, flags), CUDA_SUCCESS);
	else
		ck_assert_int_eq(cuStreamWriteValue32(s, addr, (cuuint32_t)v, flags),
				 CUDA_SUCCESS);
}

/* Each condition: blocked by a value that fails it, released by one that meets it. */
START_TEST(wait_value_each_condition_released_by_another_stream)
{
	const struct wait_case *c = &wait_cases[_i];
	struct vmm_buf buf = vmm_buf_new(0, gran);
	CUstream waiter, writer;
	atomic_int ran = 0;

	ck_assert_int_eq(cuStreamCreate(&waiter, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamCreate(&writer, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	write_word(writer, buf.va, c->initial, c->wide, 0);
	ck_assert_int_eq(cuStreamSynchronize(writer), CUDA_SUCCESS);
	if (c->wide)
		ck_assert_int_eq(cuStreamWaitValue64(waiter, buf.va, c->value, c->flags),
				 CUDA_SUCCESS);
	else
		ck_assert_int_eq(cuStreamWaitValue32(waiter, buf.va,
						     (cuuint32_t)c->value, c->flags),
				 CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(waiter, set_flag_fn, &ran), CUDA_SUCCESS);
	sleep_ms(10);
	ck_assert_int_eq(cuStreamQuery(waiter), CUDA_ERROR_NOT_READY);
	write_word(writer, buf.va, c->not_yet, c->wide, CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER);
	ck_assert_int_eq(cuStreamSynchronize(writer), CUDA_SUCCESS);
	sleep_ms(10);
	ck_assert_int_eq(atomic_load(&ran), 0);
	ck_assert_int_eq(cuStreamQuery(waiter), CUDA_ERROR_NOT_READY);
	write_word(writer, buf.va, c->release, c->wide, 0);
	ck_assert_int_eq(cuStreamSynchronize(waiter), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&ran), 1);
	ck_assert_int_eq(cuStreamDestroy(waiter), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(writer), CUDA_SUCCESS);
	vmm_buf_free(&buf);
}
END_TEST

struct host_release {
	CUdeviceptr addr;
	cuuint32_t value;
};

static void *release_from_thread(void *arg)
{
	struct host_release *r = arg;

	sleep_ms(30);
	atomic_store((_Atomic cuuint32_t *)vmm_ptr(r->addr), r->value);
	return NULL;
}

/* The legacy stream blocked on a word; a host thread releases it. */
START_TEST(wait_on_legacy_stream_released_by_a_thread)
{
	struct vmm_buf buf = vmm_buf_new(0, gran);
	struct host_release r = { buf.va + 64, 1 };
	pthread_t t;

	ck_assert_int_eq(cuMemsetD32(buf.va, 0, 32), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamWaitValue32(NULL, r.addr, 1, CU_STREAM_WAIT_VALUE_EQ),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamWriteValue32(NULL, buf.va, 99, 0), CUDA_SUCCESS);
	ck_assert_int_eq(pthread_create(&t, NULL, release_from_thread, &r), 0);
	/* Synchronous copies wait for the legacy stream: so 99 is there. */
	ck_assert_uint_eq(({ cuuint32_t v = 0;
			     ck_assert_int_eq(cuMemcpyDtoH(&v, buf.va, 4), CUDA_SUCCESS);
			     v; }), 99);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	vmm_buf_free(&buf);
}
END_TEST

START_TEST(batch_runs_its_operations_in_order)
{
	struct vmm_buf buf = vmm_buf_new(0, gran);
	CUstreamBatchMemOpParams ops[4];
	volatile cuuint32_t *w32 = vmm_ptr(buf.va);
	volatile cuuint64_t *w64 = vmm_ptr(buf.va + 8);
	CUstream s;

	memset(ops, 0, sizeof(ops));
	ck_assert_int_eq(cuMemsetD32(buf.va, 0, 8), CUDA_SUCCESS);
	ops[0].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
	ops[0].writeValue.address = buf.va;
	ops[0].writeValue.value = 1;
	ops[1].waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
	ops[1].waitValue.address = buf.va + 4;
	ops[1].waitValue.value = 1;
	ops[1].waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ;
	ops[2].memoryBarrier.operation = CU_STREAM_MEM_OP_BARRIER;
	ops[2].memoryBarrier.flags = CU_STREAM_MEMORY_BARRIER_TYPE_GPU;
	ops[3].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
	ops[3].writeValue.address = buf.va + 8;
	ops[3].writeValue.value64 = 0x123456789abcdefull;
	ck_assert_int_eq(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamBatchMemOp(s, 4, ops, 0), CUDA_SUCCESS);
	while (*w32 != 1)
		usleep(200);
	sleep_ms(10);
	ck_assert_uint_eq(*w64, 0);
	ck_assert_int_eq(cuStreamQuery(s), CUDA_ERROR_NOT_READY);
	atomic_store((_Atomic cuuint32_t *)vmm_ptr(buf.va + 4), 1);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_uint_eq(*w64, 0x123456789abcdefull);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	vmm_buf_free(&buf);
}
END_TEST

START_TEST(memop_bad_arguments_refused)
{
	struct vmm_buf buf = vmm_buf_new(0, gran);
	CUstreamBatchMemOpParams ops[256];
	cuuint32_t host = 0;
	CUstream s;

	memset(ops, 0, sizeof(ops));
	ck_assert_int_eq(cuStreamCreate(&s, 0), CUDA_SUCCESS);
	/* Misaligned, outside device memory, host memory, NULL. */
	ck_assert_int_eq(cuStreamWriteValue32(s, buf.va + 2, 1, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamWaitValue64(s, buf.va + 4, 1, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamWaitValue32(s, buf.va + gran, 1, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamWriteValue32(s, (CUdeviceptr)&host, 1, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamWriteValue64(s, 0, 1, 0), CUDA_ERROR_INVALID_VALUE);
	/* Flags: unknown bits. */
	ck_assert_int_eq(cuStreamWaitValue32(s, buf.va, 1, 0x10), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamWriteValue32(s, buf.va, 1, 2), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamWriteValue32((CUstream)0x77, buf.va, 1, 0),
			 CUDA_ERROR_INVALID_HANDLE);
	/* Batches: size, reserved flags, unknown operations. */
	ops[0].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
	ops[0].writeValue.address = buf.va;
	ck_assert_int_eq(cuStreamBatchMemOp(s, 1, ops, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamBatchMemOp(s, 1, NULL, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamBatchMemOp(s, 256, ops, 0), CUDA_ERROR_INVALID_VALUE);
	ops[1].operation = 42;
	ck_assert_int_eq(cuStreamBatchMemOp(s, 2, ops, 0), CUDA_ERROR_INVALID_VALUE);
	ops[1].flushRemoteWrites.operation = CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES;
	ops[1].flushRemoteWrites.flags = 1;
	ck_assert_int_eq(cuStreamBatchMemOp(s, 2, ops, 0), CUDA_ERROR_INVALID_VALUE);
	ops[1].flushRemoteWrites.flags = 0;
	ck_assert_int_eq(cuStreamBatchMemOp(s, 2, ops, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamBatchMemOp(s, 0, NULL, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	vmm_buf_free(&buf);
}
END_TEST

START_TEST(memop_attributes_answer_supported)
{
	static const CUdevice_attribute attrs[] = {
		CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS,
		CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR,
		CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES,
		CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED,
	};
	size_t i;
	int v;

	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		ck_assert_int_eq(cuDeviceGetAttribute(&v, attrs[i], 0), CUDA_SUCCESS);
		ck_assert_int_eq(v, 1);
	}
}
END_TEST

/* Memory unmapped before the item runs: an error on the stream, no fault. */
START_TEST(async_set_on_memory_gone_meanwhile_latches_an_error)
{
	struct vmm_buf buf = vmm_buf_new(0, gran);
	struct gate g = { 0 };
	CUstream s;

	ck_assert_int_eq(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(s, gate_fn, &g), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD32Async(buf.va, 1, 16, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamWriteValue32(s, buf.va + 64, 1, 0), CUDA_SUCCESS);
	vmm_buf_free(&buf);
	atomic_store(&g.open, 1);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamQuery(s), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_SUCCESS);
}
END_TEST

/* Threads submitting to their streams and the legacy stream at once. */
struct storm {
	CUdeviceptr word;	/* one counter per thread */
	atomic_int *legacy_runs;
};

static void CUDA_CB count_fn(void *arg)
{
	atomic_fetch_add((atomic_int *)arg, 1);
}

static void *storm_thread(void *arg)
{
	struct storm *st = arg;
	CUstream s;
	cuuint32_t i;

	primary_ctx_make_current();
	ck_assert_int_eq(cuStreamCreate(&s, 0), CUDA_SUCCESS);
	for (i = 1; i <= 200; i++) {
		ck_assert_int_eq(cuStreamWriteValue32(s, st->word, i, 0), CUDA_SUCCESS);
		ck_assert_int_eq(cuStreamWaitValue32(s, st->word, i,
						     CU_STREAM_WAIT_VALUE_EQ), CUDA_SUCCESS);
		if (i % 10 == 0)
			ck_assert_int_eq(cuLaunchHostFunc(NULL, count_fn, st->legacy_runs),
					 CUDA_SUCCESS);
		if (i % 50 == 0)
			ck_assert_int_eq(cuStreamSynchronize(NULL), CUDA_SUCCESS);
	}
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	return NULL;
}

START_TEST(threads_and_streams_at_once)
{
	enum { THREADS = 4 };
	struct vmm_buf buf = vmm_buf_new(0, gran);
	struct storm st[THREADS];
	atomic_int legacy_runs = 0;
	pthread_t t[THREADS];
	int i;

	ck_assert_int_eq(cuMemsetD32(buf.va, 0, 64), CUDA_SUCCESS);
	for (i = 0; i < THREADS; i++) {
		st[i] = (struct storm){ buf.va + 64 * i, &legacy_runs };
		ck_assert_int_eq(pthread_create(&t[i], NULL, storm_thread, &st[i]), 0);
	}
	for (i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&legacy_runs), THREADS * 20);
	for (i = 0; i < THREADS; i++)
		ck_assert_uint_eq(*(volatile cuuint32_t *)vmm_ptr(buf.va + 64 * i), 200);
	vmm_buf_free(&buf);
}
END_TEST

/* Appends its value to a log: count, then the values in the order run. */
static const char append_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry append(.param .u64 log, .param .u32 value)\n{\n"
	"\t.reg .u32 %r<3>;\n\t.reg .u64 %rd<4>;\n"
	"\tld.param.u64 %rd1, [log];\n\tld.param.u32 %r1, [value];\n"
	"\tld.global.u32 %r2, [%rd1];\n\tmul.wide.u32 %rd2, %r2, 4;\n"
	"\tadd.u64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3+4], %r1;\n"
	"\tadd.u32 %r2, %r2, 1;\n\tst.global.u32 [%rd1], %r2;\n\tret;\n}\n";

/* What a synchronizing thread waits for. */
enum sync_with { SYNC_STREAM, SYNC_EVENT, SYNC_CONTEXT, SYNC_KINDS };

struct syncer {
	CUstream stream;
	CUevent event;
	atomic_int *done;
	enum sync_with with;
};

/* Synchronizes with the stream, its event or the context until told. */
static void *syncer_thread(void *arg)
{
	struct syncer *sy = arg;

	primary_ctx_make_current();
	while (!atomic_load(sy->done)) {
		if (sy->with == SYNC_STREAM)
			ck_assert_int_eq(cuStreamSynchronize(sy->stream), CUDA_SUCCESS);
		else if (sy->with == SYNC_EVENT)
			ck_assert_int_eq(cuEventSynchronize(sy->event), CUDA_SUCCESS);
		else
			ck_assert_int_eq(cuCtxSynchronize(), CUDA_SUCCESS);
	}
	return NULL;
}

/*
 * Kernels run once each, alone, in stream order, while other threads
 * synchronize with the stream, with an event of it and with the context
 * all along.
 */
START_TEST(synchronizing_threads_run_items_once_in_order)
{
	enum { ITEMS = 300, SYNCERS = SYNC_KINDS };
	struct syncer sy[SYNCERS];
	pthread_t t[SYNCERS];
	atomic_int done = 0;
	cuuint32_t log[ITEMS + 1];
	CUdeviceptr dlog;
	CUfunction f;
	CUmodule mod;
	CUstream s;
	CUevent ev;
	cuuint32_t i;
	void *args[2] = { &dlog, &i };

	ck_assert_int_eq(cuModuleLoadData(&mod, append_ptx), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleGetFunction(&f, mod, "append"), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&dlog, sizeof(log)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD32(dlog, 0, ITEMS + 1), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
	for (i = 0; i < SYNCERS; i++) {
		sy[i] = (struct syncer){ s, ev, &done, (enum sync_with)i };
		ck_assert_int_eq(pthread_create(&t[i], NULL, syncer_thread, &sy[i]), 0);
	}
	for (i = 0; i < ITEMS; i++) {
		ck_assert_int_eq(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, args, NULL),
				 CUDA_SUCCESS);
		if (i % 8 == 0)
			ck_assert_int_eq(cuEventRecord(ev, s), CUDA_SUCCESS);
	}
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	atomic_store(&done, 1);
	for (i = 0; i < SYNCERS; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	ck_assert_int_eq(cuMemcpyDtoH(log, dlog, sizeof(log)), CUDA_SUCCESS);
	ck_assert_uint_eq(log[0], ITEMS);
	for (i = 0; i < ITEMS; i++)
		ck_assert_uint_eq(log[1 + i], i);
	ck_assert_int_eq(cuEventDestroy(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(dlog), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
}
END_TEST

/* The v1 names, found at their CUDA 8.0 and 9.0 versions, are disabled. */
START_TEST(v1_memops_are_not_supported)
{
	static const struct { const char *name; int version; } v1[] = {
		{ "cuStreamWaitValue32", 8000 }, { "cuStreamWriteValue32", 8000 },
		{ "cuStreamWaitValue64", 9000 }, { "cuStreamWriteValue64", 9000 },
	};
	CUresult (*memop)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
	CUresult (*batch)(CUstream, unsigned int, CUstreamBatchMemOpParams *,
			  unsigned int);
	CUdriverProcAddressQueryResult status;
	CUdeviceptr d;
	unsigned int i, flags;
	void *fn;
	int v = -1;

	ck_assert_int_eq(cuDeviceGetAttribute(&v,
			 CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(v, 0);
	ck_assert_int_eq(cuMemAlloc(&d, 64), CUDA_SUCCESS);
	for (i = 0; i < sizeof(v1) / sizeof(v1[0]); i++)
		for (flags = 0; flags < 2; flags++) {
			fn = NULL;
			ck_assert_int_eq(cuGetProcAddress(v1[i].name, &fn,
					 v1[i].version, flags ?
					 CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM :
					 CU_GET_PROC_ADDRESS_DEFAULT, &status),
					 CUDA_SUCCESS);
			ck_assert_ptr_nonnull(fn);
			/* The 64-bit forms take a wider value: pass 0 either way. */
			memop = (CUresult (*)(CUstream, CUdeviceptr, cuuint32_t,
					      unsigned int))fn;
			if (v1[i].version == 9000)
				ck_assert_int_eq(((CUresult (*)(CUstream, CUdeviceptr,
						 cuuint64_t, unsigned int))fn)(NULL, d, 0, 0),
						 CUDA_ERROR_NOT_SUPPORTED);
			else
				ck_assert_int_eq(memop(NULL, d, 0, 0),
						 CUDA_ERROR_NOT_SUPPORTED);
		}
	ck_assert_int_eq(cuGetProcAddress("cuStreamBatchMemOp", &fn, 8000, 0,
					  &status), CUDA_SUCCESS);
	ck_assert_ptr_nonnull(fn);
	batch = (CUresult (*)(CUstream, unsigned int, CUstreamBatchMemOpParams *,
			      unsigned int))fn;
	ck_assert_int_eq(batch(NULL, 0, NULL, 0), CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
}
END_TEST

/* A new stream's attributes read as driver 580's; what is set reads back. */
START_TEST(attributes_read_back_and_copy)
{
	CUstreamAttrValue v, back;
	CUstream s, t;

	ck_assert_int_eq(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamCreate(&t, 0), CUDA_SUCCESS);
	memset(&v, 0x5a, sizeof(v));
	ck_assert_int_eq(cuStreamGetAttribute(s, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v),
			 CUDA_SUCCESS);
	ck_assert_int_eq((int)v.syncPolicy, -1);
	ck_assert_int_eq(cuStreamGetAttribute(s, CU_STREAM_ATTRIBUTE_PRIORITY, &v), CUDA_SUCCESS);
	ck_assert_int_eq(v.priority, 0);
	ck_assert_int_eq(cuStreamGetAttribute(s, CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN, &v),
			 CUDA_SUCCESS);
	ck_assert_int_eq(v.memSyncDomain, CU_LAUNCH_MEM_SYNC_DOMAIN_DEFAULT);
	/* A launch attribute that is no stream attribute. */
	ck_assert_int_eq(cuStreamGetAttribute(s, CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &v),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamGetAttribute(s, CU_STREAM_ATTRIBUTE_PRIORITY, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamGetAttribute((CUstream)&v, CU_STREAM_ATTRIBUTE_PRIORITY, &v),
			 CUDA_ERROR_INVALID_HANDLE);

	memset(&v, 0, sizeof(v));
	v.priority = -1;
	ck_assert_int_eq(cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_PRIORITY, &v), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamGetAttribute(s, CU_STREAM_ATTRIBUTE_PRIORITY, &back),
			 CUDA_SUCCESS);
	ck_assert_int_eq(back.priority, -1);
	v.syncPolicy = CU_SYNC_POLICY_YIELD;
	ck_assert_int_eq(cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v),
			 CUDA_SUCCESS);
	/* Bad values change nothing. */
	v.syncPolicy = (CUsynchronizationPolicy)9;
	ck_assert_int_eq(cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v),
			 CUDA_ERROR_INVALID_VALUE);
	memset(&v, 0, sizeof(v));
	v.accessPolicyWindow.hitRatio = 2.0f;
	ck_assert_int_eq(cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, &v),
			 CUDA_ERROR_INVALID_VALUE);
	v.memSyncDomain = (CUlaunchMemSyncDomain)2;
	ck_assert_int_eq(cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN, &v),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &v),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamGetAttribute(s, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY,
					      &back), CUDA_SUCCESS);
	ck_assert_int_eq(back.syncPolicy, CU_SYNC_POLICY_YIELD);

	/* Copied whole, priority included. */
	ck_assert_int_eq(cuStreamCopyAttributes(t, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamGetAttribute(t, CU_STREAM_ATTRIBUTE_PRIORITY, &back),
			 CUDA_SUCCESS);
	ck_assert_int_eq(back.priority, -1);
	ck_assert_int_eq(cuStreamGetAttribute(t, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY,
					      &back), CUDA_SUCCESS);
	ck_assert_int_eq(back.syncPolicy, CU_SYNC_POLICY_YIELD);
	ck_assert_int_eq(cuStreamCopyAttributes(t, (CUstream)&v), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(t), CUDA_SUCCESS);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("stream");
	TCase *tc = tcase_create("streams");
	TCase *copies = tcase_create("copies");
	TCase *memops = tcase_create("stream memory operations");

	check_add_uninit(s, stream_calls_need_init);

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, attributes_read_back_and_copy);
	/* Thread hand-offs under TCG on a loaded machine: not 4 s. */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, garbage_and_destroyed_handles_refused);
	tcase_add_test(tc, bad_arguments_refused);
	tcase_add_test(tc, priorities_clamped_to_the_h100_range);
	tcase_add_test(tc, stream_knows_its_context_and_device);
	tcase_add_test(tc, host_functions_run_in_order_off_the_caller);
	tcase_add_test(tc, callbacks_get_their_stream_and_status);
	tcase_add_test(tc, idle_workers_leave_and_come_back);
	tcase_add_test(tc, query_not_ready_while_blocked);
	tcase_add_test(tc, legacy_stream_waits_for_blocking_streams);
	tcase_add_test(tc, non_blocking_streams_are_independent_of_legacy);
	tcase_add_test(tc, blocking_streams_wait_for_legacy);
	tcase_add_test(tc, per_thread_streams_are_per_thread);
	tcase_add_test(tc, destroy_with_pending_work_returns_at_once);
	tcase_add_test(tc, ctx_synchronize_waits_for_every_stream);
	tcase_add_test(tc, destroying_a_context_destroys_its_streams);
	tcase_add_test(tc, synchronizing_threads_run_items_once_in_order);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(copies, setup, NULL);
	tcase_set_timeout(copies, 60);
	tcase_add_test(copies, async_copies_and_sets_run_in_stream_order);
	tcase_add_test(copies, async_arguments_checked_at_enqueue);
	tcase_add_test(copies, sync_copies_wait_for_the_legacy_stream);
	tcase_add_test(copies, unified_copy_between_host_and_device);
	suite_add_tcase(s, copies);

	tcase_add_checked_fixture(memops, setup, NULL);
	tcase_set_timeout(memops, 60);
	tcase_add_loop_test(memops, wait_value_each_condition_released_by_another_stream,
			    0, sizeof(wait_cases) / sizeof(wait_cases[0]));
	tcase_add_test(memops, wait_on_legacy_stream_released_by_a_thread);
	tcase_add_test(memops, batch_runs_its_operations_in_order);
	tcase_add_test(memops, v1_memops_are_not_supported);
	tcase_add_test(memops, memop_bad_arguments_refused);
	tcase_add_test(memops, memop_attributes_answer_supported);
	tcase_add_test(memops, async_set_on_memory_gone_meanwhile_latches_an_error);
	tcase_add_test(memops, threads_and_streams_at_once);
	suite_add_tcase(s, memops);

	return check_run_forked(s);
}
