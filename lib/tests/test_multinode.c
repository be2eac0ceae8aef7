// SPDX-License-Identifier: MIT
/*
 * Fabric memory across the nodes of a multi-node fabric, through libcumc
 * as a program written for the real driver uses it. Runs on every node of
 * scripts/fabric-run --nodes 3 --domain 0,1 --domain 2 (see
 * scripts/tests/test-multinode.sh): nodes 0 and 1 share an IMEX domain,
 * node 2 is alone in another. Every node runs the same tests in the same
 * order, each playing its node's part; the parts meet through files in
 * the fabric's exchange directory (CUMC_FABRIC_XCHG), as two ranks of a
 * job hand each other fabric handles through any channel they like.
 *
 * Then the fabric's defences: a user without privileges on node 0 plays
 * a rogue peer of node 1's daemon, and node 1's daemon is killed and
 * started again, its node taken back by node 0.
 *
 * The last tests lose nodes: node 0 is stopped (its VM killed) while node
 * 1 maps its memory, and then node 1 and node 2 stop their own IMEX
 * daemons.
 */
#include <check.h>
#include <cuda.h>
#include <errno.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cumc.h>
#include <nvml.h>

#include "vmm.h"

/* Each node of fabric-run has four GPUs unless told otherwise. */
#define GPUS_PER_NODE 4
/* The longest one node waits for another: boots and loads under TCG. */
#define XCHG_WAIT_SECS 300
#define FH_SIZE sizeof(CUmemFabricHandle)

enum node_part { EXPORTER, IMPORTER, OUTSIDER };

static int node, nodes;
static const char *xchg;

static enum node_part part(void)
{
	return node == 0 ? EXPORTER : node == 1 ? IMPORTER : OUTSIDER;
}

/* Leave @len bytes under @name for the other nodes, whole or not at all. */
static void xchg_put(const char *name, const void *buf, size_t len)
{
	char path[512], tmp[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", xchg, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", path, node);
	f = fopen(tmp, "w");
	ck_assert_msg(f, "cannot write %s: %s", tmp, strerror(errno));
	ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(rename(tmp, path), 0);
}

/* Wait, bounded, for what another node left under @name. */
static void xchg_get(const char *name, void *buf, size_t len)
{
	struct timespec pause = { 0, 100 * 1000 * 1000 };
	char path[512];
	int tries;

	snprintf(path, sizeof(path), "%s/%s", xchg, name);
	for (tries = 0; tries < XCHG_WAIT_SECS * 10; tries++) {
		FILE *f = fopen(path, "r");

		if (f) {
			size_t n = fread(buf, 1, len, f);

			fclose(f);
			ck_assert_uint_eq(n, len);
			return;
		}
		nanosleep(&pause, NULL);
	}
	ck_abort_msg("node %d: nothing under %s after %d s", node, path,
		     XCHG_WAIT_SECS);
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

static void assert_pattern(CUdeviceptr va, size_t from, size_t to,
			   unsigned int mul, unsigned int add)
{
	volatile unsigned char *p = vmm_bytes(va);
	size_t i;

	for (i = from; i < to; i++)
		ck_assert_msg(p[i] == (unsigned char)(i * mul + add),
			      "node %d: byte %zu is %u, not %u", node, i, p[i],
			      (unsigned char)(i * mul + add));
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

/* Run @cmd with sh: its exit status. */
static int run(const char *cmd)
{
	int status = system(cmd);

	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * uid 65534 on node 0 connects to node 1's daemon from node 0's address:
 * a silent connection, then HELLO as node 0 and a CALL asking for node
 * 1's export (CUMC_REMOTE_EXPORT_GET, op 1), in the protocol before
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
		ck_assert_int_eq(run(cmd), 0);
		snprintf(cmd, sizeof(cmd),
			 "exec </dev/null; "
			 "u=$(build/tools/cumcctl fabric | awk 'NR == 2 { print $3 }' | tr -d -) && { "
			 "%s tools/tests/imex-rogue connect 10.77.0.1 10.77.0.2 50000 2 && "
			 "%s tools/tests/imex-rogue call 10.77.0.1 10.77.0.2 50000 1 0 1 $u 1 %s && "
			 "%s tools/tests/imex-rogue call 10.77.0.1 10.77.0.2 50000 2 0 1 $u 1 %s; }",
			 rogue, rogue, hex, rogue, hex);
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd),
			 " >%s/rogue.out 2>&1", xchg);
		ck_assert_int_eq(run(cmd), 0);
		/* Both were heard, and turned away: closed, never answered. */
		snprintf(cmd, sizeof(cmd),
			 "cat %s/rogue.out >&2; test $(grep -c '^closed' %s/rogue.out) = 2 && "
			 "! grep -q 'got REPLY' %s/rogue.out", xchg, xchg, xchg);
		ck_assert_msg(run(cmd) == 0,
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
	for (tries = 0; tries < XCHG_WAIT_SECS && !(kill(pid, 0) && errno == ESRCH);
	     tries++)
		sleep(1);
	snprintf(log, sizeof(log), "%s/imex/node%d.restart.log", dir, node);
	/* A session of its own: Check kills the test's process group. */
	snprintf(cmd, sizeof(cmd),
		 "setsid build/tools/cumc-imex -c %s >%s 2>&1 </dev/null & echo $! >%s",
		 config, log, pidfile);
	ck_assert_int_eq(run(cmd), 0);
	snprintf(want, sizeof(want), "cumc-imex: node %d connected", peer);
	snprintf(cmd, sizeof(cmd), "grep -q '%s' %s", want, log);
	for (tries = 0; tries < XCHG_WAIT_SECS && run(cmd); tries++)
		sleep(1);
	ck_assert_msg(!run(cmd), "node %d did not connect to the restarted daemon",
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
		break;
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
		for (tries = 0; tries < XCHG_WAIT_SECS && !sig; tries++) {
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
	for (tries = 0; tries < XCHG_WAIT_SECS * 10; tries++) {
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
	if (part() == EXPORTER)
		return;
	stop_own_daemon();
	ck_assert_int_eq(import_from(part() == IMPORTER ? "lost.fh" :
				     "outside.fh", &handle),
			 CUDA_ERROR_INVALID_HANDLE);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("multinode");
	TCase *tc = tcase_create("multinode");
	const char *env = getenv("CUMC_NODE");
	SRunner *sr;
	int status;

	xchg = getenv("CUMC_FABRIC_XCHG");
	if (!env || !xchg) {
		printf("# not a node of scripts/fabric-run: nothing to test\n");
		return EXIT_SUCCESS;
	}
	node = atoi(env);
	nodes = getenv("CUMC_NODES") ? atoi(getenv("CUMC_NODES")) : 1;
	/* Each test waits for the other nodes, boots and daemons included. */
	tcase_set_timeout(tc, 2 * XCHG_WAIT_SECS);
	tcase_add_test(tc, each_node_owns_its_gpus);
	tcase_add_test(tc, nvml_fabric_info_is_the_fabric_s);
	tcase_add_test(tc, memory_written_on_one_node_is_read_on_another);
	tcase_add_test(tc, import_from_another_imex_domain_is_invalid_handle);
	tcase_add_test(tc, import_without_an_imex_channel_is_not_permitted);
	tcase_add_test(tc, multicast_team_spans_nodes);
	tcase_add_test(tc, rogue_peer_neither_cuts_off_nor_calls);
	tcase_add_test(tc, a_restarted_daemon_rejoins);
	tcase_add_test(tc, node_lost_mid_use_raises_sigbus);
	tcase_add_test(tc, import_with_the_daemon_stopped_is_invalid_handle);
	suite_add_tcase(s, tc);
	/* Each test's result as it ends: a node may be stopped before the end. */
	sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_VERBOSE);
	status = srunner_ntests_failed(sr) ? EXIT_FAILURE : EXIT_SUCCESS;
	srunner_free(sr);
	/* Node 1 stops this node's VM: its results are out, wait for it. */
	if (node == 0 && nodes > 1) {
		char path[512];
		FILE *f;

		fflush(NULL);
		snprintf(path, sizeof(path), "%s/node0.finished", xchg);
		f = fopen(path, "w");
		if (f) {
			fputc('1', f);
			fclose(f);
		}
		sleep(XCHG_WAIT_SECS);
		printf("# node 0 was not stopped\n");
		return EXIT_FAILURE;
	}
	return status;
}
