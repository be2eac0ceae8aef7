// SPDX-License-Identifier: GPL-2.0
/*
 * A multicast object's team: devices join in any order, from any client
 * holding the object; the one that completes the team asks the fabric
 * manager to set it up, and the team leaves FORMING once, for READY or
 * FAILED. Binds and maps wait for that, interruptibly, until the setup's
 * deadline. A member's device falling off the bus fails the team, formed
 * or not.
 *
 *   FORMING --(last device joins, manager answers ok)--> READY
 *   FORMING --(manager answers fail, illegal-state fault)--> FAILED (EIO)
 *   FORMING --(manager answers ok, fabric's MC limit reached)--> FAILED
 *                                                            (ENOSPC)
 *   FORMING, READY --(a member's device is lost)--> FAILED (EIO)
 *
 * A failed team keeps why (@error): its binds and maps fail with it.
 *
 * A team spanning nodes is held by the node that created the object; the
 * others keep a replica that follows it (cumc_remote_mc.c): members join
 * there, and its state comes from there.
 *
 * The in-kernel manager answers at once; an external one (cumc-fm) gets a
 * request on the monitor group and answers through the control plane. As
 * on NVIDIA's fabric, nothing may fail once the request is visible: a lost
 * event or a silent manager only ends in waiters timing out. A
 * FABRIC_STALL fault delays either by its length (a delayed work holding
 * a reference on the object): waiters may time out first, and a retry
 * after the stall finds the team set up.
 *
 * The fabric has room for FABRIC_MC_LIMIT teams at once: this node counts
 * those its kernel set up (READY), from their setup to their freeing;
 * another node's team counts on the node holding it, which sets it up.
 */
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/sched/signal.h>

#include "cumc_internal.h"
#include "cumc_trace.h"

static unsigned int fm_timeout_ms = 5000;
module_param(fm_timeout_ms, uint, 0644);
MODULE_PARM_DESC(fm_timeout_ms,
		 "How long binds and maps wait for a team's setup before failing with ETIMEDOUT (default 5000)");

static enum cumc_fm_mode cumc_fm_mode = CUMC_FM_MODE_KERNEL;

/* FABRIC_SET's limit; the teams counted against it. */
static u32 cumk_team_mc_limit = CUMC_FABRIC_MC_LIMIT_DEFAULT;
static atomic_t cumk_team_mc_teams = ATOMIC_INIT(0);

/*
 * FABRIC_STALL's late answers: the module's own queue, so that unloading
 * waits for an answer still running (its object may be freed in it).
 */
static struct workqueue_struct *cumk_team_wq;

int cumk_team_wq_init(void)
{
	cumk_team_wq = alloc_workqueue("cumc_team", 0, 0);
	return cumk_team_wq ? 0 : -ENOMEM;
}

/* After cumk_team_stop() cancelled every stall still pending. */
void cumk_team_wq_exit(void)
{
	destroy_workqueue(cumk_team_wq);
}

enum cumc_fm_mode cumk_team_fm_mode(void)
{
	return READ_ONCE(cumc_fm_mode);
}

void cumk_team_set_fm_mode(enum cumc_fm_mode mode)
{
	WRITE_ONCE(cumc_fm_mode, mode);
}

u32 cumk_team_fm_timeout_ms(void)
{
	return READ_ONCE(fm_timeout_ms);
}

void cumk_team_set_fm_timeout_ms(u32 ms)
{
	WRITE_ONCE(fm_timeout_ms, ms);
}

u32 cumk_team_mc_limit_get(void)
{
	return READ_ONCE(cumk_team_mc_limit);
}

/* Teams counted already stay: a lower limit holds back new setups only. */
void cumk_team_set_mc_limit(u32 limit)
{
	WRITE_ONCE(cumk_team_mc_limit, limit);
}

u32 cumk_team_mc_count(void)
{
	return atomic_read(&cumk_team_mc_teams);
}

static void cumk_team_stall_end(struct work_struct *work);

void cumk_team_init(struct cumk_mc *mc)
{
	mc->team.state = CUMK_TEAM_FORMING;
	init_waitqueue_head(&mc->team.wq);
	INIT_DELAYED_WORK(&mc->team.stall, cumk_team_stall_end);
}

/* @mc is being freed: the fabric has room for one more team. */
void cumk_team_release(struct cumk_mc *mc)
{
	if (mc->team.counted)
		atomic_dec(&cumk_team_mc_teams);
}

/*
 * Module unload: a stall still pending ends now, without an answer, and
 * lets go of the object. Stalls do not start any more: no client is left;
 * one already running is waited for by cumk_team_wq_exit().
 */
void cumk_team_stop(struct cumk_mc *mc)
{
	if (cancel_delayed_work_sync(&mc->team.stall))
		cumk_object_put(&mc->obj);
}

static void cumk_team_notify(struct cumk_mc *mc, u8 cmd)
{
	cumk_notify_mc(cmd, mc->id, mc->num_devices, mc->length);
}

/* The team leaves FORMING, once, or fails after it (@err: why). */
static void cumk_team_settle(struct cumk_mc *mc, int err)
{
	enum cumc_team_state_uapi old = cumk_team_uapi_state(mc);

	lockdep_assert_held_write(&mc->lock);
	mc->team.error = err;
	/* Pairs with cumk_team_result(): a failed team's error is seen. */
	smp_store_release(&mc->team.state,
			  err ? CUMK_TEAM_FAILED : CUMK_TEAM_READY);
	trace_cumc_team_state(mc->id, old, cumk_team_uapi_state(mc));
	wake_up_all(&mc->team.wq);
	cumk_team_notify(mc, err ? CUMC_CMD_TEAM_FAILED_NTF :
				   CUMC_CMD_TEAM_READY_NTF);
}

/* One more team on the fabric, unless it is full; counted until freed. */
static bool cumk_team_count(struct cumk_mc *mc)
{
	int n = atomic_read(&cumk_team_mc_teams);

	do {
		if (n >= (int)cumk_team_mc_limit_get())
			return false;
	} while (!atomic_try_cmpxchg(&cumk_team_mc_teams, &n, n + 1));
	mc->team.counted = true;
	return true;
}

/* The manager sets the team up, if the fabric has room for it. */
static void cumk_team_set_up(struct cumk_mc *mc)
{
	lockdep_assert_held_write(&mc->lock);
	cumk_team_settle(mc, cumk_team_count(mc) ? 0 : -ENOSPC);
}

/* The manager takes the request: an external one hears of it. */
static void cumk_team_answer(struct cumk_mc *mc)
{
	struct cumk_team *team = &mc->team;

	lockdep_assert_held_write(&mc->lock);
	if (cumk_team_fm_mode() == CUMC_FM_MODE_EXTERNAL) {
		team->fm_pending = true;
		wake_up_all(&team->wq);
		cumk_team_notify(mc, CUMC_CMD_TEAM_SETUP_REQ_NTF);
		return;
	}
	cumk_team_set_up(mc);
}

/*
 * A stall's end: the manager answers now, unless the team left FORMING
 * meanwhile (a member lost). The work's reference goes last, and may be
 * the object's last: nothing waits for this work but module unload.
 */
static void cumk_team_stall_end(struct work_struct *work)
{
	struct cumk_mc *mc = container_of(to_delayed_work(work),
					  struct cumk_mc, team.stall);
	bool settled = false;

	down_write(&mc->lock);
	if (mc->team.state == CUMK_TEAM_FORMING) {
		cumk_team_answer(mc);
		settled = mc->team.state != CUMK_TEAM_FORMING;
	}
	up_write(&mc->lock);
	if (settled && mc->kind->settled)
		mc->kind->settled(mc);
	cumk_object_put(&mc->obj);
}

/* FABRIC_STALL: the manager answers after @delay_ms. */
static void cumk_team_stall(struct cumk_mc *mc, u32 delay_ms)
{
	lockdep_assert_held_write(&mc->lock);
	/* The work's: the object outlives the stall, freed or not by others. */
	kref_get(&mc->obj.ref);
	/* Waiters start counting down to the deadline. */
	wake_up_all(&mc->team.wq);
	queue_delayed_work(cumk_team_wq, &mc->team.stall,
			   msecs_to_jiffies(delay_ms));
}

/* A member of this node whose fabric state is held: its fabric is not up. */
static bool cumk_team_held(struct cumk_mc *mc)
{
	u32 i;

	for (i = 0; i < mc->team.num_members; i++)
		if (!mc->members[i].dev->remote &&
		    cumk_cond_fabric_held(mc->members[i].dev))
			return true;
	return false;
}

/* The last device joined: ask the fabric manager to set the team up. */
static void cumk_team_complete(struct cumk_mc *mc)
{
	struct cumk_team *team = &mc->team;
	u32 delay_ms;

	lockdep_assert_held_write(&mc->lock);
	WRITE_ONCE(team->setup_deadline,
		   jiffies + msecs_to_jiffies(cumk_team_fm_timeout_ms()));
	/* Pairs with cumk_team_setup_requested(): the deadline is seen first. */
	smp_store_release(&team->setup_requested, true);
	if (cumk_fault_hit_mc(CUMC_FAULT_FABRIC_ILLEGAL_STATE, mc)) {
		cumk_team_settle(mc, -EIO);
		return;
	}
	/*
	 * The manager is down, or a member's fabric is not up (DEV_SET holds
	 * its state): the request goes unanswered.
	 */
	if (cumk_fault_hit_mc(CUMC_FAULT_FABRIC_NOT_READY, mc) ||
	    cumk_team_held(mc)) {
		wake_up_all(&team->wq);
		return;
	}
	if (cumk_fault_hit_mc_delay(CUMC_FAULT_FABRIC_STALL, mc, &delay_ms)) {
		cumk_team_stall(mc, delay_ms);
		return;
	}
	cumk_team_answer(mc);
}

/*
 * The slot of this node's device @device in the team, or -EINVAL when it
 * is no member; another node's GPUs have no ordinal here.
 */
int cumk_team_slot(struct cumk_mc *mc, u32 device)
{
	u32 i;

	lockdep_assert_held(&mc->lock);
	for (i = 0; i < mc->team.num_members; i++)
		if (!mc->members[i].dev->remote &&
		    mc->members[i].dev->ordinal == device)
			return i;
	return -EINVAL;
}

/* The slot of @dev, of any node, in the team, or -EINVAL. */
int cumk_team_slot_of(struct cumk_mc *mc, struct cumk_device *dev)
{
	u32 i;

	lockdep_assert_held(&mc->lock);
	for (i = 0; i < mc->team.num_members; i++)
		if (mc->members[i].dev == dev)
			return i;
	return -EINVAL;
}

/* Why @dev cannot join now, or 0. */
static int cumk_team_join_check(struct cumk_mc *mc, struct cumk_device *dev)
{
	lockdep_assert_held(&mc->lock);
	/* Checked under the lock: a loss fails teams under it too. */
	if (cumk_device_check(dev))
		return -ENOLINK;
	if (cumk_team_slot_of(mc, dev) >= 0)
		return -EEXIST;
	if (mc->team.num_members == mc->num_devices)
		return -EINVAL;
	return 0;
}

/*
 * @dev joins, in the next slot, which goes to *@slot; the device that
 * completes the team has it set up.
 */
int cumk_team_join(struct cumk_mc *mc, struct cumk_device *dev, u32 *slot)
{
	struct cumk_team *team = &mc->team;
	int ret;

	down_write(&mc->lock);
	ret = cumk_team_join_check(mc, dev);
	if (!ret) {
		*slot = team->num_members;
		mc->members[team->num_members++].dev = dev;
		if (team->num_members == mc->num_devices)
			cumk_team_complete(mc);
	}
	up_write(&mc->lock);
	return ret;
}

/*
 * The replica of a team another node holds (cumc_remote_mc.c) learns that
 * @dev joined in @slot. Slots may be learnt out of order; the members are
 * the slots filled from the first on. Once all are, the setup is that
 * node's to answer: this one only starts waiting for it.
 */
int cumk_team_place(struct cumk_mc *mc, u32 slot, struct cumk_device *dev)
{
	struct cumk_team *team = &mc->team;
	int ret = 0;

	down_write(&mc->lock);
	if (slot >= mc->num_devices ||
	    (mc->members[slot].dev && mc->members[slot].dev != dev))
		ret = -EPROTO;
	else if (!mc->members[slot].dev && cumk_team_slot_of(mc, dev) >= 0)
		ret = -EPROTO;
	if (ret || mc->members[slot].dev)
		goto out_unlock;
	mc->members[slot].dev = dev;
	while (team->num_members < mc->num_devices &&
	       mc->members[team->num_members].dev)
		team->num_members++;
	if (team->num_members == mc->num_devices && !team->setup_requested) {
		WRITE_ONCE(team->setup_deadline,
			   jiffies + msecs_to_jiffies(cumk_team_fm_timeout_ms()));
		/* Pairs with cumk_team_setup_requested(): deadline first. */
		smp_store_release(&team->setup_requested, true);
		wake_up_all(&team->wq);
	}
out_unlock:
	up_write(&mc->lock);
	return ret;
}

/* The node holding the team says how its setup went, or that it failed. */
void cumk_team_settle_remote(struct cumk_mc *mc, bool ok)
{
	down_write(&mc->lock);
	if (mc->team.state == CUMK_TEAM_FORMING ||
	    (!ok && mc->team.state == CUMK_TEAM_READY))
		cumk_team_settle(mc, ok ? 0 : -EIO);
	up_write(&mc->lock);
}

/*
 * An external fabric manager answers the team's setup request. A late
 * answer still settles the team, for later binds and maps.
 */
int cumk_team_respond(struct cumk_mc *mc, bool ok)
{
	struct cumk_team *team = &mc->team;
	int ret = 0;

	down_write(&mc->lock);
	if (!team->fm_pending) {
		ret = team->setup_requested ? -EALREADY : -ENOENT;
	} else {
		team->fm_pending = false;
		if (team->state == CUMK_TEAM_FORMING && ok)
			cumk_team_set_up(mc);
		else if (team->state == CUMK_TEAM_FORMING)
			cumk_team_settle(mc, -EIO);
	}
	up_write(&mc->lock);
	return ret;
}

/* @dev was lost: if it is one of the members, the team fails (true). */
bool cumk_team_lose_device(struct cumk_mc *mc, struct cumk_device *dev)
{
	bool failed = false;

	down_write(&mc->lock);
	if (cumk_team_slot_of(mc, dev) >= 0 &&
	    mc->team.state != CUMK_TEAM_FAILED) {
		/* No answer is awaited from a manager any more. */
		mc->team.fm_pending = false;
		cumk_team_settle(mc, -EIO);
		failed = true;
	}
	up_write(&mc->lock);
	return failed;
}

static int cumk_team_result(struct cumk_team *team)
{
	/* Pairs with cumk_team_settle(): the error is set before the state. */
	if (smp_load_acquire(&team->state) == CUMK_TEAM_READY)
		return 0;
	return team->error;
}

static bool cumk_team_setup_requested(struct cumk_team *team)
{
	/* Pairs with cumk_team_complete(): then the deadline is set. */
	return smp_load_acquire(&team->setup_requested);
}

static bool cumk_team_formed(struct cumk_team *team)
{
	return READ_ONCE(team->state) != CUMK_TEAM_FORMING;
}

/*
 * Wait, interruptibly, for the team to leave FORMING: without a limit while
 * devices are still to join, then until the setup's deadline, after which
 * the fabric is "not ready" (-ETIMEDOUT).
 */
int cumk_team_wait_ready(struct cumk_mc *mc)
{
	struct cumk_team *team = &mc->team;
	long left;
	int ret;

	if (cumk_team_formed(team))
		return cumk_team_result(team);
	cumk_stat_add(NULL, CUMK_STAT_WAITS, 1);
	ret = wait_event_interruptible(team->wq, cumk_team_formed(team) ||
				       cumk_team_setup_requested(team));
	if (ret)
		return ret;
	left = (long)(READ_ONCE(team->setup_deadline) - jiffies);
	if (left > 0) {
		left = wait_event_interruptible_timeout(team->wq,
							cumk_team_formed(team),
							left);
		if (left < 0)
			return left;
	}
	if (!cumk_team_formed(team))
		return -ETIMEDOUT;
	return cumk_team_result(team);
}

/* The state as the UAPI and the control plane name it. */
enum cumc_team_state_uapi cumk_team_uapi_state(struct cumk_mc *mc)
{
	switch (READ_ONCE(mc->team.state)) {
	case CUMK_TEAM_READY:
		return CUMC_TEAM_STATE_READY;
	case CUMK_TEAM_FAILED:
		return CUMC_TEAM_STATE_FAILED;
	default:
		return CUMC_TEAM_STATE_FORMING;
	}
}
