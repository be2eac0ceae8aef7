// SPDX-License-Identifier: MIT
/*
 * bench_va: the latency of the device address space entry points, for a
 * small (2 MiB) and a large (8 GiB) allocation side by side: cuMemCreate,
 * cuMemAddressReserve, cuMemMap, cuMemSetAccess, cuMemUnmap,
 * cuMemAddressFree and cuMemRelease.  Each figure is the median and 95th
 * percentile of many repetitions, and the median as a multiple of a null
 * system call (getppid) measured in the same run, so that runs on
 * different machines, or in the VM, compare.  Nothing is touched: these
 * are control-plane costs.  A second table times cuMemAddressReserve and
 * cuMemAddressFree alone from 2 MiB to 1 TiB (no allocation that large
 * fits a device), with a null ioctl of /dev/cumc (CUMC_QUERY: the floor
 * under every call) in the same rounds, beside the kernel's own mmap and
 * munmap of an anonymous PROT_NONE mapping of the same size in rounds of
 * their own, a block of rounds at a time.  A third times cuMemMap,
 * cuMemSetAccess and cuMemUnmap alone: one allocation mapped into one
 * reservation again and again, with nothing created or reserved between
 * (how a pool or a remapping allocator calls them).  The tables go to
 * stdout, the same figures as JSON to build/bench/bench_va.json (or the
 * path given as argument).
 *
 * Figures, never a verdict: there is no pass or fail.
 */
#include <cuda.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/cumc.h>

#include "bench_json.h"

#define REPS 500
#define WARMUP 50
#define NULL_CALLS 20000
/* Turns of the address-space table: REPS is a multiple of it. */
#define VA_BLOCKS 10
#define DEFAULT_JSON "build/bench/bench_va.json"

enum op {
	OP_CREATE,
	OP_RESERVE,
	OP_MAP,
	OP_SET_ACCESS,
	OP_UNMAP,
	OP_FREE,
	OP_RELEASE,
	NUM_OPS
};

static const char *const op_names[NUM_OPS] = {
	"cuMemCreate", "cuMemAddressReserve", "cuMemMap", "cuMemSetAccess",
	"cuMemUnmap", "cuMemAddressFree", "cuMemRelease",
};

static const struct size_case {
	const char *name;
	size_t bytes;
} sizes[] = {
	{ "2MiB", 2ULL << 20 },
	{ "8GiB", 8ULL << 30 },
};

#define NUM_SIZES (sizeof(sizes) / sizeof(sizes[0]))

/* Address space alone: reservations up to 1 TiB. */
static const struct size_case va_sizes[] = {
	{ "2MiB", 2ULL << 20 },
	{ "8GiB", 8ULL << 30 },
	{ "64GiB", 64ULL << 30 },
	{ "1TiB", 1ULL << 40 },
};

#define NUM_VA_SIZES (sizeof(va_sizes) / sizeof(va_sizes[0]))

enum va_op {
	VA_RESERVE,
	VA_FREE,
	VA_MMAP,
	VA_MUNMAP,
	VA_NULL_IOCTL,
	NUM_VA_OPS
};

static const char *const va_op_names[NUM_VA_OPS] = {
	"cuMemAddressReserve", "cuMemAddressFree",
	"baseline: mmap(anonymous)", "baseline: munmap(anonymous)",
	"baseline: ioctl(CUMC_QUERY)",
};

/*
 * A client of our own for the null ioctl: the floor of every call. Built
 * against another driver (NVIDIA's libcuda, for the figures beside cumc's
 * in Documentation/performance.md) there is no /dev/cumc, and no such row.
 */
static int cumc_fd = -1;
static int num_va_ops = NUM_VA_OPS;

struct stats {
	double median_ns;
	double p95_ns;
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void check(CUresult res, const char *what)
{
	const char *name = "?";

	if (res == CUDA_SUCCESS)
		return;
	cuGetErrorName(res, &name);
	fprintf(stderr, "bench_va: %s: %s\n", what, name);
	exit(1);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static struct stats stats_of(double *samples, size_t n)
{
	struct stats s;

	qsort(samples, n, sizeof(*samples), cmp_double);
	s.median_ns = samples[n / 2];
	s.p95_ns = samples[n * 95 / 100];
	return s;
}

/*
 * The null call, timed in turns with the address-space rounds below as
 * well as before everything: a moment of noise on the host moves the
 * unit and what it measures alike. The timer's own cost is in both.
 */
static double null_samples[NULL_CALLS];
static size_t num_null_samples;

static void time_null_calls(size_t n)
{
	double t;

	for (; n && num_null_samples < NULL_CALLS; n--) {
		t = now_ns();
		syscall(SYS_getppid);
		null_samples[num_null_samples++] = now_ns() - t;
	}
}

#define TIMED(samples, op, call) do {				\
	double __t = now_ns();					\
	CUresult __res = (call);				\
								\
	(samples)[op] = now_ns() - __t;				\
	check(__res, op_names[op]);				\
} while (0)

/* One life of an allocation, each step timed into @t. */
static void one_round(const CUmemAllocationProp *prop, size_t bytes,
		      double t[NUM_OPS])
{
	CUmemAccessDesc desc = {
		.location = prop->location,
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};
	CUmemGenericAllocationHandle handle;
	CUdeviceptr va;

	TIMED(t, OP_CREATE, cuMemCreate(&handle, bytes, prop, 0));
	TIMED(t, OP_RESERVE, cuMemAddressReserve(&va, bytes, 0, 0, 0));
	TIMED(t, OP_MAP, cuMemMap(va, bytes, 0, handle, 0));
	TIMED(t, OP_SET_ACCESS, cuMemSetAccess(va, bytes, &desc, 1));
	TIMED(t, OP_UNMAP, cuMemUnmap(va, bytes));
	TIMED(t, OP_FREE, cuMemAddressFree(va, bytes));
	TIMED(t, OP_RELEASE, cuMemRelease(handle));
}

/*
 * The sizes take turns, round after round, so that neither gains from
 * running later (warmer caches, the emulator's translated code).
 */
static void measure(const CUmemAllocationProp *prop,
		    struct stats out[NUM_SIZES][NUM_OPS])
{
	static double samples[NUM_SIZES][NUM_OPS][REPS];
	double t[NUM_OPS];
	size_t s;
	int r, op;

	for (r = 0; r < WARMUP; r++)
		for (s = 0; s < NUM_SIZES; s++)
			one_round(prop, sizes[s].bytes, t);
	for (r = 0; r < REPS; r++) {
		for (s = 0; s < NUM_SIZES; s++) {
			one_round(prop, sizes[s].bytes, t);
			for (op = 0; op < NUM_OPS; op++)
				samples[s][op][r] = t[op];
		}
	}
	for (s = 0; s < NUM_SIZES; s++)
		for (op = 0; op < NUM_OPS; op++)
			out[s][op] = stats_of(samples[s][op], REPS);
}

/* One reservation of @bytes and the null ioctl, each timed. */
static void one_reservation_round(size_t bytes, double t[NUM_VA_OPS])
{
	struct cumc_query query = { .size = sizeof(query) };
	CUdeviceptr va;
	double start;

	TIMED(t, VA_RESERVE, cuMemAddressReserve(&va, bytes, 0, 0, 0));
	TIMED(t, VA_FREE, cuMemAddressFree(va, bytes));
	if (cumc_fd < 0)
		return;
	start = now_ns();
	ioctl(cumc_fd, CUMC_QUERY, &query);
	t[VA_NULL_IOCTL] = now_ns() - start;
}

/* The kernel's own: an anonymous mapping of @bytes, each step timed. */
static void one_anonymous_round(size_t bytes, double t[NUM_VA_OPS])
{
	double start;
	void *p;

	start = now_ns();
	p = mmap(NULL, bytes, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	t[VA_MMAP] = now_ns() - start;
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	start = now_ns();
	munmap(p, bytes);
	t[VA_MUNMAP] = now_ns() - start;
}

/* Rounds [@first, @last) of @round, the sizes in turn, keeping @ops. */
static void va_rounds(void (*round)(size_t bytes, double t[NUM_VA_OPS]),
		      int first, int last, unsigned int ops,
		      double samples[NUM_VA_SIZES][NUM_VA_OPS][REPS])
{
	double t[NUM_VA_OPS];
	size_t s;
	int r, op;

	for (r = first; r < last; r++) {
		for (s = 0; s < NUM_VA_SIZES; s++) {
			round(va_sizes[s].bytes, t);
			for (op = 0; op < NUM_VA_OPS; op++)
				if (ops & 1u << op)
					samples[s][op][r] = t[op];
		}
	}
}

/*
 * The reservations and the anonymous mappings take turns a block of
 * rounds at a time, with the null call, so that all see the same host.
 * Not round by round: under TCG a call costs more the more other kernel
 * code ran just before it, and a reservation right after an mmap and
 * munmap of up to 1 TiB would be timed with that code's cost in it.
 */
static void measure_va(struct stats out[NUM_VA_SIZES][NUM_VA_OPS])
{
	static double samples[NUM_VA_SIZES][NUM_VA_OPS][REPS];
	unsigned int reservation_ops = 1u << VA_RESERVE | 1u << VA_FREE;
	unsigned int anonymous_ops = 1u << VA_MMAP | 1u << VA_MUNMAP;
	int b, first, last, op;
	size_t s;

	if (cumc_fd >= 0)
		reservation_ops |= 1u << VA_NULL_IOCTL;
	va_rounds(one_reservation_round, 0, WARMUP, 0, samples);
	va_rounds(one_anonymous_round, 0, WARMUP, 0, samples);
	for (b = 0; b < VA_BLOCKS; b++) {
		first = b * REPS / VA_BLOCKS;
		last = first + REPS / VA_BLOCKS;
		va_rounds(one_reservation_round, first, last, reservation_ops,
			  samples);
		va_rounds(one_anonymous_round, first, last, anonymous_ops,
			  samples);
		time_null_calls(NULL_CALLS / 2 / VA_BLOCKS);
	}
	for (s = 0; s < NUM_VA_SIZES; s++)
		for (op = 0; op < num_va_ops; op++)
			out[s][op] = stats_of(samples[s][op], REPS);
}

/*
 * Mapping alone: what one_round times but the create, reserve, free and
 * release. Its operations are consecutive in enum op, from OP_MAP.
 */
#define NUM_MAP_OPS (OP_UNMAP - OP_MAP + 1)

static void one_mapping_round(const CUmemAllocationProp *prop,
			      CUmemGenericAllocationHandle handle,
			      CUdeviceptr va, size_t bytes, double t[NUM_OPS])
{
	CUmemAccessDesc desc = {
		.location = prop->location,
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};

	TIMED(t, OP_MAP, cuMemMap(va, bytes, 0, handle, 0));
	TIMED(t, OP_SET_ACCESS, cuMemSetAccess(va, bytes, &desc, 1));
	TIMED(t, OP_UNMAP, cuMemUnmap(va, bytes));
}

static void measure_mapping(const CUmemAllocationProp *prop,
			    struct stats out[NUM_SIZES][NUM_MAP_OPS])
{
	static double samples[NUM_SIZES][NUM_MAP_OPS][REPS];
	CUmemGenericAllocationHandle handles[NUM_SIZES];
	CUdeviceptr vas[NUM_SIZES];
	double t[NUM_OPS];
	size_t s;
	int r, op;

	for (s = 0; s < NUM_SIZES; s++) {
		check(cuMemCreate(&handles[s], sizes[s].bytes, prop, 0),
		      "cuMemCreate");
		check(cuMemAddressReserve(&vas[s], sizes[s].bytes, 0, 0, 0),
		      "cuMemAddressReserve");
	}
	for (r = -WARMUP; r < REPS; r++) {
		for (s = 0; s < NUM_SIZES; s++) {
			one_mapping_round(prop, handles[s], vas[s],
					  sizes[s].bytes, t);
			for (op = 0; r >= 0 && op < NUM_MAP_OPS; op++)
				samples[s][op][r] = t[OP_MAP + op];
		}
	}
	for (s = 0; s < NUM_SIZES; s++) {
		check(cuMemAddressFree(vas[s], sizes[s].bytes), "cuMemAddressFree");
		check(cuMemRelease(handles[s]), "cuMemRelease");
		for (op = 0; op < NUM_MAP_OPS; op++)
			out[s][op] = stats_of(samples[s][op], REPS);
	}
}

/*
 * A table of operations timed alone: @results[s * @stride + op] for
 * size @s of @sizes and operation @op of the first @num_ops of @names.
 */
struct alone_table {
	const char *title;
	const char *json_key;
	const char *const *names;
	int num_ops;
	int stride;
	const struct size_case *sizes;
	size_t num_sizes;
	const struct stats *results;
};

static void print_alone_table(const struct alone_table *tab, struct stats null)
{
	size_t s;
	int op;

	printf("\n%s: median us / x null\n%-27s", tab->title, "operation");
	for (s = 0; s < tab->num_sizes; s++)
		printf(" | %5s us  x null", tab->sizes[s].name);
	printf("\n");
	for (op = 0; op < tab->num_ops; op++) {
		printf("%-27s", tab->names[op]);
		for (s = 0; s < tab->num_sizes; s++) {
			const struct stats *st = &tab->results[s * tab->stride + op];

			printf(" | %8.2f %7.1f", st->median_ns / 1e3,
			       st->median_ns / null.median_ns);
		}
		printf("\n");
	}
}

/* One size's figures of one operation, for the JSON file. */
static struct json_object *size_json(uint64_t bytes, struct stats st,
				     struct stats null)
{
	struct json_object *size = json_object_new_object();

	json_object_object_add(size, "bytes", json_object_new_uint64(bytes));
	json_object_object_add(size, "median_ns", bench_num("%.1f", st.median_ns));
	json_object_object_add(size, "p95_ns", bench_num("%.1f", st.p95_ns));
	json_object_object_add(size, "x_null_syscall",
			       bench_num("%.2f", st.median_ns / null.median_ns));
	return size;
}

static void alone_json(struct json_object *doc, const struct alone_table *tab,
		       struct stats null)
{
	struct json_object *rows = json_object_new_array(), *o;
	size_t s;
	int op;

	for (op = 0; op < tab->num_ops; op++) {
		o = json_object_new_object();
		json_object_object_add(o, "name",
				       json_object_new_string(tab->names[op]));
		for (s = 0; s < tab->num_sizes; s++) {
			json_object_object_add(o, tab->sizes[s].name,
					       size_json(tab->sizes[s].bytes,
							 tab->results[s * tab->stride + op],
							 null));
		}
		json_object_array_add(rows, o);
	}
	json_object_object_add(doc, tab->json_key, rows);
}

static void print_table(const struct stats results[NUM_SIZES][NUM_OPS],
			struct stats null)
{
	size_t s;
	int op;

	printf("bench_va: %d repetitions per size, device 0; null syscall (getppid) "
	       "median %.0f ns, p95 %.0f ns\n\n", REPS, null.median_ns, null.p95_ns);
	printf("%-22s", "operation");
	for (s = 0; s < NUM_SIZES; s++)
		printf(" | %5s median     p95  x null", sizes[s].name);
	printf("\n");
	for (op = 0; op < NUM_OPS; op++) {
		printf("%-22s", op_names[op]);
		for (s = 0; s < NUM_SIZES; s++)
			printf(" | %9.2f us %7.2f us %6.1f",
			       results[s][op].median_ns / 1e3,
			       results[s][op].p95_ns / 1e3,
			       results[s][op].median_ns / null.median_ns);
		printf("\n");
	}
}

static int write_json(const char *path,
		      const struct stats results[NUM_SIZES][NUM_OPS],
		      const struct alone_table *va, const struct alone_table *map,
		      struct stats null)
{
	struct json_object *doc = bench_doc_begin(NULL), *o;
	size_t s;
	int op, ret;

	json_object_object_add(doc, "repetitions", json_object_new_int(REPS));
	o = json_object_new_object();
	json_object_object_add(o, "call", json_object_new_string("getppid"));
	json_object_object_add(o, "median_ns", bench_num("%.1f", null.median_ns));
	json_object_object_add(o, "p95_ns", bench_num("%.1f", null.p95_ns));
	json_object_object_add(doc, "null_syscall", o);
	json_object_object_add(doc, "operations", bench_rows);
	for (op = 0; op < NUM_OPS; op++) {
		o = json_object_new_object();
		json_object_object_add(o, "name", json_object_new_string(op_names[op]));
		for (s = 0; s < NUM_SIZES; s++) {
			json_object_object_add(o, sizes[s].name,
					       size_json(sizes[s].bytes,
							 results[s][op], null));
		}
		json_object_array_add(bench_rows, o);
	}
	alone_json(doc, va, null);
	alone_json(doc, map, null);
	ret = bench_json_write(path, doc);
	json_object_put(doc);
	return ret;
}

int main(int argc, char **argv)
{
	static struct stats results[NUM_SIZES][NUM_OPS];
	static struct stats va_results[NUM_VA_SIZES][NUM_VA_OPS];
	static struct stats map_results[NUM_SIZES][NUM_MAP_OPS];
	const char *json = argc > 1 ? argv[1] : DEFAULT_JSON;
	struct alone_table va = {
		.title = "address space alone", .json_key = "address_space",
		.names = va_op_names, .stride = NUM_VA_OPS,
		.sizes = va_sizes, .num_sizes = NUM_VA_SIZES,
		.results = &va_results[0][0],
	};
	struct alone_table map = {
		.title = "mapping alone (one allocation, one reservation)",
		.json_key = "mapping_alone", .names = op_names + OP_MAP,
		.num_ops = NUM_MAP_OPS, .stride = NUM_MAP_OPS,
		.sizes = sizes, .num_sizes = NUM_SIZES,
		.results = &map_results[0][0],
	};
	CUmemAllocationProp prop;
	struct stats null;

	check(cuInit(0), "cuInit");
	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	time_null_calls(NULL_CALLS / 2);
	measure(&prop, results);
	cumc_fd = open("/dev/cumc", O_RDWR | O_CLOEXEC);
	if (cumc_fd < 0 && errno == ENOENT) {
		fprintf(stderr, "bench_va: no /dev/cumc: no null ioctl row\n");
		num_va_ops = VA_NULL_IOCTL;
	} else if (cumc_fd < 0) {
		perror("/dev/cumc");
		return 1;
	}
	measure_va(va_results);
	measure_mapping(&prop, map_results);
	null = stats_of(null_samples, num_null_samples);
	print_table(results, null);
	va.num_ops = num_va_ops;
	print_alone_table(&va, null);
	print_alone_table(&map, null);
	if (write_json(json, results, &va, &map, null)) {
		perror(json);
		return 1;
	}
	printf("\nJSON: %s\n", json);
	return 0;
}
