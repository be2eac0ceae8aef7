// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "cumc" and its "monitor" group: objects
 * announce what happens to them here (creation, team state, binds), the
 * control plane's commands (cumc_netlink.c) register here and answer
 * through the family.
 *
 * An event is sent only when someone listens, built with GFP_KERNEL and
 * no cumc lock taken (a copy per listening namespace is cloned with
 * GFP_ATOMIC under RCU), so objects may announce under their own locks;
 * an event that cannot be sent is lost, as the monitor group's readers
 * know.
 *
 * The family is in every network namespace (netnsok): the devices are the
 * host's, whichever namespace asks, so dumps answer the same everywhere,
 * as /dev/cumc is the same device in every container. Events go to the
 * monitor group's listeners of every namespace the initial user namespace
 * owns; a container with a user namespace of its own hears none, since
 * its root's CAP_NET_ADMIN is not the host's. What a namespace may change
 * is cumc_netlink.c's (Documentation/control-plane.md).
 */
#include <linux/module.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>

#include "cumc_compat.h"
#include "cumc_internal.h"

enum cumk_notify_mcgrp {
	CUMK_NOTIFY_MCGRP_MONITOR,
};

/*
 * Events name every user's objects: listening needs CAP_NET_ADMIN over the
 * listener's network namespace, and events go only to namespaces the
 * initial user namespace owns (cumk_notify_send()), so CAP_NET_ADMIN in
 * the initial user namespace, as changing state does.
 */
static const struct genl_multicast_group cumk_notify_mcgrps[] = {
	[CUMK_NOTIFY_MCGRP_MONITOR] =
		CUMK_GENL_MCGRP_ADMIN(CUMC_GENL_MCGRP_MONITOR),
};

static struct genl_family cumk_family = {
	.name = CUMC_GENL_NAME,
	.version = CUMC_GENL_VERSION,
	.maxattr = CUMC_A_MAX,
	.module = THIS_MODULE,
	.netnsok = true,
	/*
	 * No genl_mutex: a command that takes long (another node's call)
	 * holds back no other; each takes the locks of what it touches.
	 */
	.parallel_ops = true,
	.mcgrps = cumk_notify_mcgrps,
	.n_mcgrps = ARRAY_SIZE(cumk_notify_mcgrps),
};

/* The control plane's commands, with strict validation of every one. */
int cumk_notify_register(const struct genl_small_ops *ops, unsigned int n_ops,
			 const struct nla_policy *policy)
{
	cumk_family.small_ops = ops;
	cumk_family.n_small_ops = n_ops;
	cumk_family.policy = policy;
	cumk_genl_strict_from(&cumk_family, CUMC_CMD_DEV_GET);
	return genl_register_family(&cumk_family);
}

void cumk_notify_unregister(void)
{
	genl_unregister_family(&cumk_family);
}

/* The header of one message of a dump. */
void *cumk_notify_put_dump(struct sk_buff *skb, struct netlink_callback *cb,
			   u8 cmd)
{
	return genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
			   cb->nlh->nlmsg_seq, &cumk_family, NLM_F_MULTI, cmd);
}

/* The header of the answer to a command. */
void *cumk_notify_put_reply(struct sk_buff *msg, struct genl_info *info,
			    u8 cmd)
{
	return genlmsg_put_reply(msg, info, &cumk_family, 0, cmd);
}

/* Whether listeners in @net may hear events: see cumk_notify_mcgrps. */
static bool cumk_notify_net_ok(struct net *net)
{
	return net->user_ns == &init_user_ns;
}

/* Whether the monitor group has a listener in any network namespace. */
static bool cumk_notify_listened(void)
{
	bool listened = false;
	struct net *net;

	rcu_read_lock();
	for_each_net_rcu(net) {
		if (cumk_notify_net_ok(net) &&
		    genl_has_listeners(&cumk_family, net,
				       CUMK_NOTIFY_MCGRP_MONITOR) > 0) {
			listened = true;
			break;
		}
	}
	rcu_read_unlock();
	return listened;
}

/* A new event of @cmd with room for its attributes, or NULL. */
static struct sk_buff *cumk_notify_new(u8 cmd, void **hdr)
{
	struct sk_buff *msg;

	if (!cumk_notify_listened())
		return NULL;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return NULL;
	*hdr = genlmsg_put(msg, 0, 0, &cumk_family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/*
 * @msg to the monitor group of every network namespace with a listener.
 * Not genlmsg_multicast_allns(): its gfp argument was dropped within
 * stable series (6.1's among them), which no version check can follow.
 */
static void cumk_notify_send(struct sk_buff *msg, void *hdr, int err)
{
	struct sk_buff *copy;
	struct net *net;

	if (err) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	rcu_read_lock();
	for_each_net_rcu(net) {
		if (!cumk_notify_net_ok(net) ||
		    genl_has_listeners(&cumk_family, net,
				       CUMK_NOTIFY_MCGRP_MONITOR) <= 0)
			continue;
		copy = skb_clone(msg, GFP_ATOMIC);
		if (copy)
			genlmsg_multicast_netns(&cumk_family, net, copy, 0,
						CUMK_NOTIFY_MCGRP_MONITOR,
						GFP_ATOMIC);
	}
	rcu_read_unlock();
	nlmsg_free(msg);
}

/* A multicast object's event; a setup request names the request id too. */
void cumk_notify_mc(u8 cmd, u32 id, u32 team_size, u64 length)
{
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = cumk_notify_new(cmd, &hdr);
	if (!msg)
		return;
	err = nla_put_u32(msg, CUMC_A_MC_ID, id) ||
	      nla_put_u32(msg, CUMC_A_MC_TEAM_SIZE, team_size) ||
	      nla_put_u64_64bit(msg, CUMC_A_MC_LENGTH, length, CUMC_A_PAD) ||
	      (cmd == CUMC_CMD_TEAM_SETUP_REQ_NTF &&
	       nla_put_u32(msg, CUMC_A_FM_REQ_ID, id));
	cumk_notify_send(msg, hdr, err);
}

/* A binding made or undone. */
void cumk_notify_bind(u8 cmd, u32 id, u32 device, u64 mc_offset, u64 length)
{
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = cumk_notify_new(cmd, &hdr);
	if (!msg)
		return;
	err = nla_put_u32(msg, CUMC_A_MC_ID, id) ||
	      nla_put_u32(msg, CUMC_A_DEV_ORDINAL, device) ||
	      nla_put_u64_64bit(msg, CUMC_A_BIND_MC_OFFSET, mc_offset,
				CUMC_A_PAD) ||
	      nla_put_u64_64bit(msg, CUMC_A_BIND_LENGTH, length, CUMC_A_PAD);
	cumk_notify_send(msg, hdr, err);
}

/* A device fell off the bus. */
void cumk_notify_device_lost(u32 device)
{
	struct sk_buff *msg;
	void *hdr;

	msg = cumk_notify_new(CUMC_CMD_DEVICE_LOST_NTF, &hdr);
	if (!msg)
		return;
	cumk_notify_send(msg, hdr, nla_put_u32(msg, CUMC_A_DEV_ORDINAL, device));
}

/* Another node was lost. */
void cumk_notify_node_lost(u32 node)
{
	struct sk_buff *msg;
	void *hdr;

	msg = cumk_notify_new(CUMC_CMD_NODE_LOST_NTF, &hdr);
	if (!msg)
		return;
	cumk_notify_send(msg, hdr, nla_put_u32(msg, CUMC_A_IMEX_NODE, node));
}

/* The header of a request the kernel sends one socket (cumc_imex.c). */
void *cumk_notify_put_request(struct sk_buff *msg, u8 cmd)
{
	return genlmsg_put(msg, 0, 0, &cumk_family, 0, cmd);
}

/* Send @msg to the socket @portid alone, not waiting for room. */
int cumk_notify_unicast(struct sk_buff *msg, void *hdr, u32 portid)
{
	genlmsg_end(msg, hdr);
	return genlmsg_unicast(&init_net, msg, portid);
}
