// SPDX-License-Identifier: MIT
/*
 * cumc-imex's worker thread: see imex_worker.h. One thread, so the jobs
 * run one at a time in the order they came, as they did on the main
 * thread before; an eventfd tells the main thread's ppoll() of jobs done.
 * A job is the size of its payload; the largest answer is the worker's
 * one scratch buffer, and a done call keeps a copy of its answer's bytes.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "imex_worker.h"

static struct {
	pthread_t thread;
	bool running;
	/* Guards the queues, stopping and the eventfd's count. */
	pthread_mutex_t lock;
	pthread_cond_t wake;	/* a job queued, or stopping */
	struct imex_job *todo, **todo_tail;
	struct imex_job *done, **done_tail;
	bool stopping;
	int efd;
	struct imex_kernel *kernel;
} w = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.wake = PTHREAD_COND_INITIALIZER,
	.todo_tail = &w.todo,
	.done_tail = &w.done,
	.efd = -1,
};

struct imex_job *imex_job_new(const struct imex_data *in)
{
	size_t len = in->present ? in->length : 0;
	struct imex_job *job = calloc(1, sizeof(*job) + len);

	if (!job)
		return NULL;
	job->in = *in;
	job->in.bytes = job->buf;
	if (len)
		memcpy(job->buf, in->bytes, len);
	return job;
}

void imex_job_free(struct imex_job *job)
{
	if (job)
		free((void *)job->reply.payload.bytes);
	free(job);
}

/*
 * Run call @job; its answer's bytes are copied out of @scratch, the one
 * answer of the largest size the worker has, into as many as they need.
 */
static void run_call(struct imex_job *job, struct imex_reply *scratch)
{
	uint8_t *bytes = NULL;

	job->err = imex_kernel_call(w.kernel, job->node, job->op, &job->in,
				    scratch);
	if (job->err)
		return;
	if (scratch->payload.present && scratch->payload.length) {
		bytes = malloc(scratch->payload.length);
		if (!bytes) {
			job->err = -ENOMEM;
			return;
		}
		memcpy(bytes, scratch->payload.bytes, scratch->payload.length);
	}
	job->reply.result = scratch->result;
	job->reply.payload = scratch->payload;
	job->reply.payload.bytes = bytes;
}

static struct imex_job *pop(struct imex_job **head, struct imex_job ***tail)
{
	struct imex_job *job = *head;

	if (job) {
		*head = job->next;
		if (!*head)
			*tail = head;
		job->next = NULL;
	}
	return job;
}

static void append(struct imex_job ***tail, struct imex_job *job)
{
	job->next = NULL;
	**tail = job;
	*tail = &job->next;
}

static void *work(void *arg)
{
	static struct imex_reply scratch;
	const uint64_t one = 1;
	struct imex_job *job;
	bool cancelled;

	(void)arg;
	pthread_mutex_lock(&w.lock);
	while (!w.stopping) {
		job = pop(&w.todo, &w.todo_tail);
		if (!job) {
			pthread_cond_wait(&w.wake, &w.lock);
			continue;
		}
		cancelled = job->cancelled;
		pthread_mutex_unlock(&w.lock);
		if (job->kind == IMEX_JOB_CALL && cancelled)
			job->err = -ECANCELED;
		else if (job->kind == IMEX_JOB_CALL)
			run_call(job, &scratch);
		else if (job->kind == IMEX_JOB_JOIN && !cancelled)
			job->err = imex_kernel_node_join(w.kernel, job->node);
		pthread_mutex_lock(&w.lock);
		append(&w.done_tail, job);
		/* Only a count of 2^64 - 1 could refuse it. */
		if (write(w.efd, &one, sizeof(one)) != sizeof(one))
			abort();
	}
	pthread_mutex_unlock(&w.lock);
	return NULL;
}

int imex_worker_start(struct imex_kernel *k)
{
	int err;

	w.kernel = k;
	w.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w.efd < 0)
		return -errno;
	err = pthread_create(&w.thread, NULL, work, NULL);
	if (err) {
		close(w.efd);
		w.efd = -1;
		return -err;
	}
	w.running = true;
	return 0;
}

int imex_worker_fd(void)
{
	return w.efd;
}

void imex_worker_push(struct imex_job *job)
{
	pthread_mutex_lock(&w.lock);
	append(&w.todo_tail, job);
	pthread_cond_signal(&w.wake);
	pthread_mutex_unlock(&w.lock);
}

void imex_worker_cancel(const void *peer, unsigned long gen)
{
	struct imex_job *job;

	pthread_mutex_lock(&w.lock);
	for (job = w.todo; job; job = job->next)
		if (job->kind != IMEX_JOB_ANSWER && job->peer == peer &&
		    job->gen == gen)
			job->cancelled = true;
	pthread_mutex_unlock(&w.lock);
}

struct imex_job *imex_worker_take(void)
{
	struct imex_job *job;
	uint64_t count;

	pthread_mutex_lock(&w.lock);
	job = pop(&w.done, &w.done_tail);
	/* All taken: the count is spent, ppoll() waits for the next. */
	if (!job && read(w.efd, &count, sizeof(count)) < 0 && errno != EAGAIN)
		abort();
	pthread_mutex_unlock(&w.lock);
	return job;
}

void imex_worker_stop(void)
{
	struct imex_job *job;

	if (w.running) {
		pthread_mutex_lock(&w.lock);
		w.stopping = true;
		pthread_cond_signal(&w.wake);
		pthread_mutex_unlock(&w.lock);
		pthread_join(w.thread, NULL);
		w.running = false;
	}
	while ((job = pop(&w.todo, &w.todo_tail)))
		imex_job_free(job);
	while ((job = pop(&w.done, &w.done_tail)))
		imex_job_free(job);
	if (w.efd >= 0)
		close(w.efd);
	w.efd = -1;
}
