// SPDX-License-Identifier: MIT
/*
 * multimem pairs kept back.  Warp code makes an all-reduce's ld_reduce
 * and the st of its sums one call of the multicast path a warp
 * (jit_warp.c): 512 bytes of .v4.f32, the CTA's warps at a stride of the
 * CTA's width and one after the other, so that each call pays the path's
 * checks and lookup, and each warp walks the members' pages again.  Where
 * the pair's values are dead after the st and neither instruction orders
 * memory, the worker checks the access at once (refused, the lanes go on
 * one by one as before) and keeps it back; before the CTA's next
 * instruction that touches memory or orders it (the translator puts a
 * flush there, and the interpreter's instructions flush in jit_run.c) and
 * at the end of the CTA's round, the pairs kept are made in address
 * order, those whose ranges follow each other in one call.
 *
 * A relaxed access of one thread is ordered with no other thread's but
 * through a fence, a barrier or a stronger order, nor with its own to
 * other addresses, and all of those flush first: what changes is only
 * the order of the pairs among themselves.  Two pairs whose ranges
 * overlap are made in the order they came.
 */
#include <stdlib.h>

#include "jit.h"

/* Pairs a round keeps at most: a CTA of 1024 threads' 32 warps, 32 times. */
#define PTX_MM_PAIRS 1024
/* The sums of one call of the multicast path, at most. */
#define PTX_MM_SUMS (64u << 10)

static const struct ptx_insn *pair_insn(const struct ptx_jit_run *r,
					const struct ptx_mm_pair *p)
{
	return &r->w->grid->fn->insns[p->pc];
}

/* The pair's thread faults at its address: the multicast path refused it. */
static void pair_fault(struct ptx_jit_run *r, const struct ptx_mm_pair *p)
{
	struct ptx_thread t;

	ptx_jit_thread_view(r, p->index, &t);
	ptx_grid_fault(r->w, r->cta, &t, CUMC_PTX_EFAULT, p->addr,
		       pair_insn(r, p)->line);
}

/* The pairs of @bytes from @p's address, in one call, as @p's instruction. */
static bool pair_make(struct ptx_jit_run *r, const struct ptx_mm_pair *p,
		      uint64_t bytes)
{
	const struct ptx_insn *in = pair_insn(r, p);

	return ptx_multimem_access(r->w, in, CUMC_PTX_MM_LD_REDUCE_ST, p->addr,
				   r->w->mem.mm_sums, bytes / in->type.size);
}

/*
 * @p[0..n) in address order, equal addresses in the order they came: the
 * runs of rising addresses they came in (each warp's loop walks up) merged
 * two by two, between @p and @spare; the one of the two holding them.
 */
static struct ptx_mm_pair *pairs_sort(struct ptx_mm_pair *p,
				      struct ptx_mm_pair *spare, uint32_t n)
{
	uint32_t starts[PTX_MM_PAIRS + 1], nruns = 1, i, k, a, b, mid, end;
	struct ptx_mm_pair *swap;

	starts[0] = 0;
	for (i = 1; i < n; i++)
		if (p[i].addr < p[i - 1].addr)
			starts[nruns++] = i;
	starts[nruns] = n;
	while (nruns > 1) {
		for (k = 0; k < nruns; k += 2) {
			a = starts[k];
			b = mid = starts[k + 1];
			end = k + 2 <= nruns ? starts[k + 2] : n;
			for (i = a; i < end; i++)
				spare[i] = b == end ||
					   (a < mid && p[a].addr <= p[b].addr) ?
					   p[a++] : p[b++];
			starts[k / 2] = starts[k];
		}
		nruns = (nruns + 1) / 2;
		starts[nruns] = n;
		swap = p;
		p = spare;
		spare = swap;
	}
	return p;
}

/* Whether pair @b begins where @a ends, made by the same instruction. */
static bool pairs_follow(const struct ptx_mm_pair *a,
			 const struct ptx_mm_pair *b)
{
	return a->pc == b->pc && a->addr + a->bytes == b->addr;
}

/* Pairs @p[0..n) one by one; false at the first refused (it faults). */
static bool pairs_each(struct ptx_jit_run *r, const struct ptx_mm_pair *p,
		       uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (!pair_make(r, &p[i], p[i].bytes)) {
			pair_fault(r, &p[i]);
			return false;
		}
	return true;
}

/*
 * The pairs from @p[0] that follow each other, as many as one call's sums
 * hold (a pair is at most a warp's 32 lanes of 4 values of 8 bytes), in
 * one call; pair by pair where the path takes the range in pieces only
 * (it spans two mappings).  How many were made; fewer than the run's at a
 * refused one (it faults).
 */
static uint32_t pairs_run(struct ptx_jit_run *r, const struct ptx_mm_pair *p,
			  uint32_t n)
{
	uint64_t bytes = p[0].bytes;
	uint32_t j;

	for (j = 1; j < n && pairs_follow(&p[j - 1], &p[j]) &&
		    bytes + p[j].bytes <= PTX_MM_SUMS; j++)
		bytes += p[j].bytes;
	if (pair_make(r, p, bytes) || pairs_each(r, p, j))
		return j;
	return 0;
}

/* Whether two of @p[0..n), in address order, overlap. */
static bool pairs_overlap(const struct ptx_mm_pair *p, uint32_t n)
{
	uint32_t i;

	for (i = 1; i < n; i++)
		if (p[i - 1].addr + p[i - 1].bytes > p[i].addr)
			return true;
	return false;
}

void ptx_mm_flush(struct ptx_jit_run *r)
{
	struct ptx_mm_pair *came = r->w->mem.mm_pairs, *p;
	uint32_t n = r->deferred, i, made;

	r->deferred = 0;
	p = pairs_sort(came, came + PTX_MM_PAIRS, n);
	if (pairs_overlap(p, n)) {
		/* back in the order they came, in the other buffer */
		came = p == came ? came + PTX_MM_PAIRS : came;
		for (i = 0; i < n; i++)
			came[p[i].seq] = p[i];
		pairs_each(r, came, n);
		return;
	}
	for (i = 0; i < n; i += made) {
		made = pairs_run(r, &p[i], n - i);
		if (!made)
			return;
	}
}

/*
 * Whether the multicast path makes the pair of @in at @addr, asking it only
 * outside the range its last answer covers (the JIT checked the alignment).
 */
static bool pair_checked(struct ptx_worker *w, const struct ptx_insn *in,
			 uint64_t addr, uint32_t count)
{
	struct ptx_mm_checked *c = &w->mm_checked;
	uint64_t bytes = (uint64_t)count * in->type.size, range[2];

	if (c->type == in->mmtype && c->op == in->aop && addr >= c->lo &&
	    addr < c->hi && bytes <= c->hi - addr)
		return true;
	if (!ptx_multimem_access(w, in, CUMC_PTX_MM_CHECK_LD_REDUCE_ST, addr,
				 range, count))
		return false;
	*c = (struct ptx_mm_checked){ .lo = range[0], .hi = range[1],
				      .type = in->mmtype, .op = in->aop };
	return true;
}

uint32_t ptx_mm_defer(struct ptx_jit_run *r, uint32_t pc, uint32_t index,
		      uint64_t addr, uint32_t count)
{
	struct ptx_worker *w = r->w;
	const struct ptx_insn *in = &w->grid->fn->insns[pc];
	struct ptx_mm_pair *p;

	if (!w->mem.mm_pairs) {
		w->mem.mm_pairs = malloc(2 * PTX_MM_PAIRS * sizeof(*w->mem.mm_pairs));
		w->mem.mm_sums = malloc(PTX_MM_SUMS);
		if (!w->mem.mm_pairs || !w->mem.mm_sums) {
			free(w->mem.mm_pairs);
			free(w->mem.mm_sums);
			w->mem.mm_pairs = NULL;
			w->mem.mm_sums = NULL;
			return 0;	/* the lanes go on one by one */
		}
	}
	if (r->deferred == PTX_MM_PAIRS)
		ptx_mm_flush(r);
	if (!pair_checked(w, in, addr, count))
		return 0;
	p = &w->mem.mm_pairs[r->deferred];
	p->addr = addr;
	p->bytes = count * in->type.size;
	p->pc = pc;
	p->index = index;
	p->seq = r->deferred++;
	return 1;
}
