// SPDX-License-Identifier: MIT
/*
 * Which registers a stopped thread keeps: those live where it may resume.
 *
 * A thread of a compiled kernel stops (its slice spent, at bar.sync, or
 * handed from warp code to the per-thread code) only at the start of a
 * translated block, and its registers then wait in their slots.  A
 * register whose value no path from there reads before writing it need
 * not wait: the all-reduce kernel has 130 registers, and 11 are live
 * where its barriers let threads go.  The classic backward analysis over
 * the kernel's basic blocks finds them; the translator saves and restores
 * the union of the live registers of the places a set of stops resumes at,
 * and warp code, handing its threads on at one instruction, saves those
 * live there.
 *
 * Nothing here needs LLVM.
 */
#include <stdlib.h>
#include <string.h>

#include "jit.h"

/*
 * Past this many bytes of per-block sets a kernel keeps every register
 * (as before the analysis): a kernel that large spends its time elsewhere.
 */
#define LIVE_MAX_BYTES (32u << 20)

struct live {
	const struct cumc_ptx_function *fn;
	size_t words;		/* 64-bit words a set of registers takes */
	uint64_t *in;		/* per block: live at its first instruction */
	uint64_t *cur;		/* the set being walked back through a block */
};

static void reg_add(uint64_t *set, uint32_t r)
{
	set[r / 64] |= 1ull << (r % 64);
}

static void reg_remove(uint64_t *set, uint32_t r)
{
	set[r / 64] &= ~(1ull << (r % 64));
}

bool ptx_jit_writes(const struct ptx_insn *in, unsigned int i)
{
	switch (in->op) {
	case OP_ST: case OP_RED: case OP_BRA: case OP_RET: case OP_EXIT:
	case OP_MEMBAR: case OP_TRAP:
		return false;
	case OP_BAR:
		return i == 0 && in->wmode == BAR_RED;
	case OP_MULTIMEM:
		return i == 0 && in->wmode == CUMC_PTX_MM_LD_REDUCE;
	case OP_SETP:
		return i <= 1;
	default:
		return i == 0;
	}
}

bool ptx_jit_writes_reg(const struct ptx_insn *in, uint32_t r)
{
	const struct ptx_operand *o;
	unsigned int i, k;

	for (i = 0; i < in->nopnd; i++) {
		o = &in->o[i];
		if (!ptx_jit_writes(in, i) || o->kind == PO_ADDR)
			continue;
		if (o->kind == PO_REG && o->reg == r)
			return true;
		for (k = 0; o->kind == PO_VEC && k < o->nvec; k++)
			if (o->vec[k] == r)
				return true;
	}
	return false;
}

/* @fn on each register of operand @o. */
static void operand_regs(const struct ptx_operand *o, uint64_t *set,
			 void (*fn)(uint64_t *set, uint32_t r))
{
	unsigned int k;

	if ((o->kind == PO_REG || o->kind == PO_ADDR) && o->reg != PTX_NO_REG)
		fn(set, o->reg);
	for (k = 0; o->kind == PO_VEC && k < o->nvec; k++)
		if (o->vec[k] != PTX_NO_REG)
			fn(set, o->vec[k]);
}

/*
 * @set, live after @in, becomes what is live before it.  A destination
 * is only a write when nothing guards it (a guarded write may leave the
 * old value); an address is always a read.
 */
static void step_back(const struct ptx_insn *in, uint64_t *set)
{
	unsigned int i;

	for (i = 0; in->guard == PTX_NO_REG && i < in->nopnd; i++)
		if (ptx_jit_writes(in, i) && in->o[i].kind != PO_ADDR)
			operand_regs(&in->o[i], set, reg_remove);
	for (i = 0; i < in->nopnd; i++)
		if (!ptx_jit_writes(in, i) || in->o[i].kind == PO_ADDR)
			operand_regs(&in->o[i], set, reg_add);
	if (in->guard != PTX_NO_REG)
		reg_add(set, in->guard);
}

static uint32_t block_of(const struct cumc_ptx_function *fn, uint32_t pc)
{
	uint32_t lo = 0, hi = fn->nblocks;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (fn->block_starts[mid] <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static uint32_t block_end(const struct cumc_ptx_function *fn, uint32_t b)
{
	return b + 1 < fn->nblocks ? fn->block_starts[b + 1] : fn->ninsns;
}

static void set_or(uint64_t *to, const uint64_t *from, size_t words)
{
	size_t i;

	for (i = 0; i < words; i++)
		to[i] |= from[i];
}

/* l->cur: live after block @b, the union of what its successors need. */
static void live_out(struct live *l, uint32_t b)
{
	const struct cumc_ptx_function *fn = l->fn;
	uint32_t end = block_end(fn, b);
	const struct ptx_insn *last = &fn->insns[end - 1];
	bool falls = true;

	memset(l->cur, 0, l->words * sizeof(uint64_t));
	if (last->op == OP_BRA) {
		set_or(l->cur, &l->in[block_of(fn, last->o[0].imm) * l->words],
		       l->words);
		falls = last->guard != PTX_NO_REG;
	} else if (last->op == OP_RET || last->op == OP_EXIT ||
		   last->op == OP_TRAP) {
		falls = last->guard != PTX_NO_REG;
	}
	if (falls && end < fn->ninsns)
		set_or(l->cur, &l->in[(b + 1) * l->words], l->words);
}

/* Each block's live-in, until no block's changes. */
static void solve(struct live *l)
{
	const struct cumc_ptx_function *fn = l->fn;
	bool changed = true;
	uint32_t b, pc;

	while (changed) {
		changed = false;
		for (b = fn->nblocks; b-- > 0;) {
			live_out(l, b);
			for (pc = block_end(fn, b); pc-- > fn->block_starts[b];)
				step_back(&fn->insns[pc], l->cur);
			if (memcmp(l->cur, &l->in[b * l->words],
				   l->words * sizeof(uint64_t))) {
				memcpy(&l->in[b * l->words], l->cur,
				       l->words * sizeof(uint64_t));
				changed = true;
			}
		}
	}
}

bool ptx_jit_live(const struct cumc_ptx_function *fn, const uint8_t *marks,
		  unsigned int nsets, uint64_t *const *sets, uint64_t **at)
{
	struct live l = { .fn = fn, .words = ptx_jit_reg_words(fn) };
	unsigned int s;
	uint32_t b, pc;

	*at = NULL;
	if (!fn->nblocks || fn->nblocks > LIVE_MAX_BYTES / 8 / l.words)
		return false;
	if (fn->ninsns <= LIVE_MAX_BYTES / 8 / l.words)
		*at = malloc((size_t)fn->ninsns * l.words * sizeof(uint64_t));
	l.in = calloc((size_t)fn->nblocks * l.words, sizeof(uint64_t));
	l.cur = calloc(l.words, sizeof(uint64_t));
	if (!l.in || !l.cur) {
		free(l.in);
		free(l.cur);
		free(*at);
		*at = NULL;
		return false;
	}
	solve(&l);
	for (s = 0; s < nsets; s++)
		memset(sets[s], 0, l.words * sizeof(uint64_t));
	for (b = 0; b < fn->nblocks; b++) {
		live_out(&l, b);
		for (pc = block_end(fn, b); pc-- > fn->block_starts[b];) {
			step_back(&fn->insns[pc], l.cur);
			if (*at)
				memcpy(&(*at)[pc * l.words], l.cur,
				       l.words * sizeof(uint64_t));
			for (s = 0; s < nsets; s++)
				if (marks[pc] & (1u << s))
					set_or(sets[s], l.cur, l.words);
		}
	}
	free(l.in);
	free(l.cur);
	return true;
}
