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
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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
 * A benchmark's JSON records, one per line, into bench_json once its main()
 * has opened it: JSON("\"part\": \"%s\", ...", ...) names the table each
 * record belongs to.
 */
static FILE *bench_json __attribute__((unused));
static const char *bench_json_sep __attribute__((unused)) = "";

#define JSON(fmt, ...) do {						\
	fprintf(bench_json, "%s\n    { " fmt " }", bench_json_sep,	\
		__VA_ARGS__);						\
	bench_json_sep = ",";						\
} while (0)

#endif /* CUMC_BENCH_H */
