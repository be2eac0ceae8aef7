/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Selftest helper: the control plane's monitor group, read with libnl.
 * Events queue up as they are read, for tests to look for by command.
 */
#ifndef CUMC_SELFTEST_NL_MONITOR_H
#define CUMC_SELFTEST_NL_MONITOR_H

#include <poll.h>
#include <stdint.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include <linux/cumc_netlink.h>

#define MAX_EVENTS 64

struct event {
	uint8_t cmd;
	uint32_t mc_id;
	uint32_t req_id;
	int32_t device;
};

/* The monitor: events queue up in @q as they are read. */
struct monitor {
	struct nl_sock *sk;
	int n;
	struct event ev[MAX_EVENTS];
};

static inline int nl_monitor_event_cb(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[CUMC_A_MAX + 1];
	struct monitor *m = arg;
	struct event *e;

	if (m->n == MAX_EVENTS ||
	    genlmsg_parse(nlmsg_hdr(msg), 0, tb, CUMC_A_MAX, NULL))
		return NL_OK;
	e = &m->ev[m->n++];
	e->cmd = gh->cmd;
	e->mc_id = tb[CUMC_A_MC_ID] ? nla_get_u32(tb[CUMC_A_MC_ID]) : 0;
	e->req_id = tb[CUMC_A_FM_REQ_ID] ? nla_get_u32(tb[CUMC_A_FM_REQ_ID]) : 0;
	e->device = tb[CUMC_A_DEV_ORDINAL] ?
		    (int32_t)nla_get_u32(tb[CUMC_A_DEV_ORDINAL]) : -1;
	return NL_OK;
}

static inline int monitor_open(struct monitor *m)
{
	int grp;

	m->n = 0;
	m->sk = nl_socket_alloc();
	if (!m->sk || genl_connect(m->sk))
		return -1;
	grp = genl_ctrl_resolve_grp(m->sk, CUMC_GENL_NAME,
				    CUMC_GENL_MCGRP_MONITOR);
	if (grp < 0 || nl_socket_add_membership(m->sk, grp))
		return -1;
	nl_socket_disable_seq_check(m->sk);
	nl_socket_modify_cb(m->sk, NL_CB_VALID, NL_CB_CUSTOM,
			    nl_monitor_event_cb, m);
	return 0;
}

/* Read events for up to @ms, or until @want have arrived. */
static inline void monitor_read(struct monitor *m, int want, int ms)
{
	struct pollfd pfd = { .fd = nl_socket_get_fd(m->sk), .events = POLLIN };

	while (m->n < want && poll(&pfd, 1, ms) > 0)
		nl_recvmsgs_default(m->sk);
}

/* The first event @cmd about @mc_id, or NULL. */
static inline struct event *monitor_find(struct monitor *m, uint8_t cmd,
				  uint32_t mc_id)
{
	for (int i = 0; i < m->n; i++)
		if (m->ev[i].cmd == cmd && (!mc_id || m->ev[i].mc_id == mc_id))
			return &m->ev[i];
	return NULL;
}

#endif /* CUMC_SELFTEST_NL_MONITOR_H */
