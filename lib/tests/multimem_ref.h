/* SPDX-License-Identifier: MIT */
/*
 * Reference values and reductions for the multimem tests: what each member
 * holds, and what every type and operator must make of it.
 */
#ifndef CUMC_TESTS_MULTIMEM_REF_H
#define CUMC_TESTS_MULTIMEM_REF_H

#include <cumc.h>
#include <stdint.h>
#include <string.h>

/* Member @m's value of element @i, chosen to make every operator matter. */
static inline int64_t value(int m, size_t i)
{
	return (int64_t)((m * 37 + i * 11) % 97) - 40;
}

struct case_ {
	cumcDataType type;
	cumcReduceOp op;
};

static const struct case_ cases[] = {
	{ CUMC_F32, CUMC_OP_ADD }, { CUMC_F32, CUMC_OP_MIN }, { CUMC_F32, CUMC_OP_MAX },
	{ CUMC_F64, CUMC_OP_ADD },
	{ CUMC_F16, CUMC_OP_ADD }, { CUMC_F16, CUMC_OP_MIN }, { CUMC_F16, CUMC_OP_MAX },
	{ CUMC_BF16, CUMC_OP_ADD }, { CUMC_BF16, CUMC_OP_MIN }, { CUMC_BF16, CUMC_OP_MAX },
	{ CUMC_S32, CUMC_OP_ADD }, { CUMC_S32, CUMC_OP_MIN }, { CUMC_S32, CUMC_OP_MAX },
	{ CUMC_S32, CUMC_OP_AND }, { CUMC_S32, CUMC_OP_OR }, { CUMC_S32, CUMC_OP_XOR },
	{ CUMC_U32, CUMC_OP_ADD }, { CUMC_U32, CUMC_OP_MIN }, { CUMC_U32, CUMC_OP_MAX },
	{ CUMC_U32, CUMC_OP_AND }, { CUMC_U32, CUMC_OP_OR }, { CUMC_U32, CUMC_OP_XOR },
	{ CUMC_S64, CUMC_OP_ADD }, { CUMC_S64, CUMC_OP_MIN }, { CUMC_S64, CUMC_OP_MAX },
	{ CUMC_S64, CUMC_OP_AND }, { CUMC_S64, CUMC_OP_OR }, { CUMC_S64, CUMC_OP_XOR },
	{ CUMC_U64, CUMC_OP_ADD }, { CUMC_U64, CUMC_OP_MIN }, { CUMC_U64, CUMC_OP_MAX },
	{ CUMC_U64, CUMC_OP_AND }, { CUMC_U64, CUMC_OP_OR }, { CUMC_U64, CUMC_OP_XOR },
};

/* Store @v as element @i of @type at @p. */
static inline void put(void *p, cumcDataType type, size_t i, int64_t v)
{
	switch (type) {
	case CUMC_F32: ((float *)p)[i] = (float)v; break;
	case CUMC_F64: ((double *)p)[i] = (double)v; break;
	case CUMC_F16: ((_Float16 *)p)[i] = (_Float16)v; break;
	case CUMC_BF16: {
		float f = (float)v;	/* small integers are exact in bf16 */
		uint32_t bits;

		memcpy(&bits, &f, sizeof(bits));
		((uint16_t *)p)[i] = (uint16_t)(bits >> 16);
		break;
	}
	case CUMC_S32: case CUMC_U32: ((int32_t *)p)[i] = (int32_t)v; break;
	case CUMC_S64: case CUMC_U64: ((int64_t *)p)[i] = v; break;
	}
}

static inline int is_float(cumcDataType type)
{
	return type == CUMC_F16 || type == CUMC_BF16 || type == CUMC_F32 ||
	       type == CUMC_F64;
}

/* Float element @i of @type at @p, as a double (exact for these values). */
static inline double get_float(const void *p, cumcDataType type, size_t i)
{
	switch (type) {
	case CUMC_F32: return ((const float *)p)[i];
	case CUMC_F64: return ((const double *)p)[i];
	case CUMC_F16: return ((const _Float16 *)p)[i];
	default: {
		uint32_t bits = (uint32_t)((const uint16_t *)p)[i] << 16;
		float f;

		memcpy(&f, &bits, sizeof(f));
		return f;
	}
	}
}

/* Integer element @i of @type at @p, sign- or zero-extended. */
static inline uint64_t get_int(const void *p, cumcDataType type, size_t i)
{
	switch (type) {
	case CUMC_S32: return (uint64_t)(int64_t)((const int32_t *)p)[i];
	case CUMC_U32: return ((const uint32_t *)p)[i];
	default: return ((const uint64_t *)p)[i];
	}
}

/* A member's value as the type holds it. */
static inline uint64_t int_value(cumcDataType type, int m, size_t i)
{
	unsigned char buf[8] = { 0 };

	put(buf, type, 0, value(m, i));
	return get_int(buf, type, 0);
}

static inline double float_value(cumcDataType type, int m, size_t i)
{
	unsigned char buf[8] = { 0 };

	put(buf, type, 0, value(m, i));
	return get_float(buf, type, 0);
}

/* The reference integer reduction, wrapped to the type's width. */
static inline uint64_t ref_int(cumcDataType type, cumcReduceOp op, uint64_t a,
			uint64_t b)
{
	int is_signed = type == CUMC_S32 || type == CUMC_S64;
	uint64_t r;

	switch (op) {
	case CUMC_OP_ADD: r = a + b; break;
	case CUMC_OP_AND: r = a & b; break;
	case CUMC_OP_OR: r = a | b; break;
	case CUMC_OP_XOR: r = a ^ b; break;
	case CUMC_OP_MIN:
		r = is_signed ? ((int64_t)b < (int64_t)a ? b : a) : (b < a ? b : a);
		break;
	default:
		r = is_signed ? ((int64_t)b > (int64_t)a ? b : a) : (b > a ? b : a);
		break;
	}
	if (type == CUMC_S32)
		return (uint64_t)(int64_t)(int32_t)r;
	if (type == CUMC_U32)
		return (uint32_t)r;
	return r;
}

static inline double ref_float(cumcReduceOp op, double a, double b)
{
	return op == CUMC_OP_ADD ? a + b : op == CUMC_OP_MIN ? (b < a ? b : a)
							     : (b > a ? b : a);
}


#endif /* CUMC_TESTS_MULTIMEM_REF_H */
