/* SPDX-License-Identifier: MIT */
/*
 * Host functions the stream and event tests queue: a gate that holds its
 * stream until the test opens it, so work behind it stays pending for as
 * long as a check needs, and a flag that says a function ran.
 */
#ifndef _CUMC_TESTS_STREAM_GATE_H
#define _CUMC_TESTS_STREAM_GATE_H

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

#endif /* _CUMC_TESTS_STREAM_GATE_H */
