// SPDX-License-Identifier: MIT
/*
 * The hash of the CUDA runtime's integrity check (lib/md2.c,
 * lib/integrity.c): MD2 against RFC 1319's test suite, HMAC-MD2's inner
 * state after its key against the state ZLUDA published for the check's
 * key, the constant answers, and an answer that moves with each input
 * (lib/tests/test_export_tables.c checks the slot in the VM, and
 * lib/tests/abi/runtime.sh that the runtime accepts it). Host only.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check_run.h"
#include "integrity.h"
#include "md2.h"

static void md2_hex(const char *text, char hex[2 * LIBCUMC_MD2_SIZE + 1])
{
	unsigned char digest[LIBCUMC_MD2_SIZE];
	struct libcumc_md2 md;
	unsigned int i;

	libcumc_md2_init(&md);
	libcumc_md2_update(&md, text, strlen(text));
	libcumc_md2_final(&md, digest);
	for (i = 0; i < LIBCUMC_MD2_SIZE; i++)
		sprintf(&hex[2 * i], "%02x", digest[i]);
}

START_TEST(md2_matches_rfc_1319)
{
	static const char *const suite[][2] = {
		{ "", "8350e5a3e24c153df2275c9f80692773" },
		{ "a", "32ec01ec4a6dac72c0ab96fb34c0b5d1" },
		{ "abc", "da853b0d3f88d99b30283a69e6ded6bb" },
		{ "message digest", "ab4f496bfb2a530b219ff33031fe06b0" },
		{ "abcdefghijklmnopqrstuvwxyz",
		  "4e8ddff3650292ab5a4108c3aa47940b" },
		{ "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
		  "da33def2a42df13975352846c30338cd" },
		{ "1234567890123456789012345678901234567890123456789012345678901234"
		  "5678901234567890", "d5976f79d83d3a0dc9806c3c66f3efd8" },
	};
	char hex[2 * LIBCUMC_MD2_SIZE + 1];
	unsigned int i;

	for (i = 0; i < sizeof(suite) / sizeof(suite[0]); i++) {
		md2_hex(suite[i][0], hex);
		ck_assert_str_eq(hex, suite[i][1]);
	}
}
END_TEST

/* The 48-byte buffer once the check's key, xor 0x36, is taken. */
START_TEST(hmac_inner_state_after_the_key)
{
	static const unsigned char key[LIBCUMC_MD2_SIZE] = {
		0x14, 0x6a, 0xdd, 0xae, 0x53, 0xa9, 0xa7, 0x52,
		0xaa, 0x08, 0x41, 0x36, 0x0b, 0xf5, 0x5a, 0x9f,
	};
	static const unsigned char state[16] = {
		0x8b, 0x21, 0x9a, 0x49, 0xe8, 0x6d, 0x1a, 0xee,
		0xf2, 0x37, 0xf9, 0xb5, 0x4a, 0x8c, 0x3c, 0x75,
	};
	struct libcumc_hmac_md2 h;

	libcumc_hmac_md2_init(&h, key);
	ck_assert_mem_eq(h.inner.x, state, sizeof(state));
	ck_assert_uint_eq(h.inner.count, 0);
}
END_TEST

START_TEST(versions_ending_in_0_and_1_answer_constants)
{
	struct libcumc_integrity_input in = { .version = 13000 };
	uint64_t answer[2];

	libcumc_integrity_answer(&in, NULL, 0, answer);
	ck_assert_uint_eq(answer[0], 0x3341181c03cb675cull);
	ck_assert_uint_eq(answer[1], 0x8ed383aa1f4cd1e8ull);
	in.version = 12081;
	libcumc_integrity_answer(&in, NULL, 0, answer);
	ck_assert_uint_eq(answer[0], 0x1841181c03cb675cull);
	ck_assert_uint_eq(answer[1], 0x8ed383aa1f4cd1e8ull);
}
END_TEST

START_TEST(every_input_moves_the_answer)
{
	struct libcumc_integrity_device dev = {
		.uuid = { 1, 2, 3 }, .pci_bus = 0x18,
	};
	struct libcumc_integrity_input in = {
		.driver_version = 13010, .version = 13002, .process = 100,
		.thread = 200, .unix_seconds = 0x6b0bc34a,
	};
	struct libcumc_integrity_input moved;
	uint64_t base[2], other[2];
	unsigned int i;

	libcumc_integrity_answer(&in, &dev, 1, base);
	libcumc_integrity_answer(&in, &dev, 1, other);
	ck_assert_mem_eq(base, other, sizeof(base));
	for (i = 0; i < sizeof(in); i++) {
		moved = in;
		((unsigned char *)&moved)[i] ^= 1;
		libcumc_integrity_answer(&moved, &dev, 1, other);
		ck_assert_mem_ne(base, other, sizeof(base));
	}
	dev.pci_device = 1;
	libcumc_integrity_answer(&in, &dev, 1, other);
	ck_assert_mem_ne(base, other, sizeof(base));
	libcumc_integrity_answer(&in, &dev, 0, other);
	ck_assert_mem_ne(base, other, sizeof(base));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("integrity check");
	TCase *tc = tcase_create("hash");

	tcase_add_test(tc, md2_matches_rfc_1319);
	tcase_add_test(tc, hmac_inner_state_after_the_key);
	tcase_add_test(tc, versions_ending_in_0_and_1_answer_constants);
	tcase_add_test(tc, every_input_moves_the_answer);
	suite_add_tcase(s, tc);
	return check_run(s);
}
