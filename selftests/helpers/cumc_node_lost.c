// SPDX-License-Identifier: GPL-2.0
/*
 * cumc_node_lost NODE: tell the module that node NODE is lost, as the IMEX
 * daemon does (IMEX_NODE_LOST, CAP_NET_ADMIN), so that the shell tests see
 * NODE_LOST_NTF. On a node of no fabric nothing else happens: no GPU of
 * that node is here, and no call is waiting for it. Exit status 0, 1 on a
 * usage error, or the errno the kernel answered.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cumc_nl.h"

int main(int argc, char **argv)
{
	struct cumc_nl nl;
	struct nl_msg *msg;
	unsigned long node;
	char *end;
	int err;

	if (argc != 2)
		goto usage;
	errno = 0;
	node = strtoul(argv[1], &end, 0);
	if (errno || !*argv[1] || *end || node > UINT32_MAX)
		goto usage;
	err = cumc_nl_open(&nl);
	if (err) {
		fprintf(stderr, "cumc_node_lost: open: %s\n", strerror(-err));
		return -err;
	}
	msg = cumc_nl_msg(&nl, CUMC_CMD_IMEX_NODE_LOST, 0);
	if (!msg || nla_put_u32(msg, CUMC_A_IMEX_NODE, node)) {
		nlmsg_free(msg);
		err = -ENOMEM;
	} else {
		err = cumc_nl_transact(&nl, msg, NULL, NULL);
	}
	cumc_nl_close(&nl);
	if (err)
		fprintf(stderr, "cumc_node_lost: %s\n", strerror(-err));
	return -err;
usage:
	fprintf(stderr, "usage: cumc_node_lost NODE\n");
	return 1;
}
