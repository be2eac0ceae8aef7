/* SPDX-License-Identifier: MIT */
/*
 * A client of cumc's generic netlink family (uapi/linux/cumc_netlink.h) on
 * libnl-3: the connection, one request and its replies, and the admin
 * commands. Shared by cumcctl, cumc-fm and cumc-imex; tests link it to arm
 * faults.
 */
#ifndef CUMC_NL_H
#define CUMC_NL_H

#include <stdbool.h>
#include <stdint.h>

#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <linux/cumc_netlink.h>

/* The device argument of cumc_nl_fault_set() for a fabric-wide fault. */
#define CUMC_NL_FABRIC (-1)

struct cumc_nl {
	struct nl_sock *sk;
	int family;
};

/* Connect and resolve the family: 0, or -ENOENT without cumc.ko. */
int cumc_nl_open(struct cumc_nl *nl);
void cumc_nl_close(struct cumc_nl *nl);

/* A request for @cmd with NLM_F_ACK and @flags, or NULL without memory. */
struct nl_msg *cumc_nl_msg(const struct cumc_nl *nl, uint8_t cmd, int flags);
/* The same with room for @size bytes of attributes (past a page). */
struct nl_msg *cumc_nl_msg_size(const struct cumc_nl *nl, uint8_t cmd,
				int flags, size_t size);

/*
 * Send @msg (freed here), hand each reply to @valid, and wait for the ack
 * or the dump's end: 0, or the kernel's negative errno.
 */
int cumc_nl_transact(struct cumc_nl *nl, struct nl_msg *msg,
		     nl_recvmsg_msg_cb_t valid, void *arg);

/* FAULT_SET; @device CUMC_NL_FABRIC for the fabric-wide entry. */
int cumc_nl_fault_set(struct cumc_nl *nl, enum cumc_fault_type type,
		      enum cumc_fault_mode mode, uint32_t value,
		      int64_t device);
/* The same with FAULT_DELAY_MS (FABRIC_STALL's length); 0: none given. */
int cumc_nl_fault_set_delay(struct cumc_nl *nl, enum cumc_fault_type type,
			    enum cumc_fault_mode mode, uint32_t value,
			    int64_t device, uint32_t delay_ms);

/*
 * DEV_SET's conditions: a negative field is not sent (left as it is);
 * @device CUMC_NL_FABRIC for every device.
 */
struct cumc_nl_dev_cond {
	int64_t device;
	int64_t state;		/* enum cumc_fabric_state */
	int64_t health_mask;
	int64_t multicast;	/* 0 or 1 */
	bool reset;		/* drop every condition first */
};
#define CUMC_NL_DEV_COND_NONE { CUMC_NL_FABRIC, -1, -1, -1, false }
int cumc_nl_dev_set(struct cumc_nl *nl, const struct cumc_nl_dev_cond *cond);
/* FABRIC_SET of FABRIC_MC_LIMIT. */
int cumc_nl_fabric_set_mc_limit(struct cumc_nl *nl, uint32_t limit);

/* FM_SET; a @timeout_ms of 0 (out of its range) leaves it as it is. */
int cumc_nl_fm_set(struct cumc_nl *nl, enum cumc_fm_mode mode,
		   uint32_t timeout_ms);
int cumc_nl_fm_get(struct cumc_nl *nl, enum cumc_fm_mode *mode,
		   uint32_t *timeout_ms);
int cumc_nl_fm_respond(struct cumc_nl *nl, uint32_t req_id,
		       enum cumc_fm_result result);

/* FABRIC_GET's reply; has_* say which attributes it carried. */
struct cumc_nl_fabric {
	uint32_t node, clique_id, state, mc_limit, mc_teams;
	uint8_t cluster_uuid[16];
	bool has_node, has_cluster_uuid, has_mc_limit, imex_attached;
};
int cumc_nl_fabric_get(struct cumc_nl *nl, struct cumc_nl_fabric *fabric);

/*
 * The fabric-wide count @attr (a CUMC_A_STAT_*) of STATS_GET: 0, -ENOENT
 * when the reply has none, or the kernel's -errno.
 */
int cumc_nl_fabric_stat(struct cumc_nl *nl, int attr, uint64_t *value);

/*
 * IMEX_ATTACH on @nl's socket, which then receives the IMEX_CALL_REQs:
 * those that come before the ack go to @valid.
 */
int cumc_nl_imex_attach(struct cumc_nl *nl, nl_recvmsg_msg_cb_t valid,
			void *arg);

/*
 * IMEX_CALL for @caller, with @payload of @len bytes (@len < 0: no
 * IMEX_PAYLOAD): 0 with *@result and the reply's payload in @reply (room
 * for CUMC_IMEX_PAYLOAD_MAX bytes) and its length in *@reply_len (-1:
 * none), or the command's -errno (-EPROTO: a reply without IMEX_RESULT or
 * with a payload too long).
 */
int cumc_nl_imex_call(struct cumc_nl *nl, uint32_t caller, uint32_t op,
		      const void *payload, int len, uint32_t *result,
		      void *reply, int *reply_len);
/* IMEX_CALL_RESPOND; @len < 0: no IMEX_PAYLOAD. */
int cumc_nl_imex_respond(struct cumc_nl *nl, uint32_t req_id,
			 uint32_t result, const void *payload, int len);
int cumc_nl_imex_node_lost(struct cumc_nl *nl, uint32_t node);
int cumc_nl_imex_node_join(struct cumc_nl *nl, uint32_t node);

#endif /* CUMC_NL_H */
