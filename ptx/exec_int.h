/* SPDX-License-Identifier: MIT */
/* The executor's parts: exec.c dispatches to the families below. */
#ifndef _CUMC_PTX_EXEC_INT_H
#define _CUMC_PTX_EXEC_INT_H

#include "exec.h"

struct ptx_exec {
	struct ptx_worker *w;
	struct ptx_cta *cta;
	struct ptx_thread *t;
	uint64_t *regs;
};

uint64_t ptx_src(const struct ptx_exec *x, const struct ptx_operand *o);
void ptx_dst(struct ptx_exec *x, const struct ptx_operand *o, uint64_t v,
	     unsigned int size);
/* cvt's destination: signed results sign-extended to the register. */
void ptx_dst_cvt(struct ptx_exec *x, const struct ptx_insn *in, uint64_t v);

static inline int64_t ptx_sext(uint64_t v, unsigned int size)
{
	unsigned int sh = 64 - size * 8;

	return (int64_t)(v << sh) >> sh;
}

static inline uint64_t ptx_zext(uint64_t v, unsigned int size)
{
	return size >= 8 ? v : v & ((1ull << (size * 8)) - 1);
}

/* A source as its type says: sign-extended for .s, zero-extended else. */
static inline uint64_t ptx_srcx(const struct ptx_exec *x,
				const struct ptx_operand *o,
				struct ptx_type t)
{
	uint64_t v = ptx_src(x, o);

	return t.cls == PC_S ? (uint64_t)ptx_sext(v, t.size) :
			       ptx_zext(v, t.size);
}

void ptx_exec_int(struct ptx_exec *x, const struct ptx_insn *in);
void ptx_exec_float(struct ptx_exec *x, const struct ptx_insn *in);
void ptx_exec_half(struct ptx_exec *x, const struct ptx_insn *in);
/* exec_float.c's float compare and float to integer, for exec_half.c. */
bool ptx_float_compare(enum ptx_cmp cmp, double a, double b);
uint64_t ptx_float_to_int(double v, struct ptx_type t, enum ptx_rnd r,
			  bool from64);
/* Loads, stores, atomics, cvta; -1 after a fault. */
int ptx_exec_memory(struct ptx_exec *x, const struct ptx_insn *in);

#endif
