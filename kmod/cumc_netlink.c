// SPDX-License-Identifier: GPL-2.0
/*
 * The control plane's commands on the generic netlink family "cumc"
 * (uapi/linux/cumc_netlink.h; the family and its events are
 * cumc_notify.c's). Dumps of devices, multicast objects and counters for
 * anyone; fault injection, devices' conditions, the fabric's multicast
 * limit and the fabric manager's mode and answers for CAP_NET_ADMIN.
 * Multicast objects are listed to their owners only (their creator's
 * uid), all of them to CAP_NET_ADMIN.
 *
 * Commands run in parallel (the family has parallel_ops): none holds a
 * lock another waits for while it works, so that another node's call that
 * takes long (a late answer, a bind waiting for a lease) holds back no
 * other user's command; each takes the locks of what it touches.
 *
 * Every refusal says why in the extended ack (NL_SET_ERR_MSG*): the
 * policy's own refusals are the netlink core's, the rest are below. The
 * family answers in every network namespace (Documentation/
 * control-plane.md): reading needs nothing, changing state needs
 * CAP_NET_ADMIN in the initial user namespace, and the IMEX daemon's
 * commands the initial network namespace.
 */
#include <linux/slab.h>
#include <net/genetlink.h>

#include "cumc_internal.h"

static struct netlink_range_validation cumk_nl_fault_value_range = {
	.max = 1000000,
};

static struct netlink_range_validation cumk_nl_mc_limit_range = {
	.min = 1,
	.max = 65536,
};

/* Also FAULT_DELAY_MS's: a stall as long as the longest timeout. */
static struct netlink_range_validation cumk_nl_fm_timeout_range = {
	.min = 1,
	.max = 3600000,
};

/* Only what requests carry is accepted; the rest is output only. */
static const struct nla_policy cumk_nl_policy[CUMC_A_MAX + 1] = {
	[CUMC_A_DEV_ORDINAL] = NLA_POLICY_MAX(NLA_U32, CUMC_MAX_DEVICES - 1),
	[CUMC_A_FAULT_TYPE] = NLA_POLICY_MAX(NLA_U32, CUMC_FAULT_NR - 1),
	[CUMC_A_FAULT_MODE] = NLA_POLICY_MAX(NLA_U32,
					     CUMC_FAULT_MODE_PROBABILITY),
	[CUMC_A_FAULT_VALUE] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &cumk_nl_fault_value_range),
	[CUMC_A_FM_MODE] = NLA_POLICY_MAX(NLA_U32, CUMC_FM_MODE_EXTERNAL),
	[CUMC_A_FM_TIMEOUT_MS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &cumk_nl_fm_timeout_range),
	[CUMC_A_FM_REQ_ID] = { .type = NLA_U32 },
	[CUMC_A_FM_RESULT] = NLA_POLICY_MAX(NLA_U32, CUMC_FM_RESULT_FAIL),
	[CUMC_A_IMEX_REQ_ID] = { .type = NLA_U32 },
	[CUMC_A_IMEX_NODE] = { .type = NLA_U32 },
	[CUMC_A_IMEX_OP] = { .type = NLA_U32 },
	[CUMC_A_IMEX_PAYLOAD] = { .type = NLA_BINARY,
				  .len = CUMC_IMEX_PAYLOAD_MAX },
	[CUMC_A_IMEX_RESULT] = NLA_POLICY_MAX(NLA_U32, MAX_ERRNO),
	[CUMC_A_FAULT_DELAY_MS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &cumk_nl_fm_timeout_range),
	/* DEV_SET's values are checked by the command, with a message. */
	[CUMC_A_FABRIC_STATE] = { .type = NLA_U32 },
	[CUMC_A_FABRIC_HEALTH_MASK] = { .type = NLA_U32 },
	[CUMC_A_DEV_MULTICAST] = NLA_POLICY_MAX(NLA_U32, 1),
	[CUMC_A_DEV_RESET] = { .type = NLA_FLAG },
	[CUMC_A_FABRIC_MC_LIMIT] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &cumk_nl_mc_limit_range),
};

/*
 * Whether the sender may change cumc's state. The devices are the host's,
 * not a namespace's: CAP_NET_ADMIN over a container's own namespaces is
 * not enough (netlink_capable() asks the initial user namespace), as
 * GENL_ADMIN_PERM would, but with a message saying so.
 */
static bool cumk_nl_admin(struct sk_buff *skb, struct genl_info *info)
{
	if (netlink_capable(skb, CAP_NET_ADMIN))
		return true;
	NL_SET_ERR_MSG_MOD(info->extack,
			   "changing cumc's state needs CAP_NET_ADMIN in the initial user namespace");
	return false;
}

/*
 * The IMEX daemon's commands: only from the initial network namespace,
 * where the kernel's requests to the daemon go (cumc_imex.c).
 */
static bool cumk_nl_imex_allowed(struct sk_buff *skb, struct genl_info *info)
{
	if (!cumk_nl_admin(skb, info))
		return false;
	if (net_eq(genl_info_net(info), &init_net))
		return true;
	NL_SET_ERR_MSG_MOD(info->extack,
			   "the IMEX daemon's commands are for the initial network namespace only");
	return false;
}

/* @state, unless DEV_SET holds it at @held (0: not held). */
static int cumk_nl_fill_state(struct sk_buff *skb, u32 state, u32 held)
{
	if (!held)
		return nla_put_u32(skb, CUMC_A_FABRIC_STATE, state);
	if (nla_put_u32(skb, CUMC_A_FABRIC_STATE, held) ||
	    nla_put_flag(skb, CUMC_A_FABRIC_STATE_HELD))
		return -EMSGSIZE;
	return 0;
}

/* The fabric identity every GPU of this node's cluster shares. */
static int cumk_nl_fill_fabric(struct sk_buff *skb, u32 node, u32 held)
{
	u8 cluster[16];
	u32 clique;

	if (!cumk_node_cluster(cluster, &clique))
		return cumk_nl_fill_state(skb, CUMC_FABRIC_STATE_NOT_SUPPORTED,
					  held) ?:
		       nla_put_u32(skb, CUMC_A_FABRIC_NODE, node);
	if (cumk_nl_fill_state(skb, CUMC_FABRIC_STATE_COMPLETED, held) ||
	    nla_put_u32(skb, CUMC_A_FABRIC_NODE, node) ||
	    nla_put(skb, CUMC_A_FABRIC_CLUSTER_UUID, sizeof(cluster), cluster) ||
	    nla_put_u32(skb, CUMC_A_FABRIC_CLIQUE_ID, clique))
		return -EMSGSIZE;
	return 0;
}

/* What DEV_SET changed of @dev, held fabric state aside. */
static int cumk_nl_fill_cond(struct sk_buff *skb, struct cumk_cond *cond)
{
	if (nla_put_u32(skb, CUMC_A_DEV_MULTICAST, !cond->no_multicast) ||
	    (cond->health_mask_set &&
	     nla_put_u32(skb, CUMC_A_FABRIC_HEALTH_MASK, cond->health_mask)))
		return -EMSGSIZE;
	return 0;
}

static int cumk_nl_fill_dev(struct sk_buff *skb, struct cumk_device *dev)
{
	struct cumc_device_info info = { .device = dev->ordinal };
	struct cumk_cond cond;

	cumk_device_describe(dev, &info);
	cumk_cond_read(dev, &cond);
	if (nla_put_u32(skb, CUMC_A_DEV_ORDINAL, dev->ordinal) ||
	    nla_put_string(skb, CUMC_A_DEV_BACKEND, dev->ops->name) ||
	    (cumk_device_check(dev) && nla_put_flag(skb, CUMC_A_DEV_LOST)) ||
	    nla_put(skb, CUMC_A_DEV_UUID, sizeof(info.uuid), info.uuid) ||
	    nla_put_string(skb, CUMC_A_DEV_NAME, info.name) ||
	    nla_put_u32(skb, CUMC_A_DEV_PCI_BUS, info.pci_bus) ||
	    nla_put_u64_64bit(skb, CUMC_A_DEV_MEM_TOTAL, info.mem_total,
			      CUMC_A_PAD) ||
	    nla_put_u64_64bit(skb, CUMC_A_DEV_MEM_FREE, info.mem_free,
			      CUMC_A_PAD) ||
	    cumk_nl_fill_cond(skb, &cond))
		return -EMSGSIZE;
	if (!dev->fabric)
		return cumk_nl_fill_state(skb, CUMC_FABRIC_STATE_NOT_SUPPORTED,
					  cond.held_state);
	return cumk_nl_fill_fabric(skb, dev->node, cond.held_state);
}

/*
 * DEV_SET's request as a change: FABRIC_STATE NOT_STARTED or IN_PROGRESS
 * holds the state there, COMPLETED lets go; nothing else is a state a
 * fabric could be held at.
 */
static int cumk_nl_dev_set_parse(struct genl_info *info,
				 struct cumk_cond_change *c)
{
	struct nlattr **tb = info->attrs;
	u32 state;

	c->reset = nla_get_flag(tb[CUMC_A_DEV_RESET]);
	if (tb[CUMC_A_FABRIC_STATE]) {
		state = nla_get_u32(tb[CUMC_A_FABRIC_STATE]);
		if (state != CUMC_FABRIC_STATE_NOT_STARTED &&
		    state != CUMC_FABRIC_STATE_IN_PROGRESS &&
		    state != CUMC_FABRIC_STATE_COMPLETED) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    tb[CUMC_A_FABRIC_STATE],
					    "fabric-state is held at not-started or in-progress, or let go with completed");
			return -EINVAL;
		}
		c->set_state = true;
		c->held_state = state == CUMC_FABRIC_STATE_COMPLETED ? 0 :
				state;
	}
	if (tb[CUMC_A_FABRIC_HEALTH_MASK]) {
		c->set_health_mask = true;
		c->health_mask = nla_get_u32(tb[CUMC_A_FABRIC_HEALTH_MASK]);
	}
	if (tb[CUMC_A_DEV_MULTICAST]) {
		c->set_multicast = true;
		c->multicast = nla_get_u32(tb[CUMC_A_DEV_MULTICAST]);
	}
	return 0;
}

/* One device's conditions, or every device's of this node. */
static int cumk_nl_dev_set(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *ordinal = info->attrs[CUMC_A_DEV_ORDINAL];
	struct cumk_cond_change c = {};
	struct cumk_device *dev;
	u32 i;
	int ret;

	if (!cumk_nl_admin(skb, info))
		return -EPERM;
	/* All checked before anything changes. */
	ret = cumk_nl_dev_set_parse(info, &c);
	if (ret)
		return ret;
	if (ordinal) {
		dev = cumk_device_find(nla_get_u32(ordinal));
		if (!dev) {
			NL_SET_ERR_MSG_ATTR(info->extack, ordinal,
					    "no device of that ordinal");
			return -ENODEV;
		}
		cumk_cond_apply(dev, &c);
		return 0;
	}
	for (i = 0; (dev = cumk_device_find(i)); i++)
		cumk_cond_apply(dev, &c);
	return 0;
}

/* cb->args[0]: the next device ordinal. */
static int cumk_nl_dev_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct cumk_device *dev;
	void *hdr;

	for (; (dev = cumk_device_find(cb->args[0])); cb->args[0]++) {
		hdr = cumk_notify_put_dump(skb, cb, CUMC_CMD_DEV_GET);
		if (!hdr)
			break;
		if (cumk_nl_fill_dev(skb, dev)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	return skb->len;
}

static int cumk_nl_fill_binds(struct sk_buff *skb, struct cumk_mc *mc,
			      u32 slot)
{
	struct cumk_bind *b;
	struct nlattr *nest;

	for (b = cumk_fabric_first_bind(mc, slot); b;
	     b = cumk_fabric_next_bind(b)) {
		nest = nla_nest_start(skb, CUMC_MEMBER_A_BIND);
		if (!nest ||
		    nla_put_u64_64bit(skb, CUMC_BIND_A_MC_OFFSET, b->mc_offset,
				      CUMC_BIND_A_PAD) ||
		    nla_put_u64_64bit(skb, CUMC_BIND_A_LENGTH, b->length,
				      CUMC_BIND_A_PAD) ||
		    nla_put_u64_64bit(skb, CUMC_BIND_A_MEM_OFFSET,
				      b->mem_offset, CUMC_BIND_A_PAD))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

/* The team state is the UAPI's, as CUMC_MC_INFO answers it. */
static int cumk_nl_fill_mc(struct sk_buff *skb, struct cumk_mc *mc)
{
	struct nlattr *nest;
	u32 i;

	lockdep_assert_held(&mc->lock);
	if (nla_put_u32(skb, CUMC_A_MC_ID, mc->id) ||
	    nla_put_u32(skb, CUMC_A_MC_TEAM_SIZE, mc->num_devices) ||
	    nla_put_u64_64bit(skb, CUMC_A_MC_LENGTH, mc->length, CUMC_A_PAD) ||
	    nla_put_u32(skb, CUMC_A_MC_STATE, cumk_team_uapi_state(mc)) ||
	    (mc->team.fm_pending && nla_put_flag(skb, CUMC_A_MC_FM_PENDING)))
		return -EMSGSIZE;
	for (i = 0; i < mc->team.num_members; i++) {
		nest = nla_nest_start(skb, CUMC_A_MC_MEMBER);
		if (!nest ||
		    nla_put_u32(skb, CUMC_MEMBER_A_DEVICE,
				mc->members[i].dev->ordinal) ||
		    cumk_nl_fill_binds(skb, mc, i))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

/*
 * cb->args[0]: the next object id to look at. A user sees the objects its
 * own clients created; CAP_NET_ADMIN in the initial user namespace sees
 * all, as it may change them.
 */
static int cumk_nl_mc_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	bool all = netlink_capable(cb->skb, CAP_NET_ADMIN);
	kuid_t uid = NETLINK_CB(cb->skb).creds.uid;
	unsigned long id = cb->args[0];
	struct cumk_mc *mc;
	void *hdr;
	int ret;

	while ((mc = cumk_mc_get_next(&id))) {
		if (!all && !cumk_usage_owned_by(mc->obj.usage, uid)) {
			cumk_object_put(&mc->obj);
			id++;
			continue;
		}
		hdr = cumk_notify_put_dump(skb, cb, CUMC_CMD_MC_GET);
		ret = -EMSGSIZE;
		if (hdr) {
			down_read(&mc->lock);
			ret = cumk_nl_fill_mc(skb, mc);
			up_read(&mc->lock);
			if (ret)
				genlmsg_cancel(skb, hdr);
			else
				genlmsg_end(skb, hdr);
		}
		cumk_object_put(&mc->obj);
		if (ret)
			break;
		id++;
	}
	cb->args[0] = id;
	return skb->len;
}

static int cumk_nl_fill_stats(struct sk_buff *skb, atomic64_t *stats)
{
	static const u16 attrs[CUMK_STAT_NR] = {
		[CUMK_STAT_OBJECTS] = CUMC_A_STAT_OBJECTS,
		[CUMK_STAT_BOUND_BYTES] = CUMC_A_STAT_BOUND_BYTES,
		[CUMK_STAT_BINDS] = CUMC_A_STAT_BINDS,
		[CUMK_STAT_MAPS] = CUMC_A_STAT_MAPS,
		[CUMK_STAT_WAITS] = CUMC_A_STAT_WAITS,
		[CUMK_STAT_FAULTS] = CUMC_A_STAT_FAULTS,
	};
	int i;

	for (i = 0; i < CUMK_STAT_NR; i++)
		if (nla_put_u64_64bit(skb, attrs[i], atomic64_read(&stats[i]),
				      CUMC_A_PAD))
			return -EMSGSIZE;
	return 0;
}

/* cb->args[0]: the next device ordinal; num_devices is the fabric. */
static int cumk_nl_stats_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct cumk_device *dev;
	atomic64_t *stats;
	void *hdr;
	int ret;

	for (; cb->args[0] <= cumk_num_devices(); cb->args[0]++) {
		dev = cumk_device_find(cb->args[0]);
		stats = dev ? dev->stats : cumk_fabric_stats;
		hdr = cumk_notify_put_dump(skb, cb, CUMC_CMD_STATS_GET);
		if (!hdr)
			break;
		ret = dev ? nla_put_u32(skb, CUMC_A_DEV_ORDINAL, dev->ordinal) : 0;
		if (ret || cumk_nl_fill_stats(skb, stats)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	return skb->len;
}

/* FAULT_VALUE's meaning depends on FAULT_MODE: checked here, not by policy. */
static int cumk_nl_fault_check_value(struct genl_info *info, u32 mode,
				     u32 value)
{
	struct nlattr *attr = info->attrs[CUMC_A_FAULT_VALUE];

	if (mode == CUMC_FAULT_MODE_EVERY_NTH && !value) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "mode every-nth needs a fault-value N of 1 or more");
		return -EINVAL;
	}
	if (mode == CUMC_FAULT_MODE_PROBABILITY && (!value || value > 100)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "mode probability needs a fault-value of 1 to 100 (percent)");
		return -EINVAL;
	}
	return 0;
}

/* Only FABRIC_STALL lasts: FAULT_DELAY_MS is its length, 0 its default. */
static int cumk_nl_fault_delay(struct genl_info *info, u32 type, u32 *delay)
{
	struct nlattr *attr = info->attrs[CUMC_A_FAULT_DELAY_MS];

	*delay = 0;
	if (!attr)
		return 0;
	if (type != CUMC_FAULT_FABRIC_STALL) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "fault-delay-ms is for fabric-stall only");
		return -EINVAL;
	}
	*delay = nla_get_u32(attr);
	return 0;
}

static int cumk_nl_fault_set(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	u32 mode, type, delay, value = 0;
	s32 device = -1;
	int ret;

	if (!cumk_nl_admin(skb, info))
		return -EPERM;
	if (GENL_REQ_ATTR_CHECK(info, CUMC_A_FAULT_TYPE) ||
	    GENL_REQ_ATTR_CHECK(info, CUMC_A_FAULT_MODE)) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "fault-set needs fault-type and fault-mode");
		return -EINVAL;
	}
	mode = nla_get_u32(tb[CUMC_A_FAULT_MODE]);
	type = nla_get_u32(tb[CUMC_A_FAULT_TYPE]);
	ret = cumk_nl_fault_delay(info, type, &delay);
	if (ret)
		return ret;
	if (tb[CUMC_A_FAULT_VALUE])
		value = nla_get_u32(tb[CUMC_A_FAULT_VALUE]);
	ret = cumk_nl_fault_check_value(info, mode, value);
	if (ret)
		return ret;
	if (tb[CUMC_A_DEV_ORDINAL]) {
		device = nla_get_u32(tb[CUMC_A_DEV_ORDINAL]);
		if (!cumk_device_find(device)) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    tb[CUMC_A_DEV_ORDINAL],
					    "no device of that ordinal");
			return -ENODEV;
		}
	}
	ret = cumk_fault_set(type, device, mode, value, delay);
	if (ret)
		NL_SET_ERR_MSG_MOD(info->extack, "the fault could not be set");
	return ret;
}

static int cumk_nl_fill_fault(struct sk_buff *skb, struct cumk_fault_info *f)
{
	if (nla_put_u32(skb, CUMC_A_FAULT_TYPE, f->type) ||
	    nla_put_u32(skb, CUMC_A_FAULT_MODE, f->mode) ||
	    nla_put_u32(skb, CUMC_A_FAULT_VALUE, f->value) ||
	    nla_put_u64_64bit(skb, CUMC_A_FAULT_HITS, f->hits, CUMC_A_PAD) ||
	    (f->type == CUMC_FAULT_FABRIC_STALL &&
	     nla_put_u32(skb, CUMC_A_FAULT_DELAY_MS, f->delay_ms)) ||
	    (f->device >= 0 &&
	     nla_put_u32(skb, CUMC_A_DEV_ORDINAL, f->device)))
		return -EMSGSIZE;
	return 0;
}

/* cb->args[0]: the index of the next armed fault. */
static int cumk_nl_fault_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct cumk_fault_info f;
	void *hdr;

	for (; !cumk_fault_get(cb->args[0], &f); cb->args[0]++) {
		hdr = cumk_notify_put_dump(skb, cb, CUMC_CMD_FAULT_GET);
		if (!hdr)
			break;
		if (cumk_nl_fill_fault(skb, &f)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	return skb->len;
}

static int cumk_nl_fm_reply(struct genl_info *info, u8 cmd)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = cumk_notify_put_reply(msg, info, cmd);
	if (!hdr ||
	    nla_put_u32(msg, CUMC_A_FM_MODE, cumk_team_fm_mode()) ||
	    nla_put_u32(msg, CUMC_A_FM_TIMEOUT_MS, cumk_team_fm_timeout_ms())) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int cumk_nl_fm_get(struct sk_buff *skb, struct genl_info *info)
{
	return cumk_nl_fm_reply(info, CUMC_CMD_FM_GET);
}

static int cumk_nl_fm_set(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;

	if (!cumk_nl_admin(skb, info))
		return -EPERM;
	if (tb[CUMC_A_FM_MODE])
		cumk_team_set_fm_mode(nla_get_u32(tb[CUMC_A_FM_MODE]));
	if (tb[CUMC_A_FM_TIMEOUT_MS])
		cumk_team_set_fm_timeout_ms(nla_get_u32(tb[CUMC_A_FM_TIMEOUT_MS]));
	return cumk_nl_fm_reply(info, CUMC_CMD_FM_SET);
}

static int cumk_nl_fm_respond(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	u32 id;
	int ret;

	if (!cumk_nl_admin(skb, info))
		return -EPERM;
	if (GENL_REQ_ATTR_CHECK(info, CUMC_A_FM_REQ_ID) ||
	    GENL_REQ_ATTR_CHECK(info, CUMC_A_FM_RESULT)) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "fm-respond needs fm-req-id and fm-result");
		return -EINVAL;
	}
	id = nla_get_u32(tb[CUMC_A_FM_REQ_ID]);
	ret = cumk_mc_fm_respond(id, nla_get_u32(tb[CUMC_A_FM_RESULT]) ==
				 CUMC_FM_RESULT_OK);
	switch (ret) {
	case -ENOENT:
		NL_SET_ERR_MSG_ATTR(info->extack, tb[CUMC_A_FM_REQ_ID],
				    "no team setup request of that id is waiting");
		break;
	case -EALREADY:
		NL_SET_ERR_MSG_ATTR(info->extack, tb[CUMC_A_FM_REQ_ID],
				    "that team setup request was answered already");
		break;
	}
	return ret;
}

/* @msg, new, filled as FABRIC_GET's answer and sent as @cmd's. */
static int cumk_nl_fabric_reply(struct genl_info *info, u8 cmd,
				struct sk_buff *msg)
{
	void *hdr;

	hdr = cumk_notify_put_reply(msg, info, cmd);
	if (!hdr || cumk_nl_fill_fabric(msg, cumk_node_index(), 0) ||
	    (cumk_imex_attached() && nla_put_flag(msg, CUMC_A_IMEX_ATTACHED)) ||
	    nla_put_u32(msg, CUMC_A_FABRIC_MC_LIMIT, cumk_team_mc_limit_get()) ||
	    nla_put_u32(msg, CUMC_A_FABRIC_MC_TEAMS, cumk_team_mc_count())) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int cumk_nl_fabric_get(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);

	if (!msg)
		return -ENOMEM;
	return cumk_nl_fabric_reply(info, CUMC_CMD_FABRIC_GET, msg);
}

/* The fabric's limits; answered as FABRIC_GET, with what they are now. */
static int cumk_nl_fabric_set(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *limit = info->attrs[CUMC_A_FABRIC_MC_LIMIT];
	struct sk_buff *msg;

	if (!cumk_nl_admin(skb, info))
		return -EPERM;
	/* The answer's memory first: a refusal then changes nothing. */
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	if (limit)
		cumk_team_set_mc_limit(nla_get_u32(limit));
	return cumk_nl_fabric_reply(info, CUMC_CMD_FABRIC_SET, msg);
}

static int cumk_nl_imex_attach(struct sk_buff *skb, struct genl_info *info)
{
	int ret;

	if (!cumk_nl_imex_allowed(skb, info))
		return -EPERM;
	ret = cumk_imex_attach(info->snd_portid);
	if (ret == -EBUSY)
		NL_SET_ERR_MSG_MOD(info->extack,
				   "another IMEX daemon is attached");
	return ret;
}

/* IMEX_CALL: another node's call, run here; its result is the answer's. */
static int cumk_nl_imex_call(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct nlattr *args = tb[CUMC_A_IMEX_PAYLOAD];
	struct sk_buff *msg;
	size_t answer_len;
	void *answer, *hdr;
	int result, ret;
	u32 caller, op;

	if (!cumk_nl_imex_allowed(skb, info))
		return -EPERM;
	if (GENL_REQ_ATTR_CHECK(info, CUMC_A_IMEX_NODE) ||
	    GENL_REQ_ATTR_CHECK(info, CUMC_A_IMEX_OP)) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "imex-call needs imex-node and imex-op");
		return -EINVAL;
	}
	caller = nla_get_u32(tb[CUMC_A_IMEX_NODE]);
	op = nla_get_u32(tb[CUMC_A_IMEX_OP]);
	result = cumk_remote_run(caller, op, args ? nla_data(args) : NULL,
				 args ? nla_len(args) : 0, &answer, &answer_len);
	msg = genlmsg_new(nla_total_size(answer_len) + nla_total_size(4),
			  GFP_KERNEL);
	ret = -ENOMEM;
	if (!msg)
		goto out_free;
	hdr = cumk_notify_put_reply(msg, info, CUMC_CMD_IMEX_CALL);
	ret = -EMSGSIZE;
	if (!hdr || nla_put_u32(msg, CUMC_A_IMEX_RESULT, -result) ||
	    (!result && nla_put(msg, CUMC_A_IMEX_PAYLOAD, answer_len, answer))) {
		nlmsg_free(msg);
		goto out_free;
	}
	genlmsg_end(msg, hdr);
	ret = genlmsg_reply(msg, info);
out_free:
	/* Unanswered, the call never happened for the caller. */
	if (ret && !result)
		cumk_remote_run_unsent(caller, op, answer, answer_len);
	kfree(answer);
	return ret;
}

static int cumk_nl_imex_call_respond(struct sk_buff *skb,
				     struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct nlattr *answer = tb[CUMC_A_IMEX_PAYLOAD];
	u32 result;
	int ret;

	if (!cumk_nl_imex_allowed(skb, info))
		return -EPERM;
	if (GENL_REQ_ATTR_CHECK(info, CUMC_A_IMEX_REQ_ID) ||
	    GENL_REQ_ATTR_CHECK(info, CUMC_A_IMEX_RESULT)) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "imex-call-respond needs imex-req-id and imex-result");
		return -EINVAL;
	}
	result = nla_get_u32(tb[CUMC_A_IMEX_RESULT]);
	ret = cumk_imex_respond(nla_get_u32(tb[CUMC_A_IMEX_REQ_ID]), -result,
				answer && !result ? nla_data(answer) : NULL,
				answer && !result ? nla_len(answer) : 0);
	if (ret == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack, tb[CUMC_A_IMEX_REQ_ID],
				    "no IMEX call of that id is waiting (answered, timed out or never sent)");
	return ret;
}

static int cumk_nl_imex_node_lost(struct sk_buff *skb, struct genl_info *info)
{
	u32 node;

	if (!cumk_nl_imex_allowed(skb, info))
		return -EPERM;
	if (GENL_REQ_ATTR_CHECK(info, CUMC_A_IMEX_NODE)) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "imex-node-lost needs imex-node");
		return -EINVAL;
	}
	node = nla_get_u32(info->attrs[CUMC_A_IMEX_NODE]);
	if (node == cumk_node_index()) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[CUMC_A_IMEX_NODE],
				    "a node cannot lose itself");
		return -EINVAL;
	}
	cumk_remote_node_lost(node);
	return 0;
}

static int cumk_nl_imex_node_join(struct sk_buff *skb, struct genl_info *info)
{
	u32 node;

	if (!cumk_nl_imex_allowed(skb, info))
		return -EPERM;
	if (GENL_REQ_ATTR_CHECK(info, CUMC_A_IMEX_NODE)) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "imex-node-join needs imex-node");
		return -EINVAL;
	}
	node = nla_get_u32(info->attrs[CUMC_A_IMEX_NODE]);
	if (node == cumk_node_index()) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[CUMC_A_IMEX_NODE],
				    "a node cannot join itself");
		return -EINVAL;
	}
	cumk_remote_node_join(node);
	return 0;
}

/* The *_NTF and IMEX_CALL_REQ commands are the kernel's to send. */
static int cumk_nl_event_refuse(struct sk_buff *skb, struct genl_info *info)
{
	NL_SET_ERR_MSG_MOD(info->extack,
			   "events and the kernel's requests are sent by the kernel only");
	return -EOPNOTSUPP;
}

#define CUMK_NL_EVENT(_cmd) { .cmd = _cmd, .doit = cumk_nl_event_refuse }

/*
 * The state-changing commands check the sender themselves
 * (cumk_nl_admin()), so that a refusal carries a message.
 */
static const struct genl_small_ops cumk_nl_ops[] = {
	{ .cmd = CUMC_CMD_DEV_GET, .dumpit = cumk_nl_dev_dump },
	{ .cmd = CUMC_CMD_MC_GET, .dumpit = cumk_nl_mc_dump },
	{ .cmd = CUMC_CMD_STATS_GET, .dumpit = cumk_nl_stats_dump },
	{ .cmd = CUMC_CMD_FAULT_GET, .dumpit = cumk_nl_fault_dump },
	{ .cmd = CUMC_CMD_FM_GET, .doit = cumk_nl_fm_get },
	{ .cmd = CUMC_CMD_FAULT_SET, .doit = cumk_nl_fault_set },
	{ .cmd = CUMC_CMD_FM_SET, .doit = cumk_nl_fm_set },
	{ .cmd = CUMC_CMD_FM_RESPOND, .doit = cumk_nl_fm_respond },
	{ .cmd = CUMC_CMD_FABRIC_GET, .doit = cumk_nl_fabric_get },
	{ .cmd = CUMC_CMD_IMEX_ATTACH, .doit = cumk_nl_imex_attach },
	{ .cmd = CUMC_CMD_IMEX_CALL, .doit = cumk_nl_imex_call },
	{ .cmd = CUMC_CMD_IMEX_CALL_RESPOND, .doit = cumk_nl_imex_call_respond },
	{ .cmd = CUMC_CMD_IMEX_NODE_LOST, .doit = cumk_nl_imex_node_lost },
	{ .cmd = CUMC_CMD_IMEX_NODE_JOIN, .doit = cumk_nl_imex_node_join },
	{ .cmd = CUMC_CMD_DEV_SET, .doit = cumk_nl_dev_set },
	{ .cmd = CUMC_CMD_FABRIC_SET, .doit = cumk_nl_fabric_set },
	CUMK_NL_EVENT(CUMC_CMD_MC_CREATE_NTF),
	CUMK_NL_EVENT(CUMC_CMD_TEAM_READY_NTF),
	CUMK_NL_EVENT(CUMC_CMD_TEAM_FAILED_NTF),
	CUMK_NL_EVENT(CUMC_CMD_BIND_NTF),
	CUMK_NL_EVENT(CUMC_CMD_UNBIND_NTF),
	CUMK_NL_EVENT(CUMC_CMD_MC_DELETE_NTF),
	CUMK_NL_EVENT(CUMC_CMD_TEAM_SETUP_REQ_NTF),
	CUMK_NL_EVENT(CUMC_CMD_DEVICE_LOST_NTF),
	CUMK_NL_EVENT(CUMC_CMD_IMEX_CALL_REQ),
	CUMK_NL_EVENT(CUMC_CMD_NODE_LOST_NTF),
};

int cumk_netlink_init(void)
{
	return cumk_notify_register(cumk_nl_ops, ARRAY_SIZE(cumk_nl_ops),
				    cumk_nl_policy);
}

void cumk_netlink_exit(void)
{
	cumk_notify_unregister();
}
