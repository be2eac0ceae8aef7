// SPDX-License-Identifier: GPL-2.0
/*
 * The node's IMEX daemon (tools/cumc-imex.c) and the calls it carries.
 *
 * On a multi-node fabric, a node's kernel asks another node's kernel for
 * what only that one knows (what a fabric handle it exported names) the
 * way the real driver does: through the IMEX daemons of the two nodes. The
 * daemon attaches with IMEX_ATTACH; a call goes to it as IMEX_CALL_REQ,
 * unicast, and comes back as IMEX_CALL_RESPOND. The caller sleeps, killably
 * and for at most the fabric manager's timeout, and then gives up: an
 * answer that comes later finds no call (ENOENT). When the daemon's socket
 * closes (cumc_remote.c hears of it), every waiting call fails with
 * ENOTCONN, and calls fail so until a daemon attaches again.
 */
#include <linux/completion.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/genetlink.h>

#include "cumc_internal.h"

/**
 * struct cumk_imex_call - a call waiting for its answer
 * @node: the node it is for
 * @done: completed by whoever takes it out of cumk_imex_calls first, the
 *        answer, a failure or the caller giving up, after filling in the
 *        rest
 * @result: 0 or a negative errno
 * @answer: the answer's bytes (kmalloc'd), taken by the caller
 * @answer_len: their number
 */
struct cumk_imex_call {
	u32 node;
	struct completion done;
	int result;
	void *answer;
	size_t answer_len;
};

/* Call id -> struct cumk_imex_call; its xa_lock is a leaf. */
static DEFINE_XARRAY_ALLOC1(cumk_imex_calls);
static u32 cumk_imex_next_id; /* under cumk_imex_calls' lock */

static DEFINE_MUTEX(cumk_imex_lock); /* protects the daemon's attachment */
static bool cumk_imex_daemon;
static u32 cumk_imex_portid;

/* Take call @id out of the table, if it is still there, and finish it. */
static void cumk_imex_finish(u32 id, int result, void *answer, size_t len)
{
	struct cumk_imex_call *call = xa_erase(&cumk_imex_calls, id);

	if (!call) {
		kfree(answer);
		return;
	}
	call->result = result;
	call->answer = answer;
	call->answer_len = len;
	complete(&call->done);
}

/* Fail every waiting call for which @match is true. */
static void cumk_imex_fail_matching(bool (*match)(struct cumk_imex_call *,
						  u32), u32 arg, int result)
{
	struct cumk_imex_call *call;
	unsigned long id;

	xa_for_each(&cumk_imex_calls, id, call)
		if (match(call, arg))
			cumk_imex_finish(id, result, NULL, 0);
}

static bool cumk_imex_any(struct cumk_imex_call *call, u32 unused)
{
	return true;
}

static bool cumk_imex_for_node(struct cumk_imex_call *call, u32 node)
{
	return call->node == node;
}

/* Node @node is lost: calls to it fail now rather than at their timeout. */
void cumk_imex_fail_node(u32 node)
{
	cumk_imex_fail_matching(cumk_imex_for_node, node, -EHOSTDOWN);
}

/* The socket @portid becomes the node's daemon (-EBUSY: there is one). */
int cumk_imex_attach(u32 portid)
{
	int ret = 0;

	mutex_lock(&cumk_imex_lock);
	if (cumk_imex_daemon && cumk_imex_portid != portid) {
		ret = -EBUSY;
	} else {
		cumk_imex_daemon = true;
		cumk_imex_portid = portid;
	}
	mutex_unlock(&cumk_imex_lock);
	return ret;
}

bool cumk_imex_attached(void)
{
	bool attached;

	mutex_lock(&cumk_imex_lock);
	attached = cumk_imex_daemon;
	mutex_unlock(&cumk_imex_lock);
	return attached;
}

/*
 * The netlink socket @portid closed: if it was the daemon's, the daemon is
 * gone and every waiting call fails. Whether it was.
 */
bool cumk_imex_detach(u32 portid)
{
	bool gone;

	mutex_lock(&cumk_imex_lock);
	gone = cumk_imex_daemon && cumk_imex_portid == portid;
	if (gone)
		cumk_imex_daemon = false;
	mutex_unlock(&cumk_imex_lock);
	if (gone)
		cumk_imex_fail_matching(cumk_imex_any, 0, -ENOTCONN);
	return gone;
}

/* IMEX_CALL_REQ for call @id to the daemon, if one is attached. */
static int cumk_imex_send(u32 id, u32 node, u32 op, const void *args,
			  size_t args_len)
{
	struct sk_buff *msg;
	void *hdr;
	int ret;

	msg = genlmsg_new(nla_total_size(args_len) + 3 * nla_total_size(4),
			  GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = cumk_notify_put_request(msg, CUMC_CMD_IMEX_CALL_REQ);
	if (!hdr || nla_put_u32(msg, CUMC_A_IMEX_REQ_ID, id) ||
	    nla_put_u32(msg, CUMC_A_IMEX_NODE, node) ||
	    nla_put_u32(msg, CUMC_A_IMEX_OP, op) ||
	    nla_put(msg, CUMC_A_IMEX_PAYLOAD, args_len, args)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	mutex_lock(&cumk_imex_lock);
	if (cumk_imex_daemon) {
		ret = cumk_notify_unicast(msg, hdr, cumk_imex_portid);
	} else {
		nlmsg_free(msg);
		ret = -ENOTCONN;
	}
	mutex_unlock(&cumk_imex_lock);
	/* A daemon that cannot take the request is as good as none. */
	return ret == -EAGAIN || ret == -ECONNREFUSED ? -ENOTCONN : ret;
}

/*
 * Run call @op with @args on node @node's kernel and wait for its answer:
 * 0 and the answer's bytes in *@answer (kfree() them), or a negative
 * errno: the other kernel's, ENOTCONN (no daemon here), EHOSTUNREACH (the
 * node is not in this node's IMEX domain), EHOSTDOWN (it is lost),
 * ETIMEDOUT (no answer within fm_timeout_ms), EINTR (the caller was
 * killed).
 */
int cumk_imex_call(u32 node, u32 op, const void *args, size_t args_len,
		   void **answer, size_t *answer_len)
{
	unsigned long timeout = msecs_to_jiffies(cumk_team_fm_timeout_ms());
	struct cumk_imex_call *call;
	long left;
	u32 id;
	int ret;

	if (args_len > CUMC_IMEX_PAYLOAD_MAX)
		return -E2BIG;
	call = kzalloc(sizeof(*call), CUMC_GFP);
	if (!call)
		return -ENOMEM;
	call->node = node;
	init_completion(&call->done);
	ret = xa_alloc_cyclic(&cumk_imex_calls, &id, call, xa_limit_32b,
			      &cumk_imex_next_id, CUMC_GFP);
	if (ret < 0)
		goto out_free;
	ret = cumk_imex_send(id, node, op, args, args_len);
	if (ret) {
		cumk_imex_finish(id, ret, NULL, 0);
		wait_for_completion(&call->done);
		goto out_free;
	}
	left = wait_for_completion_killable_timeout(&call->done, timeout);
	if (left <= 0) {
		cumk_imex_finish(id, left ? -EINTR : -ETIMEDOUT, NULL, 0);
		/* Whoever finished it has completed it, or is about to. */
		wait_for_completion(&call->done);
	}
	ret = call->result;
	*answer = call->answer;
	*answer_len = call->answer_len;
out_free:
	kfree(call);
	return ret;
}

/* Run call @op on node @node's kernel, not waiting for it: best effort. */
void cumk_imex_cast(u32 node, u32 op, const void *args, size_t args_len)
{
	cumk_imex_send(0, node, op, args, args_len);
}

/* IMEX_CALL_RESPOND: -ENOENT when call @id is no longer waiting. */
int cumk_imex_respond(u32 id, int result, const void *answer, size_t len)
{
	void *copy = NULL;

	if (!xa_load(&cumk_imex_calls, id))
		return -ENOENT;
	if (len) {
		copy = kmemdup(answer, len, GFP_KERNEL);
		if (!copy)
			result = -ENOMEM;
	}
	cumk_imex_finish(id, result, copy, copy ? len : 0);
	return 0;
}

/* At unload, after the family is gone: no call can be left. */
void cumk_imex_exit(void)
{
	WARN_ON(!xa_empty(&cumk_imex_calls));
}
