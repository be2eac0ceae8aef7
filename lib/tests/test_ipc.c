// SPDX-License-Identifier: MIT
/*
 * Legacy interprocess memory and events (lib/ipc.c) between two
 * processes (runs in the VM): a handle of cuMemAlloc memory, copied by
 * value into another process, opens there onto the same bytes, counted
 * per open; an interprocess event's handle opens onto an event either
 * process records and the other waits for; what cannot be opened (the
 * exporter's own handles, freed memory or destroyed events, an exporter
 * gone, garbage).
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "check_run.h"
#include "child.h"
#include "vmm.h"

static void setup(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	vmm_use_device(0);
}

/* The handle a child opens, and the size and bytes it should find. */
static CUipcMemHandle shared;
static size_t shared_size;

static int child_setup(void)
{
	CUcontext ctx;

	if (cuInit(0) != CUDA_SUCCESS ||
	    cuDevicePrimaryCtxRetain(&ctx, 1) != CUDA_SUCCESS ||
	    cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
		return 1;
	return 0;
}

/* Whether all @size bytes at @p are @value. */
static bool all_bytes(const unsigned char *p, size_t size, unsigned char value)
{
	return size && p[0] == value && !memcmp(p, p + 1, size - 1);
}

/* Reads 0x5a throughout, writes 0xc3 back; two opens, one mapping. */
static int child_opens_and_writes(void)
{
	CUdeviceptr d = 0, again = 0;
	unsigned char *bytes = malloc(shared_size);

	CHILD_EXPECT(bytes && child_setup() == 0);
	CHILD_EXPECT(cuIpcOpenMemHandle(&d, shared,
					CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) ==
		     CUDA_SUCCESS);
	CHILD_EXPECT(cuMemcpyDtoH(bytes, d, shared_size) == CUDA_SUCCESS);
	CHILD_EXPECT(all_bytes(bytes, shared_size, 0x5a));
	CHILD_EXPECT(cuMemsetD8(d, 0xc3, shared_size) == CUDA_SUCCESS);
	CHILD_EXPECT(cuIpcOpenMemHandle(&again, shared,
					CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) ==
		     CUDA_SUCCESS);
	CHILD_EXPECT(again == d);
	CHILD_EXPECT(cuIpcCloseMemHandle(d) == CUDA_SUCCESS);
	/* Still open once: still mapped. */
	CHILD_EXPECT(((volatile unsigned char *)vmm_ptr(d))[0] == 0xc3);
	CHILD_EXPECT(cuIpcCloseMemHandle(d) == CUDA_SUCCESS);
	CHILD_EXPECT(cuIpcCloseMemHandle(d) == CUDA_ERROR_INVALID_VALUE);
	free(bytes);
	return 0;
}

static void share_with_child(size_t size)
{
	CUdeviceptr before, d;
	unsigned char *bytes = malloc(size);

	ck_assert_ptr_nonnull(bytes);
	/* Another allocation first: the shared one is not its chunk's start. */
	ck_assert_int_eq(cuMemAlloc(&before, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&d, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD8(d, 0x5a, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuIpcGetMemHandle(&shared, d), CUDA_SUCCESS);
	shared_size = size;
	assert_child_passes(child_opens_and_writes);
	ck_assert_int_eq(cuMemcpyDtoH(bytes, d, size), CUDA_SUCCESS);
	ck_assert(all_bytes(bytes, size, 0xc3));
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(before), CUDA_SUCCESS);
	free(bytes);
}

START_TEST(needs_init)
{
	CUipcMemHandle h = { { 0 } };
	CUipcEventHandle eh = { { 0 } };
	CUdeviceptr d;
	CUevent ev;

	ck_assert_int_eq(cuIpcGetMemHandle(&h, 1 << 30), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuIpcOpenMemHandle(&d, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuIpcCloseMemHandle(1 << 30), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuIpcGetEventHandle(&eh, (CUevent)&eh),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuIpcOpenEventHandle(&ev, eh), CUDA_ERROR_NOT_INITIALIZED);
}
END_TEST

START_TEST(small_allocation_shared)
{
	share_with_child(3000);
}
END_TEST

START_TEST(large_allocation_shared)
{
	/* Beyond sub-allocation: a chunk of its own, over two granules. */
	share_with_child(vmm_granularity() + 12345);
}
END_TEST

START_TEST(own_handle_is_invalid_context)
{
	CUipcMemHandle h;
	CUdeviceptr d, opened = 0;

	ck_assert_int_eq(cuMemAlloc(&d, 64), CUDA_SUCCESS);
	ck_assert_int_eq(cuIpcGetMemHandle(&h, d), CUDA_SUCCESS);
	ck_assert_int_eq(cuIpcOpenMemHandle(&opened, h,
					    CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
			 CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_uint_eq(opened, 0);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
}
END_TEST

static int child_open_is_invalid_handle(void)
{
	CUdeviceptr d = 0;

	CHILD_EXPECT(child_setup() == 0);
	CHILD_EXPECT(cuIpcOpenMemHandle(&d, shared,
					CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) ==
		     CUDA_ERROR_INVALID_HANDLE);
	CHILD_EXPECT(d == 0);
	return 0;
}

START_TEST(freed_memory_opens_nowhere)
{
	CUdeviceptr d;

	ck_assert_int_eq(cuMemAlloc(&d, 64), CUDA_SUCCESS);
	ck_assert_int_eq(cuIpcGetMemHandle(&shared, d), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
	assert_child_passes(child_open_is_invalid_handle);
	/* A new allocation at the same address is not the freed one. */
	ck_assert_int_eq(cuMemAlloc(&d, 64), CUDA_SUCCESS);
	assert_child_passes(child_open_is_invalid_handle);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
}
END_TEST

static int child_exports_and_exits(void)
{
	CUdeviceptr d;

	CHILD_EXPECT(child_setup() == 0);
	CHILD_EXPECT(cuMemAlloc(&d, 64) == CUDA_SUCCESS);
	CHILD_EXPECT(cuIpcGetMemHandle(&shared, d) == CUDA_SUCCESS);
	return 0;
}

/* The child's handle comes back by value, through a pipe. */
START_TEST(exporter_gone_opens_nowhere)
{
	CUdeviceptr d = 0;
	int fds[2], status;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int res = child_exports_and_exits();

		if (write(fds[1], &shared, sizeof(shared)) != sizeof(shared))
			res = 1;
		_exit(res);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(read(fds[0], &shared, sizeof(shared)), sizeof(shared));
	ck_assert_int_eq(cuIpcOpenMemHandle(&d, shared,
					    CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_uint_eq(d, 0);
	close(fds[0]);
	close(fds[1]);
}
END_TEST

START_TEST(bad_arguments)
{
	CUipcMemHandle h, garbage;
	CUdeviceptr d, managed, opened = 0;
	struct vmm_buf vmm = vmm_buf_new(0, vmm_granularity());
	int host;

	memset(&garbage, 0x77, sizeof(garbage));
	ck_assert_int_eq(cuMemAlloc(&d, 64), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAllocManaged(&managed, 64, CU_MEM_ATTACH_GLOBAL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuIpcGetMemHandle(NULL, d), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuIpcGetMemHandle(&h, managed), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuIpcGetMemHandle(&h, vmm.va), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuIpcGetMemHandle(&h, (CUdeviceptr)&host),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuIpcGetMemHandle(&h, 0), CUDA_ERROR_INVALID_VALUE);

	ck_assert_int_eq(cuIpcGetMemHandle(&h, d), CUDA_SUCCESS);
	ck_assert_int_eq(cuIpcOpenMemHandle(NULL, h,
					    CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuIpcOpenMemHandle(&opened, h, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuIpcOpenMemHandle(&opened, h, 2),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuIpcOpenMemHandle(&opened, garbage,
					    CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_uint_eq(opened, 0);
	ck_assert_int_eq(cuIpcCloseMemHandle(d), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuIpcCloseMemHandle(0), CUDA_ERROR_INVALID_VALUE);

	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuIpcOpenMemHandle(&opened, h,
					    CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
			 CUDA_ERROR_INVALID_CONTEXT);
	vmm_buf_free(&vmm);
	ck_assert_int_eq(cuMemFree(managed), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
}
END_TEST

START_TEST(ipc_capable_pointer_attribute)
{
	CUdeviceptr d, managed;
	unsigned int v = 7;

	ck_assert_int_eq(cuMemAlloc(&d, 64), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAllocManaged(&managed, 64, CU_MEM_ATTACH_GLOBAL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuPointerGetAttribute(&v,
			 CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, d),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(v, 1);
	ck_assert_int_eq(cuPointerGetAttribute(&v,
			 CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, managed),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(cuMemFree(managed), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
}
END_TEST

/* A byte through a pipe: the two processes' steps, in order. */
static bool send_step(int fd)
{
	char step = 's';

	return write(fd, &step, 1) == 1;
}

static bool await_step(int fd)
{
	char step;

	return read(fd, &step, 1) == 1;
}

/* A host function that holds its stream until a step comes through @arg. */
static void CUDA_CB hold_until_step(void *arg)
{
	await_step(*(int *)arg);
}

/* What the child of events_between_processes is handed by fork. */
static CUipcEventHandle shared_event;
static int to_parent = -1, to_child = -1;

#define EVENT_BYTES 4096

/*
 * The parent's work (a set to 0x42) is held back until this child has
 * queried the event and queued a copy after it; the child's own record,
 * after a set to 0x17, is held until the parent has queried and queued
 * its copy.
 */
static int child_shares_event(void)
{
	unsigned char *seen = malloc(EVENT_BYTES);
	CUdeviceptr d = 0;
	CUstream stream;
	CUevent ev;

	CHILD_EXPECT(seen && child_setup() == 0);
	CHILD_EXPECT(cuIpcOpenEventHandle(&ev, shared_event) == CUDA_SUCCESS);
	CHILD_EXPECT(cuEventQuery(ev) == CUDA_ERROR_NOT_READY);
	CHILD_EXPECT(cuIpcOpenMemHandle(&d, shared,
					CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) ==
		     CUDA_SUCCESS);
	CHILD_EXPECT(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) ==
		     CUDA_SUCCESS);
	CHILD_EXPECT(cuStreamWaitEvent(stream, ev, 0) == CUDA_SUCCESS);
	CHILD_EXPECT(cuMemcpyDtoHAsync(seen, d, EVENT_BYTES, stream) ==
		     CUDA_SUCCESS);
	CHILD_EXPECT(send_step(to_parent));
	CHILD_EXPECT(cuEventSynchronize(ev) == CUDA_SUCCESS);
	CHILD_EXPECT(cuEventQuery(ev) == CUDA_SUCCESS);
	CHILD_EXPECT(cuStreamSynchronize(stream) == CUDA_SUCCESS);
	CHILD_EXPECT(all_bytes(seen, EVENT_BYTES, 0x42));

	CHILD_EXPECT(cuLaunchHostFunc(stream, hold_until_step, &to_child) ==
		     CUDA_SUCCESS);
	CHILD_EXPECT(cuMemsetD8Async(d, 0x17, EVENT_BYTES, stream) ==
		     CUDA_SUCCESS);
	CHILD_EXPECT(cuEventRecord(ev, stream) == CUDA_SUCCESS);
	CHILD_EXPECT(send_step(to_parent));
	CHILD_EXPECT(cuEventSynchronize(ev) == CUDA_SUCCESS);
	CHILD_EXPECT(cuStreamDestroy(stream) == CUDA_SUCCESS);
	CHILD_EXPECT(cuEventDestroy(ev) == CUDA_SUCCESS);
	CHILD_EXPECT(cuEventQuery(ev) == CUDA_ERROR_INVALID_HANDLE);
	CHILD_EXPECT(cuIpcCloseMemHandle(d) == CUDA_SUCCESS);
	free(seen);
	return 0;
}

START_TEST(events_between_processes)
{
	int up[2], down[2], hold[2], status;
	unsigned char *seen = malloc(EVENT_BYTES);
	CUstream stream;
	CUdeviceptr d;
	CUevent ev;
	pid_t pid;

	ck_assert_ptr_nonnull(seen);
	ck_assert_int_eq(pipe(up), 0);
	ck_assert_int_eq(pipe(down), 0);
	ck_assert_int_eq(pipe(hold), 0);
	ck_assert_int_eq(cuEventCreate(&ev, CU_EVENT_INTERPROCESS |
				       CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
	ck_assert_int_eq(cuIpcGetEventHandle(&shared_event, ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&d, EVENT_BYTES), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD8(d, 0, EVENT_BYTES), CUDA_SUCCESS);
	ck_assert_int_eq(cuIpcGetMemHandle(&shared, d), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(stream, hold_until_step, &hold[0]),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD8Async(d, 0x42, EVENT_BYTES, stream),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuEventRecord(ev, stream), CUDA_SUCCESS);

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(up[0]);
		close(down[1]);
		to_parent = up[1];
		to_child = down[0];
		_exit(child_shares_event());
	}
	close(up[1]);
	close(down[0]);
	/* The child has queried and queued; only now does the work run. */
	ck_assert(await_step(up[0]));
	ck_assert_int_eq(cuEventQuery(ev), CUDA_ERROR_NOT_READY);
	ck_assert(send_step(hold[1]));
	ck_assert_int_eq(cuEventSynchronize(ev), CUDA_SUCCESS);

	/* The child's record, held until this process has queued its copy. */
	ck_assert(await_step(up[0]));
	ck_assert_int_eq(cuEventQuery(ev), CUDA_ERROR_NOT_READY);
	ck_assert_int_eq(cuStreamWaitEvent(stream, ev, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoHAsync(seen, d, EVENT_BYTES, stream),
			 CUDA_SUCCESS);
	ck_assert(send_step(down[1]));
	ck_assert_int_eq(cuStreamSynchronize(stream), CUDA_SUCCESS);
	ck_assert(all_bytes(seen, EVENT_BYTES, 0x17));
	ck_assert_int_eq(cuEventQuery(ev), CUDA_SUCCESS);

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_msg(WEXITSTATUS(status) == 0, "the child failed (see stderr)");
	ck_assert_int_eq(cuEventDestroy(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventQuery(ev), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuStreamDestroy(stream), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
	close(up[0]);
	close(down[1]);
	close(hold[0]);
	close(hold[1]);
	free(seen);
}
END_TEST

/* Opens the handle, says so, and waits for the parent's work for good. */
static int child_waits_until_killed(void)
{
	CUevent ev;

	CHILD_EXPECT(child_setup() == 0);
	CHILD_EXPECT(cuIpcOpenEventHandle(&ev, shared_event) == CUDA_SUCCESS);
	CHILD_EXPECT(send_step(to_parent));
	cuEventSynchronize(ev);
	return 1;
}

/* A process killed inside a wait leaves the event working for the other. */
START_TEST(waiter_killed_mid_wait)
{
	int up[2], hold[2], status;
	CUstream stream;
	CUevent ev;
	pid_t pid;

	ck_assert_int_eq(pipe(up), 0);
	ck_assert_int_eq(pipe(hold), 0);
	ck_assert_int_eq(cuEventCreate(&ev, CU_EVENT_INTERPROCESS |
				       CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
	ck_assert_int_eq(cuIpcGetEventHandle(&shared_event, ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(stream, hold_until_step, &hold[0]),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuEventRecord(ev, stream), CUDA_SUCCESS);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(up[0]);
		to_parent = up[1];
		_exit(child_waits_until_killed());
	}
	close(up[1]);
	ck_assert(await_step(up[0]));
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSIGNALED(status));
	ck_assert_int_eq(cuEventQuery(ev), CUDA_ERROR_NOT_READY);
	ck_assert(send_step(hold[1]));
	ck_assert_int_eq(cuEventSynchronize(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventQuery(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(stream), CUDA_SUCCESS);
	close(up[0]);
	close(hold[0]);
	close(hold[1]);
}
END_TEST

/* Exports an event, recorded and completed, then exits once it is open. */
static int child_exports_event(int up, int down)
{
	CUstream stream;
	CUevent ev;

	CHILD_EXPECT(child_setup() == 0);
	CHILD_EXPECT(cuEventCreate(&ev, CU_EVENT_INTERPROCESS |
				   CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS);
	CHILD_EXPECT(cuStreamCreate(&stream, 0) == CUDA_SUCCESS);
	CHILD_EXPECT(cuEventRecord(ev, stream) == CUDA_SUCCESS);
	CHILD_EXPECT(cuStreamSynchronize(stream) == CUDA_SUCCESS);
	CHILD_EXPECT(cuIpcGetEventHandle(&shared_event, ev) == CUDA_SUCCESS);
	CHILD_EXPECT(write(up, &shared_event, sizeof(shared_event)) ==
		     sizeof(shared_event));
	CHILD_EXPECT(await_step(down));
	return 0;
}

/*
 * An event opened stays usable after its exporter is gone: the page is
 * the opener's too; the handle opens nothing more.
 */
START_TEST(opened_event_outlives_exporter)
{
	int up[2], down[2], status;
	CUstream stream;
	CUevent ev, again = NULL;
	pid_t pid;

	ck_assert_int_eq(pipe(up), 0);
	ck_assert_int_eq(pipe(down), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(child_exports_event(up[1], down[0]));
	ck_assert_int_eq(read(up[0], &shared_event, sizeof(shared_event)),
			 sizeof(shared_event));
	ck_assert_int_eq(cuIpcOpenEventHandle(&ev, shared_event), CUDA_SUCCESS);
	ck_assert(send_step(down[1]));
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	ck_assert_int_eq(cuEventQuery(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventSynchronize(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamCreate(&stream, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamWaitEvent(stream, ev, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventRecord(ev, stream), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventSynchronize(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(stream), CUDA_SUCCESS);
	ck_assert_int_eq(cuIpcOpenEventHandle(&again, shared_event),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_ptr_null(again);
	ck_assert_int_eq(cuEventDestroy(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(stream), CUDA_SUCCESS);
	close(up[0]);
	close(up[1]);
	close(down[0]);
	close(down[1]);
}
END_TEST

static int child_event_opens_nowhere(void)
{
	CUevent ev = NULL;

	CHILD_EXPECT(child_setup() == 0);
	CHILD_EXPECT(cuIpcOpenEventHandle(&ev, shared_event) ==
		     CUDA_ERROR_INVALID_HANDLE);
	CHILD_EXPECT(ev == NULL);
	return 0;
}

/* A destroyed event, or a handle whose token was changed, opens nowhere. */
START_TEST(destroyed_or_forged_event_opens_nowhere)
{
	CUipcEventHandle h;
	CUevent ev;

	ck_assert_int_eq(cuEventCreate(&ev, CU_EVENT_INTERPROCESS |
				       CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
	ck_assert_int_eq(cuIpcGetEventHandle(&h, ev), CUDA_SUCCESS);
	/* The token follows the magic and the pid. */
	shared_event = h;
	shared_event.reserved[8] ^= 1;
	assert_child_passes(child_event_opens_nowhere);
	shared_event = h;
	ck_assert_int_eq(cuEventDestroy(ev), CUDA_SUCCESS);
	assert_child_passes(child_event_opens_nowhere);
}
END_TEST

START_TEST(event_handle_errors)
{
	CUipcEventHandle h, garbage;
	CUevent ev, timed, opened = NULL;
	float ms;
	int v = -1;

	ck_assert_int_eq(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED,
					      0), CUDA_SUCCESS);
	ck_assert_int_eq(v, 1);
	memset(&garbage, 0x77, sizeof(garbage));
	ck_assert_int_eq(cuEventCreate(&ev, CU_EVENT_INTERPROCESS |
				       CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventCreate(&timed, CU_EVENT_DISABLE_TIMING),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuIpcGetEventHandle(NULL, ev), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuIpcGetEventHandle(&h, timed), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuIpcGetEventHandle(&h, (CUevent)&h),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuIpcGetEventHandle(&h, ev), CUDA_SUCCESS);

	/* In its own process it is a DISABLE_TIMING event, never recorded. */
	ck_assert_int_eq(cuEventQuery(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventSynchronize(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventElapsedTime(&ms, ev, ev),
			 CUDA_ERROR_INVALID_HANDLE);

	ck_assert_int_eq(cuIpcOpenEventHandle(NULL, h), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuIpcOpenEventHandle(&opened, garbage),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuIpcOpenEventHandle(&opened, h),
			 CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_ptr_null(opened);
	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuIpcOpenEventHandle(&opened, h),
			 CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_ptr_null(opened);
	ck_assert_int_eq(cuEventDestroy(timed), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuIpcGetEventHandle(&h, ev), CUDA_ERROR_INVALID_HANDLE);
}
END_TEST

/* No dma-buf of cumc memory: NOT_SUPPORTED once the arguments are right. */
START_TEST(no_dma_buf_handles)
{
	CUdeviceptr d;
	int fd = -1;

	ck_assert_int_eq(cuMemAlloc(&d, 4096), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemGetHandleForAddressRange(&fd, d, 4096,
			 CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuMemGetHandleForAddressRange(&fd, d, 4096,
			 CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD,
			 CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuMemGetHandleForAddressRange(NULL, d, 4096,
			 CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemGetHandleForAddressRange(&fd, d, 4096, 2, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemGetHandleForAddressRange(&fd, d, 4096,
			 CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 2),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(fd, -1);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ipc");
	TCase *mem = tcase_create("memory");
	TCase *events = tcase_create("events");

	check_add_uninit(s, needs_init);

	tcase_add_checked_fixture(mem, setup, NULL);
	tcase_add_test(mem, small_allocation_shared);
	tcase_add_test(mem, large_allocation_shared);
	tcase_add_test(mem, own_handle_is_invalid_context);
	tcase_add_test(mem, freed_memory_opens_nowhere);
	tcase_add_test(mem, exporter_gone_opens_nowhere);
	tcase_add_test(mem, bad_arguments);
	tcase_add_test(mem, ipc_capable_pointer_attribute);
	tcase_add_test(mem, no_dma_buf_handles);
	suite_add_tcase(s, mem);

	tcase_add_checked_fixture(events, setup, NULL);
	tcase_add_test(events, events_between_processes);
	tcase_add_test(events, waiter_killed_mid_wait);
	tcase_add_test(events, opened_event_outlives_exporter);
	tcase_add_test(events, destroyed_or_forged_event_opens_nowhere);
	tcase_add_test(events, event_handle_errors);
	suite_add_tcase(s, events);

	return check_run_forked(s);
}
