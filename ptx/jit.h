/* SPDX-License-Identifier: MIT */
/*
 * Compiled kernels (jit*.c): the PTX IR translated to host code through
 * LLVM, loaded at run time.  A compiled kernel runs one round over the
 * threads of a CTA itself, each thread until it exits, reaches bar.sync
 * or has spent its time slice, so that a thread costs a few instructions
 * and no call (and groups of 16 threads that stand together, not run yet
 * or let go by bar.sync, at a time, as vector lanes);
 * grid.c keeps the barrier's and the CTA's bookkeeping.
 */
#ifndef _CUMC_PTX_JIT_H
#define _CUMC_PTX_JIT_H

#include "exec.h"

/* A thread of a compiled kernel: its registers are in the run's regs. */
struct ptx_jit_thread {
	uint32_t pc;		/* where it resumes */
	uint8_t state;		/* enum ptx_thread_state */
	uint8_t resumed;	/* its registers were saved: load them */
};

/* The device range a memory instruction last reached, per instruction. */
struct ptx_jit_site {
	uint64_t lo, hi;
};

/*
 * One round of a compiled kernel over a CTA: what the code reads (at
 * offsets the translator takes with offsetof) and the counts it leaves.
 */
struct ptx_jit_run {
	struct ptx_worker *w;
	struct ptx_cta *cta;
	struct ptx_jit_thread *threads;
	uint64_t *regs;			/* nregs per thread */
	unsigned char *shared;
	uint64_t shared_size;
	unsigned char *local;
	uint64_t local_size;		/* per thread */
	const unsigned char *params;
	const uint64_t *globals;	/* the module variables' addresses */
	struct ptx_jit_site *sites;
	const atomic_bool *stop;
	/* An access the inline checks did not allow; NULL after a fault. */
	void *(*mem)(struct ptx_jit_run *r, uint32_t index, uint32_t pc,
		     uint64_t addr, uint32_t size, uint32_t write,
		     uint32_t site);
	/* The interpreter runs instruction @pc for a thread; 1: a fault. */
	uint32_t (*step)(struct ptx_jit_run *r, uint32_t index, uint32_t pc);
	/*
	 * The multicast path makes multimem @pc's access of @count elements
	 * at @addr for the lanes of a warp, their values in @buf lane after
	 * lane; 0: refused, nothing changed (the lanes go on one by one).
	 */
	uint32_t (*multimem)(struct ptx_jit_run *r, uint32_t pc, uint64_t addr,
			     void *buf, uint32_t count);
	uint32_t nthreads;
	uint32_t ntid[3], ctaid[3], nctaid[3];
	uint32_t exited, arrived;	/* in this round */
};

/* The compiled code of a kernel: 1 after a fault (the grid stops). */
typedef uint32_t (*ptx_jit_entry)(struct ptx_jit_run *run);

/*
 * Compiles the kernels of @module whose instructions the translator
 * covers, from the cache when @text (the PTX they were parsed from) was
 * compiled before; the others, and every kernel when LLVM cannot be
 * loaded or CUMC_PTX_JIT is 0, stay with the interpreter.
 */
void ptx_jit_module(struct cumc_ptx_module *module, const char *text,
		    size_t len);

/* The run's calls into mem.c and the interpreter. */
void ptx_jit_prepare(struct ptx_jit_run *run);

/* The number of memory instructions of a compiled kernel. */
uint32_t ptx_jit_sites(const struct cumc_ptx_function *fn);

/* A line for CUMC_LOG, through the hook libcumc set. */
void ptx_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
