// SPDX-License-Identifier: MIT
/*
 * cuPointerGetAttribute(s) and cuMemGetAddressRange: what a device address
 * is, answered from one CUMC_VA_QUERY.  CUDA pointers are the addresses in the caller's
 * reservations (cuMemAlloc memory among them, alloc.c), host memory of
 * cuMemHostAlloc and cuMemHostRegister (host_mem.c), and the variables of
 * loaded modules (module_globals.c).
 */
#include <stdbool.h>
#include <string.h>

#include "alloc.h"
#include "context.h"
#include "entry.h"
#include "host_mem.h"
#include "mem_prop.h"
#include "mempool.h"
#include "module_globals.h"
#include "va.h"

/* What the module said about a pointer. */
struct libcumc_pointer {
	CUdeviceptr ptr;
	bool reserved;		/* in a reservation of this client */
	struct cumc_va_query q;	/* out_access: the current device's */
	bool alloc;		/* in a cuMemAlloc allocation */
	struct libcumc_alloc_info a;
	bool host;		/* in host memory CUDA knows of */
	struct libcumc_host_info h;
	bool global;		/* in a variable of a loaded module */
	struct libcumc_global_info g;
};

static bool libcumc_attribute_known(CUpointer_attribute attr)
{
	return attr >= CU_POINTER_ATTRIBUTE_CONTEXT &&
	       attr <= CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE;
}

/* Attributes that answer for the device of the current context. */
static bool libcumc_attribute_needs_context(CUpointer_attribute attr)
{
	return attr == CU_POINTER_ATTRIBUTE_ACCESS_FLAGS ||
	       attr == CU_POINTER_ATTRIBUTE_DEVICE_POINTER;
}

/* Bytes of an attribute's value, to clear it (cuPointerGetAttributes). */
static size_t libcumc_attribute_size(CUpointer_attribute attr)
{
	switch (attr) {
	case CU_POINTER_ATTRIBUTE_CONTEXT:
	case CU_POINTER_ATTRIBUTE_HOST_POINTER:
	case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
		return sizeof(void *);
	case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
	case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
	case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
		return sizeof(CUdeviceptr);
	case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
	case CU_POINTER_ATTRIBUTE_MAPPING_SIZE:
		return sizeof(size_t);
	case CU_POINTER_ATTRIBUTE_BUFFER_ID:
	case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:
		return sizeof(unsigned long long);
	case CU_POINTER_ATTRIBUTE_P2P_TOKENS:
		/* CUDA_POINTER_ATTRIBUTE_P2P_TOKENS: a u64 and a u32, padded. */
		return 2 * sizeof(unsigned long long);
	default:
		/* Enumerations, ordinals, booleans and bitmasks. */
		return sizeof(unsigned int);
	}
}

static CUresult libcumc_pointer_lookup(const struct libcumc_driver *drv,
				       CUdeviceptr ptr, bool needs_context,
				       struct libcumc_pointer *p)
{
	CUdevice dev = 0;
	CUresult res;

	if (needs_context) {
		res = libcumc_current_device(&dev);
		if (res != CUDA_SUCCESS)
			return res;
	}
	p->ptr = ptr;
	p->alloc = libcumc_alloc_lookup(ptr, &p->a);
	p->host = !p->alloc && libcumc_host_lookup(ptr, &p->h);
	p->global = !p->alloc && !p->host && libcumc_global_lookup(ptr, &p->g);
	if (p->host || p->global) {
		p->reserved = false;
		return CUDA_SUCCESS;
	}
	res = libcumc_address_query(drv, ptr, dev, &p->q);
	p->reserved = res == CUDA_SUCCESS;
	return res == CUDA_ERROR_NOT_FOUND ? CUDA_SUCCESS : res;
}

static void libcumc_put_uint(void *data, unsigned int value)
{
	memcpy(data, &value, sizeof(value));
}

static void libcumc_put_u64(void *data, unsigned long long value)
{
	memcpy(data, &value, sizeof(value));
}

/*
 * Attributes of a mapped address.  Memory cumc maps is never managed,
 * legacy-IPC capable, GPUDirect RDMA capable or decompression capable.
 * CONTEXT (no context owns VMM memory), HOST_POINTER (device memory),
 * P2P_TOKENS (cuMemAlloc memory only), SYNC_MEMOPS, BUFFER_ID and
 * MEMORY_BLOCK_ID (the module names no allocation beyond a handle) have
 * no answer; MEMPOOL_HANDLE only for memory of a pool (mempool.h).
 */
static CUresult libcumc_mapping_attribute(const struct libcumc_pointer *p,
					  CUpointer_attribute attr, void *data)
{
	const struct cumc_va_query *q = &p->q;

	switch (attr) {
	case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
		libcumc_put_uint(data, CU_MEMORYTYPE_DEVICE);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
		/* The same address, if the current device may use it. */
		if (q->out_access == CUMC_ACCESS_NONE)
			return CUDA_ERROR_INVALID_VALUE;
		libcumc_put_u64(data, p->ptr);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
		/* A multicast object lives on no one device. */
		if (q->out_type != CUMC_VA_MEM)
			return CUDA_ERROR_INVALID_VALUE;
		libcumc_put_uint(data, q->out_mem_device);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
		libcumc_put_uint(data, libcumc_cuda_handle_types(q->out_handle_types));
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
		/* CUmemAccess_flags and the attribute's flags share values. */
		libcumc_put_uint(data, q->out_access);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_MAPPING_SIZE:
		libcumc_put_u64(data, q->out_map_length);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
		libcumc_put_u64(data, q->out_map_addr);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
		return libcumc_pool_of(p->ptr, data);
	case CU_POINTER_ATTRIBUTE_IS_MANAGED:
	case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
	case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
	case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE:
		libcumc_put_uint(data, 0);
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

/*
 * What host memory and a module's variable answer alike: one range of one
 * context's, mapped for every device at its own address, in no pool.
 */
struct libcumc_whole_range {
	CUcontext ctx;
	CUdevice dev;
	CUmemorytype type;
	CUdeviceptr base;
	size_t size;
	unsigned long long buffer_id;
	unsigned int access;	/* CU_POINTER_ATTRIBUTE_ACCESS_FLAG_* */
	bool host_pointer;	/* HOST_POINTER: the address itself */
	bool handle_types;	/* ALLOWED_HANDLE_TYPES: none */
};

static CUresult libcumc_whole_range_attribute(const struct libcumc_pointer *p,
					      const struct libcumc_whole_range *r,
					      CUpointer_attribute attr,
					      void *data)
{
	switch (attr) {
	case CU_POINTER_ATTRIBUTE_CONTEXT:
		memcpy(data, &r->ctx, sizeof(r->ctx));
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
		libcumc_put_uint(data, r->type);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
		libcumc_put_u64(data, p->ptr);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_HOST_POINTER:
		if (!r->host_pointer)
			return CUDA_ERROR_INVALID_VALUE;
		memcpy(data, &p->ptr, sizeof(void *));
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_BUFFER_ID:
		libcumc_put_u64(data, r->buffer_id);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
		libcumc_put_uint(data, r->dev);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
		libcumc_put_u64(data, r->base);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
		libcumc_put_u64(data, r->size);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_MAPPED:
		libcumc_put_uint(data, 1);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
		libcumc_put_uint(data, r->access);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
		if (!r->handle_types)
			return CUDA_ERROR_INVALID_VALUE;
		libcumc_put_uint(data, 0);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_IS_MANAGED:
	case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
	case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
	case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE:
		libcumc_put_uint(data, 0);
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

/*
 * Host memory: its own address on every device (unified addressing);
 * DEVICE_ORDINAL is the device of the context it was made in, as driver
 * 580 answers.
 */
static CUresult libcumc_host_attribute(const struct libcumc_pointer *p,
				       CUpointer_attribute attr, void *data)
{
	const struct libcumc_host_info *h = &p->h;
	bool read_only = h->registered &&
			 (h->flags & CU_MEMHOSTREGISTER_READ_ONLY);
	struct libcumc_whole_range r = {
		.ctx = h->ctx, .dev = h->dev, .type = CU_MEMORYTYPE_HOST,
		.base = h->base, .size = h->size, .buffer_id = h->buffer_id,
		.access = read_only ? CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READ :
				      CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE,
		.host_pointer = true,
	};

	return libcumc_whole_range_attribute(p, &r, attr, data);
}

/*
 * A module's variable is device memory of its module's context, the one
 * current at the load; a library's variable, the library being every
 * context's, answers for the calling thread's current context (none: no
 * CONTEXT or DEVICE_ORDINAL).  Its range is the variable; it is no
 * mapping of the caller's (no MAPPING_*), nor a pool's.
 */
static CUresult libcumc_global_attribute(const struct libcumc_pointer *p,
					 CUpointer_attribute attr, void *data)
{
	const struct libcumc_global_info *g = &p->g;
	struct libcumc_whole_range r = {
		.ctx = g->ctx, .dev = g->dev, .type = CU_MEMORYTYPE_DEVICE,
		.base = g->base, .size = g->size, .buffer_id = g->buffer_id,
		.access = CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE,
		.handle_types = true,
	};

	if (!r.ctx && (attr == CU_POINTER_ATTRIBUTE_CONTEXT ||
		       attr == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)) {
		if (libcumc_current_device(&r.dev) != CUDA_SUCCESS)
			return CUDA_ERROR_INVALID_VALUE;
		r.ctx = libcumc_stack_top();
	}
	return libcumc_whole_range_attribute(p, &r, attr, data);
}

/*
 * cuMemAlloc memory answers for its allocation where VMM memory answers
 * for its reservation; the rest comes from the mapping beneath.  Managed
 * memory (cuMemAllocManaged) is cuMemAlloc memory that says so.
 */
static bool libcumc_alloc_attribute(const struct libcumc_pointer *p,
				    CUpointer_attribute attr, void *data)
{
	const struct libcumc_alloc_info *a = &p->a;

	switch (attr) {
	case CU_POINTER_ATTRIBUTE_CONTEXT:
		memcpy(data, &a->ctx, sizeof(a->ctx));
		return true;
	case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
		libcumc_put_u64(data, a->base);
		return true;
	case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
		libcumc_put_u64(data, a->size);
		return true;
	case CU_POINTER_ATTRIBUTE_BUFFER_ID:
		libcumc_put_u64(data, a->buffer_id);
		return true;
	case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
		libcumc_put_uint(data, a->sync_memops);
		return true;
	case CU_POINTER_ATTRIBUTE_IS_MANAGED:
		libcumc_put_uint(data, a->managed != 0);
		return true;
	case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
		/* cuIpcGetMemHandle takes cuMemAlloc memory (ipc.c). */
		libcumc_put_uint(data, !a->managed);
		return true;
	case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
		/* Its chunk is exportable for IPC; the memory itself is not. */
		libcumc_put_uint(data, 0);
		return true;
	case CU_POINTER_ATTRIBUTE_HOST_POINTER:
		/* Managed memory is the host's too, at the same address. */
		if (!a->managed)
			return false;
		memcpy(data, &p->ptr, sizeof(void *));
		return true;
	default:
		return false;
	}
}

/* CUDA_ERROR_INVALID_VALUE when @p has no answer for @attr. */
static CUresult libcumc_pointer_attribute(const struct libcumc_pointer *p,
					  CUpointer_attribute attr, void *data)
{
	const struct cumc_va_query *q = &p->q;

	if (p->host)
		return libcumc_host_attribute(p, attr, data);
	if (p->global)
		return libcumc_global_attribute(p, attr, data);
	if (!p->reserved)
		return CUDA_ERROR_INVALID_VALUE;
	if (p->alloc && libcumc_alloc_attribute(p, attr, data))
		return CUDA_SUCCESS;
	/* These describe the reservation, mapped or not. */
	switch (attr) {
	case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
		libcumc_put_u64(data, q->out_va_addr);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
		libcumc_put_u64(data, q->out_va_length);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_MAPPED:
		libcumc_put_uint(data, q->out_map_addr != 0);
		return CUDA_SUCCESS;
	default:
		break;
	}
	if (!q->out_map_addr)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_mapping_attribute(p, attr, data);
}

CUresult libcumc_impl_cuPointerGetAttribute(const struct libcumc_driver *drv,
					    void *data,
					    CUpointer_attribute attribute,
					    CUdeviceptr ptr)
{
	struct libcumc_pointer p;
	CUresult res;

	if (!data || !libcumc_attribute_known(attribute))
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_pointer_lookup(drv, ptr,
				     libcumc_attribute_needs_context(attribute),
				     &p);
	if (res != CUDA_SUCCESS)
		return res;
	return libcumc_pointer_attribute(&p, attribute, data);
}

/*
 * One query for all attributes; those without an answer, for instance all
 * of them for an address that is no CUDA pointer, read as zero.
 */
CUresult libcumc_impl_cuPointerGetAttributes(const struct libcumc_driver *drv,
					     unsigned int numAttributes,
					     CUpointer_attribute *attributes,
					     void **data, CUdeviceptr ptr)
{
	bool needs_context = false;
	struct libcumc_pointer p;
	CUresult res;
	unsigned int i;

	if (!numAttributes || !attributes || !data)
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < numAttributes; i++) {
		if (!libcumc_attribute_known(attributes[i]) || !data[i])
			return CUDA_ERROR_INVALID_VALUE;
		needs_context |= libcumc_attribute_needs_context(attributes[i]);
	}
	res = libcumc_pointer_lookup(drv, ptr, needs_context, &p);
	if (res != CUDA_SUCCESS)
		return res;
	for (i = 0; i < numAttributes; i++)
		if (libcumc_pointer_attribute(&p, attributes[i], data[i]) !=
		    CUDA_SUCCESS)
			memset(data[i], 0,
			       libcumc_attribute_size(attributes[i]));
	return CUDA_SUCCESS;
}

/*
 * Only SYNC_MEMOPS may be set, as documented.  Every memory operation of
 * cumc is synchronous already; the value is kept for cuMemAlloc memory
 * (and read back by cuPointerGetAttribute) and accepted without state for
 * host memory and modules' variables.  As NVIDIA's driver 580 answers (measured), mapped VMM
 * memory is CUDA_ERROR_NOT_SUPPORTED and anything else a bad value.
 */
CUresult libcumc_impl_cuPointerSetAttribute(const struct libcumc_driver *drv,
					    const void *value,
					    CUpointer_attribute attribute,
					    CUdeviceptr ptr)
{
	struct cumc_va_query q;
	unsigned int v;
	CUresult res;

	if (!value || attribute != CU_POINTER_ATTRIBUTE_SYNC_MEMOPS)
		return CUDA_ERROR_INVALID_VALUE;
	memcpy(&v, value, sizeof(v));
	/* A boolean. */
	v = !!v;
	if (libcumc_alloc_set_sync_memops(ptr, v) || libcumc_host_range(ptr, 0) ||
	    libcumc_global_range(ptr, 0))
		return CUDA_SUCCESS;
	res = libcumc_mapping_query(drv, ptr, 0, &q);
	if (res == CUDA_SUCCESS)
		return CUDA_ERROR_NOT_SUPPORTED;
	return res == CUDA_ERROR_NOT_FOUND ? CUDA_ERROR_INVALID_VALUE : res;
}

/*
 * The allocation of cuMemAlloc or cuMemHostAlloc/cuMemHostRegister, or the
 * module's variable, holding @dptr, else the mapping holding it, as the
 * real driver answers for VMM memory.
 */
CUresult libcumc_impl_cuMemGetAddressRange_v2(const struct libcumc_driver *drv,
					      CUdeviceptr *pbase, size_t *psize,
					      CUdeviceptr dptr)
{
	struct libcumc_alloc_info a;
	struct libcumc_global_info g;
	struct libcumc_host_info h;
	struct cumc_va_query q;
	CUdevice dev;
	CUresult res = libcumc_current_device(&dev);

	if (res != CUDA_SUCCESS)
		return res;
	if (libcumc_alloc_lookup(dptr, &a)) {
		q.out_map_addr = a.base;
		q.out_map_length = a.size;
	} else if (libcumc_host_lookup(dptr, &h)) {
		q.out_map_addr = h.base;
		q.out_map_length = h.size;
	} else if (libcumc_global_lookup(dptr, &g)) {
		q.out_map_addr = g.base;
		q.out_map_length = g.size;
	} else {
		res = libcumc_mapping_query(drv, dptr, dev, &q);
		if (res != CUDA_SUCCESS)
			return res;
	}
	if (pbase)
		*pbase = q.out_map_addr;
	if (psize)
		*psize = q.out_map_length;
	return CUDA_SUCCESS;
}
