// SPDX-License-Identifier: MIT
/*
 * The JIT's cache on disk: a module's object under the hash of its PTX,
 * the translator and the host CPU, so that a process loading PTX compiled
 * before (by itself or another process) reads the object back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jit_tr.h"

static uint64_t fnv1a(const void *data, size_t len, uint64_t h)
{
	const unsigned char *p = data;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

void ptx_jit_cache_key(const char *text, size_t len, char *key, size_t size)
{
	uint64_t h[2] = { 0xcbf29ce484222325ull, 0x84222325cbf29ce4ull };
	unsigned int k;

	/* the code reads these structures at offsets it was compiled with */
	static const size_t layout[] = {
		sizeof(struct ptx_jit_run), RUN_FIELD(globals), RUN_FIELD(sites),
		RUN_FIELD(stop), RUN_FIELD(mem), RUN_FIELD(step),
		RUN_FIELD(multimem),
		RUN_FIELD(nthreads), RUN_FIELD(exited),
		sizeof(struct ptx_jit_thread), sizeof(struct ptx_jit_site),
	};

	for (k = 0; k < 2; k++) {
		h[k] = fnv1a(PTX_JIT_VERSION, strlen(PTX_JIT_VERSION), h[k]);
		h[k] = fnv1a(layout, sizeof(layout), h[k]);
		h[k] = fnv1a(ptx_jit_host_cpu, strlen(ptx_jit_host_cpu), h[k]);
		h[k] = fnv1a(ptx_jit_host_features,
			     strlen(ptx_jit_host_features), h[k]);
		h[k] = fnv1a(text, len, h[k] ^ (k ? len : 0));
	}
	snprintf(key, size, "%016llx%016llx", (unsigned long long)h[0],
		 (unsigned long long)h[1]);
}

bool ptx_jit_cache_dir(char *dir, size_t size)
{
	const char *v = getenv("CUDA_CACHE_DISABLE");
	const char *path = getenv("CUDA_CACHE_PATH");
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if ((v && !strcmp(v, "1")) || ptx_jit_env_off("CUMC_JIT_CACHE"))
		return false;
	if (path && *path)
		return snprintf(dir, size, "%s", path) < (int)size;
	if (xdg && *xdg)
		return snprintf(dir, size, "%s/cumc/jit", xdg) < (int)size;
	if (home && *home)
		return snprintf(dir, size, "%s/.cache/cumc/jit", home) < (int)size;
	return false;
}

/* @dir and the directories above it that are missing. */
static void make_dirs(const char *dir)
{
	char path[4096], *s;

	snprintf(path, sizeof(path), "%s", dir);
	for (s = path + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			mkdir(path, 0700);
			*s = '/';
		}
	mkdir(path, 0700);
}

LLVMMemoryBufferRef ptx_jit_cache_read(const char *path)
{
	LLVMMemoryBufferRef buf = NULL;
	struct stat sb;
	char *data;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	data = !fstat(fd, &sb) && sb.st_size > 0 ? malloc(sb.st_size) : NULL;
	if (data && read(fd, data, sb.st_size) == sb.st_size)
		buf = ptx_jit_llvm.LLVMCreateMemoryBufferWithMemoryRangeCopy(data,
			sb.st_size, path);
	free(data);
	close(fd);
	return buf;
}

void ptx_jit_cache_write(const char *path, LLVMMemoryBufferRef buf)
{
	char tmp[4300];
	size_t n = ptx_jit_llvm.LLVMGetBufferSize(buf);
	int fd;

	/*
	 * A name no other writer has: processes of other hosts (VMs sharing
	 * the directory) can have the same pid.
	 */
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		ptx_log("JIT: cannot write the cache %s: %s", tmp, strerror(errno));
		return;
	}
	if (write(fd, ptx_jit_llvm.LLVMGetBufferStart(buf), n) != (ssize_t)n ||
	    close(fd) || rename(tmp, path)) {
		ptx_log("JIT: cannot write the cache %s: %s", path, strerror(errno));
		unlink(tmp);
	}
}

int ptx_jit_cache_lock(const char *dir)
{
	int fd;

	make_dirs(dir);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && flock(fd, LOCK_EX)) {
		close(fd);
		fd = -1;
	}
	return fd;
}
