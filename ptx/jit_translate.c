// SPDX-License-Identifier: MIT
/*
 * The translation of a module's kernels to LLVM IR (jit.c compiles it):
 * the helpers that make IR, each instruction for one thread (warp code,
 * jit_warp.c, makes the same for its lanes), and the round.
 *
 * The code of a kernel is one function running a round over the threads
 * of a CTA: for each thread that can run, it takes its registers (64-bit
 * slots as the interpreter keeps them, in allocas that mem2reg promotes),
 * runs from its pc until it exits, reaches bar.sync, or has spent its time
 * slice at the start of a block, and saves them only when it stops short
 * of its end; those live where it may resume (jit_live.c), in their slots
 * (jit.h, ptx_jit_slot()).  Every register holds its value zero-extended from the
 * instruction's size, as in exec.c, so the two agree bit for bit.
 *
 * Compiled natively: integer add sub mul (.lo .hi .wide) mad div rem min
 * max abs neg, bit logic, shifts, setp (integer and float, with its
 * predicate operation), selp, mov, cvt (cvt_native()), cvta, f32 and f64
 * add sub mul div fma sqrt rcp (.rn) min max neg abs, ld and st of every
 * space (the same checks as mem.c: windows inline, a device range cached
 * per instruction, the rest through mem.c), atom and red on integers
 * (atomic_native()), bra, exit, ret, bar.sync, membar.  Any other
 * instruction the interpreter runs is a call to it for that instruction.
 * Kernels with calls or warp operations are interpreted whole.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit_tr.h"

LLVMValueRef ptx_jit_cint(LLVMTypeRef ty, uint64_t v)
{
	LLVMValueRef lanes[PTX_JIT_LANES];
	LLVMTypeRef ety;
	unsigned int i, n;

	if (ptx_jit_llvm.LLVMGetTypeKind(ty) != LLVMVectorTypeKind)
		return ptx_jit_llvm.LLVMConstInt(ty, v, false);
	n = ptx_jit_llvm.LLVMGetVectorSize(ty);
	ety = ptx_jit_llvm.LLVMGetElementType(ty);
	for (i = 0; i < n; i++)
		lanes[i] = ptx_jit_llvm.LLVMConstInt(ety, v, false);
	return ptx_jit_llvm.LLVMConstVector(lanes, n);
}

void ptx_jit_set_warp(struct tr *t, bool warp)
{
	LLVMTypeRef *value[] = { &t->i1, &t->i32, &t->i64, &t->i128,
				 &t->f32, &t->f64 };
	LLVMTypeRef scalar[] = { t->s1, t->s32, t->s64, t->s128, t->sf32,
				 t->sf64 };
	unsigned int i;

	t->warp = warp;
	for (i = 0; i < sizeof(scalar) / sizeof(scalar[0]); i++)
		*value[i] = warp ?
			ptx_jit_llvm.LLVMVectorType(scalar[i], PTX_JIT_LANES) :
			scalar[i];
}

LLVMValueRef ptx_jit_splat(struct tr *t, LLVMValueRef v)
{
	LLVMTypeRef vt = ptx_jit_llvm.LLVMVectorType(ptx_jit_llvm.LLVMTypeOf(v),
						     PTX_JIT_LANES);
	LLVMValueRef one = ptx_jit_llvm.LLVMBuildInsertElement(t->b,
		ptx_jit_llvm.LLVMGetUndef(vt), v, ptx_jit_cint(t->s32, 0), "");

	return ptx_jit_llvm.LLVMBuildShuffleVector(t->b, one,
		ptx_jit_llvm.LLVMGetUndef(vt),
		ptx_jit_llvm.LLVMConstNull(ptx_jit_llvm.LLVMVectorType(t->s32,
					   PTX_JIT_LANES)), "");
}

LLVMValueRef ptx_jit_uniform(struct tr *t, LLVMValueRef v)
{
	return t->warp ? ptx_jit_splat(t, v) : v;
}

LLVMBasicBlockRef ptx_jit_new_block(struct tr *t)
{
	return ptx_jit_llvm.LLVMAppendBasicBlockInContext(t->c, t->f, "");
}

LLVMValueRef ptx_jit_i64c(struct tr *t, uint64_t v)
{
	return ptx_jit_cint(t->i64, v);
}

LLVMValueRef ptx_jit_byte_ptr(struct tr *t, LLVMValueRef base, LLVMValueRef off)
{
	return ptx_jit_llvm.LLVMBuildGEP2(t->b, t->i8, base, &off, 1, "");
}

LLVMValueRef ptx_jit_typed_ptr(struct tr *t, LLVMValueRef p, LLVMTypeRef ty)
{
	return ptx_jit_llvm.LLVMBuildBitCast(t->b, p,
		ptx_jit_llvm.LLVMPointerType(ty, 0), "");
}

/* A field of the run (or of a struct at @base) at @off. */
static LLVMValueRef field_ptr(struct tr *t, LLVMValueRef base, size_t off,
			      LLVMTypeRef ty)
{
	return ptx_jit_typed_ptr(t,
		ptx_jit_byte_ptr(t, base, ptx_jit_cint(t->s64, off)), ty);
}

LLVMValueRef ptx_jit_load_field(struct tr *t, LLVMValueRef base, size_t off,
				LLVMTypeRef ty)
{
	return ptx_jit_llvm.LLVMBuildLoad2(t->b, ty,
					   field_ptr(t, base, off, ty), "");
}

static void store_field(struct tr *t, LLVMValueRef base, size_t off,
			LLVMTypeRef ty, LLVMValueRef v)
{
	ptx_jit_llvm.LLVMBuildStore(t->b, v, field_ptr(t, base, off, ty));
}

void ptx_jit_add_field(struct tr *t, LLVMValueRef base, size_t off,
		       uint32_t n)
{
	LLVMValueRef v = ptx_jit_load_field(t, base, off, t->s32);

	store_field(t, base, off, t->s32,
		    ptx_jit_llvm.LLVMBuildAdd(t->b, v,
					      ptx_jit_cint(t->s32, n), ""));
}

LLVMValueRef ptx_jit_intrinsic_of(struct tr *t, const char *name,
				  LLVMTypeRef *tys, unsigned int ntys,
				  LLVMValueRef *args, unsigned int n)
{
	unsigned int id =
		ptx_jit_llvm.LLVMLookupIntrinsicID(name, strlen(name));
	LLVMValueRef f =
		ptx_jit_llvm.LLVMGetIntrinsicDeclaration(t->m, id, tys, ntys);

	return ptx_jit_llvm.LLVMBuildCall2(t->b,
		ptx_jit_llvm.LLVMIntrinsicGetType(t->c, id, tys, ntys),
		f, args, n, "");
}

LLVMValueRef ptx_jit_intrinsic(struct tr *t, const char *name,
			       LLVMTypeRef ty, LLVMValueRef *args,
			       unsigned int n)
{
	return ptx_jit_intrinsic_of(t, name, &ty, 1, args, n);
}

static LLVMValueRef mask(struct tr *t, LLVMValueRef v, unsigned int size)
{
	if (size >= 8)
		return v;
	return ptx_jit_llvm.LLVMBuildAnd(t->b, v,
		ptx_jit_i64c(t, (1ull << (size * 8)) - 1), "");
}

LLVMTypeRef ptx_jit_value_int(struct tr *t, unsigned int size)
{
	LLVMTypeRef ty = ptx_jit_llvm.LLVMIntTypeInContext(t->c, size * 8);

	return t->warp ? ptx_jit_llvm.LLVMVectorType(ty, PTX_JIT_LANES) : ty;
}

LLVMValueRef ptx_jit_extend(struct tr *t, LLVMValueRef v, unsigned int size,
			    bool sign)
{
	LLVMValueRef n;

	if (size >= 8)
		return v;
	n = ptx_jit_llvm.LLVMBuildTrunc(t->b, v,
					ptx_jit_value_int(t, size), "");
	return sign ? ptx_jit_llvm.LLVMBuildSExt(t->b, n, t->i64, "") :
		      ptx_jit_llvm.LLVMBuildZExt(t->b, n, t->i64, "");
}

/*
 * Whether warp code keeps register @r in 32-bit lanes: a 32-bit register
 * holds its value zero-extended (ptx_jit_set_loaded() masks a sign-extended
 * load to the register's size), so its upper half is always 0 and need not
 * take vector lanes of its own.
 */
static bool narrow_reg(const struct tr *t, uint32_t r)
{
	return t->fn->reg_types[r].size == 4 &&
	       t->fn->reg_types[r].cls != PC_PRED;
}

LLVMValueRef ptx_jit_reg(struct tr *t, uint32_t r)
{
	if (t->warp && t->forms[r].known)
		return ptx_jit_form_lanes(t, &t->forms[r]);
	if (t->warp && narrow_reg(t, r))
		return ptx_jit_llvm.LLVMBuildZExt(t->b,
			ptx_jit_llvm.LLVMBuildLoad2(t->b, t->i32,
			t->regs[r], ""), t->i64, "");
	return ptx_jit_llvm.LLVMBuildLoad2(t->b, t->i64, t->regs[r], "");
}

void ptx_jit_set_reg(struct tr *t, uint32_t r, LLVMValueRef v)
{
	if (t->warp && narrow_reg(t, r))
		v = ptx_jit_llvm.LLVMBuildTrunc(t->b, v, t->i32, "");
	ptx_jit_llvm.LLVMBuildStore(t->b, v, t->regs[r]);
}

static bool sreg_clock(unsigned int sr)
{
	return sr == SR_CLOCK || sr == SR_CLOCK64 || sr == SR_GLOBALTIMER;
}

/* A u32 of the run, as an i64 value. */
static LLVMValueRef run_u32(struct tr *t, size_t off)
{
	return ptx_jit_uniform(t, ptx_jit_llvm.LLVMBuildZExt(t->b,
		ptx_jit_load_field(t, t->run, off, t->s32), t->s64, ""));
}

/* tid.x/.y/.z from the thread's index in the CTA. */
static LLVMValueRef tid(struct tr *t, unsigned int d)
{
	LLVMValueRef bx = run_u32(t, RUN_FIELD(ntid[0]));
	LLVMValueRef by = run_u32(t, RUN_FIELD(ntid[1]));
	LLVMValueRef i = ptx_jit_llvm.LLVMBuildZExt(t->b, t->idx, t->i64, "");

	if (d == 0)
		return ptx_jit_llvm.LLVMBuildURem(t->b, i, bx, "");
	i = ptx_jit_llvm.LLVMBuildUDiv(t->b, i, bx, "");
	return d == 1 ? ptx_jit_llvm.LLVMBuildURem(t->b, i, by, "") :
			ptx_jit_llvm.LLVMBuildUDiv(t->b, i, by, "");
}

/*
 * tid.x: in a 1-D block, the common case, the index itself; a branch, not
 * a select, so that the division is not made for every thread.
 */
static LLVMValueRef tid_x(struct tr *t, LLVMValueRef i)
{
	LLVMBasicBlockRef div = ptx_jit_new_block(t);
	LLVMBasicBlockRef join = ptx_jit_new_block(t);
	LLVMValueRef flat = ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntEQ,
		ptx_jit_load_field(t, t->run, RUN_FIELD(ntid[0]), t->s32),
		ptx_jit_load_field(t, t->run, RUN_FIELD(nthreads), t->s32), "");

	ptx_jit_llvm.LLVMBuildStore(t->b, i, t->ti);
	ptx_jit_llvm.LLVMBuildCondBr(t->b, flat, join, div);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, div);
	ptx_jit_llvm.LLVMBuildStore(t->b, tid(t, 0), t->ti);
	ptx_jit_llvm.LLVMBuildBr(t->b, join);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, join);
	return ptx_jit_llvm.LLVMBuildLoad2(t->b, t->i64, t->ti, "");
}

LLVMValueRef ptx_jit_sreg(struct tr *t, unsigned int sr)
{
	LLVMValueRef i = ptx_jit_llvm.LLVMBuildZExt(t->b, t->idx, t->i64, "");
	LLVMValueRef lane =
		ptx_jit_llvm.LLVMBuildAnd(t->b, i, ptx_jit_i64c(t, 31), "");
	LLVMValueRef bit =
		ptx_jit_llvm.LLVMBuildShl(t->b, ptx_jit_i64c(t, 1), lane, "");

	switch (sr) {
	case SR_TID_X: case SR_TID_Y: case SR_TID_Z:
		if (sr == SR_TID_X)
			return tid_x(t, i);
		return tid(t, sr - SR_TID_X);
	case SR_NTID_X: case SR_NTID_Y: case SR_NTID_Z:
		return run_u32(t, RUN_FIELD(ntid[sr - SR_NTID_X]));
	case SR_CTAID_X: case SR_CTAID_Y: case SR_CTAID_Z:
		return run_u32(t, RUN_FIELD(ctaid[sr - SR_CTAID_X]));
	case SR_NCTAID_X: case SR_NCTAID_Y: case SR_NCTAID_Z:
		return run_u32(t, RUN_FIELD(nctaid[sr - SR_NCTAID_X]));
	case SR_LANEID:
		return lane;
	case SR_WARPID:
		return ptx_jit_llvm.LLVMBuildLShr(t->b, i,
						  ptx_jit_i64c(t, 5), "");
	case SR_NWARPID:
		return ptx_jit_llvm.LLVMBuildLShr(t->b,
			ptx_jit_llvm.LLVMBuildAdd(t->b,
				run_u32(t, RUN_FIELD(nthreads)),
				ptx_jit_i64c(t, 31), ""),
			ptx_jit_i64c(t, 5), "");
	case SR_SMID:
		return ptx_jit_i64c(t, 0);
	case SR_NSMID:
		return ptx_jit_i64c(t, 132);
	case SR_LANEMASK_EQ:
		return bit;
	case SR_LANEMASK_LT:
		return ptx_jit_llvm.LLVMBuildSub(t->b, bit,
						 ptx_jit_i64c(t, 1), "");
	case SR_LANEMASK_LE:
		return ptx_jit_llvm.LLVMBuildSub(t->b,
			ptx_jit_llvm.LLVMBuildShl(t->b, bit,
			ptx_jit_i64c(t, 1), ""), ptx_jit_i64c(t, 1), "");
	case SR_LANEMASK_GT:
		return ptx_jit_llvm.LLVMBuildAnd(t->b,
			ptx_jit_llvm.LLVMBuildNot(t->b,
			ptx_jit_llvm.LLVMBuildSub(t->b,
			ptx_jit_llvm.LLVMBuildShl(t->b, bit,
			ptx_jit_i64c(t, 1), ""), ptx_jit_i64c(t, 1), ""), ""),
			ptx_jit_i64c(t, 0xffffffffu), "");
	default:	/* SR_LANEMASK_GE */
		return ptx_jit_llvm.LLVMBuildAnd(t->b,
			ptx_jit_llvm.LLVMBuildNot(t->b,
			ptx_jit_llvm.LLVMBuildSub(t->b, bit,
			ptx_jit_i64c(t, 1), ""), ""),
			ptx_jit_i64c(t, 0xffffffffu), "");
	}
}

LLVMValueRef ptx_jit_imm(struct tr *t, const struct ptx_operand *o)
{
	const struct ptx_global *g;
	LLVMValueRef base;

	if (!o->global)
		return ptx_jit_i64c(t, o->imm);
	g = &t->fn->module->globals[o->global - 1];
	base = ptx_jit_load_field(t, t->run, RUN_FIELD(globals), t->p8);
	base = ptx_jit_load_field(t, base,
				  (o->global - 1) * sizeof(uint64_t), t->s64);
	return ptx_jit_uniform(t, ptx_jit_llvm.LLVMBuildAdd(t->b, base,
			ptx_jit_cint(t->s64, o->imm - (uintptr_t)g->data), ""));
}

LLVMValueRef ptx_jit_address(struct tr *t, const struct ptx_operand *a)
{
	LLVMValueRef addr = ptx_jit_imm(t, a);

	if (a->reg == PTX_NO_REG)
		return addr;
	return ptx_jit_llvm.LLVMBuildAdd(t->b, ptx_jit_reg(t, a->reg), addr, "");
}

/* ptx_src: a register (negated for !p), a special register, a constant. */
static LLVMValueRef src(struct tr *t, const struct ptx_operand *o)
{
	if (t->lane_in && (o->kind == PO_REG || o->kind == PO_SREG)) {
		const struct lane_form *f = &t->lane_forms[o - t->lane_in->o];

		return ptx_jit_llvm.LLVMBuildAdd(t->b, f->base,
			ptx_jit_cint(t->s64,
				     (uint64_t)(f->stride * t->lane)), "");
	}
	switch (o->kind) {
	case PO_REG:
		if (o->neg)
			return ptx_jit_llvm.LLVMBuildZExt(t->b,
				ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntEQ,
				ptx_jit_reg(t, o->reg),
				ptx_jit_i64c(t, 0), ""), t->i64, "");
		return ptx_jit_reg(t, o->reg);
	case PO_SREG:
		return ptx_jit_sreg(t, o->sreg);
	default:
		return ptx_jit_imm(t, o);
	}
}

static LLVMValueRef srcx(struct tr *t, const struct ptx_operand *o,
			 struct ptx_type ty)
{
	return ptx_jit_extend(t, src(t, o), ty.size, ty.cls == PC_S);
}

static void dst(struct tr *t, const struct ptx_operand *o, LLVMValueRef v,
		unsigned int size)
{
	if (t->lane_in)
		t->lane_result = mask(t, v, size);
	else if (o->kind == PO_REG)
		ptx_jit_set_reg(t, o->reg, mask(t, v, size));
}

LLVMValueRef ptx_jit_truthy(struct tr *t, LLVMValueRef v)
{
	return ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntNE, v,
					  ptx_jit_i64c(t, 0), "");
}

static LLVMValueRef as_i64(struct tr *t, LLVMValueRef c)
{
	return ptx_jit_llvm.LLVMBuildZExt(t->b, c, t->i64, "");
}

static bool is_integer(struct ptx_type ty)
{
	return ty.cls == PC_B || ty.cls == PC_U || ty.cls == PC_S;
}

/*
 * The conversions compiled (.sat, .ftz and the like aside): between
 * integers; .rn from an integer to f32 or f64; .rni .rzi .rmi .rpi from
 * f32 or f64 to an integer or to an integral value of its own type; f32
 * to f64, and .rn f64 to f32.
 */
static bool cvt_native(const struct ptx_insn *in)
{
	struct ptx_type d = in->type, s = in->type2;

	if (is_integer(d) && is_integer(s))
		return true;
	if (d.cls == PC_F && is_integer(s))
		return in->rnd == RND_RN;
	if (is_integer(d) && s.cls == PC_F)
		return in->rnd >= RND_RNI;
	if (d.cls != PC_F || s.cls != PC_F)
		return false;
	if (d.size == s.size)
		return in->rnd >= RND_RNI;
	return in->rnd == (d.size < s.size ? RND_RN : RND_NONE);
}

/*
 * atom and red compiled: the integer operations a host atomic makes in
 * one instruction (inc and dec, and the float ones, are the
 * interpreter's).
 */
static bool atomic_native(const struct ptx_insn *in)
{
	switch (in->aop) {
	case AOP_ADD: case AOP_CAS: case AOP_EXCH: case AOP_MIN: case AOP_MAX:
	case AOP_AND: case AOP_OR: case AOP_XOR:
		return is_integer(in->type);
	default:
		return false;
	}
}

bool ptx_jit_native(const struct ptx_insn *in)
{
	struct ptx_type ty = in->type;
	bool integer = is_integer(ty);
	unsigned int i;

	/* frame operands need nothing: a kernel (no calls) has its frame at 0 */
	for (i = 0; i < in->nopnd; i++)
		if (in->o[i].kind == PO_SREG && sreg_clock(in->o[i].sreg))
			return false;
	switch (in->op) {
	case OP_LD: case OP_ST:
		return in->space != PS_PARAM || in->op == OP_LD;
	case OP_BRA: case OP_RET: case OP_EXIT: case OP_BAR: case OP_MEMBAR:
	case OP_CVTA:
		return true;
	case OP_ATOM: case OP_RED:
		return atomic_native(in);
	case OP_MOV:
		return in->o[0].kind != PO_VEC && in->o[1].kind != PO_VEC &&
		       !ptx_type_half(ty);
	case OP_SELP:
		return !ptx_type_half(ty);
	case OP_SETP:
		if (ty.cls == PC_F)
			return !(in->flags & PF_FTZ);
		return integer;
	case OP_CVT:
		return !(in->flags & (PF_SAT | PF_FTZ | PF_RELU |
				      PF_SATFINITE)) && cvt_native(in);
	case OP_ADD: case OP_SUB:
		if (ty.cls == PC_F)
			return (in->rnd == RND_NONE || in->rnd == RND_RN) &&
			       !(in->flags & (PF_FTZ | PF_SAT));
		return integer && !(in->flags & PF_SAT);
	case OP_MUL:
		if (ty.cls == PC_F)
			return (in->rnd == RND_NONE || in->rnd == RND_RN) &&
			       !(in->flags & (PF_FTZ | PF_SAT));
		return integer;
	case OP_MAD: case OP_FMA:
		if (ty.cls == PC_F)
			return (ptx_jit_host_fma || ty.size == 4) &&
			       in->rnd == RND_RN &&
			       !(in->flags & (PF_FTZ | PF_SAT));
		return integer && !(in->flags & PF_SAT);
	case OP_NEG: case OP_ABS:
		return integer || (ty.cls == PC_F && !(in->flags & PF_FTZ));
	case OP_DIV:
		if (ty.cls == PC_F)
			return in->rnd == RND_RN &&
			       !(in->flags & (PF_FTZ | PF_SAT | PF_APPROX));
		return integer;
	case OP_SQRT: case OP_RCP:
		return ty.cls == PC_F && in->rnd == RND_RN &&
		       !(in->flags & (PF_FTZ | PF_SAT | PF_APPROX));
	case OP_MIN: case OP_MAX:
		if (ty.cls == PC_F)
			return in->nopnd == 3 &&
			       !(in->flags & (PF_FTZ | PF_NAN | PF_RELU));
		return integer;
	case OP_REM: case OP_SHL: case OP_SHR:
		return integer;
	case OP_AND: case OP_OR: case OP_XOR: case OP_NOT: case OP_CNOT:
		return integer || ty.cls == PC_PRED;
	default:
		return false;
	}
}

const struct ptx_insn *ptx_jit_uncompiled(const struct cumc_ptx_function *fn)
{
	const struct ptx_insn *in;
	uint32_t pc;

	for (pc = 0; pc < fn->ninsns; pc++)
		switch ((in = &fn->insns[pc])->op) {
		case OP_CALL: case OP_SHFL: case OP_VOTE: case OP_MATCH:
		case OP_REDUX: case OP_ACTIVEMASK: case OP_WARPSYNC:
			return in;
		case OP_BAR:
			if (in->wmode != BAR_SYNC || in->nopnd != 1 ||
			    in->o[0].kind != PO_IMM || in->o[0].imm)
				return in;
			break;
		default:
			break;
		}
	return NULL;
}

/* ---- Integer and float operations ---- */

static LLVMValueRef mul_hi(struct tr *t, LLVMValueRef a, LLVMValueRef b,
			   struct ptx_type ty)
{
	bool s = ty.cls == PC_S;
	LLVMValueRef wa = s ? ptx_jit_llvm.LLVMBuildSExt(t->b, a, t->i128, "") :
			      ptx_jit_llvm.LLVMBuildZExt(t->b, a, t->i128, "");
	LLVMValueRef wb = s ? ptx_jit_llvm.LLVMBuildSExt(t->b, b, t->i128, "") :
			      ptx_jit_llvm.LLVMBuildZExt(t->b, b, t->i128, "");
	LLVMValueRef p = ptx_jit_llvm.LLVMBuildMul(t->b, wa, wb, "");
	LLVMValueRef n = ptx_jit_cint(t->i128, ty.size * 8);

	p = s ? ptx_jit_llvm.LLVMBuildAShr(t->b, p, n, "") :
		ptx_jit_llvm.LLVMBuildLShr(t->b, p, n, "");
	return ptx_jit_llvm.LLVMBuildTrunc(t->b, p, t->i64, "");
}

static LLVMValueRef product(struct tr *t, const struct ptx_insn *in,
			    LLVMValueRef a, LLVMValueRef b)
{
	if (in->flags & PF_HI)
		return mul_hi(t, a, b, in->type);
	return ptx_jit_llvm.LLVMBuildMul(t->b, a, b, "");
}

/* div and rem as exec_int.c answers them: all ones for a zero divisor. */
static LLVMValueRef divide(struct tr *t, struct ptx_type ty, LLVMValueRef a,
			   LLVMValueRef b, bool rem)
{
	LLVMValueRef zero = ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntEQ, b,
						       ptx_jit_i64c(t, 0), "");
	LLVMValueRef neg1, safe, r;

	if (ty.cls != PC_S) {
		safe = ptx_jit_llvm.LLVMBuildSelect(t->b, zero,
						    ptx_jit_i64c(t, 1), b, "");
		r = rem ? ptx_jit_llvm.LLVMBuildURem(t->b, a, safe, "") :
			  ptx_jit_llvm.LLVMBuildUDiv(t->b, a, safe, "");
		return ptx_jit_llvm.LLVMBuildSelect(t->b, zero,
			ptx_jit_i64c(t, ~0ull), r, "");
	}
	neg1 = ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntEQ, b,
					  ptx_jit_i64c(t, ~0ull), "");
	safe = ptx_jit_llvm.LLVMBuildSelect(t->b,
		ptx_jit_llvm.LLVMBuildOr(t->b, zero, neg1, ""),
		ptx_jit_i64c(t, 1), b, "");
	r = rem ? ptx_jit_llvm.LLVMBuildSRem(t->b, a, safe, "") :
		  ptx_jit_llvm.LLVMBuildSDiv(t->b, a, safe, "");
	r = ptx_jit_llvm.LLVMBuildSelect(t->b, neg1, rem ? ptx_jit_i64c(t, 0) :
		ptx_jit_llvm.LLVMBuildNeg(t->b, a, ""), r, "");
	return ptx_jit_llvm.LLVMBuildSelect(t->b, zero,
					    ptx_jit_i64c(t, ~0ull), r, "");
}

static LLVMValueRef shift(struct tr *t, const struct ptx_insn *in,
			  LLVMValueRef a, LLVMValueRef n)
{
	unsigned int bits = in->type.size * 8;
	LLVMValueRef big, amt;

	n = ptx_jit_llvm.LLVMBuildAnd(t->b, n,
				      ptx_jit_i64c(t, 0xffffffffu), "");
	big = ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntUGE, n,
					 ptx_jit_i64c(t, bits), "");
	if (in->op == OP_SHR && in->type.cls == PC_S) {
		amt = ptx_jit_llvm.LLVMBuildSelect(t->b, big,
						   ptx_jit_i64c(t, 63), n, "");
		return ptx_jit_llvm.LLVMBuildAShr(t->b, a, amt, "");
	}
	amt = ptx_jit_llvm.LLVMBuildSelect(t->b, big,
					   ptx_jit_i64c(t, 0), n, "");
	a = in->op == OP_SHL ? ptx_jit_llvm.LLVMBuildShl(t->b, a, amt, "") :
			       ptx_jit_llvm.LLVMBuildLShr(t->b, a, amt, "");
	return ptx_jit_llvm.LLVMBuildSelect(t->b, big,
					    ptx_jit_i64c(t, 0), a, "");
}

static LLVMIntPredicate int_pred(enum ptx_cmp cmp, bool s)
{
	switch (cmp) {
	case CMP_EQ: return LLVMIntEQ;
	case CMP_NE: return LLVMIntNE;
	case CMP_LT: return s ? LLVMIntSLT : LLVMIntULT;
	case CMP_LE: return s ? LLVMIntSLE : LLVMIntULE;
	case CMP_GT: return s ? LLVMIntSGT : LLVMIntUGT;
	case CMP_GE: return s ? LLVMIntSGE : LLVMIntUGE;
	case CMP_LO: return LLVMIntULT;
	case CMP_LS: return LLVMIntULE;
	case CMP_HI: return LLVMIntUGT;
	default: return LLVMIntUGE;
	}
}

static LLVMRealPredicate real_pred(enum ptx_cmp cmp)
{
	static const LLVMRealPredicate p[] = {
		[CMP_EQ] = LLVMRealOEQ, [CMP_NE] = LLVMRealONE,
		[CMP_LT] = LLVMRealOLT, [CMP_LE] = LLVMRealOLE,
		[CMP_GT] = LLVMRealOGT, [CMP_GE] = LLVMRealOGE,
		[CMP_EQU] = LLVMRealUEQ, [CMP_NEU] = LLVMRealUNE,
		[CMP_LTU] = LLVMRealULT, [CMP_LEU] = LLVMRealULE,
		[CMP_GTU] = LLVMRealUGT, [CMP_GEU] = LLVMRealUGE,
		[CMP_NUM] = LLVMRealORD, [CMP_NAN] = LLVMRealUNO,
	};

	return p[cmp];
}

/* The operand's bits as an f32 or f64 value. */
static LLVMValueRef fsrc(struct tr *t, const struct ptx_operand *o, bool single)
{
	LLVMValueRef v = src(t, o);

	if (!single)
		return ptx_jit_llvm.LLVMBuildBitCast(t->b, v, t->f64, "");
	v = ptx_jit_llvm.LLVMBuildTrunc(t->b, v, t->i32, "");
	return ptx_jit_llvm.LLVMBuildBitCast(t->b, v, t->f32, "");
}

static LLVMValueRef is_nan(struct tr *t, LLVMValueRef f)
{
	return ptx_jit_llvm.LLVMBuildFCmp(t->b, LLVMRealUNO, f, f, "");
}

/* ptx_setp_result: p and q from @r and the predicate operation. */
static void setp_result(struct tr *t, const struct ptx_insn *in, LLVMValueRef r)
{
	LLVMValueRef p = r, q = ptx_jit_llvm.LLVMBuildNot(t->b, r, ""), c;

	if (in->aop) {
		c = ptx_jit_truthy(t, src(t, &in->o[4]));
		switch (in->aop) {
		case AOP_AND:
			p = ptx_jit_llvm.LLVMBuildAnd(t->b, p, c, "");
			q = ptx_jit_llvm.LLVMBuildAnd(t->b, q, c, "");
			break;
		case AOP_OR:
			p = ptx_jit_llvm.LLVMBuildOr(t->b, p, c, "");
			q = ptx_jit_llvm.LLVMBuildOr(t->b, q, c, "");
			break;
		default:
			p = ptx_jit_llvm.LLVMBuildXor(t->b, p, c, "");
			q = ptx_jit_llvm.LLVMBuildXor(t->b, q, c, "");
		}
	}
	dst(t, &in->o[0], as_i64(t, p), 1);
	if (in->o[1].kind == PO_REG)
		dst(t, &in->o[1], as_i64(t, q), 1);
}

static uint64_t quiet_bit(bool single)
{
	return single ? 0x00400000u : 0x0008000000000000ull;
}

/* f64 bits @bits, quieted where @nan holds. */
static LLVMValueRef quieted(struct tr *t, LLVMValueRef nan, LLVMValueRef bits)
{
	return ptx_jit_llvm.LLVMBuildSelect(t->b, nan,
		ptx_jit_llvm.LLVMBuildOr(t->b, bits,
					 ptx_jit_i64c(t, quiet_bit(false)), ""),
		bits, "");
}

/* The f32 or f64 constant 1 of @fty, whose bits are @ity. */
static LLVMValueRef float_one(struct tr *t, bool single, LLVMTypeRef fty,
			      LLVMTypeRef ity)
{
	return ptx_jit_llvm.LLVMBuildBitCast(t->b, ptx_jit_cint(ity, single ?
		0x3f800000u : 0x3ff0000000000000ull), fty, "");
}

/*
 * f32 fma without the host's FMA (jit.c compiles for x86-64-v2 under
 * TCG): the product of the f32 operands is exact in f64, their sum with
 * c is rounded there to odd (an inexact sum whose last bit is even moves
 * one ulp toward the exact value, which Knuth's TwoSum gives: no f32
 * operands overflow an f64), and that to nearest f32.  Rounding to odd
 * first, in a format of at least twice the bits and two more, makes the
 * second rounding the correct one (Boldo and Melquiond).
 */
static LLVMValueRef fma32_through_f64(struct tr *t, LLVMValueRef *x)
{
	LLVMValueRef a, b, c, p, s, back, e, bits, to_odd, step;

	a = ptx_jit_llvm.LLVMBuildFPExt(t->b, x[1], t->f64, "");
	b = ptx_jit_llvm.LLVMBuildFPExt(t->b, x[2], t->f64, "");
	c = ptx_jit_llvm.LLVMBuildFPExt(t->b, x[3], t->f64, "");
	p = ptx_jit_llvm.LLVMBuildFMul(t->b, a, b, "");
	s = ptx_jit_llvm.LLVMBuildFAdd(t->b, p, c, "");
	back = ptx_jit_llvm.LLVMBuildFSub(t->b, s, p, "");
	e = ptx_jit_llvm.LLVMBuildFAdd(t->b, ptx_jit_llvm.LLVMBuildFSub(t->b,
			p, ptx_jit_llvm.LLVMBuildFSub(t->b, s, back, ""), ""),
		ptx_jit_llvm.LLVMBuildFSub(t->b, c, back, ""), "");
	bits = ptx_jit_llvm.LLVMBuildBitCast(t->b, s, t->i64, "");
	to_odd = ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntEQ,
		ptx_jit_llvm.LLVMBuildAnd(t->b, bits, ptx_jit_i64c(t, 1), ""),
		ptx_jit_i64c(t, 0), "");
	/* e a number other than 0: the sum was inexact (not inf or NaN) */
	to_odd = ptx_jit_llvm.LLVMBuildAnd(t->b, to_odd,
		ptx_jit_llvm.LLVMBuildFCmp(t->b, LLVMRealONE, e,
			ptx_jit_llvm.LLVMConstNull(t->f64), ""), "");
	/* toward e: up in magnitude where e has s's sign, else down */
	step = ptx_jit_llvm.LLVMBuildSelect(t->b,
		ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntSLT,
			ptx_jit_llvm.LLVMBuildXor(t->b, bits,
				ptx_jit_llvm.LLVMBuildBitCast(t->b, e, t->i64,
							      ""), ""),
			ptx_jit_i64c(t, 0), ""),
		ptx_jit_i64c(t, UINT64_MAX), ptx_jit_i64c(t, 1), "");
	bits = ptx_jit_llvm.LLVMBuildSelect(t->b, to_odd,
		ptx_jit_llvm.LLVMBuildAdd(t->b, bits, step, ""), bits, "");
	return ptx_jit_llvm.LLVMBuildFPTrunc(t->b,
		ptx_jit_llvm.LLVMBuildBitCast(t->b, bits, t->f64, ""),
		t->f32, "");
}

/* @in's operation on its operands @x[1] to @x[3], rounded to nearest. */
static LLVMValueRef float_arith(struct tr *t, const struct ptx_insn *in,
				LLVMTypeRef fty, LLVMTypeRef ity,
				LLVMValueRef *x)
{
	switch (in->op) {
	case OP_ADD: return ptx_jit_llvm.LLVMBuildFAdd(t->b, x[1], x[2], "");
	case OP_SUB: return ptx_jit_llvm.LLVMBuildFSub(t->b, x[1], x[2], "");
	case OP_MUL: return ptx_jit_llvm.LLVMBuildFMul(t->b, x[1], x[2], "");
	case OP_DIV: return ptx_jit_llvm.LLVMBuildFDiv(t->b, x[1], x[2], "");
	case OP_RCP:
		return ptx_jit_llvm.LLVMBuildFDiv(t->b, float_one(t,
			in->type.size == 4, fty, ity), x[1], "");
	case OP_SQRT: return ptx_jit_intrinsic(t, "llvm.sqrt", fty, &x[1], 1);
	case OP_NEG: return ptx_jit_llvm.LLVMBuildFNeg(t->b, x[1], "");
	case OP_ABS: return ptx_jit_intrinsic(t, "llvm.fabs", fty, &x[1], 1);
	default:
		if (!ptx_jit_host_fma)
			return fma32_through_f64(t, x);
		return ptx_jit_intrinsic(t, "llvm.fma", fty, &x[1], 3);
	}
}

/*
 * An f64 result where an operand is NaN, as exec_float.c's nan64(): the
 * first NaN in @in's order, quieted: the second operand of add, sub and
 * mul (the H200's), fma's b, then c, then a; div's a, then b (the host's,
 * which the interpreter keeps); the only one of the others.  An invalid
 * operation's NaN (no operand a NaN) is the host's, as there.
 */
static LLVMValueRef nan64_bits(struct tr *t, const struct ptx_insn *in,
			       LLVMValueRef *x, LLVMValueRef bits)
{
	static const uint8_t two[] = { 2, 1 }, three[] = { 2, 3, 1 };
	static const uint8_t first[] = { 1, 2 }, one[] = { 1 };
	const uint8_t *order = one;
	LLVMValueRef pick, any, nan;
	unsigned int n = 1;

	if (in->op == OP_ADD || in->op == OP_SUB || in->op == OP_MUL)
		order = two, n = 2;
	else if (in->op == OP_FMA || in->op == OP_MAD)
		order = three, n = 3;
	else if (in->op == OP_DIV)
		order = first, n = 2;
	pick = ptx_jit_llvm.LLVMBuildBitCast(t->b, x[order[n - 1]], t->i64, "");
	any = is_nan(t, x[order[n - 1]]);
	while (--n) {
		nan = is_nan(t, x[order[n - 1]]);
		pick = ptx_jit_llvm.LLVMBuildSelect(t->b, nan,
			ptx_jit_llvm.LLVMBuildBitCast(t->b, x[order[n - 1]],
						      t->i64, ""), pick, "");
		any = ptx_jit_llvm.LLVMBuildOr(t->b, any, nan, "");
	}
	return ptx_jit_llvm.LLVMBuildSelect(t->b, any,
		ptx_jit_llvm.LLVMBuildOr(t->b, pick,
					 ptx_jit_i64c(t, quiet_bit(false)), ""),
		bits, "");
}

/*
 * min and max as exec_float.c's fminmax(), the bits of the operand
 * chosen: a NaN loses to a number (of two NaNs, b comes out), -0 is below
 * +0 (of equal operands, the sign bits decide: other equal values have
 * the same bits).
 */
static LLVMValueRef float_minmax(struct tr *t, const struct ptx_insn *in,
				 LLVMTypeRef ity, LLVMValueRef a,
				 LLVMValueRef b)
{
	bool max = in->op == OP_MAX;
	LLVMRealPredicate before = max ? LLVMRealOGT : LLVMRealOLT;
	LLVMValueRef ab = ptx_jit_llvm.LLVMBuildBitCast(t->b, a, ity, "");
	LLVMValueRef bb = ptx_jit_llvm.LLVMBuildBitCast(t->b, b, ity, "");
	LLVMValueRef r = max ? ptx_jit_llvm.LLVMBuildAnd(t->b, ab, bb, "") :
			       ptx_jit_llvm.LLVMBuildOr(t->b, ab, bb, "");

	r = ptx_jit_llvm.LLVMBuildSelect(t->b,
		ptx_jit_llvm.LLVMBuildFCmp(t->b, before, b, a, ""), bb, r, "");
	r = ptx_jit_llvm.LLVMBuildSelect(t->b,
		ptx_jit_llvm.LLVMBuildFCmp(t->b, before, a, b, ""), ab, r, "");
	r = ptx_jit_llvm.LLVMBuildSelect(t->b, is_nan(t, b), ab, r, "");
	return ptx_jit_llvm.LLVMBuildSelect(t->b, is_nan(t, a), bb, r, "");
}

/*
 * f32 and f64 arithmetic as exec_float.c gives it: an f32 NaN result is
 * 0x7fffffff; an f64 NaN operand comes out quieted (nan64_bits(); min and
 * max's only where both are NaN).
 */
static void float_op(struct tr *t, const struct ptx_insn *in)
{
	bool single = in->type.size == 4;
	LLVMTypeRef fty = single ? t->f32 : t->f64, ity = single ? t->i32 : t->i64;
	LLVMValueRef x[4] = { NULL }, bits, nan;
	unsigned int i;

	for (i = 1; i < in->nopnd && i < 4; i++)
		x[i] = fsrc(t, &in->o[i], single);
	if (in->op == OP_MIN || in->op == OP_MAX) {
		bits = float_minmax(t, in, ity, x[1], x[2]);
		nan = ptx_jit_llvm.LLVMBuildAnd(t->b, is_nan(t, x[1]),
						is_nan(t, x[2]), "");
		if (!single)
			bits = quieted(t, nan, bits);
	} else {
		LLVMValueRef r = float_arith(t, in, fty, ity, x);

		bits = ptx_jit_llvm.LLVMBuildBitCast(t->b, r, ity, "");
		nan = is_nan(t, r);
		if (!single)
			bits = nan64_bits(t, in, x, bits);
	}
	if (single)
		bits = ptx_jit_llvm.LLVMBuildSelect(t->b, nan,
			ptx_jit_cint(t->i32, 0x7fffffffu), bits, "");
	dst(t, &in->o[0],
	    ptx_jit_llvm.LLVMBuildZExt(t->b, bits, t->i64, ""), in->type.size);
}

static void int_op(struct tr *t, const struct ptx_insn *in)
{
	struct ptx_type ty = in->type, ct = ty;
	LLVMValueRef a = srcx(t, &in->o[1], ty), b = NULL, r;
	unsigned int size = ty.size;
	bool s = ty.cls == PC_S;

	if (in->nopnd > 2 && in->op != OP_SHL && in->op != OP_SHR)
		b = srcx(t, &in->o[2], ty);
	switch (in->op) {
	case OP_ADD: r = ptx_jit_llvm.LLVMBuildAdd(t->b, a, b, ""); break;
	case OP_SUB: r = ptx_jit_llvm.LLVMBuildSub(t->b, a, b, ""); break;
	case OP_MUL:
		r = product(t, in, a, b);
		if (in->flags & PF_WIDE)
			size *= 2;
		break;
	case OP_MAD:
		if (in->flags & PF_WIDE)
			ct.size *= 2;
		r = ptx_jit_llvm.LLVMBuildAdd(t->b, product(t, in, a, b),
					      srcx(t, &in->o[3], ct), "");
		size = ct.size;
		break;
	case OP_DIV: r = divide(t, ty, a, b, false); break;
	case OP_REM: r = divide(t, ty, a, b, true); break;
	case OP_MIN: case OP_MAX:
		r = ptx_jit_llvm.LLVMBuildSelect(t->b,
			ptx_jit_llvm.LLVMBuildICmp(t->b,
			in->op == OP_MIN ? (s ? LLVMIntSLT : LLVMIntULT) :
			(s ? LLVMIntSGT : LLVMIntUGT), a, b, ""), a, b, "");
		break;
	case OP_ABS:
		r = ptx_jit_llvm.LLVMBuildSelect(t->b,
			ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntSLT, a,
			ptx_jit_i64c(t, 0), ""),
			ptx_jit_llvm.LLVMBuildNeg(t->b, a, ""), a, "");
		break;
	case OP_NEG: r = ptx_jit_llvm.LLVMBuildNeg(t->b, a, ""); break;
	case OP_AND: r = ptx_jit_llvm.LLVMBuildAnd(t->b, a, b, ""); break;
	case OP_OR: r = ptx_jit_llvm.LLVMBuildOr(t->b, a, b, ""); break;
	case OP_XOR: r = ptx_jit_llvm.LLVMBuildXor(t->b, a, b, ""); break;
	case OP_NOT:
		r = ty.cls == PC_PRED ?
		    as_i64(t, ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntEQ, a,
				ptx_jit_i64c(t, 0), "")) :
		    ptx_jit_llvm.LLVMBuildNot(t->b, a, "");
		break;
	case OP_CNOT:
		r = as_i64(t,
			   ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntEQ, a,
						      ptx_jit_i64c(t, 0), ""));
		break;
	default:	/* shl, shr */
		r = shift(t, in, a, src(t, &in->o[2]));
	}
	dst(t, &in->o[0], r, size);
}

static void setp(struct tr *t, const struct ptx_insn *in)
{
	LLVMValueRef r;

	if (in->type.cls == PC_F) {
		bool single = in->type.size == 4;

		r = ptx_jit_llvm.LLVMBuildFCmp(t->b, real_pred(in->cmp),
					       fsrc(t, &in->o[2], single),
					       fsrc(t, &in->o[3], single), "");
	} else {
		r = ptx_jit_llvm.LLVMBuildICmp(t->b,
			int_pred(in->cmp, in->type.cls == PC_S),
			srcx(t, &in->o[2], in->type),
			srcx(t, &in->o[3], in->type), "");
	}
	setp_result(t, in, r);
}

/* cvt's integer rounding modes, as LLVM rounds to an integral value. */
static const char *const to_integral[] = {
	[RND_RNI] = "llvm.nearbyint", [RND_RZI] = "llvm.trunc",
	[RND_RMI] = "llvm.floor", [RND_RPI] = "llvm.ceil",
};

/*
 * cvt from f32 or f64 to an integer, as ptx_float_to_int(): rounded,
 * clamped to the range; NaN 0 from f32 to 32 bits or fewer, else the
 * destination's sign bit alone.
 */
static LLVMValueRef cvt_float_to_int(struct tr *t, const struct ptx_insn *in)
{
	bool single = in->type2.size == 4;
	unsigned int bits = in->type.size * 8;
	LLVMTypeRef tys[2] = { ptx_jit_value_int(t, in->type.size),
			       single ? t->f32 : t->f64 };
	LLVMValueRef f = fsrc(t, &in->o[1], single), v;

	f = ptx_jit_intrinsic(t, to_integral[in->rnd], tys[1], &f, 1);
	v = ptx_jit_intrinsic_of(t, in->type.cls == PC_S ? "llvm.fptosi.sat" :
				 "llvm.fptoui.sat", tys, 2, &f, 1);
	return ptx_jit_llvm.LLVMBuildSelect(t->b, is_nan(t, f),
		ptx_jit_i64c(t, !single || bits == 64 ? 1ull << (bits - 1) : 0),
		ptx_jit_llvm.LLVMBuildZExt(t->b, v, t->i64, ""), "");
}

/*
 * cvt to f32 or f64, as exec_float.c's convert(): from an integer
 * rounded to nearest; from a float of the same size to an integral value
 * (an f32 NaN the canonical one); f32 to f64 (a NaN quieted), .rn f64 to
 * f32 (a NaN the quiet one of its sign, no payload).
 */
static LLVMValueRef cvt_to_float(struct tr *t, const struct ptx_insn *in)
{
	bool single = in->type.size == 4, from_single = in->type2.size == 4;
	LLVMTypeRef fty = single ? t->f32 : t->f64, ity = single ? t->i32 : t->i64;
	LLVMValueRef f, r, bits, nan;

	if (in->type2.cls != PC_F) {
		f = srcx(t, &in->o[1], in->type2);
		r = in->type2.cls == PC_S ?
		    ptx_jit_llvm.LLVMBuildSIToFP(t->b, f, fty, "") :
		    ptx_jit_llvm.LLVMBuildUIToFP(t->b, f, fty, "");
		return ptx_jit_llvm.LLVMBuildZExt(t->b,
			ptx_jit_llvm.LLVMBuildBitCast(t->b, r, ity, ""),
			t->i64, "");
	}
	f = fsrc(t, &in->o[1], from_single);
	nan = is_nan(t, f);
	if (single == from_single)
		r = ptx_jit_intrinsic(t, to_integral[in->rnd], fty, &f, 1);
	else if (single)
		r = ptx_jit_llvm.LLVMBuildFPTrunc(t->b, f, fty, "");
	else
		r = ptx_jit_llvm.LLVMBuildFPExt(t->b, f, fty, "");
	bits = ptx_jit_llvm.LLVMBuildBitCast(t->b, r, ity, "");
	if (single)
		bits = ptx_jit_llvm.LLVMBuildSelect(t->b, nan, from_single ?
			ptx_jit_cint(t->i32, 0x7fffffffu) :
			ptx_jit_llvm.LLVMBuildOr(t->b,
				ptx_jit_cint(t->i32, 0x7fc00000u),
				ptx_jit_llvm.LLVMBuildAnd(t->b, bits,
					ptx_jit_cint(t->i32, 0x80000000u), ""),
				""), bits, "");
	else if (from_single)
		bits = quieted(t, nan, bits);
	return ptx_jit_llvm.LLVMBuildZExt(t->b, bits, t->i64, "");
}

/*
 * cvt (ptx_dst_cvt: a signed result narrower than its register fills
 * it).
 */
static void cvt(struct tr *t, const struct ptx_insn *in)
{
	const struct ptx_operand *o = &in->o[0];
	unsigned int size = in->type.size;
	LLVMValueRef v;

	if (in->type.cls == PC_F)
		v = cvt_to_float(t, in);
	else if (in->type2.cls == PC_F)
		v = cvt_float_to_int(t, in);
	else
		v = srcx(t, &in->o[1], in->type2);

	if (o->kind == PO_REG && in->type.cls == PC_S &&
	    t->fn->reg_types[o->reg].size > size) {
		v = ptx_jit_extend(t, v, size, true);
		size = t->fn->reg_types[o->reg].size;
	}
	dst(t, o, v, size);
}

/* ---- Memory ---- */

/* The local window of the thread: local + index * local_size. */
static LLVMValueRef local_base(struct tr *t)
{
	LLVMValueRef base =
		ptx_jit_load_field(t, t->run, RUN_FIELD(local), t->p8);
	LLVMValueRef n =
		ptx_jit_load_field(t, t->run, RUN_FIELD(local_size), t->i64);

	return ptx_jit_byte_ptr(t, base,
				ptx_jit_llvm.LLVMBuildMul(t->b, n,
				ptx_jit_llvm.LLVMBuildZExt(t->b,
				t->idx, t->i64, ""), ""));
}

static void cvta(struct tr *t, const struct ptx_insn *in)
{
	LLVMValueRef v = src(t, &in->o[1]), base = NULL;

	if (in->space == PS_SHARED)
		base = ptx_jit_load_field(t, t->run, RUN_FIELD(shared), t->p8);
	else if (in->space == PS_LOCAL)
		base = local_base(t);
	if (base) {
		base = ptx_jit_uniform(t,
				       ptx_jit_llvm.LLVMBuildPtrToInt(t->b,
				       base, t->s64, ""));
		v = in->flags & PF_TO ?
			ptx_jit_llvm.LLVMBuildSub(t->b, v, base, "") :
			ptx_jit_llvm.LLVMBuildAdd(t->b, v, base, "");
	}
	dst(t, &in->o[0], v, 8);
}

LLVMValueRef ptx_jit_within(struct tr *t, LLVMValueRef addr, unsigned int size,
			    LLVMValueRef lo, LLVMValueRef hi)
{
	LLVMValueRef ok = ptx_jit_llvm.LLVMBuildAnd(t->b,
		ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntUGE, addr, lo, ""),
		ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntULE, addr, hi, ""), "");

	return ptx_jit_llvm.LLVMBuildAnd(t->b, ok,
		ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntULE,
		ptx_jit_cint(t->s64, size),
		ptx_jit_llvm.LLVMBuildSub(t->b, hi, addr, ""), ""), "");
}

/*
 * The host address of an access of @size bytes at @addr in @in's space:
 * the checks of mem.c inline (a window; a device range this instruction
 * reached before), else mem.c through the run's callback, which faults.
 */
static LLVMValueRef mem_access(struct tr *t, const struct ptx_insn *in,
				uint32_t pc, LLVMValueRef addr, unsigned int size,
			   bool write)
{
	LLVMBasicBlockRef fast = ptx_jit_new_block(t);
	LLVMBasicBlockRef slow = ptx_jit_new_block(t);
	LLVMBasicBlockRef join = ptx_jit_new_block(t);
	LLVMValueRef ok, ptr = NULL, base, slow_ptr, args[7], fn, merged;
	LLVMValueRef aligned = ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntEQ,
		ptx_jit_llvm.LLVMBuildAnd(t->b, addr,
		ptx_jit_i64c(t, size - 1), ""), ptx_jit_i64c(t, 0), "");
	uint32_t site = UINT32_MAX;

	switch (in->space) {
	case PS_PARAM:
		base = ptx_jit_load_field(t, t->run, RUN_FIELD(params), t->p8);
		ok = ptx_jit_within(t, addr, size, ptx_jit_i64c(t, 0),
				    ptx_jit_i64c(t, t->fn->param_size));
		ptr = ptx_jit_byte_ptr(t, base, addr);
		break;
	case PS_SHARED:
		base = ptx_jit_load_field(t, t->run, RUN_FIELD(shared), t->p8);
		ok = ptx_jit_within(t, addr, size, ptx_jit_i64c(t, 0),
				    ptx_jit_load_field(t, t->run,
						       RUN_FIELD(shared_size),
						       t->i64));
		ptr = ptx_jit_byte_ptr(t, base, addr);
		break;
	case PS_LOCAL:
		ok = ptx_jit_within(t, addr, size, ptx_jit_i64c(t, 0),
				    ptx_jit_load_field(t, t->run,
						       RUN_FIELD(local_size),
						       t->i64));
		ptr = ptx_jit_byte_ptr(t, local_base(t), addr);
		break;
	default: {
		LLVMValueRef sites =
			ptx_jit_load_field(t, t->run, RUN_FIELD(sites), t->p8);
		size_t off = (size_t)t->sites * sizeof(struct ptx_jit_site);

		site = t->sites++;
		ok = ptx_jit_within(t, addr, size,
			ptx_jit_load_field(t, sites,
				off + offsetof(struct ptx_jit_site, lo),
				t->i64),
			ptx_jit_load_field(t, sites,
				off + offsetof(struct ptx_jit_site, hi),
				t->i64));
		ptr = ptx_jit_llvm.LLVMBuildIntToPtr(t->b, addr, t->p8, "");
	}
	}
	if (write && in->space == PS_PARAM)
		ok = ptx_jit_cint(t->i1, 0);
	ok = ptx_jit_llvm.LLVMBuildAnd(t->b, ok, aligned, "");
	ptx_jit_llvm.LLVMBuildCondBr(t->b, ok, fast, slow);
	/* the two ways meet through t->ti, which mem2reg makes a phi */
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, fast);
	ptx_jit_llvm.LLVMBuildStore(t->b,
		ptx_jit_llvm.LLVMBuildPtrToInt(t->b, ptr, t->i64, ""), t->ti);
	ptx_jit_llvm.LLVMBuildBr(t->b, join);

	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, slow);
	args[0] = t->run;
	args[1] = t->idx;
	args[2] = ptx_jit_cint(t->i32, pc);
	args[3] = addr;
	args[4] = ptx_jit_cint(t->i32, size);
	args[5] = ptx_jit_cint(t->i32, write);
	args[6] = ptx_jit_cint(t->i32, site);
	fn = ptx_jit_load_field(t, t->run, RUN_FIELD(mem),
				ptx_jit_llvm.LLVMPointerType(t->mem_ty, 0));
	slow_ptr = ptx_jit_llvm.LLVMBuildPtrToInt(t->b,
		ptx_jit_llvm.LLVMBuildCall2(t->b, t->mem_ty,
					    fn, args, 7, ""), t->i64, "");
	ptx_jit_llvm.LLVMBuildStore(t->b, slow_ptr, t->ti);
	ptx_jit_llvm.LLVMBuildCondBr(t->b, ptx_jit_llvm.LLVMBuildICmp(t->b,
		LLVMIntEQ, slow_ptr, ptx_jit_i64c(t, 0), ""), t->fault, join);

	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, join);
	merged = ptx_jit_llvm.LLVMBuildLoad2(t->b, t->i64, t->ti, "");
	return ptx_jit_llvm.LLVMBuildIntToPtr(t->b, merged, t->p8, "");
}

LLVMTypeRef ptx_jit_int_type(struct tr *t, unsigned int size)
{
	return ptx_jit_llvm.LLVMIntTypeInContext(t->c, size * 8);
}

void ptx_jit_set_loaded(struct tr *t, const struct ptx_insn *in, uint32_t r,
			LLVMValueRef x)
{
	if (in->type.cls == PC_S)
		x = mask(t, ptx_jit_llvm.LLVMBuildSExt(t->b, x, t->i64, ""),
			 t->fn->reg_types[r].size);
	else
		x = ptx_jit_llvm.LLVMBuildZExt(t->b, x, t->i64, "");
	ptx_jit_set_reg(t, r, x);
}

void ptx_jit_vector_access(struct tr *t, LLVMValueRef p, unsigned int size,
			   unsigned int n, bool st, LLVMValueRef *elems)
{
	LLVMTypeRef ety = ptx_jit_int_type(t, size);
	LLVMTypeRef v2 = ptx_jit_llvm.LLVMVectorType(t->s64, 2);
	LLVMTypeRef wty = ptx_jit_int_type(t, size * n <= 8 ? size * n : 8);
	LLVMValueRef half[2] = { ptx_jit_cint(t->s64, 0),
		ptx_jit_cint(t->s64, 0) }, x;
	bool wide = size * n == 16;
	unsigned int i, bit;

	if (!st) {
		x = ptx_jit_llvm.LLVMBuildLoad2(t->b, wide ? v2 : wty,
			ptx_jit_typed_ptr(t, p, wide ? v2 : wty), "");
		if (wide) {
			ptx_jit_llvm.LLVMSetVolatile(x, true);
			half[0] = ptx_jit_llvm.LLVMBuildExtractElement(t->b, x,
				ptx_jit_cint(t->s32, 0), "");
			half[1] = ptx_jit_llvm.LLVMBuildExtractElement(t->b, x,
				ptx_jit_cint(t->s32, 1), "");
		} else {
			ptx_jit_llvm.LLVMSetOrdering(x,
				LLVMAtomicOrderingMonotonic);
			half[0] =
				ptx_jit_llvm.LLVMBuildZExt(t->b, x, t->s64, "");
		}
		ptx_jit_llvm.LLVMSetAlignment(x, size * n);
		for (i = 0; i < n; i++) {
			bit = i * size * 8;
			elems[i] = ptx_jit_llvm.LLVMBuildTrunc(t->b,
				ptx_jit_llvm.LLVMBuildLShr(t->b, half[bit / 64],
				ptx_jit_cint(t->s64, bit % 64), ""), ety, "");
		}
		return;
	}
	for (i = 0; i < n; i++) {
		bit = i * size * 8;
		half[bit / 64] = ptx_jit_llvm.LLVMBuildOr(t->b, half[bit / 64],
			ptx_jit_llvm.LLVMBuildShl(t->b,
			ptx_jit_llvm.LLVMBuildZExt(t->b, elems[i], t->s64, ""),
			ptx_jit_cint(t->s64, bit % 64), ""), "");
	}
	if (wide) {
		x = ptx_jit_llvm.LLVMBuildInsertElement(t->b,
			ptx_jit_llvm.LLVMGetUndef(v2), half[0],
			ptx_jit_cint(t->s32, 0), "");
		x = ptx_jit_llvm.LLVMBuildInsertElement(t->b, x, half[1],
			ptx_jit_cint(t->s32, 1), "");
		x = ptx_jit_llvm.LLVMBuildStore(t->b, x,
						ptx_jit_typed_ptr(t, p, v2));
		ptx_jit_llvm.LLVMSetVolatile(x, true);
	} else {
		x = ptx_jit_llvm.LLVMBuildStore(t->b,
			ptx_jit_llvm.LLVMBuildTrunc(t->b, half[0], wty, ""),
			ptx_jit_typed_ptr(t, p, wty));
		ptx_jit_llvm.LLVMSetOrdering(x, LLVMAtomicOrderingMonotonic);
	}
	ptx_jit_llvm.LLVMSetAlignment(x, size * n);
}

uint32_t ptx_jit_value_reg(const struct ptx_operand *v, unsigned int i)
{
	return v->kind == PO_VEC ? v->vec[i] :
	       v->kind == PO_REG ? v->reg : PTX_NO_REG;
}

LLVMValueRef ptx_jit_value_elem(struct tr *t, const struct ptx_operand *v,
				unsigned int i)
{
	uint32_t r = ptx_jit_value_reg(v, i);

	return r != PTX_NO_REG ? ptx_jit_reg(t, r) : ptx_jit_imm(t, v);
}

/* ld and st: a relaxed atomic of the size, a vector in one access. */
static void load_store(struct tr *t, const struct ptx_insn *in, uint32_t pc)
{
	bool st = in->op == OP_ST;
	const struct ptx_operand *v = &in->o[st ? 1 : 0];
	const struct ptx_operand *a = &in->o[st ? 0 : 1];
	unsigned int size = in->type.size, n = v->kind == PO_VEC ? v->nvec : 1;
	LLVMValueRef addr = ptx_jit_address(t, a), p, elems[4];
	unsigned int i;

	p = mem_access(t, in, pc, addr, size * n, st);
	for (i = 0; st && i < n; i++)
		elems[i] = ptx_jit_llvm.LLVMBuildTrunc(t->b,
			ptx_jit_value_elem(t, v, i),
			ptx_jit_int_type(t, size), "");
	ptx_jit_vector_access(t, p, size, n, st, elems);
	for (i = 0; !st && i < n; i++)
		if (ptx_jit_value_reg(v, i) != PTX_NO_REG)
			ptx_jit_set_loaded(t, in,
					   ptx_jit_value_reg(v, i), elems[i]);
}

/* The host atomic of @in's operation (atomic_native()). */
static LLVMAtomicRMWBinOp rmw_op(const struct ptx_insn *in)
{
	bool s = in->type.cls == PC_S;

	switch (in->aop) {
	case AOP_ADD: return LLVMAtomicRMWBinOpAdd;
	case AOP_AND: return LLVMAtomicRMWBinOpAnd;
	case AOP_OR: return LLVMAtomicRMWBinOpOr;
	case AOP_XOR: return LLVMAtomicRMWBinOpXor;
	case AOP_MIN: return s ? LLVMAtomicRMWBinOpMin : LLVMAtomicRMWBinOpUMin;
	case AOP_MAX: return s ? LLVMAtomicRMWBinOpMax : LLVMAtomicRMWBinOpUMax;
	default: return LLVMAtomicRMWBinOpXchg;
	}
}

LLVMValueRef ptx_jit_atomic_at(struct tr *t, const struct ptx_insn *in,
			       LLVMValueRef p, LLVMValueRef b, LLVMValueRef c)
{
	LLVMValueRef old;

	p = ptx_jit_typed_ptr(t, p, ptx_jit_llvm.LLVMTypeOf(b));
	if (in->aop != AOP_CAS)
		return ptx_jit_llvm.LLVMBuildAtomicRMW(t->b, rmw_op(in), p, b,
			LLVMAtomicOrderingSequentiallyConsistent, false);
	old = ptx_jit_llvm.LLVMBuildAtomicCmpXchg(t->b, p, b, c,
		LLVMAtomicOrderingSequentiallyConsistent,
		LLVMAtomicOrderingSequentiallyConsistent, false);
	return ptx_jit_llvm.LLVMBuildExtractValue(t->b, old, 0, "");
}

/*
 * atom and red on integers, as exec_mem.c's atomic(), where mem_access()
 * allows a write; atom's destination the old value.
 */
static void atomic(struct tr *t, const struct ptx_insn *in, uint32_t pc)
{
	unsigned int first = in->op == OP_ATOM, size = in->type.size;
	const struct ptx_operand *a = &in->o[first];
	LLVMTypeRef ity = ptx_jit_int_type(t, size);
	LLVMValueRef p, b, c = NULL, old;

	p = mem_access(t, in, pc, ptx_jit_address(t, a), size, true);
	b = ptx_jit_llvm.LLVMBuildTrunc(t->b, src(t, &in->o[first + 1]),
					ity, "");
	if (in->aop == AOP_CAS)
		c = ptx_jit_llvm.LLVMBuildTrunc(t->b,
			src(t, &in->o[first + 2]), ity, "");
	old = ptx_jit_atomic_at(t, in, p, b, c);
	if (first)
		dst(t, &in->o[0],
		    ptx_jit_llvm.LLVMBuildZExt(t->b, old, t->i64, ""), size);
}

/* ---- Control and the interpreter's instructions ---- */

void ptx_jit_slot_row(struct tr *t, LLVMValueRef index, struct slot_row *row)
{
	LLVMValueRef base = ptx_jit_typed_ptr(t,
		ptx_jit_load_field(t, t->run, RUN_FIELD(regs), t->p8), t->s64);
	LLVMValueRef i = ptx_jit_llvm.LLVMBuildZExt(t->b, index, t->s64, "");

	row->t = t;
	row->first = ptx_jit_llvm.LLVMBuildGEP2(t->b, t->s64, base, &i, 1, "");
	row->stride = ptx_jit_llvm.LLVMBuildZExt(t->b, ptx_jit_load_field(t,
		t->run, RUN_FIELD(nthreads), t->s32), t->s64, "");
}

LLVMValueRef ptx_jit_slot_in(const struct slot_row *row, uint32_t r)
{
	struct tr *t = row->t;
	LLVMValueRef i = ptx_jit_llvm.LLVMBuildMul(t->b, row->stride,
						   ptx_jit_cint(t->s64, r), "");

	return ptx_jit_llvm.LLVMBuildGEP2(t->b, t->s64, row->first, &i, 1, "");
}

static void spill(void *arg, uint32_t r)
{
	const struct slot_row *row = arg;
	struct tr *t = row->t;

	ptx_jit_llvm.LLVMBuildStore(t->b, ptx_jit_reg(t, r),
				    ptx_jit_slot_in(row, r));
}

static void fill(void *arg, uint32_t r)
{
	const struct slot_row *row = arg;
	struct tr *t = row->t;

	ptx_jit_set_reg(t, r, ptx_jit_llvm.LLVMBuildLoad2(t->b, t->i64,
		ptx_jit_slot_in(row, r), ""));
}

/* An instruction the interpreter runs: its registers through the slots. */
static void step(struct tr *t, const struct ptx_insn *in, uint32_t pc)
{
	LLVMValueRef args[3] = { t->run, t->idx, ptx_jit_cint(t->i32, pc) }, fn,
		r;
	LLVMBasicBlockRef ok = ptx_jit_new_block(t);
	struct slot_row row;

	ptx_jit_slot_row(t, t->idx, &row);
	ptx_jit_insn_regs(in, spill, &row);
	fn = ptx_jit_load_field(t, t->run, RUN_FIELD(step),
				ptx_jit_llvm.LLVMPointerType(t->step_ty, 0));
	r = ptx_jit_llvm.LLVMBuildCall2(t->b, t->step_ty, fn, args, 3, "");
	ptx_jit_llvm.LLVMBuildCondBr(t->b, ptx_jit_truthy(t,
		ptx_jit_llvm.LLVMBuildZExt(t->b, r, t->i64, "")), t->fault, ok);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, ok);
	ptx_jit_insn_regs(in, fill, &row);
}

bool ptx_jit_terminated(struct tr *t)
{
	LLVMBasicBlockRef bb = ptx_jit_llvm.LLVMGetInsertBlock(t->b);

	return ptx_jit_llvm.LLVMGetBasicBlockTerminator(bb) != NULL;
}

/* Goes to @bb, or stops the thread to resume there when its slice is spent. */
static void enter(struct tr *t, uint32_t pc)
{
	LLVMValueRef left =
		ptx_jit_llvm.LLVMBuildLoad2(t->b, t->i32, t->budget, "");
	LLVMBasicBlockRef go = ptx_jit_new_block(t), out = ptx_jit_new_block(t);

	ptx_jit_llvm.LLVMBuildCondBr(t->b, ptx_jit_llvm.LLVMBuildICmp(t->b,
		LLVMIntSLE, left, ptx_jit_cint(t->i32, 0), ""), out, go);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, out);
	ptx_jit_llvm.LLVMBuildStore(t->b,
				    ptx_jit_cint(t->i32, pc), t->resume_pc);
	ptx_jit_llvm.LLVMBuildBr(t->b, t->suspend);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, go);
	ptx_jit_llvm.LLVMBuildStore(t->b, ptx_jit_llvm.LLVMBuildSub(t->b, left,
		ptx_jit_cint(t->i32, t->seglen[pc]), ""), t->budget);
}

void ptx_jit_compute(struct tr *t, const struct ptx_insn *in)
{
	if (in->op == OP_CVTA)
		cvta(t, in);
	else if (in->op == OP_SETP)
		setp(t, in);
	else if (in->op == OP_CVT)
		cvt(t, in);
	else if (in->op == OP_MOV)
		dst(t, &in->o[0], srcx(t, &in->o[1], in->type), in->type.size);
	else if (in->op == OP_SELP)
		dst(t, &in->o[0], ptx_jit_llvm.LLVMBuildSelect(t->b,
			ptx_jit_truthy(t, src(t, &in->o[3])), src(t, &in->o[1]),
			src(t, &in->o[2]), ""), in->type.size);
	else if (in->type.cls == PC_F)
		float_op(t, in);
	else
		int_op(t, in);
}

static void emit(struct tr *t, const struct ptx_insn *in, uint32_t pc)
{
	LLVMBasicBlockRef skip = NULL, body;

	if (in->guard != PTX_NO_REG) {
		LLVMValueRef g = ptx_jit_truthy(t, ptx_jit_reg(t, in->guard));

		if (in->guard_neg)
			g = ptx_jit_llvm.LLVMBuildNot(t->b, g, "");
		skip = ptx_jit_new_block(t);
		if (in->op == OP_BRA) {
			ptx_jit_llvm.LLVMBuildCondBr(t->b, g,
				t->starts[in->o[0].imm], skip);
			ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, skip);
			return;
		}
		body = ptx_jit_new_block(t);
		ptx_jit_llvm.LLVMBuildCondBr(t->b, g, body, skip);
		ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, body);
	}
	switch (in->op) {
	case OP_BRA:
		ptx_jit_llvm.LLVMBuildBr(t->b, t->starts[in->o[0].imm]);
		break;
	case OP_RET: case OP_EXIT:
		ptx_jit_llvm.LLVMBuildBr(t->b, t->exited);
		break;
	case OP_BAR:
		ptx_jit_llvm.LLVMBuildStore(t->b,
			ptx_jit_cint(t->i32, pc + 1), t->resume_pc);
		ptx_jit_llvm.LLVMBuildBr(t->b, t->barrier);
		break;
	case OP_MEMBAR:
		ptx_jit_llvm.LLVMBuildFence(t->b,
			LLVMAtomicOrderingSequentiallyConsistent, false, "");
		break;
	default:
		if (!ptx_jit_native(in))
			step(t, in, pc);
		else if (in->op == OP_LD || in->op == OP_ST)
			load_store(t, in, pc);
		else if (in->op == OP_ATOM || in->op == OP_RED)
			atomic(t, in, pc);
		else
			ptx_jit_compute(t, in);
	}
	if (skip) {
		if (!ptx_jit_terminated(t))
			ptx_jit_llvm.LLVMBuildBr(t->b, skip);
		ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, skip);
	}
}

/*
 * Resume points: the IR's blocks, the instructions after bar.sync, and
 * where warp code may hand its threads on.
 */
static void mark_starts(struct tr *t)
{
	const struct cumc_ptx_function *fn = t->fn;
	uint32_t pc, i, last = 0;

	for (i = 0; i < fn->nblocks; i++)
		if (fn->block_starts[i] < fn->ninsns &&
		    !t->starts[fn->block_starts[i]])
			t->starts[fn->block_starts[i]] = ptx_jit_new_block(t);
	t->starts[0] = t->starts[0] ? t->starts[0] : ptx_jit_new_block(t);
	for (pc = 0; pc + 1 < fn->ninsns; pc++)
		if (fn->insns[pc].op == OP_BAR && !t->starts[pc + 1])
			t->starts[pc + 1] = ptx_jit_new_block(t);
	/* loop heads: targets of branches back, blocks' starts already */
	for (pc = 0; pc < fn->ninsns; pc++)
		if (fn->insns[pc].op == OP_BRA && fn->insns[pc].o[0].imm <= pc)
			t->loop_heads[fn->insns[pc].o[0].imm] = true;
	/* where warp code may hand its threads on */
	for (pc = 0; pc < fn->ninsns; pc++) {
		const struct ptx_insn *in = &fn->insns[pc];

		bool access = ((in->op == OP_LD || in->op == OP_ST) &&
			       in->space != PS_PARAM) || in->op == OP_MULTIMEM ||
			      in->op == OP_ATOM || in->op == OP_RED;

		if ((in->guard != PTX_NO_REG || access ||
		     !ptx_jit_warp_native(fn, in)) && !t->starts[pc])
			t->starts[pc] = ptx_jit_new_block(t);
		if (in->guard != PTX_NO_REG && in->op == OP_BRA &&
		    pc + 1 < fn->ninsns && !t->starts[pc + 1])
			t->starts[pc + 1] = ptx_jit_new_block(t);
	}
	/* where a lane form's check may hand them on (lanes_or_hand_off()) */
	for (pc = 0; pc < fn->ninsns; pc++)
		if (ptx_jit_form_check_at(t, &fn->insns[pc]) &&
		    !t->starts[pc]) {
			t->starts[pc] = ptx_jit_new_block(t);
			t->check_only[pc] = true;
		}
	for (pc = 0; pc < fn->ninsns; pc++) {
		if (t->starts[pc] && !t->check_only[pc])
			last = pc;
		t->seglen[last] += ptx_insn_polls(&fn->insns[pc]) ?
				   PTX_POLL_COST : 1;
	}
}

/*
 * t->kept: live where a thread may resume (any start); t->resumed: live
 * where warp code resumes (where bar.sync lets threads go, at a loop's
 * head); t->live_at: live at each instruction,
 * NULL where not known.  Every register where the analysis declines, or
 * memory runs out.
 */
static void mark_kept(struct tr *t)
{
	const struct cumc_ptx_function *fn = t->fn;
	uint64_t *const sets[2] = { t->kept, t->resumed };
	uint8_t *marks = calloc(fn->ninsns, 1);
	uint32_t pc;

	for (pc = 0; marks && pc < fn->ninsns; pc++)
		marks[pc] = (t->starts[pc] ? 1 : 0) |
			    ((pc && fn->insns[pc - 1].op == OP_BAR) ||
			     t->loop_heads[pc] ? 2 : 0);
	if (!marks || !ptx_jit_live(fn, marks, 2, sets, &t->live_at)) {
		memset(t->kept, 0xff, ptx_jit_reg_words(fn) * sizeof(uint64_t));
		memset(t->resumed, 0xff,
		       ptx_jit_reg_words(fn) * sizeof(uint64_t));
	}
	free(marks);
}

bool ptx_jit_live_in(const struct tr *t, uint32_t pc, uint32_t r)
{
	const struct cumc_ptx_function *fn = t->fn;

	if (pc >= fn->ninsns)
		return false;
	if (!t->live_at)
		return ptx_jit_reg_in(t->kept, r);
	return ptx_jit_reg_in(&t->live_at[pc * ptx_jit_reg_words(fn)], r);
}

static void save_regs(struct tr *t)
{
	struct slot_row row;
	uint32_t r;

	ptx_jit_slot_row(t, t->idx, &row);
	for (r = 0; r < t->fn->nregs; r++)
		if (ptx_jit_reg_in(t->kept, r))
			spill(&row, r);
}

/*
 * A thread that ran before takes back the registers live where it goes
 * on, there alone: a register dead there may never have been saved (warp
 * code handing its threads on saves the live ones, ptx_jit_hand_off()),
 * and its slot is not read.
 */
static void resume_at_pc(struct tr *t, LLVMValueRef tp)
{
	const struct cumc_ptx_function *fn = t->fn;
	LLVMValueRef pc, to;
	struct slot_row row;
	uint32_t k, r;

	pc = ptx_jit_load_field(t, tp,
				offsetof(struct ptx_jit_thread, pc), t->i32);
	/* past the last instruction (a bar.sync there): its end */
	to = ptx_jit_llvm.LLVMBuildSwitch(t->b, pc, t->exited, fn->ninsns);
	for (k = 0; k < fn->ninsns; k++) {
		if (!t->starts[k])
			continue;
		ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b,
						      ptx_jit_new_block(t));
		ptx_jit_llvm.LLVMAddCase(to, ptx_jit_cint(t->i32, k),
			ptx_jit_llvm.LLVMGetInsertBlock(t->b));
		ptx_jit_slot_row(t, t->idx, &row);
		for (r = 0; r < fn->nregs; r++)
			if (ptx_jit_live_in(t, k, r))
				fill(&row, r);
		ptx_jit_llvm.LLVMBuildBr(t->b, t->starts[k]);
	}
}

/*
 * Whether warp code may keep a multimem pair back (jit_warp.c decides
 * where): a ld_reduce with a st after it.
 */
static bool may_keep_pairs(const struct cumc_ptx_function *fn)
{
	uint32_t pc;

	for (pc = 0; pc + 1 < fn->ninsns; pc++)
		if (fn->insns[pc].op == OP_MULTIMEM &&
		    fn->insns[pc].wmode == CUMC_PTX_MM_LD_REDUCE &&
		    fn->insns[pc + 1].op == OP_MULTIMEM &&
		    fn->insns[pc + 1].wmode == CUMC_PTX_MM_ST)
			return true;
	return false;
}

/*
 * What orders the pairs kept back: an access of memory, but a parameter's
 * (no thread writes one), a fence, a call, a trap.  Not bar.sync (the only
 * barrier of compiled code): its threads stop, and the round's end makes
 * the pairs (grid.c) before it lets them go, so that the CTA's warps keep
 * their pieces of the same loop until the last has made its own.  The
 * interpreter's instructions flush in jit_step().
 */
static bool meets_kept_pairs(const struct ptx_insn *in)
{
	switch (in->op) {
	case OP_LD:
		return in->space != PS_PARAM;
	case OP_ST: case OP_ATOM: case OP_RED: case OP_MULTIMEM:
	case OP_MEMBAR: case OP_CALL: case OP_TRAP:
		return true;
	default:
		return false;
	}
}

void ptx_jit_count_poll(struct tr *t, const struct ptx_insn *in)
{
	if (ptx_insn_polls(in))
		ptx_jit_add_field(t, t->run, RUN_FIELD(polls), 1);
}

void ptx_jit_flush_before(struct tr *t, const struct ptx_insn *in)
{
	LLVMBasicBlockRef flush, go;
	LLVMValueRef n, fn;

	if (!t->defers || !meets_kept_pairs(in))
		return;
	flush = ptx_jit_new_block(t);
	go = ptx_jit_new_block(t);
	n = ptx_jit_load_field(t, t->run, RUN_FIELD(deferred), t->s32);
	ptx_jit_llvm.LLVMBuildCondBr(t->b, ptx_jit_llvm.LLVMBuildICmp(t->b,
		LLVMIntNE, n, ptx_jit_cint(t->s32, 0), ""), flush, go);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, flush);
	fn = ptx_jit_load_field(t, t->run, RUN_FIELD(flush),
				ptx_jit_llvm.LLVMPointerType(t->flush_ty, 0));
	ptx_jit_llvm.LLVMBuildCall2(t->b, t->flush_ty, fn, &t->run, 1, "");
	ptx_jit_llvm.LLVMBuildBr(t->b, go);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, go);
}

/*
 * The round: for (i = 0; i < nthreads && !stop; i++) a runnable thread
 * runs from its pc; the blocks below are its ways out.
 */
static void translate(struct tr *t, LLVMValueRef f)
{
	const struct cumc_ptx_function *fn = t->fn;
	LLVMBasicBlockRef entry, head, body, resume, fresh, done, sw, warp;
	LLVMBasicBlockRef waiting;
	LLVMValueRef i, st, tp, sv;
	LLVMTypeRef lanes64 =
		ptx_jit_llvm.LLVMVectorType(t->s64, PTX_JIT_LANES);
	uint32_t r, k;

	t->f = f;
	t->run = ptx_jit_llvm.LLVMGetParam(f, 0);
	t->tid_forms = ptx_jit_tid_x_only(fn);
	entry = ptx_jit_new_block(t);
	mark_starts(t);
	mark_kept(t);
	t->defers = may_keep_pairs(fn);
	head = ptx_jit_new_block(t);
	body = ptx_jit_new_block(t);
	resume = ptx_jit_new_block(t);
	fresh = ptx_jit_new_block(t);
	done = ptx_jit_new_block(t);
	sw = ptx_jit_new_block(t);
	t->next = ptx_jit_new_block(t);
	t->suspend = ptx_jit_new_block(t);
	t->barrier = ptx_jit_new_block(t);
	t->exited = ptx_jit_new_block(t);
	t->fault = ptx_jit_new_block(t);
	t->per_thread = ptx_jit_new_block(t);
	warp = ptx_jit_new_block(t);
	waiting = ptx_jit_new_block(t);

	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, entry);
	/*
	 * a register a resumed thread does not take back (dead where it
	 * goes on, resume_at_pc()) holds another thread's value, or this 0
	 */
	for (r = 0; r < fn->nregs; r++) {
		t->regs[r] = ptx_jit_llvm.LLVMBuildAlloca(t->b, t->i64, "");
		ptx_jit_llvm.LLVMBuildStore(t->b, ptx_jit_i64c(t, 0),
					    t->regs[r]);
		t->vregs[r] =
			ptx_jit_llvm.LLVMBuildAlloca(t->b, narrow_reg(t, r) ?
			ptx_jit_llvm.LLVMVectorType(t->s32,
			PTX_JIT_LANES) : lanes64, "");
		t->form_base[r] =
			ptx_jit_llvm.LLVMBuildAlloca(t->b, t->s64, "");
	}
	t->vti = ptx_jit_llvm.LLVMBuildAlloca(t->b, lanes64, "");
	t->vpc = ptx_jit_llvm.LLVMBuildAlloca(t->b,
		ptx_jit_llvm.LLVMVectorType(t->s32, PTX_JIT_LANES), "");
	/* a warp's multimem values: up to 4 of 8 bytes a lane */
	t->mmbuf = ptx_jit_llvm.LLVMBuildAlloca(t->b,
		ptx_jit_llvm.LLVMVectorType(t->s64, PTX_JIT_LANES * 4), "");
	ptx_jit_llvm.LLVMSetAlignment(t->mmbuf, 16);
	t->warp_fresh = ptx_jit_llvm.LLVMBuildAlloca(t->b, t->s1, "");
	t->budget = ptx_jit_llvm.LLVMBuildAlloca(t->b, t->i32, "");
	t->resume_pc = ptx_jit_llvm.LLVMBuildAlloca(t->b, t->i32, "");
	t->ti = ptx_jit_llvm.LLVMBuildAlloca(t->b, t->i64, "");
	i = ptx_jit_llvm.LLVMBuildAlloca(t->b, t->i32, "");
	ptx_jit_llvm.LLVMBuildStore(t->b, ptx_jit_cint(t->i32, 0), i);
	ptx_jit_llvm.LLVMBuildBr(t->b, head);

	/* head: the next thread, unless the grid stopped */
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, head);
	t->idx = ptx_jit_llvm.LLVMBuildLoad2(t->b, t->i32, i, "");
	{
		LLVMValueRef stop =
			ptx_jit_load_field(t, t->run, RUN_FIELD(stop), t->p8);
		LLVMValueRef sb =
			ptx_jit_llvm.LLVMBuildLoad2(t->b, t->i8, stop, "");
		LLVMValueRef more;

		ptx_jit_llvm.LLVMSetOrdering(sb, LLVMAtomicOrderingMonotonic);
		ptx_jit_llvm.LLVMSetAlignment(sb, 1);
		more = ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntULT, t->idx,
			ptx_jit_load_field(t, t->run,
					   RUN_FIELD(nthreads), t->i32), "");
		more = ptx_jit_llvm.LLVMBuildAnd(t->b, more,
			ptx_jit_llvm.LLVMBuildICmp(t->b, LLVMIntEQ, sb,
			ptx_jit_cint(t->i8, 0), ""), "");
		ptx_jit_llvm.LLVMBuildCondBr(t->b, more, body, done);
	}

	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, body);
	tp = ptx_jit_byte_ptr(t, ptx_jit_load_field(t, t->run,
		RUN_FIELD(threads), t->p8), ptx_jit_llvm.LLVMBuildMul(t->b,
		ptx_jit_llvm.LLVMBuildZExt(t->b, t->idx, t->i64, ""),
		ptx_jit_i64c(t, sizeof(struct ptx_jit_thread)), ""));
	t->tp = tp;
	ptx_jit_llvm.LLVMBuildStore(t->b,
		ptx_jit_cint(t->i32, PTX_SLICE), t->budget);
	ptx_jit_warp_entry(t, tp, warp, waiting);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, t->per_thread);
	st = ptx_jit_load_field(t, tp,
				offsetof(struct ptx_jit_thread, state), t->i8);
	ptx_jit_llvm.LLVMBuildCondBr(t->b, ptx_jit_llvm.LLVMBuildICmp(t->b,
		LLVMIntEQ, st, ptx_jit_cint(t->i8, TS_RUN), ""), sw, t->next);

	/* a thread that ran before takes its registers back */
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, sw);
	st = ptx_jit_load_field(t, tp, offsetof(struct ptx_jit_thread, resumed),
				t->i8);
	ptx_jit_llvm.LLVMBuildCondBr(t->b, ptx_jit_llvm.LLVMBuildICmp(t->b,
		LLVMIntEQ, st, ptx_jit_cint(t->i8, 0), ""), fresh, resume);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, fresh);
	for (r = 0; r < fn->nregs; r++)
		ptx_jit_set_reg(t, r, ptx_jit_i64c(t, 0));
	ptx_jit_llvm.LLVMBuildBr(t->b, t->starts[0]);
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, resume);
	resume_at_pc(t, tp);

	/* the instructions */
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, ptx_jit_new_block(t));
	ptx_jit_llvm.LLVMBuildBr(t->b, t->starts[0]);
	for (k = 0; k < fn->ninsns; k++) {
		if (t->starts[k]) {
			if (!ptx_jit_terminated(t))
				ptx_jit_llvm.LLVMBuildBr(t->b, t->starts[k]);
			ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b,
							      t->starts[k]);
			if (!t->check_only[k])
				enter(t, k);
		} else if (ptx_jit_terminated(t)) {
			ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b,
				ptx_jit_new_block(t));
		}
		ptx_jit_flush_before(t, &fn->insns[k]);
		ptx_jit_count_poll(t, &fn->insns[k]);
		emit(t, &fn->insns[k], k);
	}
	if (!ptx_jit_terminated(t))
		ptx_jit_llvm.LLVMBuildBr(t->b, t->exited);

	/* ways out */
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, t->barrier);
	store_field(t, tp, offsetof(struct ptx_jit_thread, state), t->i8,
		    ptx_jit_cint(t->i8, TS_BARRIER));
	ptx_jit_add_field(t, t->run, RUN_FIELD(arrived), 1);
	ptx_jit_llvm.LLVMBuildBr(t->b, t->suspend);

	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, t->suspend);
	save_regs(t);
	sv = ptx_jit_llvm.LLVMBuildLoad2(t->b, t->i32, t->resume_pc, "");
	store_field(t, tp, offsetof(struct ptx_jit_thread, pc), t->i32, sv);
	store_field(t, tp, offsetof(struct ptx_jit_thread, resumed), t->i8,
		    ptx_jit_cint(t->i8, 1));
	ptx_jit_llvm.LLVMBuildBr(t->b, t->next);

	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, t->exited);
	store_field(t, tp, offsetof(struct ptx_jit_thread, state), t->i8,
		    ptx_jit_cint(t->i8, TS_EXITED));
	ptx_jit_add_field(t, t->run, RUN_FIELD(exited), 1);
	ptx_jit_llvm.LLVMBuildBr(t->b, t->next);

	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, t->next);
	ptx_jit_llvm.LLVMBuildStore(t->b, ptx_jit_llvm.LLVMBuildAdd(t->b,
				    t->idx, ptx_jit_cint(t->i32, 1), ""), i);
	ptx_jit_llvm.LLVMBuildBr(t->b, head);

	/* a warp none of whose threads can run: the next warp */
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, waiting);
	ptx_jit_llvm.LLVMBuildStore(t->b, ptx_jit_llvm.LLVMBuildAdd(t->b,
		t->idx, ptx_jit_cint(t->i32, PTX_JIT_LANES), ""), i);
	ptx_jit_llvm.LLVMBuildBr(t->b, head);

	ptx_jit_warp_code(t, warp, tp, i, head);

	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, t->fault);
	ptx_jit_llvm.LLVMBuildRet(t->b, ptx_jit_cint(t->i32, 1));
	ptx_jit_llvm.LLVMPositionBuilderAtEnd(t->b, done);
	ptx_jit_llvm.LLVMBuildRet(t->b, ptx_jit_cint(t->i32, 0));
}

bool ptx_jit_compilable(const struct cumc_ptx_function *fn)
{
	return fn->entry && fn->ninsns && !ptx_jit_uncompiled(fn);
}

/* Whether @in is a memory instruction with a device range of its own. */
static bool has_site(const struct ptx_insn *in)
{
	return (in->op == OP_LD || in->op == OP_ST || in->op == OP_ATOM ||
		in->op == OP_RED) && ptx_jit_native(in) &&
	       in->space != PS_PARAM && in->space != PS_SHARED &&
	       in->space != PS_LOCAL;
}

/* Memory instructions with a device range of their own (mem_access()). */
uint32_t ptx_jit_sites(const struct cumc_ptx_function *fn)
{
	uint32_t pc, n = 0;

	for (pc = 0; pc < fn->ninsns; pc++)
		n += has_site(&fn->insns[pc]);
	return n;
}

void ptx_jit_symbol_name(char *buf, size_t size, const char *key,
			 unsigned int i)
{
	snprintf(buf, size, "cumc_%s_%u", key, i);
}

bool ptx_jit_translate_module(struct tr *t, const struct cumc_ptx_module *m,
			      const char *key)
{
	LLVMTypeRef run_p = ptx_jit_llvm.LLVMPointerType(t->i8, 0);
	LLVMTypeRef ty =
		ptx_jit_llvm.LLVMFunctionType(t->i32, &run_p, 1, false);
	LLVMTypeRef mem_args[] = { run_p, t->i32, t->i32, t->i64, t->i32,
				   t->i32, t->i32 };
	LLVMTypeRef step_args[] = { run_p, t->i32, t->i32 };
	LLVMTypeRef mm_args[] = { run_p, t->i32, t->i64, t->p8, t->i32,
				  t->i32 };
	LLVMTypeRef defer_args[] = { run_p, t->i32, t->i32, t->i64, t->i32 };
	char name[80];
	uint32_t pc, site;
	unsigned int i;
	bool ok;

	t->mem_ty = ptx_jit_llvm.LLVMFunctionType(t->p8, mem_args, 7, false);
	t->step_ty = ptx_jit_llvm.LLVMFunctionType(t->i32, step_args, 3, false);
	t->mm_ty = ptx_jit_llvm.LLVMFunctionType(t->i32, mm_args, 6, false);
	t->defer_ty = ptx_jit_llvm.LLVMFunctionType(t->i32, defer_args, 5,
						    false);
	t->flush_ty = ptx_jit_llvm.LLVMFunctionType(
		ptx_jit_llvm.LLVMVoidTypeInContext(t->c), &run_p, 1, false);
	for (i = 0; i < m->nfuncs; i++) {
		const struct cumc_ptx_function *fn = &m->funcs[i];

		if (!ptx_jit_compilable(fn))
			continue;
		t->fn = fn;
		t->sites = 0;
		t->regs = calloc(fn->nregs + 1, sizeof(*t->regs));
		t->vregs = calloc(fn->nregs + 1, sizeof(*t->vregs));
		t->starts = calloc(fn->ninsns, sizeof(*t->starts));
		t->vstarts = calloc(fn->ninsns, sizeof(*t->vstarts));
		t->seglen = calloc(fn->ninsns, sizeof(*t->seglen));
		t->site_of = calloc(fn->ninsns, sizeof(*t->site_of));
		t->forms = calloc(fn->nregs + 1, sizeof(*t->forms));
		t->join_strides = calloc(fn->ninsns,
					 sizeof(*t->join_strides));
		t->join_decided = calloc(fn->ninsns,
					 sizeof(*t->join_decided));
		t->form_base = calloc(fn->nregs + 1, sizeof(*t->form_base));
		t->vresume = calloc(fn->ninsns, sizeof(*t->vresume));
		t->joins = calloc(fn->ninsns + 1, sizeof(*t->joins));
		t->check_only = calloc(fn->ninsns + 1, sizeof(*t->check_only));
		t->loop_heads = calloc(fn->ninsns, sizeof(*t->loop_heads));
		t->kept = calloc(ptx_jit_reg_words(fn), sizeof(*t->kept));
		t->resumed = calloc(ptx_jit_reg_words(fn), sizeof(*t->resumed));
		ok = t->regs && t->vregs && t->starts && t->vstarts &&
		     t->seglen && t->site_of && t->forms && t->joins &&
		     t->join_strides && t->join_decided && t->form_base &&
		     t->vresume &&
		     t->check_only && t->loop_heads && t->kept && t->resumed;
		for (pc = 0, site = 0; ok && pc < fn->ninsns; pc++)
			if (has_site(&fn->insns[pc]))
				t->site_of[pc] = site++;
		if (ok) {
			ptx_jit_symbol_name(name, sizeof(name), key, i);
			translate(t,
				  ptx_jit_llvm.LLVMAddFunction(t->m, name, ty));
		}
		free(t->regs);
		free(t->vregs);
		free(t->starts);
		free(t->vstarts);
		free(t->seglen);
		free(t->site_of);
		free(t->forms);
		for (pc = 0; t->join_strides && pc < fn->ninsns; pc++)
			free(t->join_strides[pc]);
		free(t->join_strides);
		free(t->join_decided);
		free(t->form_base);
		free(t->vresume);
		free(t->joins);
		free(t->check_only);
		free(t->loop_heads);
		free(t->kept);
		free(t->resumed);
		free(t->live_at);
		t->live_at = NULL;
		if (!ok)
			return false;
	}
	return true;
}
