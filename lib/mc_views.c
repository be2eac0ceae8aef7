// SPDX-License-Identifier: MIT
/*
 * The member views of each multicast mapping of this process.
 *
 * The first data-path operation on a multicast mapping asks the module for
 * a view of every member (one CUMC_MC_VIEW given an array of views) and
 * keeps them here, sorted by address; later operations find them with a
 * binary search and no system call. Operations hold the table's read lock
 * while they run, so forgetting a mapping (cuMemUnmap, cuMemSetAccess,
 * fork) waits for them to finish. A kernel's worker keeps a mapping held
 * from one multimem instruction to the next (libcumc_mc_acquire_held()),
 * for a bounded time: the lock prefers writers, so that the workers of a
 * long kernel, taking it in turns, never keep a writer out for longer
 * than that, and no thread takes it twice.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mc_views.h"

static pthread_rwlock_t libcumc_views_lock =
	PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
/* The known mappings, sorted by address; under libcumc_views_lock. */
static struct libcumc_mc_mapping **libcumc_views;
static size_t libcumc_views_count;

static void libcumc_mc_mapping_free(struct libcumc_mc_mapping *map)
{
	unsigned int i;

	for (i = 0; i < map->num_members; i++)
		munmap(map->views[i], map->length);
	free(map);
}

/* The index of the first mapping ending after @addr. */
static size_t libcumc_views_search(CUdeviceptr addr)
{
	size_t lo = 0, hi = libcumc_views_count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct libcumc_mc_mapping *map = libcumc_views[mid];

		if (map->addr + map->length <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct libcumc_mc_mapping *libcumc_views_find(CUdeviceptr addr)
{
	size_t i = libcumc_views_search(addr);

	if (i < libcumc_views_count && libcumc_views[i]->addr <= addr)
		return libcumc_views[i];
	return NULL;
}

/* How CUMC_MC_VIEW's errno reads for the data path. */
static const struct libcumc_errno_result libcumc_view_errors[] = {
	/* Not in a multicast mapping of this client. */
	{ ENXIO, CUDA_ERROR_INVALID_VALUE },
	/* No device has access to the mapping. */
	{ EACCES, CUDA_ERROR_ILLEGAL_ADDRESS },
	{ 0 }
};

/*
 * The multicast mapping holding @addr with a view of every member, in team
 * order: one CUMC_MC_VIEW, which makes every view or none.
 */
static CUresult libcumc_mc_mapping_create(const struct libcumc_driver *drv,
					  CUdeviceptr addr,
					  struct libcumc_mc_mapping **mapp)
{
	__u64 views[CUMC_MAX_DEVICES];
	struct cumc_mc_view view = {
		.size = sizeof(view),
		.addr = addr,
		.views = (uintptr_t)views,
		.num_views = CUMC_MAX_DEVICES,
	};
	struct libcumc_mc_mapping *map;
	unsigned int count, i;
	CUresult res;

	res = libcumc_ioctl(drv, CUMC_MC_VIEW, &view, libcumc_view_errors);
	if (res != CUDA_SUCCESS)
		return res;
	count = view.out_num_members;
	map = calloc(1, sizeof(*map) + count * sizeof(map->views[0]));
	if (!map) {
		for (i = 0; i < count; i++)
			munmap((void *)(uintptr_t)views[i], view.out_length);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	map->addr = view.out_map_addr;
	map->length = view.out_length;
	map->writable = view.out_access == CUMC_ACCESS_READWRITE;
	for (i = 0; i < count; i++)
		map->views[i] = (char *)(uintptr_t)views[i];
	map->num_members = count;
	*mapp = map;
	return CUDA_SUCCESS;
}

static CUresult libcumc_views_insert(struct libcumc_mc_mapping *map)
{
	struct libcumc_mc_mapping **grown;
	size_t i = libcumc_views_search(map->addr);

	grown = realloc(libcumc_views,
			(libcumc_views_count + 1) * sizeof(*grown));
	if (!grown)
		return CUDA_ERROR_OUT_OF_MEMORY;
	libcumc_views = grown;
	memmove(&libcumc_views[i + 1], &libcumc_views[i],
		(libcumc_views_count - i) * sizeof(*grown));
	libcumc_views[i] = map;
	libcumc_views_count++;
	return CUDA_SUCCESS;
}

/* Learn the multicast mapping holding @addr; called without the lock. */
static CUresult libcumc_views_learn(const struct libcumc_driver *drv,
				    CUdeviceptr addr)
{
	struct libcumc_mc_mapping *map;
	CUresult res;

	res = libcumc_mc_mapping_create(drv, addr, &map);
	if (res != CUDA_SUCCESS)
		return res;
	pthread_rwlock_wrlock(&libcumc_views_lock);
	/* Another thread may have learnt it meanwhile. */
	if (libcumc_views_find(addr))
		libcumc_mc_mapping_free(map);
	else if (libcumc_views_insert(map) != CUDA_SUCCESS)
		res = CUDA_ERROR_OUT_OF_MEMORY;
	pthread_rwlock_unlock(&libcumc_views_lock);
	if (res != CUDA_SUCCESS)
		libcumc_mc_mapping_free(map);
	return res;
}

/*
 * The mapping holding [addr, addr + bytes), found with the read lock taken
 * and left taken; errors leave it free.
 */
static CUresult libcumc_mc_lock_find(CUdeviceptr addr, size_t bytes,
				     struct libcumc_mc_mapping **mapp)
{
	const struct libcumc_driver *drv;
	struct libcumc_mc_mapping *map;
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	for (;;) {
		pthread_rwlock_rdlock(&libcumc_views_lock);
		map = libcumc_views_find(addr);
		if (map)
			break;
		pthread_rwlock_unlock(&libcumc_views_lock);
		res = libcumc_views_learn(drv, addr);
		if (res != CUDA_SUCCESS)
			return res;
	}
	if (bytes > map->addr + map->length - addr) {
		pthread_rwlock_unlock(&libcumc_views_lock);
		return CUDA_ERROR_INVALID_VALUE;
	}
	*mapp = map;
	return CUDA_SUCCESS;
}

CUresult libcumc_mc_acquire(CUdeviceptr addr, size_t bytes,
			    struct libcumc_mc_span *span)
{
	struct libcumc_mc_mapping *map;
	CUresult res = libcumc_mc_lock_find(addr, bytes, &map);

	if (res != CUDA_SUCCESS)
		return res;
	span->map = map;
	span->offset = addr - map->addr;
	return CUDA_SUCCESS;
}

CUresult libcumc_mc_acquire_held(struct libcumc_mc_hold *hold,
				 CUdeviceptr addr, size_t bytes,
				 struct libcumc_mc_span *span)
{
	const struct libcumc_mc_mapping *map = hold->map;
	CUresult res;

	if (!map || addr < map->addr || addr - map->addr >= map->length) {
		/* Learning another mapping may take the write lock. */
		libcumc_mc_unhold(hold);
		res = libcumc_mc_lock_find(addr, bytes, &hold->map);
		if (res != CUDA_SUCCESS)
			return res;
		map = hold->map;
	} else if (bytes > map->addr + map->length - addr) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	span->map = map;
	span->offset = addr - map->addr;
	return CUDA_SUCCESS;
}

void libcumc_mc_unhold(struct libcumc_mc_hold *hold)
{
	if (!hold->map)
		return;
	hold->map = NULL;
	pthread_rwlock_unlock(&libcumc_views_lock);
}

void libcumc_mc_release(void)
{
	pthread_rwlock_unlock(&libcumc_views_lock);
}

void libcumc_mc_forget(CUdeviceptr addr, size_t bytes)
{
	size_t i, kept = 0;

	pthread_rwlock_wrlock(&libcumc_views_lock);
	for (i = 0; i < libcumc_views_count; i++) {
		struct libcumc_mc_mapping *map = libcumc_views[i];

		if (map->addr < addr + bytes && addr < map->addr + map->length)
			libcumc_mc_mapping_free(map);
		else
			libcumc_views[kept++] = map;
	}
	libcumc_views_count = kept;
	pthread_rwlock_unlock(&libcumc_views_lock);
}

/* A forked child has none of the views (they are not inherited). */
static void libcumc_mc_forget_parent(void)
{
	size_t i;

	for (i = 0; i < libcumc_views_count; i++)
		free(libcumc_views[i]);
	free(libcumc_views);
	libcumc_views = NULL;
	libcumc_views_count = 0;
	libcumc_views_lock = (pthread_rwlock_t)
		PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
}

__attribute__((constructor)) static void libcumc_mc_atfork(void)
{
	pthread_atfork(NULL, NULL, libcumc_mc_forget_parent);
}
