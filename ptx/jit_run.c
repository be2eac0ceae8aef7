// SPDX-License-Identifier: MIT
/*
 * What compiled code calls as it runs (struct ptx_jit_run's mem, step and
 * multimem; defer and flush are mm_defer.c's): mem.c for an access its
 * inline checks did not allow, the interpreter for an instruction the
 * translator left to it, the multicast path for a warp's multimem.
 */
#include <string.h>

#include "jit.h"

/*
 * The interpreter's view of thread @index of the run's CTA; its registers
 * are the worker's copies, which jit_step() exchanges with the slots.
 */
void ptx_jit_thread_view(const struct ptx_jit_run *r, uint32_t index,
			 struct ptx_thread *t)
{
	const struct cumc_ptx_function *fn = r->w->grid->fn;
	uint32_t x = r->ntid[0], y = r->ntid[1];

	memset(t, 0, sizeof(*t));
	t->fn = fn;
	t->regs = r->w->jit_regs;
	t->local = r->local + (size_t)index * r->local_size;
	t->local_size = r->local_size;
	t->params = (unsigned char *)r->params;
	t->index = index;
	t->tid[0] = index % x;
	t->tid[1] = index / x % y;
	t->tid[2] = index / x / y;
}

static void *jit_mem(struct ptx_jit_run *r, uint32_t index, uint32_t pc,
		     uint64_t addr, uint32_t size, uint32_t write, uint32_t site)
{
	const struct ptx_insn *in = &r->w->grid->fn->insns[pc];
	struct ptx_thread t;
	unsigned int i;
	void *p;

	ptx_jit_thread_view(r, index, &t);
	p = ptx_mem(r->w, r->cta, &t, in->space, addr, size, write);
	if (!p) {
		ptx_grid_fault(r->w, r->cta, &t, CUMC_PTX_EFAULT, addr, in->line);
		return NULL;
	}
	/* device memory: its range serves this instruction's next accesses */
	for (i = 0; site != UINT32_MAX && i < PTX_RANGES; i++) {
		const struct ptx_range *g = &r->w->ranges[i];

		if (g->hi && addr >= g->lo && addr <= g->hi &&
		    size <= g->hi - addr && (g->write || !write)) {
			r->sites[site].lo = g->lo;
			r->sites[site].hi = g->hi;
			break;
		}
	}
	return p;
}

/* A register's slot and the interpreter's copy of it, one way or the other. */
struct slot_copy {
	const struct ptx_jit_run *r;
	uint32_t index;
	bool to_slots;
};

static void copy_reg(void *arg, uint32_t reg)
{
	const struct slot_copy *c = arg;
	uint64_t *slot = &c->r->regs[ptx_jit_slot(reg, c->r->nthreads,
						  c->index)];

	if (c->to_slots)
		*slot = c->r->w->jit_regs[reg];
	else
		c->r->w->jit_regs[reg] = *slot;
}

/* The instruction's registers, all it reads or writes, go through copies. */
static uint32_t jit_step(struct ptx_jit_run *r, uint32_t index, uint32_t pc)
{
	const struct ptx_insn *in = &r->w->grid->fn->insns[pc];
	struct slot_copy c = { .r = r, .index = index };
	struct ptx_thread t;
	uint32_t fault;

	/* the interpreter's instruction is ordered after what was kept back */
	if (r->deferred)
		ptx_mm_flush(r);
	ptx_jit_thread_view(r, index, &t);
	t.pc = pc;
	ptx_jit_insn_regs(in, copy_reg, &c);
	fault = ptx_run(r->w, r->cta, &t, 1) == SL_FAULT;
	c.to_slots = true;
	ptx_jit_insn_regs(in, copy_reg, &c);
	return fault;
}

static uint32_t jit_multimem(struct ptx_jit_run *r, uint32_t pc, uint64_t addr,
			     void *buf, uint32_t count, uint32_t then_st)
{
	const struct ptx_insn *in = &r->w->grid->fn->insns[pc];

	return ptx_multimem_access(r->w, in, then_st ?
				   CUMC_PTX_MM_LD_REDUCE_ST : in->wmode,
				   addr, buf, count);
}

void ptx_jit_prepare(struct ptx_jit_run *r)
{
	r->mem = jit_mem;
	r->step = jit_step;
	r->multimem = jit_multimem;
	r->defer = ptx_mm_defer;
	r->flush = ptx_mm_flush;
}
