// SPDX-License-Identifier: MIT
/*
 * cuGetErrorName and cuGetErrorString for every CUresult value from -64 to
 * 1100, as the driver libcuda.so.1 names answers them: one line for each
 * value it knows,
 *
 *	<value>	<name>	<string>
 *
 * then one line for what it does with each other value, and with a NULL
 * output pointer:
 *
 *	unknown	<result of cuGetErrorName> <output>	<result of cuGetErrorString> <output>
 *	null	<result of cuGetErrorName>	<result of cuGetErrorString>
 *
 * (a result, or "signal N" where the call crashed: NVIDIA's driver writes
 * through the pointer unchecked).
 *
 * record.sh runs it on NVIDIA's driver, check.sh on libcumc; both build it
 * against the toolkit's cuda.h. No cuInit: the calls work without one.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda.h>

#define FIRST_VALUE -64
#define LAST_VALUE 1100

static const char *untouched = "untouched";

static const char *output(const char *str)
{
	if (!str)
		return "NULL";
	return str == untouched ? "untouched" : "set";
}

/* How the calls treat a value they do not know, as one line. */
static void describe_unknown(CUresult value, char *buf, size_t len)
{
	const char *name = untouched, *string = untouched;
	CUresult name_res = cuGetErrorName(value, &name);
	CUresult string_res = cuGetErrorString(value, &string);

	snprintf(buf, len, "unknown\t%d %s\t%d %s", (int)name_res,
		 output(name), (int)string_res, output(string));
}

/* CALL with a NULL output, in a child: its result, or the signal it died of. */
static void describe_null(const char *which, int call)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		CUresult res = call ? cuGetErrorString(CUDA_SUCCESS, NULL) :
				      cuGetErrorName(CUDA_SUCCESS, NULL);
		_exit((int)res & 0x7f);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		printf("%sfork failed", which);
	else if (WIFSIGNALED(status))
		printf("%ssignal %d", which, WTERMSIG(status));
	else
		printf("%s%d", which, WEXITSTATUS(status));
}

int main(void)
{
	char seen[8][96], line[96];
	int num_seen = 0, i;
	long long value;

	for (value = FIRST_VALUE; value <= LAST_VALUE; value++) {
		const char *name = NULL, *string = NULL;

		if (cuGetErrorName((CUresult)value, &name) == CUDA_SUCCESS &&
		    cuGetErrorString((CUresult)value, &string) == CUDA_SUCCESS) {
			printf("%lld\t%s\t%s\n", value, name ? name : "NULL",
			       string ? string : "NULL");
			continue;
		}
		describe_unknown((CUresult)value, line, sizeof(line));
		for (i = 0; i < num_seen && strcmp(seen[i], line); i++)
			;
		if (i == num_seen && num_seen < 8)
			strcpy(seen[num_seen++], line);
	}
	for (i = 0; i < num_seen; i++)
		puts(seen[i]);
	describe_null("null\t", 0);
	describe_null("\t", 1);
	putchar('\n');
	return 0;
}
