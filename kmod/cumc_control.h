/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control plane and what the tests read: the netlink family and its
 * events, fault injection, debugfs counters (cumc_notify.c, cumc_netlink.c,
 * cumc_fault.c, cumc_debugfs.c).
 */
#ifndef _CUMK_CONTROL_H
#define _CUMK_CONTROL_H

#include <linux/atomic.h>
#include <linux/types.h>
#include <linux/cumc_netlink.h>

struct cumk_device;
struct cumk_mc;
struct genl_info;
struct genl_small_ops;
struct netlink_callback;
struct nla_policy;
struct sk_buff;

/* cumc_notify.c: the generic netlink family and its monitor events */
int cumk_notify_register(const struct genl_small_ops *ops, unsigned int n_ops,
			 const struct nla_policy *policy);
void cumk_notify_unregister(void);
void *cumk_notify_put_dump(struct sk_buff *skb, struct netlink_callback *cb,
			   u8 cmd);
void *cumk_notify_put_reply(struct sk_buff *msg, struct genl_info *info,
			    u8 cmd);
void cumk_notify_mc(u8 cmd, u32 id, u32 team_size, u64 length);
void cumk_notify_bind(u8 cmd, u32 id, u32 device, u64 mc_offset, u64 length);
void cumk_notify_device_lost(u32 device);
void cumk_notify_node_lost(u32 node);
int cumk_notify_unicast(struct sk_buff *msg, void *hdr, u32 portid);
void *cumk_notify_put_request(struct sk_buff *msg, u8 cmd);

/* cumc_debugfs.c: counters the tests read */
extern atomic_t cumk_live_clients;
extern atomic_t cumk_live_mems;
extern atomic_long_t cumk_live_pages;
extern atomic_t cumk_live_vas;
extern atomic_t cumk_live_mappings;
extern atomic_t cumk_live_mcs;
extern atomic_t cumk_live_binds;
extern atomic_t cumk_live_views;
extern atomic_t cumk_live_usages;
extern atomic_t cumk_live_holds;
void cumk_debugfs_init(void);
void cumk_debugfs_exit(void);

/* cumc_fault.c: fault injection; cumk_fault_lock (a leaf) guards the table */
/* FABRIC_STALL's length when FAULT_SET gives none: torchcomms #3130's. */
#define CUMK_FAULT_STALL_DEFAULT_MS 7000
int cumk_fault_set(enum cumc_fault_type type, s32 device,
		   enum cumc_fault_mode mode, u32 value, u32 delay_ms);
bool cumk_fault_hit(enum cumc_fault_type type, struct cumk_device *dev);
bool cumk_fault_hit_mc(enum cumc_fault_type type, struct cumk_mc *mc);
bool cumk_fault_hit_mc_delay(enum cumc_fault_type type, struct cumk_mc *mc,
			     u32 *delay_ms);
struct cumk_fault_info {
	u32 type;
	s32 device;	/* -1: fabric-wide */
	u32 mode;
	u32 value;
	u64 hits;
	u32 delay_ms;	/* FABRIC_STALL's; 0 for the other kinds */
};

int cumk_fault_get(unsigned int index, struct cumk_fault_info *info);

/* cumc_netlink.c: the control plane's commands */
int cumk_netlink_init(void);
void cumk_netlink_exit(void);

#endif /* _CUMK_CONTROL_H */
