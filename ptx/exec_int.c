// SPDX-License-Identifier: MIT
/*
 * Integer and bit instructions, integer setp, selp, mov and cvt between
 * integer types.  Division by zero, which the ISA leaves undefined,
 * answers all ones for div and rem, signed or not, as an H200 does,
 * without a trap; INT_MIN / -1 is INT_MIN, its remainder 0.
 */
#include "exec_int.h"

static uint64_t mul_hi(uint64_t a, uint64_t b, struct ptx_type t)
{
	unsigned int bits = t.size * 8;

	if (t.cls == PC_S)
		return (uint64_t)(((__int128)(int64_t)a * (int64_t)b) >> bits);
	return (uint64_t)(((unsigned __int128)a * b) >> bits);
}

/* mul and mad's product: .lo, .hi or .wide. */
static uint64_t product(const struct ptx_insn *in, uint64_t a, uint64_t b)
{
	if (in->flags & PF_HI)
		return mul_hi(a, b, in->type);
	return a * b;
}

static uint64_t divide(struct ptx_type t, uint64_t a, uint64_t b, bool rem)
{
	int64_t sa = (int64_t)a, sb = (int64_t)b;

	if (!b)
		return ~0ull;
	if (t.cls != PC_S)
		return rem ? a % b : a / b;
	if (sb == -1)	/* no overflow trap for INT_MIN / -1 */
		return rem ? 0 : -(uint64_t)sa;
	return rem ? (uint64_t)(sa % sb) : (uint64_t)(sa / sb);
}

static uint64_t min_max(struct ptx_type t, uint64_t a, uint64_t b, bool max)
{
	bool less = t.cls == PC_S ? (int64_t)a < (int64_t)b : a < b;

	return less != max ? a : b;
}

static uint64_t shift(const struct ptx_insn *in, uint64_t a, uint64_t n)
{
	unsigned int bits = in->type.size * 8;

	n = (uint32_t)n;
	if (in->op == OP_SHL)
		return n >= bits ? 0 : a << n;
	if (in->type.cls == PC_S)	/* a is sign-extended to 64 bits */
		return (uint64_t)((int64_t)a >> (n >= bits ? 63 : n));
	return n >= bits ? 0 : a >> n;
}

static uint64_t brev(uint64_t v, unsigned int bits)
{
	uint64_t r = 0;
	unsigned int i;

	for (i = 0; i < bits; i++)
		r |= ((v >> i) & 1) << (bits - 1 - i);
	return r;
}

/*
 * bfe: len bits of a from pos, sign-extended from the last for .s types.
 * The ISA takes pos and len modulo 256; an H200 does so for 32 bits only,
 * and takes the whole u32 operands for 64 (bfe.u64 with len 2^31 is a).
 */
static uint64_t bfe(struct ptx_type t, uint64_t a, uint64_t pos, uint64_t len)
{
	unsigned int msb = t.size * 8 - 1, i;
	uint64_t d = 0, sbit = 0;

	pos = t.size == 8 ? (uint32_t)pos : pos & 0xff;
	len = t.size == 8 ? (uint32_t)len : len & 0xff;
	if (t.cls == PC_S && len)
		sbit = a >> (pos + len - 1 < msb ? pos + len - 1 : msb) & 1;
	for (i = 0; i <= msb; i++) {
		uint64_t bit = i < len && pos + i <= msb ? a >> (pos + i) & 1 :
			       sbit;

		d |= bit << i;
	}
	return d;
}

/* bfi: the len low bits of a into b from pos, as far as b reaches. */
static uint64_t bfi(struct ptx_type t, uint64_t a, uint64_t b, uint64_t pos,
		    uint64_t len)
{
	unsigned int msb = t.size * 8 - 1, i;

	pos &= 0xff;
	len &= 0xff;
	for (i = 0; i < len && pos + i <= msb; i++)
		b = (b & ~(1ull << (pos + i))) | (a >> i & 1) << (pos + i);
	return b;
}

/*
 * prmt: each byte of d picks one of the 8 bytes of {b, a} (a's are 0 to
 * 3): by a nibble of c (bit 3 replicating the byte's sign bit), or by the
 * mode's pattern indexed with c's two low bits.
 */
static uint64_t prmt(enum ptx_prmt mode, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t v = (uint32_t)a | (uint64_t)(uint32_t)b << 32, d = 0;
	unsigned int r = c & 3, i, sel;

	for (i = 0; i < 4; i++) {
		uint64_t byte;

		switch (mode) {
		case PRMT_F4E: sel = (r + i) & 7; break;
		case PRMT_B4E: sel = (r - i) & 7; break;
		case PRMT_RC8: sel = r; break;
		case PRMT_ECL: sel = i > r ? i : r; break;
		case PRMT_ECR: sel = i < r ? i : r; break;
		case PRMT_RC16: sel = (r & 1) * 2 + (i & 1); break;
		default: sel = c >> (4 * i) & 0xf; break;
		}
		byte = v >> (8 * (sel & 7)) & 0xff;
		if (mode == PRMT_DEFAULT && (sel & 8))
			byte = byte & 0x80 ? 0xff : 0;
		d |= byte << (8 * i);
	}
	return d;
}

/*
 * mul24 and mad24: the 48-bit product of a and b's low 24 bits (signed for
 * .s32), its bits 0 to 31 (.lo) or 16 to 47 (.hi).
 */
static uint64_t mul24(const struct ptx_insn *in, uint64_t a, uint64_t b)
{
	int64_t p;

	if (in->type.cls == PC_S)
		p = ptx_sext(a & 0xffffff, 3) * ptx_sext(b & 0xffffff, 3);
	else
		p = (int64_t)((a & 0xffffff) * (b & 0xffffff));
	return (uint32_t)(in->flags & PF_HI ? (uint64_t)p >> 16 : (uint64_t)p);
}

/* lop3: bit k of immLut is F at a = k bit 2, b = bit 1, c = bit 0. */
static uint64_t lop3(uint64_t a, uint64_t b, uint64_t c, uint64_t lut)
{
	uint64_t d = 0;
	unsigned int k;

	for (k = 0; k < 8; k++)
		if (lut >> k & 1)
			d |= (k & 4 ? a : ~a) & (k & 2 ? b : ~b) &
			     (k & 1 ? c : ~c);
	return d;
}

/*
 * bfind: the position of the most significant bit that differs from the
 * sign (a signed value's highest 0 when negative), or with .shiftamt the
 * left shift that brings it to the top; 0xffffffff when there is none.
 */
static uint64_t bfind(const struct ptx_insn *in, uint64_t a)
{
	unsigned int bits = in->type.size * 8;
	unsigned int pos;

	if (in->type.cls == PC_S && (int64_t)ptx_sext(a, in->type.size) < 0)
		a = ~a;
	a = ptx_zext(a, in->type.size);
	if (!a)
		return 0xffffffff;
	pos = 63 - __builtin_clzll(a);
	return in->flags & PF_SHIFTAMT ? bits - 1 - pos : pos;
}

/*
 * shf: b:a as one 64-bit value (b high) shifted by n, the upper half for
 * .l, the lower for .r; n is c & 31 (.wrap) or c up to 32 (.clamp).
 */
static uint64_t funnel(unsigned int mode, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t v = (b & 0xffffffff) << 32 | (a & 0xffffffff);
	unsigned int n = mode & SHF_CLAMP ? ((uint32_t)c > 32 ? 32 : c) :
			 c & 31;

	return mode & SHF_LEFT ? (uint32_t)(v << n >> 32) : (uint32_t)(v >> n);
}

static bool compare(enum ptx_cmp cmp, struct ptx_type t, uint64_t a,
		    uint64_t b)
{
	bool s = t.cls == PC_S;

	switch (cmp) {
	case CMP_EQ: return a == b;
	case CMP_NE: return a != b;
	case CMP_LT: return s ? (int64_t)a < (int64_t)b : a < b;
	case CMP_LE: return s ? (int64_t)a <= (int64_t)b : a <= b;
	case CMP_GT: return s ? (int64_t)a > (int64_t)b : a > b;
	case CMP_GE: return s ? (int64_t)a >= (int64_t)b : a >= b;
	case CMP_LO: return a < b;
	case CMP_LS: return a <= b;
	case CMP_HI: return a > b;
	default: return a >= b;		/* CMP_HS */
	}
}

/* setp's result combined with its predicate operand: and, or, xor. */
void ptx_setp_result(struct ptx_exec *x, const struct ptx_insn *in, bool r);
void ptx_setp_result(struct ptx_exec *x, const struct ptx_insn *in, bool r)
{
	bool c = in->aop ? !!ptx_src(x, &in->o[4]) : false;
	bool p = r, q = !r;

	switch (in->aop) {
	case AOP_AND: p = p && c; q = q && c; break;
	case AOP_OR: p = p || c; q = q || c; break;
	case AOP_XOR: p = p != c; q = q != c; break;
	default: break;
	}
	ptx_dst(x, &in->o[0], p, 1);
	if (in->o[1].kind == PO_REG)
		ptx_dst(x, &in->o[1], q, 1);
}

/* cvt between integer types: truncate or extend, or clamp with .sat. */
static uint64_t convert(const struct ptx_insn *in, uint64_t v)
{
	struct ptx_type d = in->type, s = in->type2;
	unsigned int bits = d.size * 8;
	int64_t lo, hi;

	if (!(in->flags & PF_SAT))
		return v;
	hi = d.cls == PC_S ? (int64_t)((1ull << (bits - 1)) - 1) :
	     (int64_t)(bits == 64 ? INT64_MAX : (int64_t)((1ull << bits) - 1));
	lo = d.cls == PC_S ? -hi - 1 : 0;
	if (s.cls == PC_S)
		return (int64_t)v < lo ? (uint64_t)lo :
		       (int64_t)v > hi ? (uint64_t)hi : v;
	if (bits == 64 && d.cls != PC_S)
		return v;
	return v > (uint64_t)hi ? (uint64_t)hi : v;
}

static uint64_t sat32(int64_t v)
{
	return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? (uint64_t)INT32_MIN :
	       (uint64_t)v;
}

static uint64_t arith(struct ptx_exec *x, const struct ptx_insn *in,
		      struct ptx_type st)
{
	uint64_t a = ptx_srcx(x, &in->o[1], st);
	uint64_t b = in->nopnd > 2 ? ptx_srcx(x, &in->o[2], st) : 0;
	bool sat = in->flags & PF_SAT;

	switch (in->op) {
	case OP_ADD: return sat ? sat32((int64_t)a + (int64_t)b) : a + b;
	case OP_SUB: return sat ? sat32((int64_t)a - (int64_t)b) : a - b;
	case OP_MUL: return product(in, a, b);
	case OP_MAD: {
		struct ptx_type ct = in->type;
		uint64_t c;

		if (in->flags & PF_WIDE)
			ct.size *= 2;
		c = ptx_srcx(x, &in->o[3], ct);
		return sat ? sat32((int64_t)product(in, a, b) + (int64_t)c) :
		       product(in, a, b) + c;
	}
	case OP_DIV: return divide(st, a, b, false);
	case OP_REM: return divide(st, a, b, true);
	case OP_MIN: return min_max(st, a, b, false);
	case OP_MAX: return min_max(st, a, b, true);
	case OP_ABS: return (int64_t)a < 0 ? -a : a;
	case OP_NEG: return -a;
	case OP_AND: return a & b;
	case OP_OR: return a | b;
	case OP_XOR: return a ^ b;
	case OP_NOT: return st.cls == PC_PRED ? !a : ~a;
	case OP_CNOT: return !a;
	case OP_SHL: case OP_SHR:
		return shift(in, a, ptx_src(x, &in->o[2]));
	case OP_POPC: return __builtin_popcountll(a);
	case OP_BFIND: return bfind(in, a);
	case OP_CLZ:
		return a ? __builtin_clzll(a) - (64 - st.size * 8) : st.size * 8;
	case OP_BREV: return brev(a, st.size * 8);
	case OP_BFE:
		return bfe(st, a, b, ptx_src(x, &in->o[3]));
	case OP_BFI:
		return bfi(st, a, b, ptx_src(x, &in->o[3]),
			   ptx_src(x, &in->o[4]));
	case OP_PRMT:
		return prmt(in->wmode, a, b, ptx_src(x, &in->o[3]));
	case OP_SHF:
		return funnel(in->wmode, a, b, ptx_src(x, &in->o[3]));
	case OP_LOP3:
		return lop3(a, b, ptx_src(x, &in->o[3]), ptx_src(x, &in->o[4]));
	case OP_MUL24:
		return mul24(in, a, b);
	case OP_MAD24: {
		uint64_t c = ptx_srcx(x, &in->o[3], st);

		return sat ? sat32((int64_t)ptx_sext(mul24(in, a, b), 4) +
				   (int64_t)c) : mul24(in, a, b) + c;
	}
	case OP_SAD:	/* |a - b| + c */
		return (st.cls == PC_S ? (int64_t)a < (int64_t)b : a < b) ?
		       b - a + ptx_srcx(x, &in->o[3], st) :
		       a - b + ptx_srcx(x, &in->o[3], st);
	default: return a;	/* mov */
	}
}

/*
 * cvt's result, @v of the destination type: a signed one narrower than
 * its register (cvt.s8.s32 into a 16-bit register) is sign-extended to the
 * register's width, as the ISA's rules for wider destinations say.
 */
void ptx_dst_cvt(struct ptx_exec *x, const struct ptx_insn *in, uint64_t v)
{
	const struct ptx_operand *o = &in->o[0];
	unsigned int size = in->type.size;

	if (o->kind == PO_REG && in->type.cls == PC_S &&
	    x->t->fn->reg_types[o->reg].size > size) {
		v = (uint64_t)ptx_sext(v, size);
		size = x->t->fn->reg_types[o->reg].size;
	}
	ptx_dst(x, o, v, size);
}

/* mov between a register and a vector of its parts, element 0 lowest. */
static void mov_vector(struct ptx_exec *x, const struct ptx_insn *in)
{
	bool pack = in->o[1].kind == PO_VEC;
	const struct ptx_operand *v = &in->o[pack ? 1 : 0];
	unsigned int w = in->type.size / v->nvec, i;
	uint64_t r = pack ? 0 : ptx_src(x, &in->o[1]);

	for (i = 0; i < v->nvec; i++) {
		if (pack)
			r |= ptx_zext(x->regs[v->vec[i]], w) << (i * w * 8);
		else if (v->vec[i] != PTX_NO_REG)
			x->regs[v->vec[i]] = ptx_zext(r >> (i * w * 8), w);
	}
	if (pack)
		ptx_dst(x, &in->o[0], r, in->type.size);
}

void ptx_exec_int(struct ptx_exec *x, const struct ptx_insn *in)
{
	struct ptx_type dt = in->type;
	uint64_t v;

	switch (in->op) {
	case OP_SETP:
		ptx_setp_result(x, in, compare(in->cmp, in->type,
					       ptx_srcx(x, &in->o[2], in->type),
					       ptx_srcx(x, &in->o[3], in->type)));
		return;
	case OP_SELP:
		v = ptx_src(x, &in->o[3]) ? ptx_src(x, &in->o[1]) :
					    ptx_src(x, &in->o[2]);
		break;
	case OP_CVT:
		ptx_dst_cvt(x, in, convert(in, ptx_srcx(x, &in->o[1],
							 in->type2)));
		return;
	case OP_POPC: case OP_CLZ: case OP_BFIND:
		v = arith(x, in, in->type);
		dt.size = 4;
		break;
	case OP_MOV:
		if (in->o[0].kind == PO_VEC || in->o[1].kind == PO_VEC) {
			mov_vector(x, in);
			return;
		}
		v = arith(x, in, in->type);
		break;
	default:
		v = arith(x, in, in->type);
		if ((in->op == OP_MUL || in->op == OP_MAD) &&
		    (in->flags & PF_WIDE))
			dt.size *= 2;
	}
	ptx_dst(x, &in->o[0], v, dt.size);
}
