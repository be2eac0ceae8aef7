// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures everywhere, in the manner of iommufd_fail_nth: for
 * each sequence of ioctls or generic netlink commands and n = 1, 2, 3...,
 * make the n-th allocation of this thread fail
 * (/proc/self/task/TID/fail-nth, with failslab and fail_page_alloc), run
 * the sequence, check that it either completed or stopped at a call that
 * failed with an errno, undo what it made, and check that every
 * live-object count is back to its value before. It ends when the
 * sequence runs to the end without the injection being reached.
 *
 * Between them the sequences reach every ioctl command and every netlink
 * command of the module: fail_nth.every_command_reached runs each once,
 * without injection, on any kernel, and fails when a command the module
 * answers (the ioctl dispatcher's range, probed; the family's commands up
 * to CUMC_CMD_MAX) was reached by none, so that a new command needs a
 * sequence here.
 *
 * The injection needs a kernel with CONFIG_FAULT_INJECTION_DEBUG_FS,
 * FAILSLAB and FAIL_PAGE_ALLOC (scripts/debug-kernel: the debug lane runs
 * this in a VM of its own, make check-fail-nth); fail_nth.sequences is
 * skipped elsewhere. kmemleak, in that lane, sees
 * what the object counts do not.
 */
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/cumc.h>

/*
 * Every ioctl of the selftest helpers goes through here: the commands
 * that succeeded at least once are those the sequences reached.
 */
static unsigned long long ioctl_reached;

static int traced_ioctl(int fd, unsigned long req, void *arg)
{
	int ret = ioctl(fd, req, arg);
	unsigned int nr = _IOC_NR(req);

	if (!ret && _IOC_TYPE(req) == CUMC_TYPE && nr >= CUMC_CMD_BASE &&
	    nr - CUMC_CMD_BASE < 64)
		ioctl_reached |= 1ULL << (nr - CUMC_CMD_BASE);
	return ret;
}

#define ioctl(fd, req, arg) traced_ioctl(fd, req, arg)

#include "kselftest_harness.h"

#include "cumc_nl.h"
#include "cumc_selftest.h"
#include "nl_monitor.h"

#define MAX_N 4000
#define CHANNEL_PATH "/dev/cumc-imex-channels/channel0"
/* Another node of the fabric, as IMEX_CALL's caller; and a lost one. */
#define OTHER_NODE 1
#define LOST_NODE 2

static __u64 gran;

/* The netlink commands that answered as they should at least once. */
static unsigned long long nl_reached;

/*
 * Everything a sequence may leave behind, for cleanup(). Sockets and
 * descriptors are opened by prepare(), before the injection is armed,
 * except those the sequence itself is about.
 */
struct seq_state {
	int fd, fd2, efd, ch, ch2;
	__u64 mem, mem2, mc, va, va2;
	/* Member views the sequence made: unmapped by the cleanup. */
	__u64 views[2];
	struct cumc_nl nl, daemon;
	bool nl_open, daemon_open;
	struct monitor mon;
	/* What prepare() saw and cleanup() puts back. */
	enum cumc_fm_mode fm_mode;
	uint32_t fm_timeout_ms, fm_req;
	bool fm_saved, fault_set, hold_taken;
	uint32_t hold;
	__u8 fabric[CUMC_FABRIC_HANDLE_SIZE];
};

static int fail_nth_fd(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth",
		 (long)syscall(SYS_gettid));
	return open(path, O_RDWR | O_CLOEXEC);
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

/* Arm: the n-th allocation from now fails. */
static int arm(int nth, int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", n);

	return pwrite(nth, buf, len, 0) == len ? 0 : -1;
}

/* Disarm; whether the injection was reached (the count ran down to 0). */
static int disarm(int nth)
{
	char buf[16] = "";
	int left;

	if (pread(nth, buf, sizeof(buf) - 1, 0) <= 0)
		return -1;
	left = atoi(buf);
	if (pwrite(nth, "0", 1, 0) != 1)
		return -1;
	return left == 0;
}

/*
 * A netlink command's outcome @ret: 0 when it is @want (0, or the errno
 * the command answers by design), which marks @cmd reached; else @ret, or
 * -EPROTO for a success where a refusal was due.
 */
static int nl_outcome(int cmd, int ret, int want)
{
	if (ret != want)
		return ret ?: -EPROTO;
	nl_reached |= 1ULL << cmd;
	return 0;
}

#define NL(cmd, call) nl_outcome(cmd, call, 0)

/*
 * The ioctl sequences: each stops at the first failure, which is fine as
 * long as it is an errno; the cleanup is the caller's, from the state.
 */

static int seq_create(struct seq_state *s)
{
	struct cumc_device_info dev;
	struct cumc_mem_info info;
	struct cumc_query q;
	int ret;

	ret = st_query(s->fd, &q) ?:
	      st_device_info(s->fd, 0, &dev) ?:
	      st_mem_create(s->fd, 0, 0, gran, &s->mem) ?:
	      st_mem_info(s->fd, s->mem, &info) ?:
	      st_release(s->fd, s->mem);
	if (!ret)
		s->mem = 0;
	return ret;
}

static int seq_map(struct seq_state *s)
{
	struct cumc_va_query q;
	int ret;

	ret = st_mem_create(s->fd, 0, 0, gran, &s->mem) ?:
	      st_va_reserve(s->fd, gran, 0, 0, &s->va) ?:
	      st_map(s->fd, s->va, gran, s->mem) ?:
	      st_grant(s->fd, s->va, gran, 0, CUMC_ACCESS_READWRITE) ?:
	      st_va_query(s->fd, s->va, 0, 0, &q) ?:
	      st_unmap(s->fd, s->va, gran) ?:
	      st_va_free(s->fd, s->va, gran);
	if (!ret)
		s->va = 0;
	return ret;
}

/* The same in a shared arena: its first reservation maps the arena. */
static int seq_map_shared(struct seq_state *s)
{
	return st_mem_create(s->fd, 0, 0, gran, &s->mem) ?:
	       st_va_reserve_shared(s->fd, gran, 0, 0, &s->va) ?:
	       st_map(s->fd, s->va, gran, s->mem) ?:
	       st_grant(s->fd, s->va, gran, 0, CUMC_ACCESS_READWRITE) ?:
	       st_unmap(s->fd, s->va, gran);
}

static int seq_share(struct seq_state *s)
{
	int ret;

	ret = st_mem_create(s->fd, 0, CUMC_HANDLE_FD, gran, &s->mem) ?:
	      st_export_fd(s->fd, s->mem, &s->efd);
	if (ret)
		return ret;
	s->fd2 = st_open();
	if (s->fd2 < 0)
		return -errno;
	return st_import_fd(s->fd2, s->efd, &s->mem2);
}

/* IMEX channels and fabric handles, within this node. */
static int seq_fabric(struct seq_state *s)
{
	__u8 fh[CUMC_FABRIC_HANDLE_SIZE];
	int ret;

	s->ch = open(CHANNEL_PATH, O_RDWR | O_CLOEXEC);
	if (s->ch < 0)
		return -errno;
	ret = st_attach_channel(s->fd, s->ch, NULL) ?:
	      st_mem_create(s->fd, 0, CUMC_HANDLE_FABRIC, gran, &s->mem) ?:
	      st_export_fabric(s->fd, s->mem, fh);
	if (ret)
		return ret;
	s->fd2 = st_open();
	if (s->fd2 < 0)
		return -errno;
	s->ch2 = open(CHANNEL_PATH, O_RDWR | O_CLOEXEC);
	if (s->ch2 < 0)
		return -errno;
	return st_attach_channel(s->fd2, s->ch2, NULL) ?:
	       st_import_fabric(s->fd2, fh, &s->mem2);
}

static int seq_multicast(struct seq_state *s)
{
	struct cumc_mc_info info;
	int ret;

	ret = st_mc_create(s->fd, 1, 0, gran, &s->mc) ?:
	      st_mem_create(s->fd, 0, 0, gran, &s->mem);
	if (ret)
		return ret;
	return st_mc_add(s->fd, s->mc, 0) ?:
	       st_mc_bind_mem(s->fd, s->mc, 0, 0, s->mem, 0, gran) ?:
	       st_mc_info(s->fd, s->mc, NULL, 0, &info) ?:
	       st_mc_unbind(s->fd, s->mc, 0, 0, gran);
}

/* A bind of mapped memory, named by its device address. */
static int seq_bind_addr(struct seq_state *s)
{
	return st_mc_create(s->fd, 1, 0, gran, &s->mc) ?:
	       st_mc_add(s->fd, s->mc, 0) ?:
	       st_mem_create(s->fd, 0, 0, gran, &s->mem) ?:
	       st_va_reserve(s->fd, gran, 0, 0, &s->va) ?:
	       st_map(s->fd, s->va, gran, s->mem) ?:
	       st_grant(s->fd, s->va, gran, 0, CUMC_ACCESS_READWRITE) ?:
	       st_mc_bind_addr(s->fd, s->mc, 0, 0, s->va, gran) ?:
	       st_mc_unbind(s->fd, s->mc, 0, 0, gran);
}

/*
 * API version 2's one-call paths: binds that name the memory's device,
 * every member's view in one call (all or none).
 */
static int seq_views(struct seq_state *s)
{
	struct cumc_mc_bind b = {
		.size = sizeof(b),
		.device_from = CUMC_MC_BIND_DEVICE_OF_MEM,
		.length = gran,
	};
	struct cumc_mc_view v = { .size = sizeof(v), .num_views = 2 };
	int ret;

	ret = st_mc_create(s->fd, 2, 0, gran, &s->mc) ?:
	      st_mc_add(s->fd, s->mc, 0) ?:
	      st_mc_add(s->fd, s->mc, 1) ?:
	      st_mem_create(s->fd, 0, 0, gran, &s->mem) ?:
	      st_mem_create(s->fd, 1, 0, gran, &s->mem2);
	if (ret)
		return ret;
	b.handle = s->mc;
	b.mem = s->mem;
	ret = st_ioctl(s->fd, CUMC_MC_BIND_MEM, &b);
	if (ret)
		return ret;
	b.mem = s->mem2;
	ret = st_ioctl(s->fd, CUMC_MC_BIND_MEM, &b) ?:
	      st_va_reserve(s->fd, gran, 0, 0, &s->va) ?:
	      st_map(s->fd, s->va, gran, s->mc) ?:
	      st_grant(s->fd, s->va, gran, 0, CUMC_ACCESS_READWRITE);
	if (ret)
		return ret;
	v.addr = s->va;
	v.views = (__u64)(unsigned long)s->views;
	return st_ioctl(s->fd, CUMC_MC_VIEW, &v);
}

/*
 * The netlink sequences. prepare() opens the socket (the family's
 * resolution is not what is tested) and makes what the commands need.
 */

static int prepare_nl(struct seq_state *s)
{
	int ret = cumc_nl_open(&s->nl);

	s->nl_open = !ret;
	return ret;
}

/* A one-device team with memory bound, for the dumps to describe. */
static int prepare_dumps(struct seq_state *s)
{
	return prepare_nl(s) ?:
	       st_mc_team(s->fd, 1, 0, gran, &s->mc) ?:
	       st_mem_create(s->fd, 0, 0, gran, &s->mem) ?:
	       st_mc_bind_mem(s->fd, s->mc, 0, 0, s->mem, 0, gran);
}

static int dump(struct seq_state *s, uint8_t cmd)
{
	return NL(cmd, cumc_nl_transact(&s->nl, cumc_nl_msg(&s->nl, cmd,
							   NLM_F_DUMP),
					NULL, NULL));
}

static int seq_nl_dumps(struct seq_state *s)
{
	return dump(s, CUMC_CMD_DEV_GET) ?:
	       dump(s, CUMC_CMD_MC_GET) ?:
	       dump(s, CUMC_CMD_STATS_GET);
}

/* A fault armed (on device 0, every millionth call: never hit), listed, cleared. */
static int seq_nl_faults(struct seq_state *s)
{
	int ret;

	s->fault_set = true;
	ret = NL(CUMC_CMD_FAULT_SET,
		 cumc_nl_fault_set(&s->nl, CUMC_FAULT_MEM_EXHAUSTED,
				   CUMC_FAULT_MODE_EVERY_NTH, 1000000, 0)) ?:
	      dump(s, CUMC_CMD_FAULT_GET) ?:
	      cumc_nl_fault_set(&s->nl, CUMC_FAULT_MEM_EXHAUSTED,
				CUMC_FAULT_MODE_OFF, 0, 0);
	if (!ret)
		s->fault_set = false;
	return ret;
}

static int prepare_fm(struct seq_state *s)
{
	int ret = prepare_nl(s) ?:
		  cumc_nl_fm_get(&s->nl, &s->fm_mode, &s->fm_timeout_ms);

	s->fm_saved = !ret;
	return ret;
}

/* The fabric manager's settings, read and written back as they were. */
static int seq_nl_fm(struct seq_state *s)
{
	enum cumc_fm_mode mode;
	uint32_t timeout_ms;

	return NL(CUMC_CMD_FM_GET, cumc_nl_fm_get(&s->nl, &mode, &timeout_ms)) ?:
	       NL(CUMC_CMD_FM_SET, cumc_nl_fm_set(&s->nl, mode, timeout_ms));
}

/* An external fabric manager's answer to a complete team's request. */
static int prepare_fm_respond(struct seq_state *s)
{
	uint32_t id = 0;
	struct event *e;
	int ret;

	ret = prepare_fm(s);
	if (ret)
		return ret;
	if (monitor_open(&s->mon))
		return -ENOENT;
	ret = cumc_nl_fm_set(&s->nl, CUMC_FM_MODE_EXTERNAL, s->fm_timeout_ms) ?:
	      st_mc_team(s->fd, 1, 0, gran, &s->mc);
	if (ret)
		return ret;
	/* The newest object, made just now, is the one the request is for. */
	monitor_read(&s->mon, 2, 5000);
	for (int i = 0; i < s->mon.n; i++)
		if (s->mon.ev[i].cmd == CUMC_CMD_MC_CREATE_NTF)
			id = s->mon.ev[i].mc_id;
	e = monitor_find(&s->mon, CUMC_CMD_TEAM_SETUP_REQ_NTF, id);
	if (!id || !e)
		return -ENOENT;
	s->fm_req = e->req_id;
	return 0;
}

static int seq_nl_fm_respond(struct seq_state *s)
{
	return NL(CUMC_CMD_FM_RESPOND,
		  cumc_nl_fm_respond(&s->nl, s->fm_req, CUMC_FM_RESULT_OK));
}

/*
 * The IMEX daemon's commands, this node answering another's calls for
 * one of its fabric handles (a hold taken and let go of when device 0 is
 * a fabric's GPU, as in the debug lane's fail-nth VM; elsewhere refused
 * with EOPNOTSUPP after the hold was made and undone), an answer to no
 * call, and a node lost and back.
 */
static int prepare_imex(struct seq_state *s)
{
	int ret = prepare_nl(s);

	if (ret)
		return ret;
	ret = cumc_nl_open(&s->daemon);
	if (ret)
		return ret;
	s->daemon_open = true;
	s->ch = open(CHANNEL_PATH, O_RDWR | O_CLOEXEC);
	if (s->ch < 0)
		return -errno;
	return st_attach_channel(s->fd, s->ch, NULL) ?:
	       st_mem_create(s->fd, 0, CUMC_HANDLE_FABRIC, gran, &s->mem) ?:
	       st_export_fabric(s->fd, s->mem, s->fabric);
}

static int imex_call(struct seq_state *s, uint32_t op, const void *args,
		     int len, uint32_t *result, void *reply, int *reply_len)
{
	return NL(CUMC_CMD_IMEX_CALL,
		  cumc_nl_imex_call(&s->nl, OTHER_NODE, op, args, len, result,
				    reply, reply_len));
}

/* kmod/cumc_wire.h's CUMK_REMOTE_EXPORT_GET and _PUT. */
#define REMOTE_EXPORT_GET 1
#define REMOTE_EXPORT_PUT 2

static int seq_nl_imex(struct seq_state *s)
{
	static __u8 reply[CUMC_IMEX_PAYLOAD_MAX];
	uint32_t result, put;
	int ret, len;

	/*
	 * The call first: a daemon's detach, at cleanup, would let go of
	 * every hold and hide one the call left behind.
	 */
	ret = imex_call(s, REMOTE_EXPORT_GET, s->fabric, sizeof(s->fabric),
			&result, reply, &len);
	if (ret)
		return ret;
	/* The answer starts with its version and the hold's id. */
	if (!result && len >= 8) {
		memcpy(&s->hold, reply + 4, sizeof(s->hold));
		s->hold_taken = true;
		put = s->hold;
		ret = imex_call(s, REMOTE_EXPORT_PUT, &put, sizeof(put),
				&result, reply, &len);
		if (ret)
			return ret;
		if (!result)
			s->hold_taken = false;
	}
	if (result && result != EOPNOTSUPP)
		return -(int)result;
	return NL(CUMC_CMD_IMEX_ATTACH,
		  cumc_nl_imex_attach(&s->daemon, NULL, NULL)) ?:
	       nl_outcome(CUMC_CMD_IMEX_CALL_RESPOND,
			  cumc_nl_imex_respond(&s->nl, 0x7fffffff, 0, NULL, -1),
			  -ENOENT) ?:
	       NL(CUMC_CMD_IMEX_NODE_LOST,
		  cumc_nl_imex_node_lost(&s->nl, LOST_NODE)) ?:
	       NL(CUMC_CMD_IMEX_NODE_JOIN,
		  cumc_nl_imex_node_join(&s->nl, LOST_NODE));
}

static int seq_nl_fabric(struct seq_state *s)
{
	struct cumc_nl_fabric f;

	return NL(CUMC_CMD_FABRIC_GET, cumc_nl_fabric_get(&s->nl, &f));
}

/* Device 0's conditions dropped: what every device has by default. */
static int seq_nl_dev_set(struct seq_state *s)
{
	struct nl_msg *msg = cumc_nl_msg(&s->nl, CUMC_CMD_DEV_SET, 0);

	if (msg && (nla_put_u32(msg, CUMC_A_DEV_ORDINAL, 0) ||
		    nla_put_flag(msg, CUMC_A_DEV_RESET))) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return NL(CUMC_CMD_DEV_SET, cumc_nl_transact(&s->nl, msg, NULL, NULL));
}

/* The fabric's MC limit set to its default, as the tests leave it. */
static int seq_nl_fabric_set(struct seq_state *s)
{
	struct nl_msg *msg = cumc_nl_msg(&s->nl, CUMC_CMD_FABRIC_SET, 0);

	if (msg && nla_put_u32(msg, CUMC_A_FABRIC_MC_LIMIT,
			       CUMC_FABRIC_MC_LIMIT_DEFAULT)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return NL(CUMC_CMD_FABRIC_SET,
		  cumc_nl_transact(&s->nl, msg, NULL, NULL));
}

/* The events and the kernel's requests: sent, each is refused. */
static int seq_nl_events(struct seq_state *s)
{
	static const uint8_t events[] = {
		CUMC_CMD_MC_CREATE_NTF, CUMC_CMD_TEAM_READY_NTF,
		CUMC_CMD_TEAM_FAILED_NTF, CUMC_CMD_BIND_NTF,
		CUMC_CMD_UNBIND_NTF, CUMC_CMD_MC_DELETE_NTF,
		CUMC_CMD_TEAM_SETUP_REQ_NTF, CUMC_CMD_DEVICE_LOST_NTF,
		CUMC_CMD_IMEX_CALL_REQ, CUMC_CMD_NODE_LOST_NTF,
	};
	unsigned int i;
	int ret = 0;

	for (i = 0; !ret && i < sizeof(events); i++)
		ret = nl_outcome(events[i],
				 cumc_nl_transact(&s->nl,
						  cumc_nl_msg(&s->nl, events[i], 0),
						  NULL, NULL),
				 -EOPNOTSUPP);
	return ret;
}

/* Undo whatever the sequence got to; closing the clients does the rest. */
static void cleanup(struct seq_state *s)
{
	uint32_t result, put = s->hold;
	int i, len;

	/* After the injection: munmap() itself may need memory. */
	for (i = 0; i < 2; i++)
		if (s->views[i])
			munmap((void *)(unsigned long)s->views[i], gran);
	if (s->va) {
		st_unmap(s->fd, s->va, gran);
		st_va_free(s->fd, s->va, gran);
	}
	if (s->hold_taken)
		cumc_nl_imex_call(&s->nl, OTHER_NODE, REMOTE_EXPORT_PUT, &put,
				  sizeof(put), &result, NULL, &len);
	if (s->fault_set)
		cumc_nl_fault_set(&s->nl, CUMC_FAULT_MEM_EXHAUSTED,
				  CUMC_FAULT_MODE_OFF, 0, 0);
	if (s->fm_saved)
		cumc_nl_fm_set(&s->nl, s->fm_mode, s->fm_timeout_ms);
	if (s->mon.sk)
		nl_socket_free(s->mon.sk);
	if (s->daemon_open)
		cumc_nl_close(&s->daemon);
	if (s->nl_open)
		cumc_nl_close(&s->nl);
	if (s->ch > 0)
		close(s->ch);
	if (s->ch2 > 0)
		close(s->ch2);
	if (s->efd > 0)
		close(s->efd);
	if (s->fd2 > 0)
		close(s->fd2);
	close(s->fd);
}

static const struct seq {
	const char *name;
	/* Before the injection is armed: must succeed. */
	int (*prepare)(struct seq_state *s);
	int (*run)(struct seq_state *s);
} seqs[] = {
	{ "ioctl: query/create/info/release", NULL, seq_create },
	{ "ioctl: map/access/va query/free", NULL, seq_map },
	{ "ioctl: map in a shared arena", NULL, seq_map_shared },
	{ "ioctl: export/import fd", NULL, seq_share },
	{ "ioctl: channels, fabric handles", NULL, seq_fabric },
	{ "ioctl: multicast bind mem/info", NULL, seq_multicast },
	{ "ioctl: multicast bind addr", NULL, seq_bind_addr },
	{ "ioctl: multicast views (v2)", NULL, seq_views },
	{ "netlink: dev/mc/stats dumps", prepare_dumps, seq_nl_dumps },
	{ "netlink: fault set/get/clear", prepare_nl, seq_nl_faults },
	{ "netlink: fm get/set", prepare_fm, seq_nl_fm },
	{ "netlink: fm respond", prepare_fm_respond, seq_nl_fm_respond },
	{ "netlink: fabric get", prepare_nl, seq_nl_fabric },
	{ "netlink: dev set (reset)", prepare_nl, seq_nl_dev_set },
	{ "netlink: fabric set (default limit)", prepare_nl, seq_nl_fabric_set },
	{ "netlink: imex attach/call/respond/lost/join", prepare_imex, seq_nl_imex },
	{ "netlink: events refused", prepare_nl, seq_nl_events },
};

#define NUM_SEQS (sizeof(seqs) / sizeof(seqs[0]))

/* A fresh state, its client open and the sequence's prepare() done. */
static int seq_start(const struct seq *seq, struct seq_state *s)
{
	memset(s, 0, sizeof(*s));
	s->fd = st_open();
	if (s->fd < 0)
		return -errno;
	return seq->prepare ? seq->prepare(s) : 0;
}

/* The ioctl commands the module answers: all that are not ENOTTY. */
static unsigned long long ioctl_commands(int fd)
{
	unsigned long long known = 0;
	unsigned int i;

	for (i = 0; i < 64; i++)
		if (ioctl(fd, _IO(CUMC_TYPE, CUMC_CMD_BASE + i), NULL) &&
		    errno != ENOTTY)
			known |= 1ULL << i;
	return known;
}

static void read_granularity(struct __test_metadata *_metadata)
{
	struct cumc_device_info info;
	int fd;

	fd = st_open();
	ASSERT_LE(0, fd);
	ASSERT_LE(2, st_num_devices(fd));
	ASSERT_EQ(0, st_device_info(fd, 0, &info));
	gran = info.granularity;
	close(fd);
}

/*
 * Each sequence once, without injection: it must succeed, and between
 * them they must reach every ioctl command the module answers and every
 * command of the netlink family.
 */
TEST(every_command_reached)
{
	unsigned long long known;
	struct seq_state s;
	unsigned int i;
	int fd, ret;

	read_granularity(_metadata);
	if (access(CHANNEL_PATH, R_OK | W_OK))
		SKIP(return, "no %s", CHANNEL_PATH);
	for (i = 0; i < NUM_SEQS; i++) {
		ret = seq_start(&seqs[i], &s) ?: seqs[i].run(&s);
		cleanup(&s);
		EXPECT_EQ(0, ret) TH_LOG("%s: %s", seqs[i].name, strerror(-ret));
	}
	fd = st_open();
	ASSERT_LE(0, fd);
	known = ioctl_commands(fd);
	close(fd);
	/* The dispatcher's range, probed: it must be the UAPI's too. */
	EXPECT_NE(0, known & (1ULL << (CUMC_CMD_MC_VIEW - CUMC_CMD_BASE)));
	/* Braced: the harness's EXPECT_* with TH_LOG are two statements. */
	for (i = 0; i < 64; i++) {
		EXPECT_FALSE((known >> i & 1) && !(ioctl_reached >> i & 1))
			TH_LOG("ioctl command %#x: no sequence reaches it",
			       CUMC_CMD_BASE + i);
	}
	for (i = 1; i <= CUMC_CMD_MAX; i++) {
		EXPECT_TRUE(nl_reached >> i & 1)
			TH_LOG("netlink command %u: no sequence reaches it", i);
	}
	TH_LOG("%d ioctl commands answered, %d reached; %d netlink commands, %d reached",
	       __builtin_popcountll(known), __builtin_popcountll(ioctl_reached),
	       CUMC_CMD_MAX, __builtin_popcountll(nl_reached));
}

FIXTURE(fail_nth) {
	int nth;
	struct st_objects base;
};

FIXTURE_SETUP(fail_nth)
{
	/* The test skips: in this harness a SKIP here would not stop it. */
	self->nth = fail_nth_fd();
	if (self->nth < 0)
		return;
	/*
	 * By default both ignore allocations that may sleep, which are
	 * nearly all of the module's, and fail_page_alloc single pages.
	 */
	ASSERT_EQ(0, write_str("/sys/kernel/debug/failslab/ignore-gfp-wait",
			       "N"));
	ASSERT_EQ(0, write_str("/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait",
			       "N"));
	ASSERT_EQ(0, write_str("/sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem",
			       "N"));
	ASSERT_EQ(0, write_str("/sys/kernel/debug/fail_page_alloc/min-order",
			       "0"));
	/* One line per injected failure would flood the serial console. */
	write_str("/sys/kernel/debug/failslab/verbose", "0");
	write_str("/sys/kernel/debug/fail_page_alloc/verbose", "0");
	read_granularity(_metadata);
	ASSERT_EQ(0, st_objects_read(&self->base));
}

FIXTURE_TEARDOWN(fail_nth)
{
	if (self->nth >= 0)
		close(self->nth);
}

/*
 * Every n from 1 until a run goes through untouched, for sequences of at
 * most a few hundred allocations (the longest, the views, about 80 in the
 * module and 160 with netlink's); MAX_N bounds a runaway.
 */
TEST_F_TIMEOUT(fail_nth, sequences, 3000)
{
	struct st_objects now;
	unsigned int i;
	int n, hit, ret, total = 0;

	if (self->nth < 0)
		SKIP(return, "no fail-nth: a kernel without fault injection");
	if (access(CHANNEL_PATH, R_OK | W_OK))
		SKIP(return, "no %s", CHANNEL_PATH);
	for (i = 0; i < NUM_SEQS; i++) {
		int injected = 0, failed_calls = 0;

		for (n = 1; n <= MAX_N; n++) {
			struct seq_state s;

			ret = seq_start(&seqs[i], &s);
			ASSERT_EQ(0, ret) TH_LOG("%s: prepare: %s",
						 seqs[i].name, strerror(-ret));
			ASSERT_EQ(0, arm(self->nth, n));
			ret = seqs[i].run(&s);
			hit = disarm(self->nth);
			ASSERT_LE(0, hit);
			cleanup(&s);
			/* Without injection, the sequence must work. */
			if (!hit) {
				EXPECT_EQ(0, ret) TH_LOG("%s: %s", seqs[i].name,
							 strerror(-ret));
				break;
			}
			injected++;
			/* An errno, never a success where a refusal was due. */
			EXPECT_NE(-EPROTO, ret) TH_LOG("%s, allocation %d",
						       seqs[i].name, n);
			failed_calls += ret != 0;
			ASSERT_EQ(0, st_objects_settle(&self->base, &now,
						       2000)) {
				TH_LOG("%s, allocation %d failed: %s (%d)",
				       seqs[i].name, n, strerror(-ret), ret);
				st_objects_diff(&self->base, &now);
			}
		}
		EXPECT_GE(MAX_N, n);
		total += injected;
		TH_LOG("%-40s %4d allocations failed, %d calls saw it",
		       seqs[i].name, injected, failed_calls);
	}
	TH_LOG("%u sequences, %d injected failures", (unsigned int)NUM_SEQS,
	       total);
	n = st_open();
	ASSERT_LE(0, n);
	EXPECT_EQ(0, st_devices_not_free(n));
	close(n);
}

TEST_HARNESS_MAIN
