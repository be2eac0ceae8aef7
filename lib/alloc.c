// SPDX-License-Identifier: MIT
/*
 * cuMemAlloc, cuMemAllocPitch and cuMemFree on top of the module's VMM:
 * allocations made by memory.c, mapped by va.c's one path for the
 * library's own memory.
 *
 * A chunk is one allocation of the module: created on the current
 * context's device, mapped in a reservation of its own, and readable and
 * writable by every device, as the real driver makes device memory
 * reachable by peers.  Requests up to CUMC_SUBALLOC_MAX come out of
 * chunks of one granule cut into slots of one power-of-two size (512 bytes
 * up), as the real driver sub-allocates small requests: rounding every
 * 4-byte cuMemAlloc up to 2 MiB would spend a granule of device memory and
 * a reservation each.  Larger requests get a chunk of their own, rounded
 * up to the granularity.  A chunk goes back to the module when its last
 * slot is freed, so nothing is kept behind cuMemFree.
 *
 * Allocations belong to the context current at cuMemAlloc: destroying it
 * (or resetting a primary context) frees them, as on the real driver.
 *
 * Allocations are found by any address inside them (for cuMemFree,
 * cuMemGetAddressRange and cuPointerGetAttribute) in one sorted registry
 * under one lock; addresses never come from the caller as pointers to
 * dereference, so a garbage pointer is just an address found nowhere.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "context.h"
#include "entry.h"
#include "graph.h"
#include "memory.h"
#include "mempool.h"
#include "ranges.h"
#include "stream.h"
#include "va.h"

#define CUMC_SLOT_MIN 512u
#define CUMC_SLOT_CLASSES 16

struct libcumc_chunk {
	struct libcumc_chunk *next;	/* in its device's class list */
	CUdeviceptr base;
	size_t length;
	CUdevice dev;
	unsigned int slot_class;	/* CUMC_SLOT_CLASSES when dedicated */
	unsigned int num_slots, used;
	unsigned long long bits[];	/* a set bit is a slot in use */
};

struct libcumc_alloc {
	struct libcumc_range range;	/* base: as returned; size: asked */
	struct libcumc_chunk *chunk;
	CUcontext ctx;
	unsigned long long buffer_id;
	unsigned int sync_memops;
	unsigned int managed;		/* cuMemAllocManaged's flags */
	/* One per CPU page the allocation touches; NULL until first advised. */
	struct libcumc_page_advice *advice;
};

/* One list of chunks with free slots per device and slot size. */
struct libcumc_class_lists {
	CUdevice dev;
	struct libcumc_chunk *classes[CUMC_SLOT_CLASSES];
};

static pthread_mutex_t libcumc_alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct libcumc_ranges libcumc_allocs =
	LIBCUMC_RANGES_INIT(struct libcumc_alloc);
static struct libcumc_class_lists *libcumc_lists;
static unsigned int libcumc_num_lists;
static unsigned long long libcumc_last_buffer_id;

/* A chunk of @length bytes on @dev, mapped and open to every device. */
static CUresult libcumc_chunk_map(const struct libcumc_driver *drv,
				  CUdevice dev, size_t length,
				  CUdeviceptr *base)
{
	struct cumc_access_desc *descs;
	__u64 handle;
	unsigned int i;
	CUresult res;

	descs = calloc(drv->num_devices, sizeof(*descs));
	if (!descs)
		return CUDA_ERROR_OUT_OF_MEMORY;
	for (i = 0; i < drv->num_devices; i++) {
		descs[i].device = i;
		descs[i].access = CUMC_ACCESS_READWRITE;
	}
	/* Exportable, for the legacy IPC of cuIpcGetMemHandle (ipc.c). */
	res = libcumc_mem_create(drv, dev, length, CUMC_HANDLE_FD, &handle);
	if (res == CUDA_SUCCESS) {
		res = libcumc_va_map_handle(drv, handle, length, descs,
					    drv->num_devices, base);
		/* The mapping holds the allocation from here on. */
		libcumc_release_handle(drv, handle);
	}
	free(descs);
	/* The device is full: the same answer as the real driver's. */
	return res;
}

static void libcumc_chunk_unmap(struct libcumc_chunk *chunk)
{
	const struct libcumc_driver *drv;

	/* A chunk was made by the driver state it is unmapped from. */
	if (libcumc_driver(&drv) == CUDA_SUCCESS)
		libcumc_va_unmap_handle(drv, chunk->base, chunk->length);
}

static struct libcumc_chunk *libcumc_chunk_new(const struct libcumc_driver *drv,
					       CUdevice dev, size_t length,
					       unsigned int slot_class,
					       unsigned int num_slots,
					       CUresult *res)
{
	size_t words = (num_slots + 63) / 64;
	struct libcumc_chunk *chunk;

	chunk = calloc(1, sizeof(*chunk) + words * sizeof(chunk->bits[0]));
	if (!chunk) {
		*res = CUDA_ERROR_OUT_OF_MEMORY;
		return NULL;
	}
	*res = libcumc_chunk_map(drv, dev, length, &chunk->base);
	if (*res != CUDA_SUCCESS) {
		free(chunk);
		return NULL;
	}
	chunk->length = length;
	chunk->dev = dev;
	chunk->slot_class = slot_class;
	chunk->num_slots = num_slots;
	return chunk;
}

static struct libcumc_class_lists *libcumc_lists_of(CUdevice dev)
{
	struct libcumc_class_lists *lists;
	unsigned int i;

	for (i = 0; i < libcumc_num_lists; i++)
		if (libcumc_lists[i].dev == dev)
			return &libcumc_lists[i];
	lists = reallocarray(libcumc_lists, libcumc_num_lists + 1,
			     sizeof(*lists));
	if (!lists)
		return NULL;
	libcumc_lists = lists;
	lists = &libcumc_lists[libcumc_num_lists++];
	memset(lists, 0, sizeof(*lists));
	lists->dev = dev;
	return lists;
}

static size_t libcumc_slot_size(unsigned int slot_class)
{
	return (size_t)CUMC_SLOT_MIN << slot_class;
}

/* The smallest class that holds @size; CUMC_SLOT_CLASSES for none. */
static unsigned int libcumc_slot_class(size_t size, size_t granularity)
{
	unsigned int c;

	for (c = 0; c < CUMC_SLOT_CLASSES; c++) {
		/* At least eight slots a chunk, or it is not worth sharing. */
		if (libcumc_slot_size(c) > granularity / 8)
			break;
		if (size <= libcumc_slot_size(c))
			return c;
	}
	return CUMC_SLOT_CLASSES;
}

static void libcumc_list_unlink(struct libcumc_chunk **head,
				struct libcumc_chunk *chunk)
{
	for (; *head; head = &(*head)->next)
		if (*head == chunk) {
			*head = chunk->next;
			chunk->next = NULL;
			return;
		}
}

static unsigned int libcumc_slot_take(struct libcumc_chunk *chunk)
{
	unsigned int w, bit;

	for (w = 0;; w++)
		if (~chunk->bits[w]) {
			bit = __builtin_ctzll(~chunk->bits[w]);
			chunk->bits[w] |= 1ULL << bit;
			chunk->used++;
			return w * 64 + bit;
		}
}

/* A slot of class @c on @dev: from a chunk with room, else a new chunk. */
static CUresult libcumc_suballoc(const struct libcumc_driver *drv,
				 CUdevice dev, unsigned int c,
				 size_t granularity, struct libcumc_alloc *a)
{
	struct libcumc_class_lists *lists = libcumc_lists_of(dev);
	struct libcumc_chunk *chunk;
	unsigned int slot;
	CUresult res;

	if (!lists)
		return CUDA_ERROR_OUT_OF_MEMORY;
	chunk = lists->classes[c];
	if (!chunk) {
		chunk = libcumc_chunk_new(drv, dev, granularity, c,
					  granularity / libcumc_slot_size(c),
					  &res);
		if (!chunk)
			return res;
		lists->classes[c] = chunk;
	}
	slot = libcumc_slot_take(chunk);
	/* Full: off the list of chunks with room. */
	if (chunk->used == chunk->num_slots)
		libcumc_list_unlink(&lists->classes[c], chunk);
	a->chunk = chunk;
	a->range.base = chunk->base + slot * libcumc_slot_size(c);
	return CUDA_SUCCESS;
}

/* Undo what one allocation holds of its chunk; the chunk may go. */
static void libcumc_chunk_put(struct libcumc_chunk *chunk, CUdeviceptr base)
{
	struct libcumc_class_lists *lists;
	unsigned int slot;
	bool was_full;

	if (chunk->slot_class == CUMC_SLOT_CLASSES) {
		libcumc_chunk_unmap(chunk);
		free(chunk);
		return;
	}
	lists = libcumc_lists_of(chunk->dev);
	slot = (base - chunk->base) / libcumc_slot_size(chunk->slot_class);
	was_full = chunk->used == chunk->num_slots;
	chunk->bits[slot / 64] &= ~(1ULL << (slot % 64));
	chunk->used--;
	if (!chunk->used) {
		if (!was_full)
			libcumc_list_unlink(&lists->classes[chunk->slot_class],
					    chunk);
		libcumc_chunk_unmap(chunk);
		free(chunk);
	} else if (was_full) {
		chunk->next = lists->classes[chunk->slot_class];
		lists->classes[chunk->slot_class] = chunk;
	}
}

/* Ends @a, which the registry's lock protects; @a is gone after. */
static void libcumc_alloc_remove(struct libcumc_alloc *a)
{
	libcumc_chunk_put(a->chunk, a->range.base);
	free(a->advice);
	libcumc_ranges_remove(&libcumc_allocs, a);
}

static CUresult libcumc_alloc_locked(const struct libcumc_driver *drv,
				     CUdevice dev, size_t size,
				     size_t granularity,
				     struct libcumc_alloc *a)
{
	unsigned int c = libcumc_slot_class(size, granularity);
	size_t length;
	CUresult res;

	if (c < CUMC_SLOT_CLASSES) {
		res = libcumc_suballoc(drv, dev, c, granularity, a);
	} else {
		if (__builtin_add_overflow(size, granularity - 1, &length))
			return CUDA_ERROR_OUT_OF_MEMORY;
		length -= length % granularity;
		a->chunk = libcumc_chunk_new(drv, dev, length, c, 1, &res);
		if (a->chunk)
			a->range.base = a->chunk->base;
	}
	if (res != CUDA_SUCCESS)
		return res;
	a->range.size = size;
	a->buffer_id = ++libcumc_last_buffer_id;
	if (!libcumc_ranges_insert(&libcumc_allocs, a)) {
		libcumc_chunk_put(a->chunk, a->range.base);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	return CUDA_SUCCESS;
}

static CUresult libcumc_mem_alloc(const struct libcumc_driver *drv,
				  CUdeviceptr *dptr, size_t bytesize,
				  unsigned int managed)
{
	struct libcumc_alloc a = { .managed = managed };
	struct cumc_device_info info;
	CUdevice dev;
	CUresult res;

	if (!dptr || !bytesize)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_current_device_info(drv, &dev, &info);
	if (res != CUDA_SUCCESS)
		return res;
	a.ctx = libcumc_stack_top();
	pthread_mutex_lock(&libcumc_alloc_lock);
	res = libcumc_alloc_locked(drv, dev, bytesize, info.granularity, &a);
	pthread_mutex_unlock(&libcumc_alloc_lock);
	if (res == CUDA_SUCCESS)
		*dptr = a.range.base;
	return res;
}

CUresult libcumc_impl_cuMemAlloc_v2(const struct libcumc_driver *drv,
				    CUdeviceptr *dptr, size_t bytesize)
{
	CUresult res = libcumc_capture_unsafe_check();

	if (res != CUDA_SUCCESS)
		return res;
	return libcumc_mem_alloc(drv, dptr, bytesize, 0);
}

CUresult libcumc_alloc_managed(const struct libcumc_driver *drv,
			       CUdeviceptr *dptr, size_t bytesize,
			       unsigned int flags)
{
	return libcumc_mem_alloc(drv, dptr, bytesize, flags);
}

/*
 * Rows padded to a multiple of 512 bytes, the alignment the real driver
 * gives pitched rows; ElementSizeBytes is 4, 8 or 16 as documented.
 */
#define CUMC_PITCH_ALIGN 512

CUresult libcumc_impl_cuMemAllocPitch_v2(const struct libcumc_driver *drv,
					 CUdeviceptr *dptr, size_t *pPitch,
					 size_t WidthInBytes, size_t Height,
					 unsigned int ElementSizeBytes)
{
	size_t pitch, size;
	CUresult res;

	if (!dptr || !pPitch || !WidthInBytes || !Height ||
	    (ElementSizeBytes != 4 && ElementSizeBytes != 8 &&
	     ElementSizeBytes != 16))
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_capture_unsafe_check();
	if (res != CUDA_SUCCESS)
		return res;
	if (__builtin_add_overflow(WidthInBytes, CUMC_PITCH_ALIGN - 1, &pitch))
		return CUDA_ERROR_INVALID_VALUE;
	pitch -= pitch % CUMC_PITCH_ALIGN;
	if (__builtin_mul_overflow(pitch, Height, &size))
		return CUDA_ERROR_OUT_OF_MEMORY;
	res = libcumc_mem_alloc(drv, dptr, size, 0);
	if (res == CUDA_SUCCESS)
		*pPitch = pitch;
	return res;
}

/*
 * Only what cuMemAlloc returned, and only its start, may be freed; 0
 * frees nothing and succeeds, as on driver 580 (measured).
 */
CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr)
{
	struct libcumc_alloc *a;
	CUresult res = libcumc_capture_unsafe_check();

	if (res != CUDA_SUCCESS || !dptr)
		return res;
	pthread_mutex_lock(&libcumc_alloc_lock);
	a = libcumc_ranges_find(&libcumc_allocs, dptr);
	if (a && a->range.base == dptr)
		libcumc_alloc_remove(a);
	else
		res = CUDA_ERROR_NOT_FOUND;
	pthread_mutex_unlock(&libcumc_alloc_lock);
	/* Memory of the stream-ordered allocator may be freed here too. */
	if (res == CUDA_ERROR_NOT_FOUND)
		res = libcumc_pool_free_now(dptr);
	/* And graph memory, once its allocation has run. */
	if (res == CUDA_ERROR_NOT_FOUND)
		res = libcumc_graph_mem_free_now(dptr);
	return res == CUDA_ERROR_NOT_FOUND ? CUDA_ERROR_INVALID_VALUE : res;
}

bool libcumc_alloc_lookup(CUdeviceptr addr, struct libcumc_alloc_info *info)
{
	struct libcumc_alloc *a;

	pthread_mutex_lock(&libcumc_alloc_lock);
	a = libcumc_ranges_find(&libcumc_allocs, addr);
	if (a) {
		info->base = a->range.base;
		info->size = a->range.size;
		info->ctx = a->ctx;
		info->dev = a->chunk->dev;
		info->buffer_id = a->buffer_id;
		info->sync_memops = a->sync_memops;
		info->managed = a->managed;
		info->chunk_base = a->chunk->base;
		info->chunk_length = a->chunk->length;
	}
	pthread_mutex_unlock(&libcumc_alloc_lock);
	return a;
}

bool libcumc_alloc_set_sync_memops(CUdeviceptr addr, unsigned int value)
{
	struct libcumc_alloc *a;

	pthread_mutex_lock(&libcumc_alloc_lock);
	a = libcumc_ranges_find(&libcumc_allocs, addr);
	if (a)
		a->sync_memops = value;
	pthread_mutex_unlock(&libcumc_alloc_lock);
	return a;
}

/* The CPU pages @base and @size touch, as numbers of pages. */
static void libcumc_page_span(CUdeviceptr base, size_t size, size_t page,
			      size_t *first, size_t *count)
{
	*first = base / page;
	*count = (base + size - 1) / page - *first + 1;
}

bool libcumc_managed_visit(CUdeviceptr addr, size_t len,
			   void (*fn)(struct libcumc_page_advice *pages,
				      size_t count, void *arg),
			   void *arg, bool *no_memory)
{
	size_t page = sysconf(_SC_PAGESIZE);
	size_t first, count, alloc_first, alloc_count;
	struct libcumc_alloc *a;
	bool found = false;

	*no_memory = false;
	if (addr + len - 1 < addr)
		return false;
	pthread_mutex_lock(&libcumc_alloc_lock);
	a = libcumc_ranges_find(&libcumc_allocs, addr);
	if (!a || !a->managed ||
	    addr + len > a->range.base + a->range.size)
		goto out;
	libcumc_page_span(a->range.base, a->range.size, page, &alloc_first,
			  &alloc_count);
	if (!a->advice)
		a->advice = calloc(alloc_count, sizeof(*a->advice));
	if (!a->advice) {
		*no_memory = true;
		goto out;
	}
	/* Inside the allocation, so inside its pages. */
	libcumc_page_span(addr, len, page, &first, &count);
	fn(a->advice + (first - alloc_first), count, arg);
	found = true;
out:
	pthread_mutex_unlock(&libcumc_alloc_lock);
	return found;
}

void libcumc_alloc_free_context(CUcontext ctx)
{
	struct libcumc_alloc *a;
	size_t i;

	pthread_mutex_lock(&libcumc_alloc_lock);
	for (i = libcumc_allocs.count; i-- > 0;) {
		a = (struct libcumc_alloc *)libcumc_allocs.items + i;
		if (a->ctx == ctx)
			libcumc_alloc_remove(a);
	}
	pthread_mutex_unlock(&libcumc_alloc_lock);
}

/*
 * A forked child starts over with its own client: the parent's chunks
 * are the parent's (the module unmaps them from the child), so they are
 * forgotten, not freed.
 */
static void libcumc_alloc_forget_parent(void)
{
	struct libcumc_alloc *a;
	struct libcumc_chunk *chunk;
	size_t i;

	for (i = 0; i < libcumc_allocs.count; i++) {
		a = (struct libcumc_alloc *)libcumc_allocs.items + i;
		chunk = a->chunk;
		/* Free each chunk once: when its last slot is met. */
		if (chunk->slot_class == CUMC_SLOT_CLASSES || !--chunk->used)
			free(chunk);
		free(a->advice);
	}
	libcumc_ranges_clear(&libcumc_allocs);
	free(libcumc_lists);
	libcumc_lists = NULL;
	libcumc_num_lists = 0;
	pthread_mutex_init(&libcumc_alloc_lock, NULL);
}

__attribute__((constructor)) static void libcumc_alloc_atfork(void)
{
	pthread_atfork(NULL, NULL, libcumc_alloc_forget_parent);
}
