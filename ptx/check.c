// SPDX-License-Identifier: MIT
/*
 * What the executor runs, checked once at load: operand counts and
 * kinds, types and modifiers of each operation.  An instruction that
 * passes here is one exec.c executes exactly as the PTX ISA defines it.
 */
#include <string.h>

#include "parse_int.h"

struct check {
	struct ptx_parser *ps;
	struct ptx_insn *in;
	const char *text;
	size_t len;
};

static int bad(struct check *c, const char *why)
{
	return ptx_fail(c->ps, CUMC_PTX_EUNSUPPORTED,
			"instruction '%.*s' is not supported (%s)",
			(int)c->len, c->text, why);
}

static bool is_int(struct ptx_type t)
{
	return t.cls == PC_B || t.cls == PC_U || t.cls == PC_S;
}

/* Integer types of 16 to 64 bits and floats: the arithmetic ones. */
static bool arith_type(struct ptx_type t)
{
	return (is_int(t) && t.size >= 2) || t.cls == PC_F ||
	       ptx_type_half(t);
}

/* Sources from @first on take type @t (immediates get its bits). */
static int sources(struct check *c, unsigned int first, struct ptx_type t)
{
	unsigned int i;

	for (i = first; i < c->in->nopnd; i++) {
		struct ptx_operand *o = &c->in->o[i];

		if (o->kind != PO_REG && o->kind != PO_IMM &&
		    o->kind != PO_SREG)
			return ptx_fail(c->ps, CUMC_PTX_ESYNTAX, "bad operand %u",
					i + 1);
		if (ptx_imm_convert(c->ps, o, t))
			return -1;
	}
	return 0;
}

static int dest_reg(struct check *c, unsigned int i)
{
	if (c->in->o[i].kind != PO_REG && c->in->o[i].kind != PO_SINK)
		return ptx_fail(c->ps, CUMC_PTX_ESYNTAX,
				"destination must be a register");
	return 0;
}

/* The second source type of mul.wide, shifts, selp: */
static struct ptx_type u32_type(void)
{
	return (struct ptx_type){ PC_U, 4 };
}

static int check_arith(struct check *c)
{
	struct ptx_insn *in = c->in;
	bool f = in->type.cls == PC_F;

	if (!arith_type(in->type))
		return bad(c, "type");
	if (f && (in->flags & (PF_HI | PF_LO | PF_WIDE)))
		return bad(c, "modifier");
	if ((in->flags & PF_NAN) && !(f && in->type.size == 4 &&
				      (in->op == OP_MIN || in->op == OP_MAX)))
		return bad(c, "modifier");
	if (!f && (in->rnd || (in->flags & (PF_FTZ | PF_APPROX))))
		return bad(c, "modifier");
	if ((in->flags & PF_SAT) && !(f || (in->type.cls == PC_S &&
					    in->type.size == 4)))
		return bad(c, "saturation");
	if ((in->flags & PF_WIDE) && in->type.size == 8)
		return bad(c, "64-bit wide");
	if (in->op == OP_FMA && !f)
		return bad(c, "type");
	if (in->op == OP_FMA && !in->rnd)
		return bad(c, "fma needs a rounding mode");
	/* Unrounded mad.f32 is sm_1x's truncating form: not ours to guess. */
	if (in->op == OP_MAD && f && !in->rnd)
		return bad(c, "mad.f needs a rounding mode");
	if ((in->op == OP_REM || in->op == OP_DIV) && !f &&
	    in->type.cls == PC_B)
		return bad(c, "type");
	if (in->op == OP_DIV && f && !in->rnd && !(in->flags & PF_APPROX))
		return bad(c, "div.f needs a rounding mode");
	if ((in->op == OP_REM) && f)
		return bad(c, "type");
	return dest_reg(c, 0) || sources(c, 1, in->type);
}

static int check_bits(struct check *c)
{
	struct ptx_insn *in = c->in;

	if (in->type.cls == PC_F || !in->type.size ||
	    (in->type.size == 1 && in->type.cls != PC_PRED))
		return bad(c, "type");
	if (in->type.cls == PC_PRED && (in->op == OP_SHL || in->op == OP_SHR ||
					in->op == OP_CNOT))
		return bad(c, "type");
	if ((in->op == OP_SHL || in->op == OP_SHR) &&
	    (dest_reg(c, 0) || sources(c, 1, in->type) ||
	     sources(c, 2, u32_type())))
		return -1;
	return dest_reg(c, 0) || sources(c, 1, in->type);
}

/*
 * bfe.{u32,s32,u64,s64} d, a, pos, len; bfi.{b32,b64} d, a, b, pos, len;
 * prmt.b32{.mode} d, a, b, c; lop3.b32 d, a, b, c, immLut.
 */
static int check_bitfield(struct check *c)
{
	struct ptx_insn *in = c->in;
	struct ptx_type t = in->type;
	unsigned int last = in->nopnd - 1;

	switch (in->op) {
	case OP_BFE:
		if ((t.cls != PC_U && t.cls != PC_S) || t.size < 4)
			return bad(c, "type");
		return dest_reg(c, 0) || sources(c, 1, t) ||
		       sources(c, 2, u32_type());
	case OP_BFI:
		if (t.cls != PC_B || t.size < 4)
			return bad(c, "type");
		return dest_reg(c, 0) || sources(c, 1, t) ||
		       sources(c, 3, u32_type());
	default:	/* prmt, lop3 */
		if (t.cls != PC_B || t.size != 4)
			return bad(c, "type");
		if (in->op == OP_LOP3 && in->o[last].kind != PO_IMM)
			return bad(c, "immLut must be an immediate");
		return dest_reg(c, 0) || sources(c, 1, t);
	}
}

/* shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: one direction and one mode. */
static int check_funnel(struct check *c)
{
	struct ptx_insn *in = c->in;
	unsigned int dir = in->wmode & (SHF_LEFT | SHF_RIGHT);
	unsigned int mode = in->wmode & (SHF_WRAP | SHF_CLAMP);

	if (in->type.cls != PC_B || in->type.size != 4)
		return bad(c, "type");
	if ((dir != SHF_LEFT && dir != SHF_RIGHT) ||
	    (mode != SHF_WRAP && mode != SHF_CLAMP))
		return bad(c, "needs .l or .r and .wrap or .clamp");
	return dest_reg(c, 0) || sources(c, 1, in->type);
}

/* mul24.{lo,hi}.{u32,s32} d, a, b; mad24 the same with c; sad d, a, b, c. */
static int check_int24(struct check *c)
{
	struct ptx_insn *in = c->in;
	struct ptx_type t = in->type;

	if (in->op == OP_SAD ? !is_int(t) || t.size < 2 || t.cls == PC_B :
	    (t.cls != PC_U && t.cls != PC_S) || t.size != 4)
		return bad(c, "type");
	if (in->op != OP_SAD && !(in->flags & (PF_HI | PF_LO)))
		return bad(c, "needs .lo or .hi");
	if ((in->flags & PF_SAT) && !(in->op == OP_MAD24 &&
				      (in->flags & PF_HI) && t.cls == PC_S))
		return bad(c, "saturation");
	if (in->op == OP_SAD && (in->flags & (PF_HI | PF_LO)))
		return bad(c, "modifier");
	return dest_reg(c, 0) || sources(c, 1, t);
}

/* testp.class.{f32,f64} p, a; copysign.{f32,f64} d, a, b. */
static int check_fbits(struct check *c)
{
	struct ptx_insn *in = c->in;

	if (in->type.cls != PC_F || in->type.size < 4 || in->rnd ||
	    (in->flags & (PF_FTZ | PF_SAT)))
		return bad(c, "type or modifier");
	if (in->op == OP_TESTP && !in->wmode)
		return bad(c, "testp needs a class");
	return dest_reg(c, 0) || sources(c, 1, in->type);
}

static int check_unary(struct check *c)
{
	struct ptx_insn *in = c->in;
	bool f = in->type.cls == PC_F;

	switch (in->op) {
	case OP_POPC:
	case OP_CLZ:
	case OP_BREV:
		if (!(in->type.cls == PC_B && in->type.size >= 4))
			return bad(c, "type");
		break;
	case OP_BFIND:	/* bfind{.shiftamt}.{u32,s32,u64,s64}: d is .u32 */
		if ((in->type.cls != PC_U && in->type.cls != PC_S) ||
		    in->type.size < 4)
			return bad(c, "type");
		return dest_reg(c, 0) || sources(c, 1, in->type);
	case OP_SQRT:
	case OP_RCP:
		if (!f || (!in->rnd && !(in->flags & PF_APPROX)))
			return bad(c, "type or rounding");
		/* f64's approximate reciprocal is rcp.approx.ftz.f64 alone. */
		if (in->op == OP_RCP && (in->flags & PF_APPROX) &&
		    in->type.size == 8 && !(in->flags & PF_FTZ))
			return bad(c, "rcp.approx.f64 needs .ftz");
		if (in->op == OP_SQRT && (in->flags & PF_APPROX) &&
		    in->type.size == 8)
			return bad(c, "type");
		break;
	case OP_EX2: case OP_LG2: case OP_SIN: case OP_COS: case OP_RSQRT:
	case OP_TANH:
		/* ex2, lg2, sin, cos: .approx{.ftz}.f32; rsqrt also f64
		 * (rsqrt.approx.ftz.f64 is another, coarser instruction, not
		 * executed); tanh.approx.f32 without .ftz. */
		if (!(in->flags & PF_APPROX) || in->rnd || !f ||
		    (in->type.size == 8 && in->op != OP_RSQRT) ||
		    (in->flags & ~(PF_APPROX | PF_FTZ)) ||
		    (in->op == OP_TANH && (in->flags & PF_FTZ)) ||
		    (in->type.size == 8 && (in->flags & PF_FTZ)))
			return bad(c, "form");
		break;
	default:	/* abs, neg */
		if (!arith_type(in->type) || in->type.cls == PC_U ||
		    (in->type.cls == PC_B && !f))
			return bad(c, "type");
	}
	return dest_reg(c, 0) || sources(c, 1, in->type);
}

static int check_setp(struct check *c)
{
	struct ptx_insn *in = c->in;

	if (in->nopnd != (in->aop ? 5 : 4))
		return ptx_fail(c->ps, CUMC_PTX_ESYNTAX, "bad setp operands");
	if (!arith_type(in->type))
		return bad(c, "type");
	if (in->aop && in->aop != AOP_AND && in->aop != AOP_OR &&
	    in->aop != AOP_XOR)
		return bad(c, "modifier");
	if (in->type.cls != PC_F && in->cmp >= CMP_EQU)
		return bad(c, "comparison");
	if (in->type.cls == PC_S && in->cmp >= CMP_LO)
		return bad(c, "comparison");
	if (in->o[2].kind == PO_SREG || in->o[3].kind == PO_SREG)
		return bad(c, "operand");
	if (dest_reg(c, 0) || sources(c, 2, in->type))
		return -1;
	return in->aop ? ptx_imm_convert(c->ps, &in->o[4],
					 (struct ptx_type){ PC_PRED, 1 }) : 0;
}

/*
 * mov.b32 d, {a, b} and mov.b64 d, {a, b} or {a, b, c, e} pack registers
 * (the first element in the lowest bits); mov.b32 {a, b}, d unpacks, a
 * sink _ leaving an element out.
 */
static int check_pack(struct check *c)
{
	struct ptx_insn *in = c->in;
	bool pack = in->o[1].kind == PO_VEC;
	const struct ptx_operand *v = &in->o[pack ? 1 : 0];
	unsigned int i;

	if (in->type.cls != PC_B || in->type.size < 4 ||
	    (v->nvec != 2 && v->nvec != 4) ||
	    (v->nvec == 4 && in->type.size != 8) ||
	    in->o[pack ? 0 : 1].kind == PO_VEC)
		return bad(c, "vector pack");
	for (i = 0; i < v->nvec; i++)
		if (pack && v->vec[i] == PTX_NO_REG)
			return ptx_fail(c->ps, CUMC_PTX_ESYNTAX, "bad operand 2");
	if (pack)
		return dest_reg(c, 0);
	if (in->o[1].kind != PO_REG)
		return ptx_fail(c->ps, CUMC_PTX_ESYNTAX, "bad operand 2");
	return 0;
}

static int check_move(struct check *c)
{
	struct ptx_insn *in = c->in;

	switch (in->op) {
	case OP_SELP:
		if (!arith_type(in->type))
			return bad(c, "type");
		if (dest_reg(c, 0) || sources(c, 1, in->type))
			return -1;
		return in->o[3].kind != PO_REG ? bad(c, "operand") : 0;
	case OP_MOV:
		if (!in->type.size || (in->type.size == 1 &&
				       in->type.cls != PC_PRED))
			return bad(c, "type");
		if (in->o[0].kind == PO_VEC || in->o[1].kind == PO_VEC)
			return check_pack(c);
		return dest_reg(c, 0) || sources(c, 1, in->type);
	case OP_CVTA:
		if (in->type.size != 8 || (in->space != PS_GLOBAL &&
		    in->space != PS_SHARED && in->space != PS_LOCAL &&
		    in->space != PS_CONST))
			return bad(c, "space");
		return dest_reg(c, 0) || sources(c, 1, in->type);
	default:	/* cvt */
		if (in->nopnd != 2)
			return ptx_fail(c->ps, CUMC_PTX_ESYNTAX,
					"'%.*s' takes 2 operands",
					(int)c->len, c->text);
		if (!in->type2.size || in->type.cls == PC_PRED ||
		    in->type2.cls == PC_PRED)
			return bad(c, "types");
		if (in->type.cls == PC_F && in->type2.cls != PC_F &&
		    in->rnd > RND_RP)
			return bad(c, "rounding");
		if (in->type.cls != PC_F && in->type2.cls == PC_F &&
		    in->rnd && in->rnd < RND_RNI)
			return bad(c, "rounding");
		return dest_reg(c, 0) || sources(c, 1, in->type2);
	}
}

static int check_memory(struct check *c)
{
	struct ptx_insn *in = c->in;
	unsigned int a = in->op == OP_ST ? 0 : 1, v = 1 - a;
	struct ptx_operand *val = &in->o[v];

	if (!in->type.size || in->type.cls == PC_PRED)
		return bad(c, "type");
	if (in->o[a].kind != PO_ADDR)
		return ptx_fail(c->ps, CUMC_PTX_ESYNTAX, "expected an address");
	if (in->vec > 1 && (val->kind != PO_VEC || val->nvec != in->vec))
		return ptx_fail(c->ps, CUMC_PTX_ESYNTAX, "vector size");
	if (in->vec == 1 && val->kind == PO_VEC)
		return ptx_fail(c->ps, CUMC_PTX_ESYNTAX, "vector size");
	/* 256-bit vectors are sm_100's. */
	if (in->type.size * in->vec > 16)
		return bad(c, "a vector of more than 128 bits");
	if (in->vec == 1)
		return a ? dest_reg(c, 0) : sources(c, 1, in->type);
	return 0;
}

/* atom.space.op.type d, [a], b [, c]; red.space.op.type [a], b */
static int check_atomic(struct check *c)
{
	struct ptx_insn *in = c->in;
	unsigned int first = in->op == OP_ATOM ? 1 : 0;
	unsigned int want = first + 2 + (in->aop == AOP_CAS);
	struct ptx_type t = in->type;

	if (in->nopnd != want || in->o[first].kind != PO_ADDR)
		return ptx_fail(c->ps, CUMC_PTX_ESYNTAX, "bad operands");
	if (in->vec > 1 || !in->aop || (in->space != PS_GLOBAL &&
	    in->space != PS_SHARED && in->space != PS_GENERIC))
		return bad(c, "form");
	if (t.size < 4 || t.cls == PC_PRED)
		return bad(c, "type");
	if (t.cls == PC_F && in->aop != AOP_ADD && in->aop != AOP_EXCH)
		return bad(c, "type");
	if ((in->aop == AOP_INC || in->aop == AOP_DEC) &&
	    !(t.cls == PC_U && t.size == 4))
		return bad(c, "type");
	if (in->op == OP_RED && in->aop == AOP_CAS)
		return bad(c, "form");
	if (first && dest_reg(c, 0))
		return -1;
	return sources(c, first + 1, t);
}

/*
 * multimem.ld_reduce d, [a]; multimem.st [a], b; multimem.red [a], b, with
 * the operators the ISA lists that libcumc's multicast path offers: on
 * f32 and f64 add only (cumcMultimemLdReduce's f32 min/max are not PTX),
 * and red on 16-bit floats add only.
 */
static int check_multimem(struct check *c)
{
	struct ptx_insn *in = c->in;
	bool ld = in->wmode == CUMC_PTX_MM_LD_REDUCE;
	struct ptx_operand *val = &in->o[ld ? 0 : 1];
	bool is_float = in->type.cls == PC_F;
	unsigned int i;

	if (!in->wmode || !in->type.size)
		return bad(c, "form");
	if (in->space != PS_GLOBAL && in->space != PS_GENERIC)
		return bad(c, "state space");
	if (in->o[ld ? 1 : 0].kind != PO_ADDR)
		return ptx_fail(c->ps, CUMC_PTX_ESYNTAX, "bad operands");
	if (in->wmode == CUMC_PTX_MM_ST ? in->aop != AOP_NONE :
	    in->aop != AOP_ADD && in->aop != AOP_MIN && in->aop != AOP_MAX &&
	    in->aop != AOP_AND && in->aop != AOP_OR && in->aop != AOP_XOR)
		return bad(c, "operator");
	if (in->wmode != CUMC_PTX_MM_ST && is_float &&
	    (in->aop > AOP_MAX || (in->aop != AOP_ADD &&
	     (in->mmtype == CUMC_PTX_MM_F64 ||
	      in->mmtype == CUMC_PTX_MM_F32 ||
	      in->wmode == CUMC_PTX_MM_RED))))
		return bad(c, "operator and type");
	if (in->type.size == 2 && in->mmpack == 1)
		return bad(c, "type");	/* scalar f16/bf16: a 16-bit register */
	if (in->vec > 1 && (in->type.size == 8 || !is_float))
		return bad(c, "vector and type");
	if (in->vec > 1) {
		if (val->kind != PO_VEC || val->nvec != in->vec)
			return ptx_fail(c->ps, CUMC_PTX_ESYNTAX, "vector size");
		for (i = 0; i < in->vec; i++)
			if (val->vec[i] == PTX_NO_REG && !ld)
				return ptx_fail(c->ps, CUMC_PTX_ESYNTAX,
						"bad operand");
		return 0;
	}
	if (val->kind == PO_VEC)
		return ptx_fail(c->ps, CUMC_PTX_ESYNTAX, "vector size");
	if (ld)
		return dest_reg(c, 0);
	if (in->mmpack == 2 && val->kind != PO_REG)
		return ptx_fail(c->ps, CUMC_PTX_ESYNTAX, "bad operand 2");
	return in->mmpack == 2 ? 0 : sources(c, 1, in->type);
}

/* An immediate barrier number or thread count, where one is given. */
static int barrier_operands(struct check *c, unsigned int first,
			    unsigned int n)
{
	static const struct ptx_type u32 = { PC_U, 4 };
	const struct ptx_operand *id = &c->in->o[first];
	const struct ptx_operand *count = &c->in->o[first + 1];

	if (sources(c, first, u32) ||
	    (n > 1 && sources(c, first + 1, u32)))
		return -1;
	if (id->kind == PO_IMM && id->imm >= PTX_BARRIERS)
		return ptx_fail(c->ps, CUMC_PTX_ESYNTAX,
				"barrier %llu: barriers are 0 to %u",
				(unsigned long long)id->imm, PTX_BARRIERS - 1);
	if (n > 1 && count->kind == PO_IMM &&
	    (!count->imm || count->imm % 32 || count->imm > 1024))
		return ptx_fail(c->ps, CUMC_PTX_ESYNTAX,
				"a barrier's thread count is a multiple of 32, at most 1024");
	return 0;
}

/*
 * bar{.cta}.sync a{, b}, barrier{.cta}{.sync}{.aligned} a{, b};
 * .arrive a, b; .red.popc.u32 d, a{, b}, {!}c; .red.{and,or}.pred p,
 * a{, b}, {!}c.
 */
static int check_barrier(struct check *c)
{
	struct ptx_insn *in = c->in;
	unsigned int n = in->nopnd;
	const struct ptx_operand *pred = &in->o[n ? n - 1 : 0];

	if (in->flags & ~PF_SYNC)
		return bad(c, "modifier");
	switch (in->wmode) {
	case BAR_SYNC:
		if (in->aop || in->type.size || n < 1 || n > 2)
			return bad(c, "form");
		return barrier_operands(c, 0, n);
	case BAR_ARRIVE:
		if (in->aop || in->type.size || n != 2)
			return bad(c, "form");
		return barrier_operands(c, 0, n);
	default:	/* red */
		if (!((in->aop == AOP_POPC && in->type.cls == PC_U &&
		       in->type.size == 4) ||
		      ((in->aop == AOP_AND || in->aop == AOP_OR) &&
		       in->type.cls == PC_PRED)))
			return bad(c, "reduction");
		if (n < 3 || n > 4)
			return bad(c, "form");
		if (pred->kind != PO_REG)
			return ptx_fail(c->ps, CUMC_PTX_ESYNTAX,
					"bar.red's last operand is a predicate");
		return dest_reg(c, 0) || barrier_operands(c, 1, n - 2);
	}
}

static int check_control(struct check *c)
{
	struct ptx_insn *in = c->in;

	switch (in->op) {
	case OP_BRA:
		return in->o[0].kind != PO_LABEL ? bad(c, "indirect") : 0;
	case OP_BAR:
		return check_barrier(c);
	default:
		return 0;
	}
}

/* The warp operations: .sync forms of sm_70 on, 32-bit lanes of a warp. */
static int check_warp(struct check *c)
{
	static const struct ptx_type b32 = { PC_B, 4 };
	struct ptx_insn *in = c->in;
	struct ptx_type t = in->type;
	unsigned int src = 1;

	if (in->op != OP_ACTIVEMASK && !(in->flags & PF_SYNC))
		return bad(c, "without .sync");
	if (in->flags & ~PF_SYNC)
		return bad(c, "modifier");
	switch (in->op) {
	case OP_SHFL:
		if (in->wmode < WM_UP || in->wmode > WM_IDX)
			return bad(c, "mode");
		if (t.size != 4 || t.cls != PC_B)
			return bad(c, "type");
		src = 2;
		break;
	case OP_VOTE:
		if (in->wmode < WM_ALL ||
		    (in->wmode == WM_BALLOT ? t.size != 4 || t.cls != PC_B :
					      t.cls != PC_PRED))
			return bad(c, "mode or type");
		if (in->o[1].kind != PO_REG && in->o[1].kind != PO_IMM)
			return ptx_fail(c->ps, CUMC_PTX_ESYNTAX, "bad operand 2");
		if (dest_reg(c, 0) || sources(c, 2, b32))
			return -1;
		return 0;
	case OP_MATCH:
		if (in->wmode != WM_ANY && in->wmode != WM_ALL)
			return bad(c, "mode");
		if (in->wmode == WM_ANY && in->o[1].kind != PO_NONE)
			return ptx_fail(c->ps, CUMC_PTX_ESYNTAX, "match.any has no predicate");
		if (t.cls != PC_B || (t.size != 4 && t.size != 8))
			return bad(c, "type");
		if (dest_reg(c, 0) || sources(c, 2, t) ||
		    ptx_imm_convert(c->ps, &in->o[3], b32))
			return -1;
		return 0;
	case OP_REDUX:
		if (in->aop == AOP_ADD || in->aop == AOP_MIN ||
		    in->aop == AOP_MAX) {
			if (t.size != 4 || (t.cls != PC_U && t.cls != PC_S))
				return bad(c, "type");
		} else if (in->aop == AOP_AND || in->aop == AOP_OR ||
			   in->aop == AOP_XOR) {
			if (t.size != 4 || t.cls != PC_B)
				return bad(c, "type");
		} else {
			return bad(c, "operation");
		}
		break;
	case OP_WARPSYNC:	/* bar.warp.sync membermask */
		if (t.size)
			return bad(c, "type");
		if (in->nopnd != 1)
			return ptx_fail(c->ps, CUMC_PTX_ESYNTAX,
					"bar.warp.sync takes 1 operand");
		return sources(c, 0, b32);
	default:	/* activemask */
		if (t.size != 4 || t.cls != PC_B)
			return bad(c, "type");
		return dest_reg(c, 0);
	}
	if (dest_reg(c, 0))
		return -1;
	if (src == 2 && in->o[1].kind != PO_NONE && dest_reg(c, 1))
		return -1;
	return sources(c, src, t);
}

/*
 * cvt with a 16-bit float on a side: to one from f32, f64, the other
 * 16-bit format or an integer (a rounding mode: .rn .rz .rm .rp, or an
 * integral one to its own type; .relu, .satfinite, .sat, .ftz of an f32
 * source), to a pair from two f32 (cvt.rn/rz{.relu}{.satfinite}
 * .f16x2.f32 d, a, b), and from one, exactly to f32 and f64, rounded
 * (.rni...) to an integer of any width.
 */
static int check_half_cvt(struct check *c)
{
	struct ptx_insn *in = c->in;
	struct ptx_type d = in->type, s = in->type2;
	unsigned int want = 2;

	/* 8-bit integers: a result (cvt.rni.s8.f16), never a source. */
	if (!s.size || s.cls == PC_PRED || d.cls == PC_PRED ||
	    s.size == 1 || (ptx_type_half(s) && s.size != 2))
		return bad(c, "types");
	if (ptx_type_half(d) && d.size == 4) {
		if (s.cls != PC_F || s.size != 4 ||
		    (in->rnd != RND_RN && in->rnd != RND_RZ) ||
		    (in->flags & ~(PF_RELU | PF_SATFINITE)))
			return bad(c, "form");
		want = 3;
	} else if (ptx_type_half(d)) {
		if (in->flags & ~(PF_RELU | PF_SATFINITE | PF_SAT | PF_FTZ))
			return bad(c, "modifier");
		if (in->rnd >= RND_RNI ? d.cls != s.cls || d.size != s.size :
		    s.cls == PC_F || ptx_type_half(s) ? !in->rnd : false)
			return bad(c, "rounding");
	} else {
		if (in->flags & ~(PF_SAT | PF_FTZ))
			return bad(c, "modifier");
		if (d.cls == PC_F ? in->rnd != RND_NONE : in->rnd < RND_RNI)
			return bad(c, "rounding");
	}
	if (in->nopnd != want)
		return ptx_fail(c->ps, CUMC_PTX_ESYNTAX, "'%.*s' takes %u "
				"operands", (int)c->len, c->text, want);
	if (dest_reg(c, 0) || sources(c, 1, s))
		return -1;
	return 0;
}

/* setp.cmp{.bop}{.ftz}.{f16,bf16} p, a, b; the pairs p|q, a, b. */
static int check_half_setp(struct check *c)
{
	struct ptx_insn *in = c->in;

	if (in->nopnd != (in->aop ? 5 : 4))
		return ptx_fail(c->ps, CUMC_PTX_ESYNTAX, "bad setp operands");
	if (in->aop && in->aop != AOP_AND && in->aop != AOP_OR &&
	    in->aop != AOP_XOR)
		return bad(c, "modifier");
	if (in->cmp >= CMP_LO && in->cmp <= CMP_HS)
		return bad(c, "comparison");
	if (in->type.size == 4 && in->o[1].kind != PO_REG)
		return ptx_fail(c->ps, CUMC_PTX_ESYNTAX,
				"a pair's setp takes p|q");
	if (dest_reg(c, 0) || sources(c, 2, in->type))
		return -1;
	return in->aop ? ptx_imm_convert(c->ps, &in->o[4],
					 (struct ptx_type){ PC_PRED, 1 }) : 0;
}

/*
 * Arithmetic on f16, bf16 and their pairs, the forms the ISA lists:
 * add/sub/mul{.rn}{.ftz}{.sat}.f16, add/sub/mul{.rn}.bf16,
 * fma.rn{.ftz}{.sat|.relu}.f16, fma.rn{.relu}.bf16,
 * min/max{.ftz}{.NaN}.f16, min/max{.NaN}.bf16, neg/abs{.ftz}.f16,
 * neg/abs.bf16; each on the pair type too.  .ftz, .sat: f16 only.
 */
static int check_half(struct check *c)
{
	struct ptx_insn *in = c->in;
	uint16_t f16 = in->type.cls == PC_H ? PF_FTZ : 0, allowed;

	if (in->op == OP_CVT)
		return check_half_cvt(c);
	switch (in->op) {
	case OP_SETP:
		if (in->flags & ~f16)
			return bad(c, "modifier");
		return check_half_setp(c);
	case OP_ADD: case OP_SUB: case OP_MUL:
		allowed = f16 ? PF_FTZ | PF_SAT : 0;
		if (in->rnd && in->rnd != RND_RN)
			return bad(c, "rounding");
		break;
	case OP_FMA:
		allowed = f16 ? PF_FTZ | PF_SAT | PF_RELU : PF_RELU;
		if (in->rnd != RND_RN)
			return bad(c, "fma needs .rn");
		if ((in->flags & PF_SAT) && (in->flags & PF_RELU))
			return bad(c, "modifier");
		break;
	case OP_MIN: case OP_MAX:
		allowed = f16 | PF_NAN;
		break;
	case OP_NEG: case OP_ABS:
		allowed = f16;
		break;
	default:
		return bad(c, "type");
	}
	if ((in->flags & ~allowed) || (in->op != OP_ADD && in->op != OP_SUB &&
				       in->op != OP_MUL && in->op != OP_FMA &&
				       in->rnd))
		return bad(c, "modifier");
	return dest_reg(c, 0) || sources(c, 1, in->type);
}

static int check_insn(struct ptx_parser *ps, struct ptx_insn *in,
		      const char *text, size_t len, unsigned int nopnd)
{
	struct check c = { ps, in, text, len };

	if (nopnd && in->nopnd != nopnd)
		return ptx_fail(ps, CUMC_PTX_ESYNTAX,
				"'%.*s' takes %u operands", (int)len, text,
				nopnd);
	if (in->op != OP_LD && in->op != OP_ST && in->op != OP_CVTA &&
	    in->op != OP_ATOM && in->op != OP_RED && in->op != OP_MULTIMEM &&
	    in->space)
		return bad(&c, "state space");
	if (in->vec > 1 && in->op != OP_LD && in->op != OP_ST &&
	    in->op != OP_MULTIMEM)
		return bad(&c, "vector");
	if (in->type2.size && in->op != OP_CVT)
		return bad(&c, "types");
	if ((ptx_type_half(in->type) || ptx_type_half(in->type2)) &&
	    in->op != OP_LD && in->op != OP_ST && in->op != OP_MOV &&
	    in->op != OP_SELP)
		return check_half(&c);
	if ((in->flags & (PF_RELU | PF_SATFINITE)) ||
	    ((in->flags & PF_SHIFTAMT) && in->op != OP_BFIND))
		return bad(&c, "modifier");
	switch (in->op) {
	case OP_ADD: case OP_SUB: case OP_MUL: case OP_MAD: case OP_FMA:
	case OP_DIV: case OP_REM: case OP_MIN: case OP_MAX:
		return check_arith(&c);
	case OP_AND: case OP_OR: case OP_XOR: case OP_NOT: case OP_CNOT:
	case OP_SHL: case OP_SHR:
		return check_bits(&c);
	case OP_ABS: case OP_NEG: case OP_POPC: case OP_CLZ: case OP_BREV:
	case OP_BFIND:
	case OP_SQRT: case OP_RCP: case OP_EX2: case OP_LG2: case OP_SIN:
	case OP_COS: case OP_RSQRT: case OP_TANH:
		return check_unary(&c);
	case OP_BFE: case OP_BFI: case OP_PRMT: case OP_LOP3:
		return check_bitfield(&c);
	case OP_SHF:
		return check_funnel(&c);
	case OP_TESTP: case OP_COPYSIGN:
		return check_fbits(&c);
	case OP_MUL24: case OP_MAD24: case OP_SAD:
		return check_int24(&c);
	case OP_SETP:
		return check_setp(&c);
	case OP_SELP: case OP_MOV: case OP_CVT: case OP_CVTA:
		return check_move(&c);
	case OP_LD: case OP_ST:
		return check_memory(&c);
	case OP_ATOM: case OP_RED:
		return check_atomic(&c);
	case OP_MULTIMEM:
		return check_multimem(&c);
	case OP_SHFL: case OP_VOTE: case OP_MATCH: case OP_REDUX:
	case OP_ACTIVEMASK: case OP_WARPSYNC:
		return check_warp(&c);
	default:
		return check_control(&c);
	}
}

/* Messages name the instruction's line, not the next token's. */
int ptx_check_insn(struct ptx_parser *ps, struct ptx_insn *in,
		   const char *text, size_t len, unsigned int nopnd)
{
	unsigned int line = ps->lx.tok_line;
	int r;

	ps->lx.tok_line = in->line;
	r = check_insn(ps, in, text, len, nopnd);
	ps->lx.tok_line = line;
	return r;
}
