// SPDX-License-Identifier: MIT
/*
 * The multimem all-reduce kernel against the CPU calls (issue 36;
 * Documentation/performance.md, "The kernel against the calls"): a team
 * of --members simulated GPUs in this process, one multicast object over
 * their memory, and the same f32 message all-reduced two ways, in turns:
 *
 *   calls   a host thread per rank, each reducing its slice of the message
 *           with cumcMultimemLdReduce and storing it to every member with
 *           cumcMultimemSt, 64 KiB a call (as cumc-allreduce does);
 *   kernel  the one-shot kernel of cumc-allreduce --kernel
 *           (tools/allreduce_kernel.ptx, allreduce_f32: multimem.ld_reduce.v4
 *           and multimem.st.v4 over a slice per block, a signal-pad barrier
 *           before and after), launched on every rank's GPU from one thread,
 *           then each context synchronized.
 *
 * Each run starts from the same member contents and ends verified, every
 * element of every member against the sum computed here; a mismatch ends
 * the benchmark.  The figure is the kernel's speed as a fraction of the
 * calls' (calls time / kernel time, medians).  Inside the VM (multicast
 * needs /dev/cumc).  Never fails on speed.
 *
 * bench_mm_kernel [--json FILE] [--reps N] [--members N] [--bytes N[K|M|G]]
 *                 [--only calls|kernel]
 * --only times one side alone (for a profiler); it prints no ratio.
 */
#include <pthread.h>
#include <stdint.h>

#include "bench.h"
#include <cumc.h>

/* The grid of cumc-allreduce --kernel; its signal pad, a counter a block. */
#define KERNEL_BLOCKS 8
#define KERNEL_THREADS 128
#define PAD_BYTES (KERNEL_BLOCKS * sizeof(unsigned int))
#define CHUNK_BYTES (64 << 10)
#define MAX_MEMBERS 8

extern const char cumc_allreduce_ptx[];

struct rank {
	int id;
	CUdevice dev;
	CUcontext ctx;
	CUmemGenericAllocationHandle mem;
	CUdeviceptr uc_va;	/* this member's memory, for this device */
	CUfunction kernel;
	unsigned int signals;	/* what each pad counter holds */
};

static struct {
	int n;
	size_t bytes, size;	/* the message; what each member binds */
	CUmemGenericAllocationHandle mc;
	CUdeviceptr mc_va;
	struct rank ranks[MAX_MEMBERS];
	float *sum;		/* the all-reduce's answer */
} team;

static CUdeviceptr map(CUmemGenericAllocationHandle h, const CUdevice *devs,
		       int ndevs)
{
	CUmemAccessDesc desc[MAX_MEMBERS];
	CUdeviceptr va;
	int i;

	for (i = 0; i < ndevs; i++) {
		desc[i].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		desc[i].location.id = devs[i];
		desc[i].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	}
	CHECK(cuMemAddressReserve(&va, team.size, 0, 0, 0));
	CHECK(cuMemMap(va, team.size, 0, h, 0));
	CHECK(cuMemSetAccess(va, team.size, desc, ndevs));
	return va;
}

static void setup(void)
{
	CUmulticastObjectProp mp = { .numDevices = team.n };
	CUdevice devs[MAX_MEMBERS];
	size_t gran;
	int i;

	CHECK(cuInit(0));
	CHECK(cuMulticastGetGranularity(&gran, &mp,
					CU_MULTICAST_GRANULARITY_RECOMMENDED));
	team.size = (team.bytes + PAD_BYTES + gran - 1) / gran * gran;
	mp.size = team.size;
	CHECK(cuMulticastCreate(&team.mc, &mp));
	for (i = 0; i < team.n; i++) {
		struct rank *r = &team.ranks[i];
		CUmemAllocationProp prop = {
			.type = CU_MEM_ALLOCATION_TYPE_PINNED,
			.location = { CU_MEM_LOCATION_TYPE_DEVICE, i },
		};

		r->id = i;
		CHECK(cuDeviceGet(&r->dev, i));
		devs[i] = r->dev;
		CHECK(cuDevicePrimaryCtxRetain(&r->ctx, r->dev));
		CHECK(cuCtxSetCurrent(r->ctx));
		CHECK(cuMulticastAddDevice(team.mc, r->dev));
		CHECK(cuMemCreate(&r->mem, team.size, &prop, 0));
	}
	for (i = 0; i < team.n; i++) {
		struct rank *r = &team.ranks[i];
		CUmodule mod;

		CHECK(cuMulticastBindMem(team.mc, 0, r->mem, 0, team.size, 0));
		r->uc_va = map(r->mem, &r->dev, 1);
		CHECK(cuCtxSetCurrent(r->ctx));
		CHECK(cuModuleLoadData(&mod, cumc_allreduce_ptx));
		CHECK(cuModuleGetFunction(&r->kernel, mod, "allreduce_f32"));
	}
	team.mc_va = map(team.mc, devs, team.n);
}

/* Small integers, so that every order of the sums is exact. */
static float value(int member, size_t i)
{
	return (float)((int)((i * 7 + member * 13) % 61) - 30);
}

static void fill(void)
{
	size_t words = team.bytes / 4, i;
	int m;

	for (m = 0; m < team.n; m++) {
		float *p = (float *)(uintptr_t)team.ranks[m].uc_va;

		for (i = 0; i < words; i++)
			p[i] = value(m, i);
	}
}

static void verify(const char *how)
{
	size_t words = team.bytes / 4, i;
	int m;

	for (m = 0; m < team.n; m++) {
		const float *p = (const float *)(uintptr_t)team.ranks[m].uc_va;

		for (i = 0; i < words; i++)
			if (p[i] != team.sum[i]) {
				fprintf(stderr, "%s: member %d word %zu is %g, not %g\n",
					how, m, i, p[i], team.sum[i]);
				exit(1);
			}
	}
}

static void *calls_rank(void *arg)
{
	static char tmp[MAX_MEMBERS][CHUNK_BYTES];
	struct rank *r = arg;
	size_t words = team.bytes / 4, per = CHUNK_BYTES / 4, len;
	size_t lo = words * r->id / team.n, hi = words * (r->id + 1) / team.n;
	size_t i;

	CHECK(cuCtxSetCurrent(r->ctx));
	for (i = lo; i < hi; i += len) {
		CUdeviceptr at = team.mc_va + i * 4;

		len = hi - i < per ? hi - i : per;
		CHECK(cumcMultimemLdReduce(tmp[r->id], at, len, CUMC_F32,
					   CUMC_OP_ADD));
		CHECK(cumcMultimemSt(at, tmp[r->id], len * 4));
	}
	return NULL;
}

static double run_calls(void)
{
	pthread_t tids[MAX_MEMBERS];
	double t;
	int i;

	t = now_ns();
	for (i = 0; i < team.n; i++)
		if (pthread_create(&tids[i], NULL, calls_rank, &team.ranks[i])) {
			fprintf(stderr, "pthread_create failed\n");
			exit(1);
		}
	for (i = 0; i < team.n; i++)
		pthread_join(tids[i], NULL);
	return now_ns() - t;
}

static double run_kernel(void)
{
	CUdeviceptr mc_pad = team.mc_va + team.bytes;
	unsigned long long words = team.bytes / 4;
	double t;
	int i;

	t = now_ns();
	for (i = 0; i < team.n; i++) {
		struct rank *r = &team.ranks[i];
		CUdeviceptr pad = r->uc_va + team.bytes;
		void *params[] = { &team.mc_va, &mc_pad, &pad, &words, &r->id,
				   &team.n, &r->signals };

		CHECK(cuCtxSetCurrent(r->ctx));
		CHECK(cuLaunchKernel(r->kernel, KERNEL_BLOCKS, 1, 1,
				     KERNEL_THREADS, 1, 1, 0, NULL, params,
				     NULL));
	}
	for (i = 0; i < team.n; i++) {
		CHECK(cuCtxSetCurrent(team.ranks[i].ctx));
		CHECK(cuCtxSynchronize());
		team.ranks[i].signals += 2 * team.n;
	}
	return now_ns() - t;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* N, NK, NM or NG (powers of 1024); 0 for anything else. */
static size_t size_arg(const char *s)
{
	const char *units = "KMG";
	char *end;
	unsigned long long n = strtoull(s, &end, 0);
	const char *u = *end ? strchr(units, *end) : NULL;

	if (end == s || (*end && (!u || end[1])))
		return 0;
	return u ? n << (10 * (u - units + 1)) : n;
}

/* --only: 1 the calls, 2 the kernel; 0 both. */
static int only;

static void args(int argc, char **argv, const char **json, int *reps)
{
	int i;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--json"))
			*json = argv[i + 1];
		else if (!strcmp(argv[i], "--reps"))
			*reps = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--members"))
			team.n = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--bytes"))
			team.bytes = size_arg(argv[i + 1]);
		else if (!strcmp(argv[i], "--only"))
			only = !strcmp(argv[i + 1], "calls") ? 1 :
			       !strcmp(argv[i + 1], "kernel") ? 2 : -1;
		else
			break;
	}
	if (i != argc || *reps < 1 || team.n < 1 || team.n > MAX_MEMBERS ||
	    !team.bytes || team.bytes % 16 || only < 0) {
		fprintf(stderr, "usage: bench_mm_kernel [--json FILE] [--reps N] "
			"[--members 1..%d] [--bytes N[K|M|G], a multiple of 16] "
			"[--only calls|kernel]\n", MAX_MEMBERS);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	const char *json = "build/bench/bench_mm_kernel.json";
	double *calls, *kernel, c, k;
	struct json_object *doc;
	size_t i;
	int reps = 5, r, m;

	team.n = 4;
	team.bytes = 1 << 20;
	args(argc, argv, &json, &reps);
	setup();
	team.sum = calloc(team.bytes / 4, sizeof(float));
	calls = calloc(reps, sizeof(double));
	kernel = calloc(reps, sizeof(double));
	if (!team.sum || !calls || !kernel) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	for (i = 0; i < team.bytes / 4; i++)
		for (m = 0; m < team.n; m++)
			team.sum[i] += value(m, i);

	/* A first run of each, untimed: the views learnt, every page touched. */
	for (r = -1; r < reps; r++) {
		if (only != 2) {
			fill();
			c = run_calls();
			verify("calls");
			if (r >= 0)
				calls[r] = c;
		}
		if (only != 1) {
			fill();
			k = run_kernel();
			verify("kernel");
			if (r >= 0)
				kernel[r] = k;
		}
	}
	c = median(calls, reps);
	k = median(kernel, reps);
	if (only) {
		printf("bench_mm_kernel: %s alone, %d members, %zu bytes: "
		       "%.3f ms, median of %d\n", only == 1 ? "calls" : "kernel",
		       team.n, team.bytes, (only == 1 ? c : k) / 1e6, reps);
		return 0;
	}

	printf("bench_mm_kernel: %d members, %zu bytes of f32, median of %d\n\n",
	       team.n, team.bytes, reps);
	printf("%-40s %12.3f ms\n", "cumcMultimemLdReduce + St, per rank",
	       c / 1e6);
	printf("%-40s %12.3f ms\n", "one-shot kernel (8 x 128 threads)", k / 1e6);
	printf("%-40s %12.4f\n", "kernel's speed, fraction of the calls'",
	       c / k);

	doc = bench_doc_begin(NULL);
	json_object_object_add(doc, "rounds", json_object_new_int(reps));
	json_object_object_add(doc, "results", bench_rows);
	JSON("\"members\": %d, \"bytes\": %zu, \"calls_ns\": %.0f, "
	     "\"kernel_ns\": %.0f, \"kernel_x_calls\": %.4f", team.n,
	     team.bytes, c, k, c / k);
	return bench_doc_end(json, doc);
}
