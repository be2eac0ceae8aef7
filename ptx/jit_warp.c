// SPDX-License-Identifier: MIT
/*
 * Threads that have not run yet, and threads that bar.sync let go of
 * together, run PTX_JIT_LANES at a time first, as the lanes of vectors
 * ("warp code"): guards and branches the lanes agree on are the
 * group's, one check of a group's addresses serves its lanes' accesses,
 * consecutive elements are one vector access, and a multimem of
 * consecutive elements one call of the multicast path; anything else
 * hands the lanes to the per-thread code, each thread from its own pc
 * with its registers in its slots.  Where an index is lane 0's plus the
 * lane's multiple of a stride (tid.x and what integer arithmetic makes
 * of it: a "lane form"), warp code computes lane 0's alone and knows the
 * lanes' addresses consecutive without comparing them.
 *
 * The round (jit_translate.c) runs a warp's code in place of its threads'
 * where they stand together; lane forms are jit_forms.c's.
 */
#include <stddef.h>

#include "jit_tr.h"

/*
 * Warp code's prefetch, ahead of a consecutive access, and its locality
 * (LLVM's: 2, the second-level cache).  64 KiB ahead into the L2 measured
 * best on bench_ptx's vec_add (0.32 of the C loop; 16 KiB into the L1,
 * 0.29; 4 KiB, 0.21; none, 0.19): the pages ahead are walked before the
 * accesses reach them.
 */
#define PTX_JIT_PREFETCH 65536
#define PTX_JIT_LOCALITY 2

bool ptx_jit_warp_native(const struct cumc_ptx_function *fn,
			 const struct ptx_insn *in)
{
	const struct ptx_operand *a = &in->o[in->op == OP_ST ? 0 : 1];
	unsigned int n = 1;

	/* warp_multimem(), or the lanes one by one from there */
	if (in->op == OP_MULTIMEM)
		return true;
	if (!ptx_jit_native(in) || in->op == OP_BAR)
		return false;
	if (in->op == OP_CVTA)
		return in->space != PS_LOCAL;
	if (in->op != OP_LD && in->op != OP_ST)
		return true;
	if (in->space == PS_LOCAL)
		return false;
	if (in->space != PS_PARAM)
		return true;
	/* a parameter at a fixed offset: the same load for every lane */
	if (in->o[0].kind == PO_VEC)
		n = in->o[0].nvec;
	return a->reg == PTX_NO_REG && !a->global &&
	       !(a->imm & (in->type.size * n - 1)) &&
	       a->imm <= fn->param_size &&
	       in->type.size * n <= fn->param_size - a->imm;
}

/*
 * The slots of the warp's threads, lane l's thread idx + l: a register's
 * are side by side (ptx_jit_slot()), one vector access for the lanes.
 */
static void warp_slot_row(struct tr *t, struct slot_row *row)
{
	ptx_jit_slot_row(t, ptx_jit_llvm.LLVMBuildExtractElement(t->b, t->idx,
		ptx_jit_cint(t->s32, 0), ""), row);
}

/* The lanes of register @r from the warp's threads' slots. */
static void load_reg(const struct slot_row *row, uint32_t r)
{
	struct tr *t = row->t;
	LLVMValueRef v = ptx_jit_llvm.LLVMBuildLoad2(t->b, t->i64,
		ptx_jit_typed_ptr(t, ptx_jit_slot_in(row, r), t->i64), "");

	ptx_jit_llvm.LLVMSetAlignment(v, 8);
	ptx_jit_set_reg(t, r, v);
}

/* Register @r's lanes to the warp's threads' slots. */
static void store_reg(const struct slot_row *row, uint32_t r)
{
	struct tr *t = row->t;
	LLVMValueRef st = ptx_jit_llvm.LLVMBuildStore(t->b, ptx_jit_reg(t, r),
		ptx_jit_typed_ptr(t, ptx_jit_slot_in(row, r), t->i64));

	ptx_jit_llvm.LLVMSetAlignment(st, 8);
}

/*
 * The warp's threads stop, each at its pc in @pcs, one of @pc and @other:
 * the registers live at either go to their slots here, where the code
 * stepped out, so that none is kept live along warp code for the stops,
 * as a join of them all would (the registers would stay in memory,
 * stored again at every access).
 */
static void save_lanes(struct tr *t, LLVMValueRef pcs, uint32_t pc,
		       uint32_t other)
{
	struct slot_row row;
	uint32_t r;

	ptx_jit_forms_flush(t);
	warp_slot_row(t, &row);
	for (r = 0; r < t->fn->nregs; r++)
		if (ptx_jit_live_in(t, pc, r) || ptx_jit_live_in(t, other, r))
			store_reg(&row, r);
	ptx_jit_llvm.LLVMBuildStore(t->b, pcs, t->vpc);
}

/* The threads go on one by one, each from its pc in @pcs (save_lanes()). */
static void hand_off(struct tr *t, LLVMValueRef pcs, uint32_t pc,
		     uint32_t other)
{
	save_lanes(t, pcs, pc, other);
	ptx_jit_llvm.LLVMBuildBr(t->b, t->handoff);
}

void ptx_jit_hand_off(struct tr *t, uint32_t pc)
{
	hand_off(t, ptx_jit_cint(t->i32, pc), pc, pc);
}

static LLVMValueRef reduce(struct tr *t, const char *op, LLVMValueRef v)
{
	return ptx_jit_intrinsic(t, op, ptx_jit_llvm.LLVMTypeOf(v), &v, 1);
}

/* Lane @l's address @x in @in's space, as a host pointer. */
static LLVMValueRef lane_ptr(struct tr *t, const struct ptx_insn *in,
			     LLVMValueRef shared, LLVMValueRef x)
{
	if (in->space == PS_SHARED)
		return ptx_jit_byte_ptr(t, shared, x);
	return ptx_jit_llvm.LLVMBuildIntToPtr(t->b, x, t->p8, "");
}

/*
 * The memory the next warps will reach if they go on as this one: the
 * loop of a warp's code is too long for the processor to have many
 * misses in flight, as a plain loop has.
 */
static void prefetch(struct tr *t, LLVMValueRef p, bool write)
{
	LLVMValueRef args[4] = {
		ptx_jit_byte_ptr(t, p, ptx_jit_cint(t->s64, PTX_JIT_PREFETCH)),
		ptx_jit_cint(t->s32, write),
		ptx_jit_cint(t->s32, PTX_JIT_LOCALITY), ptx_jit_cint(t->s32, 1)
	};

	ptx_jit_intrinsic(t, "llvm.prefetch", t->p8, args, 4);
}

/*
 * A parameter at a fixed offset (ptx_jit_warp_native()), read once for the
 * warp.
 */
static void warp_param_load(struct tr *t, const struct ptx_insn *in)
{
	const struct ptx_operand *v = &in->o[0];
	unsigned int size = in->type.size, n = v->kind == PO_VEC ? v->nvec : 1;
	LLVMValueRef base =
		ptx_jit_load_field(t, t->run, RUN_FIELD(params), t->p8);
	LLVMTypeRef ety = ptx_jit_int_type(t, size);
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint32_t r = v->kind == PO_VEC ? v->vec[i] : v->reg;
		LLVMValueRef ep;

		if (r == PTX_NO_REG)
			continue;
		ep = ptx_jit_typed_ptr(t, ptx_jit_byte_ptr(t, base,
			ptx_jit_cint(t->s64, in->o[1].imm + i * size)), ety);
		ptx_jit_set_loaded(t, in, r, ptx_jit_uniform(t,
			ptx_jit_llvm.LLVMBuildLoad2(t->b, ety, ep, "")));
	}
}

/*
 * ld and st for the lanes of a warp.  Where the lanes' elements are
 * consecutive (lane l at the first lane's address + l * size), the check
 * of the whole span against the window or the device range the
 * instruction reached before is the per-thread code's check, once, and
 * the access is one vector access; else the lowest and the highest
 * lane's addresses are checked and each lane makes its access.  An
 * access outside goes to the per-thread code, which makes it through
 * mem.c (faulting as the interpreter does).
 */
struct warp_access {
	const struct ptx_insn *in;
	const struct ptx_operand *v;	/* the value(s) */
	LLVMValueRef addr, shared, lim_lo, lim_hi;
	unsigned int size, n;
	LLVMTypeRef ety, vty;
	LLVMBasicBlockRef outside;	/* to the per-thread code */
};

/* Goes on where @ok holds, else to the per-thread code. */
static void warp_check(struct tr *t, const struct warp_access *w,
		       LLVMValueRef ok)
{
	LLVMBasicBlockRef in = ptx_jit_new_block(t);

	ptx_jit_llvm.LLVMBuildCondBr(t->b, ok, in, w->outside);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, in);
}

/* Whether [@lo, @hi + @size) is in the access's window or range. */
static LLVMValueRef warp_within(struct tr *t, const struct warp_access *w,
				LLVMValueRef lo, LLVMValueRef hi,
				unsigned int size)
{
	return ptx_jit_llvm.LLVMBuildAnd(t->b,
		ptx_jit_within(t, lo, size, w->lim_lo, w->lim_hi),
		ptx_jit_within(t, hi, size, w->lim_lo, w->lim_hi), "");
}

/* Whether the address @x (a scalar) is a multiple of @size. */
static LLVMValueRef aligned(struct tr *t, LLVMValueRef x, unsigned int size)
{
	return ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntEQ,
		ptx_jit_llvm.LLVMBuildAnd(t->b, x,
					  ptx_jit_cint(t->s64, size - 1), ""),
		ptx_jit_cint(t->s64, 0), "");
}

/*
 * Whether the lanes' addresses @addr follow each other: lane l's is lane
 * 0's (@first) plus l * @stride.
 */
static LLVMValueRef consecutive(struct tr *t, LLVMValueRef addr,
				LLVMValueRef first, unsigned int stride)
{
	LLVMValueRef offs[PTX_JIT_LANES];
	unsigned int l;

	for (l = 0; l < PTX_JIT_LANES; l++)
		offs[l] = ptx_jit_cint(t->s64, (uint64_t)l * stride);
	return ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntEQ, reduce(t,
		"llvm.vector.reduce.or", ptx_jit_llvm.LLVMBuildXor(t->b, addr,
		ptx_jit_llvm.LLVMBuildAdd(t->b, ptx_jit_uniform(t, first),
		ptx_jit_llvm.LLVMConstVector(offs, PTX_JIT_LANES), ""), "")),
		ptx_jit_cint(t->s64, 0), "");
}

/* Consecutive lanes: the whole warp's elements in one vector access. */
static void warp_whole(struct tr *t, const struct warp_access *w,
		       LLVMValueRef first)
{
	const struct ptx_operand *v = w->v;
	bool st = w->in->op == OP_ST;
	LLVMValueRef p, x;

	warp_check(t, w, ptx_jit_llvm.LLVMBuildAnd(t->b,
		ptx_jit_within(t, first, w->size * PTX_JIT_LANES, w->lim_lo,
			       w->lim_hi),
		aligned(t, first, w->size), ""));
	p = lane_ptr(t, w->in, w->shared, first);
	if (w->in->space != PS_SHARED)
		prefetch(t, p, st);
	p = ptx_jit_typed_ptr(t, p, w->vty);
	if (st)
		x = ptx_jit_llvm.LLVMBuildStore(t->b,
			ptx_jit_llvm.LLVMBuildTrunc(t->b, v->kind == PO_REG ?
				ptx_jit_reg(t, v->reg) : ptx_jit_imm(t, v),
				w->vty, ""), p);
	else
		x = ptx_jit_llvm.LLVMBuildLoad2(t->b, w->vty, p, "");
	/* volatile: a spin-wait's load is made each time round */
	ptx_jit_llvm.LLVMSetVolatile(x, true);
	ptx_jit_llvm.LLVMSetAlignment(x, w->size);
	if (!st && v->kind == PO_REG && v->reg != PTX_NO_REG)
		ptx_jit_set_loaded(t, w->in, v->reg, x);
}

/* One lane's value, a vector's in one access (ptx_jit_vector_access()). */
static void warp_lane_vector(struct tr *t, const struct warp_access *w,
			     LLVMValueRef p, LLVMValueRef lane,
			     LLVMValueRef *vals)
{
	const struct ptx_operand *v = w->v;
	bool st = w->in->op == OP_ST;
	LLVMValueRef elems[4];
	unsigned int i;

	for (i = 0; st && i < w->n; i++)
		elems[i] = ptx_jit_llvm.LLVMBuildExtractElement(t->b,
			ptx_jit_llvm.LLVMBuildTrunc(t->b,
				ptx_jit_value_elem(t, v, i), w->vty, ""),
			lane, "");
	ptx_jit_vector_access(t, p, w->size, w->n, st, elems);
	for (i = 0; !st && i < w->n; i++)
		vals[i] = ptx_jit_llvm.LLVMBuildInsertElement(t->b, vals[i],
			elems[i], lane, "");
}

/*
 * Goes on where the lowest and the highest of the lanes' addresses are
 * in the window or range, and every one aligned; else to the per-thread
 * code.
 */
static void warp_check_each(struct tr *t, const struct warp_access *w)
{
	unsigned int span = w->size * w->n;

	warp_check(t, w, ptx_jit_llvm.LLVMBuildAnd(t->b, warp_within(t, w,
		reduce(t, "llvm.vector.reduce.umin", w->addr),
		reduce(t, "llvm.vector.reduce.umax", w->addr), span),
		ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntEQ,
			ptx_jit_llvm.LLVMBuildAnd(t->b,
				reduce(t, "llvm.vector.reduce.or", w->addr),
				ptx_jit_cint(t->s64, span - 1), ""),
			ptx_jit_cint(t->s64, 0), ""),
		""));
}

/* Any lanes' addresses: each lane's elements, lane after lane. */
static void warp_each(struct tr *t, const struct warp_access *w)
{
	bool st = w->in->op == OP_ST;
	unsigned int i, l;
	LLVMValueRef vals[4];

	warp_check_each(t, w);
	for (i = 0; i < w->n; i++)
		vals[i] = ptx_jit_llvm.LLVMGetUndef(w->vty);
	for (l = 0; l < PTX_JIT_LANES; l++) {
		LLVMValueRef lane = ptx_jit_cint(t->s32, l);
		LLVMValueRef p = lane_ptr(t, w->in, w->shared,
			ptx_jit_llvm.LLVMBuildExtractElement(t->b, w->addr,
							     lane, ""));

		warp_lane_vector(t, w, p, lane, vals);
	}
	for (i = 0; i < w->n && !st; i++)
		if (ptx_jit_value_reg(w->v, i) != PTX_NO_REG)
			ptx_jit_set_loaded(t, w->in,
					   ptx_jit_value_reg(w->v, i), vals[i]);
}

/*
 * Whether the lanes' addresses @addr (operand @a's) follow each other by
 * @stride from lane 0's, @first: known from the address register's form
 * where it has that stride, else compared.
 */
static LLVMValueRef lanes_follow(struct tr *t, const struct ptx_operand *a,
				 LLVMValueRef addr, LLVMValueRef first,
				 unsigned int stride)
{
	if (a->reg != PTX_NO_REG && t->forms[a->reg].known &&
	    t->forms[a->reg].stride == stride)
		return ptx_jit_cint(t->s1, 1);
	return consecutive(t, addr, first, stride);
}

/*
 * @w's lanes' addresses (operand @a's), their types, and the window or
 * the device range instruction @pc reached last, which bounds them.
 */
static void warp_address(struct tr *t, uint32_t pc,
			 const struct ptx_operand *a, struct warp_access *w)
{
	w->ety = ptx_jit_int_type(t, w->size);
	w->vty = ptx_jit_value_int(t, w->size);
	w->addr = ptx_jit_address(t, a);
	if (w->in->space == PS_SHARED) {
		w->shared =
			ptx_jit_load_field(t, t->run, RUN_FIELD(shared), t->p8);
		w->lim_lo = ptx_jit_cint(t->s64, 0);
		w->lim_hi = ptx_jit_load_field(t, t->run,
					       RUN_FIELD(shared_size), t->s64);
	} else {
		LLVMValueRef sites =
			ptx_jit_load_field(t, t->run, RUN_FIELD(sites), t->p8);
		size_t off = (size_t)t->site_of[pc] * sizeof(struct ptx_jit_site);

		w->lim_lo = ptx_jit_load_field(t, sites,
			off + offsetof(struct ptx_jit_site, lo), t->s64);
		w->lim_hi = ptx_jit_load_field(t, sites,
			off + offsetof(struct ptx_jit_site, hi), t->s64);
	}
	w->outside = ptx_jit_new_block(t);
}

static void warp_load_store(struct tr *t, const struct ptx_insn *in,
			    uint32_t pc)
{
	bool st = in->op == OP_ST;
	const struct ptx_operand *a = &in->o[st ? 0 : 1];
	struct warp_access w = { .in = in, .v = &in->o[st ? 1 : 0],
				 .size = in->type.size, .n = 1 };
	LLVMValueRef first;
	LLVMBasicBlockRef one, each, join;

	if (in->space == PS_PARAM) {
		warp_param_load(t, in);
		return;
	}
	if (w.v->kind == PO_VEC)
		w.n = w.v->nvec;
	warp_address(t, pc, a, &w);
	each = ptx_jit_new_block(t);
	join = ptx_jit_new_block(t);
	if (w.n == 1) {
		one = ptx_jit_new_block(t);
		first = ptx_jit_llvm.LLVMBuildExtractElement(t->b, w.addr,
			ptx_jit_cint(t->s32, 0), "");
		ptx_jit_llvm.LLVMBuildCondBr(t->b,
			lanes_follow(t, a, w.addr, first, w.size), one, each);
		ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, one);
		warp_whole(t, &w, first);
	}
	ptx_jit_llvm.LLVMBuildBr(t->b, w.n == 1 ? join : each);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, each);
	warp_each(t, &w);
	ptx_jit_llvm.LLVMBuildBr(t->b, join);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, w.outside);
	ptx_jit_hand_off(t, pc);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, join);
}

/*
 * atom and red for the lanes of a warp: where every lane's address passes
 * warp_check_each(), each lane's atomic in lane order (the per-thread
 * code makes them thread after thread: the same where the atomics are
 * each lane's only one on an address, and, where lanes contend, an order
 * the hardware may take too); else the threads go on one by one from it.
 */
static void warp_atomic(struct tr *t, const struct ptx_insn *in, uint32_t pc)
{
	unsigned int first = in->op == OP_ATOM, l;
	struct warp_access w = { .in = in, .size = in->type.size, .n = 1 };
	LLVMBasicBlockRef join = ptx_jit_new_block(t);
	LLVMValueRef b, c = NULL, olds, x;

	warp_address(t, pc, &in->o[first], &w);
	warp_check_each(t, &w);
	b = ptx_jit_llvm.LLVMBuildTrunc(t->b,
		ptx_jit_value_elem(t, &in->o[first + 1], 0), w.vty, "");
	if (in->aop == AOP_CAS)
		c = ptx_jit_llvm.LLVMBuildTrunc(t->b,
			ptx_jit_value_elem(t, &in->o[first + 2], 0), w.vty, "");
	olds = ptx_jit_llvm.LLVMGetUndef(w.vty);
	for (l = 0; l < PTX_JIT_LANES; l++) {
		LLVMValueRef lane = ptx_jit_cint(t->s32, l);

		x = ptx_jit_atomic_at(t, in, lane_ptr(t, in, w.shared,
			ptx_jit_llvm.LLVMBuildExtractElement(t->b, w.addr,
							     lane, "")),
			ptx_jit_llvm.LLVMBuildExtractElement(t->b, b, lane, ""),
			c ? ptx_jit_llvm.LLVMBuildExtractElement(t->b, c, lane,
								 "") : NULL);
		olds = ptx_jit_llvm.LLVMBuildInsertElement(t->b, olds, x,
							   lane, "");
	}
	if (first && in->o[0].kind == PO_REG)
		ptx_jit_set_reg(t, in->o[0].reg,
			ptx_jit_llvm.LLVMBuildZExt(t->b, olds, t->i64, ""));
	ptx_jit_llvm.LLVMBuildBr(t->b, join);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, w.outside);
	ptx_jit_hand_off(t, pc);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, join);
}

/* The vectors @a and @b as one vector of their lanes, @a's first. */
static LLVMValueRef join_lanes(struct tr *t, LLVMValueRef a, LLVMValueRef b,
			       unsigned int lanes)
{
	LLVMValueRef idx[PTX_JIT_LANES * 4];
	unsigned int i;

	for (i = 0; i < 2 * lanes; i++)
		idx[i] = ptx_jit_cint(t->s32, i);
	return ptx_jit_llvm.LLVMBuildShuffleVector(t->b, a, b,
		ptx_jit_llvm.LLVMConstVector(idx, 2 * lanes), "");
}

/*
 * The lanes' @n values (1, 2 or 4 vectors, the decoder allows no other
 * count) as one vector, lane after lane: a warp's buffer for multimem,
 * each lane's part laid out as exec_mem.c lays out one thread's.
 */
static LLVMValueRef interleave(struct tr *t, LLVMValueRef *vals,
			       unsigned int n)
{
	LLVMValueRef idx[PTX_JIT_LANES * 4];
	unsigned int i, l;

	if (n == 1)
		return vals[0];
	if (n == 4) {	/* a shuffle takes two vectors: two pairs joined */
		vals[0] = join_lanes(t, vals[0], vals[1], PTX_JIT_LANES);
		vals[1] = join_lanes(t, vals[2], vals[3], PTX_JIT_LANES);
	}
	for (l = 0; l < PTX_JIT_LANES; l++)
		for (i = 0; i < n; i++)
			idx[l * n + i] =
				ptx_jit_cint(t->s32, i * PTX_JIT_LANES + l);
	return ptx_jit_llvm.LLVMBuildShuffleVector(t->b, vals[0], vals[1],
		ptx_jit_llvm.LLVMConstVector(idx, PTX_JIT_LANES * n), "");
}

/* Value @i of each lane of @v, which interleave() laid out. */
static LLVMValueRef deinterleave(struct tr *t, LLVMValueRef v, unsigned int n,
				 unsigned int i)
{
	LLVMValueRef idx[PTX_JIT_LANES];
	unsigned int l;

	for (l = 0; l < PTX_JIT_LANES; l++)
		idx[l] = ptx_jit_cint(t->s32, l * n + i);
	return ptx_jit_llvm.LLVMBuildShuffleVector(t->b, v,
		ptx_jit_llvm.LLVMGetUndef(ptx_jit_llvm.LLVMTypeOf(v)),
		ptx_jit_llvm.LLVMConstVector(idx, PTX_JIT_LANES), "");
}

/*
 * How a multimem.ld_reduce and the multimem.st of its results after it
 * are made (pair_way()): apart, as one call, or kept back and made with
 * others later (mm_defer.c).
 */
enum pair_way { PAIR_NONE, PAIR_ONE_CALL, PAIR_KEPT_BACK };

/* The call that keeps the warp's pair @pc back; 0: refused. */
static LLVMValueRef keep_back(struct tr *t, uint32_t pc, LLVMValueRef first,
			      LLVMValueRef count)
{
	LLVMValueRef args[5], fn;

	args[0] = t->run;
	args[1] = ptx_jit_cint(t->s32, pc);
	args[2] = ptx_jit_llvm.LLVMBuildExtractElement(t->b, t->idx,
		ptx_jit_cint(t->s32, 0), "");
	args[3] = first;
	args[4] = count;
	fn = ptx_jit_load_field(t, t->run, RUN_FIELD(defer),
				ptx_jit_llvm.LLVMPointerType(t->defer_ty, 0));
	return ptx_jit_llvm.LLVMBuildCall2(t->b, t->defer_ty, fn, args, 5, "");
}

/*
 * The call that makes the warp's access of multimem @pc, the values of a
 * st from the registers into @buf first (and with PAIR_ONE_CALL, the st
 * after a ld_reduce too); 0: refused.
 */
static LLVMValueRef access_call(struct tr *t, const struct ptx_insn *in,
				uint32_t pc, enum pair_way pair,
				LLVMValueRef first, LLVMValueRef count,
				LLVMValueRef buf)
{
	bool ld = in->wmode == CUMC_PTX_MM_LD_REDUCE;
	const struct ptx_operand *v = &in->o[ld ? 0 : 1];
	unsigned int n = v->kind == PO_VEC ? v->nvec : 1, i;
	unsigned int rsize = in->type.size * in->mmpack;
	LLVMValueRef vals[4], args[6], fn;

	for (i = 0; i < n && !ld; i++) {
		uint32_t r = v->kind == PO_VEC ? v->vec[i] :
			     v->kind == PO_REG ? v->reg : PTX_NO_REG;

		vals[i] = ptx_jit_llvm.LLVMBuildTrunc(t->b,
			r != PTX_NO_REG ? ptx_jit_reg(t, r) : ptx_jit_imm(t, v),
			ptx_jit_value_int(t, rsize), "");
	}
	if (!ld)
		ptx_jit_llvm.LLVMSetAlignment(ptx_jit_llvm.LLVMBuildStore(t->b,
			interleave(t, vals, n), buf), rsize);
	args[0] = t->run;
	args[1] = ptx_jit_cint(t->s32, pc);
	args[2] = first;
	args[3] = ptx_jit_typed_ptr(t, t->mmbuf, t->i8);
	args[4] = count;
	args[5] = ptx_jit_cint(t->s32, pair == PAIR_ONE_CALL);
	fn = ptx_jit_load_field(t, t->run, RUN_FIELD(multimem),
				ptx_jit_llvm.LLVMPointerType(t->mm_ty, 0));
	return ptx_jit_llvm.LLVMBuildCall2(t->b, t->mm_ty, fn, args, 6, "");
}

/*
 * multimem for the lanes of a warp.  Where lane l's elements follow lane
 * 0's (its address lane 0's plus l times its values' size) and are
 * aligned, the multicast path makes the access for all of them in one
 * call, their values lane after lane, as the hardware makes a warp's;
 * else, or where the path refuses the whole (having changed nothing),
 * the threads go on one by one from the instruction, each making its own
 * access through the interpreter, the first refused one faulting.  With
 * @pair PAIR_ONE_CALL (@in a ld_reduce), the st of its results too; with
 * PAIR_KEPT_BACK, the pair is only checked here, and made later.
 */
static void warp_multimem(struct tr *t, const struct ptx_insn *in,
			  uint32_t pc, enum pair_way pair)
{
	bool ld = in->wmode == CUMC_PTX_MM_LD_REDUCE;
	const struct ptx_operand *a = &in->o[ld ? 1 : 0];
	const struct ptx_operand *v = &in->o[ld ? 0 : 1];
	unsigned int n = v->kind == PO_VEC ? v->nvec : 1, i;
	unsigned int rsize = in->type.size * in->mmpack;
	LLVMTypeRef bty =
		ptx_jit_llvm.LLVMVectorType(ptx_jit_int_type(t, rsize),
					    PTX_JIT_LANES * n);
	LLVMBasicBlockRef call = ptx_jit_new_block(t);
	LLVMBasicBlockRef done = ptx_jit_new_block(t);
	LLVMBasicBlockRef outside = ptx_jit_new_block(t);
	LLVMValueRef addr = ptx_jit_address(t, a);
	LLVMValueRef buf = ptx_jit_typed_ptr(t, t->mmbuf, bty);
	LLVMValueRef count =
		ptx_jit_cint(t->s32, PTX_JIT_LANES * n * in->mmpack);
	LLVMValueRef first, x;

	first = ptx_jit_llvm.LLVMBuildExtractElement(t->b, addr,
		ptx_jit_cint(t->s32, 0), "");
	ptx_jit_llvm.LLVMBuildCondBr(t->b, ptx_jit_llvm.LLVMBuildAnd(t->b,
		lanes_follow(t, a, addr, first, n * rsize),
		aligned(t, first, rsize), ""), call, outside);

	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, call);
	x = pair == PAIR_KEPT_BACK ? keep_back(t, pc, first, count) :
	    access_call(t, in, pc, pair, first, count, buf);
	ptx_jit_llvm.LLVMBuildCondBr(t->b, ptx_jit_llvm.LLVMBuildICmp(t->b,
		LLVMIntEQ, x, ptx_jit_cint(t->s32, 0), ""), outside, done);

	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, outside);
	ptx_jit_hand_off(t, pc);

	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, done);
	if (!ld || pair == PAIR_KEPT_BACK)
		return;
	x = ptx_jit_llvm.LLVMBuildLoad2(t->b, bty, buf, "");
	ptx_jit_llvm.LLVMSetAlignment(x, rsize);
	for (i = 0; i < n; i++) {
		uint32_t r = v->kind == PO_VEC ? v->vec[i] :
			     v->kind == PO_REG ? v->reg : PTX_NO_REG;

		if (r != PTX_NO_REG)
			ptx_jit_set_reg(t, r, ptx_jit_llvm.LLVMBuildZExt(t->b,
					deinterleave(t, x, n, i), t->i64, ""));
	}
}

/* Whether operands @a and @b name the same address. */
static bool same_address(const struct ptx_operand *a,
			 const struct ptx_operand *b)
{
	return a->kind == b->kind && a->reg == b->reg && a->imm == b->imm &&
	       a->global == b->global && a->dyn_shared == b->dyn_shared &&
	       a->frame == b->frame;
}

/* Whether @v names the registers @d names, in their order, all of them. */
static bool same_registers(const struct ptx_operand *d,
			   const struct ptx_operand *v)
{
	unsigned int i;

	if (d->kind != v->kind)
		return false;
	if (d->kind == PO_REG)
		return d->reg != PTX_NO_REG && d->reg == v->reg;
	if (d->kind != PO_VEC || d->nvec != v->nvec)
		return false;
	for (i = 0; i < d->nvec; i++)
		if (d->vec[i] == PTX_NO_REG || d->vec[i] != v->vec[i])
			return false;
	return true;
}

/* Whether @pc is where bar.sync lets its threads go. */
static bool after_barrier(const struct cumc_ptx_function *fn, uint32_t pc)
{
	return pc > 0 && pc < fn->ninsns && fn->insns[pc - 1].op == OP_BAR;
}

/* Whether a warp whose threads all stand at @pc resumes as a warp there. */
static bool warp_resumes_at(const struct tr *t, uint32_t pc)
{
	return after_barrier(t->fn, pc) || t->loop_heads[pc];
}

/*
 * Whether multimem.ld_reduce @pc and the multimem.st after it are the
 * all-reduce's pair, made as one call of the multicast path (the checks,
 * the lookup and the warp's values out of the registers and back once,
 * not twice): the st stores the ld_reduce's results, all of them, at the
 * address the ld_reduce read; neither is guarded; and only the ld_reduce
 * leads to the st (it is no join, and no warp resumes there).
 */
static bool ld_reduce_then_st(const struct tr *t, uint32_t pc)
{
	const struct ptx_insn *ld = &t->fn->insns[pc], *st = ld + 1;

	if (ld->op != OP_MULTIMEM || ld->wmode != CUMC_PTX_MM_LD_REDUCE ||
	    pc + 1 >= t->fn->ninsns || st->op != OP_MULTIMEM ||
	    st->wmode != CUMC_PTX_MM_ST)
		return false;
	return ld->guard == PTX_NO_REG && st->guard == PTX_NO_REG &&
	       !t->joins[pc + 1] && !warp_resumes_at(t, pc + 1) &&
	       ld->type.size * ld->mmpack == st->type.size * st->mmpack &&
	       same_address(&ld->o[1], &st->o[0]) &&
	       same_registers(&ld->o[0], &st->o[1]) &&
	       (ld->o[1].reg == PTX_NO_REG ||
		!ptx_jit_writes_reg(ld, ld->o[1].reg));
}

/*
 * The way of the pair at @pc: kept back where neither instruction orders
 * memory and the ld_reduce's values are dead after the st.
 */
static enum pair_way pair_way(const struct tr *t, uint32_t pc)
{
	const struct ptx_insn *ld = &t->fn->insns[pc];
	const struct ptx_operand *d = &ld->o[0];
	unsigned int i;

	if (!ld_reduce_then_st(t, pc))
		return PAIR_NONE;
	if (!t->live_at || ((ld->flags | ld[1].flags) & PF_ORDERED))
		return PAIR_ONE_CALL;
	if (d->kind == PO_REG)
		return ptx_jit_live_in(t, pc + 2, d->reg) ? PAIR_ONE_CALL :
							    PAIR_KEPT_BACK;
	for (i = 0; i < d->nvec; i++)
		if (d->vec[i] != PTX_NO_REG &&
		    ptx_jit_live_in(t, pc + 2, d->vec[i]))
			return PAIR_ONE_CALL;
	return PAIR_KEPT_BACK;
}

/*
 * A guard whose predicate has no form: the warp goes to @all where every
 * lane passes and to @skip where none does; where they disagree, the
 * threads go on one by one (at the branch's two ways, or at the guarded
 * instruction).  True for a branch, every way of which is made here.
 */
static bool guard_lanes(struct tr *t, const struct ptx_insn *in, uint32_t pc,
			LLVMBasicBlockRef all, LLVMBasicBlockRef skip)
{
	LLVMBasicBlockRef mixed = ptx_jit_new_block(t);
	LLVMBasicBlockRef some = ptx_jit_new_block(t);
	LLVMValueRef g = ptx_jit_truthy(t, ptx_jit_reg(t, in->guard));

	if (in->guard_neg)
		g = ptx_jit_llvm.LLVMBuildNot(t->b, g, "");
	ptx_jit_llvm.LLVMBuildCondBr(t->b,
		reduce(t, "llvm.vector.reduce.and", g), all, some);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, some);
	ptx_jit_llvm.LLVMBuildCondBr(t->b,
		reduce(t, "llvm.vector.reduce.or", g), mixed, skip);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, mixed);
	if (in->op != OP_BRA) {
		ptx_jit_hand_off(t, pc);
		return false;
	}
	hand_off(t, ptx_jit_llvm.LLVMBuildSelect(t->b,
		g, ptx_jit_cint(t->i32, in->o[0].imm),
		ptx_jit_cint(t->i32, pc + 1), ""),
		in->o[0].imm, pc + 1);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, all);
	ptx_jit_branch_to_join(t, in->o[0].imm);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, skip);
	return true;
}

/*
 * An instruction for the lanes of a warp.  A guard the lanes agree on is
 * taken by the warp, tested as a scalar where its predicate has a form
 * (guard_lanes() where not).  Where @pair is not PAIR_NONE (pair_way()),
 * the multimem.st after it, too.
 */
static void warp_emit(struct tr *t, const struct ptx_insn *in, uint32_t pc,
		      enum pair_way pair)
{
	LLVMBasicBlockRef skip = NULL, all;
	struct lane_form f[PTX_MAX_OPERANDS];
	int64_t stride;
	LLVMValueRef g;

	if (!ptx_jit_warp_native(t->fn, in)) {
		ptx_jit_hand_off(t, pc);
		ptx_jit_forms_forget(t);
		return;
	}
	if (ptx_jit_forms_before(t, in, f, &stride, pc)) {
		ptx_jit_lanes_of_form(t, in, f, stride, pc);
		return;
	}
	if (ptx_jit_setp_of_forms(t, in, pc))
		return;
	if (in->guard != PTX_NO_REG) {
		all = ptx_jit_new_block(t);
		skip = ptx_jit_new_block(t);
		g = ptx_jit_uniform_guard(t, in);
		if (g)
			ptx_jit_llvm.LLVMBuildCondBr(t->b, g, all, skip);
		else if (guard_lanes(t, in, pc, all, skip))
			return;
		ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, all);
	}
	switch (in->op) {
	case OP_BRA:
		ptx_jit_branch_to_join(t, in->o[0].imm);
		break;
	case OP_RET: case OP_EXIT:
		ptx_jit_llvm.LLVMBuildBr(t->b, t->warp_exited);
		break;
	case OP_MEMBAR:
		ptx_jit_llvm.LLVMBuildFence(t->b,
			LLVMAtomicOrderingSequentiallyConsistent, false, "");
		break;
	case OP_LD: case OP_ST:
		warp_load_store(t, in, pc);
		break;
	case OP_MULTIMEM:
		warp_multimem(t, in, pc, pair);
		break;
	case OP_ATOM: case OP_RED:
		warp_atomic(t, in, pc);
		break;
	default:
		ptx_jit_compute(t, in);
	}
	if (skip) {
		if (!ptx_jit_terminated(t))
			ptx_jit_llvm.LLVMBuildBr(t->b, skip);
		ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, skip);
	}
	ptx_jit_forms_after(t, in);
}

/*
 * enter() for warp code: the slice is counted at every start and ends at
 * a loop's head alone, where the warp stops whole, to resume there as a
 * warp (warp_resume()).  Handing its threads on instead, as the
 * per-thread code stops, ran the rest of a long loop thread by thread.
 */
static void warp_enter(struct tr *t, uint32_t pc)
{
	LLVMValueRef left =
		ptx_jit_llvm.LLVMBuildLoad2(t->b, t->s32, t->budget, "");
	LLVMBasicBlockRef go, out;

	if (t->loop_heads[pc]) {
		go = ptx_jit_new_block(t);
		out = ptx_jit_new_block(t);
		ptx_jit_llvm.LLVMBuildCondBr(t->b, ptx_jit_llvm.LLVMBuildICmp(
			t->b, LLVMIntSLE, left, ptx_jit_cint(t->s32, 0), ""),
			out, go);
		ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, out);
		save_lanes(t, ptx_jit_cint(t->i32, pc), pc, pc);
		ptx_jit_llvm.LLVMBuildBr(t->b, t->warp_stopped);
		ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, go);
	}
	ptx_jit_llvm.LLVMBuildStore(t->b, ptx_jit_llvm.LLVMBuildSub(t->b, left,
		ptx_jit_cint(t->s32, t->seglen[pc]), ""), t->budget);
}

/* The thread records of a warp as one vector of i64 (8 bytes each). */
_Static_assert(sizeof(struct ptx_jit_thread) == 8 &&
	       offsetof(struct ptx_jit_thread, pc) == 0 &&
	       offsetof(struct ptx_jit_thread, resumed) ==
	       offsetof(struct ptx_jit_thread, state) + 1,
	       "warp code reads a warp's thread records as 64-bit lanes");
#define THREAD_STATE_SHIFT (offsetof(struct ptx_jit_thread, state) * 8)
#define THREAD_RESUMED_SHIFT (offsetof(struct ptx_jit_thread, resumed) * 8)
/* pc, state and resumed: what threads standing together have the same */
#define THREAD_RECORD_MASK (0xffffffffull | 0xffffull << THREAD_STATE_SHIFT)

/*
 * Each thread's record in one store, its pc from t->vpc: runnable (warp
 * code runs runnable threads only), its registers saved.
 */
static void store_records(struct tr *t, LLVMValueRef tp)
{
	LLVMTypeRef recs = ptx_jit_llvm.LLVMVectorType(t->s64, PTX_JIT_LANES);
	LLVMValueRef x;

	x = ptx_jit_llvm.LLVMBuildOr(t->b, ptx_jit_llvm.LLVMBuildZExt(t->b,
			ptx_jit_llvm.LLVMBuildLoad2(t->b, t->i32, t->vpc, ""),
			t->i64, ""),
		ptx_jit_i64c(t, (uint64_t)TS_RUN << THREAD_STATE_SHIFT |
			     1ull << THREAD_RESUMED_SHIFT), "");
	x = ptx_jit_llvm.LLVMBuildStore(t->b, x,
					ptx_jit_typed_ptr(t, tp, recs));
	ptx_jit_llvm.LLVMSetAlignment(x, 8);
}

void ptx_jit_warp_entry(struct tr *t, LLVMValueRef tp, LLVMBasicBlockRef warp,
			LLVMBasicBlockRef waiting)
{
	LLVMBasicBlockRef check = ptx_jit_new_block(t);
	LLVMBasicBlockRef records = ptx_jit_new_block(t);
	LLVMBasicBlockRef together = ptx_jit_new_block(t);
	LLVMTypeRef recs = ptx_jit_llvm.LLVMVectorType(t->s64, PTX_JIT_LANES);
	LLVMValueRef whole, v, first, runnable, fresh, same;

	whole = ptx_jit_llvm.LLVMBuildAnd(t->b,
		ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntEQ,
			ptx_jit_llvm.LLVMBuildAnd(t->b, t->idx,
				ptx_jit_cint(t->s32, PTX_JIT_LANES - 1), ""),
			ptx_jit_cint(t->s32, 0), ""),
		ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntULE,
			ptx_jit_llvm.LLVMBuildAdd(t->b, t->idx,
				ptx_jit_cint(t->s32, PTX_JIT_LANES), ""),
			ptx_jit_load_field(t, t->run, RUN_FIELD(nthreads),
					   t->s32), ""), "");
	ptx_jit_llvm.LLVMBuildCondBr(t->b, whole, check, t->per_thread);
	/* the CTA's first round, the common case, reads no record (jit.h) */
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, check);
	fresh = ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntNE,
		ptx_jit_load_field(t, t->run, RUN_FIELD(first_round), t->s32),
		ptx_jit_cint(t->s32, 0), "");
	ptx_jit_llvm.LLVMBuildStore(t->b, fresh, t->warp_fresh);
	ptx_jit_llvm.LLVMBuildCondBr(t->b, fresh, warp, records);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, records);
	v = ptx_jit_llvm.LLVMBuildLoad2(t->b, recs,
					ptx_jit_typed_ptr(t, tp, recs), "");
	ptx_jit_llvm.LLVMSetAlignment(v, 8);
	v = ptx_jit_llvm.LLVMBuildAnd(t->b, v,
		ptx_jit_cint(recs, THREAD_RECORD_MASK), "");
	first = ptx_jit_llvm.LLVMBuildExtractElement(t->b, v,
		ptx_jit_cint(t->s32, 0), "");
	runnable = ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntEQ,
		ptx_jit_llvm.LLVMBuildAnd(t->b, first,
			ptx_jit_cint(t->s64, 0xffull << THREAD_STATE_SHIFT),
			""),
		ptx_jit_cint(t->s64, (uint64_t)TS_RUN << THREAD_STATE_SHIFT),
		"");
	v = ptx_jit_llvm.LLVMBuildXor(t->b, v, ptx_jit_splat(t, first), "");
	same = ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntEQ,
		reduce(t, "llvm.vector.reduce.or", v),
		ptx_jit_cint(t->s64, 0), "");
	ptx_jit_llvm.LLVMBuildCondBr(t->b, same, together, t->per_thread);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, together);
	ptx_jit_llvm.LLVMBuildCondBr(t->b, runnable, warp, waiting);
}

/*
 * Where warp code's control flow joins (lane forms are forgotten there):
 * its start, branch targets, and where bar.sync lets the threads go.
 */
static void mark_joins(struct tr *t)
{
	const struct cumc_ptx_function *fn = t->fn;
	uint32_t pc;

	t->joins[0] = true;
	for (pc = 0; pc < fn->ninsns; pc++) {
		const struct ptx_insn *in = &fn->insns[pc];

		if (in->op == OP_BRA && in->o[0].imm < fn->ninsns)
			t->joins[in->o[0].imm] = true;
		if (after_barrier(fn, pc))
			t->joins[pc] = true;
	}
}

/*
 * A warp whose threads all stand at the instruction after a bar.sync or
 * at a loop's head (let go by the barrier, stopped whole there, or their
 * slices spent there one by one): their registers from their slots into
 * the lanes, and the warp code from there.  Threads that stand together
 * anywhere else go on one by one, as they stopped.
 */
static void warp_resume(struct tr *t, LLVMValueRef tp)
{
	const struct cumc_ptx_function *fn = t->fn;
	LLVMBasicBlockRef fill = ptx_jit_new_block(t);
	LLVMValueRef pc, to, x;
	struct slot_row row;
	uint32_t k, r;

	pc = ptx_jit_load_field(t, tp,
				offsetof(struct ptx_jit_thread, pc), t->s32);
	x = ptx_jit_llvm.LLVMBuildSwitch(t->b, pc, t->per_thread, 0);
	for (k = 0; k < fn->ninsns; k++)
		if (warp_resumes_at(t, k))
			ptx_jit_llvm.LLVMAddCase(x,
						 ptx_jit_cint(t->s32, k), fill);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, fill);
	warp_slot_row(t, &row);
	for (r = 0; r < fn->nregs; r++)
		if (ptx_jit_reg_in(t->resumed, r))
			load_reg(&row, r);
		else
			ptx_jit_set_reg(t, r, ptx_jit_i64c(t, 0));
	to = ptx_jit_llvm.LLVMBuildSwitch(t->b, pc, t->per_thread, 0);
	for (k = 0; k < fn->ninsns; k++)
		if (warp_resumes_at(t, k))
			ptx_jit_llvm.LLVMAddCase(to, ptx_jit_cint(t->s32, k),
						 t->vresume[k]);
}

void ptx_jit_warp_code(struct tr *t, LLVMBasicBlockRef warp, LLVMValueRef tp,
		       LLVMValueRef counter, LLVMBasicBlockRef head)
{
	const struct cumc_ptx_function *fn = t->fn;
	LLVMValueRef *regs = t->regs, ti = t->ti, idx = t->idx;
	LLVMValueRef lanes[PTX_JIT_LANES], x;
	LLVMTypeRef recs = ptx_jit_llvm.LLVMVectorType(t->s64, PTX_JIT_LANES);
	LLVMBasicBlockRef fresh = ptx_jit_new_block(t);
	LLVMBasicBlockRef resume = ptx_jit_new_block(t), saved, mark, counted;
	LLVMBasicBlockRef next = ptx_jit_new_block(t);
	enum pair_way pair = PAIR_NONE;
	uint32_t k, r;

	for (k = 0; k < fn->ninsns; k++) {
		if (t->starts[k])
			t->vstarts[k] = ptx_jit_new_block(t);
		if (warp_resumes_at(t, k))
			t->vresume[k] = ptx_jit_new_block(t);
	}
	t->handoff = ptx_jit_new_block(t);
	t->warp_stopped = ptx_jit_new_block(t);
	t->warp_exited = ptx_jit_new_block(t);
	ptx_jit_set_warp(t, true);
	t->regs = t->vregs;
	t->ti = t->vti;

	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, warp);
	for (k = 0; k < PTX_JIT_LANES; k++)
		lanes[k] = ptx_jit_cint(t->s32, k);
	t->idx = ptx_jit_llvm.LLVMBuildAdd(t->b, ptx_jit_uniform(t, idx),
		ptx_jit_llvm.LLVMConstVector(lanes, PTX_JIT_LANES), "");
	saved = ptx_jit_new_block(t);
	ptx_jit_llvm.LLVMBuildCondBr(t->b, ptx_jit_llvm.LLVMBuildLoad2(t->b,
				     t->s1, t->warp_fresh, ""), fresh, saved);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, saved);
	x = ptx_jit_load_field(t, tp,
			       offsetof(struct ptx_jit_thread, resumed), t->i8);
	ptx_jit_llvm.LLVMBuildCondBr(t->b, ptx_jit_llvm.LLVMBuildICmp(t->b,
		LLVMIntEQ, x, ptx_jit_cint(t->i8, 0), ""), fresh, resume);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, fresh);
	for (r = 0; r < fn->nregs; r++)
		ptx_jit_set_reg(t, r, ptx_jit_i64c(t, 0));
	ptx_jit_llvm.LLVMBuildBr(t->b, t->vstarts[0]);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, resume);
	warp_resume(t, tp);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, ptx_jit_new_block(t));
	mark_joins(t);
	for (k = 0; k < fn->ninsns; k++) {
		if (t->vstarts[k]) {
			if (t->joins[k])
				ptx_jit_join_forms(t, k);
			else if (!ptx_jit_terminated(t))
				ptx_jit_llvm.LLVMBuildBr(t->b, t->vstarts[k]);
			ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b,
							      t->vstarts[k]);
			if (t->joins[k]) {
				ptx_jit_forms_forget(t);
				ptx_jit_join_enter(t, k);
			}
			if (!t->check_only[k])
				warp_enter(t, k);
		} else if (ptx_jit_terminated(t)) {
			ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b,
				ptx_jit_new_block(t));
		}
		if (pair != PAIR_NONE) {	/* made with the ld_reduce */
			pair = PAIR_NONE;
			continue;
		}
		if (fn->insns[k].op == OP_BAR && k + 1 < fn->ninsns)
			ptx_jit_join_merge(t, k + 1);
		pair = pair_way(t, k);
		if (pair != PAIR_KEPT_BACK)
			ptx_jit_flush_before(t, &fn->insns[k]);
		ptx_jit_count_poll(t, &fn->insns[k]);
		warp_emit(t, &fn->insns[k], k, pair);
	}
	if (!ptx_jit_terminated(t))
		ptx_jit_llvm.LLVMBuildBr(t->b, t->warp_exited);
	ptx_jit_forms_forget(t);
	for (k = 0; k < fn->ninsns; k++)
		if (t->vresume[k])
			ptx_jit_join_resume(t, k);

	/* each thread resumes alone */
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, t->handoff);
	store_records(t, tp);
	ptx_jit_llvm.LLVMBuildStore(t->b,
		ptx_jit_cint(t->s32, PTX_SLICE), t->budget);
	ptx_jit_llvm.LLVMBuildBr(t->b, t->per_thread);

	/* the warp resumes whole */
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, t->warp_stopped);
	store_records(t, tp);
	ptx_jit_llvm.LLVMBuildBr(t->b, next);

	/*
	 * every lane exited: the records say so in one store, unless they
	 * say so already (the first round's)
	 */
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, t->warp_exited);
	mark = ptx_jit_new_block(t);
	counted = ptx_jit_new_block(t);
	ptx_jit_llvm.LLVMBuildCondBr(t->b, ptx_jit_llvm.LLVMBuildLoad2(t->b,
				     t->s1, t->warp_fresh, ""), counted, mark);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, mark);
	x = ptx_jit_llvm.LLVMBuildStore(t->b,
		ptx_jit_cint(recs, (uint64_t)TS_EXITED << THREAD_STATE_SHIFT),
		ptx_jit_typed_ptr(t, tp, recs));
	ptx_jit_llvm.LLVMSetAlignment(x, 8);
	ptx_jit_llvm.LLVMBuildBr(t->b, counted);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, counted);
	ptx_jit_add_field(t, t->run, RUN_FIELD(exited), PTX_JIT_LANES);
	ptx_jit_llvm.LLVMBuildBr(t->b, next);

	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, next);
	ptx_jit_llvm.LLVMBuildStore(t->b, ptx_jit_llvm.LLVMBuildAdd(t->b, idx,
		ptx_jit_cint(t->s32, PTX_JIT_LANES), ""), counter);
	ptx_jit_llvm.LLVMBuildBr(t->b, head);

	ptx_jit_set_warp(t, false);
	t->regs = regs;
	t->ti = ti;
	t->idx = idx;
}
