// SPDX-License-Identifier: MIT
/*
 * bench_fabric: what a fabric handle costs when it crosses nodes of a
 * multi-node fabric, beside the same handle on one node. Runs on every
 * node of scripts/fabric-run --nodes 2. Node 0 writes and exports a 2 MiB,
 * a 512 MiB and an 8 GiB allocation of its device 0; node 1 makes the
 * same three on its own device 0 and, round after round, imports each
 * handle of both nodes, maps it read-write for its device 0, reads 2 MiB
 * through the mapping, unmaps it and lets it go, every step timed. An
 * import from the other node is a call to its kernel through both IMEX
 * daemons; what follows the import should cost what it costs for memory
 * of this node. The sizes and the two nodes' handles take turns round
 * after round, so that none gains from running later (warm caches, the
 * emulator's translated code). The very first import of each handle is
 * reported apart: across nodes, it is when the exporting kernel first
 * shares the allocation.
 *
 * Node 1 prints the table and writes the JSON; node 0 only serves. Any
 * other node has nothing to do.
 *
 * bench_fabric [--json FILE] [--reps N]
 * Figures, never a verdict.
 */
#include <cuda.h>
#include <stdint.h>
#include <string.h>

#include "bench.h"

#define WARMUP 5
/* The longest one node waits for another: boots and loads under TCG. */
#define XCHG_WAIT_SECS 600
/* What is read through each mapping, whatever its size. */
#define READ_BYTES (2ULL << 20)

enum op {
	OP_IMPORT,
	OP_RESERVE,
	OP_MAP,
	OP_SET_ACCESS,
	OP_READ,
	OP_UNMAP,
	OP_FREE,
	OP_RELEASE,
	NUM_OPS
};

static const char *const op_names[NUM_OPS] = {
	"cuMemImportFromShareableHandle(fabric)", "cuMemAddressReserve",
	"cuMemMap", "cuMemSetAccess", "read 2MiB (memcpy, faults incl.)",
	"cuMemUnmap", "cuMemAddressFree", "cuMemRelease(imported)",
};

enum where { SAME_NODE, ACROSS_NODES, NUM_WHERE };

static const char *const where_names[NUM_WHERE] = {
	"same node", "across nodes",
};

static int node;
static const char *xchg;

static void xchg_path(char *path, size_t len, const char *name)
{
	snprintf(path, len, "%s/bench_fabric.%s", xchg, name);
}

/* Leave @len bytes under @name for the other node, whole or not at all. */
static void xchg_put(const char *name, const void *buf, size_t len)
{
	char path[512], tmp[600];
	FILE *f;

	xchg_path(path, sizeof(path), name);
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", path, node);
	f = fopen(tmp, "w");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f) ||
	    rename(tmp, path)) {
		perror(tmp);
		exit(1);
	}
}

static int xchg_read(const char *name, void *buf, size_t len)
{
	char path[512];
	size_t n;
	FILE *f;

	xchg_path(path, sizeof(path), name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, len, f);
	fclose(f);
	return n == len ? 0 : -1;
}

/*
 * Wait, bounded, for what node @from left under @name; give up at once
 * when that node has ended without leaving it (a failed call there).
 */
static void xchg_get(int from, const char *name, void *buf, size_t len)
{
	struct timespec pause = { 0, 100 * 1000 * 1000 };
	char gone[16], one;
	int tries;

	snprintf(gone, sizeof(gone), "exit.%d", from);
	for (tries = 0; tries < XCHG_WAIT_SECS * 10; tries++) {
		if (!xchg_read(name, buf, len))
			return;
		if (!xchg_read(gone, &one, 1)) {
			fprintf(stderr, "node %d: node %d ended before %s\n",
				node, from, name);
			exit(1);
		}
		nanosleep(&pause, NULL);
	}
	fprintf(stderr, "node %d: nothing from node %d under %s after %d s\n",
		node, from, name, XCHG_WAIT_SECS);
	exit(1);
}

/* At exit, however it comes: the other node stops waiting for this one. */
static void say_exit(void)
{
	char name[16];

	snprintf(name, sizeof(name), "exit.%d", node);
	xchg_put(name, "1", 1);
}

static const CUmemAllocationProp fabric_prop = {
	.type = CU_MEM_ALLOCATION_TYPE_PINNED,
	.location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 },
	.requestedHandleTypes = CU_MEM_HANDLE_TYPE_FABRIC,
};

/* An allocation of @bytes on this node's device 0 and its fabric handle. */
static CUmemGenericAllocationHandle create_export(size_t bytes,
						  CUmemFabricHandle *fh)
{
	CUmemGenericAllocationHandle mem;

	CHECK(cuMemCreate(&mem, bytes, &fabric_prop, 0));
	CHECK(cuMemExportToShareableHandle(fh, mem, CU_MEM_HANDLE_TYPE_FABRIC,
					   0));
	return mem;
}

/*
 * Write every byte of @mem, as a program does before it shares its data.
 * Memory never touched would be zeroed by this node's kernel in another
 * node's first import, one call that holds this node's IMEX daemon: for
 * 8 GiB under TCG, past the daemons' PEER_TIMEOUT_MS (10 s), and node 1
 * would take node 0 for lost.
 */
static void fill(CUmemGenericAllocationHandle mem, size_t bytes)
{
	CUmemAccessDesc desc = {
		.location = fabric_prop.location,
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};
	CUdeviceptr va;

	CHECK(cuMemAddressReserve(&va, bytes, 0, 0, 0));
	CHECK(cuMemMap(va, bytes, 0, mem, 0));
	CHECK(cuMemSetAccess(va, bytes, &desc, 1));
	memset((void *)(uintptr_t)va, 0xa5, bytes);
	CHECK(cuMemUnmap(va, bytes));
	CHECK(cuMemAddressFree(va, bytes));
}

/* Node 0: every size's handle out, held until node 1 has ended. */
static void serve(void)
{
	CUmemGenericAllocationHandle mem[NUM_CONTROL_SIZES];
	CUmemFabricHandle fh;
	double t0;
	char one;
	size_t s;

	for (s = 0; s < NUM_CONTROL_SIZES; s++) {
		t0 = now_ns();
		mem[s] = create_export(control_sizes[s].bytes, &fh);
		fill(mem[s], control_sizes[s].bytes);
		printf("bench_fabric: node 0 wrote %s in %.1f s\n",
		       control_sizes[s].name, (now_ns() - t0) / 1e9);
		fflush(stdout);
		xchg_put(control_sizes[s].name, &fh, sizeof(fh));
	}
	xchg_get(1, "exit.1", &one, 1);
	for (s = 0; s < NUM_CONTROL_SIZES; s++)
		CHECK(cuMemRelease(mem[s]));
}

/* Where the mapping's bytes are read to: touched once, before any timing. */
static unsigned char read_buf[READ_BYTES];

/* One life of an import of @fh, each step timed. */
static void one_round(const CUmemFabricHandle *fh, size_t bytes,
		      double t[NUM_OPS])
{
	CUmemAccessDesc desc = {
		.location = fabric_prop.location,
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};
	CUmemGenericAllocationHandle mem;
	CUdeviceptr va;
	double t0;

	TIMED(t, OP_IMPORT, cuMemImportFromShareableHandle(&mem, (void *)fh,
				CU_MEM_HANDLE_TYPE_FABRIC));
	TIMED(t, OP_RESERVE, cuMemAddressReserve(&va, bytes, 0, 0, 0));
	TIMED(t, OP_MAP, cuMemMap(va, bytes, 0, mem, 0));
	TIMED(t, OP_SET_ACCESS, cuMemSetAccess(va, bytes, &desc, 1));
	/* A fresh mapping: each page read is a fault, as a program's first. */
	t0 = now_ns();
	memcpy(read_buf, (void *)(uintptr_t)va, READ_BYTES);
	/* The copy is kept: nothing reads the buffer afterwards. */
	__asm__ volatile("" : : "r"(read_buf) : "memory");
	t[OP_READ] = now_ns() - t0;
	TIMED(t, OP_UNMAP, cuMemUnmap(va, bytes));
	TIMED(t, OP_FREE, cuMemAddressFree(va, bytes));
	TIMED(t, OP_RELEASE, cuMemRelease(mem));
}

struct results {
	struct stats op[NUM_CONTROL_SIZES][NUM_WHERE][NUM_OPS];
	/* The first import of each handle, before any other. */
	double first_import_ns[NUM_CONTROL_SIZES][NUM_WHERE];
};

/* Round @r of size @s: which node's handle goes first takes turns. */
static enum where nth_where(int r, size_t s, int i)
{
	return (r + s + i) % 2 ? ACROSS_NODES : SAME_NODE;
}

/* The @reps samples of @op on size @s, @w's handle. */
static double *series(double *samples, size_t s, enum where w, int op,
		      int reps)
{
	return &samples[((s * NUM_WHERE + w) * NUM_OPS + op) * reps];
}

/* Warmup rounds first (the very first import kept apart), then @reps. */
static void measure(int reps, const CUmemFabricHandle fh[NUM_CONTROL_SIZES][NUM_WHERE],
		    struct results *out)
{
	double *samples = calloc(NUM_CONTROL_SIZES * NUM_WHERE * NUM_OPS * reps,
				 sizeof(double));
	double t[NUM_OPS];
	enum where w;
	size_t s;
	int r, i, op;

	if (!samples)
		exit(1);
	for (r = -WARMUP; r < reps; r++) {
		for (s = 0; s < NUM_CONTROL_SIZES; s++) {
			for (i = 0; i < NUM_WHERE; i++) {
				w = nth_where(r + WARMUP, s, i);
				one_round(&fh[s][w], control_sizes[s].bytes, t);
				if (r == -WARMUP)
					out->first_import_ns[s][w] = t[OP_IMPORT];
				for (op = 0; r >= 0 && op < NUM_OPS; op++)
					series(samples, s, w, op, reps)[r] = t[op];
			}
		}
	}
	for (s = 0; s < NUM_CONTROL_SIZES; s++)
		for (w = 0; w < NUM_WHERE; w++)
			for (op = 0; op < NUM_OPS; op++)
				out->op[s][w][op] =
					stats_of(series(samples, s, w, op, reps),
						 reps);
	free(samples);
}

static void print_table(int reps, const struct results *res, struct stats null)
{
	const struct stats *st;
	size_t s;
	int op, w;

	printf("bench_fabric: %d rounds per size and node, device 0 of node 1; "
	       "null syscall (getppid) median %.0f ns, p95 %.0f ns\n", reps,
	       null.median_ns, null.p95_ns);
	for (s = 0; s < NUM_CONTROL_SIZES; s++) {
		printf("\n%-6s %-32s | %-24s | %-24s | across/same\n",
		       control_sizes[s].name, "(median us / p95 us / x null)",
		       where_names[SAME_NODE], where_names[ACROSS_NODES]);
		for (op = 0; op < NUM_OPS; op++) {
			printf("%-39s", op_names[op]);
			for (w = 0; w < NUM_WHERE; w++) {
				st = &res->op[s][w][op];
				printf(" | %7.1f %8.1f %7.1f", st->median_ns / 1e3,
				       st->p95_ns / 1e3,
				       st->median_ns / null.median_ns);
			}
			printf(" | %11.2f\n",
			       res->op[s][ACROSS_NODES][op].median_ns /
			       res->op[s][SAME_NODE][op].median_ns);
		}
		printf("%-39s | %24.1f | %24.1f | %11.2f\n",
		       "first import, us (one call)",
		       res->first_import_ns[s][SAME_NODE] / 1e3,
		       res->first_import_ns[s][ACROSS_NODES] / 1e3,
		       res->first_import_ns[s][ACROSS_NODES] /
		       res->first_import_ns[s][SAME_NODE]);
	}
}

/*
 * One result per line, so that line tools (the plot) can read it too;
 * each across-nodes record carries its ratio to the same-node one.
 */
static int write_json(const char *path, int reps, const struct results *res,
		      struct stats null)
{
	const struct stats *st;
	size_t s;
	int op, w;

	struct json_object *doc = bench_doc_begin(NULL), *o;
	int ret;

	json_object_object_add(doc, "rounds", json_object_new_int(reps));
	o = json_object_new_object();
	json_object_object_add(o, "call", json_object_new_string("getppid"));
	json_object_object_add(o, "median_ns", bench_num("%.1f", null.median_ns));
	json_object_object_add(o, "p95_ns", bench_num("%.1f", null.p95_ns));
	json_object_object_add(doc, "null_syscall", o);
	json_object_object_add(doc, "results", bench_rows);
	for (s = 0; s < NUM_CONTROL_SIZES; s++) {
		for (op = 0; op < NUM_OPS; op++) {
			for (w = 0; w < NUM_WHERE; w++) {
				st = &res->op[s][w][op];
				JSON("\"op\": \"%s\", \"size\": \"%s\", "
				     "\"bytes\": %zu, \"where\": \"%s\", "
				     "\"median_ns\": %.1f, \"p95_ns\": %.1f, "
				     "\"x_null_syscall\": %.2f, "
				     "\"across_over_same\": %.2f",
				     op_names[op], control_sizes[s].name, control_sizes[s].bytes,
				     where_names[w], st->median_ns, st->p95_ns,
				     st->median_ns / null.median_ns,
				     res->op[s][ACROSS_NODES][op].median_ns /
				     res->op[s][SAME_NODE][op].median_ns);
			}
		}
		for (w = 0; w < NUM_WHERE; w++)
			JSON("\"first_import\": \"%s\", \"size\": \"%s\", "
			     "\"bytes\": %zu, \"where\": \"%s\", \"ns\": %.1f",
			     op_names[OP_IMPORT], control_sizes[s].name, control_sizes[s].bytes,
			     where_names[w], res->first_import_ns[s][w]);
	}
	ret = bench_json_write(path, doc);
	json_object_put(doc);
	return ret;
}

/* Node 1: this node's handles beside node 0's, then the figures. */
static int measure_all(int reps, const char *json)
{
	static CUmemFabricHandle fh[NUM_CONTROL_SIZES][NUM_WHERE];
	static struct results results;
	CUmemGenericAllocationHandle mem[NUM_CONTROL_SIZES];
	struct stats null;
	size_t s;

	for (s = 0; s < NUM_CONTROL_SIZES; s++) {
		mem[s] = create_export(control_sizes[s].bytes, &fh[s][SAME_NODE]);
		xchg_get(0, control_sizes[s].name, &fh[s][ACROSS_NODES],
			 sizeof(fh[s][ACROSS_NODES]));
	}
	memset(read_buf, 1, sizeof(read_buf));
	null = null_syscall();
	measure(reps, fh, &results);
	for (s = 0; s < NUM_CONTROL_SIZES; s++)
		CHECK(cuMemRelease(mem[s]));
	print_table(reps, &results, null);
	if (write_json(json, reps, &results, null)) {
		perror(json);
		return 1;
	}
	printf("\nJSON: %s\n", json);
	return 0;
}

int main(int argc, char **argv)
{
	const char *json = "build/bench/bench_fabric.json";
	const char *env = getenv("CUMC_NODE");
	int reps = 50;

	control_args(argc, argv, &json, &reps);
	xchg = getenv("CUMC_FABRIC_XCHG");
	if (!env || !xchg) {
		fprintf(stderr, "bench_fabric: no CUMC_NODE or CUMC_FABRIC_XCHG: "
			"run it on every node of scripts/fabric-run --nodes 2\n");
		return 2;
	}
	node = atoi(env);
	if (node > 1)
		return 0;
	atexit(say_exit);
	CHECK(cuInit(0));
	if (node == 0) {
		serve();
		return 0;
	}
	return measure_all(reps, json);
}
