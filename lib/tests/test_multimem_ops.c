// SPDX-License-Identifier: MIT
/*
 * The data path's reduction loops over ordinary memory (runs on the host):
 * every team size from 1 to 11, so that each way of splitting the members
 * into passes of one to four is taken, for every type and operator; and
 * results written to an unaligned destination. Each build of the loops
 * this CPU runs (baseline, AVX2, AVX-512) is checked, and the copy of
 * multimem.st every way (memcpy; streaming stores, past the L2
 * cache; the loop it runs under an emulator).
 */
#include <check.h>
#include <cumc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_run.h"
#include "multimem.h"
#include "multimem_isa.h"
#include "multimem_ops.h"
#include "multimem_ref.h"

#define MAX_MEMBERS 11
#define ELEMENTS 5000	/* more than one block, not a multiple of one */

/* A mapping whose views are plain buffers, each holding member values. */
static struct libcumc_mc_mapping *fake_team(unsigned int members,
					    cumcDataType type, size_t count)
{
	struct libcumc_mc_mapping *map;
	unsigned int m;
	size_t i;

	map = calloc(1, sizeof(*map) + members * sizeof(map->views[0]));
	ck_assert_ptr_nonnull(map);
	map->num_members = members;
	map->length = count * libcumc_type_size(type);
	for (m = 0; m < members; m++) {
		map->views[m] = malloc(map->length);
		ck_assert_ptr_nonnull(map->views[m]);
		for (i = 0; i < count; i++)
			put(map->views[m], type, i, value((int)m, i));
	}
	return map;
}

static void free_team(struct libcumc_mc_mapping *map)
{
	unsigned int m;

	for (m = 0; m < map->num_members; m++)
		free(map->views[m]);
	free(map);
}

/* Reduce @count elements of @members members and check every one. */
static void check_reduction(const struct case_ *c, unsigned int members,
			    size_t count, size_t misalign)
{
	struct libcumc_mc_mapping *map = fake_team(members, c->type, count);
	struct libcumc_mc_span span = { .map = map };
	unsigned char *buf = malloc(count * libcumc_type_size(c->type) +
				    misalign);
	unsigned char *out = buf + misalign;
	size_t i;
	int m;

	ck_assert_ptr_nonnull(buf);
	libcumc_mc_ld_reduce(out, &span, count, c->type, c->op);
	for (i = 0; i < count; i++) {
		double want_f = float_value(c->type, 0, i), got_f;
		uint64_t want_i = int_value(c->type, 0, i), got_i;

		for (m = 1; m < (int)members; m++) {
			want_f = ref_float(c->op, want_f, float_value(c->type, m, i));
			want_i = ref_int(c->type, c->op, want_i,
					 int_value(c->type, m, i));
		}
		if (is_float(c->type)) {
			got_f = get_float(out, c->type, i);
			ck_assert_msg(got_f == want_f,
				      "type %d op %d members %u element %zu: %g, want %g",
				      c->type, c->op, members, i, got_f, want_f);
		} else {
			got_i = get_int(out, c->type, i);
			ck_assert_msg(got_i == want_i,
				      "type %d op %d members %u element %zu: %llx, want %llx",
				      c->type, c->op, members, i,
				      (unsigned long long)got_i,
				      (unsigned long long)want_i);
		}
	}
	free(buf);
	free_team(map);
}

START_TEST(every_team_size_type_and_op)
{
	unsigned int members;

	for (members = 1; members <= MAX_MEMBERS; members++)
		check_reduction(&cases[_i], members, ELEMENTS, 0);
}
END_TEST

/* A destination the caller did not align, big types and small. */
START_TEST(unaligned_destination)
{
	static const struct case_ some[] = {
		{ CUMC_F32, CUMC_OP_ADD }, { CUMC_F64, CUMC_OP_ADD },
		{ CUMC_BF16, CUMC_OP_ADD }, { CUMC_U64, CUMC_OP_XOR },
	};

	check_reduction(&some[_i], 3, ELEMENTS, 4);
	check_reduction(&some[_i], 8, ELEMENTS, 6);
}
END_TEST

#define NUM_CASES (sizeof(cases) / sizeof(cases[0]))

/* Each case with each build of the loops this CPU can run. */
START_TEST(every_build)
{
	enum libcumc_isa isa = _i / NUM_CASES;

	if (!libcumc_isa_supported(isa))
		return;
	libcumc_multimem_force_isa(isa, false);
	check_reduction(&cases[_i % NUM_CASES], 8, ELEMENTS, 0);
	check_reduction(&cases[_i % NUM_CASES], 3, ELEMENTS, 2);
}
END_TEST

/*
 * multimem.st's copy, natively (within the cache and past it) and as under
 * TCG: every length to 200 + a block, the destination at every offset
 * from a 16-byte boundary, nothing outside it written.
 */
static const size_t copy_members_bytes[] = { 4096, SIZE_MAX, 4096 };

START_TEST(copy_every_way)
{
	enum { LEN = 4096 + 200 };
	static unsigned char src[LEN + 16] __attribute__((aligned(16)));
	static unsigned char dst[LEN + 16] __attribute__((aligned(16)));
	size_t len, i, at;
	enum libcumc_isa isa;

	for (i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)(i * 7 + 1);
	for (isa = 0; isa < LIBCUMC_ISA_COUNT; isa++) {
		if (!libcumc_isa_supported(isa))
			continue;
		libcumc_multimem_force_isa(isa, _i == 2);
		for (len = 0; len <= LEN; len += len < 200 ? 1 : 4096) {
			at = len % 16;
			memset(dst, 0, sizeof(dst));
			libcumc_copy_for_st(copy_members_bytes[_i])(dst + at,
								     src + 1, len);
			for (i = 0; i < sizeof(dst); i++)
				ck_assert_uint_eq(dst[i], i >= at && i < at + len ?
						  src[1 + i - at] : 0);
		}
	}
}
END_TEST

/* Past this core's L2 cache, and only there, st streams (where it can). */
START_TEST(streams_past_the_cache)
{
	long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);

	libcumc_multimem_force_isa(LIBCUMC_ISA_BASE, false);
	ck_assert_ptr_eq(libcumc_copy_for_st(4096), memcpy);
	if (l2 <= 0)
		return;
	ck_assert_ptr_eq(libcumc_copy_for_st(l2), memcpy);
	ck_assert_ptr_eq(libcumc_copy_for_st(l2 + 1), libcumc_copy_streaming);
	libcumc_multimem_force_isa(LIBCUMC_ISA_BASE, true);
	ck_assert_ptr_ne(libcumc_copy_for_st(SIZE_MAX), libcumc_copy_streaming);
}
END_TEST

static Suite *multimem_ops_suite(void)
{
	Suite *s = suite_create("multimem loops");
	TCase *tc = tcase_create("ld_reduce");

	tcase_add_loop_test(tc, every_team_size_type_and_op, 0,
			    sizeof(cases) / sizeof(cases[0]));
	tcase_add_loop_test(tc, unaligned_destination, 0, 4);
	tcase_add_loop_test(tc, every_build, 0, LIBCUMC_ISA_COUNT * NUM_CASES);
	tcase_add_loop_test(tc, copy_every_way, 0,
			    sizeof(copy_members_bytes) / sizeof(copy_members_bytes[0]));
	tcase_add_test(tc, streams_past_the_cache);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(multimem_ops_suite());
}
