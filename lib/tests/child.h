/* SPDX-License-Identifier: MIT */
/*
 * Test helper: run part of a test in a forked child, which starts with
 * libcumc uninitialized.  The child reports through its exit status
 * because Check's assertions belong to the parent.
 */
#ifndef CUMC_TESTS_CHILD_H
#define CUMC_TESTS_CHILD_H

#include <check.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

/* @body returns 0 when all its expectations held. */
static inline void assert_child_passes(int (*body)(void))
{
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(body());
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_msg(WEXITSTATUS(status) == 0, "the child failed (see stderr)");
}

/* In a child body: say which expectation failed, and give up. */
#define CHILD_EXPECT(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: in the child: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			return 1;					\
		}							\
	} while (0)

#endif /* CUMC_TESTS_CHILD_H */
