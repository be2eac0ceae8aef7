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
 * Then binding: node 0 creates a multicast object of two members for the
 * fabric, adds its device 0 and exports it; node 1 imports it, adds its
 * device 0 and, round after round, binds 2 MiB of its device 0 into it
 * and unbinds them, beside the same on a team of its devices 0 and 1 that
 * no other node knows of. Binding into a team whose origin is another
 * node goes through this node's replica and the origin's kernel, both
 * daemons between; the same-node team has as many members, so that what
 * differs is where the origin is. The first bind into each team is
 * reported apart: across nodes, it is when node 1 first shares that
 * memory with the origin.
 *
 * Node 1 prints the tables and writes the JSON; node 0 only serves. Any
 * other node has nothing to do.
 *
 * bench_fabric [--json FILE] [--reps N] [--sizes LIST]
 * LIST: which sizes' imports to time, comma-separated, e.g. 2M,512M
 * (default: all of 2M,512M,8G); a run that leaves out 8G writes no
 * 8 GiB and takes minutes less. Figures, never a verdict.
 */
#include <cuda.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "bench.h"

#define WARMUP 5
/* The longest one node waits for another: boots and loads under TCG. */
#define XCHG_WAIT_SECS 600
/* What is read through each mapping, whatever its size. */
#define READ_BYTES (2ULL << 20)
/*
 * What is bound into a team: the smallest of the sizes, a huge page. Not
 * every size: a bind at 8 GiB would want two more 8 GiB allocations on
 * node 1, each written before it crosses nodes.
 */
#define BIND_BYTES (2ULL << 20)
#define BIND_NAME "2MiB"
/* Either team's: node 0's and node 1's device 0, or node 1's 0 and 1. */
#define TEAM_MEMBERS 2

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

enum bind_op { OP_BIND, OP_UNBIND, NUM_BIND_OPS };

static const char *const where_names[NUM_WHERE] = {
	"same node", "across nodes",
};

static const char *const bind_op_names[NUM_BIND_OPS] = {
	"cuMulticastBindMem", "cuMulticastUnbind",
};

static int node;
static const char *xchg;
/* The sizes whose imports are timed; both nodes read the same --sizes. */
static bool size_on[NUM_CONTROL_SIZES];

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

/*
 * --sizes LIST: the sizes of control_sizes[] named by LIST, as digits and
 * M or G (an iB after it allowed); every size without it. Nonzero when
 * LIST names another size, or none.
 */
static int sizes_arg(int argc, char **argv)
{
	const char *list = NULL, *p;
	unsigned long long n;
	int i, shift, any = 0;
	char *end;
	size_t s;

	for (i = 1; i + 1 < argc; i += 2)
		if (!strcmp(argv[i], "--sizes"))
			list = argv[i + 1];
	for (s = 0; s < NUM_CONTROL_SIZES; s++)
		size_on[s] = !list;
	for (p = list; p && *p; p = end + (*end == ',')) {
		n = strtoull(p, &end, 10);
		shift = *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
		if (end == p || !shift)
			return -1;
		end += strncmp(end + 1, "iB", 2) ? 1 : 3;
		if (*end && *end != ',')
			return -1;
		for (s = 0; s < NUM_CONTROL_SIZES; s++)
			if (control_sizes[s].bytes == n << shift)
				break;
		if (s == NUM_CONTROL_SIZES)
			return -1;
		size_on[s] = true;
		any = 1;
	}
	return list && !any ? -1 : 0;
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

static const CUmulticastObjectProp team_prop = {
	.numDevices = TEAM_MEMBERS,
	.handleTypes = CU_MEM_HANDLE_TYPE_FABRIC,
	.size = BIND_BYTES,
};

/*
 * A team of this node's devices @devs[0..@n). Made for the fabric even
 * when it stays on this node, so that the two teams differ only in where
 * their members are.
 */
static CUmemGenericAllocationHandle team_create(const CUdevice *devs, int n)
{
	CUmemGenericAllocationHandle mc;
	int i;

	CHECK(cuMulticastCreate(&mc, &team_prop));
	for (i = 0; i < n; i++)
		CHECK(cuMulticastAddDevice(mc, devs[i]));
	return mc;
}

/*
 * Node 0: every chosen size's handle out, then the team's, held until
 * node 1 has ended; node 0's device 0 is the team's first member.
 */
static void serve(void)
{
	CUmemGenericAllocationHandle mem[NUM_CONTROL_SIZES], team;
	const CUdevice dev0 = 0;
	CUmemFabricHandle fh;
	double t0;
	char one;
	size_t s;

	for (s = 0; s < NUM_CONTROL_SIZES; s++) {
		if (!size_on[s])
			continue;
		t0 = now_ns();
		mem[s] = create_export(control_sizes[s].bytes, &fh);
		fill(mem[s], control_sizes[s].bytes);
		printf("bench_fabric: node 0 wrote %s in %.1f s\n",
		       control_sizes[s].name, (now_ns() - t0) / 1e9);
		fflush(stdout);
		xchg_put(control_sizes[s].name, &fh, sizeof(fh));
	}
	team = team_create(&dev0, 1);
	CHECK(cuMemExportToShareableHandle(&fh, team, CU_MEM_HANDLE_TYPE_FABRIC,
					   0));
	xchg_put("team", &fh, sizeof(fh));
	xchg_get(1, "exit.1", &one, 1);
	CHECK(cuMemRelease(team));
	for (s = 0; s < NUM_CONTROL_SIZES; s++)
		if (size_on[s])
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
	struct stats bind[NUM_WHERE][NUM_BIND_OPS];
	/* The first bind into each team, before any other. */
	double first_bind_ns[NUM_WHERE];
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
			for (i = 0; size_on[s] && i < NUM_WHERE; i++) {
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
		for (w = 0; size_on[s] && w < NUM_WHERE; w++)
			for (op = 0; op < NUM_OPS; op++)
				out->op[s][w][op] =
					stats_of(series(samples, s, w, op, reps),
						 reps);
	free(samples);
}

/* One bind of @mem into @team and its unbind, each timed. */
static void bind_round(CUmemGenericAllocationHandle team,
		       CUmemGenericAllocationHandle mem, double t[NUM_BIND_OPS])
{
	CUresult res;
	double t0;

	t0 = now_ns();
	res = cuMulticastBindMem(team, 0, mem, 0, BIND_BYTES, 0);
	t[OP_BIND] = now_ns() - t0;
	bench_check(res, bind_op_names[OP_BIND]);
	t0 = now_ns();
	res = cuMulticastUnbind(team, 0, 0, BIND_BYTES);
	t[OP_UNBIND] = now_ns() - t0;
	bench_check(res, bind_op_names[OP_UNBIND]);
}

/*
 * As measure(), for binds: the two teams take turns, so that an unbind
 * across nodes still settling on node 0 is met by the next bind across
 * nodes as often as by the next bind on this node.
 */
static void measure_binds(int reps,
			  const CUmemGenericAllocationHandle team[NUM_WHERE],
			  const CUmemGenericAllocationHandle mem[NUM_WHERE],
			  struct results *out)
{
	double *samples = calloc(NUM_WHERE * NUM_BIND_OPS * reps,
				 sizeof(double));
	double t[NUM_BIND_OPS];
	enum where w;
	int r, i, op;

	if (!samples)
		exit(1);
	for (r = -WARMUP; r < reps; r++) {
		for (i = 0; i < NUM_WHERE; i++) {
			w = nth_where(r + WARMUP, 0, i);
			bind_round(team[w], mem[w], t);
			if (r == -WARMUP)
				out->first_bind_ns[w] = t[OP_BIND];
			for (op = 0; r >= 0 && op < NUM_BIND_OPS; op++)
				samples[(w * NUM_BIND_OPS + op) * reps + r] = t[op];
		}
	}
	for (w = 0; w < NUM_WHERE; w++)
		for (op = 0; op < NUM_BIND_OPS; op++)
			out->bind[w][op] =
				stats_of(&samples[(w * NUM_BIND_OPS + op) * reps],
					 reps);
	free(samples);
}

static void print_row(const char *name, const struct stats st[NUM_WHERE],
		      struct stats null)
{
	int w;

	printf("%-39s", name);
	for (w = 0; w < NUM_WHERE; w++)
		printf(" | %7.1f %8.1f %7.1f", st[w].median_ns / 1e3,
		       st[w].p95_ns / 1e3, st[w].median_ns / null.median_ns);
	printf(" | %11.2f\n",
	       st[ACROSS_NODES].median_ns / st[SAME_NODE].median_ns);
}

static void print_first(const char *name, const double ns[NUM_WHERE])
{
	printf("%-39s | %24.1f | %24.1f | %11.2f\n", name,
	       ns[SAME_NODE] / 1e3, ns[ACROSS_NODES] / 1e3,
	       ns[ACROSS_NODES] / ns[SAME_NODE]);
}

static void print_table(int reps, const struct results *res, struct stats null)
{
	struct stats st[NUM_WHERE];
	size_t s;
	int op, w;

	printf("bench_fabric: %d rounds per size and node, device 0 of node 1; "
	       "null syscall (getppid) median %.0f ns, p95 %.0f ns\n", reps,
	       null.median_ns, null.p95_ns);
	for (s = 0; s < NUM_CONTROL_SIZES; s++) {
		if (!size_on[s])
			continue;
		printf("\n%-6s %-32s | %-24s | %-24s | across/same\n",
		       control_sizes[s].name, "(median us / p95 us / x null)",
		       where_names[SAME_NODE], where_names[ACROSS_NODES]);
		for (op = 0; op < NUM_OPS; op++) {
			for (w = 0; w < NUM_WHERE; w++)
				st[w] = res->op[s][w][op];
			print_row(op_names[op], st, null);
		}
		print_first("first import, us (one call)",
			    res->first_import_ns[s]);
	}
	printf("\n%s bound by device 0 of node 1, teams of %d: same node: its "
	       "devices 0 and 1; across nodes: node 0's device 0 and its own, "
	       "node 0 the origin\n", BIND_NAME, TEAM_MEMBERS);
	printf("%-6s %-32s | %-24s | %-24s | across/same\n", BIND_NAME,
	       "(median us / p95 us / x null)", where_names[SAME_NODE],
	       where_names[ACROSS_NODES]);
	for (op = 0; op < NUM_BIND_OPS; op++) {
		for (w = 0; w < NUM_WHERE; w++)
			st[w] = res->bind[w][op];
		print_row(bind_op_names[op], st, null);
	}
	print_first("first bind, us (one call)", res->first_bind_ns);
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

	struct json_object *doc = bench_doc_begin(NULL);
	int ret;

	json_object_object_add(doc, "rounds", json_object_new_int(reps));
	bench_doc_null_syscall(doc, null);
	json_object_object_add(doc, "results", bench_rows);
	for (s = 0; s < NUM_CONTROL_SIZES; s++) {
		if (!size_on[s])
			continue;
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
	for (op = 0; op < NUM_BIND_OPS; op++) {
		for (w = 0; w < NUM_WHERE; w++) {
			st = &res->bind[w][op];
			JSON("\"op\": \"%s\", \"size\": \"%s\", "
			     "\"bytes\": %llu, \"where\": \"%s\", "
			     "\"team_members\": %d, "
			     "\"median_ns\": %.1f, \"p95_ns\": %.1f, "
			     "\"x_null_syscall\": %.2f, "
			     "\"across_over_same\": %.2f",
			     bind_op_names[op], BIND_NAME, BIND_BYTES,
			     where_names[w], TEAM_MEMBERS, st->median_ns,
			     st->p95_ns, st->median_ns / null.median_ns,
			     res->bind[ACROSS_NODES][op].median_ns /
			     res->bind[SAME_NODE][op].median_ns);
		}
	}
	for (w = 0; w < NUM_WHERE; w++)
		JSON("\"first_bind\": \"%s\", \"size\": \"%s\", "
		     "\"bytes\": %llu, \"where\": \"%s\", \"ns\": %.1f",
		     bind_op_names[OP_BIND], BIND_NAME, BIND_BYTES,
		     where_names[w], res->first_bind_ns[w]);
	ret = bench_json_write(path, doc);
	json_object_put(doc);
	return ret;
}

/*
 * Node 1's two teams, as @team[] (node 0's imported, one made here), each
 * with its 2 MiB of device 0 in @mem[]. Written, as fill() says why: the
 * first bind across nodes shares the memory with node 0, which would
 * zero what was never touched.
 */
static void teams_join(CUmemGenericAllocationHandle team[NUM_WHERE],
		       CUmemGenericAllocationHandle mem[NUM_WHERE])
{
	const CUdevice mine[TEAM_MEMBERS] = { 0, 1 };
	CUmemFabricHandle fh;
	int w;

	xchg_get(0, "team", &fh, sizeof(fh));
	CHECK(cuMemImportFromShareableHandle(&team[ACROSS_NODES], &fh,
					     CU_MEM_HANDLE_TYPE_FABRIC));
	CHECK(cuMulticastAddDevice(team[ACROSS_NODES], 0));
	team[SAME_NODE] = team_create(mine, TEAM_MEMBERS);
	for (w = 0; w < NUM_WHERE; w++) {
		CHECK(cuMemCreate(&mem[w], BIND_BYTES, &fabric_prop, 0));
		fill(mem[w], BIND_BYTES);
	}
}

/* Node 1: this node's handles beside node 0's, then the figures. */
static int measure_all(int reps, const char *json)
{
	static CUmemFabricHandle fh[NUM_CONTROL_SIZES][NUM_WHERE];
	static struct results results;
	CUmemGenericAllocationHandle mem[NUM_CONTROL_SIZES];
	CUmemGenericAllocationHandle team[NUM_WHERE], bound[NUM_WHERE];
	struct stats null;
	size_t s;
	int w;

	for (s = 0; s < NUM_CONTROL_SIZES; s++) {
		if (!size_on[s])
			continue;
		mem[s] = create_export(control_sizes[s].bytes, &fh[s][SAME_NODE]);
		xchg_get(0, control_sizes[s].name, &fh[s][ACROSS_NODES],
			 sizeof(fh[s][ACROSS_NODES]));
	}
	teams_join(team, bound);
	memset(read_buf, 1, sizeof(read_buf));
	null = null_syscall();
	measure(reps, fh, &results);
	measure_binds(reps, team, bound, &results);
	for (w = 0; w < NUM_WHERE; w++) {
		CHECK(cuMemRelease(team[w]));
		CHECK(cuMemRelease(bound[w]));
	}
	for (s = 0; s < NUM_CONTROL_SIZES; s++)
		if (size_on[s])
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
	if (sizes_arg(argc, argv)) {
		fprintf(stderr, "bench_fabric: --sizes takes sizes of 2M, 512M "
			"and 8G, comma-separated\n");
		return 2;
	}
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
