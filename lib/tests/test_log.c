// SPDX-License-Identifier: MIT
/*
 * CUMC_LOG without a device: the values it takes, the exact line of an
 * entry point that fails (before cuInit, on a bad argument, in cuInit
 * with the system call behind it), silence on success, on answers that
 * are not failures and while it is off, whole lines under threads, and
 * the same from libcuda.so.1 and from functions cuGetProcAddress hands
 * out.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <linux/cumc.h>
#include <sys/ioctl.h>

#include "check_run.h"
#include "log_capture.h"
#include "procaddr.h"

#define NOT_INIT_LINE(name) "cumc: " name ": CUDA_ERROR_NOT_INITIALIZED (3)\n"
#define BAD_VALUE_LINE(name) "cumc: " name ": CUDA_ERROR_INVALID_VALUE (1)\n"

/* Two calls that fail without a device, and the lines they make. */
static void fail_twice(void)
{
	CUdevice dev;

	ck_assert_int_eq(cuDeviceGet(&dev, 0), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuDriverGetVersion(NULL), CUDA_ERROR_INVALID_VALUE);
}

#define FAIL_TWICE_LINES \
	NOT_INIT_LINE("cuDeviceGet") BAD_VALUE_LINE("cuDriverGetVersion")

/* What fail_twice() writes to standard error with CUMC_LOG=@value. */
static char *stderr_of_fail_twice(const char *value)
{
	struct log_capture c;

	log_set(value);
	log_capture_begin(&c, STDERR_FILENO);
	fail_twice();
	return log_capture_end(&c);
}

START_TEST(off_when_unset_empty_or_0)
{
	const char *values[] = { NULL, "", "0" };
	size_t i;

	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		char *text = stderr_of_fail_twice(values[i]);

		ck_assert_msg(!*text, "CUMC_LOG=%s wrote \"%s\"",
			      values[i] ? values[i] : "(unset)", text);
		free(text);
	}
}
END_TEST

START_TEST(one_line_per_failure_on_stderr)
{
	const char *values[] = { "1", "stderr" };
	size_t i;

	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		char *text = stderr_of_fail_twice(values[i]);

		ck_assert_str_eq(text, FAIL_TWICE_LINES);
		free(text);
	}
}
END_TEST

START_TEST(stdout_when_asked)
{
	struct log_capture out, err;
	char *out_text, *err_text;

	log_set("stdout");
	log_capture_begin(&out, STDOUT_FILENO);
	log_capture_begin(&err, STDERR_FILENO);
	fail_twice();
	err_text = log_capture_end(&err);
	out_text = log_capture_end(&out);
	ck_assert_str_eq(out_text, FAIL_TWICE_LINES);
	ck_assert_str_eq(err_text, "");
	free(out_text);
	free(err_text);
}
END_TEST

START_TEST(a_path_is_appended_to)
{
	char path[] = "/tmp/cumc-log-XXXXXX";
	int fd = mkstemp(path);
	char *text;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "before\n", 7), 7);
	log_set(path);
	fail_twice();
	log_set(NULL);
	text = log_slurp(fd);
	unlink(path);
	ck_assert_str_eq(text, "before\n" FAIL_TWICE_LINES);
	free(text);
}
END_TEST

START_TEST(an_unopenable_path_falls_back_to_stderr)
{
	struct log_capture c;
	char *text;

	log_capture_begin(&c, STDERR_FILENO);
	log_set("/nonexistent-cumc-dir/log");
	fail_twice();
	text = log_capture_end(&c);
	ck_assert_str_eq(text, "cumc: CUMC_LOG=/nonexistent-cumc-dir/log: "
			 "No such file or directory; logging to stderr\n"
			 FAIL_TWICE_LINES);
	free(text);
}
END_TEST

START_TEST(success_writes_nothing)
{
	struct log_capture c;
	const char *name;
	char *text;
	int version;

	log_set("1");
	log_capture_begin(&c, STDERR_FILENO);
	ck_assert_int_eq(cuDriverGetVersion(&version), CUDA_SUCCESS);
	ck_assert_int_eq(cuGetErrorName(CUDA_ERROR_NOT_READY, &name), CUDA_SUCCESS);
	text = log_capture_end(&c);
	ck_assert_str_eq(text, "");
	free(text);
}
END_TEST

/*
 * The CUDA 11.3 cuGetProcAddress's NOT_FOUND is its answer for a symbol
 * the driver lacks, not logged; its bad arguments are.
 */
START_TEST(not_found_from_cuGetProcAddress_is_an_answer)
{
	struct log_capture c;
	void *pfn;
	char *text;

	log_set("1");
	log_capture_begin(&c, STDERR_FILENO);
	ck_assert_int_eq(cuGetProcAddress_v1("cuNoSuchThing", &pfn, 13000, 0),
			 CUDA_ERROR_NOT_FOUND);
	ck_assert_int_eq(cuGetProcAddress_v1(NULL, &pfn, 13000, 0),
			 CUDA_ERROR_INVALID_VALUE);
	text = log_capture_end(&c);
	ck_assert_str_eq(text, BAD_VALUE_LINE("cuGetProcAddress"));
	free(text);
}
END_TEST

/* The failing open(2) or ioctl(2) behind cuInit's NO_DEVICE, with errno. */
START_TEST(cuInit_names_the_system_call_that_failed)
{
	const struct {
		const char *device;
		const char *line;
	} cases[] = {
		{ "/nonexistent-cumc", "cumc: cuInit: CUDA_ERROR_NO_DEVICE (100): "
		  "open /nonexistent-cumc: ENOENT (No such file or directory)\n" },
		{ "/dev/null", "cumc: cuInit: CUDA_ERROR_NO_DEVICE (100): "
		  "CUMC_QUERY: ENOTTY (Inappropriate ioctl for device)\n" },
	};
	struct log_capture c;
	size_t i;
	char *text;

	log_set("1");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_eq(setenv("CUMC_DEVICE", cases[i].device, 1), 0);
		log_capture_begin(&c, STDERR_FILENO);
		ck_assert_int_eq(cuInit(0), CUDA_ERROR_NO_DEVICE);
		text = log_capture_end(&c);
		ck_assert_str_eq(text, cases[i].line);
		free(text);
	}
}
END_TEST

/* A line too long for the buffer is cut, and still ends the line. */
START_TEST(a_long_line_is_cut)
{
	static const char start[] = "cumc: cuInit: CUDA_ERROR_NO_DEVICE (100): open /";
	char device[1024];
	struct log_capture c;
	char *text;

	memset(device, 'x', sizeof(device) - 1);
	device[0] = '/';
	device[sizeof(device) - 1] = '\0';
	log_set("1");
	ck_assert_int_eq(setenv("CUMC_DEVICE", device, 1), 0);
	log_capture_begin(&c, STDERR_FILENO);
	ck_assert_int_eq(cuInit(0), CUDA_ERROR_NO_DEVICE);
	text = log_capture_end(&c);
	ck_assert_int_eq(strncmp(text, start, strlen(start)), 0);
	ck_assert_uint_eq(strlen(text), 511);
	ck_assert_str_eq(text + 507, "...\n");
	free(text);
}
END_TEST

/* A system call failure belongs to the call it happened in, no later one. */
START_TEST(the_errno_goes_with_its_own_call)
{
	struct log_capture c;
	char *text;

	log_set("1");
	ck_assert_int_eq(setenv("CUMC_DEVICE", "/nonexistent-cumc", 1), 0);
	log_capture_begin(&c, STDERR_FILENO);
	ck_assert_int_eq(cuInit(0), CUDA_ERROR_NO_DEVICE);
	ck_assert_int_eq(cuDriverGetVersion(NULL), CUDA_ERROR_INVALID_VALUE);
	text = log_capture_end(&c);
	ck_assert_str_eq(text, "cumc: cuInit: CUDA_ERROR_NO_DEVICE (100): "
			 "open /nonexistent-cumc: ENOENT (No such file or directory)\n"
			 BAD_VALUE_LINE("cuDriverGetVersion"));
	free(text);
}
END_TEST

/* What cuGetProcAddress hands out is the exported function, line and all. */
START_TEST(functions_from_cuGetProcAddress_log)
{
	CUresult (*device_get)(CUdevice *, int);
	struct log_capture c;
	void *pfn = NULL;
	char *text;

	ck_assert_int_eq(cuGetProcAddress("cuDeviceGet", &pfn, 13000, 0, NULL),
			 CUDA_SUCCESS);
	ck_assert_ptr_nonnull(pfn);
	device_get = (CUresult (*)(CUdevice *, int))pfn;
	log_set("1");
	log_capture_begin(&c, STDERR_FILENO);
	ck_assert_int_eq(device_get(NULL, 0), CUDA_ERROR_NOT_INITIALIZED);
	text = log_capture_end(&c);
	ck_assert_str_eq(text, NOT_INIT_LINE("cuDeviceGet"));
	free(text);
}
END_TEST

/* The unversioned names old binaries link against are named as called. */
#undef cuCtxDestroy
CUresult CUDAAPI cuCtxDestroy(CUcontext ctx);

START_TEST(old_names_are_named_as_called)
{
	struct log_capture c;
	char *text;

	log_set("1");
	log_capture_begin(&c, STDERR_FILENO);
	ck_assert_int_eq(cuCtxDestroy(NULL), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuCtxDestroy_v2(NULL), CUDA_ERROR_NOT_INITIALIZED);
	text = log_capture_end(&c);
	ck_assert_str_eq(text, NOT_INIT_LINE("cuCtxDestroy")
			 NOT_INIT_LINE("cuCtxDestroy_v2"));
	free(text);
}
END_TEST

#define THREADS 8
#define CALLS 500

/* Odd threads fail one way, even ones another: mixed lines would show. */
static void *fail_often(void *arg)
{
	long odd = (long)arg & 1;
	CUdevice dev;
	int i;

	for (i = 0; i < CALLS; i++) {
		if (odd)
			cuDeviceGet(&dev, 0);
		else
			cuDriverGetVersion(NULL);
	}
	return NULL;
}

START_TEST(lines_stay_whole_under_threads)
{
	const char *lines[] = { NOT_INIT_LINE("cuDeviceGet"),
				BAD_VALUE_LINE("cuDriverGetVersion") };
	char path[] = "/tmp/cumc-log-XXXXXX";
	int fd = mkstemp(path), counts[2] = { 0, 0 };
	pthread_t threads[THREADS];
	char *text, *line;
	long i;

	ck_assert_int_ge(fd, 0);
	log_set(path);
	for (i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_create(&threads[i], NULL, fail_often,
						(void *)i), 0);
	for (i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_join(threads[i], NULL), 0);
	log_set(NULL);
	text = log_slurp(fd);
	unlink(path);
	for (line = text; *line; line = strchr(line, '\n') + 1) {
		if (!strncmp(line, lines[0], strlen(lines[0])))
			counts[0]++;
		else if (!strncmp(line, lines[1], strlen(lines[1])))
			counts[1]++;
		else
			ck_abort_msg("a mixed line: \"%.80s\"", line);
	}
	ck_assert_int_eq(counts[0], THREADS / 2 * CALLS);
	ck_assert_int_eq(counts[1], THREADS / 2 * CALLS);
	free(text);
}
END_TEST

/* Every command of uapi/linux/cumc.h has its name, and only those. */
START_TEST(every_command_is_named)
{
	unsigned long nr;

	for (nr = CUMC_CMD_BASE; nr <= CUMC_CMD_MC_VIEW; nr++) {
		const char *name = libcumc_ioctl_name(_IO(CUMC_TYPE, nr));

		ck_assert_ptr_nonnull(name);
		ck_assert_int_eq(strncmp(name, "CUMC_", 5), 0);
	}
	ck_assert_str_eq(libcumc_ioctl_name(CUMC_QUERY), "CUMC_QUERY");
	ck_assert_str_eq(libcumc_ioctl_name(CUMC_MAP), "CUMC_MAP");
	ck_assert_str_eq(libcumc_ioctl_name(CUMC_MC_VIEW), "CUMC_MC_VIEW");
	ck_assert_ptr_null(libcumc_ioctl_name(_IO(CUMC_TYPE, CUMC_CMD_MC_VIEW + 1)));
	ck_assert_ptr_null(libcumc_ioctl_name(_IO(CUMC_TYPE, CUMC_CMD_BASE - 1)));
	ck_assert_ptr_null(libcumc_ioctl_name(_IO(CUMC_TYPE + 1, CUMC_CMD_BASE)));
}
END_TEST

/* A program started with CUMC_LOG set: read as the library loads. */
START_TEST(read_as_the_library_loads)
{
	char *argv[] = { NULL, "static", NULL };
	char *text = log_of_child("1", argv);

	ck_assert_str_eq(text, NOT_INIT_LINE("cuDeviceGet"));
	free(text);
}
END_TEST

/* libcuda.so.1, loaded by a program started with CUMC_LOG set. */
START_TEST(libcuda_logs_the_same)
{
	char *argv[] = { NULL, "libcuda", NULL };
	char *text = log_of_child("1", argv);

	ck_assert_str_eq(text, NOT_INIT_LINE("cuMemAddressFree")
			 NOT_INIT_LINE("cuDeviceGet"));
	free(text);
}
END_TEST

/* The children of the two tests above: 0 when the calls failed as expected. */
static int child_main(const char *how)
{
	CUresult (*device_get)(CUdevice *, int) = cuDeviceGet;
	CUresult (*address_free)(CUdeviceptr, size_t) = cuMemAddressFree;
	CUdevice dev;
	void *lib;

	if (!strcmp(how, "libcuda")) {
		lib = dlopen(log_libcuda_path(), RTLD_NOW | RTLD_LOCAL);
		if (!lib) {
			fprintf(stdout, "%s\n", dlerror());
			return 1;
		}
		device_get = (CUresult (*)(CUdevice *, int))dlsym(lib, "cuDeviceGet");
		address_free = (CUresult (*)(CUdeviceptr, size_t))
			dlsym(lib, "cuMemAddressFree");
		if (!device_get || !address_free)
			return 1;
		if (address_free(1 << 30, 2 << 20) != CUDA_ERROR_NOT_INITIALIZED)
			return 1;
	}
	return device_get(&dev, 0) == CUDA_ERROR_NOT_INITIALIZED ? 0 : 1;
}

int main(int argc, char **argv)
{
	Suite *s = suite_create("CUMC_LOG");
	TCase *tc = tcase_create("host");

	if (argc > 1)
		return child_main(argv[1]);
	tcase_add_test(tc, off_when_unset_empty_or_0);
	tcase_add_test(tc, one_line_per_failure_on_stderr);
	tcase_add_test(tc, stdout_when_asked);
	tcase_add_test(tc, a_path_is_appended_to);
	tcase_add_test(tc, an_unopenable_path_falls_back_to_stderr);
	tcase_add_test(tc, success_writes_nothing);
	tcase_add_test(tc, not_found_from_cuGetProcAddress_is_an_answer);
	tcase_add_test(tc, cuInit_names_the_system_call_that_failed);
	tcase_add_test(tc, a_long_line_is_cut);
	tcase_add_test(tc, the_errno_goes_with_its_own_call);
	tcase_add_test(tc, functions_from_cuGetProcAddress_log);
	tcase_add_test(tc, old_names_are_named_as_called);
	tcase_add_test(tc, lines_stay_whole_under_threads);
	tcase_add_test(tc, every_command_is_named);
	tcase_add_test(tc, read_as_the_library_loads);
	tcase_add_test(tc, libcuda_logs_the_same);
	suite_add_tcase(s, tc);
	return check_run_forked(s);
}
