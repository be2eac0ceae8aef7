// SPDX-License-Identifier: MIT
/*
 * cumcctl: the command-line front of cumc's generic netlink control plane
 * (uapi/linux/cumc_netlink.h): devices, multicast objects, counters, fault
 * injection, the fabric manager, the node's fabric identity, and the event
 * monitor.
 *
 * Exit status: 0 done, 1 usage, 2 the kernel refused (or is not there).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <netlink/genl/ctrl.h>

#include "cumc_nl.h"
#include "cumcctl.h"

#define EXIT_USAGE 1
#define EXIT_KERNEL 2

static bool json;
static struct cumc_nl nl;
static bool first_row;	/* for JSON arrays */

static const char *const fault_names[CUMC_FAULT_NR] = {
	[CUMC_FAULT_FABRIC_NOT_READY] = "not-ready",
	[CUMC_FAULT_FABRIC_ILLEGAL_STATE] = "illegal-state",
	[CUMC_FAULT_BIND_NO_RESOURCES] = "bind-nospc",
	[CUMC_FAULT_MEM_EXHAUSTED] = "mem-exhausted",
	[CUMC_FAULT_IMPORT_NOT_PERMITTED] = "import-eperm",
};

static const char *const mode_names[] = {
	[CUMC_FAULT_MODE_OFF] = "off",
	[CUMC_FAULT_MODE_ONCE] = "once",
	[CUMC_FAULT_MODE_EVERY_NTH] = "every",
	[CUMC_FAULT_MODE_PROBABILITY] = "percent",
};

static const char *const state_names[] = { "forming", "ready", "failed" };

static const char *const fabric_state_names[] = {
	[CUMC_FABRIC_STATE_NOT_SUPPORTED] = "not-supported",
	[CUMC_FABRIC_STATE_NOT_STARTED] = "not-started",
	[CUMC_FABRIC_STATE_IN_PROGRESS] = "in-progress",
	[CUMC_FABRIC_STATE_COMPLETED] = "completed",
};

static const char *const event_names[] = {
	[CUMC_CMD_MC_CREATE_NTF] = "mc-create",
	[CUMC_CMD_TEAM_READY_NTF] = "team-ready",
	[CUMC_CMD_TEAM_FAILED_NTF] = "team-failed",
	[CUMC_CMD_BIND_NTF] = "bind",
	[CUMC_CMD_UNBIND_NTF] = "unbind",
	[CUMC_CMD_MC_DELETE_NTF] = "mc-delete",
	[CUMC_CMD_TEAM_SETUP_REQ_NTF] = "team-setup-req",
	[CUMC_CMD_DEVICE_LOST_NTF] = "device-lost",
	[CUMC_CMD_NODE_LOST_NTF] = "node-lost",
};

static const char usage_text[] =
	"usage: cumcctl [-j] COMMAND [ARGS]\n"
	"  dev                       list devices and their memory\n"
	"  obj                       list multicast objects, members, bindings\n"
	"  stats                     per-device and fabric-wide counters\n"
	"  fault set|clear|show ...  fault injection (cumcctl fault --help)\n"
	"  fm mode|show|respond ...  the fabric manager (cumcctl fm --help)\n"
	"  fabric                    this node's fabric identity, its IMEX daemon\n"
	"  monitor [--count N] [--timeout MS]  print events as they come\n"
	"  batch < SCRIPT            the ioctl UAPI, one operation a line\n"
	"  -j: JSON output. Exit: 0 ok, 1 usage, 2 the kernel refused.\n";

static const char fault_usage[] =
	"usage: cumcctl fault set TYPE once|every N|percent P [--device N]\n"
	"       cumcctl fault clear TYPE [--device N]\n"
	"       cumcctl fault show\n"
	"TYPE: not-ready, illegal-state, bind-nospc, mem-exhausted, import-eperm\n"
	"Without --device the fault is fabric-wide. set and clear need CAP_NET_ADMIN.\n";

static const char fm_usage[] =
	"usage: cumcctl fm mode [kernel|external] [--timeout MS]\n"
	"       cumcctl fm show\n"
	"       cumcctl fm respond REQ_ID ok|fail\n"
	"mode and respond need CAP_NET_ADMIN.\n";

static const char fabric_usage[] =
	"usage: cumcctl [-j] fabric\n"
	"This node's fabric identity: its node index, its fabric state\n"
	"(not-supported, not-started, in-progress or completed), and in a\n"
	"multi-node fabric its cluster UUID and clique id; and whether an IMEX\n"
	"daemon is attached.\n";

static int usage(const char *text, bool help)
{
	fputs(text, help ? stdout : stderr);
	return help ? 0 : EXIT_USAGE;
}

static bool is_help(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

static bool parse_u32(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || !*s || *end || v > UINT32_MAX)
		return false;
	*out = v;
	return true;
}

/* Connect to the family, or exit: no command works without it. */
static void connect_family(void)
{
	int err = cumc_nl_open(&nl);

	if (err == -ENOENT) {
		fprintf(stderr, "cumcctl: no '%s' netlink family: is cumc.ko loaded?\n",
			CUMC_GENL_NAME);
		exit(EXIT_KERNEL);
	}
	if (err) {
		fprintf(stderr, "cumcctl: cannot open a netlink socket\n");
		exit(EXIT_KERNEL);
	}
}

static struct nl_msg *request(uint8_t cmd, int flags)
{
	struct nl_msg *msg = cumc_nl_msg(&nl, cmd, flags);

	if (!msg) {
		fprintf(stderr, "cumcctl: out of memory\n");
		exit(EXIT_KERNEL);
	}
	return msg;
}

static int refused(const char *what, int err)
{
	fprintf(stderr, "cumcctl: %s: %s\n", what, strerror(-err));
	return EXIT_KERNEL;
}

static int parse(struct nl_msg *msg, struct nlattr **tb)
{
	return genlmsg_parse(nlmsg_hdr(msg), 0, tb, CUMC_A_MAX, NULL);
}

static uint64_t get_u64(struct nlattr **tb, int attr)
{
	return tb[attr] ? nla_get_u64(tb[attr]) : 0;
}

static uint32_t get_u32(struct nlattr **tb, int attr)
{
	return tb[attr] ? nla_get_u32(tb[attr]) : 0;
}

/* A 16-byte attribute as 8-4-4-4-12 hex digits into @out; "?" if short. */
static void format_uuid(const struct nlattr *attr, char out[37])
{
	const uint8_t *u = nla_data(attr);

	if (nla_len(attr) < 16) {
		strcpy(out, "?");
		return;
	}
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* FABRIC_STATE as a word; an absent one is not-supported. */
static const char *fabric_state(struct nlattr **tb)
{
	uint32_t state = get_u32(tb, CUMC_A_FABRIC_STATE);

	return state <= CUMC_FABRIC_STATE_COMPLETED ?
	       fabric_state_names[state] : "?";
}

static void row_sep(void)
{
	if (json)
		fputs(first_row ? "\n  " : ",\n  ", stdout);
	first_row = false;
}

static int dev_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[CUMC_A_MAX + 1];
	const char *backend;
	char uuid[37];
	bool lost;

	(void)arg;
	if (parse(msg, tb) || !tb[CUMC_A_DEV_UUID])
		return NL_SKIP;
	format_uuid(tb[CUMC_A_DEV_UUID], uuid);
	backend = tb[CUMC_A_DEV_BACKEND] ?
		  nla_get_string(tb[CUMC_A_DEV_BACKEND]) : "system";
	lost = tb[CUMC_A_DEV_LOST] != NULL;
	row_sep();
	if (json) {
		printf("{\"ordinal\": %u, \"uuid\": \"%s\", \"name\": \"%s\", \"pci_bus\": %u, \"mem_total\": %" PRIu64 ", \"mem_free\": %" PRIu64 ", \"backend\": \"%s\", \"lost\": %s, \"fabric_state\": \"%s\"",
		       get_u32(tb, CUMC_A_DEV_ORDINAL), uuid,
		       nla_get_string(tb[CUMC_A_DEV_NAME]),
		       get_u32(tb, CUMC_A_DEV_PCI_BUS),
		       get_u64(tb, CUMC_A_DEV_MEM_TOTAL),
		       get_u64(tb, CUMC_A_DEV_MEM_FREE), backend,
		       lost ? "true" : "false", fabric_state(tb));
		/* A GPU of a multi-node fabric: the node that owns it, where. */
		if (tb[CUMC_A_FABRIC_NODE])
			printf(", \"node\": %u", get_u32(tb, CUMC_A_FABRIC_NODE));
		if (tb[CUMC_A_FABRIC_CLUSTER_UUID]) {
			format_uuid(tb[CUMC_A_FABRIC_CLUSTER_UUID], uuid);
			printf(", \"cluster_uuid\": \"%s\"", uuid);
		}
		if (tb[CUMC_A_FABRIC_CLIQUE_ID])
			printf(", \"clique_id\": %u",
			       get_u32(tb, CUMC_A_FABRIC_CLIQUE_ID));
		fputs("}", stdout);
	} else {
		printf("%-4u %s  %-26s %02x  %12" PRIu64 " %12" PRIu64 "  %-7s %-5s %s\n",
		       get_u32(tb, CUMC_A_DEV_ORDINAL), uuid,
		       nla_get_string(tb[CUMC_A_DEV_NAME]),
		       get_u32(tb, CUMC_A_DEV_PCI_BUS),
		       get_u64(tb, CUMC_A_DEV_MEM_TOTAL) >> 20,
		       get_u64(tb, CUMC_A_DEV_MEM_FREE) >> 20, backend,
		       lost ? "lost" : "ok", fabric_state(tb));
	}
	return NL_OK;
}

/* Run a dump with @cb as the row printer, inside a JSON array. */
static int dump(uint8_t cmd, nl_recvmsg_msg_cb_t cb, const char *header)
{
	int err;

	connect_family();
	first_row = true;
	if (json)
		fputs("[", stdout);
	else
		fputs(header, stdout);
	err = cumc_nl_transact(&nl, request(cmd, NLM_F_DUMP), cb, NULL);
	if (json)
		fputs(first_row ? "]\n" : "\n]\n", stdout);
	cumc_nl_close(&nl);
	return err ? refused("dump", err) : 0;
}

static void print_member(struct nlattr *member)
{
	struct nlattr *mb[CUMC_MEMBER_A_MAX + 1], *bind, *b[CUMC_BIND_A_MAX + 1];
	bool first = true;
	int rem;

	if (nla_parse_nested(mb, CUMC_MEMBER_A_MAX, member, NULL))
		return;
	printf(json ? "{\"device\": %u, \"binds\": [" : "    member %u\n",
	       get_u32(mb, CUMC_MEMBER_A_DEVICE));
	nla_for_each_nested(bind, member, rem) {
		if (nla_type(bind) != CUMC_MEMBER_A_BIND ||
		    nla_parse_nested(b, CUMC_BIND_A_MAX, bind, NULL))
			continue;
		printf(json ? "%s{\"mc_offset\": %" PRIu64 ", \"length\": %" PRIu64 ", \"mem_offset\": %" PRIu64 "}" :
			      "%s      bind mc_offset=%#" PRIx64 " length=%#" PRIx64 " mem_offset=%#" PRIx64 "\n",
		       json && !first ? ", " : "",
		       get_u64(b, CUMC_BIND_A_MC_OFFSET),
		       get_u64(b, CUMC_BIND_A_LENGTH),
		       get_u64(b, CUMC_BIND_A_MEM_OFFSET));
		first = false;
	}
	if (json)
		fputs("]}", stdout);
}

static int obj_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[CUMC_A_MAX + 1], *attr;
	uint32_t state;
	bool first = true;
	int rem;

	(void)arg;
	if (parse(msg, tb))
		return NL_SKIP;
	state = get_u32(tb, CUMC_A_MC_STATE);
	row_sep();
	printf(json ? "{\"id\": %u, \"team_size\": %u, \"length\": %" PRIu64 ", \"state\": \"%s\", \"fm_pending\": %s, \"members\": [" :
		      "%-6u %-5u %14" PRIu64 " %-8s %s\n",
	       get_u32(tb, CUMC_A_MC_ID), get_u32(tb, CUMC_A_MC_TEAM_SIZE),
	       get_u64(tb, CUMC_A_MC_LENGTH),
	       state < 3 ? state_names[state] : "?",
	       tb[CUMC_A_MC_FM_PENDING] ? (json ? "true" : "fm-pending") :
					  (json ? "false" : ""));
	nla_for_each_attr(attr, genlmsg_attrdata(nlmsg_data(nlmsg_hdr(msg)), 0),
			  genlmsg_attrlen(nlmsg_data(nlmsg_hdr(msg)), 0), rem) {
		if (nla_type(attr) != CUMC_A_MC_MEMBER)
			continue;
		if (json && !first)
			fputs(", ", stdout);
		print_member(attr);
		first = false;
	}
	if (json)
		fputs("]}", stdout);
	return NL_OK;
}

static const struct {
	int attr;
	const char *name;
} stat_attrs[] = {
	{ CUMC_A_STAT_OBJECTS, "objects" },
	{ CUMC_A_STAT_BOUND_BYTES, "bound_bytes" },
	{ CUMC_A_STAT_BINDS, "binds" },
	{ CUMC_A_STAT_MAPS, "maps" },
	{ CUMC_A_STAT_WAITS, "waits" },
	{ CUMC_A_STAT_FAULTS, "faults" },
};

static int stats_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[CUMC_A_MAX + 1];
	size_t i;

	(void)arg;
	if (parse(msg, tb))
		return NL_SKIP;
	row_sep();
	if (json) {
		if (tb[CUMC_A_DEV_ORDINAL])
			printf("{\"device\": %u", get_u32(tb, CUMC_A_DEV_ORDINAL));
		else
			fputs("{\"device\": \"fabric\"", stdout);
		for (i = 0; i < sizeof(stat_attrs) / sizeof(stat_attrs[0]); i++)
			printf(", \"%s\": %" PRIu64, stat_attrs[i].name,
			       get_u64(tb, stat_attrs[i].attr));
		fputs("}", stdout);
		return NL_OK;
	}
	if (tb[CUMC_A_DEV_ORDINAL])
		printf("%-7u", get_u32(tb, CUMC_A_DEV_ORDINAL));
	else
		fputs("fabric ", stdout);
	for (i = 0; i < sizeof(stat_attrs) / sizeof(stat_attrs[0]); i++)
		printf(" %12" PRIu64, get_u64(tb, stat_attrs[i].attr));
	putchar('\n');
	return NL_OK;
}

static int fault_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[CUMC_A_MAX + 1];
	uint32_t type, mode;
	char where[16] = "fabric";

	(void)arg;
	if (parse(msg, tb))
		return NL_SKIP;
	type = get_u32(tb, CUMC_A_FAULT_TYPE);
	mode = get_u32(tb, CUMC_A_FAULT_MODE);
	if (tb[CUMC_A_DEV_ORDINAL])
		snprintf(where, sizeof(where), "%u",
			 get_u32(tb, CUMC_A_DEV_ORDINAL));
	row_sep();
	printf(json ? "{\"type\": \"%s\", \"device\": \"%s\", \"mode\": \"%s\", \"value\": %u, \"hits\": %" PRIu64 "}" :
		      "%-14s %-7s %-8s %8u %10" PRIu64 "\n",
	       type < CUMC_FAULT_NR ? fault_names[type] : "?", where,
	       mode <= CUMC_FAULT_MODE_PROBABILITY ? mode_names[mode] : "?",
	       get_u32(tb, CUMC_A_FAULT_VALUE), get_u64(tb, CUMC_A_FAULT_HITS));
	return NL_OK;
}

static int fault_type(const char *s)
{
	for (int i = 0; i < CUMC_FAULT_NR; i++)
		if (!strcmp(s, fault_names[i]))
			return i;
	return -1;
}

/* Parse "--device N" at argv[*i]; false on a malformed one. */
static bool parse_device(int argc, char **argv, int *i, int64_t *device)
{
	uint32_t v;

	if (strcmp(argv[*i], "--device") || *i + 1 >= argc ||
	    !parse_u32(argv[*i + 1], &v))
		return false;
	*device = v;
	*i += 2;
	return true;
}

static int fault_change(int type, uint32_t mode, uint32_t value,
			int64_t device)
{
	int err;

	connect_family();
	err = cumc_nl_fault_set(&nl, type, mode, value, device);
	cumc_nl_close(&nl);
	return err ? refused("fault", err) : 0;
}

static int cmd_fault(int argc, char **argv)
{
	uint32_t mode = CUMC_FAULT_MODE_OFF, value = 0;
	int64_t device = CUMC_NL_FABRIC;
	int type, i;

	if (is_help(argc, argv))
		return usage(fault_usage, true);
	if (argc < 1)
		return usage(fault_usage, false);
	if (!strcmp(argv[0], "show") && argc == 1)
		return dump(CUMC_CMD_FAULT_GET, fault_cb,
			    "TYPE           DEVICE  MODE        VALUE       HITS\n");
	if (argc < 2 || (type = fault_type(argv[1])) < 0)
		return usage(fault_usage, false);
	i = 2;
	if (!strcmp(argv[0], "set")) {
		if (i >= argc)
			return usage(fault_usage, false);
		if (!strcmp(argv[i], "once")) {
			mode = CUMC_FAULT_MODE_ONCE;
			i++;
		} else if (i + 1 < argc && parse_u32(argv[i + 1], &value) &&
			   (!strcmp(argv[i], "every") || !strcmp(argv[i], "percent"))) {
			mode = !strcmp(argv[i], "every") ?
			       CUMC_FAULT_MODE_EVERY_NTH :
			       CUMC_FAULT_MODE_PROBABILITY;
			i += 2;
		} else {
			return usage(fault_usage, false);
		}
	} else if (strcmp(argv[0], "clear")) {
		return usage(fault_usage, false);
	}
	if (i < argc && !parse_device(argc, argv, &i, &device))
		return usage(fault_usage, false);
	if (i != argc)
		return usage(fault_usage, false);
	return fault_change(type, mode, value, device);
}

static int fm_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[CUMC_A_MAX + 1];

	(void)arg;
	if (parse(msg, tb))
		return NL_SKIP;
	printf(json ? "{\"mode\": \"%s\", \"timeout_ms\": %u}\n" :
		      "mode %s timeout_ms %u\n",
	       get_u32(tb, CUMC_A_FM_MODE) == CUMC_FM_MODE_EXTERNAL ?
	       "external" : "kernel", get_u32(tb, CUMC_A_FM_TIMEOUT_MS));
	return NL_OK;
}

static int fm_transact(struct nl_msg *msg, const char *what, bool print)
{
	int err;

	err = cumc_nl_transact(&nl, msg, print ? fm_cb : NULL, NULL);
	cumc_nl_close(&nl);
	return err ? refused(what, err) : 0;
}

static int cmd_fm(int argc, char **argv)
{
	struct nl_msg *msg;
	uint32_t v, id;
	int i;

	if (is_help(argc, argv))
		return usage(fm_usage, true);
	if (argc < 1)
		return usage(fm_usage, false);
	/* Resolve the family before building requests. */
	connect_family();
	if (!strcmp(argv[0], "show") && argc == 1)
		return fm_transact(request(CUMC_CMD_FM_GET, 0), "fm", true);
	if (!strcmp(argv[0], "respond")) {
		if (argc != 3 || !parse_u32(argv[1], &id) ||
		    (strcmp(argv[2], "ok") && strcmp(argv[2], "fail")))
			return usage(fm_usage, false);
		msg = request(CUMC_CMD_FM_RESPOND, 0);
		nla_put_u32(msg, CUMC_A_FM_REQ_ID, id);
		nla_put_u32(msg, CUMC_A_FM_RESULT, strcmp(argv[2], "ok") ?
			    CUMC_FM_RESULT_FAIL : CUMC_FM_RESULT_OK);
		return fm_transact(msg, "fm respond", false);
	}
	if (strcmp(argv[0], "mode"))
		return usage(fm_usage, false);
	msg = request(CUMC_CMD_FM_SET, 0);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "kernel") || !strcmp(argv[i], "external")) {
			nla_put_u32(msg, CUMC_A_FM_MODE, !strcmp(argv[i], "kernel") ?
				    CUMC_FM_MODE_KERNEL : CUMC_FM_MODE_EXTERNAL);
		} else if (!strcmp(argv[i], "--timeout") && i + 1 < argc &&
			   parse_u32(argv[i + 1], &v)) {
			nla_put_u32(msg, CUMC_A_FM_TIMEOUT_MS, v);
			i++;
		} else {
			nlmsg_free(msg);
			return usage(fm_usage, false);
		}
	}
	return fm_transact(msg, "fm mode", true);
}

/* FABRIC_GET's reply: what is absent prints as null, or - in the table. */
static int fabric_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[CUMC_A_MAX + 1];
	const char *none = json ? "null" : "-", *quote;
	char cluster[37], clique[16];
	bool imex;

	(void)arg;
	if (parse(msg, tb))
		return NL_SKIP;
	snprintf(cluster, sizeof(cluster), "%s", none);
	snprintf(clique, sizeof(clique), "%s", none);
	if (tb[CUMC_A_FABRIC_CLUSTER_UUID])
		format_uuid(tb[CUMC_A_FABRIC_CLUSTER_UUID], cluster);
	if (tb[CUMC_A_FABRIC_CLIQUE_ID])
		snprintf(clique, sizeof(clique), "%u",
			 get_u32(tb, CUMC_A_FABRIC_CLIQUE_ID));
	quote = json && tb[CUMC_A_FABRIC_CLUSTER_UUID] ? "\"" : "";
	imex = tb[CUMC_A_IMEX_ATTACHED] != NULL;
	if (json) {
		printf("{\"node\": %u, \"state\": \"%s\", \"cluster_uuid\": %s%s%s, \"clique_id\": %s, \"imex_attached\": %s}\n",
		       get_u32(tb, CUMC_A_FABRIC_NODE), fabric_state(tb), quote,
		       cluster, quote, clique, imex ? "true" : "false");
		return NL_OK;
	}
	printf("%-4s %-14s %-36s %-10s %s\n", "NODE", "STATE", "CLUSTER",
	       "CLIQUE", "IMEX");
	printf("%-4u %-14s %-36s %-10s %s\n", get_u32(tb, CUMC_A_FABRIC_NODE),
	       fabric_state(tb), cluster, clique, imex ? "yes" : "no");
	return NL_OK;
}

static int cmd_fabric(int argc, char **argv)
{
	int err;

	if (is_help(argc, argv))
		return usage(fabric_usage, true);
	if (argc)
		return usage(fabric_usage, false);
	connect_family();
	err = cumc_nl_transact(&nl, request(CUMC_CMD_FABRIC_GET, 0), fabric_cb,
			       NULL);
	cumc_nl_close(&nl);
	return err ? refused("fabric", err) : 0;
}

static long remaining;	/* events still to print, or -1 */

static int event_cb(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[CUMC_A_MAX + 1];
	const char *name = "?";

	(void)arg;
	if (parse(msg, tb))
		return NL_SKIP;
	if (gh->cmd < sizeof(event_names) / sizeof(event_names[0]) &&
	    event_names[gh->cmd])
		name = event_names[gh->cmd];
	if (json)
		printf("{\"event\": \"%s\", \"id\": %u", name, get_u32(tb, CUMC_A_MC_ID));
	else
		printf("%-15s id=%u", name, get_u32(tb, CUMC_A_MC_ID));
	if (tb[CUMC_A_FM_REQ_ID])
		printf(json ? ", \"req_id\": %u" : " req=%u",
		       get_u32(tb, CUMC_A_FM_REQ_ID));
	if (tb[CUMC_A_MC_TEAM_SIZE])
		printf(json ? ", \"team_size\": %u, \"length\": %" PRIu64 :
			      " team=%u length=%" PRIu64,
		       get_u32(tb, CUMC_A_MC_TEAM_SIZE),
		       get_u64(tb, CUMC_A_MC_LENGTH));
	if (tb[CUMC_A_DEV_ORDINAL])
		printf(json ? ", \"device\": %u, \"mc_offset\": %" PRIu64 ", \"length\": %" PRIu64 :
			      " device=%u mc_offset=%#" PRIx64 " length=%#" PRIx64,
		       get_u32(tb, CUMC_A_DEV_ORDINAL),
		       get_u64(tb, CUMC_A_BIND_MC_OFFSET),
		       get_u64(tb, CUMC_A_BIND_LENGTH));
	if (tb[CUMC_A_IMEX_NODE])
		printf(json ? ", \"node\": %u" : " node=%u",
		       get_u32(tb, CUMC_A_IMEX_NODE));
	puts(json ? "}" : "");
	fflush(stdout);
	if (remaining > 0)
		remaining--;
	return NL_OK;
}

static const char monitor_usage[] =
	"usage: cumcctl monitor [--count N] [--timeout MS]\n"
	"Print control-plane events until N have come or MS have passed.\n";

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static int cmd_monitor(int argc, char **argv)
{
	int64_t deadline = -1, left;
	struct nl_sock *sk;
	struct pollfd pfd;
	uint32_t v;
	int grp, i;

	if (is_help(argc, argv))
		return usage(monitor_usage, true);
	remaining = -1;
	for (i = 0; i < argc; i++) {
		if (i + 1 >= argc || !parse_u32(argv[i + 1], &v))
			return usage(monitor_usage, false);
		if (!strcmp(argv[i], "--count"))
			remaining = v;
		else if (!strcmp(argv[i], "--timeout"))
			deadline = now_ms() + v;
		else
			return usage(monitor_usage, false);
		i++;
	}
	connect_family();
	sk = nl.sk;
	grp = genl_ctrl_resolve_grp(sk, CUMC_GENL_NAME, CUMC_GENL_MCGRP_MONITOR);
	if (grp < 0 || nl_socket_add_membership(sk, grp))
		return refused("monitor", -EPROTO);
	nl_socket_disable_seq_check(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, event_cb, NULL);
	/* Line-buffered output: a reader sees every event as it comes. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (remaining != 0) {
		left = deadline < 0 ? -1 : deadline - now_ms();
		if (deadline >= 0 && left <= 0)
			break;
		pfd.fd = nl_socket_get_fd(sk);
		pfd.events = POLLIN;
		if (poll(&pfd, 1, left) <= 0)
			continue;
		nl_recvmsgs_default(sk);
	}
	cumc_nl_close(&nl);
	return 0;
}

int main(int argc, char **argv)
{
	int i = 1;

	if (i < argc && !strcmp(argv[i], "-j")) {
		json = true;
		i++;
	}
	if (i >= argc)
		return usage(usage_text, false);
	if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
		return usage(usage_text, true);
	if (!strcmp(argv[i], "dev"))
		return is_help(argc - i - 1, argv + i + 1) ?
		       usage("usage: cumcctl [-j] dev\nList devices: ordinal, UUID, name, PCI bus, memory total and free (MiB), backend (pci or system), state (ok or lost), fabric state (not-supported, not-started, in-progress or completed).\n", true) :
		       argc - i - 1 ? usage(usage_text, false) :
		       dump(CUMC_CMD_DEV_GET, dev_cb,
			    "DEV  UUID                                  NAME                       BUS  TOTAL(MiB)    FREE(MiB)  BACKEND STATE FABRIC\n");
	if (!strcmp(argv[i], "obj"))
		return is_help(argc - i - 1, argv + i + 1) ?
		       usage("usage: cumcctl [-j] obj\nList multicast objects with their members and bindings.\n", true) :
		       argc - i - 1 ? usage(usage_text, false) :
		       dump(CUMC_CMD_MC_GET, obj_cb,
			    "ID     TEAM          LENGTH STATE\n");
	if (!strcmp(argv[i], "stats"))
		return is_help(argc - i - 1, argv + i + 1) ?
		       usage("usage: cumcctl [-j] stats\nPer-device and fabric-wide counters.\n", true) :
		       argc - i - 1 ? usage(usage_text, false) :
		       dump(CUMC_CMD_STATS_GET, stats_cb,
			    "DEVICE       OBJECTS  BOUND_BYTES        BINDS         MAPS        WAITS       FAULTS\n");
	if (!strcmp(argv[i], "fault"))
		return cmd_fault(argc - i - 1, argv + i + 1);
	if (!strcmp(argv[i], "fm"))
		return cmd_fm(argc - i - 1, argv + i + 1);
	if (!strcmp(argv[i], "fabric"))
		return cmd_fabric(argc - i - 1, argv + i + 1);
	if (!strcmp(argv[i], "monitor"))
		return cmd_monitor(argc - i - 1, argv + i + 1);
	if (!strcmp(argv[i], "batch"))
		return cumcctl_batch(argc - i - 1, argv + i + 1);
	return usage(usage_text, false);
}
