// SPDX-License-Identifier: MIT
/*
 * The scheduler.  A grid's CTAs are taken in order by workers (the
 * launching thread and a pool of host threads).  Each worker keeps up to
 * a set number of CTAs resident, as an SM does, and time-slices their
 * threads: each runs until it exits, reaches a barrier, or has run
 * PTX_SLICE instructions, then the next one runs.  So a thread spinning
 * on a flag that another thread, CTA, or the host writes lets the writer
 * run: the grid makes progress whenever the hardware's would, as long as
 * the CTAs that wait on each other are resident together (the device's
 * occupancy, CUMC_PTX_RESIDENT per worker here; a worker takes its share
 * of a smaller grid, so that the workers run it together).  Threads are
 * kept in warps of 32 (consecutive indexes); a warp operation waits for
 * the lanes it names (warp.c), and a CTA none of whose threads can run
 * any more stops the grid with a trap rather than hang.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jit.h"

#define PTX_RESIDENT CUMC_PTX_RESIDENT

void ptx_grid_fault(struct ptx_worker *w, const struct ptx_cta *cta,
		    const struct ptx_thread *t, enum cumc_ptx_status st,
		    uint64_t addr, unsigned int line)
{
	struct ptx_grid *g = w->grid;
	unsigned int i;

	if (!atomic_flag_test_and_set(&g->fault_taken)) {
		g->fault.status = st;
		g->fault.addr = addr;
		g->fault.line = line;
		for (i = 0; i < 3; i++) {
			g->fault.block[i] = cta->ctaid[i];
			g->fault.thread[i] = t->tid[i];
		}
	}
	atomic_store(&g->stop, true);
}

static void cta_free(struct ptx_cta *cta)
{
	unsigned int i;

	for (i = 0; cta->threads && i < cta->nthreads; i++)
		ptx_thread_unwind(&cta->threads[i]);
	free(cta->threads);
	free(cta->jthreads);
	free(cta->regs);
	free(cta->shared);
	free(cta->local);
	memset(cta, 0, sizeof(*cta));
}

/*
 * The records of a new CTA's threads, as its first round expects them
 * (jit.h), from records that all say TS_EXITED (an ended CTA's): only the
 * partial last group's change.
 */
static void cta_records_init(struct ptx_cta *cta)
{
	unsigned int tail = cta->nthreads % PTX_JIT_LANES;

	if (tail)
		memset(cta->jthreads + cta->nthreads - tail, 0,
		       tail * sizeof(*cta->jthreads));
	cta->first_round = true;
}

/*
 * A CTA of a compiled kernel: a small record per thread; registers are
 * written before they are read (jit_translate.c saves them when a thread
 * stops).
 */
static int cta_init_jit(struct ptx_worker *w, struct ptx_cta *cta)
{
	struct ptx_grid *g = w->grid;
	unsigned int i;

	if (w->mem.nspare) {
		const struct ptx_cta_mem *m = &w->mem.spare[--w->mem.nspare];

		cta->jthreads = m->jthreads;
		cta->regs = m->regs;
		cta->shared = m->shared;
		cta->local = m->local;
		cta_records_init(cta);
		if (g->shared_size)
			memset(cta->shared, 0, g->shared_size);
		if (g->local_size)
			memset(cta->local, 0, cta->nthreads * g->local_size);
		return 0;
	}
	cta->jthreads = calloc(cta->nthreads, sizeof(*cta->jthreads));
	cta->regs = malloc((size_t)cta->nthreads * (g->fn->nregs ? g->fn->nregs : 1) *
			   sizeof(uint64_t));
	cta->shared = calloc(1, g->shared_size ? g->shared_size : 1);
	cta->local = calloc(cta->nthreads, g->local_size ? g->local_size : 1);
	if (!cta->jthreads || !cta->regs || !cta->shared || !cta->local) {
		cta_free(cta);
		return -1;
	}
	/* as an ended CTA's records say */
	for (i = 0; i < cta->nthreads; i++)
		cta->jthreads[i].state = TS_EXITED;
	cta_records_init(cta);
	return 0;
}

/*
 * CTA number @n into @cta, zeroed (worker_main() keeps free places so),
 * its threads at their first instruction.
 */
static int cta_init(struct ptx_worker *w, struct ptx_cta *cta, uint64_t n)
{
	struct ptx_grid *g = w->grid;
	const unsigned int *gd = g->launch->grid, *bd = g->launch->block;
	unsigned int i;

	cta->nthreads = bd[0] * bd[1] * bd[2];
	cta->ctaid[0] = n % gd[0];
	cta->ctaid[1] = n / gd[0] % gd[1];
	cta->ctaid[2] = n / gd[0] / gd[1];
	cta->live = cta->nthreads;
	cta->shared_size = g->shared_size;
	if (g->fn->jit)
		return cta_init_jit(w, cta);
	cta->threads = calloc(cta->nthreads, sizeof(*cta->threads));
	cta->regs = calloc((size_t)cta->nthreads * (g->fn->nregs ? g->fn->nregs : 1),
			   sizeof(uint64_t));
	cta->shared = calloc(1, g->shared_size ? g->shared_size : 1);
	cta->local = calloc(cta->nthreads, g->local_size ? g->local_size : 1);
	if (!cta->threads || !cta->regs || !cta->shared || !cta->local) {
		cta_free(cta);
		return -1;
	}
	for (i = 0; i < cta->nthreads; i++) {
		struct ptx_thread *t = &cta->threads[i];

		t->index = i;
		t->fn = g->fn;
		t->regs = cta->regs + (size_t)i * g->fn->nregs;
		t->local = cta->local + (size_t)i * g->local_size;
		t->local_size = g->local_size;
		t->params = (unsigned char *)g->launch->params;
		t->tid[0] = i % bd[0];
		t->tid[1] = i / bd[0] % bd[1];
		t->tid[2] = i / bd[0] / bd[1];
	}
	return 0;
}

/*
 * An ended CTA: a compiled kernel's memory serves the worker's next CTA,
 * of this grid or a later one's (worker_mem.c), rather than go back to
 * malloc, whose trimming would have the next one fault its pages in again.
 */
static void cta_end(struct ptx_worker *w, struct ptx_cta *cta)
{
	struct ptx_cta_mem *m;

	if (cta->jthreads && w->mem.nspare < PTX_RESIDENT) {
		m = &w->mem.spare[w->mem.nspare++];
		m->jthreads = cta->jthreads;
		m->regs = cta->regs;
		m->shared = cta->shared;
		m->local = cta->local;
		memset(cta, 0, sizeof(*cta));
		return;
	}
	cta_free(cta);
}

/*
 * Nothing of @cta can run: every thread not exited waits at a barrier or
 * a warp operation that cannot complete (a lane it names waits elsewhere).
 * On a GPU that hangs; here the grid stops with a trap at one of them.
 */
static void cta_deadlock(struct ptx_worker *w, struct ptx_cta *cta)
{
	unsigned int i;

	for (i = 0; i < cta->nthreads; i++)
		if (cta->threads[i].state != TS_EXITED)
			break;
	ptx_grid_fault(w, cta, &cta->threads[i], CUMC_PTX_ETRAP, 0,
		       cta->threads[i].fn->insns[cta->threads[i].pc].line);
}

/*
 * One round of a compiled kernel over the CTA: the code runs the threads
 * and counts those that exited or reached the barrier.
 */
static int cta_round_jit(struct ptx_worker *w, struct ptx_cta *cta)
{
	struct ptx_grid *g = w->grid;
	struct ptx_jit_run r = {
		.w = w, .cta = cta, .threads = cta->jthreads, .regs = cta->regs,
		.shared = cta->shared, .shared_size = cta->shared_size,
		.local = cta->local, .local_size = g->local_size,
		.params = g->launch->params, .sites = w->jit_sites,
		.globals = g->fn->module->global_addrs,
		.stop = &g->stop, .nthreads = cta->nthreads,
		.first_round = cta->first_round,
	};
	unsigned int i;
	uint32_t fault;

	for (i = 0; i < 3; i++) {
		r.ntid[i] = g->launch->block[i];
		r.ctaid[i] = cta->ctaid[i];
		r.nctaid[i] = g->launch->grid[i];
	}
	ptx_jit_prepare(&r);
	fault = g->fn->jit(&r);
	/* what the round kept back, made before a barrier lets anyone go on */
	if (r.deferred)
		ptx_mm_flush(&r);
	if (fault)
		return 0;	/* the grid stops */
	cta->first_round = false;
	cta->live -= r.exited;
	/* compiled kernels have bar.sync 0 only (jit_translate.c) */
	cta->bars[0].arrived += r.arrived;
	/* a thread neither ended nor waiting used up its slice */
	if (cta->bars[0].arrived < cta->live) {
		w->slice_spent = true;
		w->ctas_polling += r.polls && cta->bars[0].arrived;
	}
	if (cta->bars[0].arrived && cta->bars[0].arrived >= cta->live) {
		for (i = 0; i < cta->nthreads; i++)
			if (cta->jthreads[i].state == TS_BARRIER)
				cta->jthreads[i].state = TS_RUN;
		cta->bars[0].arrived = 0;
	}
	return cta->live == 0;
}

/* One round over the CTA's threads, warp by warp; 1 when it is done. */
static int cta_round(struct ptx_worker *w, struct ptx_cta *cta)
{
	unsigned int i, ran = 0, released = 0;
	bool spent = false;

	if (cta->jthreads)
		return cta_round_jit(w, cta);
	w->polled = false;

	for (i = 0; i < cta->nthreads && !atomic_load(&w->grid->stop); i++) {
		struct ptx_thread *t = &cta->threads[i];

		if (t->state != TS_RUN)
			continue;
		ran++;
		switch (ptx_run(w, cta, t, PTX_SLICE)) {
		case SL_EXIT:
			t->state = TS_EXITED;
			cta->live--;
			ptx_bar_check(cta);
			ptx_warp_check(cta, i / PTX_WARP_SIZE);
			break;
		case SL_BARRIER:	/* barrier.c set its state */
			ptx_warp_check(cta, i / PTX_WARP_SIZE);
			break;
		case SL_WARP:
			t->state = TS_WARP;
			ptx_warp_check(cta, i / PTX_WARP_SIZE);
			break;
		case SL_BUDGET:
			spent = true;
			break;
		default:
			break;
		}
	}
	w->slice_spent |= spent;
	w->ctas_polling += spent && w->polled && cta->bars_pending;
	if (!ran && cta->live && !atomic_load(&w->grid->stop)) {
		for (i = 0; i < cta->nthreads; i += PTX_WARP_SIZE)
			released |= ptx_warp_check(cta, i / PTX_WARP_SIZE);
		if (!released)
			cta_deadlock(w, cta);
	}
	return cta->live == 0;
}

/*
 * Lets go of what the multicast path kept for the worker (cumc_ptx.h):
 * after each CTA's round, so that it is held for a bounded time.
 */
static void worker_let_go(struct ptx_worker *w)
{
	const struct cumc_ptx_multicast *mc = w->grid->launch->multicast;

	if (w->mc_held)
		mc->release(mc->arg, &w->mc_held);
	w->mm_checked.hi = 0;
}

/*
 * After a pass over the worker's @nres CTAs.  A thread that used up its
 * slice may be spinning on a flag that a thread of another worker, launch
 * or process is to write: when they outnumber the CPUs (8 ranks' launches
 * on 2), that writer gets the CPU now rather than at the end of this
 * worker's time slice.  Where every CTA only waited (threads at a
 * barrier, the others polling: PTX_POLL_COST), the worker sleeps instead,
 * longer each pass up to a millisecond: a sched_yield() leaves it its
 * share of the CPU, which the CTAs of the other grids that have work to
 * do need (one-shot all-reduce kernels launched one after the other wait
 * for the last at their barriers).  A CTA with threads at work beside the
 * poller (none at a barrier) never sleeps its worker.
 */
static void worker_pause(struct ptx_worker *w, unsigned int nres)
{
	struct timespec pause = { 0 };

	if (w->slice_spent && w->ctas_polling >= nres) {
		w->pause_us = w->pause_us ? w->pause_us * 2 : 16;
		if (w->pause_us > 1000)
			w->pause_us = 1000;
		pause.tv_nsec = w->pause_us * 1000L;
		nanosleep(&pause, NULL);
	} else {
		w->pause_us = 0;
		if (w->slice_spent)
			sched_yield();
	}
	w->slice_spent = false;
	w->ctas_polling = 0;
}

/* Who a fault of no thread in particular (out of memory) names. */
static const struct ptx_thread no_thread;

/* The grid's next CTA into @cta, ready to run; false when none is left. */
static bool cta_take(struct ptx_worker *w, struct ptx_cta *cta)
{
	struct ptx_grid *g = w->grid;
	uint64_t n;

	if (atomic_load(&g->stop))
		return false;
	n = atomic_fetch_add(&g->next_cta, 1);
	if (n >= g->nctas)
		return false;
	if (cta_init(w, cta, n)) {
		ptx_grid_fault(w, cta, &no_thread, CUMC_PTX_ENOMEM, 0, 0);
		return false;
	}
	return true;
}

/*
 * A compiled kernel's per-worker state: its instructions' device ranges,
 * and the registers of the thread the interpreter runs an instruction of.
 */
static bool worker_jit_init(struct ptx_worker *w)
{
	const struct cumc_ptx_function *fn = w->grid->fn;

	if (!fn->jit)
		return true;
	w->jit_regs = calloc(fn->nregs ? fn->nregs : 1, sizeof(*w->jit_regs));
	if (fn->jit_sites)
		w->jit_sites = calloc(fn->jit_sites, sizeof(*w->jit_sites));
	return w->jit_regs && (!fn->jit_sites || w->jit_sites);
}

static void *worker_main(void *arg)
{
	struct ptx_worker *w = arg;
	struct ptx_grid *g = w->grid;
	const unsigned int *bd = g->launch->block;
	const struct ptx_cta_shape shape = {
		.nthreads = bd[0] * bd[1] * bd[2], .nregs = g->fn->nregs,
		.shared_size = g->shared_size, .local_size = g->local_size,
	};
	struct ptx_cta ctas[PTX_RESIDENT];
	unsigned int nres = 0, i;
	int done;

	memset(ctas, 0, sizeof(ctas));
	ptx_worker_mem_take(&w->mem, &shape);
	if (!worker_jit_init(w)) {
		ptx_grid_fault(w, &ctas[0], &no_thread, CUMC_PTX_ENOMEM, 0, 0);
		goto out;
	}
	for (;;) {
		while (nres < atomic_load(&g->resident) &&
		       cta_take(w, &ctas[nres]))
			nres++;
		if (!nres || atomic_load(&g->stop))
			break;
		for (i = 0; i < nres; i++) {
			done = cta_round(w, &ctas[i]);
			worker_let_go(w);
			if (!done)
				continue;
			cta_end(w, &ctas[i]);
			/*
			 * The next CTA takes its place: moving the last one
			 * there and clearing its own took a sixth of
			 * bench_ptx's vec_add, whose CTAs end in one round.
			 */
			if (nres <= atomic_load(&g->resident) &&
			    cta_take(w, &ctas[i]))
				continue;
			ctas[i] = ctas[--nres];
			memset(&ctas[nres], 0, sizeof(ctas[nres]));
			i--;
		}
		worker_pause(w, nres);
	}
	for (i = 0; i < nres; i++)
		cta_free(&ctas[i]);
out:
	free(w->jit_sites);
	free(w->jit_regs);
	ptx_worker_mem_keep(&w->mem);
	return NULL;
}

enum cumc_ptx_status cumc_ptx_launch_check(const struct cumc_ptx_function *fn,
					   const struct cumc_ptx_launch *l)
{
	static const unsigned int max_grid[3] = { 0x7fffffffu, 65535, 65535 };
	static const unsigned int max_block[3] = { 1024, 1024, 64 };
	uint64_t threads = 1;
	size_t limit = l->max_dynamic_shared > CUMC_PTX_DEFAULT_SHARED ?
		       l->max_dynamic_shared : CUMC_PTX_DEFAULT_SHARED;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		if (!l->grid[i] || l->grid[i] > max_grid[i] ||
		    !l->block[i] || l->block[i] > max_block[i])
			return CUMC_PTX_ELAUNCH;
		threads *= l->block[i];
	}
	if (threads > CUMC_PTX_MAX_BLOCK_THREADS)
		return CUMC_PTX_ELAUNCH;
	if (fn->shared_size > CUMC_PTX_DEFAULT_SHARED ||
	    fn->shared_size + l->dynamic_shared > limit ||
	    fn->shared_size + l->dynamic_shared > CUMC_PTX_MAX_SHARED)
		return CUMC_PTX_ESHARED;
	return CUMC_PTX_OK;
}

/*
 * CTAs a worker keeps resident: its share of the grid among @workers, at
 * most PTX_RESIDENT.  Taking all it may hold, the first worker would run
 * a small grid alone (a grid of 8 CTAs went to the launching thread while
 * the pool found none); a share still leaves every CTA of the grid
 * resident at once, as before, when the grid fits.
 */
static unsigned int resident_share(uint64_t nctas, unsigned int workers)
{
	uint64_t share = (nctas + workers - 1) / workers;

	return share < PTX_RESIDENT ? (unsigned int)share : PTX_RESIDENT;
}

static unsigned int worker_count(const struct cumc_ptx_launch *l,
				 uint64_t nctas)
{
	long cpus;
	unsigned int n = l->workers;

	/* sysconf reads sysfs (three system calls): not for one block */
	if (nctas <= 1)
		return 1;
	if (!n) {
		cpus = sysconf(_SC_NPROCESSORS_ONLN);
		n = cpus > 0 ? cpus : 1;
	}
	return nctas < n ? (unsigned int)nctas : n;
}

enum cumc_ptx_status cumc_ptx_launch(const struct cumc_ptx_function *fn,
				     const struct cumc_ptx_launch *l,
				     struct cumc_ptx_fault *fault)
{
	struct ptx_grid g = { .fn = fn, .launch = l,
			      .fault_taken = ATOMIC_FLAG_INIT };
	enum cumc_ptx_status st = cumc_ptx_launch_check(fn, l);
	struct ptx_worker *w;
	pthread_t *tids;
	unsigned int n, i, started = 0;

	if (st != CUMC_PTX_OK)
		return st;
	g.nctas = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
	g.shared_size = fn->shared_size + l->dynamic_shared;
	/* A kernel that calls device functions has a stack for their frames. */
	g.local_size = fn->ncalls ? ((fn->local_size + 15) & ~(size_t)15) +
				    PTX_STACK_SIZE : fn->local_size;
	n = worker_count(l, g.nctas);
	w = calloc(n, sizeof(*w));
	tids = calloc(n, sizeof(*tids));
	if (!w || !tids) {
		free(w);
		free(tids);
		return CUMC_PTX_ENOMEM;
	}
	for (i = 0; i < n; i++)
		w[i].grid = &g;
	atomic_init(&g.resident, resident_share(g.nctas, n));
	/*
	 * Worker 0 is the caller; fewer helpers is slower, never wrong: the
	 * shares grow to cover the grid with the workers there are.
	 */
	for (i = 1; i < n; i++)
		if (!pthread_create(&tids[started + 1], NULL, worker_main, &w[i]))
			started++;
	if (started + 1 < n)
		atomic_store(&g.resident, resident_share(g.nctas, started + 1));
	worker_main(&w[0]);
	for (i = 1; i <= started; i++)
		pthread_join(tids[i], NULL);
	free(w);
	free(tids);
	if (!atomic_flag_test_and_set(&g.fault_taken))
		return CUMC_PTX_OK;
	if (fault)
		*fault = g.fault;
	return g.fault.status;
}
