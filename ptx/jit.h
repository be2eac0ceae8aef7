/* SPDX-License-Identifier: MIT */
/*
 * Compiled kernels (jit*.c): the PTX IR translated to host code through
 * LLVM, loaded at run time.  A compiled kernel runs one round over the
 * threads of a CTA itself, each thread until it exits, reaches bar.sync
 * or has spent its time slice, so that a thread costs a few instructions
 * and no call (and a warp's 32 threads that stand together, not run yet
 * or let go by bar.sync, at a time, as vector lanes);
 * grid.c keeps the barrier's and the CTA's bookkeeping.
 */
#ifndef _CUMC_PTX_JIT_H
#define _CUMC_PTX_JIT_H

#include "exec.h"

/*
 * The lanes of warp code: a warp's threads, one vector, so that a warp's
 * multimem is one call of the multicast path (512 bytes for .v4.f32), as
 * the hardware makes one access of it.
 */
#define PTX_JIT_LANES PTX_WARP_SIZE

/*
 * The host's CPU and its features as LLVM names them (jit.c's jit_open(),
 * on the first module), or baseline x86-64-v2 under QEMU's TCG: the code
 * is compiled for them, and they are part of the cache key.
 */
extern const char *ptx_jit_host_cpu, *ptx_jit_host_features;
/*
 * Whether the host has FMA: an f64 fma is compiled only then, an f32 one
 * through f64 where not (jit_translate.c).
 */
extern bool ptx_jit_host_fma;

/*
 * A thread of a compiled kernel: its registers are in the run's regs,
 * register by register (ptx_jit_slot()).  A CTA's first round reads no
 * record of a group of PTX_JIT_LANES (all start at pc 0) and writes none
 * for one that exits there: records start out TS_EXITED (grid.c), but for
 * the last group's when it is partial, which runs thread by thread.
 */
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
	uint64_t *regs;			/* nthreads per register */
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
	 * lane, and with @then_st (@pc a ld_reduce) the st of its results at
	 * @addr after it; 0: refused, nothing changed (the lanes go on one
	 * by one).
	 */
	uint32_t (*multimem)(struct ptx_jit_run *r, uint32_t pc, uint64_t addr,
			     void *buf, uint32_t count, uint32_t then_st);
	/*
	 * mm_defer.c: keeps back the pair of ld_reduce @pc and the st after
	 * it, for the lanes of a warp whose first thread is @index, checked
	 * (0: refused, nothing kept); flush makes those kept, @deferred of
	 * them, before anything else of the CTA touches memory.
	 */
	uint32_t (*defer)(struct ptx_jit_run *r, uint32_t pc, uint32_t index,
			  uint64_t addr, uint32_t count);
	void (*flush)(struct ptx_jit_run *r);
	uint32_t deferred;
	uint32_t nthreads;
	uint32_t first_round;		/* no thread ran: records unread */
	uint32_t ntid[3], ctaid[3], nctaid[3];
	uint32_t exited, arrived;	/* in this round */
	uint32_t polls;			/* ptx_insn_polls() run, this round */
};

/*
 * Where thread @index of @nthreads keeps register @reg while it is
 * stopped.  A register's slots are side by side, so that warp code moves
 * a register of its 32 threads with one vector access, where a thread's
 * registers side by side took 32 stores or loads (a scatter or gather,
 * one element at a time without AVX-512).
 */
static inline size_t ptx_jit_slot(uint32_t reg, uint32_t nthreads,
				  uint32_t index)
{
	return (size_t)reg * nthreads + index;
}

/* A multimem pair kept back (mm_defer.c). */
struct ptx_mm_pair {
	uint64_t addr;
	uint32_t bytes;
	uint32_t pc;		/* of the ld_reduce */
	uint32_t index;		/* the warp's first thread */
	uint32_t seq;		/* the order it came in */
};

/* mm_defer.c: makes the pairs the round kept back; the grid stops on a fault. */
void ptx_mm_flush(struct ptx_jit_run *r);
uint32_t ptx_mm_defer(struct ptx_jit_run *r, uint32_t pc, uint32_t index,
		      uint64_t addr, uint32_t count);
/* jit_run.c: the interpreter's view of thread @index of the run's CTA. */
void ptx_jit_thread_view(const struct ptx_jit_run *r, uint32_t index,
			 struct ptx_thread *t);

/* jit_live.c: whether operand @i of @in is a register @in writes. */
bool ptx_jit_writes(const struct ptx_insn *in, unsigned int i);
/* jit_live.c: whether @in writes register @r (a guarded write too). */
bool ptx_jit_writes_reg(const struct ptx_insn *in, uint32_t r);

/* Calls @fn with each register @in names: its guard's and its operands'. */
static inline void ptx_jit_insn_regs(const struct ptx_insn *in,
				     void (*fn)(void *arg, uint32_t reg),
				     void *arg)
{
	unsigned int i, k;

	if (in->guard != PTX_NO_REG)
		fn(arg, in->guard);
	for (i = 0; i < in->nopnd; i++) {
		const struct ptx_operand *o = &in->o[i];

		if ((o->kind == PO_REG || o->kind == PO_ADDR) &&
		    o->reg != PTX_NO_REG)
			fn(arg, o->reg);
		if (o->kind == PO_VEC)
			for (k = 0; k < o->nvec; k++)
				if (o->vec[k] != PTX_NO_REG)
					fn(arg, o->vec[k]);
	}
}

/*
 * jit_live.c: for each set s < @nsets, @sets[s] (a bit per register)
 * becomes the registers live at any instruction whose @marks have bit s;
 * *@at, malloc'ed, the registers live at each instruction, a set after
 * the other (NULL for a kernel with too many, or when memory ran out).
 * False, the sets untouched and *@at NULL, for a kernel too large to
 * analyze.
 */
bool ptx_jit_live(const struct cumc_ptx_function *fn, const uint8_t *marks,
		  unsigned int nsets, uint64_t *const *sets, uint64_t **at);

/* The 64-bit words of a set of @fn's registers, a bit each. */
static inline size_t ptx_jit_reg_words(const struct cumc_ptx_function *fn)
{
	return fn->nregs / 64 + 1;
}

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
