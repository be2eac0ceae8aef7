// SPDX-License-Identifier: MIT
/*
 * NCCL's multi-node NVLink (MNNVL) decision, made by one rank of a job as
 * NCCL's ncclMnnvlCheck (src/mnnvl.cc) makes it, on the GPU LOCAL_RANK of
 * its node: for every rank of scripts/fabric-run --procs-per-node (RANK,
 * WORLD_SIZE, LOCAL_RANK), with cumc's NVML and driver API. NCCL learns
 * its peers' fabric info in its bootstrap all-gather; here each rank
 * leaves its own in CUMC_FABRIC_XCHG and reads the others'.
 *
 * The rule, in NCCL's order: the device supports FABRIC handles; every
 * rank's fabric state is COMPLETED; no rank's cluster UUID is zero; the
 * clique (the ranks with this rank's cluster UUID and clique id) has more
 * than one rank; and a FABRIC allocation exports and imports back (the
 * IMEX self-test). NCCL does not read the fabric status: it is printed,
 * not judged. The line said is "MNNVL cliqueId C cliqueSize S cliqueRank R"
 * or "not MNNVL: why"; a failed self-test is NCCL's error ("MNNVL
 * unusable: ..."), exit status 1.
 *
 * NCCL's rule sees neither IMEX domains nor daemons: the ranks then do
 * what NCCL in MNNVL mode does next, each importing a FABRIC handle of a
 * rank of the next node, and say how that went ("import from rank P:
 * CUDA_..."), so that a run can show both.
 *
 * Exit status: 0 once the decision is said, 1 as above, 2 when the run
 * could not get that far.
 */
#include <cuda.h>
#include <errno.h>
#include <nvml.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* What one rank leaves for the others: the same binary runs on every node. */
struct rank_info {
	int rank;
	nvmlReturn_t nvml_ret;
	nvmlGpuFabricInfoV_t fabric;
};

struct rank_handle {
	int rank;
	int valid;
	CUmemFabricHandle fh;
};

/* Under TCG, 8 ranks' cuInit on 2 emulated CPUs take tens of seconds. */
#define XCHG_WAIT_SECS 300

static const char *xchg;
static int rank, world, local_rank;

static void fail(const char *what, const char *why)
{
	printf("mnnvl_check: %s: %s\n", what, why);
	fflush(stdout);
	exit(2);
}

static int env_int(const char *name)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		fail(name, "not set (run it under scripts/fabric-run)");
	errno = 0;
	n = strtol(v, &end, 10);
	if (*end || errno || n < 0 || n > 1 << 20)
		fail(name, "not a rank or a count");
	return (int)n;
}

static const char *cu_name(CUresult r)
{
	const char *s = NULL;

	return cuGetErrorName(r, &s) == CUDA_SUCCESS && s ? s : "CUDA_ERROR_?";
}

static void cu_check(CUresult r, const char *what)
{
	if (r != CUDA_SUCCESS)
		fail(what, cu_name(r));
}

/* Written whole, then renamed: a reader never sees half of it. */
static void xchg_put(const char *kind, int who, const void *data, size_t len)
{
	char path[4096], tmp[4100];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.%d", xchg, kind, who);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		fail(tmp, strerror(errno));
	if (rename(tmp, path))
		fail(path, strerror(errno));
}

/* Another rank's record, waited for: a rank that never writes fails us. */
static void xchg_get(const char *kind, int who, void *data, size_t len)
{
	struct timespec nap = { 0, 100 * 1000 * 1000 };
	char path[4096];
	int i;

	snprintf(path, sizeof(path), "%s/%s.%d", xchg, kind, who);
	for (i = 0; i < XCHG_WAIT_SECS * 10; i++) {
		FILE *f = fopen(path, "r");

		if (f) {
			size_t got = fread(data, 1, len, f);

			fclose(f);
			if (got == len)
				return;
			fail(path, "short");
		}
		nanosleep(&nap, NULL);
	}
	snprintf(path + strlen(path), sizeof(path) - strlen(path),
		 " after %d s", XCHG_WAIT_SECS);
	fail(path, "not there");
}

static void uuid_str(const unsigned char *u, char *s)
{
	int i;

	for (i = 0; i < NVML_GPU_FABRIC_UUID_LEN; i++)
		s += sprintf(s, "%02x%s", u[i],
			     i == 3 || i == 5 || i == 7 || i == 9 ? "-" : "");
}

/* NVML's fabric info of @dev, found by its PCI bus id as NCCL finds it. */
static struct rank_info my_fabric_info(CUdevice dev)
{
	struct rank_info me = { .rank = rank };
	int domain, bus, device;
	nvmlDevice_t nd;
	char busid[32];
	nvmlReturn_t r;

	cu_check(cuDeviceGetAttribute(&domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, dev), "PCI domain");
	cu_check(cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev), "PCI bus");
	cu_check(cuDeviceGetAttribute(&device, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, dev), "PCI device");
	snprintf(busid, sizeof(busid), "%08x:%02x:%02x.0", domain, bus, device);
	r = nvmlInit();
	if (r != NVML_SUCCESS)
		fail("nvmlInit", nvmlErrorString(r));
	r = nvmlDeviceGetHandleByPciBusId(busid, &nd);
	if (r != NVML_SUCCESS)
		fail(busid, nvmlErrorString(r));
	/* As NCCL: a device NVML says nothing of is NOT_SUPPORTED. */
	me.fabric.version = nvmlGpuFabricInfo_v3;
	me.fabric.state = NVML_GPU_FABRIC_STATE_NOT_SUPPORTED;
	me.nvml_ret = nvmlDeviceGetGpuFabricInfoV(nd, &me.fabric);
	nvmlShutdown();
	return me;
}

/*
 * NCCL's self-test: FABRIC memory as ncclCuMemAlloc makes it (created,
 * mapped, accessible), exported and imported back.
 */
static CUresult self_test(CUdevice dev, size_t gran)
{
	CUmemAllocationProp prop = { 0 };
	CUmemAccessDesc access = { 0 };
	CUmemGenericAllocationHandle h, imported;
	CUmemFabricHandle fh;
	CUdeviceptr va = 0;
	CUresult r;

	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_FABRIC;
	r = cuMemCreate(&h, gran, &prop, 0);
	if (r != CUDA_SUCCESS)
		return r;
	r = cuMemAddressReserve(&va, gran, gran, 0, 0);
	if (r == CUDA_SUCCESS)
		r = cuMemMap(va, gran, 0, h, 0);
	access.location = prop.location;
	access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	if (r == CUDA_SUCCESS)
		r = cuMemSetAccess(va, gran, &access, 1);
	if (r == CUDA_SUCCESS)
		r = cuMemExportToShareableHandle(&fh, h, CU_MEM_HANDLE_TYPE_FABRIC, 0);
	if (r == CUDA_SUCCESS)
		r = cuMemImportFromShareableHandle(&imported, &fh,
						   CU_MEM_HANDLE_TYPE_FABRIC);
	if (r == CUDA_SUCCESS)
		cuMemRelease(imported);
	if (va) {
		cuMemUnmap(va, gran);
		cuMemAddressFree(va, gran);
	}
	cuMemRelease(h);
	return r;
}

/*
 * Each rank exports FABRIC memory and imports the one of the rank
 * LOCAL_WORLD_SIZE on (the same local rank of the next node); it keeps
 * its own until the rank that imports it is done.
 */
static void import_across_nodes(CUdevice dev, size_t gran, int per_node)
{
	struct rank_handle mine = { .rank = rank }, theirs;
	CUmemAllocationProp prop = { 0 };
	CUmemGenericAllocationHandle h = 0, imported;
	int from = (rank + per_node) % world;
	int to = (rank - per_node + world) % world;
	int done = 1;
	CUresult r;

	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_FABRIC;
	r = cuMemCreate(&h, gran, &prop, 0);
	if (r == CUDA_SUCCESS)
		r = cuMemExportToShareableHandle(&mine.fh, h,
						 CU_MEM_HANDLE_TYPE_FABRIC, 0);
	mine.valid = r == CUDA_SUCCESS;
	if (!mine.valid)
		printf("export: %s\n", cu_name(r));
	xchg_put("mnnvl-fh", rank, &mine, sizeof(mine));
	xchg_get("mnnvl-fh", from, &theirs, sizeof(theirs));
	if (!theirs.valid) {
		printf("import from rank %d: nothing exported\n", from);
	} else {
		r = cuMemImportFromShareableHandle(&imported, &theirs.fh,
						   CU_MEM_HANDLE_TYPE_FABRIC);
		printf("import from rank %d: %s\n", from, cu_name(r));
		if (r == CUDA_SUCCESS)
			cuMemRelease(imported);
	}
	fflush(stdout);
	xchg_put("mnnvl-done", rank, &done, sizeof(done));
	xchg_get("mnnvl-done", to, &done, sizeof(done));
	if (h)
		cuMemRelease(h);
}

int main(void)
{
	static const unsigned char zero[NVML_GPU_FABRIC_UUID_LEN];
	CUmemAllocationProp prop = { 0 };
	struct rank_info me, *all;
	int per_node, count, flag = 0, i;
	int clique_size = 0, clique_rank = -1;
	const char *why = NULL;
	char uuid[40];
	size_t gran;
	CUcontext ctx;
	CUdevice dev;
	CUresult r;

	rank = env_int("RANK");
	world = env_int("WORLD_SIZE");
	local_rank = env_int("LOCAL_RANK");
	per_node = env_int("LOCAL_WORLD_SIZE");
	xchg = getenv("CUMC_FABRIC_XCHG");
	if (!xchg)
		fail("CUMC_FABRIC_XCHG", "not set (run it under scripts/fabric-run)");
	if (rank >= world || local_rank >= per_node || world % per_node)
		fail("RANK", "outside WORLD_SIZE, or LOCAL_RANK outside LOCAL_WORLD_SIZE");

	cu_check(cuInit(0), "cuInit");
	cu_check(cuDeviceGetCount(&count), "cuDeviceGetCount");
	if (local_rank >= count)
		fail("LOCAL_RANK", "past this node's GPUs");
	cu_check(cuDeviceGet(&dev, local_rank), "cuDeviceGet");
	/* cudaSetDevice's context, in which NCCL allocates. */
	cu_check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
	cu_check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_FABRIC;
	cu_check(cuMemGetAllocationGranularity(&gran, &prop,
			CU_MEM_ALLOC_GRANULARITY_MINIMUM), "granularity");

	me = my_fabric_info(dev);
	uuid_str(me.fabric.clusterUuid, uuid);
	printf("fabric info: %s, state %d status %d cluster %s clique %u\n",
	       nvmlErrorString(me.nvml_ret), me.fabric.state, me.fabric.status,
	       uuid, me.fabric.cliqueId);
	fflush(stdout);
	all = calloc(world, sizeof(*all));
	if (!all)
		fail("calloc", strerror(errno));
	xchg_put("mnnvl-info", rank, &me, sizeof(me));
	for (i = 0; i < world; i++) {
		xchg_get("mnnvl-info", i, &all[i], sizeof(all[i]));
		if (all[i].rank != i)
			fail("mnnvl-info", "a record of another rank");
	}

	(void)cuDeviceGetAttribute(&flag, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, dev);
	if (!flag)
		why = "the device does not support FABRIC handles";
	for (i = 0; !why && i < world; i++)
		if (all[i].fabric.state != NVML_GPU_FABRIC_STATE_COMPLETED)
			why = "a rank's fabric state is not COMPLETED";
	for (i = 0; !why && i < world; i++) {
		if (!memcmp(all[i].fabric.clusterUuid, zero, sizeof(zero))) {
			why = "a rank's cluster UUID is zero";
			break;
		}
		if (!memcmp(all[i].fabric.clusterUuid, me.fabric.clusterUuid, sizeof(zero)) &&
		    all[i].fabric.cliqueId == me.fabric.cliqueId) {
			if (i == rank)
				clique_rank = clique_size;
			clique_size++;
		}
	}
	if (!why && clique_size <= 1)
		why = "no other rank in this rank's clique";
	if (why) {
		printf("not MNNVL: %s\n", why);
	} else {
		r = self_test(dev, gran);
		if (r != CUDA_SUCCESS) {
			printf("MNNVL unusable: cliqueSize %d, the FABRIC self-test: %s\n",
			       clique_size, cu_name(r));
			return 1;
		}
		printf("MNNVL cliqueId %x cliqueSize %d cliqueRank %d\n",
		       me.fabric.cliqueId, clique_size, clique_rank);
	}
	fflush(stdout);
	if (world > per_node)
		import_across_nodes(dev, gran, per_node);
	free(all);
	cuDevicePrimaryCtxRelease(dev);
	return 0;
}
