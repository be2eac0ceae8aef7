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
#include <string.h>
#include <time.h>

#include "context.h"
#include "device_attr.h"
#include "graph.h"
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
	/*
	 * The attributes cuStreamSetAttribute changes, priority among them:
	 * under libcumc_streams_lock once the stream is registered.
	 */
	int priority;
	CUstreamAttrValue window, sync_policy, domain, domain_map;
	unsigned int refs;		/* holders besides the registry */
	bool dead;			/* destroyed: no new work */
	bool worker_running;
	uint64_t enqueued;		/* items submitted */
	uint64_t completed;		/* items run */
	struct libcumc_work *head, *tail;
	pthread_cond_t wake;		/* the worker waits for work here */
	CUresult error;			/* the first error of its work */
	/*
	 * While it takes part in a stream capture: the capture, and the
	 * nodes its next captured item depends on, with their edges' data
	 * (all default) for cuStreamGetCaptureInfo.
	 */
	struct libcumc_capture *capture;
	struct libcumc_graph_node **leaves;
	CUgraphEdgeData *leaf_edges;
	size_t num_leaves;
};

/*
 * A stream capture: what the streams taking part in it submit becomes
 * nodes of its graph instead of running (Documentation/api.md, "Graphs
 * and stream capture").  An event recorded in it stands for a point of
 * it, the nodes its stream's next item would depend on, named by a
 * ticket that no stream ever completes: CUMC_CAPTURE_TICKET, the
 * capture's id and the point's number.  A stream that waits for such an
 * event joins the capture.
 */
struct libcumc_capture_point {
	struct libcumc_graph_node **nodes;
	size_t count;
};

struct libcumc_capture {
	struct libcumc_graph *graph;
	bool own_graph;			/* made for it, not the caller's */
	struct libcumc_stream *origin;
	pthread_t thread;		/* that began it */
	unsigned long long id;
	CUstreamCaptureMode mode;
	bool invalidated;
	unsigned int members;		/* streams taking part */
	struct libcumc_capture_point *points;
	size_t num_points;
};

#define CUMC_CAPTURE_TICKET (1ull << 63)
#define CUMC_CAPTURE_ID_SHIFT 32
#define CUMC_CAPTURE_ID_MASK 0x7fffffffull

static unsigned long long libcumc_last_capture_id;

/* The calling thread's capture mode (cuThreadExchangeStreamCaptureMode). */
static __thread CUstreamCaptureMode libcumc_thread_capture_mode =
	CU_STREAM_CAPTURE_MODE_GLOBAL;

static void libcumc_capture_invalidate(struct libcumc_capture *cap);
static void libcumc_capture_leave(struct libcumc_stream *stream);

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
	/* A new stream's, as driver 580 answers them (sync policy -1). */
	stream->sync_policy.syncPolicy = (CUsynchronizationPolicy)(-1);
	stream->domain.memSyncDomain = CU_LAUNCH_MEM_SYNC_DOMAIN_DEFAULT;
	stream->domain_map.memSyncDomainMap.remote = 1;
	pthread_cond_init(&stream->wake, &libcumc_wake_attr);
	stream->next = libcumc_streams;
	libcumc_streams = stream;
	return stream;
}

static void libcumc_stream_kill(struct libcumc_stream *stream)
{
	if (stream->capture) {
		libcumc_capture_invalidate(stream->capture);
		libcumc_capture_leave(stream);
	}
	stream->dead = true;
	pthread_cond_signal(&stream->wake);
	libcumc_stream_maybe_free(stream);
}

/*
 * Whether @stream has completed @ticket: a capture's point stands for
 * no work that runs.
 */
static bool libcumc_ticket_done(const struct libcumc_stream *stream,
				uint64_t ticket)
{
	return (ticket & CUMC_CAPTURE_TICKET) || stream->completed >= ticket;
}

/* Waits with the lock held until @stream has completed @ticket. */
static void libcumc_wait_locked(struct libcumc_stream *stream, uint64_t ticket)
{
	while (!libcumc_ticket_done(stream, ticket))
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

/* Stream capture: the streams' lock held throughout. */

static void libcumc_capture_invalidate(struct libcumc_capture *cap)
{
	cap->invalidated = true;
}

/* The capture a ticket of @stream names, if it still runs. */
static struct libcumc_capture *
libcumc_capture_of_ticket(const struct libcumc_stream *stream, uint64_t ticket)
{
	struct libcumc_capture *cap = stream->capture;

	if (!(ticket & CUMC_CAPTURE_TICKET) || !cap ||
	    ((ticket >> CUMC_CAPTURE_ID_SHIFT) & CUMC_CAPTURE_ID_MASK) !=
	    (cap->id & CUMC_CAPTURE_ID_MASK))
		return NULL;
	return cap;
}

/*
 * The capture @work goes to on @stream: the stream's, or, for a stream
 * not capturing, one of whose events it waits for (it joins it).
 */
static struct libcumc_capture *
libcumc_capture_for(const struct libcumc_stream *stream,
		    const struct libcumc_work *work)
{
	struct libcumc_capture *cap;
	unsigned int i;

	if (stream->capture)
		return stream->capture;
	for (i = 0; i < work->num_deps; i++) {
		cap = libcumc_capture_of_ticket(work->deps[i].stream,
						work->deps[i].ticket);
		if (cap)
			return cap;
	}
	return NULL;
}

static CUresult libcumc_nodes_add(struct libcumc_graph_node ***nodes,
				  size_t *count,
				  struct libcumc_graph_node *const *add,
				  size_t num)
{
	struct libcumc_graph_node **more;
	size_t i, j;

	for (i = 0; i < num; i++) {
		for (j = 0; j < *count; j++)
			if ((*nodes)[j] == add[i])
				break;
		if (j < *count)
			continue;
		more = reallocarray(*nodes, *count + 1, sizeof(*more));
		if (!more)
			return CUDA_ERROR_OUT_OF_MEMORY;
		more[(*count)++] = add[i];
		*nodes = more;
	}
	return CUDA_SUCCESS;
}

/* @stream's next captured item depends on @nodes, which it takes. */
static CUresult libcumc_leaves_set(struct libcumc_stream *stream,
				   struct libcumc_graph_node **nodes,
				   size_t count)
{
	CUgraphEdgeData *edges = calloc(count ? count : 1, sizeof(*edges));

	if (!edges) {
		free(nodes);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	free(stream->leaves);
	free(stream->leaf_edges);
	stream->leaves = nodes;
	stream->leaf_edges = edges;
	stream->num_leaves = count;
	return CUDA_SUCCESS;
}

/*
 * What @work depends on in @cap: @stream's leaves and the points of the
 * events it waits for.  CUDA_ERROR_STREAM_CAPTURE_ISOLATION when it waits
 * for work outside the capture, completed or not.
 */
static CUresult libcumc_capture_deps(struct libcumc_stream *stream,
				     struct libcumc_capture *cap,
				     const struct libcumc_work *work,
				     struct libcumc_graph_node ***nodes,
				     size_t *count)
{
	const struct libcumc_capture_point *point;
	CUresult res = CUDA_SUCCESS;
	uint64_t ticket;
	unsigned int i;

	*nodes = NULL;
	*count = 0;
	if (work->waits_event && !work->num_deps)
		return CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
	if (stream->capture == cap)
		res = libcumc_nodes_add(nodes, count, stream->leaves,
					stream->num_leaves);
	for (i = 0; i < work->num_deps && res == CUDA_SUCCESS; i++) {
		ticket = work->deps[i].ticket;
		if (libcumc_capture_of_ticket(work->deps[i].stream, ticket) !=
		    cap) {
			res = CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
			break;
		}
		point = &cap->points[(uint32_t)ticket];
		res = libcumc_nodes_add(nodes, count, point->nodes,
					point->count);
	}
	if (res != CUDA_SUCCESS) {
		free(*nodes);
		*nodes = NULL;
	}
	return res;
}

/* A new point of @cap at @nodes (taken), its ticket in *@ticket. */
static CUresult libcumc_capture_point(struct libcumc_capture *cap,
				      struct libcumc_graph_node **nodes,
				      size_t count, uint64_t *ticket)
{
	struct libcumc_capture_point *points;

	points = reallocarray(cap->points, cap->num_points + 1,
			      sizeof(*points));
	if (!points) {
		free(nodes);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	cap->points = points;
	points[cap->num_points] = (struct libcumc_capture_point){ nodes, count };
	*ticket = CUMC_CAPTURE_TICKET |
		  (cap->id & CUMC_CAPTURE_ID_MASK) << CUMC_CAPTURE_ID_SHIFT |
		  cap->num_points++;
	return CUDA_SUCCESS;
}

/*
 * @work submitted to @stream during @cap: a node, a point or new
 * dependencies instead of work that runs.  *@discard is set when the
 * caller must free @work once it has dropped the lock.
 */
static CUresult libcumc_capture_item(struct libcumc_stream *stream,
				     struct libcumc_capture *cap,
				     struct libcumc_work *work,
				     uint64_t *ticket, bool *discard)
{
	struct libcumc_graph_node **nodes, *node;
	size_t count;
	CUresult res;

	*discard = true;
	if (cap->invalidated)
		return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
	if (work->capture_as == CUMC_CAPTURE_UNSUPPORTED) {
		libcumc_capture_invalidate(cap);
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	}
	res = libcumc_capture_deps(stream, cap, work, &nodes, &count);
	if (res != CUDA_SUCCESS) {
		libcumc_capture_invalidate(cap);
		return res;
	}
	if (stream->capture != cap) {
		stream->capture = cap;
		cap->members++;
	}
	switch (work->capture_as) {
	case CUMC_CAPTURE_MARKER:
		return libcumc_capture_point(cap, nodes, count,
					     ticket ? ticket : &(uint64_t){ 0 });
	case CUMC_CAPTURE_JOIN:
		return libcumc_leaves_set(stream, nodes, count);
	default:
		break;
	}
	libcumc_work_drop_deps(work);
	libcumc_graphs_lock();
	res = libcumc_graph_add_captured(cap->graph, work, stream->ctx, nodes,
					 count, &node);
	libcumc_graphs_unlock();
	free(nodes);
	if (res != CUDA_SUCCESS)
		return res;
	*discard = !node->is_captured;
	nodes = malloc(sizeof(*nodes));
	if (!nodes)
		return CUDA_ERROR_OUT_OF_MEMORY;
	nodes[0] = node;
	if (ticket)
		*ticket = 0;
	return libcumc_leaves_set(stream, nodes, 1);
}

/* A blocking stream of @ctx capturing, which the legacy stream waits for. */
static struct libcumc_stream *libcumc_capturing_blocking(CUcontext ctx)
{
	struct libcumc_stream *s;

	for (s = libcumc_streams; s; s = s->next)
		if (s->ctx == ctx && s->capture && libcumc_stream_blocking(s))
			return s;
	return NULL;
}

/*
 * What synchronizing with @stream answers during a capture: a captured
 * stream cannot be waited for (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED),
 * nor can the legacy stream while a blocking stream captures
 * (CUDA_ERROR_STREAM_CAPTURE_IMPLICIT); either invalidates the capture.
 */
static CUresult libcumc_capture_sync_check(struct libcumc_stream *stream)
{
	struct libcumc_stream *s;

	if (stream->capture) {
		libcumc_capture_invalidate(stream->capture);
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	}
	if (stream->kind != CUMC_STREAM_LEGACY)
		return CUDA_SUCCESS;
	s = libcumc_capturing_blocking(stream->ctx);
	if (!s)
		return CUDA_SUCCESS;
	libcumc_capture_invalidate(s->capture);
	return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
}

/*
 * Whether @cap forbids the calling thread, in @mode, the potentially
 * unsafe calls: a capture it began not RELAXED, or, in GLOBAL mode,
 * another thread's GLOBAL capture (cuThreadExchangeStreamCaptureMode).
 */
static bool libcumc_capture_forbids(const struct libcumc_capture *cap,
				    CUstreamCaptureMode mode)
{
	if (mode == CU_STREAM_CAPTURE_MODE_RELAXED ||
	    cap->mode == CU_STREAM_CAPTURE_MODE_RELAXED)
		return false;
	if (pthread_equal(cap->thread, pthread_self()))
		return true;
	return mode == CU_STREAM_CAPTURE_MODE_GLOBAL &&
	       cap->mode == CU_STREAM_CAPTURE_MODE_GLOBAL;
}

/* libcumc_capture_unsafe_check(), the streams' lock held. */
static CUresult libcumc_capture_unsafe_locked(void)
{
	CUresult res = CUDA_SUCCESS;
	struct libcumc_stream *s;

	for (s = libcumc_streams; s; s = s->next)
		if (s->capture &&
		    libcumc_capture_forbids(s->capture,
					    libcumc_thread_capture_mode)) {
			libcumc_capture_invalidate(s->capture);
			res = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
		}
	return res;
}

CUresult libcumc_capture_unsafe_check(void)
{
	CUresult res;

	pthread_mutex_lock(&libcumc_streams_lock);
	res = libcumc_capture_unsafe_locked();
	pthread_mutex_unlock(&libcumc_streams_lock);
	return res;
}

CUstreamCaptureMode libcumc_capture_mode_exchange(CUstreamCaptureMode mode)
{
	CUstreamCaptureMode old = libcumc_thread_capture_mode;

	libcumc_thread_capture_mode = mode;
	return old;
}

/* @stream leaves its capture, which goes with its last stream. */
static void libcumc_capture_leave(struct libcumc_stream *stream)
{
	struct libcumc_capture *cap = stream->capture;
	size_t i;

	if (!cap)
		return;
	stream->capture = NULL;
	free(stream->leaves);
	free(stream->leaf_edges);
	stream->leaves = NULL;
	stream->leaf_edges = NULL;
	stream->num_leaves = 0;
	if (cap->origin == stream)
		cap->origin = NULL;
	if (--cap->members)
		return;
	if (cap->graph) {
		libcumc_graphs_lock();
		if (cap->own_graph)
			libcumc_graph_free(cap->graph);
		else
			cap->graph->capturing = false;
		libcumc_graphs_unlock();
	}
	for (i = 0; i < cap->num_points; i++)
		free(cap->points[i].nodes);
	free(cap->points);
	free(cap);
}

CUresult libcumc_stream_submit(struct libcumc_stream *stream,
			       struct libcumc_work *work, uint64_t *ticket)
{
	struct libcumc_capture *cap;
	CUresult res = CUDA_ERROR_INVALID_HANDLE;
	bool discard;

	pthread_mutex_lock(&libcumc_streams_lock);
	cap = stream->dead ? NULL : libcumc_capture_for(stream, work);
	if (cap) {
		res = libcumc_capture_item(stream, cap, work, ticket, &discard);
		pthread_mutex_unlock(&libcumc_streams_lock);
		if (discard)
			libcumc_work_free(work);
		return res;
	}
	if (!stream->dead)
		res = libcumc_capture_sync_check(stream);
	if (res == CUDA_SUCCESS)
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

/*
 * The graph a capture builds, marked as capturing: @graph, or a new one;
 * the nodes of @graph the stream's first item is to depend on in *@leaves.
 */
static CUresult libcumc_capture_graph(struct libcumc_capture *cap,
				      CUgraph graph, const CUgraphNode *deps,
				      size_t num_deps,
				      struct libcumc_graph_node ***leaves)
{
	CUresult res = CUDA_SUCCESS;

	*leaves = NULL;
	libcumc_graphs_lock();
	if (graph) {
		cap->graph = libcumc_graph_find(graph);
		if (!cap->graph || cap->graph->capturing ||
		    cap->graph->embedded)
			res = CUDA_ERROR_INVALID_VALUE;
		else
			res = libcumc_graph_nodes_of(cap->graph, deps,
						     num_deps, leaves);
	} else {
		cap->graph = libcumc_graph_new(true);
		cap->own_graph = true;
		if (!cap->graph)
			res = CUDA_ERROR_OUT_OF_MEMORY;
	}
	if (res == CUDA_SUCCESS)
		cap->graph->capturing = true;
	libcumc_graphs_unlock();
	return res;
}

CUresult libcumc_capture_begin(struct libcumc_stream *stream,
			       CUstreamCaptureMode mode, CUgraph graph,
			       const CUgraphNode *deps, size_t num_deps)
{
	struct libcumc_graph_node **leaves = NULL;
	struct libcumc_capture *cap = NULL;
	CUresult res = CUDA_SUCCESS;

	pthread_mutex_lock(&libcumc_streams_lock);
	if (stream->kind == CUMC_STREAM_LEGACY)
		res = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	else if (stream->capture)
		res = CUDA_ERROR_ILLEGAL_STATE;
	if (res == CUDA_SUCCESS) {
		cap = calloc(1, sizeof(*cap));
		res = cap ? libcumc_capture_graph(cap, graph, deps, num_deps,
						  &leaves) :
			    CUDA_ERROR_OUT_OF_MEMORY;
	}
	if (res == CUDA_SUCCESS)
		res = libcumc_leaves_set(stream, leaves, num_deps);
	if (res == CUDA_SUCCESS) {
		cap->origin = stream;
		cap->thread = pthread_self();
		cap->id = ++libcumc_last_capture_id;
		cap->mode = mode;
		cap->members = 1;
		stream->capture = cap;
	} else if (cap) {
		if (cap->own_graph) {
			libcumc_graphs_lock();
			libcumc_graph_free(cap->graph);
			libcumc_graphs_unlock();
		}
		free(cap);
	}
	pthread_mutex_unlock(&libcumc_streams_lock);
	return res;
}

CUresult libcumc_capture_update(struct libcumc_stream *stream,
				const CUgraphNode *deps, size_t num_deps,
				bool set)
{
	struct libcumc_graph_node **nodes = NULL, **merged = NULL;
	struct libcumc_capture *cap;
	size_t count = 0;
	CUresult res;

	pthread_mutex_lock(&libcumc_streams_lock);
	cap = stream->capture;
	if (!cap) {
		res = CUDA_ERROR_ILLEGAL_STATE;
		goto out;
	}
	if (cap->invalidated) {
		res = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
		goto out;
	}
	libcumc_graphs_lock();
	res = libcumc_graph_nodes_of(cap->graph, deps, num_deps, &nodes);
	libcumc_graphs_unlock();
	if (res == CUDA_SUCCESS && !set)
		res = libcumc_nodes_add(&merged, &count, stream->leaves,
					stream->num_leaves);
	if (res == CUDA_SUCCESS)
		res = libcumc_nodes_add(&merged, &count, nodes, num_deps);
	if (res == CUDA_SUCCESS) {
		res = libcumc_leaves_set(stream, merged, count);
		merged = NULL;
	}
out:
	pthread_mutex_unlock(&libcumc_streams_lock);
	free(nodes);
	free(merged);
	return res;
}

/* Whether every leaf of every other stream of @cap is joined to @origin. */
static bool libcumc_capture_joined(const struct libcumc_capture *cap,
				   const struct libcumc_stream *origin)
{
	const struct libcumc_stream *s;
	size_t i, j;

	for (s = libcumc_streams; s; s = s->next) {
		if (s->capture != cap || s == origin)
			continue;
		for (i = 0; i < s->num_leaves; i++) {
			for (j = 0; j < origin->num_leaves; j++)
				if (libcumc_node_reaches(s->leaves[i],
							 origin->leaves[j]))
					break;
			if (j == origin->num_leaves)
				return false;
		}
	}
	return true;
}

CUresult libcumc_capture_end(struct libcumc_stream *stream,
			     struct libcumc_graph **graph)
{
	struct libcumc_capture *cap = stream->capture;
	struct libcumc_stream *s;
	CUresult res = CUDA_SUCCESS;

	*graph = NULL;
	pthread_mutex_lock(&libcumc_streams_lock);
	cap = stream->capture;
	if (!cap) {
		pthread_mutex_unlock(&libcumc_streams_lock);
		return CUDA_ERROR_ILLEGAL_STATE;
	}
	if (cap->origin != stream) {
		libcumc_capture_invalidate(cap);
		pthread_mutex_unlock(&libcumc_streams_lock);
		return CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
	}
	if (cap->mode != CU_STREAM_CAPTURE_MODE_RELAXED &&
	    !pthread_equal(cap->thread, pthread_self())) {
		libcumc_capture_invalidate(cap);
		pthread_mutex_unlock(&libcumc_streams_lock);
		return CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
	}
	libcumc_graphs_lock();
	if (cap->invalidated)
		res = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
	else if (!libcumc_capture_joined(cap, stream))
		res = CUDA_ERROR_STREAM_CAPTURE_UNJOINED;
	if (res == CUDA_SUCCESS) {
		cap->graph->capturing = false;
		*graph = cap->graph;
		cap->graph = NULL;
	} else if (!cap->own_graph) {
		cap->graph->capturing = false;
		cap->graph = NULL;
	}
	libcumc_graphs_unlock();
	for (s = libcumc_streams; s; s = s->next)
		if (s != stream && s->capture == cap)
			libcumc_capture_leave(s);
	libcumc_capture_leave(stream);
	pthread_mutex_unlock(&libcumc_streams_lock);
	return res;
}

CUresult libcumc_capture_info(struct libcumc_stream *stream,
			      struct libcumc_capture_info *info)
{
	struct libcumc_capture *cap;
	CUresult res = CUDA_SUCCESS;

	*info = (struct libcumc_capture_info){ 0 };
	pthread_mutex_lock(&libcumc_streams_lock);
	cap = stream->capture;
	if (!cap && stream->kind == CUMC_STREAM_LEGACY &&
	    libcumc_capturing_blocking(stream->ctx))
		res = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
	else if (cap) {
		info->status = cap->invalidated ?
			       CU_STREAM_CAPTURE_STATUS_INVALIDATED :
			       CU_STREAM_CAPTURE_STATUS_ACTIVE;
		info->id = cap->id;
		info->graph = cap->graph;
		info->deps = stream->leaves;
		info->edges = stream->leaf_edges;
		info->num_deps = stream->num_leaves;
	}
	pthread_mutex_unlock(&libcumc_streams_lock);
	return res;
}

bool libcumc_stream_done(struct libcumc_stream *stream, uint64_t ticket)
{
	bool done;

	pthread_mutex_lock(&libcumc_streams_lock);
	done = libcumc_ticket_done(stream, ticket);
	pthread_mutex_unlock(&libcumc_streams_lock);
	return done;
}

CUresult libcumc_ticket_status(struct libcumc_stream *stream, uint64_t ticket)
{
	struct libcumc_capture *cap;
	CUresult res = CUDA_SUCCESS;

	pthread_mutex_lock(&libcumc_streams_lock);
	cap = libcumc_capture_of_ticket(stream, ticket);
	if (cap) {
		libcumc_capture_invalidate(cap);
		res = CUDA_ERROR_CAPTURED_EVENT;
	} else if (!libcumc_ticket_done(stream, ticket)) {
		res = CUDA_ERROR_NOT_READY;
	}
	pthread_mutex_unlock(&libcumc_streams_lock);
	return res;
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
		if (!libcumc_ticket_done(marker->deps[i].stream,
					 marker->deps[i].ticket))
			return false;
	return true;
}

CUresult libcumc_stream_sync(struct libcumc_stream *stream)
{
	struct libcumc_work marker = { 0 };
	CUresult res;

	pthread_mutex_lock(&libcumc_streams_lock);
	res = libcumc_capture_sync_check(stream);
	if (res == CUDA_SUCCESS)
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
	res = libcumc_capture_sync_check(stream);
	if (res == CUDA_SUCCESS)
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

CUresult libcumc_stream_get_initialized(CUstream handle, bool ptds,
					struct libcumc_stream **stream)
{
	const struct libcumc_driver *drv;
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	return libcumc_stream_get(handle, ptds, stream);
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
	res = libcumc_capture_sync_check(stream);
	if (res == CUDA_SUCCESS)
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
		if (s->ctx == ctx && s->capture)
			res = libcumc_capture_sync_check(s);
	if (res == CUDA_SUCCESS)
		res = libcumc_capture_unsafe_locked();
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

CUresult libcumc_stream_legacy_of(CUcontext ctx, struct libcumc_stream **stream)
{
	CUdevice dev;
	CUresult res = libcumc_context_device(ctx, &dev);

	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&libcumc_streams_lock);
	res = libcumc_legacy_get(ctx, dev, stream);
	if (res == CUDA_SUCCESS)
		(*stream)->refs++;
	pthread_mutex_unlock(&libcumc_streams_lock);
	return res;
}

CUresult libcumc_stream_join_ctx(struct libcumc_stream *stream)
{
	struct libcumc_work *join = libcumc_work_alloc(sizeof(*join), NULL);
	struct libcumc_stream *s;
	CUresult res = CUDA_SUCCESS;

	if (!join)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&libcumc_streams_lock);
	for (s = libcumc_streams; s && res == CUDA_SUCCESS; s = s->next)
		if (s != stream && s->ctx == stream->ctx)
			res = libcumc_work_add_dep_locked(join, s, s->enqueued);
	pthread_mutex_unlock(&libcumc_streams_lock);
	if (res != CUDA_SUCCESS) {
		libcumc_work_free(join);
		return res;
	}
	return libcumc_stream_submit(stream, join, NULL);
}

CUresult libcumc_streams_of_ctx(CUcontext ctx, struct libcumc_stream ***list,
				size_t *count)
{
	struct libcumc_stream *s, **found = NULL;
	size_t live = 0, n = 0;

	pthread_mutex_lock(&libcumc_streams_lock);
	for (s = libcumc_streams; s; s = s->next)
		live += s->ctx == ctx && !s->dead;
	if (live)
		found = calloc(live, sizeof(*found));
	for (s = found ? libcumc_streams : NULL; s; s = s->next)
		if (s->ctx == ctx && !s->dead) {
			s->refs++;
			found[n++] = s;
		}
	pthread_mutex_unlock(&libcumc_streams_lock);
	if (live && !found)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*list = found;
	*count = n;
	return CUDA_SUCCESS;
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

CUresult libcumc_stream_create_in(CUcontext ctx, CUdevice dev,
				  unsigned int flags, int priority,
				  CUstream *phStream)
{
	struct libcumc_stream *s;

	if (!phStream || (flags & ~(unsigned int)CU_STREAM_NON_BLOCKING))
		return CUDA_ERROR_INVALID_VALUE;
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

static CUresult libcumc_stream_create(CUstream *phStream, unsigned int flags,
				      int priority)
{
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
	return libcumc_stream_create_in(ctx, dev, flags, priority, phStream);
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
	pthread_mutex_lock(&libcumc_streams_lock);
	if (priority)
		*priority = s->priority;
	pthread_mutex_unlock(&libcumc_streams_lock);
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

/*
 * A stream attribute's value in @s, NULL for a launch attribute that is
 * no stream attribute; priority is kept apart (s->priority). Called with
 * libcumc_streams_lock held.
 */
static CUstreamAttrValue *libcumc_stream_attr(struct libcumc_stream *s,
					      CUstreamAttrID attr)
{
	switch (attr) {
	case CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW:
		return &s->window;
	case CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY:
		return &s->sync_policy;
	case CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN:
		return &s->domain;
	case CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
		return &s->domain_map;
	default:
		return NULL;
	}
}

static bool libcumc_stream_attr_known(CUstreamAttrID attr)
{
	return attr == CU_STREAM_ATTRIBUTE_PRIORITY ||
	       attr == CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW ||
	       attr == CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY ||
	       attr == CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN ||
	       attr == CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP;
}

static bool libcumc_access_property_valid(CUaccessProperty prop)
{
	return prop == CU_ACCESS_PROPERTY_NORMAL ||
	       prop == CU_ACCESS_PROPERTY_STREAMING ||
	       prop == CU_ACCESS_PROPERTY_PERSISTING;
}

/*
 * Whether @v is a value @attr takes: the window no larger than
 * MAX_ACCESS_POLICY_WINDOW_SIZE, its ratio in [0, 1]; the domains below
 * MEM_SYNC_DOMAIN_COUNT (device_attr.c). L2 residency and domains have
 * no effect in cumc: the values are kept and read back.
 */
bool libcumc_stream_attr_valid(CUstreamAttrID attr,
			       const CUstreamAttrValue *v)
{
	const CUaccessPolicyWindow *w = &v->accessPolicyWindow;

	switch (attr) {
	case CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW:
		return w->num_bytes <= CUMC_ACCESS_POLICY_WINDOW_MAX &&
		       w->hitRatio >= 0.0f && w->hitRatio <= 1.0f &&
		       libcumc_access_property_valid(w->hitProp) &&
		       libcumc_access_property_valid(w->missProp);
	case CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY:
		return v->syncPolicy >= CU_SYNC_POLICY_AUTO &&
		       v->syncPolicy <= CU_SYNC_POLICY_BLOCKING_SYNC;
	case CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN:
		return v->memSyncDomain == CU_LAUNCH_MEM_SYNC_DOMAIN_DEFAULT ||
		       v->memSyncDomain == CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE;
	case CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
		return v->memSyncDomainMap.default_ < CUMC_MEM_SYNC_DOMAINS &&
		       v->memSyncDomainMap.remote < CUMC_MEM_SYNC_DOMAINS;
	default:
		return true;
	}
}

static CUresult libcumc_stream_get_attribute(CUstream hStream,
					     CUstreamAttrID attr,
					     CUstreamAttrValue *value,
					     bool ptds)
{
	struct libcumc_stream *s;
	CUresult res = libcumc_stream_lookup(hStream, ptds, &s);

	if (res != CUDA_SUCCESS)
		return res;
	if (!value || !libcumc_stream_attr_known(attr)) {
		libcumc_stream_put(s);
		return CUDA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&libcumc_streams_lock);
	if (attr == CU_STREAM_ATTRIBUTE_PRIORITY) {
		memset(value, 0, sizeof(*value));
		value->priority = s->priority;
	} else {
		*value = *libcumc_stream_attr(s, attr);
	}
	pthread_mutex_unlock(&libcumc_streams_lock);
	libcumc_stream_put(s);
	return CUDA_SUCCESS;
}

/* A priority out of range is clamped, as cuStreamCreateWithPriority's. */
static CUresult libcumc_stream_set_attribute(CUstream hStream,
					     CUstreamAttrID attr,
					     const CUstreamAttrValue *value,
					     bool ptds)
{
	struct libcumc_stream *s;
	CUresult res = libcumc_stream_lookup(hStream, ptds, &s);
	int priority;

	if (res != CUDA_SUCCESS)
		return res;
	if (!value || !libcumc_stream_attr_known(attr) ||
	    !libcumc_stream_attr_valid(attr, value)) {
		libcumc_stream_put(s);
		return CUDA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&libcumc_streams_lock);
	if (attr == CU_STREAM_ATTRIBUTE_PRIORITY) {
		priority = value->priority;
		if (priority > CUMC_PRIORITY_LEAST)
			priority = CUMC_PRIORITY_LEAST;
		if (priority < CUMC_PRIORITY_GREATEST)
			priority = CUMC_PRIORITY_GREATEST;
		s->priority = priority;
	} else {
		*libcumc_stream_attr(s, attr) = *value;
	}
	pthread_mutex_unlock(&libcumc_streams_lock);
	libcumc_stream_put(s);
	return CUDA_SUCCESS;
}

/* Every stream attribute, priority included, as cuda.h says. */
static CUresult libcumc_stream_copy_attributes(CUstream hDst, CUstream hSrc,
					       bool ptds)
{
	struct libcumc_stream *dst, *src;
	CUresult res = libcumc_stream_lookup(hDst, ptds, &dst);

	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_stream_lookup(hSrc, ptds, &src);
	if (res != CUDA_SUCCESS) {
		libcumc_stream_put(dst);
		return res;
	}
	pthread_mutex_lock(&libcumc_streams_lock);
	dst->priority = src->priority;
	dst->window = src->window;
	dst->sync_policy = src->sync_policy;
	dst->domain = src->domain;
	dst->domain_map = src->domain_map;
	pthread_mutex_unlock(&libcumc_streams_lock);
	libcumc_stream_put(src);
	libcumc_stream_put(dst);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamGetAttribute(CUstream hStream, CUstreamAttrID attr,
				      CUstreamAttrValue *value_out)
{
	return libcumc_stream_get_attribute(hStream, attr, value_out, false);
}

CUresult CUDAAPI cuStreamGetAttribute_ptsz(CUstream hStream,
					   CUstreamAttrID attr,
					   CUstreamAttrValue *value_out)
{
	return libcumc_stream_get_attribute(hStream, attr, value_out, true);
}

CUresult CUDAAPI cuStreamSetAttribute(CUstream hStream, CUstreamAttrID attr,
				      const CUstreamAttrValue *value)
{
	return libcumc_stream_set_attribute(hStream, attr, value, false);
}

CUresult CUDAAPI cuStreamSetAttribute_ptsz(CUstream hStream,
					   CUstreamAttrID attr,
					   const CUstreamAttrValue *value)
{
	return libcumc_stream_set_attribute(hStream, attr, value, true);
}

CUresult CUDAAPI cuStreamCopyAttributes(CUstream dst, CUstream src)
{
	return libcumc_stream_copy_attributes(dst, src, false);
}

CUresult CUDAAPI cuStreamCopyAttributes_ptsz(CUstream dst, CUstream src)
{
	return libcumc_stream_copy_attributes(dst, src, true);
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

static CUresult libcumc_stream_is_capturing(CUstream hStream,
					    CUstreamCaptureStatus *status,
					    bool ptds)
{
	struct libcumc_capture_info info;
	struct libcumc_stream *s;
	CUresult res = libcumc_stream_lookup(hStream, ptds, &s);

	if (res != CUDA_SUCCESS)
		return res;
	if (status)
		res = libcumc_capture_info(s, &info);
	if (status && res == CUDA_SUCCESS)
		*status = info.status;
	libcumc_stream_put(s);
	return status ? res : CUDA_ERROR_INVALID_VALUE;
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

/* A stream of a green context's CUcontext is of that green context. */
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
		*pGreenCtx = libcumc_context_green_sms(s->ctx) ?
			     (CUgreenCtx)s->ctx : NULL;
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

/* NULL for a stream of a context that is not green. */
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

/* What a capture makes of a host function: a host node. */
static void libcumc_host_describe(const struct libcumc_work *work,
				  union libcumc_node_params *params)
{
	const struct libcumc_host_work *h =
		(const struct libcumc_host_work *)work;

	params->host.fn = h->fn;
	params->host.userData = h->user_data;
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
	h->work.capture_as = fn ? CUMC_CAPTURE_NODE : CUMC_CAPTURE_UNSUPPORTED;
	h->work.node_type = CU_GRAPH_NODE_TYPE_HOST;
	h->work.describe = libcumc_host_describe;
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
