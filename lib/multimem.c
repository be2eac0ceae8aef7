// SPDX-License-Identifier: MIT
/*
 * The multimem data path: multimem.st, multimem.ld_reduce and multimem.red
 * over the member views of a multicast mapping, with no system call once
 * the views are known.
 */
#include <stdint.h>
#include <string.h>

#include "mc_views.h"
#include "multimem.h"
#include "multimem_isa.h"
#include "multimem_ops.h"

/* Elements per reduction block: the accumulators stay in L1. */
#define CUMC_BLOCK 8192
/*
 * Bytes per store chunk: the source chunk stays in L2 for every member,
 * and each member's copy is long enough to run at full speed (64 KiB
 * chunks measured 0.6-0.8 of memcpy at 4 MiB per member, 1 MiB 0.9-1.0).
 */
#define CUMC_STORE_CHUNK (1024 * 1024)

/*
 * The span of one operation: acquired for it alone (@hold NULL), or through
 * the caller's hold (a kernel's worker); @write: stores into the members.
 */
static CUresult libcumc_span_get(struct libcumc_mc_hold *hold,
				 CUdeviceptr addr, size_t bytes, bool write,
				 struct libcumc_mc_span *span)
{
	CUresult res = hold ? libcumc_mc_acquire_held(hold, addr, bytes, span) :
			      libcumc_mc_acquire(addr, bytes, span);

	if (res == CUDA_SUCCESS && write && !span->map->writable) {
		if (!hold)
			libcumc_mc_release();
		res = CUDA_ERROR_ILLEGAL_ADDRESS;
	}
	return res;
}

static void libcumc_span_put(struct libcumc_mc_hold *hold)
{
	if (!hold)
		libcumc_mc_release();
}

/* A store larger than a chunk, chunk by chunk, each to every member. */
static void libcumc_mc_broadcast_chunks(const struct libcumc_mc_span *span,
					const char *src, size_t bytes)
{
	const struct libcumc_mc_mapping *map = span->map;
	libcumc_copy_fn copy;
	size_t done, len, members_bytes;
	unsigned int m;

	if (__builtin_mul_overflow(bytes, map->num_members, &members_bytes))
		members_bytes = SIZE_MAX;
	copy = libcumc_copy_for_st(members_bytes);

	for (done = 0; done < bytes; done += len) {
		len = bytes - done < CUMC_STORE_CHUNK ? bytes - done
						      : CUMC_STORE_CHUNK;
		for (m = 0; m < map->num_members; m++)
			copy(map->views[m] + span->offset + done, src + done,
			     len);
	}
}

/*
 * Natively, a store of one chunk is a memcpy to each member and nothing
 * else: the chunk loop's bookkeeping and an indirect call cost 0.12 of a
 * 4 KiB store to 2 members (bench_multimem).
 */
void libcumc_mc_broadcast(const struct libcumc_mc_span *span, const void *src,
			  size_t bytes)
{
	const struct libcumc_mc_mapping *map = span->map;
	unsigned int m;

	if (bytes > CUMC_STORE_CHUNK || libcumc_cpu_emulated()) {
		libcumc_mc_broadcast_chunks(span, src, bytes);
		return;
	}
	for (m = 0; m < map->num_members; m++)
		memcpy(map->views[m] + span->offset, src, bytes);
}

CUresult libcumc_multimem_st(struct libcumc_mc_hold *hold, CUdeviceptr mcDst,
			     const void *src, size_t bytes)
{
	struct libcumc_mc_span span;
	CUresult res;

	if (!src && bytes)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_span_get(hold, mcDst, bytes, true, &span);
	if (res != CUDA_SUCCESS)
		return res;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	libcumc_mc_broadcast(&span, src, bytes);
	libcumc_span_put(hold);
	return CUDA_SUCCESS;
}

/* The type, operator and range of a reduction; *bytes, the span it covers. */
static CUresult libcumc_reduction_check(CUdeviceptr mc, size_t count,
					cumcDataType type, cumcReduceOp op,
					size_t *bytes)
{
	size_t size;

	if (!libcumc_reducer_lookup(type, op))
		return CUDA_ERROR_INVALID_VALUE;
	size = libcumc_type_size(type);
	if (mc % size || count > SIZE_MAX / size)
		return CUDA_ERROR_INVALID_VALUE;
	*bytes = count * size;
	return CUDA_SUCCESS;
}

/* Checks shared by ld_reduce and red, their buffer's too. */
static CUresult libcumc_multimem_check(CUdeviceptr mc, const void *buf,
				       size_t count, cumcDataType type,
				       cumcReduceOp op, size_t *bytes)
{
	if (!buf && count)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_reduction_check(mc, count, type, op, bytes);
}

/* Accumulate @n elements at @off of @members views into @acc. */
static void libcumc_reduce_members(void *acc, char *const *views,
				   unsigned int members, size_t off, size_t n,
				   const struct libcumc_reducer *r)
{
	unsigned int m, k;

	k = members < CUMC_PASS_MEMBERS ? members : CUMC_PASS_MEMBERS;
	r->first[k](acc, views, off, n);
	for (m = k; m < members; m += k) {
		k = members - m;
		k = k < CUMC_PASS_MEMBERS ? k : CUMC_PASS_MEMBERS;
		r->fold[k](acc, views + m, off, n);
	}
}

/*
 * 16-bit floats: up to three members reduce and round in one pass; more
 * use f32 accumulators in L1, and a last pass of one or two members that
 * rounds into the destination.
 */
static void libcumc_reduce_block_half(void *out, float *acc,
				      const struct libcumc_mc_mapping *map,
				      size_t off, size_t n,
				      const struct libcumc_reducer *r)
{
	unsigned int members = map->num_members, last;

	if (members == 1) {
		memcpy(out, map->views[0] + off, n * 2);
		return;
	}
	if (members <= 3) {
		r->first_out[members](out, NULL, map->views, off, n);
		return;
	}
	last = members >= 4 ? 2 : 1;
	libcumc_reduce_members(acc, map->views, members - last, off, n, r);
	r->fold_out[last](out, acc, map->views + members - last, off, n);
}

/* Wide types accumulate in the destination itself, a block at a time. */
void libcumc_mc_ld_reduce(void *dst, const struct libcumc_mc_span *span,
			  size_t count, cumcDataType type, cumcReduceOp op)
{
	const struct libcumc_reducer *r = libcumc_reducer_lookup(type, op);
	size_t size = libcumc_type_size(type), i, n;
	float acc[CUMC_BLOCK];

	for (i = 0; i < count; i += n) {
		char *out = (char *)dst + i * size;
		size_t off = span->offset + i * size;

		n = count - i < CUMC_BLOCK ? count - i : CUMC_BLOCK;
		if (type == CUMC_F16 || type == CUMC_BF16)
			libcumc_reduce_block_half(out, acc, span->map, off, n,
						  r);
		else
			libcumc_reduce_members(out, span->map->views,
					       span->map->num_members, off, n,
					       r);
	}
}

/*
 * A ld_reduce into @dst and, with @then_st, the st of @dst back at @mc:
 * one check and one lookup, refused whole where the st may not write.
 */
static CUresult libcumc_ld_reduce_then(struct libcumc_mc_hold *hold, void *dst,
				       CUdeviceptr mc, size_t count,
				       cumcDataType type, cumcReduceOp op,
				       bool then_st)
{
	struct libcumc_mc_span span;
	size_t bytes;
	CUresult res;

	res = libcumc_multimem_check(mc, dst, count, type, op, &bytes);
	if (res == CUDA_SUCCESS)
		res = libcumc_span_get(hold, mc, bytes, then_st, &span);
	if (res != CUDA_SUCCESS)
		return res;
	libcumc_mc_ld_reduce(dst, &span, count, type, op);
	if (then_st) {
		/* the ld_reduce's acquire and the st's release, between them */
		__atomic_thread_fence(__ATOMIC_ACQ_REL);
		libcumc_mc_broadcast(&span, dst, bytes);
	}
	libcumc_span_put(hold);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return CUDA_SUCCESS;
}

CUresult libcumc_multimem_ld_reduce(struct libcumc_mc_hold *hold, void *dst,
				    CUdeviceptr mcSrc, size_t count,
				    cumcDataType type, cumcReduceOp op)
{
	return libcumc_ld_reduce_then(hold, dst, mcSrc, count, type, op, false);
}

CUresult libcumc_multimem_ld_reduce_st(struct libcumc_mc_hold *hold, void *buf,
				       CUdeviceptr mc, size_t count,
				       cumcDataType type, cumcReduceOp op)
{
	return libcumc_ld_reduce_then(hold, buf, mc, count, type, op, true);
}

CUresult libcumc_multimem_ld_reduce_st_check(struct libcumc_mc_hold *hold,
					     CUdeviceptr mc, size_t count,
					     cumcDataType type,
					     cumcReduceOp op,
					     uint64_t range[2])
{
	struct libcumc_mc_span span;
	size_t bytes;
	CUresult res;

	res = libcumc_reduction_check(mc, count, type, op, &bytes);
	if (res == CUDA_SUCCESS)
		res = libcumc_span_get(hold, mc, bytes, true, &span);
	if (res != CUDA_SUCCESS)
		return res;
	/* The mapping's range and writability stay while it is held. */
	if (range && hold) {
		range[0] = span.map->addr;
		range[1] = span.map->addr + span.map->length;
	} else if (range) {
		range[0] = range[1] = 0;
	}
	libcumc_span_put(hold);
	return CUDA_SUCCESS;
}

/* Atomically apply @op with @v to the integer at @p. */
#define CUMC_RED_INT(name, T)						\
static void name(T *p, T v, cumcReduceOp op)				\
{									\
	T old = __atomic_load_n(p, __ATOMIC_RELAXED), new;		\
									\
	switch (op) {							\
	case CUMC_OP_ADD:						\
		__atomic_fetch_add(p, v, __ATOMIC_RELAXED);		\
		return;							\
	case CUMC_OP_AND:						\
		__atomic_fetch_and(p, v, __ATOMIC_RELAXED);		\
		return;							\
	case CUMC_OP_OR:						\
		__atomic_fetch_or(p, v, __ATOMIC_RELAXED);		\
		return;							\
	case CUMC_OP_XOR:						\
		__atomic_fetch_xor(p, v, __ATOMIC_RELAXED);		\
		return;							\
	default:							\
		do {							\
			if (op == CUMC_OP_MIN ? v >= old : v <= old)	\
				return;					\
			new = v;					\
		} while (!__atomic_compare_exchange_n(p, &old, new, 1,	\
						      __ATOMIC_RELAXED,	\
						      __ATOMIC_RELAXED)); \
	}								\
}

CUMC_RED_INT(libcumc_red_u32, uint32_t)
CUMC_RED_INT(libcumc_red_s32, int32_t)
CUMC_RED_INT(libcumc_red_u64, uint64_t)
CUMC_RED_INT(libcumc_red_s64, int64_t)

/* Atomically add @v to the float whose bits are at @p: a CAS loop. */
#define CUMC_RED_FLOAT(name, T, F, TO_F, FROM_F)			\
static void name(T *p, T vbits)						\
{									\
	T old = __atomic_load_n(p, __ATOMIC_RELAXED), new;		\
	F sum;								\
									\
	do {								\
		sum = TO_F(old) + TO_F(vbits);				\
		new = FROM_F(sum);					\
	} while (!__atomic_compare_exchange_n(p, &old, new, 1,		\
					      __ATOMIC_RELAXED,		\
					      __ATOMIC_RELAXED));	\
}

static inline float libcumc_u32_as_f32(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static inline uint32_t libcumc_f32_as_u32(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static inline double libcumc_u64_as_f64(uint64_t u)
{
	double f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static inline uint64_t libcumc_f64_as_u64(double f)
{
	uint64_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static inline float libcumc_u16_as_f16(uint16_t u)
{
	_Float16 h;

	memcpy(&h, &u, sizeof(h));
	return h;
}

static inline uint16_t libcumc_f16_as_u16(float f)
{
	_Float16 h = (_Float16)f;
	uint16_t u;

	memcpy(&u, &h, sizeof(u));
	return u;
}

CUMC_RED_FLOAT(libcumc_red_f32, uint32_t, float, libcumc_u32_as_f32,
	       libcumc_f32_as_u32)
CUMC_RED_FLOAT(libcumc_red_f64, uint64_t, double, libcumc_u64_as_f64,
	       libcumc_f64_as_u64)
CUMC_RED_FLOAT(libcumc_red_f16, uint16_t, float, libcumc_u16_as_f16,
	       libcumc_f16_as_u16)
CUMC_RED_FLOAT(libcumc_red_bf16, uint16_t, float, libcumc_bf16_widen,
	       libcumc_f32_to_bf16)

/* Element @i of @src combined into @dst, both of @type. */
static void libcumc_red_one(char *dst, const char *src, cumcDataType type,
			    cumcReduceOp op)
{
	switch (type) {
	case CUMC_U32:
		libcumc_red_u32((uint32_t *)dst, *(const uint32_t *)src, op);
		break;
	case CUMC_S32:
		libcumc_red_s32((int32_t *)dst, *(const int32_t *)src, op);
		break;
	case CUMC_U64:
		libcumc_red_u64((uint64_t *)dst, *(const uint64_t *)src, op);
		break;
	case CUMC_S64:
		libcumc_red_s64((int64_t *)dst, *(const int64_t *)src, op);
		break;
	case CUMC_F32:
		libcumc_red_f32((uint32_t *)dst, *(const uint32_t *)src);
		break;
	case CUMC_F64:
		libcumc_red_f64((uint64_t *)dst, *(const uint64_t *)src);
		break;
	case CUMC_F16:
		libcumc_red_f16((uint16_t *)dst, *(const uint16_t *)src);
		break;
	case CUMC_BF16:
		libcumc_red_bf16((uint16_t *)dst, *(const uint16_t *)src);
		break;
	}
}

static int libcumc_is_float(cumcDataType type)
{
	return type == CUMC_F16 || type == CUMC_BF16 || type == CUMC_F32 ||
	       type == CUMC_F64;
}

void libcumc_mc_red(const struct libcumc_mc_span *span, const void *src,
		    size_t count, cumcDataType type, cumcReduceOp op)
{
	size_t size = libcumc_type_size(type), bytes = count * size, i;
	unsigned int m;

	for (m = 0; m < span->map->num_members; m++)
		for (i = 0; i < bytes; i += size)
			libcumc_red_one(span->map->views[m] + span->offset + i,
					(const char *)src + i, type, op);
}

CUresult libcumc_multimem_red(struct libcumc_mc_hold *hold, CUdeviceptr mcDst,
			      const void *src, size_t count, cumcDataType type,
			      cumcReduceOp op)
{
	struct libcumc_mc_span span;
	size_t bytes;
	CUresult res;

	res = libcumc_multimem_check(mcDst, src, count, type, op, &bytes);
	if (res != CUDA_SUCCESS)
		return res;
	/* The hardware reduces floats into memory by adding only. */
	if (libcumc_is_float(type) && op != CUMC_OP_ADD)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_span_get(hold, mcDst, bytes, true, &span);
	if (res != CUDA_SUCCESS)
		return res;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	libcumc_mc_red(&span, src, count, type, op);
	libcumc_span_put(hold);
	return CUDA_SUCCESS;
}

/* The entry points, for programs; kernels reach the same (launch.c). */
CUresult CUDAAPI cumcMultimemSt(CUdeviceptr mcDst, const void *src,
				size_t bytes)
{
	return libcumc_multimem_st(NULL, mcDst, src, bytes);
}

CUresult CUDAAPI cumcMultimemLdReduce(void *dst, CUdeviceptr mcSrc,
				      size_t count, cumcDataType type,
				      cumcReduceOp op)
{
	return libcumc_multimem_ld_reduce(NULL, dst, mcSrc, count, type, op);
}

CUresult CUDAAPI cumcMultimemRed(CUdeviceptr mcDst, const void *src,
				 size_t count, cumcDataType type,
				 cumcReduceOp op)
{
	return libcumc_multimem_red(NULL, mcDst, src, count, type, op);
}
