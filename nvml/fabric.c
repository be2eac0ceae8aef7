// SPDX-License-Identifier: MIT
/*
 * The GPU fabric info: each device's row of the control plane's DEV_GET
 * (Documentation/control-plane.md), the same that cumcctl dev shows, in
 * NVML's versioned structs.
 */
#include <string.h>

#include "cumc_nl.h"
#include "internal.h"

struct cumc_nvml_fabric_query {
	uint32_t ordinal;
	struct cumc_nvml_fabric *fabric;
	bool found;
};

static int cumc_nvml_fabric_reply(struct nl_msg *msg, void *arg)
{
	struct cumc_nvml_fabric_query *q = arg;
	struct cumc_nvml_fabric *f = q->fabric;
	struct nlattr *tb[CUMC_A_MAX + 1];

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, CUMC_A_MAX, NULL) ||
	    !tb[CUMC_A_DEV_ORDINAL] ||
	    nla_get_u32(tb[CUMC_A_DEV_ORDINAL]) != q->ordinal)
		return NL_OK;
	q->found = true;
	f->lost = tb[CUMC_A_DEV_LOST] != NULL;
	if (tb[CUMC_A_FABRIC_STATE])
		f->state = nla_get_u32(tb[CUMC_A_FABRIC_STATE]);
	if (tb[CUMC_A_FABRIC_CLIQUE_ID])
		f->clique_id = nla_get_u32(tb[CUMC_A_FABRIC_CLIQUE_ID]);
	if (tb[CUMC_A_FABRIC_CLUSTER_UUID] &&
	    nla_len(tb[CUMC_A_FABRIC_CLUSTER_UUID]) == sizeof(f->cluster_uuid))
		memcpy(f->cluster_uuid, nla_data(tb[CUMC_A_FABRIC_CLUSTER_UUID]),
		       sizeof(f->cluster_uuid));
	/* Only a mask DEV_SET gave comes: the rest is the state's. */
	if (tb[CUMC_A_FABRIC_HEALTH_MASK]) {
		f->health_mask = nla_get_u32(tb[CUMC_A_FABRIC_HEALTH_MASK]);
		f->has_health_mask = true;
	}
	return NL_OK;
}

nvmlReturn_t cumc_nvml_fabric_get(unsigned int ordinal,
				  struct cumc_nvml_fabric *fabric)
{
	struct cumc_nvml_fabric_query q = { .ordinal = ordinal,
					    .fabric = fabric };
	struct cumc_nl nl;
	int err;

	memset(fabric, 0, sizeof(*fabric));
	if (cumc_nl_open(&nl))
		return NVML_ERROR_DRIVER_NOT_LOADED;
	err = cumc_nl_transact(&nl, cumc_nl_msg(&nl, CUMC_CMD_DEV_GET, NLM_F_DUMP),
			       cumc_nvml_fabric_reply, &q);
	cumc_nl_close(&nl);
	if (err)
		return NVML_ERROR_UNKNOWN;
	if (!q.found)
		return NVML_ERROR_NOT_FOUND;
	return fabric->lost ? NVML_ERROR_GPU_IS_LOST : NVML_SUCCESS;
}

/*
 * What every version reports: a GPU of a multi-node fabric is COMPLETED
 * with its cluster and clique, as on a rack whose fabric manager finished;
 * any other NOT_SUPPORTED with the rest zero, as NVIDIA's driver answers
 * for an H200 outside an NVLink domain; a state DEV_SET holds (NOT_STARTED,
 * IN_PROGRESS) comes as the module reports it. @f: DEV_GET's row.
 */
static nvmlReturn_t cumc_nvml_fabric_common(nvmlDevice_t device,
					    nvmlGpuFabricInfo_t *out,
					    struct cumc_nvml_fabric *f)
{
	struct cumc_device_info info;
	nvmlReturn_t ret = cumc_nvml_device_info(device, &info);

	if (ret == NVML_SUCCESS)
		ret = cumc_nvml_fabric_get(info.device, f);
	if (ret != NVML_SUCCESS)
		return ret;
	memset(out, 0, sizeof(*out));
	memcpy(out->clusterUuid, f->cluster_uuid, sizeof(out->clusterUuid));
	out->status = NVML_SUCCESS;
	out->cliqueId = f->clique_id;
	out->state = f->state;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device,
					nvmlGpuFabricInfo_t *gpuFabricInfo)
{
	struct cumc_nvml_fabric f;

	if (!gpuFabricInfo)
		return NVML_ERROR_INVALID_ARGUMENT;
	return cumc_nvml_fabric_common(device, gpuFabricInfo, &f);
}

/*
 * A fabric that completed is healthy: bandwidth not degraded, no route
 * recovering or unhealthy, no access timeout recovering (the mask 0xaa
 * healthy racks report); the fields cumc has nothing to say about are
 * NOT_SUPPORTED (0).
 */
#define CUMC_NVML_HEALTHY_MASK						\
	(NVML_GPU_FABRIC_HEALTH_MASK_DEGRADED_BW_FALSE <<		\
		NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_DEGRADED_BW |		\
	 NVML_GPU_FABRIC_HEALTH_MASK_ROUTE_RECOVERY_FALSE <<		\
		NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_RECOVERY |	\
	 NVML_GPU_FABRIC_HEALTH_MASK_ROUTE_UNHEALTHY_FALSE <<		\
		NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_UNHEALTHY |	\
	 NVML_GPU_FABRIC_HEALTH_MASK_ACCESS_TIMEOUT_RECOVERY_FALSE <<	\
		NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ACCESS_TIMEOUT_RECOVERY)

/* The mask: DEV_SET's (a sick fabric), else a completed fabric's. */
static unsigned int cumc_nvml_health_mask(const struct cumc_nvml_fabric *f)
{
	if (f->has_health_mask)
		return f->health_mask;
	return f->state == NVML_GPU_FABRIC_STATE_COMPLETED ?
	       CUMC_NVML_HEALTHY_MASK : 0;
}

/*
 * The summary the mask implies: an unhealthy route makes the fabric
 * unhealthy; degraded bandwidth or a recovery under way leaves it usable
 * with less (LIMITED_CAPACITY); a mask that reports only FALSE fields is
 * healthy, and one that reports nothing says nothing.
 */
static unsigned int cumc_nvml_health_summary(unsigned int mask)
{
	if (NVML_GPU_FABRIC_HEALTH_TEST(mask, _ROUTE_UNHEALTHY, _TRUE))
		return NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY;
	if (NVML_GPU_FABRIC_HEALTH_TEST(mask, _DEGRADED_BW, _TRUE) ||
	    NVML_GPU_FABRIC_HEALTH_TEST(mask, _ROUTE_RECOVERY, _TRUE) ||
	    NVML_GPU_FABRIC_HEALTH_TEST(mask, _ACCESS_TIMEOUT_RECOVERY, _TRUE))
		return NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY;
	return mask ? NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY :
		      NVML_GPU_FABRIC_HEALTH_SUMMARY_NOT_SUPPORTED;
}

/* Versions 2 and 3, as the caller's version field asks. */
nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device,
					 nvmlGpuFabricInfoV_t *gpuFabricInfo)
{
	nvmlGpuFabricInfoV_t *v = gpuFabricInfo;
	struct cumc_nvml_fabric f;
	nvmlGpuFabricInfo_t common;
	unsigned int version;
	nvmlReturn_t ret;

	if (!v)
		return NVML_ERROR_INVALID_ARGUMENT;
	version = v->version;
	if (version != nvmlGpuFabricInfo_v2 && version != nvmlGpuFabricInfo_v3)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	ret = cumc_nvml_fabric_common(device, &common, &f);
	if (ret != NVML_SUCCESS)
		return ret;
	memcpy(v->clusterUuid, common.clusterUuid, sizeof(v->clusterUuid));
	v->status = common.status;
	v->cliqueId = common.cliqueId;
	v->state = common.state;
	v->healthMask = cumc_nvml_health_mask(&f);
	/* Version 2 ends at the mask: its caller has no room for more. */
	if (version == nvmlGpuFabricInfo_v3)
		v->healthSummary = cumc_nvml_health_summary(v->healthMask);
	return NVML_SUCCESS;
}
