// SPDX-License-Identifier: MIT
/*
 * The sixteen barriers of a CTA (bar, barrier).  Each counts the threads
 * that arrived since it last completed, against the thread count of the
 * instruction (b) or, without one, every thread of the CTA not exited.
 * A thread at .sync or .red waits until its barrier completes; .arrive
 * counts and goes on.  .red's reductions are gathered as threads arrive
 * and written to each waiting thread's destination at completion.
 * Threads count one by one, not warp by warp, so the lanes of a warp may
 * arrive through different instructions (barrier.sync after a divergent
 * branch), as on sm_70 and later.
 */
#include <string.h>

#include "exec_int.h"

static bool complete(const struct ptx_cta *cta, const struct ptx_barrier *b)
{
	return b->arrived >= (b->expected ? b->expected : cta->live);
}

/* Lets the threads waiting at barrier @id go, with .red's result. */
static void release(struct ptx_cta *cta, unsigned int id)
{
	struct ptx_barrier *b = &cta->bars[id];
	unsigned int i;

	for (i = 0; i < cta->nthreads; i++) {
		struct ptx_thread *t = &cta->threads[i];
		const struct ptx_insn *in;

		if (t->state != TS_BARRIER || t->bar != id)
			continue;
		in = &t->fn->insns[t->pc - 1];
		if (in->wmode == BAR_RED && in->o[0].kind == PO_REG)
			t->regs[in->o[0].reg] = in->aop == AOP_POPC ? b->popc :
						in->aop == AOP_AND ? b->all :
						b->any;
		t->state = TS_RUN;
	}
	memset(b, 0, sizeof(*b));
	cta->bars_pending &= ~(1u << id);
}

void ptx_bar_check(struct ptx_cta *cta)
{
	unsigned int pending = cta->bars_pending;

	while (pending) {
		unsigned int id = __builtin_ctz(pending);

		pending &= pending - 1;
		if (complete(cta, &cta->bars[id]))
			release(cta, id);
	}
}

enum ptx_slice ptx_bar_arrive(struct ptx_exec *x, const struct ptx_insn *in)
{
	bool red = in->wmode == BAR_RED;
	unsigned int first = red, given = in->nopnd - red - red;
	uint64_t id = ptx_src(x, &in->o[first]);
	uint64_t count = given > 1 ? ptx_src(x, &in->o[first + 1]) : 0;
	struct ptx_barrier *b;

	/* Undefined in the ISA; a GPU would hang or misbehave: a trap. */
	if (id >= PTX_BARRIERS ||
	    (given > 1 && (!count || count % PTX_WARP_SIZE || count > 1024))) {
		ptx_grid_fault(x->w, x->cta, x->t, CUMC_PTX_ETRAP, 0, in->line);
		return SL_FAULT;
	}
	b = &x->cta->bars[id];
	if (!b->arrived) {
		b->expected = count;
		b->all = true;
	}
	b->arrived++;
	if (red) {
		bool p = ptx_src(x, &in->o[in->nopnd - 1]);

		b->popc += p;
		b->all &= p;
		b->any |= p;
	}
	x->cta->bars_pending |= 1u << id;
	x->t->pc++;
	if (in->wmode != BAR_ARRIVE) {
		x->t->state = TS_BARRIER;
		x->t->bar = id;
	}
	if (complete(x->cta, b))
		release(x->cta, id);
	return in->wmode == BAR_ARRIVE ? SL_BUDGET : SL_BARRIER;
}
