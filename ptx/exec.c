// SPDX-License-Identifier: MIT
/*
 * The interpreter: one thread's instructions, a slice at a time.  Every
 * register is a 64-bit slot holding its value zero-extended from its
 * type's size; sources are sign-extended where the instruction's type is
 * signed.  Floating point is the host's IEEE arithmetic, with the PTX
 * rounding mode set around the operation when it is not .rn (this file
 * is built with -frounding-math), .ftz applied to inputs and result, and
 * NaN results of f32 operations made the canonical 0x7fffffff the GPU
 * gives.  Integer corner cases the ISA leaves to the hardware (division
 * by zero) answer what exec_int.c documents.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec_int.h"

static uint64_t sreg_value(const struct ptx_exec *x, unsigned int sr)
{
	const struct cumc_ptx_launch *l = x->w->grid->launch;
	const struct ptx_thread *t = x->t;
	unsigned int lane = t->index % PTX_WARP_SIZE;
	struct timespec ts;

	switch (sr) {
	case SR_TID_X: case SR_TID_Y: case SR_TID_Z:
		return t->tid[sr - SR_TID_X];
	case SR_NTID_X: case SR_NTID_Y: case SR_NTID_Z:
		return l->block[sr - SR_NTID_X];
	case SR_CTAID_X: case SR_CTAID_Y: case SR_CTAID_Z:
		return x->cta->ctaid[sr - SR_CTAID_X];
	case SR_NCTAID_X: case SR_NCTAID_Y: case SR_NCTAID_Z:
		return l->grid[sr - SR_NCTAID_X];
	case SR_LANEID:
		return lane;
	case SR_WARPID:
		return t->index / PTX_WARP_SIZE;
	case SR_NWARPID:
		return (x->cta->nthreads + PTX_WARP_SIZE - 1) / PTX_WARP_SIZE;
	case SR_SMID:
		return 0;
	case SR_NSMID:
		return 132;
	case SR_LANEMASK_EQ:
		return 1u << lane;
	case SR_LANEMASK_LT:
		return (1u << lane) - 1;
	case SR_LANEMASK_LE:
		return (2u << lane) - 1;
	case SR_LANEMASK_GT:
		return ~((2u << lane) - 1) & 0xffffffffu;
	case SR_LANEMASK_GE:
		return ~((1u << lane) - 1) & 0xffffffffu;
	default:	/* clocks: nanoseconds of the host */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
	}
}

uint64_t ptx_src(const struct ptx_exec *x, const struct ptx_operand *o)
{
	switch (o->kind) {
	case PO_REG:
		return o->neg ? !x->regs[o->reg] : x->regs[o->reg];
	case PO_SREG:
		return sreg_value(x, o->sreg);
	default:
		return o->imm + (o->frame ? x->t->frame_base : 0);
	}
}

void ptx_dst(struct ptx_exec *x, const struct ptx_operand *o, uint64_t v,
	     unsigned int size)
{
	if (o->kind != PO_REG)
		return;		/* the sink _ */
	x->regs[o->reg] = size >= 8 ? v : v & ((1ull << (size * 8)) - 1);
}

static int guard_passes(const struct ptx_exec *x, const struct ptx_insn *in)
{
	if (in->guard == PTX_NO_REG)
		return 1;
	return !!x->regs[in->guard] != in->guard_neg;
}

/* A warp operation's sources, kept until its lanes have all arrived. */
static void warp_arrive(struct ptx_exec *x, const struct ptx_insn *in)
{
	struct ptx_thread *t = x->t;
	unsigned int first = in->op == OP_SHFL || in->op == OP_MATCH ? 2 :
			     in->op == OP_WARPSYNC ? 0 : 1;
	unsigned int i;

	t->wmask = UINT32_MAX;
	for (i = 0; first + i < in->nopnd; i++) {
		uint64_t v = ptx_src(x, &in->o[first + i]);

		if (first + i == in->nopnd - 1u)
			t->wmask = v;
		else
			t->wv[i] = v;
	}
}

static void frame_free(struct ptx_thread *t)
{
	free(t->regs);
	free(t->params);
}

void ptx_thread_unwind(struct ptx_thread *t)
{
	while (t->depth) {
		const struct ptx_frame *f = &t->frames[--t->depth];

		frame_free(t);
		t->fn = f->fn;
		t->regs = f->regs;
		t->frame_base = f->frame_base;
		t->params = f->params;
	}
	free(t->frames);
	t->frames = NULL;
}

static size_t align16(size_t v)
{
	return (v + 15) & ~(size_t)15;
}

/*
 * An indirect call's callee: the function whose address the register
 * holds, a device function of this module with a body, taking what the
 * call passes.  NULL after a fault: a call through anything else stops
 * the grid, as on a GPU (an address that is no function's faults, a
 * function of another shape traps).
 */
static const struct cumc_ptx_function *
indirect_callee(struct ptx_exec *x, const struct ptx_insn *in,
		const struct ptx_call *c)
{
	const struct cumc_ptx_module *m = x->t->fn->module;
	uint64_t addr = x->regs[c->target];
	const struct cumc_ptx_function *f;
	uint32_t index;

	if (!ptx_func_index(m, addr, &index) || m->funcs[index].entry ||
	    (!m->funcs[index].defined && !m->funcs[index].builtin)) {
		ptx_grid_fault(x->w, x->cta, x->t, CUMC_PTX_EFAULT, addr,
			       in->line);
		return NULL;
	}
	f = &m->funcs[index];
	if (c->nargs != f->nparams - f->nrets || c->nrets > f->nrets) {
		ptx_grid_fault(x->w, x->cta, x->t, CUMC_PTX_ETRAP, addr,
			       in->line);
		return NULL;
	}
	return f;
}

/* A string of the device at @addr, as much of it as may be read. */
static void device_string(struct ptx_exec *x, uint64_t addr, char *buf,
			  size_t size)
{
	const char *p;
	size_t i;

	for (i = 0; i + 1 < size; i++) {
		p = ptx_mem(x->w, x->cta, x->t, PS_GENERIC, addr + i, 1, false);
		if (!p || !*p)
			break;
		buf[i] = *p;
	}
	buf[i] = '\0';
}

/*
 * __assertfail: the message CUDA's device runtime prints for a failed
 * assert(), and the grid stops (CUDA_ERROR_ASSERT, sticky as on a GPU).
 */
static int assertfail(struct ptx_exec *x, const struct ptx_insn *in,
		      const struct ptx_call *c,
		      const struct cumc_ptx_function *callee)
{
	const struct ptx_thread *t = x->t;
	char text[3][256];
	uint64_t arg[5] = { 0 };
	uint32_t i;

	for (i = 0; i < c->nargs && i < 5; i++) {
		size_t at = t->frame_base + c->args[i];

		if (at + callee->params[i].size <= t->local_size)
			memcpy(&arg[i], t->local + at, callee->params[i].size);
	}
	device_string(x, arg[0], text[0], sizeof(text[0]));
	device_string(x, arg[1], text[1], sizeof(text[1]));
	device_string(x, arg[3], text[2], sizeof(text[2]));
	fprintf(stderr,
		"%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n",
		text[1], (uint32_t)arg[2], text[2], x->cta->ctaid[0],
		x->cta->ctaid[1], x->cta->ctaid[2], t->tid[0], t->tid[1],
		t->tid[2], text[0]);
	ptx_grid_fault(x->w, x->cta, x->t, CUMC_PTX_EASSERT, 0, in->line);
	return -1;
}

/*
 * call: a frame for the callee, with registers and a parameter buffer of
 * its own (results first, then arguments, as its .param list declares
 * them), its local variables on the thread's stack above the caller's;
 * the arguments are copied in from the caller's .param variables.  -1
 * after a fault.
 */
static int call(struct ptx_exec *x, const struct ptx_insn *in)
{
	struct ptx_thread *t = x->t;
	const struct ptx_call *c = &t->fn->calls[in->o[0].imm];
	const struct cumc_ptx_function *callee = &t->fn->module->funcs[c->callee];
	size_t base = align16(t->frame_base + t->fn->local_size);
	struct ptx_frame *f;
	unsigned char *params;
	uint64_t *regs;
	uint32_t i;

	if (c->target != PTX_NO_REG) {
		callee = indirect_callee(x, in, c);
		if (!callee)
			return -1;
	}
	if (callee->builtin == PTX_BUILTIN_ASSERTFAIL)
		return assertfail(x, in, c, callee);
	if (t->depth >= PTX_MAX_DEPTH || base > t->local_size ||
	    callee->local_size > t->local_size - base) {
		ptx_grid_fault(x->w, x->cta, t, CUMC_PTX_ETRAP, 0, in->line);
		return -1;	/* the stack overflows */
	}
	if (!t->frames) {
		t->frames = calloc(PTX_MAX_DEPTH, sizeof(*t->frames));
		if (!t->frames)
			goto nomem;
	}
	regs = calloc(callee->nregs ? callee->nregs : 1, sizeof(uint64_t));
	params = calloc(1, callee->param_size ? callee->param_size : 1);
	if (!regs || !params) {
		free(regs);
		free(params);
		goto nomem;
	}
	for (i = 0; i < c->nargs; i++) {
		const struct ptx_param *p = &callee->params[callee->nrets + i];
		size_t at = t->frame_base + c->args[i];

		if (at + p->size > t->local_size) {
			free(regs);
			free(params);
			ptx_grid_fault(x->w, x->cta, t, CUMC_PTX_EFAULT, at,
				       in->line);
			return -1;
		}
		memcpy(params + p->offset, t->local + at, p->size);
	}
	memset(t->local + base, 0, callee->local_size);
	f = &t->frames[t->depth++];
	f->fn = t->fn;
	f->pc = t->pc;
	f->regs = t->regs;
	f->frame_base = t->frame_base;
	f->params = t->params;
	t->fn = callee;
	t->regs = x->regs = regs;
	t->frame_base = base;
	t->params = params;
	t->pc = 0;
	return 0;
nomem:
	ptx_grid_fault(x->w, x->cta, t, CUMC_PTX_ENOMEM, 0, in->line);
	return -1;
}

/* ret from a device function: its results to the caller's variables. */
static int ret(struct ptx_exec *x, const struct ptx_insn *in)
{
	struct ptx_thread *t = x->t;
	const struct ptx_frame *f = &t->frames[t->depth - 1];
	const struct ptx_call *c = &f->fn->calls[f->fn->insns[f->pc].o[0].imm];
	const struct cumc_ptx_function *callee = t->fn;
	uint32_t i;

	for (i = 0; i < c->nrets && i < callee->nrets; i++) {
		const struct ptx_param *p = &callee->params[i];
		size_t at = f->frame_base + c->rets[i];

		if (at + p->size > t->local_size) {
			ptx_grid_fault(x->w, x->cta, t, CUMC_PTX_EFAULT, at,
				       in->line);
			return -1;
		}
		memcpy(t->local + at, t->params + p->offset, p->size);
	}
	frame_free(t);
	t->depth--;
	t->fn = f->fn;
	t->regs = x->regs = f->regs;
	t->frame_base = f->frame_base;
	t->params = f->params;
	t->pc = f->pc + 1;
	return 0;
}

static enum ptx_slice step(struct ptx_exec *x, const struct ptx_insn *in)
{
	switch (in->op) {
	case OP_BRA:
		x->t->pc = in->o[0].imm;
		return SL_BUDGET;
	case OP_RET:
		if (x->t->depth)
			return ret(x, in) ? SL_FAULT : SL_BUDGET;
		return SL_EXIT;
	case OP_EXIT:
		return SL_EXIT;
	case OP_CALL:
		return call(x, in) ? SL_FAULT : SL_BUDGET;
	case OP_BAR:
		return ptx_bar_arrive(x, in);
	case OP_TRAP:
		ptx_grid_fault(x->w, x->cta, x->t, CUMC_PTX_ETRAP, 0, in->line);
		return SL_FAULT;
	case OP_MEMBAR:
		atomic_thread_fence(memory_order_seq_cst);
		break;
	case OP_SHFL: case OP_VOTE: case OP_MATCH: case OP_REDUX:
	case OP_ACTIVEMASK: case OP_WARPSYNC:
		warp_arrive(x, in);
		return SL_WARP;	/* the pc moves on when the warp op completes */
	case OP_LD: case OP_ST: case OP_ATOM: case OP_RED: case OP_CVTA:
	case OP_MULTIMEM:
		if (ptx_exec_memory(x, in))
			return SL_FAULT;
		break;
	default:
		if ((ptx_type_half(in->type) || ptx_type_half(in->type2)) &&
		    in->op != OP_MOV && in->op != OP_SELP)
			ptx_exec_half(x, in);
		else if (in->type.cls == PC_F || in->type2.cls == PC_F)
			ptx_exec_float(x, in);
		else
			ptx_exec_int(x, in);
	}
	x->t->pc++;
	return SL_BUDGET;
}

enum ptx_slice ptx_run(struct ptx_worker *w, struct ptx_cta *cta,
		       struct ptx_thread *t, unsigned int budget)
{
	struct ptx_exec x = { .w = w, .cta = cta, .t = t, .regs = t->regs };
	enum ptx_slice r;

	while (budget--) {
		const struct ptx_insn *in = &t->fn->insns[t->pc];

		if (!guard_passes(&x, in)) {
			t->pc++;
			continue;
		}
		r = step(&x, in);
		if (r != SL_BUDGET)
			return r;
		if (ptx_insn_polls(in)) {
			w->polled = true;
			budget -= budget < PTX_POLL_COST - 1 ? budget :
				  PTX_POLL_COST - 1;
		}
	}
	return SL_BUDGET;
}
