// SPDX-License-Identifier: MIT
/*
 * A per-thread default stream program (runs in the VM): built with
 * -DCUDA_API_PER_THREAD_DEFAULT_STREAM against include/cumc/cuda.h and
 * linked against the shared libcumc, as a program built so with the
 * toolkit links against libcuda.  Its calls link against the _ptds/_ptsz
 * entry points, in which the NULL stream is the calling thread's
 * per-thread default stream: two threads' NULL streams do not wait for
 * each other, and synchronous copies follow the thread's own stream.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "check_run.h"
#include "stream_gate.h"
#include "vmm.h"

#ifndef __CUDA_API_PER_THREAD_DEFAULT_STREAM
#error "build with -DCUDA_API_PER_THREAD_DEFAULT_STREAM"
#endif

static size_t gran;

static void setup(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	gran = vmm_granularity();
	vmm_use_device(0);
}

START_TEST(null_stream_is_the_per_thread_stream)
{
	unsigned long long null_id, ptds_id, legacy_id;

	ck_assert_int_eq(cuStreamGetId(NULL, &null_id), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamGetId(CU_STREAM_PER_THREAD, &ptds_id), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamGetId(CU_STREAM_LEGACY, &legacy_id), CUDA_SUCCESS);
	ck_assert_uint_eq(null_id, ptds_id);
	ck_assert_uint_ne(null_id, legacy_id);
}
END_TEST

/* The names a per-thread build links against are what lookups answer. */
START_TEST(lookups_answer_the_per_thread_flavour)
{
	void *pfn = NULL;

	ck_assert_int_eq(cuGetProcAddress("cuStreamQuery", &pfn, 13000, 0, NULL),
			 CUDA_SUCCESS);
	ck_assert_ptr_eq(pfn, (void *)cuStreamQuery);
	ck_assert_int_eq(cuGetProcAddress("cuMemcpyHtoD", &pfn, 13000, 0, NULL),
			 CUDA_SUCCESS);
	ck_assert_ptr_eq(pfn, (void *)cuMemcpyHtoD);
	ck_assert_int_eq(cuGetProcAddress("cuStreamWriteValue32", &pfn, 13000, 0,
					  NULL), CUDA_SUCCESS);
	ck_assert_ptr_eq(pfn, (void *)cuStreamWriteValue32);
	ck_assert_int_eq(cuGetProcAddress("cuStreamQuery", &pfn, 13000,
					  CU_GET_PROC_ADDRESS_LEGACY_STREAM, NULL),
			 CUDA_SUCCESS);
	ck_assert_ptr_ne(pfn, (void *)cuStreamQuery);
}
END_TEST

struct other {
	atomic_int ran;
	CUresult sync;
};

static void *other_thread(void *arg)
{
	struct other *o = arg;

	primary_ctx_make_current();
	ck_assert_int_eq(cuLaunchHostFunc(NULL, set_flag_fn, &o->ran), CUDA_SUCCESS);
	o->sync = cuStreamSynchronize(NULL);
	return NULL;
}

START_TEST(threads_null_streams_do_not_wait_for_each_other)
{
	struct other o = { .sync = CUDA_ERROR_UNKNOWN };
	struct gate g = { 0 };
	pthread_t t;

	ck_assert_int_eq(cuLaunchHostFunc(NULL, gate_fn, &g), CUDA_SUCCESS);
	ck_assert_int_eq(pthread_create(&t, NULL, other_thread, &o), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(o.sync, CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&o.ran), 1);
	ck_assert_int_eq(cuStreamQuery(NULL), CUDA_ERROR_NOT_READY);
	atomic_store(&g.open, 1);
	ck_assert_int_eq(cuStreamSynchronize(NULL), CUDA_SUCCESS);
}
END_TEST

struct late_store {
	CUdeviceptr addr;
	unsigned int value;
};

static void CUDA_CB late_store_fn(void *arg)
{
	struct late_store *ls = arg;

	usleep(50000);
	atomic_store((_Atomic unsigned int *)vmm_ptr(ls->addr), ls->value);
}

START_TEST(sync_copies_follow_the_threads_stream)
{
	struct vmm_buf buf = vmm_buf_new(0, gran);
	struct late_store ls = { buf.va, 7 };
	unsigned int out = 0;
	CUevent ev;

	ck_assert_int_eq(cuMemsetD32(buf.va, 0, 16), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(NULL, late_store_fn, &ls), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(&out, buf.va, sizeof(out)), CUDA_SUCCESS);
	ck_assert_uint_eq(out, 7);
	/* Async work, memory operations and events on the NULL stream. */
	ck_assert_int_eq(cuMemsetD32Async(buf.va, 9, 1, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamWriteValue32(NULL, buf.va + 4, 5, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamWaitValue32(NULL, buf.va + 4, 5,
					     CU_STREAM_WAIT_VALUE_EQ), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventCreate(&ev, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventRecord(ev, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventSynchronize(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpy((CUdeviceptr)&out, buf.va, sizeof(out)), CUDA_SUCCESS);
	ck_assert_uint_eq(out, 9);
	ck_assert_int_eq(cuEventDestroy(ev), CUDA_SUCCESS);
	vmm_buf_free(&buf);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("stream_ptds");
	TCase *tc = tcase_create("per-thread default stream build");

	tcase_add_checked_fixture(tc, setup, NULL);
	/* Thread hand-offs under TCG on a loaded machine: not 4 s. */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, null_stream_is_the_per_thread_stream);
	tcase_add_test(tc, lookups_answer_the_per_thread_flavour);
	tcase_add_test(tc, threads_null_streams_do_not_wait_for_each_other);
	tcase_add_test(tc, sync_copies_follow_the_threads_stream);
	suite_add_tcase(s, tc);

	return check_run_forked(s);
}
