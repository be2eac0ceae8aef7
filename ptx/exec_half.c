// SPDX-License-Identifier: MIT
/*
 * The 16-bit floats, f16 (IEEE binary16) and bf16 (bfloat16), alone and
 * in pairs (.f16x2, .bf16x2: element 0 in bits 0-15, element 1 in bits
 * 16-31): arithmetic, min/max, neg/abs, setp and cvt.
 *
 * Every value of both formats, and every f32 and f64, is a double
 * exactly; products of two 16-bit floats are exact doubles too (22 and
 * 16 significant bits).  A result is rounded once, by round_half(), from
 * an exact value or from a double rounded to odd: a double that carries
 * the lost bits as a sticky least significant bit rounds to 11 or 8 bits
 * as the exact value would (53 >= 11 + 2), which is what makes the sums
 * and fma exact without a wider type.  The host's _Float16 is not used:
 * its rounding is the compiler's to choose.
 *
 * Where the ISA leaves a result open, the answer is an H200's as
 * conformance/ptx's corpus records it: every NaN result of an operation
 * is the canonical 0x7fff of either format (an f64 NaN converted: the
 * format's quiet NaN of its sign), f16 to f32 gives the f32 canonical
 * NaN, bf16 to f32 keeps the NaN's bits (it is a shift), to f64 a NaN
 * keeps its sign and payload, and subnormals are kept unless .ftz says
 * otherwise.
 */
#include <math.h>
#include <string.h>

#include "exec_int.h"

void ptx_setp_result(struct ptx_exec *x, const struct ptx_insn *in, bool r);

/* A 16-bit format: significand bits (the implicit one included), bias. */
struct hfmt {
	unsigned int prec;
	int bias;
};

static const struct hfmt fmt_f16 = { 11, 15 };
static const struct hfmt fmt_bf16 = { 8, 127 };

#define HALF_NAN 0x7fffu	/* the canonical NaN of both formats */

static const struct hfmt *fmt_of(struct ptx_type t)
{
	return t.cls == PC_H ? &fmt_f16 : &fmt_bf16;
}

static unsigned int exp_bits(const struct hfmt *f)
{
	return 15 - (f->prec - 1);
}

static bool h_isnan(const struct hfmt *f, uint16_t h)
{
	unsigned int m = f->prec - 1;

	return ((h >> m) & ((1u << exp_bits(f)) - 1)) ==
	       (1u << exp_bits(f)) - 1 && (h & ((1u << m) - 1));
}

static bool h_subnormal(const struct hfmt *f, uint16_t h)
{
	return !(h & 0x7fffu & ~((1u << (f->prec - 1)) - 1)) &&
	       (h & 0x7fffu);
}

/* The value of @h, exactly. */
static double h_value(const struct hfmt *f, uint16_t h)
{
	unsigned int m = f->prec - 1, e = (h >> m) & ((1u << exp_bits(f)) - 1);
	double v;

	if (e == (1u << exp_bits(f)) - 1)
		v = h & ((1u << m) - 1) ? NAN : INFINITY;
	else if (!e)
		v = ldexp(h & ((1u << m) - 1), 1 - f->bias - (int)m);
	else
		v = ldexp((h & ((1u << m) - 1)) | (1u << m),
			  (int)e - f->bias - (int)m);
	return h & 0x8000u ? -v : v;
}

/*
 * mag * 2^e (mag < 2^64) of sign @neg, rounded to format @f in mode @r
 * (RND_NONE: to nearest); an overflow gives infinity or the largest
 * finite value, as the mode says.
 */
static uint16_t round_mag(const struct hfmt *f, bool neg, uint64_t mag,
			  int e, enum ptx_rnd r)
{
	int emin = 1 - f->bias, top, q, sh;
	uint16_t sign = neg ? 0x8000u : 0;
	uint64_t v, rem, half;
	bool up = false;

	if (!mag)
		return sign;
	top = 63 - __builtin_clzll(mag) + e;	/* the value's exponent */
	q = (top > emin ? top : emin) - (int)(f->prec - 1);	/* its ulp */
	sh = q - e;
	if (sh <= 0) {
		v = mag << -sh;
	} else {
		v = sh >= 64 ? 0 : mag >> sh;
		rem = sh >= 64 ? mag : mag & ((1ull << sh) - 1);
		half = sh > 64 ? 0 : 1ull << (sh - 1);
		switch (r) {
		case RND_RZ: break;
		case RND_RM: up = neg && rem; break;
		case RND_RP: up = !neg && rem; break;
		default:
			up = sh > 64 ? false :
			     rem > half || (rem == half && (v & 1));
		}
		v += up;
	}
	if (v >> f->prec) {	/* rounded up to the next binade */
		v >>= 1;
		q++;
	}
	if (v < (1ull << (f->prec - 1)))	/* subnormal (or zero) */
		return sign | v;
	if (q + (int)f->prec - 1 > f->bias) {	/* overflow */
		bool inf = r == RND_RM ? neg : r == RND_RP ? !neg : r != RND_RZ;
		uint16_t max = (uint16_t)(((1u << exp_bits(f)) - 1) <<
					  (f->prec - 1));

		return sign | (inf ? max : max - 1);
	}
	return sign | (uint16_t)((uint64_t)(q + (int)f->prec - 1 + f->bias) <<
				 (f->prec - 1)) |
	       (uint16_t)(v & ((1ull << (f->prec - 1)) - 1));
}

/* A double (exact, or rounded to odd) rounded to format @f. */
static uint16_t round_half(const struct hfmt *f, double d, enum ptx_rnd r)
{
	uint64_t b;
	int e;

	if (isnan(d))
		return HALF_NAN;
	if (isinf(d))	/* the all-ones exponent */
		return (d < 0 ? 0x8000u : 0) |
		       (uint16_t)(((1u << exp_bits(f)) - 1) << (f->prec - 1));
	memcpy(&b, &d, 8);
	e = (b >> 52) & 0x7ff;
	return round_mag(f, b >> 63, (b & ((1ull << 52) - 1)) |
			 (e ? 1ull << 52 : 0), (e ? e : 1) - 1075, r);
}

/*
 * p + c rounded to odd: when the sum is inexact, the double next to it
 * toward zero with its last bit set.  Two-sum gives the exact error.
 */
static double sum_odd(double p, double c)
{
	double s = p + c, bb = s - p, err = (p - (s - bb)) + (c - bb);
	uint64_t u;

	if (err == 0 || !isfinite(s))
		return s;
	if ((err < 0) != (s < 0))
		s = nextafter(s, 0.0);
	memcpy(&u, &s, 8);
	u |= 1;
	memcpy(&s, &u, 8);
	return s;
}

static uint16_t flush(const struct hfmt *f, uint16_t h, bool ftz)
{
	return ftz && h_subnormal(f, h) ? h & 0x8000u : h;
}

/*
 * Whether .ftz flushes @v (exact, or a double rounded to odd): when it
 * is below the smallest normal value once rounded to the format's
 * precision with an unbounded exponent (IEEE 754's tininess after
 * rounding), as an H200 does it on the corpus's .ftz.f16 cases:
 * 0x3bff * 0x0400, 2^-14 - 2^-25, has 11 bits and is flushed;
 * 0x0400 * 0x8400 + 0x0400, 2^-14 - 2^-28, rounds to 2^-14 and is not.
 */
static bool tiny(const struct hfmt *f, double v)
{
	int e;
	double m = frexp(fabs(v), &e);

	return v != 0 && ldexp(nearbyint(ldexp(m, (int)f->prec)),
			       e - (int)f->prec) < ldexp(1.0, 1 - f->bias);
}

/* PTX min/max: NaN loses to a number (.NaN: wins); -0 is below +0. */
static uint16_t minmax(const struct hfmt *f, const struct ptx_insn *in,
		       uint16_t a, uint16_t b)
{
	bool max = in->op == OP_MAX, an = h_isnan(f, a), bn = h_isnan(f, b);
	double x = h_value(f, a), y = h_value(f, b);

	if (an || bn) {
		if ((in->flags & PF_NAN) || (an && bn))
			return HALF_NAN;
		return an ? b : a;
	}
	if (x == y)
		return (!!(a & 0x8000u) != max) ? a : b;
	return (x < y) != max ? a : b;
}

/* One element of add, sub, mul, fma, min, max, neg, abs. */
static uint16_t arith1(const struct hfmt *f, const struct ptx_insn *in,
		       uint16_t a, uint16_t b, uint16_t c)
{
	bool ftz = in->flags & PF_FTZ;
	double x, y, z, v;
	uint16_t r;

	a = flush(f, a, ftz);
	b = flush(f, b, ftz);
	c = flush(f, c, ftz);
	x = h_value(f, a);
	y = h_value(f, b);
	z = h_value(f, c);
	switch (in->op) {
	case OP_MIN: case OP_MAX:
		return minmax(f, in, a, b);
	case OP_NEG:
		return h_isnan(f, a) ? HALF_NAN : a ^ 0x8000u;
	case OP_ABS:
		return h_isnan(f, a) ? HALF_NAN : a & 0x7fffu;
	case OP_ADD: v = sum_odd(x, y); break;
	case OP_SUB: v = sum_odd(x, -y); break;
	case OP_MUL: v = x * y; break;
	default: v = sum_odd(x * y, z); break;	/* fma */
	}
	if (ftz && tiny(f, v))
		r = signbit(v) ? 0x8000u : 0;
	else
		r = round_half(f, v, RND_RN);
	/* .sat: [0, 1], NaN to +0; .relu: negatives to +0. */
	if ((in->flags & PF_SAT) && (h_isnan(f, r) || (r & 0x8000u)))
		return 0;
	if (h_isnan(f, r))
		return HALF_NAN;
	if ((in->flags & PF_SAT) && h_value(f, r) > 1.0)
		return round_half(f, 1.0, RND_RN);
	if ((in->flags & PF_RELU) && (r & 0x8000u))
		return 0;
	return r;
}

/* The elements of a register: one, or two of a pair. */
static unsigned int elements(struct ptx_type t)
{
	return t.size / 2;
}

static uint16_t elem(uint64_t v, unsigned int i)
{
	return (uint16_t)(v >> (16 * i));
}

static uint64_t to_f32_bits(float v)
{
	uint32_t u;

	memcpy(&u, &v, 4);
	return u;
}

static uint64_t to_f64_bits(double v)
{
	uint64_t u;

	memcpy(&u, &v, 8);
	return u;
}

/* A cvt source that is not a 16-bit float, as an exact double or NaN. */
static double source_value(const struct ptx_insn *in, uint64_t v)
{
	struct ptx_type s = in->type2;
	bool ftz = in->flags & PF_FTZ;
	float f;
	double d;

	if (s.size == 4) {
		uint32_t u = v;

		memcpy(&f, &u, 4);
		if (ftz && fpclassify(f) == FP_SUBNORMAL)
			f = copysignf(0.0f, f);
		return f;
	}
	memcpy(&d, &v, 8);
	return d;
}

/* An integer source to format @f: its magnitude, rounded once. */
static uint16_t int_to_half(const struct hfmt *f, const struct ptx_insn *in,
			    uint64_t v)
{
	bool neg = in->type2.cls == PC_S && (int64_t)v < 0;

	return round_mag(f, neg, neg ? -v : v, 0, in->rnd);
}

/* A 16-bit float result of cvt, its .relu, .satfinite and .sat. */
static uint16_t cvt_clamp(const struct hfmt *f, const struct ptx_insn *in,
			  uint16_t r)
{
	if (h_isnan(f, r))
		return (in->flags & PF_SAT) ? 0 : HALF_NAN;
	if ((in->flags & (PF_RELU | PF_SAT)) && (r & 0x8000u))
		r = 0;
	if ((in->flags & PF_SAT) && h_value(f, r) > 1.0)
		r = round_half(f, 1.0, RND_RN);
	/* .satfinite: an infinity is the largest finite value. */
	if ((in->flags & PF_SATFINITE) && isinf(h_value(f, r)))
		r--;
	return r;
}

/* cvt to a 16-bit float from @v of any source type. */
static uint16_t cvt_to_half(const struct ptx_insn *in, uint64_t v)
{
	const struct hfmt *f = fmt_of(in->type);
	struct ptx_type s = in->type2;
	enum ptx_rnd r = in->rnd;
	double d;

	if (s.cls == PC_S || s.cls == PC_U || s.cls == PC_B)
		return cvt_clamp(f, in, int_to_half(f, in, v));
	/*
	 * An f64 NaN gives the format's quiet NaN of its sign (0x7e00,
	 * 0xffc0...), an f32 one the canonical NaN: both as an H200 does.
	 */
	if (s.size == 8 && s.cls == PC_F && isnan(source_value(in, v)) &&
	    !(in->flags & PF_SAT))
		return (uint16_t)(v >> 48 & 0x8000u) |
		       (uint16_t)(((2u << exp_bits(f)) - 1) << (f->prec - 2));
	if (ptx_type_half(s)) {
		uint16_t h = flush(fmt_of(s), (uint16_t)v, in->flags & PF_FTZ);

		d = h_value(fmt_of(s), h);
	} else {
		d = source_value(in, v);
	}
	/* To an integral value first (cvt.rni.f16.f16 and the like). */
	if (r >= RND_RNI) {
		d = r == RND_RNI ? nearbyint(d) : r == RND_RMI ? floor(d) :
		    r == RND_RPI ? ceil(d) : trunc(d);
		r = RND_RN;
	}
	/*
	 * .ftz flushes an f32 source (source_value()) but not the result:
	 * an H200 gives cvt.rn.ftz.f16.f32 of 2^-24 as 0x0001.
	 */
	return cvt_clamp(f, in, round_half(f, d, r));
}

/* cvt from a 16-bit float @h to f32, f64 or an integer type. */
static uint64_t cvt_from_half(const struct ptx_insn *in, uint16_t h)
{
	const struct hfmt *f = fmt_of(in->type2);
	struct ptx_type d = in->type;
	double v;

	/*
	 * .ftz is about f32: an f16 subnormal is a normal f32 and stays (as
	 * on an H200), a bf16 one is an f32 subnormal and flushes.
	 */
	if (in->type2.cls == PC_BH)
		h = flush(f, h, in->flags & PF_FTZ);
	v = h_value(f, h);
	if (d.cls != PC_F)
		return ptx_float_to_int(v, d, in->rnd, false);
	if (h_isnan(f, h)) {
		uint64_t m = h & ((1u << (f->prec - 1)) - 1);

		/* .sat: NaN is +0, as for f32. */
		if (in->flags & PF_SAT)
			return 0;
		/*
		 * To f32: bf16 is the top half of an f32, its NaN shifted as
		 * it is, but canonical with .ftz; f16's is the canonical NaN.
		 * To f64: the NaN widened, sign and payload kept, quieted.
		 * All as an H200 gives them.
		 */
		if (d.size == 4)
			return in->type2.cls == PC_BH &&
			       !(in->flags & PF_FTZ) ? (uint64_t)h << 16 :
			       0x7fffffffu;
		return (uint64_t)(h & 0x8000u) << 48 |
		       0x7ff8000000000000ull | m << (53 - f->prec);
	}
	if (in->flags & PF_SAT)
		v = !(v > 0.0) ? 0.0 : v > 1.0 ? 1.0 : v;
	return d.size == 4 ? to_f32_bits((float)v) : to_f64_bits(v);
}

static void exec_cvt(struct ptx_exec *x, const struct ptx_insn *in)
{
	uint64_t a = ptx_srcx(x, &in->o[1], in->type2);

	if (ptx_type_half(in->type) && in->type.size == 4) {
		/* cvt.f16x2.f32 d, a, b: a to the upper half, b the lower. */
		uint64_t b = ptx_src(x, &in->o[2]);

		ptx_dst(x, &in->o[0], (uint64_t)cvt_to_half(in, a) << 16 |
			cvt_to_half(in, b), 4);
	} else if (ptx_type_half(in->type)) {
		ptx_dst(x, &in->o[0], cvt_to_half(in, a), 2);
	} else {
		ptx_dst_cvt(x, in, cvt_from_half(in, (uint16_t)a));
	}
}

/*
 * setp on 16-bit floats; on a pair, p is element 0's comparison and q
 * element 1's, each combined with c by the boolean operation.
 */
static void exec_setp(struct ptx_exec *x, const struct ptx_insn *in)
{
	const struct hfmt *f = fmt_of(in->type);
	bool ftz = in->flags & PF_FTZ;
	uint64_t a = ptx_src(x, &in->o[2]), b = ptx_src(x, &in->o[3]);
	bool r[2], c = in->aop ? !!ptx_src(x, &in->o[4]) : false;
	unsigned int i;

	if (elements(in->type) == 1) {
		ptx_setp_result(x, in, ptx_float_compare(in->cmp,
			h_value(f, flush(f, elem(a, 0), ftz)),
			h_value(f, flush(f, elem(b, 0), ftz))));
		return;
	}
	for (i = 0; i < 2; i++) {
		r[i] = ptx_float_compare(in->cmp,
					 h_value(f, flush(f, elem(a, i), ftz)),
					 h_value(f, flush(f, elem(b, i), ftz)));
		r[i] = in->aop == AOP_AND ? r[i] && c :
		       in->aop == AOP_OR ? r[i] || c :
		       in->aop == AOP_XOR ? r[i] != c : r[i];
	}
	ptx_dst(x, &in->o[0], r[0], 1);
	ptx_dst(x, &in->o[1], r[1], 1);
}

void ptx_exec_half(struct ptx_exec *x, const struct ptx_insn *in)
{
	const struct hfmt *f;
	uint64_t a, b, c, r = 0;
	unsigned int i;

	if (in->op == OP_CVT) {
		exec_cvt(x, in);
		return;
	}
	if (in->op == OP_SETP) {
		exec_setp(x, in);
		return;
	}
	a = ptx_src(x, &in->o[1]);
	b = in->nopnd > 2 ? ptx_src(x, &in->o[2]) : 0;
	c = in->nopnd > 3 ? ptx_src(x, &in->o[3]) : 0;
	f = fmt_of(in->type);
	for (i = 0; i < elements(in->type); i++)
		r |= (uint64_t)arith1(f, in, elem(a, i), elem(b, i),
				      elem(c, i)) << (16 * i);
	ptx_dst(x, &in->o[0], r, in->type.size);
}
