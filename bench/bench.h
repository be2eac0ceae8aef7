/* SPDX-License-Identifier: MIT */
/*
 * What the control-path benchmarks share: a monotonic clock, order
 * statistics of samples, the null system call every figure is divided by,
 * and a check that ends the run on the first failed call (a benchmark that
 * went on after a failure would time error paths).
 */
#ifndef CUMC_BENCH_H
#define CUMC_BENCH_H

#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench_json.h"

struct stats {
	double median_ns;
	double p95_ns;
};

static inline double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static inline void bench_check(CUresult res, const char *what)
{
	const char *name = "?";

	if (res == CUDA_SUCCESS)
		return;
	cuGetErrorName(res, &name);
	fprintf(stderr, "%s: %s\n", what, name);
	exit(1);
}

#define CHECK(call) bench_check((call), #call)

/* The null system call every figure is divided by, as "null_syscall". */
static inline void bench_doc_null_syscall(struct json_object *doc,
					  struct stats null)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "call", json_object_new_string("getppid"));
	json_object_object_add(o, "median_ns", bench_num("%.1f", null.median_ns));
	json_object_object_add(o, "p95_ns", bench_num("%.1f", null.p95_ns));
	json_object_object_add(doc, "null_syscall", o);
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts @samples in place. */
static inline struct stats stats_of(double *samples, size_t n)
{
	struct stats s;

	qsort(samples, n, sizeof(*samples), cmp_double);
	s.median_ns = samples[n / 2];
	s.p95_ns = samples[n * 95 / 100];
	return s;
}

/*
 * getppid: a system call that does nothing. The clock reads are inside
 * the sample, as they are in every operation's sample.
 */
static inline struct stats null_syscall(void)
{
	enum { CALLS = 20000 };
	static double samples[CALLS];
	double t;
	size_t i;

	for (i = 0; i < CALLS; i++) {
		t = now_ns();
		syscall(SYS_getppid);
		samples[i] = now_ns() - t;
	}
	return stats_of(samples, CALLS);
}

/*
 * The allocation sizes the control-path benchmarks time every call at: a
 * huge page, a large tensor, and a size that shows whether a cost grows
 * with it.
 */
static const struct size_case {
	const char *name;
	size_t bytes;
} control_sizes[] __attribute__((unused)) = {
	{ "2MiB", 2ULL << 20 },
	{ "512MiB", 512ULL << 20 },
	{ "8GiB", 8ULL << 30 },
};

#define NUM_CONTROL_SIZES (sizeof(control_sizes) / sizeof(control_sizes[0]))

/* The control-path benchmarks' options: [--json FILE] [--reps N]. */
static inline void control_args(int argc, char **argv, const char **json,
				int *reps)
{
	int i;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--json"))
			*json = argv[i + 1];
		else if (!strcmp(argv[i], "--reps"))
			*reps = atoi(argv[i + 1]);
	}
	if (*reps < 1)
		*reps = 1;
}

/*
 * Time @call into @t[@op], ending the run if it failed; op_names[] is the
 * including benchmark's.
 */
#define TIMED(t, op, call) do {					\
	double t0_ = now_ns();					\
	CUresult res_ = (call);					\
								\
	(t)[op] = now_ns() - t0_;				\
	bench_check(res_, op_names[op]);			\
} while (0)

#endif /* CUMC_BENCH_H */
