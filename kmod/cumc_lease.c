// SPDX-License-Identifier: GPL-2.0
/*
 * Leases between the nodes of a multi-node fabric, and what waits for
 * them to run out.
 *
 * A node maps memory of another node's GPU only under a lease from the
 * node that vouches for it: the node that exported it (an import), or the
 * origin of the team it is bound in (a replica's binding), or, on the
 * origin, the node whose GPU it is. The holder asks for the lease
 * (CUMK_REMOTE_LEASE_RENEW) and counts it from when it asked; the grantor
 * counts it from when the request arrived, which is later. So the holder's
 * lease always ends first, on one clock (both are CLOCK_MONOTONIC, which
 * runs at the same rate on every node here). The holder renews every
 * quarter of lease_ms while it maps anything under the lease, and, the
 * moment its lease runs out without a renewal, its kernel loses the node
 * (cumk_lease_fail()): every mapping of what it vouched for is
 * zapped, with no daemon involved; faults check the lease too
 * (cumc_memory.c). The grantor reuses what it lent a node it lost only
 * after the node's lease ran out plus lease_margin_ms, which covers the
 * holder's timer firing late and zapping (cumk_lease_wait_expire()).
 * Documentation/multinode.md gives the timing argument.
 *
 * The grantor refuses a renewal (-EAGAIN) while a message it posted to
 * the holder has been unanswered for a quarter of lease_ms: a holder that
 * does not take what is taken from it (an unbind, a team failed) loses the
 * lease soon after. A renewal from a node this one lost gets -ESTALE: the
 * holder then loses this node too.
 *
 * The table here is also where a node is marked lost: calls to a lost node
 * fail at once, and its calls here are refused. The losing itself is
 * cumc_remote.c's, which gives cumk_lease_init() its function: the lease
 * timer, a message a node could not take (cumk_lease_post()) and a node
 * saying it lost this one (cumk_lease_fail()) call it from a worker.
 */
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "cumc_internal.h"

static unsigned int lease_ms = 10000;
static unsigned int lease_margin_ms = 5000;

/* A duration in ms, from the parameter's minimum (its arg) to an hour. */
static int cumk_lease_param_set(const char *val, const struct kernel_param *kp,
				unsigned int min)
{
	unsigned int n;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	if (n < min || n > 3600000)
		return -EINVAL;
	WRITE_ONCE(*(unsigned int *)kp->arg, n);
	return 0;
}

static int cumk_lease_ms_set(const char *val, const struct kernel_param *kp)
{
	return cumk_lease_param_set(val, kp, 100);
}

static int cumk_lease_margin_set(const char *val,
				 const struct kernel_param *kp)
{
	return cumk_lease_param_set(val, kp, 0);
}

static const struct kernel_param_ops cumk_lease_ms_ops = {
	.set = cumk_lease_ms_set,
	.get = param_get_uint,
};

static const struct kernel_param_ops cumk_lease_margin_ops = {
	.set = cumk_lease_margin_set,
	.get = param_get_uint,
};

module_param_cb(lease_ms, &cumk_lease_ms_ops, &lease_ms, 0644);
MODULE_PARM_DESC(lease_ms,
		 "How long a node may map another node's memory without hearing from it, in ms (100 to 3600000, default 10000)");
module_param_cb(lease_margin_ms, &cumk_lease_margin_ops, &lease_margin_ms,
		0644);
MODULE_PARM_DESC(lease_margin_ms,
		 "How long after a lost node's lease ran out what it mapped is reused, in ms (default 5000)");

/**
 * struct cumk_lease_node - this node's leases with one other node
 * @lost: the node is lost, until it is back (cumk_lease_node_back())
 * @gen: counts the sessions with the node: what was mapped under an old
 *       one no longer counts in @deps
 * @deps: what this node maps under the node's lease
 * @want: a renewal is wanted even without @deps
 * @until: when this node's lease from it ends; 0: never had one
 * @next_renew: when to renew next
 * @renewing: a renewal is on its way
 * @renew_queued: when it was asked for
 * @renew_ms: for how long
 * @granted: when the lease this node granted it ends
 */
struct cumk_lease_node {
	bool lost;
	u32 gen;
	unsigned int deps;
	bool want;
	ktime_t until;
	ktime_t next_renew;
	bool renewing;
	ktime_t renew_queued;
	unsigned int renew_ms;
	ktime_t granted;
};

/**
 * struct cumk_lease_timer - a lease wait ending when a node's lease does
 * @link: in cumk_lease_timers
 * @wait: the wait it ends one part of
 * @node: the node, which must be lost first
 * @extra_ms: waited past the node's lease and the margin
 * @armed: the node is lost: @at is known
 * @at: when the wait's part is done: the lease the node had when it was
 *      lost, plus the margin and @extra_ms (fixed then: a node back, with
 *      new leases, does not move it)
 */
struct cumk_lease_timer {
	struct list_head link;
	struct cumk_lease_wait *wait;
	u32 node;
	unsigned int extra_ms;
	bool armed;
	ktime_t at;
};

static DEFINE_SPINLOCK(cumk_lease_lock); /* protects the two below; a leaf */
static struct cumk_lease_node cumk_lease_nodes[CUMK_MAX_NODES];
static LIST_HEAD(cumk_lease_timers);
static bool cumk_lease_exiting;

static void cumk_lease_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(cumk_lease_work, cumk_lease_work_fn);

/* How a node is lost (cumc_remote.c's), and the nodes it is to lose. */
static void (*cumk_lease_lose)(u32 node);
static DECLARE_BITMAP(cumk_lease_failing, CUMK_MAX_NODES);
static DEFINE_SPINLOCK(cumk_lease_failing_lock); /* a leaf */
static void cumk_lease_fail_fn(struct work_struct *work);
static DECLARE_WORK(cumk_lease_fail_work, cumk_lease_fail_fn);

unsigned int cumk_lease_ms(void)
{
	return READ_ONCE(lease_ms);
}

/* Look at the table again now. */
static void cumk_lease_kick(void)
{
	mod_delayed_work(system_wq, &cumk_lease_work, 0);
}

static struct cumk_lease_node *cumk_lease_node(u32 node)
{
	return node < CUMK_MAX_NODES ? &cumk_lease_nodes[node] : NULL;
}

bool cumk_lease_lost(u32 node)
{
	struct cumk_lease_node *n = cumk_lease_node(node);

	return !n || READ_ONCE(n->lost);
}

/* When what node @n was granted, lost, is no longer mapped, plus @extra_ms. */
static ktime_t cumk_lease_after(struct cumk_lease_node *n,
				unsigned int extra_ms)
{
	lockdep_assert_held(&cumk_lease_lock);
	return ktime_add_ms(n->granted, READ_ONCE(lease_margin_ms) + extra_ms);
}

/*
 * Mark @node lost: whether it was not yet. Its grant is final from now
 * on: what waits for it to run out knows when.
 */
bool cumk_lease_mark_lost(u32 node)
{
	struct cumk_lease_node *n = cumk_lease_node(node);
	struct cumk_lease_timer *t;
	bool was;

	if (!n)
		return false;
	spin_lock(&cumk_lease_lock);
	was = n->lost;
	WRITE_ONCE(n->lost, true);
	list_for_each_entry(t, &cumk_lease_timers, link) {
		if (t->node != node || t->armed)
			continue;
		t->armed = true;
		t->at = cumk_lease_after(n, t->extra_ms);
	}
	spin_unlock(&cumk_lease_lock);
	/* What waited for its lease to run out may be due now. */
	cumk_lease_kick();
	return !was;
}

/*
 * Node @node, lost, is back, in a new session (IMEX_NODE_JOIN, once both
 * nodes lost each other): what this node mapped under the old one is
 * gone (its objects no longer count), it holds no lease from the node
 * until it asks again, and what waits for the old grant still waits.
 */
void cumk_lease_node_back(u32 node)
{
	struct cumk_lease_node *n = cumk_lease_node(node);

	if (!n)
		return;
	spin_lock(&cumk_lease_lock);
	if (n->lost) {
		n->gen++;
		n->deps = 0;
		n->want = false;
		n->renewing = false;
		WRITE_ONCE(n->until, 0);
		n->next_renew = 0;
		WRITE_ONCE(n->lost, false);
	}
	spin_unlock(&cumk_lease_lock);
}

/*
 * Whether leases ever went between this node and @node, either way: a
 * node with none maps nothing of this one's, nor this one of it.
 */
bool cumk_lease_involved(u32 node)
{
	struct cumk_lease_node *n = cumk_lease_node(node);
	bool involved;

	if (!n)
		return false;
	spin_lock(&cumk_lease_lock);
	involved = n->granted || n->until || n->deps || n->renewing;
	spin_unlock(&cumk_lease_lock);
	return involved;
}

/* Whether this node holds a lease from @node now. */
bool cumk_lease_valid(u32 node)
{
	struct cumk_lease_node *n = cumk_lease_node(node);

	return n && !READ_ONCE(n->lost) &&
	       ktime_before(ktime_get(), READ_ONCE(n->until));
}

/*
 * Something of @node's is mapped under its lease: keep renewing it. The
 * answer is for cumk_lease_put().
 */
u32 cumk_lease_get(u32 node)
{
	struct cumk_lease_node *n = cumk_lease_node(node);
	bool first;
	u32 gen;

	if (WARN_ON(!n))
		return 0;
	spin_lock(&cumk_lease_lock);
	first = !n->deps++;
	gen = n->gen;
	spin_unlock(&cumk_lease_lock);
	if (first)
		cumk_lease_kick();
	return gen;
}

/* What cumk_lease_get() answered @gen is no longer mapped. */
void cumk_lease_put(u32 node, u32 gen)
{
	struct cumk_lease_node *n = cumk_lease_node(node);

	if (WARN_ON(!n))
		return;
	spin_lock(&cumk_lease_lock);
	if (n->gen == gen && !WARN_ON(!n->deps))
		n->deps--;
	spin_unlock(&cumk_lease_lock);
}

/* The lease asked for at @queued, for @ms, was granted. */
static void cumk_lease_extend(struct cumk_lease_node *n, ktime_t queued,
			      unsigned int ms)
{
	ktime_t until = ktime_add_ms(queued, ms);

	lockdep_assert_held(&cumk_lease_lock);
	if (ktime_after(until, n->until))
		WRITE_ONCE(n->until, until);
}

/* Renew @node's lease soon, whether or not anything is mapped under it. */
void cumk_lease_renew_soon(u32 node)
{
	struct cumk_lease_node *n = cumk_lease_node(node);

	if (!n)
		return;
	spin_lock(&cumk_lease_lock);
	n->want = true;
	spin_unlock(&cumk_lease_lock);
	cumk_lease_kick();
}

/*
 * Make sure this node holds a lease from @node for at least half of
 * lease_ms more, asking for one if need be: 0, or a negative errno.
 */
int cumk_lease_ensure(u32 node)
{
	struct cumk_lease_node *n = cumk_lease_node(node);
	unsigned int ms = cumk_lease_ms();
	size_t answer_len;
	ktime_t queued;
	void *answer;
	int ret;

	if (!n)
		return -EHOSTUNREACH;
	if (cumk_lease_lost(node))
		return -EHOSTDOWN;
	if (ktime_after(READ_ONCE(n->until), ktime_add_ms(ktime_get(), ms / 2)))
		return 0;
	ret = cumk_imex_call(node, CUMK_REMOTE_LEASE_RENEW, NULL, 0,
			     msecs_to_jiffies(cumk_team_fm_timeout_ms()),
			     &answer, &answer_len, &queued, NULL);
	kfree(answer);
	if (ret == -EAGAIN)
		return cumk_lease_valid(node) ? 0 : -ETIMEDOUT;
	/* It lost this node: this one loses it too. */
	if (ret == -ESTALE) {
		cumk_lease_fail(node);
		return -EHOSTDOWN;
	}
	if (ret)
		return ret;
	spin_lock(&cumk_lease_lock);
	cumk_lease_extend(n, queued, ms);
	n->next_renew = ktime_add_ms(queued, ms / 4);
	spin_unlock(&cumk_lease_lock);
	return 0;
}

static void cumk_lease_fail_fn(struct work_struct *work)
{
	void (*lose)(u32 node);
	u32 node;

	for (;;) {
		spin_lock(&cumk_lease_failing_lock);
		node = find_first_bit(cumk_lease_failing, CUMK_MAX_NODES);
		if (node < CUMK_MAX_NODES)
			__clear_bit(node, cumk_lease_failing);
		spin_unlock(&cumk_lease_failing_lock);
		if (node >= CUMK_MAX_NODES)
			return;
		lose = READ_ONCE(cumk_lease_lose);
		if (lose)
			lose(node);
	}
}

/*
 * Node @node failed this one (a message it could not take, a lease not
 * renewed in time) or says it lost this one: it is lost, soon, from a
 * worker (the caller may hold any lock).
 */
void cumk_lease_fail(u32 node)
{
	if (node >= CUMK_MAX_NODES || cumk_lease_lost(node) ||
	    READ_ONCE(cumk_lease_exiting))
		return;
	spin_lock(&cumk_lease_failing_lock);
	__set_bit(node, cumk_lease_failing);
	spin_unlock(&cumk_lease_failing_lock);
	schedule_work(&cumk_lease_fail_work);
}

/**
 * struct cumk_lease_posted - what runs with a post's answer
 * @done: the poster's function, or NULL
 * @ctx: its argument
 * @op: the post's op
 */
struct cumk_lease_posted {
	cumk_imex_done_t done;
	void *ctx;
	u32 op;
};

/*
 * A post's answer: 0, it was taken; -EHOSTDOWN or -ENOTCONN, its node is
 * being lost, or this one cut off; -ESTALE, its node lost this one (which
 * loses it too); a renewal may be refused (-EAGAIN). Anything else means
 * the message could not be delivered (the daemon answered it: out of
 * memory, too long), and it would be lost silently: the node fails.
 */
static void cumk_lease_posted(u32 node, int result, const void *answer,
			      size_t len, void *ctx)
{
	struct cumk_lease_posted *p = ctx;

	if (result && result != -EHOSTDOWN && result != -ENOTCONN &&
	    !(p->op == CUMK_REMOTE_LEASE_RENEW && result == -EAGAIN))
		cumk_lease_fail(node);
	if (p->done)
		p->done(node, result, answer, len, p->ctx);
	kfree(p);
}

/*
 * Post @op to node @node (cumk_imex_post()): delivered, or its node is
 * lost; @done, if not NULL, runs with the answer. What a node posts it
 * answers 0 once taken (cumc_remote.c).
 */
void cumk_lease_post(u32 node, u32 op, const void *args, size_t args_len,
		     cumk_imex_done_t done, void *ctx)
{
	struct cumk_lease_posted *p;

	p = kmalloc(sizeof(*p), GFP_KERNEL | __GFP_NOFAIL);
	p->done = done;
	p->ctx = ctx;
	p->op = op;
	cumk_imex_post(node, op, args, args_len, false, cumk_lease_posted, p);
}

/* The answer to a renewal the work asked for. */
static void cumk_lease_renewed(u32 node, int result, const void *answer,
			       size_t len, void *ctx)
{
	struct cumk_lease_node *n = cumk_lease_node(node);

	spin_lock(&cumk_lease_lock);
	n->renewing = false;
	if (!result)
		cumk_lease_extend(n, n->renew_queued, n->renew_ms);
	spin_unlock(&cumk_lease_lock);
	cumk_lease_kick();
}

/*
 * CUMK_REMOTE_LEASE_RENEW from @node: grant it a lease of lease_ms from
 * now, unless it is lost (-ESTALE) or has left a message of this node's
 * unanswered for a quarter of that (-EAGAIN).
 */
int cumk_lease_grant(u32 node)
{
	struct cumk_lease_node *n = cumk_lease_node(node);
	unsigned int ms = cumk_lease_ms();
	ktime_t now = ktime_get(), oldest;
	int ret = 0;

	if (!n)
		return -EINVAL;
	oldest = cumk_imex_oldest_unanswered(node);
	if (oldest && ktime_ms_delta(now, oldest) > ms / 4)
		return -EAGAIN;
	spin_lock(&cumk_lease_lock);
	if (n->lost)
		ret = -ESTALE;
	else if (ktime_after(ktime_add_ms(now, ms), n->granted))
		n->granted = ktime_add_ms(now, ms);
	spin_unlock(&cumk_lease_lock);
	return ret;
}

/* Set @w up with one part pending, its setter's: see cumk_lease_wait_done(). */
void cumk_lease_wait_init(struct cumk_lease_wait *w,
			  void (*release)(struct cumk_lease_wait *w))
{
	atomic_set(&w->pending, 1);
	w->release = release;
}

/* One more part for @w to wait for. */
void cumk_lease_wait_add(struct cumk_lease_wait *w)
{
	atomic_inc(&w->pending);
}

/* One part of @w is done: the last releases it. */
void cumk_lease_wait_done(struct cumk_lease_wait *w)
{
	if (atomic_dec_and_test(&w->pending))
		w->release(w);
}

/*
 * One part of @w, counted already (cumk_lease_wait_init()'s or one
 * cumk_lease_wait_add() made), is done once @node is lost and the lease it
 * had from this node, plus the margin and @extra_ms, ran out: now (in the
 * caller's context) when that is so already. The caller must not also end
 * that part itself: the wait would be released early, and the timer
 * would end a part of freed memory.
 */
void cumk_lease_wait_expire(struct cumk_lease_wait *w, u32 node,
			    unsigned int extra_ms)
{
	struct cumk_lease_timer *t;

	t = kzalloc(sizeof(*t), GFP_KERNEL | __GFP_NOFAIL);
	t->wait = w;
	t->node = node < CUMK_MAX_NODES ? node : 0;
	t->extra_ms = extra_ms;
	spin_lock(&cumk_lease_lock);
	/* Lost already: its grant is final. */
	if (cumk_lease_nodes[t->node].lost) {
		t->armed = true;
		t->at = cumk_lease_after(&cumk_lease_nodes[t->node], extra_ms);
		/* Over already (it was never granted one): done now. */
		if (!ktime_before(ktime_get(), t->at)) {
			spin_unlock(&cumk_lease_lock);
			kfree(t);
			cumk_lease_wait_done(w);
			return;
		}
	}
	list_add_tail(&t->link, &cumk_lease_timers);
	spin_unlock(&cumk_lease_lock);
	cumk_lease_kick();
}

/* The earlier of @a and @b; KTIME_MAX stands for never. */
static ktime_t cumk_ktime_min(ktime_t a, ktime_t b)
{
	return ktime_before(a, b) ? a : b;
}

/*
 * Renew the leases due, lose the nodes whose lease this node let run out,
 * end the waits that are over; then sleep until the next of these.
 */
static void cumk_lease_work_fn(struct work_struct *work)
{
	DECLARE_BITMAP(renew, CUMK_MAX_NODES);
	DECLARE_BITMAP(expired, CUMK_MAX_NODES);
	unsigned int ms = cumk_lease_ms();
	ktime_t now = ktime_get(), next = KTIME_MAX;
	struct cumk_lease_timer *t, *tn;
	LIST_HEAD(due);
	u32 node;

	bitmap_zero(renew, CUMK_MAX_NODES);
	bitmap_zero(expired, CUMK_MAX_NODES);
	spin_lock(&cumk_lease_lock);
	for (node = 0; node < CUMK_MAX_NODES && !cumk_lease_exiting; node++) {
		struct cumk_lease_node *n = &cumk_lease_nodes[node];

		if (n->lost || (!n->deps && !n->want))
			continue;
		if (n->deps && !ktime_before(now, n->until)) {
			__set_bit(node, expired);
			continue;
		}
		if (n->deps)
			next = cumk_ktime_min(next, n->until);
		if (n->renewing)
			continue;
		if (n->want || !ktime_before(now, n->next_renew)) {
			__set_bit(node, renew);
			n->want = false;
			n->renewing = true;
			n->renew_queued = now;
			n->renew_ms = ms;
			n->next_renew = ktime_add_ms(now, ms / 4);
		} else {
			next = cumk_ktime_min(next, n->next_renew);
		}
	}
	list_for_each_entry_safe(t, tn, &cumk_lease_timers, link) {
		/* A node not lost may still be granted more: wait for it. */
		if (!t->armed && !cumk_lease_exiting)
			continue;
		if (ktime_before(now, t->at) && !cumk_lease_exiting) {
			next = cumk_ktime_min(next, t->at);
			continue;
		}
		list_move_tail(&t->link, &due);
	}
	if (next != KTIME_MAX && !cumk_lease_exiting)
		mod_delayed_work(system_wq, &cumk_lease_work,
				 nsecs_to_jiffies(ktime_to_ns(ktime_sub(next, now))) + 1);
	spin_unlock(&cumk_lease_lock);

	for_each_set_bit(node, renew, CUMK_MAX_NODES)
		cumk_lease_post(node, CUMK_REMOTE_LEASE_RENEW, NULL, 0,
				cumk_lease_renewed, NULL);
	for_each_set_bit(node, expired, CUMK_MAX_NODES) {
		pr_info("cumc: node %u: the lease from it ran out: lost\n",
			node);
		cumk_lease_fail(node);
	}
	list_for_each_entry_safe(t, tn, &due, link) {
		list_del(&t->link);
		cumk_lease_wait_done(t->wait);
		kfree(t);
	}
}

/* @lose loses a node, from a worker: see cumk_lease_fail(). */
void cumk_lease_init(void (*lose)(u32 node))
{
	WRITE_ONCE(cumk_lease_lose, lose);
}

/*
 * At unload: from now on whatever waits for a lease to run out is
 * released at once (cumk_lease_drain()); no node can use this one's
 * memory any more, and none is lost any more.
 */
void cumk_lease_exit(void)
{
	spin_lock(&cumk_lease_lock);
	WRITE_ONCE(cumk_lease_exiting, true);
	spin_unlock(&cumk_lease_lock);
	cancel_delayed_work_sync(&cumk_lease_work);
	WRITE_ONCE(cumk_lease_lose, NULL);
	cancel_work_sync(&cumk_lease_fail_work);
}

/* At unload, release what waits: whether anything did. */
bool cumk_lease_drain(void)
{
	bool any;

	spin_lock(&cumk_lease_lock);
	any = !list_empty(&cumk_lease_timers);
	spin_unlock(&cumk_lease_lock);
	cumk_lease_work_fn(&cumk_lease_work.work);
	cancel_delayed_work_sync(&cumk_lease_work);
	return any;
}
