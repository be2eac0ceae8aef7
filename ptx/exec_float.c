// SPDX-License-Identifier: MIT
/*
 * Floating-point instructions and conversions with a floating-point side.
 * Arithmetic runs in the host's IEEE binary32/binary64 under the PTX
 * rounding mode; .approx forms (div, sqrt, rcp) are computed exactly
 * rounded, which is within their documented error.
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

/* PTX min/max: NaN loses to a number; -0 is below +0. */
static double fminmax(double a, double b, bool max)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	if (a == b)
		return (signbit(a) != max) ? a : b;
	return (a < b) != max ? a : b;
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
	case OP_MIN: return fminmax(a, b, false);
	case OP_MAX: return fminmax(a, b, true);
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

static double saturate(double v)
{
	return isnan(v) ? 0.0 : v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v;
}

static uint64_t result(const struct ptx_insn *in, double v, bool single)
{
	bool ftz = in->flags & PF_FTZ;

	if (in->flags & PF_SAT)
		v = saturate(v);
	if (!single)
		return bits64(ftz64(v, ftz));
	/* abs and neg only change the sign bit, of a NaN too. */
	if (isnan(v) && in->op != OP_ABS && in->op != OP_NEG)
		return 0x7fffffffu;
	return bits32(ftz32((float)v, ftz));
}

static bool compare(enum ptx_cmp cmp, double a, double b)
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

/* Float to integer: rounded as asked, clamped to the range, NaN is 0. */
static uint64_t to_int(double v, struct ptx_type t, enum ptx_rnd r)
{
	unsigned int bits = t.size * 8;
	double lo, hi;

	if (isnan(v))
		return 0;
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
		return to_int(src(x, &in->o[1], s.size == 4, ftz), d, in->rnd);
	if (s.cls == PC_S)
		return d.size == 4 ? bits32((float)(int64_t)v) :
				     bits64((double)(int64_t)v);
	if (s.cls != PC_F)
		return d.size == 4 ? bits32((float)v) : bits64((double)v);
	f = src(x, &in->o[1], s.size == 4, ftz);
	if (in->rnd >= RND_RNI)
		f = nearbyint(f);	/* the mode is the one asked */
	if (d.size == 8)
		return bits64(in->flags & PF_SAT ? saturate(f) : f);
	if (in->flags & PF_SAT)
		f = saturate(f);
	return isnan(f) ? 0x7fffffffu : bits32(ftz32((float)f, ftz));
}

static void exec_rounded(struct ptx_exec *x, const struct ptx_insn *in)
{
	bool single = in->type.size == 4;
	bool ftz = in->flags & PF_FTZ;
	double a, b, c;

	switch (in->op) {
	case OP_SETP:
		a = src(x, &in->o[2], single, ftz);
		b = src(x, &in->o[3], single, ftz);
		ptx_setp_result(x, in, compare(in->cmp, a, b));
		return;
	case OP_CVT:
		ptx_dst(x, &in->o[0], convert(x, in), in->type.size);
		return;
	default:
		a = src(x, &in->o[1], single, ftz);
		b = in->nopnd > 2 ? src(x, &in->o[2], single, ftz) : 0;
		c = in->nopnd > 3 ? src(x, &in->o[3], single, ftz) : 0;
		ptx_dst(x, &in->o[0], result(in, arith(in, a, b, c, single),
					     single), in->type.size);
	}
}

void ptx_exec_float(struct ptx_exec *x, const struct ptx_insn *in)
{
	int mode;

	if (in->op == OP_MOV || in->op == OP_SELP) {
		ptx_exec_int(x, in);
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
