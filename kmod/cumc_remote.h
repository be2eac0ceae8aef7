/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The multi-node fabric: the IMEX daemon's messages, leases between nodes,
 * memory and multicast teams shared across them (cumc_imex.c, cumc_lease.c,
 * cumc_remote.c, cumc_remote_mc.c).
 */
#ifndef _CUMK_REMOTE_H
#define _CUMK_REMOTE_H

#include <linux/atomic.h>
#include <linux/ktime.h>
#include <linux/types.h>

struct cumk_device;
struct cumk_mc;
struct cumk_mem;
struct cumk_object;
struct cumk_usage;

/* cumc_imex.c: the node's IMEX daemon and the calls it carries to other nodes */
/* What runs with a post's answer: @result 0 or a negative errno. */
typedef void (*cumk_imex_done_t)(u32 node, int result, const void *answer,
				 size_t len, void *ctx);
void cumk_imex_init(void);
void cumk_imex_exit(void);
bool cumk_imex_drain(void);
int cumk_imex_attach(u32 portid);
bool cumk_imex_detach(u32 portid);
bool cumk_imex_attached(void);
int cumk_imex_call(u32 node, u32 op, const void *args, size_t args_len,
		   long timeout, void **answer, size_t *answer_len,
		   ktime_t *queued, cumk_imex_done_t late);
void cumk_imex_post(u32 node, u32 op, const void *args, size_t args_len,
		    bool bypass, cumk_imex_done_t done, void *ctx);
int cumk_imex_respond(u32 id, int result, const void *answer, size_t len);
void cumk_imex_fail_node(u32 node);
void cumk_imex_node_back(u32 node);
ktime_t cumk_imex_oldest_unanswered(u32 node);

/*
 * cumc_lease.c: leases between nodes, the nodes lost, and what waits for
 * a lost node's lease to run out.
 */
/**
 * struct cumk_lease_wait - something released once other nodes let go
 * @pending: parts still to be done; the last releases it
 * @release: frees what it keeps
 */
struct cumk_lease_wait {
	atomic_t pending;
	void (*release)(struct cumk_lease_wait *w);
};

void cumk_lease_init(void (*lose)(u32 node));
unsigned int cumk_lease_ms(void);
void cumk_lease_fail(u32 node);
void cumk_lease_post(u32 node, u32 op, const void *args, size_t args_len,
		     cumk_imex_done_t done, void *ctx);
bool cumk_lease_lost(u32 node);
bool cumk_lease_mark_lost(u32 node);
bool cumk_lease_valid(u32 node);
bool cumk_lease_involved(u32 node);
u32 cumk_lease_get(u32 node);
void cumk_lease_put(u32 node, u32 gen);
void cumk_lease_node_back(u32 node);
void cumk_lease_renew_soon(u32 node);
int cumk_lease_ensure(u32 node);
int cumk_lease_grant(u32 node);
void cumk_lease_wait_init(struct cumk_lease_wait *w,
			  void (*release)(struct cumk_lease_wait *w));
void cumk_lease_wait_add(struct cumk_lease_wait *w);
void cumk_lease_wait_done(struct cumk_lease_wait *w);
void cumk_lease_wait_expire(struct cumk_lease_wait *w, u32 node,
			    unsigned int extra_ms);
void cumk_lease_exit(void);
bool cumk_lease_drain(void);

/*
 * cumc_remote.c: memory shared across nodes, through the calls one node's
 * kernel makes on another's (their format: cumc_wire.h).
 */
struct cumk_object *cumk_remote_import(struct cumk_usage *usage,
				       const u8 *fabric_handle, u32 node);
int cumk_remote_run(u32 caller, u32 op, const void *args, size_t args_len,
		    void **answer, size_t *answer_len);
void cumk_remote_run_unsent(u32 caller, u32 op, const void *answer,
			    size_t answer_len);
void cumk_remote_node_lost(u32 node);
void cumk_remote_node_join(u32 node);
int cumk_remote_init(void);
void cumk_remote_exit(void);

/*
 * cumc_remote_mc.c: multicast teams across nodes. The node that created a
 * shared object holds its team; the others keep replicas in step.
 */
extern const struct cumk_mc_kind cumk_remote_mc_origin;
int cumk_remote_mc_export(struct cumk_mc *mc, u32 node, u32 hold,
			  void **answer, size_t *answer_len);
void cumk_remote_mc_unexport(struct cumk_mc *mc, u32 hold);
struct cumk_mc *cumk_remote_mc_find(u32 node, const u8 *fabric_handle);
struct cumk_mc *cumk_remote_mc_replica(struct cumk_usage *usage, u32 node,
				       const u8 *fabric_handle,
				       const void *answer, size_t len);
int cumk_remote_mc_run(struct cumk_mc *mc, u32 caller, u32 op,
		       const void *args, size_t args_len, void **answer,
		       size_t *answer_len);
void cumk_remote_mc_update(u32 caller, const void *args, size_t args_len);
void cumk_remote_mc_unbind_post(struct cumk_mc *mc, u32 caller,
				const void *args, size_t len);
void cumk_remote_mc_released(u32 caller, const void *args, size_t len);
void cumk_remote_mc_origin_lost(bool all, u32 node);
void cumk_remote_mc_exit(void);

#endif /* _CUMK_REMOTE_H */
