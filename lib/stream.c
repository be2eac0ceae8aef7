// SPDX-License-Identifier: MIT
/*
 * Streams: in-order host work queues, one worker thread each while they
 * have work (stream.h).
 *
 * A CUstream is a number this registry issues, never a pointer that is
 * dereferenced, so garbage and destroyed handles are refused; numbers are
 * not reused.  Besides the streams of cuStreamCreate, each context has a
 * legacy default stream (NULL, CU_STREAM_LEGACY) and each thread one
 * per-thread default stream per context (CU_STREAM_PER_THREAD, or NULL
 * through the _ptds/_ptsz entry points), both created on first use.
 *
 * One lock guards every stream's queue and counters; workers broadcast
 * one condition on every completed item, which every waiter (host
 * synchronization, dependencies of other workers) sleeps on.  A destroyed
 * stream leaves the registry at once and is freed once its worker has
 * drained it and nothing refers to it any more.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "context.h"
#include "stream.h"

enum libcumc_stream_kind {
	CUMC_STREAM_USER,
	CUMC_STREAM_LEGACY,
	CUMC_STREAM_PER_THREAD,
};

struct libcumc_stream {
	struct libcumc_stream *next;
	CUstream handle;		/* of a created stream; else NULL */
	unsigned long long id;
	enum libcumc_stream_kind kind;
	CUcontext ctx;
	CUdevice dev;
	unsigned int flags;
	int priority;
	unsigned int refs;		/* holders besides the registry */
	bool dead;			/* destroyed: no new work */
	bool worker_running;
	uint64_t enqueued;		/* items submitted */
	uint64_t completed;		/* items run */
	struct libcumc_work *head, *tail;
	pthread_cond_t wake;		/* the worker waits for work here */
	CUresult error;			/* the first error of its work */
};

/* How long a worker waits for work before it leaves. */
#define CUMC_WORKER_IDLE_S 2

/* cuCtxGetStreamPriorityRange of an H100. */
#define CUMC_PRIORITY_LEAST 0
#define CUMC_PRIORITY_GREATEST (-5)

/* Created streams' handles start here: clear of NULL, LEGACY, PER_THREAD. */
#define CUMC_STREAM_HANDLE_BASE 0x5700000u

static pthread_mutex_t libcumc_streams_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t libcumc_streams_progress = PTHREAD_COND_INITIALIZER;
static struct libcumc_stream *libcumc_streams;
static unsigned long long libcumc_last_stream_id;
/* Bumped in a forked child: its threads' per-thread streams are stale. */
static unsigned long libcumc_streams_epoch;

/* The calling thread's per-thread default streams, one per context. */
struct libcumc_ptds_entry {
	CUcontext ctx;
	struct libcumc_stream *stream;
};
struct libcumc_ptds {
	unsigned long epoch;
	struct libcumc_ptds_entry *entries;
	size_t count;
};
static __thread struct libcumc_ptds libcumc_ptds;
static pthread_key_t libcumc_ptds_key;
static pthread_once_t libcumc_ptds_once = PTHREAD_ONCE_INIT;

struct libcumc_work *libcumc_work_alloc(size_t size,
					CUresult (*run)(struct libcumc_work *))
{
	struct libcumc_work *work = calloc(1, size);

	if (work)
		work->run = run;
	return work;
}

/* Called with the lock held, or by the only holder of the dependencies. */
static void libcumc_work_drop_deps(struct libcumc_work *work);

/* With the lock held: fini, which may take it, has been called already. */
static void libcumc_work_destroy(struct libcumc_work *work)
{
	libcumc_work_drop_deps(work);
	free(work->deps);
	free(work);
}

void libcumc_work_free(struct libcumc_work *work)
{
	if (work->fini)
		work->fini(work);
	pthread_mutex_lock(&libcumc_streams_lock);
	libcumc_work_destroy(work);
	pthread_mutex_unlock(&libcumc_streams_lock);
}

static CUresult libcumc_work_add_dep_locked(struct libcumc_work *work,
					    struct libcumc_stream *stream,
					    uint64_t ticket)
{
	struct libcumc_dep *deps;

	if (stream->completed >= ticket)
		return CUDA_SUCCESS;
	if (work->num_deps == work->max_deps) {
		unsigned int max = work->max_deps ? 2 * work->max_deps : 4;

		deps = reallocarray(work->deps, max, sizeof(*deps));
		if (!deps)
			return CUDA_ERROR_OUT_OF_MEMORY;
		work->deps = deps;
		work->max_deps = max;
	}
	stream->refs++;
	work->deps[work->num_deps++] = (struct libcumc_dep){ stream, ticket };
	return CUDA_SUCCESS;
}

CUresult libcumc_work_add_dep(struct libcumc_work *work,
			      struct libcumc_stream *stream, uint64_t ticket)
{
	CUresult res;

	pthread_mutex_lock(&libcumc_streams_lock);
	res = libcumc_work_add_dep_locked(work, stream, ticket);
	pthread_mutex_unlock(&libcumc_streams_lock);
	return res;
}

/* A stream goes once destroyed, drained and unreferenced (lock held). */
static void libcumc_stream_maybe_free(struct libcumc_stream *stream)
{
	struct libcumc_stream **link;

	if (!stream->dead || stream->refs || stream->worker_running ||
	    stream->head)
		return;
	for (link = &libcumc_streams; *link != stream; link = &(*link)->next)
		;
	*link = stream->next;
	pthread_cond_destroy(&stream->wake);
	free(stream);
}

static void libcumc_stream_put_locked(struct libcumc_stream *stream)
{
	stream->refs--;
	libcumc_stream_maybe_free(stream);
}

static void libcumc_work_drop_deps(struct libcumc_work *work)
{
	unsigned int i;

	for (i = 0; i < work->num_deps; i++)
		libcumc_stream_put_locked(work->deps[i].stream);
	work->num_deps = 0;
}

void libcumc_stream_ref(struct libcumc_stream *stream)
{
	pthread_mutex_lock(&libcumc_streams_lock);
	stream->refs++;
	pthread_mutex_unlock(&libcumc_streams_lock);
}

void libcumc_stream_put(struct libcumc_stream *stream)
{
	pthread_mutex_lock(&libcumc_streams_lock);
	libcumc_stream_put_locked(stream);
	pthread_mutex_unlock(&libcumc_streams_lock);
}

/* Workers sleep on CLOCK_MONOTONIC, to leave after CUMC_WORKER_IDLE_S. */
static pthread_condattr_t libcumc_wake_attr;

__attribute__((constructor)) static void libcumc_wake_attr_init(void)
{
	pthread_condattr_init(&libcumc_wake_attr);
	pthread_condattr_setclock(&libcumc_wake_attr, CLOCK_MONOTONIC);
}

static struct libcumc_stream *libcumc_stream_new(enum libcumc_stream_kind kind,
						 CUcontext ctx, CUdevice dev,
						 unsigned int flags,
						 int priority)
{
	struct libcumc_stream *stream = calloc(1, sizeof(*stream));

	if (!stream)
		return NULL;
	stream->id = ++libcumc_last_stream_id;
	if (kind == CUMC_STREAM_USER)
		stream->handle = (CUstream)(uintptr_t)(CUMC_STREAM_HANDLE_BASE +
						       stream->id);
	stream->kind = kind;
	stream->ctx = ctx;
	stream->dev = dev;
	stream->flags = flags;
	stream->priority = priority;
	pthread_cond_init(&stream->wake, &libcumc_wake_attr);
	stream->next = libcumc_streams;
	libcumc_streams = stream;
	return stream;
}

static void libcumc_stream_kill(struct libcumc_stream *stream)
{
	stream->dead = true;
	pthread_cond_signal(&stream->wake);
	libcumc_stream_maybe_free(stream);
}

/* Waits with the lock held until @stream has completed @ticket. */
static void libcumc_wait_locked(struct libcumc_stream *stream, uint64_t ticket)
{
	while (stream->completed < ticket)
		pthread_cond_wait(&libcumc_streams_progress,
				  &libcumc_streams_lock);
}

static void libcumc_wait_deps(struct libcumc_work *work)
{
	unsigned int i;

	for (i = 0; i < work->num_deps; i++)
		libcumc_wait_locked(work->deps[i].stream, work->deps[i].ticket);
}

/*
 * Waits for work; false when the worker should leave: its stream is
 * destroyed and drained, or it found nothing to do for CUMC_WORKER_IDLE_S
 * (the next submission starts a worker again), so that idle streams hold
 * no threads.  Lock held.
 */
static bool libcumc_worker_wait(struct libcumc_stream *stream)
{
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += CUMC_WORKER_IDLE_S;
	while (!stream->head && !stream->dead)
		if (pthread_cond_timedwait(&stream->wake, &libcumc_streams_lock,
					   &until) == ETIMEDOUT &&
		    !stream->head)
			return false;
	return stream->head != NULL;
}

static void *libcumc_stream_worker(void *arg)
{
	struct libcumc_stream *stream = arg;
	struct libcumc_work *work;
	CUresult res;

	pthread_mutex_lock(&libcumc_streams_lock);
	for (;;) {
		if (!libcumc_worker_wait(stream))
			break;
		work = stream->head;
		libcumc_wait_deps(work);
		pthread_mutex_unlock(&libcumc_streams_lock);
		res = work->run ? work->run(work) : CUDA_SUCCESS;
		if (work->fini)
			work->fini(work);
		pthread_mutex_lock(&libcumc_streams_lock);
		if (res != CUDA_SUCCESS && stream->error == CUDA_SUCCESS)
			stream->error = res;
		stream->head = work->next;
		if (!stream->head)
			stream->tail = NULL;
		stream->completed++;
		libcumc_work_destroy(work);
		pthread_cond_broadcast(&libcumc_streams_progress);
	}
	stream->worker_running = false;
	libcumc_stream_maybe_free(stream);
	pthread_mutex_unlock(&libcumc_streams_lock);
	return NULL;
}

static CUresult libcumc_worker_start(struct libcumc_stream *stream)
{
	pthread_attr_t attr;
	pthread_t thread;
	int err;

	if (stream->worker_running)
		return CUDA_SUCCESS;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	err = pthread_create(&thread, &attr, libcumc_stream_worker, stream);
	pthread_attr_destroy(&attr);
	if (err)
		return CUDA_ERROR_OUT_OF_MEMORY;
	stream->worker_running = true;
	return CUDA_SUCCESS;
}

/* Blocking streams synchronize with the legacy one: all but NON_BLOCKING. */
static bool libcumc_stream_blocking(const struct libcumc_stream *stream)
{
	return stream->kind == CUMC_STREAM_PER_THREAD ||
	       (stream->kind == CUMC_STREAM_USER &&
		!(stream->flags & CU_STREAM_NON_BLOCKING));
}

static struct libcumc_stream *libcumc_find_legacy(CUcontext ctx)
{
	struct libcumc_stream *s;

	for (s = libcumc_streams; s; s = s->next)
		if (s->kind == CUMC_STREAM_LEGACY && s->ctx == ctx && !s->dead)
			return s;
	return NULL;
}

/*
 * What work on @stream waits for besides its own stream: for the legacy
 * stream, all work submitted so far to the blocking streams of its
 * context (dead ones included: their work still runs); for a blocking
 * stream, the legacy stream's.
 */
static CUresult libcumc_add_implicit_deps(struct libcumc_stream *stream,
					  struct libcumc_work *work)
{
	struct libcumc_stream *s;
	CUresult res = CUDA_SUCCESS;

	if (stream->kind == CUMC_STREAM_LEGACY) {
		for (s = libcumc_streams; s && res == CUDA_SUCCESS; s = s->next)
			if (s != stream && s->ctx == stream->ctx &&
			    libcumc_stream_blocking(s))
				res = libcumc_work_add_dep_locked(work, s,
								  s->enqueued);
		return res;
	}
	if (!libcumc_stream_blocking(stream))
		return CUDA_SUCCESS;
	s = libcumc_find_legacy(stream->ctx);
	return s ? libcumc_work_add_dep_locked(work, s, s->enqueued) :
		   CUDA_SUCCESS;
}

CUresult libcumc_stream_submit(struct libcumc_stream *stream,
			       struct libcumc_work *work, uint64_t *ticket)
{
	CUresult res = CUDA_ERROR_INVALID_HANDLE;

	pthread_mutex_lock(&libcumc_streams_lock);
	if (!stream->dead)
		res = libcumc_add_implicit_deps(stream, work);
	if (res == CUDA_SUCCESS)
		res = libcumc_worker_start(stream);
	if (res != CUDA_SUCCESS) {
		pthread_mutex_unlock(&libcumc_streams_lock);
		libcumc_work_free(work);
		return res;
	}
	work->next = NULL;
	if (stream->tail)
		stream->tail->next = work;
	else
		stream->head = work;
	stream->tail = work;
	if (ticket)
		*ticket = ++stream->enqueued;
	else
		++stream->enqueued;
	pthread_cond_signal(&stream->wake);
	pthread_mutex_unlock(&libcumc_streams_lock);
	return CUDA_SUCCESS;
}

bool libcumc_stream_done(struct libcumc_stream *stream, uint64_t ticket)
{
	bool done;

	pthread_mutex_lock(&libcumc_streams_lock);
	done = stream->completed >= ticket;
	pthread_mutex_unlock(&libcumc_streams_lock);
	return done;
}

void libcumc_stream_wait(struct libcumc_stream *stream, uint64_t ticket)
{
	pthread_mutex_lock(&libcumc_streams_lock);
	libcumc_wait_locked(stream, ticket);
	pthread_mutex_unlock(&libcumc_streams_lock);
}

/*
 * A marker standing for the next item of @stream (@as_item: with its
 * implicit dependencies), or for the work submitted to it so far: its own
 * last ticket, and for the legacy stream also what the next item would
 * wait for, since an operation on the legacy stream waits for the
 * blocking streams.  A blocking stream's own items carry their waits for
 * the legacy stream already: synchronizing it waits for no later legacy
 * work.  Lock held.
 */
static CUresult libcumc_marker(struct libcumc_stream *stream, bool as_item,
			       struct libcumc_work *marker)
{
	CUresult res = CUDA_SUCCESS;

	if (as_item || stream->kind == CUMC_STREAM_LEGACY)
		res = libcumc_add_implicit_deps(stream, marker);

	if (res == CUDA_SUCCESS)
		res = libcumc_work_add_dep_locked(marker, stream,
						  stream->enqueued);
	return res;
}

/* Whether everything @marker depends on has completed. Lock held. */
static bool libcumc_marker_done(const struct libcumc_work *marker)
{
	unsigned int i;

	for (i = 0; i < marker->num_deps; i++)
		if (marker->deps[i].stream->completed < marker->deps[i].ticket)
			return false;
	return true;
}

CUresult libcumc_stream_sync(struct libcumc_stream *stream)
{
	struct libcumc_work marker = { 0 };
	CUresult res;

	pthread_mutex_lock(&libcumc_streams_lock);
	res = libcumc_marker(stream, false, &marker);
	if (res == CUDA_SUCCESS) {
		libcumc_wait_deps(&marker);
		res = stream->error;
	}
	if (res == CUDA_SUCCESS)
		res = libcumc_ctx_fault(stream->ctx);
	libcumc_work_drop_deps(&marker);
	pthread_mutex_unlock(&libcumc_streams_lock);
	free(marker.deps);
	return res;
}

CUresult libcumc_stream_query(struct libcumc_stream *stream)
{
	struct libcumc_work marker = { 0 };
	CUresult res;

	pthread_mutex_lock(&libcumc_streams_lock);
	res = libcumc_marker(stream, false, &marker);
	if (res == CUDA_SUCCESS)
		res = libcumc_marker_done(&marker) ? stream->error :
						     CUDA_ERROR_NOT_READY;
	libcumc_work_drop_deps(&marker);
	pthread_mutex_unlock(&libcumc_streams_lock);
	free(marker.deps);
	return res;
}

CUcontext libcumc_stream_ctx(const struct libcumc_stream *stream)
{
	return stream->ctx;
}

CUdevice libcumc_stream_dev(const struct libcumc_stream *stream)
{
	return stream->dev;
}

CUresult libcumc_stream_error(struct libcumc_stream *stream)
{
	CUresult res;

	pthread_mutex_lock(&libcumc_streams_lock);
	res = stream->error;
	pthread_mutex_unlock(&libcumc_streams_lock);
	return res;
}

/* The current context and its device. */
static CUresult libcumc_current_ctx(CUcontext *ctx, CUdevice *dev)
{
	CUresult res = libcumc_current_device(dev);

	if (res == CUDA_SUCCESS)
		*ctx = libcumc_stack_top();
	return res;
}

static CUresult libcumc_legacy_get(CUcontext ctx, CUdevice dev,
				   struct libcumc_stream **stream)
{
	struct libcumc_stream *s = libcumc_find_legacy(ctx);

	if (!s)
		s = libcumc_stream_new(CUMC_STREAM_LEGACY, ctx, dev, 0, 0);
	if (!s)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*stream = s;
	return CUDA_SUCCESS;
}

/* A thread's per-thread streams are destroyed when it exits. */
static void libcumc_ptds_exit(void *arg)
{
	struct libcumc_ptds_entry *entries = arg;
	size_t i;

	pthread_mutex_lock(&libcumc_streams_lock);
	if (libcumc_ptds.epoch == libcumc_streams_epoch)
		for (i = 0; i < libcumc_ptds.count; i++)
			if (entries[i].stream) {
				libcumc_stream_kill(entries[i].stream);
				libcumc_stream_put_locked(entries[i].stream);
			}
	pthread_mutex_unlock(&libcumc_streams_lock);
	libcumc_ptds.count = 0;
	libcumc_ptds.entries = NULL;
	free(entries);
}

static void libcumc_ptds_key_create(void)
{
	pthread_key_create(&libcumc_ptds_key, libcumc_ptds_exit);
}

static CUresult libcumc_ptds_get(CUcontext ctx, CUdevice dev,
				 struct libcumc_stream **stream)
{
	struct libcumc_ptds *p = &libcumc_ptds;
	struct libcumc_ptds_entry *entries;
	struct libcumc_stream *s;
	size_t i;

	if (p->epoch != libcumc_streams_epoch) {
		p->count = 0;
		p->epoch = libcumc_streams_epoch;
	}
	for (i = 0; i < p->count; i++) {
		s = p->entries[i].stream;
		if (s && s->dead) {
			/* Its context was destroyed: let it go. */
			p->entries[i].stream = NULL;
			libcumc_stream_put_locked(s);
		} else if (s && s->ctx == ctx) {
			*stream = s;
			return CUDA_SUCCESS;
		}
	}
	entries = reallocarray(p->entries, p->count + 1, sizeof(*entries));
	if (!entries)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_once(&libcumc_ptds_once, libcumc_ptds_key_create);
	pthread_setspecific(libcumc_ptds_key, entries);
	p->entries = entries;
	s = libcumc_stream_new(CUMC_STREAM_PER_THREAD, ctx, dev, 0, 0);
	if (!s)
		return CUDA_ERROR_OUT_OF_MEMORY;
	/* Held by this thread until it exits: dead streams are skipped. */
	s->refs++;
	p->entries[p->count++] = (struct libcumc_ptds_entry){ ctx, s };
	*stream = s;
	return CUDA_SUCCESS;
}

static struct libcumc_stream *libcumc_find_handle(CUstream handle)
{
	struct libcumc_stream *s;

	for (s = libcumc_streams; s; s = s->next)
		if (s->handle == handle && !s->dead)
			return s;
	return NULL;
}

CUresult libcumc_stream_get(CUstream handle, bool ptds,
			    struct libcumc_stream **stream)
{
	struct libcumc_stream *s = NULL;
	CUresult res = CUDA_SUCCESS;
	CUcontext ctx = NULL;
	CUdevice dev = 0;

	if (!handle)
		handle = ptds ? CU_STREAM_PER_THREAD : CU_STREAM_LEGACY;
	if (handle == CU_STREAM_LEGACY || handle == CU_STREAM_PER_THREAD) {
		res = libcumc_current_ctx(&ctx, &dev);
		if (res != CUDA_SUCCESS)
			return res;
	}
	pthread_mutex_lock(&libcumc_streams_lock);
	if (handle == CU_STREAM_LEGACY)
		res = libcumc_legacy_get(ctx, dev, &s);
	else if (handle == CU_STREAM_PER_THREAD)
		res = libcumc_ptds_get(ctx, dev, &s);
	else if (!(s = libcumc_find_handle(handle)))
		res = CUDA_ERROR_INVALID_HANDLE;
	if (res == CUDA_SUCCESS) {
		s->refs++;
		*stream = s;
	}
	pthread_mutex_unlock(&libcumc_streams_lock);
	return res;
}

CUresult libcumc_stream_run_sync(bool ptds, CUresult (*op)(void *arg),
				 void *arg)
{
	struct libcumc_work marker = { 0 };
	struct libcumc_stream *stream;
	CUresult res = libcumc_stream_get(NULL, ptds, &stream);

	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&libcumc_streams_lock);
	res = libcumc_marker(stream, true, &marker);
	if (res == CUDA_SUCCESS)
		libcumc_wait_deps(&marker);
	libcumc_work_drop_deps(&marker);
	libcumc_stream_put_locked(stream);
	pthread_mutex_unlock(&libcumc_streams_lock);
	free(marker.deps);
	return res == CUDA_SUCCESS ? op(arg) : res;
}

CUresult libcumc_streams_sync_ctx(CUcontext ctx)
{
	struct libcumc_work marker = { 0 };
	struct libcumc_stream *s;
	CUresult res = CUDA_SUCCESS;

	pthread_mutex_lock(&libcumc_streams_lock);
	for (s = libcumc_streams; s && res == CUDA_SUCCESS; s = s->next)
		if (s->ctx == ctx)
			res = libcumc_work_add_dep_locked(&marker, s,
							  s->enqueued);
	if (res == CUDA_SUCCESS)
		libcumc_wait_deps(&marker);
	for (s = libcumc_streams; s && res == CUDA_SUCCESS; s = s->next)
		if (s->ctx == ctx && !s->dead && s->error != CUDA_SUCCESS)
			res = s->error;
	if (res == CUDA_SUCCESS)
		res = libcumc_ctx_fault(ctx);
	libcumc_work_drop_deps(&marker);
	pthread_mutex_unlock(&libcumc_streams_lock);
	free(marker.deps);
	return res;
}

void libcumc_streams_ctx_gone(CUcontext ctx)
{
	struct libcumc_stream *s, *next;

	pthread_mutex_lock(&libcumc_streams_lock);
	for (s = libcumc_streams; s; s = next) {
		next = s->next;
		if (s->ctx == ctx && !s->dead)
			libcumc_stream_kill(s);
	}
	pthread_mutex_unlock(&libcumc_streams_lock);
}

void libcumc_streams_reap(void)
{
	struct libcumc_stream *s, *next;
	CUdevice dev;

	pthread_mutex_lock(&libcumc_streams_lock);
	for (s = libcumc_streams; s; s = next) {
		next = s->next;
		if (!s->dead &&
		    libcumc_context_device(s->ctx, &dev) != CUDA_SUCCESS)
			libcumc_stream_kill(s);
	}
	pthread_mutex_unlock(&libcumc_streams_lock);
}

/*
 * A forked child has none of its parent's worker threads: it starts with
 * no streams (the parent's are leaked, as its contexts are forgotten).
 */
static void libcumc_streams_forget_parent(void)
{
	libcumc_streams = NULL;
	libcumc_streams_epoch++;
	pthread_mutex_init(&libcumc_streams_lock, NULL);
	pthread_cond_init(&libcumc_streams_progress, NULL);
}

__attribute__((constructor)) static void libcumc_streams_atfork(void)
{
	pthread_atfork(NULL, NULL, libcumc_streams_forget_parent);
}

/* The entry points. */

static CUresult libcumc_begin(void)
{
	const struct libcumc_driver *drv;

	return libcumc_driver(&drv);
}

CUresult CUDAAPI cuCtxGetStreamPriorityRange(int *leastPriority,
					     int *greatestPriority)
{
	CUcontext ctx;
	CUdevice dev;
	CUresult res = libcumc_begin();

	if (res == CUDA_SUCCESS)
		res = libcumc_current_ctx(&ctx, &dev);
	if (res != CUDA_SUCCESS)
		return res;
	if (leastPriority)
		*leastPriority = CUMC_PRIORITY_LEAST;
	if (greatestPriority)
		*greatestPriority = CUMC_PRIORITY_GREATEST;
	return CUDA_SUCCESS;
}

static CUresult libcumc_stream_create(CUstream *phStream, unsigned int flags,
				      int priority)
{
	struct libcumc_stream *s;
	CUcontext ctx;
	CUdevice dev;
	CUresult res = libcumc_begin();

	if (res != CUDA_SUCCESS)
		return res;
	if (!phStream || (flags & ~(unsigned int)CU_STREAM_NON_BLOCKING))
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_current_ctx(&ctx, &dev);
	if (res != CUDA_SUCCESS)
		return res;
	/* Out of range priorities are clamped, as documented. */
	if (priority > CUMC_PRIORITY_LEAST)
		priority = CUMC_PRIORITY_LEAST;
	if (priority < CUMC_PRIORITY_GREATEST)
		priority = CUMC_PRIORITY_GREATEST;
	pthread_mutex_lock(&libcumc_streams_lock);
	s = libcumc_stream_new(CUMC_STREAM_USER, ctx, dev, flags, priority);
	if (s)
		*phStream = s->handle;
	pthread_mutex_unlock(&libcumc_streams_lock);
	return s ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult CUDAAPI cuStreamCreateWithPriority(CUstream *phStream,
					    unsigned int flags, int priority)
{
	return libcumc_stream_create(phStream, flags, priority);
}

CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
	return libcumc_stream_create(phStream, Flags, 0);
}

/* Pending work still completes; the handle is refused from now on. */
CUresult CUDAAPI cuStreamDestroy_v2(CUstream hStream)
{
	struct libcumc_stream *s;
	CUresult res = libcumc_begin();

	if (res != CUDA_SUCCESS)
		return res;
	/* The implicit streams cannot be destroyed. */
	if (!hStream || hStream == CU_STREAM_LEGACY ||
	    hStream == CU_STREAM_PER_THREAD)
		return CUDA_ERROR_INVALID_HANDLE;
	pthread_mutex_lock(&libcumc_streams_lock);
	s = libcumc_find_handle(hStream);
	if (s)
		libcumc_stream_kill(s);
	pthread_mutex_unlock(&libcumc_streams_lock);
	return s ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* Before CUDA 4.0 it had the same ABI. */
#undef cuStreamDestroy
CUresult CUDAAPI cuStreamDestroy(CUstream hStream)
	__attribute__((alias("cuStreamDestroy_v2")));

/* The stream a query names: cuInit, then the handle. */
static CUresult libcumc_stream_lookup(CUstream hStream, bool ptds,
				      struct libcumc_stream **stream)
{
	CUresult res = libcumc_begin();

	if (res != CUDA_SUCCESS)
		return res;
	return libcumc_stream_get(hStream, ptds, stream);
}

static CUresult libcumc_stream_get_priority(CUstream hStream, int *priority,
					    bool ptds)
{
	struct libcumc_stream *s;
	CUresult res = libcumc_stream_lookup(hStream, ptds, &s);

	if (res != CUDA_SUCCESS)
		return res;
	if (priority)
		*priority = s->priority;
	libcumc_stream_put(s);
	return priority ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuStreamGetPriority(CUstream hStream, int *priority)
{
	return libcumc_stream_get_priority(hStream, priority, false);
}

CUresult CUDAAPI cuStreamGetPriority_ptsz(CUstream hStream, int *priority)
{
	return libcumc_stream_get_priority(hStream, priority, true);
}

static CUresult libcumc_stream_get_flags(CUstream hStream, unsigned int *flags,
					 bool ptds)
{
	struct libcumc_stream *s;
	CUresult res = libcumc_stream_lookup(hStream, ptds, &s);

	if (res != CUDA_SUCCESS)
		return res;
	if (flags)
		*flags = s->flags;
	libcumc_stream_put(s);
	return flags ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuStreamGetFlags(CUstream hStream, unsigned int *flags)
{
	return libcumc_stream_get_flags(hStream, flags, false);
}

CUresult CUDAAPI cuStreamGetFlags_ptsz(CUstream hStream, unsigned int *flags)
{
	return libcumc_stream_get_flags(hStream, flags, true);
}

/* Streams are never captured here: there are no graphs to capture into. */
static CUresult libcumc_stream_is_capturing(CUstream hStream,
					    CUstreamCaptureStatus *status,
					    bool ptds)
{
	struct libcumc_stream *s;
	CUresult res = libcumc_stream_lookup(hStream, ptds, &s);

	if (res != CUDA_SUCCESS)
		return res;
	if (status)
		*status = CU_STREAM_CAPTURE_STATUS_NONE;
	libcumc_stream_put(s);
	return status ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuStreamIsCapturing(CUstream hStream,
				     CUstreamCaptureStatus *captureStatus)
{
	return libcumc_stream_is_capturing(hStream, captureStatus, false);
}

CUresult CUDAAPI cuStreamIsCapturing_ptsz(CUstream hStream,
					  CUstreamCaptureStatus *captureStatus)
{
	return libcumc_stream_is_capturing(hStream, captureStatus, true);
}

static CUresult libcumc_stream_get_id(CUstream hStream,
				      unsigned long long *streamId, bool ptds)
{
	struct libcumc_stream *s;
	CUresult res = libcumc_stream_lookup(hStream, ptds, &s);

	if (res != CUDA_SUCCESS)
		return res;
	if (streamId)
		*streamId = s->id;
	libcumc_stream_put(s);
	return streamId ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuStreamGetId(CUstream hStream, unsigned long long *streamId)
{
	return libcumc_stream_get_id(hStream, streamId, false);
}

CUresult CUDAAPI cuStreamGetId_ptsz(CUstream hStream,
				    unsigned long long *streamId)
{
	return libcumc_stream_get_id(hStream, streamId, true);
}

static CUresult libcumc_stream_get_device(CUstream hStream, CUdevice *device,
					  bool ptds)
{
	struct libcumc_stream *s;
	CUresult res = libcumc_stream_lookup(hStream, ptds, &s);

	if (res != CUDA_SUCCESS)
		return res;
	if (device)
		*device = s->dev;
	libcumc_stream_put(s);
	return device ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuStreamGetDevice(CUstream hStream, CUdevice *device)
{
	return libcumc_stream_get_device(hStream, device, false);
}

CUresult CUDAAPI cuStreamGetDevice_ptsz(CUstream hStream, CUdevice *device)
{
	return libcumc_stream_get_device(hStream, device, true);
}

/* No green contexts: *pGreenCtx is always NULL. */
static CUresult libcumc_stream_get_ctx(CUstream hStream, CUcontext *pCtx,
				       CUgreenCtx *pGreenCtx, bool ptds)
{
	struct libcumc_stream *s;
	CUresult res = libcumc_stream_lookup(hStream, ptds, &s);

	if (res != CUDA_SUCCESS)
		return res;
	if (pCtx)
		*pCtx = s->ctx;
	if (pGreenCtx)
		*pGreenCtx = NULL;
	libcumc_stream_put(s);
	return pCtx ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuStreamGetCtx(CUstream hStream, CUcontext *pctx)
{
	return libcumc_stream_get_ctx(hStream, pctx, NULL, false);
}

CUresult CUDAAPI cuStreamGetCtx_ptsz(CUstream hStream, CUcontext *pctx)
{
	return libcumc_stream_get_ctx(hStream, pctx, NULL, true);
}

CUresult CUDAAPI cuStreamGetCtx_v2(CUstream hStream, CUcontext *pCtx,
				   CUgreenCtx *pGreenCtx)
{
	if (!pGreenCtx)
		return libcumc_begin() ?: CUDA_ERROR_INVALID_VALUE;
	return libcumc_stream_get_ctx(hStream, pCtx, pGreenCtx, false);
}

CUresult CUDAAPI cuStreamGetCtx_v2_ptsz(CUstream hStream, CUcontext *pCtx,
					CUgreenCtx *pGreenCtx)
{
	if (!pGreenCtx)
		return libcumc_begin() ?: CUDA_ERROR_INVALID_VALUE;
	return libcumc_stream_get_ctx(hStream, pCtx, pGreenCtx, true);
}

/* No green context is ever made (green.c): a stream's is always NULL. */
CUresult CUDAAPI cuStreamGetGreenCtx(CUstream hStream, CUgreenCtx *phCtx)
{
	CUcontext ctx;

	if (!phCtx)
		return libcumc_begin() ?: CUDA_ERROR_INVALID_VALUE;
	return libcumc_stream_get_ctx(hStream, &ctx, phCtx, false);
}

static CUresult libcumc_stream_query_entry(CUstream hStream, bool ptds)
{
	struct libcumc_stream *s;
	CUresult res = libcumc_stream_lookup(hStream, ptds, &s);

	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_stream_query(s);
	libcumc_stream_put(s);
	return res;
}

CUresult CUDAAPI cuStreamQuery(CUstream hStream)
{
	return libcumc_stream_query_entry(hStream, false);
}

CUresult CUDAAPI cuStreamQuery_ptsz(CUstream hStream)
{
	return libcumc_stream_query_entry(hStream, true);
}

static CUresult libcumc_stream_sync_entry(CUstream hStream, bool ptds)
{
	struct libcumc_stream *s;
	CUresult res = libcumc_stream_lookup(hStream, ptds, &s);

	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_stream_sync(s);
	libcumc_stream_put(s);
	return res;
}

CUresult CUDAAPI cuStreamSynchronize(CUstream hStream)
{
	return libcumc_stream_sync_entry(hStream, false);
}

CUresult CUDAAPI cuStreamSynchronize_ptsz(CUstream hStream)
{
	return libcumc_stream_sync_entry(hStream, true);
}

/* Host functions and callbacks. */

struct libcumc_host_work {
	struct libcumc_work work;
	CUhostFn fn;
	CUstreamCallback callback;
	CUstream handle;		/* as the caller named it */
	struct libcumc_stream *stream;	/* for the callback's status */
	void *user_data;
};

static CUresult libcumc_host_run(struct libcumc_work *work)
{
	struct libcumc_host_work *h = (struct libcumc_host_work *)work;

	if (h->fn)
		h->fn(h->user_data);
	else
		h->callback(h->handle, libcumc_stream_error(h->stream),
			    h->user_data);
	return CUDA_SUCCESS;
}

/* @handle: the stream as the caller named it, for a callback. */
static CUresult libcumc_host_submit(struct libcumc_stream *s, CUstream handle,
				    CUhostFn fn, CUstreamCallback callback,
				    void *user_data)
{
	struct libcumc_host_work *h;

	h = (struct libcumc_host_work *)libcumc_work_alloc(sizeof(*h),
							   libcumc_host_run);
	if (!h)
		return CUDA_ERROR_OUT_OF_MEMORY;
	h->fn = fn;
	h->callback = callback;
	h->handle = handle;
	h->stream = s;
	h->user_data = user_data;
	/* The item's stream outlives it: the worker holds it. */
	return libcumc_stream_submit(s, &h->work, NULL);
}

CUresult libcumc_stream_host_fn(struct libcumc_stream *stream, CUhostFn fn,
				void *user_data)
{
	return libcumc_host_submit(stream, NULL, fn, NULL, user_data);
}

static CUresult libcumc_host_enqueue(CUstream hStream, bool ptds,
				     CUhostFn fn, CUstreamCallback callback,
				     void *user_data)
{
	struct libcumc_stream *s;
	CUresult res = libcumc_stream_lookup(hStream, ptds, &s);

	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_host_submit(s, hStream, fn, callback, user_data);
	libcumc_stream_put(s);
	return res;
}

static CUresult libcumc_launch_host_func(CUstream hStream, CUhostFn fn,
					 void *userData, bool ptds)
{
	CUresult res = libcumc_begin();

	if (res != CUDA_SUCCESS)
		return res;
	if (!fn)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_host_enqueue(hStream, ptds, fn, NULL, userData);
}

CUresult CUDAAPI cuLaunchHostFunc(CUstream hStream, CUhostFn fn,
				  void *userData)
{
	return libcumc_launch_host_func(hStream, fn, userData, false);
}

CUresult CUDAAPI cuLaunchHostFunc_ptsz(CUstream hStream, CUhostFn fn,
				       void *userData)
{
	return libcumc_launch_host_func(hStream, fn, userData, true);
}

static CUresult libcumc_add_callback(CUstream hStream,
				     CUstreamCallback callback, void *userData,
				     unsigned int flags, bool ptds)
{
	CUresult res = libcumc_begin();

	if (res != CUDA_SUCCESS)
		return res;
	/* flags are reserved and must be 0. */
	if (!callback || flags)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_host_enqueue(hStream, ptds, NULL, callback, userData);
}

CUresult CUDAAPI cuStreamAddCallback(CUstream hStream,
				     CUstreamCallback callback,
				     void *userData, unsigned int flags)
{
	return libcumc_add_callback(hStream, callback, userData, flags, false);
}

CUresult CUDAAPI cuStreamAddCallback_ptsz(CUstream hStream,
					  CUstreamCallback callback,
					  void *userData, unsigned int flags)
{
	return libcumc_add_callback(hStream, callback, userData, flags, true);
}
