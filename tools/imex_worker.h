/* SPDX-License-Identifier: MIT */
/*
 * cumc-imex's worker thread: it runs, in the order they came, the kernel's
 * side of what the other nodes send: their calls (IMEX_CALL), and the
 * answers to this node's calls, which must not overtake a call that came
 * before them. A call may keep the kernel busy for seconds (the first
 * export of gigabytes never touched zeroes them); on its own thread it
 * holds back no heartbeat, and the peers do not judge this node lost.
 * The main thread queues jobs and takes them back done, in the same
 * order, when imex_worker_fd() is readable.
 */
#ifndef IMEX_WORKER_H
#define IMEX_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include "imex_kernel.h"

enum imex_job_kind {
	IMEX_JOB_CALL,		/* another node's call, to run */
	IMEX_JOB_ANSWER,	/* an answer to this node's, waiting its turn */
	IMEX_JOB_JOIN,		/* a node connected: IMEX_NODE_JOIN, in turn */
};

struct imex_job {
	struct imex_job *next;
	enum imex_job_kind kind;
	bool cancelled;		/* a call not to run: imex_worker_cancel() */
	void *peer;		/* whose it is: the worker never looks */
	unsigned long gen;	/* and of which of its connections */
	uint32_t node, op, req_id, result;
	struct imex_data in;	/* the call's arguments, or the answer */
	int err;		/* a call's: imex_kernel_call()'s, -ECANCELED */
	struct {		/* a call's answer, when err is 0 */
		uint32_t result;
		struct imex_data payload;	/* bytes: the worker's malloc */
	} reply;
	uint8_t buf[];		/* in.bytes point here: in.length bytes */
};

/*
 * Allocate a job, @in copied into it: its size is its payload's, not the
 * largest one's. NULL when out of memory.
 */
struct imex_job *imex_job_new(const struct imex_data *in);
/* Free @job and its answer. */
void imex_job_free(struct imex_job *job);

/* Start the thread on @k (imex_kernel_call() only): 0 or -errno. */
int imex_worker_start(struct imex_kernel *k);
/* Readable while done jobs wait to be taken. */
int imex_worker_fd(void);
/* Queue @job: the worker owns it until imex_worker_take() gives it back. */
void imex_worker_push(struct imex_job *job);
/*
 * The calls and the join of @peer's connection @gen not yet started are
 * not run: calls come back done with err -ECANCELED, joins cancelled.
 */
void imex_worker_cancel(const void *peer, unsigned long gen);
/* The oldest job done, or NULL; the caller frees it (imex_job_free()). */
struct imex_job *imex_worker_take(void);
/* Wait for the job in progress, end the thread, drop what is left. */
void imex_worker_stop(void);

#endif /* IMEX_WORKER_H */
