/* SPDX-License-Identifier: MIT */
/*
 * Host functions the stream, event and graph tests queue: a gate that
 * holds its stream until the test opens it, so work behind it stays
 * pending for as long as a check needs, a flag that says a function ran,
 * and a log of the order functions ran in; and the streams and events
 * they are queued on, made or the test fails.
 */
#ifndef _CUMC_TESTS_STREAM_GATE_H
#define _CUMC_TESTS_STREAM_GATE_H

#include <check.h>
#include <cuda.h>
#include <stdatomic.h>
#include <unistd.h>

struct gate {
	atomic_int open;
	atomic_int reached;
};

static inline void CUDA_CB gate_fn(void *arg)
{
	struct gate *g = arg;

	atomic_store(&g->reached, 1);
	while (!atomic_load(&g->open))
		usleep(200);
}

static inline void gate_wait_reached(struct gate *g)
{
	while (!atomic_load(&g->reached))
		usleep(200);
}

static inline void CUDA_CB set_flag_fn(void *arg)
{
	atomic_store((atomic_int *)arg, 1);
}

#define ORDER_LOG_LEN 256

struct order_log {
	atomic_int next;
	int seen[ORDER_LOG_LEN];
};

struct order_item {
	struct order_log *log;
	int value;
};

static inline void CUDA_CB log_fn(void *arg)
{
	struct order_item *it = arg;
	int at = atomic_fetch_add(&it->log->next, 1);

	if (at < ORDER_LOG_LEN)
		it->log->seen[at] = it->value;
}

/* Where @value was logged first, from entry @from on; -1: not yet. */
static inline int order_position(const struct order_log *log, int value,
				 int from)
{
	int i;

	for (i = from; i < atomic_load(&log->next); i++)
		if (log->seen[i] == value)
			return i;
	return -1;
}

/* For a thread of the test's own: device 0's primary context, current. */
static inline void primary_ctx_make_current(void)
{
	CUcontext ctx;

	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
}

static inline CUevent event_new(unsigned int flags)
{
	CUevent ev;

	ck_assert_int_eq(cuEventCreate(&ev, flags), CUDA_SUCCESS);
	return ev;
}

static inline CUstream stream_new(unsigned int flags)
{
	CUstream s;

	ck_assert_int_eq(cuStreamCreate(&s, flags), CUDA_SUCCESS);
	return s;
}

#endif /* _CUMC_TESTS_STREAM_GATE_H */
