// SPDX-License-Identifier: MIT
/*
 * Every fault the control plane injects (Documentation/faults.md), armed
 * through the real generic netlink family, seen through the entry point it
 * strikes as the CUresult that table names (cuda.h's own comments name
 * OUT_OF_MEMORY and SYSTEM_NOT_READY for binds). Runs in the VM, as root:
 * arming needs CAP_NET_ADMIN. Covers the modes (one-shot, every Nth),
 * per-device against fabric-wide scope, an external fabric manager that
 * never answers, and that nothing works differently once the faults are
 * cleared; and the conditions of a sick fabric that are no faults (DEV_SET's
 * multicast off, FABRIC_SET's team limit). Each test starts and ends with
 * no fault or condition set and the in-kernel fabric manager, and ends with
 * the module's object counts as they were.
 */
#include <check.h>
#include <cuda.h>
#include <stdlib.h>
#include <unistd.h>

#include "check_run.h"
#include "cumc_nl.h"
#include "vmm.h"

/* Short, so that the waits cost little. */
#define SHORT_TIMEOUT_MS 200

static struct cumc_nl nl;
static uint32_t saved_fm_timeout_ms;
static struct st_objects baseline;
static int num_devices;
/* The multicast granularity: a multiple of the allocation one. */
static size_t gran;

static void arm(enum cumc_fault_type type, enum cumc_fault_mode mode,
		uint32_t value, int64_t device)
{
	ck_assert_int_eq(cumc_nl_fault_set(&nl, type, mode, value, device), 0);
}

static void disarm(enum cumc_fault_type type, int64_t device)
{
	arm(type, CUMC_FAULT_MODE_OFF, 0, device);
}

static void disarm_all(void)
{
	int type, dev;

	for (type = 0; type < CUMC_FAULT_NR; type++) {
		disarm(type, CUMC_NL_FABRIC);
		for (dev = 0; dev < num_devices; dev++)
			disarm(type, dev);
	}
}

/* No device condition, the fabric's default team limit. */
static void reset_conditions(void)
{
	const struct cumc_nl_dev_cond reset = {
		.device = CUMC_NL_FABRIC, .state = -1, .health_mask = -1,
		.multicast = -1, .reset = true,
	};

	ck_assert_int_eq(cumc_nl_dev_set(&nl, &reset), 0);
	ck_assert_int_eq(cumc_nl_fabric_set_mc_limit(&nl,
			CUMC_FABRIC_MC_LIMIT_DEFAULT), 0);
}

static int count_row(struct nl_msg *msg, void *arg)
{
	(void)msg;
	++*(int *)arg;
	return NL_OK;
}

/* The faults FAULT_GET lists: the armed ones and those with hits. */
static int listed_faults(void)
{
	int rows = 0;

	ck_assert_int_eq(cumc_nl_transact(&nl, cumc_nl_msg(&nl,
			CUMC_CMD_FAULT_GET, NLM_F_DUMP), count_row, &rows), 0);
	return rows;
}

static void setup(void)
{
	CUmulticastObjectProp prop = { .numDevices = 1 };
	enum cumc_fm_mode fm_mode;

	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	num_devices = vmm_device_count();
	ck_assert_int_ge(num_devices, 2);
	ck_assert_int_eq(cumc_nl_open(&nl), 0);
	reset_conditions();
	ck_assert_int_eq(cuMulticastGetGranularity(&gran, &prop,
			CU_MULTICAST_GRANULARITY_MINIMUM), CUDA_SUCCESS);
	/*
	 * A test that fails skips its teardown: start from no fault (hits
	 * reset too, which FAULT_GET would list) and the in-kernel manager.
	 */
	disarm_all();
	ck_assert_int_eq(cumc_nl_fm_get(&nl, &fm_mode, &saved_fm_timeout_ms),
			 0);
	ck_assert_int_eq(cumc_nl_fm_set(&nl, CUMC_FM_MODE_KERNEL,
					saved_fm_timeout_ms), 0);
	baseline = vmm_counts_now();
}

static void teardown(void)
{
	disarm_all();
	reset_conditions();
	ck_assert_int_eq(cumc_nl_fm_set(&nl, CUMC_FM_MODE_KERNEL,
					saved_fm_timeout_ms), 0);
	cumc_nl_close(&nl);
	vmm_assert_counts_eq(vmm_counts_now(), baseline);
}

static CUresult create(CUmemGenericAllocationHandle *h, CUdevice dev,
		       CUmemAllocationHandleType types)
{
	CUmemAllocationProp prop = vmm_prop(dev);

	prop.requestedHandleTypes = types;
	return cuMemCreate(h, gran, &prop, 0);
}

/* What a cuMemCreate on @dev answers; what it made is released. */
static CUresult create_result(CUdevice dev)
{
	CUmemGenericAllocationHandle h;
	CUresult res = create(&h, dev, CU_MEM_HANDLE_TYPE_NONE);

	if (res == CUDA_SUCCESS)
		ck_assert_int_eq(cuMemRelease(h), CUDA_SUCCESS);
	return res;
}

/* A multicast object whose team is devices 0 to @n - 1, all added. */
static CUmemGenericAllocationHandle team(int n,
					 CUmemAllocationHandleType types)
{
	CUmulticastObjectProp prop = {
		.numDevices = n,
		.size = gran,
		.handleTypes = types,
	};
	CUmemGenericAllocationHandle mc;
	int dev;

	ck_assert_int_eq(cuMulticastCreate(&mc, &prop), CUDA_SUCCESS);
	/* The last add asks for the team's setup: the team faults strike. */
	for (dev = 0; dev < n; dev++)
		ck_assert_int_eq(cuMulticastAddDevice(mc, dev), CUDA_SUCCESS);
	return mc;
}

/* What binding new memory of @dev to @mc answers; all undone after. */
static CUresult bind_mem_result(CUmemGenericAllocationHandle mc, CUdevice dev)
{
	CUmemGenericAllocationHandle mem;
	CUresult res;

	ck_assert_int_eq(create(&mem, dev, CU_MEM_HANDLE_TYPE_NONE),
			 CUDA_SUCCESS);
	res = cuMulticastBindMem(mc, 0, mem, 0, gran, 0);
	if (res == CUDA_SUCCESS)
		ck_assert_int_eq(cuMulticastUnbind(mc, dev, 0, gran),
				 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(mem), CUDA_SUCCESS);
	return res;
}

/* The same, with the memory named by a mapped address. */
static CUresult bind_addr_result(CUmemGenericAllocationHandle mc,
				 CUdevice dev)
{
	CUdeviceptr va = vmm_reserve(gran);
	CUmemGenericAllocationHandle mem = vmm_map_new(dev, va, gran);
	CUresult res;

	res = cuMulticastBindAddr(mc, 0, va, gran, 0);
	if (res == CUDA_SUCCESS)
		ck_assert_int_eq(cuMulticastUnbind(mc, dev, 0, gran),
				 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemUnmap(va, gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(mem), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(va, gran), CUDA_SUCCESS);
	return res;
}

/* What cuMemMap of @h answers; the mapping and reservation go after. */
static CUresult map_result(CUmemGenericAllocationHandle h)
{
	CUdeviceptr va;
	CUresult res;

	ck_assert_int_eq(cuMemAddressReserve(&va, gran, gran, 0, 0),
			 CUDA_SUCCESS);
	res = cuMemMap(va, gran, 0, h, 0);
	if (res == CUDA_SUCCESS)
		ck_assert_int_eq(cuMemUnmap(va, gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(va, gran), CUDA_SUCCESS);
	return res;
}

/* What importing @os_handle answers; the import is released after. */
static CUresult import_result(void *os_handle,
			      CUmemAllocationHandleType type)
{
	CUmemGenericAllocationHandle h;
	CUresult res = cuMemImportFromShareableHandle(&h, os_handle, type);

	if (res == CUDA_SUCCESS)
		ck_assert_int_eq(cuMemRelease(h), CUDA_SUCCESS);
	return res;
}

static int export_fd(CUmemGenericAllocationHandle h)
{
	int fd = -1;

	ck_assert_int_eq(cuMemExportToShareableHandle(&fd, h,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
			CUDA_SUCCESS);
	return fd;
}

static CUresult import_fd_result(int fd)
{
	return import_result((void *)(uintptr_t)fd,
			     CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
}

/*
 * The fabric's count of binds and maps that waited for a team: how a test
 * knows a call waited, without timing it (under a loaded emulator the
 * kernel's jiffies and a test's clock disagree by tens of milliseconds).
 */
static uint64_t fabric_waits(void)
{
	uint64_t waits = 0;

	ck_assert_int_eq(cumc_nl_fabric_stat(&nl, CUMC_A_STAT_WAITS, &waits),
			 0);
	return waits;
}

/* MEM_EXHAUSTED: cuMemCreate */

START_TEST(mem_exhausted_once)
{
	arm(CUMC_FAULT_MEM_EXHAUSTED, CUMC_FAULT_MODE_ONCE, 0, CUMC_NL_FABRIC);
	ck_assert_int_eq(create_result(1), CUDA_ERROR_OUT_OF_MEMORY);
	ck_assert_int_eq(create_result(1), CUDA_SUCCESS);
	ck_assert_int_eq(create_result(0), CUDA_SUCCESS);
}
END_TEST

START_TEST(mem_exhausted_every_third)
{
	static const CUresult want[] = {
		CUDA_SUCCESS, CUDA_SUCCESS, CUDA_ERROR_OUT_OF_MEMORY,
		CUDA_SUCCESS, CUDA_SUCCESS, CUDA_ERROR_OUT_OF_MEMORY,
	};
	int i;

	arm(CUMC_FAULT_MEM_EXHAUSTED, CUMC_FAULT_MODE_EVERY_NTH, 3,
	    CUMC_NL_FABRIC);
	/* Fabric-wide: the calls count whatever the device. */
	for (i = 0; i < 6; i++)
		ck_assert_int_eq(create_result(i % 2), want[i]);
}
END_TEST

START_TEST(mem_exhausted_on_one_device)
{
	arm(CUMC_FAULT_MEM_EXHAUSTED, CUMC_FAULT_MODE_PROBABILITY, 100, 1);
	ck_assert_int_eq(create_result(1), CUDA_ERROR_OUT_OF_MEMORY);
	ck_assert_int_eq(create_result(1), CUDA_ERROR_OUT_OF_MEMORY);
	ck_assert_int_eq(create_result(0), CUDA_SUCCESS);
	disarm(CUMC_FAULT_MEM_EXHAUSTED, 1);
	ck_assert_int_eq(create_result(1), CUDA_SUCCESS);
}
END_TEST

/* BIND_NO_RESOURCES: cuMulticastBindMem, cuMulticastBindAddr */

START_TEST(bind_no_resources_once)
{
	CUmemGenericAllocationHandle mc = team(1, CU_MEM_HANDLE_TYPE_NONE);

	arm(CUMC_FAULT_BIND_NO_RESOURCES, CUMC_FAULT_MODE_ONCE, 0,
	    CUMC_NL_FABRIC);
	ck_assert_int_eq(bind_mem_result(mc, 0), CUDA_ERROR_OUT_OF_MEMORY);
	ck_assert_int_eq(bind_mem_result(mc, 0), CUDA_SUCCESS);
	arm(CUMC_FAULT_BIND_NO_RESOURCES, CUMC_FAULT_MODE_ONCE, 0,
	    CUMC_NL_FABRIC);
	ck_assert_int_eq(bind_addr_result(mc, 0), CUDA_ERROR_OUT_OF_MEMORY);
	ck_assert_int_eq(bind_addr_result(mc, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(mc), CUDA_SUCCESS);
}
END_TEST

START_TEST(bind_no_resources_every_second_on_one_device)
{
	CUmemGenericAllocationHandle mc = team(2, CU_MEM_HANDLE_TYPE_NONE);

	arm(CUMC_FAULT_BIND_NO_RESOURCES, CUMC_FAULT_MODE_EVERY_NTH, 2, 1);
	ck_assert_int_eq(bind_mem_result(mc, 1), CUDA_SUCCESS);
	/* Device 0's binds neither fail nor count. */
	ck_assert_int_eq(bind_mem_result(mc, 0), CUDA_SUCCESS);
	ck_assert_int_eq(bind_mem_result(mc, 0), CUDA_SUCCESS);
	ck_assert_int_eq(bind_addr_result(mc, 1), CUDA_ERROR_OUT_OF_MEMORY);
	ck_assert_int_eq(bind_mem_result(mc, 1), CUDA_SUCCESS);
	ck_assert_int_eq(bind_mem_result(mc, 1), CUDA_ERROR_OUT_OF_MEMORY);
	ck_assert_int_eq(cuMemRelease(mc), CUDA_SUCCESS);
}
END_TEST

/*
 * A team fault armed once, fabric-wide: the next team's binds and maps
 * fail with @want, the first bind after waiting for the team's setup when
 * @waits; the team after it is set up.
 */
static void check_team_fault_once(enum cumc_fault_type type, CUresult want,
				  bool waits)
{
	CUmemGenericAllocationHandle mc;
	uint64_t waits_before;

	arm(type, CUMC_FAULT_MODE_ONCE, 0, CUMC_NL_FABRIC);
	mc = team(2, CU_MEM_HANDLE_TYPE_NONE);
	waits_before = fabric_waits();
	ck_assert_int_eq(bind_mem_result(mc, 0), want);
	ck_assert_uint_eq(fabric_waits(), waits_before + waits);
	ck_assert_int_eq(bind_addr_result(mc, 1), want);
	ck_assert_int_eq(map_result(mc), want);
	ck_assert_int_eq(cuMemRelease(mc), CUDA_SUCCESS);
	mc = team(2, CU_MEM_HANDLE_TYPE_NONE);
	ck_assert_int_eq(bind_mem_result(mc, 0), CUDA_SUCCESS);
	ck_assert_int_eq(map_result(mc), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(mc), CUDA_SUCCESS);
}

/*
 * A team fault armed on device 1 strikes the teams device 1 is in, even
 * for device 0's memory, and no other team.
 */
static void check_team_fault_on_member(enum cumc_fault_type type,
				       CUresult want)
{
	CUmemGenericAllocationHandle with, without;

	arm(type, CUMC_FAULT_MODE_EVERY_NTH, 1, 1);
	without = team(1, CU_MEM_HANDLE_TYPE_NONE);
	with = team(2, CU_MEM_HANDLE_TYPE_NONE);
	ck_assert_int_eq(bind_mem_result(without, 0), CUDA_SUCCESS);
	ck_assert_int_eq(map_result(without), CUDA_SUCCESS);
	ck_assert_int_eq(bind_mem_result(with, 0), want);
	ck_assert_int_eq(map_result(with), want);
	ck_assert_int_eq(cuMemRelease(with), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(without), CUDA_SUCCESS);
}

/* FABRIC_ILLEGAL_STATE: the team's setup fails */

START_TEST(illegal_state_once)
{
	/* The setup fails as the team forms: nothing to wait for. */
	check_team_fault_once(CUMC_FAULT_FABRIC_ILLEGAL_STATE,
			      CUDA_ERROR_ILLEGAL_STATE, false);
}
END_TEST

START_TEST(illegal_state_on_one_member)
{
	check_team_fault_on_member(CUMC_FAULT_FABRIC_ILLEGAL_STATE,
				   CUDA_ERROR_ILLEGAL_STATE);
}
END_TEST

/* FABRIC_NOT_READY: the setup goes unanswered until fm_timeout_ms */

START_TEST(not_ready_times_out_once)
{
	ck_assert_int_eq(cumc_nl_fm_set(&nl, CUMC_FM_MODE_KERNEL,
					SHORT_TIMEOUT_MS), 0);
	/* The bind waits for the deadline, it does not fail at once. */
	check_team_fault_once(CUMC_FAULT_FABRIC_NOT_READY,
			      CUDA_ERROR_SYSTEM_NOT_READY, true);
}
END_TEST

START_TEST(not_ready_on_one_member)
{
	ck_assert_int_eq(cumc_nl_fm_set(&nl, CUMC_FM_MODE_KERNEL,
					SHORT_TIMEOUT_MS), 0);
	check_team_fault_on_member(CUMC_FAULT_FABRIC_NOT_READY,
				   CUDA_ERROR_SYSTEM_NOT_READY);
}
END_TEST

/* No fault: an external fabric manager that is not running */

START_TEST(external_manager_absent)
{
	CUmemGenericAllocationHandle mc;
	uint64_t waits_before;

	ck_assert_int_eq(cumc_nl_fm_set(&nl, CUMC_FM_MODE_EXTERNAL,
					SHORT_TIMEOUT_MS), 0);
	mc = team(2, CU_MEM_HANDLE_TYPE_NONE);
	waits_before = fabric_waits();
	ck_assert_int_eq(bind_mem_result(mc, 1), CUDA_ERROR_SYSTEM_NOT_READY);
	ck_assert_uint_eq(fabric_waits(), waits_before + 1);
	ck_assert_int_eq(map_result(mc), CUDA_ERROR_SYSTEM_NOT_READY);
	ck_assert_int_eq(cuMemRelease(mc), CUDA_SUCCESS);
}
END_TEST

/* IMPORT_NOT_PERMITTED: cuMemImportFromShareableHandle */

/* A one-shot fault, fabric-wide: the next import of @fd only is refused. */
static void check_fd_import_once(int fd)
{
	arm(CUMC_FAULT_IMPORT_NOT_PERMITTED, CUMC_FAULT_MODE_ONCE, 0,
	    CUMC_NL_FABRIC);
	ck_assert_int_eq(import_fd_result(fd), CUDA_ERROR_NOT_PERMITTED);
	ck_assert_int_eq(import_fd_result(fd), CUDA_SUCCESS);
}

START_TEST(import_fd_not_permitted_once)
{
	CUmemGenericAllocationHandle mem;
	int fd;

	ck_assert_int_eq(create(&mem, 0,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR), CUDA_SUCCESS);
	fd = export_fd(mem);
	check_fd_import_once(fd);
	close(fd);
	ck_assert_int_eq(cuMemRelease(mem), CUDA_SUCCESS);
}
END_TEST

START_TEST(import_fabric_not_permitted_on_its_device)
{
	CUmemGenericAllocationHandle mem;
	CUmemFabricHandle fh;

	ck_assert_int_eq(create(&mem, 1, CU_MEM_HANDLE_TYPE_FABRIC),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemExportToShareableHandle(&fh, mem,
			CU_MEM_HANDLE_TYPE_FABRIC, 0), CUDA_SUCCESS);
	/* Another device's fault leaves this memory alone. */
	arm(CUMC_FAULT_IMPORT_NOT_PERMITTED, CUMC_FAULT_MODE_EVERY_NTH, 1, 0);
	ck_assert_int_eq(import_result(&fh, CU_MEM_HANDLE_TYPE_FABRIC),
			 CUDA_SUCCESS);
	arm(CUMC_FAULT_IMPORT_NOT_PERMITTED, CUMC_FAULT_MODE_EVERY_NTH, 1, 1);
	ck_assert_int_eq(import_result(&fh, CU_MEM_HANDLE_TYPE_FABRIC),
			 CUDA_ERROR_NOT_PERMITTED);
	ck_assert_int_eq(import_result(&fh, CU_MEM_HANDLE_TYPE_FABRIC),
			 CUDA_ERROR_NOT_PERMITTED);
	disarm(CUMC_FAULT_IMPORT_NOT_PERMITTED, 1);
	ck_assert_int_eq(import_result(&fh, CU_MEM_HANDLE_TYPE_FABRIC),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(mem), CUDA_SUCCESS);
}
END_TEST

START_TEST(import_multicast_struck_fabric_wide_only)
{
	CUmemGenericAllocationHandle mc;
	int fd;

	mc = team(1, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	fd = export_fd(mc);
	/* A multicast object has no device for a device's fault to match. */
	arm(CUMC_FAULT_IMPORT_NOT_PERMITTED, CUMC_FAULT_MODE_EVERY_NTH, 1, 0);
	ck_assert_int_eq(import_fd_result(fd), CUDA_SUCCESS);
	check_fd_import_once(fd);
	close(fd);
	ck_assert_int_eq(cuMemRelease(mc), CUDA_SUCCESS);
}
END_TEST

/* ADD_DEVICE: cuMulticastAddDevice */

START_TEST(add_device_fails_the_join_only)
{
	CUmulticastObjectProp prop = { .numDevices = 2, .size = gran };
	CUmemGenericAllocationHandle mc;

	arm(CUMC_FAULT_ADD_DEVICE, CUMC_FAULT_MODE_ONCE, 0, 1);
	ck_assert_int_eq(cuMulticastCreate(&mc, &prop), CUDA_SUCCESS);
	ck_assert_int_eq(cuMulticastAddDevice(mc, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMulticastAddDevice(mc, 1), CUDA_ERROR_ILLEGAL_STATE);
	/* The team still forms: the device joins on a second try. */
	ck_assert_int_eq(cuMulticastAddDevice(mc, 1), CUDA_SUCCESS);
	ck_assert_int_eq(bind_mem_result(mc, 1), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(mc), CUDA_SUCCESS);
}
END_TEST

/* UNBIND_INVALID: cuMulticastUnbind */

START_TEST(unbind_invalid_unbinds_nothing)
{
	CUmemGenericAllocationHandle mc = team(1, CU_MEM_HANDLE_TYPE_NONE);
	CUmemGenericAllocationHandle mem;

	ck_assert_int_eq(create(&mem, 0, CU_MEM_HANDLE_TYPE_NONE),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMulticastBindMem(mc, 0, mem, 0, gran, 0),
			 CUDA_SUCCESS);
	arm(CUMC_FAULT_UNBIND_INVALID, CUMC_FAULT_MODE_ONCE, 0,
	    CUMC_NL_FABRIC);
	ck_assert_int_eq(cuMulticastUnbind(mc, 0, 0, gran),
			 CUDA_ERROR_INVALID_VALUE);
	/* Still bound: the next unbind finds the binding. */
	ck_assert_int_eq(cuMulticastUnbind(mc, 0, 0, gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(mem), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(mc), CUDA_SUCCESS);
}
END_TEST

/* FABRIC_STALL: the setup answered after FAULT_DELAY_MS */

START_TEST(fabric_stall_times_out_then_sets_up)
{
	CUmemGenericAllocationHandle mc;
	CUresult res;
	int tries = 0;

	ck_assert_int_eq(cumc_nl_fm_set(&nl, CUMC_FM_MODE_KERNEL,
					SHORT_TIMEOUT_MS), 0);
	ck_assert_int_eq(cumc_nl_fault_set_delay(&nl, CUMC_FAULT_FABRIC_STALL,
			CUMC_FAULT_MODE_ONCE, 0, CUMC_NL_FABRIC,
			5 * SHORT_TIMEOUT_MS), 0);
	mc = team(2, CU_MEM_HANDLE_TYPE_NONE);
	ck_assert_int_eq(bind_mem_result(mc, 0), CUDA_ERROR_SYSTEM_NOT_READY);
	/* A retry after the stall binds; a retry before it answers 802. */
	do {
		usleep(SHORT_TIMEOUT_MS * 1000);
		res = bind_mem_result(mc, 0);
	} while (res == CUDA_ERROR_SYSTEM_NOT_READY && ++tries < 100);
	ck_assert_int_eq(res, CUDA_SUCCESS);
	ck_assert_int_eq(map_result(mc), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(mc), CUDA_SUCCESS);
}
END_TEST

/* DEV_SET's multicast off: MULTICAST_SUPPORTED 0, NOT_SUPPORTED */

static int multicast_supported(CUdevice dev)
{
	int value = -1;

	ck_assert_int_eq(cuDeviceGetAttribute(&value,
			CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, dev),
			CUDA_SUCCESS);
	return value;
}

static void set_multicast(int64_t device, int on)
{
	const struct cumc_nl_dev_cond cond = {
		.device = device, .state = -1, .health_mask = -1,
		.multicast = on,
	};

	ck_assert_int_eq(cumc_nl_dev_set(&nl, &cond), 0);
}

START_TEST(multicast_off_is_not_supported)
{
	CUmulticastObjectProp prop = { .numDevices = 2, .size = gran };
	CUmemGenericAllocationHandle mc;
	size_t g;

	set_multicast(1, 0);
	ck_assert_int_eq(multicast_supported(0), 1);
	ck_assert_int_eq(multicast_supported(1), 0);
	/* Device 0 still can: a team is made, device 1 cannot join it. */
	ck_assert_int_eq(cuMulticastGetGranularity(&g, &prop,
			CU_MULTICAST_GRANULARITY_MINIMUM), CUDA_SUCCESS);
	ck_assert_int_eq(cuMulticastCreate(&mc, &prop), CUDA_SUCCESS);
	ck_assert_int_eq(cuMulticastAddDevice(mc, 1), CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuMemRelease(mc), CUDA_SUCCESS);
	/* No device can: no multicast at all. */
	set_multicast(CUMC_NL_FABRIC, 0);
	ck_assert_int_eq(multicast_supported(0), 0);
	ck_assert_int_eq(cuMulticastGetGranularity(&g, &prop,
			CU_MULTICAST_GRANULARITY_MINIMUM),
			CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuMulticastCreate(&mc, &prop), CUDA_ERROR_NOT_SUPPORTED);
	set_multicast(CUMC_NL_FABRIC, 1);
	ck_assert_int_eq(multicast_supported(1), 1);
}
END_TEST

/* FABRIC_SET's team limit: the team past it is out of memory */

START_TEST(team_past_the_limit_binds_out_of_memory)
{
	CUmemGenericAllocationHandle first, second;

	ck_assert_int_eq(cumc_nl_fabric_set_mc_limit(&nl, 1), 0);
	first = team(1, CU_MEM_HANDLE_TYPE_NONE);
	second = team(1, CU_MEM_HANDLE_TYPE_NONE);
	ck_assert_int_eq(bind_mem_result(first, 0), CUDA_SUCCESS);
	ck_assert_int_eq(bind_mem_result(second, 0), CUDA_ERROR_OUT_OF_MEMORY);
	ck_assert_int_eq(map_result(second), CUDA_ERROR_OUT_OF_MEMORY);
	/* Freeing the first makes room for the next team. */
	ck_assert_int_eq(cuMemRelease(second), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(first), CUDA_SUCCESS);
	first = team(1, CU_MEM_HANDLE_TYPE_NONE);
	ck_assert_int_eq(bind_mem_result(first, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(first), CUDA_SUCCESS);
}
END_TEST

/* Cleared, every fault lets everything through */

START_TEST(cleared_faults_strike_nothing)
{
	CUmemGenericAllocationHandle mc, mem;
	int type, fd;

	for (type = 0; type < CUMC_FAULT_NR; type++) {
		arm(type, CUMC_FAULT_MODE_EVERY_NTH, 1, CUMC_NL_FABRIC);
		arm(type, CUMC_FAULT_MODE_EVERY_NTH, 1, 0);
		arm(type, CUMC_FAULT_MODE_EVERY_NTH, 1, 1);
	}
	ck_assert_int_eq(listed_faults(), 3 * CUMC_FAULT_NR);
	ck_assert_int_eq(create_result(0), CUDA_ERROR_OUT_OF_MEMORY);
	disarm_all();
	ck_assert_int_eq(listed_faults(), 0);

	ck_assert_int_eq(create(&mem, 0,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR), CUDA_SUCCESS);
	mc = team(2, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	ck_assert_int_eq(cuMulticastBindMem(mc, 0, mem, 0, gran, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(bind_addr_result(mc, 1), CUDA_SUCCESS);
	ck_assert_int_eq(map_result(mc), CUDA_SUCCESS);
	fd = export_fd(mem);
	ck_assert_int_eq(import_fd_result(fd), CUDA_SUCCESS);
	close(fd);
	ck_assert_int_eq(cuMulticastUnbind(mc, 0, 0, gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(mc), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(mem), CUDA_SUCCESS);
}
END_TEST

int main(void)
{
	const TTest *const tests[] = {
		mem_exhausted_once,
		mem_exhausted_every_third,
		mem_exhausted_on_one_device,
		bind_no_resources_once,
		bind_no_resources_every_second_on_one_device,
		illegal_state_once,
		illegal_state_on_one_member,
		not_ready_times_out_once,
		not_ready_on_one_member,
		external_manager_absent,
		import_fd_not_permitted_once,
		import_fabric_not_permitted_on_its_device,
		import_multicast_struck_fabric_wide_only,
		add_device_fails_the_join_only,
		unbind_invalid_unbinds_nothing,
		fabric_stall_times_out_then_sets_up,
		multicast_off_is_not_supported,
		team_past_the_limit_binds_out_of_memory,
		cleared_faults_strike_nothing,
	};
	Suite *s = suite_create("faults");
	TCase *tc = tcase_create("faults");
	size_t i;

	/* A few fm_timeout_ms waits each, on an emulated CPU. */
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		tcase_add_test(tc, tests[i]);
	suite_add_tcase(s, tc);
	return check_run(s);
}
