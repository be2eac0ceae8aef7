// SPDX-License-Identifier: MIT
/*
 * cumc-imex's TCP framing (imex_wire.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "imex_wire.h"

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

#define IMEX_WIRE_FLAGS (IMEX_WIRE_F_PAYLOAD | IMEX_WIRE_F_SEALED)

/* The bytes of @m on the wire: header, payload, MAC. */
static size_t wire_len(const struct imex_msg *m)
{
	return IMEX_WIRE_HDR_LEN + (size_t)m->length +
	       (m->flags & IMEX_WIRE_F_SEALED ? IMEX_WIRE_TAG_LEN : 0);
}

/* 0, or the -errno decode answers for @m (its version not checked). */
static int check(const struct imex_msg *m)
{
	bool handshake = m->type == IMEX_MSG_HELLO || m->type == IMEX_MSG_AUTH;

	if (m->flags & ~IMEX_WIRE_FLAGS)
		return -EBADMSG;
	if (m->length > IMEX_WIRE_PAYLOAD_MAX)
		return -EMSGSIZE;
	if (m->length && !(m->flags & IMEX_WIRE_F_PAYLOAD))
		return -EBADMSG;
	/* The handshake's two messages are the only ones without a MAC. */
	if (m->type >= IMEX_MSG_HELLO && m->type <= IMEX_MSG_AUTH &&
	    !(m->flags & IMEX_WIRE_F_SEALED) != handshake)
		return -EBADMSG;
	switch (m->type) {
	case IMEX_MSG_HELLO:
	case IMEX_MSG_AUTH:
		if (m->length != (m->type == IMEX_MSG_HELLO ?
				  IMEX_WIRE_HELLO_LEN : IMEX_WIRE_TAG_LEN))
			return -EMSGSIZE;
		if (m->req_id || m->op || m->result)
			return -EBADMSG;
		return 0;
	case IMEX_MSG_PING:
		if (m->length)
			return -EMSGSIZE;
		if (m->req_id || m->op || m->result)
			return -EBADMSG;
		return 0;
	case IMEX_MSG_CALL:
		return m->result ? -EBADMSG : 0;
	case IMEX_MSG_REPLY:
		if (!m->req_id || m->result > IMEX_WIRE_RESULT_MAX)
			return -EBADMSG;
		return 0;
	default:
		return -EBADMSG;
	}
}

ssize_t imex_wire_encode(void *buf, size_t cap, const struct imex_msg *m)
{
	uint8_t *p = buf;
	int err = check(m);

	if (err)
		return -EINVAL;
	if (cap < wire_len(m))
		return -ENOBUFS;
	put32(p, IMEX_WIRE_MAGIC);
	p[4] = IMEX_WIRE_VERSION;
	p[5] = m->type;
	put16(p + 6, m->flags);
	put32(p + 8, m->length);
	put32(p + 12, m->req_id);
	put32(p + 16, m->src_node);
	put32(p + 20, m->dst_node);
	put32(p + 24, m->op);
	put32(p + 28, m->result);
	p += IMEX_WIRE_HDR_LEN;
	if (m->length)
		memcpy(p, m->payload, m->length);
	p += m->length;
	if (m->flags & IMEX_WIRE_F_SEALED) {
		if (m->tag)
			memcpy(p, m->tag, IMEX_WIRE_TAG_LEN);
		else
			memset(p, 0, IMEX_WIRE_TAG_LEN);
	}
	return wire_len(m);
}

ssize_t imex_wire_decode(const void *buf, size_t len, struct imex_msg *m)
{
	const uint8_t *p = buf;
	int err;

	/* Garbage shows in its first bytes: no need to wait for a header. */
	if (len >= 4 && get32(p) != IMEX_WIRE_MAGIC)
		return -EBADMSG;
	if (len < IMEX_WIRE_HDR_LEN)
		return 0;
	memset(m, 0, sizeof(*m));
	m->version = p[4];
	if (m->version != IMEX_WIRE_VERSION)
		return -EPROTONOSUPPORT;
	m->type = p[5];
	m->flags = get16(p + 6);
	m->length = get32(p + 8);
	m->req_id = get32(p + 12);
	m->src_node = get32(p + 16);
	m->dst_node = get32(p + 20);
	m->op = get32(p + 24);
	m->result = get32(p + 28);
	err = check(m);
	if (err)
		return err;
	if (len < wire_len(m))
		return 0;
	m->payload = p + IMEX_WIRE_HDR_LEN;
	if (m->flags & IMEX_WIRE_F_SEALED)
		m->tag = m->payload + m->length;
	return wire_len(m);
}

const char *imex_wire_type_name(unsigned int type)
{
	switch (type) {
	case IMEX_MSG_HELLO:
		return "HELLO";
	case IMEX_MSG_PING:
		return "PING";
	case IMEX_MSG_CALL:
		return "CALL";
	case IMEX_MSG_REPLY:
		return "REPLY";
	case IMEX_MSG_AUTH:
		return "AUTH";
	default:
		return "?";
	}
}
