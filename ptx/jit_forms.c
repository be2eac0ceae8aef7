// SPDX-License-Identifier: MIT
/*
 * Lane forms (struct lane_form), made as warp code is translated, in
 * program order, and kept where control flow joins only as every way in
 * brings them (ptx_jit_join_forms()).  A form says how
 * an instruction's result lanes follow from its operands'.  Arithmetic on
 * 64 bits keeps them so exactly (modulo 2^64, as the lanes themselves);
 * a narrower result may wrap, or be extended from fewer bits, in some
 * lanes only: such a jump is a multiple of 2^bits, so it shows between
 * the first and the last lane when they span less than that
 * (FORM_STRIDE_MAX keeps them so), and the warp's threads then go on one
 * by one.  A register with a form holds it as lane 0's value plus the
 * lane's multiple of the stride, so that what reads only lane 0 (an
 * access of consecutive lanes) costs no vector arithmetic.  A predicate
 * whose compare agrees in every lane is a form of stride 0, tested as a
 * scalar where it guards (ptx_jit_setp_of_forms()).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "jit_tr.h"

#define FORM_STRIDE_MAX (1 << 20)

void ptx_jit_forms_forget(struct tr *t)
{
	memset(t->forms, 0, t->fn->nregs * sizeof(*t->forms));
	t->tid_x0 = NULL;
}

LLVMValueRef ptx_jit_form_lanes(struct tr *t, const struct lane_form *f)
{
	LLVMValueRef lanes[PTX_JIT_LANES];
	unsigned int l;

	for (l = 0; l < PTX_JIT_LANES; l++)
		lanes[l] = ptx_jit_cint(t->s64, (uint64_t)(f->stride * l));
	return ptx_jit_llvm.LLVMBuildAdd(t->b, ptx_jit_splat(t, f->base),
		ptx_jit_llvm.LLVMConstVector(lanes, PTX_JIT_LANES), "");
}

void ptx_jit_forms_flush(struct tr *t)
{
	uint32_t r;

	for (r = 0; r < t->fn->nregs; r++)
		if (t->forms[r].known)
			ptx_jit_set_reg(t, r,
					ptx_jit_form_lanes(t, &t->forms[r]));
}

/* Whether an instruction of [@first, @last] writes register @r. */
static bool written_in(const struct tr *t, uint32_t first, uint32_t last,
		       uint32_t r)
{
	uint32_t pc;

	for (pc = first; pc <= last; pc++)
		if (ptx_jit_writes_reg(&t->fn->insns[pc], r))
			return true;
	return false;
}

/*
 * Whether @in steps register @r by what the loop [@first, @last] keeps
 * the same in every lane: r = r + x, r = x + r or r = r - x, x an
 * immediate or a register of stride 0 the loop does not write.
 */
static bool steps(const struct tr *t, const int64_t *strides,
		  const struct ptx_insn *in, uint32_t r, uint32_t first,
		  uint32_t last)
{
	const struct ptx_operand *x;

	if (in->guard != PTX_NO_REG || in->o[0].kind != PO_REG ||
	    (in->op != OP_ADD && in->op != OP_SUB) || in->flags & PF_SAT ||
	    (in->type.cls != PC_B && in->type.cls != PC_U &&
	     in->type.cls != PC_S))
		return false;
	if (in->o[1].kind == PO_REG && in->o[1].reg == r && !in->o[1].neg)
		x = &in->o[2];
	else if (in->op == OP_ADD && in->o[2].kind == PO_REG &&
		 in->o[2].reg == r)
		x = &in->o[1];
	else
		return false;
	if (x->kind == PO_IMM)
		return true;
	return x->kind == PO_REG && !x->neg && !strides[x->reg] &&
	       !written_in(t, first, last, x->reg);
}

/*
 * Whether register @r has a form of the same stride wherever the loop
 * [@first, @last] goes back to its head, entered with the forms of
 * @strides: the loop does not write it, or only steps it (steps()).
 */
static bool keeps_form(const struct tr *t, const int64_t *strides, uint32_t r,
		       uint32_t first, uint32_t last)
{
	const struct ptx_insn *in;
	uint32_t pc;

	for (pc = first; pc <= last; pc++) {
		in = &t->fn->insns[pc];
		if (in->op == OP_CALL)
			return false;
		if (ptx_jit_writes_reg(in, r) && !steps(t, strides, in, r, first, last))
			return false;
	}
	return true;
}

/* Where a loop's last branch back to @pc is, or @pc where none is. */
static uint32_t loop_end(const struct tr *t, uint32_t pc)
{
	const struct cumc_ptx_function *fn = t->fn;
	uint32_t last = pc, k;

	for (k = pc; t->loop_heads[pc] && k < fn->ninsns; k++)
		if (fn->insns[k].op == OP_BRA && fn->insns[k].o[0].imm == pc)
			last = k;
	return last;
}

void ptx_jit_join_merge(struct tr *t, uint32_t pc)
{
	int64_t *strides = t->join_strides[pc];
	uint32_t r;

	if (t->join_decided[pc])
		return;
	if (!strides) {
		strides = malloc(t->fn->nregs * sizeof(*strides));
		if (!strides) {	/* no form kept: each way says so */
			t->join_decided[pc] = true;
			return;
		}
		for (r = 0; r < t->fn->nregs; r++)
			strides[r] = t->forms[r].known ? t->forms[r].stride :
							 HEAD_NO_FORM;
		t->join_strides[pc] = strides;
		return;
	}
	for (r = 0; r < t->fn->nregs; r++)
		if (!t->forms[r].known || t->forms[r].stride != strides[r])
			strides[r] = HEAD_NO_FORM;
}

/*
 * A way into join @pc made before the join is decided (from before it):
 * its strides merged, lane 0 of each register with a form into its
 * form_base, and every form into its register's storage.
 */
static void forward_edge(struct tr *t, uint32_t pc)
{
	uint32_t r;

	ptx_jit_join_merge(t, pc);
	for (r = 0; r < t->fn->nregs; r++)
		if (t->forms[r].known)
			ptx_jit_llvm.LLVMBuildStore(t->b, t->forms[r].base,
						    t->form_base[r]);
	ptx_jit_forms_flush(t);
	ptx_jit_llvm.LLVMBuildBr(t->b, t->vstarts[pc]);
}

/*
 * Joins keep the forms that every way into them brings with one stride,
 * of the registers live there, so that a warp's grid-stride loop (an index
 * stepped by the block's size, its address lane 0's plus the lane's
 * multiple of the element size, a bound the same in every lane) computes
 * lane 0's index and address alone, where forgetting them at every join
 * made every lane's and compared them.  The ways from before the join are
 * made by then (forward_edge()); a loop's head keeps only what the loop
 * keeps too (keeps_form()), and the ways back made after pass lane 0 on
 * (ptx_jit_branch_to_join()); a warp resuming at a loop's head or after
 * bar.sync brings the forms the code had before (ptx_jit_join_merge()),
 * checked against the registers it takes back (ptx_jit_join_resume()).
 */
void ptx_jit_join_forms(struct tr *t, uint32_t pc)
{
	uint32_t last = loop_end(t, pc), r;
	bool any = false, changed;
	int64_t *strides;

	if (!ptx_jit_terminated(t))
		forward_edge(t, pc);
	strides = t->join_strides[pc];
	t->join_decided[pc] = true;
	for (r = 0; strides && r < t->fn->nregs; r++)
		if (!pc || !ptx_jit_live_in(t, pc, r))
			strides[r] = HEAD_NO_FORM;
	/* a step by a register whose form is not kept keeps none */
	for (changed = true; strides && changed;) {
		changed = false;
		for (r = 0; r < t->fn->nregs; r++)
			if (strides[r] != HEAD_NO_FORM &&
			    !keeps_form(t, strides, r, pc, last)) {
				strides[r] = HEAD_NO_FORM;
				changed = true;
			}
	}
	for (r = 0; strides && r < t->fn->nregs; r++)
		any |= strides[r] != HEAD_NO_FORM;
	if (!any) {
		free(strides);
		t->join_strides[pc] = NULL;
	}
}

void ptx_jit_join_enter(struct tr *t, uint32_t pc)
{
	const int64_t *strides = t->join_strides[pc];
	uint32_t r;

	for (r = 0; strides && r < t->fn->nregs; r++)
		if (strides[r] != HEAD_NO_FORM)
			t->forms[r] = (struct lane_form){ .known = true,
				.stride = strides[r],
				.base = ptx_jit_llvm.LLVMBuildLoad2(t->b,
					t->s64, t->form_base[r], "") };
}

/*
 * Lane 0 of register @r into its form_base; the i1 that says its lanes
 * are of the form of @stride from there, or NULL where its form says so.
 */
static LLVMValueRef pass_lane0(struct tr *t, uint32_t r, int64_t stride)
{
	struct lane_form f = t->forms[r];
	LLVMValueRef v, same;

	if (f.known && f.stride == stride) {
		ptx_jit_llvm.LLVMBuildStore(t->b, f.base, t->form_base[r]);
		return NULL;
	}
	v = ptx_jit_reg(t, r);
	f = (struct lane_form){ .known = true, .stride = stride,
		.base = ptx_jit_llvm.LLVMBuildExtractElement(t->b, v,
			ptx_jit_cint(t->s32, 0), "") };
	ptx_jit_llvm.LLVMBuildStore(t->b, f.base, t->form_base[r]);
	same = ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntEQ, v,
					  ptx_jit_form_lanes(t, &f), "");
	return ptx_jit_intrinsic(t, "llvm.vector.reduce.and",
				 ptx_jit_llvm.LLVMTypeOf(same), &same, 1);
}

/*
 * Lane 0 of each register join @pc keeps a form of into its form_base,
 * and the forms of the others into their storage; the i1 that says the
 * kept ones' lanes are of their forms, or NULL where their forms say so.
 */
static LLVMValueRef pass_forms(struct tr *t, uint32_t pc)
{
	const int64_t *strides = t->join_strides[pc];
	LLVMValueRef ok = NULL, same;
	uint32_t r;

	for (r = 0; r < t->fn->nregs; r++) {
		if (!strides || strides[r] == HEAD_NO_FORM) {
			if (t->forms[r].known)
				ptx_jit_set_reg(t, r, ptx_jit_form_lanes(t,
						&t->forms[r]));
			continue;
		}
		same = pass_lane0(t, r, strides[r]);
		if (same)
			ok = ok ? ptx_jit_llvm.LLVMBuildAnd(t->b, ok, same, "") :
				  same;
	}
	return ok;
}

void ptx_jit_branch_to_join(struct tr *t, uint32_t pc)
{
	LLVMValueRef ok;
	LLVMBasicBlockRef off;

	if (!t->join_decided[pc]) {
		forward_edge(t, pc);
		return;
	}
	ok = pass_forms(t, pc);
	if (!ok) {
		ptx_jit_llvm.LLVMBuildBr(t->b, t->vstarts[pc]);
		return;
	}
	off = ptx_jit_new_block(t);
	ptx_jit_llvm.LLVMBuildCondBr(t->b, ok, t->vstarts[pc], off);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, off);
	ptx_jit_hand_off(t, pc);
}

void ptx_jit_join_resume(struct tr *t, uint32_t pc)
{
	LLVMValueRef ok;

	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, t->vresume[pc]);
	ptx_jit_forms_forget(t);
	ok = pass_forms(t, pc);
	if (ok)
		ptx_jit_llvm.LLVMBuildCondBr(t->b, ok, t->vstarts[pc],
					     t->per_thread);
	else
		ptx_jit_llvm.LLVMBuildBr(t->b, t->vstarts[pc]);
}

/* Goes on where @ok holds, else the threads go on one by one from @pc. */
static void lanes_or_hand_off(struct tr *t, LLVMValueRef ok, uint32_t pc)
{
	LLVMBasicBlockRef go = ptx_jit_new_block(t), off = ptx_jit_new_block(t);

	/* mark_starts() made @pc a resume point (ptx_jit_form_check_at()) */
	assert(t->starts[pc]);
	ptx_jit_llvm.LLVMBuildCondBr(t->b, ok, go, off);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, off);
	ptx_jit_hand_off(t, pc);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, go);
}

bool ptx_jit_tid_x_only(const struct cumc_ptx_function *fn)
{
	uint32_t pc;
	unsigned int i;

	for (pc = 0; pc < fn->ninsns; pc++)
		for (i = 0; i < fn->insns[pc].nopnd; i++)
			if (fn->insns[pc].o[i].kind == PO_SREG &&
			    (fn->insns[pc].o[i].sreg == SR_TID_Y ||
			     fn->insns[pc].o[i].sreg == SR_TID_Z))
				return false;
	return true;
}

/* Lane 0's tid.x, a scalar: as tid_x() makes it, without its vectors. */
static LLVMValueRef lane0_tid_x(struct tr *t)
{
	LLVMBasicBlockRef from = ptx_jit_llvm.LLVMGetInsertBlock(t->b);
	LLVMBasicBlockRef div = ptx_jit_new_block(t);
	LLVMBasicBlockRef join = ptx_jit_new_block(t);
	LLVMValueRef i = ptx_jit_llvm.LLVMBuildZExt(t->b,
		ptx_jit_llvm.LLVMBuildExtractElement(t->b, t->idx,
			ptx_jit_cint(t->s32, 0), ""), t->s64, "");
	LLVMValueRef bx =
		ptx_jit_load_field(t, t->run, RUN_FIELD(ntid[0]), t->s32);
	LLVMValueRef x[2], phi;
	LLVMBasicBlockRef in[2] = { from, div };

	ptx_jit_llvm.LLVMBuildCondBr(t->b, ptx_jit_llvm.LLVMBuildICmp(t->b,
		LLVMIntEQ, bx, ptx_jit_load_field(t, t->run,
		RUN_FIELD(nthreads), t->s32), ""), join, div);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, div);
	x[1] = ptx_jit_llvm.LLVMBuildURem(t->b, i,
		ptx_jit_llvm.LLVMBuildZExt(t->b, bx, t->s64, ""), "");
	ptx_jit_llvm.LLVMBuildBr(t->b, join);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, join);
	x[0] = i;
	phi = ptx_jit_llvm.LLVMBuildPhi(t->b, t->s64, "");
	ptx_jit_llvm.LLVMAddIncoming(phi, x, in, 2);
	return phi;
}

/*
 * Lane 0's tid.x, where the warp's threads are in one row of the block
 * (lane 0's tid.x plus 31 is in it): their tid.x follow each other and
 * their tid.y and tid.z are the same.  A warp across rows (of a block 8
 * threads wide) goes on one by one from @pc.
 */
static LLVMValueRef tid_in_row(struct tr *t, uint32_t pc)
{
	LLVMValueRef x0;

	if (t->tid_x0)
		return t->tid_x0;
	x0 = lane0_tid_x(t);
	lanes_or_hand_off(t, ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntULT,
		ptx_jit_llvm.LLVMBuildAdd(t->b, x0,
			ptx_jit_cint(t->s64, PTX_JIT_LANES - 1), ""),
		ptx_jit_llvm.LLVMBuildZExt(t->b, ptx_jit_load_field(t, t->run,
			RUN_FIELD(ntid[0]), t->s32), t->s64, ""), ""), pc);
	return t->tid_x0 = x0;
}

static struct lane_form operand_form(struct tr *t, const struct ptx_operand *o,
				     uint32_t pc)
{
	struct lane_form f = { .known = true };

	switch (o->kind) {
	case PO_REG:
		if (o->neg)
			break;
		return t->forms[o->reg];
	case PO_IMM:
		return f;	/* its value: ptx_jit_imm(), for the lane */
	case PO_SREG:
		if (o->sreg >= SR_NTID_X && o->sreg <= SR_NCTAID_Z) {
			f.base = ptx_jit_llvm.LLVMBuildExtractElement(t->b,
				ptx_jit_sreg(t, o->sreg),
				ptx_jit_cint(t->s32, 0), "");
			return f;
		}
		if (o->sreg != SR_TID_X || !t->tid_forms)
			break;
		f.base = tid_in_row(t, pc);
		f.stride = 1;
		return f;
	}
	return (struct lane_form){ 0 };
}

/*
 * The stride of @in's result from its operands' forms @f: its result's
 * lanes are then lane 0's plus l * stride (but for a jump, above); false
 * where they need not be.
 */
static bool result_stride(const struct ptx_insn *in, const struct lane_form *f,
			  int64_t *stride)
{
	const struct ptx_operand *o = in->o;
	bool imm1 = o[1].kind == PO_IMM, imm2 = o[2].kind == PO_IMM;

	*stride = 0;
	if (in->type.cls != PC_B && in->type.cls != PC_U && in->type.cls != PC_S)
		return false;
	switch (in->op) {
	case OP_MOV: case OP_CVTA:
		*stride = f[1].stride;
		return true;
	case OP_CVT:
		*stride = f[1].stride;
		return in->type.size >= in->type2.size &&
		       in->type2.cls != PC_F;
	case OP_ADD:
		*stride = f[1].stride + f[2].stride;
		return !(in->flags & PF_SAT);
	case OP_SUB:
		*stride = f[1].stride - f[2].stride;
		return !(in->flags & PF_SAT);
	case OP_SHL:
		*stride = f[1].stride * ((int64_t)1 << (o[2].imm & 31));
		return imm2 && o[2].imm < 32;
	case OP_MUL: case OP_MAD:
		if (in->flags & PF_HI)
			return false;
		/* a lane-varying factor by an immediate */
		if (f[1].stride && f[2].stride)
			return false;
		if ((f[1].stride && !imm2) || (f[2].stride && !imm1))
			return false;
		*stride = f[1].stride * (int64_t)(imm2 ? o[2].imm : 0) +
			  f[2].stride * (int64_t)(imm1 ? o[1].imm : 0);
		if (in->op == OP_MAD)
			*stride += f[3].stride;
		return true;
	default:
		return false;
	}
}

/*
 * Whether @in's result can have a form: an unguarded instruction of a
 * register that result_stride() knows (here on sources of no form).
 */
static bool form_instruction(const struct ptx_insn *in)
{
	static const struct lane_form none[PTX_MAX_OPERANDS];
	int64_t stride;

	return in->guard == PTX_NO_REG && in->o[0].kind == PO_REG &&
	       result_stride(in, none, &stride);
}

/*
 * Whether @in makes its one register from its sources alone (arithmetic,
 * logic, conversions, selp), so that sources the same in every lane make
 * it the same in every lane: a form of stride 0, computed for lane 0.
 */
static bool uniform_instruction(const struct ptx_insn *in)
{
	return in->guard == PTX_NO_REG && in->o[0].kind == PO_REG &&
	       (in->op <= OP_TANH || in->op == OP_SELP || in->op == OP_MOV ||
		in->op == OP_CVT || in->op == OP_CVTA);
}

bool ptx_jit_forms_before(struct tr *t, const struct ptx_insn *in,
			  struct lane_form *f, int64_t *stride, uint32_t pc)
{
	bool vary = false;
	unsigned int i;

	if (!form_instruction(in) && !uniform_instruction(in))
		return false;
	for (i = 1; i < in->nopnd; i++) {
		f[i] = operand_form(t, &in->o[i], pc);
		if (!f[i].known)
			return false;
		vary |= f[i].stride != 0;
	}
	if (!vary && uniform_instruction(in)) {
		*stride = 0;
		return true;
	}
	return form_instruction(in) && result_stride(in, f, stride) &&
	       *stride <= FORM_STRIDE_MAX && *stride >= -FORM_STRIDE_MAX;
}

/* The registers @in writes know no form. */
static void forget_written(struct tr *t, const struct ptx_insn *in)
{
	const struct ptx_operand *d = &in->o[0];
	unsigned int i;

	if (in->op == OP_ST || in->op == OP_BRA || in->op == OP_MEMBAR)
		return;
	if (d->kind == PO_REG)
		t->forms[d->reg].known = false;
	for (i = 0; d->kind == PO_VEC && i < d->nvec; i++)
		if (d->vec[i] != PTX_NO_REG)
			t->forms[d->vec[i]].known = false;
	if (in->op == OP_SETP && in->o[1].kind == PO_REG)
		t->forms[in->o[1].reg].known = false;
}

void ptx_jit_forms_after(struct tr *t, const struct ptx_insn *in)
{
	uint32_t r = in->o[0].reg;

	if (ptx_jit_terminated(t)) {
		ptx_jit_forms_forget(t);
		return;
	}
	forget_written(t, in);
	/* a parameter: the same in every lane (warp_param_load()) */
	if (in->op == OP_LD && in->space == PS_PARAM && in->o[0].kind == PO_REG)
		t->forms[r] = (struct lane_form){ .known = true,
			.base = ptx_jit_llvm.LLVMBuildExtractElement(t->b,
			ptx_jit_reg(t, r), ptx_jit_cint(t->s32, 0), "") };
}

/* @in's result in lane @lane, from its sources' forms @f, a scalar. */
static LLVMValueRef lane_value(struct tr *t, const struct ptx_insn *in,
			       const struct lane_form *f, unsigned int lane)
{
	t->lane_in = in;
	t->lane_forms = f;
	t->lane = lane;
	ptx_jit_set_warp(t, false);
	ptx_jit_compute(t, in);
	ptx_jit_set_warp(t, true);
	t->lane_in = NULL;
	return t->lane_result;
}

/*
 * Whether @in makes its result from fewer than 64 bits, where a jump
 * could show; not a move of a value no wider than its type.
 */
static bool narrow_result(const struct cumc_ptx_function *fn,
			  const struct ptx_insn *in)
{
	const struct ptx_operand *o = &in->o[1];

	if (in->op == OP_MOV && in->type.size >= (o->kind == PO_SREG ? 4 :
	    o->kind == PO_REG ? fn->reg_types[o->reg].size : 8))
		return false;
	return in->type.size < 8 || (in->op == OP_CVT && in->type2.size < 8);
}

void ptx_jit_lanes_of_form(struct tr *t, const struct ptx_insn *in,
			   const struct lane_form *f, int64_t stride,
			   uint32_t pc)
{
	LLVMValueRef base = lane_value(t, in, f, 0), last;
	bool vary = false;
	unsigned int i;

	for (i = 1; i < in->nopnd; i++)
		vary |= f[i].stride != 0;
	if (vary && narrow_result(t->fn, in)) {
		last = lane_value(t, in, f, PTX_JIT_LANES - 1);
		lanes_or_hand_off(t, ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntEQ,
			ptx_jit_llvm.LLVMBuildSub(t->b, last, base, ""),
			ptx_jit_cint(t->s64,
				     (uint64_t)(stride * (PTX_JIT_LANES - 1))),
			""), pc);
	}
	forget_written(t, in);
	t->forms[in->o[0].reg] = (struct lane_form){ .known = true,
		.stride = stride, .base = base };
}

/*
 * setp of an integer order (lt, lo, ...) with one result and no predicate
 * to combine: ptx_jit_setp_of_forms() may make it for lane 0 alone.
 */
static bool ordered_setp(const struct ptx_insn *in)
{
	return in->op == OP_SETP && in->guard == PTX_NO_REG &&
	       (in->type.cls == PC_S || in->type.cls == PC_U) &&
	       in->cmp >= CMP_LT && in->cmp <= CMP_HS && !in->aop &&
	       in->o[0].kind == PO_REG && in->o[1].kind != PO_REG;
}

/* Lane @lane of a source with form @f, as the compare @in reads it. */
static LLVMValueRef compared(struct tr *t, const struct ptx_insn *in,
			     const struct lane_form *f, unsigned int lane)
{
	LLVMValueRef v = ptx_jit_llvm.LLVMBuildAdd(t->b, f->base,
		ptx_jit_cint(t->s64, (uint64_t)(f->stride * lane)), "");

	ptx_jit_set_warp(t, false);
	v = ptx_jit_extend(t, v, in->type.size, in->type.cls == PC_S);
	ptx_jit_set_warp(t, true);
	return v;
}

/*
 * Whether the lanes of @f, as @in compares them, go from lane 0's to the
 * last's by the stride without wrapping in the compare's order: each then
 * lies between its neighbours, so the compare's result changes at most
 * once along the lanes.
 */
static LLVMValueRef steady(struct tr *t, const struct ptx_insn *in,
			   const struct lane_form *f)
{
	int64_t span = f->stride * (PTX_JIT_LANES - 1);
	bool sign = in->type.cls == PC_S && in->cmp < CMP_LO;
	LLVMValueRef first = compared(t, in, f, 0);
	LLVMValueRef last = compared(t, in, f, PTX_JIT_LANES - 1);
	LLVMIntPredicate up = sign ? LLVMIntSGT : LLVMIntUGT;
	LLVMIntPredicate down = sign ? LLVMIntSLT : LLVMIntULT;

	return ptx_jit_llvm.LLVMBuildAnd(t->b,
		ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntEQ,
			ptx_jit_llvm.LLVMBuildSub(t->b, last, first, ""),
			ptx_jit_cint(t->s64, (uint64_t)span), ""),
		ptx_jit_llvm.LLVMBuildICmp(t->b, span > 0 ? up : down,
			last, first, ""), "");
}

bool ptx_jit_setp_of_forms(struct tr *t, const struct ptx_insn *in,
			   uint32_t pc)
{
	struct lane_form f[PTX_MAX_OPERANDS] = { 0 };
	const struct lane_form *vary = NULL;
	LLVMValueRef first, same;
	unsigned int i;

	if (!ordered_setp(in))
		return false;
	for (i = 2; i < 4; i++) {
		f[i] = operand_form(t, &in->o[i], pc);
		if (!f[i].known || (f[i].stride && vary))
			return false;
		if (f[i].stride)
			vary = &f[i];
	}
	first = lane_value(t, in, f, 0);
	if (vary) {
		same = ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntEQ, first,
			lane_value(t, in, f, PTX_JIT_LANES - 1), "");
		lanes_or_hand_off(t, ptx_jit_llvm.LLVMBuildAnd(t->b, same,
			steady(t, in, vary), ""), pc);
	}
	forget_written(t, in);
	t->forms[in->o[0].reg] = (struct lane_form){ .known = true,
		.base = first };
	return true;
}

LLVMValueRef ptx_jit_uniform_guard(struct tr *t, const struct ptx_insn *in)
{
	const struct lane_form *f = &t->forms[in->guard];

	if (!f->known || f->stride)
		return NULL;
	return ptx_jit_llvm.LLVMBuildICmp(t->b,
		in->guard_neg ? LLVMIntEQ : LLVMIntNE, f->base,
		ptx_jit_cint(t->s64, 0), "");
}

bool ptx_jit_form_check_at(const struct tr *t, const struct ptx_insn *in)
{
	unsigned int i;

	if (ordered_setp(in))
		return true;
	if (!form_instruction(in))
		return false;
	if (narrow_result(t->fn, in))
		return true;
	for (i = 1; i < in->nopnd; i++)
		if (in->o[i].kind == PO_SREG && in->o[i].sreg == SR_TID_X &&
		    t->tid_forms)
			return true;
	return false;
}
