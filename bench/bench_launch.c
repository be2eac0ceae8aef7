// SPDX-License-Identifier: MIT
/*
 * bench_launch: what launching a kernel costs, in null system calls, on
 * whatever driver libcuda.so.1 is (libcumc in the VM; NVIDIA's on a
 * machine with a GPU, the same source built against the toolkit's cuda.h,
 * so that the two multiples can stand side by side).  An empty kernel
 * (one block of one thread, no parameters) launched and then synchronized
 * on a created non-blocking stream and on the legacy stream, and the
 * launch alone on a stream kept busy by the earlier ones (the queuing
 * cost the caller sees), beside the null system call measured in the same
 * run.
 *
 * bench_launch [--json FILE] [--reps N]
 * Figures, never a verdict.
 */
#include <cuda.h>

#include "bench.h"

#define WARMUP 200
/* Launches queued per sample of the launch alone, then one synchronize. */
#define QUEUED 16

enum op {
	OP_LAUNCH_SYNC,
	OP_LAUNCH_SYNC_LEGACY,
	OP_LAUNCH_QUEUED,
	NUM_OPS
};

static const char *const op_names[NUM_OPS] = {
	"empty kernel + cuStreamSynchronize",
	"empty kernel + cuStreamSynchronize (legacy)",
	"empty kernel, launch only (queued)",
};

static const char empty_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry empty()\n{\n\tret;\n}\n";

static void launch(CUfunction f, CUstream s)
{
	CHECK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
}

static void one_round(CUfunction f, CUstream s, double t[NUM_OPS])
{
	double t0, sum = 0;
	int i;

	t0 = now_ns();
	launch(f, s);
	CHECK(cuStreamSynchronize(s));
	t[OP_LAUNCH_SYNC] = now_ns() - t0;
	t0 = now_ns();
	launch(f, NULL);
	CHECK(cuStreamSynchronize(NULL));
	t[OP_LAUNCH_SYNC_LEGACY] = now_ns() - t0;
	for (i = 0; i < QUEUED; i++) {
		t0 = now_ns();
		launch(f, s);
		sum += now_ns() - t0;
	}
	t[OP_LAUNCH_QUEUED] = sum / QUEUED;
	CHECK(cuStreamSynchronize(s));
}

static void measure(int reps, struct stats out[NUM_OPS])
{
	double *samples = calloc((size_t)NUM_OPS * reps, sizeof(double));
	double t[NUM_OPS];
	CUcontext ctx;
	CUmodule mod;
	CUfunction f;
	CUstream s;
	int r, op;

	if (!samples)
		exit(1);
	CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
	CHECK(cuCtxSetCurrent(ctx));
	CHECK(cuModuleLoadData(&mod, empty_ptx));
	CHECK(cuModuleGetFunction(&f, mod, "empty"));
	CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	for (r = 0; r < WARMUP; r++)
		one_round(f, s, t);
	for (r = 0; r < reps; r++) {
		one_round(f, s, t);
		for (op = 0; op < NUM_OPS; op++)
			samples[op * reps + r] = t[op];
	}
	for (op = 0; op < NUM_OPS; op++)
		out[op] = stats_of(&samples[op * reps], reps);
	CHECK(cuStreamDestroy(s));
	CHECK(cuModuleUnload(mod));
	CHECK(cuDevicePrimaryCtxRelease(0));
	free(samples);
}

int main(int argc, char **argv)
{
	const char *json = "build/bench/bench_launch.json";
	struct stats res[NUM_OPS], null;
	struct json_object *doc;
	char driver[96] = "?";
	int reps = 2000, version = 0, op;
	CUdevice dev;

	control_args(argc, argv, &json, &reps);
	CHECK(cuInit(0));
	CHECK(cuDriverGetVersion(&version));
	CHECK(cuDeviceGet(&dev, 0));
	CHECK(cuDeviceGetName(driver, sizeof(driver), dev));
	null = null_syscall();
	measure(reps, res);
	printf("bench_launch: %d rounds, %s, CUDA %d.%d; null syscall (getppid) "
	       "median %.0f ns, p95 %.0f ns\n\n", reps, driver, version / 1000,
	       version % 1000 / 10, null.median_ns, null.p95_ns);
	printf("%-46s | %9s %9s %8s\n", "operation", "median us", "p95 us",
	       "x null");
	for (op = 0; op < NUM_OPS; op++)
		printf("%-46s | %9.2f %9.2f %8.1f\n", op_names[op],
		       res[op].median_ns / 1e3, res[op].p95_ns / 1e3,
		       res[op].median_ns / null.median_ns);
	doc = bench_doc_begin(NULL);
	json_object_object_add(doc, "rounds", json_object_new_int(reps));
	json_object_object_add(doc, "device", json_object_new_string(driver));
	json_object_object_add(doc, "driver_version",
			       json_object_new_int(version));
	bench_doc_null_syscall(doc, null);
	json_object_object_add(doc, "results", bench_rows);
	for (op = 0; op < NUM_OPS; op++)
		JSON("\"op\": \"%s\", \"median_ns\": %.1f, \"p95_ns\": %.1f, "
		     "\"x_null_syscall\": %.2f", op_names[op], res[op].median_ns,
		     res[op].p95_ns, res[op].median_ns / null.median_ns);
	return bench_doc_end(json, doc);
}
