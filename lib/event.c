// SPDX-License-Identifier: MIT
/*
 * Events.  A CUevent is a registry number, as a CUstream is (stream.c).
 * Recording an event queues an item on the stream, which takes the
 * timestamp (CLOCK_MONOTONIC) when the stream runs it; the event then
 * stands for that item, named by (stream, ticket), until it is recorded
 * again.  Each recording is a record of its own, shared by the event and
 * the item, so that recording again or destroying the event while the
 * item is pending leaves the item and earlier cuStreamWaitEvent calls
 * alone.  An event never recorded stands for no work: it has completed.
 *
 * An interprocess event (CU_EVENT_INTERPROCESS, which comes with
 * CU_EVENT_DISABLE_TIMING) keeps no records of its own: its state is a
 * page other processes map (event_shared.c), recorded, queried and
 * waited on by any of them; ipc.c hands the page out and opens other
 * processes' as events of this kind.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "context.h"
#include "event_shared.h"
#include "procaddr.h"
#include "stream.h"

/* One recording of an event. */
struct libcumc_event_record {
	atomic_uint refs;
	struct libcumc_stream *stream;	/* holds a reference */
	uint64_t ticket;
	struct timespec stamp;		/* read once the ticket has completed */
};

struct libcumc_event {
	struct libcumc_event *next;
	CUevent handle;
	unsigned int flags;
	CUcontext ctx;
	struct libcumc_event_record *record;	/* NULL: never recorded */
	struct libcumc_shared_event *shared;	/* interprocess: the page */
};

/* Event handles start here, clear of the streams' numbers. */
#define CUMC_EVENT_HANDLE_BASE 0xe700000u

static pthread_mutex_t libcumc_events_lock = PTHREAD_MUTEX_INITIALIZER;
static struct libcumc_event *libcumc_events;
static uintptr_t libcumc_last_event;

#define CUMC_EVENT_FLAGS (CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | \
			  CU_EVENT_INTERPROCESS)

static void libcumc_record_put(struct libcumc_event_record *rec)
{
	if (!rec || atomic_fetch_sub(&rec->refs, 1) != 1)
		return;
	libcumc_stream_put(rec->stream);
	free(rec);
}

static struct libcumc_event *libcumc_event_find(CUevent handle)
{
	struct libcumc_event *ev;

	for (ev = libcumc_events; ev; ev = ev->next)
		if (ev->handle == handle)
			return ev;
	return NULL;
}

/*
 * The state of @handle: its flags, latest record (with a reference,
 * NULL when never recorded) and context; with @shared (may be NULL) its
 * page, with a reference, NULL unless it is an interprocess event.
 * CUDA_ERROR_INVALID_HANDLE unless it is live.
 */
static CUresult libcumc_event_get(CUevent handle, unsigned int *flags,
				  struct libcumc_event_record **rec,
				  CUcontext *ctx,
				  struct libcumc_shared_event **shared)
{
	struct libcumc_event *ev;

	pthread_mutex_lock(&libcumc_events_lock);
	ev = libcumc_event_find(handle);
	if (ev) {
		*flags = ev->flags;
		if (ctx)
			*ctx = ev->ctx;
		*rec = ev->record;
		if (*rec)
			atomic_fetch_add(&(*rec)->refs, 1);
		if (shared && ev->shared)
			libcumc_shared_event_ref(ev->shared);
		if (shared)
			*shared = ev->shared;
	}
	pthread_mutex_unlock(&libcumc_events_lock);
	return ev ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* A forked child forgets its parent's events with its streams. */
static void libcumc_events_forget_parent(void)
{
	libcumc_events = NULL;
	pthread_mutex_init(&libcumc_events_lock, NULL);
}

__attribute__((constructor)) static void libcumc_events_atfork(void)
{
	pthread_atfork(NULL, NULL, libcumc_events_forget_parent);
}

/*
 * A new event of the current context, of @flags, with @shared (taken
 * over, also on failure) as its page when it is interprocess.
 */
static CUresult libcumc_event_add(unsigned int flags,
				  struct libcumc_shared_event *shared,
				  CUevent *phEvent)
{
	struct libcumc_event *ev;
	CUdevice dev;
	CUresult res;

	res = libcumc_current_device(&dev);
	if (res != CUDA_SUCCESS)
		goto err_put;
	ev = calloc(1, sizeof(*ev));
	if (!ev) {
		res = CUDA_ERROR_OUT_OF_MEMORY;
		goto err_put;
	}
	ev->flags = flags;
	ev->ctx = libcumc_stack_top();
	ev->shared = shared;
	pthread_mutex_lock(&libcumc_events_lock);
	ev->handle = (CUevent)(CUMC_EVENT_HANDLE_BASE + ++libcumc_last_event);
	ev->next = libcumc_events;
	libcumc_events = ev;
	*phEvent = ev->handle;
	pthread_mutex_unlock(&libcumc_events_lock);
	return CUDA_SUCCESS;
err_put:
	libcumc_shared_event_put(shared);
	return res;
}

CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
	struct libcumc_shared_event *shared = NULL;
	CUdevice dev;
	CUresult res;

	if (!phEvent || (Flags & ~(unsigned int)CUMC_EVENT_FLAGS))
		return CUDA_ERROR_INVALID_VALUE;
	/* An interprocess event cannot carry timing. */
	if ((Flags & CU_EVENT_INTERPROCESS) && !(Flags & CU_EVENT_DISABLE_TIMING))
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_current_device(&dev);
	if (res != CUDA_SUCCESS)
		return res;
	if (Flags & CU_EVENT_INTERPROCESS) {
		res = libcumc_shared_event_new(&shared);
		if (res != CUDA_SUCCESS)
			return res;
	}
	return libcumc_event_add(Flags, shared, phEvent);
}

CUresult libcumc_event_open_shared(struct libcumc_shared_event *shared,
				   CUevent *phEvent)
{
	return libcumc_event_add(CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS,
				 shared, phEvent);
}

CUresult libcumc_event_export(CUevent hEvent, unsigned long long *id)
{
	struct libcumc_event *ev;
	CUresult res = CUDA_SUCCESS;

	pthread_mutex_lock(&libcumc_events_lock);
	ev = libcumc_event_find(hEvent);
	if (!ev)
		res = CUDA_ERROR_INVALID_HANDLE;
	else if (!ev->shared)
		/* As NVIDIA's driver: not a handle this call can export. */
		res = CUDA_ERROR_INVALID_HANDLE;
	else
		*id = (uintptr_t)hEvent;
	pthread_mutex_unlock(&libcumc_events_lock);
	return res;
}

int libcumc_event_shared_fd(unsigned long long id)
{
	struct libcumc_event *ev;
	int fd = -1;

	pthread_mutex_lock(&libcumc_events_lock);
	ev = libcumc_event_find((CUevent)(uintptr_t)id);
	if (ev && ev->shared)
		fd = libcumc_shared_event_dup_fd(ev->shared);
	pthread_mutex_unlock(&libcumc_events_lock);
	return fd;
}

/* A pending record still completes; the handle is refused from now on. */
CUresult CUDAAPI cuEventDestroy_v2(CUevent hEvent)
{
	struct libcumc_event **link, *ev = NULL;

	pthread_mutex_lock(&libcumc_events_lock);
	for (link = &libcumc_events; *link; link = &(*link)->next)
		if ((*link)->handle == hEvent) {
			ev = *link;
			*link = ev->next;
			break;
		}
	pthread_mutex_unlock(&libcumc_events_lock);
	if (!ev)
		return CUDA_ERROR_INVALID_HANDLE;
	libcumc_record_put(ev->record);
	libcumc_shared_event_put(ev->shared);
	free(ev);
	return CUDA_SUCCESS;
}

/* Before CUDA 4.0 it had the same ABI. */
#undef cuEventDestroy
CUresult CUDAAPI cuEventDestroy(CUevent hEvent)
	__attribute__((alias("cuEventDestroy_v2")));

struct libcumc_record_work {
	struct libcumc_work work;
	struct libcumc_event_record *rec;
};

static CUresult libcumc_record_run(struct libcumc_work *work)
{
	struct libcumc_record_work *w = (struct libcumc_record_work *)work;

	clock_gettime(CLOCK_MONOTONIC, &w->rec->stamp);
	return CUDA_SUCCESS;
}

static void libcumc_record_fini(struct libcumc_work *work)
{
	libcumc_record_put(((struct libcumc_record_work *)work)->rec);
}

/* Makes @rec the latest record of @hEvent, unless it was destroyed. */
static CUresult libcumc_event_set_record(CUevent hEvent,
					 struct libcumc_event_record *rec)
{
	struct libcumc_event_record *old = NULL;
	struct libcumc_event *ev;

	pthread_mutex_lock(&libcumc_events_lock);
	ev = libcumc_event_find(hEvent);
	if (ev) {
		old = ev->record;
		ev->record = rec;
	}
	pthread_mutex_unlock(&libcumc_events_lock);
	libcumc_record_put(ev ? old : rec);
	return ev ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/*
 * An item of an interprocess event: it completes a record, or waits for
 * one, of a page no capture can make a node of (capture_as UNSUPPORTED).
 */
struct libcumc_shared_work {
	struct libcumc_work work;
	struct libcumc_shared_event *shared;	/* holds a reference */
	uint64_t record;
};

static CUresult libcumc_shared_complete_run(struct libcumc_work *work)
{
	struct libcumc_shared_work *w = (struct libcumc_shared_work *)work;

	libcumc_shared_event_complete(w->shared, w->record);
	return CUDA_SUCCESS;
}

static CUresult libcumc_shared_wait_run(struct libcumc_work *work)
{
	struct libcumc_shared_work *w = (struct libcumc_shared_work *)work;

	libcumc_shared_event_wait(w->shared, w->record);
	return CUDA_SUCCESS;
}

static void libcumc_shared_work_fini(struct libcumc_work *work)
{
	libcumc_shared_event_put(((struct libcumc_shared_work *)work)->shared);
}

/* Queues on @stream an item that @run's with @record of @shared. */
static CUresult libcumc_shared_work_on(struct libcumc_stream *stream,
				       struct libcumc_shared_event *shared,
				       CUresult (*run)(struct libcumc_work *),
				       uint64_t record)
{
	struct libcumc_shared_work *w;

	w = (struct libcumc_shared_work *)libcumc_work_alloc(sizeof(*w), run);
	if (!w)
		return CUDA_ERROR_OUT_OF_MEMORY;
	libcumc_shared_event_ref(shared);
	w->shared = shared;
	w->record = record;
	w->work.fini = libcumc_shared_work_fini;
	return libcumc_stream_submit(stream, &w->work, NULL);
}

/*
 * A record that could not be queued completes at once, so that no query
 * or wait of any process waits for it.
 */
static CUresult libcumc_shared_record_on(struct libcumc_stream *stream,
					 struct libcumc_shared_event *shared)
{
	uint64_t record = libcumc_shared_event_record(shared);
	CUresult res = libcumc_shared_work_on(stream, shared,
					      libcumc_shared_complete_run,
					      record);

	if (res != CUDA_SUCCESS)
		libcumc_shared_event_complete(shared, record);
	return res;
}

CUresult libcumc_event_record_on(struct libcumc_stream *stream,
				 CUevent hEvent)
{
	struct libcumc_event_record *rec, *old;
	struct libcumc_shared_event *shared;
	struct libcumc_record_work *w;
	unsigned int ev_flags;
	CUcontext ctx = NULL;
	CUresult res = libcumc_event_get(hEvent, &ev_flags, &old, &ctx,
					 &shared);

	if (res != CUDA_SUCCESS)
		return res;
	libcumc_record_put(old);
	/* The event and the stream must share a context. */
	if (ctx != libcumc_stream_ctx(stream))
		res = CUDA_ERROR_INVALID_HANDLE;
	else if (shared)
		res = libcumc_shared_record_on(stream, shared);
	if (res != CUDA_SUCCESS || shared) {
		libcumc_shared_event_put(shared);
		return res;
	}
	rec = calloc(1, sizeof(*rec));
	w = (struct libcumc_record_work *)libcumc_work_alloc(sizeof(*w),
							     libcumc_record_run);
	if (!rec || !w) {
		free(rec);
		free(w);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	/* One reference for the event, one for the item; its own of the stream. */
	atomic_init(&rec->refs, 2);
	rec->stream = stream;
	w->rec = rec;
	w->work.fini = libcumc_record_fini;
	w->work.capture_as = CUMC_CAPTURE_MARKER;
	libcumc_stream_ref(stream);
	res = libcumc_stream_submit(stream, &w->work, &rec->ticket);
	if (res != CUDA_SUCCESS) {
		libcumc_record_put(rec);
		return res;
	}
	return libcumc_event_set_record(hEvent, rec);
}

static CUresult libcumc_event_record(CUevent hEvent, CUstream hStream,
				     unsigned int flags, bool ptds)
{
	const struct libcumc_driver *drv;
	struct libcumc_event_record *old;
	struct libcumc_stream *stream;
	unsigned int ev_flags;
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_event_get(hEvent, &ev_flags, &old, NULL, NULL);
	if (res != CUDA_SUCCESS)
		return res;
	libcumc_record_put(old);
	/* CU_EVENT_RECORD_EXTERNAL is for stream capture only. */
	if (flags)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_stream_get(hStream, ptds, &stream);
	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_event_record_on(stream, hEvent);
	libcumc_stream_put(stream);
	return res;
}

CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream)
{
	return libcumc_event_record(hEvent, hStream, 0, false);
}

CUresult CUDAAPI cuEventRecord_ptsz(CUevent hEvent, CUstream hStream)
{
	return libcumc_event_record(hEvent, hStream, 0, true);
}

CUresult CUDAAPI cuEventRecordWithFlags(CUevent hEvent, CUstream hStream,
					unsigned int flags)
{
	return libcumc_event_record(hEvent, hStream, flags, false);
}

CUresult CUDAAPI cuEventRecordWithFlags_ptsz(CUevent hEvent, CUstream hStream,
					     unsigned int flags)
{
	return libcumc_event_record(hEvent, hStream, flags, true);
}

/*
 * The latest record of @hEvent, after cuInit; *rec NULL if none; with
 * @shared as libcumc_event_get() has it.
 */
static CUresult libcumc_event_lookup(CUevent hEvent, unsigned int *flags,
				     struct libcumc_event_record **rec,
				     struct libcumc_shared_event **shared)
{
	const struct libcumc_driver *drv;
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	return libcumc_event_get(hEvent, flags, rec, NULL, shared);
}

CUresult CUDAAPI cuEventQuery(CUevent hEvent)
{
	struct libcumc_event_record *rec;
	struct libcumc_shared_event *shared;
	unsigned int flags;
	CUresult res = libcumc_event_lookup(hEvent, &flags, &rec, &shared);

	if (res != CUDA_SUCCESS)
		return res;
	if (shared) {
		if (!libcumc_shared_event_done(shared,
					       libcumc_shared_event_latest(shared)))
			res = CUDA_ERROR_NOT_READY;
		libcumc_shared_event_put(shared);
		return res;
	}
	if (!rec)
		return res;
	res = libcumc_ticket_status(rec->stream, rec->ticket);
	libcumc_record_put(rec);
	return res;
}

CUresult CUDAAPI cuEventSynchronize(CUevent hEvent)
{
	struct libcumc_event_record *rec;
	struct libcumc_shared_event *shared;
	unsigned int flags;
	CUresult res = libcumc_event_lookup(hEvent, &flags, &rec, &shared);

	if (res != CUDA_SUCCESS)
		return res;
	if (shared) {
		res = libcumc_capture_unsafe_check();
		if (res == CUDA_SUCCESS)
			libcumc_shared_event_wait(shared,
					libcumc_shared_event_latest(shared));
		libcumc_shared_event_put(shared);
		return res;
	}
	if (!rec)
		return res;
	/* As cuEventQuery, an event a capture under way recorded is refused. */
	res = libcumc_ticket_status(rec->stream, rec->ticket);
	if (res != CUDA_ERROR_CAPTURED_EVENT)
		res = libcumc_capture_unsafe_check();
	if (res == CUDA_SUCCESS)
		libcumc_stream_wait(rec->stream, rec->ticket);
	libcumc_record_put(rec);
	return res;
}

static float libcumc_ms_between(const struct timespec *a,
				const struct timespec *b)
{
	double ns = (double)(b->tv_sec - a->tv_sec) * 1e9 +
		    (double)(b->tv_nsec - a->tv_nsec);

	return (float)(ns / 1e6);
}

CUresult CUDAAPI cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart,
				       CUevent hEnd)
{
	struct libcumc_event_record *start = NULL, *end = NULL;
	unsigned int start_flags, end_flags;
	CUresult res = libcumc_event_lookup(hStart, &start_flags, &start, NULL);

	if (res == CUDA_SUCCESS)
		res = libcumc_event_get(hEnd, &end_flags, &end, NULL, NULL);
	/* Driver 580 answers INVALID_HANDLE for a NULL result (measured). */
	if (res == CUDA_SUCCESS && !pMilliseconds)
		res = CUDA_ERROR_INVALID_HANDLE;
	/* Untimed or never recorded events have no time to compare. */
	if (res == CUDA_SUCCESS &&
	    ((start_flags | end_flags) & CU_EVENT_DISABLE_TIMING || !start || !end))
		res = CUDA_ERROR_INVALID_HANDLE;
	if (res == CUDA_SUCCESS &&
	    (!libcumc_stream_done(start->stream, start->ticket) ||
	     !libcumc_stream_done(end->stream, end->ticket)))
		res = CUDA_ERROR_NOT_READY;
	if (res == CUDA_SUCCESS)
		*pMilliseconds = libcumc_ms_between(&start->stamp, &end->stamp);
	libcumc_record_put(start);
	libcumc_record_put(end);
	return res;
}

/* Before CUDA 12.8: the same ABI and, here, the same answers. */
CUresult CUDAAPI cuEventElapsedTime_v1(float *pMilliseconds, CUevent hStart,
				       CUevent hEnd)
	__attribute__((alias("cuEventElapsedTime_v2")));

struct libcumc_wait_work {
	struct libcumc_work work;
};

CUresult libcumc_event_wait_on(struct libcumc_stream *stream, CUevent hEvent)
{
	struct libcumc_event_record *rec = NULL;
	struct libcumc_shared_event *shared;
	struct libcumc_work *w;
	unsigned int flags;
	uint64_t latest;
	CUresult res = libcumc_event_get(hEvent, &flags, &rec, NULL, &shared);

	if (res != CUDA_SUCCESS)
		return res;
	if (shared) {
		/* Never recorded, it stands for no work, as a local one. */
		latest = libcumc_shared_event_latest(shared);
		if (latest)
			res = libcumc_shared_work_on(stream, shared,
						     libcumc_shared_wait_run,
						     latest);
		libcumc_shared_event_put(shared);
		return res;
	}
	if (!rec)
		return res;
	/* An item that runs nothing once the event's work has completed. */
	w = libcumc_work_alloc(sizeof(struct libcumc_wait_work), NULL);
	if (w) {
		w->capture_as = CUMC_CAPTURE_JOIN;
		w->waits_event = true;
	}
	res = w ? libcumc_work_add_dep(w, rec->stream, rec->ticket) :
		  CUDA_ERROR_OUT_OF_MEMORY;
	if (res == CUDA_SUCCESS)
		res = libcumc_stream_submit(stream, w, NULL);
	else if (w)
		libcumc_work_free(w);
	libcumc_record_put(rec);
	return res;
}

bool libcumc_event_live(CUevent hEvent)
{
	bool live;

	pthread_mutex_lock(&libcumc_events_lock);
	live = libcumc_event_find(hEvent) != NULL;
	pthread_mutex_unlock(&libcumc_events_lock);
	return live;
}

CUresult libcumc_event_ctx(CUevent hEvent, CUcontext *ctx)
{
	struct libcumc_event_record *rec;
	unsigned int flags;
	CUresult res = libcumc_event_get(hEvent, &flags, &rec, ctx, NULL);

	if (res == CUDA_SUCCESS)
		libcumc_record_put(rec);
	return res;
}

static CUresult libcumc_stream_wait_event(CUstream hStream, CUevent hEvent,
					  unsigned int Flags, bool ptds)
{
	struct libcumc_stream *stream;
	CUresult res = libcumc_stream_get_initialized(hStream, ptds, &stream);

	if (res != CUDA_SUCCESS)
		return res;
	/* CU_EVENT_WAIT_EXTERNAL is for stream capture only. */
	if (!libcumc_event_live(hEvent))
		res = CUDA_ERROR_INVALID_HANDLE;
	else if (Flags)
		res = CUDA_ERROR_INVALID_VALUE;
	else
		res = libcumc_event_wait_on(stream, hEvent);
	libcumc_stream_put(stream);
	return res;
}

CUresult CUDAAPI cuStreamWaitEvent(CUstream hStream, CUevent hEvent,
				   unsigned int Flags)
{
	return libcumc_stream_wait_event(hStream, hEvent, Flags, false);
}

CUresult CUDAAPI cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent,
					unsigned int Flags)
{
	return libcumc_stream_wait_event(hStream, hEvent, Flags, true);
}
