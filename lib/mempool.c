// SPDX-License-Identifier: MIT
/*
 * Memory pools: the registry, cuMemPoolCreate/Destroy, attributes, access,
 * a pool's mappings and trimming them, and each device's default and
 * current pool.  Below the allocations made from pools (mempool_alloc.c)
 * and their sharing (mempool_share.c), which call down into it only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "entry.h"
#include "mempool.h"
#include "va.h"

pthread_mutex_t libcumc_pools_lock = PTHREAD_MUTEX_INITIALIZER;
/* Every pool, destroyed ones too while they still hold memory. */
static struct libcumc_pool *libcumc_pools;
/* The last id issued: ids count up and are never reused. */
static uintptr_t libcumc_last_pool;
/* Per device: the default pool and the current one, 0 for none yet. */
static uintptr_t libcumc_default_pool[CUMC_MAX_DEVICES];
static uintptr_t libcumc_current_pool[CUMC_MAX_DEVICES];

static struct libcumc_pool *libcumc_pool_by_id(uintptr_t id)
{
	struct libcumc_pool *pool;

	for (pool = libcumc_pools; pool; pool = pool->next)
		if (pool->id == id)
			return pool;
	return NULL;
}

struct libcumc_pool *libcumc_pool_first(void)
{
	return libcumc_pools;
}

struct libcumc_pool *libcumc_pool_find(CUmemoryPool handle)
{
	struct libcumc_pool *pool;

	if (!handle)
		return NULL;
	pool = libcumc_pool_by_id((uintptr_t)handle);
	return pool && pool->live ? pool : NULL;
}

/* A registered pool with the documented defaults: the owner may access it. */
struct libcumc_pool *libcumc_pool_new(const struct libcumc_driver *drv,
				      CUdevice device)
{
	struct libcumc_pool *pool = calloc(1, sizeof(*pool));

	if (!pool)
		return NULL;
	pool->access = calloc(drv->num_devices, 1);
	if (!pool->access) {
		free(pool);
		return NULL;
	}
	pool->id = ++libcumc_last_pool;
	pool->live = true;
	pool->device = device;
	pool->client_fd = -1;
	pool->reuse_follow_event_deps = 1;
	pool->reuse_allow_opportunistic = 1;
	pool->reuse_allow_internal_deps = 1;
	if (device >= 0)
		pool->access[device] = CUMC_ACCESS_READWRITE;
	pool->next = libcumc_pools;
	libcumc_pools = pool;
	return pool;
}

void libcumc_pool_free(struct libcumc_pool *victim)
{
	const struct libcumc_driver *drv;
	struct libcumc_pool **link;

	for (link = &libcumc_pools; *link != victim; link = &(*link)->next)
		;
	*link = victim->next;
	if (victim->anchor && libcumc_driver(&drv) == CUDA_SUCCESS)
		libcumc_release_handle(drv, victim->anchor);
	if (victim->client_fd >= 0)
		close(victim->client_fd);
	free(victim->access);
	free(victim);
}

/* In a forked child: the parent's pools are not the child's (init.c). */
static void libcumc_pools_forget_parent(void)
{
	while (libcumc_pools) {
		struct libcumc_pool *pool = libcumc_pools;

		while (pool->blocks) {
			struct libcumc_block *block = pool->blocks;

			pool->blocks = block->next;
			while (block->segs) {
				struct libcumc_seg *seg = block->segs;

				block->segs = seg->next;
				free(seg);
			}
			free(block);
		}
		while (pool->imports) {
			struct libcumc_import *imp = pool->imports;

			pool->imports = imp->next;
			free(imp);
		}
		/*
		 * The client file is still the parent's here (init.c's handler
		 * may not have run yet): nothing of it is released.
		 */
		pool->anchor = 0;
		libcumc_pool_free(pool);
	}
	memset(libcumc_default_pool, 0, sizeof(libcumc_default_pool));
	memset(libcumc_current_pool, 0, sizeof(libcumc_current_pool));
	pthread_mutex_init(&libcumc_pools_lock, NULL);
}

__attribute__((constructor)) static void libcumc_pools_atfork(void)
{
	pthread_atfork(NULL, NULL, libcumc_pools_forget_parent);
}

/* A client of its own for a pool that may be shared: see mempool.h. */
static int libcumc_pool_open_client(void)
{
	const char *path = getenv("CUMC_DEVICE");

	return open(path ? path : CUMC_DEVICE_PATH, O_RDWR | O_CLOEXEC);
}

/*
 * A POSIX descriptor, a fabric handle, or none; not both at once
 * (NOT_SUPPORTED: the two ways of sharing are made differently, see
 * mempool.h). The Windows types and undefined bits are bad values, as the
 * real driver answers on Linux.
 */
static CUresult libcumc_pool_types_check(CUmemAllocationHandleType types)
{
	if ((unsigned int)types & ~(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR |
				    CU_MEM_HANDLE_TYPE_FABRIC))
		return CUDA_ERROR_INVALID_VALUE;
	if (types == (CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR |
		      CU_MEM_HANDLE_TYPE_FABRIC))
		return CUDA_ERROR_NOT_SUPPORTED;
	return CUDA_SUCCESS;
}

/*
 * The anchor of a fabric pool: what its fabric handle names. Without an
 * IMEX channel the module refuses it (NOT_PERMITTED, documented).
 */
static CUresult libcumc_pool_anchor(const struct libcumc_driver *drv,
				    CUdevice dev, size_t granularity,
				    __u64 *anchor)
{
	return libcumc_mem_create(drv, dev, granularity, CUMC_HANDLE_FABRIC,
				  anchor);
}

static bool libcumc_all_zero(const unsigned char *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/*
 * Device memory only: HOST and HOST_NUMA pools are not provided
 * (HOST_MEMORY_POOLS_SUPPORTED answers 0), nor managed ones; its
 * documented errors name no INVALID_DEVICE, so a bad ordinal is a bad
 * value. As the real driver (580) does, `usage` (an intent) and
 * win32SecurityAttributes (Windows only) are not looked at.
 */
static CUresult libcumc_pool_props_check(const struct libcumc_driver *drv,
					 const CUmemPoolProps *props)
{
	if (props->allocType == CU_MEM_ALLOCATION_TYPE_MANAGED)
		return CUDA_ERROR_NOT_SUPPORTED;
	if (props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
	    !libcumc_all_zero(props->reserved, sizeof(props->reserved)))
		return CUDA_ERROR_INVALID_VALUE;
	if (props->location.type == CU_MEM_LOCATION_TYPE_HOST ||
	    props->location.type == CU_MEM_LOCATION_TYPE_HOST_NUMA)
		return CUDA_ERROR_NOT_SUPPORTED;
	if (props->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
	    libcumc_check_device(drv, props->location.id) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_pool_types_check(props->handleTypes);
}

/*
 * The device's granularity, which every block of the pool is a multiple
 * of, and its memory, beyond which no pool grows.
 */
static CUresult libcumc_pool_granularity(const struct libcumc_driver *drv,
					 CUdevice dev, size_t *granularity,
					 size_t *mem_total)
{
	struct cumc_device_info info;
	CUresult res = libcumc_device_info(drv, dev, &info);

	if (res == CUDA_SUCCESS) {
		*granularity = info.granularity;
		*mem_total = info.mem_total;
	}
	return res;
}

CUresult libcumc_impl_cuMemPoolCreate(const struct libcumc_driver *drv,
				      CUmemoryPool *pool,
				      const CUmemPoolProps *poolProps)
{
	struct libcumc_pool *p;
	size_t granularity, mem_total;
	__u64 anchor = 0;
	int fd = -1;
	CUresult res;

	if (!pool || !poolProps)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_pool_props_check(drv, poolProps);
	if (res == CUDA_SUCCESS)
		res = libcumc_pool_granularity(drv, poolProps->location.id,
					       &granularity, &mem_total);
	if (res == CUDA_SUCCESS &&
	    poolProps->handleTypes == CU_MEM_HANDLE_TYPE_FABRIC)
		res = libcumc_pool_anchor(drv, poolProps->location.id,
					  granularity, &anchor);
	if (res != CUDA_SUCCESS)
		return res;
	if (poolProps->handleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
		fd = libcumc_pool_open_client();
		if (fd < 0)
			return errno == EMFILE || errno == ENFILE ||
			       errno == ENOMEM ? CUDA_ERROR_OUT_OF_MEMORY :
						 CUDA_ERROR_OPERATING_SYSTEM;
	}
	pthread_mutex_lock(&libcumc_pools_lock);
	p = libcumc_pool_new(drv, poolProps->location.id);
	if (p) {
		p->handle_types = poolProps->handleTypes;
		p->max_size = poolProps->maxSize;
		p->granularity = granularity;
		p->mem_total = mem_total;
		p->client_fd = fd;
		p->fabric = anchor != 0;
		p->anchor = anchor;
		*pool = (CUmemoryPool)p->id;
	}
	pthread_mutex_unlock(&libcumc_pools_lock);
	if (!p) {
		if (fd >= 0)
			close(fd);
		if (anchor)
			libcumc_release_handle(drv, anchor);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	return CUDA_SUCCESS;
}

/*
 * A destroyed pool answers no more; its memory goes once its last
 * allocation is freed (mempool_alloc.c frees the pool then).
 */
CUresult libcumc_impl_cuMemPoolDestroy(const struct libcumc_driver *drv,
				       CUmemoryPool pool)
{
	struct libcumc_pool *p;
	CUresult res = CUDA_SUCCESS;

	pthread_mutex_lock(&libcumc_pools_lock);
	p = libcumc_pool_find(pool);
	if (!p || p->is_default) {
		res = CUDA_ERROR_INVALID_VALUE;
	} else {
		p->live = false;
		if (p->device >= 0 && libcumc_current_pool[p->device] == p->id)
			libcumc_current_pool[p->device] =
				libcumc_default_pool[p->device];
		libcumc_pool_trim(drv, p, 0);
		if (!libcumc_pool_busy(p))
			libcumc_pool_free(p);
	}
	pthread_mutex_unlock(&libcumc_pools_lock);
	return res;
}

static CUresult libcumc_reset_high(uint64_t *high, uint64_t current,
				   const void *value)
{
	uint64_t v;

	memcpy(&v, value, sizeof(v));
	if (v)
		return CUDA_ERROR_INVALID_VALUE;
	*high = current;
	return CUDA_SUCCESS;
}

/* A REUSE_* value: the real driver answers any non-zero one as 1. */
static int libcumc_bool(const void *value)
{
	int v;

	memcpy(&v, value, sizeof(v));
	return v != 0;
}

static CUresult libcumc_pool_set_attr(struct libcumc_pool *p,
				      CUmemPool_attribute attr,
				      const void *value)
{
	switch (attr) {
	case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
		p->reuse_follow_event_deps = libcumc_bool(value);
		return CUDA_SUCCESS;
	case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
		p->reuse_allow_opportunistic = libcumc_bool(value);
		return CUDA_SUCCESS;
	case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
		p->reuse_allow_internal_deps = libcumc_bool(value);
		return CUDA_SUCCESS;
	case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
		memcpy(&p->release_threshold, value, sizeof(uint64_t));
		return CUDA_SUCCESS;
	case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
		return libcumc_reset_high(&p->reserved_high, p->reserved,
					  value);
	case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
		return libcumc_reset_high(&p->used_high, p->used, value);
	default:
		/* CURRENT values are read-only; the rest are no attributes. */
		return CUDA_ERROR_INVALID_VALUE;
	}
}

static CUresult libcumc_pool_get_attr(const struct libcumc_pool *p,
				      CUmemPool_attribute attr, void *value)
{
	const uint64_t *u64 = NULL;
	const int *i = NULL;

	switch (attr) {
	case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
		i = &p->reuse_follow_event_deps;
		break;
	case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
		i = &p->reuse_allow_opportunistic;
		break;
	case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
		i = &p->reuse_allow_internal_deps;
		break;
	case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
		u64 = &p->release_threshold;
		break;
	case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT:
		u64 = &p->reserved;
		break;
	case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
		u64 = &p->reserved_high;
		break;
	case CU_MEMPOOL_ATTR_USED_MEM_CURRENT:
		u64 = &p->used;
		break;
	case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
		u64 = &p->used_high;
		break;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (i)
		memcpy(value, i, sizeof(*i));
	else
		memcpy(value, u64, sizeof(*u64));
	return CUDA_SUCCESS;
}

/* One attribute of @pool set (@set) or read, under the pools' lock. */
static CUresult libcumc_pool_attribute(CUmemoryPool pool,
				       CUmemPool_attribute attr, void *value,
				       bool set)
{
	const struct libcumc_driver *drv;
	struct libcumc_pool *p;
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	if (!value)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&libcumc_pools_lock);
	p = libcumc_pool_find(pool);
	if (!p)
		res = CUDA_ERROR_INVALID_VALUE;
	else if (set)
		res = libcumc_pool_set_attr(p, attr, value);
	else
		res = libcumc_pool_get_attr(p, attr, value);
	pthread_mutex_unlock(&libcumc_pools_lock);
	return res;
}

CUresult CUDAAPI cuMemPoolSetAttribute(CUmemoryPool pool,
				       CUmemPool_attribute attr, void *value)
{
	return libcumc_pool_attribute(pool, attr, value, true);
}

CUresult CUDAAPI cuMemPoolGetAttribute(CUmemoryPool pool,
				       CUmemPool_attribute attr, void *value)
{
	return libcumc_pool_attribute(pool, attr, value, false);
}

/* @pool's access of every device, as the module takes it; how many. */
static __u32 libcumc_pool_access_descs(const struct libcumc_driver *drv,
				       const struct libcumc_pool *pool,
				       struct cumc_access_desc *descs)
{
	unsigned int d;

	for (d = 0; d < drv->num_devices && d < CUMC_MAX_DEVICES; d++) {
		descs[d].device = d;
		descs[d].access = pool->access[d];
	}
	return d;
}

/* Grant every device its access of @pool on a mapping. */
static CUresult libcumc_pool_apply_access(const struct libcumc_driver *drv,
					  const struct libcumc_pool *pool,
					  CUdeviceptr addr, size_t length)
{
	struct cumc_access_desc descs[CUMC_MAX_DEVICES];

	return libcumc_va_set_access(drv, addr, length, descs,
				     libcumc_pool_access_descs(drv, pool,
							       descs));
}

CUresult libcumc_pool_map(const struct libcumc_driver *drv,
			  const struct libcumc_pool *pool, __u64 handle,
			  size_t length, CUdeviceptr *addr)
{
	struct cumc_access_desc descs[CUMC_MAX_DEVICES];

	return libcumc_va_map_handle(drv, handle, length, descs,
				     libcumc_pool_access_descs(drv, pool,
							       descs),
				     addr);
}

/* Every mapping of @pool, with its access anew. */
static CUresult libcumc_pool_reapply_access(const struct libcumc_driver *drv,
					    const struct libcumc_pool *pool)
{
	const struct libcumc_block *block;
	const struct libcumc_import *imp;
	CUresult res = CUDA_SUCCESS;

	for (block = pool->blocks; block && res == CUDA_SUCCESS;
	     block = block->next)
		res = libcumc_pool_apply_access(drv, pool, block->addr,
						block->length);
	for (imp = pool->imports; imp && res == CUDA_SUCCESS; imp = imp->next)
		res = libcumc_pool_apply_access(drv, pool, imp->map_addr,
						imp->map_length);
	return res;
}

static void libcumc_block_release(const struct libcumc_driver *drv,
				  struct libcumc_pool *pool,
				  struct libcumc_block *block)
{
	libcumc_va_unmap_handle(drv, block->addr, block->length);
	if (block->handle) {
		struct libcumc_driver pdrv = libcumc_pool_drv(drv, pool);

		libcumc_release_handle(&pdrv, block->handle);
	}
	pool->reserved -= block->length;
	free(block->segs);
	free(block);
}

static bool libcumc_block_unused(const struct libcumc_block *block)
{
	return block->segs->state == CUMC_SEG_FREE && !block->segs->next;
}

void libcumc_pool_trim(const struct libcumc_driver *drv,
		       struct libcumc_pool *pool, uint64_t keep)
{
	struct libcumc_block **link = &pool->blocks;

	while (*link) {
		struct libcumc_block *block = *link;

		if (libcumc_block_unused(block) &&
		    pool->reserved - block->length >= keep) {
			*link = block->next;
			libcumc_block_release(drv, pool, block);
		} else {
			link = &block->next;
		}
	}
}

bool libcumc_pool_busy(const struct libcumc_pool *pool)
{
	return pool->blocks || pool->imports;
}


/*
 * As the real driver (580) answers: devices only (the host: NOT_SUPPORTED),
 * none or read-write access (read-only: NOT_SUPPORTED), a bad ordinal or
 * taking the owning device's access away: INVALID_DEVICE.
 */
static CUresult libcumc_pool_desc_check(const struct libcumc_driver *drv,
					const struct libcumc_pool *pool,
					const CUmemAccessDesc *desc)
{
	if (desc->location.type == CU_MEM_LOCATION_TYPE_HOST ||
	    desc->location.type == CU_MEM_LOCATION_TYPE_HOST_NUMA)
		return CUDA_ERROR_NOT_SUPPORTED;
	if (desc->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
		return CUDA_ERROR_INVALID_VALUE;
	if (desc->flags != CU_MEM_ACCESS_FLAGS_PROT_NONE &&
	    desc->flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
	    desc->flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
		return CUDA_ERROR_INVALID_VALUE;
	if (libcumc_check_device(drv, desc->location.id) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_DEVICE;
	if (desc->flags == CU_MEM_ACCESS_FLAGS_PROT_READ)
		return CUDA_ERROR_NOT_SUPPORTED;
	if (desc->location.id == pool->device &&
	    desc->flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
		return CUDA_ERROR_INVALID_DEVICE;
	return CUDA_SUCCESS;
}

static CUresult libcumc_pool_set_access(const struct libcumc_driver *drv,
					struct libcumc_pool *pool,
					const CUmemAccessDesc *map,
					size_t count)
{
	unsigned char *old;
	CUresult res;
	size_t i;

	for (i = 0; i < count; i++) {
		res = libcumc_pool_desc_check(drv, pool, &map[i]);
		if (res != CUDA_SUCCESS)
			return res;
	}
	old = malloc(drv->num_devices);
	if (!old)
		return CUDA_ERROR_OUT_OF_MEMORY;
	memcpy(old, pool->access, drv->num_devices);
	for (i = 0; i < count; i++)
		pool->access[map[i].location.id] = map[i].flags;
	res = libcumc_pool_reapply_access(drv, pool);
	if (res != CUDA_SUCCESS) {
		/* All or nothing: the mappings go back to what they had. */
		memcpy(pool->access, old, drv->num_devices);
		libcumc_pool_reapply_access(drv, pool);
	}
	free(old);
	return res;
}

CUresult libcumc_impl_cuMemPoolSetAccess(const struct libcumc_driver *drv,
					 CUmemoryPool pool,
					 const CUmemAccessDesc *map,
					 size_t count)
{
	struct libcumc_pool *p;
	CUresult res;

	if (!map)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&libcumc_pools_lock);
	p = libcumc_pool_find(pool);
	res = p ? libcumc_pool_set_access(drv, p, map, count) :
		  CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_unlock(&libcumc_pools_lock);
	return res;
}

CUresult libcumc_impl_cuMemPoolGetAccess(const struct libcumc_driver *drv,
					 CUmemAccess_flags *flags,
					 CUmemoryPool memPool,
					 CUmemLocation *location)
{
	struct libcumc_pool *p;

	if (!flags || !location)
		return CUDA_ERROR_INVALID_VALUE;
	/* The host never has access to device pools (the real driver: NONE). */
	if (location->type != CU_MEM_LOCATION_TYPE_HOST &&
	    (location->type != CU_MEM_LOCATION_TYPE_DEVICE ||
	     libcumc_check_device(drv, location->id) != CUDA_SUCCESS))
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&libcumc_pools_lock);
	p = libcumc_pool_find(memPool);
	if (p)
		*flags = location->type == CU_MEM_LOCATION_TYPE_HOST ?
			 CU_MEM_ACCESS_FLAGS_PROT_NONE :
			 (CUmemAccess_flags)p->access[location->id];
	pthread_mutex_unlock(&libcumc_pools_lock);
	return p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult libcumc_impl_cuMemPoolTrimTo(const struct libcumc_driver *drv,
				      CUmemoryPool pool, size_t minBytesToKeep)
{
	struct libcumc_pool *p;

	pthread_mutex_lock(&libcumc_pools_lock);
	p = libcumc_pool_find(pool);
	if (p)
		libcumc_pool_trim(drv, p, minBytesToKeep);
	pthread_mutex_unlock(&libcumc_pools_lock);
	return p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* The default pool of @dev, made on first use. Under the lock. */
static CUresult libcumc_default_pool_get(const struct libcumc_driver *drv,
					 CUdevice dev, uintptr_t *id)
{
	struct libcumc_pool *pool;
	size_t granularity, mem_total;
	CUresult res;

	if (libcumc_default_pool[dev]) {
		*id = libcumc_default_pool[dev];
		return CUDA_SUCCESS;
	}
	res = libcumc_pool_granularity(drv, dev, &granularity, &mem_total);
	if (res != CUDA_SUCCESS)
		return res;
	pool = libcumc_pool_new(drv, dev);
	if (!pool)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pool->is_default = true;
	pool->granularity = granularity;
	pool->mem_total = mem_total;
	libcumc_default_pool[dev] = pool->id;
	*id = pool->id;
	return CUDA_SUCCESS;
}

CUresult libcumc_impl_cuDeviceGetDefaultMemPool(
	const struct libcumc_driver *drv, CUmemoryPool *pool_out, CUdevice dev)
{
	uintptr_t id;
	CUresult res;

	if (!pool_out)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_check_device(drv, dev);
	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&libcumc_pools_lock);
	res = libcumc_default_pool_get(drv, dev, &id);
	pthread_mutex_unlock(&libcumc_pools_lock);
	if (res == CUDA_SUCCESS)
		*pool_out = (CUmemoryPool)id;
	return res;
}

CUresult libcumc_current_pool_get(const struct libcumc_driver *drv,
				  CUdevice dev, struct libcumc_pool **pool)
{
	uintptr_t id = libcumc_current_pool[dev];
	CUresult res = CUDA_SUCCESS;

	if (!id)
		res = libcumc_default_pool_get(drv, dev, &id);
	if (res == CUDA_SUCCESS)
		*pool = libcumc_pool_by_id(id);
	return res;
}

/* Its documented errors name no INVALID_DEVICE: a bad ordinal is a value. */
CUresult libcumc_impl_cuDeviceGetMemPool(const struct libcumc_driver *drv,
					 CUmemoryPool *pool, CUdevice dev)
{
	struct libcumc_pool *p;
	CUresult res;

	if (!pool || libcumc_check_device(drv, dev) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&libcumc_pools_lock);
	res = libcumc_current_pool_get(drv, dev, &p);
	if (res == CUDA_SUCCESS)
		*pool = (CUmemoryPool)p->id;
	pthread_mutex_unlock(&libcumc_pools_lock);
	return res;
}

/* Only a live pool of this process on that very device. */
CUresult libcumc_impl_cuDeviceSetMemPool(const struct libcumc_driver *drv,
					 CUdevice dev, CUmemoryPool pool)
{
	struct libcumc_pool *p;
	CUresult res = CUDA_SUCCESS;

	if (libcumc_check_device(drv, dev) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&libcumc_pools_lock);
	p = libcumc_pool_find(pool);
	if (!p || p->imported || p->device != dev)
		res = CUDA_ERROR_INVALID_VALUE;
	else
		libcumc_current_pool[dev] = p->id;
	pthread_mutex_unlock(&libcumc_pools_lock);
	return res;
}

/*
 * CUDA 13.0's pools by location and allocation type: device memory's
 * pools are the devices' above.  cumc has no host pools
 * (HOST_MEMORY_POOLS_SUPPORTED is 0) and no managed pools: the default
 * pool of those is NOT_SUPPORTED, which the documentation lists for it;
 * getting or setting the current one, whose documentation lists
 * INVALID_VALUE only, is INVALID_VALUE.
 */
static CUresult libcumc_pool_location_check(const CUmemLocation *location,
					    CUmemAllocationType type)
{
	if (!location)
		return CUDA_ERROR_INVALID_VALUE;
	if (type == CU_MEM_ALLOCATION_TYPE_PINNED) {
		switch (location->type) {
		case CU_MEM_LOCATION_TYPE_DEVICE:
			return CUDA_SUCCESS;
		case CU_MEM_LOCATION_TYPE_HOST:
		case CU_MEM_LOCATION_TYPE_HOST_NUMA:
			return CUDA_ERROR_NOT_SUPPORTED;
		default:
			return CUDA_ERROR_INVALID_VALUE;
		}
	}
	if (type == CU_MEM_ALLOCATION_TYPE_MANAGED) {
		switch (location->type) {
		case CU_MEM_LOCATION_TYPE_NONE:
		case CU_MEM_LOCATION_TYPE_DEVICE:
		case CU_MEM_LOCATION_TYPE_HOST:
		case CU_MEM_LOCATION_TYPE_HOST_NUMA:
			return CUDA_ERROR_NOT_SUPPORTED;
		default:
			return CUDA_ERROR_INVALID_VALUE;
		}
	}
	return CUDA_ERROR_INVALID_VALUE;
}

CUresult libcumc_impl_cuMemGetDefaultMemPool(const struct libcumc_driver *drv,
					     CUmemoryPool *pool_out,
					     CUmemLocation *location,
					     CUmemAllocationType type)
{
	CUresult res = libcumc_pool_location_check(location, type);

	if (res != CUDA_SUCCESS)
		return res;
	return libcumc_impl_cuDeviceGetDefaultMemPool(drv, pool_out,
						      location->id);
}

CUresult libcumc_impl_cuMemGetMemPool(const struct libcumc_driver *drv,
				      CUmemoryPool *pool,
				      CUmemLocation *location,
				      CUmemAllocationType type)
{
	if (libcumc_pool_location_check(location, type) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_impl_cuDeviceGetMemPool(drv, pool, location->id);
}

CUresult libcumc_impl_cuMemSetMemPool(const struct libcumc_driver *drv,
				      CUmemLocation *location,
				      CUmemAllocationType type,
				      CUmemoryPool pool)
{
	if (libcumc_pool_location_check(location, type) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_impl_cuDeviceSetMemPool(drv, location->id, pool);
}
