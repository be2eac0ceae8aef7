// SPDX-License-Identifier: MIT
/*
 * cuInit: opens the client on /dev/cumc (runs inside the VM).
 */
#include <check.h>
#include <cuda.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_run.h"

START_TEST(init_succeeds_and_repeats)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
}
END_TEST

START_TEST(init_flags_refused)
{
	ck_assert_int_eq(cuInit(1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuInit(~0u), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(init_without_device_answers_no_device)
{
	setenv("CUMC_DEVICE", "/nonexistent/cumc", 1);
	ck_assert_int_eq(cuInit(0), CUDA_ERROR_NO_DEVICE);
	setenv("CUMC_DEVICE", "/dev/null", 1);
	ck_assert_int_eq(cuInit(0), CUDA_ERROR_NO_DEVICE);
	unsetenv("CUMC_DEVICE");
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
}
END_TEST

START_TEST(forked_child_initializes_its_own_client)
{
	int status;
	pid_t pid;

	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(cuInit(0) == CUDA_SUCCESS ? 0 : 1);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cuInit");
	TCase *tc = tcase_create("init");

	tcase_add_test(tc, init_succeeds_and_repeats);
	tcase_add_test(tc, init_flags_refused);
	tcase_add_test(tc, init_without_device_answers_no_device);
	tcase_add_test(tc, forked_child_initializes_its_own_client);
	suite_add_tcase(s, tc);
	return check_run(s);
}
