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

#include "cumc_nl.h"

#ifndef CUMC_VERSION
#define CUMC_VERSION "unknown"
#endif

static volatile sig_atomic_t stopping;
/* For requests; events come on a socket of their own. */
static struct cumc_nl cmd_nl;
static unsigned int delay_ms;
static bool fail;
static long remaining = -1;
static int status;

static const char usage_text[] =
	"usage: cumc-fm [--delay-ms MS] [--fail] [--count N] [--external]\n"
	"       cumc-fm --help | --version\n"
	"Answer cumc's team-setup requests as an external fabric manager.\n";

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
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
	err = cumc_nl_fm_respond(&cmd_nl, id, fail ? CUMC_FM_RESULT_FAIL :
						     CUMC_FM_RESULT_OK);
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
		} else if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V")) {
			printf("cumc-fm %s\n", CUMC_VERSION);
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
	err = cumc_nl_open(&cmd_nl);
	if (err && err != -ENOENT) {
		fprintf(stderr, "cumc-fm: cannot open a netlink socket\n");
		return 2;
	}
	ev_sk = open_socket();
	grp = err ? -1 : genl_ctrl_resolve_grp(cmd_nl.sk, CUMC_GENL_NAME,
					       CUMC_GENL_MCGRP_MONITOR);
	if (grp < 0 || nl_socket_add_membership(ev_sk, grp)) {
		fprintf(stderr, "cumc-fm: no cumc netlink family: is cumc.ko loaded?\n");
		return 2;
	}
	if (external) {
		/* The mode alone: the timeout stays what the admin set. */
		err = cumc_nl_fm_set(&cmd_nl, CUMC_FM_MODE_EXTERNAL, 0);
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
	cumc_nl_close(&cmd_nl);
	return status;
}
