// SPDX-License-Identifier: MIT
/*
 * cuGetErrorName and cuGetErrorString: every CUresult of the header has a
 * name equal to its enumerator and a description; anything else is refused
 * the way the real driver refuses it. That each description is the real
 * driver's (two codes share one there) is conformance/errors/check.sh's.
 *
 * The list of codes comes from tests/abi/abi_list.h, which abi_check.sh
 * holds equal to the toolkit's cuda.h.
 */
#include <check.h>
#include <cuda.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"

struct known_result {
	CUresult code;
	const char *name;
};

#define ABI_RESULT(name) { name, #name },
static const struct known_result known_results[] = {
#include "abi/abi_list.h"
};
#undef ABI_RESULT

#define NUM_KNOWN_RESULTS (sizeof(known_results) / sizeof(known_results[0]))

static int is_known(long long code)
{
	size_t i;

	for (i = 0; i < NUM_KNOWN_RESULTS; i++)
		if ((long long)known_results[i].code == code)
			return 1;
	return 0;
}

START_TEST(list_covers_the_13_0_header)
{
	/* CUDA 13.0 defines 101 codes; a different count means a stale list. */
	ck_assert_uint_eq(NUM_KNOWN_RESULTS, 101);
}
END_TEST

START_TEST(every_code_has_its_enumerator_name)
{
	const struct known_result *known = &known_results[_i];
	const char *name = NULL;

	ck_assert_int_eq(cuGetErrorName(known->code, &name), CUDA_SUCCESS);
	ck_assert_ptr_nonnull(name);
	ck_assert_str_eq(name, known->name);
	ck_assert(strncmp(name, "CUDA_ERROR_", 11) == 0 ||
		  strcmp(name, "CUDA_SUCCESS") == 0);
}
END_TEST

START_TEST(every_code_has_a_description)
{
	const struct known_result *known = &known_results[_i];
	const char *text = NULL;

	ck_assert_int_eq(cuGetErrorString(known->code, &text), CUDA_SUCCESS);
	ck_assert_ptr_nonnull(text);
	ck_assert_uint_gt(strlen(text), 0);
}
END_TEST

START_TEST(representative_codes)
{
	const char *name, *text;

	ck_assert_int_eq(cuGetErrorName(CUDA_ERROR_SYSTEM_NOT_READY, &name),
			 CUDA_SUCCESS);
	ck_assert_str_eq(name, "CUDA_ERROR_SYSTEM_NOT_READY");
	ck_assert_int_eq(cuGetErrorName(CUDA_ERROR_UNKNOWN, &name),
			 CUDA_SUCCESS);
	ck_assert_str_eq(name, "CUDA_ERROR_UNKNOWN");
	ck_assert_int_eq(cuGetErrorName((CUresult)401, &name), CUDA_SUCCESS);
	ck_assert_str_eq(name, "CUDA_ERROR_ILLEGAL_STATE");
	ck_assert_int_eq(cuGetErrorString(CUDA_SUCCESS, &text), CUDA_SUCCESS);
	ck_assert_int_eq(cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &text),
			 CUDA_SUCCESS);
}
END_TEST

/* Every value from -64 to 1100: known iff in the header. */
START_TEST(only_defined_values_answer)
{
	long long value;

	for (value = -64; value <= 1100; value++) {
		CUresult code = (CUresult)value;
		const char *name = "untouched", *text = "untouched";
		CUresult expected = is_known(value) ? CUDA_SUCCESS :
						      CUDA_ERROR_INVALID_VALUE;

		ck_assert_msg(cuGetErrorName(code, &name) == expected &&
			      cuGetErrorString(code, &text) == expected,
			      "value %lld: expected %d", value, expected);
		if (expected != CUDA_SUCCESS)
			ck_assert_msg(!name && !text,
				      "value %lld: output not cleared", value);
	}
}
END_TEST

START_TEST(extreme_values_refused)
{
	static const long long extremes[] = { INT_MIN, INT_MAX, UINT_MAX };
	const char *str = "untouched";
	size_t i;

	for (i = 0; i < sizeof(extremes) / sizeof(extremes[0]); i++) {
		CUresult code = (CUresult)extremes[i];

		ck_assert_int_eq(cuGetErrorName(code, &str),
				 CUDA_ERROR_INVALID_VALUE);
		ck_assert_ptr_null(str);
		str = "untouched";
		ck_assert_int_eq(cuGetErrorString(code, &str),
				 CUDA_ERROR_INVALID_VALUE);
		ck_assert_ptr_null(str);
	}
}
END_TEST

START_TEST(null_output_refused)
{
	ck_assert_int_eq(cuGetErrorName(CUDA_SUCCESS, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGetErrorString(CUDA_SUCCESS, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGetErrorName((CUresult)3000, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGetErrorString((CUresult)3000, NULL),
			 CUDA_ERROR_INVALID_VALUE);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cuGetErrorName/cuGetErrorString");
	TCase *known = tcase_create("known codes");
	TCase *unknown = tcase_create("unknown codes and bad arguments");

	tcase_add_test(known, list_covers_the_13_0_header);
	tcase_add_loop_test(known, every_code_has_its_enumerator_name, 0,
			    NUM_KNOWN_RESULTS);
	tcase_add_loop_test(known, every_code_has_a_description, 0,
			    NUM_KNOWN_RESULTS);
	tcase_add_test(known, representative_codes);
	suite_add_tcase(s, known);

	tcase_add_test(unknown, only_defined_values_answer);
	tcase_add_test(unknown, extreme_values_refused);
	tcase_add_test(unknown, null_output_refused);
	suite_add_tcase(s, unknown);

	return check_run(s);
}
