// SPDX-License-Identifier: GPL-2.0
/*
 * The scenario catalogue (Documentation/scenarios.md): one test per user's
 * report. Each applies its scenario with the real `cumcctl scenario NAME`,
 * shows the symptom the report names through the driver API (libcumc
 * linked in, CUresults compared exactly) and, where the report is about
 * NVML, through libnvidia-ml.so.1; then clears it and shows the normal
 * answer back, which is where a project's fallback takes over again.
 *
 * The fabric manager's timeout is short here (TCG is slow, and the 802
 * scenarios wait for it); the fixture's teardown clears the scenario and
 * puts the timeout back even when a test fails. Run as root in the VM:
 * cumcctl's scenarios need CAP_NET_ADMIN.
 */
#include <cuda.h>
#include <nvml.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>

#include "kselftest_harness.h"

#include "cumc_nl.h"
#include "cumc_selftest.h"

/* Short, for TCG; the stall of torchcomms-3130 (7 s) outlasts it. */
#define FM_TIMEOUT_MS 1000
/* How long a rank waiting in bind is watched before it is ended. */
#define STILL_WAITING_MS 3000
/*
 * Every object's size: the multicast granularity of a simulated device,
 * taken as a constant because cuMulticastGetGranularity is one of the
 * calls a scenario (sglang-30364) makes fail.
 */
#define MC_SIZE (2UL << 20)

FIXTURE(scenario) {
	struct cumc_nl nl;
	enum cumc_fm_mode fm_mode;
	uint32_t fm_timeout_ms;
};

/* build/selftests/cumc_scenario's sibling, build/tools/cumcctl. */
static void cumcctl_path(char *path, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", path, size - 1);
	char *slash;

	path[n > 0 ? n : 0] = '\0';
	slash = strrchr(path, '/');
	if (slash)
		*slash = '\0';
	strncat(path, "/../tools/cumcctl", size - strlen(path) - 1);
}

/* Run `cumcctl ARGS`, its output as TAP comments: its exit status. */
static int cumcctl(const char *args)
{
	char path[512], cmd[768], line[512];
	FILE *out;
	int status;

	cumcctl_path(path, sizeof(path));
	snprintf(cmd, sizeof(cmd), "%s %s 2>&1", path, args);
	out = popen(cmd, "r");
	if (!out)
		return -1;
	while (fgets(line, sizeof(line), out))
		printf("#   %s", line);
	status = pclose(out);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

FIXTURE_SETUP(scenario)
{
	ASSERT_EQ(0, cumc_nl_open(&self->nl));
	ASSERT_EQ(0, cumc_nl_fm_get(&self->nl, &self->fm_mode,
				    &self->fm_timeout_ms));
	ASSERT_EQ(0, cumc_nl_fm_set(&self->nl, CUMC_FM_MODE_KERNEL,
				    FM_TIMEOUT_MS));
	/* A test killed before its teardown leaves its scenario behind. */
	ASSERT_EQ(0, cumcctl("scenario clear"));
}

FIXTURE_TEARDOWN(scenario)
{
	EXPECT_EQ(0, cumcctl("scenario clear"));
	EXPECT_EQ(0, cumc_nl_fm_set(&self->nl, self->fm_mode,
				    self->fm_timeout_ms));
	cumc_nl_close(&self->nl);
}

static int device_count(void)
{
	int n = 0;

	return cuDeviceGetCount(&n) == CUDA_SUCCESS ? n : 0;
}

static CUresult mc_create(CUmemGenericAllocationHandle *mc, int n)
{
	CUmulticastObjectProp prop = {
		.numDevices = n,
		.size = MC_SIZE,
		.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
	};

	return cuMulticastCreate(mc, &prop);
}

static CUresult mem_create(CUmemGenericAllocationHandle *mem, CUdevice dev,
			   CUmemAllocationHandleType types)
{
	CUmemAllocationProp prop = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED,
		.requestedHandleTypes = types,
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, dev },
	};

	return cuMemCreate(mem, MC_SIZE, &prop, 0);
}

/*
 * Devices 0 to @n - 1 added to a new team, each with memory of its own
 * (@mem, shareable as the team is: cumc binds nothing else to it): what
 * binding it answers, the same for every member.
 */
static CUresult team_bind(CUmemGenericAllocationHandle *mc,
			  CUmemGenericAllocationHandle *mem, int n)
{
	CUresult res = mc_create(mc, n);
	int dev;

	for (dev = 0; res == CUDA_SUCCESS && dev < n; dev++)
		res = cuMulticastAddDevice(*mc, dev);
	for (dev = 0; res == CUDA_SUCCESS && dev < n; dev++)
		res = mem_create(&mem[dev], dev,
				 CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	if (res != CUDA_SUCCESS)
		return res;
	res = cuMulticastBindMem(*mc, 0, mem[0], 0, MC_SIZE, 0);
	for (dev = 1; dev < n; dev++)
		if (cuMulticastBindMem(*mc, 0, mem[dev], 0, MC_SIZE, 0) != res)
			return CUDA_ERROR_UNKNOWN;
	return res;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* nvmlGpuFabricInfo_v3 of device @i (NVML initialised). */
static nvmlReturn_t fabric_info(unsigned int i, nvmlGpuFabricInfoV_t *info)
{
	nvmlDevice_t dev;
	nvmlReturn_t ret = nvmlDeviceGetHandleByIndex_v2(i, &dev);

	memset(info, 0, sizeof(*info));
	info->version = nvmlGpuFabricInfo_v3;
	return ret != NVML_SUCCESS ? ret : nvmlDeviceGetGpuFabricInfoV(dev, info);
}

/* Every scenario of this file is in the catalogue cumcctl lists. */
TEST_F(scenario, catalogue_lists_every_scenario)
{
	static const char *const names[] = {
		"nccl-2077", "nccl-1788", "pytorch-195596", "torchcomms-3130",
		"pytorch-177472", "pytorch-162429", "moonep-28",
		"sglang-30364", "nccl-2186", "gpu-operator-2781",
	};
	char path[512], cmd[600], text[16384];
	size_t n, i;
	FILE *out;

	cumcctl_path(path, sizeof(path));
	snprintf(cmd, sizeof(cmd), "%s -j scenario list", path);
	out = popen(cmd, "r");
	ASSERT_NE(NULL, out);
	n = fread(text, 1, sizeof(text) - 1, out);
	text[n] = '\0';
	ASSERT_EQ(0, pclose(out));
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char quoted[64];

		snprintf(quoted, sizeof(quoted), "\"name\":\"%s\"", names[i]);
		EXPECT_NE(NULL, strstr(text, quoted)) TH_LOG("%s", names[i]);
	}
	EXPECT_EQ(1, cumcctl("scenario no-such-report"));
}

/*
 * NVIDIA/nccl#2077: the fabric's multicast teams used up, the next team's
 * bind is out of memory (NCCL treated it as fatal instead of falling back).
 */
TEST_F(scenario, nccl_2077)
{
	CUmemGenericAllocationHandle mc[3], mem[3][2];

	ASSERT_EQ(CUDA_SUCCESS, cuInit(0));
	ASSERT_GE(device_count(), 2);
	ASSERT_EQ(0, cumcctl("scenario nccl-2077"));
	/* The limit is 1: the first team takes the last slot. */
	EXPECT_EQ(CUDA_SUCCESS, team_bind(&mc[0], mem[0], 2));
	EXPECT_EQ(CUDA_ERROR_OUT_OF_MEMORY, team_bind(&mc[1], mem[1], 2));
	/* The fallback's world: NVLS off, or the slots back. */
	ASSERT_EQ(0, cumcctl("scenario clear"));
	EXPECT_EQ(CUDA_SUCCESS, team_bind(&mc[2], mem[2], 2));
}

/* NVIDIA/nccl#1788: cuMulticastAddDevice 401 on one GPU of eight. */
TEST_F(scenario, nccl_1788)
{
	CUmemGenericAllocationHandle mc, mem;
	int dev;

	ASSERT_EQ(CUDA_SUCCESS, cuInit(0));
	if (device_count() < 8)
		SKIP(return, "needs 8 devices, has %d", device_count());
	ASSERT_EQ(0, cumcctl("scenario nccl-1788"));
	ASSERT_EQ(CUDA_SUCCESS, mc_create(&mc, 8));
	for (dev = 0; dev < 7; dev++)
		EXPECT_EQ(CUDA_SUCCESS, cuMulticastAddDevice(mc, dev));
	EXPECT_EQ(CUDA_ERROR_ILLEGAL_STATE, cuMulticastAddDevice(mc, 7));
	/* The team still forms: once the fabric is well, the GPU joins. */
	ASSERT_EQ(0, cumcctl("scenario clear"));
	EXPECT_EQ(CUDA_SUCCESS, cuMulticastAddDevice(mc, 7));
	ASSERT_EQ(CUDA_SUCCESS, mem_create(&mem, 0,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	EXPECT_EQ(CUDA_SUCCESS,
		  cuMulticastBindMem(mc, 0, mem, 0, MC_SIZE, 0));
}

/*
 * Rank 0 of pytorch-195596: creates the team, sends it to rank 1, joins
 * and binds. It writes the bind's CUresult to @result, if it ever returns.
 */
static void __attribute__((noreturn)) waiting_rank(int sock, int result)
{
	CUmemGenericAllocationHandle mc, mem;
	CUresult res;
	int fd;

	if (cuInit(0) != CUDA_SUCCESS || mc_create(&mc, 2) != CUDA_SUCCESS ||
	    cuMemExportToShareableHandle(&fd, mc,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) ||
	    fdpass_send(sock, fd) || cuMulticastAddDevice(mc, 0) ||
	    mem_create(&mem, 0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
		_exit(2);
	res = cuMulticastBindMem(mc, 0, mem, 0, MC_SIZE, 0);
	if (write(result, &res, sizeof(res)) != sizeof(res))
		_exit(3);
	_exit(0);
}

/*
 * pytorch/pytorch#195596, meta-pytorch/torchcomms#3643: one rank's
 * AddDevice fails, its peer waits in bind for a team that never forms.
 */
TEST_F(scenario, pytorch_195596)
{
	CUmemGenericAllocationHandle mc;
	int sock[2], result[2], fd, status;
	struct pollfd pfd;
	pid_t rank0;

	ASSERT_EQ(0, cumcctl("scenario pytorch-195596"));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_DGRAM, 0, sock));
	ASSERT_EQ(0, pipe(result));
	/* One process per GPU, each with its own cuInit, as ranks are. */
	rank0 = fork();
	ASSERT_LE(0, rank0);
	if (!rank0)
		waiting_rank(sock[1], result[1]);
	close(result[1]);
	ASSERT_EQ(CUDA_SUCCESS, cuInit(0));
	fd = fdpass_recv(sock[0]);
	ASSERT_LE(0, fd);
	ASSERT_EQ(CUDA_SUCCESS, cuMemImportFromShareableHandle(&mc,
			(void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
	EXPECT_EQ(CUDA_ERROR_ILLEGAL_STATE, cuMulticastAddDevice(mc, 1));
	/* Rank 0 is still in cuMulticastBindMem: nothing ends its wait. */
	pfd = (struct pollfd){ .fd = result[0], .events = POLLIN };
	EXPECT_EQ(0, poll(&pfd, 1, STILL_WAITING_MS));
	EXPECT_EQ(0, waitpid(rank0, &status, WNOHANG));
	/* Only a watchdog ends it: here, the test's SIGKILL. */
	kill(rank0, SIGKILL);
	ASSERT_EQ(rank0, waitpid(rank0, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	close(result[0]);
	close(fd);
}

/*
 * meta-pytorch/torchcomms#3130: a fabric manager stall of ~7 s outlasts
 * the driver's wait: bind 802; the lockstep retry succeeds after it.
 */
TEST_F(scenario, torchcomms_3130)
{
	CUmemGenericAllocationHandle mc, mem[2];
	int retries = 0, dev;
	int64_t start;
	CUresult res;

	ASSERT_EQ(CUDA_SUCCESS, cuInit(0));
	ASSERT_EQ(0, cumcctl("scenario torchcomms-3130"));
	start = now_ms();
	EXPECT_EQ(CUDA_ERROR_SYSTEM_NOT_READY, team_bind(&mc, mem, 2));
	/*
	 * Each round binds every rank again, on 802 only, a timeout apart
	 * (the team's deadline passed: a bind now answers at once).
	 */
	do {
		usleep(FM_TIMEOUT_MS * 1000);
		res = CUDA_SUCCESS;
		for (dev = 0; dev < 2 && res == CUDA_SUCCESS; dev++)
			res = cuMulticastBindMem(mc, 0, mem[dev], 0,
						 MC_SIZE, 0);
		retries++;
	} while (res == CUDA_ERROR_SYSTEM_NOT_READY && retries < 30);
	EXPECT_EQ(CUDA_SUCCESS, res);
	TH_LOG("ready after %d retries, %lld ms", retries,
	       (long long)(now_ms() - start));
	/*
	 * The stall, not the retries, decided when: about 7 s (the kernel's
	 * clock and this one disagree a little under TCG).
	 */
	EXPECT_LE(6500, now_ms() - start);
}

/*
 * pytorch/pytorch#177472, pytorch/ao#3841: the fabric manager is broken,
 * the team's setup fails: NVLS bind 401.
 */
TEST_F(scenario, pytorch_177472)
{
	CUmemGenericAllocationHandle mc[2], mem[2][2];

	ASSERT_EQ(CUDA_SUCCESS, cuInit(0));
	ASSERT_EQ(0, cumcctl("scenario pytorch-177472"));
	EXPECT_EQ(CUDA_ERROR_ILLEGAL_STATE, team_bind(&mc[0], mem[0], 2));
	ASSERT_EQ(0, cumcctl("scenario clear"));
	EXPECT_EQ(CUDA_SUCCESS, team_bind(&mc[1], mem[1], 2));
}

/* pytorch/pytorch#162429: cuMulticastUnbind "invalid argument". */
TEST_F(scenario, pytorch_162429)
{
	CUmemGenericAllocationHandle mc, mem[2];
	int dev;

	ASSERT_EQ(CUDA_SUCCESS, cuInit(0));
	ASSERT_EQ(0, cumcctl("scenario pytorch-162429"));
	ASSERT_EQ(CUDA_SUCCESS, team_bind(&mc, mem, 2));
	EXPECT_EQ(CUDA_ERROR_INVALID_VALUE,
		  cuMulticastUnbind(mc, 0, 0, MC_SIZE));
	/* Nothing was unbound: once well, both unbind. */
	ASSERT_EQ(0, cumcctl("scenario clear"));
	for (dev = 0; dev < 2; dev++)
		EXPECT_EQ(CUDA_SUCCESS,
			  cuMulticastUnbind(mc, dev, 0, MC_SIZE));
}

/* The IMEX-less half of moonep-28, in a child: its exit status. */
static void __attribute__((noreturn)) no_channel_rank(void)
{
	CUmemGenericAllocationHandle mem;
	int fabric = -1;

	setenv("CUMC_IMEX_CHANNEL", "4096", 1);
	if (cuInit(0) != CUDA_SUCCESS)
		_exit(2);
	/* The attribute says yes... */
	if (cuDeviceGetAttribute(&fabric,
			CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, 0) ||
	    fabric != 1)
		_exit(3);
	/* ...the allocation says no. */
	if (mem_create(&mem, 0, CU_MEM_HANDLE_TYPE_FABRIC) !=
	    CUDA_ERROR_NOT_PERMITTED)
		_exit(4);
	/* The probe's fallback: POSIX file descriptors need no channel. */
	if (mem_create(&mem, 0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
		_exit(5);
	_exit(0);
}

/*
 * MoonshotAI/MoonEP#28, deepseek-ai/DeepEP#487, tokenspeed#925: the
 * fabric handle type is advertised, yet a process without an IMEX
 * channel gets 800 from a FABRIC cuMemCreate.
 */
TEST_F(scenario, moonep_28)
{
	CUmemGenericAllocationHandle mem;
	int status;
	pid_t child;

	ASSERT_EQ(0, cumcctl("scenario moonep-28"));
	child = fork();
	ASSERT_LE(0, child);
	if (!child)
		no_channel_rank();
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* A process with a channel (root opens channel0) gets its memory. */
	ASSERT_EQ(CUDA_SUCCESS, cuInit(0));
	EXPECT_EQ(CUDA_SUCCESS, mem_create(&mem, 0, CU_MEM_HANDLE_TYPE_FABRIC));
}

/* The multicast answers of the driver API: @supported or not. */
static void check_multicast(struct __test_metadata *_metadata, bool supported)
{
	CUmulticastObjectProp prop = { .numDevices = 1 };
	CUmemGenericAllocationHandle mc;
	size_t gran;
	int value = -1, dev;

	for (dev = 0; dev < device_count(); dev++) {
		EXPECT_EQ(CUDA_SUCCESS, cuDeviceGetAttribute(&value,
				CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, dev));
		EXPECT_EQ(supported, value);
	}
	EXPECT_EQ(supported ? CUDA_SUCCESS : CUDA_ERROR_NOT_SUPPORTED,
		  cuMulticastGetGranularity(&gran, &prop,
					    CU_MULTICAST_GRANULARITY_MINIMUM));
	EXPECT_EQ(supported ? CUDA_SUCCESS : CUDA_ERROR_NOT_SUPPORTED,
		  mc_create(&mc, 2));
}

/* P2P between devices 0 and 1: access enabled, a copy through UVA. */
static void check_peer_copy(struct __test_metadata *_metadata)
{
	unsigned char out[4096], in[4096];
	CUcontext ctx[2];
	CUdeviceptr buf[2];
	int can = 0, dev;

	EXPECT_EQ(CUDA_SUCCESS, cuDeviceCanAccessPeer(&can, 0, 1));
	EXPECT_EQ(1, can);
	for (dev = 0; dev < 2; dev++) {
		ASSERT_EQ(CUDA_SUCCESS, cuDevicePrimaryCtxRetain(&ctx[dev], dev));
		ASSERT_EQ(CUDA_SUCCESS, cuCtxSetCurrent(ctx[dev]));
		ASSERT_EQ(CUDA_SUCCESS, cuMemAlloc(&buf[dev], sizeof(out)));
	}
	EXPECT_EQ(CUDA_SUCCESS, cuCtxEnablePeerAccess(ctx[0], 0));
	memset(out, 0x5a, sizeof(out));
	EXPECT_EQ(CUDA_SUCCESS, cuMemcpyHtoD(buf[1], out, sizeof(out)));
	EXPECT_EQ(CUDA_SUCCESS, cuMemcpy(buf[0], buf[1], sizeof(out)));
	EXPECT_EQ(CUDA_SUCCESS, cuMemcpyDtoH(in, buf[0], sizeof(in)));
	EXPECT_EQ(0, memcmp(in, out, sizeof(in)));
}

/*
 * sgl-project/sglang#30364, vllm-project/vllm#50179: MULTICAST_SUPPORTED
 * is 0 while P2P works; the P2P all-reduce is the fallback.
 */
TEST_F(scenario, sglang_30364)
{
	ASSERT_EQ(CUDA_SUCCESS, cuInit(0));
	ASSERT_GE(device_count(), 2);
	ASSERT_EQ(0, cumcctl("scenario sglang-30364"));
	check_multicast(_metadata, false);
	check_peer_copy(_metadata);
	ASSERT_EQ(0, cumcctl("scenario clear"));
	check_multicast(_metadata, true);
}

/*
 * NVIDIA/nccl#2186: a degraded fabric's health mask, which NVML shows
 * while the driver API goes on setting teams up.
 */
TEST_F(scenario, nccl_2186)
{
	CUmemGenericAllocationHandle mc, mem[2];
	nvmlGpuFabricInfoV_t info;
	unsigned int i, count;

	ASSERT_EQ(CUDA_SUCCESS, cuInit(0));
	ASSERT_EQ(NVML_SUCCESS, nvmlInit_v2());
	ASSERT_EQ(NVML_SUCCESS, nvmlDeviceGetCount_v2(&count));
	ASSERT_EQ(0, cumcctl("scenario nccl-2186"));
	for (i = 0; i < count; i++) {
		ASSERT_EQ(NVML_SUCCESS, fabric_info(i, &info));
		EXPECT_EQ(0xa9, info.healthMask);
		EXPECT_TRUE(NVML_GPU_FABRIC_HEALTH_TEST(info.healthMask,
				_DEGRADED_BW, _TRUE));
		EXPECT_EQ(NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY,
			  info.healthSummary);
	}
	EXPECT_EQ(CUDA_SUCCESS, team_bind(&mc, mem, 2));
	ASSERT_EQ(0, cumcctl("scenario clear"));
	for (i = 0; i < count; i++) {
		ASSERT_EQ(NVML_SUCCESS, fabric_info(i, &info));
		EXPECT_FALSE(NVML_GPU_FABRIC_HEALTH_TEST(info.healthMask,
				_DEGRADED_BW, _TRUE));
		EXPECT_NE(NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY,
			  info.healthSummary);
	}
	EXPECT_EQ(NVML_SUCCESS, nvmlShutdown());
}

/*
 * NVIDIA/gpu-operator#2781: the fabric stuck in progress; NVML says so,
 * and binds answer 802 once the fabric manager's timeout passed.
 */
TEST_F(scenario, gpu_operator_2781)
{
	CUmemGenericAllocationHandle mc[2], mem[2][2];
	nvmlGpuFabricInfoV_t info;
	unsigned int i, count;
	int64_t start;

	ASSERT_EQ(CUDA_SUCCESS, cuInit(0));
	ASSERT_EQ(NVML_SUCCESS, nvmlInit_v2());
	ASSERT_EQ(NVML_SUCCESS, nvmlDeviceGetCount_v2(&count));
	ASSERT_EQ(0, cumcctl("scenario gpu-operator-2781"));
	for (i = 0; i < count; i++) {
		ASSERT_EQ(NVML_SUCCESS, fabric_info(i, &info));
		EXPECT_EQ(NVML_GPU_FABRIC_STATE_IN_PROGRESS, info.state);
	}
	start = now_ms();
	EXPECT_EQ(CUDA_ERROR_SYSTEM_NOT_READY, team_bind(&mc[0], mem[0], 2));
	/* It waited for the timeout, within the two clocks' disagreement. */
	EXPECT_LE(FM_TIMEOUT_MS / 2, now_ms() - start);
	/* The fallback's check passes again once the fabric completes. */
	ASSERT_EQ(0, cumcctl("scenario clear"));
	for (i = 0; i < count; i++) {
		ASSERT_EQ(NVML_SUCCESS, fabric_info(i, &info));
		EXPECT_NE(NVML_GPU_FABRIC_STATE_IN_PROGRESS, info.state);
	}
	EXPECT_EQ(CUDA_SUCCESS, team_bind(&mc[1], mem[1], 2));
	EXPECT_EQ(NVML_SUCCESS, nvmlShutdown());
}

TEST_HARNESS_MAIN
