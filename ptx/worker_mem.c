// SPDX-License-Identifier: MIT
/*
 * Memory that workers keep across launches.  A launch's helper workers are
 * new host threads, and what they allocated for their compiled CTAs and
 * kept multimem pairs went back to malloc when they ended, which gave it
 * back to the system: every launch faulted its pages in again, zeroed
 * (under TCG each fault and each zeroed page costs tens of microseconds;
 * an all-reduce kernel took a hundred such faults a launch).  A worker
 * leaves its memory here as it ends, and the next launch's workers take
 * it.  What is kept is bounded in count and bytes, so that a process
 * that once launched a grid of large CTAs does not hold their memory
 * beyond PTX_KEPT_BYTES.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "jit.h"

#define PTX_KEPT_BYTES (64u << 20)

/* Guards kept[], nkept and kept_bytes; held for a copy, never a call. */
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ptx_worker_mem kept[PTX_WORKERS_KEPT];
static unsigned int nkept;
static size_t kept_bytes;

static size_t spares_bytes(const struct ptx_worker_mem *m)
{
	const struct ptx_cta_shape *s = &m->shape;
	size_t one = s->nthreads * (sizeof(struct ptx_jit_thread) +
				    (s->nregs ? s->nregs : 1) * sizeof(uint64_t) +
				    (s->local_size ? s->local_size : 1)) +
		     (s->shared_size ? s->shared_size : 1);

	return m->nspare * one;
}

static void spares_free(struct ptx_worker_mem *m)
{
	struct ptx_cta_mem *c;

	while (m->nspare) {
		c = &m->spare[--m->nspare];
		free(c->jthreads);
		free(c->regs);
		free(c->shared);
		free(c->local);
	}
}

static bool shape_equal(const struct ptx_cta_shape *a,
			const struct ptx_cta_shape *b)
{
	return a->nthreads == b->nthreads && a->nregs == b->nregs &&
	       a->shared_size == b->shared_size &&
	       a->local_size == b->local_size;
}

void ptx_worker_mem_take(struct ptx_worker_mem *m,
			 const struct ptx_cta_shape *shape)
{
	memset(m, 0, sizeof(*m));
	pthread_mutex_lock(&kept_lock);
	if (nkept) {
		*m = kept[--nkept];
		kept_bytes -= spares_bytes(m);
	}
	pthread_mutex_unlock(&kept_lock);
	/* Another grid's CTAs: their memory does not fit this one's. */
	if (!shape_equal(&m->shape, shape))
		spares_free(m);
	m->shape = *shape;
}

void ptx_worker_mem_keep(struct ptx_worker_mem *m)
{
	size_t bytes = spares_bytes(m);
	bool taken = false;

	/* an interpreted kernel's worker: nothing to keep */
	if (!m->nspare && !m->mm_pairs)
		return;
	pthread_mutex_lock(&kept_lock);
	if (nkept < PTX_WORKERS_KEPT && bytes <= PTX_KEPT_BYTES - kept_bytes) {
		kept[nkept++] = *m;
		kept_bytes += bytes;
		taken = true;
	}
	pthread_mutex_unlock(&kept_lock);
	if (!taken) {
		spares_free(m);
		free(m->mm_pairs);
		free(m->mm_sums);
	}
	memset(m, 0, sizeof(*m));
}
