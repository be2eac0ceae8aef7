// SPDX-License-Identifier: MIT
/*
 * Fabric memory across the nodes of a multi-node fabric, through libcumc
 * as a program written for the real driver uses it. Runs on every node of
 * scripts/fabric-run --nodes 4 --domain 0,1,3 --domain 2 (see
 * scripts/tests/test-multinode.sh): nodes 0, 1 and 3 share an IMEX domain,
 * node 2 is alone in another. Every node runs the same tests in the same
 * order, each playing its node's part; the parts meet through files in
 * the fabric's exchange directory (CUMC_FABRIC_XCHG), as two ranks of a
 * job hand each other fabric handles through any channel they like.
 *
 * Then the fabric's defences: a user without privileges on node 0 plays
 * a rogue peer of node 1's daemon, and node 1's daemon is killed and
 * started again, its node taken back by node 0.
 *
 * Between nodes 0 and 1, the faults of a fabric (cumcctl fault set: late
 * answers, messages the daemon's socket cannot take) must leave every
 * node agreeing on every team and leak nothing. The last tests lose
 * nodes: node 3 stops its daemon (SIGSTOP) while it maps node 0's memory,
 * which node 0 reuses only once node 3's kernel unmapped it by itself;
 * node 0 is stopped (its VM killed) while node 1 maps its memory, and then
 * node 1 and node 2 stop their own IMEX daemons.
 */
#include <check.h>
#include <cuda.h>
#include <errno.h>
#include <stdarg.h>
#include <sched.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cumc.h>
#include <nvml.h>

#include "vmm.h"

/* Each node of fabric-run has four GPUs unless told otherwise. */
#define GPUS_PER_NODE 4
/*
 * The longest one node waits for another: boots and loads under TCG. Times
 * CK_TIMEOUT_MULTIPLIER, as Check's own limits are: the debug kernel's
 * nodes run several times slower.
 */
#define XCHG_WAIT_SECS 300
static int xchg_wait_secs = XCHG_WAIT_SECS;
/*
 * A look into the exchange directory is a 9p round trip: milliseconds of a
 * debug kernel's vCPU under TCG. Four nodes waiting on each other, looking
 * ten times a second for the file and for every failed node's marker, kept
 * about a fifth of a host core each; a look every XCHG_POLL_MS, and for
 * failed nodes once a second, leaves those cores to the nodes at work.
 */
#define XCHG_POLL_MS 200
#define FH_SIZE sizeof(CUmemFabricHandle)

/* Node 3, in nodes 0 and 1's domain, stalls its daemon in one test. */
enum node_part { EXPORTER, IMPORTER, OUTSIDER, STALLER };

static int node, nodes;
static const char *xchg;

static enum node_part part(void)
{
	static const enum node_part parts[] = {
		EXPORTER, IMPORTER, OUTSIDER, STALLER
	};

	return node < 4 ? parts[node] : OUTSIDER;
}

static double now_secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Another node that failed a test, or -1: that node may never leave what
 * this one waits for, so a wait ends at once instead of at its limit.
 */
static int failed_node(void)
{
	char path[512];
	int k;

	for (k = 0; k < nodes; k++) {
		snprintf(path, sizeof(path), "%s/failed.%d", xchg, k);
		if (k != node && !access(path, F_OK))
			return k;
	}
	return -1;
}

/*
 * Leave @len bytes under @name for the other nodes, whole or not at all:
 * 0, or why not (an errno). Also outside a test, where nothing may assert.
 */
static int xchg_leave(const char *name, const void *buf, size_t len)
{
	char path[512], tmp[600];
	int err = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", xchg, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", path, node);
	f = fopen(tmp, "w");
	if (!f)
		return errno;
	if (fwrite(buf, 1, len, f) != len)
		err = EIO;
	if (fclose(f) && !err)
		err = errno;
	if (!err && rename(tmp, path))
		err = errno;
	return err;
}

static void xchg_put(const char *name, const void *buf, size_t len)
{
	int err = xchg_leave(name, buf, len);

	ck_assert_msg(!err, "node %d: cannot leave %s: %s", node, name,
		      strerror(err));
}

static void xchg_pause(void)
{
	struct timespec pause = { 0, XCHG_POLL_MS * 1000 * 1000 };

	nanosleep(&pause, NULL);
}

/* Wait, bounded, for what another node left under @name. */
static void xchg_get(const char *name, void *buf, size_t len)
{
	double start = now_secs(), looked = start, now;
	char path[512];
	int failed;

	snprintf(path, sizeof(path), "%s/%s", xchg, name);
	for (;;) {
		FILE *f = fopen(path, "r");

		if (f) {
			size_t n = fread(buf, 1, len, f);

			fclose(f);
			ck_assert_uint_eq(n, len);
			return;
		}
		now = now_secs();
		if (now - start >= xchg_wait_secs)
			break;
		if (now - looked >= 1) {
			looked = now;
			failed = failed_node();
			ck_assert_msg(failed < 0,
				      "node %d: node %d failed a test, so nothing comes under %s",
				      node, failed, path);
		}
		xchg_pause();
	}
	ck_abort_msg("node %d: nothing under %s after %d s", node, path,
		     xchg_wait_secs);
}

/* Whether another node left @name within @secs seconds; no failure. */
static bool xchg_appears(const char *name, int secs)
{
	double until = now_secs() + secs;
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", xchg, name);
	for (;;) {
		if (!access(path, F_OK))
			return true;
		if (now_secs() >= until)
			return false;
		xchg_pause();
	}
}

/* A marker another node waits for. */
static void xchg_signal(const char *name)
{
	xchg_put(name, "1", 1);
}

static void xchg_wait(const char *name)
{
	char one;

	xchg_get(name, &one, 1);
}

static void init(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	vmm_use_device(0);
}

static CUmemAllocationProp fabric_prop(CUdevice dev)
{
	CUmemAllocationProp prop = vmm_prop(dev);

	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_FABRIC;
	return prop;
}

/* Fabric memory on @dev, mapped read-write for it, bytes i = i * 7 + 1. */
static struct vmm_buf fabric_buf(CUdevice dev, size_t size)
{
	CUmemAllocationProp prop = fabric_prop(dev);
	struct vmm_buf buf = { .size = size };
	volatile unsigned char *p;
	size_t i;

	ck_assert_int_eq(cuMemCreate(&buf.handle, size, &prop, 0), CUDA_SUCCESS);
	buf.va = vmm_reserve(size);
	ck_assert_int_eq(cuMemMap(buf.va, size, 0, buf.handle, 0), CUDA_SUCCESS);
	ck_assert_int_eq(vmm_set_access(buf.va, size, dev,
			CU_MEM_ACCESS_FLAGS_PROT_READWRITE), CUDA_SUCCESS);
	p = vmm_bytes(buf.va);
	for (i = 0; i < size; i++)
		p[i] = (unsigned char)(i * 7 + 1);
	return buf;
}

/* Export @buf's memory and leave its fabric handle under @name. */
static void export_to(const struct vmm_buf *buf, const char *name)
{
	CUmemFabricHandle fh;

	ck_assert_int_eq(cuMemExportToShareableHandle(&fh, buf->handle,
			CU_MEM_HANDLE_TYPE_FABRIC, 0), CUDA_SUCCESS);
	xchg_put(name, &fh, FH_SIZE);
}

static CUresult import_from(const char *name,
			    CUmemGenericAllocationHandle *handle)
{
	CUmemFabricHandle fh;

	xchg_get(name, &fh, FH_SIZE);
	return cuMemImportFromShareableHandle(handle, &fh,
					      CU_MEM_HANDLE_TYPE_FABRIC);
}

/* Another node's memory, imported and mapped read-write for device 0. */
static struct vmm_buf import_map(const char *name, size_t size)
{
	struct vmm_buf buf = { .size = size };

	ck_assert_int_eq(import_from(name, &buf.handle), CUDA_SUCCESS);
	buf.va = vmm_reserve(size);
	ck_assert_int_eq(cuMemMap(buf.va, size, 0, buf.handle, 0), CUDA_SUCCESS);
	ck_assert_int_eq(vmm_set_access(buf.va, size, 0,
			CU_MEM_ACCESS_FLAGS_PROT_READWRITE), CUDA_SUCCESS);
	return buf;
}

/*
 * One assertion for the range, not one a byte: each passing assertion is a
 * write(2) to Check's parent, and millions of them took minutes of a
 * debug node's CPU.
 */
static void assert_pattern(CUdeviceptr va, size_t from, size_t to,
			   unsigned int mul, unsigned int add)
{
	volatile unsigned char *p = vmm_bytes(va);
	size_t i;

	for (i = from; i < to && p[i] == (unsigned char)(i * mul + add); i++)
		;
	ck_assert_msg(i == to, "node %d: byte %zu is %u, not %u", node, i,
		      p[i], (unsigned char)(i * mul + add));
}

START_TEST(each_node_owns_its_gpus)
{
	CUuuid mine[GPUS_PER_NODE], theirs[GPUS_PER_NODE];
	char name[32];
	int i, j, k;

	init();
	ck_assert_int_eq(vmm_device_count(), GPUS_PER_NODE);
	for (i = 0; i < GPUS_PER_NODE; i++)
		ck_assert_int_eq(cuDeviceGetUuid(&mine[i], i), CUDA_SUCCESS);
	snprintf(name, sizeof(name), "uuids.%d", node);
	xchg_put(name, mine, sizeof(mine));
	/* No GPU is another node's too. */
	for (k = 0; k < nodes; k++) {
		if (k == node)
			continue;
		snprintf(name, sizeof(name), "uuids.%d", k);
		xchg_get(name, theirs, sizeof(theirs));
		for (i = 0; i < GPUS_PER_NODE; i++)
			for (j = 0; j < GPUS_PER_NODE; j++)
				ck_assert(memcmp(&mine[i], &theirs[j],
						 sizeof(CUuuid)));
	}
}
END_TEST

/*
 * NVML's fabric info as NCCL's MNNVL check reads it (Documentation/nvml.md):
 * every GPU of every node COMPLETED, one cluster UUID across the fabric,
 * and the same clique on the nodes of one IMEX domain (0 and 1).
 */
START_TEST(nvml_fabric_info_is_the_fabric_s)
{
	static const unsigned char zero[NVML_GPU_FABRIC_UUID_LEN];
	nvmlGpuFabricInfoV_t mine[GPUS_PER_NODE], theirs[GPUS_PER_NODE];
	nvmlDevice_t dev;
	char name[32];
	int i, k;

	ck_assert_int_eq(nvmlInit(), NVML_SUCCESS);
	for (i = 0; i < GPUS_PER_NODE; i++) {
		mine[i] = (nvmlGpuFabricInfoV_t){ .version = nvmlGpuFabricInfo_v3 };
		ck_assert_int_eq(nvmlDeviceGetHandleByIndex(i, &dev), NVML_SUCCESS);
		ck_assert_int_eq(nvmlDeviceGetGpuFabricInfoV(dev, &mine[i]),
				 NVML_SUCCESS);
		ck_assert_uint_eq(mine[i].state, NVML_GPU_FABRIC_STATE_COMPLETED);
		ck_assert_int_eq(mine[i].status, NVML_SUCCESS);
		ck_assert(memcmp(mine[i].clusterUuid, zero, sizeof(zero)));
		ck_assert_mem_eq(mine[i].clusterUuid, mine[0].clusterUuid,
				 sizeof(zero));
		ck_assert_uint_eq(mine[i].cliqueId, mine[0].cliqueId);
	}
	ck_assert_int_eq(nvmlShutdown(), NVML_SUCCESS);
	snprintf(name, sizeof(name), "nvml.%d", node);
	xchg_put(name, mine, sizeof(mine));
	for (k = 0; k < nodes; k++) {
		snprintf(name, sizeof(name), "nvml.%d", k);
		xchg_get(name, theirs, sizeof(theirs));
		ck_assert_mem_eq(theirs[0].clusterUuid, mine[0].clusterUuid,
				 sizeof(zero));
		if (k < 2 && node < 2)
			ck_assert_uint_eq(theirs[0].cliqueId, mine[0].cliqueId);
	}
}
END_TEST

START_TEST(memory_written_on_one_node_is_read_on_another)
{
	struct vmm_buf buf;
	volatile unsigned char *p;
	size_t i, size;

	init();
	size = 2 * vmm_granularity();
	switch (part()) {
	case EXPORTER:
		buf = fabric_buf(1, size);
		export_to(&buf, "shared.fh");
		xchg_wait("shared.written");
		/* The second half is what node 1 wrote. */
		assert_pattern(buf.va, 0, size / 2, 7, 1);
		assert_pattern(buf.va, size / 2, size, 13, 5);
		vmm_buf_free(&buf);
		break;
	case IMPORTER:
		buf = import_map("shared.fh", size);
		assert_pattern(buf.va, 0, size, 7, 1);
		p = vmm_bytes(buf.va);
		for (i = size / 2; i < size; i++)
			p[i] = (unsigned char)(i * 13 + 5);
		xchg_signal("shared.written");
		vmm_buf_free(&buf);
		break;
	case OUTSIDER:
	case STALLER:
		break;
	}
}
END_TEST

START_TEST(import_from_another_imex_domain_is_invalid_handle)
{
	CUmemGenericAllocationHandle handle;
	struct vmm_buf buf;

	init();
	switch (part()) {
	case EXPORTER:
		buf = fabric_buf(0, vmm_granularity());
		export_to(&buf, "outside.fh");
		xchg_wait("outside.tried");
		vmm_buf_free(&buf);
		break;
	case OUTSIDER:
		ck_assert_int_eq(import_from("outside.fh", &handle),
				 CUDA_ERROR_INVALID_HANDLE);
		xchg_signal("outside.tried");
		break;
	case IMPORTER:
	case STALLER:
		break;
	}
}
END_TEST

START_TEST(import_without_an_imex_channel_is_not_permitted)
{
	CUmemGenericAllocationHandle handle;
	struct vmm_buf buf;

	/* A channel that does not exist: this process gets none. */
	if (part() == IMPORTER)
		ck_assert_int_eq(setenv("CUMC_IMEX_CHANNEL", "99", 1), 0);
	init();
	switch (part()) {
	case EXPORTER:
		buf = fabric_buf(0, vmm_granularity());
		export_to(&buf, "nochannel.fh");
		xchg_wait("nochannel.tried");
		vmm_buf_free(&buf);
		break;
	case IMPORTER:
		ck_assert_int_eq(import_from("nochannel.fh", &handle),
				 CUDA_ERROR_NOT_PERMITTED);
		xchg_signal("nochannel.tried");
		break;
	case OUTSIDER:
	case STALLER:
		break;
	}
}
END_TEST

/* Nodes 0 and 1 meet at @step: each says it got there, then waits for the other. */
static void pair_barrier(const char *step)
{
	char mine[64], theirs[64];

	snprintf(mine, sizeof(mine), "%s.%d", step, node);
	snprintf(theirs, sizeof(theirs), "%s.%d", step, !node);
	xchg_signal(mine);
	xchg_wait(theirs);
}

/*
 * Nodes 0 and 1 tell each other at @step whether their part went as it
 * should, before either asserts anything: whether both did. A node whose
 * part failed lets the other end at once, not at a timeout.
 */
static bool pair_agree(const char *step, bool ok)
{
	char mine[64], theirs[64], mine_ok = ok, theirs_ok;

	snprintf(mine, sizeof(mine), "%s.%d", step, node);
	snprintf(theirs, sizeof(theirs), "%s.%d", step, !node);
	xchg_put(mine, &mine_ok, 1);
	xchg_get(theirs, &theirs_ok, 1);
	return ok && theirs_ok;
}

#define MC_ELEMENTS 1024
#define MC_MEMBERS (2 * GPUS_PER_NODE)

/* A member's element @i: its rank in the team (node-major) and @i. */
static uint32_t mc_value(int rank, size_t i)
{
	return rank * 1000 + i;
}

/*
 * A multicast object of node 0 with the 4 GPUs of node 0 and the 4 of
 * node 1: created and exported on node 0, imported on node 1, each node
 * adding and binding its own GPUs. multimem ld_reduce, st and red from
 * either node reach every member on both, element by element.
 */
START_TEST(multicast_team_spans_nodes)
{
	CUmulticastObjectProp prop = {
		.numDevices = MC_MEMBERS,
		.handleTypes = CU_MEM_HANDLE_TYPE_FABRIC,
	};
	CUmemGenericAllocationHandle mc, mem[GPUS_PER_NODE];
	CUdeviceptr mc_va, uc_va[GPUS_PER_NODE];
	static uint32_t out[MC_ELEMENTS], slice[MC_ELEMENTS];
	CUmemFabricHandle fh;
	size_t size, i, half = MC_ELEMENTS / 2;
	uint32_t want_sum;
	int d, r;

	init();
	if (part() == OUTSIDER) {
		ck_assert_int_eq(import_from("mc.fh", &mc),
				 CUDA_ERROR_INVALID_HANDLE);
		return;
	}
	if (part() == STALLER)
		return;
	ck_assert_int_eq(cuMulticastGetGranularity(&size, &prop,
			CU_MULTICAST_GRANULARITY_RECOMMENDED), CUDA_SUCCESS);
	prop.size = size;
	if (part() == EXPORTER) {
		ck_assert_int_eq(cuMulticastCreate(&mc, &prop), CUDA_SUCCESS);
		ck_assert_int_eq(cuMemExportToShareableHandle(&fh, mc,
				CU_MEM_HANDLE_TYPE_FABRIC, 0), CUDA_SUCCESS);
		xchg_put("mc.fh", &fh, FH_SIZE);
	} else {
		ck_assert_int_eq(import_from("mc.fh", &mc), CUDA_SUCCESS);
	}
	for (d = 0; d < GPUS_PER_NODE; d++)
		ck_assert_int_eq(cuMulticastAddDevice(mc, d), CUDA_SUCCESS);
	/* Each bind waits for the other node's devices. */
	for (d = 0; d < GPUS_PER_NODE; d++) {
		struct vmm_buf buf = fabric_buf(d, size);

		mem[d] = buf.handle;
		uc_va[d] = buf.va;
		ck_assert_int_eq(cuMulticastBindMem(mc, 0, mem[d], 0, size, 0),
				 CUDA_SUCCESS);
	}
	mc_va = vmm_reserve(size);
	ck_assert_int_eq(cuMemMap(mc_va, size, 0, mc, 0), CUDA_SUCCESS);
	ck_assert_int_eq(vmm_set_access(mc_va, size, 0,
			CU_MEM_ACCESS_FLAGS_PROT_READWRITE), CUDA_SUCCESS);

	/* ld_reduce: every member of both nodes, in every element. */
	for (d = 0; d < GPUS_PER_NODE; d++)
		for (i = 0; i < MC_ELEMENTS; i++)
			((uint32_t *)vmm_ptr(uc_va[d]))[i] =
				mc_value(node * GPUS_PER_NODE + d, i);
	pair_barrier("mc.filled");
	ck_assert_int_eq(cumcMultimemLdReduce(out, mc_va, MC_ELEMENTS, CUMC_U32,
					      CUMC_OP_ADD), CUDA_SUCCESS);
	for (i = 0; i < MC_ELEMENTS; i++) {
		for (want_sum = 0, r = 0; r < MC_MEMBERS; r++)
			want_sum += mc_value(r, i);
		ck_assert_uint_eq(out[i], want_sum);
	}
	ck_assert_int_eq(cumcMultimemLdReduce(out, mc_va, MC_ELEMENTS, CUMC_U32,
					      CUMC_OP_MAX), CUDA_SUCCESS);
	for (i = 0; i < MC_ELEMENTS; i++)
		ck_assert_uint_eq(out[i], mc_value(MC_MEMBERS - 1, i));
	pair_barrier("mc.reduced");

	/* st: each node stores half; every member holds both halves. */
	for (i = 0; i < half; i++)
		slice[i] = 0xabc00000 + node * half + i;
	ck_assert_int_eq(cumcMultimemSt(mc_va + node * half * 4, slice,
					half * 4), CUDA_SUCCESS);
	pair_barrier("mc.stored");
	for (d = 0; d < GPUS_PER_NODE; d++)
		for (i = 0; i < MC_ELEMENTS; i++)
			ck_assert_uint_eq(((uint32_t *)vmm_ptr(uc_va[d]))[i],
					  0xabc00000 + i);
	pair_barrier("mc.checked");

	/* red: both nodes add into every element of every member. */
	for (d = 0; d < GPUS_PER_NODE; d++)
		memset(vmm_ptr(uc_va[d]), 0, MC_ELEMENTS * 4);
	pair_barrier("mc.zeroed");
	for (i = 0; i < MC_ELEMENTS; i++)
		slice[i] = node + 1;
	ck_assert_int_eq(cumcMultimemRed(mc_va, slice, MC_ELEMENTS, CUMC_U32,
					 CUMC_OP_ADD), CUDA_SUCCESS);
	pair_barrier("mc.added");
	for (d = 0; d < GPUS_PER_NODE; d++)
		for (i = 0; i < MC_ELEMENTS; i++)
			ck_assert_uint_eq(((uint32_t *)vmm_ptr(uc_va[d]))[i], 3);
	pair_barrier("mc.done");

	ck_assert_int_eq(cuMemUnmap(mc_va, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(mc_va, size), CUDA_SUCCESS);
	for (d = 0; d < GPUS_PER_NODE; d++) {
		ck_assert_int_eq(cuMulticastUnbind(mc, d, 0, size), CUDA_SUCCESS);
		ck_assert_int_eq(cuMemUnmap(uc_va[d], size), CUDA_SUCCESS);
		ck_assert_int_eq(cuMemAddressFree(uc_va[d], size), CUDA_SUCCESS);
		ck_assert_int_eq(cuMemRelease(mem[d]), CUDA_SUCCESS);
	}
	ck_assert_int_eq(cuMemRelease(mc), CUDA_SUCCESS);
}
END_TEST

/* Run "sh -c CMD" (printf-style): its exit status, -1 if it did not exit. */
static int __attribute__((format(printf, 1, 2))) run(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	int status;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	status = system(cmd);
	return status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * uid 65534 on node 0 connects to node 1's daemon from node 0's address:
 * a silent connection, then HELLO as node 0 and a CALL asking for node
 * 1's export (CUMK_REMOTE_EXPORT_GET, op 1), in the protocol before
 * authentication and in the current one. Nothing comes back, node 1's
 * kernel runs nothing, node 0 stays connected: node 1 still imports its
 * memory. The domain's key file is not that user's to read.
 */
START_TEST(rogue_peer_neither_cuts_off_nor_calls)
{
	const char *config = getenv("CUMC_IMEX_CONFIG");
	CUmemFabricHandle fh;
	struct vmm_buf buf, mine;
	char cmd[2048], hex[2 * FH_SIZE + 1];
	const char *rogue = "setpriv --reuid=65534 --regid=65534 --clear-groups";
	size_t g, i;

	init();
	g = vmm_granularity();
	switch (part()) {
	case EXPORTER:
		buf = fabric_buf(0, g);
		export_to(&buf, "rogue.fh");
		xchg_get("rogue1.fh", &fh, FH_SIZE);
		for (i = 0; i < FH_SIZE; i++)
			sprintf(hex + 2 * i, "%02x", ((unsigned char *)&fh)[i]);
		/* The key file, as root reads its name; that user cannot read it. */
		ck_assert_ptr_nonnull(config);
		snprintf(cmd, sizeof(cmd),
			 "k=$(sed -n s/^IMEX_AUTH_SECRET_FILE=//p %s) && test -s \"$k\" && "
			 "! %s cat \"$k\" </dev/null >/dev/null 2>&1", config, rogue);
		ck_assert_int_eq(run("%s", cmd), 0);
		snprintf(cmd, sizeof(cmd),
			 "exec </dev/null; "
			 "u=$(build/tools/cumcctl fabric | awk 'NR == 2 { print $3 }' | tr -d -) && { "
			 "%s tools/tests/imex-rogue connect 10.77.0.1 10.77.0.2 50000 2 && "
			 "%s tools/tests/imex-rogue call 10.77.0.1 10.77.0.2 50000 1 0 1 $u 1 %s && "
			 "%s tools/tests/imex-rogue call 10.77.0.1 10.77.0.2 50000 2 0 1 $u 1 %s; }",
			 rogue, rogue, hex, rogue, hex);
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd),
			 " >%s/rogue.out 2>&1", xchg);
		ck_assert_int_eq(run("%s", cmd), 0);
		/* Both were heard, and turned away: closed, never answered. */
		snprintf(cmd, sizeof(cmd),
			 "cat %s/rogue.out >&2; test $(grep -c '^closed' %s/rogue.out) = 2 && "
			 "! grep -q 'got REPLY' %s/rogue.out", xchg, xchg, xchg);
		ck_assert_msg(run("%s", cmd) == 0,
			      "the rogue peer was not turned away, or got a REPLY");
		xchg_signal("rogue.done");
		xchg_wait("rogue.imported");
		vmm_buf_free(&buf);
		break;
	case IMPORTER:
		mine = fabric_buf(3, g);
		export_to(&mine, "rogue1.fh");
		xchg_wait("rogue.done");
		buf = import_map("rogue.fh", g);
		assert_pattern(buf.va, 0, g, 7, 1);
		vmm_buf_free(&buf);
		vmm_buf_free(&mine);
		xchg_signal("rogue.imported");
		break;
	case OUTSIDER:
	case STALLER:
		break;
	}
}
END_TEST

/* Kill this node's daemon, start it again, wait until node @peer connects. */
static void restart_own_daemon(int peer)
{
	const char *pidfile = getenv("CUMC_IMEX_PIDFILE");
	const char *config = getenv("CUMC_IMEX_CONFIG");
	const char *dir = getenv("CUMC_FABRIC_DIR");
	char cmd[1024], log[512], want[64];
	int pid = 0, tries;
	FILE *f;

	ck_assert_msg(pidfile && config && dir, "not a node with a daemon");
	f = fopen(pidfile, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%d", &pid), 1);
	fclose(f);
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	for (tries = 0; tries < xchg_wait_secs && !(kill(pid, 0) && errno == ESRCH);
	     tries++)
		sleep(1);
	snprintf(log, sizeof(log), "%s/imex/node%d.restart.log", dir, node);
	/* A session of its own: Check kills the test's process group. */
	snprintf(cmd, sizeof(cmd),
		 "setsid build/tools/cumc-imex -c %s >%s 2>&1 </dev/null & echo $! >%s",
		 config, log, pidfile);
	ck_assert_int_eq(run("%s", cmd), 0);
	snprintf(want, sizeof(want), "cumc-imex: node %d connected", peer);
	snprintf(cmd, sizeof(cmd), "grep -q '%s' %s", want, log);
	for (tries = 0; tries < xchg_wait_secs && run("%s", cmd); tries++)
		sleep(1);
	ck_assert_msg(!run("%s", cmd), "node %d did not connect to the restarted daemon",
		      peer);
}

/* Import node @from's export @name, trying for a while: its node joins in turn. */
static struct vmm_buf import_map_once_back(const char *name, size_t size)
{
	CUmemGenericAllocationHandle handle;
	CUresult res = CUDA_ERROR_INVALID_HANDLE;
	int tries;

	for (tries = 0; tries < 30 && res != CUDA_SUCCESS; tries++) {
		res = import_from(name, &handle);
		if (res != CUDA_SUCCESS)
			sleep(1);
	}
	ck_assert_int_eq(res, CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(handle), CUDA_SUCCESS);
	return import_map(name, size);
}

/*
 * Node 1's daemon is killed (its node cut off: node 0 loses it, it loses
 * node 0's GPUs) and started again: the nodes take each other back. What
 * node 1 had mapped of node 0 stays lost (SIGBUS); imports made afterwards
 * work both ways.
 */
START_TEST(a_restarted_daemon_rejoins)
{
	struct vmm_buf buf, old, theirs;
	size_t g;

	init();
	g = vmm_granularity();
	switch (part()) {
	case EXPORTER:
		buf = fabric_buf(1, g);
		export_to(&buf, "rejoin.fh");
		xchg_wait("rejoin.back");
		theirs = import_map_once_back("rejoin1.fh", g);
		assert_pattern(theirs.va, 0, g, 7, 1);
		vmm_buf_free(&theirs);
		xchg_signal("rejoin.imported0");
		xchg_wait("rejoin.done");
		vmm_buf_free(&buf);
		break;
	case IMPORTER:
		old = import_map("rejoin.fh", g);
		assert_pattern(old.va, 0, g, 7, 1);
		restart_own_daemon(0);
		ck_assert_int_eq(vmm_touch_in_child(old.va, false), SIGBUS);
		buf = import_map_once_back("rejoin.fh", g);
		assert_pattern(buf.va, 0, g, 7, 1);
		ck_assert_int_eq(vmm_touch_in_child(old.va, false), SIGBUS);
		theirs = fabric_buf(2, g);
		export_to(&theirs, "rejoin1.fh");
		xchg_signal("rejoin.back");
		xchg_wait("rejoin.imported0");
		vmm_buf_free(&buf);
		vmm_buf_free(&old);
		vmm_buf_free(&theirs);
		xchg_signal("rejoin.done");
		break;
	case OUTSIDER:
	case STALLER:
		break;
	}
}
END_TEST

/* cumcctl ARGS as root, which must succeed. */
#define ctl(...) ck_assert_int_eq(run("build/tools/cumcctl " __VA_ARGS__), 0)

/* Set module parameter @name to @value. */
static void set_param(const char *name, const char *value)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/cumc/parameters/%s", name);
	f = fopen(path, "w");
	ck_assert_msg(f, "cannot write %s", path);
	ck_assert_int_gt(fprintf(f, "%s\n", value), 0);
	ck_assert_int_eq(fclose(f), 0);
}

/* The module's count @what of /sys/kernel/debug/cumc/objects. */
static long object_count(const char *what)
{
	char name[32];
	long value, n = -1;
	FILE *f;

	f = fopen("/sys/kernel/debug/cumc/objects", "r");
	ck_assert_msg(f, "cannot read the module's object counts");
	while (fscanf(f, "%31s %ld", name, &value) == 2)
		if (!strcmp(name, what))
			n = value;
	fclose(f);
	ck_assert_msg(n >= 0, "no %s count in debugfs", what);
	return n;
}

/* The holds this node keeps for other nodes' imports. */
static long holds(void)
{
	return object_count("holds");
}

/* Wait, bounded, until this node keeps at most @want holds for others. */
static void wait_holds(long want, int secs)
{
	double until = now_secs() + secs;
	long n;

	while ((n = holds()) > want && now_secs() < until)
		usleep(100 * 1000);
	ck_assert_msg(n <= want, "node %d: %ld holds for other nodes, not %ld, after %d s",
		      node, n, want, secs);
}

/*
 * The holds this node keeps once what earlier tests' nodes let go of is
 * let go of here (none, unless an earlier test failed).
 */
static long holds_settled(void)
{
	double until = now_secs() + 30;

	while (holds() && now_secs() < until)
		usleep(100 * 1000);
	return holds();
}

/* The daemon's pid (fabric-node's CUMC_IMEX_PIDFILE). */
static int own_daemon(void)
{
	const char *pidfile = getenv("CUMC_IMEX_PIDFILE");
	int pid = 0;
	FILE *f;

	ck_assert_msg(pidfile, "no CUMC_IMEX_PIDFILE");
	f = fopen(pidfile, "r");
	ck_assert_msg(f, "cannot read %s", pidfile);
	ck_assert_int_eq(fscanf(f, "%d", &pid), 1);
	fclose(f);
	ck_assert_int_gt(pid, 1);
	return pid;
}

/* A fabric-shareable multicast object of both nodes' 8 GPUs, smallest. */
static CUmulticastObjectProp team_prop(void)
{
	CUmulticastObjectProp prop = {
		.numDevices = MC_MEMBERS,
		.handleTypes = CU_MEM_HANDLE_TYPE_FABRIC,
	};
	size_t size;

	ck_assert_int_eq(cuMulticastGetGranularity(&size, &prop,
			CU_MULTICAST_GRANULARITY_MINIMUM), CUDA_SUCCESS);
	prop.size = size;
	return prop;
}

/* Node 0 creates a team and hands it over as @name; node 1 imports it. */
static CUmemGenericAllocationHandle team_share(const CUmulticastObjectProp *prop,
					       const char *name)
{
	CUmemGenericAllocationHandle mc;
	CUmemFabricHandle fh;

	if (part() == EXPORTER) {
		ck_assert_int_eq(cuMulticastCreate(&mc, prop), CUDA_SUCCESS);
		ck_assert_int_eq(cuMemExportToShareableHandle(&fh, mc,
				CU_MEM_HANDLE_TYPE_FABRIC, 0), CUDA_SUCCESS);
		xchg_put(name, &fh, FH_SIZE);
	} else {
		ck_assert_int_eq(import_from(name, &mc), CUDA_SUCCESS);
	}
	return mc;
}

/* Fabric memory of @size bytes on @dev, mapped, every byte @byte. */
static struct vmm_buf filled_buf(CUdevice dev, size_t size, int byte)
{
	CUmemAllocationProp prop = fabric_prop(dev);
	struct vmm_buf buf = { .size = size };

	ck_assert_int_eq(cuMemCreate(&buf.handle, size, &prop, 0), CUDA_SUCCESS);
	buf.va = vmm_reserve(size);
	ck_assert_int_eq(cuMemMap(buf.va, size, 0, buf.handle, 0), CUDA_SUCCESS);
	ck_assert_int_eq(vmm_set_access(buf.va, size, dev,
			CU_MEM_ACCESS_FLAGS_PROT_READWRITE), CUDA_SUCCESS);
	memset(vmm_ptr(buf.va), byte, size);
	return buf;
}

/* The bindings of every team this node holds (the control plane's). */
static int bindings(void)
{
	return run("exit $(build/tools/cumcctl obj | grep -c ' bind mc_offset=')");
}

/*
 * A device of node 1 joins a team of node 0's whose answer comes late
 * (remote-late: after node 1's fm_timeout_ms): the join waits for it and
 * takes effect on both nodes, as a join cannot be undone; the team then
 * completes and binds.
 */
START_TEST(late_join_takes_effect_on_every_node)
{
	CUmulticastObjectProp prop;
	CUmemGenericAllocationHandle mc;
	struct vmm_buf buf;
	double start;
	CUresult res;
	bool late;
	int d;

	init();
	if (part() != EXPORTER && part() != IMPORTER)
		return;
	prop = team_prop();
	mc = team_share(&prop, "ljoin.fh");
	if (part() == EXPORTER) {
		xchg_wait("ljoin.imported");
		ctl("fault set remote-late once");
		xchg_signal("ljoin.armed");
	} else {
		xchg_signal("ljoin.imported");
		xchg_wait("ljoin.armed");
	}
	start = now_secs();
	for (d = 0, res = CUDA_SUCCESS; d < GPUS_PER_NODE && !res; d++)
		res = cuMulticastAddDevice(mc, d);
	late = now_secs() - start > 5.0;
	if (!pair_agree("ljoin.joined",
			!res && (part() == EXPORTER || late))) {
		if (part() == EXPORTER)
			ctl("fault clear remote-late");
		ck_assert_int_eq(res, CUDA_SUCCESS);
		ck_assert_msg(part() == EXPORTER || late,
			      "the join was not late: the fault did not strike it");
		ck_abort_msg("node %d's joins failed", !node);
	}
	/* Complete on both nodes: a bind waits for no one. */
	buf = filled_buf(0, prop.size, 0);
	ck_assert_int_eq(cuMulticastBindMem(mc, 0, buf.handle, 0, prop.size, 0),
			 CUDA_SUCCESS);
	pair_barrier("ljoin.bound");
	ck_assert_int_eq(cuMulticastUnbind(mc, 0, 0, prop.size), CUDA_SUCCESS);
	pair_barrier("ljoin.unbound");
	if (part() == EXPORTER)
		ctl("fault clear remote-late");
	vmm_buf_free(&buf);
	ck_assert_int_eq(cuMemRelease(mc), CUDA_SUCCESS);
}
END_TEST

/*
 * Node 1 binds its GPU 0's memory into node 0's team while node 0
 * answers late (remote-late): node 1 gives up (its fm_timeout_ms), gives
 * its memory back and allocates anew, as its caller would. Node 0 binds
 * late: it must then unbind again, so that no node keeps a binding of
 * memory its owner was told is not bound (8 bindings for 7, before).
 */
START_TEST(bind_timed_out_on_a_replica_is_undone_on_the_origin)
{
	CUmulticastObjectProp prop;
	CUmemGenericAllocationHandle mc;
	struct vmm_buf buf[GPUS_PER_NODE], again = { 0 };
	double armed, until;
	CUresult res;
	bool ok;
	int d, n;

	init();
	if (part() != EXPORTER && part() != IMPORTER)
		return;
	prop = team_prop();
	mc = team_share(&prop, "ubind.fh");
	for (d = 0; d < GPUS_PER_NODE; d++)
		ck_assert_int_eq(cuMulticastAddDevice(mc, d), CUDA_SUCCESS);
	/* Node 0 binds its 4 GPUs, node 1 its GPUs 1 to 3. */
	for (d = 0; d < GPUS_PER_NODE; d++) {
		buf[d] = filled_buf(d, prop.size, 0);
		if (part() == EXPORTER || d > 0)
			ck_assert_int_eq(cuMulticastBindMem(mc, 0, buf[d].handle,
					0, prop.size, 0), CUDA_SUCCESS);
	}
	pair_barrier("ubind.bound");
	if (part() == EXPORTER) {
		ck_assert_int_eq(bindings(), MC_MEMBERS - 1);
		ctl("fault set remote-late once");
		armed = now_secs();
		xchg_signal("ubind.armed");
		xchg_wait("ubind.failed");
		/* The late bind lands a second after node 1 gave up; then its undo. */
		until = armed + 30;
		do {
			usleep(200 * 1000);
			n = bindings();
		} while ((n != MC_MEMBERS - 1 || now_secs() < armed + 7) &&
			 now_secs() < until);
		ctl("fault clear remote-late");
		ok = pair_agree("ubind.checked", n == MC_MEMBERS - 1);
		ck_assert_msg(n == MC_MEMBERS - 1,
			      "node 0 binds %d members after node 1's bind failed, not %d",
			      n, MC_MEMBERS - 1);
	} else {
		xchg_wait("ubind.armed");
		res = cuMulticastBindMem(mc, 0, buf[0].handle, 0, prop.size, 0);
		if (res != CUDA_SUCCESS) {
			/* Given back; another allocation may take its place. */
			vmm_buf_free(&buf[0]);
			again = filled_buf(0, prop.size, 0x5a);
		}
		xchg_signal("ubind.failed");
		ok = pair_agree("ubind.checked", res != CUDA_SUCCESS);
		ck_assert_int_ne(res, CUDA_SUCCESS);
	}
	ck_assert_msg(ok, "node %d's part failed", !node);
	for (d = 0; d < GPUS_PER_NODE; d++) {
		if (part() == EXPORTER || d > 0) {
			ck_assert_int_eq(cuMulticastUnbind(mc, d, 0, prop.size),
					 CUDA_SUCCESS);
			vmm_buf_free(&buf[d]);
		}
	}
	if (part() == IMPORTER)
		vmm_buf_free(&again);
	ck_assert_int_eq(cuMemRelease(mc), CUDA_SUCCESS);
	pair_barrier("ubind.done");
}
END_TEST

#define DROP_IMPORTS 40

/*
 * Every other message of node 1's kernel to its daemon is refused, as by
 * a full socket buffer (imex-send): node 1 imports node 0's allocation 40
 * times, in a process that exits without releasing them (its /dev/cumc
 * closes). Every import works, and node 0 keeps no hold after: nothing
 * was dropped.
 */
START_TEST(dropped_messages_to_the_daemon_leak_no_hold)
{
	CUmemGenericAllocationHandle handle;
	struct vmm_buf buf;
	int i, status;
	long base;
	pid_t pid;

	if (part() != EXPORTER && part() != IMPORTER)
		return;
	if (part() == EXPORTER) {
		init();
		base = holds_settled();
		buf = fabric_buf(0, vmm_granularity());
		export_to(&buf, "drop.fh");
		xchg_wait("drop.done");
		wait_holds(base, 60);
		vmm_buf_free(&buf);
		return;
	}
	ctl("fault set imex-send every 2");
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		init();
		for (i = 0; i < DROP_IMPORTS; i++)
			if (import_from("drop.fh", &handle) != CUDA_SUCCESS)
				_exit(10 + i);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ctl("fault clear imex-send");
	xchg_signal("drop.done");
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "import %d of %d failed", WEXITSTATUS(status) - 10,
		      DROP_IMPORTS);
}
END_TEST

/* Node 0 keeps at most max_node_holds holds for node 1. */
START_TEST(holds_per_node_are_limited)
{
	CUmemGenericAllocationHandle handle[5];
	CUresult res[5], again;
	struct vmm_buf buf;
	long base;
	int i;

	init();
	if (part() == EXPORTER) {
		base = holds_settled();
		set_param("max_node_holds", "4");
		buf = fabric_buf(1, vmm_granularity());
		export_to(&buf, "limit.fh");
		xchg_wait("limit.done");
		set_param("max_node_holds", "4096");
		wait_holds(base, 60);
		vmm_buf_free(&buf);
	} else if (part() == IMPORTER) {
		for (i = 0; i < 5; i++)
			res[i] = import_from("limit.fh", &handle[i]);
		/* The fifth refused; once one is let go of, one more works. */
		if (!res[0])
			ck_assert_int_eq(cuMemRelease(handle[0]), CUDA_SUCCESS);
		again = import_from("limit.fh", &handle[0]);
		for (i = 0; i < 5; i++)
			if (!(i ? res[i] : again))
				cuMemRelease(handle[i]);
		xchg_signal("limit.done");
		for (i = 0; i < 4; i++)
			ck_assert_int_eq(res[i], CUDA_SUCCESS);
		ck_assert_int_eq(res[4], CUDA_ERROR_OUT_OF_MEMORY);
		ck_assert_int_eq(again, CUDA_SUCCESS);
	}
}
END_TEST

#define ZERO_SIZE (1UL << 30)
#define OWNER_CGROUP "/sys/fs/cgroup/cumc-owner"

/* This process in a memory cgroup of its own: whether there is one. */
static int enter_owner_cgroup(void)
{
	struct stat st;

	if (stat("/sys/fs/cgroup/cgroup.controllers", &st) &&
	    mount("none", "/sys/fs/cgroup", "cgroup2", 0, NULL))
		return 0;
	if (run("echo +memory >/sys/fs/cgroup/cgroup.subtree_control"))
		return 0;
	if (mkdir(OWNER_CGROUP, 0755) && errno != EEXIST)
		return 0;
	return !run("echo %d >" OWNER_CGROUP "/cgroup.procs", (int)getpid());
}

static long owner_cgroup_bytes(void)
{
	long n = -1;
	FILE *f = fopen(OWNER_CGROUP "/memory.current", "r");

	ck_assert_msg(f, "cannot read " OWNER_CGROUP "/memory.current");
	ck_assert_int_eq(fscanf(f, "%ld", &n), 1);
	fclose(f);
	return n;
}

/*
 * Node 1 imports 1 GiB of node 0 never written, which node 0 zeroes first
 * (seconds under emulation): meanwhile another user's command there
 * (cumcctl dev, as nobody) answers before the zeroing is done (its pages,
 * counted in debugfs as each is zeroed, are not all there yet), and what
 * the zeroing costs the module is charged to the allocation's owner's
 * memory cgroup, not to the daemon's.
 */
START_TEST(zeroing_for_export_holds_back_no_other_command)
{
	CUmemAllocationProp prop = fabric_prop(1);
	CUmemGenericAllocationHandle handle;
	CUmemFabricHandle fh;
	double start, took = 0;
	long before = 0, charged = 0, pages_before = 0, zeroed = 0;
	int cgroup = 0;
	char text[32];
	CUresult res;

	if (part() == EXPORTER) {
		cgroup = enter_owner_cgroup();
		if (!cgroup)
			printf("# node 0: no memory cgroup here: the charge is not checked\n");
		init();
		ck_assert_int_eq(cuMemCreate(&handle, ZERO_SIZE, &prop, 0),
				 CUDA_SUCCESS);
		ck_assert_int_eq(cuMemExportToShareableHandle(&fh, handle,
				CU_MEM_HANDLE_TYPE_FABRIC, 0), CUDA_SUCCESS);
		if (cgroup)
			before = owner_cgroup_bytes();
		pages_before = object_count("pages");
		xchg_put("zero.fh", &fh, FH_SIZE);
		xchg_wait("zero.importing");
		usleep(500 * 1000);
		start = now_secs();
		ck_assert_int_eq(run("setpriv --reuid=65534 --regid=65534 --clear-groups build/tools/cumcctl dev >/dev/null"),
				 0);
		took = now_secs() - start;
		zeroed = object_count("pages") - pages_before;
		xchg_get("zero.imported", text, sizeof(text));
		if (cgroup)
			charged = owner_cgroup_bytes() - before;
		xchg_signal("zero.done");
		printf("# node 0: cumcctl dev took %.1f s while zeroing for node 1, which took %s s; %ld of %lu pages zeroed when it answered\n",
		       took, text, zeroed, ZERO_SIZE / getpagesize());
		ck_assert_int_eq(cuMemRelease(handle), CUDA_SUCCESS);
		if (cgroup)
			run("echo %d >/sys/fs/cgroup/cgroup.procs", (int)getpid());
		ck_assert_msg(zeroed < (long)(ZERO_SIZE / getpagesize()),
			      "cumcctl dev answered only once the zeroing was done (%.1f s)",
			      took);
		if (cgroup) {
			printf("# node 0: the owner's cgroup was charged %ld bytes\n",
			       charged);
			ck_assert_msg(charged >= 1L << 20,
				      "the owner's cgroup was charged %ld bytes",
				      charged);
		}
	} else if (part() == IMPORTER) {
		init();
		xchg_get("zero.fh", &fh, FH_SIZE);
		xchg_signal("zero.importing");
		start = now_secs();
		/* Each try waits fm_timeout_ms at most: until it is zeroed. */
		do {
			res = cuMemImportFromShareableHandle(&handle, &fh,
					CU_MEM_HANDLE_TYPE_FABRIC);
		} while (res == CUDA_ERROR_INVALID_HANDLE &&
			 now_secs() - start < xchg_wait_secs);
		snprintf(text, sizeof(text), "%31.1f", now_secs() - start);
		xchg_put("zero.imported", text, sizeof(text));
		xchg_wait("zero.done");
		ck_assert_int_eq(res, CUDA_SUCCESS);
		ck_assert_int_eq(cuMemRelease(handle), CUDA_SUCCESS);
	}
}
END_TEST

/*
 * Node 0 answers node 1's import late (remote-late): node 1 gave up
 * (INVALID_HANDLE); the late answer names a hold, which is let go of.
 */
START_TEST(late_import_answer_releases_its_hold)
{
	CUmemGenericAllocationHandle handle;
	struct vmm_buf buf;
	double armed;
	long base;

	init();
	if (part() == EXPORTER) {
		base = holds_settled();
		buf = fabric_buf(2, vmm_granularity());
		export_to(&buf, "late.fh");
		ctl("fault set remote-late once");
		armed = now_secs();
		xchg_signal("late.armed");
		xchg_wait("late.tried");
		/* The answer goes 6 s after the call came (fm_timeout_ms + 1 s). */
		while (now_secs() < armed + 8)
			usleep(200 * 1000);
		wait_holds(base, 30);
		ctl("fault clear remote-late");
		vmm_buf_free(&buf);
	} else if (part() == IMPORTER) {
		xchg_wait("late.armed");
		ck_assert_int_eq(import_from("late.fh", &handle),
				 CUDA_ERROR_INVALID_HANDLE);
		xchg_signal("late.tried");
	}
}
END_TEST

/* What a child sharing our memory reads: see read_in_child(). */
struct lease_read {
	volatile unsigned char *p;
	size_t size;
};

static int lease_read_fn(void *arg)
{
	struct lease_read *r = arg;
	size_t i;

	for (i = 0; i < r->size; i += 4096) {
		if (r->p[i] == 0xa5)
			return 1;
		if (r->p[i] != (unsigned char)(i * 7 + 1))
			return 2;
	}
	return 0;
}

/*
 * What a child sharing our address space finds at @p: 0 the pattern, 1
 * node 0's new owner's bytes, 2 anything else; or the signal that killed
 * it.
 */
static int read_in_child(volatile unsigned char *p, size_t size)
{
	static char stack[64 << 10] __attribute__((aligned(16)));
	struct lease_read r = { p, size };
	int status;
	pid_t pid;

	pid = clone(lease_read_fn, stack + sizeof(stack), CLONE_VM | SIGCHLD,
		    &r);
	ck_assert_int_ge(pid, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status);
}

/*
 * Node 3 maps node 0's memory and stops its own daemon (SIGSTOP): node 0
 * loses node 3 and lets go of its hold, and reuses the memory for another
 * owner. Node 3's kernel, hearing nothing from node 0, must have unmapped
 * it by itself (SIGBUS) before: no byte of the new owner's is ever read
 * there.
 */
START_TEST(lease_runs_out_with_the_importer_daemon_stopped)
{
	struct vmm_buf buf, reused;
	int daemon, seen, again = 0;
	double start, took;
	long base;
	size_t g;

	init();
	g = vmm_granularity();
	if (part() == EXPORTER) {
		base = holds_settled();
		buf = fabric_buf(3, g);
		export_to(&buf, "lease.fh");
		xchg_wait("lease.stopped");
		/* Only node 3's hold keeps it now. */
		vmm_buf_free(&buf);
		wait_holds(base, xchg_wait_secs);
		reused = filled_buf(3, g, 0xa5);
		xchg_signal("lease.reused");
		xchg_wait("lease.checked");
		vmm_buf_free(&reused);
	} else if (part() == STALLER) {
		buf = import_map("lease.fh", g);
		assert_pattern(buf.va, 0, g, 7, 1);
		daemon = own_daemon();
		ck_assert_int_eq(kill(daemon, SIGSTOP), 0);
		xchg_signal("lease.stopped");
		start = now_secs();
		do {
			seen = read_in_child(vmm_bytes(buf.va), g);
			if (!seen)
				usleep(200 * 1000);
		} while (!seen && now_secs() - start < xchg_wait_secs);
		took = now_secs() - start;
		/* And stays so once node 0 reused it. */
		if (seen == SIGBUS && xchg_appears("lease.reused",
						     xchg_wait_secs))
			again = read_in_child(vmm_bytes(buf.va), g);
		/* Whatever was seen: the daemon goes on, node 0 ends. */
		kill(daemon, SIGCONT);
		xchg_signal("lease.checked");
		ck_assert_msg(seen != 1, "node 3 read node 0's new owner's data");
		ck_assert_msg(seen == SIGBUS, "node 3 read %d after %.1f s",
			      seen, took);
		printf("# node 3: unmapped %.1f s after its daemon stopped\n",
		       took);
		ck_assert_int_eq(again, SIGBUS);
		vmm_buf_free(&buf);
	}
}
END_TEST

/* Node 0's VM is killed while node 1 maps its memory. */
START_TEST(node_lost_mid_use_raises_sigbus)
{
	CUmemGenericAllocationHandle handle;
	struct vmm_buf buf;
	int tries, sig = 0;
	size_t g;

	init();
	g = vmm_granularity();
	switch (part()) {
	case EXPORTER:
		/* Released here, held for node 1 until node 0 is stopped. */
		buf = fabric_buf(2, g);
		export_to(&buf, "lost.fh");
		xchg_wait("lost.mapped");
		vmm_buf_free(&buf);
		break;
	case IMPORTER:
		buf = import_map("lost.fh", g);
		assert_pattern(buf.va, 0, g, 7, 1);
		xchg_signal("lost.mapped");
		/* Node 0 has its results out first. */
		xchg_wait("node0.finished");
		ck_assert_int_eq(system("scripts/vm-stop-node 0"), 0);
		/* Its daemon notices the node's silence within its timeout. */
		for (tries = 0; tries < xchg_wait_secs && !sig; tries++) {
			sig = vmm_touch_in_child(buf.va, false);
			if (!sig)
				sleep(1);
		}
		ck_assert_int_eq(sig, SIGBUS);
		ck_assert_int_eq(import_from("lost.fh", &handle),
				 CUDA_ERROR_INVALID_HANDLE);
		/* What it held is released as usual. */
		vmm_buf_free(&buf);
		break;
	case OUTSIDER:
	case STALLER:
		break;
	}
}
END_TEST

/* Stop this node's daemon as an administrator would, and see it gone. */
static void stop_own_daemon(void)
{
	struct timespec pause = { 0, 100 * 1000 * 1000 };
	const char *pidfile = getenv("CUMC_IMEX_PIDFILE");
	int pid = 0, tries;
	FILE *f;

	ck_assert_msg(pidfile, "no CUMC_IMEX_PIDFILE");
	f = fopen(pidfile, "r");
	ck_assert_msg(f, "cannot read %s", pidfile);
	ck_assert_int_eq(fscanf(f, "%d", &pid), 1);
	fclose(f);
	ck_assert_int_gt(pid, 1);
	ck_assert_int_eq(kill(pid, SIGTERM), 0);
	for (tries = 0; tries < xchg_wait_secs * 10; tries++) {
		if (kill(pid, 0) && errno == ESRCH)
			return;
		nanosleep(&pause, NULL);
	}
	ck_abort_msg("the IMEX daemon (pid %d) did not stop", pid);
}

START_TEST(import_with_the_daemon_stopped_is_invalid_handle)
{
	CUmemGenericAllocationHandle handle;

	init();
	if (part() == EXPORTER || part() == STALLER)
		return;
	stop_own_daemon();
	ck_assert_int_eq(import_from(part() == IMPORTER ? "lost.fh" :
				     "outside.fh", &handle),
			 CUDA_ERROR_INVALID_HANDLE);
}
END_TEST

/*
 * One test in a runner of its own, so that this node knows at once that it
 * failed and says so to the others (failed_node()); prints its result as
 * Check's verbose mode does. Whether it passed.
 */
static bool run_test(const TTest *test)
{
	Suite *s = suite_create("multinode");
	TCase *tc = tcase_create("multinode");
	SRunner *sr;
	bool passed;

	/*
	 * Each test waits for the other nodes, boots and daemons included
	 * (Check applies the multiplier itself).
	 */
	tcase_set_timeout(tc, 2 * XCHG_WAIT_SECS);
	tcase_add_test(tc, test);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_VERBOSE);
	passed = !srunner_ntests_failed(sr);
	srunner_free(sr);
	if (!passed) {
		char name[32];

		snprintf(name, sizeof(name), "failed.%d", node);
		xchg_leave(name, "1", 1);
	}
	return passed;
}

int main(void)
{
	static const TTest *const *tests[] = {
		&each_node_owns_its_gpus,
		&nvml_fabric_info_is_the_fabric_s,
		&memory_written_on_one_node_is_read_on_another,
		&import_from_another_imex_domain_is_invalid_handle,
		&import_without_an_imex_channel_is_not_permitted,
		&multicast_team_spans_nodes,
		&rogue_peer_neither_cuts_off_nor_calls,
		&a_restarted_daemon_rejoins,
		&lease_runs_out_with_the_importer_daemon_stopped,
		&late_join_takes_effect_on_every_node,
		&bind_timed_out_on_a_replica_is_undone_on_the_origin,
		&dropped_messages_to_the_daemon_leak_no_hold,
		&holds_per_node_are_limited,
		&zeroing_for_export_holds_back_no_other_command,
		&late_import_answer_releases_its_hold,
		&node_lost_mid_use_raises_sigbus,
		&import_with_the_daemon_stopped_is_invalid_handle,
	};
	const char *env = getenv("CUMC_NODE");
	int status = EXIT_SUCCESS;
	size_t i;

	xchg = getenv("CUMC_FABRIC_XCHG");
	if (!env || !xchg) {
		printf("# not a node of scripts/fabric-run: nothing to test\n");
		return EXIT_SUCCESS;
	}
	node = atoi(env);
	nodes = getenv("CUMC_NODES") ? atoi(getenv("CUMC_NODES")) : 1;
	env = getenv("CK_TIMEOUT_MULTIPLIER");
	if (env && atoi(env) > 1)
		xchg_wait_secs *= atoi(env);
	/* Each test's result as it ends: a node may be stopped before the end. */
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		if (!run_test(*tests[i]))
			status = EXIT_FAILURE;
	/*
	 * Node 1 stops this node's VM: its results are out, wait for it. Not
	 * after a failure: node 1 gives up its part then (failed_node()).
	 */
	if (node == 0 && nodes > 1 && status == EXIT_SUCCESS) {
		fflush(NULL);
		xchg_leave("node0.finished", "1", 1);
		sleep(xchg_wait_secs);
		printf("# node 0 was not stopped\n");
		return EXIT_FAILURE;
	}
	return status;
}
