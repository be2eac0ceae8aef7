// SPDX-License-Identifier: MIT
/*
 * A libcuda.so.1 between a program and NVIDIA's driver that logs what the
 * program asks of cuGetExportTable: each table's UUID, and each slot of
 * each table it calls, with its six integer-register arguments. Built as
 * libcuda.so.1 in a directory of its own (record.sh), it loads the real
 * driver from $CUMC_REAL_LIBCUDA and forwards to it; a table it hands out
 * is a copy whose function slots are thunks (thunks.S) that log the call
 * and jump to the real slot, registers untouched.
 *
 * It defines only the names NVRTC and the CUDA runtime look up by dlsym:
 * every other entry point reaches the program through cuGetProcAddress,
 * which it forwards, logging the names asked for.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h>

/* The CUDA 11.3 four-argument function is defined here under its own name. */
#undef cuGetProcAddress

/* Tables and slots of each the thunks cover (thunks.S has as many). */
#define MAX_TABLES 16
#define MAX_SLOTS 64

extern const char interpose_thunks[];
#define THUNK_SIZE 16

static void *real;
static FILE *out;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static struct {
	CUuuid id;
	const void *const *orig;
	const void *copy[MAX_SLOTS];
	unsigned int slots;
} tables[MAX_TABLES];
static unsigned int num_tables;

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fflush(out);
}

static void *real_sym(const char *name)
{
	void *fn = real ? dlsym(real, name) : NULL;

	if (!fn)
		say("interpose: the real driver has no %s\n", name);
	return fn;
}

__attribute__((constructor)) static void interpose_load(void)
{
	const char *path = getenv("CUMC_REAL_LIBCUDA");
	const char *log = getenv("CUMC_INTERPOSE_LOG");

	out = log ? fopen(log, "a") : NULL;
	if (!out)
		out = stderr;
	real = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
	say("interpose: pid %d loaded, real driver %s: %s\n", (int)getpid(),
	    path ? path : "(CUMC_REAL_LIBCUDA unset)", real ? "loaded" : dlerror());
}

static void uuid_text(const CUuuid *id, char text[37])
{
	const unsigned char *b = (const unsigned char *)id->bytes;

	snprintf(text, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
		 b[10], b[11], b[12], b[13], b[14], b[15]);
}

/* Called by every thunk: logs the call, returns the slot to jump to. */
const void *interpose_slot_called(unsigned long index, const uint64_t *regs)
{
	unsigned int t = index / MAX_SLOTS, s = index % MAX_SLOTS;
	char id[37];

	uuid_text(&tables[t].id, id);
	/* regs: saved rax, r9, r8, rcx, rdx, rsi, rdi (thunks.S's order). */
	say("slot %s %u (%#" PRIx64 ", %#" PRIx64 ", %#" PRIx64 ", %#" PRIx64
	    ", %#" PRIx64 ", %#" PRIx64 ")\n", id, s, regs[6], regs[5],
	    regs[4], regs[3], regs[2], regs[1]);
	return tables[t].orig[s];
}

/* Whether @p points into a loaded object's text: a function slot. */
static int is_code(const void *p)
{
	Dl_info info;

	return p && dladdr(p, &info) && info.dli_fname;
}

static const void *wrap_table(const CUuuid *id, const void *const *orig)
{
	unsigned int t, s, slots;
	uintptr_t first = (uintptr_t)orig[0];
	char text[37];

	uuid_text(id, text);
	pthread_mutex_lock(&lock);
	for (t = 0; t < num_tables; t++)
		if (!memcmp(&tables[t].id, id, sizeof(*id)) && tables[t].orig == orig)
			goto done;
	if (num_tables == MAX_TABLES) {
		pthread_mutex_unlock(&lock);
		say("table %s: more than %d tables, not wrapped\n", text, MAX_TABLES);
		return orig;
	}
	t = num_tables++;
	tables[t].id = *id;
	tables[t].orig = orig;
	/* A first word below 4096 is taken as the table's size in bytes. */
	slots = first < 4096 ? first / sizeof(void *) : MAX_SLOTS;
	if (slots > MAX_SLOTS)
		slots = MAX_SLOTS;
	for (s = 0; s < slots; s++) {
		if (s > 0 && first >= 4096 && !is_code(orig[s]))
			break;
		if (is_code(orig[s]))
			tables[t].copy[s] = interpose_thunks +
					    (t * MAX_SLOTS + s) * THUNK_SIZE;
		else
			tables[t].copy[s] = orig[s];
	}
	tables[t].slots = s;
	say("table %s: first word %#" PRIxPTR ", %u words\n", text, first, s);
	for (s = 0; s < tables[t].slots; s++) {
		Dl_info info;
		const void *p = orig[s];

		if (is_code(p) && dladdr(p, &info))
			say("  word %u: code %s+%#tx\n", s, info.dli_fname,
			    (const char *)p - (const char *)info.dli_fbase);
		else
			say("  word %u: %p\n", s, p);
	}
done:
	pthread_mutex_unlock(&lock);
	return tables[t].copy;
}

CUresult CUDAAPI cuGetExportTable(const void **table, const CUuuid *id)
{
	CUresult (*fn)(const void **, const CUuuid *) = real_sym("cuGetExportTable");
	CUresult res;
	char text[37];

	if (!fn)
		return CUDA_ERROR_NOT_FOUND;
	res = fn(table, id);
	if (id)
		uuid_text(id, text);
	say("cuGetExportTable(%s) = %d\n", id ? text : "NULL", (int)res);
	if (res == CUDA_SUCCESS && table && *table)
		*table = wrap_table(id, *table);
	return res;
}

CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
				     cuuint64_t flags,
				     CUdriverProcAddressQueryResult *status);
CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int version,
				  cuuint64_t flags);

/*
 * The runtime asks for cuGetProcAddress itself and makes every later
 * lookup through what it got: that must be this file's, or the names it
 * looks up afterwards, cuGetExportTable among them, would bypass the log.
 * From CUDA 12.0 on, the name's ABI is cuGetProcAddress_v2's.
 */
static void *wrap_proc(const char *symbol, int version, void *fn)
{
	say("cuGetProcAddress(%s) %s\n", symbol, fn ? "found" : "not found");
	if (!fn)
		return fn;
	if (!strcmp(symbol, "cuGetExportTable"))
		return (void *)cuGetExportTable;
	if (!strcmp(symbol, "cuGetProcAddress"))
		return version >= 12000 ? (void *)cuGetProcAddress_v2 :
					  (void *)cuGetProcAddress;
	return fn;
}

CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
				     cuuint64_t flags,
				     CUdriverProcAddressQueryResult *status)
{
	CUresult (*fn)(const char *, void **, int, cuuint64_t,
		       CUdriverProcAddressQueryResult *) =
		real_sym("cuGetProcAddress_v2");
	CUresult res;

	if (!fn)
		return CUDA_ERROR_NOT_FOUND;
	res = fn(symbol, pfn, version, flags, status);
	if (res == CUDA_SUCCESS && symbol && pfn)
		*pfn = wrap_proc(symbol, version, *pfn);
	return res;
}

CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int version,
				  cuuint64_t flags)
{
	CUresult (*fn)(const char *, void **, int, cuuint64_t) =
		real_sym("cuGetProcAddress");
	CUresult res;

	if (!fn)
		return CUDA_ERROR_NOT_FOUND;
	res = fn(symbol, pfn, version, flags);
	if (res == CUDA_SUCCESS && symbol && pfn)
		*pfn = wrap_proc(symbol, version, *pfn);
	return res;
}

/* The other names looked up by dlsym, forwarded as they are. */
#define FORWARD(name, params, args)					\
	CUresult CUDAAPI name params					\
	{								\
		CUresult (*fn) params = real_sym(#name);		\
		CUresult res = fn ? fn args : CUDA_ERROR_NOT_FOUND;	\
		say(#name " = %d\n", (int)res);				\
		return res;						\
	}

FORWARD(cuInit, (unsigned int flags), (flags))
FORWARD(cuDriverGetVersion, (int *version), (version))
FORWARD(cuGetErrorName, (CUresult error, const char **str), (error, str))
FORWARD(cuGetErrorString, (CUresult error, const char **str), (error, str))
