// SPDX-License-Identifier: MIT
/*
 * The element loops of the multimem data path.
 *
 * Reductions run over blocks small enough to stay in L1: an accumulator
 * block takes up to four members at a time, with loops simple enough for
 * the compiler to vectorise. Each loop is built for AVX-512, AVX2 and
 * baseline x86-64; multimem_isa.c picks the build once, so one binary runs
 * at memory speed wherever it runs, the VM's emulated CPU included. 16-bit
 * floats accumulate in f32, as multimem.ld_reduce's .acc::f32 does.
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "multimem_isa.h"
#include "multimem_ops.h"

/* The attributes of each build; one build of everything off x86-64. */
#if defined(__x86_64__)
#define CUMC_ISA_base
#define CUMC_ISA_v3 __attribute__((target("arch=x86-64-v3")))
#define CUMC_ISA_v4 __attribute__((target("arch=x86-64-v4")))
#else
#define CUMC_ISA_base
#define CUMC_ISA_v3
#define CUMC_ISA_v4
#endif

/* The operators, on accumulator values. */
#define CUMC_ADD(x, y) ((x) + (y))
#define CUMC_MIN(x, y) ((y) < (x) ? (y) : (x))
#define CUMC_MAX(x, y) ((y) > (x) ? (y) : (x))
#define CUMC_AND(x, y) ((x) & (y))
#define CUMC_OR(x, y) ((x) | (y))
#define CUMC_XOR(x, y) ((x) ^ (y))

/* Reading a member's element into an accumulator. */
#define CUMC_AS_IS(x) (x)
#define CUMC_F16_WIDEN(x) ((float)(x))
#define CUMC_BF16_WIDEN(x) libcumc_bf16_widen(x)

/* The first @k members' elements, at @off into their views. */
#define CUMC_PTRS1(S) const S *restrict a = (const S *)(views[0] + off)
#define CUMC_PTRS2(S) CUMC_PTRS1(S); const S *restrict b = (const S *)(views[1] + off)
#define CUMC_PTRS3(S) CUMC_PTRS2(S); const S *restrict c = (const S *)(views[2] + off)
#define CUMC_PTRS4(S) CUMC_PTRS3(S); const S *restrict d = (const S *)(views[3] + off)

/* One loop over @k members: acc[i] = EXPR, accumulators of type A. */
#define CUMC_LOOP(fn, isa, A, S, k, EXPR)				\
CUMC_ISA_##isa static void fn##_##isa(void *restrict accp,		\
				      char *const *views,		\
				      size_t off, size_t n)		\
{									\
	A *restrict acc = accp;						\
	CUMC_PTRS##k(S);						\
	size_t i;							\
									\
	for (i = 0; i < n; i++)						\
		acc[i] = EXPR;						\
}

/*
 * The loops of one (type, operator) pair, accumulators of type A from
 * elements of type S: start from one to four members, and fold one to four
 * more into the accumulators. Each element is combined in member order, so
 * a reduction is the same whatever the number of passes; taking up to four
 * members a pass keeps the accumulator block's own loads and stores to one
 * per four members.
 */
#define CUMC_REDUCER_LOOPS(name, isa, A, S, LOAD, OP)			\
CUMC_LOOP(name##_first1, isa, A, S, 1, LOAD(a[i]))			\
CUMC_LOOP(name##_first2, isa, A, S, 2, OP(LOAD(a[i]), LOAD(b[i])))	\
CUMC_LOOP(name##_first3, isa, A, S, 3,					\
	  OP(OP(LOAD(a[i]), LOAD(b[i])), LOAD(c[i])))			\
CUMC_LOOP(name##_first4, isa, A, S, 4,					\
	  OP(OP(OP(LOAD(a[i]), LOAD(b[i])), LOAD(c[i])), LOAD(d[i])))	\
CUMC_LOOP(name##_fold1, isa, A, S, 1, OP(acc[i], LOAD(a[i])))		\
CUMC_LOOP(name##_fold2, isa, A, S, 2,					\
	  OP(OP(acc[i], LOAD(a[i])), LOAD(b[i])))			\
CUMC_LOOP(name##_fold3, isa, A, S, 3,					\
	  OP(OP(OP(acc[i], LOAD(a[i])), LOAD(b[i])), LOAD(c[i])))	\
CUMC_LOOP(name##_fold4, isa, A, S, 4,					\
	  OP(OP(OP(OP(acc[i], LOAD(a[i])), LOAD(b[i])), LOAD(c[i])),	\
	     LOAD(d[i])))

/* The loops of every build. */
#define CUMC_REDUCER_BUILDS(LOOPS, name, ...)				\
LOOPS(name, base, __VA_ARGS__)						\
LOOPS(name, v3, __VA_ARGS__)						\
LOOPS(name, v4, __VA_ARGS__)

#define CUMC_REDUCER_PASSES(name, isa)					\
	.first = { NULL, name##_first1_##isa, name##_first2_##isa,	\
		   name##_first3_##isa, name##_first4_##isa },		\
	.fold = { NULL, name##_fold1_##isa, name##_fold2_##isa,	\
		  name##_fold3_##isa, name##_fold4_##isa }

/* One reducer per build, indexed by enum libcumc_isa. */
#define CUMC_REDUCER(name, A, S, LOAD, OP)				\
CUMC_REDUCER_BUILDS(CUMC_REDUCER_LOOPS, name, A, S, LOAD, OP)		\
static const struct libcumc_reducer name[LIBCUMC_ISA_COUNT] = {		\
	[LIBCUMC_ISA_BASE] = { CUMC_REDUCER_PASSES(name, base) },	\
	[LIBCUMC_ISA_V3] = { CUMC_REDUCER_PASSES(name, v3) },		\
	[LIBCUMC_ISA_V4] = { CUMC_REDUCER_PASSES(name, v4) },		\
}

/*
 * One last pass for 16-bit floats: out[i] = NARROW(EXPR), from f32 @acc
 * (which a pass that starts from the members does not read).
 */
#define CUMC_LOOP_OUT(fn, isa, S, k, EXPR, NARROW)			\
CUMC_ISA_##isa static void fn##_##isa(void *restrict outp,		\
				      const float *restrict acc	\
				      __attribute__((unused)),		\
				      char *const *views, size_t off,	\
				      size_t n)				\
{									\
	S *restrict out = outp;						\
	CUMC_PTRS##k(S);						\
	size_t i;							\
									\
	for (i = 0; i < n; i++)						\
		out[i] = NARROW(EXPR);					\
}

/*
 * For 16-bit floats, the last pass also rounds into the destination, so the
 * f32 accumulators are not written and read once more just to be narrowed.
 */
#define CUMC_REDUCER_HALF_LOOPS(name, isa, S, LOAD, NARROW, OP)		\
CUMC_REDUCER_LOOPS(name, isa, float, S, LOAD, OP)			\
CUMC_LOOP_OUT(name##_first2_out, isa, S, 2, OP(LOAD(a[i]), LOAD(b[i])),	\
	      NARROW)							\
CUMC_LOOP_OUT(name##_first3_out, isa, S, 3,				\
	      OP(OP(LOAD(a[i]), LOAD(b[i])), LOAD(c[i])), NARROW)	\
CUMC_LOOP_OUT(name##_fold1_out, isa, S, 1, OP(acc[i], LOAD(a[i])),	\
	      NARROW)							\
CUMC_LOOP_OUT(name##_fold2_out, isa, S, 2,				\
	      OP(OP(acc[i], LOAD(a[i])), LOAD(b[i])), NARROW)

#define CUMC_REDUCER_HALF_PASSES(name, isa)				\
	CUMC_REDUCER_PASSES(name, isa),					\
	.first_out = { NULL, NULL, name##_first2_out_##isa,		\
		       name##_first3_out_##isa },			\
	.fold_out = { NULL, name##_fold1_out_##isa,			\
		      name##_fold2_out_##isa }

#define CUMC_REDUCER_HALF(name, S, LOAD, NARROW, OP)			\
CUMC_REDUCER_BUILDS(CUMC_REDUCER_HALF_LOOPS, name, S, LOAD, NARROW, OP)	\
static const struct libcumc_reducer name[LIBCUMC_ISA_COUNT] = {		\
	[LIBCUMC_ISA_BASE] = { CUMC_REDUCER_HALF_PASSES(name, base) },	\
	[LIBCUMC_ISA_V3] = { CUMC_REDUCER_HALF_PASSES(name, v3) },	\
	[LIBCUMC_ISA_V4] = { CUMC_REDUCER_HALF_PASSES(name, v4) },	\
}

#define CUMC_F16_NARROW(x) ((_Float16)(x))
#define CUMC_BF16_NARROW(x) libcumc_f32_to_bf16(x)

CUMC_REDUCER(libcumc_add_f32, float, float, CUMC_AS_IS, CUMC_ADD);
CUMC_REDUCER(libcumc_min_f32, float, float, CUMC_AS_IS, CUMC_MIN);
CUMC_REDUCER(libcumc_max_f32, float, float, CUMC_AS_IS, CUMC_MAX);
CUMC_REDUCER(libcumc_add_f64, double, double, CUMC_AS_IS, CUMC_ADD);
CUMC_REDUCER_HALF(libcumc_add_f16, _Float16, CUMC_F16_WIDEN, CUMC_F16_NARROW,
		  CUMC_ADD);
CUMC_REDUCER_HALF(libcumc_min_f16, _Float16, CUMC_F16_WIDEN, CUMC_F16_NARROW,
		  CUMC_MIN);
CUMC_REDUCER_HALF(libcumc_max_f16, _Float16, CUMC_F16_WIDEN, CUMC_F16_NARROW,
		  CUMC_MAX);
CUMC_REDUCER_HALF(libcumc_add_bf16, uint16_t, CUMC_BF16_WIDEN, CUMC_BF16_NARROW,
		  CUMC_ADD);
CUMC_REDUCER_HALF(libcumc_min_bf16, uint16_t, CUMC_BF16_WIDEN, CUMC_BF16_NARROW,
		  CUMC_MIN);
CUMC_REDUCER_HALF(libcumc_max_bf16, uint16_t, CUMC_BF16_WIDEN, CUMC_BF16_NARROW,
		  CUMC_MAX);
CUMC_REDUCER(libcumc_add_u32, uint32_t, uint32_t, CUMC_AS_IS, CUMC_ADD);
CUMC_REDUCER(libcumc_min_u32, uint32_t, uint32_t, CUMC_AS_IS, CUMC_MIN);
CUMC_REDUCER(libcumc_max_u32, uint32_t, uint32_t, CUMC_AS_IS, CUMC_MAX);
CUMC_REDUCER(libcumc_min_s32, int32_t, int32_t, CUMC_AS_IS, CUMC_MIN);
CUMC_REDUCER(libcumc_max_s32, int32_t, int32_t, CUMC_AS_IS, CUMC_MAX);
CUMC_REDUCER(libcumc_and_u32, uint32_t, uint32_t, CUMC_AS_IS, CUMC_AND);
CUMC_REDUCER(libcumc_or_u32, uint32_t, uint32_t, CUMC_AS_IS, CUMC_OR);
CUMC_REDUCER(libcumc_xor_u32, uint32_t, uint32_t, CUMC_AS_IS, CUMC_XOR);
CUMC_REDUCER(libcumc_add_u64, uint64_t, uint64_t, CUMC_AS_IS, CUMC_ADD);
CUMC_REDUCER(libcumc_min_u64, uint64_t, uint64_t, CUMC_AS_IS, CUMC_MIN);
CUMC_REDUCER(libcumc_max_u64, uint64_t, uint64_t, CUMC_AS_IS, CUMC_MAX);
CUMC_REDUCER(libcumc_min_s64, int64_t, int64_t, CUMC_AS_IS, CUMC_MIN);
CUMC_REDUCER(libcumc_max_s64, int64_t, int64_t, CUMC_AS_IS, CUMC_MAX);
CUMC_REDUCER(libcumc_and_u64, uint64_t, uint64_t, CUMC_AS_IS, CUMC_AND);
CUMC_REDUCER(libcumc_or_u64, uint64_t, uint64_t, CUMC_AS_IS, CUMC_OR);
CUMC_REDUCER(libcumc_xor_u64, uint64_t, uint64_t, CUMC_AS_IS, CUMC_XOR);

/*
 * Each entry is the reducer of every build. Two's complement: signed add
 * and the bitwise operators are the unsigned ones.
 */
static const struct libcumc_reducer *const
libcumc_reducers[][CUMC_OP_XOR + 1] = {
	[CUMC_F16] = { libcumc_add_f16, libcumc_min_f16, libcumc_max_f16 },
	[CUMC_BF16] = { libcumc_add_bf16, libcumc_min_bf16,
			libcumc_max_bf16 },
	[CUMC_F32] = { libcumc_add_f32, libcumc_min_f32, libcumc_max_f32 },
	[CUMC_F64] = { libcumc_add_f64 },
	[CUMC_U32] = { libcumc_add_u32, libcumc_min_u32, libcumc_max_u32,
		       libcumc_and_u32, libcumc_or_u32, libcumc_xor_u32 },
	[CUMC_S32] = { libcumc_add_u32, libcumc_min_s32, libcumc_max_s32,
		       libcumc_and_u32, libcumc_or_u32, libcumc_xor_u32 },
	[CUMC_U64] = { libcumc_add_u64, libcumc_min_u64, libcumc_max_u64,
		       libcumc_and_u64, libcumc_or_u64, libcumc_xor_u64 },
	[CUMC_S64] = { libcumc_add_u64, libcumc_min_s64, libcumc_max_s64,
		       libcumc_and_u64, libcumc_or_u64, libcumc_xor_u64 },
};

/*
 * The copy of multimem.st under an emulator: plain vector moves. glibc's
 * memcpy copies a large block with `rep movsb`, which QEMU's TCG runs a
 * byte at a time, 4 to 8 times slower than these loops there (natively the
 * reverse, so natively st is memcpy). The copy must stay a loop: not
 * turned back into a call to memcpy.
 */
#if defined(__GNUC__) && !defined(__clang__)
#define CUMC_LOOP_NOT_LIBCALL __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define CUMC_LOOP_NOT_LIBCALL
#endif

#define CUMC_COPY(isa)							\
CUMC_ISA_##isa CUMC_LOOP_NOT_LIBCALL static void *			\
libcumc_copy_##isa(void *restrict dstp, const void *restrict srcp,	\
		   size_t n)						\
{									\
	typedef uint64_t u64_any __attribute__((aligned(1), may_alias));	\
	u64_any *dst = dstp;						\
	const u64_any *src = srcp;					\
	size_t i;							\
									\
	for (i = 0; i < n / 8; i++)					\
		dst[i] = src[i];					\
	memcpy((char *)dstp + n / 8 * 8, (const char *)srcp + n / 8 * 8, \
	       n % 8);							\
	return dstp;							\
}

CUMC_COPY(base)
CUMC_COPY(v3)
CUMC_COPY(v4)

static const libcumc_copy_fn libcumc_copies[LIBCUMC_ISA_COUNT] = {
	[LIBCUMC_ISA_BASE] = libcumc_copy_base,
	[LIBCUMC_ISA_V3] = libcumc_copy_v3,
	[LIBCUMC_ISA_V4] = libcumc_copy_v4,
};

#if defined(__x86_64__)
/*
 * Streaming stores: each line written without being read for ownership
 * first or kept in this core's caches. libcumc_copy_for_st() says when
 * multimem.st takes this copy.
 */
void *libcumc_copy_streaming(void *restrict dstp, const void *restrict srcp,
			     size_t n)
{
	size_t head = -(uintptr_t)dstp % sizeof(__m128i);
	const char *src = srcp;
	char *dst = dstp;

	if (n < head + 4 * sizeof(__m128i))
		return memcpy(dstp, srcp, n);
	memcpy(dst, src, head);
	dst += head;
	src += head;
	n -= head;
	for (; n >= 4 * sizeof(__m128i); n -= 4 * sizeof(__m128i)) {
		__m128i a = _mm_loadu_si128((const __m128i *)src);
		__m128i b = _mm_loadu_si128((const __m128i *)src + 1);
		__m128i c = _mm_loadu_si128((const __m128i *)src + 2);
		__m128i d = _mm_loadu_si128((const __m128i *)src + 3);

		_mm_stream_si128((__m128i *)dst, a);
		_mm_stream_si128((__m128i *)dst + 1, b);
		_mm_stream_si128((__m128i *)dst + 2, c);
		_mm_stream_si128((__m128i *)dst + 3, d);
		src += 4 * sizeof(__m128i);
		dst += 4 * sizeof(__m128i);
	}
	memcpy(dst, src, n);
	/* Streaming stores are weakly ordered: order them before st returns. */
	_mm_sfence();
	return dstp;
}
#else
void *libcumc_copy_streaming(void *restrict dstp, const void *restrict srcp,
			     size_t n)
{
	return memcpy(dstp, srcp, n);
}
#endif

/* This core's L2 cache's bytes as the C library reports them; 0: unknown. */
static size_t libcumc_l2_bytes(void)
{
	static long l2 = -1;
	long bytes = __atomic_load_n(&l2, __ATOMIC_RELAXED);

	if (bytes >= 0)
		return bytes;
	bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
	if (bytes < 0)
		bytes = 0;
	__atomic_store_n(&l2, bytes, __ATOMIC_RELAXED);
	return bytes;
}

/*
 * A multimem store fills no cache of the thread that issues it, and what
 * it writes is for the members' readers, not for this thread. Ordinary
 * stores win while the members' bytes fit this core's own cache (streaming
 * ones are 0.4 to 0.9 of memcpy there); past it they pay a read for
 * ownership of every line and evict the caller's data, and streaming
 * stores are at least level with them from the L2's size on and ahead
 * beyond, even where the shared cache that the C library reports would
 * hold it all (bench_multimem, Documentation/performance.md).
 */
libcumc_copy_fn libcumc_copy_for_st(size_t members_bytes)
{
	size_t l2;

	if (libcumc_cpu_emulated())
		return libcumc_copies[libcumc_multimem_isa()];
	l2 = libcumc_l2_bytes();
	if (l2 && members_bytes > l2)
		return libcumc_copy_streaming;
	return memcpy;
}

const struct libcumc_reducer *libcumc_reducer_lookup(cumcDataType type,
						     cumcReduceOp op)
{
	const struct libcumc_reducer *builds;

	if ((unsigned int)type > CUMC_U64 || (unsigned int)op > CUMC_OP_XOR)
		return NULL;
	builds = libcumc_reducers[type][op];
	return builds ? builds + libcumc_multimem_isa() : NULL;
}

size_t libcumc_type_size(cumcDataType type)
{
	switch (type) {
	case CUMC_F16:
	case CUMC_BF16:
		return 2;
	case CUMC_F32:
	case CUMC_S32:
	case CUMC_U32:
		return 4;
	default:
		return 8;
	}
}
