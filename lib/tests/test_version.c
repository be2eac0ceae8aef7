// SPDX-License-Identifier: MIT
/*
 * cuDriverGetVersion: answers without cuInit and without a device.
 */
#include <check.h>
#include <cuda.h>
#include <stdlib.h>

#include "check_run.h"

/* A 13.1 driver: newer than the 13.0 header, as drivers usually are. */
START_TEST(version_is_cuda_13_1)
{
	int version = 0;

	ck_assert_int_eq(cuDriverGetVersion(&version), CUDA_SUCCESS);
	ck_assert_int_eq(version, 13010);
	ck_assert_int_ge(version, CUDA_VERSION);
}
END_TEST

START_TEST(version_null_pointer_refused)
{
	ck_assert_int_eq(cuDriverGetVersion(NULL), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cuDriverGetVersion");
	TCase *tc = tcase_create("version");

	tcase_add_test(tc, version_is_cuda_13_1);
	tcase_add_test(tc, version_null_pointer_refused);
	suite_add_tcase(s, tc);
	return check_run(s);
}
