/* SPDX-License-Identifier: MIT */
/*
 * Test helper: what every Check test program's main() does once its suite
 * is built.  check_run() runs the suite and answers main's exit status;
 * check_add_uninit() adds the "before cuInit" case of the VM tests.
 */
#ifndef CUMC_TESTS_CHECK_RUN_H
#define CUMC_TESTS_CHECK_RUN_H

#include <check.h>
#include <stdlib.h>

/*
 * Adds the case "before cuInit", holding @test alone.  No fixture: each
 * test runs in a fresh child, never initialized (run the suite with
 * check_run_forked()).
 */
static inline void check_add_uninit(Suite *s, const TTest *test)
{
	TCase *uninit = tcase_create("before cuInit");

	tcase_add_test(uninit, test);
	suite_add_tcase(s, uninit);
}

/* Runs @s with the given fork mode; EXIT_FAILURE when any test failed. */
static inline int check_run_mode(Suite *s, enum fork_status fork_mode)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_set_fork_status(sr, fork_mode);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* Forks as the CK_FORK variable says: by default, a child per test. */
static inline int check_run(Suite *s)
{
	return check_run_mode(s, CK_FORK_GETENV);
}

/* A child per test whatever CK_FORK says: the tests count on it. */
static inline int check_run_forked(Suite *s)
{
	return check_run_mode(s, CK_FORK);
}

#endif /* CUMC_TESTS_CHECK_RUN_H */
