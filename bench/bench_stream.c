// SPDX-License-Identifier: MIT
/*
 * bench_stream: what a round trip through a stream's worker costs.  A
 * 4 KiB cuMemsetD32Async then cuStreamSynchronize, and cuEventRecord then
 * cuEventSynchronize, on a created non-blocking stream whose worker is
 * running; beside them the calls that do not hand work to a worker
 * (cuStreamQuery of an idle stream, the synchronous cuMemsetD32, which
 * runs on the caller once the legacy stream is idle), and, as a baseline,
 * the bare hand-off between two threads that any queue served by a
 * worker pays: a condition-variable ping-pong.  Each figure is the median
 * and 95th percentile of many rounds, and the median as a multiple of a
 * null system call measured in the same run.
 *
 * bench_stream [--json FILE] [--reps N]
 * Figures, never a verdict.
 */
#include <cuda.h>
#include <pthread.h>
#include <stdbool.h>

#include "bench.h"

#define WARMUP 200
#define SET_WORDS 1024		/* 4 KiB */

enum op {
	OP_QUERY_IDLE,
	OP_MEMSET_SYNC,
	OP_MEMSET_ASYNC_SYNC,
	OP_EVENT_RECORD_SYNC,
	OP_HANDOFF,
	NUM_OPS
};

static const char *const op_names[NUM_OPS] = {
	"cuStreamQuery (idle stream)",
	"cuMemsetD32 4KiB (synchronous)",
	"cuMemsetD32Async 4KiB + cuStreamSynchronize",
	"cuEventRecord + cuEventSynchronize",
	"baseline: thread hand-off round trip",
};

/* The baseline: a request to another thread and its answer. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned long asked, answered;
	bool stop;
} pong = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, false };

static void *pong_thread(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&pong.lock);
	while (!pong.stop) {
		while (pong.asked == pong.answered && !pong.stop)
			pthread_cond_wait(&pong.cond, &pong.lock);
		pong.answered = pong.asked;
		pthread_cond_broadcast(&pong.cond);
	}
	pthread_mutex_unlock(&pong.lock);
	return NULL;
}

static void ping(void)
{
	pthread_mutex_lock(&pong.lock);
	pong.asked++;
	pthread_cond_broadcast(&pong.cond);
	while (pong.answered != pong.asked)
		pthread_cond_wait(&pong.cond, &pong.lock);
	pthread_mutex_unlock(&pong.lock);
}

static CUdeviceptr map_device_memory(size_t *size)
{
	CUmemAllocationProp prop = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED,
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 },
	};
	CUmemAccessDesc desc = {
		.location = prop.location,
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};
	CUmemGenericAllocationHandle mem;
	CUdeviceptr va;

	CHECK(cuMemGetAllocationGranularity(size, &prop,
					    CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	CHECK(cuMemCreate(&mem, *size, &prop, 0));
	CHECK(cuMemAddressReserve(&va, *size, 0, 0, 0));
	CHECK(cuMemMap(va, *size, 0, mem, 0));
	CHECK(cuMemSetAccess(va, *size, &desc, 1));
	CHECK(cuMemRelease(mem));
	return va;
}

static void one_round(CUstream s, CUevent ev, CUdeviceptr va, double t[NUM_OPS])
{
	double t0;

	TIMED(t, OP_QUERY_IDLE, cuStreamQuery(s));
	TIMED(t, OP_MEMSET_SYNC, cuMemsetD32(va, 1, SET_WORDS));
	t0 = now_ns();
	CHECK(cuMemsetD32Async(va, 2, SET_WORDS, s));
	CHECK(cuStreamSynchronize(s));
	t[OP_MEMSET_ASYNC_SYNC] = now_ns() - t0;
	t0 = now_ns();
	CHECK(cuEventRecord(ev, s));
	CHECK(cuEventSynchronize(ev));
	t[OP_EVENT_RECORD_SYNC] = now_ns() - t0;
	t0 = now_ns();
	ping();
	t[OP_HANDOFF] = now_ns() - t0;
}

static void measure(int reps, struct stats out[NUM_OPS])
{
	double *samples = calloc((size_t)NUM_OPS * reps, sizeof(double));
	double t[NUM_OPS];
	CUdeviceptr va;
	pthread_t thread;
	CUcontext ctx;
	CUstream s;
	CUevent ev;
	size_t size;
	int r, op;

	if (!samples)
		exit(1);
	CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
	CHECK(cuCtxSetCurrent(ctx));
	va = map_device_memory(&size);
	CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	CHECK(cuEventCreate(&ev, CU_EVENT_DEFAULT));
	if (pthread_create(&thread, NULL, pong_thread, NULL))
		exit(1);
	for (r = 0; r < WARMUP; r++)
		one_round(s, ev, va, t);
	for (r = 0; r < reps; r++) {
		one_round(s, ev, va, t);
		for (op = 0; op < NUM_OPS; op++)
			samples[op * reps + r] = t[op];
	}
	for (op = 0; op < NUM_OPS; op++)
		out[op] = stats_of(&samples[op * reps], reps);
	pthread_mutex_lock(&pong.lock);
	pong.stop = true;
	pthread_cond_broadcast(&pong.cond);
	pthread_mutex_unlock(&pong.lock);
	pthread_join(thread, NULL);
	CHECK(cuEventDestroy(ev));
	CHECK(cuStreamDestroy(s));
	CHECK(cuMemUnmap(va, size));
	CHECK(cuMemAddressFree(va, size));
	free(samples);
}

int main(int argc, char **argv)
{
	const char *json = "build/bench/bench_stream.json";
	struct stats res[NUM_OPS], null;
	struct json_object *doc;
	int reps = 2000, op;

	control_args(argc, argv, &json, &reps);
	CHECK(cuInit(0));
	null = null_syscall();
	measure(reps, res);
	printf("bench_stream: %d rounds, device 0; null syscall (getppid) median "
	       "%.0f ns, p95 %.0f ns\n\n", reps, null.median_ns, null.p95_ns);
	printf("%-46s | %9s %9s %8s\n", "operation", "median us", "p95 us",
	       "x null");
	for (op = 0; op < NUM_OPS; op++)
		printf("%-46s | %9.2f %9.2f %8.1f\n", op_names[op],
		       res[op].median_ns / 1e3, res[op].p95_ns / 1e3,
		       res[op].median_ns / null.median_ns);
	doc = bench_doc_begin(NULL);
	json_object_object_add(doc, "rounds", json_object_new_int(reps));
	bench_doc_null_syscall(doc, null);
	json_object_object_add(doc, "results", bench_rows);
	for (op = 0; op < NUM_OPS; op++)
		JSON("\"op\": \"%s\", \"median_ns\": %.1f, \"p95_ns\": %.1f, "
		     "\"x_null_syscall\": %.2f", op_names[op], res[op].median_ns,
		     res[op].p95_ns, res[op].median_ns / null.median_ns);
	return bench_doc_end(json, doc);
}
