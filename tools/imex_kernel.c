// SPDX-License-Identifier: MIT
/*
 * cumc-imex's side of its node's kernel (imex_kernel.h) on the cumc
 * generic netlink family: one socket attached as the node's IMEX daemon,
 * which receives the IMEX_CALL_REQs, one for the daemon's commands.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cumc_nl.h"
#include "imex_kernel.h"

/* Room for bursts of calls while the daemon is busy on the network. */
#define IMEX_NL_RCVBUF (4 << 20)
/* The most datagrams one imex_kernel_receive() reads. */
#define IMEX_NL_BATCH 32

struct imex_kernel {
	struct cumc_nl cmd;
	struct cumc_nl call;	/* imex_kernel_call()'s, on the worker's thread */
	struct cumc_nl ev;	/* attached: the kernel's IMEX_CALL_REQs */
	imex_call_req_fn fn;
	void *arg;
};

static int call_req_cb(struct nl_msg *msg, void *arg)
{
	static const struct nla_policy policy[CUMC_A_MAX + 1] = {
		[CUMC_A_IMEX_REQ_ID] = { .type = NLA_U32 },
		[CUMC_A_IMEX_NODE] = { .type = NLA_U32 },
		[CUMC_A_IMEX_OP] = { .type = NLA_U32 },
	};
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[CUMC_A_MAX + 1], *p;
	struct imex_call_req req = { 0 };
	struct imex_kernel *k = arg;

	if (nlh->nlmsg_type != k->ev.family ||
	    !genlmsg_valid_hdr(nlh, 0) ||
	    genlmsg_hdr(nlh)->cmd != CUMC_CMD_IMEX_CALL_REQ)
		return NL_OK;
	if (genlmsg_parse(nlh, 0, tb, CUMC_A_MAX, policy) ||
	    !tb[CUMC_A_IMEX_REQ_ID] || !tb[CUMC_A_IMEX_NODE] ||
	    !tb[CUMC_A_IMEX_OP]) {
		fprintf(stderr, "cumc-imex: a malformed IMEX_CALL_REQ, ignored\n");
		return NL_OK;
	}
	req.req_id = nla_get_u32(tb[CUMC_A_IMEX_REQ_ID]);
	req.node = nla_get_u32(tb[CUMC_A_IMEX_NODE]);
	req.op = nla_get_u32(tb[CUMC_A_IMEX_OP]);
	p = tb[CUMC_A_IMEX_PAYLOAD];
	if (p && nla_len(p) > CUMC_IMEX_PAYLOAD_MAX) {
		fprintf(stderr, "cumc-imex: request %u: a payload of %d bytes, over %d\n",
			req.req_id, nla_len(p), CUMC_IMEX_PAYLOAD_MAX);
		if (req.req_id)
			imex_kernel_respond(k, req.req_id, EMSGSIZE, NULL);
		return NL_OK;
	}
	if (p) {
		req.payload.present = true;
		req.payload.length = nla_len(p);
		req.payload.bytes = nla_data(p);
	}
	k->fn(k, &req, k->arg);
	return NL_OK;
}

struct imex_kernel *imex_kernel_open(struct imex_identity *id,
				     imex_call_req_fn fn, void *arg)
{
	struct imex_kernel *k = calloc(1, sizeof(*k));
	struct cumc_nl_fabric fabric;
	int err;

	if (!k) {
		fprintf(stderr, "cumc-imex: out of memory\n");
		return NULL;
	}
	k->fn = fn;
	k->arg = arg;
	err = cumc_nl_open(&k->cmd);
	if (err) {
		fprintf(stderr, err == -ENOENT ?
			"cumc-imex: no cumc netlink family: is cumc.ko loaded?\n" :
			"cumc-imex: cannot open a netlink socket\n");
		free(k);
		return NULL;
	}
	err = cumc_nl_fabric_get(&k->cmd, &fabric);
	if (err) {
		fprintf(stderr, "cumc-imex: FABRIC_GET: %s\n", strerror(-err));
		goto close_cmd;
	}
	if (!fabric.has_node || !fabric.has_cluster_uuid) {
		fprintf(stderr, "cumc-imex: this node is in no multi-node fabric (FABRIC_GET gave no node index or cluster UUID)\n");
		goto close_cmd;
	}
	id->node = fabric.node;
	memcpy(id->cluster_uuid, fabric.cluster_uuid, sizeof(id->cluster_uuid));
	if (cumc_nl_open(&k->call)) {
		fprintf(stderr, "cumc-imex: cannot open a netlink socket\n");
		goto close_cmd;
	}
	if (cumc_nl_open(&k->ev)) {
		fprintf(stderr, "cumc-imex: cannot open a netlink socket\n");
		goto close_call;
	}
	/* Replies and calls of CUMC_IMEX_PAYLOAD_MAX bytes pass a page. */
	nl_socket_enable_msg_peek(k->cmd.sk);
	nl_socket_enable_msg_peek(k->call.sk);
	nl_socket_enable_msg_peek(k->ev.sk);
	nl_socket_set_buffer_size(k->ev.sk, IMEX_NL_RCVBUF, 0);
	err = cumc_nl_imex_attach(&k->ev, call_req_cb, k);
	if (err == -EBUSY) {
		fprintf(stderr, "cumc-imex: another IMEX daemon is attached to this node's kernel\n");
		goto close_ev;
	} else if (err) {
		fprintf(stderr, "cumc-imex: IMEX_ATTACH: %s%s\n", strerror(-err),
			err == -EPERM ? " (it needs CAP_NET_ADMIN)" : "");
		goto close_ev;
	}
	nl_socket_disable_seq_check(k->ev.sk);
	nl_socket_modify_cb(k->ev.sk, NL_CB_VALID, NL_CB_CUSTOM, call_req_cb, k);
	if (nl_socket_set_nonblocking(k->ev.sk)) {
		fprintf(stderr, "cumc-imex: cannot make the netlink socket non-blocking\n");
		goto close_ev;
	}
	return k;

close_ev:
	cumc_nl_close(&k->ev);
close_call:
	cumc_nl_close(&k->call);
close_cmd:
	cumc_nl_close(&k->cmd);
	free(k);
	return NULL;
}

void imex_kernel_close(struct imex_kernel *k)
{
	if (!k)
		return;
	cumc_nl_close(&k->ev);
	cumc_nl_close(&k->call);
	cumc_nl_close(&k->cmd);
	free(k);
}

int imex_kernel_fd(const struct imex_kernel *k)
{
	return nl_socket_get_fd(k->ev.sk);
}

int imex_kernel_receive(struct imex_kernel *k)
{
	int i, err = 0;

	for (i = 0; i < IMEX_NL_BATCH; i++) {
		err = nl_recvmsgs_default(k->ev.sk);
		if (err == -NLE_AGAIN)
			return 0;
		if (err == -NLE_NOMEM) {
			/* ENOBUFS: calls were dropped; the kernel times them out. */
			fprintf(stderr, "cumc-imex: netlink receive buffer overrun: calls lost\n");
			continue;
		}
		if (err < 0) {
			fprintf(stderr, "cumc-imex: netlink: %s\n", nl_geterror(err));
			return -EIO;
		}
	}
	return 0;
}

int imex_kernel_call(struct imex_kernel *k, uint32_t caller, uint32_t op,
		     const struct imex_data *payload, struct imex_reply *reply)
{
	int len = -1, err;

	err = cumc_nl_imex_call(&k->call, caller, op, payload->bytes,
				payload->present ? (int)payload->length : -1,
				&reply->result, reply->buf, &len);
	if (err)
		return err;
	reply->payload.present = len >= 0;
	reply->payload.length = len >= 0 ? len : 0;
	reply->payload.bytes = reply->buf;
	return 0;
}

int imex_kernel_respond(struct imex_kernel *k, uint32_t req_id,
			uint32_t result, const struct imex_data *payload)
{
	return cumc_nl_imex_respond(&k->cmd, req_id, result,
				    payload ? payload->bytes : NULL,
				    payload && payload->present ?
				    (int)payload->length : -1);
}

int imex_kernel_node_lost(struct imex_kernel *k, uint32_t node)
{
	return cumc_nl_imex_node_lost(&k->cmd, node);
}

int imex_kernel_node_join(struct imex_kernel *k, uint32_t node)
{
	return cumc_nl_imex_node_join(&k->call, node);
}
