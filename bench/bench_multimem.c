// SPDX-License-Identifier: MIT
/*
 * Throughput of the multimem data path against baselines measured in the
 * same run, for every team size from 2 to 8 and 4 KiB to 1 GiB per member:
 *  - multimem.st against memcpy of the same bytes to every member;
 *  - multimem.ld_reduce (f32 and bf16 add) against a read-sum: a plain,
 *    vectorised loop summing the same members' elements into a
 *    destination, as ld_reduce does (and, for reference, against a sum of
 *    the same elements that writes nothing);
 *  - multimem.red (f32 and u32 add; atomic per element, as the hardware's
 *    is) against a plain, non-atomic in-place add to every member;
 *  - cuMemcpy to a multicast address against memcpy to every member
 *    (device setup only).
 *
 * Two setups:
 *  - native: the library's own loops over member views in ordinary memory
 *    (runs anywhere, no module);
 *  - device: a real team on the simulated devices through cuMulticast* and
 *    the views the module maps (inside the VM).
 *
 * bench_multimem [--json FILE] [--max-bytes N]
 * Prints a table; never fails on speed.
 */
#include <cuda.h>
#include <cumc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_json.h"
#include "multimem.h"
#include "multimem_ops.h"

#define CHECK(call)							\
	do {								\
		CUresult res_ = (call);					\
		if (res_ != CUDA_SUCCESS) {				\
			fprintf(stderr, "%s: %d\n", #call, res_);	\
			exit(1);					\
		}							\
	} while (0)

#define MAX_MEMBERS 8
#define MIN_BYTES (4 << 10)
#define RED_MAX_BYTES (64 << 20)
/* Elements per block of the read-sum baselines: the block stays in L1. */
#define SUM_BLOCK 2048

struct result {
	const char *setup;
	unsigned int members;
	size_t bytes;
	const char *op;
	double gbps;
	double baseline_gbps;
	double bound_gbps;	/* the write-nothing read-sum, or 0 */
};

static struct result results[1024];
static unsigned int num_results;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Bytes each timing works through: --quick divides them by 16. */
static size_t work_bytes = 128u << 20;

/* Enough repetitions for about 0.1 s of work (at least 1). */
static unsigned int reps_for(size_t bytes)
{
	size_t reps = work_bytes / (bytes ? bytes : 1);

	return reps < 1 ? 1 : reps > 4000 ? 4000 : (unsigned int)reps;
}

/* @reps calls of @stmt, in seconds per call. */
#define TIME_ONCE(reps, stmt)						\
	({								\
		double t0_ = now();					\
		for (unsigned int r = 0; r < (reps); r++)		\
			stmt;						\
		(now() - t0_) / (reps);					\
	})

#define TRIES 5

/* The best of TRIES timings of @reps calls, in seconds per call. */
#define TIME_BEST(reps, stmt)						\
	({								\
		double best_ = 1e30;					\
		for (int try_ = 0; try_ < TRIES; try_++) {		\
			double dt_ = TIME_ONCE(reps, stmt);		\
			best_ = dt_ < best_ ? dt_ : best_;		\
		}							\
		best_;							\
	})

/*
 * The same for an operation and its baseline, timed in turns, each first
 * in every other turn: a burst of the host's noise falls on both of them
 * or on neither, and neither always runs in the caches the other left.
 */
#define TIME_PAIR(reps, t, stmt, base, base_stmt)			\
	do {								\
		t = base = 1e30;					\
		for (int try_ = 0; try_ < TRIES; try_++) {		\
			double dt_, db_;				\
									\
			if (try_ & 1) {					\
				db_ = TIME_ONCE(reps, base_stmt);	\
				dt_ = TIME_ONCE(reps, stmt);		\
			} else {					\
				dt_ = TIME_ONCE(reps, stmt);		\
				db_ = TIME_ONCE(reps, base_stmt);	\
			}						\
			t = dt_ < t ? dt_ : t;				\
			base = db_ < base ? db_ : base;			\
		}							\
	} while (0)

static volatile float sink;

/* What red adds: its cost does not depend on the values. */
static const char *zeros;

/*
 * Members and sources hold f32 ones, which read as bf16 are ones and
 * zeros: no denormal, infinity or NaN slows one loop and not another.
 */
static void fill_ones(void *p, size_t bytes)
{
	float *f = p;
	size_t i;

	for (i = 0; i < bytes / sizeof(*f); i++)
		f[i] = 1.0f;
}

/* The baselines are built for the same CPUs as the library's loops. */
#if defined(__x86_64__)
#define BASELINE \
	__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define BASELINE
#endif

/*
 * The read-sum baseline: every member's floats summed into @out a block at
 * a time, plain loops the compiler vectorises.
 */
BASELINE static void read_sum(float *out, char *const *views, unsigned int members,
		     size_t off, size_t count)
{
	size_t b, i, n;
	unsigned int m;

	for (b = 0; b < count; b += n) {
		const float *x0 = (const float *)(views[0] + off) + b;
		float *o = out + b;

		n = count - b < SUM_BLOCK ? count - b : SUM_BLOCK;
		for (i = 0; i < n; i++)
			o[i] = x0[i];
		for (m = 1; m < members; m++) {
			const float *x = (const float *)(views[m] + off) + b;

			for (i = 0; i < n; i++)
				o[i] += x[i];
		}
	}
}

/* The same for bf16 elements: widened to f32, summed, rounded into @out. */
BASELINE static void read_sum_bf16(uint16_t *out, char *const *views,
				   unsigned int members, size_t off,
				   size_t count)
{
	float acc[SUM_BLOCK];
	size_t b, i, n;
	unsigned int m;

	for (b = 0; b < count; b += n) {
		const uint16_t *x0 = (const uint16_t *)(views[0] + off) + b;

		n = count - b < SUM_BLOCK ? count - b : SUM_BLOCK;
		for (i = 0; i < n; i++)
			acc[i] = libcumc_bf16_widen(x0[i]);
		for (m = 1; m < members; m++) {
			const uint16_t *x = (const uint16_t *)(views[m] + off) + b;

			for (i = 0; i < n; i++)
				acc[i] += libcumc_bf16_widen(x[i]);
		}
		for (i = 0; i < n; i++)
			out[b + i] = libcumc_f32_to_bf16(acc[i]);
	}
}

/*
 * The same floats summed into 16 partial sums and nothing written: how
 * fast the members' bytes can be read at all.
 */
BASELINE static void read_only_sum(char *const *views, unsigned int members,
			  size_t off, size_t count)
{
	float acc[16] = { 0 }, total = 0;
	unsigned int m, j;
	size_t i;

	for (m = 0; m < members; m++) {
		const float *x = (const float *)(views[m] + off);

		for (i = 0; i + 16 <= count; i += 16)
			for (j = 0; j < 16; j++)
				acc[j] += x[i + j];
	}
	for (j = 0; j < 16; j++)
		total += acc[j];
	sink = total;
}

/* The red baseline: @src added to every member in place, not atomically. */
#define ADD_IN_PLACE(name, T)						\
BASELINE static void name(char *const *views, unsigned int members,	\
			  size_t off, const T *src, size_t count)	\
{									\
	unsigned int m;							\
	size_t i;							\
									\
	for (m = 0; m < members; m++) {					\
		T *x = (T *)(views[m] + off);				\
									\
		for (i = 0; i < count; i++)				\
			x[i] += src[i];					\
	}								\
}

ADD_IN_PLACE(add_in_place_f32, float)
ADD_IN_PLACE(add_in_place_u32, uint32_t)

/* Throughputs count every member's @bytes once, ours and the baseline's. */
static void record(const char *setup, unsigned int members, size_t bytes,
		   const char *op, double sec, double base_sec,
		   double bound_sec)
{
	struct result *r = &results[num_results++];
	double moved = (double)bytes * members;

	r->setup = setup;
	r->members = members;
	r->bytes = bytes;
	r->op = op;
	r->gbps = moved / sec / 1e9;
	r->baseline_gbps = moved / base_sec / 1e9;
	r->bound_gbps = bound_sec ? moved / bound_sec / 1e9 : 0;
	printf("%-7s %2u %10zu  %-15s %8.2f GB/s  baseline %8.2f GB/s  ratio %5.2f",
	       setup, members, bytes, op, r->gbps, r->baseline_gbps,
	       r->gbps / r->baseline_gbps);
	if (bound_sec)
		printf("  (read only %8.2f GB/s: %4.2f)", r->bound_gbps,
		       r->gbps / r->bound_gbps);
	printf("\n");
	fflush(stdout);
}

/*
 * Measure one team size and message size over the views of @span; @mc_va,
 * when not 0, is the same span's multicast address for cuMemcpy.
 */
static void measure(const char *setup, const struct libcumc_mc_span *span,
		    size_t bytes, char *src, char *dst, CUdeviceptr mc_va)
{
	const struct libcumc_mc_mapping *map = span->map;
	unsigned int members = map->num_members, reps = reps_for(bytes * members);
	size_t count = bytes / sizeof(float), off = span->offset;
	double t, base, bound;
	unsigned int m;

	TIME_PAIR(reps, t, libcumc_mc_broadcast(span, src, bytes),
		  base, for (m = 0; m < members; m++)
			memcpy(map->views[m] + off, src, bytes));
	record(setup, members, bytes, "st", t, base, 0);

	if (mc_va) {
		t = TIME_BEST(reps, CHECK(cuMemcpyHtoD(mc_va, src, bytes)));
		record(setup, members, bytes, "cuMemcpy", t, base, 0);
	}

	TIME_PAIR(reps, t, libcumc_mc_ld_reduce(dst, span, count, CUMC_F32,
						CUMC_OP_ADD),
		  base, read_sum((float *)dst, map->views, members, off, count));
	bound = TIME_BEST(reps, read_only_sum(map->views, members, off, count));
	record(setup, members, bytes, "ld_reduce f32", t, base, bound);

	TIME_PAIR(reps, t, libcumc_mc_ld_reduce(dst, span, count * 2,
						CUMC_BF16, CUMC_OP_ADD),
		  base, read_sum_bf16((uint16_t *)dst, map->views, members,
				      off, count * 2));
	record(setup, members, bytes, "ld_reduce bf16", t, base, 0);

	/*
	 * Red is atomic per element, far from memory speed: a few repetitions,
	 * and no sizes past RED_MAX_BYTES, where it would only take longer.
	 */
	if (bytes > RED_MAX_BYTES)
		return;
	reps = reps / 16 ? reps / 16 : 1;
	TIME_PAIR(reps, t, libcumc_mc_red(span, zeros, count, CUMC_F32,
					  CUMC_OP_ADD),
		  base, add_in_place_f32(map->views, members, off,
					 (const float *)zeros, count));
	record(setup, members, bytes, "red f32", t, base, 0);
	TIME_PAIR(reps, t, libcumc_mc_red(span, zeros, count, CUMC_U32,
					  CUMC_OP_ADD),
		  base, add_in_place_u32(map->views, members, off,
					 (const uint32_t *)zeros, count));
	record(setup, members, bytes, "red u32", t, base, 0);
}

static void bench_native(size_t max_bytes, char *src, char *dst)
{
	struct libcumc_mc_mapping *map;
	struct libcumc_mc_span span = { 0 };
	unsigned int members, m;
	size_t bytes;

	map = calloc(1, sizeof(*map) + MAX_MEMBERS * sizeof(map->views[0]));
	if (!map)
		exit(1);
	for (m = 0; m < MAX_MEMBERS; m++) {
		map->views[m] = aligned_alloc(4096, max_bytes);
		if (!map->views[m])
			exit(1);
		fill_ones(map->views[m], max_bytes);
	}
	map->length = max_bytes;
	map->writable = 1;
	span.map = map;
	for (members = 2; members <= MAX_MEMBERS; members++) {
		map->num_members = members;
		for (bytes = MIN_BYTES; bytes <= max_bytes; bytes *= 4)
			measure("native", &span, bytes, src, dst, 0);
	}
	for (m = 0; m < MAX_MEMBERS; m++)
		free(map->views[m]);
	free(map);
}


static CUdeviceptr map_handle(CUmemGenericAllocationHandle h, size_t size)
{
	CUmemAccessDesc desc = {
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 },
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};
	CUdeviceptr va;

	CHECK(cuMemAddressReserve(&va, size, 0, 0, 0));
	CHECK(cuMemMap(va, size, 0, h, 0));
	CHECK(cuMemSetAccess(va, size, &desc, 1));
	return va;
}

/* A team of @members devices in this process, every member bound. */
static void bench_device_team(unsigned int members, size_t max_bytes,
			      char *src, char *dst)
{
	CUmulticastObjectProp prop = { .numDevices = members, .size = max_bytes };
	CUmemGenericAllocationHandle mc, mem[MAX_MEMBERS];
	struct libcumc_mc_span span;
	CUdeviceptr mc_va;
	unsigned int m;
	size_t bytes;

	CHECK(cuMulticastCreate(&mc, &prop));
	/* A bind waits for a complete team: every member joins first. */
	for (m = 0; m < members; m++)
		CHECK(cuMulticastAddDevice(mc, (CUdevice)m));
	for (m = 0; m < members; m++) {
		CUmemAllocationProp mp = {
			.type = CU_MEM_ALLOCATION_TYPE_PINNED,
			.location = { CU_MEM_LOCATION_TYPE_DEVICE, (int)m },
		};

		CHECK(cuMemCreate(&mem[m], max_bytes, &mp, 0));
		CHECK(cuMulticastBindMem(mc, 0, mem[m], 0, max_bytes, 0));
	}
	mc_va = map_handle(mc, max_bytes);
	/* Touch every page once: first-touch faults are not the data path. */
	CHECK(cumcMultimemSt(mc_va, src, max_bytes));
	CHECK(libcumc_mc_acquire(mc_va, max_bytes, &span));
	for (bytes = MIN_BYTES; bytes <= max_bytes; bytes *= 4)
		measure("device", &span, bytes, src, dst, mc_va);
	libcumc_mc_release();
	CHECK(cuMemUnmap(mc_va, max_bytes));
	CHECK(cuMemAddressFree(mc_va, max_bytes));
	for (m = 0; m < members; m++) {
		CHECK(cuMulticastUnbind(mc, (CUdevice)m, 0, max_bytes));
		CHECK(cuMemRelease(mem[m]));
	}
	CHECK(cuMemRelease(mc));
}

static void write_json(const char *path)
{
	struct json_object *rows = json_object_new_array(), *o;
	unsigned int i;

	for (i = 0; i < num_results; i++) {
		const struct result *r = &results[i];

		o = json_object_new_object();
		json_object_object_add(o, "setup", json_object_new_string(r->setup));
		json_object_object_add(o, "members", json_object_new_int(r->members));
		json_object_object_add(o, "bytes", json_object_new_uint64(r->bytes));
		json_object_object_add(o, "op", json_object_new_string(r->op));
		json_object_object_add(o, "gbps", bench_num("%.3f", r->gbps));
		json_object_object_add(o, "baseline_gbps",
				       bench_num("%.3f", r->baseline_gbps));
		json_object_object_add(o, "ratio",
				       bench_num("%.3f", r->gbps / r->baseline_gbps));
		if (r->bound_gbps) {
			json_object_object_add(o, "read_only_gbps",
					       bench_num("%.3f", r->bound_gbps));
			json_object_object_add(o, "read_only_ratio",
					       bench_num("%.3f", r->gbps / r->bound_gbps));
		}
		json_object_array_add(rows, o);
	}
	if (bench_json_write(path, rows))
		perror(path);
	json_object_put(rows);
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_multimem [--json FILE] [--max-bytes N] "
		"[--device-only] [--quick]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const unsigned int team_sizes[] = { 2, 4, 8 };
	size_t max_bytes = 1u << 30;
	const char *json = NULL;
	int count = 0, device_only = 0, i;
	CUcontext ctx = NULL;
	char *src, *dst;
	unsigned int t;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json") && i + 1 < argc)
			json = argv[++i];
		else if (!strcmp(argv[i], "--max-bytes") && i + 1 < argc)
			max_bytes = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--device-only"))
			device_only = 1;
		else if (!strcmp(argv[i], "--quick"))
			work_bytes /= 16;
		else
			usage();
	}
	if (max_bytes < MIN_BYTES)
		usage();
	src = aligned_alloc(4096, max_bytes);
	dst = aligned_alloc(4096, max_bytes);
	if (!src || !dst)
		return 1;
	/* Every operation leaves ones in the members: red adds zeros. */
	fill_ones(src, max_bytes);
	memset(dst, 0, max_bytes);
	zeros = calloc(1, max_bytes);
	if (!zeros)
		return 1;

	printf("setup  members    bytes  op                 throughput           baseline               ratio\n");
	if (!device_only)
		bench_native(max_bytes, src, dst);
	if (cuInit(0) == CUDA_SUCCESS && cuDeviceGetCount(&count) == CUDA_SUCCESS &&
	    count > 0) {
		/* cuMemcpy works in the current context. */
		CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
		CHECK(cuCtxSetCurrent(ctx));
	}
	if (ctx)
		for (t = 0; t < sizeof(team_sizes) / sizeof(team_sizes[0]); t++)
			if ((int)team_sizes[t] <= count)
				bench_device_team(team_sizes[t], max_bytes, src, dst);
	if (json)
		write_json(json);
	return 0;
}
