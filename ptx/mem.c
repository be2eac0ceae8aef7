// SPDX-License-Identifier: MIT
/*
 * Address checks of every access a kernel makes.  Nothing a kernel does
 * reaches memory unchecked: a parameter, shared or local access is
 * bounded by its window; a global or generic one must fall in the
 * thread's own local or shared window, a module global, or device memory
 * the caller's callback allowed (whose whole mapping is then remembered
 * in a small per-worker cache, so a streaming kernel asks once).  This is
 * a bounds check against known mappings, not a SIGSEGV handler: memory
 * unmapped by another thread while a kernel runs is the caller's race,
 * as on hardware it is the program's.
 */
#include "exec.h"

static bool within(uint64_t addr, size_t size, uint64_t lo, uint64_t hi)
{
	return addr >= lo && addr <= hi && size <= hi - addr;
}

static void *window(unsigned char *base, size_t len, uint64_t off,
		    size_t size)
{
	return within(off, size, 0, len) ? base + off : NULL;
}

static bool module_global(const struct cumc_ptx_module *m, uint64_t addr,
			  size_t size, bool write)
{
	unsigned int i;

	for (i = 0; i < m->nglobals; i++) {
		const struct ptx_global *g = &m->globals[i];
		uint64_t lo = (uintptr_t)g->data;

		if (within(addr, size, lo, lo + g->size))
			return !write || g->space != PS_CONST;
	}
	return false;
}

static bool cached(struct ptx_worker *w, uint64_t addr, size_t size,
		   bool write)
{
	unsigned int i;

	for (i = 0; i < PTX_RANGES; i++) {
		const struct ptx_range *r = &w->ranges[i];

		if (r->hi && within(addr, size, r->lo, r->hi) &&
		    (r->write || !write))
			return true;
	}
	return false;
}

static bool device_memory(struct ptx_worker *w, uint64_t addr, size_t size,
			  bool write)
{
	const struct cumc_ptx_memory *mem = w->grid->launch->memory;
	struct ptx_range r = { .write = write };

	if (cached(w, addr, size, write))
		return true;
	if (!mem || !mem->check ||
	    !mem->check(mem->arg, addr, size, write, &r.lo, &r.hi))
		return false;
	if (!within(addr, size, r.lo, r.hi))
		r.lo = addr, r.hi = addr + size;
	w->ranges[w->next_range++ % PTX_RANGES] = r;
	return true;
}

static void *generic(struct ptx_worker *w, struct ptx_cta *cta,
		     const struct ptx_thread *t, uint64_t addr, size_t size,
		     bool write)
{
	size_t lsize = t->local_size;
	uint64_t shared = (uintptr_t)cta->shared;
	uint64_t local = (uintptr_t)t->local;

	if (cta->shared_size &&
	    within(addr, size, shared, shared + cta->shared_size))
		return (void *)(uintptr_t)addr;
	if (lsize && within(addr, size, local, local + lsize))
		return (void *)(uintptr_t)addr;

	if (module_global(w->grid->fn->module, addr, size, write) ||
	    device_memory(w, addr, size, write))
		return (void *)(uintptr_t)addr;
	return NULL;
}

void *ptx_mem(struct ptx_worker *w, struct ptx_cta *cta,
	      const struct ptx_thread *t, enum ptx_space space, uint64_t addr,
	      size_t size, bool write)
{
	const struct ptx_grid *g = w->grid;

	if (addr & (size - 1))
		return NULL;	/* misaligned: a fault on hardware too */
	switch (space) {
	case PS_PARAM:
		if (t->depth)	/* a device function's own, results included */
			return window(t->params, t->fn->param_size, addr, size);
		return write ? NULL :
		       window((unsigned char *)g->launch->params,
			      g->fn->param_size, addr, size);
	case PS_SHARED:
		return window(cta->shared, cta->shared_size, addr, size);
	case PS_LOCAL:
		return window(t->local, t->local_size, addr, size);
	default:
		return generic(w, cta, t, addr, size, write);
	}
}
