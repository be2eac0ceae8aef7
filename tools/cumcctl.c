// SPDX-License-Identifier: MIT
/*
 * cumcctl: the command-line front of cumc's generic netlink control plane
 * (uapi/linux/cumc_netlink.h): devices, multicast objects, counters, fault
 * injection, the fabric manager, the node's fabric identity, and the event
 * monitor.
 *
 * The grammar is iproute2's and devlink's: cumcctl [OPTIONS] OBJECT
 * [COMMAND [ARGS]], options anywhere on the line, and the older forms
 * (`cumcctl dev`, `cumcctl -j stats`) kept as what they always were. JSON
 * goes through json-c, in the one schema of man/cumcctl.8 and
 * tools/cumcctl.schema.json.
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
#include <sys/time.h>
#include <time.h>

#include <json-c/json.h>
#include <linux/cumc.h>
#include <netlink/genl/ctrl.h>

#include "cumc_nl.h"
#include "cumcctl.h"

#ifndef CUMC_VERSION
#define CUMC_VERSION "unknown"
#endif

#define EXIT_USAGE 1
#define EXIT_KERNEL 2

static bool json, pretty, timestamps;
static struct cumc_nl nl;

/* A dump's rows: a JSON array, or a table under a header printed once. */
static struct json_object *rows;
static const char *table_header;
static unsigned int num_rows;
static int64_t dev_filter = -1;	/* dev show ID: only that device */

static const char *const fault_names[CUMC_FAULT_NR] = {
	[CUMC_FAULT_FABRIC_NOT_READY] = "not-ready",
	[CUMC_FAULT_FABRIC_ILLEGAL_STATE] = "illegal-state",
	[CUMC_FAULT_BIND_NO_RESOURCES] = "bind-nospc",
	[CUMC_FAULT_MEM_EXHAUSTED] = "mem-exhausted",
	[CUMC_FAULT_IMPORT_NOT_PERMITTED] = "import-eperm",
	[CUMC_FAULT_IMEX_SEND] = "imex-send",
	[CUMC_FAULT_REMOTE_LATE] = "remote-late",
	[CUMC_FAULT_ADD_DEVICE] = "add-device",
	[CUMC_FAULT_UNBIND_INVALID] = "unbind-invalid",
	[CUMC_FAULT_FABRIC_STALL] = "fabric-stall",
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
	"usage: cumcctl [OPTIONS] OBJECT [COMMAND [ARGS]]\n"
	"  dev [show [ID]]|set ...   devices, their memory, a sick fabric's conditions\n"
	"  obj [show]                multicast objects, members, bindings\n"
	"  stats [show]              per-device and fabric-wide counters\n"
	"  fault show|set|clear ...  fault injection (cumcctl fault help)\n"
	"  fm show|mode|respond ...  the fabric manager (cumcctl fm help)\n"
	"  fabric [show]|set ...     this node's fabric identity, its IMEX daemon,\n"
	"                            its multicast teams and their limit\n"
	"  scenario list|clear|NAME  a user's report reproduced (cumcctl scenario help)\n"
	"  monitor [--count N] [--timeout MS]  print events as they come\n"
	"  batch < SCRIPT            the ioctl UAPI, one operation a line\n"
	"  help                      this text\n"
	"OPTIONS (anywhere on the line): -j/--json JSON output, -p/--pretty\n"
	"pretty-printed JSON, -t/--timestamp time each monitor event,\n"
	"-V/--version. Exit: 0 ok, 1 usage, 2 the kernel refused.\n";

static const char dev_usage[] =
	"usage: cumcctl [-j] [-p] dev [show [ID]]\n"
	"       cumcctl dev set [ID] [reset] [state STATE] [health-mask MASK]\n"
	"                            [multicast on|off]\n"
	"List devices (or device ID): ordinal, UUID, name, PCI bus, memory total\n"
	"and free (MiB), backend (pci or system), state (ok or lost), fabric\n"
	"state (not-supported, not-started, in-progress or completed), followed\n"
	"by the conditions set: ,held (the state is held), ,multicast-off,\n"
	",health=MASK.\n"
	"set: device ID's (without ID, every device's) conditions, as a sick\n"
	"fabric shows them: reset drops those set before; state holds the\n"
	"fabric state at not-started or in-progress (completed lets go);\n"
	"health-mask is NVML's healthMask; multicast off takes the device out\n"
	"of multicast. Needs CAP_NET_ADMIN.\n";

static const char obj_usage[] =
	"usage: cumcctl [-j] [-p] obj [show]\n"
	"List multicast objects with their members and bindings.\n";

static const char stats_usage[] =
	"usage: cumcctl [-j] [-p] stats [show]\n"
	"Per-device and fabric-wide counters.\n";

static const char fault_usage[] =
	"usage: cumcctl fault set TYPE once|every N|percent P [--device N]\n"
	"                         [--delay MS]\n"
	"       cumcctl fault clear TYPE [--device N]\n"
	"       cumcctl fault clear all\n"
	"       cumcctl [-j] [-p] fault [show]\n"
	"TYPE: not-ready, illegal-state, bind-nospc, mem-exhausted, import-eperm,\n"
	"      imex-send, remote-late, add-device, unbind-invalid, fabric-stall\n"
	"Without --device the fault is fabric-wide. --delay: fabric-stall's\n"
	"length (default 7000). clear all: every armed fault. set and clear\n"
	"need CAP_NET_ADMIN.\n";

static const char fm_usage[] =
	"usage: cumcctl fm mode [kernel|external] [--timeout MS]\n"
	"       cumcctl [-j] [-p] fm [show]\n"
	"       cumcctl fm respond REQ_ID ok|fail\n"
	"mode and respond need CAP_NET_ADMIN.\n";

static const char fabric_usage[] =
	"usage: cumcctl [-j] [-p] fabric [show]\n"
	"       cumcctl fabric set mc-limit N\n"
	"This node's fabric identity: its node index, its fabric state\n"
	"(not-supported, not-started, in-progress or completed), and in a\n"
	"multi-node fabric its cluster UUID and clique id; whether an IMEX\n"
	"daemon is attached; the multicast teams set up now and how many may be\n"
	"at once (a team past the limit fails, its binds out of memory).\n"
	"set mc-limit needs CAP_NET_ADMIN.\n";

static const char monitor_usage[] =
	"usage: cumcctl [-j] [-p] [-t] monitor [all] [--count N] [--timeout MS]\n"
	"Print control-plane events until N have come or MS have passed;\n"
	"-t: each with the time it came (UTC).\n";

static int usage(const char *text, bool help)
{
	fputs(text, help ? stdout : stderr);
	return help ? 0 : EXIT_USAGE;
}

static bool is_help_word(const char *s)
{
	return !strcmp(s, "--help") || !strcmp(s, "-h") || !strcmp(s, "help");
}

static bool is_help(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (is_help_word(argv[i]))
			return true;
	return false;
}

/* One line that names what was not understood, one line of where to look. */
static int unknown_command(const char *object, const char *word)
{
	fprintf(stderr, "cumcctl: unknown command \"%s\" for \"%s\"\n", word,
		object);
	fprintf(stderr, "Try \"cumcctl %s help\".\n", object);
	return EXIT_USAGE;
}

/* `show`, as iproute2 spells it: show, list, lst, ls. */
static bool is_show(const char *s)
{
	return !strcmp(s, "show") || !strcmp(s, "list") || !strcmp(s, "lst") ||
	       !strcmp(s, "ls");
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

/* The JSON builders: every value through json-c, which escapes strings. */
static struct json_object *json_new(void)
{
	struct json_object *o = json_object_new_object();

	if (!o) {
		fprintf(stderr, "cumcctl: out of memory\n");
		exit(EXIT_KERNEL);
	}
	return o;
}

static void put_str(struct json_object *o, const char *key, const char *v)
{
	json_object_object_add(o, key, json_object_new_string(v));
}

static void put_u64(struct json_object *o, const char *key, uint64_t v)
{
	json_object_object_add(o, key, json_object_new_uint64(v));
}

static void put_bool(struct json_object *o, const char *key, bool v)
{
	json_object_object_add(o, key, json_object_new_boolean(v));
}

/* -j: one line; -p: indented, two spaces. Either way, "/" stays "/". */
static void json_print(struct json_object *o)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE;

	flags |= pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED :
			  JSON_C_TO_STRING_PLAIN;
	puts(json_object_to_json_string_ext(o, flags));
	fflush(stdout);
}

void cumcctl_json_print(struct json_object *o)
{
	json_print(o);
}

/* A row of a dump: into the array, or the table's header before the first. */
static void add_row(struct json_object *o)
{
	if (json)
		json_object_array_add(rows, o);
	else if (!num_rows && table_header)
		fputs(table_header, stdout);
	num_rows++;
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

/* Multicast off: DEV_SET took the device out (absent: an older module). */
static bool multicast_off(struct nlattr **tb)
{
	return tb[CUMC_A_DEV_MULTICAST] && !get_u32(tb, CUMC_A_DEV_MULTICAST);
}

/*
 * The conditions DEV_SET gave, as the table shows them after the fabric
 * state in its column: ",held,multicast-off,health=0xa9"; "" for none.
 */
static void dev_conditions(struct nlattr **tb, char *out, size_t size)
{
	int n = 0;

	out[0] = '\0';
	if (tb[CUMC_A_FABRIC_STATE_HELD])
		n += snprintf(out + n, size - n, ",held");
	if (multicast_off(tb))
		n += snprintf(out + n, size - n, ",multicast-off");
	if (tb[CUMC_A_FABRIC_HEALTH_MASK])
		snprintf(out + n, size - n, ",health=0x%x",
			 get_u32(tb, CUMC_A_FABRIC_HEALTH_MASK));
}

static void dev_json(struct nlattr **tb, const char *uuid, const char *backend,
		     bool lost)
{
	struct json_object *o = json_new();
	char cluster[37];

	put_u64(o, "device", get_u32(tb, CUMC_A_DEV_ORDINAL));
	put_str(o, "uuid", uuid);
	put_str(o, "name", nla_get_string(tb[CUMC_A_DEV_NAME]));
	put_u64(o, "pci_bus", get_u32(tb, CUMC_A_DEV_PCI_BUS));
	put_u64(o, "mem_total", get_u64(tb, CUMC_A_DEV_MEM_TOTAL));
	put_u64(o, "mem_free", get_u64(tb, CUMC_A_DEV_MEM_FREE));
	put_str(o, "backend", backend);
	put_bool(o, "lost", lost);
	put_str(o, "fabric_state", fabric_state(tb));
	put_bool(o, "fabric_state_held", tb[CUMC_A_FABRIC_STATE_HELD] != NULL);
	if (tb[CUMC_A_DEV_MULTICAST])
		put_bool(o, "multicast", !multicast_off(tb));
	if (tb[CUMC_A_FABRIC_HEALTH_MASK])
		put_u64(o, "health_mask", get_u32(tb, CUMC_A_FABRIC_HEALTH_MASK));
	/* A GPU of a multi-node fabric: the node that owns it, where. */
	if (tb[CUMC_A_FABRIC_NODE])
		put_u64(o, "node", get_u32(tb, CUMC_A_FABRIC_NODE));
	if (tb[CUMC_A_FABRIC_CLUSTER_UUID]) {
		format_uuid(tb[CUMC_A_FABRIC_CLUSTER_UUID], cluster);
		put_str(o, "cluster_uuid", cluster);
	}
	if (tb[CUMC_A_FABRIC_CLIQUE_ID])
		put_u64(o, "clique_id", get_u32(tb, CUMC_A_FABRIC_CLIQUE_ID));
	add_row(o);
}

static int dev_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[CUMC_A_MAX + 1];
	const char *backend;
	char uuid[37], conditions[64];
	bool lost;

	(void)arg;
	if (parse(msg, tb) || !tb[CUMC_A_DEV_UUID] || !tb[CUMC_A_DEV_NAME])
		return NL_SKIP;
	if (dev_filter >= 0 && get_u32(tb, CUMC_A_DEV_ORDINAL) != dev_filter)
		return NL_OK;
	format_uuid(tb[CUMC_A_DEV_UUID], uuid);
	backend = tb[CUMC_A_DEV_BACKEND] ?
		  nla_get_string(tb[CUMC_A_DEV_BACKEND]) : "system";
	lost = tb[CUMC_A_DEV_LOST] != NULL;
	if (json) {
		dev_json(tb, uuid, backend, lost);
		return NL_OK;
	}
	dev_conditions(tb, conditions, sizeof(conditions));
	add_row(NULL);
	printf("%-4u %s  %-26s %02x  %12" PRIu64 " %12" PRIu64 "  %-7s %-5s %s%s\n",
	       get_u32(tb, CUMC_A_DEV_ORDINAL), uuid,
	       nla_get_string(tb[CUMC_A_DEV_NAME]),
	       get_u32(tb, CUMC_A_DEV_PCI_BUS),
	       get_u64(tb, CUMC_A_DEV_MEM_TOTAL) >> 20,
	       get_u64(tb, CUMC_A_DEV_MEM_FREE) >> 20, backend,
	       lost ? "lost" : "ok", fabric_state(tb), conditions);
	return NL_OK;
}

/*
 * Run a dump with @cb as the row maker: a JSON array of its rows, or a
 * table under @header (printed even when no row comes).
 */
static int dump(uint8_t cmd, nl_recvmsg_msg_cb_t cb, const char *header)
{
	int err;

	connect_family();
	table_header = header;
	num_rows = 0;
	if (json)
		rows = json_object_new_array();
	err = cumc_nl_transact(&nl, request(cmd, NLM_F_DUMP), cb, NULL);
	cumc_nl_close(&nl);
	if (err) {
		json_object_put(rows);
		return refused("dump", err);
	}
	/* ip's answer to a device that is not there. */
	if (dev_filter >= 0 && !num_rows) {
		json_object_put(rows);
		fprintf(stderr, "cumcctl: device %" PRId64 ": %s\n", dev_filter,
			strerror(ENODEV));
		return EXIT_KERNEL;
	}
	if (json) {
		json_print(rows);
		json_object_put(rows);
	} else if (!num_rows && dev_filter < 0) {
		fputs(header, stdout);
	}
	return 0;
}

static struct json_object *member(struct nlattr *attr)
{
	struct nlattr *mb[CUMC_MEMBER_A_MAX + 1], *bind, *b[CUMC_BIND_A_MAX + 1];
	struct json_object *o, *binds, *bo;
	int rem;

	if (nla_parse_nested(mb, CUMC_MEMBER_A_MAX, attr, NULL))
		return NULL;
	o = json_new();
	binds = json_object_new_array();
	put_u64(o, "device", get_u32(mb, CUMC_MEMBER_A_DEVICE));
	if (!json)
		printf("    member %u\n", get_u32(mb, CUMC_MEMBER_A_DEVICE));
	nla_for_each_nested(bind, attr, rem) {
		if (nla_type(bind) != CUMC_MEMBER_A_BIND ||
		    nla_parse_nested(b, CUMC_BIND_A_MAX, bind, NULL))
			continue;
		bo = json_new();
		put_u64(bo, "mc_offset", get_u64(b, CUMC_BIND_A_MC_OFFSET));
		put_u64(bo, "length", get_u64(b, CUMC_BIND_A_LENGTH));
		put_u64(bo, "mem_offset", get_u64(b, CUMC_BIND_A_MEM_OFFSET));
		json_object_array_add(binds, bo);
		if (!json)
			printf("      bind mc_offset=0x%" PRIx64 " length=0x%" PRIx64 " mem_offset=0x%" PRIx64 "\n",
			       get_u64(b, CUMC_BIND_A_MC_OFFSET),
			       get_u64(b, CUMC_BIND_A_LENGTH),
			       get_u64(b, CUMC_BIND_A_MEM_OFFSET));
	}
	json_object_object_add(o, "binds", binds);
	return o;
}

static int obj_cb(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[CUMC_A_MAX + 1], *attr;
	struct json_object *o, *members, *m;
	const char *state;
	bool pending;
	int rem;

	(void)arg;
	if (parse(msg, tb))
		return NL_SKIP;
	state = get_u32(tb, CUMC_A_MC_STATE) < 3 ?
		state_names[get_u32(tb, CUMC_A_MC_STATE)] : "?";
	pending = tb[CUMC_A_MC_FM_PENDING] != NULL;
	o = json_new();
	put_u64(o, "id", get_u32(tb, CUMC_A_MC_ID));
	put_u64(o, "team_size", get_u32(tb, CUMC_A_MC_TEAM_SIZE));
	put_u64(o, "length", get_u64(tb, CUMC_A_MC_LENGTH));
	put_str(o, "state", state);
	put_bool(o, "fm_pending", pending);
	add_row(json ? o : NULL);
	if (!json)
		printf("%-6u %-5u %14" PRIu64 " %-8s %s\n",
		       get_u32(tb, CUMC_A_MC_ID), get_u32(tb, CUMC_A_MC_TEAM_SIZE),
		       get_u64(tb, CUMC_A_MC_LENGTH), state,
		       pending ? "fm-pending" : "");
	members = json_object_new_array();
	nla_for_each_attr(attr, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0),
			  rem) {
		if (nla_type(attr) == CUMC_A_MC_MEMBER && (m = member(attr)))
			json_object_array_add(members, m);
	}
	json_object_object_add(o, "members", members);
	if (!json)
		json_object_put(o);
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

#define NUM_STATS (sizeof(stat_attrs) / sizeof(stat_attrs[0]))

/*
 * A row's scope: "device" with the device's ordinal in "device", or
 * "fabric" (all devices) with no "device" key: never two types in one key.
 */
static void put_scope(struct json_object *o, struct nlattr **tb)
{
	put_str(o, "scope", tb[CUMC_A_DEV_ORDINAL] ? "device" : "fabric");
	if (tb[CUMC_A_DEV_ORDINAL])
		put_u64(o, "device", get_u32(tb, CUMC_A_DEV_ORDINAL));
}

static int stats_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[CUMC_A_MAX + 1];
	struct json_object *o;
	size_t i;

	(void)arg;
	if (parse(msg, tb))
		return NL_SKIP;
	if (json) {
		o = json_new();
		put_scope(o, tb);
		for (i = 0; i < NUM_STATS; i++)
			put_u64(o, stat_attrs[i].name,
				get_u64(tb, stat_attrs[i].attr));
		add_row(o);
		return NL_OK;
	}
	add_row(NULL);
	if (tb[CUMC_A_DEV_ORDINAL])
		printf("%-7u", get_u32(tb, CUMC_A_DEV_ORDINAL));
	else
		fputs("fabric ", stdout);
	for (i = 0; i < NUM_STATS; i++)
		printf(" %12" PRIu64, get_u64(tb, stat_attrs[i].attr));
	putchar('\n');
	return NL_OK;
}

static int fault_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[CUMC_A_MAX + 1];
	const char *type, *mode;
	struct json_object *o;
	char where[16] = "fabric";

	(void)arg;
	if (parse(msg, tb))
		return NL_SKIP;
	type = get_u32(tb, CUMC_A_FAULT_TYPE) < CUMC_FAULT_NR ?
	       fault_names[get_u32(tb, CUMC_A_FAULT_TYPE)] : "?";
	mode = get_u32(tb, CUMC_A_FAULT_MODE) <= CUMC_FAULT_MODE_PROBABILITY ?
	       mode_names[get_u32(tb, CUMC_A_FAULT_MODE)] : "?";
	if (json) {
		o = json_new();
		put_str(o, "type", type);
		put_scope(o, tb);
		put_str(o, "mode", mode);
		put_u64(o, "value", get_u32(tb, CUMC_A_FAULT_VALUE));
		put_u64(o, "hits", get_u64(tb, CUMC_A_FAULT_HITS));
		if (tb[CUMC_A_FAULT_DELAY_MS])
			put_u64(o, "delay_ms", get_u32(tb, CUMC_A_FAULT_DELAY_MS));
		add_row(o);
		return NL_OK;
	}
	if (tb[CUMC_A_DEV_ORDINAL])
		snprintf(where, sizeof(where), "%u",
			 get_u32(tb, CUMC_A_DEV_ORDINAL));
	add_row(NULL);
	printf("%-14s %-7s %-8s %8u %10" PRIu64, type, where, mode,
	       get_u32(tb, CUMC_A_FAULT_VALUE), get_u64(tb, CUMC_A_FAULT_HITS));
	if (tb[CUMC_A_FAULT_DELAY_MS])
		printf("  delay %ums", get_u32(tb, CUMC_A_FAULT_DELAY_MS));
	putchar('\n');
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
			int64_t device, uint32_t delay_ms)
{
	int err;

	connect_family();
	err = cumc_nl_fault_set_delay(&nl, type, mode, value, device, delay_ms);
	cumc_nl_close(&nl);
	return err ? refused("fault", err) : 0;
}

/* The armed faults, as FAULT_GET lists them, for fault clear all. */
struct armed {
	uint32_t type;
	int64_t device;
};

static struct armed armed[CUMC_FAULT_NR * (CUMC_MAX_DEVICES + 1)];
static unsigned int num_armed;

static int armed_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[CUMC_A_MAX + 1];

	(void)arg;
	if (parse(msg, tb) || num_armed == sizeof(armed) / sizeof(armed[0]))
		return NL_SKIP;
	armed[num_armed].type = get_u32(tb, CUMC_A_FAULT_TYPE);
	armed[num_armed].device = CUMC_NL_FABRIC;
	if (tb[CUMC_A_DEV_ORDINAL])
		armed[num_armed].device = get_u32(tb, CUMC_A_DEV_ORDINAL);
	num_armed++;
	return NL_OK;
}

/* Every armed fault off: listed first, cleared after the dump's end. */
static int fault_clear_all(void)
{
	unsigned int i;
	int err;

	connect_family();
	num_armed = 0;
	err = cumc_nl_transact(&nl, request(CUMC_CMD_FAULT_GET, NLM_F_DUMP),
			       armed_cb, NULL);
	for (i = 0; !err && i < num_armed; i++)
		err = cumc_nl_fault_set(&nl, armed[i].type, CUMC_FAULT_MODE_OFF,
					0, armed[i].device);
	cumc_nl_close(&nl);
	return err ? refused("fault clear all", err) : 0;
}

/* set's and clear's options: --device N, --delay MS (set only). */
static bool parse_fault_options(int argc, char **argv, int i, bool set,
				int64_t *device, uint32_t *delay_ms)
{
	while (i < argc) {
		if (!strcmp(argv[i], "--device")) {
			if (!parse_device(argc, argv, &i, device))
				return false;
		} else if (set && !strcmp(argv[i], "--delay") && i + 1 < argc &&
			   parse_u32(argv[i + 1], delay_ms) && *delay_ms) {
			i += 2;
		} else {
			return false;
		}
	}
	return true;
}

/* set's MODE [N]: once, every N, percent P. */
static bool parse_mode(int argc, char **argv, int *i, uint32_t *mode,
		       uint32_t *value)
{
	if (*i >= argc)
		return false;
	if (!strcmp(argv[*i], "once")) {
		*mode = CUMC_FAULT_MODE_ONCE;
		(*i)++;
		return true;
	}
	if (*i + 1 >= argc || !parse_u32(argv[*i + 1], value))
		return false;
	if (!strcmp(argv[*i], "every"))
		*mode = CUMC_FAULT_MODE_EVERY_NTH;
	else if (!strcmp(argv[*i], "percent"))
		*mode = CUMC_FAULT_MODE_PROBABILITY;
	else
		return false;
	*i += 2;
	return true;
}

static int cmd_fault(int argc, char **argv)
{
	uint32_t mode = CUMC_FAULT_MODE_OFF, value = 0, delay_ms = 0;
	int64_t device = CUMC_NL_FABRIC;
	bool set;
	int type, i;

	if (is_help(argc, argv))
		return usage(fault_usage, true);
	if (argc < 1 || (is_show(argv[0]) && argc == 1))
		return dump(CUMC_CMD_FAULT_GET, fault_cb,
			    "TYPE           DEVICE  MODE        VALUE       HITS\n");
	if (strcmp(argv[0], "set") && strcmp(argv[0], "clear"))
		return is_show(argv[0]) ? usage(fault_usage, false) :
		       unknown_command("fault", argv[0]);
	set = !strcmp(argv[0], "set");
	if (!set && argc == 2 && !strcmp(argv[1], "all"))
		return fault_clear_all();
	if (argc < 2 || (type = fault_type(argv[1])) < 0)
		return usage(fault_usage, false);
	i = 2;
	if (set && !parse_mode(argc, argv, &i, &mode, &value))
		return usage(fault_usage, false);
	if (!parse_fault_options(argc, argv, i, set, &device, &delay_ms))
		return usage(fault_usage, false);
	return fault_change(type, mode, value, device, delay_ms);
}

static int fm_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[CUMC_A_MAX + 1];
	struct json_object *o;
	const char *mode;

	(void)arg;
	if (parse(msg, tb))
		return NL_SKIP;
	mode = get_u32(tb, CUMC_A_FM_MODE) == CUMC_FM_MODE_EXTERNAL ?
	       "external" : "kernel";
	if (!json) {
		printf("mode %s timeout_ms %u\n", mode,
		       get_u32(tb, CUMC_A_FM_TIMEOUT_MS));
		return NL_OK;
	}
	o = json_new();
	put_str(o, "mode", mode);
	put_u64(o, "timeout_ms", get_u32(tb, CUMC_A_FM_TIMEOUT_MS));
	json_print(o);
	json_object_put(o);
	return NL_OK;
}

static int fm_transact(struct nl_msg *msg, const char *what, bool print)
{
	int err;

	err = cumc_nl_transact(&nl, msg, print ? fm_cb : NULL, NULL);
	cumc_nl_close(&nl);
	return err ? refused(what, err) : 0;
}

static int fm_respond(int argc, char **argv)
{
	struct nl_msg *msg;
	uint32_t id;

	if (argc != 3 || !parse_u32(argv[1], &id) ||
	    (strcmp(argv[2], "ok") && strcmp(argv[2], "fail")))
		return usage(fm_usage, false);
	connect_family();
	msg = request(CUMC_CMD_FM_RESPOND, 0);
	nla_put_u32(msg, CUMC_A_FM_REQ_ID, id);
	nla_put_u32(msg, CUMC_A_FM_RESULT, strcmp(argv[2], "ok") ?
		    CUMC_FM_RESULT_FAIL : CUMC_FM_RESULT_OK);
	return fm_transact(msg, "fm respond", false);
}

static int fm_mode(int argc, char **argv)
{
	struct nl_msg *msg;
	uint32_t v;
	int i;

	connect_family();
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
			cumc_nl_close(&nl);
			return usage(fm_usage, false);
		}
	}
	return fm_transact(msg, "fm mode", true);
}

static int cmd_fm(int argc, char **argv)
{
	if (is_help(argc, argv))
		return usage(fm_usage, true);
	if (argc < 1 || is_show(argv[0])) {
		if (argc > 1)
			return usage(fm_usage, false);
		connect_family();
		return fm_transact(request(CUMC_CMD_FM_GET, 0), "fm", true);
	}
	if (!strcmp(argv[0], "respond"))
		return fm_respond(argc, argv);
	if (!strcmp(argv[0], "mode"))
		return fm_mode(argc, argv);
	return unknown_command("fm", argv[0]);
}

/* FABRIC_GET's reply: what is absent is null, or - in the table. */
static int fabric_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[CUMC_A_MAX + 1];
	char cluster[37] = "-", clique[16] = "-", teams[24] = "-";
	struct json_object *o;
	bool imex;

	(void)arg;
	if (parse(msg, tb))
		return NL_SKIP;
	if (tb[CUMC_A_FABRIC_CLUSTER_UUID])
		format_uuid(tb[CUMC_A_FABRIC_CLUSTER_UUID], cluster);
	if (tb[CUMC_A_FABRIC_CLIQUE_ID])
		snprintf(clique, sizeof(clique), "%u",
			 get_u32(tb, CUMC_A_FABRIC_CLIQUE_ID));
	imex = tb[CUMC_A_IMEX_ATTACHED] != NULL;
	if (tb[CUMC_A_FABRIC_MC_LIMIT])
		snprintf(teams, sizeof(teams), "%u/%u",
			 get_u32(tb, CUMC_A_FABRIC_MC_TEAMS),
			 get_u32(tb, CUMC_A_FABRIC_MC_LIMIT));
	if (json) {
		o = json_new();
		put_u64(o, "node", get_u32(tb, CUMC_A_FABRIC_NODE));
		put_str(o, "state", fabric_state(tb));
		json_object_object_add(o, "cluster_uuid",
				       tb[CUMC_A_FABRIC_CLUSTER_UUID] ?
				       json_object_new_string(cluster) : NULL);
		json_object_object_add(o, "clique_id",
				       tb[CUMC_A_FABRIC_CLIQUE_ID] ?
				       json_object_new_uint64(get_u32(tb, CUMC_A_FABRIC_CLIQUE_ID)) :
				       NULL);
		put_bool(o, "imex_attached", imex);
		/* Absent from an older module's answer: no key, no guess. */
		if (tb[CUMC_A_FABRIC_MC_LIMIT]) {
			put_u64(o, "mc_limit", get_u32(tb, CUMC_A_FABRIC_MC_LIMIT));
			put_u64(o, "mc_teams", get_u32(tb, CUMC_A_FABRIC_MC_TEAMS));
		}
		json_print(o);
		json_object_put(o);
		return NL_OK;
	}
	printf("%-4s %-14s %-36s %-10s %-4s %s\n", "NODE", "STATE", "CLUSTER",
	       "CLIQUE", "IMEX", "TEAMS/LIMIT");
	printf("%-4u %-14s %-36s %-10s %-4s %s\n", get_u32(tb, CUMC_A_FABRIC_NODE),
	       fabric_state(tb), cluster, clique, imex ? "yes" : "no", teams);
	return NL_OK;
}

/* fabric set mc-limit N */
static int fabric_set(int argc, char **argv)
{
	uint32_t limit;
	int err;

	if (argc != 3 || strcmp(argv[1], "mc-limit") ||
	    !parse_u32(argv[2], &limit))
		return usage(fabric_usage, false);
	connect_family();
	err = cumc_nl_fabric_set_mc_limit(&nl, limit);
	cumc_nl_close(&nl);
	return err ? refused("fabric set", err) : 0;
}

static int cmd_fabric(int argc, char **argv)
{
	uint32_t number;
	int err;

	if (is_help(argc, argv))
		return usage(fabric_usage, true);
	if (argc && !strcmp(argv[0], "set"))
		return fabric_set(argc, argv);
	/* A word is an unknown command; an argument (a number) a usage error. */
	if (argc == 1 && !is_show(argv[0]) && !parse_u32(argv[0], &number))
		return unknown_command("fabric", argv[0]);
	if (argc > 1 || (argc == 1 && !is_show(argv[0])))
		return usage(fabric_usage, false);
	connect_family();
	err = cumc_nl_transact(&nl, request(CUMC_CMD_FABRIC_GET, 0), fabric_cb,
			       NULL);
	cumc_nl_close(&nl);
	return err ? refused("fabric", err) : 0;
}

static long remaining;	/* events still to print, or -1 */

/* The wall-clock time, UTC, to the microsecond: 2026-11-27T00:40:12.123456Z */
static void format_time(char *out, size_t size)
{
	struct timespec ts;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(out, size, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + n, size - n, ".%06ldZ", ts.tv_nsec / 1000);
}

/* An event as JSON: only the keys its attributes carry. */
static void event_json(const char *name, const char *stamp, struct nlattr **tb)
{
	struct json_object *o = json_new();

	put_str(o, "event", name);
	if (stamp)
		put_str(o, "timestamp", stamp);
	if (tb[CUMC_A_MC_ID])
		put_u64(o, "id", get_u32(tb, CUMC_A_MC_ID));
	if (tb[CUMC_A_FM_REQ_ID])
		put_u64(o, "req_id", get_u32(tb, CUMC_A_FM_REQ_ID));
	if (tb[CUMC_A_MC_TEAM_SIZE])
		put_u64(o, "team_size", get_u32(tb, CUMC_A_MC_TEAM_SIZE));
	if (tb[CUMC_A_MC_LENGTH])
		put_u64(o, "length", get_u64(tb, CUMC_A_MC_LENGTH));
	if (tb[CUMC_A_DEV_ORDINAL])
		put_u64(o, "device", get_u32(tb, CUMC_A_DEV_ORDINAL));
	if (tb[CUMC_A_BIND_MC_OFFSET])
		put_u64(o, "mc_offset", get_u64(tb, CUMC_A_BIND_MC_OFFSET));
	if (tb[CUMC_A_BIND_LENGTH])
		put_u64(o, "length", get_u64(tb, CUMC_A_BIND_LENGTH));
	if (tb[CUMC_A_IMEX_NODE])
		put_u64(o, "node", get_u32(tb, CUMC_A_IMEX_NODE));
	json_print(o);
	json_object_put(o);
}

static void event_text(const char *name, const char *stamp, struct nlattr **tb)
{
	if (stamp)
		printf("[%s] ", stamp);
	printf("%-15s id=%u", name, get_u32(tb, CUMC_A_MC_ID));
	if (tb[CUMC_A_FM_REQ_ID])
		printf(" req=%u", get_u32(tb, CUMC_A_FM_REQ_ID));
	if (tb[CUMC_A_MC_TEAM_SIZE])
		printf(" team=%u length=%" PRIu64,
		       get_u32(tb, CUMC_A_MC_TEAM_SIZE),
		       get_u64(tb, CUMC_A_MC_LENGTH));
	if (tb[CUMC_A_DEV_ORDINAL])
		printf(" device=%u", get_u32(tb, CUMC_A_DEV_ORDINAL));
	if (tb[CUMC_A_BIND_MC_OFFSET])
		printf(" mc_offset=0x%" PRIx64 " length=0x%" PRIx64,
		       get_u64(tb, CUMC_A_BIND_MC_OFFSET),
		       get_u64(tb, CUMC_A_BIND_LENGTH));
	if (tb[CUMC_A_IMEX_NODE])
		printf(" node=%u", get_u32(tb, CUMC_A_IMEX_NODE));
	putchar('\n');
	fflush(stdout);
}

static int event_cb(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[CUMC_A_MAX + 1];
	const char *name = "?";
	char stamp[40];

	(void)arg;
	if (parse(msg, tb))
		return NL_SKIP;
	if (gh->cmd < sizeof(event_names) / sizeof(event_names[0]) &&
	    event_names[gh->cmd])
		name = event_names[gh->cmd];
	if (timestamps)
		format_time(stamp, sizeof(stamp));
	if (json)
		event_json(name, timestamps ? stamp : NULL, tb);
	else
		event_text(name, timestamps ? stamp : NULL, tb);
	if (remaining > 0)
		remaining--;
	return NL_OK;
}

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
		if (!strcmp(argv[i], "all"))
			continue;
		if (strcmp(argv[i], "--count") && strcmp(argv[i], "--timeout"))
			return argv[i][0] == '-' ? usage(monitor_usage, false) :
			       unknown_command("monitor", argv[i]);
		if (i + 1 >= argc || !parse_u32(argv[i + 1], &v))
			return usage(monitor_usage, false);
		if (!strcmp(argv[i], "--count"))
			remaining = v;
		else
			deadline = now_ms() + v;
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
	/*
	 * Subscribed from here on, as tcpdump says "listening": a script
	 * that makes events waits for this line, not for a guessed time.
	 */
	fprintf(stderr, "cumcctl: monitor: listening\n");
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

static int fabric_state_value(const char *s)
{
	for (int i = 0; i <= CUMC_FABRIC_STATE_COMPLETED; i++)
		if (!strcmp(s, fabric_state_names[i]))
			return i;
	return -1;
}

static int on_off_value(const char *s)
{
	if (!strcmp(s, "on") || !strcmp(s, "1"))
		return 1;
	if (!strcmp(s, "off") || !strcmp(s, "0"))
		return 0;
	return -1;
}

/* One NAME VALUE pair of dev set into @cond: false when malformed. */
static bool dev_set_pair(const char *name, const char *value,
			 struct cumc_nl_dev_cond *cond)
{
	uint32_t mask;

	if (!strcmp(name, "state"))
		return (cond->state = fabric_state_value(value)) >= 0;
	if (!strcmp(name, "multicast"))
		return (cond->multicast = on_off_value(value)) >= 0;
	if (strcmp(name, "health-mask") || !parse_u32(value, &mask))
		return false;
	cond->health_mask = mask;
	return true;
}

/* dev set [ID] [reset] [NAME VALUE]...: at least one of them. */
static int dev_set(int argc, char **argv)
{
	struct cumc_nl_dev_cond cond = CUMC_NL_DEV_COND_NONE;
	bool any = false;
	uint32_t id;
	int i = 1, err;

	if (i < argc && parse_u32(argv[i], &id)) {
		cond.device = id;
		i++;
	}
	for (; i < argc; i++, any = true) {
		if (!strcmp(argv[i], "reset")) {
			cond.reset = true;
			continue;
		}
		if (i + 1 >= argc || !dev_set_pair(argv[i], argv[i + 1], &cond))
			return usage(dev_usage, false);
		i++;
	}
	if (!any)
		return usage(dev_usage, false);
	connect_family();
	err = cumc_nl_dev_set(&nl, &cond);
	cumc_nl_close(&nl);
	return err ? refused("dev set", err) : 0;
}

/* dev [show [ID]]: the old `dev` is the same as `dev show`. */
static int cmd_dev(int argc, char **argv)
{
	uint32_t id;

	if (is_help(argc, argv))
		return usage(dev_usage, true);
	if (argc && !strcmp(argv[0], "set"))
		return dev_set(argc, argv);
	if (argc && !is_show(argv[0]))
		return parse_u32(argv[0], &id) ? usage(dev_usage, false) :
		       unknown_command("dev", argv[0]);
	if (argc > 2 || (argc == 2 && !parse_u32(argv[1], &id)))
		return usage(dev_usage, false);
	if (argc == 2)
		dev_filter = id;
	return dump(CUMC_CMD_DEV_GET, dev_cb,
		    "DEV  UUID                                  NAME                       BUS  TOTAL(MiB)    FREE(MiB)  BACKEND STATE FABRIC\n");
}

/* obj and stats: OBJECT [show], nothing more. */
static int cmd_table(const char *object, const char *help, int argc,
		     char **argv, uint8_t cmd, nl_recvmsg_msg_cb_t cb,
		     const char *header)
{
	if (is_help(argc, argv))
		return usage(help, true);
	if (argc && !is_show(argv[0]))
		return unknown_command(object, argv[0]);
	if (argc > 1)
		return usage(help, false);
	return dump(cmd, cb, header);
}

static int cmd_obj(int argc, char **argv)
{
	return cmd_table("obj", obj_usage, argc, argv, CUMC_CMD_MC_GET, obj_cb,
			 "ID     TEAM          LENGTH STATE\n");
}

static int cmd_stats(int argc, char **argv)
{
	return cmd_table("stats", stats_usage, argc, argv, CUMC_CMD_STATS_GET,
			 stats_cb,
			 "DEVICE       OBJECTS  BOUND_BYTES        BINDS         MAPS        WAITS       FAULTS\n");
}

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return usage(usage_text, true);
}

static int cmd_batch(int argc, char **argv)
{
	return cumcctl_batch(argc, argv);
}

static int cmd_scenario(int argc, char **argv)
{
	return cumcctl_scenario(argc, argv, json);
}

static const struct object {
	const char *name;
	int (*run)(int argc, char **argv);
} objects[] = {
	{ "dev", cmd_dev },
	{ "obj", cmd_obj },
	{ "stats", cmd_stats },
	{ "fault", cmd_fault },
	{ "fm", cmd_fm },
	{ "fabric", cmd_fabric },
	{ "monitor", cmd_monitor },
	{ "batch", cmd_batch },
	{ "scenario", cmd_scenario },
	{ "help", cmd_help },
};

int cumcctl_run(int argc, char **argv)
{
	for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); i++)
		if (!strcmp(argv[0], objects[i].name))
			return objects[i].run(argc - 1, argv + 1);
	fprintf(stderr, "%s \"%s\" is unknown, try \"cumcctl help\".\n",
		argv[0][0] == '-' ? "Option" : "Object", argv[0]);
	return EXIT_USAGE;
}

/*
 * The global options, wherever they are on the line: -j, -p, -t, -V and
 * their long forms (and iproute2's -json, -pretty), also bundled (-jp).
 * Returns -1 when the word is none of them, 1 for -V.
 */
static int global_option(const char *s)
{
	int version = 0;

	if (!strcmp(s, "--json") || !strcmp(s, "-json"))
		s = "-j";
	else if (!strcmp(s, "--pretty") || !strcmp(s, "-pretty"))
		s = "-p";
	else if (!strcmp(s, "--timestamp") || !strcmp(s, "-timestamp"))
		s = "-t";
	else if (!strcmp(s, "--version") || !strcmp(s, "-version"))
		s = "-V";
	if (s[0] != '-' || !s[1] || strspn(s + 1, "jptV") != strlen(s + 1))
		return -1;
	for (s++; *s; s++) {
		json |= *s == 'j' || *s == 'p';
		pretty |= *s == 'p';
		timestamps |= *s == 't';
		version |= *s == 'V';
	}
	return version;
}

int main(int argc, char **argv)
{
	bool version = false;
	int i, n = 0, opt;

	/* Take the global options out; what stays is OBJECT [COMMAND ...]. */
	for (i = 1; i < argc; i++) {
		opt = global_option(argv[i]);
		if (opt < 0)
			argv[1 + n++] = argv[i];
		version |= opt > 0;
	}
	argc = n + 1;
	if (version) {
		printf("cumcctl %s\n", CUMC_VERSION);
		return 0;
	}
	if (argc < 2)
		return usage(usage_text, false);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return usage(usage_text, true);
	return cumcctl_run(argc - 1, argv + 1);
}
