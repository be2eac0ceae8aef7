// SPDX-License-Identifier: MIT
/*
 * The registry of module variables (module_globals.h): one sorted range
 * per variable of every loaded module, under one lock.  A variable of no
 * bytes has nothing to copy, and no range to hold it: it is not recorded.
 */
#include <pthread.h>

#include "module_globals.h"
#include "ranges.h"

struct libcumc_global {
	struct libcumc_range range;
	const struct cumc_ptx_module *ptx;	/* whose variable it is */
	CUcontext ctx;
	CUdevice dev;
	unsigned long long buffer_id;
};

static pthread_mutex_t libcumc_globals_lock = PTHREAD_MUTEX_INITIALIZER;
static struct libcumc_ranges libcumc_globals =
	LIBCUMC_RANGES_INIT(struct libcumc_global);
static unsigned long long libcumc_last_global_id;

/* One pass of cumc_ptx_globals_each, adding or removing. */
struct libcumc_globals_pass {
	struct libcumc_global model;	/* ptx, ctx, dev of each variable */
	bool failed;			/* an insertion ran out of memory */
};

static void libcumc_global_insert(void *arg, void *addr, size_t size)
{
	struct libcumc_globals_pass *pass = arg;
	struct libcumc_global g = pass->model;

	if (pass->failed || !size)
		return;
	g.range.base = (uintptr_t)addr;
	g.range.size = size;
	g.buffer_id = ++libcumc_last_global_id;
	pass->failed = !libcumc_ranges_insert(&libcumc_globals, &g);
}

static void libcumc_global_erase(void *arg, void *addr, size_t size)
{
	const struct libcumc_globals_pass *pass = arg;
	struct libcumc_global *g;

	g = libcumc_ranges_find(&libcumc_globals, (uintptr_t)addr);
	if (size && g && g->ptx == pass->model.ptx &&
	    g->range.base == (uintptr_t)addr)
		libcumc_ranges_remove(&libcumc_globals, g);
}

CUresult libcumc_globals_add(const struct cumc_ptx_module *ptx, CUcontext ctx,
			     CUdevice dev)
{
	struct libcumc_globals_pass pass = {
		.model = { .ptx = ptx, .ctx = ctx, .dev = dev },
	};

	pthread_mutex_lock(&libcumc_globals_lock);
	cumc_ptx_globals_each(ptx, libcumc_global_insert, &pass);
	if (pass.failed)
		cumc_ptx_globals_each(ptx, libcumc_global_erase, &pass);
	pthread_mutex_unlock(&libcumc_globals_lock);
	return pass.failed ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
}

void libcumc_globals_remove(const struct cumc_ptx_module *ptx)
{
	struct libcumc_globals_pass pass = { .model = { .ptx = ptx } };

	pthread_mutex_lock(&libcumc_globals_lock);
	cumc_ptx_globals_each(ptx, libcumc_global_erase, &pass);
	pthread_mutex_unlock(&libcumc_globals_lock);
}

bool libcumc_global_range(CUdeviceptr addr, size_t len)
{
	struct libcumc_global *g;
	bool ok;

	pthread_mutex_lock(&libcumc_globals_lock);
	g = libcumc_ranges_find(&libcumc_globals, addr);
	ok = g && len <= g->range.size - (addr - g->range.base);
	pthread_mutex_unlock(&libcumc_globals_lock);
	return ok;
}

bool libcumc_global_lookup(CUdeviceptr addr, struct libcumc_global_info *info)
{
	struct libcumc_global *g;

	pthread_mutex_lock(&libcumc_globals_lock);
	g = libcumc_ranges_find(&libcumc_globals, addr);
	if (g) {
		info->base = g->range.base;
		info->size = g->range.size;
		info->ctx = g->ctx;
		info->dev = g->dev;
		info->buffer_id = g->buffer_id;
	}
	pthread_mutex_unlock(&libcumc_globals_lock);
	return g;
}
