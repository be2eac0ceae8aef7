// SPDX-License-Identifier: MIT
/*
 * Page-locked host memory.  Every device of cumc is the CPU, so host
 * memory needs no mapping to be reachable from a device: an allocation is
 * an anonymous mapping of the process, populated up front (pinned memory
 * is resident), and its device pointer is its host address, as unified
 * addressing makes it on the real driver.  Pages are not mlock()ed: the
 * simulated devices do not DMA, and RLIMIT_MEMLOCK would refuse what the
 * real driver grants.  The registry of allocations and registered ranges
 * is what the copy and pointer entry points consult (host_mem.h).
 */
#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include "context.h"
#include "host_mem.h"
#include "log.h"
#include "ranges.h"
#include "stream.h"

#define CUMC_HOSTALLOC_FLAGS \
	(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | \
	 CU_MEMHOSTALLOC_WRITECOMBINED)
#define CUMC_HOSTREGISTER_FLAGS \
	(CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP | \
	 CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY)

struct libcumc_host {
	struct libcumc_range range;
	size_t mapped;		/* bytes mmap()ed, 0 for a registered range */
	unsigned int flags;
	CUcontext ctx;
	CUdevice dev;
	unsigned long long buffer_id;
};

static pthread_mutex_t libcumc_host_lock = PTHREAD_MUTEX_INITIALIZER;
static struct libcumc_ranges libcumc_hosts =
	LIBCUMC_RANGES_INIT(struct libcumc_host);
static unsigned long long libcumc_last_host_id;

static bool libcumc_host_check(CUdeviceptr addr, size_t len, bool write)
{
	struct libcumc_host *h;
	bool ok = false;

	pthread_mutex_lock(&libcumc_host_lock);
	h = libcumc_ranges_find(&libcumc_hosts, addr);
	if (h && len <= h->range.size - (addr - h->range.base))
		ok = !write || h->mapped ||
		     !(h->flags & CU_MEMHOSTREGISTER_READ_ONLY);
	pthread_mutex_unlock(&libcumc_host_lock);
	return ok;
}

bool libcumc_host_range(CUdeviceptr addr, size_t len)
{
	return libcumc_host_check(addr, len, false);
}

bool libcumc_host_range_writable(CUdeviceptr addr, size_t len)
{
	return libcumc_host_check(addr, len, true);
}

bool libcumc_host_lookup(CUdeviceptr addr, struct libcumc_host_info *info)
{
	struct libcumc_host *h;

	pthread_mutex_lock(&libcumc_host_lock);
	h = libcumc_ranges_find(&libcumc_hosts, addr);
	if (h) {
		info->base = h->range.base;
		info->size = h->range.size;
		info->flags = h->flags;
		info->registered = !h->mapped;
		info->ctx = h->ctx;
		info->dev = h->dev;
		info->buffer_id = h->buffer_id;
	}
	pthread_mutex_unlock(&libcumc_host_lock);
	return h;
}

/*
 * What [base, base + size) overlaps in the registry: a host allocation
 * (INVALID_VALUE), a registered range (HOST_MEMORY_ALREADY_REGISTERED),
 * or nothing (CUDA_SUCCESS).
 */
static CUresult libcumc_host_overlap(uintptr_t base, size_t size)
{
	CUresult res = CUDA_SUCCESS;
	const struct libcumc_host *h;
	size_t i;

	for (i = 0; i < libcumc_hosts.count; i++) {
		h = (const struct libcumc_host *)libcumc_hosts.items + i;
		if (h->range.base >= base + size ||
		    base >= h->range.base + h->range.size)
			continue;
		if (h->mapped)
			return CUDA_ERROR_INVALID_VALUE;
		res = CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
	}
	return res;
}

/*
 * Records @h.  On an overlap, as driver 580 answers (measured): with a
 * host allocation INVALID_VALUE, with a registered range
 * HOST_MEMORY_ALREADY_REGISTERED.  The scan is linear, for registrations
 * only: they are few, and this is no fast path.
 */
static CUresult libcumc_host_add(struct libcumc_host *h)
{
	CUresult res;

	pthread_mutex_lock(&libcumc_host_lock);
	h->buffer_id = ++libcumc_last_host_id;
	/* A fresh mapping overlaps nothing: only registrations are scanned. */
	res = h->mapped ? CUDA_SUCCESS :
			  libcumc_host_overlap(h->range.base, h->range.size);
	if (res == CUDA_SUCCESS && !libcumc_ranges_insert(&libcumc_hosts, h))
		res = CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_unlock(&libcumc_host_lock);
	return res;
}

/*
 * Host allocations, like the real driver's, need a current context.
 * Unified addressing maps every one of them for every device: their flags
 * answer DEVICEMAP whatever was asked, as driver 580's do (measured).
 */
static CUresult libcumc_host_begin(struct libcumc_host *h)
{
	const struct libcumc_driver *drv;
	CUresult res = libcumc_driver(&drv);

	if (res == CUDA_SUCCESS)
		res = libcumc_current_device(&h->dev);
	h->ctx = libcumc_stack_top();
	return res;
}

static CUresult libcumc_host_alloc(void **pp, size_t bytesize,
				   unsigned int Flags)
{
	struct libcumc_host h = { .flags = Flags | CU_MEMHOSTALLOC_DEVICEMAP };
	long page = sysconf(_SC_PAGESIZE);
	void *p;
	CUresult res = libcumc_host_begin(&h);

	if (res == CUDA_SUCCESS)
		res = libcumc_capture_unsafe_check();
	if (res != CUDA_SUCCESS)
		return res;
	if (!pp || Flags & ~CUMC_HOSTALLOC_FLAGS)
		return CUDA_ERROR_INVALID_VALUE;
	/* Zero bytes succeed, as on driver 580: nothing, at NULL. */
	if (!bytesize) {
		*pp = NULL;
		return CUDA_SUCCESS;
	}
	if (__builtin_add_overflow(bytesize, page - 1, &h.mapped))
		return CUDA_ERROR_OUT_OF_MEMORY;
	h.mapped -= h.mapped % page;
	p = mmap(NULL, h.mapped, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED) {
		libcumc_log_errno("mmap", NULL, errno);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	h.range.base = (uintptr_t)p;
	h.range.size = bytesize;
	res = libcumc_host_add(&h);
	if (res != CUDA_SUCCESS) {
		munmap(p, h.mapped);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*pp = p;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize,
				unsigned int Flags)
{
	return libcumc_host_alloc(pp, bytesize, Flags);
}

CUresult CUDAAPI cuMemAllocHost_v2(void **pp, size_t bytesize)
{
	return libcumc_host_alloc(pp, bytesize, 0);
}

/*
 * Only the start of what cuMemHostAlloc/cuMemAllocHost returned; NULL,
 * what a zero-byte allocation returned, frees nothing.
 */
CUresult CUDAAPI cuMemFreeHost(void *p)
{
	struct libcumc_host *h;
	void *base = NULL;
	size_t mapped = 0;
	CUresult res = libcumc_capture_unsafe_check();

	if (res != CUDA_SUCCESS || !p)
		return res;
	pthread_mutex_lock(&libcumc_host_lock);
	h = libcumc_ranges_find(&libcumc_hosts, (uintptr_t)p);
	if (h && h->mapped && h->range.base == (uintptr_t)p) {
		base = p;
		mapped = h->mapped;
		libcumc_ranges_remove(&libcumc_hosts, h);
	}
	pthread_mutex_unlock(&libcumc_host_lock);
	if (!base)
		return CUDA_ERROR_INVALID_VALUE;
	munmap(base, mapped);
	return CUDA_SUCCESS;
}

/* Unified addressing: the device pointer of host memory is its address. */
CUresult CUDAAPI cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p,
					      unsigned int Flags)
{
	struct libcumc_host h;
	CUresult res = libcumc_host_begin(&h);

	if (res != CUDA_SUCCESS)
		return res;
	if (!pdptr || Flags || !libcumc_host_range((uintptr_t)p, 0))
		return CUDA_ERROR_INVALID_VALUE;
	*pdptr = (uintptr_t)p;
	return CUDA_SUCCESS;
}

/* The flags of the allocation, for any address inside it. */
CUresult CUDAAPI cuMemHostGetFlags(unsigned int *pFlags, void *p)
{
	struct libcumc_host_info info;
	struct libcumc_host h;
	CUresult res = libcumc_host_begin(&h);

	if (res != CUDA_SUCCESS)
		return res;
	if (!pFlags || !libcumc_host_lookup((uintptr_t)p, &info))
		return CUDA_ERROR_INVALID_VALUE;
	*pFlags = info.flags;
	return CUDA_SUCCESS;
}

/*
 * The range must be mapped in the process (msync() fails with ENOMEM
 * where it is not).  IOMEMORY names a third-party device's memory, which
 * cumc has none of: a bad value, as driver 580 answers for ordinary
 * memory (measured).
 */
CUresult CUDAAPI cuMemHostRegister_v2(void *p, size_t bytesize,
				      unsigned int Flags)
{
	struct libcumc_host h = {
		.flags = Flags | CU_MEMHOSTREGISTER_DEVICEMAP,
	};
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t start, end;
	CUresult res = libcumc_host_begin(&h);

	if (res != CUDA_SUCCESS)
		return res;
	if (!p || !bytesize || Flags & ~CUMC_HOSTREGISTER_FLAGS ||
	    __builtin_add_overflow((uintptr_t)p, bytesize, &end))
		return CUDA_ERROR_INVALID_VALUE;
	if (Flags & CU_MEMHOSTREGISTER_IOMEMORY)
		return CUDA_ERROR_INVALID_VALUE;
	start = (uintptr_t)p & ~(uintptr_t)(page - 1);
	if (msync((void *)start, end - start, MS_ASYNC))
		return CUDA_ERROR_INVALID_VALUE;
	h.range.base = (uintptr_t)p;
	h.range.size = bytesize;
	return libcumc_host_add(&h);
}

/*
 * As driver 580 answers (measured): inside a registered range or host
 * allocation but not the start of a registered range, a bad value; in
 * none, NOT_REGISTERED.
 */
CUresult CUDAAPI cuMemHostUnregister(void *p)
{
	struct libcumc_host *h;
	CUresult res = CUDA_SUCCESS;

	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&libcumc_host_lock);
	h = libcumc_ranges_find(&libcumc_hosts, (uintptr_t)p);
	if (h && !h->mapped && h->range.base == (uintptr_t)p)
		libcumc_ranges_remove(&libcumc_hosts, h);
	else if (h)
		res = CUDA_ERROR_INVALID_VALUE;
	else
		res = CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
	pthread_mutex_unlock(&libcumc_host_lock);
	return res;
}

void libcumc_host_free_context(CUcontext ctx)
{
	struct libcumc_host *h;
	size_t i;

	pthread_mutex_lock(&libcumc_host_lock);
	for (i = libcumc_hosts.count; i-- > 0;) {
		h = (struct libcumc_host *)libcumc_hosts.items + i;
		if (h->ctx != ctx)
			continue;
		if (h->mapped)
			munmap((void *)h->range.base, h->mapped);
		libcumc_ranges_remove(&libcumc_hosts, h);
	}
	pthread_mutex_unlock(&libcumc_host_lock);
}

/*
 * A forked child keeps its copies of the pages but starts over with the
 * driver: they are no longer CUDA's.  The mappings stay (the program may
 * still read them) and are forgotten.
 */
static void libcumc_host_forget_parent(void)
{
	libcumc_ranges_clear(&libcumc_hosts);
	pthread_mutex_init(&libcumc_host_lock, NULL);
}

__attribute__((constructor)) static void libcumc_host_atfork(void)
{
	pthread_atfork(NULL, NULL, libcumc_host_forget_parent);
}
