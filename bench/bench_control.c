// SPDX-License-Identifier: MIT
/*
 * bench_control: the latency of every control-path entry point, for a
 * 2 MiB, a 512 MiB and an 8 GiB allocation: the address space
 * (cuMemCreate to cuMemRelease), sharing (export and import as a POSIX fd
 * and as a fabric handle) and multicast (create, add a device, bind,
 * unbind, release) over a team of one device, so that no call waits for
 * another member.  Each figure is the median and 95th percentile of many
 * rounds, and the median as a multiple of a null system call measured in
 * the same run.  Beside them, as baselines timed in the same rounds, the
 * kernel's own mmap and munmap of an anonymous mapping of the same size,
 * and a null ioctl of /dev/cumc (CUMC_QUERY): the floor under every call,
 * which costs more here than in a loop of its own.  The sizes take turns
 * round after round so that none gains from running later (warm caches,
 * the emulator's translated code).
 *
 * bench_control [--json FILE] [--reps N]
 * Figures, never a verdict.
 */
#include <cuda.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <linux/cumc.h>

#include "bench.h"

#define WARMUP 10

enum op {
	OP_CREATE,
	OP_RESERVE,
	OP_MAP,
	OP_SET_ACCESS,
	OP_UNMAP,
	OP_FREE,
	OP_EXPORT_FD,
	OP_IMPORT_FD,
	OP_EXPORT_FABRIC,
	OP_IMPORT_FABRIC,
	OP_MC_CREATE,
	OP_MC_ADD_DEVICE,
	OP_MC_BIND,
	OP_MC_UNBIND,
	OP_MC_RELEASE,
	OP_RELEASE,
	OP_ANON_MMAP,
	OP_ANON_MUNMAP,
	OP_NULL_IOCTL,
	NUM_OPS
};

/* A file of /dev/cumc's own, for the null ioctl. */
static int cumc_fd = -1;

static const char *const op_names[NUM_OPS] = {
	"cuMemCreate", "cuMemAddressReserve", "cuMemMap", "cuMemSetAccess",
	"cuMemUnmap", "cuMemAddressFree",
	"cuMemExportToShareableHandle(fd)", "cuMemImportFromShareableHandle(fd)",
	"cuMemExportToShareableHandle(fabric)",
	"cuMemImportFromShareableHandle(fabric)",
	"cuMulticastCreate", "cuMulticastAddDevice", "cuMulticastBindMem",
	"cuMulticastUnbind", "cuMemRelease(multicast)", "cuMemRelease",
	"baseline: mmap(anonymous)", "baseline: munmap(anonymous)",
	"baseline: null ioctl (CUMC_QUERY)",
};

/* One life of an allocation and of a multicast object, each step timed. */
static void one_round(size_t bytes, double t[NUM_OPS])
{
	CUmemAllocationProp prop = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED,
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 },
		.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR |
					CU_MEM_HANDLE_TYPE_FABRIC,
	};
	CUmemAccessDesc desc = {
		.location = prop.location,
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};
	CUmulticastObjectProp mc_prop = { .numDevices = 1, .size = bytes };
	CUmemGenericAllocationHandle mem, imported, mc;
	struct cumc_query query = { .size = sizeof(query) };
	CUmemFabricHandle fabric;
	CUdeviceptr va;
	void *anon;
	double t0;
	int fd;

	TIMED(t, OP_CREATE, cuMemCreate(&mem, bytes, &prop, 0));
	TIMED(t, OP_RESERVE, cuMemAddressReserve(&va, bytes, 0, 0, 0));
	TIMED(t, OP_MAP, cuMemMap(va, bytes, 0, mem, 0));
	TIMED(t, OP_SET_ACCESS, cuMemSetAccess(va, bytes, &desc, 1));
	TIMED(t, OP_UNMAP, cuMemUnmap(va, bytes));
	TIMED(t, OP_FREE, cuMemAddressFree(va, bytes));

	TIMED(t, OP_EXPORT_FD, cuMemExportToShareableHandle(&fd, mem,
				CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	TIMED(t, OP_IMPORT_FD, cuMemImportFromShareableHandle(&imported,
				(void *)(uintptr_t)fd,
				CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	CHECK(cuMemRelease(imported));
	close(fd);
	TIMED(t, OP_EXPORT_FABRIC, cuMemExportToShareableHandle(&fabric, mem,
				CU_MEM_HANDLE_TYPE_FABRIC, 0));
	TIMED(t, OP_IMPORT_FABRIC, cuMemImportFromShareableHandle(&imported,
				&fabric, CU_MEM_HANDLE_TYPE_FABRIC));
	CHECK(cuMemRelease(imported));

	TIMED(t, OP_MC_CREATE, cuMulticastCreate(&mc, &mc_prop));
	TIMED(t, OP_MC_ADD_DEVICE, cuMulticastAddDevice(mc, 0));
	TIMED(t, OP_MC_BIND, cuMulticastBindMem(mc, 0, mem, 0, bytes, 0));
	TIMED(t, OP_MC_UNBIND, cuMulticastUnbind(mc, 0, 0, bytes));
	TIMED(t, OP_MC_RELEASE, cuMemRelease(mc));
	TIMED(t, OP_RELEASE, cuMemRelease(mem));

	/*
	 * What the kernel itself takes to make and tear down a VMA of the same
	 * size: what cuMemAddressReserve and cuMemAddressFree cost when each
	 * was one (before arenas), and would cost done with mmap/munmap.
	 */
	t0 = now_ns();
	anon = mmap(NULL, bytes, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	t[OP_ANON_MMAP] = now_ns() - t0;
	if (anon == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	t0 = now_ns();
	munmap(anon, bytes);
	t[OP_ANON_MUNMAP] = now_ns() - t0;
	t0 = now_ns();
	ioctl(cumc_fd, CUMC_QUERY, &query);
	t[OP_NULL_IOCTL] = now_ns() - t0;
}

static void measure(int reps, struct stats out[NUM_CONTROL_SIZES][NUM_OPS])
{
	double *samples = calloc(NUM_CONTROL_SIZES * NUM_OPS * reps, sizeof(double));
	double t[NUM_OPS];
	size_t s;
	int r, op;

	if (!samples)
		exit(1);
	for (r = 0; r < WARMUP; r++)
		for (s = 0; s < NUM_CONTROL_SIZES; s++)
			one_round(control_sizes[s].bytes, t);
	for (r = 0; r < reps; r++) {
		for (s = 0; s < NUM_CONTROL_SIZES; s++) {
			one_round(control_sizes[s].bytes, t);
			for (op = 0; op < NUM_OPS; op++)
				samples[(s * NUM_OPS + op) * reps + r] = t[op];
		}
	}
	for (s = 0; s < NUM_CONTROL_SIZES; s++)
		for (op = 0; op < NUM_OPS; op++)
			out[s][op] = stats_of(&samples[(s * NUM_OPS + op) * reps],
					      reps);
	free(samples);
}

static void print_table(int reps, const struct stats res[NUM_CONTROL_SIZES][NUM_OPS],
			struct stats null)
{
	size_t s;
	int op;

	printf("bench_control: %d rounds per size, device 0, team of 1; null syscall "
	       "(getppid) median %.0f ns, p95 %.0f ns\n\n", reps, null.median_ns,
	       null.p95_ns);
	printf("%-39s", "operation (median us / p95 us / x null)");
	for (s = 0; s < NUM_CONTROL_SIZES; s++)
		printf(" | %-24s", control_sizes[s].name);
	printf(" | 8GiB/2MiB\n");
	for (op = 0; op < NUM_OPS; op++) {
		printf("%-39s", op_names[op]);
		for (s = 0; s < NUM_CONTROL_SIZES; s++)
			printf(" | %7.1f %8.1f %7.1f", res[s][op].median_ns / 1e3,
			       res[s][op].p95_ns / 1e3,
			       res[s][op].median_ns / null.median_ns);
		printf(" | %9.2f\n", res[NUM_CONTROL_SIZES - 1][op].median_ns /
		       res[0][op].median_ns);
	}
}

/* One result per line, so that line tools (the plot) can read it too. */
static int write_json(const char *path, int reps,
		      const struct stats res[NUM_CONTROL_SIZES][NUM_OPS],
		      struct stats null)
{
	struct json_object *doc = bench_doc_begin(NULL), *o;
	size_t s;
	int op, ret;

	json_object_object_add(doc, "rounds", json_object_new_int(reps));
	bench_doc_null_syscall(doc, null);
	json_object_object_add(doc, "results", bench_rows);
	for (op = 0; op < NUM_OPS; op++) {
		for (s = 0; s < NUM_CONTROL_SIZES; s++) {
			o = json_object_new_object();
			json_object_object_add(o, "op", json_object_new_string(op_names[op]));
			json_object_object_add(o, "size",
					       json_object_new_string(control_sizes[s].name));
			json_object_object_add(o, "bytes",
					       json_object_new_uint64(control_sizes[s].bytes));
			json_object_object_add(o, "median_ns",
					       bench_num("%.1f", res[s][op].median_ns));
			json_object_object_add(o, "p95_ns",
					       bench_num("%.1f", res[s][op].p95_ns));
			json_object_object_add(o, "x_null_syscall",
					       bench_num("%.2f", res[s][op].median_ns /
							 null.median_ns));
			json_object_array_add(bench_rows, o);
		}
	}
	ret = bench_json_write(path, doc);
	json_object_put(doc);
	return ret;
}

int main(int argc, char **argv)
{
	static struct stats results[NUM_CONTROL_SIZES][NUM_OPS];
	const char *json = "build/bench/bench_control.json";
	struct stats null;
	int reps = 200;

	control_args(argc, argv, &json, &reps);
	CHECK(cuInit(0));
	cumc_fd = open("/dev/cumc", O_RDWR | O_CLOEXEC);
	if (cumc_fd < 0) {
		perror("/dev/cumc");
		return 1;
	}
	null = null_syscall();
	measure(reps, results);
	print_table(reps, results, null);
	if (write_json(json, reps, results, null)) {
		perror(json);
		return 1;
	}
	printf("\nJSON: %s\n", json);
	return 0;
}
