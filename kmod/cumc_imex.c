// SPDX-License-Identifier: GPL-2.0
/*
 * The node's IMEX daemon (tools/cumc-imex.c) and the calls it carries.
 *
 * On a multi-node fabric, a node's kernel asks another node's kernel for
 * what only that one knows (what a fabric handle it exported names) the
 * way the real driver does: through the IMEX daemons of the two nodes. The
 * daemon attaches with IMEX_ATTACH; a call goes to it as IMEX_CALL_REQ,
 * unicast, and comes back as IMEX_CALL_RESPOND.
 *
 * Every message to a node goes through that node's queue, in order: the
 * daemon keeps the order on its connection, so the other kernel runs them
 * in the order they were made. A message the daemon's socket cannot take
 * now (its buffer full: -EAGAIN, or the imex-send fault) stays at the head
 * of its queue and is sent again later, the ones behind it waiting: none
 * is dropped, none overtakes another. Every message has an id and is
 * answered, so that the sender knows it arrived:
 *
 * - A call (cumk_imex_call()) has a caller sleeping, killably and for a
 *   limit the caller gives, for its answer. A caller that gives up before
 *   the call was sent takes it off the queue: it never happened. One that
 *   gives up later leaves it in the table, abandoned: its answer, when it
 *   comes, goes to the function the caller gave for that, which undoes
 *   what it did (cumc_remote.c lets go of a hold such an answer names).
 * - A post (cumk_imex_post()) has nobody waiting: a function runs with its
 *   answer, never in the poster's context (which may hold an object's
 *   lock), always exactly once: with the answer, or with -EHOSTDOWN when
 *   its node is lost, -ENOTCONN when the daemon goes.
 *
 * Messages to a node that is lost (cumk_imex_fail_node()) fail at once
 * (-EHOSTDOWN), and every one waiting on it fails when it is lost; when
 * the daemon's socket closes (cumc_remote.c hears of it), every message
 * fails with ENOTCONN, and messages fail so until a daemon attaches again.
 * This file calls nothing of the layers above it: what to do with an
 * answer is the caller's function's.
 */
#include <linux/completion.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/genetlink.h>

#include "cumc_internal.h"

/**
 * struct cumk_imex_call - a message to another node's kernel, until answered
 * @link: in its node's queue while unsent (under cumk_imex_lock); in a
 *        private list while it is being finished
 * @id: its entry in cumk_imex_calls, the IMEX_REQ_ID the daemon quotes
 * @node: the node it is for
 * @op: enum cumk_remote_op
 * @args: its arguments (kvmalloc'd) until sent
 * @args_len: their bytes
 * @queued: when it was queued: a lease granted by its answer starts here
 * @sent: the daemon took it (under cumk_imex_lock)
 * @post: nobody waits for it
 * @bypass: goes to its node even when that node is lost (CUMK_REMOTE_BYE)
 * @done: for a post, what runs with its answer; for a call, what runs with
 *        an answer that comes after its caller gave up, or NULL
 * @ctx: @done's argument
 * @abandoned: a call whose caller gave up after it was sent; set under the
 *             table's lock while the call is in it
 * @completion: a call's caller waits on it
 * @result: 0 or a negative errno, set by whoever finishes it
 * @answer: the answer's bytes (kmalloc'd)
 * @answer_len: their number
 *
 * Whoever takes a message out of cumk_imex_calls finishes it: completes a
 * waiting caller (who frees it), or runs @done or the late answer's undoing
 * and frees it.
 */
struct cumk_imex_call {
	struct list_head link;
	u32 id;
	u32 node;
	u32 op;
	void *args;
	size_t args_len;
	ktime_t queued;
	bool sent;
	bool post;
	bool bypass;
	cumk_imex_done_t done;
	void *ctx;
	bool abandoned;
	struct completion completion;
	int result;
	void *answer;
	size_t answer_len;
};

/* Call id -> struct cumk_imex_call; its xa_lock is a leaf. */
static DEFINE_XARRAY_ALLOC1(cumk_imex_calls);
static u32 cumk_imex_next_id; /* under cumk_imex_calls' lock */

/*
 * Protects the daemon's attachment and the queues; taken under an object's
 * lock (messages are posted under it), before cumk_imex_calls' xa_lock and
 * the lease table's lock, and around the unicast.
 */
static DEFINE_MUTEX(cumk_imex_lock);
static bool cumk_imex_daemon;
static u32 cumk_imex_portid;
static struct list_head cumk_imex_queues[CUMK_MAX_NODES];
/* Nodes lost: nothing goes to them but what bypasses. */
static DECLARE_BITMAP(cumk_imex_lost, CUMK_MAX_NODES);
/* Messages that failed before being sent, finished by the work. */
static LIST_HEAD(cumk_imex_failed);
static unsigned int cumk_imex_backoff_ms;

/* Resending what the daemon could not take, and finishing failures. */
static void cumk_imex_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(cumk_imex_work, cumk_imex_work_fn);

#define CUMK_IMEX_BACKOFF_MIN_MS 5
#define CUMK_IMEX_BACKOFF_MAX_MS 500

static void cumk_imex_free(struct cumk_imex_call *call)
{
	kvfree(call->args);
	kfree(call->answer);
	kfree(call);
}

/*
 * Finish @call, which its finisher took out of the table, with @result
 * and @answer (taken over).
 */
static void cumk_imex_finish(struct cumk_imex_call *call, int result,
			     void *answer, size_t len)
{
	call->result = result;
	call->answer = answer;
	call->answer_len = answer ? len : 0;
	if (call->abandoned) {
		if (call->done)
			call->done(call->node, result, call->answer,
				   call->answer_len, call->ctx);
		cumk_imex_free(call);
	} else if (call->post) {
		if (call->done)
			call->done(call->node, result, call->answer,
				   call->answer_len, call->ctx);
		cumk_imex_free(call);
	} else {
		complete(&call->completion);
	}
}

/* Finish every call of @list (linked by @link) with @result. */
static void cumk_imex_finish_list(struct list_head *list, int result)
{
	struct cumk_imex_call *call, *next;

	list_for_each_entry_safe(call, next, list, link) {
		list_del(&call->link);
		cumk_imex_finish(call, result, NULL, 0);
	}
}

/*
 * IMEX_CALL_REQ of @call, with its @args, to the daemon: 0, or why it could
 * not take it. Once it took it, @call may be answered and freed at any
 * moment: nothing here reads @call after the send.
 */
static int cumk_imex_unicast(struct cumk_imex_call *call, const void *args)
{
	struct sk_buff *msg;
	void *hdr;

	lockdep_assert_held(&cumk_imex_lock);
	/* As a daemon whose socket buffer is full. */
	if (cumk_fault_hit(CUMC_FAULT_IMEX_SEND, NULL))
		return -EAGAIN;
	msg = genlmsg_new(nla_total_size(call->args_len) + 3 * nla_total_size(4),
			  GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = cumk_notify_put_request(msg, CUMC_CMD_IMEX_CALL_REQ);
	if (!hdr || nla_put_u32(msg, CUMC_A_IMEX_REQ_ID, call->id) ||
	    nla_put_u32(msg, CUMC_A_IMEX_NODE, call->node) ||
	    nla_put_u32(msg, CUMC_A_IMEX_OP, call->op) ||
	    nla_put(msg, CUMC_A_IMEX_PAYLOAD, call->args_len, args)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return cumk_notify_unicast(msg, hdr, cumk_imex_portid);
}

/*
 * Send what waits for @node, in order, until the daemon takes no more:
 * whether everything went.
 *
 * A message the daemon took may be answered, and its caller or its post's
 * function may free it, before the unicast returns: it leaves the queue
 * and gives up its arguments first, and gets both back only when it was
 * not sent.
 */
static bool cumk_imex_flush_locked(u32 node)
{
	struct list_head *queue = &cumk_imex_queues[node];
	struct cumk_imex_call *call;
	void *args;

	lockdep_assert_held(&cumk_imex_lock);
	while ((call = list_first_entry_or_null(queue, struct cumk_imex_call,
						link))) {
		list_del_init(&call->link);
		args = call->args;
		call->args = NULL;
		xa_lock(&cumk_imex_calls);
		call->sent = true;
		xa_unlock(&cumk_imex_calls);
		if (cumk_imex_unicast(call, args)) {
			xa_lock(&cumk_imex_calls);
			call->sent = false;
			xa_unlock(&cumk_imex_calls);
			call->args = args;
			list_add(&call->link, queue);
			return false;
		}
		kvfree(args);
	}
	return true;
}

/* Try again soon: sooner the first time, then less and less often. */
static void cumk_imex_retry_later(void)
{
	lockdep_assert_held(&cumk_imex_lock);
	cumk_imex_backoff_ms = clamp(cumk_imex_backoff_ms * 2,
				     CUMK_IMEX_BACKOFF_MIN_MS,
				     CUMK_IMEX_BACKOFF_MAX_MS);
	mod_delayed_work(system_wq, &cumk_imex_work,
			 msecs_to_jiffies(cumk_imex_backoff_ms));
}

static void cumk_imex_work_fn(struct work_struct *work)
{
	bool blocked = false;
	LIST_HEAD(failed);
	u32 node;

	mutex_lock(&cumk_imex_lock);
	list_splice_init(&cumk_imex_failed, &failed);
	for (node = 0; node < CUMK_MAX_NODES && cumk_imex_daemon; node++)
		if (!cumk_imex_flush_locked(node))
			blocked = true;
	if (blocked)
		cumk_imex_retry_later();
	else
		cumk_imex_backoff_ms = 0;
	mutex_unlock(&cumk_imex_lock);
	while (!list_empty(&failed)) {
		struct cumk_imex_call *call;

		call = list_first_entry(&failed, struct cumk_imex_call, link);
		list_del(&call->link);
		cumk_imex_finish(call, call->result, NULL, 0);
	}
}

/*
 * Queue @call, in the table already, behind the others for its node and
 * send what can be sent: 0, or why it cannot go (it is still in the
 * table, unsent, for the caller to take out).
 */
static int cumk_imex_queue(struct cumk_imex_call *call)
{
	struct list_head *queue = &cumk_imex_queues[call->node];
	int ret = 0;

	mutex_lock(&cumk_imex_lock);
	if (!cumk_imex_daemon) {
		ret = -ENOTCONN;
	} else if (!call->bypass && test_bit(call->node, cumk_imex_lost)) {
		ret = -EHOSTDOWN;
	} else {
		list_add_tail(&call->link, queue);
		/* Those before it are being sent again later: so is it. */
		if (list_is_singular(queue) && !cumk_imex_flush_locked(call->node))
			cumk_imex_retry_later();
	}
	mutex_unlock(&cumk_imex_lock);
	return ret;
}

/* A new message; NULL when out of memory. */
static struct cumk_imex_call *cumk_imex_new(u32 node, u32 op, const void *args,
					    size_t args_len, gfp_t gfp)
{
	struct cumk_imex_call *call;

	call = kzalloc(sizeof(*call), gfp);
	if (!call)
		return NULL;
	call->node = node;
	call->op = op;
	call->args_len = args_len;
	INIT_LIST_HEAD(&call->link);
	init_completion(&call->completion);
	if (args_len) {
		call->args = kvmalloc(args_len, gfp & ~__GFP_NOFAIL);
		if (!call->args) {
			kfree(call);
			return NULL;
		}
		memcpy(call->args, args, args_len);
	}
	call->queued = ktime_get();
	return call;
}

/* Take @call, not sent, out of the table and its queue: whether it was. */
static bool cumk_imex_take_unsent(struct cumk_imex_call *call)
{
	bool taken = false;

	mutex_lock(&cumk_imex_lock);
	xa_lock(&cumk_imex_calls);
	if (!call->sent && xa_load(&cumk_imex_calls, call->id) == call) {
		__xa_erase(&cumk_imex_calls, call->id);
		list_del_init(&call->link);
		taken = true;
	}
	xa_unlock(&cumk_imex_calls);
	mutex_unlock(&cumk_imex_lock);
	return taken;
}

/*
 * Run call @op with @args on node @node's kernel and wait for its answer,
 * at most @timeout jiffies (MAX_SCHEDULE_TIMEOUT: until it comes or the
 * node is lost): 0 and the answer's bytes in *@answer (kfree() them), or a
 * negative errno: the other kernel's, ENOTCONN (no daemon here),
 * EHOSTUNREACH (the node is not in this node's IMEX domain), EHOSTDOWN (it
 * is lost), ETIMEDOUT (no answer in time), EINTR (the caller was killed).
 * When *@queued is not NULL, it gets when the call was queued. An answer
 * that comes after the caller gave up goes to @late, if not NULL (its
 * context NULL), which undoes what the call did.
 */
int cumk_imex_call(u32 node, u32 op, const void *args, size_t args_len,
		   long timeout, void **answer, size_t *answer_len,
		   ktime_t *queued, cumk_imex_done_t late)
{
	struct cumk_imex_call *call;
	long left;
	u32 id;
	int ret;

	*answer = NULL;
	*answer_len = 0;
	if (args_len > CUMC_IMEX_PAYLOAD_MAX)
		return -E2BIG;
	if (node >= CUMK_MAX_NODES)
		return -EHOSTUNREACH;
	call = cumk_imex_new(node, op, args, args_len, CUMK_GFP);
	if (!call)
		return -ENOMEM;
	if (queued)
		*queued = call->queued;
	call->done = late;
	ret = xa_alloc_cyclic(&cumk_imex_calls, &id, call, xa_limit_32b,
			      &cumk_imex_next_id, CUMK_GFP);
	if (ret < 0) {
		cumk_imex_free(call);
		return ret;
	}
	call->id = id;
	ret = cumk_imex_queue(call);
	if (ret) {
		if (cumk_imex_take_unsent(call)) {
			cumk_imex_free(call);
			return ret;
		}
		/* A loss took it meanwhile and is finishing it. */
		wait_for_completion(&call->completion);
		goto out;
	}
	left = wait_for_completion_killable_timeout(&call->completion, timeout);
	if (left > 0)
		goto out;
	ret = left ? -EINTR : -ETIMEDOUT;
	/* Never sent: it never happened. */
	if (cumk_imex_take_unsent(call)) {
		cumk_imex_free(call);
		return ret;
	}
	xa_lock(&cumk_imex_calls);
	if (xa_load(&cumk_imex_calls, id) == call) {
		/* Its answer, if it comes, is undone by whoever finishes it. */
		call->abandoned = true;
		xa_unlock(&cumk_imex_calls);
		return ret;
	}
	xa_unlock(&cumk_imex_calls);
	/* Finished meanwhile: the answer is there, or about to be. */
	wait_for_completion(&call->completion);
out:
	ret = call->result;
	*answer = call->answer;
	*answer_len = call->answer_len;
	call->answer = NULL;
	cumk_imex_free(call);
	return ret;
}

/*
 * Post @op with @args to node @node: @done runs with the answer, once,
 * later, in another context (with -EHOSTDOWN when the node is lost first,
 * -ENOTCONN when there is no daemon, -ENOMEM when the message could not
 * even be made). A @bypass post goes to a lost node too.
 */
void cumk_imex_post(u32 node, u32 op, const void *args, size_t args_len,
		    bool bypass, cumk_imex_done_t done, void *ctx)
{
	struct cumk_imex_call *call;
	u32 id;
	int ret;

	/* The bookkeeping is small: it is had. */
	call = kzalloc(sizeof(*call), GFP_KERNEL | __GFP_NOFAIL);
	INIT_LIST_HEAD(&call->link);
	init_completion(&call->completion);
	call->node = node;
	call->op = op;
	call->post = true;
	call->bypass = bypass;
	call->done = done;
	call->ctx = ctx;
	call->queued = ktime_get();
	ret = -EMSGSIZE;
	if (args_len > CUMC_IMEX_PAYLOAD_MAX || node >= CUMK_MAX_NODES)
		goto err;
	ret = -ENOMEM;
	call->args_len = args_len;
	if (args_len) {
		call->args = kvmalloc(args_len, GFP_KERNEL);
		if (!call->args)
			goto err;
		memcpy(call->args, args, args_len);
	}
	ret = xa_alloc_cyclic(&cumk_imex_calls, &id, call, xa_limit_32b,
			      &cumk_imex_next_id, GFP_KERNEL);
	if (ret < 0)
		goto err;
	call->id = id;
	ret = cumk_imex_queue(call);
	if (!ret || !cumk_imex_take_unsent(call))
		return;
err:
	call->result = ret;
	mutex_lock(&cumk_imex_lock);
	list_add_tail(&call->link, &cumk_imex_failed);
	mod_delayed_work(system_wq, &cumk_imex_work, 0);
	mutex_unlock(&cumk_imex_lock);
}

/*
 * Take every message for which @node is NO_NODE or its node out of the
 * queues and the table, and finish it with @result.
 */
static void cumk_imex_fail_matching(u32 node, int result)
{
	struct cumk_imex_call *call;
	unsigned long id;
	LIST_HEAD(list);

	mutex_lock(&cumk_imex_lock);
	xa_lock(&cumk_imex_calls);
	/* Read and taken under the lock: no finisher frees one meanwhile. */
	xa_for_each(&cumk_imex_calls, id, call) {
		if (node != CUMK_NO_NODE && call->node != node)
			continue;
		__xa_erase(&cumk_imex_calls, id);
		list_del_init(&call->link);
		list_add_tail(&call->link, &list);
	}
	xa_unlock(&cumk_imex_calls);
	mutex_unlock(&cumk_imex_lock);
	cumk_imex_finish_list(&list, result);
}

/*
 * Node @node is lost: messages to it fail now rather than at their
 * timeout, and from now on at once, but for those that bypass.
 */
void cumk_imex_fail_node(u32 node)
{
	if (node >= CUMK_MAX_NODES)
		return;
	mutex_lock(&cumk_imex_lock);
	__set_bit(node, cumk_imex_lost);
	mutex_unlock(&cumk_imex_lock);
	cumk_imex_fail_matching(node, -EHOSTDOWN);
}

/* Node @node, lost, is back: messages go to it again. */
void cumk_imex_node_back(u32 node)
{
	if (node >= CUMK_MAX_NODES)
		return;
	mutex_lock(&cumk_imex_lock);
	__clear_bit(node, cumk_imex_lost);
	mutex_unlock(&cumk_imex_lock);
}

/*
 * When the oldest post to @node that the daemon took is still unanswered,
 * or 0 when there is none.
 */
ktime_t cumk_imex_oldest_unanswered(u32 node)
{
	struct cumk_imex_call *call;
	ktime_t oldest = 0;
	unsigned long id;

	xa_lock(&cumk_imex_calls);
	xa_for_each(&cumk_imex_calls, id, call)
		if (call->node == node && call->sent && call->post &&
		    (!oldest || ktime_before(call->queued, oldest)))
			oldest = call->queued;
	xa_unlock(&cumk_imex_calls);
	return oldest;
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
 * gone and every message fails. Whether it was.
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
		cumk_imex_fail_matching(CUMK_NO_NODE, -ENOTCONN);
	return gone;
}

/* IMEX_CALL_RESPOND: -ENOENT when call @id is no longer waiting. */
int cumk_imex_respond(u32 id, int result, const void *answer, size_t len)
{
	struct cumk_imex_call *call;
	void *copy = NULL;

	if (len) {
		copy = kmemdup(answer, len, GFP_KERNEL);
		if (!copy)
			result = -ENOMEM;
	}
	xa_lock(&cumk_imex_calls);
	call = xa_load(&cumk_imex_calls, id);
	/* An answer to what was never sent is no answer. */
	if (call && call->sent)
		__xa_erase(&cumk_imex_calls, id);
	else
		call = NULL;
	xa_unlock(&cumk_imex_calls);
	if (!call) {
		kfree(copy);
		return -ENOENT;
	}
	cumk_imex_finish(call, result, copy, len);
	return 0;
}

void cumk_imex_init(void)
{
	u32 node;

	for (node = 0; node < CUMK_MAX_NODES; node++)
		INIT_LIST_HEAD(&cumk_imex_queues[node]);
}

/*
 * Finish what failed before being queued: whether there was any. At
 * unload, what they release may post again: called until there is none.
 */
bool cumk_imex_drain(void)
{
	bool any;

	cancel_delayed_work_sync(&cumk_imex_work);
	mutex_lock(&cumk_imex_lock);
	any = !list_empty(&cumk_imex_failed);
	mutex_unlock(&cumk_imex_lock);
	cumk_imex_work_fn(&cumk_imex_work.work);
	cancel_delayed_work_sync(&cumk_imex_work);
	return any;
}

/* At unload, after the family is gone: what is left fails. */
void cumk_imex_exit(void)
{
	mutex_lock(&cumk_imex_lock);
	cumk_imex_daemon = false;
	mutex_unlock(&cumk_imex_lock);
	cumk_imex_fail_matching(CUMK_NO_NODE, -ENOTCONN);
	cumk_imex_drain();
	WARN_ON(!xa_empty(&cumk_imex_calls));
}
