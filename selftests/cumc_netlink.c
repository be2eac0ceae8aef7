// SPDX-License-Identifier: GPL-2.0
/*
 * The control plane (uapi/linux/cumc_netlink.h), driven with libnl: each
 * command, the monitor group's events and their order, the permission
 * check, every injectable fault with the errno a program sees (the
 * CUresult libcumc turns it into is lib/tests/test_faults.c's), and the
 * external fabric manager answering, answering late, failing, or not at
 * all; the devices' conditions (DEV_SET) and the fabric's multicast limit
 * (FABRIC_SET), each bad request refused with nothing changed. The
 * netlink client is tools/cumc_nl.c, cumcctl's.
 */
#include <grp.h>
#include <pthread.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/wait.h>

#include <netlink/genl/ctrl.h>

#include <linux/cumc.h>

#include "kselftest_harness.h"

#include "cumc_nl.h"
#include "cumc_selftest.h"
#include "nl_monitor.h"

/* What libcumc returns for each errno (lib/errno.c), for the logs. */
#define CUDA_ERROR_OUT_OF_MEMORY 2
#define CUDA_ERROR_ILLEGAL_STATE 401
#define CUDA_ERROR_NOT_PERMITTED 800
#define CUDA_ERROR_SYSTEM_NOT_READY 802

#define NO_DEVICE CUMC_NL_FABRIC

/* Replies of a request, parsed into flat rows. */
struct row {
	uint32_t ordinal;	/* DEV_ORDINAL, or UINT32_MAX */
	uint32_t mc_id, state, team_size, members, binds;
	bool fm_pending;
	__u64 u64[CUMC_A_MAX + 1];
	uint32_t u32[CUMC_A_MAX + 1];
	bool has[CUMC_A_MAX + 1];
};

struct rows {
	int n;
	struct row row[256];
};

static void count_nested(struct nlattr *attr, struct row *r)
{
	struct nlattr *m;
	int rem;

	r->members++;
	nla_for_each_nested(m, attr, rem)
		if (nla_type(m) == CUMC_MEMBER_A_BIND)
			r->binds++;
}

static int row_cb(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct rows *rows = arg;
	struct nlattr *attr;
	struct row *r;
	int rem;

	if (!rows || rows->n == 256)
		return NL_OK;
	r = &rows->row[rows->n++];
	memset(r, 0, sizeof(*r));
	r->ordinal = UINT32_MAX;
	nla_for_each_attr(attr, genlmsg_attrdata(gh, 0),
			  genlmsg_attrlen(gh, 0), rem) {
		int t = nla_type(attr);

		if (t > CUMC_A_MAX)
			continue;
		r->has[t] = true;
		if (t == CUMC_A_MC_MEMBER)
			count_nested(attr, r);
		else if (nla_len(attr) == 8)
			r->u64[t] = nla_get_u64(attr);
		else if (nla_len(attr) == 4)
			r->u32[t] = nla_get_u32(attr);
	}
	if (r->has[CUMC_A_DEV_ORDINAL])
		r->ordinal = r->u32[CUMC_A_DEV_ORDINAL];
	r->mc_id = r->u32[CUMC_A_MC_ID];
	r->state = r->u32[CUMC_A_MC_STATE];
	r->team_size = r->u32[CUMC_A_MC_TEAM_SIZE];
	r->fm_pending = r->has[CUMC_A_MC_FM_PENDING];
	return NL_OK;
}

/*
 * Send @cmd with the u32 attributes given as (type, value) pairs ending
 * with -1; collect replies in @rows. 0 or the kernel's -errno.
 */
static int nl_request(struct cumc_nl *nl, uint8_t cmd, int flags,
		      struct rows *rows, ...)
{
	struct nl_msg *msg = cumc_nl_msg(nl, cmd, flags);
	int type;
	va_list ap;

	if (rows)
		rows->n = 0;
	va_start(ap, rows);
	while (msg && (type = va_arg(ap, int)) >= 0)
		nla_put_u32(msg, type, va_arg(ap, uint32_t));
	va_end(ap);
	return cumc_nl_transact(nl, msg, row_cb, rows);
}

static int fault_set(struct cumc_nl *nl, int type, int mode, uint32_t value,
		     int device)
{
	return cumc_nl_fault_set(nl, type, mode, value, device);
}

/* Not cumc_nl_fm_set(): a timeout of 0 must reach the policy here. */
static int fm_set(struct cumc_nl *nl, int mode, uint32_t timeout_ms)
{
	return nl_request(nl, CUMC_CMD_FM_SET, 0, NULL, CUMC_A_FM_MODE, mode,
			  CUMC_A_FM_TIMEOUT_MS, timeout_ms, -1);
}

static int fm_respond(struct cumc_nl *nl, uint32_t req, int result)
{
	return cumc_nl_fm_respond(nl, req, result);
}

#define UNSET (-1LL)

/*
 * DEV_SET for device @ordinal (UNSET: every device), each of @state,
 * @mask and @multicast sent unless UNSET, DEV_RESET with @reset.
 */
static int dev_set(struct cumc_nl *nl, long long ordinal, bool reset,
		   long long state, long long mask, long long multicast)
{
	struct nl_msg *msg = cumc_nl_msg(nl, CUMC_CMD_DEV_SET, 0);

	if (!msg)
		return -ENOMEM;
	if ((ordinal != UNSET &&
	     nla_put_u32(msg, CUMC_A_DEV_ORDINAL, ordinal)) ||
	    (reset && nla_put_flag(msg, CUMC_A_DEV_RESET)) ||
	    (state != UNSET && nla_put_u32(msg, CUMC_A_FABRIC_STATE, state)) ||
	    (mask != UNSET &&
	     nla_put_u32(msg, CUMC_A_FABRIC_HEALTH_MASK, mask)) ||
	    (multicast != UNSET &&
	     nla_put_u32(msg, CUMC_A_DEV_MULTICAST, multicast))) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return cumc_nl_transact(nl, msg, NULL, NULL);
}

static int mc_limit_set(struct cumc_nl *nl, uint32_t limit)
{
	return nl_request(nl, CUMC_CMD_FABRIC_SET, 0, NULL,
			  CUMC_A_FABRIC_MC_LIMIT, limit, -1);
}

/* FABRIC_GET's limit and count of teams set up. */
static int mc_limit_get(struct cumc_nl *nl, uint32_t *limit, uint32_t *teams)
{
	static struct rows rows;
	int ret;

	ret = nl_request(nl, CUMC_CMD_FABRIC_GET, 0, &rows, -1);
	if (ret)
		return ret;
	if (rows.n != 1 || !rows.row[0].has[CUMC_A_FABRIC_MC_LIMIT] ||
	    !rows.row[0].has[CUMC_A_FABRIC_MC_TEAMS])
		return -ENOENT;
	*limit = rows.row[0].u32[CUMC_A_FABRIC_MC_LIMIT];
	*teams = rows.row[0].u32[CUMC_A_FABRIC_MC_TEAMS];
	return 0;
}

/* FAULT_SET of FABRIC_STALL, with @delay_ms unless 0. */
static int stall_set(struct cumc_nl *nl, int mode, uint32_t delay_ms)
{
	if (!delay_ms)
		return fault_set(nl, CUMC_FAULT_FABRIC_STALL, mode, 0,
				 NO_DEVICE);
	return nl_request(nl, CUMC_CMD_FAULT_SET, 0, NULL,
			  CUMC_A_FAULT_TYPE, CUMC_FAULT_FABRIC_STALL,
			  CUMC_A_FAULT_MODE, mode,
			  CUMC_A_FAULT_DELAY_MS, delay_ms, -1);
}

FIXTURE(nl) {
	int fd;
	__u64 g;
	uint32_t num_devices;
	struct cumc_nl nl;
	struct monitor mon;
};

FIXTURE_SETUP(nl)
{
	struct cumc_query q;

	self->fd = st_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, st_query(self->fd, &q));
	ASSERT_LE(2, q.num_devices);
	self->g = q.mc_granularity;
	self->num_devices = q.num_devices;
	ASSERT_EQ(0, cumc_nl_open(&self->nl)) TH_LOG("no cumc netlink family");
	ASSERT_EQ(0, monitor_open(&self->mon));
}

FIXTURE_TEARDOWN(nl)
{
	/* Leave the module as the next test expects it. */
	for (int t = 0; t < CUMC_FAULT_NR; t++) {
		fault_set(&self->nl, t, CUMC_FAULT_MODE_OFF, 0, NO_DEVICE);
		for (int d = 0; d < 2; d++)
			fault_set(&self->nl, t, CUMC_FAULT_MODE_OFF, 0, d);
	}
	fm_set(&self->nl, CUMC_FM_MODE_KERNEL, 5000);
	dev_set(&self->nl, UNSET, true, UNSET, UNSET, UNSET);
	mc_limit_set(&self->nl, CUMC_FABRIC_MC_LIMIT_DEFAULT);
	nl_socket_free(self->mon.sk);
	cumc_nl_close(&self->nl);
	close(self->fd);
}

/* A complete team of devices 0 and 1 and its control-plane id. */
static __u64 team(struct __test_metadata *_metadata, FIXTURE_DATA(nl) *self,
		     uint32_t *id)
{
	struct event *e;
	__u64 h;

	ASSERT_EQ(0, st_mc_create(self->fd, 2, 0, self->g, &h));
	ASSERT_EQ(0, st_mc_add(self->fd, h, 0));
	ASSERT_EQ(0, st_mc_add(self->fd, h, 1));
	monitor_read(&self->mon, self->mon.n + 1, 1000);
	e = monitor_find(&self->mon, CUMC_CMD_MC_CREATE_NTF, 0);
	ASSERT_NE(NULL, e);
	*id = e->mc_id;
	return h;
}

TEST_F(nl, dev_get_lists_every_device)
{
	struct cumc_device_info info;
	static struct rows rows;

	ASSERT_EQ(0, nl_request(&self->nl, CUMC_CMD_DEV_GET, NLM_F_DUMP, &rows, -1));
	ASSERT_EQ(self->num_devices, rows.n);
	for (int i = 0; i < rows.n; i++) {
		EXPECT_EQ(i, rows.row[i].ordinal);
		ASSERT_EQ(0, st_device_info(self->fd, i, &info));
		EXPECT_EQ(info.mem_total, rows.row[i].u64[CUMC_A_DEV_MEM_TOTAL]);
		EXPECT_EQ(info.mem_free, rows.row[i].u64[CUMC_A_DEV_MEM_FREE]);
		EXPECT_EQ(info.pci_bus, rows.row[i].u32[CUMC_A_DEV_PCI_BUS]);
		EXPECT_TRUE(rows.row[i].has[CUMC_A_DEV_UUID]);
		EXPECT_TRUE(rows.row[i].has[CUMC_A_DEV_NAME]);
	}
}

TEST_F(nl, mc_get_and_events_in_order)
{
	static const uint8_t order[] = {
		CUMC_CMD_MC_CREATE_NTF, CUMC_CMD_TEAM_READY_NTF,
		CUMC_CMD_BIND_NTF, CUMC_CMD_UNBIND_NTF, CUMC_CMD_MC_DELETE_NTF,
	};
	static struct rows rows;
	struct row *r = NULL;
	__u64 h, mem;
	uint32_t id;
	int i, k;

	h = team(_metadata, self, &id);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, self->g, &mem));
	ASSERT_EQ(0, st_mc_bind_mem(self->fd, h, 0, 0, mem, 0, self->g));
	ASSERT_EQ(0, nl_request(&self->nl, CUMC_CMD_MC_GET, NLM_F_DUMP, &rows, -1));
	for (i = 0; i < rows.n; i++)
		if (rows.row[i].mc_id == id)
			r = &rows.row[i];
	ASSERT_NE(NULL, r);
	EXPECT_EQ(2, r->team_size);
	EXPECT_EQ(self->g, r->u64[CUMC_A_MC_LENGTH]);
	EXPECT_EQ(CUMC_TEAM_STATE_READY, r->state);
	EXPECT_EQ(2, r->members);
	EXPECT_EQ(1, r->binds);
	EXPECT_FALSE(r->fm_pending);
	ASSERT_EQ(0, st_mc_unbind(self->fd, h, 0, 0, self->g));
	ASSERT_EQ(0, st_release(self->fd, h));
	ASSERT_EQ(0, st_release(self->fd, mem));
	monitor_read(&self->mon, 5, 1000);
	/* The events about this object, in the order they happened. */
	for (i = 0, k = 0; i < self->mon.n && k < 5; i++)
		if (self->mon.ev[i].mc_id == id)
			EXPECT_EQ(order[k++], self->mon.ev[i].cmd);
	EXPECT_EQ(5, k);
	/* Gone from the dump once freed. */
	ASSERT_EQ(0, nl_request(&self->nl, CUMC_CMD_MC_GET, NLM_F_DUMP, &rows, -1));
	for (i = 0; i < rows.n; i++)
		EXPECT_NE(id, rows.row[i].mc_id);
}

/* The row of @ordinal (UINT32_MAX: the fabric-wide one) in @cmd's dump. */
static int dump_row(struct cumc_nl *nl, uint8_t cmd, uint32_t ordinal,
		    struct row *out)
{
	static struct rows rows;
	int ret;

	ret = nl_request(nl, cmd, NLM_F_DUMP, &rows, -1);
	if (ret)
		return ret;
	for (int i = 0; i < rows.n; i++)
		if (rows.row[i].ordinal == ordinal) {
			*out = rows.row[i];
			return 0;
		}
	return -ENOENT;
}

static int fabric_stats(struct cumc_nl *nl, struct row *out)
{
	return dump_row(nl, CUMC_CMD_STATS_GET, UINT32_MAX, out);
}

TEST_F(nl, stats_count_binds_and_faults)
{
	struct row before, after;
	static struct rows rows;
	__u64 h, mem;
	uint32_t id;

	ASSERT_EQ(0, nl_request(&self->nl, CUMC_CMD_STATS_GET, NLM_F_DUMP, &rows, -1));
	EXPECT_EQ(self->num_devices + 1, rows.n);
	ASSERT_EQ(0, fabric_stats(&self->nl, &before));
	h = team(_metadata, self, &id);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, self->g, &mem));
	ASSERT_EQ(0, st_mc_bind_mem(self->fd, h, 0, 0, mem, 0, self->g));
	ASSERT_EQ(0, fabric_stats(&self->nl, &after));
	EXPECT_EQ(before.u64[CUMC_A_STAT_BINDS] + 1, after.u64[CUMC_A_STAT_BINDS]);
	EXPECT_EQ(before.u64[CUMC_A_STAT_BOUND_BYTES] + self->g,
		  after.u64[CUMC_A_STAT_BOUND_BYTES]);
	EXPECT_EQ(before.u64[CUMC_A_STAT_OBJECTS] + 2, after.u64[CUMC_A_STAT_OBJECTS]);
	ASSERT_EQ(0, fault_set(&self->nl, CUMC_FAULT_MEM_EXHAUSTED,
			       CUMC_FAULT_MODE_ONCE, 0, NO_DEVICE));
	EXPECT_EQ(-ENOSPC, st_mem_create(self->fd, 0, 0, self->g, &mem));
	before = after;
	ASSERT_EQ(0, fabric_stats(&self->nl, &after));
	EXPECT_EQ(before.u64[CUMC_A_STAT_FAULTS] + 1, after.u64[CUMC_A_STAT_FAULTS]);
	ASSERT_EQ(0, st_release(self->fd, h));
}

TEST_F(nl, unprivileged_reads_but_may_not_change)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		static struct rows rows;
		struct cumc_nl nl;

		if (setgid(65534) || setuid(65534) || cumc_nl_open(&nl))
			_exit(10);
		if (nl_request(&nl, CUMC_CMD_DEV_GET, NLM_F_DUMP, &rows, -1))
			_exit(11);
		if (fault_set(&nl, CUMC_FAULT_MEM_EXHAUSTED,
			      CUMC_FAULT_MODE_ONCE, 0, NO_DEVICE) != -EPERM)
			_exit(12);
		if (fm_set(&nl, CUMC_FM_MODE_EXTERNAL, 100) != -EPERM)
			_exit(13);
		if (fm_respond(&nl, 1, CUMC_FM_RESULT_OK) != -EPERM)
			_exit(14);
		if (dev_set(&nl, 0, false, CUMC_FABRIC_STATE_NOT_STARTED,
			    UNSET, UNSET) != -EPERM)
			_exit(15);
		if (mc_limit_set(&nl, 1) != -EPERM)
			_exit(16);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("child step %d failed",
						 WEXITSTATUS(status));
}

/*
 * Multicast objects are listed to their owner: nobody sees its own, not
 * root's; root (CAP_NET_ADMIN) sees both. The monitor group, whose events
 * name every user's objects, is root's: nobody may not join it.
 */
TEST_F(nl, unprivileged_sees_only_its_own_objects)
{
	static struct rows rows;
	int status, i, fd, grp, found_own = 0, found_root = 0;
	uint32_t root_id, own_id = 0;
	__u64 h, own;
	struct event *e;
	pid_t pid;
	int pfd[2];

	h = team(_metadata, self, &root_id);
	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct cumc_nl nl;
		struct nl_sock *sk;
		char c = 0;

		close(pfd[0]);
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534) ||
		    cumc_nl_open(&nl))
			_exit(10);
		fd = st_open();
		if (fd < 0 || st_mc_create(fd, 1, 0, self->g, &own))
			_exit(11);
		if (nl_request(&nl, CUMC_CMD_MC_GET, NLM_F_DUMP, &rows, -1))
			_exit(12);
		/* Its own object only: no one else's (root's among them). */
		if (rows.n != 1)
			_exit(13);
		for (i = 0; i < rows.n; i++)
			if (rows.row[i].mc_id == root_id)
				_exit(14);
		sk = nl_socket_alloc();
		if (!sk || genl_connect(sk))
			_exit(15);
		grp = genl_ctrl_resolve_grp(sk, CUMC_GENL_NAME,
					    CUMC_GENL_MCGRP_MONITOR);
		if (grp < 0)
			_exit(16);
		if (nl_socket_add_membership(sk, grp) != -NLE_PERM)
			_exit(17);
		/* Hold the object while root looks. */
		if (write(pfd[1], &c, 1) != 1)
			_exit(18);
		pause();
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], &i, 1) == 1) {
		monitor_read(&self->mon, self->mon.n + 2, 1000);
		/* nobody's object: the one created after root's. */
		for (i = 0; i < self->mon.n; i++) {
			e = &self->mon.ev[i];
			if (e->cmd == CUMC_CMD_MC_CREATE_NTF &&
			    e->mc_id > root_id)
				own_id = e->mc_id;
		}
		ASSERT_EQ(0, nl_request(&self->nl, CUMC_CMD_MC_GET, NLM_F_DUMP,
					&rows, -1));
		for (i = 0; i < rows.n; i++) {
			found_root += rows.row[i].mc_id == root_id;
			found_own += own_id && rows.row[i].mc_id == own_id;
		}
		EXPECT_EQ(1, found_root);
		EXPECT_EQ(1, found_own) TH_LOG("root sees nobody's object");
		kill(pid, SIGKILL);
	}
	close(pfd[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	if (WIFEXITED(status)) {
		EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("child step %d failed",
							 WEXITSTATUS(status));
	} else {
		EXPECT_EQ(SIGKILL, WTERMSIG(status));
	}
	ASSERT_EQ(0, st_release(self->fd, h));
}

TEST_F(nl, policy_refuses_out_of_range)
{
	/* The policy: out of range is ERANGE, a missing attribute EINVAL. */
	EXPECT_EQ(-ERANGE, fault_set(&self->nl, CUMC_FAULT_NR,
				     CUMC_FAULT_MODE_ONCE, 0, NO_DEVICE));
	EXPECT_EQ(-EINVAL, fault_set(&self->nl, CUMC_FAULT_MEM_EXHAUSTED,
				     CUMC_FAULT_MODE_PROBABILITY, 101, NO_DEVICE));
	EXPECT_EQ(-EINVAL, fault_set(&self->nl, CUMC_FAULT_MEM_EXHAUSTED,
				     CUMC_FAULT_MODE_EVERY_NTH, 0, NO_DEVICE));
	EXPECT_EQ(-ERANGE, fm_set(&self->nl, CUMC_FM_MODE_KERNEL, 0));
	EXPECT_EQ(-EINVAL, nl_request(&self->nl, CUMC_CMD_FM_RESPOND, 0, NULL,
				      CUMC_A_FM_REQ_ID, 1, -1));
	EXPECT_EQ(-ENODEV, fault_set(&self->nl, CUMC_FAULT_MEM_EXHAUSTED,
				     CUMC_FAULT_MODE_ONCE, 0,
				     self->num_devices));
}

/*
 * The bind waits for the unanswered setup and fails at its deadline: the
 * waits counter says it waited, ETIMEDOUT that the deadline ended it. Not
 * timed here: under a loaded emulator the deadline's jiffies and the
 * test's clock disagree by tens of milliseconds.
 */
TEST_F(nl, fault_fabric_not_ready_times_out)
{
	struct row before, after;
	__u64 h, mem;
	uint32_t id;

	ASSERT_EQ(0, fm_set(&self->nl, CUMC_FM_MODE_KERNEL, 200));
	ASSERT_EQ(0, fault_set(&self->nl, CUMC_FAULT_FABRIC_NOT_READY,
			       CUMC_FAULT_MODE_ONCE, 0, NO_DEVICE));
	h = team(_metadata, self, &id);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, self->g, &mem));
	ASSERT_EQ(0, fabric_stats(&self->nl, &before));
	EXPECT_EQ(-ETIMEDOUT,
		  st_mc_bind_mem(self->fd, h, 0, 0, mem, 0, self->g))
		TH_LOG("libcumc: CUresult %d", CUDA_ERROR_SYSTEM_NOT_READY);
	ASSERT_EQ(0, fabric_stats(&self->nl, &after));
	EXPECT_EQ(before.u64[CUMC_A_STAT_WAITS] + 1,
		  after.u64[CUMC_A_STAT_WAITS]);
	/* One-shot: the next team is set up. */
	EXPECT_EQ(0, st_release(self->fd, h));
	h = team(_metadata, self, &id);
	EXPECT_EQ(0, st_mc_bind_mem(self->fd, h, 0, 0, mem, 0, self->g));
	EXPECT_EQ(0, st_release(self->fd, h));
	EXPECT_EQ(0, st_release(self->fd, mem));
}

TEST_F(nl, fault_illegal_state_fails_the_team)
{
	__u64 h, mem;
	uint32_t id;

	ASSERT_EQ(0, fault_set(&self->nl, CUMC_FAULT_FABRIC_ILLEGAL_STATE,
			       CUMC_FAULT_MODE_ONCE, 0, 1));
	h = team(_metadata, self, &id);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, self->g, &mem));
	EXPECT_EQ(-EIO, st_mc_bind_mem(self->fd, h, 0, 0, mem, 0, self->g))
		TH_LOG("libcumc: CUresult %d", CUDA_ERROR_ILLEGAL_STATE);
	monitor_read(&self->mon, 3, 1000);
	EXPECT_NE(NULL, monitor_find(&self->mon, CUMC_CMD_TEAM_FAILED_NTF, id));
	EXPECT_EQ(0, st_release(self->fd, h));
	EXPECT_EQ(0, st_release(self->fd, mem));
}

TEST_F(nl, fault_bind_out_of_fabric_resources)
{
	__u64 h, mem0, mem1;
	uint32_t id;

	ASSERT_EQ(0, fault_set(&self->nl, CUMC_FAULT_BIND_NO_RESOURCES,
			       CUMC_FAULT_MODE_PROBABILITY, 100, 1));
	h = team(_metadata, self, &id);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, self->g, &mem0));
	ASSERT_EQ(0, st_mem_create(self->fd, 1, 0, self->g, &mem1));
	EXPECT_EQ(-ENOSPC, st_mc_bind_mem(self->fd, h, 1, 0, mem1, 0, self->g))
		TH_LOG("libcumc: CUresult %d", CUDA_ERROR_OUT_OF_MEMORY);
	EXPECT_EQ(-ENOSPC, st_mc_bind_mem(self->fd, h, 1, 0, mem1, 0, self->g));
	/* Device 0 is not affected. */
	EXPECT_EQ(0, st_mc_bind_mem(self->fd, h, 0, 0, mem0, 0, self->g));
	EXPECT_EQ(0, st_release(self->fd, h));
	EXPECT_EQ(0, st_release(self->fd, mem0));
	EXPECT_EQ(0, st_release(self->fd, mem1));
}

TEST_F(nl, fault_mem_exhausted_every_second)
{
	static struct rows rows;
	__u64 m[4] = { 0 };

	ASSERT_EQ(0, fault_set(&self->nl, CUMC_FAULT_MEM_EXHAUSTED,
			       CUMC_FAULT_MODE_EVERY_NTH, 2, 0));
	EXPECT_EQ(0, st_mem_create(self->fd, 0, 0, self->g, &m[0]));
	EXPECT_EQ(-ENOSPC, st_mem_create(self->fd, 0, 0, self->g, &m[1]))
		TH_LOG("libcumc: CUresult %d", CUDA_ERROR_OUT_OF_MEMORY);
	EXPECT_EQ(0, st_mem_create(self->fd, 0, 0, self->g, &m[2]));
	EXPECT_EQ(0, st_mem_create(self->fd, 1, 0, self->g, &m[3]));
	ASSERT_EQ(0, nl_request(&self->nl, CUMC_CMD_FAULT_GET, NLM_F_DUMP, &rows, -1));
	ASSERT_EQ(1, rows.n);
	EXPECT_EQ(0, rows.row[0].ordinal);
	EXPECT_EQ(1, rows.row[0].u64[CUMC_A_FAULT_HITS]);
	EXPECT_EQ(CUMC_FAULT_MODE_EVERY_NTH, rows.row[0].u32[CUMC_A_FAULT_MODE]);
	st_release(self->fd, m[0]);
	st_release(self->fd, m[2]);
	st_release(self->fd, m[3]);
}

TEST_F(nl, fault_importer_not_permitted)
{
	__u64 mem, imported;
	int efd;

	ASSERT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FD, self->g, &mem));
	ASSERT_EQ(0, st_export_fd(self->fd, mem, &efd));
	ASSERT_EQ(0, fault_set(&self->nl, CUMC_FAULT_IMPORT_NOT_PERMITTED,
			       CUMC_FAULT_MODE_ONCE, 0, NO_DEVICE));
	EXPECT_EQ(-EPERM, st_import_fd(self->fd, efd, &imported))
		TH_LOG("libcumc: CUresult %d", CUDA_ERROR_NOT_PERMITTED);
	imported = 0;
	EXPECT_EQ(0, st_import_fd(self->fd, efd, &imported));
	st_release(self->fd, imported);
	st_release(self->fd, mem);
	close(efd);
}

struct answer {
	struct cumc_nl nl;
	uint32_t req;
	int delay_ms;
	int result;
	int ret;
};

/* An external fabric manager that answers after a delay. */
static void *answer_later(void *arg)
{
	struct answer *a = arg;

	usleep(a->delay_ms * 1000);
	a->ret = fm_respond(&a->nl, a->req, a->result);
	return NULL;
}

/* An external-mode team and its setup request. */
static __u64 external_team(struct __test_metadata *_metadata,
			      FIXTURE_DATA(nl) *self, uint32_t timeout_ms,
			      uint32_t *req)
{
	struct event *e;
	__u64 h;
	uint32_t id;

	ASSERT_EQ(0, fm_set(&self->nl, CUMC_FM_MODE_EXTERNAL, timeout_ms));
	h = team(_metadata, self, &id);
	monitor_read(&self->mon, self->mon.n + 1, 1000);
	e = monitor_find(&self->mon, CUMC_CMD_TEAM_SETUP_REQ_NTF, id);
	ASSERT_NE(NULL, e);
	*req = e->req_id;
	return h;
}

TEST_F(nl, fm_external_answers_while_bind_waits)
{
	struct answer a = { .delay_ms = 300, .result = CUMC_FM_RESULT_OK };
	pthread_t thread;
	__u64 h, mem;

	h = external_team(_metadata, self, 5000, &a.req);
	ASSERT_EQ(0, cumc_nl_open(&a.nl));
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, self->g, &mem));
	ASSERT_EQ(0, pthread_create(&thread, NULL, answer_later, &a));
	EXPECT_EQ(0, st_mc_bind_mem(self->fd, h, 0, 0, mem, 0, self->g));
	pthread_join(thread, NULL);
	EXPECT_EQ(0, a.ret);
	/* Answered once only. */
	EXPECT_EQ(-EALREADY, fm_respond(&self->nl, a.req, CUMC_FM_RESULT_OK));
	cumc_nl_close(&a.nl);
	EXPECT_EQ(0, st_release(self->fd, h));
	EXPECT_EQ(0, st_release(self->fd, mem));
}

TEST_F(nl, fm_late_answer_times_out_then_settles)
{
	__u64 h, mem;
	uint32_t req;

	h = external_team(_metadata, self, 200, &req);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, self->g, &mem));
	EXPECT_EQ(-ETIMEDOUT,
		  st_mc_bind_mem(self->fd, h, 0, 0, mem, 0, self->g))
		TH_LOG("libcumc: CUresult %d", CUDA_ERROR_SYSTEM_NOT_READY);
	/* The late answer still sets the team up, for later binds. */
	EXPECT_EQ(0, fm_respond(&self->nl, req, CUMC_FM_RESULT_OK));
	EXPECT_EQ(0, st_mc_bind_mem(self->fd, h, 0, 0, mem, 0, self->g));
	EXPECT_EQ(0, st_release(self->fd, h));
	EXPECT_EQ(0, st_release(self->fd, mem));
}

TEST_F(nl, fm_failure_fails_the_team)
{
	__u64 h, mem;
	uint32_t req;

	h = external_team(_metadata, self, 5000, &req);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, self->g, &mem));
	EXPECT_EQ(0, fm_respond(&self->nl, req, CUMC_FM_RESULT_FAIL));
	EXPECT_EQ(-EIO, st_mc_bind_mem(self->fd, h, 0, 0, mem, 0, self->g))
		TH_LOG("libcumc: CUresult %d", CUDA_ERROR_ILLEGAL_STATE);
	EXPECT_EQ(0, st_release(self->fd, h));
	EXPECT_EQ(0, st_release(self->fd, mem));
}

TEST_F(nl, fm_absent_times_out_and_stays_pending)
{
	static struct rows rows;
	__u64 h, mem;
	uint32_t req;
	bool pending = false;

	h = external_team(_metadata, self, 100, &req);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, self->g, &mem));
	EXPECT_EQ(-ETIMEDOUT,
		  st_mc_bind_mem(self->fd, h, 0, 0, mem, 0, self->g));
	EXPECT_EQ(-ETIMEDOUT,
		  st_mc_bind_mem(self->fd, h, 0, 0, mem, 0, self->g));
	ASSERT_EQ(0, nl_request(&self->nl, CUMC_CMD_MC_GET, NLM_F_DUMP, &rows, -1));
	for (int i = 0; i < rows.n; i++)
		if (rows.row[i].mc_id == req)
			pending = rows.row[i].fm_pending &&
				  rows.row[i].state == CUMC_TEAM_STATE_FORMING;
	EXPECT_TRUE(pending);
	/* The object goes; an answer for it afterwards is dropped. */
	EXPECT_EQ(0, st_release(self->fd, h));
	EXPECT_EQ(-ENOENT, fm_respond(&self->nl, req, CUMC_FM_RESULT_OK));
	EXPECT_EQ(0, st_release(self->fd, mem));
}

static int dev_row(struct cumc_nl *nl, uint32_t ordinal, struct row *out)
{
	return dump_row(nl, CUMC_CMD_DEV_GET, ordinal, out);
}

/* A held state and a health mask show in DEV_GET; completed, reset undo. */
TEST_F(nl, dev_set_holds_state_and_overrides_mask)
{
	struct row native, r;

	ASSERT_EQ(0, dev_row(&self->nl, 0, &native));
	EXPECT_FALSE(native.has[CUMC_A_FABRIC_STATE_HELD]);
	EXPECT_FALSE(native.has[CUMC_A_FABRIC_HEALTH_MASK]);
	ASSERT_TRUE(native.has[CUMC_A_DEV_MULTICAST]);
	EXPECT_EQ(1, native.u32[CUMC_A_DEV_MULTICAST]);
	ASSERT_EQ(0, dev_set(&self->nl, 0, false, CUMC_FABRIC_STATE_NOT_STARTED,
			     0x5, UNSET));
	ASSERT_EQ(0, dev_row(&self->nl, 0, &r));
	EXPECT_EQ(CUMC_FABRIC_STATE_NOT_STARTED, r.u32[CUMC_A_FABRIC_STATE]);
	EXPECT_TRUE(r.has[CUMC_A_FABRIC_STATE_HELD]);
	ASSERT_TRUE(r.has[CUMC_A_FABRIC_HEALTH_MASK]);
	EXPECT_EQ(0x5, r.u32[CUMC_A_FABRIC_HEALTH_MASK]);
	/* Device 1 is left as it was. */
	ASSERT_EQ(0, dev_row(&self->nl, 1, &r));
	EXPECT_FALSE(r.has[CUMC_A_FABRIC_STATE_HELD]);
	EXPECT_FALSE(r.has[CUMC_A_FABRIC_HEALTH_MASK]);
	/* Another held state replaces it; the mask stays. */
	ASSERT_EQ(0, dev_set(&self->nl, 0, false, CUMC_FABRIC_STATE_IN_PROGRESS,
			     UNSET, UNSET));
	ASSERT_EQ(0, dev_row(&self->nl, 0, &r));
	EXPECT_EQ(CUMC_FABRIC_STATE_IN_PROGRESS, r.u32[CUMC_A_FABRIC_STATE]);
	EXPECT_EQ(0x5, r.u32[CUMC_A_FABRIC_HEALTH_MASK]);
	/* COMPLETED lets go: the device's own state again. */
	ASSERT_EQ(0, dev_set(&self->nl, 0, false, CUMC_FABRIC_STATE_COMPLETED,
			     UNSET, UNSET));
	ASSERT_EQ(0, dev_row(&self->nl, 0, &r));
	EXPECT_FALSE(r.has[CUMC_A_FABRIC_STATE_HELD]);
	EXPECT_EQ(native.u32[CUMC_A_FABRIC_STATE], r.u32[CUMC_A_FABRIC_STATE]);
	EXPECT_TRUE(r.has[CUMC_A_FABRIC_HEALTH_MASK]);
	/* Every device at once, then reset drops all. */
	ASSERT_EQ(0, dev_set(&self->nl, UNSET, false,
			     CUMC_FABRIC_STATE_NOT_STARTED, UNSET, UNSET));
	ASSERT_EQ(0, dev_row(&self->nl, 1, &r));
	EXPECT_TRUE(r.has[CUMC_A_FABRIC_STATE_HELD]);
	ASSERT_EQ(0, dev_set(&self->nl, UNSET, true, UNSET, UNSET, UNSET));
	for (uint32_t d = 0; d < 2; d++) {
		ASSERT_EQ(0, dev_row(&self->nl, d, &r));
		EXPECT_FALSE(r.has[CUMC_A_FABRIC_STATE_HELD]);
		EXPECT_FALSE(r.has[CUMC_A_FABRIC_HEALTH_MASK]);
		EXPECT_EQ(native.u32[CUMC_A_FABRIC_STATE],
			  r.u32[CUMC_A_FABRIC_STATE]);
	}
}

/* Each bad request is refused with its errno, and changes nothing. */
TEST_F(nl, dev_set_and_fabric_set_refuse_bad_input)
{
	uint32_t limit, teams;
	struct row r;

	/* Not a state a fabric is held at, with a valid mask beside it. */
	EXPECT_EQ(-EINVAL, dev_set(&self->nl, 0, false,
				   CUMC_FABRIC_STATE_NOT_SUPPORTED, 0x1, UNSET));
	EXPECT_EQ(-EINVAL, dev_set(&self->nl, 0, false, 99, 0x1, 0));
	EXPECT_EQ(-ENODEV, dev_set(&self->nl, self->num_devices, false,
				   CUMC_FABRIC_STATE_NOT_STARTED, 0x1, 0));
	/* The policy's: out of range. */
	EXPECT_EQ(-ERANGE, dev_set(&self->nl, 0, false,
				   CUMC_FABRIC_STATE_NOT_STARTED, 0x1, 2));
	EXPECT_EQ(-ERANGE, mc_limit_set(&self->nl, 0));
	EXPECT_EQ(-ERANGE, mc_limit_set(&self->nl, 65537));
	EXPECT_EQ(-ERANGE, nl_request(&self->nl, CUMC_CMD_FAULT_SET, 0, NULL,
				      CUMC_A_FAULT_TYPE, CUMC_FAULT_FABRIC_STALL,
				      CUMC_A_FAULT_MODE, CUMC_FAULT_MODE_ONCE,
				      CUMC_A_FAULT_DELAY_MS, 0, -1));
	/* A delay is FABRIC_STALL's only. */
	EXPECT_EQ(-EINVAL, nl_request(&self->nl, CUMC_CMD_FAULT_SET, 0, NULL,
				      CUMC_A_FAULT_TYPE, CUMC_FAULT_ADD_DEVICE,
				      CUMC_A_FAULT_MODE, CUMC_FAULT_MODE_ONCE,
				      CUMC_A_FAULT_DELAY_MS, 100, -1));
	for (uint32_t d = 0; d < 2; d++) {
		ASSERT_EQ(0, dev_row(&self->nl, d, &r));
		EXPECT_FALSE(r.has[CUMC_A_FABRIC_STATE_HELD]);
		EXPECT_FALSE(r.has[CUMC_A_FABRIC_HEALTH_MASK]);
		EXPECT_EQ(1, r.u32[CUMC_A_DEV_MULTICAST]);
	}
	ASSERT_EQ(0, mc_limit_get(&self->nl, &limit, &teams));
	EXPECT_EQ(CUMC_FABRIC_MC_LIMIT_DEFAULT, limit);
}

/* A member whose fabric is held short of COMPLETED: never set up. */
TEST_F(nl, dev_set_held_state_holds_teams_back)
{
	struct cumc_mc_info info;
	__u64 h, mem;
	uint32_t id;

	ASSERT_EQ(0, fm_set(&self->nl, CUMC_FM_MODE_KERNEL, 300));
	ASSERT_EQ(0, dev_set(&self->nl, 1, false, CUMC_FABRIC_STATE_IN_PROGRESS,
			     UNSET, UNSET));
	h = team(_metadata, self, &id);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, self->g, &mem));
	EXPECT_EQ(-ETIMEDOUT,
		  st_mc_bind_mem(self->fd, h, 0, 0, mem, 0, self->g))
		TH_LOG("libcumc: CUresult %d", CUDA_ERROR_SYSTEM_NOT_READY);
	ASSERT_EQ(0, st_mc_info(self->fd, h, NULL, 0, &info));
	EXPECT_EQ(CUMC_TEAM_STATE_FORMING, info.out_state);
	EXPECT_EQ(0, st_release(self->fd, h));
	/* Let go: the next team is set up. */
	ASSERT_EQ(0, dev_set(&self->nl, 1, false, CUMC_FABRIC_STATE_COMPLETED,
			     UNSET, UNSET));
	h = team(_metadata, self, &id);
	EXPECT_EQ(0, st_mc_bind_mem(self->fd, h, 0, 0, mem, 0, self->g));
	EXPECT_EQ(0, st_release(self->fd, h));
	EXPECT_EQ(0, st_release(self->fd, mem));
}

/* Multicast off: no capability, no join, no object without any device. */
TEST_F(nl, dev_set_multicast_off)
{
	struct cumc_device_info info;
	struct row r;
	__u64 h;

	ASSERT_EQ(0, dev_set(&self->nl, 1, false, UNSET, UNSET, 0));
	ASSERT_EQ(0, dev_row(&self->nl, 1, &r));
	EXPECT_EQ(0, r.u32[CUMC_A_DEV_MULTICAST]);
	ASSERT_EQ(0, st_device_info(self->fd, 1, &info));
	EXPECT_FALSE(info.caps & CUMC_CAP_MULTICAST);
	EXPECT_TRUE(info.caps & CUMC_CAP_VMM);
	ASSERT_EQ(0, st_device_info(self->fd, 0, &info));
	EXPECT_TRUE(info.caps & CUMC_CAP_MULTICAST);
	ASSERT_EQ(0, st_mc_create(self->fd, 2, 0, self->g, &h));
	EXPECT_EQ(0, st_mc_add(self->fd, h, 0));
	EXPECT_EQ(-EOPNOTSUPP, st_mc_add(self->fd, h, 1));
	EXPECT_EQ(0, st_release(self->fd, h));
	/* No device of the node may: no multicast object either. */
	ASSERT_EQ(0, dev_set(&self->nl, UNSET, false, UNSET, UNSET, 0));
	EXPECT_EQ(-EOPNOTSUPP, st_mc_create(self->fd, 1, 0, self->g, &h));
	ASSERT_EQ(0, dev_set(&self->nl, UNSET, false, UNSET, UNSET, 1));
	ASSERT_EQ(0, st_device_info(self->fd, 1, &info));
	EXPECT_TRUE(info.caps & CUMC_CAP_MULTICAST);
	ASSERT_EQ(0, st_mc_team(self->fd, 2, 0, self->g, &h));
	EXPECT_EQ(0, st_release(self->fd, h));
}

/*
 * At the fabric's MC limit the next team fails with ENOSPC (libcumc:
 * CUDA_ERROR_OUT_OF_MEMORY, nccl #2077); teams freed make room again.
 */
TEST_F(nl, mc_limit_fails_the_next_team)
{
	uint32_t limit, before, teams, id;
	struct cumc_mc_info info;
	__u64 a, b, c, mem;

	ASSERT_EQ(0, mc_limit_get(&self->nl, &limit, &before));
	EXPECT_EQ(CUMC_FABRIC_MC_LIMIT_DEFAULT, limit);
	ASSERT_EQ(0, mc_limit_set(&self->nl, before + 1));
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, self->g, &mem));
	a = team(_metadata, self, &id);
	EXPECT_EQ(0, st_mc_bind_mem(self->fd, a, 0, 0, mem, 0, self->g));
	ASSERT_EQ(0, mc_limit_get(&self->nl, &limit, &teams));
	EXPECT_EQ(before + 1, limit);
	EXPECT_EQ(before + 1, teams);
	b = team(_metadata, self, &id);
	EXPECT_EQ(-ENOSPC, st_mc_bind_mem(self->fd, b, 0, 0, mem, 0, self->g))
		TH_LOG("libcumc: CUresult %d", CUDA_ERROR_OUT_OF_MEMORY);
	ASSERT_EQ(0, st_mc_info(self->fd, b, NULL, 0, &info));
	EXPECT_EQ(CUMC_TEAM_STATE_FAILED, info.out_state);
	ASSERT_EQ(0, mc_limit_get(&self->nl, &limit, &teams));
	EXPECT_EQ(before + 1, teams);
	/* A lower limit holds back new setups only: a's stays. */
	ASSERT_EQ(0, mc_limit_set(&self->nl, 1));
	EXPECT_EQ(0, st_mc_unbind(self->fd, a, 0, 0, self->g));
	EXPECT_EQ(0, st_mc_bind_mem(self->fd, a, 0, 0, mem, 0, self->g));
	EXPECT_EQ(0, st_release(self->fd, b));
	EXPECT_EQ(0, st_release(self->fd, a));
	ASSERT_EQ(0, mc_limit_get(&self->nl, &limit, &teams));
	EXPECT_EQ(before, teams);
	/* Room again. */
	ASSERT_EQ(0, mc_limit_set(&self->nl, before + 1));
	c = team(_metadata, self, &id);
	EXPECT_EQ(0, st_mc_bind_mem(self->fd, c, 0, 0, mem, 0, self->g));
	EXPECT_EQ(0, st_release(self->fd, c));
	EXPECT_EQ(0, st_release(self->fd, mem));
	ASSERT_EQ(0, mc_limit_get(&self->nl, &limit, &teams));
	EXPECT_EQ(before, teams);
}

/* The join fails with EIO and changes nothing: a retry joins. */
TEST_F(nl, fault_add_device_then_retry_joins)
{
	struct cumc_mc_info info;
	__u64 h, mem;

	ASSERT_EQ(0, fault_set(&self->nl, CUMC_FAULT_ADD_DEVICE,
			       CUMC_FAULT_MODE_ONCE, 0, 1));
	ASSERT_EQ(0, st_mc_create(self->fd, 2, 0, self->g, &h));
	EXPECT_EQ(0, st_mc_add(self->fd, h, 0));
	EXPECT_EQ(-EIO, st_mc_add(self->fd, h, 1))
		TH_LOG("libcumc: CUresult %d", CUDA_ERROR_ILLEGAL_STATE);
	ASSERT_EQ(0, st_mc_info(self->fd, h, NULL, 0, &info));
	EXPECT_EQ(1, info.out_num_members);
	EXPECT_EQ(CUMC_TEAM_STATE_FORMING, info.out_state);
	EXPECT_EQ(0, st_mc_add(self->fd, h, 1));
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, self->g, &mem));
	EXPECT_EQ(0, st_mc_bind_mem(self->fd, h, 0, 0, mem, 0, self->g));
	EXPECT_EQ(0, st_release(self->fd, h));
	EXPECT_EQ(0, st_release(self->fd, mem));
}

/* The unbind fails with EINVAL and unbinds nothing. */
TEST_F(nl, fault_unbind_invalid_keeps_the_binding)
{
	static struct rows rows;
	__u64 h, mem;
	uint32_t id;
	int binds = -1;

	h = team(_metadata, self, &id);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, self->g, &mem));
	ASSERT_EQ(0, st_mc_bind_mem(self->fd, h, 0, 0, mem, 0, self->g));
	ASSERT_EQ(0, fault_set(&self->nl, CUMC_FAULT_UNBIND_INVALID,
			       CUMC_FAULT_MODE_ONCE, 0, NO_DEVICE));
	EXPECT_EQ(-EINVAL, st_mc_unbind(self->fd, h, 0, 0, self->g));
	ASSERT_EQ(0, nl_request(&self->nl, CUMC_CMD_MC_GET, NLM_F_DUMP, &rows, -1));
	for (int i = 0; i < rows.n; i++)
		if (rows.row[i].mc_id == id)
			binds = rows.row[i].binds;
	EXPECT_EQ(1, binds);
	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 0, 0, self->g));
	EXPECT_EQ(0, st_release(self->fd, h));
	EXPECT_EQ(0, st_release(self->fd, mem));
}

/*
 * The manager answers after the stall (torchcomms #3130): the bind gives
 * up at fm_timeout_ms first, a retry after the stall binds.
 */
TEST_F(nl, fault_fabric_stall_times_out_then_retry_binds)
{
	static struct rows rows;
	struct cumc_mc_info info;
	__u64 h, mem;
	uint32_t id;
	int ret, i;

	/* Its delay is reported; without one it is 7000 ms. */
	ASSERT_EQ(0, stall_set(&self->nl, CUMC_FAULT_MODE_ONCE, 0));
	ASSERT_EQ(0, nl_request(&self->nl, CUMC_CMD_FAULT_GET, NLM_F_DUMP,
				&rows, -1));
	ASSERT_EQ(1, rows.n);
	EXPECT_EQ(7000, rows.row[0].u32[CUMC_A_FAULT_DELAY_MS]);
	ASSERT_EQ(0, stall_set(&self->nl, CUMC_FAULT_MODE_ONCE, 1500));
	ASSERT_EQ(0, nl_request(&self->nl, CUMC_CMD_FAULT_GET, NLM_F_DUMP,
				&rows, -1));
	ASSERT_EQ(1, rows.n);
	EXPECT_EQ(1500, rows.row[0].u32[CUMC_A_FAULT_DELAY_MS]);
	ASSERT_EQ(0, fm_set(&self->nl, CUMC_FM_MODE_KERNEL, 300));
	h = team(_metadata, self, &id);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, self->g, &mem));
	EXPECT_EQ(-ETIMEDOUT,
		  st_mc_bind_mem(self->fd, h, 0, 0, mem, 0, self->g))
		TH_LOG("libcumc: CUresult %d", CUDA_ERROR_SYSTEM_NOT_READY);
	ASSERT_EQ(0, st_mc_info(self->fd, h, NULL, 0, &info));
	/* Not timed: under an emulator the stall may be over already. */
	for (i = 0; i < 100 && info.out_state == CUMC_TEAM_STATE_FORMING; i++) {
		usleep(100 * 1000);
		ASSERT_EQ(0, st_mc_info(self->fd, h, NULL, 0, &info));
	}
	EXPECT_EQ(CUMC_TEAM_STATE_READY, info.out_state);
	ret = st_mc_bind_mem(self->fd, h, 0, 0, mem, 0, self->g);
	EXPECT_EQ(0, ret);
	EXPECT_EQ(0, st_release(self->fd, h));
	EXPECT_EQ(0, st_release(self->fd, mem));
}

/* Whether MC_GET lists object @id. */
static bool mc_listed(struct cumc_nl *nl, uint32_t id)
{
	static struct rows rows;

	if (nl_request(nl, CUMC_CMD_MC_GET, NLM_F_DUMP, &rows, -1))
		return false;
	for (int i = 0; i < rows.n; i++)
		if (rows.row[i].mc_id == id)
			return true;
	return false;
}

/* A stall holds its object past its last handle, then lets it go. */
TEST_F(nl, fault_fabric_stall_holds_the_object_until_it_ends)
{
	uint32_t id;
	__u64 h;
	int i;

	ASSERT_EQ(0, stall_set(&self->nl, CUMC_FAULT_MODE_ONCE, 3000));
	h = team(_metadata, self, &id);
	ASSERT_EQ(0, st_release(self->fd, h));
	EXPECT_TRUE(mc_listed(&self->nl, id));
	for (i = 0; i < 100 && mc_listed(&self->nl, id); i++)
		usleep(100 * 1000);
	EXPECT_FALSE(mc_listed(&self->nl, id));
}

TEST_HARNESS_MAIN
