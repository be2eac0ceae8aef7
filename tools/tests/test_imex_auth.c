// SPDX-License-Identifier: MIT
/*
 * cumc-imex's peer authentication (tools/imex_auth.c): the proofs and MACs
 * are the HMAC-SHA256 values imex_auth.h defines (known answers, computed
 * apart with Python's hmac module), two ends that hold the secret agree,
 * and every way of getting it wrong fails: another secret, a proof
 * replayed on another connection, reflected, or for other node indexes,
 * a message changed, replayed, reordered or dropped.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check_run.h"
#include "imex_auth.h"

static const uint8_t uuid[16] = {
	0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
	0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
};

static struct imex_secret secret(uint8_t first)
{
	struct imex_secret s = { .len = 32 };
	int i;

	for (i = 0; i < 32; i++)
		s.bytes[i] = first + i;
	return s;
}

static void unhex(const char *hex, uint8_t *out)
{
	unsigned int b;

	for (; *hex; hex += 2) {
		ck_assert_int_eq(sscanf(hex, "%2x", &b), 1);
		*out++ = b;
	}
}

/* Both ends of a connection of node 3 (initiator) to node 7. */
static void pair(struct imex_auth *ini, struct imex_auth *rsp)
{
	const uint8_t *n_ini, *n_rsp;

	memset(ini, 0, sizeof(*ini));
	memset(rsp, 0, sizeof(*rsp));
	ck_assert_int_eq(imex_auth_start(ini, true, 3, uuid, &n_ini), 0);
	ck_assert_int_eq(imex_auth_start(rsp, false, 7, uuid, &n_rsp), 0);
	imex_auth_peer(ini, 7, n_rsp);
	imex_auth_peer(rsp, 3, n_ini);
}

/* The values imex_auth.h defines, for fixed nonces. */
START_TEST(known_answers)
{
	struct imex_secret s = secret(0);
	struct imex_auth a = { 0 };
	uint8_t nonce[32], proof[32], want[32], tag[32];
	const uint8_t *mine;
	int i;

	ck_assert_int_eq(imex_auth_start(&a, true, 3, uuid, &mine), 0);
	ck_assert_ptr_eq(mine, a.nonce_ini);
	for (i = 0; i < 32; i++) {
		a.nonce_ini[i] = 0xa0 + i % 16;
		nonce[i] = 0x50 + i % 16;
	}
	imex_auth_peer(&a, 7, nonce);
	ck_assert_int_eq(imex_auth_proof(&a, &s, true, proof), 0);
	unhex("c9608daab114569a473f6037b5b7a16c9feab11b8bfa90e6227aa90327eae37d",
	      want);
	ck_assert_mem_eq(proof, want, 32);
	ck_assert_int_eq(imex_auth_proof(&a, &s, false, proof), 0);
	unhex("0274968f831345a78013b9486ff8a70d131b4f5e9e92e61e7e85125a19cd8742",
	      want);
	ck_assert_mem_eq(proof, want, 32);
	ck_assert(imex_auth_check(&a, &s, want));
	ck_assert_int_eq(imex_auth_keys(&a, &s), 0);
	ck_assert_int_eq(imex_auth_seal(&a, "hello message", 13, tag), 0);
	unhex("3504fb8b550689b02e7a02eef6dfed0983c1ddbae1cf48a28c5278067f9c492c",
	      want);
	ck_assert_mem_eq(tag, want, 32);
	ck_assert_int_eq(imex_auth_seal(&a, "hello message", 13, tag), 0);
	unhex("8f9afdef3ee2eb0a666d2264447d4b3dd1ff240ce17e599abe9cb53e1a8ca176",
	      want);
	ck_assert_mem_eq(tag, want, 32);
	imex_auth_end(&a);
}
END_TEST

START_TEST(nonces_are_fresh)
{
	struct imex_auth a = { 0 }, b = { 0 };
	const uint8_t *na, *nb;

	ck_assert_int_eq(imex_auth_start(&a, true, 1, uuid, &na), 0);
	ck_assert_int_eq(imex_auth_start(&b, true, 1, uuid, &nb), 0);
	ck_assert(memcmp(na, nb, IMEX_AUTH_NONCE_LEN));
	imex_auth_end(&a);
	imex_auth_end(&b);
}
END_TEST

/* Two ends of one secret: each checks the other, then messages flow both ways. */
START_TEST(both_ends_agree)
{
	struct imex_secret s = secret(9);
	struct imex_auth ini, rsp;
	uint8_t p_ini[32], p_rsp[32], tag[32];
	int i;

	pair(&ini, &rsp);
	ck_assert_int_eq(imex_auth_proof(&ini, &s, true, p_ini), 0);
	ck_assert_int_eq(imex_auth_proof(&rsp, &s, true, p_rsp), 0);
	ck_assert(imex_auth_check(&rsp, &s, p_ini));
	ck_assert(imex_auth_check(&ini, &s, p_rsp));
	/* A proof does not check as the other direction's: no reflection. */
	ck_assert(!imex_auth_check(&ini, &s, p_ini));
	ck_assert(!imex_auth_check(&rsp, &s, p_rsp));
	ck_assert_int_eq(imex_auth_keys(&ini, &s), 0);
	ck_assert_int_eq(imex_auth_keys(&rsp, &s), 0);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(imex_auth_seal(&ini, "call", 4, tag), 0);
		ck_assert(imex_auth_open(&rsp, "call", 4, tag));
		ck_assert_int_eq(imex_auth_seal(&rsp, "reply", 5, tag), 0);
		ck_assert(imex_auth_open(&ini, "reply", 5, tag));
	}
	imex_auth_end(&ini);
	imex_auth_end(&rsp);
}
END_TEST

START_TEST(wrong_secret)
{
	struct imex_secret s = secret(9), other = secret(10);
	struct imex_auth ini, rsp;
	uint8_t proof[32];

	pair(&ini, &rsp);
	ck_assert_int_eq(imex_auth_proof(&ini, &other, true, proof), 0);
	ck_assert(!imex_auth_check(&rsp, &s, proof));
	/* One bit of the secret is enough. */
	other = s;
	other.bytes[31] ^= 1;
	ck_assert_int_eq(imex_auth_proof(&ini, &other, true, proof), 0);
	ck_assert(!imex_auth_check(&rsp, &s, proof));
	/* A shorter secret with the same first bytes is another secret. */
	other = s;
	other.len = 31;
	ck_assert_int_eq(imex_auth_proof(&ini, &other, true, proof), 0);
	ck_assert(!imex_auth_check(&rsp, &s, proof));
	imex_auth_end(&ini);
	imex_auth_end(&rsp);
}
END_TEST

/* A good proof of one connection is worth nothing on another. */
START_TEST(replayed_proof)
{
	struct imex_secret s = secret(1);
	struct imex_auth ini, rsp, rsp2 = { 0 };
	const uint8_t *n_rsp2;
	uint8_t proof[32];

	pair(&ini, &rsp);
	ck_assert_int_eq(imex_auth_proof(&ini, &s, true, proof), 0);
	ck_assert(imex_auth_check(&rsp, &s, proof));
	/* The same initiator's nonce, a fresh one of the responder's. */
	ck_assert_int_eq(imex_auth_start(&rsp2, false, 7, uuid, &n_rsp2), 0);
	imex_auth_peer(&rsp2, 3, ini.nonce_ini);
	ck_assert(!imex_auth_check(&rsp2, &s, proof));
	imex_auth_end(&ini);
	imex_auth_end(&rsp);
	imex_auth_end(&rsp2);
}
END_TEST

/* A proof is for one pair of node indexes and one cluster. */
START_TEST(other_nodes)
{
	struct imex_secret s = secret(1);
	struct imex_auth ini, rsp;
	uint8_t proof[32];

	pair(&ini, &rsp);
	ck_assert_int_eq(imex_auth_proof(&ini, &s, true, proof), 0);
	rsp.node_ini = 4;
	ck_assert(!imex_auth_check(&rsp, &s, proof));
	rsp.node_ini = 3;
	rsp.node_rsp = 8;
	ck_assert(!imex_auth_check(&rsp, &s, proof));
	rsp.node_rsp = 7;
	rsp.cluster_uuid[0] ^= 1;
	ck_assert(!imex_auth_check(&rsp, &s, proof));
	rsp.cluster_uuid[0] ^= 1;
	ck_assert(imex_auth_check(&rsp, &s, proof));
	imex_auth_end(&ini);
	imex_auth_end(&rsp);
}
END_TEST

/* Nothing checks before the peer's HELLO is in. */
START_TEST(no_proof_before_hello)
{
	struct imex_secret s = secret(1);
	struct imex_auth a = { 0 };
	uint8_t proof[32] = { 0 };
	const uint8_t *n;

	ck_assert_int_eq(imex_auth_start(&a, false, 7, uuid, &n), 0);
	ck_assert_int_eq(imex_auth_proof(&a, &s, true, proof), -EIO);
	ck_assert(!imex_auth_check(&a, &s, proof));
	ck_assert_int_eq(imex_auth_keys(&a, &s), -EIO);
	imex_auth_end(&a);
}
END_TEST

/* Changed, replayed, reordered, dropped or the other direction's: refused. */
START_TEST(messages_tampered)
{
	struct imex_secret s = secret(5);
	struct imex_auth ini, rsp;
	uint8_t t0[32], t1[32], t2[32];

	pair(&ini, &rsp);
	ck_assert_int_eq(imex_auth_keys(&ini, &s), 0);
	ck_assert_int_eq(imex_auth_keys(&rsp, &s), 0);
	ck_assert_int_eq(imex_auth_seal(&ini, "abcd", 4, t0), 0);
	ck_assert_int_eq(imex_auth_seal(&ini, "efgh", 4, t1), 0);
	ck_assert_int_eq(imex_auth_seal(&ini, "ijkl", 4, t2), 0);
	ck_assert(!imex_auth_open(&rsp, "abce", 4, t0));
	ck_assert(!imex_auth_open(&rsp, "abc", 3, t0));
	ck_assert(!imex_auth_open(&rsp, "efgh", 4, t1));
	ck_assert(imex_auth_open(&rsp, "abcd", 4, t0));
	ck_assert(!imex_auth_open(&rsp, "abcd", 4, t0));
	/* The initiator's own tag does not open its way back. */
	ck_assert(!imex_auth_open(&ini, "abcd", 4, t0));
	/* Dropping one breaks the rest. */
	ck_assert(!imex_auth_open(&rsp, "ijkl", 4, t2));
	ck_assert(imex_auth_open(&rsp, "efgh", 4, t1));
	ck_assert(imex_auth_open(&rsp, "ijkl", 4, t2));
	imex_auth_end(&ini);
	imex_auth_end(&rsp);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cumc-imex auth");
	TCase *tc = tcase_create("handshake");

	tcase_add_test(tc, known_answers);
	tcase_add_test(tc, nonces_are_fresh);
	tcase_add_test(tc, both_ends_agree);
	tcase_add_test(tc, wrong_secret);
	tcase_add_test(tc, replayed_proof);
	tcase_add_test(tc, other_nodes);
	tcase_add_test(tc, no_proof_before_hello);
	tcase_add_test(tc, messages_tampered);
	suite_add_tcase(s, tc);
	return check_run(s);
}
