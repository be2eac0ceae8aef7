/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cumc private header: every object's header, for the module's files. Each
 * header below is one object or concern, the owner of what it declares,
 * and includes what it needs itself.
 *
 * Lifetimes: a client (an open file of /dev/cumc) owns a table of handles;
 * each handle holds one reference on the object it names. Objects point at
 * the device they live on. Devices live from their probe (or module load)
 * to module unload, past their loss: a lost device keeps its ordinal, and
 * its objects stay until their last holder lets go.
 */
#ifndef _CUMK_INTERNAL_H
#define _CUMK_INTERNAL_H

#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/kref.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/srcu.h>
#include <linux/types.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/cumc.h>
#include <linux/cumc_netlink.h>

struct genl_info;
struct genl_small_ops;
struct netlink_callback;
struct nla_policy;
struct seq_file;
struct sk_buff;

/*
 * Lock order, outermost first (see also each lock where declared):
 *   cumk_bus_lock (new_device, del_device: a probe or a loss runs under
 *   it) > the driver core's device lock > everything below
 *   mmap_lock > cumk_client.arenas_lock > cumk_arena.lock > cumk_mc.lock
 *   > i_mmap_rwsem
 *   The netlink family runs its commands in parallel (no genl_mutex):
 *   each takes the locks of what it touches, as an ioctl does.
 *   cumk_mc_ids' xa_lock, a client's handles' xa_lock, the fabric export
 *   table's xa_lock, cumk_fault_lock and cumk_cond_lock are leaves: nothing is taken under
 *   them; a dump takes a reference under the xa_lock, drops it, and only
 *   then takes cumk_mc.lock.
 *   cumk_mc.lock > cumk_device.mems_lock > cumk_bar.alloc_lock (an object's
 *   last reference may go under the first: it gives its memory back)
 *   cumk_arena.lock or cumk_mc.lock > cumk_device_srcu (read) > cumk_mem.touch_lock
 *   (a fault); a loss waits for the SRCU readers holding none of these
 * Events (cumc_notify.c) are sent with GFP_KERNEL and take no cumc lock,
 * so they may be sent under cumk_mc.lock. Messages to other nodes
 * (cumc_imex.c) take cumk_imex_lock to queue and send, under which only
 * cumk_imex_calls' xa_lock and cumk_lease_lock are taken; an imported
 * allocation's last reference, wherever it goes, posts one. What runs
 * with a post's answer never runs in the poster's context.
 *   cumk_remote_loss_lock (losing a node) > cumk_mc.lock and the rest.
 *   cumk_remote_holds', cumk_imex_calls' and cumk_mc_quarantines'
 *   xa_locks and cumk_lease_lock are leaves.
 *
 * Who calls whom: the ioctl table and the netlink commands call the
 * objects' command handlers; binds and views call the address space, which
 * calls the multicast object and its team; nothing calls back up.
 */

#include "cumc_range.h"
#include "cumc_quota.h"
#include "cumc_object.h"
#include "cumc_device.h"
#include "cumc_bus.h"
#include "cumc_memory.h"
#include "cumc_multicast.h"
#include "cumc_va.h"
#include "cumc_client.h"
#include "cumc_wire.h"
#include "cumc_remote.h"
#include "cumc_sharing.h"
#include "cumc_control.h"

#endif /* _CUMK_INTERNAL_H */
