// SPDX-License-Identifier: MIT
/*
 * cumc-imex's TCP framing (tools/imex_wire.c): the header's bytes, every
 * type there and back, messages cut anywhere, and garbage of every kind
 * refused, oversized lengths before their payload comes; the handshake's
 * messages unsealed, every other one sealed, its MAC after the payload.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "imex_wire.h"

static uint8_t buf[2 * IMEX_WIRE_MSG_MAX];
static uint8_t payload[IMEX_WIRE_PAYLOAD_MAX + 1];
static uint8_t tag[IMEX_WIRE_TAG_LEN];

/* The bytes of @m on the wire. */
static size_t wire_len(const struct imex_msg *m)
{
	return IMEX_WIRE_HDR_LEN + m->length +
	       (m->flags & IMEX_WIRE_F_SEALED ? IMEX_WIRE_TAG_LEN : 0);
}

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 13 + seed);
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static struct imex_msg call(uint32_t length)
{
	struct imex_msg m = {
		.type = IMEX_MSG_CALL,
		.flags = IMEX_WIRE_F_PAYLOAD | IMEX_WIRE_F_SEALED,
		.length = length,
		.req_id = 77,
		.src_node = 3,
		.dst_node = 5,
		.op = 9,
		.payload = payload,
		.tag = tag,
	};

	return m;
}

/* Encode @m, decode it back: the same message, taking every byte. */
static void round_trip(const struct imex_msg *m)
{
	struct imex_msg out;
	ssize_t n = imex_wire_encode(buf, sizeof(buf), m);

	ck_assert_int_eq(n, wire_len(m));
	ck_assert_int_eq(imex_wire_decode(buf, n, &out), n);
	ck_assert_uint_eq(out.version, IMEX_WIRE_VERSION);
	ck_assert_uint_eq(out.type, m->type);
	ck_assert_uint_eq(out.flags, m->flags);
	ck_assert_uint_eq(out.length, m->length);
	ck_assert_uint_eq(out.req_id, m->req_id);
	ck_assert_uint_eq(out.src_node, m->src_node);
	ck_assert_uint_eq(out.dst_node, m->dst_node);
	ck_assert_uint_eq(out.op, m->op);
	ck_assert_uint_eq(out.result, m->result);
	ck_assert_ptr_eq(out.payload, buf + IMEX_WIRE_HDR_LEN);
	if (m->length)
		ck_assert_mem_eq(out.payload, m->payload, m->length);
	if (m->flags & IMEX_WIRE_F_SEALED) {
		ck_assert_ptr_eq(out.tag, out.payload + m->length);
		ck_assert_mem_eq(out.tag, m->tag, IMEX_WIRE_TAG_LEN);
	} else {
		ck_assert_ptr_null(out.tag);
	}
}

START_TEST(header_bytes)
{
	static const uint8_t want[] = {
		0x43, 0x4d, 0x58, 0x49,	/* "CMXI" */
		2, IMEX_MSG_CALL, 0, 3,
		0, 0, 0, 3,		/* length */
		0x12, 0x34, 0x56, 0x78,	/* req_id */
		0, 0, 0, 2,		/* src_node */
		0, 0, 1, 0,		/* dst_node */
		0xff, 0xff, 0xff, 0xfe,	/* op */
		0, 0, 0, 0,		/* result */
		'a', 'b', 'c',
	};
	struct imex_msg m = {
		.type = IMEX_MSG_CALL,
		.flags = IMEX_WIRE_F_PAYLOAD | IMEX_WIRE_F_SEALED,
		.length = 3,
		.req_id = 0x12345678,
		.src_node = 2,
		.dst_node = 256,
		.op = 0xfffffffe,
		.payload = (const uint8_t *)"abc",
		.tag = tag,
	};
	size_t i;

	fill(tag, sizeof(tag), 40);
	ck_assert_int_eq(imex_wire_encode(buf, sizeof(buf), &m),
			 sizeof(want) + IMEX_WIRE_TAG_LEN);
	ck_assert_mem_eq(buf, want, sizeof(want));
	ck_assert_mem_eq(buf + sizeof(want), tag, IMEX_WIRE_TAG_LEN);
	/* No tag given: room for one, zeroed, for the caller to seal in place. */
	m.tag = NULL;
	memset(buf, 0xff, sizeof(buf));
	ck_assert_int_eq(imex_wire_encode(buf, sizeof(buf), &m),
			 sizeof(want) + IMEX_WIRE_TAG_LEN);
	for (i = 0; i < IMEX_WIRE_TAG_LEN; i++)
		ck_assert_uint_eq(buf[sizeof(want) + i], 0);
	ck_assert_uint_eq(IMEX_WIRE_HDR_LEN, 32);
}
END_TEST

START_TEST(every_type)
{
	uint8_t hello_bytes[IMEX_WIRE_HELLO_LEN], proof[IMEX_WIRE_TAG_LEN];
	struct imex_msg hello = {
		.type = IMEX_MSG_HELLO,
		.flags = IMEX_WIRE_F_PAYLOAD,
		.length = IMEX_WIRE_HELLO_LEN,
		.src_node = 71,
		.dst_node = 2,
		.payload = hello_bytes,
	};
	struct imex_msg auth = {
		.type = IMEX_MSG_AUTH,
		.flags = IMEX_WIRE_F_PAYLOAD,
		.length = IMEX_WIRE_TAG_LEN,
		.src_node = 71,
		.dst_node = 2,
		.payload = proof,
	};
	struct imex_msg ping = {
		.type = IMEX_MSG_PING, .flags = IMEX_WIRE_F_SEALED,
		.src_node = 4, .dst_node = 1, .tag = tag,
	};
	struct imex_msg m = call(100);
	struct imex_msg reply = {
		.type = IMEX_MSG_REPLY,
		.flags = IMEX_WIRE_F_SEALED,
		.req_id = 1,
		.src_node = 5,
		.dst_node = 3,
		.op = 9,
		.result = EHOSTDOWN,
		.tag = tag,
	};

	fill(hello_bytes, sizeof(hello_bytes), 1);
	fill(proof, sizeof(proof), 7);
	fill(payload, sizeof(payload), 2);
	fill(tag, sizeof(tag), 5);
	round_trip(&hello);
	round_trip(&auth);
	round_trip(&ping);
	round_trip(&m);
	/* One-way, a payload, none, an empty one. */
	m.req_id = 0;
	round_trip(&m);
	m.flags = IMEX_WIRE_F_SEALED;
	m.length = 0;
	round_trip(&m);
	m.flags = IMEX_WIRE_F_PAYLOAD | IMEX_WIRE_F_SEALED;
	round_trip(&m);
	round_trip(&reply);
	reply.result = 0;
	reply.flags = IMEX_WIRE_F_PAYLOAD | IMEX_WIRE_F_SEALED;
	reply.length = IMEX_WIRE_PAYLOAD_MAX;
	reply.payload = payload;
	round_trip(&reply);
	reply.result = IMEX_WIRE_RESULT_MAX;
	reply.length = 0;
	round_trip(&reply);
}
END_TEST

/* Cut anywhere, a message waits for its end; the next one follows. */
START_TEST(partial_and_back_to_back)
{
	struct imex_msg a = call(1000), b = {
		.type = IMEX_MSG_PING, .flags = IMEX_WIRE_F_SEALED, .src_node = 3,
	};
	struct imex_msg out;
	ssize_t na, nb;
	size_t len;

	fill(payload, sizeof(payload), 3);
	na = imex_wire_encode(buf, sizeof(buf), &a);
	nb = imex_wire_encode(buf + na, sizeof(buf) - na, &b);
	ck_assert_int_eq(nb, IMEX_WIRE_HDR_LEN + IMEX_WIRE_TAG_LEN);
	for (len = 0; len < (size_t)na; len++)
		ck_assert_msg(imex_wire_decode(buf, len, &out) == 0,
			      "%zu bytes of %zd decoded", len, na);
	ck_assert_int_eq(imex_wire_decode(buf, na + nb, &out), na);
	ck_assert_uint_eq(out.op, 9);
	ck_assert_mem_eq(out.payload, payload, 1000);
	for (len = 0; len < (size_t)nb; len++)
		ck_assert_int_eq(imex_wire_decode(buf + na, len, &out), 0);
	ck_assert_int_eq(imex_wire_decode(buf + na, nb, &out), nb);
	ck_assert_uint_eq(out.type, IMEX_MSG_PING);
}
END_TEST

START_TEST(bad_magic)
{
	struct imex_msg m = { .type = IMEX_MSG_PING, .flags = IMEX_WIRE_F_SEALED }, out;

	imex_wire_encode(buf, sizeof(buf), &m);
	buf[3] ^= 1;
	/* Four bytes are enough to tell. */
	ck_assert_int_eq(imex_wire_decode(buf, 3, &out), 0);
	ck_assert_int_eq(imex_wire_decode(buf, 4, &out), -EBADMSG);
	ck_assert_int_eq(imex_wire_decode(buf, IMEX_WIRE_HDR_LEN, &out), -EBADMSG);
	/* Text, as a stray HTTP client sends. */
	ck_assert_int_eq(imex_wire_decode("GET / HTTP/1.0\r\n\r\n", 18, &out),
			 -EBADMSG);
}
END_TEST

START_TEST(other_version)
{
	struct imex_msg m = { .type = IMEX_MSG_PING, .flags = IMEX_WIRE_F_SEALED }, out;

	imex_wire_encode(buf, sizeof(buf), &m);
	/* Version 1, without authentication, and a later one. */
	buf[4] = 1;
	ck_assert_int_eq(imex_wire_decode(buf, IMEX_WIRE_HDR_LEN, &out),
			 -EPROTONOSUPPORT);
	ck_assert_uint_eq(out.version, 1);
	buf[4] = 3;
	ck_assert_int_eq(imex_wire_decode(buf, IMEX_WIRE_HDR_LEN, &out),
			 -EPROTONOSUPPORT);
	ck_assert_uint_eq(out.version, 3);
	buf[4] = 0;
	ck_assert_int_eq(imex_wire_decode(buf, IMEX_WIRE_HDR_LEN, &out),
			 -EPROTONOSUPPORT);
	ck_assert_uint_eq(out.version, 0);
}
END_TEST

/* A length too long is refused once the header is in: no waiting for it. */
START_TEST(oversized)
{
	static const uint32_t lengths[] = {
		IMEX_WIRE_PAYLOAD_MAX + 1, 1u << 20, 0x7fffffff, 0xffffffff,
	};
	struct imex_msg m = call(10), out;
	size_t i;

	for (i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
		imex_wire_encode(buf, sizeof(buf), &m);
		put32(buf + 8, lengths[i]);
		ck_assert_int_eq(imex_wire_decode(buf, IMEX_WIRE_HDR_LEN, &out),
				 -EMSGSIZE);
		ck_assert_int_eq(imex_wire_decode(buf, sizeof(buf), &out),
				 -EMSGSIZE);
	}
	/* The largest is fine, and waits for all of itself. */
	imex_wire_encode(buf, sizeof(buf), &m);
	put32(buf + 8, IMEX_WIRE_PAYLOAD_MAX);
	ck_assert_int_eq(imex_wire_decode(buf, IMEX_WIRE_MSG_MAX - 1, &out), 0);
	ck_assert_int_eq(imex_wire_decode(buf, IMEX_WIRE_MSG_MAX, &out),
			 IMEX_WIRE_MSG_MAX);
}
END_TEST

/* Each field a type must not have, set on an otherwise good message. */
static void refused_with(struct imex_msg m, size_t offset, uint32_t value,
			 int want)
{
	struct imex_msg out;
	ssize_t n = imex_wire_encode(buf, sizeof(buf), &m);

	ck_assert_int_gt(n, 0);
	if (offset == 5)
		buf[5] = value;
	else if (offset == 6)
		buf[6] = value >> 8, buf[7] = value;
	else
		put32(buf + offset, value);
	ck_assert_msg(imex_wire_decode(buf, n, &out) == want,
		      "type %u, offset %zu = %u: %zd, not %d", m.type, offset,
		      value, imex_wire_decode(buf, n, &out), want);
}

START_TEST(bad_fields)
{
	uint8_t hello_bytes[IMEX_WIRE_HELLO_LEN] = { 0 };
	struct imex_msg hello = {
		.type = IMEX_MSG_HELLO,
		.flags = IMEX_WIRE_F_PAYLOAD,
		.length = IMEX_WIRE_HELLO_LEN,
		.payload = hello_bytes,
	};
	struct imex_msg ping = { .type = IMEX_MSG_PING, .flags = IMEX_WIRE_F_SEALED };
	struct imex_msg reply = {
		.type = IMEX_MSG_REPLY, .flags = IMEX_WIRE_F_SEALED, .req_id = 1,
	};
	struct imex_msg auth = {
		.type = IMEX_MSG_AUTH,
		.flags = IMEX_WIRE_F_PAYLOAD,
		.length = IMEX_WIRE_TAG_LEN,
		.payload = tag,
	};
	static const unsigned int types[] = { 0, IMEX_MSG_AUTH + 1, 0x80, 0xff };
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		refused_with(ping, 5, types[i], -EBADMSG);
	/* Flags: unknown bits; a payload without its flag. */
	refused_with(ping, 6, 4 | IMEX_WIRE_F_SEALED, -EBADMSG);
	refused_with(ping, 6, 0x8000 | IMEX_WIRE_F_SEALED, -EBADMSG);
	refused_with(call(4), 6, IMEX_WIRE_F_SEALED, -EBADMSG);
	/* Sealed: every message but the handshake's two, always. */
	refused_with(ping, 6, 0, -EBADMSG);
	refused_with(call(4), 6, IMEX_WIRE_F_PAYLOAD, -EBADMSG);
	refused_with(reply, 6, 0, -EBADMSG);
	refused_with(hello, 6, IMEX_WIRE_F_PAYLOAD | IMEX_WIRE_F_SEALED,
		     -EBADMSG);
	refused_with(auth, 6, IMEX_WIRE_F_PAYLOAD | IMEX_WIRE_F_SEALED,
		     -EBADMSG);
	/* HELLO: a UUID and a nonce, nothing else. */
	refused_with(hello, 8, IMEX_WIRE_UUID_LEN, -EMSGSIZE);
	refused_with(hello, 8, IMEX_WIRE_HELLO_LEN - 1, -EMSGSIZE);
	refused_with(hello, 12, 1, -EBADMSG);
	refused_with(hello, 24, 1, -EBADMSG);
	refused_with(hello, 28, 1, -EBADMSG);
	/* AUTH: a proof, nothing else. */
	refused_with(auth, 8, IMEX_WIRE_TAG_LEN - 1, -EMSGSIZE);
	refused_with(auth, 12, 1, -EBADMSG);
	refused_with(auth, 24, 1, -EBADMSG);
	refused_with(auth, 28, 1, -EBADMSG);
	/* PING: nothing. */
	refused_with(ping, 12, 1, -EBADMSG);
	refused_with(ping, 24, 1, -EBADMSG);
	refused_with(ping, 28, 1, -EBADMSG);
	/* CALL: no result; REPLY: a request and an errno. */
	refused_with(call(0), 28, 5, -EBADMSG);
	refused_with(reply, 12, 0, -EBADMSG);
	refused_with(reply, 28, IMEX_WIRE_RESULT_MAX + 1, -EBADMSG);
	refused_with(reply, 28, 0xffffffff, -EBADMSG);
}
END_TEST

/* encode writes only what decode takes. */
START_TEST(encode_refuses)
{
	struct imex_msg m = call(IMEX_WIRE_PAYLOAD_MAX + 1);
	struct imex_msg hello = { .type = IMEX_MSG_HELLO };
	struct imex_msg odd = { .type = 9 };

	ck_assert_int_eq(imex_wire_encode(buf, sizeof(buf), &m), -EINVAL);
	ck_assert_int_eq(imex_wire_encode(buf, sizeof(buf), &hello), -EINVAL);
	ck_assert_int_eq(imex_wire_encode(buf, sizeof(buf), &odd), -EINVAL);
	m = call(100);
	ck_assert_int_eq(imex_wire_encode(buf, IMEX_WIRE_HDR_LEN + 99 +
					  IMEX_WIRE_TAG_LEN, &m), -ENOBUFS);
	ck_assert_int_eq(imex_wire_encode(buf, IMEX_WIRE_HDR_LEN + 100 +
					  IMEX_WIRE_TAG_LEN, &m),
			 IMEX_WIRE_HDR_LEN + 100 + IMEX_WIRE_TAG_LEN);
	/* Unsealed, a CALL is refused as decode would. */
	m.flags = IMEX_WIRE_F_PAYLOAD;
	ck_assert_int_eq(imex_wire_encode(buf, sizeof(buf), &m), -EINVAL);
}
END_TEST

/*
 * Random bytes, and good messages with random bytes changed: decode never
 * reads past what it is given and never takes more than it has.
 */
START_TEST(random_garbage)
{
	struct imex_msg m = call(200), out;
	unsigned int seed = 12345;
	size_t len, i;
	ssize_t n;
	int round;

	for (round = 0; round < 20000; round++) {
		len = rand_r(&seed) % 300;
		if (round % 2) {
			for (i = 0; i < len; i++)
				buf[i] = rand_r(&seed);
		} else {
			m.length = rand_r(&seed) % 200;
			m.flags = IMEX_WIRE_F_SEALED |
				  (m.length ? IMEX_WIRE_F_PAYLOAD : 0);
			len = imex_wire_encode(buf, sizeof(buf), &m);
			buf[rand_r(&seed) % len] ^= 1 << (rand_r(&seed) % 8);
			len = rand_r(&seed) % (len + 1);
		}
		/* A copy of exactly len bytes, for a sanitizer to watch. */
		{
			uint8_t *copy = malloc(len ? len : 1);

			memcpy(copy, buf, len);
			n = imex_wire_decode(copy, len, &out);
			free(copy);
		}
		ck_assert_int_le(n, (ssize_t)len);
		ck_assert(n >= 0 || n == -EBADMSG || n == -EMSGSIZE ||
			  n == -EPROTONOSUPPORT);
		if (n > 0)
			ck_assert_int_eq(n, wire_len(&out));
	}
}
END_TEST

START_TEST(type_names)
{
	ck_assert_str_eq(imex_wire_type_name(IMEX_MSG_HELLO), "HELLO");
	ck_assert_str_eq(imex_wire_type_name(IMEX_MSG_PING), "PING");
	ck_assert_str_eq(imex_wire_type_name(IMEX_MSG_CALL), "CALL");
	ck_assert_str_eq(imex_wire_type_name(IMEX_MSG_REPLY), "REPLY");
	ck_assert_str_eq(imex_wire_type_name(IMEX_MSG_AUTH), "AUTH");
	ck_assert_str_eq(imex_wire_type_name(0), "?");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cumc-imex wire");
	TCase *tc = tcase_create("framing");
	TCase *bad = tcase_create("garbage");

	tcase_add_test(tc, header_bytes);
	tcase_add_test(tc, every_type);
	tcase_add_test(tc, partial_and_back_to_back);
	tcase_add_test(tc, type_names);
	suite_add_tcase(s, tc);
	tcase_add_test(bad, bad_magic);
	tcase_add_test(bad, other_version);
	tcase_add_test(bad, oversized);
	tcase_add_test(bad, bad_fields);
	tcase_add_test(bad, encode_refuses);
	tcase_add_test(bad, random_garbage);
	suite_add_tcase(s, bad);
	return check_run(s);
}
