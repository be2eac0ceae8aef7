// SPDX-License-Identifier: MIT
/*
 * Floating-point instructions and conversions with a floating-point side
 * (f32 and f64; exec_half.c has the 16-bit floats).  Arithmetic runs in
 * the host's IEEE binary32/binary64 under the PTX rounding mode; .approx
 * forms (div, sqrt, rcp, and ex2, lg2, sin, cos, rsqrt, tanh from the
 * host's libm in double) are the exact value rounded, or nearly, which is
 * within their documented error.  Where the ISA leaves
 * a result open (which NaN comes out, NaN to an integer), the answer is
 * the one an H200 gives (conformance/ptx's corpus records it).
 */
#include <fenv.h>
#include <math.h>
#include <string.h>

#include "exec_int.h"

void ptx_setp_result(struct ptx_exec *x, const struct ptx_insn *in, bool r);

static float f32(uint64_t v)
{
	uint32_t u = v;
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static double f64(uint64_t v)
{
	double d;

	memcpy(&d, &v, 8);
	return d;
}

static uint64_t bits32(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static uint64_t bits64(double d)
{
	uint64_t u;

	memcpy(&u, &d, 8);
	return u;
}

static int host_mode(enum ptx_rnd r)
{
	switch (r) {
	case RND_RZ: case RND_RZI: return FE_TOWARDZERO;
	case RND_RM: case RND_RMI: return FE_DOWNWARD;
	case RND_RP: case RND_RPI: return FE_UPWARD;
	default: return FE_TONEAREST;
	}
}

static float ftz32(float f, bool ftz)
{
	return ftz && fpclassify(f) == FP_SUBNORMAL ? copysignf(0.0f, f) : f;
}

static double ftz64(double d, bool ftz)
{
	return ftz && fpclassify(d) == FP_SUBNORMAL ? copysign(0.0, d) : d;
}

/* PTX min/max: NaN loses to a number (.NaN: wins); -0 is below +0. */
static double fminmax(double a, double b, bool max, bool nan)
{
	if (nan && (isnan(a) || isnan(b)))
		return NAN;
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	if (a == b)
		return (signbit(a) != max) ? a : b;
	return (a < b) != max ? a : b;
}

/*
 * The angle sin.approx and cos.approx take, as an H200 reduces it: a
 * times 1/(2 pi) rounded to f32, the product rounded toward zero to f32
 * (in turns), its fraction back to radians.  On the corpus (arguments to
 * the largest float) the H200's answers are within 2^-21.5 of the sine of
 * that angle; beyond 2^23 the product is whole, so they are 0 and 1, not
 * the true sine.  On [-pi, pi] it stays within the ISA's bound.
 */
static double turns(double a)
{
	float c = (float)(0.5 / M_PI);
	double p = a * c;	/* exact: 24 by 24 bits */
	float t = (float)p;

	if (fabs((double)t) > fabs(p))
		t = nextafterf(t, 0.0f);
	return 2 * M_PI * ((double)t - floor(t));
}

static double arith(const struct ptx_insn *in, double a, double b, double c,
		    bool single)
{
	switch (in->op) {
	case OP_ADD: return single ? (double)((float)a + (float)b) : a + b;
	case OP_SUB: return single ? (double)((float)a - (float)b) : a - b;
	case OP_MUL: return single ? (double)((float)a * (float)b) : a * b;
	case OP_DIV: return single ? (double)((float)a / (float)b) : a / b;
	case OP_FMA:
	case OP_MAD:
		return single ? (double)fmaf(a, b, c) : fma(a, b, c);
	case OP_SQRT: return single ? (double)sqrtf(a) : sqrt(a);
	case OP_RCP: return single ? (double)(1.0f / (float)a) : 1.0 / a;
	case OP_MIN: return fminmax(a, b, false, in->flags & PF_NAN);
	case OP_MAX: return fminmax(a, b, true, in->flags & PF_NAN);
	/* .approx: the exact value rounded, within every bound the ISA
	 * gives (rsqrt.f64 too: two roundings stay within 1 ulp). */
	case OP_EX2: return exp2(a);
	case OP_LG2: return log2(a);
	case OP_SIN: return sin(turns(a));
	case OP_COS: return cos(turns(a));
	case OP_TANH: return tanh(a);
	case OP_RSQRT: return 1.0 / sqrt(a);
	case OP_ABS: return fabs(a);
	default: return -a;	/* neg */
	}
}

static double src(const struct ptx_exec *x, const struct ptx_operand *o,
		  bool single, bool ftz)
{
	uint64_t v = ptx_src(x, o);

	return single ? (double)ftz32(f32(v), ftz) : ftz64(f64(v), ftz);
}

/* .sat: NaN and -0.0 come out as +0.0, as on the GPU. */
static double saturate(double v)
{
	return !(v > 0.0) ? 0.0 : v > 1.0 ? 1.0 : v;
}

static uint64_t result(const struct ptx_insn *in, double v, bool single)
{
	bool ftz = in->flags & PF_FTZ;

	if (in->flags & PF_SAT)
		v = saturate(v);
	if (!single)
		return bits64(ftz64(v, ftz));
	/* Every f32 NaN result is the canonical one, abs and neg's too. */
	if (isnan(v))
		return 0x7fffffffu;
	return bits32(ftz32((float)v, ftz));
}

static uint64_t quiet64(double d)
{
	return bits64(d) | 0x0008000000000000ull;
}

/*
 * f64 NaN results the host would give otherwise: abs and neg of a NaN
 * quiet it and keep its sign; add, sub, mul, min and max of two NaNs give
 * the second one, quieted (the host's SSE gives the first); fma's NaN is
 * b if b is one, else c if c is one, else a.
 */
static bool nan64(const struct ptx_insn *in, double a, double b, double c,
		  uint64_t *r)
{
	switch (in->op) {
	case OP_ABS: case OP_NEG:
		if (!isnan(a))
			return false;
		*r = quiet64(a);
		return true;
	case OP_ADD: case OP_SUB: case OP_MUL: case OP_MIN: case OP_MAX:
		if (!isnan(a) || !isnan(b))
			return false;
		*r = quiet64(b);
		return true;
	case OP_RSQRT:	/* a NaN quieted; a negative number's NaN is negative */
		if (!isnan(a) && !(a < 0))
			return false;
		*r = isnan(a) ? quiet64(a) : 0xfff8000000000000ull;
		return true;
	case OP_FMA: case OP_MAD:	/* b first, then c, then a */
		if (!isnan(a) && !isnan(b) && !isnan(c))
			return false;
		*r = quiet64(isnan(b) ? b : isnan(c) ? c : a);
		return true;
	default:
		return false;
	}
}

/*
 * .ftz on f32 flushes a result that is subnormal before rounding, even
 * when rounding takes it up to the smallest normal number (an H200 does:
 * mul.rp.ftz of 2^-126 by 1 - 2^-24 is 0).  Such a result is the smallest
 * normal one; rounded toward zero it stays subnormal.
 */
static uint64_t ftz_tiny(const struct ptx_insn *in, double a, double b,
			 double c, uint64_t r)
{
	uint64_t z;

	if ((r & 0x7fffffffu) != 0x00800000u || in->op == OP_MIN ||
	    in->op == OP_MAX || in->op == OP_ABS || in->op == OP_NEG)
		return r;
	fesetround(FE_TOWARDZERO);
	z = bits32((float)arith(in, a, b, c, true));
	fesetround(host_mode(in->rnd));
	return (z & 0x7fffffffu) < 0x00800000u ? r & 0x80000000u : r;
}

/*
 * rcp.approx.ftz.f64, as the ISA defines it: the reciprocal of a's upper
 * 32 bits (sign, exponent, 20 bits of fraction), to the upper 32 bits of
 * the result, the lower 32 zero.  An H200 rounds those 32 bits to
 * nearest (1 / -3.7 is bfd14c1c00000000) and makes every NaN 7fffffff
 * 00000000; a NaN whose payload lies in the lower bits is an infinity.
 */
static uint64_t rcp_approx64(double a)
{
	uint64_t u = bits64(a) & 0xffffffff00000000ull;
	double r;

	r = ftz64(f64(u), true);
	if (isnan(r))
		return 0x7fffffff00000000ull;
	r = ftz64(1.0 / r, true);
	u = bits64(r);
	if (isfinite(r))
		u += 0x80000000u;
	return u & 0xffffffff00000000ull;
}

/*
 * div.approx.f32 is a * (1 / b) with the reciprocal flushed to zero for
 * 2^126 < |b|: then 0 of a's sign times b's, or NaN for an infinite a,
 * as the ISA says (div.full is exact there).
 */
static bool approx_div_huge(const struct ptx_insn *in, double b)
{
	return in->op == OP_DIV && (in->flags & PF_APPROX) &&
	       !(in->flags & PF_FULL) && fabs(b) > 0x1p126;
}

bool ptx_float_compare(enum ptx_cmp cmp, double a, double b)
{
	bool u = isnan(a) || isnan(b);

	switch (cmp) {
	case CMP_EQ: return !u && a == b;
	case CMP_NE: return !u && a != b;
	case CMP_LT: return !u && a < b;
	case CMP_LE: return !u && a <= b;
	case CMP_GT: return !u && a > b;
	case CMP_GE: return !u && a >= b;
	case CMP_EQU: return u || a == b;
	case CMP_NEU: return u || a != b;
	case CMP_LTU: return u || a < b;
	case CMP_LEU: return u || a <= b;
	case CMP_GTU: return u || a > b;
	case CMP_GEU: return u || a >= b;
	case CMP_NUM: return !u;
	default: return u;	/* CMP_NAN */
	}
}

/*
 * Float to integer: rounded as asked, clamped to the range.  NaN, which
 * the ISA makes 0, is 0 only from f32 to 32 bits or fewer on the GPU:
 * from f64 it is the destination's sign bit alone, from f32 to 64 bits
 * bit 63 alone.
 */
uint64_t ptx_float_to_int(double v, struct ptx_type t, enum ptx_rnd r,
			  bool from64)
{
	unsigned int bits = t.size * 8;
	double lo, hi;

	if (isnan(v))
		return from64 || bits == 64 ? 1ull << (bits - 1) : 0;
	v = r == RND_RNI ? nearbyint(v) : r == RND_RMI ? floor(v) :
	    r == RND_RPI ? ceil(v) : trunc(v);
	if (t.cls == PC_S) {
		hi = ldexp(1.0, bits - 1);
		lo = -hi;
		if (v >= hi)
			return ptx_zext((1ull << (bits - 1)) - 1, t.size);
		if (v < lo)
			return ptx_zext(1ull << (bits - 1), t.size);
		return ptx_zext((uint64_t)(int64_t)v, t.size);
	}
	hi = ldexp(1.0, bits);
	if (v <= 0.0)
		return 0;
	if (v >= hi)
		return ptx_zext(~0ull, t.size);
	return (uint64_t)v;
}

static uint64_t convert(struct ptx_exec *x, const struct ptx_insn *in)
{
	struct ptx_type d = in->type, s = in->type2;
	bool ftz = in->flags & PF_FTZ;
	uint64_t v = ptx_srcx(x, &in->o[1], s);
	double f;

	if (d.cls != PC_F)
		return ptx_float_to_int(src(x, &in->o[1], s.size == 4, ftz),
					d, in->rnd, s.size == 8);
	/* .sat of an integer: [0, 1] holds two integers */
	if (s.cls != PC_F && (in->flags & PF_SAT))
		v = s.cls == PC_S ? (int64_t)v > 0 : v > 0;
	if (s.cls == PC_S)
		return d.size == 4 ? bits32((float)(int64_t)v) :
				     bits64((double)(int64_t)v);
	if (s.cls != PC_F)
		return d.size == 4 ? bits32((float)v) : bits64((double)v);
	f = src(x, &in->o[1], s.size == 4, ftz);
	if (in->rnd >= RND_RNI)
		f = nearbyint(f);	/* the mode is the one asked */
	/* A NaN: f32 to f64 with .ftz gives the canonical f32 NaN widened,
	 * f64 to f32 the quiet NaN of the source's sign, no payload. */
	if (isnan(f) && !(in->flags & PF_SAT) && s.size != d.size) {
		if (d.size == 8)
			return ftz ? 0x7fffffffe0000000ull : quiet64(f);
		return signbit(f) ? 0xffc00000u : 0x7fc00000u;
	}
	if (d.size == 8)
		return bits64(in->flags & PF_SAT ? saturate(f) : f);
	if (in->flags & PF_SAT)
		f = saturate(f);
	return isnan(f) ? 0x7fffffffu : bits32(ftz32((float)f, ftz));
}

/* testp of @c, the class of the operand (fpclassify in its own width). */
static bool testp(enum ptx_testp class, int c)
{
	switch (class) {
	case TESTP_FINITE: return c != FP_INFINITE && c != FP_NAN;
	case TESTP_INFINITE: return c == FP_INFINITE;
	case TESTP_NUMBER: return c != FP_NAN;
	case TESTP_NOTANUMBER: return c == FP_NAN;
	/* Zeros count as normal, as the ISA says and the H200 does. */
	case TESTP_NORMAL: return c == FP_NORMAL || c == FP_ZERO;
	default: return c == FP_SUBNORMAL;
	}
}

/* testp and copysign: the operands' bits, no rounding. */
static void exec_fbits(struct ptx_exec *x, const struct ptx_insn *in)
{
	bool single = in->type.size == 4;
	uint64_t a = ptx_src(x, &in->o[1]), sign;

	if (in->op == OP_TESTP) {
		ptx_dst(x, &in->o[0], testp(in->wmode, single ?
						fpclassify(f32(a)) :
						fpclassify(f64(a))), 1);
		return;
	}
	/* copysign d, a, b: b with a's sign. */
	sign = single ? 0x80000000u : 0x8000000000000000ull;
	ptx_dst(x, &in->o[0], (ptx_src(x, &in->o[2]) & ~sign) | (a & sign),
		in->type.size);
}

static void exec_rounded(struct ptx_exec *x, const struct ptx_insn *in)
{
	bool single = in->type.size == 4;
	bool ftz = in->flags & PF_FTZ;
	double a, b, c;
	uint64_t r;

	switch (in->op) {
	case OP_SETP:
		a = src(x, &in->o[2], single, ftz);
		b = src(x, &in->o[3], single, ftz);
		ptx_setp_result(x, in, ptx_float_compare(in->cmp, a, b));
		return;
	case OP_CVT:
		ptx_dst_cvt(x, in, convert(x, in));
		return;
	default:
		a = src(x, &in->o[1], single, ftz);
		b = in->nopnd > 2 ? src(x, &in->o[2], single, ftz) : 0;
		c = in->nopnd > 3 ? src(x, &in->o[3], single, ftz) : 0;
		if (!single && nan64(in, a, b, c, &r)) {
			ptx_dst(x, &in->o[0], r, 8);
			return;
		}
		if (!single && in->op == OP_RCP && (in->flags & PF_APPROX))
			r = rcp_approx64(a);
		else if (single && approx_div_huge(in, b))
			r = result(in, a * copysign(0.0, b), true);
		else
			r = result(in, arith(in, a, b, c, single), single);
		if (single && ftz)
			r = ftz_tiny(in, a, b, c, r);
		ptx_dst(x, &in->o[0], r, in->type.size);
	}
}

void ptx_exec_float(struct ptx_exec *x, const struct ptx_insn *in)
{
	int mode;

	if (in->op == OP_MOV || in->op == OP_SELP) {
		ptx_exec_int(x, in);
		return;
	}
	if (in->op == OP_TESTP || in->op == OP_COPYSIGN) {
		exec_fbits(x, in);
		return;
	}
	mode = host_mode(in->rnd);
	if (mode == FE_TONEAREST) {
		exec_rounded(x, in);
		return;
	}
	fesetround(mode);
	exec_rounded(x, in);
	fesetround(FE_TONEAREST);
}
