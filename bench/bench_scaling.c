// SPDX-License-Identifier: MIT
/*
 * bench_scaling: how control-path costs grow, and the kernel memory they
 * hold.  Each part prints a table and adds to one JSON file:
 *
 *  teams   cuMulticastAddDevice, cuMulticastBindMem, cuMemMap,
 *          cuMemUnmap and cuMulticastUnbind of a 2 MiB object against the
 *          team size, 2 up to every device (72 for an NVL72 rack);
 *  many    create, add, bind, unbind and release per object with thousands
 *          of multicast objects alive in one process;
 *  huge    one 1 TiB object, mostly unbound: map, set access and unmap it;
 *          the cost of one bind against the granules it binds (with a
 *          least-squares line), and of a one-granule bind against the
 *          bindings already there;
 *  procs   processes mapping and unmapping at once: total throughput;
 *  memory  kernel memory (/proc/meminfo Slab + PageTables) per multicast
 *          object, per binding, per mapping and per mapped granule.
 *
 * bench_scaling [--json FILE] [PART...]   (no part: all of them)
 * Every figure also as a multiple of a null system call of the same run.
 * Figures, never a verdict.
 */
#include <cuda.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>

#include "bench.h"

#define GRAN (2ULL << 20)
#define MAX_TEAM 128
#define MANY_MAX 4096

static struct stats null;

static double xnull(double ns)
{
	return ns / null.median_ns;
}

static CUmemGenericAllocationHandle new_mem(int dev, size_t bytes)
{
	CUmemAllocationProp prop = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED,
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, dev },
	};
	CUmemGenericAllocationHandle h;

	CHECK(cuMemCreate(&h, bytes, &prop, 0));
	return h;
}

static CUmemGenericAllocationHandle new_mc(unsigned int team, size_t bytes)
{
	CUmulticastObjectProp prop = { .numDevices = team, .size = bytes };
	CUmemGenericAllocationHandle h;

	CHECK(cuMulticastCreate(&h, &prop));
	return h;
}

static void set_access(CUdeviceptr va, size_t bytes)
{
	CUmemAccessDesc desc = {
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 },
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};

	CHECK(cuMemSetAccess(va, bytes, &desc, 1));
}

/* The median of @n timings, each the mean per call of one batch. */
static double median_of(double *v, size_t n)
{
	return stats_of(v, n).median_ns;
}

/* ---- teams ---- */

#define TEAM_REPS 5

static void part_teams(int num_devices)
{
	static const unsigned int sizes[] = { 2, 4, 8, 16, 32, 48, 64, 72, 128 };
	static CUmemGenericAllocationHandle mem[MAX_TEAM];
	double add[TEAM_REPS], bind[TEAM_REPS], map[TEAM_REPS];
	double unmap[TEAM_REPS], unbind[TEAM_REPS];
	double a, b, mp, u, ub, t;
	CUmemGenericAllocationHandle mc;
	unsigned int s, n, m;
	CUdeviceptr va;
	int r;

	printf("\nteams: a 2 MiB object, every member bound (median of %d; us per call, x null)\n",
	       TEAM_REPS);
	printf("%5s | %-15s | %-15s | %-15s | %-15s | %-15s\n", "team",
	       "AddDevice", "BindMem", "cuMemMap", "cuMemUnmap", "Unbind");
	for (m = 0; m < MAX_TEAM && (int)m < num_devices; m++)
		mem[m] = new_mem(m, GRAN);
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		n = sizes[s];
		if ((int)n > num_devices)
			break;
		for (r = 0; r < TEAM_REPS; r++) {
			mc = new_mc(n, GRAN);
			t = now_ns();
			for (m = 0; m < n; m++)
				CHECK(cuMulticastAddDevice(mc, m));
			add[r] = (now_ns() - t) / n;
			t = now_ns();
			for (m = 0; m < n; m++)
				CHECK(cuMulticastBindMem(mc, 0, mem[m], 0, GRAN, 0));
			bind[r] = (now_ns() - t) / n;
			CHECK(cuMemAddressReserve(&va, GRAN, 0, 0, 0));
			t = now_ns();
			CHECK(cuMemMap(va, GRAN, 0, mc, 0));
			map[r] = now_ns() - t;
			set_access(va, GRAN);
			t = now_ns();
			CHECK(cuMemUnmap(va, GRAN));
			unmap[r] = now_ns() - t;
			CHECK(cuMemAddressFree(va, GRAN));
			t = now_ns();
			for (m = 0; m < n; m++)
				CHECK(cuMulticastUnbind(mc, m, 0, GRAN));
			unbind[r] = (now_ns() - t) / n;
			CHECK(cuMemRelease(mc));
		}
		a = median_of(add, TEAM_REPS);
		b = median_of(bind, TEAM_REPS);
		mp = median_of(map, TEAM_REPS);
		u = median_of(unmap, TEAM_REPS);
		ub = median_of(unbind, TEAM_REPS);
		printf("%5u | %7.1f %7.1f | %7.1f %7.1f | %7.1f %7.1f | %7.1f %7.1f | %7.1f %7.1f\n",
		       n, a / 1e3, xnull(a), b / 1e3, xnull(b), mp / 1e3, xnull(mp),
		       u / 1e3, xnull(u), ub / 1e3, xnull(ub));
		JSON("\"part\": \"teams\", \"team\": %u, \"add_device_ns\": %.0f, "
		     "\"bind_ns\": %.0f, \"map_ns\": %.0f, \"unmap_ns\": %.0f, "
		     "\"unbind_ns\": %.0f", n, a, b, mp, u, ub);
	}
	for (m = 0; m < MAX_TEAM && (int)m < num_devices; m++)
		CHECK(cuMemRelease(mem[m]));
}

/* ---- many ---- */

static void part_many(void)
{
	static const unsigned int counts[] = { 64, 512, 4096 };
	static CUmemGenericAllocationHandle mc[MANY_MAX], mem[MANY_MAX];
	double create, add, bind, unbind, release, t;
	unsigned int c, n, i;

	printf("\nmany: N multicast objects alive in one process (team of 1, 2 MiB; "
	       "mean us per call, x null)\n");
	printf("%5s | %-13s | %-13s | %-13s | %-13s | %-13s\n", "N", "Create",
	       "AddDevice", "BindMem", "Unbind", "Release");
	for (i = 0; i < MANY_MAX; i++)
		mem[i] = new_mem(0, GRAN);
	for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		n = counts[c];
		t = now_ns();
		for (i = 0; i < n; i++)
			mc[i] = new_mc(1, GRAN);
		create = (now_ns() - t) / n;
		t = now_ns();
		for (i = 0; i < n; i++)
			CHECK(cuMulticastAddDevice(mc[i], 0));
		add = (now_ns() - t) / n;
		t = now_ns();
		for (i = 0; i < n; i++)
			CHECK(cuMulticastBindMem(mc[i], 0, mem[i], 0, GRAN, 0));
		bind = (now_ns() - t) / n;
		t = now_ns();
		for (i = 0; i < n; i++)
			CHECK(cuMulticastUnbind(mc[i], 0, 0, GRAN));
		unbind = (now_ns() - t) / n;
		t = now_ns();
		for (i = 0; i < n; i++)
			CHECK(cuMemRelease(mc[i]));
		release = (now_ns() - t) / n;
		printf("%5u | %6.1f %6.1f | %6.1f %6.1f | %6.1f %6.1f | %6.1f %6.1f | %6.1f %6.1f\n",
		       n, create / 1e3, xnull(create), add / 1e3, xnull(add),
		       bind / 1e3, xnull(bind), unbind / 1e3, xnull(unbind),
		       release / 1e3, xnull(release));
		JSON("\"part\": \"many\", \"objects\": %u, \"create_ns\": %.0f, "
		     "\"add_device_ns\": %.0f, \"bind_ns\": %.0f, \"unbind_ns\": %.0f, "
		     "\"release_ns\": %.0f", n, create, add, bind, unbind, release);
	}
	for (i = 0; i < MANY_MAX; i++)
		CHECK(cuMemRelease(mem[i]));
}

/* ---- huge ---- */

#define HUGE_BYTES (1ULL << 40)
#define FIT_REPS 15
#define SPREAD_BINDS 1024

/* Least squares y = a + b x. */
static void fit(const double *x, const double *y, int n, double *a, double *b)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	int i;

	for (i = 0; i < n; i++) {
		sx += x[i];
		sy += y[i];
		sxx += x[i] * x[i];
		sxy += x[i] * y[i];
	}
	*b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
	*a = (sy - *b * sx) / n;
}

/*
 * Median cost of mapping a multicast object of @bytes with a team of two,
 * giving device 0 access, and unmapping it: @t[0..2] in ns.
 */
static void map_cycle(size_t bytes, double t[3])
{
	double tm[FIT_REPS], ta[FIT_REPS], tu[FIT_REPS], t0;
	CUmemGenericAllocationHandle mc = new_mc(2, bytes);
	CUdeviceptr va;
	int r;

	CHECK(cuMulticastAddDevice(mc, 0));
	CHECK(cuMulticastAddDevice(mc, 1));
	CHECK(cuMemAddressReserve(&va, bytes, 0, 0, 0));
	for (r = 0; r < FIT_REPS; r++) {
		t0 = now_ns();
		CHECK(cuMemMap(va, bytes, 0, mc, 0));
		tm[r] = now_ns() - t0;
		t0 = now_ns();
		set_access(va, bytes);
		ta[r] = now_ns() - t0;
		t0 = now_ns();
		CHECK(cuMemUnmap(va, bytes));
		tu[r] = now_ns() - t0;
	}
	t[0] = median_of(tm, FIT_REPS);
	t[1] = median_of(ta, FIT_REPS);
	t[2] = median_of(tu, FIT_REPS);
	CHECK(cuMemAddressFree(va, bytes));
	CHECK(cuMemRelease(mc));
}

/* Map, set access and unmap of 1 TiB against the same of 2 MiB, this run. */
static void huge_map_cycle(void)
{
	static const char *const ops[] = { "cuMemMap", "cuMemSetAccess",
					   "cuMemUnmap" };
	double small[3], huge[3];
	int i;

	map_cycle(GRAN, small);
	map_cycle(HUGE_BYTES, huge);
	printf("%-15s | %-17s | %-17s | 1TiB/2MiB (median of %d, team of 2)\n",
	       "", "2 MiB us  x null", "1 TiB us  x null", FIT_REPS);
	for (i = 0; i < 3; i++) {
		printf("%-15s | %8.1f %8.1f | %8.1f %8.1f | %6.2f\n", ops[i],
		       small[i] / 1e3, xnull(small[i]), huge[i] / 1e3,
		       xnull(huge[i]), huge[i] / small[i]);
		JSON("\"part\": \"huge_map\", \"op\": \"%s\", \"small_ns\": %.0f, "
		     "\"huge_ns\": %.0f, \"huge_x_null\": %.2f, \"ratio\": %.3f",
		     ops[i], small[i], huge[i], xnull(huge[i]),
		     huge[i] / small[i]);
	}
}

static void part_huge(void)
{
	static const unsigned int granules[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256, 512 };
	enum { NG = sizeof(granules) / sizeof(granules[0]) };
	double x[NG], bind[NG], unbind[NG], tb[FIT_REPS], tu[FIT_REPS];
	double a, b, t;
	CUmemGenericAllocationHandle mc, mem, spread;
	unsigned int g, i, start = 0;
	CUdeviceptr va;
	int r;

	printf("\nhuge: one 1 TiB multicast object, team of 2, mostly unbound\n");
	huge_map_cycle();
	mc = new_mc(2, HUGE_BYTES);
	CHECK(cuMulticastAddDevice(mc, 0));
	CHECK(cuMulticastAddDevice(mc, 1));
	CHECK(cuMemAddressReserve(&va, HUGE_BYTES, 0, 0, 0));
	CHECK(cuMemMap(va, HUGE_BYTES, 0, mc, 0));
	set_access(va, HUGE_BYTES);

	mem = new_mem(0, (size_t)granules[NG - 1] * GRAN);
	for (g = 0; g < NG; g++) {
		size_t bytes = (size_t)granules[g] * GRAN;
		/* Far into the object: the bind does not sit at its start. */
		size_t off = HUGE_BYTES / 2;

		for (r = 0; r < FIT_REPS; r++) {
			t = now_ns();
			CHECK(cuMulticastBindMem(mc, off, mem, 0, bytes, 0));
			tb[r] = now_ns() - t;
			t = now_ns();
			CHECK(cuMulticastUnbind(mc, 0, off, bytes));
			tu[r] = now_ns() - t;
		}
		x[g] = granules[g];
		bind[g] = median_of(tb, FIT_REPS);
		unbind[g] = median_of(tu, FIT_REPS);
	}
	printf("%9s | %-17s | %-17s\n", "granules", "BindMem us  x null",
	       "Unbind us  x null");
	for (g = 0; g < NG; g++)
		printf("%9u | %8.1f %8.1f | %8.1f %8.1f\n", granules[g],
		       bind[g] / 1e3, xnull(bind[g]), unbind[g] / 1e3,
		       xnull(unbind[g]));
	fit(x, bind, NG, &a, &b);
	printf("bind cost is linear in bound granules, %+.4f us each (%+.4f x null "
	       "per granule), plus %.1f us\n", b / 1e3, xnull(b), a / 1e3);
	JSON("\"part\": \"huge_bind_fit\", \"op\": \"bind\", \"intercept_ns\": %.0f, "
	     "\"per_granule_ns\": %.1f, \"per_granule_x_null\": %.3f", a, b, xnull(b));
	fit(x, unbind, NG, &a, &b);
	printf("unbind cost is linear in bound granules, %+.4f us each (%+.4f x null "
	       "per granule), plus %.1f us\n", b / 1e3, xnull(b), a / 1e3);
	JSON("\"part\": \"huge_bind_fit\", \"op\": \"unbind\", \"intercept_ns\": %.0f, "
	     "\"per_granule_ns\": %.1f, \"per_granule_x_null\": %.3f", a, b, xnull(b));
	for (g = 0; g < NG; g++)
		JSON("\"part\": \"huge_bind\", \"granules\": %u, \"bind_ns\": %.0f, "
		     "\"unbind_ns\": %.0f", granules[g], bind[g], unbind[g]);
	CHECK(cuMemRelease(mem));

	/*
	 * Bindings already there: one granule bound at a time, spread over
	 * the object, each from its own granule of one allocation. The mean
	 * of each doubling [n, 2n) smooths out single slow calls.
	 */
	spread = new_mem(0, SPREAD_BINDS * GRAN);
	printf("%9s | %-17s\n", "bindings", "BindMem us  x null (mean over [n, 2n))");
	t = now_ns();
	for (i = 0; i < SPREAD_BINDS; i++) {
		size_t off = (size_t)i * (HUGE_BYTES / SPREAD_BINDS);

		CHECK(cuMulticastBindMem(mc, off, spread, (size_t)i * GRAN, GRAN, 0));
		if (((i + 1) & i) == 0) {
			double mean = (now_ns() - t) / (i + 1 - start);

			printf("%9u | %8.1f %8.1f\n", start, mean / 1e3,
			       xnull(mean));
			JSON("\"part\": \"huge_spread\", \"bindings\": %u, "
			     "\"bind_ns\": %.0f", start, mean);
			start = i + 1;
			t = now_ns();
		}
	}
	for (i = 0; i < SPREAD_BINDS; i++)
		CHECK(cuMulticastUnbind(mc, 0, (size_t)i * (HUGE_BYTES / SPREAD_BINDS),
					GRAN));
	CHECK(cuMemRelease(spread));

	CHECK(cuMemUnmap(va, HUGE_BYTES));
	CHECK(cuMemAddressFree(va, HUGE_BYTES));
	CHECK(cuMemRelease(mc));
}

/* ---- procs ---- */

#define PROC_LOOPS 2000

/* A child: get ready, wait for the start, loop, say it is done. */
static void proc_child(int ready, int go, int done)
{
	CUmemGenericAllocationHandle mem;
	CUdeviceptr va;
	char c = 0;
	int i;

	CHECK(cuInit(0));
	mem = new_mem(0, GRAN);
	CHECK(cuMemAddressReserve(&va, GRAN, 0, 0, 0));
	if (write(ready, &c, 1) != 1 || read(go, &c, 1) < 0)
		_exit(1);
	for (i = 0; i < PROC_LOOPS; i++) {
		CHECK(cuMemMap(va, GRAN, 0, mem, 0));
		CHECK(cuMemUnmap(va, GRAN));
	}
	if (write(done, &c, 1) != 1)
		_exit(1);
	_exit(0);
}

static void part_procs(void)
{
	static const int nprocs[] = { 1, 2, 4, 8 };
	int ready[2], go[2], done[2], p, i, status;
	double t, rate, one = 0;
	char c;

	printf("\nprocs: P processes, each %d cuMemMap + cuMemUnmap pairs of 2 MiB "
	       "(%ld CPUs online)\n", PROC_LOOPS, sysconf(_SC_NPROCESSORS_ONLN));
	printf("%5s | %14s | %12s\n", "P", "pairs/s total", "vs P=1");
	fflush(stdout);
	for (p = 0; p < (int)(sizeof(nprocs) / sizeof(nprocs[0])); p++) {
		if (pipe(ready) || pipe(go) || pipe(done))
			exit(1);
		for (i = 0; i < nprocs[p]; i++) {
			pid_t pid = fork();

			if (pid < 0)
				exit(1);
			if (pid == 0) {
				close(go[1]);
				proc_child(ready[1], go[0], done[1]);
			}
		}
		close(go[0]);
		for (i = 0; i < nprocs[p]; i++)
			if (read(ready[0], &c, 1) != 1)
				exit(1);
		t = now_ns();
		close(go[1]);
		for (i = 0; i < nprocs[p]; i++)
			if (read(done[0], &c, 1) != 1)
				exit(1);
		t = now_ns() - t;
		for (i = 0; i < nprocs[p]; i++)
			if (wait(&status) < 0 || !WIFEXITED(status) ||
			    WEXITSTATUS(status))
				exit(1);
		close(ready[0]);
		close(ready[1]);
		close(done[0]);
		close(done[1]);
		rate = nprocs[p] * (double)PROC_LOOPS / (t / 1e9);
		if (!one)
			one = rate;
		printf("%5d | %14.0f | %12.2f\n", nprocs[p], rate, rate / one);
		JSON("\"part\": \"procs\", \"processes\": %d, \"pairs_per_s\": %.0f",
		     nprocs[p], rate);
	}
}

/* ---- memory ---- */

/* Kernel memory in bytes: slab objects and page tables. */
static long long kernel_bytes(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	long long kb, total = 0;
	char line[256], key[64];

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63[^:]: %lld", key, &kb) == 2 &&
		    (!strcmp(key, "Slab") || !strcmp(key, "PageTables")))
			total += kb * 1024;
	fclose(f);
	return total;
}

static void mem_row(const char *what, long long before, unsigned int n)
{
	double per = (double)(kernel_bytes() - before) / n;

	printf("%-40s | %6u | %10.0f\n", what, n, per);
	JSON("\"part\": \"memory\", \"what\": \"%s\", \"count\": %u, "
	     "\"bytes_each\": %.0f", what, n, per);
}

#define MEM_N 2048

static void part_memory(void)
{
	static CUmemGenericAllocationHandle mc[MEM_N], mem[MEM_N];
	static CUdeviceptr va[MEM_N];
	CUmemGenericAllocationHandle big;
	CUdeviceptr big_va;
	long long before;
	unsigned int i;

	printf("\nmemory: kernel memory (Slab + PageTables) per object\n");
	printf("%-40s | %6s | %10s\n", "object", "count", "bytes each");
	before = kernel_bytes();
	for (i = 0; i < MEM_N; i++)
		mem[i] = new_mem(0, GRAN);
	mem_row("allocation (cuMemCreate, 2 MiB)", before, MEM_N);
	before = kernel_bytes();
	for (i = 0; i < MEM_N; i++)
		mc[i] = new_mc(1, GRAN);
	mem_row("multicast object (team of 1)", before, MEM_N);
	before = kernel_bytes();
	for (i = 0; i < MEM_N; i++)
		CHECK(cuMulticastAddDevice(mc[i], 0));
	mem_row("team member (cuMulticastAddDevice)", before, MEM_N);
	before = kernel_bytes();
	for (i = 0; i < MEM_N; i++)
		CHECK(cuMulticastBindMem(mc[i], 0, mem[i], 0, GRAN, 0));
	mem_row("binding (cuMulticastBindMem)", before, MEM_N);
	before = kernel_bytes();
	for (i = 0; i < MEM_N; i++)
		CHECK(cuMemAddressReserve(&va[i], GRAN, 0, 0, 0));
	mem_row("reservation (cuMemAddressReserve)", before, MEM_N);
	before = kernel_bytes();
	for (i = 0; i < MEM_N; i++) {
		CHECK(cuMemMap(va[i], GRAN, 0, mem[i], 0));
		set_access(va[i], GRAN);
	}
	mem_row("mapping of 1 granule (map + access)", before, MEM_N);
	/* One byte per granule: the first touch of each. */
	before = kernel_bytes();
	for (i = 0; i < MEM_N; i++)
		*(volatile char *)(uintptr_t)va[i] = 1;
	mem_row("touched granule (one page written)", before, MEM_N);
	for (i = 0; i < MEM_N; i++) {
		CHECK(cuMemUnmap(va[i], GRAN));
		CHECK(cuMemAddressFree(va[i], GRAN));
		CHECK(cuMulticastUnbind(mc[i], 0, 0, GRAN));
		CHECK(cuMemRelease(mc[i]));
		CHECK(cuMemRelease(mem[i]));
	}

	/* Granules of one large mapping, as opposed to mappings. */
	big = new_mem(0, MEM_N * GRAN);
	CHECK(cuMemAddressReserve(&big_va, MEM_N * GRAN, 0, 0, 0));
	before = kernel_bytes();
	CHECK(cuMemMap(big_va, MEM_N * GRAN, 0, big, 0));
	set_access(big_va, MEM_N * GRAN);
	mem_row("granule of one 4 GiB mapping, untouched", before, MEM_N);
	before = kernel_bytes();
	for (i = 0; i < MEM_N; i++)
		*(volatile char *)(uintptr_t)(big_va + (size_t)i * GRAN) = 1;
	mem_row("granule of one 4 GiB mapping, touched", before, MEM_N);
	CHECK(cuMemUnmap(big_va, MEM_N * GRAN));
	CHECK(cuMemAddressFree(big_va, MEM_N * GRAN));
	CHECK(cuMemRelease(big));
}

static int wanted(int argc, char **argv, const char *part)
{
	int i, any = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			i++;
			continue;
		}
		any = 1;
		if (!strcmp(argv[i], part))
			return 1;
	}
	return !any;
}

int main(int argc, char **argv)
{
	const char *path = "build/bench/bench_scaling.json";
	struct json_object *doc;
	int i, devices;

	for (i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--json"))
			path = argv[i + 1];
	doc = bench_doc_begin(NULL);
	CHECK(cuInit(0));
	CHECK(cuDeviceGetCount(&devices));
	null = null_syscall();
	printf("bench_scaling: %d devices; null syscall (getppid) median %.0f ns\n",
	       devices, null.median_ns);
	json_object_object_add(doc, "devices", json_object_new_int(devices));
	json_object_object_add(doc, "null_syscall_ns",
			       bench_num("%.1f", null.median_ns));
	json_object_object_add(doc, "results", bench_rows);
	if (wanted(argc, argv, "teams"))
		part_teams(devices);
	if (wanted(argc, argv, "many"))
		part_many();
	if (wanted(argc, argv, "huge"))
		part_huge();
	if (wanted(argc, argv, "procs"))
		part_procs();
	if (wanted(argc, argv, "memory"))
		part_memory();
	return bench_doc_end(path, doc);
}
