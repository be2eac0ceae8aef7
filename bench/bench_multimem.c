// SPDX-License-Identifier: MIT
/*
 * Throughput of the multimem data path against baselines measured in the
 * same run: multimem.st against memcpy of the same bytes (the member copies
 * written), multimem.ld_reduce against a plain loop summing the same bytes
 * as elements of the same type (every member's elements read).
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

#include "multimem.h"

#define MAX_MEMBERS 8

struct result {
	const char *setup;
	unsigned int members;
	size_t bytes;
	const char *op;
	double gbps;
	double baseline_gbps;
};

static struct result results[256];
static unsigned int num_results;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Enough repetitions for about 0.2 s of work (at least 3). */
static unsigned int reps_for(size_t bytes)
{
	size_t reps = (256u << 20) / (bytes ? bytes : 1);

	return reps < 3 ? 3 : reps > 2000 ? 2000 : (unsigned int)reps;
}

/* The best of five timings of @reps calls, in seconds per call. */
#define TIME_BEST(reps, stmt)						\
	({								\
		double best = 1e30;					\
		for (int t = 0; t < 5; t++) {				\
			double t0 = now();				\
			for (unsigned int r = 0; r < (reps); r++)	\
				stmt;					\
			double dt = (now() - t0) / (reps);		\
			best = dt < best ? dt : best;			\
		}							\
		best;							\
	})

static volatile float sink;

/*
 * The read-sum baseline: every member's floats summed in a plain loop, with
 * 16 partial sums so that the compiler vectorises it as it does ours.
 */
static void read_sum(char *const *views, unsigned int members, size_t off,
		     size_t count)
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

/* The same for bf16 elements: each widened to f32 (its top half) and summed. */
static void read_sum_bf16(char *const *views, unsigned int members,
			  size_t off, size_t count)
{
	float acc[16] = { 0 }, total = 0;
	unsigned int m, j;
	size_t i;

	for (m = 0; m < members; m++) {
		const uint16_t *x = (const uint16_t *)(views[m] + off);

		for (i = 0; i + 16 <= count; i += 16)
			for (j = 0; j < 16; j++) {
				uint32_t bits = (uint32_t)x[i + j] << 16;
				float f;

				memcpy(&f, &bits, sizeof(f));
				acc[j] += f;
			}
	}
	for (j = 0; j < 16; j++)
		total += acc[j];
	sink = total;
}

static void record(const char *setup, unsigned int members, size_t bytes,
		   const char *op, double sec, double base_sec, size_t moved)
{
	struct result *r = &results[num_results++];

	r->setup = setup;
	r->members = members;
	r->bytes = bytes;
	r->op = op;
	r->gbps = moved / sec / 1e9;
	r->baseline_gbps = moved / base_sec / 1e9;
	printf("%-7s %2u %10zu  %-16s %8.2f GB/s  baseline %8.2f GB/s  ratio %5.2f\n",
	       setup, members, bytes, op, r->gbps, r->baseline_gbps,
	       r->gbps / r->baseline_gbps);
	fflush(stdout);
}

/* Measure one team size and message size over the views of @span. */
static void measure(const char *setup, const struct cumc_mc_span *span,
		    size_t bytes, char *src, char *dst)
{
	const struct cumc_mc_mapping *map = span->map;
	unsigned int members = map->num_members, reps = reps_for(bytes * members);
	size_t count = bytes / sizeof(float), moved = bytes * members;
	double st, cp, ld, rs, ldb, rsb;
	unsigned int m;

	st = TIME_BEST(reps, cumc_mc_broadcast(span, src, bytes));
	cp = TIME_BEST(reps, for (m = 0; m < members; m++)
			memcpy(map->views[m] + span->offset, src, bytes));
	record(setup, members, bytes, "st", st, cp, moved);

	ld = TIME_BEST(reps, cumc_mc_ld_reduce(dst, span, count, CUMC_F32,
					       CUMC_OP_ADD));
	rs = TIME_BEST(reps, read_sum(map->views, members, span->offset, count));
	record(setup, members, bytes, "ld_reduce f32", ld, rs, moved);

	ldb = TIME_BEST(reps, cumc_mc_ld_reduce(dst, span, count * 2, CUMC_BF16,
						CUMC_OP_ADD));
	rsb = TIME_BEST(reps, read_sum_bf16(map->views, members, span->offset,
					    count * 2));
	record(setup, members, bytes, "ld_reduce bf16", ldb, rsb, moved);
}

static void bench_native(size_t max_bytes, char *src, char *dst)
{
	static const unsigned int team_sizes[] = { 2, 4, 8 };
	struct cumc_mc_mapping *map;
	struct cumc_mc_span span = { 0 };
	unsigned int t, m;
	size_t bytes;

	map = calloc(1, sizeof(*map) + MAX_MEMBERS * sizeof(map->views[0]));
	if (!map)
		exit(1);
	for (m = 0; m < MAX_MEMBERS; m++) {
		map->views[m] = aligned_alloc(4096, max_bytes);
		if (!map->views[m])
			exit(1);
		memset(map->views[m], 1, max_bytes);
	}
	map->length = max_bytes;
	map->writable = 1;
	span.map = map;
	for (t = 0; t < sizeof(team_sizes) / sizeof(team_sizes[0]); t++) {
		map->num_members = team_sizes[t];
		for (bytes = 64 << 10; bytes <= max_bytes; bytes *= 16)
			measure("native", &span, bytes, src, dst);
	}
	for (m = 0; m < MAX_MEMBERS; m++)
		free(map->views[m]);
	free(map);
}

#define CHECK(call)							\
	do {								\
		CUresult res_ = (call);					\
		if (res_ != CUDA_SUCCESS) {				\
			fprintf(stderr, "%s: %d\n", #call, res_);	\
			exit(1);					\
		}							\
	} while (0)

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
	struct cumc_mc_span span;
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
	CHECK(cumc_mc_acquire(mc_va, max_bytes, &span));
	for (bytes = 64 << 10; bytes <= max_bytes; bytes *= 16)
		measure("device", &span, bytes, src, dst);
	cumc_mc_release();
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
	FILE *f = fopen(path, "w");
	unsigned int i;

	if (!f) {
		perror(path);
		return;
	}
	fprintf(f, "[\n");
	for (i = 0; i < num_results; i++)
		fprintf(f, "  {\"setup\": \"%s\", \"members\": %u, \"bytes\": %zu, "
			"\"op\": \"%s\", \"gbps\": %.3f, \"baseline_gbps\": %.3f, "
			"\"ratio\": %.3f}%s\n", results[i].setup,
			results[i].members, results[i].bytes, results[i].op,
			results[i].gbps, results[i].baseline_gbps,
			results[i].gbps / results[i].baseline_gbps,
			i + 1 < num_results ? "," : "");
	fprintf(f, "]\n");
	fclose(f);
}

int main(int argc, char **argv)
{
	static const unsigned int team_sizes[] = { 2, 4, 8 };
	size_t max_bytes = 16 << 20;
	const char *json = NULL;
	int count = 0, i;
	char *src, *dst;
	unsigned int t;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--json"))
			json = argv[i + 1];
		else if (!strcmp(argv[i], "--max-bytes"))
			max_bytes = strtoull(argv[i + 1], NULL, 0);
	}
	src = aligned_alloc(4096, max_bytes);
	dst = aligned_alloc(4096, max_bytes);
	if (!src || !dst)
		return 1;
	memset(src, 2, max_bytes);
	memset(dst, 0, max_bytes);

	printf("setup  members    bytes  op               throughput           baseline (memcpy / read-sum)\n");
	bench_native(max_bytes, src, dst);
	if (cuInit(0) == CUDA_SUCCESS && cuDeviceGetCount(&count) == CUDA_SUCCESS)
		for (t = 0; t < sizeof(team_sizes) / sizeof(team_sizes[0]); t++)
			if ((int)team_sizes[t] <= count)
				bench_device_team(team_sizes[t], max_bytes, src, dst);
	if (json)
		write_json(json);
	return 0;
}
