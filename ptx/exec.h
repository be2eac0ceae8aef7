/* SPDX-License-Identifier: MIT */
/*
 * The executor's state: a grid of CTAs (blocks), each of threads grouped
 * in warps of 32, run by workers (host threads).  exec.c runs one thread
 * for a slice of instructions; grid.c decides who runs when.
 */
#ifndef _CUMC_PTX_EXEC_H
#define _CUMC_PTX_EXEC_H

#include <stdatomic.h>

#include "ir.h"

#define PTX_WARP_SIZE 32

/* TS_WARP: at a warp operation, waiting for the lanes it names. */
enum ptx_thread_state { TS_RUN, TS_BARRIER, TS_WARP, TS_EXITED };

/* A caller's state, while a device function it called runs. */
struct ptx_frame {
	const struct cumc_ptx_function *fn;
	uint32_t pc;		/* of the call */
	uint64_t *regs;
	size_t frame_base;
	unsigned char *params;
};

#define PTX_MAX_DEPTH 256	/* calls deeper trap, as a stack overflow */
/* Local memory for the frames of device functions, per thread. */
#define PTX_STACK_SIZE (8u << 10)

/*
 * A thread's local memory is one window (the kernel's variables, then the
 * frames of the device functions it calls, a stack), so a pointer to a
 * caller's local variable means the same in the callee; a function's
 * .local (and call .param) variables are at frame_base in it.
 */
struct ptx_thread {
	/* The function running and its registers, local and param memory. */
	const struct cumc_ptx_function *fn;
	uint64_t *regs;
	unsigned char *local;	/* the thread's window, local_size bytes */
	size_t local_size;
	size_t frame_base;
	unsigned char *params;	/* a .func's; the launch's in the kernel */
	struct ptx_frame *frames;	/* callers, depth of them */
	uint32_t depth;
	uint32_t pc;
	uint8_t state;		/* enum ptx_thread_state */
	uint8_t bar;		/* TS_BARRIER: the barrier it waits at */
	uint16_t tid[3];
	uint32_t index;		/* in the CTA: x + y * ntid.x + ... */
	uint32_t wmask;		/* TS_WARP: the membermask */
	uint64_t wv[3];		/* TS_WARP: the source operands */
};

/*
 * One of a CTA's barriers, since it last completed: the threads that
 * arrived, the count they wait for (0: every thread not exited), and
 * bar.red's reductions of their predicates.
 */
struct ptx_barrier {
	unsigned int arrived;
	unsigned int expected;
	unsigned int popc;
	bool all, any;
};

struct ptx_cta {
	unsigned int ctaid[3];
	struct ptx_thread *threads;
	unsigned int nthreads;
	unsigned int live;	/* threads not exited */
	struct ptx_barrier bars[PTX_BARRIERS];
	uint16_t bars_pending;	/* the barriers some thread arrived at */
	uint64_t *regs;		/* nregs per thread (jit.h: per register) */
	unsigned char *shared;
	size_t shared_size;
	unsigned char *local;	/* local_size per thread */
	struct ptx_jit_thread *jthreads;	/* compiled kernels: no threads */
	bool first_round;	/* compiled: none of its threads ran yet */
};

struct ptx_grid {
	const struct cumc_ptx_function *fn;
	const struct cumc_ptx_launch *launch;
	size_t shared_size;	/* static + dynamic, per CTA */
	size_t local_size;	/* per thread: the kernel's and the stack */
	uint64_t nctas;
	atomic_uint resident;	/* CTAs a worker keeps at once (grid.c) */
	atomic_uint_fast64_t next_cta;
	atomic_bool stop;
	atomic_flag fault_taken;
	struct cumc_ptx_fault fault;
};

/* Ranges of device memory the memory callback allowed. */
#define PTX_RANGES 8
struct ptx_range {
	uint64_t lo, hi;
	bool write;
};

/* A grid's CTA: its threads, their registers, its shared and local memory. */
struct ptx_cta_shape {
	unsigned int nthreads, nregs;
	size_t shared_size, local_size;	/* per CTA; per thread */
};

/* Memory of a compiled kernel's ended CTA, for the worker's next one. */
struct ptx_cta_mem {
	struct ptx_jit_thread *jthreads;
	uint64_t *regs;
	unsigned char *shared, *local;
};

/*
 * What a worker allocates, kept from launch to launch (worker_mem.c):
 * its ended CTAs' memory, of one shape, and the multimem pairs' buffers
 * (mm_defer.c).
 */
struct ptx_worker_mem {
	struct ptx_cta_mem spare[CUMC_PTX_RESIDENT];
	unsigned int nspare;
	struct ptx_cta_shape shape;
	struct ptx_mm_pair *mm_pairs;	/* kept back in a CTA's round */
	void *mm_sums;			/* and their sums */
};

/* At most this many workers' memory is kept, and 64 MiB of their CTAs'. */
#define PTX_WORKERS_KEPT 32

/*
 * A worker's memory at its start: kept by an earlier launch's worker (its
 * CTAs' only if they were of @shape), or none.
 */
void ptx_worker_mem_take(struct ptx_worker_mem *m,
			 const struct ptx_cta_shape *shape);
/* At its end: kept for a later worker, or freed past the bound. */
void ptx_worker_mem_keep(struct ptx_worker_mem *m);

/*
 * What the multicast path last said of ld_reduce_st (cumc_ptx.h): every
 * pair of @type and @op inside [@lo, @hi) is made while the worker's hold
 * stays, so that mm_defer.c asks once for a mapping's pairs, not a warp
 * at a time.  Forgotten (@hi 0) wherever the hold changes or is let go of:
 * the next may be another mapping at the same address.
 */
struct ptx_mm_checked {
	uint64_t lo, hi;
	uint8_t type, op;
};

struct ptx_worker {
	struct ptx_grid *grid;
	struct ptx_range ranges[PTX_RANGES];
	unsigned int next_range;
	void *mc_held;		/* the multicast callback's (cumc_ptx.h) */
	struct ptx_mm_checked mm_checked;
	bool slice_spent;	/* this pass, a thread used up its slice */
	bool polled;		/* this CTA's round, a thread polled */
	unsigned int ctas_polling;	/* this pass, CTAs that spun (grid.c) */
	unsigned int pause_us;	/* how long a pass of spinning CTAs sleeps */
	struct ptx_jit_site *jit_sites;	/* a compiled kernel's, per worker */
	uint64_t *jit_regs;	/* a compiled kernel's thread for the interpreter */
	struct ptx_worker_mem mem;
};

/* Why a slice ended. */
enum ptx_slice { SL_BUDGET, SL_BARRIER, SL_WARP, SL_EXIT, SL_FAULT };

/*
 * Instructions a thread (compiled: a warp) runs before the next one of
 * its CTA (grid.c).
 */
#define PTX_SLICE 4096u
/*
 * What a poll costs of a slice, interpreted or compiled: a load with an order stronger than relaxed (.acquire, .sc),
 * how a flag that other threads write is awaited.  A CTA spinning on one
 * hands its worker back after 16 tries to the CTAs that have work,
 * instead of spinning a whole slice.  .volatile and .relaxed loads are
 * not counted: NCCL's LL protocol moves its data with them.
 */
#define PTX_POLL_COST (PTX_SLICE / 16)

static inline bool ptx_insn_polls(const struct ptx_insn *in)
{
	return in->op == OP_LD && (in->flags & PF_ORDERED);
}

/* Runs thread @t of @cta for up to @budget instructions. */
enum ptx_slice ptx_run(struct ptx_worker *w, struct ptx_cta *cta,
		       struct ptx_thread *t, unsigned int budget);

/*
 * warp.c: completes the warp operations of warp @warp of @cta whose lanes
 * have all arrived; 1 when a lane was let go.
 */
int ptx_warp_check(struct ptx_cta *cta, unsigned int warp);

struct ptx_exec;

/*
 * barrier.c: thread x->t reaches bar/barrier @in: counts it at its
 * barrier and, for .sync and .red, makes it wait (TS_BARRIER) unless that
 * completes the barrier.  SL_BUDGET: it goes on; SL_BARRIER: it waits (or
 * was let go at once); SL_FAULT: a barrier number or count out of range.
 */
enum ptx_slice ptx_bar_arrive(struct ptx_exec *x, const struct ptx_insn *in);

/* Completes the barriers of @cta whose threads are all there. */
void ptx_bar_check(struct ptx_cta *cta);

/* exec.c: frees the frames of calls @t had not returned from. */
void ptx_thread_unwind(struct ptx_thread *t);

/* Records the first fault of the grid and stops it. */
void ptx_grid_fault(struct ptx_worker *w, const struct ptx_cta *cta,
		    const struct ptx_thread *t, enum cumc_ptx_status st,
		    uint64_t addr, unsigned int line);

/*
 * exec_mem.c: a multimem access of @count elements at @addr of @in's type
 * and operator, through the launch's multicast path and what the worker
 * holds (one thread's values, or a warp's in lane order): @kind is
 * @in's own, or for a ld_reduce, CUMC_PTX_MM_LD_REDUCE_ST (the st of its
 * results after it, both made) or CUMC_PTX_MM_CHECK_LD_REDUCE_ST.  False
 * when it was refused, having changed nothing, or the launch has no path.
 */
bool ptx_multimem_access(struct ptx_worker *w, const struct ptx_insn *in,
			 enum cumc_ptx_mm_kind kind, uint64_t addr, void *buf,
			 size_t count);

/*
 * cpu.c: from now on, whether the CPU is taken for QEMU's TCG
 * (cumc_ptx_cpu_emulated()), so that the host checks the code compiled
 * for TCG against the hardware's answers (test_ptx_corpus_tcg); before
 * the first module is compiled.
 */
void ptx_cpu_force_emulated(bool emulated);

/* mem.c: the host address of [addr, addr + size) in @space, or NULL. */
void *ptx_mem(struct ptx_worker *w, struct ptx_cta *cta,
	      const struct ptx_thread *t, enum ptx_space space, uint64_t addr,
	      size_t size, bool write);

#endif
