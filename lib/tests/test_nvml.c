// SPDX-License-Identifier: MIT
/*
 * cumc's NVML (build/cuda/libnvidia-ml.so.1) beside the driver API and the
 * control plane (runs in the VM): what NVML says of each device and of the
 * fabric is what cuDevice* and DEV_GET/FABRIC_GET say; handles by index,
 * UUID and PCI bus id; the simulated NVLink topology; versioned structs;
 * errors; and one of the functions that answer NOT_SUPPORTED. The fabric
 * conditions DEV_SET gives (a held state, a health mask) show in the
 * fabric info; that test needs root, as the VM runs it.
 */
#include <check.h>
#include <cuda.h>
#include <dlfcn.h>
#include <nvml.h>
#include <stdio.h>
#include <string.h>

#include "check_run.h"
#include "cumc_nl.h"

static unsigned int nvml_count(void)
{
	unsigned int count = 0;

	ck_assert_int_eq(nvmlDeviceGetCount(&count), NVML_SUCCESS);
	ck_assert_uint_gt(count, 0);
	return count;
}

static nvmlDevice_t nvml_handle(unsigned int i)
{
	nvmlDevice_t dev = NULL;

	ck_assert_int_eq(nvmlDeviceGetHandleByIndex(i, &dev), NVML_SUCCESS);
	return dev;
}

static void setup(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	ck_assert_int_eq(nvmlInit(), NVML_SUCCESS);
}

static void teardown(void)
{
	ck_assert_int_eq(nvmlShutdown(), NVML_SUCCESS);
}

START_TEST(everything_needs_init)
{
	unsigned int count;
	nvmlDevice_t dev;
	char buf[80];

	ck_assert_int_eq(nvmlDeviceGetCount(&count), NVML_ERROR_UNINITIALIZED);
	ck_assert_int_eq(nvmlDeviceGetHandleByIndex(0, &dev),
			 NVML_ERROR_UNINITIALIZED);
	ck_assert_int_eq(nvmlSystemGetDriverVersion(buf, sizeof(buf)),
			 NVML_ERROR_UNINITIALIZED);
	ck_assert_int_eq(nvmlShutdown(), NVML_ERROR_UNINITIALIZED);
	/* Counted: each init wants its shutdown. */
	ck_assert_int_eq(nvmlInit(), NVML_SUCCESS);
	ck_assert_int_eq(nvmlInitWithFlags(NVML_INIT_FLAG_NO_GPUS), NVML_SUCCESS);
	ck_assert_int_eq(nvmlShutdown(), NVML_SUCCESS);
	ck_assert_int_eq(nvmlDeviceGetCount(&count), NVML_SUCCESS);
	ck_assert_int_eq(nvmlShutdown(), NVML_SUCCESS);
	ck_assert_int_eq(nvmlDeviceGetCount(&count), NVML_ERROR_UNINITIALIZED);
	ck_assert_int_eq(nvmlInitWithFlags(0x100), NVML_ERROR_INVALID_ARGUMENT);
}
END_TEST

START_TEST(versions_agree_with_the_driver_api)
{
	int nvml_cuda = 0, cuda = 0;
	char version[NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE];

	ck_assert_int_eq(cuDriverGetVersion(&cuda), CUDA_SUCCESS);
	ck_assert_int_eq(nvmlSystemGetCudaDriverVersion(&nvml_cuda), NVML_SUCCESS);
	ck_assert_int_eq(nvml_cuda, cuda);
	ck_assert_int_eq(nvmlSystemGetCudaDriverVersion_v2(&nvml_cuda),
			 NVML_SUCCESS);
	ck_assert_int_eq(nvml_cuda, cuda);
	ck_assert_int_eq(nvmlSystemGetDriverVersion(version, sizeof(version)),
			 NVML_SUCCESS);
	ck_assert_int_eq(nvmlSystemGetNVMLVersion(version, sizeof(version)),
			 NVML_SUCCESS);
	ck_assert_int_eq(strncmp(version, "13.", 3), 0);
	ck_assert_int_eq(nvmlSystemGetNVMLVersion(version, 2),
			 NVML_ERROR_INSUFFICIENT_SIZE);
}
END_TEST

/* "GPU-" + the driver API's UUID, as nvidia-smi -L shows it. */
static void uuid_text(CUdevice dev, char *out, size_t len)
{
	CUuuid u;
	const unsigned char *b = (const unsigned char *)u.bytes;

	ck_assert_int_eq(cuDeviceGetUuid(&u, dev), CUDA_SUCCESS);
	snprintf(out, len,
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
		 b[10], b[11], b[12], b[13], b[14], b[15]);
}

static int attr(CUdevice_attribute a, CUdevice dev)
{
	int v = -1;

	ck_assert_int_eq(cuDeviceGetAttribute(&v, a, dev), CUDA_SUCCESS);
	return v;
}

START_TEST(devices_agree_with_the_driver_api)
{
	int cuda_count = 0, major, minor;
	unsigned int count = nvml_count(), i, index;
	char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE], cu_name[96];
	char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE], cu_uuid[48];
	nvmlComputeMode_t mode;
	nvmlMemory_v2_t mem2 = { .version = nvmlMemory_v2 };
	nvmlPciInfo_t pci;
	nvmlMemory_t mem;
	nvmlDevice_t dev, found;
	size_t total;

	ck_assert_int_eq(cuDeviceGetCount(&cuda_count), CUDA_SUCCESS);
	ck_assert_uint_eq(count, cuda_count);
	for (i = 0; i < count; i++) {
		dev = nvml_handle(i);
		ck_assert_int_eq(nvmlDeviceGetName(dev, name, sizeof(name)),
				 NVML_SUCCESS);
		ck_assert_int_eq(cuDeviceGetName(cu_name, sizeof(cu_name), i),
				 CUDA_SUCCESS);
		ck_assert_str_eq(name, cu_name);
		ck_assert_int_eq(nvmlDeviceGetUUID(dev, uuid, sizeof(uuid)),
				 NVML_SUCCESS);
		uuid_text(i, cu_uuid, sizeof(cu_uuid));
		ck_assert_str_eq(uuid, cu_uuid);
		ck_assert_int_eq(nvmlDeviceGetHandleByUUID(uuid, &found),
				 NVML_SUCCESS);
		ck_assert_ptr_eq(found, dev);

		ck_assert_int_eq(nvmlDeviceGetPciInfo(dev, &pci), NVML_SUCCESS);
		ck_assert_uint_eq(pci.domain, attr(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, i));
		ck_assert_uint_eq(pci.bus, attr(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, i));
		ck_assert_uint_eq(pci.device, attr(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, i));
		ck_assert_uint_eq(pci.pciDeviceId,
				  (unsigned int)attr(CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID, i));
		ck_assert_uint_eq(pci.pciSubSystemId,
				  (unsigned int)attr(CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID, i));
		ck_assert_int_eq(nvmlDeviceGetHandleByPciBusId(pci.busId, &found),
				 NVML_SUCCESS);
		ck_assert_ptr_eq(found, dev);
		ck_assert_int_eq(nvmlDeviceGetHandleByPciBusId(pci.busIdLegacy,
							       &found), NVML_SUCCESS);
		ck_assert_ptr_eq(found, dev);

		ck_assert_int_eq(nvmlDeviceGetMemoryInfo(dev, &mem), NVML_SUCCESS);
		ck_assert_int_eq(cuDeviceTotalMem(&total, i), CUDA_SUCCESS);
		ck_assert_uint_eq(mem.total, total);
		ck_assert_uint_eq(mem.used + mem.free, mem.total);
		ck_assert_int_eq(nvmlDeviceGetMemoryInfo_v2(dev, &mem2), NVML_SUCCESS);
		ck_assert_uint_eq(mem2.total, total);

		ck_assert_int_eq(nvmlDeviceGetCudaComputeCapability(dev, &major,
								   &minor),
				 NVML_SUCCESS);
		ck_assert_int_eq(major, attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, i));
		ck_assert_int_eq(minor, attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, i));
		ck_assert_int_eq(nvmlDeviceGetComputeMode(dev, &mode), NVML_SUCCESS);
		ck_assert_int_eq(mode, attr(CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, i));
		ck_assert_int_eq(nvmlDeviceGetIndex(dev, &index), NVML_SUCCESS);
		ck_assert_uint_eq(index, i);
		ck_assert_int_eq(nvmlDeviceGetMinorNumber(dev, &index), NVML_SUCCESS);
		ck_assert_uint_eq(index, i);
	}
}
END_TEST

START_TEST(bad_arguments)
{
	unsigned int count = nvml_count();
	nvmlDevice_t dev = nvml_handle(0), found;
	nvmlMemory_v2_t mem2 = { .version = 1 };
	struct nvmlDevice_st *bogus = (struct nvmlDevice_st *)&count;
	char buf[96];

	ck_assert_int_eq(nvmlDeviceGetHandleByIndex(count, &found),
			 NVML_ERROR_INVALID_ARGUMENT);
	ck_assert_int_eq(nvmlDeviceGetHandleByUUID("GPU-00000000-0000-0000-0000-000000000000",
						   &found), NVML_ERROR_NOT_FOUND);
	ck_assert_int_eq(nvmlDeviceGetHandleByPciBusId("zz", &found),
			 NVML_ERROR_INVALID_ARGUMENT);
	ck_assert_int_eq(nvmlDeviceGetHandleByPciBusId("0000:ee:1f.0", &found),
			 NVML_ERROR_NOT_FOUND);
	ck_assert_int_eq(nvmlDeviceGetName(bogus, buf, sizeof(buf)),
			 NVML_ERROR_INVALID_ARGUMENT);
	ck_assert_int_eq(nvmlDeviceGetUUID(dev, buf, 40),
			 NVML_ERROR_INSUFFICIENT_SIZE);
	ck_assert_int_eq(nvmlDeviceGetUUID(dev, buf, 41), NVML_SUCCESS);
	ck_assert_int_eq(nvmlDeviceGetName(dev, buf, 3),
			 NVML_ERROR_INSUFFICIENT_SIZE);
	ck_assert_int_eq(nvmlDeviceGetMemoryInfo_v2(dev, &mem2),
			 NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
	ck_assert_str_eq(nvmlErrorString(NVML_ERROR_GPU_IS_LOST), "GPU is lost");
	ck_assert_str_eq(nvmlErrorString(12345), "Unknown Error");
}
END_TEST

struct fabric_row {
	unsigned int ordinal;
	bool found;
	uint32_t state, clique;
	uint8_t cluster[16];
};

static int fabric_row(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[CUMC_A_MAX + 1];
	struct fabric_row *row = arg;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, CUMC_A_MAX, NULL) ||
	    !tb[CUMC_A_DEV_ORDINAL] ||
	    nla_get_u32(tb[CUMC_A_DEV_ORDINAL]) != row->ordinal)
		return NL_OK;
	row->found = true;
	row->state = nla_get_u32(tb[CUMC_A_FABRIC_STATE]);
	if (tb[CUMC_A_FABRIC_CLIQUE_ID])
		row->clique = nla_get_u32(tb[CUMC_A_FABRIC_CLIQUE_ID]);
	if (tb[CUMC_A_FABRIC_CLUSTER_UUID])
		memcpy(row->cluster, nla_data(tb[CUMC_A_FABRIC_CLUSTER_UUID]), 16);
	return NL_OK;
}

/* Every version of the fabric info is the control plane's row. */
START_TEST(fabric_info_is_the_control_plane_s)
{
	unsigned int count = nvml_count(), i;
	nvmlGpuFabricInfo_v2_t v2;
	nvmlGpuFabricInfoV_t v3;
	nvmlGpuFabricInfo_t v1;
	struct cumc_nl_fabric node;
	struct cumc_nl nl;

	ck_assert_int_eq(cumc_nl_open(&nl), 0);
	ck_assert_int_eq(cumc_nl_fabric_get(&nl, &node), 0);
	for (i = 0; i < count; i++) {
		struct fabric_row row = { .ordinal = i };
		nvmlDevice_t dev = nvml_handle(i);

		ck_assert_int_eq(cumc_nl_transact(&nl, cumc_nl_msg(&nl,
				CUMC_CMD_DEV_GET, NLM_F_DUMP), fabric_row, &row), 0);
		ck_assert(row.found);
		memset(&v3, 0xa5, sizeof(v3));
		v3.version = nvmlGpuFabricInfo_v3;
		ck_assert_int_eq(nvmlDeviceGetGpuFabricInfoV(dev, &v3), NVML_SUCCESS);
		ck_assert_uint_eq(v3.state, row.state);
		ck_assert_uint_eq(v3.cliqueId, row.clique);
		ck_assert_mem_eq(v3.clusterUuid, row.cluster, 16);
		ck_assert_int_eq(v3.status, NVML_SUCCESS);
		if (row.state == NVML_GPU_FABRIC_STATE_COMPLETED) {
			/* This node's identity, as FABRIC_GET gives it. */
			ck_assert(node.has_cluster_uuid);
			ck_assert_mem_eq(v3.clusterUuid, node.cluster_uuid, 16);
			ck_assert_uint_eq(v3.cliqueId, node.clique_id);
			ck_assert(NVML_GPU_FABRIC_HEALTH_TEST(v3.healthMask,
					_DEGRADED_BW, _FALSE));
			ck_assert_uint_eq(v3.healthSummary,
					  NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY);
		} else {
			ck_assert_uint_eq(v3.state, NVML_GPU_FABRIC_STATE_NOT_SUPPORTED);
			ck_assert_uint_eq(v3.healthMask, 0);
		}
		memset(&v2, 0, sizeof(v2));
		v2.version = nvmlGpuFabricInfo_v2;
		ck_assert_int_eq(nvmlDeviceGetGpuFabricInfoV(dev,
				(nvmlGpuFabricInfoV_t *)&v2), NVML_SUCCESS);
		ck_assert_uint_eq(v2.state, v3.state);
		ck_assert_uint_eq(v2.healthMask, v3.healthMask);
		ck_assert_int_eq(nvmlDeviceGetGpuFabricInfo(dev, &v1), NVML_SUCCESS);
		ck_assert_uint_eq(v1.state, v3.state);
		ck_assert_mem_eq(v1.clusterUuid, v3.clusterUuid, 16);
		v3.version = 0x07000024;
		ck_assert_int_eq(nvmlDeviceGetGpuFabricInfoV(dev, &v3),
				 NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
	}
	cumc_nl_close(&nl);
}
END_TEST

static void dev_set(const struct cumc_nl_dev_cond *cond)
{
	struct cumc_nl nl;

	ck_assert_int_eq(cumc_nl_open(&nl), 0);
	ck_assert_int_eq(cumc_nl_dev_set(&nl, cond), 0);
	cumc_nl_close(&nl);
}

static nvmlGpuFabricInfoV_t fabric_info_v3(unsigned int i)
{
	nvmlGpuFabricInfoV_t v3 = { .version = nvmlGpuFabricInfo_v3 };

	ck_assert_int_eq(nvmlDeviceGetGpuFabricInfoV(nvml_handle(i), &v3),
			 NVML_SUCCESS);
	return v3;
}

/* A sick fabric (DEV_SET): the held state, the mask and its summary. */
START_TEST(fabric_info_shows_the_conditions_set)
{
	/* Route unhealthy, bandwidth degraded, the rest not recovering. */
	const unsigned int mask =
		NVML_GPU_FABRIC_HEALTH_MASK_DEGRADED_BW_TRUE |
		NVML_GPU_FABRIC_HEALTH_MASK_ROUTE_RECOVERY_FALSE <<
			NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_RECOVERY |
		NVML_GPU_FABRIC_HEALTH_MASK_ROUTE_UNHEALTHY_TRUE <<
			NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_UNHEALTHY;
	struct cumc_nl_dev_cond cond = {
		.device = 0, .state = CUMC_FABRIC_STATE_IN_PROGRESS,
		.health_mask = mask, .multicast = -1, .reset = true,
	};
	nvmlGpuFabricInfoV_t before[2] = { fabric_info_v3(0), fabric_info_v3(1) };
	nvmlGpuFabricInfoV_t v3;
	nvmlGpuFabricInfo_t v1;

	dev_set(&cond);
	v3 = fabric_info_v3(0);
	ck_assert_uint_eq(v3.state, NVML_GPU_FABRIC_STATE_IN_PROGRESS);
	ck_assert_uint_eq(v3.healthMask, mask);
	ck_assert_uint_eq(v3.healthSummary,
			  NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY);
	ck_assert_int_eq(nvmlDeviceGetGpuFabricInfo(nvml_handle(0), &v1),
			 NVML_SUCCESS);
	ck_assert_uint_eq(v1.state, NVML_GPU_FABRIC_STATE_IN_PROGRESS);
	/* Degraded bandwidth alone: usable, with less. */
	cond = (struct cumc_nl_dev_cond){ .device = 0, .state = -1,
		.health_mask = NVML_GPU_FABRIC_HEALTH_MASK_DEGRADED_BW_TRUE,
		.multicast = -1 };
	dev_set(&cond);
	ck_assert_uint_eq(fabric_info_v3(0).healthSummary,
			  NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY);
	/* Another device is untouched; a reset gives device 0 back. */
	v3 = fabric_info_v3(1);
	ck_assert_uint_eq(v3.state, before[1].state);
	ck_assert_uint_eq(v3.healthMask, before[1].healthMask);
	cond = (struct cumc_nl_dev_cond){ .device = 0, .state = -1,
		.health_mask = -1, .multicast = -1, .reset = true };
	dev_set(&cond);
	v3 = fabric_info_v3(0);
	ck_assert_uint_eq(v3.state, before[0].state);
	ck_assert_uint_eq(v3.healthMask, before[0].healthMask);
	ck_assert_uint_eq(v3.healthSummary, before[0].healthSummary);
}
END_TEST

/* As NCCL's topology detection walks it: every link up, to a switch. */
START_TEST(every_link_reaches_the_nvswitch_fabric)
{
	nvmlDevice_t dev = nvml_handle(nvml_count() - 1);
	nvmlIntNvLinkDeviceType_t type;
	nvmlEnableState_t active;
	unsigned int link, cap;
	nvmlPciInfo_t pci;

	for (link = 0; link < NVML_NVLINK_MAX_LINKS; link++) {
		ck_assert_int_eq(nvmlDeviceGetNvLinkCapability(dev, link,
				NVML_NVLINK_CAP_P2P_SUPPORTED, &cap), NVML_SUCCESS);
		ck_assert_uint_eq(cap, 1);
		ck_assert_int_eq(nvmlDeviceGetNvLinkState(dev, link, &active),
				 NVML_SUCCESS);
		ck_assert_int_eq(active, NVML_FEATURE_ENABLED);
		ck_assert_int_eq(nvmlDeviceGetNvLinkRemoteDeviceType(dev, link,
				&type), NVML_SUCCESS);
		ck_assert_int_eq(type, NVML_NVLINK_DEVICE_TYPE_SWITCH);
		ck_assert_int_eq(nvmlDeviceGetNvLinkRemotePciInfo(dev, link, &pci),
				 NVML_SUCCESS);
		ck_assert_uint_eq(pci.bus, 0xff);
		ck_assert_uint_eq(pci.device, link < 5 ? 0 : link < 9 ? 1 :
					      link < 13 ? 2 : 3);
	}
	ck_assert_int_eq(nvmlDeviceGetNvLinkCapability(dev, 0,
			NVML_NVLINK_CAP_SYSMEM_ACCESS, &cap), NVML_SUCCESS);
	ck_assert_uint_eq(cap, 0);
	ck_assert_int_eq(nvmlDeviceGetNvLinkState(dev, NVML_NVLINK_MAX_LINKS,
			 &active), NVML_ERROR_INVALID_ARGUMENT);
}
END_TEST

/*
 * P2P between every pair, as NCCL asks before it looks at links: over
 * NVLink, not PCIe; a GPU with itself as driver 580 answers on an H200
 * (conformance/nvml/580.159.04.txt).
 */
START_TEST(every_pair_is_p2p_over_nvlink)
{
	unsigned int n = nvml_count(), a, b, k;
	nvmlGpuP2PStatus_t st;

	for (a = 0; a < n; a++)
		for (b = 0; b < n; b++)
			for (k = 0; k <= NVML_P2P_CAPS_INDEX_UNKNOWN; k++) {
				st = NVML_P2P_STATUS_UNKNOWN;
				ck_assert_int_eq(nvmlDeviceGetP2PStatus(
					nvml_handle(a), nvml_handle(b), k, &st),
					NVML_SUCCESS);
				ck_assert_int_eq(st,
					k == NVML_P2P_CAPS_INDEX_UNKNOWN ||
					(a != b && k != NVML_P2P_CAPS_INDEX_PCI) ?
					NVML_P2P_STATUS_OK :
					NVML_P2P_STATUS_NOT_SUPPORTED);
			}
	ck_assert_int_eq(nvmlDeviceGetP2PStatus(nvml_handle(0), nvml_handle(0),
						NVML_P2P_CAPS_INDEX_READ, NULL),
			 NVML_ERROR_INVALID_ARGUMENT);
	ck_assert_int_eq(nvmlDeviceGetP2PStatus(nvml_handle(0), NULL,
						NVML_P2P_CAPS_INDEX_READ, &st),
			 NVML_ERROR_INVALID_ARGUMENT);
	ck_assert_int_eq(nvmlDeviceGetP2PStatus(nvml_handle(0), nvml_handle(0),
						6, &st),
			 NVML_ERROR_INVALID_ARGUMENT);
}
END_TEST

/*
 * NCCL reads a link's state on sm_90 through field values, not
 * nvmlDeviceGetNvLinkState: every link enabled; past the links, another
 * field and an unknown one fail in their own value, as on driver 580.
 */
START_TEST(field_values_say_links_are_up)
{
	nvmlFieldValue_t v[NVML_NVLINK_MAX_LINKS + 3];
	unsigned int link;

	memset(v, 0, sizeof(v));
	for (link = 0; link <= NVML_NVLINK_MAX_LINKS; link++) {
		v[link].fieldId = NVML_FI_DEV_NVLINK_GET_STATE;
		v[link].scopeId = link;
	}
	v[NVML_NVLINK_MAX_LINKS + 1].fieldId = NVML_FI_DEV_NVLINK_GET_STATE + 1;
	v[NVML_NVLINK_MAX_LINKS + 2].fieldId = NVML_FI_MAX;
	v[NVML_NVLINK_MAX_LINKS + 2].value.ullVal = 0xdead;
	ck_assert_int_eq(nvmlDeviceGetFieldValues(nvml_handle(0),
		NVML_NVLINK_MAX_LINKS + 3, v), NVML_SUCCESS);
	for (link = 0; link < NVML_NVLINK_MAX_LINKS; link++) {
		ck_assert_int_eq(v[link].nvmlReturn, NVML_SUCCESS);
		ck_assert_int_eq(v[link].valueType, NVML_VALUE_TYPE_UNSIGNED_INT);
		ck_assert_uint_eq(v[link].value.uiVal, NVML_FEATURE_ENABLED);
		ck_assert_int_gt(v[link].timestamp, 0);
	}
	ck_assert_int_eq(v[NVML_NVLINK_MAX_LINKS].nvmlReturn,
			 NVML_ERROR_INVALID_ARGUMENT);
	ck_assert_int_eq(v[NVML_NVLINK_MAX_LINKS + 1].nvmlReturn,
			 NVML_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(v[NVML_NVLINK_MAX_LINKS + 2].nvmlReturn,
			 NVML_ERROR_INVALID_ARGUMENT);
	ck_assert_uint_eq(v[NVML_NVLINK_MAX_LINKS + 2].value.ullVal, 0xdead);
	ck_assert_int_eq(nvmlDeviceGetFieldValues(nvml_handle(0), 0, v),
			 NVML_ERROR_INVALID_ARGUMENT);
	ck_assert_int_eq(nvmlDeviceGetFieldValues(nvml_handle(0), 1, NULL),
			 NVML_ERROR_INVALID_ARGUMENT);
}
END_TEST

/* Any other function NVML declares is there and says NOT_SUPPORTED. */
START_TEST(others_answer_not_supported)
{
	void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_NOLOAD);
	nvmlReturn_t (*get_clock)(nvmlDevice_t, int, unsigned int *);
	unsigned int mhz = 7;

	ck_assert_ptr_nonnull(lib);
	*(void **)&get_clock = dlsym(lib, "nvmlDeviceGetClockInfo");
	ck_assert_ptr_nonnull(get_clock);
	ck_assert_int_eq(get_clock(nvml_handle(0), 0, &mhz),
			 NVML_ERROR_NOT_SUPPORTED);
	ck_assert_uint_eq(mhz, 7);
	dlclose(lib);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nvml");
	TCase *tc = tcase_create("devices");

	check_add_uninit(s, everything_needs_init);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, versions_agree_with_the_driver_api);
	tcase_add_test(tc, devices_agree_with_the_driver_api);
	tcase_add_test(tc, bad_arguments);
	tcase_add_test(tc, fabric_info_is_the_control_plane_s);
	tcase_add_test(tc, fabric_info_shows_the_conditions_set);
	tcase_add_test(tc, every_link_reaches_the_nvswitch_fabric);
	tcase_add_test(tc, every_pair_is_p2p_over_nvlink);
	tcase_add_test(tc, field_values_say_links_are_up);
	tcase_add_test(tc, others_answer_not_supported);
	suite_add_tcase(s, tc);
	return check_run_forked(s);
}
