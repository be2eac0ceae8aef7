// SPDX-License-Identifier: MIT
/*
 * The completion state of an interprocess event: a memfd page that every
 * process holding the event maps shared, so that a record one process
 * makes is seen completing by the others.  Two 64-bit sequences: the
 * records made, counted, and the highest record completed.  A record
 * takes its number when it is made (cuEventRecord), and the stream item
 * it queues stores it as completed once the work before it has run; a
 * query or a wait is for the latest record made at the time of the call,
 * as a local event's is, and is over once that record, or a later one,
 * has completed.  Waiters sleep on a futex word beside them that each
 * completion bumps; the futex is a shared one (no FUTEX_PRIVATE_FLAG),
 * since the wakers are other processes.  Nothing on the page is a lock,
 * so a process that dies leaves it consistent: records it had made and
 * not completed never complete, and whatever completed stays so.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "event_shared.h"
#include "log.h"

struct libcumc_event_page {
	_Atomic uint64_t made;
	_Atomic uint64_t completed;
	_Atomic uint32_t progress;	/* the futex word */
};

_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2,
	       "the page's sequences are atomic across processes");

struct libcumc_shared_event {
	atomic_uint refs;
	int fd;
	struct libcumc_event_page *page;
};

/* Maps @fd (the caller's until this succeeds) into a new holder. */
static CUresult libcumc_shared_event_attach(int fd,
					    struct libcumc_shared_event **out)
{
	struct libcumc_shared_event *se = malloc(sizeof(*se));
	void *page;

	if (!se)
		return CUDA_ERROR_OUT_OF_MEMORY;
	page = mmap(NULL, sizeof(struct libcumc_event_page),
		    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (page == MAP_FAILED) {
		libcumc_log_errno("mmap", "an interprocess event", errno);
		free(se);
		return CUDA_ERROR_MAP_FAILED;
	}
	atomic_init(&se->refs, 1);
	se->fd = fd;
	se->page = page;
	*out = se;
	return CUDA_SUCCESS;
}

CUresult libcumc_shared_event_new(struct libcumc_shared_event **out)
{
	CUresult res;
	int fd;

	fd = memfd_create("cumc-event", MFD_CLOEXEC);
	if (fd < 0) {
		libcumc_log_errno("memfd_create", "an interprocess event",
				  errno);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	/* The page reads zero: no record made, none completed. */
	if (ftruncate(fd, sizeof(struct libcumc_event_page))) {
		libcumc_log_errno("ftruncate", "an interprocess event", errno);
		close(fd);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	res = libcumc_shared_event_attach(fd, out);
	if (res != CUDA_SUCCESS) {
		close(fd);
		return res == CUDA_ERROR_MAP_FAILED ? CUDA_ERROR_OUT_OF_MEMORY :
						      res;
	}
	return CUDA_SUCCESS;
}

CUresult libcumc_shared_event_map(int fd, struct libcumc_shared_event **out)
{
	struct stat st;
	CUresult res;
	int own;

	/* Shorter than the page, it would fault on access: not an event's. */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)sizeof(struct libcumc_event_page))
		return CUDA_ERROR_MAP_FAILED;
	own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (own < 0)
		return CUDA_ERROR_OUT_OF_MEMORY;
	res = libcumc_shared_event_attach(own, out);
	if (res != CUDA_SUCCESS)
		close(own);
	return res;
}

void libcumc_shared_event_ref(struct libcumc_shared_event *se)
{
	atomic_fetch_add(&se->refs, 1);
}

void libcumc_shared_event_put(struct libcumc_shared_event *se)
{
	if (!se || atomic_fetch_sub(&se->refs, 1) != 1)
		return;
	munmap(se->page, sizeof(*se->page));
	close(se->fd);
	free(se);
}

int libcumc_shared_event_dup_fd(const struct libcumc_shared_event *se)
{
	return fcntl(se->fd, F_DUPFD_CLOEXEC, 0);
}

uint64_t libcumc_shared_event_record(struct libcumc_shared_event *se)
{
	return atomic_fetch_add(&se->page->made, 1) + 1;
}

void libcumc_shared_event_complete(struct libcumc_shared_event *se,
				   uint64_t record)
{
	struct libcumc_event_page *page = se->page;
	uint64_t seen = atomic_load(&page->completed);

	/* Records of several processes may complete out of order. */
	while (seen < record &&
	       !atomic_compare_exchange_weak(&page->completed, &seen, record))
		;
	atomic_fetch_add(&page->progress, 1);
	syscall(SYS_futex, &page->progress, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

uint64_t libcumc_shared_event_latest(struct libcumc_shared_event *se)
{
	return atomic_load(&se->page->made);
}

bool libcumc_shared_event_done(struct libcumc_shared_event *se,
			       uint64_t record)
{
	return atomic_load(&se->page->completed) >= record;
}

void libcumc_shared_event_wait(struct libcumc_shared_event *se,
			       uint64_t record)
{
	struct libcumc_event_page *page = se->page;
	uint32_t progress;

	for (;;) {
		/* Read before the check: a completion after it changes it. */
		progress = atomic_load(&page->progress);
		if (atomic_load(&page->completed) >= record)
			return;
		syscall(SYS_futex, &page->progress, FUTEX_WAIT, progress, NULL,
			NULL, 0);
	}
}
