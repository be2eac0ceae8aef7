// SPDX-License-Identifier: MIT
/*
 * cumcctl scenario: the catalogue of Documentation/scenarios.md, one row
 * per user's report that cumc reproduces. A row's conditions are cumcctl
 * command lines, run as they are written here, so that the catalogue, the
 * documentation and a user's shell say the same thing; applying a row
 * first clears what an earlier one set, so that one scenario is in force
 * at a time.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>
#include <linux/cumc_netlink.h>

#include "cumcctl.h"

#define EXIT_USAGE 1
#define MAX_WORDS 16

struct scenario {
	const char *name;
	const char *reports;	/* owner/repo#number, the first the name's */
	const char *commands[4];	/* cumcctl lines, NULL after the last */
	const char *process;	/* what the program itself is to do, or NULL */
	const char *symptom;
	const char *fallback;
};

static const struct scenario scenarios[] = {
	{
		.name = "nccl-2077",
		.reports = "NVIDIA/nccl#2077",
		.commands = { "fabric set mc-limit 1" },
		.symptom = "the team past the fabric's multicast limit: cuMulticastBindMem -> CUDA_ERROR_OUT_OF_MEMORY (2)",
		.fallback = "NCCL_NVLS_ENABLE=0, or fewer NVLS buffers; fall back to ring/tree when the bind fails",
	},
	{
		.name = "nccl-1788",
		.reports = "NVIDIA/nccl#1788",
		.commands = { "fault set add-device every 1 --device 7" },
		.symptom = "cuMulticastAddDevice(mc, 7) -> CUDA_ERROR_ILLEGAL_STATE (401), devices 0-6 join",
		.fallback = "NCCL_NVLS_ENABLE=0",
	},
	{
		.name = "pytorch-195596",
		.reports = "pytorch/pytorch#195596 meta-pytorch/torchcomms#3643",
		.commands = { "fault set add-device every 1 --device 1" },
		.symptom = "rank 1: cuMulticastAddDevice -> CUDA_ERROR_ILLEGAL_STATE (401); rank 0's cuMulticastBindMem waits for the team, for ever",
		.fallback = "all-gather every rank's AddDevice result before binding; skip multicast unless all succeeded",
	},
	{
		.name = "torchcomms-3130",
		.reports = "meta-pytorch/torchcomms#3130",
		.commands = { "fault set fabric-stall once --delay 7000" },
		.symptom = "cuMulticastBindMem -> CUDA_ERROR_SYSTEM_NOT_READY (802) after the fm timeout; the team is ready once the 7 s stall ends",
		.fallback = "lockstep retry of the bind on 802 (and only 802) on every rank",
	},
	{
		.name = "pytorch-177472",
		.reports = "pytorch/pytorch#177472 pytorch/ao#3841",
		.commands = { "fault set illegal-state every 1" },
		.symptom = "the fabric manager fails the team: cuMulticastBindMem -> CUDA_ERROR_ILLEGAL_STATE (401)",
		.fallback = "run the fabric manager; meanwhile TORCH_SYMM_MEM_DISABLE_MULTICAST=1 or NCCL_NVLS_ENABLE=0",
	},
	{
		.name = "pytorch-162429",
		.reports = "pytorch/pytorch#162429",
		.commands = { "fault set unbind-invalid every 1" },
		.symptom = "cuMulticastUnbind -> CUDA_ERROR_INVALID_VALUE (1), nothing unbound",
		.fallback = "skip multicast on any error of a cuMulticast* call (pytorch PR #162150)",
	},
	{
		.name = "moonep-28",
		.reports = "MoonshotAI/MoonEP#28 deepseek-ai/DeepEP#487 tokenspeed#925",
		.process = "CUMC_IMEX_CHANNEL=4096 (a channel that does not exist), or a user who may open no IMEX channel",
		.symptom = "HANDLE_TYPE_FABRIC_SUPPORTED is 1, yet cuMemCreate(FABRIC) -> CUDA_ERROR_NOT_PERMITTED (800)",
		.fallback = "probe with a real FABRIC cuMemCreate before choosing fabric handles; POSIX fds otherwise",
	},
	{
		.name = "sglang-30364",
		.reports = "sgl-project/sglang#30364 vllm-project/vllm#50179",
		.commands = { "dev set multicast off" },
		.symptom = "MULTICAST_SUPPORTED 0, cuMulticastCreate -> CUDA_ERROR_NOT_SUPPORTED (801); P2P (cuDeviceCanAccessPeer, peer copies) works",
		.fallback = "check MULTICAST_SUPPORTED first; use the P2P (custom) all-reduce",
	},
	{
		.name = "nccl-2186",
		.reports = "NVIDIA/nccl#2186",
		.commands = { "dev set health-mask 0xa9" },
		.symptom = "nvmlDeviceGetGpuFabricInfoV: healthMask 0xa9 (DEGRADED_BW_TRUE), healthSummary LIMITED_CAPACITY (3)",
		.fallback = "read healthMask before MNNVL; NCCL_MNNVL_ENABLE=0 on a degraded fabric",
	},
	{
		.name = "gpu-operator-2781",
		.reports = "NVIDIA/gpu-operator#2781",
		.commands = { "dev set state in-progress" },
		.symptom = "NVML fabric state IN_PROGRESS (2); cuMulticastBindMem -> CUDA_ERROR_SYSTEM_NOT_READY (802) after the fm timeout",
		.fallback = "gate readiness on NVML's fabric state COMPLETED before using the GPU",
	},
};

#define NUM_SCENARIOS (sizeof(scenarios) / sizeof(scenarios[0]))

static const char scenario_usage[] =
	"usage: cumcctl [-j] [-p] scenario [list]\n"
	"       cumcctl scenario NAME\n"
	"       cumcctl scenario clear\n"
	"A user's report reproduced (Documentation/scenarios.md). NAME clears\n"
	"every condition, then sets the scenario's and prints what was set, the\n"
	"symptom and the reporting project's fallback; clear drops every fault\n"
	"and device condition and puts the fabric's multicast limit back.\n"
	"NAME and clear need CAP_NET_ADMIN.\n";

/* Run one cumcctl line of the catalogue: its exit status. */
static int run_line(const char *line)
{
	char copy[256], *words[MAX_WORDS], *save;
	int n = 0;

	snprintf(copy, sizeof(copy), "%s", line);
	for (char *w = strtok_r(copy, " ", &save); w && n < MAX_WORDS;
	     w = strtok_r(NULL, " ", &save))
		words[n++] = w;
	return cumcctl_run(n, words);
}

/* Every condition any scenario sets, off. */
static int scenario_clear(void)
{
	char limit[64];
	int err;

	snprintf(limit, sizeof(limit), "fabric set mc-limit %u",
		 CUMC_FABRIC_MC_LIMIT_DEFAULT);
	err = run_line("fault clear all");
	if (!err)
		err = run_line("dev set reset");
	if (!err)
		err = run_line(limit);
	return err;
}

static int scenario_apply(const struct scenario *s)
{
	int err = scenario_clear();

	printf("scenario %s (%s)\n", s->name, s->reports);
	for (const char *const *c = s->commands; !err && *c; c++) {
		printf("  cumcctl %s\n", *c);
		err = run_line(*c);
	}
	if (err)
		return err;
	if (s->process)
		printf("in the program: %s\n", s->process);
	printf("symptom: %s\nfallback: %s\n", s->symptom, s->fallback);
	return 0;
}

static struct json_object *scenario_json(const struct scenario *s)
{
	struct json_object *o = json_object_new_object();
	struct json_object *commands = json_object_new_array();

	for (const char *const *c = s->commands; *c; c++)
		json_object_array_add(commands, json_object_new_string(*c));
	json_object_object_add(o, "name", json_object_new_string(s->name));
	json_object_object_add(o, "reports", json_object_new_string(s->reports));
	json_object_object_add(o, "commands", commands);
	json_object_object_add(o, "process", s->process ?
			       json_object_new_string(s->process) : NULL);
	json_object_object_add(o, "symptom", json_object_new_string(s->symptom));
	json_object_object_add(o, "fallback", json_object_new_string(s->fallback));
	return o;
}

static int scenario_list(bool json)
{
	struct json_object *rows;
	size_t i;

	if (!json) {
		printf("%-18s %s\n", "NAME", "SYMPTOM");
		for (i = 0; i < NUM_SCENARIOS; i++)
			printf("%-18s %s\n", scenarios[i].name,
			       scenarios[i].symptom);
		return 0;
	}
	rows = json_object_new_array();
	for (i = 0; i < NUM_SCENARIOS; i++)
		json_object_array_add(rows, scenario_json(&scenarios[i]));
	cumcctl_json_print(rows);
	json_object_put(rows);
	return 0;
}

int cumcctl_scenario(int argc, char **argv, bool json)
{
	size_t i;

	if (argc == 1 && (!strcmp(argv[0], "help") ||
			  !strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
		fputs(scenario_usage, stdout);
		return 0;
	}
	if (argc > 1) {
		fputs(scenario_usage, stderr);
		return EXIT_USAGE;
	}
	if (!argc || !strcmp(argv[0], "list"))
		return scenario_list(json);
	if (!strcmp(argv[0], "clear"))
		return scenario_clear();
	for (i = 0; i < NUM_SCENARIOS; i++)
		if (!strcmp(argv[0], scenarios[i].name))
			return scenario_apply(&scenarios[i]);
	fprintf(stderr, "cumcctl: no scenario \"%s\"\n", argv[0]);
	fprintf(stderr, "Try \"cumcctl scenario list\".\n");
	return EXIT_USAGE;
}
