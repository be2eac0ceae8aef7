/* SPDX-License-Identifier: MIT */
/*
 * cumc-imex's TCP protocol between the daemons of an IMEX domain.
 *
 * Every message is a 32-byte header, all fields big-endian, then
 * `length` bytes of payload, then, when the flags say so, a 32-byte MAC:
 *
 *   offset  size  field
 *        0     4  magic, IMEX_WIRE_MAGIC ("CMXI")
 *        4     1  version, IMEX_WIRE_VERSION
 *        5     1  type, enum imex_wire_type
 *        6     2  flags: IMEX_WIRE_F_PAYLOAD, the call or reply had a
 *                 payload attribute (possibly empty); IMEX_WIRE_F_SEALED,
 *                 IMEX_WIRE_TAG_LEN bytes of MAC follow the payload; no
 *                 other bit
 *        8     4  length of the payload, at most IMEX_WIRE_PAYLOAD_MAX
 *       12     4  req_id: the kernel's IMEX_REQ_ID (CALL, REPLY)
 *       16     4  src_node: the sender's node index
 *       20     4  dst_node: the node the message is for
 *       24     4  op: the kernel's IMEX_OP (CALL, REPLY)
 *       28     4  result: 0 or a positive errno (REPLY)
 *
 * HELLO    both ends' first message: src_node, dst_node the index the
 *          sender's node list gives the receiver, and as payload (flag
 *          set) the 16-byte cluster UUID then a fresh random nonce of
 *          IMEX_WIRE_NONCE_LEN bytes; the rest 0; not sealed
 * AUTH     both ends' second message, once the other's HELLO is in:
 *          src_node, dst_node, and as payload the sender's proof that it
 *          holds the domain's secret (imex_auth.h), IMEX_WIRE_TAG_LEN
 *          bytes; the rest 0; not sealed
 * PING     a heartbeat: src_node, dst_node; the rest 0
 * CALL     run op on dst_node for src_node; req_id 0 wants no REPLY;
 *          result 0
 * REPLY    the answer to CALL req_id (not 0), dst_node its caller, op
 *          the call's
 *
 * PING, CALL and REPLY come only after the handshake, and are always
 * sealed: the MAC (imex_auth.h) covers the header and the payload and
 * the message's place on its connection. Fields a type does not use must
 * be 0. Magic and version stay where they are in every later version,
 * so a daemon can tell an older or newer one from garbage. Version 1 had
 * no AUTH, no MAC, and a HELLO of the UUID alone.
 */
#ifndef IMEX_WIRE_H
#define IMEX_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/cumc_netlink.h>

#define IMEX_WIRE_MAGIC 0x434d5849u
#define IMEX_WIRE_VERSION 2
#define IMEX_WIRE_HDR_LEN 32
#define IMEX_WIRE_PAYLOAD_MAX CUMC_IMEX_PAYLOAD_MAX
#define IMEX_WIRE_TAG_LEN 32
#define IMEX_WIRE_MSG_MAX (IMEX_WIRE_HDR_LEN + IMEX_WIRE_PAYLOAD_MAX + \
			   IMEX_WIRE_TAG_LEN)
#define IMEX_WIRE_F_PAYLOAD 0x0001
#define IMEX_WIRE_F_SEALED 0x0002
#define IMEX_WIRE_UUID_LEN 16
#define IMEX_WIRE_NONCE_LEN 32
#define IMEX_WIRE_HELLO_LEN (IMEX_WIRE_UUID_LEN + IMEX_WIRE_NONCE_LEN)
/* Results are errno values. */
#define IMEX_WIRE_RESULT_MAX 4095

enum imex_wire_type {
	IMEX_MSG_HELLO = 1,
	IMEX_MSG_PING,
	IMEX_MSG_CALL,
	IMEX_MSG_REPLY,
	IMEX_MSG_AUTH,
};

struct imex_msg {
	uint8_t version;	/* decode only: encode writes ours */
	uint8_t type;
	uint16_t flags;
	uint32_t length;
	uint32_t req_id;
	uint32_t src_node;
	uint32_t dst_node;
	uint32_t op;
	uint32_t result;
	const uint8_t *payload;	/* length bytes */
	const uint8_t *tag;	/* sealed: IMEX_WIRE_TAG_LEN bytes */
};

/*
 * Write @m, header, payload and for a sealed one its MAC (@m->tag, or
 * zeros when NULL, for the caller to fill in place: the MAC's bytes are
 * the last IMEX_WIRE_TAG_LEN written), to @buf of @cap bytes: the bytes
 * written, or -EINVAL for a message decode would refuse, -ENOBUFS when
 * it does not fit.
 */
ssize_t imex_wire_encode(void *buf, size_t cap, const struct imex_msg *m);

/*
 * Decode the message at the start of @buf, @len bytes received so far:
 * the bytes it takes (header, payload and MAC; @m->payload and @m->tag
 * point into @buf; the MAC is not checked here),
 * 0 when more bytes are needed, or garbage: -EBADMSG (bad magic, type,
 * flags or fields), -EMSGSIZE (a length over IMEX_WIRE_PAYLOAD_MAX, or
 * not the type's), -EPROTONOSUPPORT (another version: @m->version says
 * which). A length is refused as soon as the header is in, without
 * waiting for the payload.
 */
ssize_t imex_wire_decode(const void *buf, size_t len, struct imex_msg *m);

/* "HELLO", "PING", "CALL", "REPLY", "AUTH" or "?". */
const char *imex_wire_type_name(unsigned int type);

#endif /* IMEX_WIRE_H */
