/* SPDX-License-Identifier: MIT */
/*
 * The completion state of an interprocess event (event_shared.c), in a
 * page every process that holds the event maps: for event.c, which
 * records, queries and waits on it, and ipc.c, which hands its
 * descriptor to other processes.
 */
#ifndef _CUMC_LIB_EVENT_SHARED_H
#define _CUMC_LIB_EVENT_SHARED_H

#include <stdbool.h>
#include <stdint.h>

#include "internal.h"

struct libcumc_shared_event;

/*
 * A new page, never recorded (CUDA_ERROR_OUT_OF_MEMORY when no memory
 * or descriptor is left), or the page of @fd, another process's
 * (CUDA_ERROR_MAP_FAILED when @fd is not one); @fd stays the caller's.
 * Either comes with one reference.
 */
CUresult libcumc_shared_event_new(struct libcumc_shared_event **out);
CUresult libcumc_shared_event_map(int fd, struct libcumc_shared_event **out);
void libcumc_shared_event_ref(struct libcumc_shared_event *se);
/* The last reference unmaps the page and closes its descriptor. */
void libcumc_shared_event_put(struct libcumc_shared_event *se);
/* A descriptor of the page, the caller's to close; -1 (errno) if none. */
int libcumc_shared_event_dup_fd(const struct libcumc_shared_event *se);

/*
 * A new record, made by any process: its number, which the stream item
 * that records it completes.
 */
uint64_t libcumc_shared_event_record(struct libcumc_shared_event *se);
void libcumc_shared_event_complete(struct libcumc_shared_event *se,
				   uint64_t record);
/*
 * The latest record any process made (0: none), what a query or a wait
 * compares with; whether it has completed, and waiting until it has.
 */
uint64_t libcumc_shared_event_latest(struct libcumc_shared_event *se);
bool libcumc_shared_event_done(struct libcumc_shared_event *se,
			       uint64_t record);
void libcumc_shared_event_wait(struct libcumc_shared_event *se,
			       uint64_t record);

/*
 * Interprocess events (event.c).  Open: a new event of the current
 * context with @shared (taken over, also on failure) as its page, as
 * CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING makes one; what
 * libcumc_current_device() answers without one.  Export: the id that
 * names @event to this process's serving thread (never reused),
 * CUDA_ERROR_INVALID_HANDLE when it is not live, CUDA_ERROR_INVALID_VALUE
 * when it is not interprocess.  The descriptor of the page of the event
 * @id names, the caller's to close; -1 when it names none (destroyed).
 */
CUresult libcumc_event_open_shared(struct libcumc_shared_event *shared,
				   CUevent *event);
CUresult libcumc_event_export(CUevent event, unsigned long long *id);
int libcumc_event_shared_fd(unsigned long long id);

#endif /* _CUMC_LIB_EVENT_SHARED_H */
