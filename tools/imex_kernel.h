/* SPDX-License-Identifier: MIT */
/*
 * cumc-imex's side of its own node's kernel: what the daemon needs of the
 * IMEX commands of uapi/linux/cumc_netlink.h. imex_kernel.c implements it
 * on the cumc netlink family; tools/tests/imex_fake_kernel.c plays a
 * kernel for the daemon's tests on the host.
 */
#ifndef IMEX_KERNEL_H
#define IMEX_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/cumc_netlink.h>

/* An IMEX_CALL_REQ, a call's arguments or a reply's payload. */
struct imex_data {
	bool present;		/* the IMEX_PAYLOAD attribute was there */
	uint32_t length;	/* at most CUMC_IMEX_PAYLOAD_MAX */
	const uint8_t *bytes;
};

struct imex_call_req {
	uint32_t req_id;	/* 0: one-way, no answer wanted */
	uint32_t node;		/* the node the call is for */
	uint32_t op;
	struct imex_data payload;
};

/* The IMEX_CALL's reply: result, and payload into the caller's buffer. */
struct imex_reply {
	uint32_t result;
	struct imex_data payload;
	uint8_t buf[CUMC_IMEX_PAYLOAD_MAX];
};

struct imex_identity {
	uint32_t node;
	uint8_t cluster_uuid[16];
};

struct imex_kernel;

/* Called with the kernel's handle: it may come before open returns. */
typedef void (*imex_call_req_fn)(struct imex_kernel *k,
				 const struct imex_call_req *req, void *arg);

/*
 * Learn this node's identity and attach as its IMEX daemon; IMEX_CALL_REQs
 * then go to @fn. Prints why it failed ("cumc-imex: ...") and answers NULL.
 */
struct imex_kernel *imex_kernel_open(struct imex_identity *id,
				     imex_call_req_fn fn, void *arg);
void imex_kernel_close(struct imex_kernel *k);

/* Readable when IMEX_CALL_REQs wait: then imex_kernel_receive(). */
int imex_kernel_fd(const struct imex_kernel *k);
/* Hand what waits to the callback, without blocking: 0 or -errno. */
int imex_kernel_receive(struct imex_kernel *k);

/*
 * IMEX_CALL for @caller: 0 with @reply filled, or the command's -errno. It
 * has a socket of its own: one thread may call it while another uses the
 * rest.
 */
int imex_kernel_call(struct imex_kernel *k, uint32_t caller, uint32_t op,
		     const struct imex_data *payload, struct imex_reply *reply);
/* IMEX_CALL_RESPOND: 0 or -errno (-ENOENT: the kernel gave up on it). */
int imex_kernel_respond(struct imex_kernel *k, uint32_t req_id,
			uint32_t result, const struct imex_data *payload);
/* IMEX_NODE_LOST: 0 or -errno. */
int imex_kernel_node_lost(struct imex_kernel *k, uint32_t node);
/*
 * IMEX_NODE_JOIN: 0 or -errno. On imex_kernel_call()'s socket: the thread
 * that calls one calls the other.
 */
int imex_kernel_node_join(struct imex_kernel *k, uint32_t node);

#endif /* IMEX_KERNEL_H */
