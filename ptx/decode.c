// SPDX-License-Identifier: MIT
/*
 * One instruction: guard, opcode and its modifiers, operands.  Anything
 * cumc does not execute fails here, naming the instruction, so that no
 * kernel runs with a part of it missing.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parse_int.h"

static const struct { const char *name; uint8_t op; uint8_t nopnd; } ops[] = {
	{ "add", OP_ADD, 3 }, { "sub", OP_SUB, 3 }, { "mul", OP_MUL, 3 },
	{ "mad", OP_MAD, 4 }, { "fma", OP_FMA, 4 }, { "div", OP_DIV, 3 },
	{ "rem", OP_REM, 3 }, { "min", OP_MIN, 3 }, { "max", OP_MAX, 3 },
	{ "abs", OP_ABS, 2 }, { "neg", OP_NEG, 2 }, { "and", OP_AND, 3 },
	{ "or", OP_OR, 3 }, { "xor", OP_XOR, 3 }, { "not", OP_NOT, 2 },
	{ "cnot", OP_CNOT, 2 }, { "shl", OP_SHL, 3 }, { "shr", OP_SHR, 3 },
	{ "popc", OP_POPC, 2 }, { "clz", OP_CLZ, 2 }, { "brev", OP_BREV, 2 },
	{ "bfind", OP_BFIND, 2 },
	{ "bfe", OP_BFE, 4 }, { "bfi", OP_BFI, 5 }, { "prmt", OP_PRMT, 4 },
	{ "lop3", OP_LOP3, 5 }, { "shf", OP_SHF, 4 }, { "testp", OP_TESTP, 2 },
	{ "copysign", OP_COPYSIGN, 3 }, { "mul24", OP_MUL24, 3 },
	{ "mad24", OP_MAD24, 4 }, { "sad", OP_SAD, 4 },
	{ "sqrt", OP_SQRT, 2 }, { "rcp", OP_RCP, 2 }, { "ex2", OP_EX2, 2 },
	{ "lg2", OP_LG2, 2 }, { "sin", OP_SIN, 2 }, { "cos", OP_COS, 2 },
	{ "rsqrt", OP_RSQRT, 2 }, { "tanh", OP_TANH, 2 }, { "setp", OP_SETP, 0 },
	{ "selp", OP_SELP, 4 }, { "mov", OP_MOV, 2 }, { "cvt", OP_CVT, 0 },
	{ "cvta", OP_CVTA, 2 }, { "ld", OP_LD, 2 }, { "ldu", OP_LD, 2 },
	{ "st", OP_ST, 2 }, { "bra", OP_BRA, 1 }, { "ret", OP_RET, 0 },
	{ "exit", OP_EXIT, 0 }, { "bar", OP_BAR, 0 }, { "barrier", OP_BAR, 0 },
	{ "membar", OP_MEMBAR, 0 }, { "fence", OP_MEMBAR, 0 },
	{ "trap", OP_TRAP, 0 }, { "atom", OP_ATOM, 0 }, { "red", OP_RED, 2 },
	{ "shfl", OP_SHFL, 6 }, { "vote", OP_VOTE, 3 }, { "match", OP_MATCH, 4 },
	{ "redux", OP_REDUX, 3 }, { "activemask", OP_ACTIVEMASK, 1 },
	{ "call", OP_CALL, 0 }, { "multimem", OP_MULTIMEM, 2 },
};

static const char *const wmodes[] = {
	"", "up", "down", "bfly", "idx", "all", "any", "uni", "ballot",
};

/* prmt's modes, numbered as enum ptx_prmt. */
static const char *const prmt_modes[] = {
	"", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16",
};

/* shf's words, bit i of its wmode each (SHF_LEFT, ...). */
static const char *const shf_modes[] = { "l", "r", "wrap", "clamp" };

/* testp's classes, numbered as enum ptx_testp. */
static const char *const testp_classes[] = {
	"", "finite", "infinite", "number", "notanumber", "normal",
	"subnormal",
};

static const char *const cmps[] = {
	"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
	"equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
};

static const char *const rnds[] = {
	"", "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi",
};

static const char *const aops[] = {
	"", "add", "cas", "exch", "min", "max", "inc", "dec", "and", "or", "xor",
};

static const struct { const char *name; uint16_t flag; } flags[] = {
	{ "ftz", PF_FTZ }, { "sat", PF_SAT }, { "hi", PF_HI }, { "lo", PF_LO },
	{ "wide", PF_WIDE }, { "to", PF_TO }, { "approx", PF_APPROX },
	{ "full", PF_APPROX | PF_FULL }, { "uni", PF_UNI },
	{ "volatile", PF_VOLATILE }, { "sync", PF_SYNC }, { "NaN", PF_NAN },
	{ "relu", PF_RELU }, { "satfinite", PF_SATFINITE },
	{ "shiftamt", PF_SHIFTAMT },
};

/*
 * Orders, scopes, caching: the host's memory is coherent, all are met.
 * An order stronger than relaxed is noted (PF_ORDERED): the JIT keeps no
 * such multimem back (mm_defer.c).
 */
static const char *const orders[] = { "acquire", "release", "acq_rel", "sc" };
static const char *const ignored[] = {
	"relaxed", "weak", "gpu",
	"sys", "cta", "gl", "nc", "ca", "cg", "cs", "lu", "cv", "wb", "wt",
	"sync", "aligned", "shared::cta",
};

static const struct { const char *name; uint8_t space; } spaces[] = {
	{ "global", PS_GLOBAL }, { "shared", PS_SHARED },
	{ "shared::cta", PS_SHARED }, { "local", PS_LOCAL },
	{ "param", PS_PARAM }, { "const", PS_CONST },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int word_in(const char *const *list, size_t n, const char *w,
		   size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ptx_word_is(list[i], w, len))
			return (int)i;
	return -1;
}

/* Whether a modifier with a meaning on a GPU only (cache hints) is safe. */
static bool hint(const char *w, size_t len)
{
	return len > 4 && (!memcmp(w, "L1::", 4) || !memcmp(w, "L2::", 4)) &&
	       !ptx_word_is("L2::cache_hint", w, len);
}

struct insn_words {
	const char *text;	/* the opcode word, for messages */
	size_t len;
	unsigned int ntypes;
};

static int unsupported(struct ptx_parser *ps, const struct insn_words *iw)
{
	return ptx_fail(ps, CUMC_PTX_EUNSUPPORTED,
			"instruction '%.*s' is not supported", (int)iw->len,
			iw->text);
}

/*
 * The words of multimem only: its kind, the packed 16-bit types and the
 * accumulator (f32: libcumc's path accumulates 16-bit floats in f32).
 * 0: one of them; 2: a type; 1: not one of them.
 */
static int multimem_word(struct ptx_insn *in, const char *w, size_t len)
{
	static const char *const kinds[] = { "", "ld_reduce", "st", "red" };
	static const struct { const char *name; uint8_t type, pack; } h[] = {
		{ "f16", CUMC_PTX_MM_F16, 1 }, { "bf16", CUMC_PTX_MM_BF16, 1 },
		{ "f16x2", CUMC_PTX_MM_F16, 2 },
		{ "bf16x2", CUMC_PTX_MM_BF16, 2 },
	};
	int i;
	size_t k;

	if ((i = word_in(kinds, N(kinds), w, len)) > 0 && !in->wmode) {
		in->wmode = i;
		return 0;
	}
	/* One process's simulated GPUs share coherent memory: any scope. */
	if (ptx_word_is("acc::f32", w, len) || ptx_word_is("cluster", w, len))
		return 0;
	for (k = 0; k < N(h); k++)
		if (ptx_word_is(h[k].name, w, len)) {
			in->type.cls = PC_F;
			in->type.size = 2;
			in->mmtype = h[k].type;
			in->mmpack = h[k].pack;
			return 2;
		}
	return 1;
}

/* The multimem type of a plain type word; -1: none. */
static int multimem_type(struct ptx_type t)
{
	switch (t.cls) {
	case PC_F: return t.size == 4 ? CUMC_PTX_MM_F32 : CUMC_PTX_MM_F64;
	case PC_S: return t.size == 4 ? CUMC_PTX_MM_S32 :
			  t.size == 8 ? CUMC_PTX_MM_S64 : -1;
	case PC_U: case PC_B:
		return t.size == 4 ? CUMC_PTX_MM_U32 :
		       t.size == 8 ? CUMC_PTX_MM_U64 : -1;
	default: return -1;
	}
}

/* One modifier of the opcode word. */
static int modifier(struct ptx_parser *ps, struct ptx_insn *in,
		    struct insn_words *iw, const char *w, size_t len)
{
	struct ptx_type t = ptx_type_word(w, len);
	int i;
	size_t k;

	if (in->op == OP_MULTIMEM) {
		if ((i = multimem_word(in, w, len)) == 0)
			return 0;
		if (i == 2)
			return iw->ntypes++ ? unsupported(ps, iw) : 0;
		if (t.size && (i = multimem_type(t)) >= 0 && !iw->ntypes++) {
			in->type = t;
			in->mmtype = i;
			in->mmpack = 1;
			return 0;
		}
		if (t.size)
			return unsupported(ps, iw);
	}
	if (t.size) {
		if (iw->ntypes++ == 0)
			in->type = t;
		else
			in->type2 = t;
		return iw->ntypes > 2 ? unsupported(ps, iw) : 0;
	}
	if (in->op == OP_SETP && (i = word_in(cmps, N(cmps), w, len)) >= 0) {
		in->cmp = i;
		return 0;
	}
	if ((i = word_in(rnds, N(rnds), w, len)) > 0) {
		in->rnd = i;
		return 0;
	}
	if (in->op == OP_BAR && ptx_word_is("warp", w, len)) {
		in->op = OP_WARPSYNC;
		return 0;
	}
	if (in->op == OP_BAR && !in->wmode &&
	    (ptx_word_is("arrive", w, len) || ptx_word_is("red", w, len))) {
		in->wmode = w[0] == 'a' ? BAR_ARRIVE : BAR_RED;
		return 0;
	}
	if (in->op == OP_BAR && ptx_word_is("popc", w, len)) {
		in->aop = AOP_POPC;
		return 0;
	}
	if ((in->op == OP_SHFL || in->op == OP_VOTE || in->op == OP_MATCH) &&
	    (i = word_in(wmodes, N(wmodes), w, len)) > 0) {
		in->wmode = i;
		return 0;
	}
	if (in->op == OP_PRMT &&
	    (i = word_in(prmt_modes, N(prmt_modes), w, len)) > 0) {
		in->wmode = i;
		return 0;
	}
	if (in->op == OP_SHF &&
	    (i = word_in(shf_modes, N(shf_modes), w, len)) >= 0) {
		in->wmode |= 1u << i;
		return 0;
	}
	if (in->op == OP_TESTP &&
	    (i = word_in(testp_classes, N(testp_classes), w, len)) > 0) {
		in->wmode = i;
		return 0;
	}
	if ((in->op == OP_ATOM || in->op == OP_RED || in->op == OP_SETP ||
	     in->op == OP_REDUX || in->op == OP_MULTIMEM || in->op == OP_BAR) &&
	    (i = word_in(aops, N(aops), w, len)) > 0) {
		in->aop = i;
		return 0;
	}
	for (k = 0; k < N(spaces); k++)
		if (ptx_word_is(spaces[k].name, w, len)) {
			in->space = spaces[k].space;
			return 0;
		}
	for (k = 0; k < N(flags); k++)
		if (ptx_word_is(flags[k].name, w, len)) {
			in->flags |= flags[k].flag;
			return 0;
		}
	if (ptx_word_is("v2", w, len) || ptx_word_is("v4", w, len)) {
		in->vec = w[1] - '0';
		return 0;
	}
	if (word_in(orders, N(orders), w, len) >= 0) {
		in->flags |= PF_ORDERED;
		return 0;
	}
	if (word_in(ignored, N(ignored), w, len) >= 0 || hint(w, len))
		return 0;
	return unsupported(ps, iw);
}

/* Splits "ld.global.v4.f32" into the operation and its modifiers. */
static int opcode(struct ptx_parser *ps, struct ptx_insn *in,
		  struct insn_words *iw, unsigned int *nopnd)
{
	const char *w = ps->lx.text, *end = w + ps->lx.len, *dot;
	size_t k;

	iw->text = w;
	iw->len = ps->lx.len;
	dot = memchr(w, '.', end - w);
	if (!dot)
		dot = end;
	for (k = 0; k < N(ops); k++)
		if (ptx_word_is(ops[k].name, w, dot - w))
			break;
	if (k == N(ops))
		return unsupported(ps, iw);
	in->op = ops[k].op;
	*nopnd = ops[k].nopnd;
	in->vec = 1;
	while (dot < end) {
		const char *s = dot + 1;
		const char *e = s;

		/* "::" belongs to the modifier (shared::cta, L1::no_allocate). */
		while (e < end && (*e != '.' || (e > s && e[-1] == ':')))
			e++;
		if (modifier(ps, in, iw, s, e - s))
			return -1;
		dot = e;
	}
	return 0;
}

/* %name: a register, a special register, or a register's vector part. */
static int reg_operand(struct ptx_parser *ps, struct ptx_operand *o)
{
	static const char *const sregs[] = {
		"%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ntid.z",
		"%ctaid.x", "%ctaid.y", "%ctaid.z",
		"%nctaid.x", "%nctaid.y", "%nctaid.z",
		"%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid",
		"%clock", "%clock64", "%globaltimer",
		"%lanemask_eq", "%lanemask_lt", "%lanemask_le",
		"%lanemask_gt", "%lanemask_ge",
	};
	int i;

	if (ptx_strmap_get(&ps->regs, ps->lx.text, ps->lx.len, &o->reg)) {
		o->kind = PO_REG;
	} else if ((i = word_in(sregs, N(sregs), ps->lx.text,
				ps->lx.len)) >= 0) {
		o->kind = PO_SREG;
		o->sreg = i;
	} else if (word_in((const char *const[]){ "%tid", "%ntid", "%ctaid",
						  "%nctaid" }, 4,
			   ps->lx.text, ps->lx.len) >= 0) {
		return ptx_fail(ps, CUMC_PTX_EUNSUPPORTED,
				"vector special register '%.*s'",
				(int)ps->lx.len, ps->lx.text);
	} else {
		return ptx_fail(ps, CUMC_PTX_ESYNTAX, "unknown register '%.*s'",
				(int)ps->lx.len, ps->lx.text);
	}
	ptx_lex_next(&ps->lx);
	return 0;
}

int ptx_immediate(struct ptx_parser *ps, struct ptx_operand *o)
{
	const char *t = ps->lx.text;
	bool neg = false;
	char buf[64];
	double d;

	if (ptx_lex_is(&ps->lx, "-")) {
		neg = true;
		ptx_lex_next(&ps->lx);
		t = ps->lx.text;
	}
	if (ps->lx.tok != T_NUMBER || ps->lx.len >= sizeof(buf))
		return ptx_fail(ps, CUMC_PTX_ESYNTAX, "expected a number");
	o->kind = PO_IMM;
	memcpy(buf, t, ps->lx.len);
	buf[ps->lx.len] = '\0';
	if (buf[0] == '0' && (buf[1] == 'f' || buf[1] == 'F' ||
			      buf[1] == 'd' || buf[1] == 'D')) {
		o->lit = buf[1] == 'f' || buf[1] == 'F' ? LIT_F32 : LIT_F64;
		o->imm = strtoull(buf + 2, NULL, 16);
		if (neg)
			o->imm ^= o->lit == LIT_F32 ? 1ull << 31 : 1ull << 63;
		ptx_lex_next(&ps->lx);
		return 0;
	}
	if (strpbrk(buf, ".eE") && !strpbrk(buf, "xX")) {
		d = strtod(buf, NULL);
		d = neg ? -d : d;
		o->lit = LIT_DEC;
		memcpy(&o->imm, &d, sizeof(d));
		ptx_lex_next(&ps->lx);
		return 0;
	}
	o->lit = LIT_INT;
	if (ptx_number(ps, &o->imm))
		return -1;
	if (neg)
		o->imm = -o->imm;
	return 0;
}

int ptx_imm_convert(struct ptx_parser *ps, struct ptx_operand *o,
		    struct ptx_type t)
{
	double d;
	float f;
	uint32_t u;

	if (o->kind != PO_IMM)
		return 0;
	if (t.cls != PC_F) {
		if (o->lit != LIT_INT)
			return ptx_fail(ps, CUMC_PTX_ESYNTAX,
					"floating-point literal for an integer");
		return 0;
	}
	if (o->lit == LIT_INT)
		return ptx_fail(ps, CUMC_PTX_ESYNTAX,
				"integer literal for a floating-point operand");
	if (o->lit == LIT_F32) {
		u = o->imm;
		memcpy(&f, &u, 4);
		d = f;
	} else {
		memcpy(&d, &o->imm, 8);
	}
	if (t.size == 8) {
		memcpy(&o->imm, &d, 8);
	} else if (o->lit == LIT_F32) {
		o->imm = (uint32_t)o->imm;
	} else {
		f = d;
		memcpy(&u, &f, 4);
		o->imm = u;
	}
	o->lit = LIT_INT;
	return 0;
}

/*
 * Whether the current word names a register.  nvcc's registers start with
 * '%', but any identifier may be one: inline PTX declares its own in a
 * nested block ({ .reg .pred p; setp.ne.s32 p, ...; }), and a register
 * declared there hides a variable of the same name.
 */
static bool at_reg(const struct ptx_parser *ps)
{
	uint32_t reg;

	if (ps->lx.tok != T_WORD)
		return false;
	if (ps->lx.text[0] == '%')
		return true;
	/* One whose block has closed no longer hides the variable. */
	return ptx_strmap_get(&ps->regs, ps->lx.text, ps->lx.len, &reg) &&
	       ps->reg_depth[reg] != 0xff;
}

/* A variable's name: its address in its state space. */
static int symbol_operand(struct ptx_parser *ps, struct ptx_operand *o,
			  uint8_t *space)
{
	const struct ptx_sym *sym = ptx_find_sym(ps, ps->lx.text, ps->lx.len);

	if (!sym)
		return ptx_fail(ps, CUMC_PTX_ESYNTAX, "unknown symbol '%.*s'",
				(int)ps->lx.len, ps->lx.text);
	o->imm += sym->value;
	o->dyn_shared = sym->dyn;
	o->global = sym->global;
	o->frame = sym->space == PS_LOCAL;
	if (space)
		*space = sym->space;
	ptx_lex_next(&ps->lx);
	return 0;
}

/* mov's source naming a device function: its address, for calls. */
static int function_operand(struct ptx_parser *ps, struct ptx_operand *o)
{
	int f = ptx_find_func(ps, ps->lx.text, ps->lx.len);

	if (f < 0)
		return ptx_fail(ps, CUMC_PTX_ESYNTAX, "unknown symbol '%.*s'",
				(int)ps->lx.len, ps->lx.text);
	o->kind = PO_IMM;
	o->imm = ptx_func_addr(ps->mod, f);
	ptx_lex_next(&ps->lx);
	return 0;
}

/* [reg], [reg+imm], [sym], [sym+imm], [imm] */
static int address_operand(struct ptx_parser *ps, struct ptx_insn *in,
			   struct ptx_operand *o)
{
	uint8_t space = PS_GENERIC;
	struct ptx_operand off = { 0 };
	bool minus;

	ptx_lex_next(&ps->lx);
	o->kind = PO_ADDR;
	o->reg = PTX_NO_REG;
	if (at_reg(ps)) {
		if (!ptx_strmap_get(&ps->regs, ps->lx.text, ps->lx.len,
				    &o->reg))
			return ptx_fail(ps, CUMC_PTX_ESYNTAX,
					"unknown register '%.*s'",
					(int)ps->lx.len, ps->lx.text);
		ptx_lex_next(&ps->lx);
	} else if (ps->lx.tok == T_WORD) {
		if (symbol_operand(ps, o, &space))
			return -1;
		/* A call's .param variable lives in the local memory. */
		if (in->space == PS_PARAM && space == PS_LOCAL)
			in->space = PS_LOCAL;
	} else if (ptx_immediate(ps, &off)) {
		return -1;
	} else {
		o->imm = off.imm;
	}
	if (ptx_lex_is(&ps->lx, "+") || ptx_lex_is(&ps->lx, "-")) {
		minus = ptx_lex_is(&ps->lx, "-");
		ptx_lex_next(&ps->lx);
		if (ptx_immediate(ps, &off))
			return -1;
		o->imm += minus ? -off.imm : off.imm;
	}
	return ptx_expect(ps, "]");
}

static int vector_operand(struct ptx_parser *ps, struct ptx_operand *o)
{
	ptx_lex_next(&ps->lx);
	o->kind = PO_VEC;
	while (!ptx_lex_is(&ps->lx, "}")) {
		struct ptx_operand e = { 0 };

		if (o->nvec == 4)
			return ptx_fail(ps, CUMC_PTX_EUNSUPPORTED,
					"vector of more than 4 elements");
		if (ptx_lex_is(&ps->lx, "_")) {
			e.reg = PTX_NO_REG;
			ptx_lex_next(&ps->lx);
		} else if (ps->lx.tok != T_WORD || reg_operand(ps, &e) ||
			   e.kind != PO_REG) {
			return ptx_fail(ps, CUMC_PTX_ESYNTAX,
					"bad vector element");
		}
		o->vec[o->nvec++] = e.reg;
		if (ptx_lex_is(&ps->lx, ","))
			ptx_lex_next(&ps->lx);
	}
	ptx_lex_next(&ps->lx);
	/* {%r}: the register itself, as inline PTX often writes "{%0}". */
	if (o->nvec == 1 && o->vec[0] != PTX_NO_REG) {
		o->kind = PO_REG;
		o->reg = o->vec[0];
		o->nvec = 0;
	}
	return 0;
}

static int operand(struct ptx_parser *ps, struct ptx_insn *in,
		   struct ptx_operand *o)
{
	struct ptx_lexer *lx = &ps->lx;
	uint32_t label;

	if (ptx_lex_is(lx, "["))
		return address_operand(ps, in, o);
	if (ptx_lex_is(lx, "{"))
		return vector_operand(ps, o);
	if (ptx_lex_is(lx, "!")) {
		ptx_lex_next(lx);
		o->neg = 1;
	}
	if (ptx_lex_is(lx, "_")) {
		o->kind = PO_SINK;
		ptx_lex_next(lx);
		return 0;
	}
	if (lx->tok == T_WORD && in->op == OP_BRA && lx->text[0] != '%') {
		if (ptx_label(ps, lx->text, lx->len, &label))
			return -1;
		o->kind = PO_LABEL;
		o->imm = label;
		ptx_lex_next(lx);
		return 0;
	}
	if (at_reg(ps))
		return reg_operand(ps, o);
	if (lx->tok == T_WORD && in->op == OP_MOV &&
	    !ptx_find_sym(ps, lx->text, lx->len))
		return function_operand(ps, o);
	if (lx->tok == T_WORD) {
		uint8_t space;

		o->kind = PO_IMM;
		if (symbol_operand(ps, o, &space))
			return -1;
		if (in->op != OP_MOV && in->op != OP_CVTA)
			return ptx_fail(ps, CUMC_PTX_EUNSUPPORTED,
					"a symbol as an operand of '%.*s'",
					(int)lx->len, lx->text);
		if (space == PS_PARAM)
			return ptx_fail(ps, CUMC_PTX_EUNSUPPORTED,
					"the address of a parameter");
		return 0;
	}
	return ptx_immediate(ps, o);
}

/* The operand list, with setp's "p|q" as two destinations. */
static int operands(struct ptx_parser *ps, struct ptx_insn *in)
{
	while (!ptx_lex_is(&ps->lx, ";")) {
		if (in->nopnd == PTX_MAX_OPERANDS)
			return ptx_fail(ps, CUMC_PTX_EUNSUPPORTED,
					"too many operands");
		if (operand(ps, in, &in->o[in->nopnd++]))
			return -1;
		if ((in->op == OP_SETP || in->op == OP_SHFL ||
		     in->op == OP_MATCH) && in->nopnd == 1) {
			if (ptx_lex_is(&ps->lx, "|")) {
				ptx_lex_next(&ps->lx);
				if (operand(ps, in, &in->o[in->nopnd++]))
					return -1;
			} else {
				in->o[in->nopnd++].kind = PO_NONE;
			}
		}
		if (ptx_lex_is(&ps->lx, ","))
			ptx_lex_next(&ps->lx);
		else if (!ptx_lex_is(&ps->lx, ";"))
			return ptx_fail(ps, CUMC_PTX_ESYNTAX,
					"unexpected '%.*s'", (int)ps->lx.len,
					ps->lx.text);
	}
	ptx_lex_next(&ps->lx);
	return 0;
}

static int guard(struct ptx_parser *ps, struct ptx_insn *in)
{
	in->guard = PTX_NO_REG;
	if (!ptx_lex_is(&ps->lx, "@"))
		return 0;
	ptx_lex_next(&ps->lx);
	if (ptx_lex_is(&ps->lx, "!")) {
		in->guard_neg = 1;
		ptx_lex_next(&ps->lx);
	}
	if (ps->lx.tok != T_WORD ||
	    !ptx_strmap_get(&ps->regs, ps->lx.text, ps->lx.len, &in->guard))
		return ptx_fail(ps, CUMC_PTX_ESYNTAX, "bad guard predicate");
	ptx_lex_next(&ps->lx);
	return 0;
}

/* ( a, b, ... ): .param variables of the caller, their local addresses. */
static int call_list(struct ptx_parser *ps, uint64_t **list, uint32_t *n)
{
	size_t cap = 0;

	ptx_lex_next(&ps->lx);
	while (!ptx_lex_is(&ps->lx, ")")) {
		const struct ptx_sym *sym;

		if (ps->lx.tok != T_WORD)
			return ptx_fail(ps, CUMC_PTX_ESYNTAX, "bad call operand");
		sym = ptx_find_sym(ps, ps->lx.text, ps->lx.len);
		if (!sym || sym->space != PS_LOCAL)
			return ptx_fail(ps, CUMC_PTX_EUNSUPPORTED,
					"call operand '%.*s' is not a .param variable",
					(int)ps->lx.len, ps->lx.text);
		if (ptx_grow(ps, (void **)list, &cap, *n + 1, sizeof(**list)))
			return -1;
		(*list)[(*n)++] = sym->value;
		ptx_lex_next(&ps->lx);
		if (ptx_lex_is(&ps->lx, ","))
			ptx_lex_next(&ps->lx);
		else if (!ptx_lex_is(&ps->lx, ")"))
			return ptx_fail(ps, CUMC_PTX_ESYNTAX, "bad call operands");
	}
	ptx_lex_next(&ps->lx);
	return 0;
}

/*
 * An indirect call's callee: a register and, after the arguments, a
 * .callprototype (or .calltargets) label the operands must agree with.
 * Which function it reaches is known when it runs (exec.c).
 */
static int indirect_callee(struct ptx_parser *ps, struct ptx_call *c)
{
	struct ptx_operand o = { 0 };
	uint32_t proto;

	if (reg_operand(ps, &o))
		return -1;
	if (o.kind != PO_REG)
		return ptx_fail(ps, CUMC_PTX_ESYNTAX, "bad call target");
	c->target = o.reg;
	if (ptx_expect(ps, ",") ||
	    (ptx_lex_is(&ps->lx, "(") && (call_list(ps, &c->args, &c->nargs) ||
					  ptx_expect(ps, ","))))
		return -1;
	if (ps->lx.tok != T_WORD ||
	    !ptx_strmap_get(&ps->protos, ps->lx.text, ps->lx.len, &proto))
		return ptx_fail(ps, CUMC_PTX_ESYNTAX,
				"indirect call without a .callprototype or .calltargets");
	if (proto != PTX_PROTO_ANY &&
	    (c->nrets != PTX_PROTO_RETS(proto) ||
	     c->nargs != PTX_PROTO_ARGS(proto)))
		return ptx_fail(ps, CUMC_PTX_ESYNTAX,
				"indirect call: operands do not match '%.*s'",
				(int)ps->lx.len, ps->lx.text);
	ptx_lex_next(&ps->lx);
	return 0;
}

/*
 * call[.uni] [(results),] func [, (arguments)];
 * call[.uni] [(results),] reg, [(arguments),] prototype;
 */
static int parse_call(struct ptx_parser *ps, struct ptx_insn *in)
{
	struct cumc_ptx_function *fn = ps->fn;
	struct ptx_call *c;
	int callee;

	if (in->flags & ~PF_UNI || in->type.size || in->space)
		return ptx_fail(ps, CUMC_PTX_EUNSUPPORTED,
				"instruction 'call' with these modifiers");
	if (ptx_grow(ps, (void **)&fn->calls, &ps->calls_cap, fn->ncalls + 1,
		     sizeof(*c)))
		return -1;
	c = &fn->calls[fn->ncalls++];
	memset(c, 0, sizeof(*c));
	c->line = in->line;
	c->target = PTX_NO_REG;
	in->nopnd = 1;
	in->o[0].kind = PO_IMM;
	in->o[0].imm = fn->ncalls - 1;
	if (ptx_lex_is(&ps->lx, "(")) {
		if (call_list(ps, &c->rets, &c->nrets) ||
		    ptx_expect(ps, ","))
			return -1;
	}
	if (at_reg(ps))
		return indirect_callee(ps, c) || ptx_expect(ps, ";");
	if (ps->lx.tok != T_WORD)
		return ptx_fail(ps, CUMC_PTX_ESYNTAX, "bad call target");
	callee = ptx_find_func(ps, ps->lx.text, ps->lx.len);
	if (callee < 0)
		return ptx_fail(ps, CUMC_PTX_ESYNTAX,
				"call to '%.*s', which is not declared",
				(int)ps->lx.len, ps->lx.text);
	c->callee = callee;
	ptx_lex_next(&ps->lx);
	if (ptx_lex_is(&ps->lx, ",")) {
		ptx_lex_next(&ps->lx);
		if (!ptx_lex_is(&ps->lx, "("))
			return ptx_fail(ps, CUMC_PTX_EUNSUPPORTED,
					"direct call with a prototype");
		if (call_list(ps, &c->args, &c->nargs))
			return -1;
	}
	if (ptx_lex_is(&ps->lx, ","))
		return ptx_fail(ps, CUMC_PTX_EUNSUPPORTED,
				"direct call with a prototype");
	return ptx_expect(ps, ";");
}

int ptx_parse_insn(struct ptx_parser *ps)
{
	struct cumc_ptx_function *fn = ps->fn;
	struct insn_words iw = { 0 };
	struct ptx_insn *in;
	unsigned int nopnd = 0;

	if (ptx_grow(ps, (void **)&fn->insns, &ps->insns_cap, fn->ninsns + 1,
		     sizeof(*in)))
		return -1;
	in = &fn->insns[fn->ninsns];
	memset(in, 0, sizeof(*in));
	in->line = ps->lx.tok_line;
	if (guard(ps, in))
		return -1;
	if (ps->lx.tok != T_WORD)
		return ptx_fail(ps, CUMC_PTX_ESYNTAX, "expected an instruction");
	if (opcode(ps, in, &iw, &nopnd))
		return -1;
	ptx_lex_next(&ps->lx);
	if (in->op == OP_CALL) {
		if (parse_call(ps, in))
			return -1;
		fn->ninsns++;
		return 0;
	}
	if (operands(ps, in))
		return -1;
	if (ptx_check_insn(ps, in, iw.text, iw.len, nopnd))
		return -1;
	fn->ninsns++;
	return 0;
}
