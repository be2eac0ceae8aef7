// SPDX-License-Identifier: MIT
/*
 * CUMC_LOG (log.h): reading the variable, noting which system call failed,
 * and writing the line of an entry point that fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cumc_ptx.h"
#include "internal.h"
#include "log.h"
#include "logbuf.h"

int libcumc_log_fd = -1;
/* The file CUMC_LOG named, which libcumc_log_fd is then; -1 for none. */
static int libcumc_log_file = -1;

/* The system call behind the failure of this thread's entry point. */
struct libcumc_log_cause {
	const char *what;	/* NULL: none */
	const char *arg;	/* NULL or a path */
	int err;
};

static __thread struct libcumc_log_cause libcumc_log_cause;
/* What failed beyond a system call (a PTX load's message), this thread's. */
static __thread char libcumc_log_note_text[256];

/* The line being written: whole, or cut with "...", and a newline. */
struct libcumc_log_line {
	char text[512];
	size_t len;
};

static void libcumc_log_add(struct libcumc_log_line *line, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void libcumc_log_add(struct libcumc_log_line *line, const char *fmt, ...)
{
	/* Room for "...\n" always stays after what fits. */
	const size_t room = sizeof(line->text) - 4;
	va_list ap;
	int n;

	if (line->len >= room)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line->text + line->len, room - line->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < room - line->len) {
		line->len += n;
		return;
	}
	line->len = room - 1;
	memcpy(line->text + line->len, "...", 3);
	line->len += 3;
}

/*
 * One write(2) per line: lines of concurrent threads (and of processes
 * appending to one file) do not mix. errno is the caller's afterwards.
 */
static void libcumc_log_put(int fd, struct libcumc_log_line *line)
{
	int saved = errno;

	line->text[line->len++] = '\n';
	while (write(fd, line->text, line->len) < 0 && errno == EINTR)
		;
	errno = saved;
}

void libcumc_log_line(const char *text)
{
	struct libcumc_log_line line = { .len = 0 };

	if (libcumc_log_fd < 0)
		return;
	libcumc_log_add(&line, "cumc: %s", text);
	libcumc_log_put(libcumc_log_fd, &line);
}

/*
 * CUMC_LOG unset, empty or 0: off. 1 or stderr: standard error; stdout:
 * standard output; anything else: the file of that name, appended to (made
 * if need be). A file that cannot be opened is said on standard error,
 * where the lines then go.
 */
__attribute__((constructor)) void libcumc_log_setup(void)
{
	const char *value = getenv("CUMC_LOG");
	struct libcumc_log_line line = { .len = 0 };

	cumc_ptx_set_log(libcumc_log_line);
	if (libcumc_log_file >= 0)
		close(libcumc_log_file);
	libcumc_log_file = -1;
	libcumc_log_fd = -1;
	libcumc_log_lines = libcumc_logbuf_kept();
	if (!value || !*value || !strcmp(value, "0"))
		return;
	if (!strcmp(value, "1") || !strcmp(value, "stderr")) {
		libcumc_log_fd = STDERR_FILENO;
		libcumc_log_lines = 1;
		return;
	}
	if (!strcmp(value, "stdout")) {
		libcumc_log_fd = STDOUT_FILENO;
		libcumc_log_lines = 1;
		return;
	}
	libcumc_log_file = open(value, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
				0666);
	libcumc_log_lines = 1;
	if (libcumc_log_file >= 0) {
		libcumc_log_fd = libcumc_log_file;
		return;
	}
	libcumc_log_add(&line, "cumc: CUMC_LOG=%s: %s; logging to stderr", value,
			strerror(errno));
	libcumc_log_put(STDERR_FILENO, &line);
	libcumc_log_fd = STDERR_FILENO;
}

void libcumc_log_errno(const char *what, const char *arg, int err)
{
	if (!libcumc_log_lines)
		return;
	libcumc_log_cause.what = what;
	libcumc_log_cause.arg = arg;
	libcumc_log_cause.err = err;
}

#define CUMC_CMD_NAME(request) [_IOC_NR(request) - CUMC_CMD_BASE] = #request

/* Indexed by command number: uapi/linux/cumc.h's enum of commands. */
static const char *const libcumc_cmd_names[] = {
	CUMC_CMD_NAME(CUMC_QUERY),
	CUMC_CMD_NAME(CUMC_DEVICE_INFO),
	CUMC_CMD_NAME(CUMC_MEM_CREATE),
	CUMC_CMD_NAME(CUMC_MEM_INFO),
	CUMC_CMD_NAME(CUMC_RELEASE),
	CUMC_CMD_NAME(CUMC_VA_RESERVE),
	CUMC_CMD_NAME(CUMC_VA_FREE),
	CUMC_CMD_NAME(CUMC_MAP),
	CUMC_CMD_NAME(CUMC_UNMAP),
	CUMC_CMD_NAME(CUMC_SET_ACCESS),
	CUMC_CMD_NAME(CUMC_VA_QUERY),
	CUMC_CMD_NAME(CUMC_EXPORT_FD),
	CUMC_CMD_NAME(CUMC_IMPORT_FD),
	CUMC_CMD_NAME(CUMC_ATTACH_CHANNEL),
	CUMC_CMD_NAME(CUMC_EXPORT_FABRIC),
	CUMC_CMD_NAME(CUMC_IMPORT_FABRIC),
	CUMC_CMD_NAME(CUMC_MC_CREATE),
	CUMC_CMD_NAME(CUMC_MC_ADD_DEVICE),
	CUMC_CMD_NAME(CUMC_MC_BIND_MEM),
	CUMC_CMD_NAME(CUMC_MC_BIND_ADDR),
	CUMC_CMD_NAME(CUMC_MC_UNBIND),
	CUMC_CMD_NAME(CUMC_MC_INFO),
	CUMC_CMD_NAME(CUMC_MC_VIEW),
};

const char *libcumc_ioctl_name(unsigned long request)
{
	unsigned long index = _IOC_NR(request) - CUMC_CMD_BASE;

	if (_IOC_TYPE(request) != CUMC_TYPE || _IOC_NR(request) < CUMC_CMD_BASE ||
	    index >= sizeof(libcumc_cmd_names) / sizeof(libcumc_cmd_names[0]))
		return NULL;
	return libcumc_cmd_names[index];
}

void libcumc_log_enter(void)
{
	libcumc_log_cause.what = NULL;
	libcumc_log_note_text[0] = '\0';
}

void libcumc_log_note(const char *text)
{
	if (!libcumc_log_lines)
		return;
	snprintf(libcumc_log_note_text, sizeof(libcumc_log_note_text), "%s",
		 text);
}

/*
 * Results that answer a question rather than report a failure: the
 * queries' "not yet" (cuStreamQuery, cuEventQuery), and the CUDA 11.3
 * cuGetProcAddress's "no such symbol", which loaders ask for by the
 * hundred and handle.
 */
static bool libcumc_log_is_answer(const char *entry_point, CUresult res)
{
	if (res == CUDA_ERROR_NOT_READY)
		return true;
	return res == CUDA_ERROR_NOT_FOUND &&
	       !strcmp(entry_point, "cuGetProcAddress");
}

/* "cumc: cuMemMap: CUDA_ERROR_INVALID_VALUE (1): CUMC_MAP: EINVAL (Invalid argument)" */
static void libcumc_log_failure(const char *entry_point, CUresult res,
				const struct libcumc_log_cause *cause)
{
	struct libcumc_log_line line = { .len = 0 };
	const char *name, *errname, *errdesc;

	name = libcumc_error_name(res);
	if (!name)
		name = "unknown CUresult";
	libcumc_log_add(&line, "cumc: %s: %s (%d)", entry_point, name, (int)res);
	if (cause->what) {
		errname = strerrorname_np(cause->err);
		errdesc = strerrordesc_np(cause->err);
		libcumc_log_add(&line, ": %s%s%s: ", cause->what,
				cause->arg ? " " : "", cause->arg ? cause->arg : "");
		if (errname)
			libcumc_log_add(&line, "%s (%s)", errname, errdesc);
		else
			libcumc_log_add(&line, "errno %d", cause->err);
	}
	if (libcumc_log_note_text[0])
		libcumc_log_add(&line, ": %s", libcumc_log_note_text);
	/* The driver's log keeps it whether or not CUMC_LOG shows it. */
	libcumc_logbuf_add(line.text, line.len);
	if (libcumc_log_fd >= 0)
		libcumc_log_put(libcumc_log_fd, &line);
}

CUresult libcumc_log_exit(const char *entry_point, CUresult res)
{
	if (res != CUDA_SUCCESS && !libcumc_log_is_answer(entry_point, res))
		libcumc_log_failure(entry_point, res, &libcumc_log_cause);
	libcumc_log_cause.what = NULL;
	libcumc_log_note_text[0] = '\0';
	return res;
}
