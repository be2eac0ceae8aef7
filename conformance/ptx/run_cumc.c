// SPDX-License-Identifier: MIT
/*
 * The corpus on cumc: libcumc-ptx runs each kernel on buffers of this
 * process, as ptx/tests/test_ptx.c does, so the check needs no VM and no
 * device.  The launch is the one libcumc makes for cuLaunchKernel.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "cumc_ptx.h"

/* The modules loaded so far, by file name. */
static struct loaded {
	char file[64];
	struct cumc_ptx_module *m;
} loaded[32];
static unsigned int nloaded;

/*
 * test_ptx_corpus_interp runs every kernel on the interpreter, the
 * reference the compiled kernels of test_ptx_corpus are checked beside;
 * test_ptx_corpus_tcg compiles them as for the VM's CPU, QEMU's TCG
 * (x86-64-v2, no FMA: f32 fma through f64), so that the code the VM's
 * tests run is held to the hardware's answers on the host.
 */
#ifdef CORPUS_INTERPRETED
#define EXECUTOR "interpreted"
#elif defined(CORPUS_TCG_TARGET)
#include "exec.h"
#define EXECUTOR "compiled for QEMU's TCG"
#else
#define EXECUTOR "compiled where the JIT covers a kernel"
#endif

const char *corpus_backend(void)
{
	return "cumc (libcumc-ptx, on the host, " EXECUTOR ")";
}

static struct cumc_ptx_module *module(const struct corpus_launch *l,
				      char *err, size_t err_len)
{
	char log[512] = "";
	struct cumc_ptx_module *m = NULL;
	enum cumc_ptx_status st;
	unsigned int i;

	for (i = 0; i < nloaded; i++)
		if (!strcmp(loaded[i].file, l->file))
			return loaded[i].m;
#ifdef CORPUS_INTERPRETED
	setenv("CUMC_PTX_JIT", "0", 1);
#elif defined(CORPUS_TCG_TARGET)
	ptx_cpu_force_emulated(true);
#endif
	st = cumc_ptx_load(l->ptx, 0, 90, &m, log, sizeof(log));
	if (st != CUMC_PTX_OK) {
		snprintf(err, err_len, "load %s: %s: %s", l->file,
			 cumc_ptx_strerror(st), log);
		return NULL;
	}
	if (nloaded < sizeof(loaded) / sizeof(loaded[0])) {
		snprintf(loaded[nloaded].file, sizeof(loaded[0].file), "%s",
			 l->file);
		loaded[nloaded++].m = m;
	}
	return m;
}

/* The kernel's device memory: its two buffers. */
struct bufs {
	uint64_t lo[2], hi[2];
};

static bool check(void *arg, uint64_t addr, size_t len, bool write,
		  uint64_t *lo, uint64_t *hi)
{
	struct bufs *b = arg;
	unsigned int i;

	(void)write;
	for (i = 0; i < 2; i++)
		if (addr >= b->lo[i] && addr + len <= b->hi[i]) {
			*lo = b->lo[i];
			*hi = b->hi[i];
			return true;
		}
	return false;
}

int corpus_run(const struct corpus_launch *l, char *err, size_t err_len)
{
	struct cumc_ptx_module *m = module(l, err, err_len);
	const struct cumc_ptx_function *f;
	struct { uint64_t out, in; uint32_t n, total; } params;
	struct cumc_ptx_fault fault;
	struct bufs b;
	struct cumc_ptx_memory mem = { check, &b };
	struct cumc_ptx_launch launch = { .params = &params, .memory = &mem };
	enum cumc_ptx_status st;
	/* Device allocations are aligned; so are these, for .v4 and .v2.u64. */
	void *in = aligned_alloc(256, (l->in_len + 255) / 256 * 256);

	if (!m || !in) {
		free(in);
		return -1;
	}
	f = cumc_ptx_function_find(m, l->kernel);
	if (!f) {
		snprintf(err, err_len, "no kernel %s in %s", l->kernel,
			 l->file);
		free(in);
		return -1;
	}
	memcpy(in, l->in, l->in_len);
	memset(l->out, 0, l->out_len);
	b.lo[0] = (uintptr_t)in;
	b.hi[0] = b.lo[0] + l->in_len;
	b.lo[1] = (uintptr_t)l->out;
	b.hi[1] = b.lo[1] + l->out_len;
	params.out = (uintptr_t)l->out;
	params.in = (uintptr_t)in;
	params.n = l->n;
	params.total = l->total;
	memcpy(launch.grid, l->grid, sizeof(launch.grid));
	memcpy(launch.block, l->block, sizeof(launch.block));
	st = cumc_ptx_launch(f, &launch, &fault);
	free(in);
	if (st != CUMC_PTX_OK) {
		snprintf(err, err_len, "launch: %s at line %u",
			 cumc_ptx_strerror(st), fault.line);
		return -1;
	}
	return 0;
}
