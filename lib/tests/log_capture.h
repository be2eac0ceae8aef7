/* SPDX-License-Identifier: MIT */
/*
 * Test helper for CUMC_LOG (lib/log.h): what the library writes to a
 * descriptor while a test runs, and what a program that loads libcumc with
 * CUMC_LOG already set writes.
 */
#ifndef CUMC_TESTS_LOG_CAPTURE_H
#define CUMC_TESTS_LOG_CAPTURE_H

#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"

/* Sets CUMC_LOG (NULL: unsets it) and has the library read it again. */
static inline void log_set(const char *value)
{
	if (value)
		ck_assert_int_eq(setenv("CUMC_LOG", value, 1), 0);
	else
		ck_assert_int_eq(unsetenv("CUMC_LOG"), 0);
	libcumc_log_setup();
}

/* Everything @fd holds, from its start, NUL-terminated; closes @fd. */
static inline char *log_slurp(int fd)
{
	size_t len = 0, cap = 4096;
	char *text = malloc(cap);
	ssize_t n;

	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	while ((n = read(fd, text + len, cap - len - 1)) > 0) {
		len += n;
		if (cap - len == 1) {
			cap *= 2;
			text = realloc(text, cap);
			ck_assert_ptr_nonnull(text);
		}
	}
	ck_assert_int_ge(n, 0);
	text[len] = '\0';
	close(fd);
	return text;
}

/* Where @target_fd's output goes while captured. */
struct log_capture {
	int target_fd;
	int saved_fd;
	int file_fd;
};

static inline void log_capture_begin(struct log_capture *c, int target_fd)
{
	c->target_fd = target_fd;
	c->file_fd = memfd_create("cumc-log", MFD_CLOEXEC);
	ck_assert_int_ge(c->file_fd, 0);
	c->saved_fd = dup(target_fd);
	ck_assert_int_ge(c->saved_fd, 0);
	ck_assert_int_eq(dup2(c->file_fd, target_fd), target_fd);
}

/* What was written to the descriptor since log_capture_begin(). */
static inline char *log_capture_end(struct log_capture *c)
{
	ck_assert_int_eq(dup2(c->saved_fd, c->target_fd), c->target_fd);
	close(c->saved_fd);
	return log_slurp(c->file_fd);
}

/*
 * What a fresh process writes to its standard error when it runs this
 * program with the arguments @argv (argv[0] is replaced) and CUMC_LOG set
 * to @value from the start: the library reads it as it loads.
 */
static inline char *log_of_child(const char *value, char *const argv[])
{
	int fd = memfd_create("cumc-child-log", 0);
	int status;
	pid_t pid;

	ck_assert_int_ge(fd, 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char **args = (char **)argv;

		args[0] = "/proc/self/exe";
		if (dup2(fd, STDERR_FILENO) < 0 || setenv("CUMC_LOG", value, 1))
			_exit(126);
		execv("/proc/self/exe", args);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	return log_slurp(fd);
}

/*
 * libcuda.so.1 of this build (build/cuda, next to build/tests): the path
 * programs load libcumc by. No Check assertion: children call it too.
 */
static inline const char *log_libcuda_path(void)
{
	static char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 64);
	char *slash;

	if (n <= 0)
		return "";
	path[n] = '\0';
	slash = strrchr(path, '/');
	if (!slash)
		return "";
	strcpy(slash, "/../cuda/libcuda.so.1");
	return path;
}

#endif /* CUMC_TESTS_LOG_CAPTURE_H */
