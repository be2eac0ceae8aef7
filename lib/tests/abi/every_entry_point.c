// SPDX-License-Identifier: MIT
/*
 * Every function the toolkit's cuda.h declares, on the libcuda.so.1 the
 * library path gives (libcumc in the VM): exported under the symbol
 * cuda.h links it to, resolved by cuGetProcAddress_v2 at CUDA 13.0, and
 * called with invalid arguments in a child process of its own, so that a
 * crash or a hang is reported by name. Reads "NAME SYMBOL" lines
 * (every_entry_point.sh makes them from cuda.h); one TAP line each.
 *
 * The calls: every argument zero (NULL pointers, handle 0, size 0), then
 * every argument GARBAGE, the address of a zeroed buffer mapped there: a
 * pointer to memory that exists, a handle libcumc never issued, a size
 * of 64 KiB, a count of 65536 entries that all lie in the buffer (so
 * that an array a count describes can be read whole, as any driver
 * would). Any CUresult is an answer; a crash or a hang is a failure,
 * and so is a name not exported or not resolved. The primary context of
 * device 0 is current in the child, so that calls get past the context
 * checks.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda.h>

/* How long one call may take before it counts as a hang. */
#define CALL_TIMEOUT_S 10
/* More than any entry point of cuda.h takes. */
#define MAX_ARGS 12
/* Where the garbage buffer goes: as a count, 65536 entries of up to 1 KiB. */
#define GARBAGE 0x10000UL
#define BUFFER_SIZE (64UL << 20)

typedef CUresult (*any_entry)(uintptr_t, uintptr_t, uintptr_t, uintptr_t,
			      uintptr_t, uintptr_t, uintptr_t, uintptr_t,
			      uintptr_t, uintptr_t, uintptr_t, uintptr_t);

static void *libcuda;
/* The names missing, for the summary line. */
static char *missing;
static size_t missing_len;

static void note_missing(const char *name)
{
	size_t len = strlen(name);
	char *more = realloc(missing, missing_len + len + 2);

	if (!more)
		return;
	missing = more;
	missing[missing_len++] = ' ';
	memcpy(missing + missing_len, name, len + 1);
	missing_len += len;
}
static CUresult (*get_proc)(const char *, void **, int, cuuint64_t,
			    CUdriverProcAddressQueryResult *);
static CUresult (*init)(unsigned int);
static CUresult (*error_name)(CUresult, const char **);
static CUresult (*primary_retain)(CUcontext *, CUdevice);
static CUresult (*set_current)(CUcontext);

static void *need(const char *symbol)
{
	void *fn = dlsym(libcuda, symbol);

	if (!fn) {
		printf("Bail out! libcuda.so.1 has no %s\n", symbol);
		exit(1);
	}
	return fn;
}

/* NAME less a version suffix: what cuGetProcAddress knows it by. */
static void base_name(const char *name, char *base, size_t len)
{
	char *v;

	snprintf(base, len, "%s", name);
	v = strrchr(base, '_');
	if (v && v[1] == 'v' && v[2] && strspn(v + 2, "0123456789") == strlen(v + 2))
		*v = '\0';
}

static void call_in_child(any_entry fn, uintptr_t arg, int out)
{
	CUcontext ctx;
	CUresult res;

	alarm(CALL_TIMEOUT_S);
	res = init(0);
	if (!res)
		res = primary_retain(&ctx, 0);
	if (!res)
		res = set_current(ctx);
	if (res) {
		dprintf(out, "setup failed: %d", (int)res);
		_exit(0);
	}
	res = fn(arg, arg, arg, arg, arg, arg, arg, arg, arg, arg, arg, arg);
	dprintf(out, "%d", (int)res);
	_exit(0);
}

/*
 * Calls @fn with every argument @arg in a child: its CUresult in *@res,
 * or false and what ended the child in @why.
 */
static bool call(any_entry fn, uintptr_t arg, CUresult *res, char *why,
		 size_t len)
{
	char buf[64] = "";
	int pipefd[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(pipefd)) {
		snprintf(why, len, "no pipe");
		return false;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		call_in_child(fn, arg, pipefd[1]);
	}
	close(pipefd[1]);
	n = pid < 0 ? -1 : read(pipefd[0], buf, sizeof(buf) - 1);
	close(pipefd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		snprintf(why, len, "no child");
		return false;
	}
	if (n > 0 && buf[0] != 's') {
		buf[n] = '\0';
		*res = (CUresult)atoi(buf);
		return true;
	}
	if (n > 0)
		snprintf(why, len, "%.*s", (int)n, buf);
	else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		snprintf(why, len, "hangs");
	else if (WIFSIGNALED(status))
		snprintf(why, len, "crashes (%s)", strsignal(WTERMSIG(status)));
	else
		snprintf(why, len, "exits %d", WEXITSTATUS(status));
	return false;
}

static const char *result_name(CUresult res)
{
	const char *name = NULL;

	if (error_name(res, &name) || !name)
		return "an unknown CUresult";
	return name;
}

int main(void)
{
	char line[384], name[128], symbol[128], base[128], why[128];
	unsigned int test = 0, failed = 0;
	CUdriverProcAddressQueryResult status;
	CUresult zero, garbage;
	void *buffer, *pfn;

	libcuda = dlopen("libcuda.so.1", RTLD_NOW);
	if (!libcuda) {
		printf("Bail out! %s\n", dlerror());
		return 1;
	}
	get_proc = need("cuGetProcAddress_v2");
	init = need("cuInit");
	error_name = need("cuGetErrorName");
	primary_retain = need("cuDevicePrimaryCtxRetain");
	set_current = need("cuCtxSetCurrent");
	buffer = mmap((void *)GARBAGE, BUFFER_SIZE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (buffer != (void *)GARBAGE) {
		printf("Bail out! no buffer at %#lx: %m\n", GARBAGE);
		return 1;
	}
	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "%127s %127s", name, symbol) != 2)
			continue;
		test++;
		base_name(name, base, sizeof(base));
		if (!dlsym(libcuda, symbol)) {
			printf("not ok %u %s: not exported as %s\n", test, name, symbol);
			note_missing(name);
			failed++;
			continue;
		}
		if (get_proc(base, &pfn, 13000, CU_GET_PROC_ADDRESS_DEFAULT,
			     &status) || status != CU_GET_PROC_ADDRESS_SUCCESS) {
			printf("not ok %u %s: cuGetProcAddress_v2(\"%s\", 13000) finds nothing (status %d)\n",
			       test, name, base, (int)status);
			note_missing(name);
			failed++;
			continue;
		}
		/* Called as exported: with the parameters cuda.h gives NAME. */
		pfn = dlsym(libcuda, symbol);
		if (!call((any_entry)pfn, 0, &zero, why, sizeof(why))) {
			printf("not ok %u %s with zero arguments %s\n", test, name, why);
			failed++;
			continue;
		}
		if (!call((any_entry)pfn, (uintptr_t)buffer, &garbage, why,
			  sizeof(why))) {
			printf("not ok %u %s with garbage arguments %s\n", test, name, why);
			failed++;
			continue;
		}
		printf("ok %u %s: %s with zero arguments, %s with garbage\n",
		       test, name, result_name(zero), result_name(garbage));
	}
	printf("1..%u\n", test);
	if (failed)
		printf("# %u of %u functions of cuda.h missing, crashing or hanging\n",
		       failed, test);
	if (missing)
		printf("# missing:%s\n", missing);
	return failed != 0;
}
