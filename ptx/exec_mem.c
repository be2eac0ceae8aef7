// SPDX-License-Identifier: MIT
/*
 * Loads, stores, atomics and address conversions.  Every access is a
 * relaxed atomic of its size, so that a kernel spinning on a flag sees
 * another block's or the host's store, and stores are never torn; atom
 * and red are sequentially consistent host atomics.  A vector is one
 * access, as a GPU makes it: NCCL's LL protocol stores data and flag
 * together (st.volatile.v4.u32) and trusts a flag it reads with its data,
 * which element by element a reader could see new with the data old.  Up
 * to 8 bytes that is one atomic; 16 bytes are one SSE access, which
 * processors with AVX make atomic.
 */
#include <emmintrin.h>
#include <math.h>
#include <string.h>

#include "exec_int.h"

static uint64_t load(const void *p, unsigned int size)
{
	switch (size) {
	case 1: return __atomic_load_n((const uint8_t *)p, __ATOMIC_RELAXED);
	case 2: return __atomic_load_n((const uint16_t *)p, __ATOMIC_RELAXED);
	case 4: return __atomic_load_n((const uint32_t *)p, __ATOMIC_RELAXED);
	default: return __atomic_load_n((const uint64_t *)p, __ATOMIC_RELAXED);
	}
}

static void store(void *p, uint64_t v, unsigned int size)
{
	switch (size) {
	case 1: __atomic_store_n((uint8_t *)p, v, __ATOMIC_RELAXED); break;
	case 2: __atomic_store_n((uint16_t *)p, v, __ATOMIC_RELAXED); break;
	case 4: __atomic_store_n((uint32_t *)p, v, __ATOMIC_RELAXED); break;
	default: __atomic_store_n((uint64_t *)p, v, __ATOMIC_RELAXED);
	}
}

/* A vector of @size bytes (2 to 16, aligned to it): in one access. */
static void load_vector(const void *p, unsigned int size, uint64_t half[2])
{
	__m128i v;

	if (size < 16) {
		half[0] = load(p, size);
		half[1] = 0;
		return;
	}
	v = *(const volatile __m128i *)p;
	half[0] = (uint64_t)_mm_cvtsi128_si64(v);
	half[1] = (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v));
}

static void store_vector(void *p, unsigned int size, const uint64_t half[2])
{
	if (size < 16)
		store(p, half[0], size);
	else
		*(volatile __m128i *)p = _mm_set_epi64x((long long)half[1],
							(long long)half[0]);
}

static uint64_t address(const struct ptx_exec *x, const struct ptx_operand *o)
{
	return (o->reg == PTX_NO_REG ? 0 : x->regs[o->reg]) + o->imm +
	       (o->frame ? x->t->frame_base : 0);
}

static void *access_at(struct ptx_exec *x, const struct ptx_insn *in,
		       uint64_t addr, size_t size, bool write)
{
	void *p = ptx_mem(x->w, x->cta, x->t, in->space, addr, size, write);

	if (!p)
		ptx_grid_fault(x->w, x->cta, x->t, CUMC_PTX_EFAULT, addr,
			       in->line);
	return p;
}

/* The registers of a load's or store's value: one, or a vector's. */
static unsigned int value_regs(const struct ptx_insn *in, unsigned int v,
			       uint32_t *regs)
{
	unsigned int i;

	if (in->o[v].kind != PO_VEC) {
		regs[0] = in->o[v].kind == PO_REG ? in->o[v].reg : PTX_NO_REG;
		return 1;
	}
	for (i = 0; i < in->o[v].nvec; i++)
		regs[i] = in->o[v].vec[i];
	return in->o[v].nvec;
}

/* Element @i of a vector of @size-byte elements, read as two halves. */
static uint64_t element(const uint64_t half[2], unsigned int i,
			unsigned int size)
{
	unsigned int bit = i * size * 8;

	return ptx_zext(half[bit / 64] >> (bit % 64), size);
}

static void set_element(uint64_t half[2], unsigned int i, unsigned int size,
			uint64_t v)
{
	unsigned int bit = i * size * 8;

	half[bit / 64] |= ptx_zext(v, size) << (bit % 64);
}

/* The launch's multicast path; false without one, or where it refuses. */
static bool multicast_access(struct ptx_worker *w, enum cumc_ptx_mm_kind kind,
			     uint64_t addr, void *buf, size_t count,
			     enum cumc_ptx_mm_type type, enum cumc_ptx_mm_op op)
{
	const struct cumc_ptx_multicast *mc = w->grid->launch->multicast;
	void *held = w->mc_held;
	bool made;

	if (!mc)
		return false;
	made = mc->access(mc->arg, &w->mc_held, kind, addr, buf, count, type,
			  op);
	if (w->mc_held != held)
		w->mm_checked.hi = 0;
	return made;
}

/*
 * A plain store to a multicast address reaches every member, as the
 * NVSwitch makes it: NCCL's NVLS path posts its credits (conn.head) that
 * way.  Through the launcher's multicast path, as multimem.st; false when
 * the address is none of its (the store then faults).
 */
static bool multicast_store(struct ptx_exec *x, const struct ptx_insn *in,
			    uint64_t addr, uint64_t half[2], unsigned int n)
{
	unsigned int size = in->type.size;

	if (size < 4 || (in->space != PS_GLOBAL && in->space != PS_GENERIC) ||
	    addr % (size * n))
		return false;
	return multicast_access(x->w, CUMC_PTX_MM_ST, addr, half, n,
				size == 4 ? CUMC_PTX_MM_U32 : CUMC_PTX_MM_U64,
				CUMC_PTX_MM_ADD);
}

static int load_store(struct ptx_exec *x, const struct ptx_insn *in)
{
	bool st = in->op == OP_ST;
	unsigned int size = in->type.size, i, n;
	uint64_t half[2] = { 0, 0 };
	uint64_t addr = address(x, &in->o[st ? 0 : 1]);
	uint32_t regs[4];
	unsigned char *p;

	n = value_regs(in, st ? 1 : 0, regs);
	for (i = 0; st && i < n; i++)
		set_element(half, i, size, regs[i] != PTX_NO_REG ?
			    x->regs[regs[i]] : in->o[1].imm);
	p = ptx_mem(x->w, x->cta, x->t, in->space, addr, size * n, st);
	if (!p && st && multicast_store(x, in, addr, half, n))
		return 0;
	if (!p) {
		ptx_grid_fault(x->w, x->cta, x->t, CUMC_PTX_EFAULT, addr,
			       in->line);
		return -1;
	}
	if (st) {
		store_vector(p, size * n, half);
		return 0;
	}
	load_vector(p, size * n, half);
	for (i = 0; i < n; i++) {
		uint64_t v = element(half, i, size);

		if (regs[i] != PTX_NO_REG)
			x->regs[regs[i]] = in->type.cls == PC_S ?
				ptx_zext(ptx_sext(v, size),
					 x->t->fn->reg_types[regs[i]].size) : v;
	}
	return 0;
}

static float as_f32(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static double as_f64(uint64_t u)
{
	double d;

	memcpy(&d, &u, 8);
	return d;
}

/*
 * atom.add.f32 and red.add.f32 flush subnormal inputs and results to
 * zero of their sign, as the ISA says; a NaN result is the canonical one.
 */
static uint32_t add_f32(uint32_t old, uint32_t b)
{
	float f;
	uint32_t u;

	if (!(old & 0x7f800000u))
		old &= 0x80000000u;
	if (!(b & 0x7f800000u))
		b &= 0x80000000u;
	f = as_f32(old) + as_f32(b);
	if (isnan(f))
		return 0x7fffffffu;
	memcpy(&u, &f, 4);
	return u & 0x7f800000u ? u : u & 0x80000000u;
}

/* The new value of an atomic read-modify-write of @old with @b. */
static uint64_t rmw(const struct ptx_insn *in, uint64_t old, uint64_t b)
{
	struct ptx_type t = in->type;
	bool s = t.cls == PC_S;
	uint64_t sold = s ? (uint64_t)ptx_sext(old, t.size) : old;
	uint64_t sb = s ? (uint64_t)ptx_sext(b, t.size) : b;
	double d;

	switch (in->aop) {
	case AOP_ADD:
		if (t.cls != PC_F)
			return old + b;
		if (t.size == 4)
			return add_f32(old, b);
		/* A NaN operand comes back as it is, not quieted; of two,
		 * the operand's (as on an H200). */
		if (isnan(as_f64(b)))
			return b;
		if (isnan(as_f64(old)))
			return old;
		d = as_f64(old) + as_f64(b);
		memcpy(&b, &d, 8);
		return b;
	case AOP_MIN:
		return (s ? (int64_t)sb < (int64_t)sold : b < old) ? b : old;
	case AOP_MAX:
		return (s ? (int64_t)sb > (int64_t)sold : b > old) ? b : old;
	case AOP_INC:
		return (uint32_t)old >= (uint32_t)b ? 0 : old + 1;
	case AOP_DEC:
		return (uint32_t)old == 0 || (uint32_t)old > (uint32_t)b ?
		       b : old - 1;
	case AOP_AND: return old & b;
	case AOP_OR: return old | b;
	case AOP_XOR: return old ^ b;
	default: return b;	/* exch */
	}
}

static bool cas(void *p, uint64_t *old, uint64_t v, unsigned int size)
{
	if (size == 4) {
		uint32_t o = *old;
		bool ok = __atomic_compare_exchange_n((uint32_t *)p, &o,
						      (uint32_t)v, false,
						      __ATOMIC_SEQ_CST,
						      __ATOMIC_SEQ_CST);
		*old = o;
		return ok;
	}
	return __atomic_compare_exchange_n((uint64_t *)p, old, v, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static int atomic(struct ptx_exec *x, const struct ptx_insn *in)
{
	unsigned int a = in->op == OP_ATOM ? 1 : 0, size = in->type.size;
	uint64_t b = ptx_src(x, &in->o[a + 1]), old, want;
	void *p = access_at(x, in, address(x, &in->o[a]), size, true);

	if (!p)
		return -1;
	old = load(p, size);
	if (in->aop == AOP_CAS) {
		want = ptx_src(x, &in->o[a + 2]);
		while (ptx_zext(old, size) == ptx_zext(b, size) &&
		       !cas(p, &old, want, size))
			;
	} else {
		while (!cas(p, &old, rmw(in, old, b), size))
			;
	}
	if (a)
		ptx_dst(x, &in->o[0], old, size);
	return 0;
}

/* cvta: a window address to generic (a host address) and back. */
static void cvta(struct ptx_exec *x, const struct ptx_insn *in)
{
	uint64_t v = ptx_src(x, &in->o[1]), base = 0;
	if (in->space == PS_SHARED)
		base = (uintptr_t)x->cta->shared;
	else if (in->space == PS_LOCAL)
		base = (uintptr_t)x->t->local;
	ptx_dst(x, &in->o[0], in->flags & PF_TO ? v - base : v + base, 8);
}

bool ptx_multimem_access(struct ptx_worker *w, const struct ptx_insn *in,
			 enum cumc_ptx_mm_kind kind, uint64_t addr, void *buf,
			 size_t count)
{
	static const uint8_t ops[] = {
		[AOP_ADD] = CUMC_PTX_MM_ADD, [AOP_MIN] = CUMC_PTX_MM_MIN,
		[AOP_MAX] = CUMC_PTX_MM_MAX, [AOP_AND] = CUMC_PTX_MM_AND,
		[AOP_OR] = CUMC_PTX_MM_OR, [AOP_XOR] = CUMC_PTX_MM_XOR,
	};

	return multicast_access(w, kind, addr, buf, count, in->mmtype,
				ops[in->aop]);
}

/*
 * multimem: the launcher's multicast path does the access, with the
 * instruction's values gathered from and scattered into its registers.
 */
static int multimem(struct ptx_exec *x, const struct ptx_insn *in)
{
	bool ld = in->wmode == CUMC_PTX_MM_LD_REDUCE;
	unsigned int rsize = in->type.size * in->mmpack, i, n;
	uint64_t addr = address(x, &in->o[ld ? 1 : 0]);
	unsigned char buf[4 * 8];
	uint32_t regs[4];

	n = value_regs(in, ld ? 0 : 1, regs);
	if (!ld)
		for (i = 0; i < n; i++) {
			uint64_t v = regs[i] != PTX_NO_REG ? x->regs[regs[i]] :
				     in->o[1].imm;

			memcpy(buf + i * rsize, &v, rsize);
		}
	if (addr % rsize ||
	    !ptx_multimem_access(x->w, in, in->wmode, addr, buf,
				 n * in->mmpack)) {
		ptx_grid_fault(x->w, x->cta, x->t, CUMC_PTX_EFAULT, addr,
			       in->line);
		return -1;
	}
	if (ld)
		for (i = 0; i < n; i++)
			if (regs[i] != PTX_NO_REG) {
				uint64_t v = 0;

				memcpy(&v, buf + i * rsize, rsize);
				x->regs[regs[i]] = v;
			}
	return 0;
}

int ptx_exec_memory(struct ptx_exec *x, const struct ptx_insn *in)
{
	switch (in->op) {
	case OP_LD:
	case OP_ST:
		return load_store(x, in);
	case OP_CVTA:
		cvta(x, in);
		return 0;
	case OP_MULTIMEM:
		return multimem(x, in);
	default:
		return atomic(x, in);
	}
}
