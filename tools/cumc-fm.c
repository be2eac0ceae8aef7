// SPDX-License-Identifier: MIT
/*
 * cumc-fm: an external fabric manager for cumc. It subscribes to the
 * control plane's monitor group and answers each TEAM_SETUP_REQ with
 * FM_RESPOND, as NVIDIA's Fabric Manager answers a team-setup request.
 *
 * cumc-fm [--delay-ms MS] [--fail] [--count N] [--external]
 *   --delay-ms  wait before answering (a slow manager; past the module's
 *               fm_timeout_ms the waiting binds fail with ETIMEDOUT)
 *   --fail      answer every request with a failure (the team goes FAILED)
 *   --count     exit after answering N requests
 *   --external  switch the module to external mode first
 * Prints "cumc-fm: ready" once subscribed; stops on SIGTERM or SIGINT.
 * Exit status: 0 done, 1 usage, 2 the kernel refused.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <linux/cumc_netlink.h>

static volatile sig_atomic_t stopping;
static struct nl_sock *cmd_sk;
static int family;
static unsigned int delay_ms;
static bool fail;
static long remaining = -1;
static int status;

static const char usage_text[] =
	"usage: cumc-fm [--delay-ms MS] [--fail] [--count N] [--external]\n"
	"Answer cumc's team-setup requests as an external fabric manager.\n";

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static int error_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	(void)nla;
	*(int *)arg = e->error;
	return NL_STOP;
}

static int ack_cb(struct nl_msg *msg, void *arg)
{
	(void)msg;
	*(int *)arg = 0;
	return NL_STOP;
}

/* Send a request on cmd_sk and wait for its ack: 0 or a negative errno. */
static int send_cmd(struct nl_msg *msg)
{
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int err = 1;

	nl_cb_err(cb, NL_CB_CUSTOM, error_cb, &err);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, ack_cb, &err);
	if (nl_send_auto(cmd_sk, msg) < 0)
		err = -EIO;
	while (err == 1)
		if (nl_recvmsgs(cmd_sk, cb) < 0 && err == 1)
			err = -EIO;
	nl_cb_put(cb);
	nlmsg_free(msg);
	return err;
}

static struct nl_msg *request(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0,
				 NLM_F_ACK, cmd, CUMC_GENL_VERSION)) {
		fprintf(stderr, "cumc-fm: out of memory\n");
		exit(2);
	}
	return msg;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR && !stopping)
		;
}

static int event_cb(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[CUMC_A_MAX + 1];
	struct nl_msg *reply;
	uint32_t id;
	int err;

	(void)arg;
	if (gh->cmd != CUMC_CMD_TEAM_SETUP_REQ_NTF || remaining == 0 ||
	    genlmsg_parse(nlmsg_hdr(msg), 0, tb, CUMC_A_MAX, NULL) ||
	    !tb[CUMC_A_FM_REQ_ID])
		return NL_OK;
	id = nla_get_u32(tb[CUMC_A_FM_REQ_ID]);
	if (delay_ms)
		sleep_ms(delay_ms);
	reply = request(CUMC_CMD_FM_RESPOND);
	nla_put_u32(reply, CUMC_A_FM_REQ_ID, id);
	nla_put_u32(reply, CUMC_A_FM_RESULT,
		    fail ? CUMC_FM_RESULT_FAIL : CUMC_FM_RESULT_OK);
	err = send_cmd(reply);
	printf("cumc-fm: request %u answered %s: %s\n", id, fail ? "fail" : "ok",
	       err ? strerror(-err) : "accepted");
	fflush(stdout);
	if (remaining > 0)
		remaining--;
	return NL_OK;
}

static bool parse_num(const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	return s && *s && !*end && !errno && *v <= 0x7fffffff;
}

static int parse_args(int argc, char **argv, bool *external)
{
	unsigned long v;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			exit(0);
		} else if (!strcmp(argv[i], "--fail")) {
			fail = true;
		} else if (!strcmp(argv[i], "--external")) {
			*external = true;
		} else if (i + 1 < argc && parse_num(argv[i + 1], &v) &&
			   !strcmp(argv[i], "--delay-ms")) {
			delay_ms = v;
			i++;
		} else if (i + 1 < argc && parse_num(argv[i + 1], &v) &&
			   !strcmp(argv[i], "--count")) {
			remaining = v;
			i++;
		} else {
			fputs(usage_text, stderr);
			return -1;
		}
	}
	return 0;
}

static struct nl_sock *open_socket(void)
{
	struct nl_sock *sk = nl_socket_alloc();

	if (!sk || genl_connect(sk)) {
		fprintf(stderr, "cumc-fm: cannot open a netlink socket\n");
		exit(2);
	}
	return sk;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	bool external = false;
	struct nl_sock *ev_sk;
	struct pollfd pfd;
	int grp, err;

	if (parse_args(argc, argv, &external))
		return 1;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	cmd_sk = open_socket();
	ev_sk = open_socket();
	family = genl_ctrl_resolve(cmd_sk, CUMC_GENL_NAME);
	grp = genl_ctrl_resolve_grp(cmd_sk, CUMC_GENL_NAME,
				    CUMC_GENL_MCGRP_MONITOR);
	if (family < 0 || grp < 0 || nl_socket_add_membership(ev_sk, grp)) {
		fprintf(stderr, "cumc-fm: no cumc netlink family: is cumc.ko loaded?\n");
		return 2;
	}
	if (external) {
		struct nl_msg *msg = request(CUMC_CMD_FM_SET);

		nla_put_u32(msg, CUMC_A_FM_MODE, CUMC_FM_MODE_EXTERNAL);
		err = send_cmd(msg);
		if (err) {
			fprintf(stderr, "cumc-fm: fm mode: %s\n", strerror(-err));
			return 2;
		}
	}
	nl_socket_disable_seq_check(ev_sk);
	nl_socket_modify_cb(ev_sk, NL_CB_VALID, NL_CB_CUSTOM, event_cb, NULL);
	printf("cumc-fm: ready\n");
	fflush(stdout);
	while (!stopping && remaining != 0) {
		pfd.fd = nl_socket_get_fd(ev_sk);
		pfd.events = POLLIN;
		/* A bounded poll: a signal between the check and poll is seen. */
		if (poll(&pfd, 1, 200) > 0)
			nl_recvmsgs_default(ev_sk);
	}
	nl_socket_free(ev_sk);
	nl_socket_free(cmd_sk);
	return status;
}
