// SPDX-License-Identifier: MIT
/*
 * Events (runs in the VM): creation flags, records on created and default
 * streams, query and synchronize while the recorded work is held back,
 * cross-stream waits with cuStreamWaitEvent, elapsed times (their order,
 * never their values) and the refusals: untimed, unrecorded, garbage and
 * destroyed events.
 */
#include <stdatomic.h>
#include <unistd.h>

#include "check_run.h"
#include "stream_gate.h"
#include "vmm.h"

static void setup(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	vmm_use_device(0);
}

START_TEST(event_calls_need_init)
{
	CUevent ev;
	float ms;

	ck_assert_int_eq(cuEventCreate(&ev, 0), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuEventQuery((CUevent)1), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuEventSynchronize((CUevent)1), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuEventRecord((CUevent)1, NULL), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuEventElapsedTime(&ms, (CUevent)1, (CUevent)1),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuEventDestroy((CUevent)1), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuCtxRecordEvent((CUcontext)1, (CUevent)1), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuCtxWaitEvent((CUcontext)1, (CUevent)1), CUDA_ERROR_NOT_INITIALIZED);
}
END_TEST

START_TEST(creation_flags_checked)
{
	CUevent ev;

	ck_assert_int_eq(cuEventCreate(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuEventCreate(&ev, 8), CUDA_ERROR_INVALID_VALUE);
	/* An interprocess event needs DISABLE_TIMING. */
	ck_assert_int_eq(cuEventCreate(&ev, CU_EVENT_INTERPROCESS),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuEventCreate(&ev, CU_EVENT_INTERPROCESS |
				       CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventCreate(&ev, CU_EVENT_BLOCKING_SYNC), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventCreate(&ev, 0), CUDA_ERROR_INVALID_CONTEXT);
}
END_TEST

START_TEST(garbage_and_destroyed_events_refused)
{
	static const uintptr_t garbage[] = { 0, 1, 0x1234, 0xe700000, ~0ul };
	CUevent ok = event_new(0), ev;
	size_t i;
	float ms;

	ck_assert_int_eq(cuEventRecord(ok, NULL), CUDA_SUCCESS);
	for (i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
		ev = (CUevent)garbage[i];
		ck_assert_int_eq(cuEventQuery(ev), CUDA_ERROR_INVALID_HANDLE);
		ck_assert_int_eq(cuEventSynchronize(ev), CUDA_ERROR_INVALID_HANDLE);
		ck_assert_int_eq(cuEventRecord(ev, NULL), CUDA_ERROR_INVALID_HANDLE);
		ck_assert_int_eq(cuEventDestroy(ev), CUDA_ERROR_INVALID_HANDLE);
		ck_assert_int_eq(cuStreamWaitEvent(NULL, ev, 0), CUDA_ERROR_INVALID_HANDLE);
		ck_assert_int_eq(cuEventElapsedTime(&ms, ok, ev), CUDA_ERROR_INVALID_HANDLE);
		ck_assert_int_eq(cuEventElapsedTime(&ms, ev, ok), CUDA_ERROR_INVALID_HANDLE);
	}
	ev = event_new(0);
	ck_assert_int_eq(cuEventDestroy(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventQuery(ev), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuEventDestroy(ev), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuEventRecord(ok, (CUstream)0x4242), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuEventDestroy(ok), CUDA_SUCCESS);
}
END_TEST

START_TEST(never_recorded_event_has_completed)
{
	CUevent a = event_new(0), b = event_new(0);
	float ms = -1;

	ck_assert_int_eq(cuEventQuery(a), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventSynchronize(a), CUDA_SUCCESS);
	/* Elapsed time needs both recorded. */
	ck_assert_int_eq(cuEventElapsedTime(&ms, a, b), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuEventRecord(a, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventSynchronize(a), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventElapsedTime(&ms, a, b), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuEventElapsedTime(&ms, b, a), CUDA_ERROR_INVALID_HANDLE);
	/* Waiting for an unrecorded event waits for nothing. */
	ck_assert_int_eq(cuStreamWaitEvent(NULL, b, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(a), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(b), CUDA_SUCCESS);
}
END_TEST

START_TEST(query_and_synchronize_follow_the_recorded_work)
{
	struct gate g = { 0 };
	CUstream s = stream_new(CU_STREAM_NON_BLOCKING);
	CUevent ev = event_new(CU_EVENT_BLOCKING_SYNC);

	ck_assert_int_eq(cuLaunchHostFunc(s, gate_fn, &g), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventRecord(ev, s), CUDA_SUCCESS);
	gate_wait_reached(&g);
	ck_assert_int_eq(cuEventQuery(ev), CUDA_ERROR_NOT_READY);
	atomic_store(&g.open, 1);
	ck_assert_int_eq(cuEventSynchronize(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventQuery(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(ev), CUDA_SUCCESS);
}
END_TEST

START_TEST(elapsed_time_ordered_and_refused_without_timing)
{
	struct gate g = { 0 };
	CUstream s = stream_new(0);
	CUevent a = event_new(0), b = event_new(0);
	CUevent untimed = event_new(CU_EVENT_DISABLE_TIMING);
	float ms = -1;

	ck_assert_int_eq(cuEventRecord(a, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(s, gate_fn, &g), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventRecord(b, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventRecord(untimed, s), CUDA_SUCCESS);
	gate_wait_reached(&g);
	ck_assert_int_eq(cuEventElapsedTime(&ms, a, b), CUDA_ERROR_NOT_READY);
	atomic_store(&g.open, 1);
	ck_assert_int_eq(cuEventSynchronize(untimed), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventElapsedTime(NULL, a, b), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuEventElapsedTime(&ms, a, b), CUDA_SUCCESS);
	ck_assert_float_ge(ms, 0);
	/* As the real driver answers: untimed events are invalid handles here. */
	ck_assert_int_eq(cuEventElapsedTime(&ms, a, untimed), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuEventElapsedTime(&ms, untimed, b), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(a), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(b), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(untimed), CUDA_SUCCESS);
}
END_TEST

START_TEST(stream_waits_for_event_of_another_stream)
{
	struct gate g = { 0 };
	CUstream a = stream_new(CU_STREAM_NON_BLOCKING);
	CUstream b = stream_new(CU_STREAM_NON_BLOCKING);
	CUstream idle = stream_new(CU_STREAM_NON_BLOCKING);
	CUevent ev = event_new(CU_EVENT_DISABLE_TIMING);
	atomic_int ran = 0;

	ck_assert_int_eq(cuLaunchHostFunc(a, gate_fn, &g), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventRecord(ev, a), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamWaitEvent(b, ev, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamWaitEvent(b, ev, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(b, set_flag_fn, &ran), CUDA_SUCCESS);
	/* Recording again does not change what b waits for. */
	ck_assert_int_eq(cuEventRecord(ev, idle), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventSynchronize(ev), CUDA_SUCCESS);
	gate_wait_reached(&g);
	usleep(20000);
	ck_assert_int_eq(atomic_load(&ran), 0);
	ck_assert_int_eq(cuStreamQuery(b), CUDA_ERROR_NOT_READY);
	atomic_store(&g.open, 1);
	ck_assert_int_eq(cuStreamSynchronize(b), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&ran), 1);
	ck_assert_int_eq(cuEventDestroy(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(a), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(b), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(idle), CUDA_SUCCESS);
}
END_TEST

/* On the legacy stream, a record also covers the blocking streams' work. */
START_TEST(records_on_the_default_streams)
{
	struct gate g = { 0 };
	CUstream blocking = stream_new(0);
	CUevent ev = event_new(0), pt = event_new(0);

	ck_assert_int_eq(cuLaunchHostFunc(blocking, gate_fn, &g), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventRecord(ev, NULL), CUDA_SUCCESS);
	gate_wait_reached(&g);
	usleep(20000);
	ck_assert_int_eq(cuEventQuery(ev), CUDA_ERROR_NOT_READY);
	atomic_store(&g.open, 1);
	ck_assert_int_eq(cuEventSynchronize(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventRecord(ev, CU_STREAM_LEGACY), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventRecordWithFlags(pt, CU_STREAM_PER_THREAD, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuEventRecordWithFlags(pt, CU_STREAM_PER_THREAD,
						CU_EVENT_RECORD_EXTERNAL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuEventSynchronize(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventSynchronize(pt), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(blocking), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(pt), CUDA_SUCCESS);
}
END_TEST

START_TEST(destroy_with_pending_record)
{
	struct gate g = { 0 };
	CUstream s = stream_new(CU_STREAM_NON_BLOCKING);
	CUevent ev = event_new(0);

	ck_assert_int_eq(cuLaunchHostFunc(s, gate_fn, &g), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventRecord(ev, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventQuery(ev), CUDA_ERROR_INVALID_HANDLE);
	atomic_store(&g.open, 1);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
}
END_TEST

START_TEST(event_and_stream_of_different_contexts)
{
	CUevent ev = event_new(0);
	CUcontext other;
	CUstream s;

	ck_assert_int_eq(cuEventRecord(ev, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxCreate(&other, NULL, 0, 0), CUDA_SUCCESS);
	s = stream_new(0);
	ck_assert_int_eq(cuEventRecord(ev, s), CUDA_ERROR_INVALID_HANDLE);
	/* Waiting may cross contexts. */
	ck_assert_int_eq(cuStreamWaitEvent(s, ev, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxDestroy(other), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(ev), CUDA_SUCCESS);
}
END_TEST

/* A context's event covers every stream of it, non-blocking ones too. */
START_TEST(context_event_waits_for_all_streams)
{
	CUstream s = stream_new(CU_STREAM_NON_BLOCKING);
	CUevent ev = event_new(0), foreign;
	struct gate g = { 0 };
	CUcontext ctx, other;

	ck_assert_int_eq(cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxCreate(&other, NULL, 0, 0), CUDA_SUCCESS);
	foreign = event_new(0);
	ck_assert_int_eq(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(s, gate_fn, &g), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxRecordEvent(NULL, ev), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxRecordEvent((CUcontext)&g, ev), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxRecordEvent(ctx, NULL), CUDA_ERROR_INVALID_HANDLE);
	/* The event and the context must be one context's. */
	ck_assert_int_eq(cuCtxRecordEvent(ctx, foreign), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuEventQuery(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxRecordEvent(ctx, ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventQuery(ev), CUDA_ERROR_NOT_READY);
	atomic_store(&g.open, 1);
	ck_assert_int_eq(cuEventSynchronize(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(foreign), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxDestroy(other), CUDA_SUCCESS);
	/* cuda.h lists no CONTEXT_IS_DESTROYED for it. */
	ck_assert_int_eq(cuCtxRecordEvent(other, ev), CUDA_ERROR_INVALID_CONTEXT);
}
END_TEST

/* A context's wait holds back its streams, for another context's event. */
START_TEST(context_waits_for_event_of_another_context)
{
	CUstream s = stream_new(CU_STREAM_NON_BLOCKING), elsewhere;
	CUevent ev = event_new(0);
	struct gate g = { 0 };
	CUcontext ctx, other;
	atomic_int ran = 0;

	ck_assert_int_eq(cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxCreate(&other, NULL, 0, 0), CUDA_SUCCESS);
	elsewhere = stream_new(CU_STREAM_NON_BLOCKING);
	ck_assert_int_eq(cuLaunchHostFunc(elsewhere, gate_fn, &g), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventRecord(ev, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxRecordEvent(other, ev), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuCtxWaitEvent(NULL, ev), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxWaitEvent(ctx, NULL), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuEventDestroy(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetCurrent(other), CUDA_SUCCESS);
	ev = event_new(0);
	ck_assert_int_eq(cuEventRecord(ev, elsewhere), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxWaitEvent(ctx, ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(s, set_flag_fn, &ran), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamQuery(s), CUDA_ERROR_NOT_READY);
	ck_assert_int_eq(atomic_load(&ran), 0);
	atomic_store(&g.open, 1);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&ran), 1);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxDestroy(other), CUDA_SUCCESS);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("event");
	TCase *tc = tcase_create("events");

	check_add_uninit(s, event_calls_need_init);

	tcase_add_checked_fixture(tc, setup, NULL);
	/* Thread hand-offs under TCG on a loaded machine: not 4 s. */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, creation_flags_checked);
	tcase_add_test(tc, garbage_and_destroyed_events_refused);
	tcase_add_test(tc, never_recorded_event_has_completed);
	tcase_add_test(tc, query_and_synchronize_follow_the_recorded_work);
	tcase_add_test(tc, elapsed_time_ordered_and_refused_without_timing);
	tcase_add_test(tc, stream_waits_for_event_of_another_stream);
	tcase_add_test(tc, records_on_the_default_streams);
	tcase_add_test(tc, destroy_with_pending_record);
	tcase_add_test(tc, event_and_stream_of_different_contexts);
	tcase_add_test(tc, context_event_waits_for_all_streams);
	tcase_add_test(tc, context_waits_for_event_of_another_context);
	suite_add_tcase(s, tc);

	return check_run_forked(s);
}
