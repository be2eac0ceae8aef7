// SPDX-License-Identifier: MIT
/*
 * The generic netlink client of cumc_nl.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include <netlink/genl/ctrl.h>

#include "cumc_nl.h"

/* Still waiting for the ack, the dump's end or an error. */
#define CUMC_NL_PENDING 1

int cumc_nl_open(struct cumc_nl *nl)
{
	nl->sk = nl_socket_alloc();
	if (!nl->sk)
		return -ENOMEM;
	if (genl_connect(nl->sk)) {
		cumc_nl_close(nl);
		return -EIO;
	}
	nl->family = genl_ctrl_resolve(nl->sk, CUMC_GENL_NAME);
	if (nl->family < 0) {
		cumc_nl_close(nl);
		return -ENOENT;
	}
	return 0;
}

void cumc_nl_close(struct cumc_nl *nl)
{
	nl_socket_free(nl->sk);
	nl->sk = NULL;
}

/* The genetlink header of a request into @msg, or NULL (@msg freed). */
static struct nl_msg *cumc_nl_put_hdr(const struct cumc_nl *nl,
				      struct nl_msg *msg, uint8_t cmd,
				      int flags)
{
	if (msg && !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
				flags | NLM_F_ACK, cmd, CUMC_GENL_VERSION)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return msg;
}

struct nl_msg *cumc_nl_msg(const struct cumc_nl *nl, uint8_t cmd, int flags)
{
	return cumc_nl_put_hdr(nl, nlmsg_alloc(), cmd, flags);
}

struct nl_msg *cumc_nl_msg_size(const struct cumc_nl *nl, uint8_t cmd,
				int flags, size_t size)
{
	size += NLMSG_HDRLEN + GENL_HDRLEN;
	return cumc_nl_put_hdr(nl, nlmsg_alloc_size(size), cmd, flags);
}

static int cumc_nl_error(struct sockaddr_nl *nla, struct nlmsgerr *e,
			 void *arg)
{
	(void)nla;
	*(int *)arg = e->error;
	return NL_STOP;
}

static int cumc_nl_done(struct nl_msg *msg, void *arg)
{
	(void)msg;
	*(int *)arg = 0;
	return NL_STOP;
}

static int cumc_nl_any_seq(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

/*
 * After a failed read: hand what is queued already to @cb, without
 * waiting. The kernel reports a message it could not allocate (an ack,
 * a dump's next part) as ENOBUFS before the messages queued ahead of it,
 * among them perhaps the reply the request was for.
 */
static void cumc_nl_drain(struct cumc_nl *nl, struct nl_cb *cb)
{
	int fd = nl_socket_get_fd(nl->sk);
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return;
	while (nl_recvmsgs(nl->sk, cb) >= 0)
		;
	fcntl(fd, F_SETFL, flags);
}

/*
 * cumc_nl_transact(); with @any_seq, messages the request did not ask for
 * (the kernel's own, sequence number 0) go to @valid too.
 */
static int cumc_nl_transact_seq(struct cumc_nl *nl, struct nl_msg *msg,
				nl_recvmsg_msg_cb_t valid, void *arg,
				bool any_seq)
{
	int err = CUMC_NL_PENDING;
	struct nl_cb *cb;

	if (!msg)
		return -ENOMEM;
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	nl_cb_err(cb, NL_CB_CUSTOM, cumc_nl_error, &err);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, cumc_nl_done, &err);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, cumc_nl_done, &err);
	if (valid)
		nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, valid, arg);
	if (any_seq)
		nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, cumc_nl_any_seq,
			  NULL);
	if (nl_send_auto(nl->sk, msg) < 0)
		err = -EIO;
	/*
	 * A reply and its ack may come in separate reads: read until the
	 * ack, not just once.
	 */
	while (err == CUMC_NL_PENDING) {
		if (nl_recvmsgs(nl->sk, cb) < 0 && err == CUMC_NL_PENDING) {
			err = -EIO;
			cumc_nl_drain(nl, cb);
		}
	}
	nl_cb_put(cb);
	nlmsg_free(msg);
	return err;
}

int cumc_nl_transact(struct cumc_nl *nl, struct nl_msg *msg,
		     nl_recvmsg_msg_cb_t valid, void *arg)
{
	return cumc_nl_transact_seq(nl, msg, valid, arg, false);
}

struct cumc_nl_u32 {
	int attr;
	uint32_t value;
};

/* An admin command of @n u32 attributes, acked: 0 or -errno. */
static int cumc_nl_do(struct cumc_nl *nl, uint8_t cmd,
		      const struct cumc_nl_u32 *attrs, size_t n)
{
	struct nl_msg *msg = cumc_nl_msg(nl, cmd, 0);
	size_t i;

	for (i = 0; msg && i < n; i++) {
		if (nla_put_u32(msg, attrs[i].attr, attrs[i].value)) {
			nlmsg_free(msg);
			return -EMSGSIZE;
		}
	}
	return cumc_nl_transact(nl, msg, NULL, NULL);
}

int cumc_nl_fault_set_delay(struct cumc_nl *nl, enum cumc_fault_type type,
			    enum cumc_fault_mode mode, uint32_t value,
			    int64_t device, uint32_t delay_ms)
{
	struct cumc_nl_u32 attrs[5] = {
		{ CUMC_A_FAULT_TYPE, type },
		{ CUMC_A_FAULT_MODE, mode },
		{ CUMC_A_FAULT_VALUE, value },
	};
	size_t n = 3;

	if (device != CUMC_NL_FABRIC)
		attrs[n++] = (struct cumc_nl_u32){ CUMC_A_DEV_ORDINAL, device };
	if (delay_ms)
		attrs[n++] = (struct cumc_nl_u32){ CUMC_A_FAULT_DELAY_MS,
						   delay_ms };
	return cumc_nl_do(nl, CUMC_CMD_FAULT_SET, attrs, n);
}

int cumc_nl_fault_set(struct cumc_nl *nl, enum cumc_fault_type type,
		      enum cumc_fault_mode mode, uint32_t value,
		      int64_t device)
{
	return cumc_nl_fault_set_delay(nl, type, mode, value, device, 0);
}

/* A u32 attribute when @value is not negative: 0 or -EMSGSIZE. */
static int cumc_nl_put_opt(struct nl_msg *msg, int attr, int64_t value)
{
	return value < 0 ? 0 : nla_put_u32(msg, attr, value);
}

int cumc_nl_dev_set(struct cumc_nl *nl, const struct cumc_nl_dev_cond *cond)
{
	struct nl_msg *msg = cumc_nl_msg(nl, CUMC_CMD_DEV_SET, 0);

	if (!msg)
		return -ENOMEM;
	if (cumc_nl_put_opt(msg, CUMC_A_DEV_ORDINAL,
			    cond->device == CUMC_NL_FABRIC ? -1 : cond->device) ||
	    cumc_nl_put_opt(msg, CUMC_A_FABRIC_STATE, cond->state) ||
	    cumc_nl_put_opt(msg, CUMC_A_FABRIC_HEALTH_MASK, cond->health_mask) ||
	    cumc_nl_put_opt(msg, CUMC_A_DEV_MULTICAST, cond->multicast) ||
	    (cond->reset && nla_put_flag(msg, CUMC_A_DEV_RESET))) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return cumc_nl_transact(nl, msg, NULL, NULL);
}

int cumc_nl_fabric_set_mc_limit(struct cumc_nl *nl, uint32_t limit)
{
	const struct cumc_nl_u32 attr = { CUMC_A_FABRIC_MC_LIMIT, limit };

	return cumc_nl_do(nl, CUMC_CMD_FABRIC_SET, &attr, 1);
}

int cumc_nl_fm_set(struct cumc_nl *nl, enum cumc_fm_mode mode,
		   uint32_t timeout_ms)
{
	const struct cumc_nl_u32 attrs[] = {
		{ CUMC_A_FM_MODE, mode },
		{ CUMC_A_FM_TIMEOUT_MS, timeout_ms },
	};

	return cumc_nl_do(nl, CUMC_CMD_FM_SET, attrs, timeout_ms ? 2 : 1);
}

int cumc_nl_fm_respond(struct cumc_nl *nl, uint32_t req_id,
		       enum cumc_fm_result result)
{
	const struct cumc_nl_u32 attrs[] = {
		{ CUMC_A_FM_REQ_ID, req_id },
		{ CUMC_A_FM_RESULT, result },
	};

	return cumc_nl_do(nl, CUMC_CMD_FM_RESPOND, attrs, 2);
}

struct cumc_nl_fm {
	uint32_t mode, timeout_ms;
	int found;
};

static int cumc_nl_fm_reply(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[CUMC_A_MAX + 1];
	struct cumc_nl_fm *fm = arg;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, CUMC_A_MAX, NULL) ||
	    !tb[CUMC_A_FM_MODE] || !tb[CUMC_A_FM_TIMEOUT_MS])
		return NL_SKIP;
	fm->mode = nla_get_u32(tb[CUMC_A_FM_MODE]);
	fm->timeout_ms = nla_get_u32(tb[CUMC_A_FM_TIMEOUT_MS]);
	fm->found = 1;
	return NL_OK;
}

int cumc_nl_fm_get(struct cumc_nl *nl, enum cumc_fm_mode *mode,
		   uint32_t *timeout_ms)
{
	struct cumc_nl_fm fm = { 0 };
	int err;

	err = cumc_nl_transact(nl, cumc_nl_msg(nl, CUMC_CMD_FM_GET, 0),
			       cumc_nl_fm_reply, &fm);
	if (!err && !fm.found)
		err = -EPROTO;
	if (!err) {
		*mode = fm.mode;
		*timeout_ms = fm.timeout_ms;
	}
	return err;
}

static int cumc_nl_fabric_reply(struct nl_msg *msg, void *arg)
{
	static const struct nla_policy policy[CUMC_A_MAX + 1] = {
		[CUMC_A_FABRIC_NODE] = { .type = NLA_U32 },
		[CUMC_A_FABRIC_CLUSTER_UUID] = { .minlen = 16 },
		[CUMC_A_FABRIC_CLIQUE_ID] = { .type = NLA_U32 },
		[CUMC_A_FABRIC_STATE] = { .type = NLA_U32 },
		[CUMC_A_IMEX_ATTACHED] = { .type = NLA_FLAG },
		[CUMC_A_FABRIC_MC_LIMIT] = { .type = NLA_U32 },
		[CUMC_A_FABRIC_MC_TEAMS] = { .type = NLA_U32 },
	};
	struct nlattr *tb[CUMC_A_MAX + 1];
	struct cumc_nl_fabric *f = arg;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, CUMC_A_MAX, policy))
		return NL_SKIP;
	if (tb[CUMC_A_FABRIC_NODE]) {
		f->node = nla_get_u32(tb[CUMC_A_FABRIC_NODE]);
		f->has_node = true;
	}
	if (tb[CUMC_A_FABRIC_CLUSTER_UUID]) {
		memcpy(f->cluster_uuid, nla_data(tb[CUMC_A_FABRIC_CLUSTER_UUID]),
		       sizeof(f->cluster_uuid));
		f->has_cluster_uuid = true;
	}
	if (tb[CUMC_A_FABRIC_CLIQUE_ID])
		f->clique_id = nla_get_u32(tb[CUMC_A_FABRIC_CLIQUE_ID]);
	if (tb[CUMC_A_FABRIC_STATE])
		f->state = nla_get_u32(tb[CUMC_A_FABRIC_STATE]);
	f->imex_attached = tb[CUMC_A_IMEX_ATTACHED];
	if (tb[CUMC_A_FABRIC_MC_LIMIT]) {
		f->mc_limit = nla_get_u32(tb[CUMC_A_FABRIC_MC_LIMIT]);
		f->has_mc_limit = true;
	}
	if (tb[CUMC_A_FABRIC_MC_TEAMS])
		f->mc_teams = nla_get_u32(tb[CUMC_A_FABRIC_MC_TEAMS]);
	return NL_OK;
}

int cumc_nl_fabric_get(struct cumc_nl *nl, struct cumc_nl_fabric *fabric)
{
	memset(fabric, 0, sizeof(*fabric));
	return cumc_nl_transact(nl, cumc_nl_msg(nl, CUMC_CMD_FABRIC_GET, 0),
				cumc_nl_fabric_reply, fabric);
}

struct cumc_nl_stat {
	int attr;
	uint64_t value;
	bool found;
};

static int cumc_nl_stat_reply(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[CUMC_A_MAX + 1];
	struct cumc_nl_stat *stat = arg;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, CUMC_A_MAX, NULL))
		return NL_SKIP;
	/* The fabric's row is the one that names no device. */
	if (tb[CUMC_A_DEV_ORDINAL] || !tb[stat->attr] ||
	    nla_len(tb[stat->attr]) != sizeof(uint64_t))
		return NL_OK;
	stat->value = nla_get_u64(tb[stat->attr]);
	stat->found = true;
	return NL_OK;
}

int cumc_nl_fabric_stat(struct cumc_nl *nl, int attr, uint64_t *value)
{
	struct cumc_nl_stat stat = { .attr = attr };
	int err;

	if (attr <= 0 || attr > CUMC_A_MAX)
		return -EINVAL;
	err = cumc_nl_transact(nl, cumc_nl_msg(nl, CUMC_CMD_STATS_GET,
					       NLM_F_DUMP),
			       cumc_nl_stat_reply, &stat);
	if (!err && !stat.found)
		err = -ENOENT;
	if (!err)
		*value = stat.value;
	return err;
}

int cumc_nl_imex_attach(struct cumc_nl *nl, nl_recvmsg_msg_cb_t valid,
			void *arg)
{
	return cumc_nl_transact_seq(nl, cumc_nl_msg(nl, CUMC_CMD_IMEX_ATTACH, 0),
				    valid, arg, true);
}

/* A request of @n u32 attributes and, with @len >= 0, an IMEX_PAYLOAD. */
static struct nl_msg *cumc_nl_imex_msg(const struct cumc_nl *nl, uint8_t cmd,
				       const struct cumc_nl_u32 *attrs,
				       size_t n, const void *payload, int len)
{
	struct nl_msg *msg;
	size_t i;

	if (len > CUMC_IMEX_PAYLOAD_MAX)
		return NULL;
	msg = cumc_nl_msg_size(nl, cmd, 0, n * nla_total_size(4) +
			       nla_total_size(len < 0 ? 0 : len));
	for (i = 0; msg && i < n; i++) {
		if (nla_put_u32(msg, attrs[i].attr, attrs[i].value)) {
			nlmsg_free(msg);
			return NULL;
		}
	}
	if (msg && len >= 0 && nla_put(msg, CUMC_A_IMEX_PAYLOAD, len, payload)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

struct cumc_nl_imex_reply {
	uint32_t result;
	void *payload;
	int len;
	int err;
};

static int cumc_nl_imex_call_reply(struct nl_msg *msg, void *arg)
{
	static const struct nla_policy policy[CUMC_A_MAX + 1] = {
		[CUMC_A_IMEX_RESULT] = { .type = NLA_U32 },
		[CUMC_A_IMEX_PAYLOAD] = { .maxlen = CUMC_IMEX_PAYLOAD_MAX },
	};
	struct cumc_nl_imex_reply *r = arg;
	struct nlattr *tb[CUMC_A_MAX + 1];

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, CUMC_A_MAX, policy) ||
	    !tb[CUMC_A_IMEX_RESULT]) {
		r->err = -EPROTO;
		return NL_SKIP;
	}
	r->result = nla_get_u32(tb[CUMC_A_IMEX_RESULT]);
	r->len = -1;
	if (tb[CUMC_A_IMEX_PAYLOAD]) {
		r->len = nla_len(tb[CUMC_A_IMEX_PAYLOAD]);
		memcpy(r->payload, nla_data(tb[CUMC_A_IMEX_PAYLOAD]), r->len);
	}
	r->err = 0;
	return NL_OK;
}

int cumc_nl_imex_call(struct cumc_nl *nl, uint32_t caller, uint32_t op,
		      const void *payload, int len, uint32_t *result,
		      void *reply, int *reply_len)
{
	const struct cumc_nl_u32 attrs[] = {
		{ CUMC_A_IMEX_NODE, caller },
		{ CUMC_A_IMEX_OP, op },
	};
	struct cumc_nl_imex_reply r = { .payload = reply, .err = -EPROTO };
	int err;

	err = cumc_nl_transact(nl, cumc_nl_imex_msg(nl, CUMC_CMD_IMEX_CALL,
						    attrs, 2, payload, len),
			       cumc_nl_imex_call_reply, &r);
	/*
	 * A reply means the call ran and was answered: the ack after it,
	 * lost when the kernel had no memory for it, adds nothing, and
	 * dropping the answer would leave what it names (a hold) to no one.
	 */
	if (!err || !r.err)
		err = r.err;
	if (!err) {
		*result = r.result;
		*reply_len = r.len;
	}
	return err;
}

int cumc_nl_imex_respond(struct cumc_nl *nl, uint32_t req_id,
			 uint32_t result, const void *payload, int len)
{
	const struct cumc_nl_u32 attrs[] = {
		{ CUMC_A_IMEX_REQ_ID, req_id },
		{ CUMC_A_IMEX_RESULT, result },
	};

	return cumc_nl_transact(nl, cumc_nl_imex_msg(nl,
						     CUMC_CMD_IMEX_CALL_RESPOND,
						     attrs, 2, payload, len),
				NULL, NULL);
}

int cumc_nl_imex_node_lost(struct cumc_nl *nl, uint32_t node)
{
	const struct cumc_nl_u32 attrs[] = {
		{ CUMC_A_IMEX_NODE, node },
	};

	return cumc_nl_do(nl, CUMC_CMD_IMEX_NODE_LOST, attrs, 1);
}

int cumc_nl_imex_node_join(struct cumc_nl *nl, uint32_t node)
{
	const struct cumc_nl_u32 attrs[] = {
		{ CUMC_A_IMEX_NODE, node },
	};

	return cumc_nl_do(nl, CUMC_CMD_IMEX_NODE_JOIN, attrs, 1);
}
